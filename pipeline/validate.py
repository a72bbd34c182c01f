"""Checks a read seal against every rule in `pipeline.rules.RULES`; the first broken rule refuses it.

Checks are vectorised over whole tables (polars); a broken rule raises `SealRejected` with the rule
id, the kind, the count of offending rows and up to five of them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from datasets.layout import ALPHA_ID_PATTERN, BENCHMARK_SYMBOL_PATTERN
from pipeline.bounded_read import check_columns
from pipeline.rules import SealRejected, differs, fail_if_any
from pipeline.seal import BENCHMARK_DAILY, DESCRIPTION, MANIFEST, SOURCE_ZIP, Seal, expected_files
from schemas import seal as S
from schemas.query import TICKER

# Matched whole (`fullmatch`; in polars, anchored): `re.match` with `$` lets a trailing newline through.
BOOK_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def validate(seal: Seal) -> None:
    if seal.is_benchmark:
        validate_benchmark(seal)
        return
    check_manifest(seal.manifest)
    check_kinds_present(seal)
    check_schemas(seal)
    check_symbols(seal)
    frames = {key: pl.DataFrame(t) for key, t in seal.tables.items()}
    rebalances = frames.get(("rebalances", None))
    decisions = frames.get(("decisions", None))
    if rebalances is not None:
        check_rebalances(rebalances)
    if decisions is not None:
        check_decisions(decisions, rebalances)
    exposures = frames.get(("exposures", None))
    if exposures is not None:
        check_exposures(exposures, rebalances if rebalances is not None else decisions)
    ledgers = {b: f for (k, b), f in frames.items() if k == "portfolio" and b is not None}
    for book, ledger in sorted(ledgers.items()):
        check_ledger(ledger.sort("date"), book)
    for (kind, pnl_book), pnl in sorted(frames.items(), key=lambda item: str(item[0])):
        if kind == "pnl" and pnl_book is not None and pnl_book in ledgers:
            check_pnl(pnl, ledgers[pnl_book].sort("date"), pnl_book)
    trades = {b: f for (k, b), f in frames.items() if k == "trades" and b is not None}
    check_trades(trades, rebalances)
    if seal.description is not None:
        check_text(seal.description, "description")
        check_description(seal.description)
        check_description_tldr(seal.description, seal.manifest)
    check_source_archive(seal)


# --- manifest and files -------------------------------------------------------------------------


def _is_iso_timestamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _is_iso_date(value: Any) -> bool:
    """A calendar date written YYYY-MM-DD (10 characters: no time, no week or ordinal forms)."""
    if not isinstance(value, str) or len(value) != 10:
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _str_list(value: Any) -> list[str] | None:
    """The value when it is a list of strings, else None."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def check_manifest(manifest: dict[str, Any]) -> None:
    problems: list[str] = []

    def need(key: str, ok: bool, expected: str) -> None:
        if not ok:
            problems.append(f"{key} must be {expected} (got {manifest.get(key)!r})")

    need("seal_format", manifest.get("seal_format") == S.SEAL_FORMAT_VERSION, f'"{S.SEAL_FORMAT_VERSION}"')
    need("type", manifest.get("type") == "alpha", '"alpha"')
    alpha_id = manifest.get("alpha_id")
    need("alpha_id", isinstance(alpha_id, str) and bool(ALPHA_ID_PATTERN.fullmatch(alpha_id)), "a valid id")
    need("source_alpha_id", isinstance(manifest.get("source_alpha_id"), str), "a string")
    for key in ("name", "tldr"):
        need(key, manifest.get(key) is None or isinstance(manifest.get(key), str), "a string or null")
    for key in ("started_at", "sealed_at"):
        need(key, _is_iso_timestamp(manifest.get(key)), "an ISO timestamp")
    need("engine_version", isinstance(manifest.get("engine_version"), str), "a string")
    for key in ("kinds_sealed", "required_kinds"):
        kinds = _str_list(manifest.get(key))
        need(key, kinds is not None and set(kinds) <= set(S.ALL_KINDS), f"a list of kinds from {S.ALL_KINDS}")
    books = _str_list(manifest.get("books"))
    need("books", books is not None and all(BOOK_NAME.fullmatch(b) for b in books), "a list of book names")
    trade_books = _str_list(manifest.get("trade_books"))
    allowed_trade_books = {b + suffix for b in books or [] for suffix in ("", *S.TRADE_VARIANT_SUFFIXES)}
    need(
        "trade_books",
        trade_books is not None and set(trade_books) <= allowed_trade_books,
        "books and their _adjustments/_settlements variants",
    )
    for key in ("signal_processing", "metric_conventions"):
        need(key, isinstance(manifest.get(key), dict), "an object")
    universe = manifest.get("universe_size")
    need(
        "universe_size",
        isinstance(universe, int) and not isinstance(universe, bool) and universe > 0,
        "a positive integer",
    )
    cutoff = manifest.get("research_cutoff")
    need("research_cutoff", cutoff is None or _is_iso_date(cutoff), "a date YYYY-MM-DD or null")
    archive = manifest.get("source_archive")
    if archive is not None:
        if not isinstance(archive, dict) or archive.get("status") not in S.SOURCE_ARCHIVE_STATUSES:
            problems.append(f"source_archive.status must be one of {S.SOURCE_ARCHIVE_STATUSES}")
        elif archive["status"] == "ready" and not (
            isinstance(archive.get("size_bytes"), int) and SHA256_HEX.fullmatch(str(archive.get("sha256")))
        ):
            problems.append("a ready source_archive needs integer size_bytes and a 64-hex sha256")
        elif not isinstance(archive.get("filename"), str):
            problems.append("source_archive.filename must be a string")
    if problems:
        raise SealRejected("manifest.fields", "manifest", "; ".join(problems))
    check_text(manifest, "manifest")


