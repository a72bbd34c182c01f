"""Publishing one seal: validate, derive, write a whole build, then switch the pointer.

The content id is a hash of the seal's content and the pipeline version; the pointer records it,
so the same seal built again is "unchanged" and writes nothing. Every publish writes into a build
folder of its own, `builds/<build_id>/` with `build_id = <content id>-<random suffix>`, which no
other publish can name, under a publish lease (`datasets.retention`) that keeps any collector away
from it while it is written. The build's rows are committed to the open tables first
(`pipeline.lake_tables`; read through the generation committed after the switch); its folder (the
serving files, the exports' index, and last `alpha.json` with the size and SHA-256 of every other
file) is written completely before `_current.json` is replaced in
one atomic step; a crash before that step leaves the previous pointer, hence the previous build,
served unchanged. A publish that finds the pointer already on its content when it comes to switch
(the other publish of the same seal switched first) does not switch, deletes the folder it created
and reports "unchanged".

After the switch, the alpha's garbage is collected (`datasets.retention.collect`): builds that
left the pointer's history (superseded long enough ago that no worker serves them) and folders of
killed publishes or prunes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl
import pyarrow as pa

from alpha_results_seal import arrow_schemas as seal_schema
from alpha_results_seal.check import SealCheck
from alpha_results_seal.description import normalise_description
from alpha_results_seal.families import DEFAULT_TEAM
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.seal import Seal, open_seal
from alpha_results_seal.seal_limits import SealLimits
from alpha_results_seal.storage import Storage
from analytics.regimes import regime_table
from analytics.series import (
    BENCHMARK_ROW_BYTES,
    COMPUTED_EXPORTS,
    EQUITY_ROW_BYTES,
    benchmark_row_bytes,
    benchmark_table,
    equity_row_bytes,
)
from datasets import catalog, clock, layout, publish_lock, retention
from datasets.export_files import AlphaExports, write_benchmark_exports
from datasets.layout import history_seconds as history_seconds  # the build command checks the setting
from datasets.publish_lock import PublishBusy
from datasets.serving_layout import AlphaServing, write_benchmark_serving
from datasets.writer import BuildWriter, dumps
from pipeline import PIPELINE_VERSION, index_rows, knowledge, lake_tables
from pipeline.derive import DerivedAlpha, derive
from pipeline.families import join_family
from schemas import lake
from schemas.alpha_ids import is_test_alpha


@dataclass
class Outcome:
    seal: str
    target: str  # alpha_id, or `benchmark:<symbol>`
    status: str  # published | unchanged | refused
    build_id: str | None = None
    rows: int = 0
    bytes: int = 0
    rejection: dict[str, Any] | None = field(default=None)
    restated: int = 0
    """Rows of the alpha's `restatements` this publish added: published values it changed."""
    detail: str | None = None
    """What else the line says: why a publish lost its race, a rollback published by force."""

    def line(self) -> str:
        if self.status == "refused":
            return f"refused    {self.target}  ({self.seal})"
        if self.status == "lost_race":
            return f"lost race  {self.target}  ({self.seal}): {self.detail}; nothing written, run it again"
        line = f"{self.status:<10} {self.target}  build {self.build_id}  {self.rows:,} rows  {self.bytes:,} bytes"
        if self.restated:
            line += f'  RESTATED {self.restated} published value(s) (docs/lake.md, "Restatements")'
        if self.detail:
            line += f"  [{self.detail}]"
        return line


def content_id_for(seal: Seal) -> str:
    """What a build of `seal` holds: the same seal and pipeline version give the same content id."""
    return hashlib.sha256(f"{seal.content_sha256}:{PIPELINE_VERSION}".encode()).hexdigest()[:20]


def new_build_id(content_id: str) -> str:
    """A build folder name no other publish uses, even one of the same seal at the same moment."""
    return f"{content_id}-{uuid.uuid4().hex[:8]}"


