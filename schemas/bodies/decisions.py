"""The decision routes' objects (risk, checks, contribution), declared for the contract.

These are the answers a user decides on: is the book's risk acceptable, does it pass the operator's
battery, what does it add to a set, is it better than another alpha. Their figures are analytics
stat entries (`AnalyticsStat`). What each field means, its formula, unit, annualisation and source
are declared on it (`figure`, schemas/bodies/figures.py): `/analytics/_doc`, the OpenAPI document
and the generated client read them here.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from schemas import terms
from schemas.bodies import libraries
from schemas.bodies.analytics import WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.bodies.formats import TEXT
from schemas.bodies.live import LIVE_MIN_SESSIONS
from schemas.bodies.risk import SESSIONS
from schemas.checks import (
    BY_ID,
    CHECKS,
    LIVE_CHECKS,
    MAX,
    MIN,
    MIN_OVERLAP,
    RECENT_SESSIONS,
)

DRAWDOWN_PCT = "Percentage points of the peak (25.0 = 25%), as `/metrics` `core.max_drawdown_pct`."
REFERENCE_ORIGINS = (
    "approved (the production alphas: those in force in the live book, approved by alpha-results promote or by "
    "their seal at their first publish, that the key may read, the alpha itself excepted; empty, saying why, "
    "when there is none)"
)
"""The default reference set of the decision routes, as their answers' `origin` names it
(`analytics.sets.default_reference`)."""
REFERENCE_ORIGIN_FIELD = figure(
    "Where the reference alphas come from: given (the request's reference), or the default set, "
    + REFERENCE_ORIGINS
    + ' (docs/analytics.md, "The reference set")',
    source="records:promotions",
)
REFERENCE_ALPHAS_FIELD = figure("The reference alphas, the alpha itself never among them")
REFERENCE_EXCLUDED_FIELD = figure(
    "The alpha was in the set named (or in the default set origin names) and was left out"
)
"""A reference set's fields, declared once for contribution's and the residual's `reference`."""

# -- /analytics/risk --------------------------------------------------------------------------------


class Bound(Body, kw_only=True, frozen=True):
    """A check's threshold: a minimum, a maximum, or both (the turnover band)."""

    min: float | UnsetType = UNSET
    max: float | UnsetType = UNSET


def policy_bounds(check_id: str) -> Meta:
    """A check's thresholds in the operator's policy: the sides the battery bounds it on."""
    check = BY_ID[check_id]
    word = {MIN: "Least", MAX: "Largest"}
    sides = {
        side: figure(
            f"{word[side]} value of {check.id} that passes",
            source="policy",
            term=check.term,
        )
        for side in check.parameters
    }
    if check.optional or check.family_min is not None:  # off until bounded, or turned off
        return figure(f"The policy's thresholds of {check.id} (absent: the check is off)", keys=sides)
    return figure(f"The policy's thresholds of {check.id}", keys=sides)


class PolicyThresholds(Body, kw_only=True, frozen=True):
    """`policy.thresholds` of the checks object, by check id in the battery's order."""

    information_ratio: Annotated[Bound, policy_bounds("information_ratio")]
    deflated_sharpe: Annotated[Bound, policy_bounds("deflated_sharpe")]
    turnover: Annotated[Bound, policy_bounds("turnover")]
    max_weight: Annotated[Bound, policy_bounds("max_weight")]
    recent_information_ratio: Annotated[Bound, policy_bounds("recent_information_ratio")]
    yearly_consistency: Annotated[Bound, policy_bounds("yearly_consistency")]
    stressed_net_information_ratio: Annotated[Bound, policy_bounds("stressed_net_information_ratio")]
    production_correlation: Annotated[Bound, policy_bounds("production_correlation")]
    residual_information_ratio: Annotated[Bound, policy_bounds("residual_information_ratio")]
    ic_t_statistic: Annotated[Bound, policy_bounds("ic_t_statistic")]
    fragility: Annotated[Bound, policy_bounds("fragility")]
    live_information_ratio: Annotated[Bound, policy_bounds("live_information_ratio")]
    decay_ratio: Annotated[Bound, policy_bounds("decay_ratio")]
    information_ratio_lower_bound: (
        Annotated[Bound, policy_bounds("information_ratio_lower_bound")] | UnsetType
    ) = UNSET
    sharpe_t_statistic: Annotated[Bound, policy_bounds("sharpe_t_statistic")] | UnsetType = UNSET
    pbo: Annotated[Bound, policy_bounds("pbo")] | UnsetType = UNSET