# --- text of manifest.json and description.json ------------------------------------------------

BIDI_CONTROL = re.compile(f"[{S.BIDI_CONTROLS}]")


def _texts(value: Any, path: str = "") -> Iterator[tuple[str, str, bool]]:
    """Every text of a JSON document as (path, text, is_key): `classification.tags[]` for a
    tag, the key itself for an object's key."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            yield inner, str(key), True
            yield from _texts(item, inner)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item, f"{path}[]")


def _lists(value: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every list of a JSON document as (path, number of items)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _lists(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        yield path, len(value)
        for item in value:
            yield from _lists(item, f"{path}[]")


def check_text(document: dict[str, Any], kind: str) -> None:
    """`<kind>.text_bounds` and `<kind>.no_bidi_controls` over every text, key and list of
    manifest.json or description.json (`kind`), bounds from schemas/seal.py."""
    default = S.MANIFEST_TEXT_MAX_CHARS if kind == "manifest" else S.DESCRIPTION_TEXT_MAX_CHARS
    over: list[dict[str, Any]] = []
    bidi: list[dict[str, Any]] = []
    for path, text, is_key in _texts(document):
        bound = S.KEY_MAX_CHARS if is_key else S.TEXT_MAX_CHARS.get(path, default)
        if len(text) > bound:
            over.append(
                {"path": path, "key" if is_key else "text": text[:60], "chars": len(text), "limit": bound}
            )
        found = BIDI_CONTROL.search(text)
        if found is not None:
            bidi.append({"path": path, "character": f"U+{ord(found[0]):04X}", "at": found.start()})
    for path, items in _lists(document):
        bound = S.LIST_MAX_ITEMS.get(path, S.DEFAULT_LIST_MAX_ITEMS)
        if items > bound:
            over.append({"path": path, "items": items, "limit": bound})
    if over:
        first = over[0]
        what = f"{first['items']:,} items" if "items" in first else f"{first['chars']:,} characters"
        raise SealRejected(
            f"{kind}.text_bounds",
            kind,
            f"{len(over)} value(s) over their bound; {first['path']} has {what}, at most "
            f'{first["limit"]:,} (docs/seal.md "Text")',
            samples=over,
        )
    if bidi:
        raise SealRejected(
            f"{kind}.no_bidi_controls",
            kind,
            f"{len(bidi)} text(s) hold a bidirectional control character, which would reorder the "
            f"text shown beside them; {bidi[0]['path']} holds {bidi[0]['character']}",
            samples=bidi,
        )


# --- symbols ------------------------------------------------------------------------------------


def check_symbols(seal: Seal) -> None:
    """Every `symbol` is a ticker as the API's `symbol=` takes it: a text a spreadsheet would run
    (`=HYPERLINK(...)`) or one that reorders its neighbours has no business there."""
    for (kind, book), table in sorted(seal.tables.items(), key=lambda item: str(item[0])):
        if "symbol" not in table.column_names:
            continue
        frame = pl.DataFrame(table.select(["symbol"]))
        where = f"{kind}/{book}" if book else kind
        fail_if_any(
            "symbols.ticker_pattern",
            kind,
            frame.with_columns(file=pl.lit(where)),
            # Anchored by hand, as week_status is: Rust's `$` is the end of the text, never before a
            # final newline.
            ~pl.col("symbol").str.contains(f"^(?:{TICKER})$"),
            f"{where}: symbol is not a ticker (ASCII letters, digits, `.`, `_`, `-`; starting with a "
            "letter or digit; at most 24 characters)",
        )


def check_kinds_present(seal: Seal) -> None:
    declared = expected_files(seal.manifest)
    present = {f for f in seal.files if f.endswith(".parquet")}
    missing = sorted(declared - present)
    undeclared = sorted(present - declared)
    extra = sorted(set(seal.files) - present - {MANIFEST, DESCRIPTION, SOURCE_ZIP})
    if missing or undeclared or extra:
        parts = []
        if missing:
            parts.append(f"declared but absent: {', '.join(missing)}")
        if undeclared:
            parts.append(f"present but not declared: {', '.join(undeclared)}")
        if extra:
            parts.append(f"unknown files: {', '.join(extra)}")
        kind = (missing or undeclared or extra)[0].split("/")[0].removesuffix(".parquet")
        raise SealRejected("manifest.kinds_present", kind, "; ".join(parts))


def check_schemas(seal: Seal) -> None:
    for (kind, book), table in sorted(seal.tables.items(), key=lambda item: str(item[0])):
        _check_schema(table, S.KIND_SCHEMAS[kind], kind, book)


def _check_schema(table: pa.Table, expected: pa.Schema, kind: str, book: str | None) -> None:
    where = f"{kind}/{book}" if book else kind
    check_columns(table.schema, expected, kind, where)
    for field in expected:
        if not field.nullable and table.column(field.name).null_count:
            count = table.column(field.name).null_count
            raise SealRejected(
                "schema.not_null",
                kind,
                f"{where}: {count:,} of {table.num_rows:,} rows have a null {field.name}",
            )
        _check_dates(table.column(field.name), field, kind, where)


FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2199, 12, 31)
"""The days a seal's dates and instants may fall on. Outside them a value is damage, and one past
year 9999 cannot even be read back as a date (polars panics, it does not raise)."""


def _check_dates(column: pa.ChunkedArray, field: pa.Field, kind: str, where: str) -> None:
    """Compared as the stored integers (days, or the timestamp's unit since the epoch), never
    converted to dates before they are known to be in range."""
    if pa.types.is_date32(field.type):
        low, high = (pa.scalar(d, pa.date32()).cast(pa.int32()).as_py() for d in (FIRST_DAY, LAST_DAY))
        values = column.cast(pa.int32())
    elif pa.types.is_timestamp(field.type):
        unit = pa.timestamp(field.type.unit)
        ends = (datetime(1900, 1, 1), datetime(2200, 1, 1))
        low, high = (pa.scalar(moment, unit).cast(pa.int64()).as_py() for moment in ends)
        values = column.cast(pa.int64())
    else:
        return
    bounds = pc.min_max(values).as_py()
    if bounds["min"] is not None and (bounds["min"] < low or bounds["max"] > high):
        raise SealRejected(
            "schema.date_range",
            kind,
            f"{where}: {field.name} has a value outside {FIRST_DAY.isoformat()}..{LAST_DAY.isoformat()}",
        )


# --- signals ------------------------------------------------------------------------------------


def check_rebalances(rebalances: pl.DataFrame) -> None:
    fail_if_any(
        "rebalances.unique_dates",
        "rebalances",
        rebalances,
        pl.col("date").is_duplicated(),
        "the date appears more than once",
    )
    status = pl.col("week_status")
    valid = (
        (status == "traded")
        | (status == "pending")
        | (status.str.contains(f"^(?:{SNAKE_CASE.pattern})$") & (status != "skipped"))
    )
    fail_if_any(
        "rebalances.week_status_values",
        "rebalances",
        rebalances,
        ~valid,
        "week_status is not traded, pending or a snake_case skip reason (`skipped` is never sealed)",
    )


def check_decisions(decisions: pl.DataFrame, rebalances: pl.DataFrame | None) -> None:
    kind = "decisions"
    fail_if_any(
        "decisions.unique_date_symbol",
        kind,
        decisions,
        pl.struct("date", "symbol").is_duplicated(),
        "(date, symbol) appears more than once",
    )
    if rebalances is not None:
        fail_if_any(
            "rebalances.decisions_join",
            kind,
            decisions,
            ~pl.col("date").is_in(rebalances["date"].implode()),
            "decision date is not in the rebalance index",
        )
    fail_if_any(
        "decisions.score_is_direction_times_confidence",
        kind,
        decisions,
        pl.col("score").is_not_null()
        & differs(pl.col("score"), pl.col("direction").cast(pl.Float64) * pl.col("confidence")),
        "score differs from direction x confidence",
    )
    fail_if_any(
        "decisions.raw_score_is_raw_direction_times_raw_confidence",
        kind,
        decisions,
        pl.col("pre_smoothing_score").is_not_null()
        & differs(
            pl.col("pre_smoothing_score"), pl.col("raw_direction").cast(pl.Float64) * pl.col("raw_confidence")
        ),
        "pre_smoothing_score differs from raw_direction x raw_confidence",
    )
    fail_if_any(
        "decisions.direction_is_sign_of_score",
        kind,
        decisions,
        (
            pl.col("score").is_not_null()
            & (pl.col("direction") != pl.col("score").sign().cast(pl.Int8)).fill_null(True)
        )
        | (
            pl.col("pre_smoothing_score").is_not_null()
            & (pl.col("raw_direction") != pl.col("pre_smoothing_score").sign().cast(pl.Int8)).fill_null(True)
        )
        | (pl.col("confidence") < 0).fill_null(False)
        | (pl.col("raw_confidence") < 0).fill_null(False),
        "direction is not the sign of the score (or a confidence is negative)",
    )
    fail_if_any(
        "decisions.reason_values",
        kind,
        decisions,
        ~(
            (pl.col("decision_reason").is_in(S.DECISION_REASONS) | pl.col("decision_reason").is_null())
            & (
                pl.col("raw_decision_reason").is_in(S.DECISION_REASONS)
                | pl.col("raw_decision_reason").is_null()
            )
        ),
        f"decision_reason or raw_decision_reason is not one of {', '.join(S.DECISION_REASONS)} (or null)",
    )
    weights = [
        "long_short_target_weight",
        "long_only_target_weight",
        "raw_long_short_target_weight",
        "raw_long_only_target_weight",
    ]
    untradeable = ~pl.col("next_open_tradeable")
    reason = pl.col("unavailability_reason")
    nonzero_weight = pl.any_horizontal([pl.col(w) != 0 for w in weights])
    fail_if_any(
        "decisions.untradeable_has_zero_weights_and_reason",
        kind,
        decisions,
        (untradeable & (nonzero_weight | ~reason.is_in(S.UNAVAILABILITY_REASONS).fill_null(False)))
        | (~untradeable & reason.is_not_null()),
        "an untradeable name needs four zero target weights and a known unavailability_reason; "
        "a tradeable one a null reason",
    )
    for column in ("long_only_target_weight", "raw_long_only_target_weight"):
        sums = (
            decisions.group_by("date")
            .agg(
                pl.col(column).filter(pl.col(column) > 0).sum().alias("sum_of_held_weights"),
                pl.len().alias("rows"),
            )
            .filter(pl.col("sum_of_held_weights") > 0)
            .sort("date")
        )
        fail_if_any(
            "decisions.long_only_weights_sum_to_one",
            kind,
            sums,
            differs(pl.col("sum_of_held_weights"), pl.lit(1.0)),
            f"weeks whose held {column} do not sum to 1",
        )
    if rebalances is not None:
        pending = rebalances.filter(pl.col("week_status") == "pending")["date"].implode()
        fail_if_any(
            "decisions.pending_week_has_no_fill_or_forward_return",
            kind,
            decisions,
            pl.col("date").is_in(pending)
            & (
                pl.col("fill_at").is_not_null()
                | pl.col("raw_fill_at").is_not_null()
                | pl.col("forward_return").is_not_null()
            ),
            "a pending week carries fill_at, raw_fill_at or forward_return",
        )


# --- books --------------------------------------------------------------------------------------


def check_exposures(exposures: pl.DataFrame, weeks: pl.DataFrame | None) -> None:
    """The optional `exposures` kind: one row per name and rebalance week; sectors are text a page,
    a CSV cell and `sector=` carry; loadings and adv are numbers a regression can use."""
    kind = "exposures"
    fail_if_any(
        "exposures.unique_date_symbol",
        kind,
        exposures,
        pl.struct("date", "symbol").is_duplicated(),
        "(date, symbol) appears more than once",
    )
    if weeks is not None:
        fail_if_any(
            "exposures.rebalance_dates",
            kind,
            exposures,
            ~pl.col("date").is_in(weeks["date"].unique().implode()),
            "date is not a rebalance date of this seal",
        )
    fail_if_any(
        "exposures.sector_text",
        kind,
        exposures.select("date", "symbol", "sector"),
        pl.col("sector").is_not_null() & ~pl.col("sector").str.contains(f"^(?:{S.SECTOR_PATTERN.pattern})$"),
        "sector is not plain text (a letter, then letters, digits, spaces and & , . _ -; at most 64 characters)",
    )
    numbers = [*S.STYLE_FACTORS, "adv"]
    fail_if_any(
        "exposures.finite_values",
        kind,
        exposures.select("date", "symbol", *numbers),
        pl.any_horizontal(pl.col(c).is_not_null() & ~pl.col(c).is_finite() for c in numbers),
        "a style loading or adv is NaN or infinite",
    )
    fail_if_any(
        "exposures.adv_positive",
        kind,
        exposures.select("date", "symbol", "adv"),
        pl.col("adv") <= 0,
        "adv is not greater than 0",
    )


def check_ledger(ledger: pl.DataFrame, book: str) -> None:
    kind = "portfolio"
    ending = (
        pl.col("starting_equity")
        + pl.col("market_pnl")
        + pl.col("execution_cost")
        + pl.col("borrow_cashflow")
        + pl.col("cash_carry")
        + pl.col("rounding_adjustment")
    )
    fail_if_any(
        "ledger.ending_equity_identity",
        kind,
        ledger.with_columns(book=pl.lit(book)),
        differs(pl.col("ending_equity"), ending),
        f"book {book}: ending_equity differs from starting_equity plus the day's P&L, carry and rounding",
    )
    fail_if_any(
        "ledger.cash_plus_positions_is_equity",
        kind,
        ledger.with_columns(book=pl.lit(book)),
        differs(pl.col("cash_end") + pl.col("position_value_end"), pl.col("ending_equity")),
        f"book {book}: cash_end + position_value_end differs from ending_equity",
    )
    previous = pl.col("ending_equity").shift(1).fill_null(1.0)
    fail_if_any(
        "ledger.starting_equity_chain",
        kind,
        ledger.with_columns(book=pl.lit(book), expected_starting_equity=previous),
        differs(pl.col("starting_equity"), pl.col("expected_starting_equity"))
        | pl.col("date").is_duplicated(),
        f"book {book}: starting_equity is not the previous ending_equity (1.0 at inception), or a date repeats",
    )


def check_pnl(pnl: pl.DataFrame, ledger: pl.DataFrame, book: str) -> None:
    kind = "pnl"
    components = ("market_pnl", "execution_cost", "borrow_cashflow")
    per_session = pnl.group_by("date").agg(
        *[pl.col(c).sum().alias(f"sum_{c}") for c in components],
        (pl.col("market_pnl") + pl.col("execution_cost") + pl.col("borrow_cashflow"))
        .sum()
        .alias("sum_net_pnl"),
        pl.len().alias("pnl_rows"),
    )
    joined = (
        ledger.select(
            "date", "starting_equity", "ending_equity", "cash_carry", "rounding_adjustment", *components
        )
        .join(per_session, on="date", how="full", coalesce=True)
        .with_columns(pl.col(f"sum_{c}").fill_null(0.0) for c in (*components, "net_pnl"))
        .with_columns(book=pl.lit(book))
        .sort("date")
    )
    fail_if_any(
        "pnl.net_pnl_sums_to_equity_change",
        kind,
        joined,
        differs(
            pl.col("sum_net_pnl") + pl.col("cash_carry") + pl.col("rounding_adjustment"),
            pl.col("ending_equity") - pl.col("starting_equity"),
        ),
        f"book {book}: sessions where sum(net_pnl) + cash_carry + rounding_adjustment differs from "
        "ending_equity - starting_equity (or the session has no ledger row)",
    )
    fail_if_any(
        "pnl.sums_to_ledger",
        kind,
        joined,
        pl.any_horizontal([differs(pl.col(f"sum_{c}"), pl.col(c)) for c in components]),
        f"book {book}: sessions whose per-symbol market_pnl, execution_cost or borrow_cashflow do not sum to the ledger row",
    )


def check_trades(trades: dict[str, pl.DataFrame], rebalances: pl.DataFrame | None) -> None:
    kind = "trades"
    for book, frame in sorted(trades.items()):
        labelled = frame.with_columns(book=pl.lit(book))
        if rebalances is not None:
            fail_if_any(
                "trades.decision_at_joins_rebalance",
                kind,
                labelled,
                ~pl.col("decision_at").is_in(rebalances["date"].implode()),
                f"book {book}: decision_at is not a rebalance date",
            )
        fail_if_any(
            "trades.enums",
            kind,
            labelled,
            ~pl.col("phase").is_in(S.TRADE_PHASES)
            | ~(
                pl.col("rebalance_adjustment_reason").is_in(S.ADJUSTMENT_REASONS)
                | pl.col("rebalance_adjustment_reason").is_null()
            )
            | ~(pl.col("exit_reason").is_in(S.EXIT_REASONS) | pl.col("exit_reason").is_null()),
            f"book {book}: phase, rebalance_adjustment_reason or exit_reason outside its enum",
        )
    for book, frame in sorted(trades.items()):
        for suffix, phases in (("_adjustments", ("rebalance",)), ("_settlements", ("open", "close"))):
            if not book.endswith(suffix):
                continue
            parent = trades.get(book.removesuffix(suffix))
            indexed = frame.with_row_index("row")
            known = (
                indexed.join(parent, on=frame.columns, how="semi", nulls_equal=True)["row"]
                if parent is not None
                else pl.Series("row", [], dtype=pl.UInt32)
            )
            fail_if_any(
                "trades.variants_are_subsets",
                kind,
                indexed.with_columns(book=pl.lit(book)),
                ~pl.col("row").is_in(known.implode()) | ~pl.col("phase").is_in(phases),
                f"book {book}: rows absent from {book.removesuffix(suffix)} or with a phase other than "
                f"{'/'.join(phases)}",
            )


# --- description, archive, benchmark -------------------------------------------------------------


def check_description(description: dict[str, Any]) -> None:
    papers = description.get("source_papers") or []
    if not isinstance(papers, list) or not all(isinstance(p, dict) for p in papers):
        raise SealRejected(
            "description.exactly_one_seed", "description", "source_papers must be a list of objects"
        )
    if not papers:
        return
    roles = [p.get("role") for p in papers]
    unknown = [r for r in roles if r not in S.CITATION_ROLES]
    seeds = roles.count("seed")
    if unknown or seeds != 1:
        raise SealRejected(
            "description.exactly_one_seed",
            "description",
            f"{seeds} of {len(papers)} citations have role seed (exactly one required)"
            + (f"; unknown roles {unknown}" if unknown else ""),
            samples=[{k: p.get(k) for k in ("title", "role")} for p in papers],
        )


def check_description_tldr(description: dict[str, Any], manifest: dict[str, Any]) -> None:
    """The catalogue (`/v1/alphas`, search) serves the manifest's tldr and the description
    (`/v1/alphas/{alpha}`) description.json's: a seal carrying two different texts would be served
    saying both. A description without a tldr (or a null one) takes the manifest's."""
    written, summary = description.get("tldr"), manifest.get("tldr")
    if written is None or written == summary:
        return
    raise SealRejected(
        "description.tldr_matches_manifest",
        "description",
        f"description.json has tldr {written!r} but manifest.json has {summary!r}; the catalogue "
        "(/v1/alphas) would serve the manifest's and the description (/v1/alphas/{alpha}) "
        "description.json's. Seal one text: the same tldr in both files, or none in description.json "
        "(the description then shows the manifest's)",
        samples=[{"manifest.tldr": summary, "description.tldr": written}],
    )


def check_source_archive(seal: Seal) -> None:
    archive = seal.manifest.get("source_archive")
    if seal.source_zip is None or not archive or archive.get("status") != "ready":
        return
    digest = hashlib.sha256(seal.source_zip).hexdigest()
    if digest != archive["sha256"] or len(seal.source_zip) != archive["size_bytes"]:
        raise SealRejected(
            "source.sha256_matches",
            "source",
            f"source.zip has {len(seal.source_zip):,} bytes and sha256 {digest}; the manifest records "
            f"{archive['size_bytes']:,} bytes and {archive['sha256']}",
        )


def validate_benchmark(seal: Seal) -> None:
    manifest = seal.manifest
    problems = []
    if manifest.get("seal_format") != S.SEAL_FORMAT_VERSION:
        problems.append(f'seal_format must be "{S.SEAL_FORMAT_VERSION}"')
    if not isinstance(manifest.get("symbol"), str) or not BENCHMARK_SYMBOL_PATTERN.fullmatch(
        manifest["symbol"]
    ):
        problems.append(f"symbol must match {BENCHMARK_SYMBOL_PATTERN.pattern}")
    for key in ("name", "currency"):
        if not isinstance(manifest.get(key), str):
            problems.append(f"{key} must be a string")
    if problems:
        raise SealRejected("manifest.fields", "manifest", "; ".join(problems))
    check_text(manifest, "manifest")
    if set(seal.files) - {MANIFEST} != {BENCHMARK_DAILY}:
        raise SealRejected(
            "manifest.kinds_present",
            "benchmark",
            f"a benchmark seal holds exactly {BENCHMARK_DAILY}; found {seal.files}",
        )
    table = seal.tables[("daily", None)]
    _check_schema(table, S.BENCHMARK_DAILY, "benchmark", None)
    daily = pl.from_arrow(table)
    assert isinstance(daily, pl.DataFrame)
    fail_if_any(
        "benchmark.dates_ascending_positive_close",
        "benchmark",
        daily,
        (pl.col("date") <= pl.col("date").shift(1)).fill_null(False)
        | (pl.col("close") <= 0)
        | (pl.col("adjusted_close") <= 0).fill_null(False),
        "dates not strictly ascending, or a close not positive",
    )
