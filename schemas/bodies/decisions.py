"""The decision routes' objects (risk, checks, contribution), declared for the contract.

These are the answers a user decides on: is the book's risk acceptable, does it pass the operator's
battery, what does it add to a set, is it better than another alpha. Their figures are analytics
stat entries (`AnalyticsStat`); what each means is in serve/analytics/*_doc.py and attached from
there.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import Body, Window

DRAWDOWN_PCT = "Percentage points of the peak (25.0 = 25%), as `/metrics` `core.max_drawdown_pct`."

# -- /analytics/risk --------------------------------------------------------------------------------


class RiskBenchmark(Body, kw_only=True, frozen=True):
    """The book against SPY: OLS beta and annualised alpha, tracking error, on the sessions both have."""

    symbol: str
    return_basis: Annotated[
        str | None,
        Meta(
            description="`adjusted_close` or `close` (SPY's total-return basis); null when the key may not "
            "read SPY."
        ),
    ]
    observations: int | None
    beta: AnalyticsStat
    alpha: AnalyticsStat
    tracking_error: AnalyticsStat


class Risk(Body, kw_only=True, frozen=True):
    """Benchmark-relative and tail figures of a book (`/analytics/risk`)."""

    alpha: str
    book: str
    window: Window
    sessions: int | None
    benchmark: RiskBenchmark
    sortino: AnalyticsStat
    cagr: AnalyticsStat
    max_drawdown_pct: Annotated[AnalyticsStat, Meta(description=DRAWDOWN_PCT)]
    calmar: Annotated[AnalyticsStat, Meta(description="cagr / (max_drawdown_pct / 100).")]
    tail_ratio: AnalyticsStat
    var_95: AnalyticsStat
    cvar_95: AnalyticsStat
    best_day: AnalyticsStat
    worst_day: AnalyticsStat
    best_week: AnalyticsStat
    worst_week: AnalyticsStat
    best_month: AnalyticsStat
    worst_month: AnalyticsStat


# -- /analytics/checks ------------------------------------------------------------------------------


class Bound(Body, kw_only=True, frozen=True):
    """A check's threshold: a minimum, a maximum, or both (the turnover band)."""

    min: float | UnsetType = UNSET
    max: float | UnsetType = UNSET


class PolicyThresholds(Body, kw_only=True, frozen=True):
    """`policy.thresholds` of the checks object, by check id in the battery's order."""

    information_ratio: Bound
    deflated_sharpe: Bound
    turnover: Bound
    max_weight: Bound
    recent_information_ratio: Bound
    yearly_consistency: Bound
    stressed_net_information_ratio: Bound
    production_correlation: Bound
    ic_t_stat: Bound


class Policy(Body, kw_only=True, frozen=True):
    """The operator's thresholds (`checks_policy_file`), echoed in every answer."""

    origin: Annotated[str, Meta(description="`defaults` (no policy file) or `operator`.")]
    thresholds: PolicyThresholds


class CheckResult(Body, kw_only=True, frozen=True):
    """One check: its value against the threshold applied (the policy's, tightened by the request)."""

    id: str
    value: float | None
    unit: str
    threshold: Annotated[
        Bound, Meta(description="The bound applied: the policy's, tightened by the request's.")
    ]
    policy_threshold: Bound
    verdict: Annotated[str, Meta(description="`pass`, `fail` or `not_measurable` (then `reason` says why).")]
    source: Annotated[str, Meta(description="The registry id of the route the value comes from.")]
    book: Annotated[
        str | None,
        Meta(
            description="The book the value is measured on (null: not a book's figure, as the IC "
            "t-statistic)."
        ),
    ]
    horizon: str
    reason: str | UnsetType = UNSET
    compared: (
        Annotated[
            int | None,
            Meta(
                description="production_correlation only: the production alphas the value is the maximum over "
                "(those with a correlation: enough common sessions, variance on both sides); null when the key "
                "may not have the figure."
            ),
        ]
        | UnsetType
    ) = UNSET
    of: (
        Annotated[
            int | None,
            Meta(
                description="production_correlation only: the production alphas the key may read, this one "
                "excluded (compared is below it when some have too little overlap); null as compared."
            ),
        ]
        | UnsetType
    ) = UNSET
    nearest: (
        Annotated[
            str | None,
            Meta(
                description="production_correlation only: the production alpha that gives the value; null without one."
            ),
        ]
        | UnsetType
    ) = UNSET


class ChecksSummary(Body, kw_only=True, frozen=True):
    """`summary` of the checks object."""

    passed: int
    failed: int
    not_measurable: int
    verdict: Annotated[
        str, Meta(description="`pass` (every check passes), `fail` (one fails) or `incomplete`.")
    ]


