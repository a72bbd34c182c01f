"""The analytics stat entry, and the significance and costs objects, declared for the contract.

Every analytics figure is one stat entry (`serve.analytics.entries.stat`): `value, unit, status,
[withheld_reason], source, annualisation`, then the keys its figure adds. One `AnalyticsStat`
declares them all, each absent unless its figure has it; their declared order is the order the
server adds them wherever two meet (`min_track_record`: confidence, sr_benchmark, years; the tail
figures: confidence, horizon_sessions; combine's turnover: approximation, periods_per_year).
What each figure means is in serve/analytics/*doc*.py and attached from there.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from schemas.bodies.base import Body, Window

STATUS = "`available` or `not_measurable` (then `value` is null and `withheld_reason` says why)."


class DsrTrials(Body, kw_only=True, frozen=True):
    """`dsr.trials` of the significance object."""

    count: int
    count_source: Annotated[
        str, Meta(description="`catalogue`, or `request` when `trials=` overrode the count.")
    ]
    sharpe_variance: Annotated[
        float | None,
        Meta(
            description="V, over the Sharpe ratios of the alphas the key may read (null without ledger "
            "access)."
        ),
    ]
    sharpe_variance_unit: str
    sharpe_variance_alphas: Annotated[
        int | None, Meta(description="How many Sharpe ratios V is over (null without ledger access).")
    ]
    expected_max_sharpe: float | None
    expected_max_sharpe_unit: str


class AnalyticsStat(Body, kw_only=True, frozen=True):
    """One analytics figure: a value with its unit, or `not_measurable` with a null value and a reason."""

    value: float | None
    unit: str
    status: Annotated[str, Meta(description=STATUS)]
    withheld_reason: str | UnsetType = UNSET
    source: str
    annualisation: Annotated[str, Meta(description="`annualised`, `per_period` or `not_annualisable`.")]
    approximation: (
        Annotated[str, Meta(description="`combine` turnover: how it is approximated.")] | UnsetType
    ) = UNSET
    periods_per_year: (
        Annotated[
            int,
            Meta(description="`sharpe`, `costs.information_ratio.*`: sessions per year used to annualise."),
        ]
        | UnsetType
    ) = UNSET
    confidence: (
        Annotated[
            float, Meta(description="`min_track_record`: the confidence the track record reaches (0.95).")
        ]
        | UnsetType
    ) = UNSET
    sr_benchmark: (
        Annotated[
            float, Meta(description="`psr`, `min_track_record`: the request's `sr_benchmark` (annualised).")
        ]
        | UnsetType
    ) = UNSET
    years: Annotated[float | None, Meta(description="`min_track_record` in years.")] | UnsetType = UNSET
    horizon_sessions: (
        Annotated[
            int, Meta(description="`risk.var_95`, `risk.cvar_95`: sessions the loss is measured over (1).")
        ]
        | UnsetType
    ) = UNSET
    trials: (
        Annotated[
            DsrTrials,
            Meta(description="`dsr`: the catalogue's trials behind the expected maximum Sharpe ratio."),
        ]
        | UnsetType
    ) = UNSET
    lower: (
        Annotated[float | None, Meta(description="Bootstrap figures: the lower bound of the interval.")]
        | UnsetType
    ) = UNSET
    upper: (
        Annotated[float | None, Meta(description="Bootstrap figures: the upper bound of the interval.")]
        | UnsetType
    ) = UNSET
    observations: int | UnsetType = UNSET
    block_length: int | UnsetType = UNSET
    family_size: (
        Annotated[
            int | None,
            Meta(
                description="`holm`, `benjamini_hochberg`: the hypotheses adjusted over (the alphas the key "
                "may read whose `nwt.ic` is measurable); null when the key may not read the rebalance "
                "cross-sections."
            ),
        ]
        | UnsetType
    ) = UNSET
    date: (
        Annotated[
            dt.date | None,
            Meta(description="`risk.best_*`, `risk.worst_*`: the last session of the day, week or month."),
        ]
        | UnsetType
    ) = UNSET
    sessions: (
        Annotated[
            int | None,
            Meta(description="`risk.best_*`, `risk.worst_*`: sessions of the window in that period."),
        ]
        | UnsetType
    ) = UNSET
    alpha: (
        Annotated[
            str | None, Meta(description="`contribution.max_correlation_to_member`: the member it is with.")
        ]
        | UnsetType
    ) = UNSET
    members: (
        Annotated[
            int,
            Meta(description="`contribution.mean_correlation_to_member`: the members with a correlation."),
        ]
        | UnsetType
    ) = UNSET


class Bootstrap(Body, kw_only=True, frozen=True):
    """Stationary block-bootstrap confidence intervals (seeded: the same request, the same answer)."""

    method: str
    confidence: float
    resamples: int
    seed: int
    block_length_rule: str
    streams: str
    mean_ic: AnalyticsStat
    icir: AnalyticsStat
    information_ratio: AnalyticsStat


class MultipleTesting(Body, kw_only=True, frozen=True):
    """The `nwt.ic` p-value of `/metrics`, adjusted within the family of the alphas the key may read."""

    p_value: AnalyticsStat
    holm: AnalyticsStat
    benjamini_hochberg: AnalyticsStat


class Significance(Body, kw_only=True, frozen=True):
    """Significance of the long_short Sharpe ratio and of the IC (`/analytics/significance`)."""

    alpha: str
    alpha_id: str
    book: str
    window: Window
    sessions: Annotated[
        int | None,
        Meta(description="The window's sessions of the book; null for a key that may not read the ledger."),
    ]
    sharpe: AnalyticsStat
    skewness: AnalyticsStat
    kurtosis: AnalyticsStat
    psr: Annotated[AnalyticsStat, Meta(description="Probabilistic Sharpe Ratio against `sr_benchmark`.")]
    min_track_record: Annotated[
        AnalyticsStat, Meta(description="Minimum track record length, in sessions (`.years` in years).")
    ]
    dsr: Annotated[
        AnalyticsStat, Meta(description="Deflated Sharpe Ratio over the catalogue's trials (`.trials`).")
    ]
    bootstrap: Bootstrap
    multiple_testing: MultipleTesting


class InformationRatioSides(Body, kw_only=True, frozen=True):
    """`information_ratio` of the costs object."""

    gross: AnalyticsStat
    net: AnalyticsStat


class TurnoverBucket(Body, kw_only=True, frozen=True):
    """An entry of `turnover_by_decile.buckets` of the costs object."""

    bucket: Annotated[str, Meta(description="`Q1` (lowest score) to `Q10`.")]
    rank: int
    weeks: int
    mean_turnover: float | None


class TurnoverByDecile(Body, kw_only=True, frozen=True):
    """`turnover_by_decile` of the costs object."""

    score_field: Annotated[
        str, Meta(description="The score the book trades, bucketed: `score`, or `raw_score` for raw_ books.")
    ]
    weight_field: str
    weeks: int
    bucketed_weeks: int
    mean_weekly_turnover: float | None
    unbucketed_mean_turnover: float | None
    buckets: list[TurnoverBucket]


class Costs(Body, kw_only=True, frozen=True):
    """What a book's modelled execution costs take (`/analytics/costs`), flows in normalised equity."""

    alpha: str
    book: str
    window: Window
    sessions: int
    net_pnl: AnalyticsStat
    execution_cost: AnalyticsStat
    gross_pnl: AnalyticsStat
    traded_notional: AnalyticsStat
    break_even_multiple: AnalyticsStat
    break_even_bps: AnalyticsStat
    modelled_cost_bps: AnalyticsStat
    information_ratio: InformationRatioSides
    turnover_by_decile: Annotated[
        TurnoverByDecile | None,
        Meta(
            description="Null for books without target weights, in a window without a week to measure, or "
            "when the key may not read the rebalance cross-sections."
        ),
    ]
    holding_period: AnalyticsStat
