"""What /analytics/live is checked against: the in-sample and out-of-sample figures of a split,
recomputed from the lake's files (pandas and scipy)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from tests.analytics import sharpe_reference
from tests.analytics.reference import Lake

MIN_OOS = 63


def ratio(x: np.ndarray, scale: float) -> float | None:
    x = x[np.isfinite(x)]
    if x.size < 2:
        return None
    sd = float(np.std(x, ddof=1))
    return float(np.mean(x)) / sd * scale if sd > 0 else None


def drawdown_pct(r: np.ndarray) -> float | None:
    if r.size == 0:
        return None
    level = np.concatenate([[1.0], np.cumprod(1.0 + r)])
    return float(np.max(1.0 - level / np.maximum.accumulate(level))) * 100.0


def part_of(ledger: pd.DataFrame | None, ic: pd.Series | None) -> dict[str, Any]:
    """The figures of one part, from its ledger rows and its weekly ICs (finite)."""
    out: dict[str, Any] = {}
    if ledger is not None:
        r = ledger["ending_equity"].to_numpy(float) / ledger["starting_equity"].to_numpy(float) - 1.0
        rf = ledger["risk_free_return"].to_numpy(float)
        turnover = ledger["turnover"].to_numpy(float)
        turnover = turnover[np.isfinite(turnover)]
        out |= {
            "sessions": len(ledger),
            "first_session": ledger["date"].iloc[0] if len(ledger) else None,
            "last_session": ledger["date"].iloc[-1] if len(ledger) else None,
            "information_ratio": ratio(r, math.sqrt(252)),
            "excess_sharpe": ratio(r - rf, math.sqrt(252)),
            "max_drawdown_pct": drawdown_pct(r),
            "turnover": float(turnover.mean()) * 252 if turnover.size else None,
        }
    if ic is not None:
        values = ic.to_numpy(float)
        out |= {
            "weeks": int(values.size),
            "rebuilt_mean_ic": float(values.mean()) if values.size else None,
            "rebuilt_icir": ratio(values, math.sqrt(52)),
            "rebuilt_hit_rate": float((values > 0).sum()) / values.size if values.size else None,
        }
    return out


def psr(oos: np.ndarray, ins: np.ndarray) -> float | None:
    """The probabilistic Sharpe ratio of the out-of-sample returns against the in-sample per-session
    Sharpe ratio, by the reference code of López de Prado, Lipton and Zoonekynd (2025): the variance
    under H0 for the out-of-sample returns' skewness, kurtosis and lag-1 autocorrelation."""
    if oos.size < 3 or ins.size < 3:
        return None
    sr_star = float(np.mean(ins)) / float(np.std(ins, ddof=1))
    sr = float(np.mean(oos)) / float(np.std(oos, ddof=1))
    moments = {
        "gamma3": float(stats.skew(oos)),
        "gamma4": float(stats.kurtosis(oos, fisher=False)),
        "rho": float(sharpe_reference.autocorrelation(oos)),
    }
    if not sharpe_reference.sharpe_ratio_variance(sr_star, oos.size, **moments) > 0:
        return None
    return float(sharpe_reference.probabilistic_sharpe_ratio(sr, sr_star, T=oos.size, **moments))


def expected(lake: Lake, alpha: str, book: str, split: str) -> dict[str, Any]:
    ledger = lake.ledger(alpha, book)
    signal = lake.weekly_signal(alpha)
    ics: list[pd.Series | None] = [None, None]
    if signal is not None:
        days = pd.to_datetime(signal["date"])
        realised = days.shift(-1).fillna(days.iloc[-1] + pd.Timedelta(days=7))
        inside = realised <= pd.Timestamp(split)
        finite = np.isfinite(signal["ic"].to_numpy(float))
        ics = [signal["ic"][inside & finite], signal["ic"][~inside & finite]]
    parts: list[pd.DataFrame | None] = [None, None]
    if ledger is not None:
        parts = [ledger[ledger["date"] <= split], ledger[ledger["date"] > split]]
    ins, oos = part_of(parts[0], ics[0]), part_of(parts[1], ics[1])
    if ledger is not None and oos["sessions"] < MIN_OOS:
        # One rule for the live information ratio (issue 81, item 9): a quarter of sessions, as the
        # decay ratio, the consistency test and the live check.
        oos["information_ratio"] = None
    decay = consistency = None
    if ledger is not None and oos["sessions"] >= MIN_OOS:
        if ins["information_ratio"] and ins["information_ratio"] > 0 and oos["information_ratio"] is not None:
            decay = oos["information_ratio"] / ins["information_ratio"]
        r = [p["ending_equity"].to_numpy(float) / p["starting_equity"].to_numpy(float) - 1.0 for p in parts]  # type: ignore[union-attr]
        consistency = psr(r[1], r[0])
    return {"in_sample": ins, "out_of_sample": oos, "decay_ratio": decay, "probability": consistency}
