"""The engine's stored metrics (kind `metrics`), computed from its own long_short ledger and
rebalance cross-sections, in long form (scope, period, metric, value).

Conventions (also in docs/seal.md): weekly IC is the Spearman correlation of a score with
`forward_return` over the names where both are present, for every sealed week with at least 3
such pairs and neither side constant; daily returns are `ending_equity / starting_equity - 1`;
a value that cannot be measured (too few observations, zero variance) is stored as null.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from alpha_results_seal.arrow_schemas import METRICS
from alpha_results_seal.ranking import pearson, spearman

WEEKS_PER_YEAR = 52
SESSIONS_PER_YEAR = 252

MetricRow = tuple[str, str, str, float | None]


@dataclass(frozen=True)
class Ledger:
    dates: list[dt.date]
    starting_equity: np.ndarray
    ending_equity: np.ndarray
    risk_free_return: np.ndarray
    turnover: np.ndarray


def weekly_ic(
    score: np.ndarray,
    forward_return: np.ndarray,
    correlation: Callable[[np.ndarray, np.ndarray], float] = spearman,
) -> np.ndarray:
    """One IC per week (NaN where fewer than 3 pairs or a constant side)."""
    out = np.full(score.shape[0], np.nan)
    for w in range(score.shape[0]):
        ok = ~np.isnan(score[w]) & ~np.isnan(forward_return[w])
        x, y = score[w][ok], forward_return[w][ok]
        if ok.sum() < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
            continue
        out[w] = correlation(x, y)
    return out


def legacy_weekly_ic(score: np.ndarray, forward_return: np.ndarray, horizon_weeks: int = 13) -> np.ndarray:
    """How the legacy engine measured IC: Pearson of the score against the forward return
    compounded over `horizon_weeks` rebalances (its holding window was a quarter)."""
    growth = 1.0 + forward_return
    compounded = np.full_like(forward_return, np.nan)
    for w in range(len(forward_return) - horizon_weeks + 1):
        compounded[w] = growth[w : w + horizon_weeks].prod(axis=0) - 1.0
    return weekly_ic(score, compounded, pearson)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _mean_over_sd(x: np.ndarray) -> float:
    if len(x) < 2:
        return float("nan")
    sd = x.std(ddof=1)
    return float(x.mean() / sd) if sd > 0 else float("nan")


def ic_metrics(ic: np.ndarray, annualised: bool, prefix: str = "") -> dict[str, float | None]:
    ic = ic[~np.isnan(ic)]
    scale = np.sqrt(WEEKS_PER_YEAR) if annualised else 1.0
    return {
        f"{prefix}mean_ic": _finite(ic.mean()) if len(ic) else None,
        f"{prefix}icir": _finite(_mean_over_sd(ic) * scale),
    }


def ledger_metrics(ledger: Ledger, rows: np.ndarray) -> dict[str, float | None]:
    """Book metrics over the sessions `rows` (a contiguous index range)."""
    start = ledger.starting_equity[rows]
    end = ledger.ending_equity[rows]
    returns = end / start - 1.0
    excess = returns - ledger.risk_free_return[rows]
    equity = np.concatenate([start[:1], end])
    peak = np.maximum.accumulate(equity)[1:]
    drawdown = peak - end
    return {
        "information_ratio": _finite(_mean_over_sd(returns) * np.sqrt(SESSIONS_PER_YEAR)),
        "excess_sharpe": _finite(_mean_over_sd(excess) * np.sqrt(SESSIONS_PER_YEAR)),
        "pnl": float(end[-1] - start[0]),
        "max_drawdown": float(max(drawdown.max(), 0.0)),
        "max_drawdown_pct": float(max((drawdown / peak).max(), 0.0) * 100.0),
        "total_turnover": float(ledger.turnover[rows].sum()),
    }


def _groups(dates: Iterable[dt.date], key: Callable[[dt.date], str]) -> dict[str, np.ndarray]:
    out: dict[str, list[int]] = {}
    for i, d in enumerate(dates):
        out.setdefault(key(d), []).append(i)
    return {k: np.array(v) for k, v in out.items()}


def stored_metrics(
    ledger: Ledger,
    week_dates: list[dt.date] | None,
    ic: np.ndarray | None,
    raw_ic: np.ndarray | None,
    coverage: np.ndarray | None,
    icir_annualised: bool,
) -> list[MetricRow]:
    """All stored metrics. Without cross-sections (`ic` None) the IC family is not sealed."""
    rows: list[MetricRow] = []
    overall: dict[str, float | None] = {}
    if ic is not None and raw_ic is not None and coverage is not None:
        overall |= ic_metrics(ic, icir_annualised)
        overall |= ic_metrics(raw_ic, icir_annualised, prefix="raw_")
        valid = ic[~np.isnan(ic)]
        overall["ic_hit_rate"] = _finite((valid > 0).mean()) if len(valid) else None
        overall["ic_dispersion"] = _finite(valid.std(ddof=1)) if len(valid) > 1 else None
        overall["coverage"] = float(coverage.mean())
    all_rows = np.arange(len(ledger.dates))
    book = ledger_metrics(ledger, all_rows)
    overall |= {k: book[k] for k in ("information_ratio", "excess_sharpe")}
    overall["risk_free_rate"] = float(ledger.risk_free_return.mean() * SESSIONS_PER_YEAR)
    overall["pnl"] = float(ledger.ending_equity[-1] - 1.0)
    overall |= {k: book[k] for k in ("max_drawdown", "max_drawdown_pct")}
    overall["annualised_turnover"] = float(ledger.turnover.mean() * SESSIONS_PER_YEAR)
    overall["mean_turnover"] = float(ledger.turnover.mean())
    overall["total_turnover"] = book["total_turnover"]
    rows += [("overall", "", k, v) for k, v in overall.items()]

    for scope, key in (("yearly", lambda d: f"{d.year}"), ("monthly", lambda d: f"{d.year}-{d.month:02d}")):
        week_groups = _groups(week_dates, key) if week_dates is not None and ic is not None else {}
        for period, idx in _groups(ledger.dates, key).items():
            values: dict[str, float | None] = {}
            if ic is not None:
                week_idx = week_groups.get(period, np.array([], dtype=int))
                values |= ic_metrics(ic[week_idx], icir_annualised)
            values |= ledger_metrics(ledger, idx)
            rows += [(scope, period, k, v) for k, v in values.items()]
    return rows


def metrics_table(rows: list[MetricRow]) -> pa.Table:
    """The rows as the seal's `metrics.parquet` (long form)."""
    scope, period, metric, value = zip(*rows, strict=True)
    return pa.Table.from_pydict(
        {"scope": list(scope), "period": list(period), "metric": list(metric), "value": list(value)},
        schema=METRICS,
    )
