"""`/analytics/significance`: PSR, MinTRL and DSR of the long_short daily returns, bootstrap
intervals of the IC and the information ratio, and the nwt.ic p-value adjusted for the trials.

Catalogue figures (`serve.analytics.catalogue.Seen`): the DSR's trial count N is the whole
published catalogue's (a count: deflating by fewer trials than were run would flatter the Sharpe
ratio); the variance V of the trials' Sharpe ratios and the Holm and Benjamini-Hochberg family are
over the alphas the key may read. Both are functions of other alphas' values: over the whole
catalogue, a key that may read every alpha but one solves V for the hidden alpha's Sharpe ratio
(one quadratic), and an adjusted p-value for its p-value.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from analytics import bootstrap, multiple_testing
from analytics import significance as formulas
from analytics.ic import annualisation_factor
from datasets.queries import Window
from datasets.reader import BuildView
from serve.analytics import inputs
from serve.analytics.catalogue import Seen
from serve.analytics.entries import conventions, stat, window_echo, withheld
from serve.metrics import Access, metrics_inputs
from serve.metrics.blocks import ic_reproduction_mismatch
from serve.metrics.stats import Warnings, number

LEDGER_SOURCE = "portfolio:long_short"
IC_SOURCE = "weekly_signal"


def significance_payload(
    view: BuildView,
    window: Window,
    sr_benchmark: float,
    trials_override: int | None,
    seen: Seen,
    access: Access,
    warnings: Warnings,
) -> dict[str, Any]:
    per_year = conventions(view).sessions_per_year
    ledger = inputs.ledger(view, "long_short")
    returns = np.empty(0) if ledger is None else ledger.window(window).returns
    m = formulas.moments(returns) if access.ledger else None
    if not access.ledger:
        reason = withheld("ledger", "significance", warnings)
    elif ledger is None:
        reason = "the run has no long_short ledger"
    else:
        reason = "fewer than 3 daily returns with variance in the window"
    benchmark = sr_benchmark / math.sqrt(per_year)
    n_trials = seen.count if trials_override is None else trials_override
    variance = seen.sharpe_variance
    out: dict[str, Any] = {
        "alpha": view.alpha_id,
        "alpha_id": str(view.entry.get("source_alpha_id") or view.alpha_id),
        "book": "long_short",
        "window": window_echo(window),
        # The window's sessions, as /portfolio and costs count them (the figures need 3 of them)
        "sessions": int(returns.size) if access.ledger else None,  # withheld: a count of the ledger
        "sharpe": stat(
            None if m is None else m.sharpe * math.sqrt(per_year),
            "ratio",
            LEDGER_SOURCE,
            "annualised",
            reason,
            periods_per_year=per_year,
        ),
        "skewness": stat(
            None if m is None else m.skewness, "ratio", LEDGER_SOURCE, "not_annualisable", reason
        ),
        "kurtosis": stat(
            None if m is None else m.kurtosis, "ratio", LEDGER_SOURCE, "not_annualisable", reason
        ),
        "psr": stat(
            None if m is None else formulas.psr(m, benchmark),
            "probability",
            "computed",
            "not_annualisable",
            reason,
            sr_benchmark=sr_benchmark,
        ),
    }
    trl = math.nan if m is None else formulas.min_track_record(m, benchmark)
    out["min_track_record"] = stat(
        trl,
        "sessions",
        "computed",
        "not_annualisable",
        reason if m is None else "the Sharpe ratio does not exceed sr_benchmark: no track record suffices",
        confidence=formulas.MIN_TRL_CONFIDENCE,
        sr_benchmark=sr_benchmark,
        years=number(trl / per_year),
    )
    expected = formulas.expected_max_sharpe(n_trials, variance)
    if m is not None and not math.isfinite(variance):
        reason = (
            "fewer than 2 alphas this key may read have a measurable Sharpe ratio, so the variance of the "
            "trials' Sharpe ratios is unknown"
        )
    out["dsr"] = stat(
        None if m is None else formulas.dsr(m, n_trials, variance),
        "probability",
        "computed",
        "not_annualisable",
        reason,
        trials={
            "count": n_trials,
            "count_source": "catalogue" if trials_override is None else "request",
            # Built from the readable alphas' ledgers: not for a key that may not read ledgers.
            "sharpe_variance": number(variance) if access.ledger else None,
            "sharpe_variance_unit": "per_session_squared",
            "sharpe_variance_alphas": seen.sharpe_variance_alphas if access.ledger else None,
            "expected_max_sharpe": number(expected * math.sqrt(per_year)) if access.ledger else None,
            "expected_max_sharpe_unit": "annualised",
        },
    )
    out["bootstrap"] = _bootstrap(view, window, returns if access.ledger else None, access, warnings)
    out["multiple_testing"] = _multiple_testing(seen, access, warnings)
    return out


def _bootstrap(
    view: BuildView, window: Window, returns: np.ndarray | None, access: Access, warnings: Warnings
) -> dict[str, Any]:
    """The intervals; computed once per build for the whole history, per request for a window."""
    run = conventions(view)
    per_year, weeks_per_year = run.sessions_per_year, run.weeks_per_year
    ic = inputs.weekly_ic(view)
    ic_reason = "the run has no weekly IC (no rebalance cross-sections)" if ic is None else None
    if not access.cross_sections:
        ic_reason = withheld("cross_sections", "significance.bootstrap", warnings)
    elif ic is not None:
        _warn_if_ic_does_not_reproduce(view, warnings)
    ir_reason = None if returns is not None else withheld("ledger", "significance.bootstrap", warnings)
    ic_values = np.empty(0) if ic is None or ic_reason else ic.window(window).values

    def compute() -> dict[str, Any]:
        figures: dict[str, Any] = {}
        for stream, (name, series, statistic, scale, annualisation, source, why) in enumerate(
            (
                ("mean_ic", ic_values, bootstrap.mean_of_rows, 1.0, "per_period", IC_SOURCE, ic_reason),
                (
                    "icir",
                    ic_values,
                    bootstrap.ratio_of_rows,
                    annualisation_factor(weeks_per_year),
                    "annualised",
                    IC_SOURCE,
                    ic_reason,
                ),
                (
                    "information_ratio",
                    np.empty(0) if returns is None else returns,
                    bootstrap.ratio_of_rows,
                    math.sqrt(per_year),
                    "annualised",
                    LEDGER_SOURCE,
                    ir_reason,
                ),
            )
        ):
            lower, upper, block = bootstrap.interval(
                series, statistic, bootstrap.generator(bootstrap.SEED, stream)
            )
            figures[name] = stat(
                bootstrap.point(series, statistic) * scale,
                "ratio",
                source,
                annualisation,
                why or "fewer than 3 observations in the window",
                lower=number(lower * scale),
                upper=number(upper * scale),
                observations=int(np.count_nonzero(np.isfinite(series))),
                block_length=block,
            )
        return {
            "method": "stationary block bootstrap (Politis and Romano 1994), percentile intervals",
            "confidence": bootstrap.CONFIDENCE,
            "resamples": bootstrap.RESAMPLES,
            "seed": bootstrap.SEED,
            "block_length_rule": "mean block length round(n^(1/3)), at least 1, n = observations of the series",
            "streams": "each statistic its own generator: PCG64(SeedSequence([seed, stream])), stream 0 mean_ic, "
            "1 icir, 2 information_ratio",
            **figures,
        }

    if window == (None, None):
        key = f"analytics:bootstrap:{int(access.cross_sections)}{int(access.ledger)}"
        return view.memo(key, compute)
    return compute()


def _warn_if_ic_does_not_reproduce(view: BuildView, warnings: Warnings) -> None:
    """The `/metrics` rule (`ic_reproduction_mismatch`, which nulls nwt.ic there) on the weekly IC
    the bootstrap resamples: its figures are served, with the warning that the series they come
    from does not reproduce the run's sealed mean IC."""
    mismatch = ic_reproduction_mismatch(metrics_inputs(view))
    if mismatch is not None:
        warnings.add(
            "ic_reproduction_mismatch",
            f"{mismatch}; bootstrap.mean_ic and bootstrap.icir are computed from that rebuilt weekly IC, "
            "and multiple_testing has no nwt.ic p-value to adjust.",
            block="significance.bootstrap",
        )


def _multiple_testing(seen: Seen, access: Access, warnings: Warnings) -> dict[str, Any]:
    own = holm = bh = None
    if not access.cross_sections:
        reason = withheld("cross_sections", "significance.multiple_testing", warnings)
    else:
        reason = "nwt.ic of this alpha is not measurable (see /metrics), so there is no p-value to adjust"
    if access.cross_sections and seen.own is not None:
        own = float(seen.family[seen.own])
        holm = float(multiple_testing.holm(seen.family)[seen.own])
        bh = float(multiple_testing.benjamini_hochberg(seen.family)[seen.own])
    size = {"family_size": int(seen.family.size) if access.cross_sections else None}
    return {
        "p_value": stat(own, "probability", "nwt.ic", "not_annualisable", reason),
        "holm": stat(holm, "probability", "computed", "not_annualisable", reason, **size),
        "benjamini_hochberg": stat(bh, "probability", "computed", "not_annualisable", reason, **size),
    }
