"""The analytics documentation block (`/analytics/_doc`): every field of every analytics route,
with its meaning, formula, unit, annualisation and source. Identical for every alpha and call.

`fields` keys are dotted paths prefixed by the route (`significance.psr`, `rolling[].mean_ic`);
a collection's rows are `name[]`. tests/analytics walks served answers and fails on a path
without an entry. docs/analytics.md says the same in prose, with the references.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from analytics import bootstrap, correlation, rolling, significance
from schemas.bodies.base import field_schemas
from schemas.bodies.figures import Block, documented
from schemas.bodies.formats import X_UNIT
from schemas.bodies.rows import ROWS
from schemas.registry import ENDPOINTS, Endpoint

SCHEMA_VERSION = "1.0.0"
WINDOW = "the requested window (from/to), else the whole history"


def _f(
    meaning: str,
    formula: str | None = None,
    unit: str | None = None,
    annualisation: str = "not_annualisable",
    source: str = "computed",
) -> dict[str, Any]:
    return {
        "meaning": meaning,
        "formula": formula,
        "unit": unit,
        "annualisation": annualisation,
        "source": source,
    }


def window_fields(prefix: str) -> dict[str, dict[str, Any]]:
    """The window echo every analytics body carries (`window_echo`), under `prefix`."""
    return {
        f"{prefix}.window": _f("The window echoed: from and to, null when open"),
        f"{prefix}.window.from": _f("First session, inclusive, or null"),
        f"{prefix}.window.to": _f("Last session, inclusive, or null"),
    }


def _stat(prefix: str, entry: dict[str, Any], **extra: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A stat entry and its standard keys."""
    out = {prefix: entry}
    out[f"{prefix}.value"] = _f(
        "The figure; null when not_measurable",
        entry["formula"],
        entry["unit"],
        entry["annualisation"],
        entry["source"],
    )
    out[f"{prefix}.unit"] = _f("Unit of value")
    out[f"{prefix}.status"] = _f("available, or not_measurable (value null, withheld_reason says why)")
    out[f"{prefix}.source"] = _f("What the figure is computed from")
    out[f"{prefix}.annualisation"] = _f("annualised, per_period or not_annualisable")
    out[f"{prefix}.withheld_reason"] = _f("Why the figure is not measurable (present only then)")
    for key, doc in extra.items():
        out[f"{prefix}.{key}"] = doc
    return out