def pointed_content(pointer: dict[str, Any] | None) -> str | None:
    """The content id of the build a pointer names. Pointers written before content ids were
    recorded name a build whose id is the content id itself."""
    if not pointer:
        return None
    content_id = pointer.get("content_id") or pointer.get("build_id")
    return content_id if isinstance(content_id, str) else None


Record = Callable[..., int]
"""`pipeline.index_rows.record`, or `_not_recorded` for a publish that defers the index."""


def _not_recorded(lake_root: str, alpha_ids: Sequence[str] = (), benchmarks: Sequence[str] = ()) -> int:
    return 0


def publish_seal(
    seal_path: str,
    lake_root: str,
    indexed: bool = True,
    limits: SealLimits | None = None,
    team: str | None = DEFAULT_TEAM,
    allow_rollback: bool = False,
) -> Outcome:
    """Builds one seal into the lake, then commits its row of the catalogue index unless
    `indexed` is false (a backfill, indexed once after by `alpha-results lake index`). Raises SealRejected
    when it breaks a rule, `seal.size_limits` included (`limits`: the declared defaults when None),
    or when it is older than the run published (`knowledge.ROLLBACK_RULE`) unless `allow_rollback`.
    Another publish of the alpha running at the same time makes it `lost_race`, nothing written;
    the family rules for a build publishing as `team` (the seal joins its family first)."""
    seal_storage = Storage(seal_path)
    seal = open_seal(seal_path, seal_storage, limits)
    record = index_rows.record if indexed else _not_recorded
    check = SealCheck(seal, limits)
    if seal.is_benchmark:
        return publish_benchmark(check, seal_storage, lake_root, record)
    lake_storage = Storage(lake_root)
    content_id = content_id_for(seal)
    if check.manifest():  # the content may be published already: then nothing more is read
        alpha_id = seal.manifest["alpha_id"]
        pointer = catalog.read_json(lake_storage, layout.alpha_pointer(lake_root, alpha_id))
        if pointed_content(pointer) == content_id:
            record(
                lake_root, [alpha_id, *finish_interrupted(lake_root, indexed)]
            )  # a lake indexed before this build: no-op
            return _unchanged(seal_path, alpha_id, lake_storage, lake_root, pointer)

    check.contents()
    check.refuse()  # every broken rule, the first named (the manifest's among them)
    alpha_id = seal.manifest["alpha_id"]
    if (family := seal.manifest.get("family")) is not None:
        # Against the register as it is now, the membership written in the same step (issue 60).
        join_family(lake_root, family, alpha_id, team, (limits or SealLimits()).family_members)
    pointer_path = layout.alpha_pointer(lake_root, alpha_id)
    derived = derive(seal)
    seal.tables.clear()  # what is published is derived: the decoded seal is not read again (issue 78)

    build_id = new_build_id(content_id)
    builds_dir = layout.alpha_builds_dir(lake_root, alpha_id)
    build_dir = layout.alpha_build_dir(lake_root, alpha_id, build_id)
    writer = BuildWriter(lake_storage)
    try:
        with publish_lock.hold(lake_storage, lake_root, alpha_id, build_id) as held:
            # The build this one replaces, read under the alpha's lock: no other publish can
            # switch the pointer until this one is done.
            pointer = catalog.read_json(lake_storage, pointer_path)
            if pointed_content(pointer) == content_id:  # the same seal, published meanwhile
                record(lake_root, [alpha_id])
                return _unchanged(seal_path, alpha_id, lake_storage, lake_root, pointer)
            if pointer is not None and isinstance(pointer.get("build_id"), str):
                # A publish killed after its switch whose intent this one broke (expired): its
                # generation named now, when the tables hold its commits (`lake_tables._holds`).
                lake_tables.finish_generation(lake_root, alpha_id, pointer["build_id"])
            before = knowledge.read_predecessor(lake_storage, lake_root, alpha_id, pointer)
            last = _last_session(derived)
            older = knowledge.rollback(seal.manifest.get("sealed_at"), last, before)
            if older is not None and not allow_rollback:
                raise SealRejected(
                    knowledge.ROLLBACK_RULE,
                    "manifest",
                    f"{older}. A retry of an older run is refused so that no published session goes back "
                    "silently; to publish it all the same, run the build with --allow-rollback (every "
                    "session it changes or drops is recorded as a restatement)",
                )
            now = clock.now()
            restated = knowledge.restated(derived, before)
            derived.single.update(
                knowledge.as_tables(
                    knowledge.known_sessions(derived, before, build_id, now),
                    knowledge.restatements(restated, before, build_id, now),
                )
            )
            with retention.publish_lease(lake_storage, builds_dir, build_id):
                # The open tables first: what changed, one commit per table, read by no one until
                # the generation below names their versions. Before `write_tables`, which empties
                # the derived book frames as it writes them (issue 78, item 5).
                opened = lake_tables.publish_alpha(lake_root, alpha_id, build_id, derived)
                write_tables(writer, build_dir, derived, seal.manifest["kinds_sealed"])
                source = write_source(lake_storage, lake_root, seal, writer, build_dir)
                if seal.description is not None:
                    description = normalise_description(
                        seal.description, alpha_id, seal.manifest.get("name"), seal.manifest.get("tldr")
                    )
                    writer.write_json(layout.join(build_dir, layout.DESCRIPTION_JSON), description)
                entry = alpha_entry(seal, derived, writer, build_id, source, opened.sizes)
                entry["first_published_at"] = first_published(pointer, now)
                entry["files"] = writer.manifest(build_dir)
                writer.write_json(layout.join(build_dir, layout.ALPHA_JSON), entry)
                document = {"alpha_id": alpha_id, "build_id": build_id, "content_id": content_id}
                switch_pointer(lake_storage, pointer_path, document, now)
                held.switched()
                lake_tables.commit_generation(lake_root, alpha_id, build_id, opened, clock.now())
            # Readers see the build from this generation on; publishes a killed run left half
            # committed are finished in the same commit.
            record(lake_root, [alpha_id, *finish_interrupted(lake_root, indexed)])
    except PublishBusy as exc:
        retention.delete_build(lake_storage, build_dir)  # nothing was written, unless a lease expired
        return Outcome(seal_path, alpha_id, "lost_race", detail=str(exc))
    retention.collect(lake_storage, builds_dir, pointer_path)
    return Outcome(
        seal_path,
        alpha_id,
        "published",
        build_id,
        sum(t["rows"] for t in opened.sizes.values()),
        entry["build_bytes"],
        restated=restated.height,
        detail=f"{older}; published all the same (--allow-rollback)" if older else None,
    )


