"""Bring a factor: a complete alpha seal from weekly scores and daily prices.

A researcher with a factor (a score per name per weekly decision date: what alphalens and
Numerai Signals take) and daily prices has no research engine to write books. This is the
reference simulator: the demo engine's own decision layer (`sealkit/src/alpha_results_seal/demo/selection.py`), book
simulation (`sealkit/src/alpha_results_seal/demo/books.py`) and table builders (`sealkit/src/alpha_results_seal/demo/engine.py`) run on a
`Market` built from the two frames, and the seal is written by the demo corpus's writer. The
model and its constants are stated in docs/seal.md, "Bring a factor".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from alpha_results_seal import builders
from alpha_results_seal.builders import Facts
from alpha_results_seal.demo import calendar, signals
from alpha_results_seal.demo.alphas import WITHOUT_EXPOSURES
from alpha_results_seal.demo.corpus import write_seal
from alpha_results_seal.demo.engine import (
    BOOKS,
    ENGINE_VERSION,
    TRADE_BOOKS,
    SealContent,
    run_books,
    seal_tables,
)
from alpha_results_seal.demo.market import (
    ILLIQUID_DOLLAR_VOLUME,
    PAYOFF_COMPONENTS,
    Market,
    forward_fill,
    trailing_mean,
)
from alpha_results_seal.demo.metrics import SESSIONS_PER_YEAR, WEEKS_PER_YEAR
from alpha_results_seal.frames import BuildError, day_text, instant_text, to_arrow
from alpha_results_seal.identifiers import check_alpha_id
from alpha_results_seal.manifest import variant_problems

FACTOR_ENGINE_VERSION = f"factor-seal ({ENGINE_VERSION})"
DEFAULT_ADV_DOLLARS = 3.0e7
"""Trailing dollar volume assumed for every name and session when `prices` has neither
`adv_dollars` nor `volume`: a half spread of 5 bp and no name illiquid."""
MIN_ADV_DOLLARS = 1.0
"""Floor of the dollar volume that costs divide by: a fill on a session whose window saw no
volume costs a finite (ruinous) impact instead of an infinite one."""
FLAGS = ("halted", "suspended", "no_borrow", "price_missing")
SEAL_KINDS = WITHOUT_EXPOSURES  # no risk model: no `exposures`


def _column(table: pa.Table, frame: str, column: str, type_: pa.DataType) -> pa.ChunkedArray:
    if column not in table.column_names:
        raise ValueError(f"{frame} has no column {column!r} (it has {', '.join(table.column_names)})")
    values = table.column(column)
    try:
        return pc.cast(values, type_) if values.type != type_ else values
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise ValueError(f"{frame}.{column} must be {type_}: {error}") from None


def _dates(table: pa.Table, frame: str) -> np.ndarray:
    values = table.column("date") if "date" in table.column_names else None
    if values is not None and pa.types.is_timestamp(values.type):
        values = pc.cast(values, pa.date32(), safe=False)
        table = table.set_column(table.column_names.index("date"), "date", values)
    days = _column(table, frame, "date", pa.date32())
    if days.null_count:
        raise ValueError(f"{frame}.date has nulls")
    return np.asarray(days.to_numpy(), dtype="datetime64[D]").astype(np.int64)


def _floats(table: pa.Table, frame: str, column: str) -> np.ndarray:
    """The column as floats, null as NaN."""
    values = _column(table, frame, column, pa.float64()).to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=float)


def _symbols(table: pa.Table, frame: str) -> np.ndarray:
    values = _column(table, frame, "symbol", pa.string())
    if values.null_count:
        raise ValueError(f"{frame}.symbol has nulls")
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=str)


def _cells(
    frame: str, rows: np.ndarray, row_keys: np.ndarray, columns: np.ndarray, column_keys: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) grid cell of each frame row; a cell given twice is refused."""
    cells = (np.searchsorted(row_keys, rows), np.searchsorted(column_keys, columns))
    if len(np.unique(cells[0] * len(column_keys) + cells[1])) != len(rows):
        raise ValueError(f"{frame} has more than one row for a (date, symbol)")
    return cells