def _significance() -> dict[str, dict[str, Any]]:
    p = "significance"
    fields = {
        p: _f("Significance of the long_short Sharpe ratio and of the IC over " + WINDOW),
        f"{p}.alpha": _f("The alpha served (meta.run)"),
        f"{p}.alpha_id": _f("The run's research source id"),
        f"{p}.book": _f("Always long_short"),
        **window_fields(p),
        f"{p}.sessions": _f(
            "Sessions of the long_short book in the window, as /portfolio and costs count them (the figures need 3 "
            "daily returns with variance); null for a key that may not read the ledger (a count of it, withheld "
            "as its figures are)",
            unit="sessions",
            source="portfolio:long_short",
        ),
    }
    fields |= _stat(
        f"{p}.sharpe",
        _f(
            "Sharpe ratio of daily long_short total returns, after costs and not in excess of the risk-free rate: "
            "the /metrics core.information_ratio convention (daily, times sqrt(252))",
            "mean / std(ddof=1) of ending/starting - 1, times sqrt(252)",
            "ratio",
            "annualised",
            "portfolio:long_short",
        ),
        periods_per_year=_f("Sessions per year used to annualise", unit="sessions"),
    )
    fields |= _stat(
        f"{p}.skewness",
        _f(
            "Sample skewness of the daily returns",
            "m3 / m2^(3/2) (biased moments)",
            "ratio",
            source="portfolio:long_short",
        ),
    )
    fields |= _stat(
        f"{p}.kurtosis",
        _f(
            "Sample kurtosis of the daily returns, not in excess (3 for a normal)",
            "m4 / m2^2 (biased moments)",
            "ratio",
            source="portfolio:long_short",
        ),
    )
    sr_benchmark = _f(
        "The request's sr_benchmark (annualised); per session it is sr_benchmark / sqrt(252)",
        unit="ratio",
        annualisation="annualised",
        source="request",
    )
    fields |= _stat(
        f"{p}.psr",
        _f(
            "Probabilistic Sharpe Ratio: the probability that the true Sharpe ratio exceeds sr_benchmark",
            "Phi((SR - SR*) sqrt(n - 1) / sqrt(1 - skew SR + (kurt - 1) / 4 SR^2)), SR per session",
            "probability",
        ),
        sr_benchmark=sr_benchmark,
    )
    fields |= _stat(
        f"{p}.min_track_record",
        _f(
            "Minimum track record length for PSR(sr_benchmark) to reach the confidence",
            "1 + (1 - skew SR + (kurt - 1) / 4 SR^2) (z_0.95 / (SR - SR*))^2; not measurable when SR <= SR*",
            "sessions",
        ),
        confidence=_f("Confidence of the minimum track record (0.95)", unit="probability"),
        sr_benchmark=sr_benchmark,
        years=_f("min_track_record in years (sessions / 252)", unit="years"),
    )
    fields |= _stat(
        f"{p}.dsr",
        _f(
            "Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the catalogue's trials",
            "PSR(SR0), SR0 = sqrt(V) ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e))), gamma the Euler-Mascheroni constant",
            "probability",
        ),
        trials=_f(
            "The trials behind SR0: the catalogue's count, and the Sharpe variance over the alphas the key may read "
            "(no other alpha is named, and no figure of an alpha the key may not read enters)"
        ),
        **{
            "trials.count": _f(
                "N: alphas of the published catalogue with a measurable long_short Sharpe ratio, or the request's trials",
                unit="trials",
                source="catalogue",
            ),
            "trials.count_source": _f("catalogue, or request when trials= overrides the count"),
            "trials.sharpe_variance": _f(
                "V: sample variance (ddof=1) of the per-session Sharpe ratios of the alphas the key may read (the "
                "whole catalogue's for a key that reads it all), each over its whole history; not measurable below "
                "2 of them; null for a key that may not read the ledger",
                unit="per_session_squared",
                source="catalogue",
            ),
            "trials.sharpe_variance_unit": _f("Unit of sharpe_variance"),
            "trials.sharpe_variance_alphas": _f(
                "How many Sharpe ratios V is over: the alphas the key may read with a measurable Sharpe ratio; "
                "null for a key that may not read the ledger",
                unit="alphas",
                source="catalogue",
            ),
            "trials.expected_max_sharpe": _f(
                "SR0 annualised (times sqrt(252)); null for a key that may not read the ledger",
                unit="ratio",
                annualisation="annualised",
            ),
            "trials.expected_max_sharpe_unit": _f("Unit of expected_max_sharpe"),
        },
    )
    b = f"{p}.bootstrap"
    fields |= {
        b: _f(f"Stationary block-bootstrap {bootstrap.CONFIDENCE:.0%} confidence intervals over " + WINDOW),
        f"{b}.method": _f("The resampling scheme and the interval"),
        f"{b}.confidence": _f("Confidence level of the intervals", unit="probability"),
        f"{b}.resamples": _f("Number of resamples", unit="resamples"),
        f"{b}.seed": _f("Seed of numpy's PCG64 generator: the same request always gives the same answer"),
        f"{b}.block_length_rule": _f("How the mean block length is chosen"),
        f"{b}.streams": _f("The generator stream of each statistic (PCG64(SeedSequence([seed, stream])))"),
    }
    for name, meaning, formula, annualisation, source in (
        ("mean_ic", "Mean weekly conditioned IC", "mean of weekly_signal.ic", "per_period", "weekly_signal"),
        (
            "icir",
            "Weekly IC information ratio, per week: never annualised (as rolling; /metrics core.icir is annualised "
            "when the run's conventions say so)",
            "mean / std(ddof=1) of weekly IC",
            "per_period",
            "weekly_signal",
        ),
        (
            "information_ratio",
            "Information ratio of daily long_short returns (after costs, not in excess of the risk-free rate), "
            "daily times sqrt(252) as /metrics core.information_ratio (rolling's is weekly times sqrt(52))",
            "mean / std(ddof=1) times sqrt(252)",
            "annualised",
            "portfolio:long_short",
        ),
    ):
        fields |= _stat(
            f"{b}.{name}",
            _f(meaning, formula, "ratio", annualisation, source),
            lower=_f("Lower bound: the 2.5% quantile of the resampled statistic", unit="ratio"),
            upper=_f("Upper bound: the 97.5% quantile of the resampled statistic", unit="ratio"),
            observations=_f("Observations of the series in the window", unit="observations"),
            block_length=_f("Mean block length used: round(n^(1/3)), at least 1", unit="observations"),
        )
    m = f"{p}.multiple_testing"
    fields[m] = _f(
        "The nwt.ic p-value of /metrics adjusted within the family of the alphas the key may read (whole histories; from/to do not narrow it)"
    )
    family = {
        "family_size": _f(
            "The family adjusted over: the published alphas the key may read whose nwt.ic is measurable (this one included)",
            unit="hypotheses",
            source="catalogue",
        )
    }
    fields |= _stat(
        f"{m}.p_value",
        _f(
            "Two-sided Newey-West p-value of the mean weekly IC (as /metrics nwt.ic.p_value)",
            None,
            "probability",
            source="nwt.ic",
        ),
    )
    fields |= _stat(
        f"{m}.holm",
        _f(
            "Holm step-down adjusted p-value within the family",
            "max over j <= k of min(1, (m - j + 1) p_(j)), k this alpha's rank",
            "probability",
        ),
        **family,
    )
    fields |= _stat(
        f"{m}.benjamini_hochberg",
        _f(
            "Benjamini-Hochberg adjusted p-value (false discovery rate) within the family",
            "min over j >= k of min(1, m / j p_(j))",
            "probability",
        ),
        **family,
    )
    return fields


