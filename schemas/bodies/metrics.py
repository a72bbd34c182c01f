"""The metrics object (`GET /v1/alphas/{alpha}/metrics`), declared for the contract.

`serve.metrics` builds it as dicts; these declarations are what the OpenAPI document says of it.
What each figure means is written once, in the documentation block (serve/metrics/doc.py), and is
attached from there: the few descriptions here are those the hand-typed client carried (which
values a key takes, when it is absent or null).

A block that fails to compute is served null (`block_error`), so every computed block (core,
rank_ic, signal_processing, periods, ic_deciles, panel, each `nwt` test) may be null; the stat
entries inside a block are always objects (`not_measurable` when there is no value, never null).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from schemas.bodies.base import Body, Window
from schemas.bodies.docs import MetricsDoc


class Stat(Body, kw_only=True, frozen=True):
    """One statistic: a value with its unit, or `not_measurable` with a null value and a reason.
    Its fields' meanings are also those of every stat entry in `/metrics/_doc`."""

    value: Annotated[float | None, Meta(description="The number; null when not measurable")]
    unit: Annotated[
        str, Meta(description="Unit of value: ratio, percentage_points, per_year, per_session, period_sum")
    ]
    status: Annotated[str, Meta(description="available or not_measurable")]
    withheld_reason: (
        Annotated[str, Meta(description="Why the value is not measurable (present only then)")] | UnsetType
    ) = UNSET
    source: Annotated[str, Meta(description="Where the value comes from: metrics (the run's stored metrics)")]
    source_kind: Annotated[
        str, Meta(description="fact, metric (stored by the run) or derived (computed by this service)")
    ]
    signal: (
        Annotated[str, Meta(description="IC family only: conditioned (score) or raw (raw_score)")] | UnsetType
    ) = UNSET
    annualisation: (
        Annotated[str, Meta(description="annualised, per_period or not_annualisable")] | UnsetType
    ) = UNSET
    periods_per_year: (
        Annotated[int, Meta(description="Annualisation factor applied: 52 for weekly series, 252 for daily")]
        | UnsetType
    ) = UNSET
    risk_free_rate: float | None | UnsetType = UNSET
    risk_free_rate_unit: str | UnsetType = UNSET
    risk_free_rate_source: str | None | UnsetType = UNSET
    deprecated: bool | UnsetType = UNSET
    superseded_by: str | UnsetType = UNSET


STAT_KEYS = (
    "value",
    "unit",
    "status",
    "source",
    "source_kind",
    "signal",
    "annualisation",
    "periods_per_year",
    "withheld_reason",
)
"""The keys of a stat entry `/metrics/_doc` documents, in its order."""


class Tenure(Body, kw_only=True, frozen=True):
    """`core.tenure` (and `periods[].core.tenure`) of the metrics object."""

    weeks: int | None
    traded_weeks: int | None
    first_rebalance: dt.date | None
    last_rebalance: dt.date | None
    calendar_days: int | None
    years: float | None
    source: Annotated[
        str,
        Meta(
            description="`rebalances`, or `portfolio` when the run has no rebalance index (week counts null)."
        ),
    ]


class CoreStats(Body, kw_only=True, frozen=True):
    """Headline statistics, always of the long_short book."""

    ic: Stat
    icir: Stat
    information_ratio: Stat
    excess_sharpe: Stat
    sharpe: Annotated[Stat, Meta(description="Deprecated alias of `information_ratio`.")]
    pnl: Stat
    max_drawdown: Stat
    max_drawdown_pct: Stat
    turnover: Stat
    tenure: Tenure | None


class RankIcConditioned(Body, kw_only=True, frozen=True):
    """`rank_ic.conditioned` of the metrics object."""

    hit_rate: Stat
    dispersion: Stat
    coverage: Stat


class RankIcRaw(Body, kw_only=True, frozen=True):
    """`rank_ic.raw` of the metrics object."""

    ic: Stat
    icir: Stat


class RankIc(Body, kw_only=True, frozen=True):
    """`rank_ic` of the metrics object."""

    conditioned: RankIcConditioned
    raw: Annotated[
        RankIcRaw, Meta(description="The only place the unconditioned mean IC and ICIR are served.")
    ]


class SignalProcessing(Body, kw_only=True, frozen=True):
    """`signal_processing` of the metrics object, as the run sealed it."""

    signal: str | None
    smoothing_applied: bool | None
    smoothing_half_life_weeks: int | float | None  # sealed as either; `float` would re-encode 3 as 3.0
    detail: str | None


