"""Typed builders: a complete seal from the frames a research team has.

Each builder takes a pandas, polars or pyarrow frame holding the columns the team's engine knows
and returns the kind's Arrow table (`arrow_schemas`), every column the spec derives filled by the
kit: a team never supplies what follows from what it gave (docs/seal.md "The seal kit").

- `decisions_table`: `direction` = sign(score), `confidence` = |score|, `average_rank` (1 =
  highest score of the date, ties averaged, among scored names); the same from
  `pre_smoothing_score` for the raw twins (which default to the conditioned ones when the engine
  does not smooth).
- `rebalances_table`: the decision dates, `traded` unless the team names a week's status.
- `book_tables`: the ledger (`portfolio`) from the names' positions and P&L: the session sums,
  `position_value_end`, the notionals, `largest_abs_weight`, the equity chain (1.0 at inception),
  `cash_end`, `cash_start` and `cash_carry` from the session's risk-free return; `turnover` and
  `turnover_notional` from the trades; the names' `execution_cost` from their fills; a trade's
  `execution_cost`; and the `_adjustments` / `_settlements` trade variants.

`write_seal` writes the tables, `manifest.json` (its `kinds_sealed`, `books`, `trade_books` and
`universe_size` derived from what is written) and an optional `description.json` to a folder or
an `s3://` URL, then runs the pipeline's own check (`check.check_seal`) and returns its report:
every broken rule in one pass.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.arrow_logic import group_sums, row_codes, sort_by_date
from alpha_results_seal.check import SealReport, check_seal
from alpha_results_seal.demo import metrics as stored
from alpha_results_seal.demo.calendar import close_instants
from alpha_results_seal.frames import BuildError, cast_column, day_text, instant_text, to_arrow
from alpha_results_seal.identifiers import check_alpha_id, join
from alpha_results_seal.manifest import BOOK_NAME
from alpha_results_seal.seal_limits import SealLimits
from alpha_results_seal.storage import Storage
from alpha_results_seal.trading import fill_session_dates, trade_variants

DECISIONS_DERIVED = (
    "direction",
    "confidence",
    "average_rank",
    "raw_direction",
    "raw_confidence",
    "raw_average_rank",
)
RAW_DEFAULTS = {
    "pre_smoothing_score": "score",
    "raw_long_short_target_weight": "long_short_target_weight",
    "raw_long_only_target_weight": "long_only_target_weight",
    "raw_decision_reason": "decision_reason",
    "raw_fill_at": "fill_at",
}
"""A raw twin the team leaves out, when it leaves out `pre_smoothing_score` too (an engine that
does not smooth: the raw signal is the signal), is the conditioned column."""
PORTFOLIO_DERIVED = tuple(
    n for n in S.PORTFOLIO.names if n not in ("date", "timestamp", "risk_free_return", "rounding_adjustment")
)
"""Every ledger column but the session's identity and the two facts only the engine knows."""
SESSION_COLUMNS = ("date", "timestamp", "risk_free_return", "rounding_adjustment")
DEFAULT_SIGNAL_DETAIL = "Scores as the engine produced them; no smoothing is applied by the seal kit."
DEFAULT_RISK_FREE_SOURCE = "The engine's per-session risk-free return (0 when the engine states none)."


def _columns(
    table: pa.Table,
    frame: str,
    schema: pa.Schema,
    required: Sequence[str],
    derived: Sequence[str] = (),
    defaulted: Sequence[str] = (),
) -> dict[str, pa.ChunkedArray]:
    """The frame's columns typed by `schema`: every one of `required`, the optional ones it has.
    A derived column or one the kind does not have is refused by name (a typo is not dropped), as
    is a null in a column the schema marks non-nullable, unless the builder fills its nulls with a
    default (`defaulted`): a null date or instant has no session to be placed in."""
    given = set(table.column_names)
    for name in table.column_names:
        if name in derived:
            raise BuildError(
                f'{frame}.{name} is derived by the kit (docs/seal.md "The seal kit"): leave it out'
            )
        if name not in schema.names:
            raise BuildError(
                f"{frame} has a column {name!r} that {frame} does not take (it takes {', '.join(schema.names)})"
            )
    missing = [name for name in required if name not in given]
    if missing:
        raise BuildError(f"{frame} has no column {', '.join(map(repr, missing))} (required)")
    columns = {
        name: cast_column(table, frame, name, schema.field(name).type)
        for name in schema.names
        if name in given
    }
    for name, values in columns.items():
        if values.null_count and not schema.field(name).nullable and name not in defaulted:
            raise BuildError(f"{frame}.{name} holds {values.null_count} nulls: every row needs one")
    return columns