ROW_BLOCK = Block(
    keys=("meaning", "formula", "unit", "annualisation", "source"),
    defaults={"annualisation": "not_annualisable", "source": "computed"},
    inherited=frozenset(),
)
"""How a collection row's field is listed: read from its row Struct (`schemas.bodies.rows`), where
its meaning, null rule, unit, formula, annualisation and source are declared (`doc`)."""


def _rows(route: str, meaning: str) -> dict[str, dict[str, Any]]:
    """A collection's entry and its rows' fields (`correlation[].pearson`), from the row Struct."""
    rows = documented(ROWS[f"analytics.{route}"], ROW_BLOCK)
    return {route: _f(meaning)} | {f"{route}[].{path}": entry for path, entry in rows.items()}


def _collections() -> dict[str, dict[str, Any]]:
    need = ", ".join(f"{w} weeks: {rolling.min_observations(w)}" for w in rolling.WINDOWS)
    return (
        _rows(
            "correlation",
            "One row per other alpha the key may read (never the alpha itself, never one it may not read)",
        )
        | _rows("drawdowns", "Drawdown episodes of the book over " + WINDOW + ", deepest first")
        | _rows(
            "rolling",
            "One row per rebalance week from the window-th on: figures over the trailing window of weeks ending at "
            f"it (it may start before from). A figure needs half the window's weeks ({need}); null below",
        )
    )


