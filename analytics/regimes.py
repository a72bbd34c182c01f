"""Regimes of the market benchmark and an alpha's figures in each (issue 50, item 5;
docs/analytics.md "Regimes").

The pipeline labels every session of a benchmark build when it publishes it (`regime_table`, the
build's `regimes` table, `schemas.lake.BENCHMARK_REGIMES`), from the price the benchmark's returns
are read from (`analytics.series`: adjusted_close when every row has one, else close):

- trend: `up` when the price is above the mean price of the 200 sessions ending that session
  (itself included), else `down`; the first 199 sessions have no label;
- volatility: the realised volatility of the 63 daily returns ending that session (std, ddof=1,
  times sqrt(252)) against its terciles over the build's whole stored history: `low` up to the
  first cut, `mid` up to the second, `high` above it; the first 63 sessions (the first has no
  return) have no label. The cut points use sessions after the one labelled: a descriptive label
  with look-ahead, never a signal;
- drawdown: `in` when the price is more than 10 % below its running peak (the series' first
  session included), else `out`.

A session of the book takes the labels of the benchmark's session of the same date; a session the
benchmark has not labelled (or does not have) is `unlabelled` in that dimension, so each
dimension's regimes and `unlabelled` split the window's sessions. A weekly IC takes the labels of
its rebalance date (when the score is formed). `regimes_payload` is `/analytics/regimes`;
`session_filter` the sessions a route's `regime=` keeps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa

from analytics import inputs
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, declared_stat, window_echo
from analytics.errors import AnalyticsNotBuilt
from analytics.returns import information_ratio
from analytics.series import _benchmark
from datasets.faults import BenchmarkMissing, LakeUnavailable
from datasets.queries import Window, day_numbers
from datasets.reader import BuildView
from datasets.rows import floats
from schemas import lake
from schemas.bodies.regimes import (
    DRAWDOWN_THRESHOLD,
    TREND_SESSIONS,
    VOLATILITY_SESSIONS,
    WEAK_SPOT_SESSIONS,
    Dimension,
    RegimeRow,
    Regimes,
)
from schemas.choices import REGIME_LABELS
from schemas.conventions import SESSIONS_PER_YEAR
from schemas.wire import BENCHMARK_ENDPOINT

UNLABELLED = "unlabelled"
COLUMNS = {"trend": "trend", "volatility": "volatility", "drawdown": "drawdown_regime"}
"""The column of the `regimes` table holding each dimension's label."""
BLOCK = "regimes"


def regime_table(daily: pa.Table, sessions_per_year: int = SESSIONS_PER_YEAR) -> pa.Table:
    """The regimes of every session of a benchmark's daily series (date order, as served), as a
    table of `schemas.lake.BENCHMARK_REGIMES`."""
    basis, computed = _benchmark(daily)
    price = floats(daily.column(basis))
    returns = computed["period_return"]
    n = price.size
    average = np.full(n, np.nan)
    if n >= TREND_SESSIONS:
        sums = np.cumsum(np.concatenate([[0.0], price]))
        average[TREND_SESSIONS - 1 :] = (sums[TREND_SESSIONS:] - sums[:-TREND_SESSIONS]) / TREND_SESSIONS
    volatility = np.full(n, np.nan)
    for t in range(VOLATILITY_SESSIONS, n):  # returns[1..] exist: 63 of them end at t >= 63
        volatility[t] = float(np.std(returns[t - VOLATILITY_SESSIONS + 1 : t + 1], ddof=1))
    volatility *= math.sqrt(sessions_per_year)
    known = volatility[np.isfinite(volatility)]
    low, high = (float(c) for c in np.quantile(known, [1 / 3, 2 / 3])) if known.size else (math.nan, math.nan)
    peak = np.fmax.accumulate(price) if n else price
    with np.errstate(divide="ignore", invalid="ignore"):
        drawdown = 1.0 - price / peak
    trend = [
        None if not math.isfinite(a) else ("up" if p > a else "down")
        for p, a in zip(price, average, strict=True)
    ]
    tercile = [
        None if not math.isfinite(v) else ("low" if v <= low else "mid" if v <= high else "high")
        for v in volatility
    ]
    in_drawdown = ["in" if d > DRAWDOWN_THRESHOLD else "out" for d in drawdown]
    columns = {
        "date": daily.column("date"),
        "price": price,
        "trend_average": average,
        "trend": trend,
        "realised_volatility": volatility,
        "volatility": tercile,
        "drawdown": drawdown,
        "drawdown_regime": in_drawdown,
        "volatility_low_cut": np.full(n, low),
        "volatility_high_cut": np.full(n, high),
    }
    return pa.table(
        {
            f.name: columns[f.name]
            if f.name == "date"
            else pa.array(columns[f.name], f.type, from_pandas=True)
            for f in lake.BENCHMARK_REGIMES
        },
        schema=lake.BENCHMARK_REGIMES,
    )


