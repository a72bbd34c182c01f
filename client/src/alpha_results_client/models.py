"""Types of the bodies the server's OpenAPI document leaves open: an alpha's written description,
the metrics object and the metrics documentation block, and the analytics significance and costs
objects and their documentation block.

Written by hand from the API specification, because the document declares these `data` objects
only as `object`; everything else is generated (`_generated.py`). Tests keep them honest: the
paths the server's own documentation blocks list (`/metrics/_doc` and `/analytics/_doc`
`fields`) must all be fields here, and every payload the demo server answers must decode and
encode back unchanged (nothing dropped).

Absent keys decode to `UNSET`, explicit nulls to `None`, as the spec distinguishes them; the
repr of every class (`ApiStruct`) leaves the `UNSET` ones out.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from alpha_results_client._struct import ApiStruct

# -- the alpha description (`GET /v1/alphas/{alpha}`) ---------------------------------------------


class Classification(ApiStruct, kw_only=True, frozen=True):
    structure: str | None
    method: str | None
    frequency: list[str] | None
    """Lowercase cadences from `intraday`, `daily`, `weekly`, as sealed."""
    tags: list[str] | None


class FalsificationCriterion(ApiStruct, kw_only=True, frozen=True):
    metric: str | None = None
    threshold: float | str | None = None
    horizon: str | None = None


class Thesis(ApiStruct, kw_only=True, frozen=True):
    hypothesis: str | None
    mechanism: str | None
    who_loses: str | None
    economic_rationale: str | None
    falsification_criteria: list[FalsificationCriterion]
    """Pre-committed kill conditions; empty on every delivered alpha."""


class Signal(ApiStruct, kw_only=True, frozen=True):
    score_direction: str | None
    decision_timing: str | None
    core_math_framework: str | None
    signal_logic: str | None
    pseudocode: list[str] | None
    validity_rules: list[str] | None
    output_contract: str | None


class Parameter(ApiStruct, kw_only=True, frozen=True):
    name: str
    type: str | None = None
    default: float | int | str | bool | None = None
    search_values: list[float | int | str | bool | None] | None = None
    range: list[float] | None = None
    """Two numbers: the lower and upper bound."""
    tunable: bool | None = None
    unit: str | None = None
    description: str | None = None
    selected_value_by_test_year: dict[str, str | None] | None = None


class DataField(ApiStruct, kw_only=True, frozen=True):
    name: str
    category: str | None = None
    required: bool | None = None


class DataRequirements(ApiStruct, kw_only=True, frozen=True):
    universe: str | None
    granularity: str | None
    lookback_bars: int | None
    """Counted in the granularity unit; null when `history_requirement` is used instead."""
    warmup_bars: int | None
    adjustment: str | None
    fields: list[DataField] | None
    history_requirement: str | None
    """Prose; populated instead of the bar counts."""


class SourcePaper(ApiStruct, kw_only=True, frozen=True):
    title: str | None
    published_date: str | None
    role: str | None
    """`seed`, `mechanism`, `validation` or `contradiction`; exactly one `seed`."""
    rationale: str | None


class AlphaDescription(ApiStruct, kw_only=True, frozen=True):
    """The written description of one alpha: every key present, unsealed values null."""

    algo_id: str
    alpha_id: str
    """Identical to `algo_id` (the older name, kept for compatibility)."""
    name: str
    tldr: str | None
    copyright: str | None
    classification: Classification
    thesis: Thesis
    signal: Signal
    parameters: list[Parameter] | None
    data_requirements: DataRequirements
    source_papers: list[SourcePaper]


# -- the metrics object (`GET /v1/alphas/{alpha}/metrics`) -----------------------------------------


class Stat(ApiStruct, kw_only=True, frozen=True):
    """One statistic: a value with its unit, or `not_measurable` with a null value and a reason."""

    value: float | None
    unit: str | None = None
    status: str
    """`available` or `not_measurable` (then `value` is null and `withheld_reason` says why)."""
    source: str | None = None
    source_kind: str | None = None
    """`fact`, `metric` (stored by the run) or `derived` (computed by the service)."""
    signal: str | UnsetType = UNSET
    """IC family only: `conditioned` (score) or `raw` (raw_score)."""
    annualisation: str | UnsetType = UNSET
    """`annualised`, `per_period` or `not_annualisable`."""
    periods_per_year: int | UnsetType = UNSET
    withheld_reason: str | UnsetType = UNSET
    risk_free_rate: float | None | UnsetType = UNSET
    risk_free_rate_unit: str | UnsetType = UNSET
    risk_free_rate_source: str | UnsetType = UNSET
    deprecated: bool | UnsetType = UNSET
    superseded_by: str | UnsetType = UNSET


class Tenure(ApiStruct, kw_only=True, frozen=True):
    weeks: int | None
    traded_weeks: int | None
    first_rebalance: dt.date | None
    last_rebalance: dt.date | None
    calendar_days: int | None
    years: float | None
    source: str
    """`rebalances`, or `portfolio` when the run has no rebalance index (week counts null)."""


class CoreStats(ApiStruct, kw_only=True, frozen=True):
    """Headline statistics, always of the long_short book."""

    ic: Stat | None = None
    icir: Stat | None = None
    information_ratio: Stat | None = None
    excess_sharpe: Stat | None = None
    sharpe: Stat | None = None
    """Deprecated alias of `information_ratio`."""
    pnl: Stat | None = None
    max_drawdown: Stat | None = None
    max_drawdown_pct: Stat | None = None
    turnover: Stat | None = None
    tenure: Tenure | None = None


class RankIcConditioned(ApiStruct, kw_only=True, frozen=True):
    hit_rate: Stat | None = None
    dispersion: Stat | None = None
    coverage: Stat | None = None


class RankIcRaw(ApiStruct, kw_only=True, frozen=True):
    ic: Stat | None = None
    icir: Stat | None = None


class RankIc(ApiStruct, kw_only=True, frozen=True):
    conditioned: RankIcConditioned | None = None
    raw: RankIcRaw | None = None
    """The only place the unconditioned mean IC and ICIR are served."""


class SignalProcessing(ApiStruct, kw_only=True, frozen=True):
    signal: str | None = None
    smoothing_applied: bool | None = None
    smoothing_half_life_weeks: float | None = None
    detail: str | None = None


class Period(ApiStruct, kw_only=True, frozen=True):
    period: str
    """`YYYY` (yearly) or `YYYY-MM` (monthly)."""
    core: CoreStats


class DecileBucket(ApiStruct, kw_only=True, frozen=True):
    bucket: str
    """`Q1` (lowest raw_score) to `Q10` (highest)."""
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


class Monotonicity(ApiStruct, kw_only=True, frozen=True):
    spearman_bucket_vs_mean_forward_return: float | None
    top_minus_bottom: float | None


class IcDeciles(ApiStruct, kw_only=True, frozen=True):
    score_field: str
    signal: str
    bucket_count: int
    weeks: int
    buckets: list[DecileBucket]
    monotonicity: Monotonicity | None
    forward_returns: str | None
    weeks_skipped: int


class NeweyWest(ApiStruct, kw_only=True, frozen=True):
    t_stat: float | None
    p_value: float | None
    lag: int | None
    n: int | None
    mean: float | None
    standard_error: float | None
    source: str | UnsetType = UNSET
    source_kind: str | UnsetType = UNSET
    signal: str | UnsetType = UNSET
    frequency: str | UnsetType = UNSET
    """`nwt.ir` only: `weekly` or `daily`."""


class NeweyWestTests(ApiStruct, kw_only=True, frozen=True):
    ic: NeweyWest | None = None
    ic_score_panel: NeweyWest | None = None
    ir: NeweyWest | None = None


class WeeklyIc(ApiStruct, kw_only=True, frozen=True):
    date: dt.date
    ic: float | None


class WeeklySpread(ApiStruct, kw_only=True, frozen=True):
    date: dt.date
    spread: float | None


class TermPoint(ApiStruct, kw_only=True, frozen=True):
    horizon_weeks: int
    mean_ic: float | None
    weeks: int
    newey_west: NeweyWest | None | UnsetType = UNSET


class AutocorrelationPoint(ApiStruct, kw_only=True, frozen=True):
    lag_weeks: int
    rho: float | None
    weeks: int


class WeeklyCoverage(ApiStruct, kw_only=True, frozen=True):
    date: dt.date
    coverage: float | None


class Panel(ApiStruct, kw_only=True, frozen=True):
    signal: str | None = None
    ic_weekly: list[WeeklyIc] = []
    decile_spread_weekly: list[WeeklySpread] = []
    ic_term_structure: list[TermPoint] = []
    rank_autocorrelation: list[AutocorrelationPoint] = []
    coverage: list[WeeklyCoverage] = []


class Window(ApiStruct, kw_only=True, frozen=True):
    from_: dt.date | None = msgspec.field(default=None, name="from")
    to: dt.date | None = None


class AnnualisationFactors(ApiStruct, kw_only=True, frozen=True):
    daily: int | UnsetType = UNSET
    weekly: int | UnsetType = UNSET


class MetricsDoc(ApiStruct, kw_only=True, frozen=True):
    """The metrics documentation block (`/metrics/_doc`, or `data.doc` with `doc=1`)."""

    schema_version: str
    endpoint: dict[str, Any]
    """Prose on the path, identity, parameters, window semantics, access and signal families."""
    fields: dict[str, dict[str, Any]]
    """Dotted payload path (`core.ic`, `periods[].core.ic`) to `{meaning, formula, horizon,
    granularity, source, unit}`."""
    warnings: dict[str, str]
    """Warning code to its meaning."""


class Metrics(ApiStruct, kw_only=True, frozen=True):
    """Performance and signal-quality metrics of one alpha (`/metrics`)."""

    granularity: str
    window: Window
    core: CoreStats | None = None
    rank_ic: RankIc | None = None
    signal_processing: SignalProcessing | None = None
    periods: list[Period] | None = None
    """With `granularity` yearly or monthly; null at overall."""
    ic_deciles: IcDeciles | None = None
    nwt: NeweyWestTests | None = None
    panel: Panel | None | UnsetType = UNSET
    """Only with `panel=True`; null whenever `ic_deciles` is null."""
    doc: MetricsDoc | UnsetType = UNSET
    """Only with `doc=True`."""
    doc_url: str | None = None
    alpha: str | None = None
    alpha_id: str | None = None
    annualisation_factors: AnnualisationFactors | UnsetType = UNSET


# -- the analytics objects (`/analytics/significance`, `/analytics/costs`, `/analytics/_doc`) ------


class DsrTrials(ApiStruct, kw_only=True, frozen=True):
    count: int
    count_source: str
    """`catalogue`, or `request` when `trials=` overrode the count."""
    sharpe_variance: float | None
    """V, over the Sharpe ratios of the alphas the key may read (null without ledger access)."""
    sharpe_variance_unit: str
    sharpe_variance_alphas: int | None | UnsetType = UNSET
    """How many Sharpe ratios V is over (absent from servers before it was added)."""
    expected_max_sharpe: float | None
    expected_max_sharpe_unit: str


class AnalyticsStat(ApiStruct, kw_only=True, frozen=True):
    """One analytics figure, shaped as a metrics `Stat`: a value with its unit, or `not_measurable`
    with a null value and a `withheld_reason` (`access_limited: ...` when the key may not read the
    ledger or the rebalance cross-sections it is built from; `meta.warnings` then has an
    `access_limited` entry naming the `block`). The other keys are present only on the figures
    named (see `/analytics/_doc` `fields`)."""

    value: float | None
    unit: str | None
    status: str
    """`available` or `not_measurable` (then `value` is null and `withheld_reason` says why)."""
    source: str
    annualisation: str
    """`annualised`, `per_period` or `not_annualisable`."""
    withheld_reason: str | UnsetType = UNSET
    periods_per_year: int | UnsetType = UNSET
    """`sharpe`, `costs.information_ratio.*`: sessions per year used to annualise."""
    sr_benchmark: float | UnsetType = UNSET
    """`psr`, `min_track_record`: the request's `sr_benchmark` (annualised)."""
    confidence: float | UnsetType = UNSET
    """`min_track_record`: the confidence the track record reaches (0.95)."""
    years: float | None | UnsetType = UNSET
    """`min_track_record` in years."""
    trials: DsrTrials | UnsetType = UNSET
    """`dsr`: the catalogue's trials behind the expected maximum Sharpe ratio."""
    lower: float | None | UnsetType = UNSET
    """Bootstrap figures: the lower bound of the interval."""
    upper: float | None | UnsetType = UNSET
    """Bootstrap figures: the upper bound of the interval."""
    observations: int | UnsetType = UNSET
    block_length: int | UnsetType = UNSET
    family_size: int | None | UnsetType = UNSET
    """`holm`, `benjamini_hochberg`: the hypotheses adjusted over (the alphas the key may read whose
    `nwt.ic` is measurable); null when the key may not read the rebalance cross-sections."""
    horizon_sessions: int | UnsetType = UNSET
    """`risk.var_95`, `risk.cvar_95`: sessions the loss is measured over (1)."""
    date: dt.date | None | UnsetType = UNSET
    """`risk.best_*`, `risk.worst_*`: the last session of the day, week or month."""
    sessions: int | None | UnsetType = UNSET
    """`risk.best_*`, `risk.worst_*`: sessions of the window in that period."""
    approximation: str | UnsetType = UNSET
    """`combine` turnover: how it is approximated."""
    alpha: str | None | UnsetType = UNSET
    """`contribution.max_correlation_to_member`: the member it is with."""
    members: int | UnsetType = UNSET
    """`contribution.mean_correlation_to_member`: the members with a correlation."""


