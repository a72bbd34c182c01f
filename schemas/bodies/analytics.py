"""The analytics stat entry, and the significance and costs objects, declared for the contract.

Every analytics figure is one stat entry (`analytics.entries.declared_stat`): `value, unit, status,
[withheld_reason], source, annualisation`, then the keys its figure adds. One `AnalyticsStat`
declares them all, each absent unless its figure has it; their declared order is the order the
server adds them wherever two meet (`min_track_record`: confidence, sr_benchmark, years; `power`: confidence, sr_benchmark, sr_alternative; the tail
figures: confidence, horizon_sessions; combine's turnover: approximation, periods_per_year).
What each field means, its formula, unit, annualisation and source are declared on it (`figure`,
schemas/bodies/figures.py); `ANALYTICS_BLOCK` says how `/analytics/_doc` lists them.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, UnsetType

from schemas import terms
from schemas.bodies.base import Body, meanings
from schemas.bodies.figures import Block, figure
from schemas.terms import Term

STATUS = "`available` or `not_measurable` (then `value` is null and `withheld_reason` says why)."


class DsrTrials(Body, kw_only=True, frozen=True):
    """`dsr.trials` of the significance object."""

    count: int
    count_source: Annotated[
        str,
        Meta(
            description="`catalogue`, or `request` when `trials=` overrode the count (dsr); `family` (dsr_family: the "
            "members of the alpha's trial family the key may read); `clusters` (clustered_dsr: the effective "
            "number of trials)."
        ),
    ]
    sharpe_variance: Annotated[
        float | None,
        Meta(
            description="V, over the Sharpe ratios of the alphas the key may read (null without ledger "
            "access)."
        ),
    ]
    sharpe_variance_unit: Literal["per_session_squared"] = "per_session_squared"
    sharpe_variance_alphas: Annotated[
        int | None,
        Meta(description="How many Sharpe ratios V is over (null without ledger access)."),
    ]
    expected_max_sharpe: float | None
    expected_max_sharpe_unit: Literal["annualised"] = "annualised"
    effective_count: Annotated[
        int | None,
        Meta(
            description="The effective number of trials: the clusters of the trials by the correlation of their "
            "daily returns (null without ledger access, or when the catalogue records no links)."
        ),
    ]
    effective_rank: Annotated[
        float | None,
        Meta(
            description="The effective rank of the trials' correlation matrix (Roy and Vetterli 2007), a "
            "cross-check of effective_count (null without ledger access, when the catalogue records no links, "
            "above 500 readable trials, or for dsr_family)."
        ),
    ] = None


ANALYTICS_STAT_KEYS = ("value", "unit", "status", "withheld_reason", "source", "annualisation")
"""The keys any analytics figure may carry; AnalyticsStat's others belong to particular figures
(each one's description names them; docs/reference.md lists them once, "Figure objects")."""


class AnalyticsStat(Body, kw_only=True, frozen=True):
    """One analytics figure: a value with its unit, or `not_measurable` with a null value and a reason."""

    value: Annotated[float | None, Meta(description="The figure; null when not_measurable")]
    unit: Annotated[str, Meta(description="Unit of value")]
    status: Annotated[str, Meta(description=STATUS)]
    withheld_reason: (
        Annotated[
            str,
            Meta(description="Why the figure is not measurable (present only then)"),
        ]
        | UnsetType
    ) = UNSET
    source: Annotated[str, Meta(description="What the figure is computed from")]
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
            float,
            Meta(
                description="`min_track_record`: the confidence the track record reaches (0.95); `critical_sharpe`, "
                "`power`: the test's confidence, 1 - its level (0.95)."
            ),
        ]
        | UnsetType
    ) = UNSET
    sr_benchmark: (
        Annotated[
            float,
            Meta(
                description="`psr`, `min_track_record`, `critical_sharpe`, `power`: the request's `sr_benchmark` "
                "(annualised)."
            ),
        ]
        | UnsetType
    ) = UNSET
    sr_alternative: (
        Annotated[
            float,
            Meta(
                description="`power`: the true Sharpe ratio the power is at, sr_benchmark + 1 (annualised)."
            ),
        ]
        | UnsetType
    ) = UNSET
    years: Annotated[float | None, Meta(description="`min_track_record` in years.")] | UnsetType = UNSET
    horizon_sessions: (
        Annotated[
            int,
            Meta(description="`risk.var_95`, `risk.cvar_95`: sessions the loss is measured over (1)."),
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
    trial_count: (
        Annotated[
            int,
            Meta(description="`min_backtest_length`: N, the trials it is computed for (`dsr.trials.count`)."),
        ]
        | UnsetType
    ) = UNSET
    lower: (
        Annotated[
            float | None,
            Meta(description="Bootstrap figures: the lower bound of the interval."),
        ]
        | UnsetType
    ) = UNSET
    upper: (
        Annotated[
            float | None,
            Meta(description="Bootstrap figures: the upper bound of the interval."),
        ]
        | UnsetType
    ) = UNSET
    observations: int | UnsetType = UNSET
    block_length: (
        Annotated[float, Meta(description="Bootstrap figures: the mean block length of the resamples.")]
        | UnsetType
    ) = UNSET
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
            str | None,
            Meta(description="`contribution.max_correlation_to_member`: the member it is with."),
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


WINDOW = "the requested window (from/to), else the whole history"
SET_SESSIONS = "over the window's sessions on which every alpha of the set has a long_short return"
"""The sessions a combination of alphas is measured over (`/analytics/combine`)."""
WINDOW_ECHO = "The window echoed: from and to, null when open"
WINDOW_FIELD = figure(WINDOW_ECHO)
"""The `window` echo of every analytics object."""
BOOK_LEDGER = "portfolio:{book}"
"""The `source` of a figure read from the requested book's ledger."""
PER_YEAR = {"periods_per_year": figure("Sessions per year used to annualise", term=terms.PERIODS_PER_YEAR)}
"""The key an annualised figure adds: the sessions per year it was annualised with."""
WEEKS_PER_YEAR = {
    "periods_per_year": figure(
        "Weeks per year used to annualise (the run's weeks_per_year, 52)",
        term=terms.WEEKS_PER_YEAR,
    )
}
"""The key an annualised figure of weekly values (the ICIR) adds: the weeks per year it was annualised with."""
FAMILY_SIZE = figure(
    "The family adjusted over: the published alphas the key may read whose nwt.ic is measurable (this one "
    "included)",
    source="catalogue",
    term=terms.FAMILY_SIZE,
)


def interval(meaning: str, formula: str, annualisation: str, source: str, *, term: Term) -> Meta:
    """A bootstrapped figure: the statistic, with its interval's bounds."""
    return figure(
        meaning,
        formula,
        source=source,
        keys={
            "lower": figure("Lower bound: the 2.5% quantile of the resampled statistic", term=terms.LOWER),
            "upper": figure("Upper bound: the 97.5% quantile of the resampled statistic", term=terms.UPPER),
            "observations": figure("Observations of the series in the window", term=terms.OBSERVATIONS),
            "block_length": figure(
                "Mean block length of the resamples (block_length_rule)", term=terms.BLOCK_LENGTH
            ),
        },
        term=term,
    )


ANALYTICS_STAT_KEYS = (
    "value",
    "unit",
    "status",
    "source",
    "annualisation",
    "withheld_reason",
)
"""The keys `/analytics/_doc` documents under every figure."""
_STAT_MEANINGS = meanings(AnalyticsStat)


def _stat_entries(path: str, entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A figure's standard keys: `value` carries the figure's formula, unit, annualisation and
    source; the others mean what `AnalyticsStat` says of them."""
    plain = {key: None for key in entry} | {
        "annualisation": "not_annualisable",
        "source": "computed",
    }
    out = {f"{path}.{key}": {**plain, "meaning": _STAT_MEANINGS[key]} for key in ANALYTICS_STAT_KEYS}
    out[f"{path}.value"] = {**entry, "meaning": _STAT_MEANINGS["value"]}
    return out


ANALYTICS_BLOCK = Block(
    keys=("meaning", "formula", "unit", "annualisation", "source"),
    defaults={"annualisation": "not_annualisable", "source": "computed"},
    inherited=frozenset(),
    stat=_stat_entries,
    stat_type=AnalyticsStat,
)
"""How `/analytics/_doc` writes an entry of a body or a row read from its declaration (its horizon
and granularity are the route's, added by serve/doc_blocks/analytics_doc.py)."""