def _lookup(keys: Sequence[pa.ChunkedArray], table: pa.Table, names: Sequence[str]) -> np.ndarray:
    """For each row of `keys`, the row of `table` whose `names` columns equal it (its keys are
    unique), or -1: a left join's lookup. A null key matches nothing (as a join does)."""
    both = [
        pa.chunked_array([*k.chunks, *table.column(n).chunks], table.schema.field(n).type)
        for k, n in zip(keys, names, strict=True)
    ]
    codes = row_codes(both)
    n = len(keys[0])
    at = np.full(int(codes.max()) + 1 if codes.size else 0, -1, dtype=np.int64)
    at[codes[n:]] = np.arange(table.num_rows)
    found = at[codes[:n]]
    for key in keys:
        found[np.asarray(key.is_null().to_numpy(zero_copy_only=False), dtype=bool)] = -1
    return found


def _left(values: pa.ChunkedArray | pa.Array, at: np.ndarray) -> pa.Array:
    """`values` taken at `at`, 0.0 where -1 (no row)."""
    taken = pc.take(values, pa.array(np.where(at < 0, 0, at), pa.int64())) if len(values) else None
    out = (
        np.zeros(len(at))
        if taken is None
        else np.asarray(taken.to_numpy(zero_copy_only=False), dtype=np.float64)
    )
    return pa.array(np.where(at < 0, 0.0, out), pa.float64())


def _table(columns: Mapping[str, Any], schema: pa.Schema, rows: int) -> pa.Table:
    """The kind's table: each column of `schema` from `columns`, null where absent."""
    arrays = []
    for f in schema:
        value = columns.get(f.name)
        arrays.append(pa.nulls(rows, f.type) if value is None else value)
    return pa.Table.from_arrays(arrays, schema=schema)


# -- decisions and the rebalance index ------------------------------------------------------------


