"""`/analytics/overfitting`: the probability of backtest overfitting of the alpha's trial family
(analytics/overfitting.py; docs/analytics.md "Overfitting")."""

from __future__ import annotations

from typing import Annotated

from schemas import terms
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.figures import figure

FAMILY_RETURNS = "catalogue_index:returns (each member's daily long_short returns)"
MEASURE = "sharpe_per_session"
"""What CSCV ranks the trials by: the Sharpe ratio of their daily long_short returns."""


class LogitBin(Body, kw_only=True, frozen=True):
    """A bin of the logit distribution: the splits whose logit fell in [logit_from, logit_to)."""

    logit_from: Annotated[
        float,
        figure("The bin's lower edge (the first bin takes every logit below it too)", term=terms.LOGIT_FROM),
    ]
    logit_to: Annotated[
        float,
        figure("The bin's upper edge (the last bin takes every logit above it too)", term=terms.LOGIT_TO),
    ]
    splits_in_bin: Annotated[
        int, figure("How many of the combinations' logits fall in the bin.", term=terms.SPLITS_IN_BIN)
    ]


class FamilyMember(Body, kw_only=True, frozen=True):
    """One trial of the family the key may read: its alpha, its seal's parameters and how often the
    cross-validation picked it in sample."""

    alpha_id: Annotated[str, figure("The member's alpha id.")]
    parameters: Annotated[
        dict[str, float | int | str],
        figure(
            "The parameters its seal names (a flat mapping of names to numbers or short texts; empty if none)"
        ),
    ]
    pick_share: Annotated[
        float | None,
        figure(
            "Share of the combinations whose in-sample best trial is this member; null when the figures are "
            "not measurable.",
            "picks / combinations",
            term=terms.PICK_SHARE,
        ),
    ]


class Overfitting(Body, kw_only=True, frozen=True):
    """The probability of backtest overfitting of the alpha's trial family by combinatorially symmetric
    cross-validation, over the family's members the key may read."""

    family: Annotated[
        str | None,
        figure("The trial family the alpha's seal names (null: it names none, and no figure is given)"),
    ]
    measure: Annotated[
        str,
        figure(
            "What the trials are ranked by in and out of sample: sharpe_per_session, the mean over the standard "
            "deviation (ddof 1) of the long_short book's daily returns of the combination's blocks."
        ),
    ]
    family_trials: Annotated[
        int,
        figure(
            "The family's members the key may read whose long_short returns are in the catalogue: the trials N "
            "(the figures need 6)",
            term=terms.FAMILY_TRIALS,
        ),
    ]
    splits: Annotated[
        int,
        figure("S: the blocks of equal length the members' common sessions are cut into.", term=terms.SPLITS),
    ]
    combinations: Annotated[
        int,
        figure(
            "C(S, S/2): the ways of taking half the blocks in sample, each a cross-validation.",
            "C(S, S/2)",
            term=terms.COMBINATIONS,
        ),
    ]
    cscv_sessions: Annotated[
        int,
        figure(
            "Sessions the cross-validation uses: the members' common sessions with a return, the oldest T mod S left "
            "out so that every block holds T // S.",
            "(T // S) * S",
            term=terms.CSCV_SESSIONS,
        ),
    ]
    pbo: Annotated[
        AnalyticsStat,
        figure(
            "Probability of backtest overfitting: the share of the combinations whose in-sample best trial ranks "
            "at or below the median out of sample (logit <= 0)",
            "mean(logit_c <= 0), logit_c = ln(w_c / (1 - w_c)), w_c = rank out of sample of the in-sample best / (N + 1)",
            source=FAMILY_RETURNS,
            term=terms.PBO,
        ),
    ]
    degradation_slope: Annotated[
        AnalyticsStat,
        figure(
            "Performance degradation: the OLS slope of the in-sample best trial's out-of-sample Sharpe ratio on its "
            "in-sample one over the combinations (below 0: the better it looked in sample, the worse it did out of "
            "sample)",
            "cov(SR_out, SR_in) / var(SR_in) over the combinations",
            source=FAMILY_RETURNS,
            term=terms.DEGRADATION_SLOPE,
        ),
    ]
    degradation_intercept: Annotated[
        AnalyticsStat,
        figure(
            "The intercept of that regression (per-session Sharpe ratio)",
            "mean(SR_out) - degradation_slope * mean(SR_in)",
            source=FAMILY_RETURNS,
            term=terms.DEGRADATION_INTERCEPT,
        ),
    ]
    probability_of_loss: Annotated[
        AnalyticsStat,
        figure(
            "Probability of loss out of sample: the share of the combinations whose in-sample best trial has an "
            "out-of-sample Sharpe ratio below 0.",
            "mean(SR_out_c < 0)",
            source=FAMILY_RETURNS,
            term=terms.PROBABILITY_OF_LOSS,
        ),
    ]
    logit_distribution: Annotated[
        list[LogitBin],
        figure(
            "The combinations' logits in 20 equal bins from -4 to 4 (the end bins take what lies beyond); empty "
            "when not measurable."
        ),
    ]
    members: Annotated[
        list[FamilyMember],
        figure(
            "The family's members the key may read, in catalogue order, with their parameters and pick shares."
        ),
    ]


class FamilyMemberRow(Body, kw_only=True, frozen=True):
    """A row of `/v1/families`: one member the key may read of one trial family (by family slug,
    then catalogue order; issue 60: the listing is paged, one answer held 50,000 members)."""

    family: Annotated[str, figure("The family's slug, as its members' seals name it.")]
    alpha_id: Annotated[str, figure("The member's alpha id.")]
    parameters: Annotated[
        dict[str, float | int | str],
        figure(
            "The parameters its seal names (a flat mapping of names to numbers or short texts; empty if none)"
        ),
    ]