def _last_session(derived: DerivedAlpha) -> dt.date | None:
    """The last session of the run's ledger books (None: no ledger)."""
    ledgers = derived.books.get("portfolio", {})
    dates = [frame["date"].max() for frame in ledgers.values() if frame.height]
    found = max((d for d in dates if d is not None), default=None)
    return found if isinstance(found, dt.date) else None


def finish_interrupted(lake_root: str, indexed: bool = True) -> list[str]:
    """The alphas whose publish was killed after its pointer switch and before the catalogue
    committed it (`datasets.publish_lock`), to commit now with the caller's (their pointer names
    the build to serve); an intent killed before its switch is dropped. Returns none when the
    caller does not index (a deferred backfill: `lake index` finishes them)."""
    if not indexed:
        return []
    storage = Storage(lake_root)
    alphas = []
    for intent, switched in interrupted_publishes(lake_root):
        if switched:
            alphas.append(intent.alpha_id)  # committed by the caller's record
            # Its table commits all came before the switch: the generation names them now.
            lake_tables.finish_generation(lake_root, intent.alpha_id, intent.build_id)
        publish_lock.clear(storage, lake_root, intent)
    return alphas


def interrupted_publishes(lake_root: str) -> list[tuple[publish_lock.Intent, bool]]:
    """Every publish killed before the catalogue committed it (`datasets.publish_lock.interrupted`),
    each with whether its pointer was switched to its build (then the next commit serves it; else
    the intent is dropped and its folder is garbage). Read only: what `lake gc` lists without
    `--apply`, and what `finish_interrupted` finishes."""
    storage = Storage(lake_root)
    found = []
    for intent in publish_lock.interrupted(storage, lake_root):
        pointer = catalog.read_json(storage, layout.alpha_pointer(lake_root, intent.alpha_id))
        found.append((intent, pointer is not None and pointer.get("build_id") == intent.build_id))
    return found


