"""What the lake knew when: each session's first publication, and every restatement (issue 64).

A publish reads the build it replaces (its *predecessor*, the build the alpha's pointer names when
the publish holds the alpha's publish lock) and writes two tables into the new build:

- `known_sessions`: for every session of every ledger book and every week of scores, when the lake
  first published it and in which build. A session the predecessor held keeps its time; a new one
  is dated now, by our clock (`datasets.clock`), never by what the seal claims. So the time is
  carried across rebuilds, republishes and pipeline versions, and "live" (first seen after a
  decision was recorded: `analytics.tenure`) is a comparison with a column, not a scan of history.
- `restatements`: every change this run makes to what was already published, with both values and
  the run, added to the predecessor's rows: a session's return (`ending_equity / starting_equity -
  1` of a ledger book) that moved beyond rounding, a session that went away or was inserted before
  the predecessor's last one; a week of scores in which a name's score moved, came or went; a
  stored metric of a closed period (a year or a month that ended before the predecessor's
  second-to-last week: every weekly IC in it was realised) whose value moved. Figures over a whole history (the `overall` stored metrics)
  move with every new session and are not restatements.

A predecessor written before these tables (pipeline < 2.5) has no `known_sessions`: its sessions
are dated when that build was published (its pointer's `published_at`), the earliest time the lake
can prove it held them.

A *rollback* is a run older than the one published: sealed before it, or ending before its last
session (a scheduler retrying yesterday's run after today's). It is refused
(`ROLLBACK_RULE`), unless the operator forces it; forced, every session it drops is a restatement.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from alpha_results_seal.storage import Storage
from datasets import layout
from pipeline.build_files import build_rows, read_build, rows_in_folder, served_build
from pipeline.derive import DerivedAlpha
from schemas import lake
from schemas.lake import KNOWN_SESSIONS, RESTATEMENTS

ROLLBACK_RULE = "publish.not_older_than_published"
"""The rule a rollback breaks (docs/seal.md, "Refusals"; `alpha-results build --allow-rollback`)."""

RELATIVE = 1e-9
ABSOLUTE = 1e-12
"""A value moved when |after - before| > ABSOLUTE + RELATIVE x max(|before|, |after|): beyond the
rounding of the same figure computed again (the tolerance of every identity the pipeline checks,
docs/lake.md, with a floor for values near zero)."""

CLOSED_SCOPES = ("yearly", "monthly")
"""The stored metrics' scopes whose periods close: a closed period's value is a restatement when it
moves. `overall` covers the whole history, which every new session changes."""


def ledger_metric(name: str) -> bool:
    """Whether a stored metric is made of the ledger's sessions alone (a return, a ratio of returns,
    a drawdown, P&L, turnover), so its closed period cannot move unless a session does. A metric of
    the weekly IC (`mean_ic`, `icir`, their `raw_` twins, `ic_hit_rate`...) is made of forward
    returns an engine may realise weeks later (a legacy engine's quarter-long horizon), so its
    periods close when the engine says, not the lake: its changes show as the scores' and the
    sessions' restatements, never as its own."""
    words = name.split("_")
    return not ({"ic", "icir", "coverage"} & set(words))


@dataclass(frozen=True)
class Predecessor:
    """The build a publish replaces, as far as knowledge time needs it."""

    build_id: str
    published_at: dt.datetime
    entry: dict[str, Any]
    known: pl.DataFrame | None
    restatements: pl.DataFrame | None
    returns: pl.DataFrame  # book, date, value: each ledger book's session returns
    scores: pl.DataFrame | None  # date, symbol, score
    metrics: pl.DataFrame | None  # scope, period, metric, value

    @property
    def sealed_at(self) -> str | None:
        found = self.entry.get("sealed_at")
        return found if isinstance(found, str) else None

    @property
    def last_session(self) -> dt.date | None:
        found = self.entry.get("last_session")
        return dt.date.fromisoformat(found) if isinstance(found, str) and found else None


def _moved(before: pl.Expr, after: pl.Expr) -> pl.Expr:
    """A value that differs beyond rounding, or is present on one side only (NaN equals NaN)."""
    both_nan = before.is_nan() & after.is_nan()
    tolerance = ABSOLUTE + RELATIVE * pl.max_horizontal(before.abs(), after.abs())
    differs = ((after - before).abs() > tolerance) & ~both_nan
    return (before.is_null() != after.is_null()) | differs.fill_null(False)


def session_returns(books: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """(book, date, value): each ledger book's session returns, `ending_equity / starting_equity -
    1` (null where the starting equity is 0), as every figure reads them (`analytics.returns`)."""
    frames = [
        frame.select(
            pl.lit(book).alias("book"),
            "date",
            pl.when(pl.col("starting_equity") != 0)
            .then(pl.col("ending_equity") / pl.col("starting_equity") - 1.0)
            .alias("value"),
        )
        for book, frame in sorted(books.items())
    ]
    schema = {"book": pl.String, "date": pl.Date, "value": pl.Float64}
    return pl.concat(frames) if frames else pl.DataFrame(schema=schema)


PREDECESSOR_TABLES = frozenset({"portfolio", "decisions", "known_sessions", "restatements", "metrics_stored"})
"""What a publish reads of the build it replaces."""
PREDECESSOR_SPECS = tuple(spec for spec in lake.TABLES if spec.name in PREDECESSOR_TABLES)

PREDECESSOR_COLUMNS = {
    "portfolio": ["book", "date", "starting_equity", "ending_equity"],
    "decisions": ["date", "symbol", "score"],
}
"""Of the two large tables, the columns read from the open tables (the others: all)."""


def read_predecessor(
    storage: Storage, lake_root: str, alpha_id: str, pointer: dict[str, Any] | None
) -> Predecessor | None:
    """The build `pointer` names, read for knowledge time; None for a first publish (or a pointer
    whose build is gone: nothing of it can be carried). Its rows are read from the open tables at
    the versions the alpha's newest generation names when that generation is of this build
    (`predecessor_rows`), else from the build's own Parquet (a build of a pipeline before 2.12.0
    published before the open tables, on a lake `lake convert` has not moved over). A build of
    2.12.0 on that no generation names (a publish killed after its switch and never finished) was
    never served: the build replaced is then the one the newest generation names
    (`PredecessorUnreadable` when there is none: the tables are lost)."""
    if not pointer or not isinstance(pointer.get("build_id"), str):
        return None
    build_id = pointer["build_id"]
    build_dir = layout.alpha_build_dir(lake_root, alpha_id, build_id)
    entry_bytes = layout.join(build_dir, layout.ALPHA_JSON)
    if not storage.exists(entry_bytes):
        return None
    entry = json.loads(storage.read_bytes(entry_bytes))
    published = pointer.get("published_at") or entry.get("built_at")
    published_at = (
        dt.datetime.fromisoformat(str(published).replace("Z", "+00:00"))
        if published
        else dt.datetime.now(dt.UTC)
    )
    if published_at.tzinfo is None:
        published_at = published_at.replace(tzinfo=dt.UTC)
    found = predecessor_rows(lake_root, alpha_id, build_id)
    if found is None and rows_in_folder(entry):
        found = read_build(storage, build_dir, PREDECESSOR_SPECS)
    elif found is None:
        # A build of pipeline 2.12.0 on whose generation was never committed (a publish killed
        # after its pointer switch, not finished): the API never served it; the build it replaces
        # is the one the alpha's newest generation names, what the API serves.
        build_id, published_at, entry = _served_build(storage, lake_root, alpha_id, build_id)
        found = predecessor_rows(lake_root, alpha_id, build_id)
        assert found is not None  # the newest generation is of `build_id`
    return Predecessor(
        build_id=build_id,
        published_at=published_at,
        entry=entry,
        known=found.single.get("known_sessions"),
        restatements=found.single.get("restatements"),
        returns=session_returns(found.books.get("portfolio", {})),
        scores=None if found.decisions is None else found.decisions.select("date", "symbol", "score"),
        metrics=found.single.get("metrics_stored"),
    )


class PredecessorUnreadable(RuntimeError):
    """The build a publish replaces cannot be read: carrying nothing of it would date every session
    anew and drop its restatements, so the publish stops (fails loud) instead."""


def _served_build(
    storage: Storage, lake_root: str, alpha_id: str, pointed: str
) -> tuple[str, dt.datetime, dict[str, Any]]:
    """(build id, when its generation was committed, its entry; {} when retention removed its
    folder) of the build the alpha's newest generation names (`pipeline.build_files.served_build`)."""
    served = served_build(lake_root, alpha_id)
    if served is None:
        raise PredecessorUnreadable(
            f"{alpha_id}: the pointer names build {pointed} (pipeline 2.12.0 or later: its rows are in "
            "the open tables only), but no generation of the open tables names any build of the alpha: "
            "the lake's tables/ folder is missing or damaged. Restore it, then publish again"
        )
    build_id, committed_at = served
    entry_path = layout.join(layout.alpha_build_dir(lake_root, alpha_id, build_id), layout.ALPHA_JSON)
    entry = json.loads(storage.read_bytes(entry_path)) if storage.exists(entry_path) else {}
    return build_id, committed_at, entry


def predecessor_rows(lake_root: str, alpha_id: str, build_id: str) -> DerivedAlpha | None:
    """`PREDECESSOR_TABLES` of the alpha's build `build_id` from the open tables
    (`pipeline.build_files.build_rows`), when the alpha's newest generation is of that build; else
    None (no tables, or the build predates them)."""
    return build_rows(lake_root, alpha_id, build_id, PREDECESSOR_SPECS, PREDECESSOR_COLUMNS, newest=True)


def rollback(sealed_at: str | None, last_session: dt.date | None, before: Predecessor | None) -> str | None:
    """Why a run is older than the one published (`ROLLBACK_RULE`), or None."""
    if before is None:
        return None
    if sealed_at and before.sealed_at and _instant(sealed_at) < _instant(before.sealed_at):
        return (
            f"the run was sealed at {sealed_at}, before the published run (build {before.build_id}, "
            f"sealed at {before.sealed_at})"
        )
    if last_session is not None and before.last_session is not None and last_session < before.last_session:
        return (
            f"the run's last session is {last_session}, before the published run's {before.last_session} "
            f"(build {before.build_id}): publishing it would take sessions back"
        )
    return None


def _instant(text: str) -> dt.datetime:
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _sessions(derived: DerivedAlpha) -> pl.DataFrame:
    """(dataset, book, date) of every ledger session and week of scores the new build holds."""
    frames = [
        frame.select(pl.lit("portfolio").alias("dataset"), pl.lit(book).alias("book"), "date").unique()
        for book, frame in sorted(derived.books.get("portfolio", {}).items())
    ]
    if derived.decisions is not None:
        weeks = derived.decisions.select(
            pl.lit("decisions").alias("dataset"), pl.lit(None, pl.String).alias("book"), "date"
        ).unique()
        frames.append(weeks)
    schema = {"dataset": pl.String, "book": pl.String, "date": pl.Date}
    return pl.concat(frames) if frames else pl.DataFrame(schema=schema)


def _previous_known(before: Predecessor) -> pl.DataFrame:
    """The predecessor's knowledge: its table, else its sessions dated at its publication."""
    if before.known is not None:
        return before.known.select("dataset", "book", "date", "first_published_at", "first_build_id")
    frames = [before.returns.select(pl.lit("portfolio").alias("dataset"), "book", "date")]
    if before.scores is not None:
        frames.append(
            before.scores.select(
                pl.lit("decisions").alias("dataset"), pl.lit(None, pl.String).alias("book"), "date"
            ).unique()
        )
    return pl.concat(frames).with_columns(
        first_published_at=pl.lit(before.published_at).dt.cast_time_unit("us").dt.convert_time_zone("UTC"),
        first_build_id=pl.lit(before.build_id),
    )


def known_sessions(
    derived: DerivedAlpha, before: Predecessor | None, build_id: str, now: dt.datetime
) -> pl.DataFrame:
    """The new build's `known_sessions`: each session it holds, with the time the lake first
    published it (the predecessor's, else `now`)."""
    held = _sessions(derived)
    stamp = pl.lit(now).dt.cast_time_unit("us").dt.convert_time_zone("UTC")
    if before is None:
        found = held.with_columns(first_published_at=stamp, first_build_id=pl.lit(build_id))
    else:
        found = held.join(
            _previous_known(before), on=["dataset", "book", "date"], how="left", nulls_equal=True
        ).with_columns(
            pl.col("first_published_at").fill_null(stamp),
            pl.col("first_build_id").fill_null(pl.lit(build_id)),
        )
    return found.sort("dataset", "book", "date", nulls_last=False)


def _changed(before: pl.DataFrame, now: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The rows of `before` and `now` (each `keys` and `value`) joined, with `before` and `after`,
    that differ: present on one side only, or moved beyond rounding."""
    joined = (
        before.rename({"value": "before"})
        .with_columns(_was=pl.lit(True))
        .join(
            now.rename({"value": "after"}).with_columns(_is=pl.lit(True)), on=keys, how="full", coalesce=True
        )
    )
    joined = joined.with_columns(pl.col("_was").fill_null(False), pl.col("_is").fill_null(False))
    both = pl.col("_was") & pl.col("_is")
    return joined.filter(
        (pl.col("_was") != pl.col("_is")) | (both & _moved(pl.col("before"), pl.col("after")))
    )


def _returns_restated(derived: DerivedAlpha, before: Predecessor) -> pl.DataFrame:
    """Sessions whose return moved, went away, or were inserted before the predecessor's last
    session of that book (a book the predecessor did not hold is all new)."""
    now = session_returns(derived.books.get("portfolio", {}))
    last = before.returns.group_by("book").agg(pl.col("date").max().alias("_last"))
    changed = (
        _changed(before.returns, now, ["book", "date"])
        .join(last, on="book", how="inner")
        .filter(pl.col("date") <= pl.col("_last"))
    )
    return changed.select(
        pl.lit("portfolio").alias("dataset"),
        "book",
        "date",
        pl.lit("return").alias("field"),
        pl.lit(None, pl.String).alias("period"),
        pl.lit(None, pl.String).alias("symbol"),
        "before",
        "after",
        pl.lit(None, pl.Int32).alias("names_changed"),
    )


def _scores_restated(derived: DerivedAlpha, before: Predecessor) -> pl.DataFrame:
    """Weeks in which a name's score moved, came or went (weeks up to the predecessor's last)."""
    if before.scores is None or before.scores.height == 0:
        return pl.DataFrame(schema=_ROW_SCHEMA)
    last = before.scores["date"].max()
    now = (
        derived.decisions.select("date", "symbol", "score")
        if derived.decisions is not None
        else pl.DataFrame(schema={"date": pl.Date, "symbol": pl.String, "score": pl.Float64})
    )
    changed = (
        _changed(
            before.scores.rename({"score": "value"}), now.rename({"score": "value"}), ["date", "symbol"]
        ).filter(pl.col("date") <= last)
    ).with_columns(
        _size=pl.when(pl.col("before").is_null() | pl.col("after").is_null())
        .then(pl.lit(np.inf))
        .otherwise((pl.col("after") - pl.col("before")).abs())
    )
    if changed.height == 0:
        return pl.DataFrame(schema=_ROW_SCHEMA)
    largest = changed.sort(["date", "_size", "symbol"], descending=[False, True, False]).group_by(
        "date", maintain_order=True
    )
    return largest.agg(
        pl.col("symbol").first(),
        pl.col("before").first(),
        pl.col("after").first(),
        pl.len().cast(pl.Int32).alias("names_changed"),
    ).select(
        pl.lit("decisions").alias("dataset"),
        pl.lit(None, pl.String).alias("book"),
        "date",
        pl.lit("scores").alias("field"),
        pl.lit(None, pl.String).alias("period"),
        "symbol",
        "before",
        "after",
        "names_changed",
    )


def period_end(scope: str, period: str) -> dt.date | None:
    """The last day of a stored metric's closed period (`yearly` 2022, `monthly` 2022-03)."""
    try:
        if scope == "yearly":
            return dt.date(int(period), 12, 31)
        if scope == "monthly":
            year, month = (int(part) for part in period.split("-"))
            return dt.date(year, month, calendar.monthrange(year, month)[1])
    except (ValueError, TypeError):
        return None
    return None


def _closed_before(before: Predecessor) -> dt.date | None:
    """The day before which the predecessor's stored metrics could no longer move: its
    second-to-last rebalance (the weekly IC of a week is realised at the open after the next
    week's decision, so the last two weeks of a run have none yet); its last session for a run
    without weeks."""
    if before.scores is not None and before.scores.height:
        weeks = before.scores["date"].unique().sort()
        if weeks.len() >= 2:
            found = weeks[-2]
            return found if isinstance(found, dt.date) else None
        return None
    return None if before.last_session is None else before.last_session + dt.timedelta(days=1)


def _metrics_restated(derived: DerivedAlpha, before: Predecessor) -> pl.DataFrame:
    """Stored metrics of closed periods (ended before `_closed_before`) whose value moved, or that
    went away."""
    last = _closed_before(before)
    if before.metrics is None or last is None:
        return pl.DataFrame(schema=_ROW_SCHEMA)
    now = derived.single.get("metrics_stored")
    rows = []
    current = (
        {}
        if now is None
        else {(s, p, m): v for s, p, m, v in now.select("scope", "period", "metric", "value").iter_rows()}
    )
    for scope, period, metric, value in before.metrics.select(
        "scope", "period", "metric", "value"
    ).iter_rows():
        if scope not in CLOSED_SCOPES or not ledger_metric(metric):
            continue
        end = period_end(scope, period or "")
        if end is None or end >= last:
            continue
        after = current.get((scope, period, metric))
        gone = (scope, period, metric) not in current
        if gone or _values_moved(value, after):
            rows.append(
                {
                    "dataset": "metrics_stored",
                    "book": None,
                    "date": end,
                    "field": metric,
                    "period": f"{scope}:{period}",
                    "symbol": None,
                    "before": value,
                    "after": None if gone else after,
                    "names_changed": None,
                }
            )
    return pl.DataFrame(rows, schema=_ROW_SCHEMA, orient="row") if rows else pl.DataFrame(schema=_ROW_SCHEMA)


def _values_moved(before: float | None, after: float | None) -> bool:
    if before is None or after is None:
        return before is not after
    if np.isnan(before) and np.isnan(after):
        return False
    return abs(after - before) > ABSOLUTE + RELATIVE * max(abs(before), abs(after))


_ROW_SCHEMA = {
    "dataset": pl.String,
    "book": pl.String,
    "date": pl.Date,
    "field": pl.String,
    "period": pl.String,
    "symbol": pl.String,
    "before": pl.Float64,
    "after": pl.Float64,
    "names_changed": pl.Int32,
}


def restated(derived: DerivedAlpha, before: Predecessor | None) -> pl.DataFrame:
    """What this run changes of what the predecessor published (no predecessor: nothing)."""
    if before is None:
        return pl.DataFrame(schema=_ROW_SCHEMA)
    parts = [
        _returns_restated(derived, before),
        _scores_restated(derived, before),
        _metrics_restated(derived, before),
    ]
    return pl.concat([p.select(list(_ROW_SCHEMA)).cast(_ROW_SCHEMA) for p in parts])  # type: ignore[arg-type]


RESTATEMENT_ORDER = ["restated_at", "build_id", "dataset", "book", "date", "field", "period", "symbol"]
"""The `restatements` table's row order: by restating run, then what was restated (nulls first): its
row key (`schemas.lake.ROW_KEYS`), so a total order."""


def restatements(
    new: pl.DataFrame, before: Predecessor | None, build_id: str, now: dt.datetime
) -> pl.DataFrame:
    """The new build's `restatements`: the predecessor's rows and this run's (`new`, `restated`)."""
    stamp = pl.lit(now).dt.cast_time_unit("us").dt.convert_time_zone("UTC")
    ours = new.with_columns(
        restated_at=stamp,
        build_id=pl.lit(build_id),
        previous_build_id=pl.lit(None if before is None else before.build_id, pl.String),
    )
    columns = RESTATEMENTS.names
    frames = [ours.select(columns)]
    if before is not None and before.restatements is not None:
        frames.insert(0, before.restatements.select(columns))
    schema = pl.DataFrame(pa.Table.from_pylist([], RESTATEMENTS)).schema
    # One order whatever the predecessor's rows were read from (the open tables keep no row order).
    return pl.concat([f.cast(schema) for f in frames]).sort(
        RESTATEMENT_ORDER, nulls_last=False, maintain_order=True
    )


def as_tables(known: pl.DataFrame, restated_rows: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The two tables as the build writes them (`schemas.lake` order and types checked there)."""
    return {"known_sessions": known.select(KNOWN_SESSIONS.names), "restatements": restated_rows}