class Period(Body, kw_only=True, frozen=True):
    """An entry of `periods` of the metrics object."""

    period: Annotated[str, Meta(description="`YYYY` (yearly) or `YYYY-MM` (monthly).")]
    core: CoreStats


class DecileBucket(Body, kw_only=True, frozen=True):
    """An entry of `ic_deciles.buckets` of the metrics object."""

    bucket: Annotated[str, Meta(description="`Q1` (lowest raw_score) to `Q10` (highest).")]
    rank: int
    weeks: int
    mean_n_symbols: float | None
    mean_score: float | None
    mean_score_z: float | None
    mean_long_short_weight: float | None
    mean_long_only_weight: float | None
    mean_forward_return: float | None
    ic: float | None
    n_return_obs: int


class Monotonicity(Body, kw_only=True, frozen=True):
    """`ic_deciles.monotonicity` of the metrics object."""

    spearman_bucket_vs_mean_forward_return: float | None
    top_minus_bottom: float | None


class IcDeciles(Body, kw_only=True, frozen=True):
    """`ic_deciles` of the metrics object."""

    score_field: str
    signal: str
    bucket_count: int
    weeks: int
    buckets: list[DecileBucket]
    monotonicity: Monotonicity
    forward_returns: str
    weeks_skipped: int


class NeweyWest(Body, kw_only=True, frozen=True):
    """A Newey-West entry: `nwt.*` and `panel.ic_term_structure[].newey_west`."""

    lag: int
    n: int
    mean: float
    standard_error: float
    t_stat: float
    p_value: float
    source: str | UnsetType = UNSET
    source_kind: str | UnsetType = UNSET
    signal: str | UnsetType = UNSET
    frequency: Annotated[str, Meta(description="`nwt.ir` only: `weekly` or `daily`.")] | UnsetType = UNSET


class NeweyWestTests(Body, kw_only=True, frozen=True):
    """`nwt` of the metrics object; each test is null when it is not computed."""

    ic: NeweyWest | None
    ic_score_panel: NeweyWest | None
    ir: NeweyWest | None


class WeeklyIc(Body, kw_only=True, frozen=True):
    """An entry of `panel.ic_weekly`."""

    date: dt.date
    ic: float


class WeeklySpread(Body, kw_only=True, frozen=True):
    """An entry of `panel.decile_spread_weekly`."""

    date: dt.date
    spread: float


class TermPoint(Body, kw_only=True, frozen=True):
    """An entry of `panel.ic_term_structure`."""

    horizon_weeks: int
    mean_ic: float | None
    weeks: int
    newey_west: NeweyWest | None


class AutocorrelationPoint(Body, kw_only=True, frozen=True):
    """An entry of `panel.rank_autocorrelation`."""

    lag_weeks: int
    rho: float | None
    weeks: int


class WeeklyCoverage(Body, kw_only=True, frozen=True):
    """An entry of `panel.coverage`."""

    date: dt.date
    coverage: float


class Panel(Body, kw_only=True, frozen=True):
    """`panel` of the metrics object (weeks without a finite value are left out of its series)."""

    signal: str
    ic_weekly: list[WeeklyIc]
    decile_spread_weekly: list[WeeklySpread]
    ic_term_structure: list[TermPoint]
    rank_autocorrelation: list[AutocorrelationPoint]
    coverage: list[WeeklyCoverage]


class AnnualisationFactors(Body, kw_only=True, frozen=True):
    """`annualisation_factors` of the metrics object."""

    weekly: int
    daily: int


class Metrics(Body, kw_only=True, frozen=True):
    """Performance and signal-quality metrics of one alpha (`/metrics`)."""

    granularity: str
    window: Window
    core: CoreStats | None
    rank_ic: RankIc | None
    signal_processing: SignalProcessing | None
    periods: Annotated[
        list[Period] | None, Meta(description="With `granularity` yearly or monthly; null at overall.")
    ]
    ic_deciles: IcDeciles | None
    nwt: NeweyWestTests
    panel: (
        Annotated[
            Panel | None, Meta(description="Only with `panel=True`; null whenever `ic_deciles` is null.")
        ]
        | UnsetType
    ) = UNSET
    doc_url: str
    alpha: str
    alpha_id: str
    annualisation_factors: AnnualisationFactors
    doc: Annotated[MetricsDoc, Meta(description="Only with `doc=True`.")] | UnsetType = UNSET
