"""The analytics documentation block (`/analytics/_doc`): every field of every analytics route,
with its meaning, formula, unit, annualisation and source. Identical for every alpha and call.

`fields` keys are dotted paths prefixed by the route (`significance.psr`, `rolling[].rebuilt_mean_ic`);
a collection's rows are `name[]`. tests/analytics walks served answers and fails on a path
without an entry. docs/analytics.md says the same in prose, with the references.

Each route's own entry is its declaration's `documented` (`@route(..., documented=...)`) and
every path under it is read from its body or row Struct, and combine's `meta` keys from
`EnvelopeMeta` (its figures from `BookFigures`); written here: the endpoint prose, the horizon and
granularity of the paths whose scope is not one figure over the window, and the two entries of
combine's `meta` that hold for that route only.
"""

from __future__ import annotations

import typing
from functools import cache
from typing import Any

import msgspec

from analytics import correlation, significance
from schemas.bodies.analytics import ANALYTICS_BLOCK, WINDOW
from schemas.bodies.envelope import EnvelopeMeta
from schemas.bodies.figures import documented
from schemas.wire import MARKET_BENCHMARK, WEIGHT_WARNINGS
from serve.declaration import Endpoint
from serve.endpoints import endpoint, endpoints

SCHEMA_VERSION = "1.0.0"


def _f(meaning: str, formula: str | None = None, unit: str | None = None) -> dict[str, Any]:
    """An entry written here (a route's own entry, combine's `meta` keys), with the block's defaults."""
    return ANALYTICS_BLOCK.entry({"meaning": meaning, "formula": formula, "unit": unit})


def _routes() -> dict[str, dict[str, Any]]:
    """Each documented analytics route's entry (its declaration's `documented`) and every path of
    its body or rows (`correlation[].pearson`), read from the Struct, where each field declares its
    meaning, formula, unit, annualisation and source (`figure`, `doc`)."""
    fields: dict[str, dict[str, Any]] = {}
    for e in endpoints().values():
        if e.group != "analytics" or e.documented is None:
            continue
        route = e.id.removeprefix("analytics.")
        prefix, struct = (f"{route}.", e.body) if e.body is not None else (f"{route}[].", e.rows)
        assert struct is not None  # an answer is a body or rows (serve.endpoints)
        paths = documented(struct, ANALYTICS_BLOCK)
        fields |= {route: _f(e.documented)} | {prefix + path: entry for path, entry in paths.items()}
    return fields


def _combine_meta() -> dict[str, dict[str, Any]]:
    """`/analytics/combine`'s `meta`: the keys its declaration lists, read from `EnvelopeMeta`'s
    fields and the Structs they hold (`shrinkage.value`, `weights[].weight`, `figures.*`, the
    figures as `BookFigures` words them of the combined book); and the two entries that hold for
    this route only (the meta as a whole, and its `book`, a key every answer shares)."""
    m = "combine.meta"
    keys = endpoint("analytics.combine").meta
    hints = typing.get_type_hints(EnvelopeMeta, include_extras=True)
    declared = msgspec.defstruct("CombineMeta", [(key, hints[key]) for key in keys])  # the route's view
    return {
        m: _f("The combination's description and figures, in the page's meta (the same on every page)"),
        f"{m}.book": _f("Always long_short: the catalogue's returns matrix holds that book alone"),
    } | {
        f"{m}.{path}": entry
        for path, entry in documented(declared, ANALYTICS_BLOCK, what="the combined book").items()
    }


MAX_LISTED = 6  # values of a choice listed in `paths` (longer lists: the reference has them)


def _paths() -> str:
    """Every route of the group with its parameters (and their values where they are a choice), from
    the routes' declarations: `GET path (name, name = a | b, ...)`, one per route."""

    def listed(endpoint: Endpoint) -> str:
        params = ", ".join(
            p.name if p.enum is None or len(p.enum) > MAX_LISTED else f"{p.name} = {' | '.join(p.enum)}"
            for p in endpoint.params
        )
        path = endpoint.openapi_path
        return f"GET {path} ({params})" if params else f"GET {path}"

    return "; ".join(listed(e) for e in endpoints().values() if e.group == "analytics") + "."