def _grid(
    rows: tuple[np.ndarray, np.ndarray], shape: tuple[int, int], values: np.ndarray, fill: float
) -> np.ndarray:
    out = np.full(shape, fill)
    out[rows] = values
    return out


def _risk_free(risk_free: float | Any | None, days: np.ndarray) -> np.ndarray:
    """Annual risk-free rate per session: 0, a constant, or a (date, rate) frame carried forward
    to each session (sessions before its first date take its first rate)."""
    if risk_free is None:
        return np.zeros(len(days))
    if isinstance(risk_free, int | float):
        return np.full(len(days), float(risk_free))
    table = to_arrow(risk_free, "risk_free")
    rate_days = _dates(table, "risk_free")
    rates = _floats(table, "risk_free", "rate")
    order = np.argsort(rate_days, kind="stable")
    rate_days, rates = rate_days[order], rates[order]
    at = np.searchsorted(rate_days, days, side="right") - 1
    return rates[np.maximum(at, 0)]


def factor_market(
    scores: pa.Table, prices: pa.Table, risk_free: float | Any | None = None
) -> tuple[Market, np.ndarray]:
    """The `Market` the demo engine's decision layer and books read, built from the frames, and the
    (weeks x names) raw scores. The universe is the scores' symbols in sorted order; sessions are
    the price dates; each distinct score date is one decision (it must be a price date)."""
    score_symbols, score_days = _symbols(scores, "scores"), _dates(scores, "scores")
    if not len(score_days):
        raise ValueError("scores has no rows")
    symbols = np.unique(score_symbols)
    price_symbols = _symbols(prices, "prices")
    keep = np.isin(price_symbols, symbols)
    prices = prices.filter(pa.array(keep))
    price_symbols, price_days = price_symbols[keep], _dates(prices, "prices")
    days, decision_days = np.unique(price_days), np.unique(score_days)
    unknown = decision_days[~np.isin(decision_days, days)]
    if len(unknown):
        shown = ", ".join(str(np.datetime64(int(d), "D")) for d in unknown[:3])
        raise ValueError(
            f"scores.date must be a session of prices: {shown} has no prices of the scored names"
        )
    unpriced = symbols[~np.isin(symbols, price_symbols)]
    if len(unpriced):
        raise ValueError(f"every scored symbol needs prices: {', '.join(unpriced[:5])} has none")

    shape = (len(days), len(symbols))
    at = _cells("prices", price_days, days, price_symbols, symbols)
    given_open = _grid(at, shape, _floats(prices, "prices", "open"), np.nan)
    given_close = _grid(at, shape, _floats(prices, "prices", "close"), np.nan)
    flags = {
        name: _grid(
            at,
            shape,
            _column(prices, "prices", name, pa.bool_()).fill_null(False).to_numpy(zero_copy_only=False),
            False,
        ).astype(bool)
        if name in prices.column_names
        else np.zeros(shape, dtype=bool)
        for name in FLAGS
    }
    if (given_open <= 0).any() or (given_close <= 0).any():
        raise ValueError("prices.open and prices.close must be positive (or null for no price)")
    no_price = np.isnan(given_open) | np.isnan(given_close)
    flags["price_missing"] |= no_price
    # A session without a price carries the last close (open and close), as the demo market does;
    # before a name's first close, its first close (it is flagged price_missing: never traded).
    close = forward_fill(given_close)
    first_close = given_close[np.argmax(~np.isnan(given_close), axis=0), np.arange(shape[1])]
    close = np.where(np.isnan(close), first_close, close)
    carried = np.vstack([close[:1], close[:-1]])
    open_ = np.where(np.isnan(given_open), carried, given_open)

    if "adv_dollars" in prices.column_names:
        adv = forward_fill(_grid(at, shape, _floats(prices, "prices", "adv_dollars"), np.nan))
        adv = np.nan_to_num(adv, nan=0.0)
    elif "volume" in prices.column_names:
        volume = np.nan_to_num(_grid(at, shape, _floats(prices, "prices", "volume"), np.nan), nan=0.0)
        adv = trailing_mean(volume * close)
    else:
        adv = np.full(shape, DEFAULT_ADV_DOLLARS)
    if "borrow_rate" in prices.column_names:
        borrow = np.nan_to_num(
            forward_fill(_grid(at, shape, _floats(prices, "prices", "borrow_rate"), np.nan)), nan=0.0
        )
    else:
        borrow = np.zeros(shape)

    dates = [dt.date.fromordinal(int(d) + dt.date(1970, 1, 1).toordinal()) for d in days]
    decisions = np.searchsorted(days, decision_days)
    n_weeks, n = len(decisions), len(symbols)
    score = _floats(scores, "scores", "score")
    if np.isinf(score).any():
        raise ValueError("scores.score must be finite (or null/NaN for no score)")
    raw = _grid(
        _cells("scores", score_days, decision_days, score_symbols, symbols), (n_weeks, n), score, np.nan
    )
    market = Market(
        symbols=symbols,
        sectors=np.zeros(n, dtype=np.int64),
        beta=np.ones(n),
        idio_vol=np.zeros(n),
        shares_outstanding=np.ones(n),
        dates=dates,
        first_session=0,
        open_utc=calendar.open_instants(dates),
        close_utc=calendar.close_instants(dates),
        open=open_,
        close=close,
        price_missing=flags["price_missing"],
        halted=flags["halted"],
        suspended=flags["suspended"],
        no_borrow=flags["no_borrow"],
        illiquid=adv < ILLIQUID_DOLLAR_VOLUME,
        adv_dollars=np.maximum(adv, MIN_ADV_DOLLARS),
        borrow_rate=borrow,
        decision_sessions=decisions,
        latent=np.zeros((n_weeks, n)),
        payoff=np.ones((n_weeks, len(PAYOFF_COMPONENTS))),
        value=np.zeros((n_weeks, n)),
        outage_block=np.zeros(n, dtype=bool),
        risk_free_annual=_risk_free(risk_free, days),
        index_close=np.ones(len(days)),
        index_total_return=np.ones(len(days)),
    )
    return market, raw