@dataclass(frozen=True)
class MarketRegimes:
    """A benchmark build's sessions (days since 1970, ascending) and each dimension's label, as its
    position in `schemas.choices.REGIME_LABELS` (small integers: a filter over a book's 100,000
    fills compares integers, not strings)."""

    symbol: str
    build_id: str
    days: np.ndarray
    codes: dict[str, np.ndarray]  # dimension -> label code per session (`unlabelled`'s where none)
    low_cut: float
    high_cut: float

    def on(self, days: np.ndarray, dimension: str) -> np.ndarray:
        """The label code of `dimension` on each of `days` (`unlabelled`'s where the benchmark has no
        session that day)."""
        at = np.searchsorted(self.days, days)
        inside = at < self.days.size
        hit = inside.copy()
        hit[inside] = self.days[at[inside]] == days[inside]
        found = np.full(days.shape, code_of(dimension, UNLABELLED), dtype=np.int8)
        found[hit] = self.codes[dimension][at[hit]]
        return found


def code_of(dimension: str, label: str) -> int:
    return REGIME_LABELS[dimension].index(label)


def market_regimes(view: BuildView, symbol: str) -> MarketRegimes:
    """The regimes of a benchmark's build view, read once per build; 503 `analytics_not_built` for a
    build published before the regimes table."""

    def read() -> MarketRegimes | None:
        table = view.table("regimes")
        if table is None:
            return None
        codes = {}
        for dimension, column in COLUMNS.items():
            text = table.column(column).fill_null(UNLABELLED).to_numpy(zero_copy_only=False)
            found = np.full(text.shape, -1, dtype=np.int8)
            for code, label in enumerate(REGIME_LABELS[dimension]):
                found[text == label] = code
            codes[dimension] = found
        cuts = floats(table.column("volatility_low_cut")), floats(table.column("volatility_high_cut"))
        low, high = (float(c[0]) if c.size else math.nan for c in cuts)
        return MarketRegimes(symbol, view.build_id, day_numbers(table), codes, low, high)

    try:
        found = view.memo("benchmark:regimes", read)
    except LakeUnavailable as exc:
        raise BenchmarkMissing(symbol, configured=True) from exc
    if found is None:
        raise AnalyticsNotBuilt(
            f"The served build {view.build_id} of benchmark {symbol} was published before its regime labels "
            '(docs/analytics.md "Regimes"); an operator publishes its seal again with a pipeline that labels '
            "them (`alpha-results build`: a pipeline version that has not built this seal yet).",
            details={"symbol": symbol, "build": view.build_id},
        )
    return found


def parse(regime: str) -> tuple[str, str]:
    """`dimension:label` (validated against `schemas.choices.REGIMES` by the query) as its parts."""
    dimension, label = regime.lower().split(":", 1)
    return dimension, label


def session_filter(market: MarketRegimes, regime: str | None, days: np.ndarray) -> np.ndarray:
    """Which of `days` the regime keeps (all of them without one)."""
    if regime is None:
        return np.ones(days.shape, dtype=bool)
    dimension, label = parse(regime)
    return np.asarray(market.on(days, dimension) == code_of(dimension, label), dtype=bool)


def benchmark_withheld(symbol: str, warnings: Warnings) -> str:
    """The reason regime figures are withheld from a key that may not read the benchmark."""
    why = f"split by regimes labelled from {symbol}'s daily series, which this key may not read ({BENCHMARK_ENDPOINT})"
    warnings.add("access_limited", f"{BLOCK} is {why}.", block=BLOCK)
    return f"access_limited: {why}"