def finish_interrupted_publishes(lake_root: str) -> list[str]:
    """`alpha-results lake gc --apply` and `lake index`: every publish killed between its pointer
    switch and the catalogue commit finished now (the catalogue commits the build its pointer
    names, so the pointer and the API name the same build again); an intent never switched is
    dropped (its folder is garbage). Returns the alphas committed."""
    alphas = finish_interrupted(lake_root)
    if alphas:
        index_rows.record(lake_root, alphas)
    return alphas


def _unchanged(
    seal_path: str, alpha_id: str, storage: Storage, lake_root: str, pointer: dict[str, Any] | None
) -> Outcome:
    """The outcome of a publish whose content the pointer already names (its build, not ours)."""
    assert pointer is not None
    build_id = str(pointer["build_id"])
    rows = size = 0
    entry_path = layout.join(layout.alpha_build_dir(lake_root, alpha_id, build_id), layout.ALPHA_JSON)
    entry = catalog.read_json(storage, entry_path)
    if entry is not None:
        rows = sum(t["rows"] for t in entry.get("tables", {}).values())
        size = int(entry.get("build_bytes", 0))
    return Outcome(seal_path, alpha_id, "unchanged", build_id, rows=rows, bytes=size)


def lake_table(frame: pl.DataFrame, table: str) -> pa.Table:
    """A derived frame as its published Arrow table (`schemas.lake`)."""
    schema = lake.TABLE_SCHEMAS[table]
    return frame.to_arrow().select(schema.names).cast(schema)


def write_tables(writer: BuildWriter, build_dir: str, derived: DerivedAlpha, kinds_sealed: list[str]) -> None:
    """The serving files of the build's tables, then the Parquet exports' index, each export
    serialised from the serving files (so it holds what the API serves) to record its size and
    SHA-256 (the server makes it again on its first ask: pipeline 2.13.0). The rows themselves are the open tables' (committed before:
    `pipeline.lake_tables`); the build folder holds no Parquet copy of them (pipeline 2.12.0). A
    book table at a time (issue 78, item 5): its serving files and exports are written and its
    Arrow copies dropped before the next table's are made; the frames of `derived.books` but the
    ledgers are emptied once written (the build's entry reads their books' names)."""
    single = {name: lake_table(frame, name) for name, frame in derived.single.items()}
    serving = AlphaServing(writer, build_dir, single, {EQUITY_ROW_BYTES: ("portfolio", equity_row_bytes)})
    exporting = AlphaExports(writer, build_dir, kinds_sealed, COMPUTED_EXPORTS)
    # The smallest book table first, each emptied once written (but the ledgers, which the build's
    # entry reads), then the decisions: the derived frames still held shrink as the tables'
    # serving copies are made (issue 78, item 5).
    for table in sorted(derived.books, key=lambda name: _frames_size(derived.books[name])):
        _write_book_table(table, derived.books[table], serving, exporting)
        if table != "portfolio":
            derived.books[table] = {book: frame.clear() for book, frame in derived.books[table].items()}
    _write_decisions(derived.decisions, serving, exporting)
    serving.finish()
    exporting.finish()