def _costs() -> dict[str, dict[str, Any]]:
    p = "costs"
    source = "portfolio:{book}"
    fields = {
        p: _f(
            "What the book's modelled execution costs take over "
            + WINDOW
            + "; flows in normalised equity (1.0 = the book's equity at inception)"
        ),
        f"{p}.alpha": _f("The alpha served"),
        f"{p}.book": _f("The book measured"),
        **window_fields(p),
        f"{p}.sessions": _f("Sessions of the book in the window", unit="sessions", source=source),
    }
    fields |= _stat(
        f"{p}.net_pnl",
        _f(
            "Net P&L, every flow included",
            "sum(ending_equity - starting_equity)",
            "equity",
            source=source,
        ),
    )
    fields |= _stat(
        f"{p}.execution_cost",
        _f("Modelled execution cost paid", "-sum(execution_cost)", "equity", source=source),
    )
    fields |= _stat(
        f"{p}.gross_pnl",
        _f("P&L before execution costs", "net_pnl + execution_cost", "equity", source=source),
    )
    fields |= _stat(
        f"{p}.traded_notional",
        _f(
            "Notional traded, in equity units",
            "sum(turnover_notional / equity_basis)",
            "equity",
            source=source,
        ),
    )
    fields |= _stat(
        f"{p}.break_even_multiple",
        _f(
            "Multiple m of the modelled execution cost at which the window's compounded net return is zero; not measurable when the book loses before costs or paid none",
            "root of prod_t(1 + g_t - m k_t) = 1 (Brent's method), g_t the gross daily return, k_t = -execution_cost_t / starting_equity_t",
            "multiple",
        ),
    )
    fields |= _stat(
        f"{p}.break_even_bps",
        _f(
            "Cost per unit of traded notional at which the window's compounded net return is zero",
            "break_even_multiple * modelled_cost_bps",
            "bps",
        ),
    )
    fields |= _stat(
        f"{p}.modelled_cost_bps",
        _f(
            "The modelled cost per unit of traded notional (break_even_bps / break_even_multiple)",
            "execution_cost / traded_notional * 10^4 (both in equity units)",
            "bps",
        ),
    )
    fields[f"{p}.information_ratio"] = _f(
        "Information ratio before (gross) and after (net) execution costs, side by side; gross here means before "
        "costs, not the /metrics sense (not in excess of the risk-free rate: neither side is)"
    )
    for side, formula, meaning in (
        ("gross", "daily g = r - execution_cost / starting_equity", "before execution costs"),
        (
            "net",
            "daily r = ending / starting - 1",
            "after execution costs, as /metrics core.information_ratio",
        ),
    ):
        fields |= _stat(
            f"{p}.information_ratio.{side}",
            _f(
                f"Information ratio of daily returns {meaning}, daily times sqrt(252)",
                f"mean / std(ddof=1) times sqrt(252) of {formula}",
                "ratio",
                "annualised",
                source,
            ),
            periods_per_year=_f("Sessions per year used to annualise", unit="sessions"),
        )
    t = f"{p}.turnover_by_decile"
    fields |= {
        t: _f(
            "One-way turnover of the book's target weights by decile of the score it trades (score and the "
            "long_short or long_only target weight; raw_score and the raw_ book's own target weight for raw_ books; "
            "bucketed as /metrics ic_deciles); null for a book without target weights (a run without decisions)"
        ),
        f"{t}.score_field": _f("Score bucketed: score, or raw_score for raw_ books"),
        f"{t}.weight_field": _f("Decision column of the book's target weight"),
        f"{t}.weeks": _f("Weeks in the window with a previous week (turnover needs one)", unit="weeks"),
        f"{t}.bucketed_weeks": _f(
            "Of them, weeks bucketed into deciles (at least 20 scored names, not all equal)", unit="weeks"
        ),
        f"{t}.mean_weekly_turnover": _f(
            "Mean over weeks of the whole book's one-way turnover",
            "mean_t 1/2 sum_i |w_t,i - w_t-1,i|",
            "ratio",
        ),
        f"{t}.unbucketed_mean_turnover": _f(
            "Mean weekly turnover of names in no decile at t (unbucketed weeks, names that left the cross-section)",
            None,
            "ratio",
        ),
        f"{t}.buckets": _f("Q1 (lowest score) .. Q10"),
        f"{t}.buckets[].bucket": _f("Q1 .. Q10"),
        f"{t}.buckets[].rank": _f("1 .. 10"),
        f"{t}.buckets[].weeks": _f("Bucketed weeks the decile held names", unit="weeks"),
        f"{t}.buckets[].mean_turnover": _f(
            "Mean over bucketed weeks of the decile's one-way turnover",
            "sum over bucketed weeks of 1/2 sum_{i in decile} |w_t,i - w_t-1,i|, divided by bucketed_weeks",
            "ratio",
        ),
    }
    fields |= _stat(
        f"{p}.holding_period",
        _f(
            "Average holding period of a position",
            "mean_t sum_i |w_t,i| / mean_t 1/2 sum_i |w_t,i - w_t-1,i|",
            "weeks",
            source="decisions",
        ),
    )
    return fields


MAX_LISTED = 6  # values of a choice listed in `paths` (longer lists: the reference has them)


def _paths() -> str:
    """Every route of the group with its parameters (and their values where they are a choice), from
    the registry: `GET path (name, name = a | b, ...)`, one per route."""

    def listed(endpoint: Endpoint) -> str:
        params = ", ".join(
            p.name if p.enum is None or len(p.enum) > MAX_LISTED else f"{p.name} = {' | '.join(p.enum)}"
            for p in endpoint.params
        )
        path = re.sub(r":\w+}", "}", endpoint.path)
        return f"GET {path} ({params})" if params else f"GET {path}"

    return "; ".join(listed(e) for e in ENDPOINTS if e.group == "analytics") + "."