_ENDPOINT: dict[str, str] = {
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
    "The Sharpe ratio's variance (PSR, MinTRL, DSR, critical_sharpe, power, sharpe_standard_error) is López de "
    "Prado, Lipton and Zoonekynd 2025's: non-normal returns, AR(1) with rho the lag-1 correlation "
    "(serial_correlation), under the hypothesis tested, over T sessions; the DSR's that of the maximum of N "
    "Sharpe ratios; power at sr_alternative = sr_benchmark + 1. "
    "Annualised figures use the run's sessions_per_year (252) and weeks_per_year (52).",
    "name_conventions": "Same names, different conventions: information_ratio is daily returns times sqrt(252) in "
    "/metrics core and significance, weekly returns times sqrt(52) in rolling; gross is before costs in costs "
    "(gross of the risk-free rate in /metrics, where no figure is before costs); icir is annualised (the per-week "
    "ratio times sqrt(weeks_per_year)) on every route, /metrics core.icir included (a run's per-week seal times "
    "sqrt(52)); /metrics core.icir_per_week is the per-week ratio.",
    "min_overlap": f"A correlation needs {correlation.MIN_OVERLAP} common observations and both sides non-constant.",
    "not_measurable": "A figure that cannot be measured is {status: not_measurable, value: null, "
    "withheld_reason}, never zero.",
    "combination": "GET /v1/analytics/combine (alphas, book = long_short, weighting = equal | given | "
    "inverse_volatility | max_ir, weights, shrinkage, fit_to, from, to, limit, offset) and GET "
    "/v1/alphas/{alpha}/analytics/contribution (reference, weighting, weights, shrinkage, fit_to, weight, from, "
    "to) read "
    "every alpha's daily long_short returns from the catalogue's returns matrix, over the window's sessions on "
    "which every alpha of the set has one (at least 20). Each id is authorised before any lookup (403 "
    "run_not_allowed whether it exists or not); a set is 2 (contribution: 1) to 50 alphas. Both need "
    "portfolio.ledger. Combine's figures, weights and correlation matrix are in its meta (combine.meta.*), so it "
    "is JSON only. Contribution's reference book is equally weighted as it grew; with a weighting (same "
    "parameters and rules as combine's) it is the reference set combined as combine combines it, and before "
    "holds combine's figures over the sessions the alpha also trades. inverse_volatility and max_ir weights are "
    "fitted on the sessions they are judged on (meta.fit, an in_sample_weights warning) unless fit_to fits them "
    "on the window's common sessions up to it and judges them on those after it (at least 20 each side).",
    "risk": "GET /v1/alphas/{alpha}/analytics/risk (book, from, to): beta, alpha and tracking error against "
    f"{MARKET_BENCHMARK}'s daily total returns (its return_basis) and the book's tail figures. Annualised figures and the "
    "regression need 2 sessions, tail figures 20; a window holding fewer than 2 sessions of the book (none "
    "included) is a 400 naming from and/or to. Every figure needs portfolio.ledger; the benchmark block also "
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
    "access_limited": "The key may not read the ledger (portfolio.ledger), a book's positions "
    "(portfolio.positions), the rebalance cross-sections (signals.rebalances.get or signals.scores), or "
    f"{MARKET_BENCHMARK}'s "
    "daily series (benchmarks.daily), a figure is built from; block names it and it is not_measurable.",
    **WEIGHT_WARNINGS,
}