def _write_decisions(derived: pl.DataFrame | None, serving: AlphaServing, exporting: AlphaExports) -> None:
    """The decision and rebalance serving files and exports; their Arrow copies live until this returns."""
    decisions = None if derived is None else lake_table(derived, "decisions")
    for kind, served in serving.decisions(decisions).items():
        exporting.add(kind, served)


def _write_book_table(
    table: str, frames: dict[str, pl.DataFrame], serving: AlphaServing, exporting: AlphaExports
) -> None:
    """One book table's serving files and exports; its Arrow copies live until this returns."""
    served, ranges = serving.books(table, {book: lake_table(frame, table) for book, frame in frames.items()})
    exporting.add(table, served, ranges)


def _frames_size(frames: dict[str, pl.DataFrame]) -> int:
    return sum(int(frame.estimated_size()) for frame in frames.values())


def write_source(
    storage: Storage, lake_root: str, seal: Seal, writer: BuildWriter, build_dir: str
) -> dict[str, Any] | None:
    """Copies a delivered archive to its content address (verified) and writes source.json."""
    record = seal.manifest.get("source_archive")
    if not record:
        return None
    alpha_id = seal.manifest["alpha_id"]
    delivered = record.get("status") == "ready" and seal.source_zip is not None
    object_path = None
    if delivered:
        assert seal.source_zip is not None
        sha256 = record["sha256"]
        target = layout.archive_path(lake_root, alpha_id, sha256)
        if not storage.exists(target):
            # Atomically: another publish of the same seal may be reading it back right now.
            storage.replace_atomically(target, seal.source_zip)
        copied = hashlib.sha256(storage.read_bytes(target)).hexdigest()
        if copied != sha256:
            storage.delete_tree(target)
            raise SealRejected(
                "source.sha256_matches",
                "source",
                f"the copy in the lake has sha256 {copied}, expected {sha256}",
            )
        object_path = target[len(lake_root.rstrip("/")) + 1 :]
    source = {
        "status": record.get("status"),
        "filename": record.get("filename"),
        "size_bytes": record.get("size_bytes"),
        "sha256": record.get("sha256"),
        "delivered": delivered,
        "object_path": object_path,
    }
    writer.write_json(layout.join(build_dir, layout.SOURCE_JSON), source)
    return source


def alpha_entry(
    seal: Seal,
    derived: DerivedAlpha,
    writer: BuildWriter,
    build_id: str,
    source: dict[str, Any] | None,
    tables: dict[str, dict[str, int]],
) -> dict[str, Any]:
    """The build's `alpha.json`; `tables` is what the open tables hold of it per table
    (`pipeline.lake_tables.Written.sizes`: rows, and the files and bytes of its data there)."""
    manifest = seal.manifest
    kinds_present = [k for k in seal_schema.ALL_KINDS if k in manifest["kinds_sealed"]]
    required = [k for k in seal_schema.ALL_KINDS if k in manifest["required_kinds"]]
    missing = [k for k in required if k not in kinds_present]
    books = {kind: sorted(frames) for kind, frames in derived.books.items()}
    return {
        "alpha_id": manifest["alpha_id"],
        "source_alpha_id": manifest["source_alpha_id"],
        "name": manifest.get("name") or manifest["alpha_id"],
        "tldr": manifest.get("tldr"),
        "is_test": is_test_alpha(manifest["alpha_id"]),  # the seal's flag: not production, open to keys
        "started_at": manifest["started_at"],
        "sealed_at": manifest["sealed_at"],
        "engine_version": manifest["engine_version"],
        "build_id": build_id,
        "built_at": clock.now().isoformat(timespec="seconds"),
        "pipeline_version": PIPELINE_VERSION,
        "seal_sha256": seal.content_sha256,
        "kinds_present": kinds_present,
        "required_kinds": required,
        "missing_kinds": missing,
        "complete": not missing,
        "books": books,
        "universe_size": manifest["universe_size"],
        **_date_span(derived),
        "has_description": seal.description is not None,
        # The date the research stopped looking (optional): where its out-of-sample part starts
        # unless an approval says otherwise (analytics.live).
        "research_cutoff": manifest.get("research_cutoff"),
        # The trial family the run is a variant of and its parameters (optional): the catalogue
        # groups a family's members, whose probability of backtest overfitting is computed together.
        **{k: manifest[k] for k in ("family", "parameters") if manifest.get(k) is not None},
        # Whether the run asks for its alpha to be reviewed (the build run records the nomination:
        # pipeline.build_events); it approves nothing.
        **(
            {"nominate": True, "nomination_note": manifest.get("nomination_note")}
            if manifest.get("nominate")
            else {}
        ),
        "source_archive": source,
        "signal_processing": manifest["signal_processing"],
        "metric_conventions": manifest["metric_conventions"],
        "tables": tables,
        "build_bytes": sum(f.bytes for f in writer.written),
    }


