"""Independent recomputation of the metrics from served rows (scipy, statsmodels, numpy).

Written from the spec and docs/lake.md, not from analytics/metrics: per-week Python loops over the
cross-sections, scipy's spearmanr, statsmodels' HAC.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import statsmodels.api as sm
from scipy.stats import spearmanr

Rows = list[dict[str, Any]]


def by_week(rows: Rows) -> dict[str, Rows]:
    weeks: dict[str, Rows] = defaultdict(list)
    for row in rows:
        weeks[row["date"]].append(row)
    return dict(sorted(weeks.items()))


def spearman_or_none(x: list[float], y: list[float]) -> float | None:
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return float(spearmanr(x, y).statistic)


def weekly_ic(weeks: dict[str, Rows], score_field: str) -> dict[str, float]:
    out = {}
    for day, rows in weeks.items():
        pairs = [
            (r[score_field], r["forward_return"])
            for r in rows
            if r[score_field] is not None and r["forward_return"] is not None
        ]
        ic = spearman_or_none([p[0] for p in pairs], [p[1] for p in pairs])
        if ic is not None:
            out[day] = ic
    return out


def hac(values: list[float], lag: int) -> dict[str, float]:
    y = np.asarray(values, dtype=float)
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
    return {
        "mean": float(fit.params[0]),
        "standard_error": float(fit.bse[0]),
        "t_statistic": float(fit.tvalues[0]),
        "p_value": float(fit.pvalues[0]),
    }


def deciles(weeks: dict[str, Rows]) -> dict[str, Any]:
    """Buckets by ascending raw_score ordinal rank (ties by symbol): bucket = floor(10 (r-1) / n) + 1.

    A week is skipped (and counted) with fewer than 20 scored names or when its raw_scores are all
    equal (fewer than 2 distinct values: no ranking to bucket)."""
    per_bucket: dict[int, list[float]] = defaultdict(list)
    per_bucket_weight: dict[int, list[float]] = defaultdict(list)
    used = skipped = 0
    for rows in weeks.values():
        scored = sorted(
            (r for r in rows if r["raw_score"] is not None), key=lambda r: (r["raw_score"], r["symbol"])
        )
        n = len(scored)
        if n < 20 or len({r["raw_score"] for r in scored}) < 2:
            skipped += 1
            continue
        if not any(r["forward_return"] is not None for r in scored):
            continue
        used += 1
        members: dict[int, Rows] = defaultdict(list)
        for rank, row in enumerate(scored, start=1):
            members[math.floor(10 * (rank - 1) / n) + 1].append(row)
        for bucket, names in members.items():
            returns = [r["forward_return"] for r in names if r["forward_return"] is not None]
            if returns:
                per_bucket[bucket].append(sum(returns) / len(returns))
            per_bucket_weight[bucket].append(sum(r["long_short_target_weight"] for r in names) / len(names))
    means = [sum(per_bucket[b]) / len(per_bucket[b]) for b in range(1, 11)]
    weights = [sum(per_bucket_weight[b]) / len(per_bucket_weight[b]) for b in range(1, 11)]
    return {
        "weeks": used,
        "weeks_skipped": skipped,
        "mean_forward_return": means,
        "mean_long_short_weight": weights,
        "spearman": float(spearmanr(np.arange(1, 11), means).statistic),
        "top_minus_bottom": means[9] - means[0],
    }


def term_structure(weeks: dict[str, Rows], index: list[str], horizon: int) -> dict[str, float]:
    """Spearman(raw_score, compounded forward return over `horizon` consecutive rebalance weeks)."""
    returns = {(r["date"], r["symbol"]): r["forward_return"] for rows in weeks.values() for r in rows}
    out = {}
    for i, day in enumerate(index):
        if day not in weeks or i + horizon > len(index):
            continue
        xs, ys = [], []
        for row in weeks[day]:
            legs = [returns.get((index[i + k], row["symbol"])) for k in range(horizon)]
            if row["raw_score"] is None or any(leg is None for leg in legs):
                continue
            xs.append(row["raw_score"])
            ys.append(float(np.prod([1.0 + float(leg) for leg in legs if leg is not None])) - 1.0)
        ic = spearman_or_none(xs, ys)
        if ic is not None:
            out[day] = ic
    return out


def rank_autocorrelation(weeks: dict[str, Rows], index: list[str], lag: int) -> dict[str, float]:
    scores = {
        day: {r["symbol"]: r["raw_score"] for r in rows if r["raw_score"] is not None}
        for day, rows in weeks.items()
    }
    out = {}
    for i in range(lag, len(index)):
        now, before = scores.get(index[i], {}), scores.get(index[i - lag], {})
        common = sorted(set(now) & set(before))
        rho = spearman_or_none([now[s] for s in common], [before[s] for s in common])
        if rho is not None:
            out[index[i]] = rho
    return out


def annualised_ratio(returns: np.ndarray, periods_per_year: int) -> float:
    return float(returns.mean() / returns.std(ddof=1) * math.sqrt(periods_per_year))