class Checks(Body, kw_only=True, frozen=True):
    """The pass/fail battery of one alpha and book (`/analytics/checks`)."""

    alpha: str
    book: str
    window: Window
    sessions: int | None
    policy: Policy
    checks: list[CheckResult]
    summary: ChecksSummary


# -- /analytics/contribution ------------------------------------------------------------------------


class BookFigures(Body, kw_only=True, frozen=True):
    """A book's figures as stat entries: combine `meta.figures`, contribution `before`, `after`, `change`."""

    information_ratio: AnalyticsStat
    excess_sharpe: AnalyticsStat
    max_drawdown_pct: Annotated[AnalyticsStat, Meta(description=DRAWDOWN_PCT)]
    annualised_return: AnalyticsStat
    volatility: AnalyticsStat
    turnover: (
        Annotated[
            AnalyticsStat,
            Meta(
                description="Combine, and contribution with a `weighting`: Σ|w_i| τ_i over the alphas' "
                "whole-history turnover (an upper bound)."
            ),
        ]
        | UnsetType
    ) = UNSET
    diversification_ratio: (
        Annotated[
            AnalyticsStat,
            Meta(
                description="Combine, and contribution with a `weighting`: Σ|w_i| σ_i / σ of the combined book."
            ),
        ]
        | UnsetType
    ) = UNSET


class ContributionAbsent(Body, kw_only=True, frozen=True):
    """Reference alphas without a return on any session counted (history outside the window, or no ledger)."""

    count: int
    alphas: Annotated[
        list[str],
        Meta(
            description="Their ids in the order of `ContributionReference.alphas`; the first 50 when there "
            "are more."
        ),
    ]


class CombinationShrinkage(Body, kw_only=True, frozen=True):
    """The covariance shrinkage of a max_ir weighting."""

    value: float
    source: Annotated[str, Meta(description="`given` (the request's `shrinkage`) or `ledoit_wolf`.")]


class CombinationWeight(Body, kw_only=True, frozen=True):
    """One alpha's weight in a combination."""

    alpha: str
    weight: Annotated[float, Meta(description="Its fraction of the book's capital (negative: a short).")]


class ContributionCombination(Body, kw_only=True, frozen=True):
    """`reference.combination` of the contribution object: the set's weights, as `/analytics/combine`
    `meta` serves them."""

    weighting: str
    shrinkage: Annotated[CombinationShrinkage | None, Meta(description="max_ir only; null otherwise.")]
    weights: Annotated[list[CombinationWeight], Meta(description="In the order of `reference.alphas`.")]
    sessions: Annotated[
        int,
        Meta(
            description="The set's common sessions of the window (combine's `meta.sessions`): the weights are "
            "from them; the figures are over those the alpha also trades (`sessions`)."
        ),
    ]


class ContributionReference(Body, kw_only=True, frozen=True):
    """`reference` of the contribution object."""

    source: Annotated[
        str,
        Meta(
            description="`given` (the `reference` parameter) or `production` (every production alpha the key "
            "may read)."
        ),
    ]
    alphas: list[str]
    count: Annotated[int, Meta(description="How many reference alphas were named or considered.")]
    alpha_excluded: Annotated[
        bool, Meta(description="Whether the alpha itself was in the set and was left out.")
    ]
    members_in_window: Annotated[
        int,
        Meta(
            description="How many have a return on at least one session counted: the figures are over these."
        ),
    ]
    without_returns: ContributionAbsent
    combination: (
        Annotated[
            ContributionCombination,
            Meta(
                description="With a `weighting` only: the reference set combined as `/analytics/combine` does."
            ),
        ]
        | UnsetType
    ) = UNSET


class ContributionWeight(Body, kw_only=True, frozen=True):
    """`weight` of the contribution object."""

    value: float
    chosen: Annotated[
        str, Meta(description="`given` or `optimal` (the weight that maximises the information ratio after).")
    ]


class Contribution(Body, kw_only=True, frozen=True):
    """What adding the alpha at `weight` does to a reference set, equally weighted as it grew or
    combined at a `weighting` (`/contribution`)."""

    alpha: str
    book: str
    reference: ContributionReference
    window: Window
    weight: ContributionWeight
    sessions: int
    session_rule: str
    before: BookFigures
    after: BookFigures
    change: BookFigures
    correlation_to_set: AnalyticsStat
    max_correlation_to_member: AnalyticsStat
    mean_correlation_to_member: AnalyticsStat


# -- /analytics/compare -----------------------------------------------------------------------------