def regimes_payload(
    view: BuildView,
    book: str,
    window: Window,
    regime: str | None,
    access: Access,
    market: MarketRegimes | None,
    symbol: str,
    warnings: Warnings,
) -> Regimes:
    """The book's information ratio, rebuilt mean IC and hit rate over the window's sessions (row
    `all`) and over each regime's (one row per label of each dimension, `unlabelled` included; only
    `regime`'s with one). `market` None: the key may not read the benchmark, every regime figure
    withheld."""
    facts = conventions(view)
    per_year = facts.sessions_per_year
    context = {"book": book}
    market_reason = "" if market is not None else benchmark_withheld(symbol, warnings)
    ledger_reason = ic_reason = ""
    part = None
    ledger = inputs.ledger(view, book)
    if not access.ledger:
        ledger_reason = withheld("ledger", f"{BLOCK}.information_ratio", warnings)
    elif ledger is None:
        ledger_reason = "the run has no ledger for this book"
    else:
        part = ledger.window(window)
    series = inputs.weekly_ic(view)
    weekly = None
    if not access.cross_sections:
        ic_reason = withheld("cross_sections", f"{BLOCK}.rebuilt_mean_ic", warnings)
    elif series is None:
        ic_reason = "the run sealed no decisions (no weekly IC)"
    else:
        weekly = series.window(window)
        weekly = inputs.Series(
            weekly.days[np.isfinite(weekly.values)], weekly.values[np.isfinite(weekly.values)]
        )

    def row(
        dimension: Dimension, label: str, keep_sessions: np.ndarray | None, keep_weeks: np.ndarray | None
    ) -> RegimeRow:
        r = None if part is None or keep_sessions is None else part.returns[keep_sessions]
        ic = None if weekly is None or keep_weeks is None else weekly.values[keep_weeks]
        why_ledger = ledger_reason or (market_reason if keep_sessions is None else "")
        why_ic = ic_reason or (market_reason if keep_weeks is None else "")
        ir = mean_ic = hit_rate = None
        if r is not None and r.size >= 2:
            ir = information_ratio(r, per_year)
        if ic is not None and ic.size:
            mean_ic = float(np.mean(ic))
            hit_rate = float(np.count_nonzero(ic > 0)) / ic.size
        return RegimeRow(
            regime="all" if dimension == "all" else f"{dimension}:{label}",
            dimension=dimension,
            label=label,
            regime_sessions=None if r is None else int(r.size),
            regime_weeks=None if ic is None else int(ic.size),
            information_ratio=declared_stat(
                RegimeRow,
                "information_ratio",
                None if ir is None or not math.isfinite(ir) else ir,
                why_ledger or "fewer than 2 daily returns with variance in the regime's sessions",
                context,
                periods_per_year=per_year,
            ),
            rebuilt_mean_ic=declared_stat(
                RegimeRow,
                "rebuilt_mean_ic",
                mean_ic,
                why_ic or "no week of the regime has a measurable IC",
                context,
            ),
            rebuilt_hit_rate=declared_stat(
                RegimeRow,
                "rebuilt_hit_rate",
                hit_rate,
                why_ic or "no week of the regime has a measurable IC",
                context,
            ),
        )

    everything = row(
        "all",
        "all",
        None if part is None else np.ones(part.days.shape, dtype=bool),
        None if weekly is None else np.ones(weekly.days.shape, dtype=bool),
    )
    rows = [everything]
    wanted = None if regime is None else parse(regime)
    for dimension, labels in REGIME_LABELS.items():
        session_labels = None if market is None or part is None else market.on(part.days, dimension)
        week_labels = None if market is None or weekly is None else market.on(weekly.days, dimension)
        for code, label in enumerate(labels):
            if wanted is not None and wanted != (dimension, label):
                continue
            rows.append(
                row(
                    cast(Dimension, dimension),
                    label,
                    None if session_labels is None else session_labels == code,
                    None if week_labels is None else week_labels == code,
                )
            )
    where = {"symbol": symbol}
    cut_reason = market_reason or "the benchmark has fewer than 64 sessions: no realised volatility"
    return Regimes(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        benchmark=symbol,
        regime=regime,
        volatility_low_cut=declared_stat(
            Regimes,
            "volatility_low_cut",
            None if market is None else _finite(market.low_cut),
            cut_reason,
            where,
        ),
        volatility_high_cut=declared_stat(
            Regimes,
            "volatility_high_cut",
            None if market is None else _finite(market.high_cut),
            cut_reason,
            where,
        ),
        by_regime=rows,
        weakest_regime=weakest(rows),
    )


def weakest(rows: list[RegimeRow]) -> str | None:
    """The labelled regime with the lowest information ratio over at least `WEAK_SPOT_SESSIONS`
    sessions (the first of equals, in the rows' order); None when no regime qualifies."""
    found: tuple[float, str] | None = None
    for row in rows:
        ir = row.information_ratio.value
        if row.dimension == "all" or row.label == "unlabelled" or ir is None:
            continue
        if (row.regime_sessions or 0) < WEAK_SPOT_SESSIONS:
            continue
        if found is None or ir < found[0]:
            found = (ir, row.regime)
    return None if found is None else found[1]


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
