"""Hand-built metrics inputs: random but internally consistent weekly series, one factory."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec
import numpy as np

from analytics.access import Access
from analytics.metrics import Conventions, MetricsInputs, compute_metrics

FIRST_WEEK = np.datetime64("2021-01-08", "D")
FIRST_SESSION = np.datetime64("2021-01-04", "D")
ALL_ACCESS = Access(cross_sections=True, ledger=True, trades=True)


def _weekly_dates(weeks: int) -> np.ndarray:
    return FIRST_WEEK + 7 * np.arange(weeks)


def _sessions(weeks: int) -> np.ndarray:
    days = FIRST_SESSION + np.arange(weeks * 7 + 7)
    return days[np.is_busday(days)]


def make_inputs(weeks: int = 80, seed: int = 3, **overrides: Any) -> MetricsInputs:
    rng = np.random.default_rng(seed)
    dates = _weekly_dates(weeks)
    status = np.array(["traded"] * weeks, dtype=object)
    status[5] = "constant_scores"
    status[-1] = "pending"
    n_symbols = rng.integers(15, 60, weeks).astype(float)
    n_symbols[[3, 11]] = 12.0  # below the decile minimum of 20
    eligible = n_symbols >= 20
    n_forward = n_symbols.copy()
    n_forward[-2:] = 0.0  # the pending week and the one before have no forward returns
    ic = rng.normal(0.03, 0.1, weeks)
    ic[[5, weeks - 1, weeks - 2]] = np.nan
    raw_ic = rng.normal(0.02, 0.12, weeks)
    raw_ic[[5, weeks - 1, weeks - 2]] = np.nan
    spread = np.where(eligible & (n_forward > 0), rng.normal(0.002, 0.01, weeks), np.nan)
    weekly_signal = {
        "date": dates,
        "week_status": status,
        "n_symbols": n_symbols,
        "cohort_size": n_symbols,
        "n_forward_returns": n_forward,
        "ic": ic,
        "n_ic_obs": n_forward,
        "raw_ic": raw_ic,
        "n_raw_ic_obs": n_forward,
        "coverage": n_symbols / 60.0,
        "decile_eligible": eligible,
        "decile_spread": spread,
    }
    decile_weeks = dates[eligible]
    rows = decile_weeks.size * 10
    has_returns = np.repeat(n_forward[eligible] > 0, 10)
    mean_forward = np.where(has_returns, rng.normal(0.001, 0.02, rows), np.nan)
    mean_forward[7] = np.nan  # a bucket without a forward return in an otherwise normal week
    weekly_deciles = {
        "date": np.repeat(decile_weeks, 10),
        "bucket": np.tile(np.arange(1, 11), decile_weeks.size).astype(float),
        "n_symbols": rng.integers(2, 7, rows).astype(float),
        "mean_score": rng.normal(0, 1, rows),
        "mean_score_z": rng.normal(0, 1, rows),
        "mean_long_short_weight": rng.normal(0, 0.01, rows),
        "mean_long_only_weight": rng.uniform(0, 0.02, rows),
        "mean_forward_return": mean_forward,
        "ic": np.where(has_returns, rng.normal(0, 0.3, rows), np.nan),
        "n_return_obs": np.where(has_returns, rng.integers(2, 7, rows), 0).astype(float),
    }
    term_dates = np.repeat(dates, 4)
    horizons = np.tile(np.array([1, 2, 4, 8], dtype=float), weeks)
    term_ic = rng.normal(0.02, 0.1, term_dates.size)
    term_ic[rng.random(term_dates.size) < 0.05] = np.nan
    weekly_term = {
        "date": term_dates,
        "horizon_weeks": horizons,
        "ic": term_ic,
        "n_obs": np.full(term_dates.size, 30.0),
    }
    auto_dates = np.repeat(dates, 8)
    lags = np.tile(np.arange(1, 9, dtype=float), weeks)
    rho = rng.uniform(0.2, 0.95, auto_dates.size)
    rho[rng.random(auto_dates.size) < 0.05] = np.nan
    weekly_autocorr = {
        "date": auto_dates,
        "lag_weeks": lags,
        "rho": rho,
        "n_obs": np.full(auto_dates.size, 30.0),
    }
    sessions = _sessions(weeks)
    returns = rng.normal(0.0004, 0.01, sessions.size)
    ending = np.cumprod(1 + returns)
    starting = np.r_[1.0, ending[:-1]]
    ledger = {"date": sessions, "starting_equity": starting, "ending_equity": ending}
    finite_ic = ic[np.isfinite(ic)]
    overall: dict[str, float | None] = {
        "mean_ic": float(finite_ic.mean()),
        "icir": float(finite_ic.mean() / finite_ic.std(ddof=1) * np.sqrt(52)),
        "raw_mean_ic": float(np.nanmean(raw_ic)),
        "raw_icir": 0.5,
        "ic_hit_rate": float((finite_ic > 0).mean()),
        "ic_dispersion": float(finite_ic.std()),
        "coverage": 0.6,
        "information_ratio": 0.9,
        "excess_sharpe": 0.7,
        "risk_free_rate": 0.02,
        "pnl": float(ending[-1] - 1.0),
        "max_drawdown": 0.1,
        "max_drawdown_pct": 9.5,
        "annualised_turnover": 12.0,
        "mean_turnover": 0.05,
        "total_turnover": 20.0,
    }
    stored: dict[str, dict[str, dict[str, float | None]]] = {
        "overall": {"": overall},
        "yearly": {},
        "monthly": {},
    }
    for day in dates:
        year, month = str(day)[:4], str(day)[:7]
        for scope, period in (("yearly", year), ("monthly", month)):
            stored[scope][period] = {
                "mean_ic": 0.01,
                "icir": 0.2,
                "information_ratio": 0.3,
                "excess_sharpe": 0.25,
                "pnl": 0.01,
                "max_drawdown": 0.02,
                "max_drawdown_pct": 2.0,
                "total_turnover": 1.5,
            }
    base = MetricsInputs(
        alpha="Test_synthetic",
        source_alpha_id="src-synthetic-1",
        kinds_present=frozenset({"rebalances", "decisions", "metrics", "portfolio"}),
        missing_required_kinds=(),
        conventions=Conventions(icir_annualised=True, risk_free_rate_source="synthetic 2% flat"),
        signal_processing={
            "signal": "conditioned",
            "smoothing_applied": True,
            "smoothing_half_life_weeks": 4,
            "detail": "EWMA of the raw score",
        },
        stored=stored,
        rebalances={"date": dates, "week_status": status},
        weekly_signal=weekly_signal,
        weekly_deciles=weekly_deciles,
        weekly_term=weekly_term,
        weekly_autocorr=weekly_autocorr,
        ledger=ledger,
    )
    return dataclasses.replace(base, derived={}, **overrides)


def metrics_json(*args: Any) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """`compute_metrics(*args)` as a client reads it: the object and the warnings as JSON values."""
    found, warnings = compute_metrics(*args)
    return msgspec.to_builtins(found), msgspec.to_builtins(warnings)