class Policy(Body, kw_only=True, frozen=True):
    """The operator's thresholds (`checks_policy_file`), echoed in every answer."""

    origin: Annotated[
        str,
        figure(
            "defaults (the documented thresholds) or operator (the file of the checks_policy_file setting)"
        ),
    ]
    thresholds: Annotated[
        PolicyThresholds,
        figure("Check id -> its policy thresholds: {min}, {max} or both"),
    ]


def _listed(attribute: str) -> str:
    return ", ".join(f"{check.id} {getattr(check, attribute)}" for check in CHECKS)


class CheckResult(Body, kw_only=True, frozen=True):
    """One check: its value against the threshold applied (the policy's, tightened by the request)."""

    id: Annotated[
        str,
        figure("The check: " + "; ".join(f"{check.id}: {check.definition}" for check in CHECKS)),
    ]
    value: Annotated[
        float | None,
        figure(
            "The checked figure (see id), in its unit (see unit); null when not_measurable",
            "see id",
        ),
    ]
    unit: Annotated[
        str,
        figure(f"Unit of value: {_listed('unit')} (per_session: a fraction of equity traded per session)"),
    ]
    annualisation: Annotated[
        str,
        figure(
            "Whether value is annualised, from the check's declaration: annualised (times sqrt(252) for an "
            "information ratio, 252 for the turnover: "
            + ", ".join(c.id for c in CHECKS if c.annualisation == "annualised")
            + ") or not_annualisable (a probability, a share, a weight, a correlation, a t-statistic or a ratio "
            "of two annualised figures: "
            + ", ".join(c.id for c in CHECKS if c.annualisation != "annualised")
            + ")"
        ),
    ]
    threshold: Annotated[
        Bound,
        figure(
            "The bounds applied: the policy's, each tightened by the request's parameter when given "
            "({min}, {max} or both)",
            keys={
                "min": figure(
                    "value must be at least this to pass (in the check's unit)",
                    source="policy, tightened by the request",
                ),
                "max": figure(
                    "value must be at most this to pass (in the check's unit)",
                    source="policy, tightened by the request",
                    term=terms.MAX,
                ),
            },
        ),
    ]
    policy_threshold: Annotated[
        Bound,
        figure(
            "The operator's bounds of the check (same shape as threshold)",
            keys={
                "min": figure("The policy's least passing value", source="policy"),
                "max": figure("The policy's largest passing value", source="policy", term=terms.MAX),
            },
        ),
    ]
    verdict: Annotated[
        str,
        figure("pass (within threshold), fail, or not_measurable (value null, reason says why)"),
    ]
    source: Annotated[str, figure(f"The route that serves the figure: {_listed('source')}")]
    book: Annotated[
        str | None,
        figure(
            "The book whose figures the value is built from: the requested book (the live checks too), long_short "
            "for deflated_sharpe and production_correlation (as significance and correlation serve them), null for "
            "ic_t_statistic (the conditioned signal)"
        ),
    ]
    horizon: Annotated[
        str,
        figure(
            f"What the value is over: window, window_last_{RECENT_SESSIONS}_sessions (recent_information_ratio), "
            "whole_history (production_correlation, ic_t_statistic: from/to do not narrow them) or approval_split "
            "(live_information_ratio, decay_ratio: the history split at the approval, in-sample every session up "
            "to it, out-of-sample those after it up to `to`; from does not narrow it)"
        ),
    ]
    reason: Annotated[
        str,
        figure(
            "Why the verdict, in words. A pass or a fail: the comparison that decided it, the value against the "
            "threshold it was held to ('0.744 < 0.95', '0.01 <= 0.0823 <= 0.7'; fractions in percent, as '13.9% > "
            "10%'; as many digits as keep the two apart), then what the value means ('the probability that "
            "...'), from the check's declaration: "
            + "; ".join(f"{check.id}: {check.meaning}" for check in CHECKS)
            + " ({names} are the figure's own: sessions counted, trials, the symbol and date held, the nearest "
            "production alpha, the live part's sessions and split date). not_measurable: why there is no value; "
            "starts with access_limited when the key may not read the data it is built from, not_applicable for a "
            "live check of an alpha never approved"
        ),
    ]
    compared: (
        Annotated[
            int | None,
            figure(
                "production_correlation only: how many alphas of the reference set (see reference) value is the "
                "maximum over, those with a "
                f"correlation with the alpha (at least {MIN_OVERLAP} common sessions, variance on both sides); the "
                "others are not compared. Null when the key may not have the figure",
                source="catalogue:returns",
                term=terms.COMPARED,
            ),
        ]
        | UnsetType
    ) = UNSET
    of: (
        Annotated[
            int | None,
            figure(
                "production_correlation only: how many alphas the reference set (see reference) holds, the alpha "
                "excluded (compared is below it when some have too little overlap with the alpha); null as compared",
                source="records:promotions",
                term=terms.OF,
            ),
        ]
        | UnsetType
    ) = UNSET
    nearest: (
        Annotated[
            str | None,
            figure(
                "production_correlation only: the alpha of the reference set whose |Pearson| is value (the "
                "nearest); null when none is compared"
            ),
        ]
        | UnsetType
    ) = UNSET
    reference: (
        Annotated[
            str,
            figure(
                "production_correlation and residual_information_ratio only: the reference set compared with "
                "(regressed on), " + REFERENCE_ORIGINS + ' (docs/analytics.md, "The reference set")',
                source="records:promotions",
            ),
        ]
        | UnsetType
    ) = UNSET
    symbol: (
        Annotated[
            str | None,
            figure(
                "max_weight only: the name held at the largest |weight| (the first by date, then symbol, on a "
                "tie); null when not measurable"
            ),
        ]
        | UnsetType
    ) = UNSET
    date: (
        Annotated[
            dt.date | None,
            figure(
                "max_weight only: the session at whose close symbol was held at that weight; null when not "
                "measurable"
            ),
        ]
        | UnsetType
    ) = UNSET
    split_date: (
        Annotated[
            dt.date | None,
            figure(
                "live_information_ratio and decay_ratio only: the split, the last session the lake had published when "
                "the alpha's latest approval was recorded (in force or since retired; /analytics/live split_date with "
                "split_origin approval): sessions after it are the live part. Null when the alpha was never approved"
            ),
        ]
        | UnsetType
    ) = UNSET