_ENDPOINT: dict[str, str] = {
    "paths": _paths(),
    "access": "Group analytics, opened only by an administrator (deny by default). Figures built from the ledger "
    "need portfolio.ledger and those built from the rebalance cross-sections need signals.rebalances.get or "
    "signals.scores, as on /metrics: in significance and costs they are not_measurable with an access_limited "
    "warning; correlation, drawdowns and rolling answer 403 endpoint_not_allowed naming the route they need. "
    "Books follow the key's raw-book access as on /books.",
    "catalogue": "Correlation lists and counts only the alphas the key may read, never the alpha itself. The DSR's "
    "trial count N is the whole published catalogue's (a count, the only figure served that alphas the key may not "
    "read enter); the variance of the trials' Sharpe ratios and the Holm and Benjamini-Hochberg family are over "
    "the alphas the key may read, so no answer holds a value of an alpha the key may not read.",
    "window_semantics": "from/to narrow significance (except multiple_testing and the trials aggregates, which use "
    "whole histories), correlation, drawdowns (the peak restarts at the window's start) and costs, and select the "
    "rows of rolling (a row's trailing window may start before from).",
    "signal_families": "conditioned = score, raw = raw_score, as on /metrics. Significance's IC, correlation's ic "
    "and scores bases are conditioned; rolling's IC is the conditioned IC on base books and the raw IC on raw_ "
    "books; costs bucket a book's turnover by the score it trades.",
    "sharpe_convention": "Sharpe ratios inside PSR, MinTRL and DSR are per session (not annualised), skewness and "
    f"kurtosis are sample moments (kurtosis not in excess); MinTRL confidence {significance.MIN_TRL_CONFIDENCE}. "
    "Annualised figures use the run's sessions_per_year (252) and weeks_per_year (52).",
    "name_conventions": "Same names, different conventions: information_ratio is daily returns times sqrt(252) in "
    "/metrics core and significance, weekly returns times sqrt(52) in rolling; gross is before costs in costs "
    "(gross of the risk-free rate in /metrics, where no figure is before costs); icir is per week in rolling and "
    "significance, and in /metrics core per week unless the run's conventions annualise it (times sqrt(52)).",
    "min_overlap": f"A correlation needs {correlation.MIN_OVERLAP} common observations and both sides non-constant.",
    "not_measurable": "A figure that cannot be measured is {status: not_measurable, value: null, "
    "withheld_reason}, never zero.",
    "combination": "GET /v1/analytics/combine (alphas, book = long_short, weighting = equal | given | "
    "inverse_volatility | max_ir, weights, shrinkage, from, to, limit, offset) and GET "
    "/v1/alphas/{alpha}/analytics/contribution (reference, weighting, weights, shrinkage, weight, from, to) read "
    "every alpha's daily long_short returns from the catalogue's returns matrix, over the window's sessions on "
    "which every alpha of the set has one (at least 20). Each id is authorised before any lookup (403 "
    "run_not_allowed whether it exists or not); a set is 2 (contribution: 1) to 50 alphas. Both need "
    "portfolio.ledger. Combine's figures, weights and correlation matrix are in its meta (combine.meta.*), so it "
    "is JSON only. Contribution's reference book is equally weighted as it grew; with a weighting (same "
    "parameters and rules as combine's) it is the reference set combined as combine combines it, and before "
    "holds combine's figures over the sessions the alpha also trades.",
    "risk": "GET /v1/alphas/{alpha}/analytics/risk (book, from, to): beta, alpha and tracking error against "
    "SPY's daily total returns (its return_basis) and the book's tail figures. Annualised figures and the "
    "regression need 2 sessions, tail figures 20. Every figure needs portfolio.ledger; the benchmark block also "
    "benchmarks.daily (else not_measurable, access_limited warning block risk.benchmark).",
    "references": "Bailey and López de Prado (2012), The Sharpe Ratio Efficient Frontier, Journal of Risk 15(2) "
    "(PSR, MinTRL); Bailey and López de Prado (2014), The Deflated Sharpe Ratio, Journal of Portfolio "
    "Management 40(5) (DSR); Politis and Romano (1994), The Stationary Bootstrap, JASA 89(428); Holm (1979), "
    "Scandinavian Journal of Statistics 6(2); Benjamini and Hochberg (1995), JRSS B 57(1); Newey and West "
    "(1987), Econometrica 55(3) (nwt.ic).",
}