DEFAULT_SCOPE = (WINDOW, "overall")
"""The horizon and granularity of a path no entry of `_SCOPES` covers: one figure over the window."""
# Path prefix -> (horizon, granularity) of the fields under it; the longest matching prefix wins.
_SCOPES: dict[str, tuple[str, str]] = {
    "significance.dsr.trials": (
        "whole histories (from/to do not narrow it): count over the catalogue, variance over the alphas the key "
        "may read",
        "overall",
    ),
    "significance.multiple_testing": ("whole histories (from/to do not narrow it)", "overall"),
    "correlation": (WINDOW, "one row per other alpha"),
    "drawdowns": (WINDOW + "; the peak restarts at the window's start", "one row per episode"),
    "rolling": ("the trailing window_weeks rebalance weeks ending at date", "one row per rebalance week"),
    # /analytics/live takes no from/to: its parts are the book's whole history cut at the split
    "live": (
        "the book's whole history (live takes no from/to), cut at split_date: the split or the alpha's own",
        "overall",
    ),
    "live.in_sample": (
        "in-sample: the book's sessions on or before split_date (live takes no from/to)",
        "overall",
    ),
    "live.out_of_sample": (
        "out-of-sample: the book's sessions after split_date (live takes no from/to)",
        "overall",
    ),
    "live.decay_ratio": (
        "both parts: out_of_sample's information ratio over in_sample's, split at split_date (live takes no "
        "from/to)",
        "overall",
    ),
    "live.consistency": (
        "both parts: the out-of-sample sessions against the in-sample ones, split at split_date (live takes no "
        "from/to)",
        "overall",
    ),
    # /analytics/decay takes no from/to: its IC term structure is the whole history's, its backtest the
    # book's sessions up to the split, its calibration the other alphas' index rows
    "decay": ("the book's whole history (decay takes no from/to)", "overall"),
    "decay.ic_decay": (
        "the whole history's rebalance weeks (decay takes no from/to)",
        "weekly, averaged per horizon",
    ),
    "decay.backtest_information_ratio": (
        "the backtest: the book's sessions on or before split_date (decay takes no from/to)",
        "overall",
    ),
    "decay.haircut_information_ratio": (
        "the backtest (sessions on or before split_date) times the calibration's retention",
        "overall",
    ),
    "decay.live_haircut": (
        "the calibration alphas' whole histories, each split at its approval (decay takes no from/to)",
        "overall",
    ),
    "costs.turnover_by_decile": (WINDOW, "weekly, averaged over the window's weeks"),
    "costs.holding_period": (WINDOW, "weekly, averaged over the window's weeks"),
    "combine": (
        WINDOW + ": its sessions on which every alpha of the set has a return (after fit_to when given)",
        "one row per common session",
    ),
    "combine.meta": (
        WINDOW + ": its sessions on which every alpha of the set has a return (after fit_to when given)",
        "overall",
    ),
    "combine.meta.fit": (WINDOW + ": its common sessions up to fit_to (all of them without it)", "overall"),
    "combine.meta.figures.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "contribution": (
        WINDOW + ": its sessions on which the alpha and every reference alpha have a return",
        "overall",
    ),
    "contribution.before.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "contribution.after.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "contribution.change.turnover": ("whole histories (from/to do not narrow it)", "overall"),
    "checks.checks": (
        "per check: its horizon (the window, its last 504 sessions, or whole histories)",
        "overall",
    ),
    "compare.equity": (WINDOW + ": compounded from its first common session", "one entry per common session"),
    "factors": (
        WINDOW
        + ": its attributed rebalance weeks (decision on or after from, next decision on or before to)",
        "weekly, summed or averaged over the window's weeks",
    ),
    "factors.weekly": (WINDOW + ": its attributed rebalance weeks", "one entry per attributed week"),
    "factors.exposures": (
        WINDOW + ": its attributed rebalance weeks",
        "one entry per attributed week and factor",
    ),
    "factors.ic.weeks": (WINDOW + ": its rebalance weeks", "one entry per rebalance week"),
    "compare.rolling_return_correlation": (
        "the trailing rolling_window.sessions common sessions ending at date, inside the window",
        "one entry per common session",
    ),
    "compare.rolling_ic_correlation": (
        "the trailing rolling_window.weeks common weeks ending at date, inside the window",
        "one entry per common week",
    ),
    "capacity.participation": (WINDOW + ": the fills of its sessions", "one figure over the window's fills"),
    "capacity.grid": (WINDOW, "one entry per capital of the grid"),
    "quantiles.dates": (WINDOW, "one entry per bucketed week"),
    "quantiles.buckets": (WINDOW, "weekly, averaged over the window's bucketed weeks"),
    "quantiles.buckets[].cumulative_return": (
        WINDOW + ": compounded from its first bucketed week",
        "one entry per bucketed week",
    ),
    "quantiles.spread": (WINDOW, "weekly, averaged over the window's bucketed weeks"),
    "quantiles.spread.cumulative_return": (
        WINDOW + ": compounded from its first bucketed week",
        "one entry per bucketed week",
    ),
    "quantiles.ic_by_month": (WINDOW, "one entry per calendar month, averaged over its weeks"),
    "quantiles.ic_by_month_of_year": (WINDOW, "one entry per month of the year, averaged over its weeks"),
    "quantiles.ic_by_sector": (WINDOW, "one entry per sector, averaged over the window's weeks"),
}


def _scoped(path: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The entry in the `/metrics/_doc` shape: meaning, formula, horizon, granularity, source, unit,
    then annualisation."""
    prefixes = [p for p in _SCOPES if path == p or path.startswith((p + ".", p + "["))]
    horizon, granularity = _SCOPES[max(prefixes, key=len)] if prefixes else DEFAULT_SCOPE
    return {
        "meaning": entry["meaning"],
        "formula": entry["formula"],
        "horizon": horizon,
        "granularity": granularity,
        "source": entry["source"],
        "unit": entry["unit"],
        "annualisation": entry["annualisation"],
    }


@cache
def _doc() -> dict[str, Any]:
    fields = _routes() | _combine_meta()
    return {
        "schema_version": SCHEMA_VERSION,
        "endpoint": {"paths": _paths(), **_ENDPOINT},
        "fields": {path: _scoped(path, fields[path]) for path in sorted(fields)},
        "warnings": _WARNINGS,
    }


def shared_analytics_doc() -> dict[str, Any]:
    """The cached block itself (encoders never mutate it)."""
    return _doc()