class ChecksSummary(Body, kw_only=True, frozen=True):
    """`summary` of the checks object."""

    passed: Annotated[int, figure("Checks that pass", term=terms.PASSED)]
    failed: Annotated[int, figure("Checks that fail", term=terms.FAILED)]
    not_measurable: Annotated[
        int,
        figure(
            "Checks without a value (the live checks of an alpha not measured live included)",
            term=terms.NOT_MEASURABLE,
        ),
    ]
    verdict: Annotated[
        str,
        figure(
            "fail when any check fails (a live check too), else incomplete when a check other than the live ones "
            f"({', '.join(LIVE_CHECKS)}) is not_measurable, else pass. A live check counts once it has a value: "
            f"while the alpha was never approved or fewer than {LIVE_MIN_SESSIONS} sessions follow its approval "
            "it is not_measurable and leaves the verdict as the rest of the battery makes it"
        ),
    ]


class Checks(Body, kw_only=True, frozen=True):
    """The pass/fail battery of one alpha and book (`/analytics/checks`)."""

    alpha: Annotated[str, figure("The alpha served")]
    book: Annotated[str, figure("The book checked")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[int | None, SESSIONS]
    policy: Annotated[
        Policy,
        figure("The operator's policy, echoed (the request's bounds are in each check's threshold)"),
    ]
    checks: Annotated[
        list[CheckResult],
        figure("The checks, in the documented order: " + ", ".join(check.id for check in CHECKS)),
    ]
    summary: Annotated[ChecksSummary, figure("Counts of the verdicts and the overall verdict")]


# -- /analytics/contribution ------------------------------------------------------------------------


RETURNS = "catalogue:returns"
"""The `source` of a figure read from the catalogue's returns matrix."""
PER_YEAR_252 = {
    "periods_per_year": figure("Sessions per year used to annualise (252)", term=terms.PERIODS_PER_YEAR)
}
TURNOVER_PER_YEAR = figure(
    "Sessions per year of a per_year turnover (252); absent for any other unit", term=terms.PERIODS_PER_YEAR
)


class BookFigures(Body, kw_only=True, frozen=True):
    """A book's figures as stat entries: combine `meta.figures`, contribution `before`, `after`,
    `change`; `{what}` in a meaning is the book, named where the figures are held."""

    information_ratio: Annotated[
        AnalyticsStat,
        figure(
            "Information ratio of {what}'s daily returns (not in excess of the risk-free rate), daily times "
            f"sqrt(252) as /metrics core.information_ratio: {libraries.INFORMATION_RATIO}",
            "mean(r) / std(r, ddof=1) * sqrt(252)",
            source=RETURNS,
            keys=PER_YEAR_252,
            term=terms.INFORMATION_RATIO,
        ),
    ]
    excess_sharpe: Annotated[
        AnalyticsStat,
        figure(
            "Sharpe ratio of {what}'s daily returns in excess of the risk-free return its alphas' ledgers "
            "accrued, weighted as the returns are; not_measurable on a catalogue index written before it held "
            f"risk-free returns; {libraries.EXCESS_SHARPE}",
            "mean(r - rf) / std(r - rf, ddof=1) * sqrt(252), rf = sum_i w_i rf_i",
            source="catalogue:returns,risk_free",
            keys=PER_YEAR_252,
            term=terms.EXCESS_SHARPE,
        ),
    ]
    max_drawdown_pct: Annotated[
        AnalyticsStat,
        figure(
            "Deepest fall of {what}'s compounded equity from its running peak (the opening 1.0 counts), in "
            "percentage points of the peak (25.0 is 25%), as /metrics core.max_drawdown_pct",
            "max over sessions of (peak - level) / peak * 100, level = prod(1 + r)",
            source=RETURNS,
            term=terms.MAX_DRAWDOWN_PCT,
        ),
    ]
    annualised_return: Annotated[
        AnalyticsStat,
        figure(
            f"Mean daily return of {{what}}, annualised: {libraries.ANNUALISED_RETURN}",
            "mean(r) * 252",
            source=RETURNS,
            keys=PER_YEAR_252,
            term=terms.ANNUALISED_RETURN,
        ),
    ]
    volatility: Annotated[
        AnalyticsStat,
        figure(
            "Volatility of {what}'s daily returns, annualised",
            "std(r, ddof=1) * sqrt(252)",
            source=RETURNS,
            keys=PER_YEAR_252,
            term=terms.VOLATILITY,
        ),
    ]
    turnover: (
        Annotated[
            AnalyticsStat,
            figure(
                "Approximate turnover of {what}, in the alphas' common turnover_unit; not_measurable when an "
                "alpha has none or their units differ",
                "sum_i |w_i| turnover_i, turnover_i the alpha's whole-history /metrics core.turnover",
                source="catalogue_index:turnover",
                keys={
                    "approximation": figure(
                        "Why it is an approximation: whole histories, and no netting between alphas (an upper bound)"
                    ),
                    "periods_per_year": TURNOVER_PER_YEAR,
                },
                where={"change.": {"keys": {"periods_per_year": TURNOVER_PER_YEAR}}},
                term=terms.APPROXIMATE_TURNOVER,
            ),
        ]
        | UnsetType
    ) = UNSET
    diversification_ratio: (
        Annotated[
            AnalyticsStat,
            figure(
                "Weighted volatility of the alphas over {what}'s: 1 when they move together, above 1 the more "
                "their risks offset",
                "sum_i |w_i| sigma_i / sigma_c (std ddof 1)",
                source=RETURNS,
                term=terms.DIVERSIFICATION_RATIO,
            ),
        ]
        | UnsetType
    ) = UNSET


CONTRIBUTION_MAX_LISTED = 50
"""Reference alphas without returns named in a contribution (the count says how many there are)."""


class ContributionAbsent(Body, kw_only=True, frozen=True):
    """Reference alphas without a return on any session counted (history outside the window, or no ledger)."""

    count: Annotated[int, figure("How many (count - members_in_window)", term=terms.COUNT)]
    alphas: Annotated[
        list[str],
        figure(
            "Their ids, in the order of reference.alphas; the first "
            f"{CONTRIBUTION_MAX_LISTED} when there are more"
        ),
    ]


class CombinationShrinkage(Body, kw_only=True, frozen=True):
    """The covariance shrinkage of a max_ir weighting (combine `meta.shrinkage`, a contribution's
    `reference.combination.shrinkage`)."""

    value: Annotated[
        float,
        figure(
            "The weight of the diagonal target in the shrunk covariance (0 to 1): d in Sigma_d = (1 - d) S "
            "+ d diag(S)",
            "given, or the Ledoit-Wolf (2004) intensity: sum_{i!=j} pi_ij / sum_{i!=j} s_ij^2 / T, clipped to "
            "[0, 1]",
            term=terms.SHRINKAGE_INTENSITY,
        ),
    ]
    source: Annotated[
        Literal["ledoit_wolf", "given"],
        TEXT,
        figure("ledoit_wolf (estimated) or given (the request's `shrinkage`)"),
    ]


class CombinationWeight(Body, kw_only=True, frozen=True):
    """One alpha's weight in a combination (combine `meta.weights`, a contribution's
    `reference.combination.weights`)."""

    alpha: Annotated[str, figure("The alpha")]
    weight: Annotated[
        float,
        figure(
            "Its weight: a fraction of the combined book's capital, negative for a short (a computed weighting's "
            "negative weight is warned as negative_weights), from the set's common sessions of the window (up "
            "to fit_to when it is given)",
            "1/n (equal), as given (never renormalised), (1/sigma_i) / sum_j (1/sigma_j) "
            "(inverse_volatility), Sigma_d^-1 mu scaled to sum |w| = 1 (max_ir)",
            term=terms.WEIGHT,
        ),
    ]


class CombinationFit(Body, kw_only=True, frozen=True):
    """Which sessions a fitted weighting's weights (inverse_volatility, max_ir) are estimated from
    (combine `meta.fit`, a contribution's `reference.combination.fit`)."""

    fit_to: Annotated[
        dt.date | None,
        figure(
            "The request's fit_to: the weights are fitted on the set's common sessions of the window up to and "
            "including it, and judged on those after it; null: fitted on the sessions they are judged on"
        ),
    ]
    sample: Annotated[
        Literal["in_sample", "out_of_sample"],
        TEXT,
        figure(
            "in_sample: the weights are fitted on the very sessions the figures are over, so the figures "
            "overstate what they would have earned (an in_sample_weights warning says so); out_of_sample: "
            "fitted on the sessions up to fit_to, the figures over those after it"
        ),
    ]
    sessions: Annotated[int, figure("The sessions the weights are fitted on", term=terms.SESSIONS)]
    rule: Annotated[str, figure("Which sessions fit the weights and which judge them, in words")]


class ContributionCombination(Body, kw_only=True, frozen=True):
    """`reference.combination` of the contribution object: the set's weights, as `/analytics/combine`
    `meta` serves them."""

    weighting: Annotated[str, figure("equal, given, inverse_volatility or max_ir")]
    shrinkage: Annotated[
        CombinationShrinkage | None,
        figure("max_ir only (null otherwise): the shrinkage of the covariance used"),
    ]
    weights: Annotated[
        list[CombinationWeight],
        figure("The set's weights, one per alpha in the order of reference.alphas"),
    ]
    fit: Annotated[
        CombinationFit | None,
        figure(
            "inverse_volatility and max_ir (null otherwise): the sessions the weights are fitted on, as combine's "
            "meta.fit"
        ),
    ]
    sessions: Annotated[
        int,
        figure(
            "The set's common sessions of the window judged (combine's meta.sessions: after fit_to when it is "
            "given); sessions is below it when the alpha has no return on some of them, and before is then over "
            "those the alpha trades",
            term=terms.SESSIONS,
        ),
    ]


class ContributionReference(Body, kw_only=True, frozen=True):
    """`reference` of the contribution object."""

    source: Annotated[
        str,
        figure(
            "given (the request's reference) or production (the default set, when the request names none: origin "
            "says which)"
        ),
    ]
    origin: Annotated[
        str,
        REFERENCE_ORIGIN_FIELD,
    ]
    alphas: Annotated[list[str], REFERENCE_ALPHAS_FIELD]
    count: Annotated[int, figure("How many reference alphas were named or considered", term=terms.COUNT)]
    alpha_excluded: Annotated[bool, REFERENCE_EXCLUDED_FIELD]
    members_in_window: Annotated[
        int,
        figure(
            "How many reference alphas have a return on at least one of the sessions counted: the figures are "
            "over these (below count when some have none)",
            term=terms.MEMBERS_IN_WINDOW,
        ),
    ]
    without_returns: Annotated[
        ContributionAbsent,
        figure(
            "The reference alphas without a return on any session counted (a history outside the window, or no "
            "ledger): named, counted, never held"
        ),
    ]
    combination: (
        Annotated[
            ContributionCombination,
            figure(
                "With a weighting only: the reference set combined as /analytics/combine combines it (its meta's "
                "weighting, shrinkage, weights and sessions)"
            ),
        ]
        | UnsetType
    ) = UNSET


class ContributionWeight(Body, kw_only=True, frozen=True):
    """`weight` of the contribution object."""

    value: Annotated[
        float,
        figure(
            "w: the request's weight, or the w in [0, 1] that maximises the information ratio after",
            "tangency w* = u_a / (u_a + u_b), u_a = var_b mu_a - cov mu_b, u_b = var_a mu_b - cov mu_a, kept when "
            "in (0, 1); the best of w*, 0 and 1",
            term=terms.CONTRIBUTION_WEIGHT,
        ),
    ]
    chosen: Annotated[str, figure("given or optimal")]


class Contribution(Body, kw_only=True, frozen=True):
    """What adding the alpha at `weight` does to a reference set, equally weighted as it grew or
    combined at a `weighting` (`/contribution`)."""

    alpha: Annotated[str, figure("The alpha added")]
    book: Annotated[
        str,
        figure("Always long_short: the catalogue's returns matrix holds that book alone"),
    ]
    reference: Annotated[ContributionReference, figure("The reference set")]
    window: Annotated[Window, WINDOW_FIELD]
    weight: Annotated[ContributionWeight, figure("The alpha's weight w in the book after")]
    sessions: Annotated[int, figure("The sessions the figures are over", term=terms.SESSIONS)]
    session_rule: Annotated[
        str,
        figure(
            "Which sessions count: those of the window on which the alpha has a return and at least one "
            "reference alpha does (not their intersection: a production book grows as alphas are added); with a "
            "weighting, those on which every reference alpha and the alpha do"
        ),
    ]
    before: Annotated[
        BookFigures,
        figure(
            "The reference set's book: before_t = mean of r_i,t over the reference alphas with a return on t; its "
            "risk-free return the mean of the same alphas'. With a weighting: sum_i w_i r_i,t at "
            "reference.combination's weights, with /analytics/combine's figures (turnover and "
            "diversification_ratio too), equal to its meta.figures when sessions is reference.combination.sessions",
            what="the reference book",
        ),
    ]
    after: Annotated[
        BookFigures,
        figure(
            "after_t = (1 - w) before_t + w a_t (with a weighting: the alpha one more member at w, the set's "
            "weights scaled by 1 - w)",
            what="the book after",
        ),
    ]
    change: Annotated[
        BookFigures,
        figure(
            "after - before of each figure (a stat entry each; not_measurable when either side is)",
            what="the book",
            lead="after - before: ",
        ),
    ]
    correlation_to_set: Annotated[
        AnalyticsStat,
        figure(
            "Pearson correlation of the alpha's daily returns with the before book's",
            "corr(a, before)",
            source=RETURNS,
            term=terms.CORRELATION_TO_SET,
        ),
    ]
    max_correlation_to_member: Annotated[
        AnalyticsStat,
        figure(
            "The Pearson correlation of the alpha with the reference alpha it correlates with most in absolute "
            "value (the signed value), each over the sessions both have a return",
            "corr(a, r_k), k = argmax_i |corr(a, r_i)|",
            source=RETURNS,
            keys={"alpha": figure("That reference alpha", term=terms.ALPHA)},
            term=terms.MAX_CORRELATION_TO_MEMBER,
        ),
    ]
    mean_correlation_to_member: Annotated[
        AnalyticsStat,
        figure(
            "Mean Pearson correlation of the alpha with each reference alpha, each over the sessions both have a "
            "return",
            "mean_i corr(a, r_i) over the members with a correlation",
            source=RETURNS,
            keys={
                "members": figure(
                    f"Reference alphas with a correlation (none below {MIN_OVERLAP} sessions in common with the "
                    "alpha, or with a side without variance)",
                    term=terms.MEMBERS,
                )
            },
            term=terms.MEAN_CORRELATION_TO_MEMBER,
        ),
    ]


# -- /analytics/compare -----------------------------------------------------------------------------