def flat_weeks(raw: np.ndarray) -> frozenset[int]:
    """Weeks whose scored names (at least two) all share one score: a stale snapshot carries no
    ranking, so it is sealed as given (`constant_scores`) and does not enter the smoothing."""
    out = set()
    for w, row in enumerate(raw):
        scored = row[~np.isnan(row)]
        if len(scored) >= 2 and scored.min() == scored.max():
            out.add(w)
    return frozenset(out)


def seal_from_factor(
    scores: Any,
    prices: Any,
    out_dir: str | Path,
    *,
    alpha_id: str,
    name: str | None,
    tldr: str | None,
    half_life_weeks: float | None = None,
    risk_free: float | Any | None = None,
    source_alpha_id: str | None = None,
    started_at: dt.datetime | dt.date | None = None,
    research_cutoff: dt.date | None = None,
    description: Mapping[str, Any] | None = None,
    family: str | None = None,
    parameters: Mapping[str, float | int | str] | None = None,
) -> Path:
    """Write the complete seal of a factor into `out_dir/alpha_id` (replacing what was there) and
    return that folder.

    `scores`: (date, symbol, score), one row per name per decision date (a session's close;
    fills are at the next session's open); a null or NaN score, or no row, is no score that week.
    The universe is the scored symbols. `prices`: daily (date, symbol, open, close) and optional
    columns, each with its default when absent:

    - `adv_dollars` (trailing dollar volume at the session; a missing value carries the name's
      last, 0 before its first) or else `volume` (shares; missing 0), turned into the trailing
      `ADV_SESSIONS`-session mean of volume x close; without either, `DEFAULT_ADV_DOLLARS`;
      a name whose adv at the decision is below `ILLIQUID_DOLLAR_VOLUME` is illiquid;
    - `borrow_rate` (annual, on short notional): missing carries the name's last, default 0;
    - `halted`, `suspended`, `no_borrow`, `price_missing` (bool): default False. A null open
      or close, or no row, is a data gap (`price_missing`) and carries the last close.

    `half_life_weeks`: the per-name exponential smoothing of `alpha_results_seal.demo.signals.smooth` (the
    raw books trade the unsmoothed score); None trades the score as given (raw books identical).
    `risk_free`: the annual rate cash earns, None (0), a number, or a (date, rate) frame.
    Frames may be pyarrow Tables or pandas or polars DataFrames. The manifest's other facts:
    `source_alpha_id` (default `alpha_id`), `started_at` (default now), `research_cutoff` (sealed
    when given), `family` and `parameters` (the trial family this run is a variant of and the
    variant's parameters, docs/seal.md "Trial families": the overfitting figures are computed over
    a family's members); `description` is written as description.json when given. An `alpha_id` that is
    not an alpha id (`datasets.layout.ALPHA_ID_PATTERN`) is refused before anything is written:
    it names the folder that is replaced.
    """
    check_alpha_id(alpha_id)
    # The manifest's facts refused by name before anything is simulated (`builders.manifest` again).
    if research_cutoff is not None:
        day_text(research_cutoff, "research_cutoff")
    if started_at is not None:
        instant_text(started_at, "started_at")
    if variant := variant_problems(family, None if parameters is None else dict(parameters)):
        raise BuildError("; ".join(problem.message for problem in variant))
    scores_table, prices_table = to_arrow(scores, "scores"), to_arrow(prices, "prices")
    market, raw = factor_market(scores_table, prices_table, risk_free)
    universe = np.arange(market.n_names)
    weeks = np.arange(len(market.decision_sessions))
    flat = flat_weeks(raw)
    score = raw if half_life_weeks is None else signals.smooth(raw, half_life_weeks, flat)
    run = run_books(market, universe, weeks, score, raw)
    tables = seal_tables(
        market, universe, weeks, score, raw, run, SEAL_KINDS, legacy_ic=False, icir_annualised=True
    )
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    smoothed = half_life_weeks is not None
    facts = Facts(
        alpha_id=alpha_id,
        engine_version=FACTOR_ENGINE_VERSION,
        started_at=now if started_at is None else started_at,
        source_alpha_id=source_alpha_id,
        name=name,
        tldr=tldr,
        sealed_at=now,
        required_kinds=SEAL_KINDS,
        smoothing_half_life_weeks=half_life_weeks,
        signal_detail=(
            f"Scores are smoothed per name with an exponential average of half-life {half_life_weeks:g} "
            "weeks; a week without a score leaves the state unchanged. Books and ranks use the smoothed "
            "score; raw_ books use the score as given."
            if smoothed
            else "Scores are traded as given; raw_ books are the same books."
        ),
        weeks_per_year=WEEKS_PER_YEAR,
        sessions_per_year=SESSIONS_PER_YEAR,
        icir_annualised=True,
        risk_free_rate_source="The caller's risk_free, accrued per session as annual rate / 252.",
        research_cutoff=research_cutoff,
        family=family,
        parameters=parameters,
    )
    manifest = builders.manifest(facts, tables, BOOKS, TRADE_BOOKS, market.n_names)
    content = SealContent(
        alpha_id=alpha_id,
        manifest=manifest,
        tables=tables,
        description=dict(description) if description is not None else None,
        source_zip=None,
    )
    return write_seal(content, Path(out_dir) / alpha_id)