class Bootstrap(ApiStruct, kw_only=True, frozen=True):
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


class MultipleTesting(ApiStruct, kw_only=True, frozen=True):
    """The `nwt.ic` p-value of `/metrics`, adjusted within the family of the alphas the key may read
    (whole histories)."""

    p_value: AnalyticsStat
    holm: AnalyticsStat
    benjamini_hochberg: AnalyticsStat


class Significance(ApiStruct, kw_only=True, frozen=True):
    """Significance of the long_short Sharpe ratio and of the IC (`/analytics/significance`)."""

    alpha: str
    alpha_id: str
    book: str
    window: Window
    sessions: int | None
    """The window's sessions of the book; null for a key that may not read the ledger."""
    sharpe: AnalyticsStat
    skewness: AnalyticsStat
    kurtosis: AnalyticsStat
    psr: AnalyticsStat
    """Probabilistic Sharpe Ratio against `sr_benchmark`."""
    min_track_record: AnalyticsStat
    """Minimum track record length, in sessions (`.years` in years)."""
    dsr: AnalyticsStat
    """Deflated Sharpe Ratio over the catalogue's trials (`.trials`)."""
    bootstrap: Bootstrap
    multiple_testing: MultipleTesting


class InformationRatioSides(ApiStruct, kw_only=True, frozen=True):
    gross: AnalyticsStat
    net: AnalyticsStat


