"""The `/analytics/_doc` fields of `/analytics/checks` (merged by serve.analytics.doc)."""

from __future__ import annotations

from typing import Any

from analytics.checks import MIN_YEAR_SESSIONS, RECENT_SESSIONS, STRESS_MULTIPLE
from analytics.correlation import MIN_OVERLAP
from serve.analytics.policy import CHECKS

DEFINITIONS = {
    "information_ratio": "information ratio of the book's daily returns r = ending/starting - 1 over the window: "
    "mean / std(ddof=1) times sqrt(252), as /metrics core.information_ratio",
    "deflated_sharpe": "the long_short book's Deflated Sharpe Ratio over the window, as /analytics/significance "
    "dsr serves it (the catalogue's trial count, the Sharpe variance of the alphas the key may read)",
    "turnover": "mean over the window's sessions of the book's one-way ledger turnover, 1/2 sum |quantity x mid| / "
    "starting_equity (the column whose mean the run seals as /metrics mean_turnover)",
    "max_weight": "largest |target weight| of the book in the decisions of the window's rebalances",
    "recent_information_ratio": f"information_ratio over the window's last {RECENT_SESSIONS} sessions (all of "
    "them when fewer)",
    "yearly_consistency": "share of the window's calendar years whose compounded return prod(1 + r) - 1 is "
    f"above 0, over the years with at least {MIN_YEAR_SESSIONS} sessions of the book",
    "stressed_net_information_ratio": f"information ratio of the daily returns paying {STRESS_MULTIPLE:g} times "
    "the modelled execution cost: r - k, k = -execution_cost / starting_equity (r is already net of it once; "
    "/analytics/costs' cost rate)",
    "production_correlation": "largest |Pearson| of the alpha's daily long_short returns with each production "
    "alpha the key may read (itself excluded), each over their common sessions of the whole histories, as "
    "/analytics/correlation basis=returns; a production alpha without a correlation (too little overlap) is left "
    "out, and compared/of say how many were compared",
    "ic_t_stat": "/metrics nwt.ic t_stat: Newey-West t-statistic of the mean weekly IC (conditioned signal, "
    "whole history)",
}


def fields() -> dict[str, dict[str, Any]]:
    """Dotted path (under "checks") -> entry built with serve.analytics.doc's _f / _stat helpers."""
    # Imported here: serve.analytics.doc imports this module while it builds its block.
    from serve.analytics.doc import WINDOW, _f, window_fields

    assert set(DEFINITIONS) == {check.id for check in CHECKS}
    p = "checks"
    out = {
        p: _f(
            "Pass/fail checks of the alpha and book against the operator's policy (modelled on WorldQuant BRAIN's "
            "submission checks), over "
            + WINDOW
            + "; the request's min_/max_ parameters may only tighten the policy"
        ),
        f"{p}.alpha": _f("The alpha served"),
        f"{p}.book": _f("The book checked"),
        **window_fields(p),
        f"{p}.sessions": _f(
            "Sessions of the book in the window; null for a key that may not read the ledger (a count of it, "
            "withheld as its figures are)",
            unit="sessions",
            source="portfolio:{book}",
        ),
        f"{p}.policy": _f(
            "The operator's policy, echoed (the request's bounds are in each check's threshold)"
        ),
        f"{p}.policy.origin": _f(
            "defaults (the documented thresholds) or operator (the file of the checks_policy_file setting)"
        ),
        f"{p}.policy.thresholds": _f("Check id -> its policy thresholds: {min}, {max} or both"),
    }
    for check in CHECKS:
        t = f"{p}.policy.thresholds.{check.id}"
        out[t] = _f(f"The policy's thresholds of {check.id}")
        for side in check.defaults:
            word = "Least" if side == "min" else "Largest"
            out[f"{t}.{side}"] = _f(
                f"{word} value of {check.id} that passes", unit=check.unit, source="policy"
            )
    c = f"{p}.checks[]"
    out |= {
        f"{p}.checks": _f("The checks, in the documented order: " + ", ".join(check.id for check in CHECKS)),
        f"{c}.id": _f(
            "The check: " + "; ".join(f"{check_id}: {meaning}" for check_id, meaning in DEFINITIONS.items())
        ),
        f"{c}.value": _f(
            "The checked figure (see id), in its unit (see unit); null when not_measurable",
            "see id",
        ),
        f"{c}.unit": _f(
            "Unit of value: "
            + ", ".join(f"{check.id} {check.unit}" for check in CHECKS)
            + " (per_session: a fraction of equity traded per session)"
        ),
        f"{c}.threshold": _f(
            "The bounds applied: the policy's, each tightened by the request's parameter when given "
            "({min}, {max} or both)"
        ),
        f"{c}.threshold.min": _f(
            "value must be at least this to pass (in the check's unit)",
            source="policy, tightened by the request",
        ),
        f"{c}.threshold.max": _f(
            "value must be at most this to pass (in the check's unit)",
            source="policy, tightened by the request",
        ),
        f"{c}.policy_threshold": _f("The operator's bounds of the check (same shape as threshold)"),
        f"{c}.policy_threshold.min": _f("The policy's least passing value", source="policy"),
        f"{c}.policy_threshold.max": _f("The policy's largest passing value", source="policy"),
        f"{c}.verdict": _f("pass (within threshold), fail, or not_measurable (value null, reason says why)"),
        f"{c}.reason": _f(
            "Why the value is not measurable (present only then); starts with access_limited when the key may not "
            "read the data it is built from"
        ),
        f"{c}.source": _f(
            "The route that serves the figure: " + ", ".join(f"{check.id} {check.source}" for check in CHECKS)
        ),
        f"{c}.book": _f(
            "The book whose figures the value is built from: the requested book, long_short for deflated_sharpe "
            "and production_correlation (as significance and correlation serve them), null for ic_t_stat (the "
            "conditioned signal)"
        ),
        f"{c}.horizon": _f(
            f"What the value is over: window, window_last_{RECENT_SESSIONS}_sessions (recent_information_ratio) "
            "or whole_history (production_correlation, ic_t_stat: from/to do not narrow them)"
        ),
        f"{c}.compared": _f(
            "production_correlation only: how many production alphas value is the maximum over, those with a "
            f"correlation with the alpha (at least {MIN_OVERLAP} common sessions, variance on both sides); the "
            "others are not compared. Null when the key may not have the figure",
            unit="alphas",
            source="catalogue:returns",
        ),
        f"{c}.of": _f(
            "production_correlation only: how many production alphas the key may read, the alpha excluded (compared "
            "is below it when some have too little overlap with the alpha); null as compared",
            unit="alphas",
            source="catalogue_index:production",
        ),
        f"{c}.nearest": _f(
            "production_correlation only: the production alpha whose |Pearson| is value (the nearest); null when "
            "none is compared"
        ),
        f"{p}.summary": _f("Counts of the verdicts and the overall verdict"),
        f"{p}.summary.passed": _f("Checks that pass", unit="checks"),
        f"{p}.summary.failed": _f("Checks that fail", unit="checks"),
        f"{p}.summary.not_measurable": _f("Checks without a value", unit="checks"),
        f"{p}.summary.verdict": _f("pass when every check passes, fail when any fails, else incomplete"),
    }
    return out