def _rank_and_sign(dates: pa.ChunkedArray, scores: pa.ChunkedArray, frame: str) -> dict[str, Any]:
    """`direction` = sign(score), `confidence` = |score| and `average_rank` (1 = highest of the
    date, ties share the average of their ranks, nulls unranked) of one score column."""
    x = np.asarray(pc.fill_null(scores, np.nan).to_numpy(zero_copy_only=False), dtype=np.float64)
    nulls = np.asarray(scores.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if np.isnan(x[~nulls]).any():
        raise BuildError(f"{frame} holds NaN: a score is a number, or null for a name without one")
    ranks = np.full(len(x), np.nan)
    scored = np.flatnonzero(~nulls)
    if scored.size:
        day = row_codes([dates])[scored]
        value = x[scored]
        order = np.lexsort((-value, day))  # by date, then the highest score first
        d, v = day[order], value[order]
        starts_day = np.r_[True, d[1:] != d[:-1]]
        starts_tie = starts_day | np.r_[True, v[1:] != v[:-1]]
        position = np.arange(len(d))
        first_of_day = np.maximum.accumulate(np.where(starts_day, position, 0))
        tie_start = np.flatnonzero(starts_tie)
        tie_end = np.r_[tie_start[1:], len(d)]
        # the tie [s, e) holds ranks s - day start + 1 .. e - day start: their average
        average = ((tie_start + 1 + tie_end) / 2.0) - first_of_day[tie_start]
        ranked = np.repeat(average, tie_end - tie_start)
        ranks[scored[order]] = ranked
    return {
        "direction": pc.cast(pc.sign(scores), pa.int8()),
        "confidence": pc.abs(scores),
        "average_rank": pa.array(ranks, pa.float64(), mask=nulls),
    }


def decisions_table(frame: Any) -> pa.Table:
    """`decisions` from one row per (date, symbol) with `score` and the two books' target weights.

    Optional: `pre_smoothing_score` and the raw twins (`raw_long_short_target_weight`,
    `raw_long_only_target_weight`, `raw_decision_reason`, `raw_fill_at`: required with
    `pre_smoothing_score`, else the conditioned columns), `next_open_tradeable` (default true),
    `unavailability_reason`, `decision_reason`, `fill_at`, `entry_at`, `maturity_at`,
    `forward_return` (null when absent). Derived: `direction`, `confidence`, `average_rank` and
    their raw twins."""
    table = to_arrow(frame, "decisions")
    required = ["date", "symbol", "score", "long_short_target_weight", "long_only_target_weight"]
    if "pre_smoothing_score" in table.column_names:
        required += ["raw_long_short_target_weight", "raw_long_only_target_weight"]
    columns: dict[str, Any] = _columns(table, "decisions", S.DECISIONS, required, DECISIONS_DERIVED)
    if "pre_smoothing_score" not in columns:
        for raw, conditioned in RAW_DEFAULTS.items():
            if raw in columns:
                raise BuildError(
                    f"decisions.{raw} is given without pre_smoothing_score: give both or neither"
                )
            columns[raw] = columns.get(conditioned)
    if "next_open_tradeable" not in columns:
        columns["next_open_tradeable"] = pa.chunked_array([np.ones(table.num_rows, dtype=bool)], pa.bool_())
    derived = {
        prefix + name: values
        for prefix, score in (("", "score"), ("raw_", "pre_smoothing_score"))
        for name, values in _rank_and_sign(columns["date"], columns[score], f"decisions.{score}").items()
    }
    for name in DECISIONS_DERIVED:
        columns[name] = pc.cast(derived[name], S.DECISIONS.field(name).type)
    return _table(columns, S.DECISIONS, table.num_rows).sort_by(
        [("date", "ascending"), ("symbol", "ascending")]
    )


def rebalances_table(decisions: pa.Table, week_status: Any = None) -> pa.Table:
    """The rebalance index: every decision date, `traded` unless `week_status` (a mapping of date
    to status, or a frame of `date`, `week_status`) names the week's status: `pending` for the
    last, undecided week, a snake_case reason for a skipped one."""
    dates = pc.unique(decisions.column("date")).sort()
    if week_status is None or isinstance(week_status, Mapping):
        statuses = dict(week_status or {})
    else:
        given = to_arrow(week_status, "week_status")
        columns = _columns(given, "week_status", S.REBALANCES, S.REBALANCES.names)
        statuses = dict(zip(columns["date"].to_pylist(), columns["week_status"].to_pylist(), strict=True))
    unknown = set(statuses) - set(dates.to_pylist())
    if unknown:
        raise BuildError(
            f"week_status names {len(unknown)} dates that are not decision dates: {sorted(unknown)[:5]}"
        )
    status = [statuses.get(d, "traded") for d in dates.to_pylist()]
    return pa.table({"date": dates, "week_status": pa.array(status, pa.string())}, schema=S.REBALANCES)


# -- books ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Book:
    """One book as the engine holds it. Each frame is pandas, polars or pyarrow.

    - `positions`: date, symbol, quantity, mark_price (the names held at each session's close);
    - `pnl`: date, symbol, market_pnl, and optionally borrow_cashflow (default 0) and
      execution_cost (default: the sum of the name's fills that session);
    - `trades` (optional): timestamp, decision_at, symbol, phase, quantity, mid_price, fill_price,
      fee, and optionally rebalance_adjustment_reason, exit_reason, execution_cost (default
      -(fee + |quantity| x |fill_price - mid_price|));
    - `sessions` (optional): date and optionally timestamp (default the 16:00 New York close),
      risk_free_return (default 0), rounding_adjustment (default 0). The book's sessions are
      these dates, else every date of `positions` and `pnl`.
    """

    positions: Any
    pnl: Any
    trades: Any = None
    sessions: Any = None


def trades_table(frame: Any, book: str) -> pa.Table:
    table = to_arrow(frame, f"{book}.trades")
    required = ["timestamp", "decision_at", "symbol", "phase", "quantity", "mid_price", "fill_price", "fee"]
    columns: dict[str, Any] = _columns(table, f"{book}.trades", S.TRADES, required)
    if "execution_cost" not in columns:
        q, mid, fill, fee = (columns[c] for c in ("quantity", "mid_price", "fill_price", "fee"))
        columns["execution_cost"] = pc.negate(
            pc.add(fee, pc.multiply(pc.abs(q), pc.abs(pc.subtract(fill, mid))))
        )
    return _table(columns, S.TRADES, table.num_rows).sort_by(
        [("timestamp", "ascending"), ("symbol", "ascending")]
    )


def book_tables(book: Book, name: str) -> dict[str, pa.Table]:
    """`portfolio`, `positions`, `pnl` and (with trades) `trades` of one book."""
    positions_in = to_arrow(book.positions, f"{name}.positions")
    positions = _table(
        _columns(positions_in, f"{name}.positions", S.POSITIONS, S.POSITIONS.names),
        S.POSITIONS,
        positions_in.num_rows,
    ).sort_by([("date", "ascending"), ("symbol", "ascending")])
    trades = None if book.trades is None else trades_table(book.trades, name)
    pnl_in = to_arrow(book.pnl, f"{name}.pnl")
    pnl_columns: dict[str, Any] = _columns(pnl_in, f"{name}.pnl", S.PNL, ["date", "symbol", "market_pnl"])
    zeros = pa.chunked_array([np.zeros(pnl_in.num_rows)], pa.float64())
    pnl_columns.setdefault("borrow_cashflow", zeros)
    if "execution_cost" not in pnl_columns:
        pnl_columns["execution_cost"] = _fill_costs(pnl_columns, trades, name, zeros)
    pnl = _table(pnl_columns, S.PNL, pnl_in.num_rows).sort_by(
        [("date", "ascending"), ("symbol", "ascending")]
    )
    tables = {"positions": positions, "pnl": pnl, "portfolio": _ledger(book, name, positions, pnl, trades)}
    if trades is not None:
        tables["trades"] = trades
    return tables


def _fill_costs(pnl: Mapping[str, Any], trades: pa.Table | None, name: str, zeros: pa.ChunkedArray) -> Any:
    """Each name's `execution_cost` per session: the sum of its fills' that session."""
    if trades is None:
        return zeros
    fills = pa.table(
        {"date": fill_session_dates(trades.column("timestamp")), "symbol": trades.column("symbol")}
    )
    costs = group_sums(fills, ["date", "symbol"], {"cost": trades.column("execution_cost")})
    rows = pa.table({"date": pnl["date"], "symbol": pnl["symbol"]})
    carried = _lookup([costs.column("date"), costs.column("symbol")], rows, ["date", "symbol"])
    orphans = costs.filter(pa.array(carried < 0))
    if orphans.num_rows:
        first = orphans.slice(0, 1).to_pylist()[0]
        raise BuildError(
            f"{name}.trades: {orphans.num_rows} (session, symbol) fills have no {name}.pnl row to carry their "
            f"execution_cost (first: {first['symbol']} on {first['date']}, the New York session of its "
            "timestamp)"
        )
    at = _lookup([rows.column("date"), rows.column("symbol")], costs, ["date", "symbol"])
    return _left(costs.column("cost"), at)


def _ledger(book: Book, name: str, positions: pa.Table, pnl: pa.Table, trades: pa.Table | None) -> pa.Table:
    """The ledger of a book (docs/seal.md "How the demo engine fills the fields", "Books").

    Per session: the names' sums of P&L; `position_value_end` = `net_notional` = sum(quantity x
    mark_price), `gross_notional` = sum |quantity x mark_price|, `largest_abs_weight` = max |value|
    / ending equity; then in session order from 1.0: `cash_start` = the previous `cash_end` (1.0
    at inception), `cash_carry` = cash_start x risk_free_return, `ending_equity` = starting + the
    sums + carry + rounding, `cash_end` = ending - position value. From the fills: `turnover` =
    1/2 sum |quantity x mid| / starting equity, `turnover_notional` = sum |quantity x fill|."""
    value = pc.multiply(positions.column("quantity"), positions.column("mark_price"))
    skip = pc.ScalarAggregateOptions(skip_nulls=True, min_count=0)
    held = (
        pa.table({"date": positions.column("date"), "v": value, "a": pc.abs(value)})
        .group_by("date", use_threads=False)  # one thread: each session's values added in row order
        .aggregate([("v", "sum", skip), ("a", "sum", skip), ("a", "max")])
    )
    renamed = {"v_sum": "position_value_end", "a_sum": "gross_notional", "a_max": "largest_abs_value"}
    held = held.rename_columns([renamed.get(n, n) for n in held.column_names])
    sums = group_sums(
        pnl, "date", {c: pnl.column(c) for c in ("market_pnl", "execution_cost", "borrow_cashflow")}
    )
    flows = pa.table(
        {
            "date": pa.array([], pa.date32()),
            "turnover_mid": pa.array([], pa.float64()),
            "turnover_notional": pa.array([], pa.float64()),
        }
    )
    if trades is not None:
        flows = group_sums(
            pa.table({"date": fill_session_dates(trades.column("timestamp"))}),
            "date",
            {
                "turnover_mid": pc.abs(pc.multiply(trades.column("quantity"), trades.column("mid_price"))),
                "turnover_notional": pc.abs(
                    pc.multiply(trades.column("quantity"), trades.column("fill_price"))
                ),
            },
        )
    if book.sessions is not None:
        given = to_arrow(book.sessions, f"{name}.sessions")
        sessions = pa.table(
            _columns(
                given,
                f"{name}.sessions",
                pa.schema([S.PORTFOLIO.field(c) for c in SESSION_COLUMNS]),
                ["date"],
                defaulted=["timestamp", "risk_free_return", "rounding_adjustment"],
            )
        )
    else:
        sessions = pa.table(
            {
                "date": pc.unique(
                    pa.chunked_array(
                        [*positions.column("date").chunks, *pnl.column("date").chunks], pa.date32()
                    )
                )
            }
        )
    if len(pc.unique(sessions.column("date"))) != sessions.num_rows:
        raise BuildError(f"{name}.sessions has a date twice")
    sessions = sort_by_date(sessions)
    dates_column = sessions.column("date")
    ledger: dict[str, Any] = {"date": dates_column}
    for part, names in (
        (held, ("position_value_end", "gross_notional", "largest_abs_value")),
        (sums, ("market_pnl", "execution_cost", "borrow_cashflow")),
        (flows, ("turnover_mid", "turnover_notional")),
    ):
        at = _lookup([dates_column], part, ["date"])
        for column in names:
            ledger[column] = _left(part.column(column), at).to_numpy()
    for column in ("risk_free_return", "rounding_adjustment"):
        given_column = sessions.column(column) if column in sessions.column_names else None
        ledger[column] = (
            np.zeros(sessions.num_rows)
            if given_column is None
            else np.asarray(
                pc.fill_null(pc.cast(given_column, pa.float64()), 0.0).to_numpy(zero_copy_only=False)
            )
        )
    named = pa.chunked_array([*positions.column("date").chunks, *pnl.column("date").chunks], pa.date32())
    orphan = set(
        pc.unique(
            named.filter(pc.invert(pc.is_in(named, value_set=dates_column.combine_chunks())))
        ).to_pylist()
    )
    if orphan:
        raise BuildError(
            f"{name}: positions or pnl rows on {len(orphan)} dates that are not in {name}.sessions: {sorted(orphan)[:3]}"
        )
    # The equity chain is sequential (a session's carry is earned on the previous session's cash).
    n = sessions.num_rows
    flow = ledger["market_pnl"] + ledger["execution_cost"] + ledger["borrow_cashflow"]
    rounding, rf = ledger["rounding_adjustment"], ledger["risk_free_return"]
    position_value = ledger["position_value_end"]
    starting, ending, cash_start, cash_end, carry = (np.empty(n) for _ in range(5))
    equity, cash = 1.0, 1.0
    with np.errstate(invalid="ignore", over="ignore"):  # a non-finite figure: the check refuses it
        for i in range(n):
            starting[i], cash_start[i] = equity, cash
            carry[i] = cash * rf[i]
            equity = equity + flow[i] + carry[i] + rounding[i]
            cash = equity - position_value[i]
            ending[i], cash_end[i] = equity, cash
    timestamps = (
        sessions.column("timestamp") if "timestamp" in sessions.column_names else pa.nulls(n, S.UTC_TS)
    )
    dates = dates_column.to_pylist()
    if timestamps.null_count:
        closes = pa.array(close_instants(dates).astype(np.int64), pa.int64()).cast(S.UTC_TS)
        timestamps = pc.coalesce(pc.cast(timestamps, S.UTC_TS), closes)
    with np.errstate(invalid="ignore", divide="ignore"):
        largest = np.where(ending != 0, ledger["largest_abs_value"] / ending, 0.0)
        turnover = np.where(starting != 0, 0.5 * ledger["turnover_mid"] / starting, 0.0)
    columns = {
        "date": dates_column,
        "timestamp": timestamps,
        "starting_equity": starting,
        "ending_equity": ending,
        "cash_start": cash_start,
        "cash_end": cash_end,
        "position_value_end": position_value,
        "market_pnl": ledger["market_pnl"],
        "execution_cost": ledger["execution_cost"],
        "borrow_cashflow": ledger["borrow_cashflow"],
        "cash_carry": carry,
        "risk_free_return": rf,
        "rounding_adjustment": rounding,
        "equity_basis": np.ones(n),
        "gross_notional": ledger["gross_notional"],
        "net_notional": position_value,
        "largest_abs_weight": largest,
        "turnover_notional": ledger["turnover_notional"],
        "turnover": turnover,
    }
    return pa.Table.from_arrays(
        [
            pc.cast(
                pa.array(columns[f.name]) if isinstance(columns[f.name], np.ndarray) else columns[f.name],
                f.type,
            )
            for f in S.PORTFOLIO
        ],
        schema=S.PORTFOLIO,
    )


# -- the manifest and the seal ----------------------------------------------------------------------


@dataclass(frozen=True)
class Facts:
    """What manifest.json states that no table says (docs/seal.md "manifest.json"). The kinds,
    books, trade books and `universe_size` (the names of `decisions`) are derived."""

    alpha_id: str
    engine_version: str
    started_at: dt.datetime | dt.date  # a date: its midnight UTC
    source_alpha_id: str | None = None  # default: alpha_id
    name: str | None = None
    tldr: str | None = None
    sealed_at: dt.datetime | dt.date | None = None  # default: when written
    required_kinds: Sequence[str] | None = None  # default: the kinds written
    smoothing_half_life_weeks: float | None = None  # None: the engine does not smooth
    signal_detail: str = DEFAULT_SIGNAL_DETAIL
    weeks_per_year: int = 52
    sessions_per_year: int = 252
    icir_annualised: bool = False
    risk_free_rate_source: str = DEFAULT_RISK_FREE_SOURCE
    universe_size: int | None = None
    research_cutoff: dt.date | None = None
    # The trial family this run is a variant of and the variant's parameters (docs/seal.md "Trial
    # families"); written only when given, checked by `seal check` as any manifest field.
    family: str | None = None
    parameters: Mapping[str, float | int | str] | None = None


def manifest(
    facts: Facts,
    tables: Mapping[str, pa.Table],
    books: Sequence[str],
    trade_books: Sequence[str],
    universe_size: int,
) -> dict[str, Any]:
    kinds = [k for k in S.ALL_KINDS if any(p == f"{k}.parquet" or p.startswith(f"{k}/") for p in tables)]
    return {
        "seal_format": S.SEAL_FORMAT_VERSION,
        "type": "alpha",
        "alpha_id": facts.alpha_id,
        "source_alpha_id": facts.source_alpha_id or facts.alpha_id,
        "name": facts.name,
        "tldr": facts.tldr,
        "started_at": instant_text(facts.started_at, "Facts.started_at"),
        "sealed_at": instant_text(facts.sealed_at or dt.datetime.now(dt.UTC), "Facts.sealed_at"),
        "engine_version": facts.engine_version,
        "kinds_sealed": kinds,
        "required_kinds": list(facts.required_kinds) if facts.required_kinds is not None else kinds,
        "books": list(books),
        "trade_books": list(trade_books),
        "signal_processing": {
            "signal": "conditioned",
            "smoothing_applied": facts.smoothing_half_life_weeks is not None,
            "smoothing_half_life_weeks": facts.smoothing_half_life_weeks,
            "detail": facts.signal_detail,
        },
        "metric_conventions": {
            "weeks_per_year": facts.weeks_per_year,
            "sessions_per_year": facts.sessions_per_year,
            "icir_annualised": facts.icir_annualised,
            "risk_free_rate_source": facts.risk_free_rate_source,
        },
        "universe_size": facts.universe_size or universe_size,
        "source_archive": None,
        "research_cutoff": None
        if facts.research_cutoff is None
        else day_text(facts.research_cutoff, "Facts.research_cutoff"),
        **({} if facts.family is None else {"family": facts.family}),
        **({} if facts.parameters is None else {"parameters": dict(facts.parameters)}),
    }


@dataclass
class SealTables:
    """Everything one seal holds, built: relative path -> table, and the manifest."""

    tables: dict[str, pa.Table] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    description: dict[str, Any] | None = None


def check_book_name(name: object) -> str:
    """A book's name is a path segment of the seal (`<kind>/<book>.parquet`): refused, before
    anything is built or written, unless it is a name the manifest takes (`manifest.BOOK_NAME`),
    so no name can write outside the seal (`../x`, `a/b`) or under another prefix."""
    if not isinstance(name, str) or not BOOK_NAME.fullmatch(name):
        raise BuildError(
            f"book name {name!r} does not match {BOOK_NAME.pattern} (a book's name is a file name of the seal)"
        )
    return name


DERIVED_FROM_BOOK = "long_short"
"""The book whose ledger derived stored metrics are computed from (docs/seal.md, "Stored metrics")."""


def derived_metrics(
    decisions: pa.Table, ledger: pa.Table, icir_annualised: bool, universe_size: int
) -> pa.Table:
    """The stored metrics (kind `metrics`) computed from a seal's own long_short `ledger` and
    `decisions`, by the formulas of docs/seal.md "Stored metrics" (the demo engine's own,
    `alpha_results_seal.demo.metrics`): what `build_seal` seals when a team gives none."""
    order = pc.sort_indices(ledger, [("date", "ascending")])
    ledger = ledger.take(order)
    book = stored.Ledger(
        dates=ledger.column("date").to_pylist(),
        starting_equity=_floats(ledger, "starting_equity"),
        ending_equity=_floats(ledger, "ending_equity"),
        risk_free_return=_floats(ledger, "risk_free_return"),
        turnover=_floats(ledger, "turnover"),
    )
    if decisions.num_rows == 0:
        return stored.metrics_table(stored.stored_metrics(book, None, None, None, None, icir_annualised))
    weeks = pc.unique(decisions.column("date")).sort()
    names = pc.unique(decisions.column("symbol"))
    at = (
        np.asarray(pc.index_in(decisions.column("date"), value_set=weeks)),
        np.asarray(pc.index_in(decisions.column("symbol"), value_set=names)),
    )

    def grid(column: str) -> np.ndarray:
        out = np.full((len(weeks), len(names)), np.nan)
        out[at] = _floats(decisions, column)
        return out

    score, forward = grid("score"), grid("forward_return")
    rows = stored.stored_metrics(
        book,
        weeks.to_pylist(),
        stored.weekly_ic(score, forward),
        stored.weekly_ic(grid("pre_smoothing_score"), forward),
        (~np.isnan(score)).sum(axis=1) / universe_size,
        icir_annualised,
    )
    return stored.metrics_table(rows)


def _floats(table: pa.Table, column: str) -> np.ndarray:
    return np.asarray(pc.fill_null(table.column(column).cast(pa.float64()), np.nan), dtype=np.float64)


def build_seal(
    facts: Facts,
    decisions: Any,
    books: Mapping[str, Book],
    *,
    week_status: Any = None,
    metrics: Any = None,
    exposures: Any = None,
    description: Mapping[str, Any] | None = None,
) -> SealTables:
    """Every table of the seal and its manifest, built from the team's frames (nothing written)."""
    check_alpha_id(facts.alpha_id)
    for name in books:
        check_book_name(name)
    decided = decisions_table(decisions)
    tables = {"rebalances.parquet": rebalances_table(decided, week_status), "decisions.parquet": decided}
    if metrics is not None:
        given = to_arrow(metrics, "metrics")
        tables["metrics.parquet"] = _table(
            _columns(given, "metrics", S.METRICS, S.METRICS.names[:3]), S.METRICS, given.num_rows
        )
    if exposures is not None:
        given = to_arrow(exposures, "exposures")
        tables["exposures.parquet"] = _table(
            _columns(given, "exposures", S.EXPOSURES, ["date", "symbol"]), S.EXPOSURES, given.num_rows
        )
    trade_books: list[str] = []
    for name, book in books.items():
        built = book_tables(book, name)
        for kind, table in built.items():
            tables[S.kind_path(kind, name)] = table
        if "trades" in built:
            trade_books.append(name)
            for suffix, variant in trade_variants(built["trades"]).items():
                tables[S.kind_path("trades", name + suffix)] = variant
                trade_books.append(name + suffix)
    if trade_books and len(trade_books) != 3 * len(books):
        raise BuildError("trades are given for some books and not others: give every book's trades or none")
    universe = len(pc.unique(decided.column("symbol")))
    ledger = tables.get(S.kind_path("portfolio", DERIVED_FROM_BOOK))
    if metrics is None and ledger is not None and ledger.num_rows:
        # No stored metrics given: derived from the seal's own long_short ledger and cross-sections
        # by the formulas of docs/seal.md, so /metrics has its headline figures (issue 47).
        tables["metrics.parquet"] = derived_metrics(
            decided, ledger, facts.icir_annualised, facts.universe_size or universe
        )
    return SealTables(
        tables,
        manifest(facts, tables, list(books), trade_books, universe),
        dict(description) if description else None,
    )


def _is_seal_path(relative: str) -> bool:
    kind, _, rest = relative.partition("/")
    if not rest:
        return kind.removesuffix(".parquet") in S.GLOBAL_KINDS and kind.endswith(".parquet")
    return (
        kind in S.BOOK_KINDS
        and rest.endswith(".parquet")
        and bool(BOOK_NAME.fullmatch(rest.removesuffix(".parquet")))
    )


def write_tables(
    built: SealTables, dest: str, *, check: bool = True, limits: SealLimits | None = None
) -> SealReport | None:
    """Writes a built seal to `dest` (a folder, created, or an `s3://` prefix; the files it
    names are replaced), then, unless `check` is false, checks it as the pipeline will."""
    for book in built.manifest.get("books", []):
        check_book_name(book)
    for relative in built.tables:
        # a SealTables assembled by hand: every path is a kind's own (`kind_path`), no other
        if not _is_seal_path(relative):
            raise BuildError(
                f"{relative!r} is not a path of a seal's table (<kind>.parquet or <kind>/<book>.parquet)"
            )
    storage = Storage(dest)
    for relative, table in built.tables.items():
        buffer = pa.BufferOutputStream()
        pq.write_table(table, buffer, compression="zstd")
        storage.write_bytes(join(dest, relative), buffer.getvalue().to_pybytes())
    documents = {"manifest.json": built.manifest}
    if built.description is not None:
        documents["description.json"] = built.description
    for name, document in documents.items():
        text = json.dumps(document, indent=2, allow_nan=False) + "\n"
        storage.write_bytes(join(dest, name), text.encode())
    return check_seal(dest, limits) if check else None


def write_seal(
    dest: str,
    facts: Facts,
    decisions: Any,
    books: Mapping[str, Book],
    **optional: Any,
) -> SealReport:
    """Builds the seal (`build_seal`), writes it to `dest` and checks it: the report of every
    broken rule (`report.ok` when it would publish)."""
    report = write_tables(build_seal(facts, decisions, books, **optional), dest)
    assert report is not None
    return report