class TurnoverBucket(ApiStruct, kw_only=True, frozen=True):
    bucket: str
    """`Q1` (lowest score) to `Q10`."""
    rank: int
    weeks: int
    mean_turnover: float | None


class TurnoverByDecile(ApiStruct, kw_only=True, frozen=True):
    score_field: str
    """The score the book trades, bucketed: `score`, or `raw_score` for raw_ books."""
    weight_field: str
    weeks: int
    bucketed_weeks: int
    mean_weekly_turnover: float | None
    unbucketed_mean_turnover: float | None
    buckets: list[TurnoverBucket]


class Costs(ApiStruct, kw_only=True, frozen=True):
    """What a book's modelled execution costs take (`/analytics/costs`); flows (`net_pnl`,
    `execution_cost`, `gross_pnl`, `traded_notional`) in unit `equity`, normalised equity (1.0 = the
    book's equity at inception). In a window without a session every figure is `not_measurable`."""

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
    turnover_by_decile: TurnoverByDecile | None
    """Null for books without target weights, in a window without a week to measure, or when the key
    may not read the rebalance cross-sections."""
    holding_period: AnalyticsStat


class AnalyticsDoc(ApiStruct, kw_only=True, frozen=True):
    """The analytics documentation block (`/analytics/_doc`), shaped as `MetricsDoc`."""

    schema_version: str
    endpoint: dict[str, str]
    """Prose on the routes: `paths`, `access`, `catalogue`, `window_semantics`, `signal_families`,
    `sharpe_convention`, `name_conventions`, `min_overlap`, `not_measurable`, `references`."""
    fields: dict[str, dict[str, Any]]
    """Dotted payload path prefixed by the route (`significance.psr`, `rolling[].mean_ic`) to
    `{meaning, formula, horizon, granularity, source, unit, annualisation}`."""
    warnings: dict[str, str]
    """Warning code (`kind_missing`, `access_limited`) to its meaning."""