_WARNINGS: dict[str, str] = {
    "kind_missing": "The run never sealed the kind a route's figures are built from (kind names it): collections "
    "are empty, figures null.",
    "access_limited": "The key may not read the ledger (portfolio.ledger) or the rebalance cross-sections "
    "(signals.rebalances.get or signals.scores), or SPY's daily series (benchmarks.daily), a figure is built "
    "from; block names it and it is not_measurable.",
}

# Path prefix -> (horizon, granularity) of the fields under it; the longest matching prefix wins.
_SCOPES: dict[str, tuple[str, str]] = {
    "significance": (WINDOW, "overall"),
    "significance.dsr.trials": (
        "whole histories (from/to do not narrow it): count over the catalogue, variance over the alphas the key "
        "may read",
        "overall",
    ),
    "significance.multiple_testing": ("whole histories (from/to do not narrow it)", "overall"),
    "correlation": (WINDOW, "one row per other alpha"),
    "drawdowns": (WINDOW + "; the peak restarts at the window's start", "one row per episode"),
    "rolling": ("the trailing window_weeks rebalance weeks ending at date", "one row per rebalance week"),
    "costs": (WINDOW, "overall"),
    "costs.turnover_by_decile": (WINDOW, "weekly, averaged over the window's weeks"),
    "costs.holding_period": (WINDOW, "weekly, averaged over the window's weeks"),
    "combine": (
        WINDOW + ": its sessions on which every alpha of the set has a return",
        "one row per common session",
    ),
    "combine.meta": (WINDOW + ": its sessions on which every alpha of the set has a return", "overall"),
    "combine.meta.figures.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "contribution": (
        WINDOW + ": its sessions on which the alpha and every reference alpha have a return",
        "overall",
    ),
    "contribution.before.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "contribution.after.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "contribution.change.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "checks": (WINDOW, "overall"),
    "checks.checks": (
        "per check: its horizon (the window, its last 504 sessions, or whole histories)",
        "overall",
    ),
    "compare": (WINDOW, "overall"),
    "compare.equity": (WINDOW + ": compounded from its first common session", "one entry per common session"),
    "compare.rolling_return_correlation": (
        "the trailing rolling_window.sessions common sessions ending at date, inside the window",
        "one entry per common session",
    ),
    "compare.rolling_ic_correlation": (
        "the trailing rolling_window.weeks common weeks ending at date, inside the window",
        "one entry per common week",
    ),
    "risk": (WINDOW, "overall"),
}


def _scoped(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The entry in the `/metrics/_doc` shape: meaning, formula, horizon, granularity, source, unit,
    then annualisation."""
    prefix = max((p for p in _SCOPES if path == p or path.startswith((p + ".", p + "["))), key=len)
    horizon, granularity = _SCOPES[prefix]
    return {
        "meaning": entry["meaning"],
        "formula": entry["formula"],
        "horizon": horizon,
        "granularity": granularity,
        "source": entry["source"],
        "unit": entry["unit"],
        "annualisation": entry["annualisation"],
    }


ROW_STRUCTS = {"combine[]": ROWS["analytics.combine"]}
"""The collections' rows, whose Structs declare each field's unit for the reference and the
OpenAPI document: this block takes each such field's unit from there."""


def _declared_unit(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    rows, _, name = path.partition(".")
    body = ROW_STRUCTS.get(rows)
    unit = field_schemas(body).get(name, {}).get(X_UNIT) if body is not None else None
    return entry if unit is None else {**entry, "unit": unit}


@cache
def _doc() -> dict[str, Any]:
    fields = _significance() | _collections() | _costs()
    # Imported here: each module builds its entries with this module's helpers.
    from serve.analytics import checks_doc, combine_doc, compare_doc, contribution_doc, risk_doc

    for module in (combine_doc, contribution_doc, checks_doc, compare_doc, risk_doc):
        fields |= module.fields()
    fields = {path: _declared_unit(path, entry) for path, entry in fields.items()}
    return {
        "schema_version": SCHEMA_VERSION,
        "endpoint": _ENDPOINT,
        "fields": {path: _scoped(path, fields[path]) for path in sorted(fields)},
        "warnings": _WARNINGS,
    }


def shared_analytics_doc() -> dict[str, Any]:
    """The cached block itself (encoders never mutate it)."""
    return _doc()