def _date_span(derived: DerivedAlpha) -> dict[str, str | None]:
    """The first and last rebalance (the rebalance index's, else the decisions') and session (the
    portfolio books' ledgers) of a build."""
    rebalance_dates = (
        derived.single["rebalances"]["date"]
        if "rebalances" in derived.single
        else (derived.decisions["date"] if derived.decisions is not None else None)
    )
    ledgers = derived.books.get("portfolio", {})
    session_dates = pl.concat([f["date"] for f in ledgers.values()]) if ledgers else None
    return {
        "first_rebalance": _iso(rebalance_dates.min()) if rebalance_dates is not None else None,
        "last_rebalance": _iso(rebalance_dates.max()) if rebalance_dates is not None else None,
        "first_session": _iso(session_dates.min()) if session_dates is not None else None,
        "last_session": _iso(session_dates.max()) if session_dates is not None else None,
    }


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def first_published(pointer: dict[str, Any] | None, now: datetime) -> str:
    """When the catalogue first published the alpha, as the next pointer (and its build's entry)
    carries it: the current pointer's, else (a pointer written before it was recorded) that
    pointer's own publish time, the earliest the lake still knows; `now` for a new alpha."""
    if pointer is None:
        return now.isoformat(timespec="seconds")
    return str(
        pointer.get("first_published_at") or pointer.get("published_at") or now.isoformat(timespec="seconds")
    )