class RiskBenchmark(ApiStruct, kw_only=True, frozen=True):
    """The book against SPY: OLS beta and annualised alpha, tracking error, on the sessions both have."""

    symbol: str
    return_basis: str | None
    """`adjusted_close` or `close` (SPY's total-return basis); null when the key may not read SPY."""
    observations: int | None
    beta: AnalyticsStat
    alpha: AnalyticsStat
    tracking_error: AnalyticsStat


class Risk(ApiStruct, kw_only=True, frozen=True):
    """Benchmark-relative and tail figures of a book (`/analytics/risk`); returns are fractions,
    `max_drawdown_pct` percentage points."""

    alpha: str
    book: str
    window: Window
    sessions: int | None
    benchmark: RiskBenchmark
    sortino: AnalyticsStat
    cagr: AnalyticsStat
    max_drawdown_pct: AnalyticsStat
    """Percentage points of the peak (25.0 = 25%), as `/metrics` `core.max_drawdown_pct`."""
    calmar: AnalyticsStat
    """cagr / (max_drawdown_pct / 100)."""
    tail_ratio: AnalyticsStat
    var_95: AnalyticsStat
    cvar_95: AnalyticsStat
    best_day: AnalyticsStat
    worst_day: AnalyticsStat
    best_week: AnalyticsStat
    worst_week: AnalyticsStat
    best_month: AnalyticsStat
    worst_month: AnalyticsStat


class Bound(ApiStruct, kw_only=True, frozen=True):
    """A check's threshold: a minimum, a maximum, or both (the turnover band)."""

    min: float | UnsetType = UNSET
    max: float | UnsetType = UNSET


class PolicyThresholds(ApiStruct, kw_only=True, frozen=True):
    information_ratio: Bound
    deflated_sharpe: Bound
    turnover: Bound
    max_weight: Bound
    recent_information_ratio: Bound
    yearly_consistency: Bound
    stressed_net_information_ratio: Bound
    production_correlation: Bound
    ic_t_stat: Bound


class Policy(ApiStruct, kw_only=True, frozen=True):
    """The operator's thresholds (`checks_policy_file`), echoed in every answer."""

    origin: str
    """`defaults` (no policy file) or `operator`."""
    thresholds: PolicyThresholds


class CheckResult(ApiStruct, kw_only=True, frozen=True):
    """One check: its value against the threshold applied (the policy's, tightened by the request)."""

    id: str
    value: float | None
    unit: str
    threshold: Bound
    """The bound applied: the policy's, tightened by the request's."""
    policy_threshold: Bound
    verdict: str
    """`pass`, `fail` or `not_measurable` (then `reason` says why)."""
    source: str
    """The registry id of the route the value comes from."""
    book: str | None
    """The book the value is measured on (null: not a book's figure, as the IC t-statistic)."""
    horizon: str
    reason: str | UnsetType = UNSET


class ChecksSummary(ApiStruct, kw_only=True, frozen=True):
    passed: int
    failed: int
    not_measurable: int
    verdict: str
    """`pass` (every check passes), `fail` (one fails) or `incomplete`."""


class Checks(ApiStruct, kw_only=True, frozen=True):
    """The pass/fail battery of one alpha and book (`/analytics/checks`)."""

    alpha: str
    book: str
    window: Window
    sessions: int | None
    policy: Policy
    checks: list[CheckResult]
    summary: ChecksSummary

    def to_polars(self) -> Any:
        """The checks as a polars DataFrame (one row per check)."""
        import polars as pl

        return pl.DataFrame(
            [
                {
                    "id": c.id,
                    "value": c.value,
                    "unit": c.unit,
                    "min": None if c.threshold.min is UNSET else c.threshold.min,
                    "max": None if c.threshold.max is UNSET else c.threshold.max,
                    "verdict": c.verdict,
                    "reason": c.reason or None,
                    "source": c.source,
                }
                for c in self.checks
            ]
        )


class BookFigures(ApiStruct, kw_only=True, frozen=True):
    """The figures of a combined book, as stat entries (`/analytics/combine` `meta.figures`,
    `/analytics/contribution` `before`, `after` and `change`)."""

    information_ratio: AnalyticsStat
    excess_sharpe: AnalyticsStat
    max_drawdown_pct: AnalyticsStat
    """Percentage points of the peak (25.0 = 25%), as `/metrics` `core.max_drawdown_pct`."""
    annualised_return: AnalyticsStat
    volatility: AnalyticsStat
    turnover: AnalyticsStat | UnsetType = UNSET
    """Combine only: Σ|w_i| τ_i over the alphas' whole-history turnover (an upper bound)."""
    diversification_ratio: AnalyticsStat | UnsetType = UNSET
    """Combine only: Σ|w_i| σ_i / σ of the combined book."""