def switch_pointer(
    storage: Storage, pointer_path: str, document: dict[str, Any], now: datetime | None = None
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Replaces the pointer; returns the pointer it replaced and the new one.

    The pointer is re-read right before it is replaced, not taken from the start of the publish:
    another publish of the same alpha may have switched it meanwhile, and its build must enter
    the history rather than vanish from it. When that pointer already names the content of
    `document` (another publish of the same seal switched first), nothing is written and the new
    pointer returned is None.
    """
    previous = catalog.read_json(storage, pointer_path)
    if pointed_content(previous) == document["content_id"]:
        return previous, None
    now = now or clock.now()
    document = {
        **document,
        "published_at": now.isoformat(timespec="seconds"),
        "first_published_at": first_published(previous, now),
        **retention.next_history(previous, document["build_id"], now.timestamp()),
    }
    storage.replace_atomically(pointer_path, dumps(document))
    return previous, document


def publish_benchmark(
    check: SealCheck, seal_storage: Storage, lake_root: str, record: Record = index_rows.record
) -> Outcome:
    """`publish_seal` of a benchmark seal (`check`: its rules, none run yet)."""
    seal = check.seal
    symbol = str(seal.manifest.get("symbol"))
    target = f"benchmark:{symbol}"
    content_id = content_id_for(seal)
    lake_storage = Storage(lake_root)
    if check.manifest():  # the symbol names the pointer: read only once it is valid
        pointer = catalog.read_json(lake_storage, layout.benchmark_pointer(lake_root, symbol))
        if pointer is not None and pointed_content(pointer) == content_id:
            # A publish of this seal killed between its switch and its generation: finished now.
            lake_tables.finish_benchmark_generation(lake_root, symbol, str(pointer["build_id"]))
            record(lake_root, benchmarks=[symbol])
            return _benchmark_unchanged(seal.path, symbol, lake_storage, lake_root, pointer)
    # The benchmark file is `daily.parquet` in the seal too, which load_contents keys as kind `daily`.
    check.contents()
    check.refuse()
    pointer_path = layout.benchmark_pointer(lake_root, symbol)
    build_id = new_build_id(content_id)
    builds_dir = layout.benchmark_builds_dir(lake_root, symbol)
    build_dir = layout.benchmark_build_dir(lake_root, symbol, build_id)
    writer = BuildWriter(lake_storage)
    daily = pl.from_arrow(seal.tables[("daily", None)])
    assert isinstance(daily, pl.DataFrame)
    lock = publish_lock.benchmark_intent_path(lake_root, symbol)
    try:
        # One publish of the symbol at a time, as an alpha's: a second one stops here, before it
        # writes, instead of failing on the open tables' commit conflict.
        with publish_lock.hold(lake_storage, lake_root, target, build_id, path=lock):
            with retention.publish_lease(lake_storage, builds_dir, build_id):
                daily_table = daily.sort("date").to_arrow()
                written = writer.write_parquet(
                    layout.join(build_dir, layout.BENCHMARK_DAILY), daily_table, lake.BENCHMARK_DAILY
                )
                # The regimes of every session (analytics/regimes.py), labelled once here, never per request.
                served = write_benchmark_serving(
                    writer, build_dir, daily_table, regime_table, {BENCHMARK_ROW_BYTES: benchmark_row_bytes}
                )
                write_benchmark_exports(writer, build_dir, benchmark_table(served))
                info = {k: seal.manifest.get(k) for k in ("symbol", "name", "currency")}
                info |= {
                    "build_id": build_id,
                    "seal_sha256": seal.content_sha256,
                    "rows": written.rows,
                    "first_date": _iso(daily["date"].min()),
                    "last_date": _iso(daily["date"].max()),
                    "bytes": written.bytes,
                    "files": writer.manifest(build_dir),
                }
                writer.write_json(layout.join(build_dir, layout.BENCHMARK_JSON), info)
                opened = lake_tables.publish_benchmark(lake_root, symbol, build_id, daily)
                document = {"symbol": symbol, "build_id": build_id, "content_id": content_id}
                before, after = switch_pointer(lake_storage, pointer_path, document)
                if after is None:  # another publish of this seal switched first: its build is served
                    retention.delete_build(lake_storage, build_dir)  # the folder this publish created
                    record(lake_root, benchmarks=[symbol])
                    return _benchmark_unchanged(seal.path, symbol, lake_storage, lake_root, before)
                lake_tables.commit_generation(lake_root, f"benchmark:{symbol}", build_id, opened, clock.now())
    except PublishBusy as exc:
        retention.delete_build(lake_storage, build_dir)  # nothing was written, unless a lease expired
        return Outcome(seal.path, target, "lost_race", detail=str(exc))
    record(lake_root, benchmarks=[symbol])
    retention.collect(lake_storage, builds_dir, pointer_path)
    return Outcome(
        seal.path, target, "published", build_id, written.rows, sum(f.bytes for f in writer.written)
    )


def _benchmark_unchanged(
    seal_path: str, symbol: str, storage: Storage, lake_root: str, pointer: dict[str, Any] | None
) -> Outcome:
    assert pointer is not None
    build_id = str(pointer["build_id"])
    info_path = layout.join(layout.benchmark_build_dir(lake_root, symbol, build_id), layout.BENCHMARK_JSON)
    info = catalog.read_json(storage, info_path) or {}
    return Outcome(
        seal_path,
        f"benchmark:{symbol}",
        "unchanged",
        build_id,
        int(info.get("rows", 0)),
        int(info.get("bytes", 0)),
    )