class ContributionAbsent(ApiStruct, kw_only=True, frozen=True):
    """The reference alphas without a return on any session counted (a history outside the
    window, or no ledger)."""

    count: int
    alphas: list[str]
    """Their ids in the order of `ContributionReference.alphas`; the first 50 when there are more."""


class ContributionReference(ApiStruct, kw_only=True, frozen=True):
    source: str
    """`given` (the `reference` parameter) or `production` (every production alpha the key may read)."""
    alphas: list[str]
    count: int
    """How many reference alphas were named or considered."""
    alpha_excluded: bool
    """Whether the alpha itself was in the set and was left out."""
    members_in_window: int
    """How many have a return on at least one session counted: the figures are over these."""
    without_returns: ContributionAbsent


class ContributionWeight(ApiStruct, kw_only=True, frozen=True):
    value: float
    chosen: str
    """`given` or `optimal` (the weight that maximises the information ratio after)."""


class Contribution(ApiStruct, kw_only=True, frozen=True):
    """What adding the alpha at `weight` does to an equally weighted reference set
    (`/analytics/contribution`), over the sessions on which the alpha and at least one reference
    alpha have a return: on each, the reference book holds the reference alphas with a return that
    session (the book as it grew)."""

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


class DifferenceTest(ApiStruct, kw_only=True, frozen=True):
    """The paired test of a difference (docs/analytics.md, Comparison)."""

    name: str
    """The test, in words: a paired t-test (mean daily return, mean weekly IC) or the Jobson-Korkie
    test with Memmel's correction (information ratio)."""
    statistic: float | None
    p_value: float | None
    """Two-sided."""
    significant: bool | None
    level: float
    withheld_reason: str | UnsetType = UNSET


class ComparedFigure(ApiStruct, kw_only=True, frozen=True):
    """One headline figure of both alphas over their common sessions (or weeks)."""

    alpha: AnalyticsStat
    with_: AnalyticsStat = msgspec.field(name="with")
    difference: float | None
    """alpha - with; null where either side is not measurable."""
    test: DifferenceTest | None
    """Null for volatility, max_drawdown_pct and icir (no test is stated for them)."""


class ComparedFigures(ApiStruct, kw_only=True, frozen=True):
    information_ratio: ComparedFigure
    """Tested by Jobson-Korkie with Memmel's correction."""
    annualised_return: ComparedFigure
    """Tested by a paired t-test on the daily returns."""
    volatility: ComparedFigure
    max_drawdown_pct: ComparedFigure
    """Percentage points of the peak (25.0 = 25%), as `/metrics` `core.max_drawdown_pct`."""
    mean_ic: ComparedFigure
    """Tested by a paired t-test on the weekly IC."""
    icir: ComparedFigure


class CompareEquityRow(ApiStruct, kw_only=True, frozen=True):
    date: dt.date
    cumulative_return_alpha: float | None
    cumulative_return_with: float | None
    difference: float | None


class RollingCorrelationRow(ApiStruct, kw_only=True, frozen=True):
    date: dt.date
    correlation: float | None
    """Null until the trailing window is full, or where a side is constant over it."""


class RollingWindow(ApiStruct, kw_only=True, frozen=True):
    sessions: int
    weeks: int


class Comparison(ApiStruct, kw_only=True, frozen=True):
    """Two alphas side by side over their common sessions (`/analytics/compare`). The series are
    null when the key may not read the data they are built from."""

    alpha: str
    with_: str = msgspec.field(name="with")
    book: str
    window: Window
    rolling_window: RollingWindow
    sessions: int | None
    weeks: int | None
    equity: list[CompareEquityRow] | None
    rolling_return_correlation: list[RollingCorrelationRow] | None
    rolling_ic_correlation: list[RollingCorrelationRow] | None
    return_correlation: AnalyticsStat
    ic_correlation: AnalyticsStat
    figures: ComparedFigures

    def equity_frame(self) -> Any:
        """The two cumulative returns and their difference as a polars DataFrame."""
        import polars as pl

        return pl.DataFrame([msgspec.structs.asdict(row) for row in self.equity or []])
