"""`/analytics/mmc` (an alpha's contribution to the approved alphas' combined scores, as Numerai's
meta-model contribution) and `/analytics/crowding` (overlap and shared factor loadings of the
approved books), declared for the contract (docs/analytics.md, "Meta-model contribution and
crowding"; the computation: `analytics.mmc`)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from schemas import terms
from schemas.bodies.analytics import WINDOW_FIELD, AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure

MMC_METHOD = (
    "Numerai's MMC (numerai-tools' correlation_contribution, no top_bottom) with this service's meta-model and "
    "target. Each week (a decision date in the window), every approved alpha the key may read (the alpha itself "
    "excluded) has its decisions.score rank-gaussianised over the names it scored (Phi^-1((rank - 0.5) / n), "
    "average ranks); the combined score of a name (the meta-model) is the mean of those of the approved alphas "
    "that scored it (equal weights). Over the names the alpha scored that the combined score holds with a finite "
    "decisions.forward_return (the target), the alpha's score and the combined score are each rank-gaussianised "
    "again over those names alone; the alpha's is orthogonalised to the combined one (p - m (p.m) / (m.m), no "
    "intercept), and the week's mmc is the covariance of that neutral score with the forward return, the mean "
    "of (r - mean r) times it: in the forward return's units (not bounded by 1), at least 3 names and the "
    "combined score not constant over them. The forward return is taken as it is (numerai-tools' x4 rescale of "
    "an all-[0, 1] target, its own targets' encoding, is not applied)"
)
OVERLAP_RULE = (
    "each book's long_short target weights at the decision date, normalised to unit gross (|w| / sum |w|); "
    "two books' weight overlap is sum over names of min(|w_i|, |w_j|) (0: no name in common, 1: the same "
    "weights up to sign) and their name Jaccard |held_i & held_j| / |held_i | held_j| (held: a non-zero "
    "weight); a week's figure is the mean over the pairs of books holding names that week"
)
SCORES = "decisions.score and decisions.forward_return of the alpha, decisions.score of the approved alphas"
WEIGHTS = "decisions.long_short_target_weight of the books compared"
APPROVED_SCOPE = "only approved alphas the key may read are counted or named"


class ApprovedSet(Body, kw_only=True, frozen=True):
    """The approved alphas a figure is computed over."""

    alphas: Annotated[
        list[str], figure("The approved alphas the key may read that the figures are over, by id")
    ]
    approved_count: Annotated[
        int,
        figure(
            "How many approved alphas the figures are over (" + APPROVED_SCOPE + ")",
            term=terms.APPROVED_COUNT,
        ),
    ]
    alpha_excluded: Annotated[
        bool,
        figure(
            "Whether the alpha is approved itself and so left out of the combined scores and books it is compared with"
        ),
    ]


class MmcWeek(Body, kw_only=True, frozen=True):
    """One week of `weekly`: a decision date with an mmc."""

    date: Annotated[dt.date, figure("The decision date")]
    mmc: Annotated[float, figure("The week's meta-model contribution: " + MMC_METHOD, term=terms.MMC)]
    mmc_names: Annotated[
        int,
        figure(
            "Names of the week's mmc: scored by the alpha and an approved alpha, with a forward return",
            term=terms.MMC_NAMES,
        ),
    ]
    approved_scoring: Annotated[
        int, figure("Most approved alphas scoring one of those names", term=terms.APPROVED_SCORING)
    ]
    correlation_to_combined: Annotated[
        float | None,
        figure(
            "Pearson correlation of the alpha's gaussianised score with the combined score over the same names; "
            "null when either is constant",
            term=terms.CORRELATION_TO_COMBINED,
        ),
    ]


class OverlapWeek(Body, kw_only=True, frozen=True):
    """One week of an overlap series: a decision date with at least one pair of books."""

    date: Annotated[dt.date, figure("The decision date")]
    weight_overlap: Annotated[
        float, figure("Mean weight overlap of the pairs of books: " + OVERLAP_RULE, term=terms.WEIGHT_OVERLAP)
    ]
    name_jaccard: Annotated[
        float,
        figure(
            "Mean Jaccard of the held names of the pairs of books: " + OVERLAP_RULE, term=terms.NAME_JACCARD
        ),
    ]
    book_pairs: Annotated[int, figure("Pairs of books holding names that week", term=terms.BOOK_PAIRS)]
    approved_books: Annotated[
        int,
        figure(
            "Books in the week's pairs (on an alpha's page: the alpha and the approved books it overlaps)",
            term=terms.APPROVED_BOOKS,
        ),
    ]


class Mmc(Body, kw_only=True, frozen=True):
    """What an alpha's scores add to the approved alphas' combined scores (`/analytics/mmc`)."""

    alpha: Annotated[str, figure("The alpha")]
    window: Annotated[Window, WINDOW_FIELD]
    method: Annotated[str, figure("How the weekly mmc is computed")]
    approved: Annotated[ApprovedSet, figure("The approved alphas combined (" + APPROVED_SCOPE + ")")]
    mmc_weeks: Annotated[int, figure("Weeks of the window with an mmc", term=terms.MMC_WEEKS)]
    mmc_mean: Annotated[
        AnalyticsStat,
        figure(
            "Mean of the weekly mmc (Numerai's MMC: a covariance with the forward return, in its units) over the "
            "weeks with one; not measurable without an approved alpha or a week",
            "mean(mmc_t)",
            source=SCORES,
            term=terms.MMC_MEAN,
        ),
    ]
    mmc_t_stat: Annotated[
        AnalyticsStat,
        figure(
            "t-statistic of the mean weekly mmc (weeks taken as independent: no autocorrelation correction)",
            "mean(mmc_t) / (std(mmc_t, ddof=1) / sqrt(n))",
            source=SCORES,
            term=terms.MMC_T_STAT,
        ),
    ]
    correlation_to_combined_mean: Annotated[
        AnalyticsStat,
        figure(
            "Mean over the weeks with an mmc of the weekly correlation of the alpha's score with the combined score",
            source=SCORES,
            term=terms.CORRELATION_TO_COMBINED_MEAN,
        ),
    ]
    weight_overlap_with_approved: Annotated[
        AnalyticsStat,
        figure(
            "Mean over weeks of the alpha's long_short book's mean weight overlap with the approved books: "
            + OVERLAP_RULE,
            "mean_t mean_j sum_s min(|w_alpha,s|, |w_j,s|)",
            source=WEIGHTS,
            term=terms.WEIGHT_OVERLAP_WITH_APPROVED,
        ),
    ]
    weekly: Annotated[list[MmcWeek], figure("Each week with an mmc, in date order")]
    overlap_weekly: Annotated[
        list[OverlapWeek],
        figure(
            "Each week's overlap of the alpha's book with the approved books (pairs: the alpha with each)"
        ),
    ]


class SharedFactor(Body, kw_only=True, frozen=True):
    """One factor of `factors`: the approved books' shared loading on it."""

    factor: Annotated[str, figure("The factor (a sector or a style of the seal's loadings)")]
    combined_exposure: Annotated[
        float,
        figure(
            "Mean over weeks of the approved books' mean exposure to the factor: the exposure of their equally "
            "weighted combination (analytics_factor_exposures of long_short)",
            term=terms.COMBINED_EXPOSURE,
        ),
    ]
    exposure_dispersion: Annotated[
        float,
        figure(
            "Mean over weeks of the cross-book standard deviation (ddof=0) of the exposures: low is shared",
            term=terms.EXPOSURE_DISPERSION,
        ),
    ]
    factor_weeks: Annotated[
        int, figure("Weeks with at least two approved books exposed", term=terms.FACTOR_WEEKS)
    ]


class Crowding(Body, kw_only=True, frozen=True):
    """Crowding inside the catalogue: how alike the approved books are (`/analytics/crowding`)."""

    window: Annotated[Window, WINDOW_FIELD]
    approved: Annotated[ApprovedSet, figure("The approved books compared (" + APPROVED_SCOPE + ")")]
    overlap_weeks: Annotated[
        int, figure("Weeks of the window with at least one pair of books", term=terms.OVERLAP_WEEKS)
    ]
    weight_overlap_mean: Annotated[
        AnalyticsStat,
        figure(
            "Mean over weeks of the approved books' mean pairwise weight overlap: " + OVERLAP_RULE,
            source=WEIGHTS,
            term=terms.WEIGHT_OVERLAP_MEAN,
        ),
    ]
    name_jaccard_mean: Annotated[
        AnalyticsStat,
        figure(
            "Mean over weeks of the approved books' mean pairwise Jaccard of held names: " + OVERLAP_RULE,
            source=WEIGHTS,
            term=terms.NAME_JACCARD_MEAN,
        ),
    ]
    weekly: Annotated[list[OverlapWeek], figure("Each week with a pair of books, in date order")]
    factors: Annotated[list[SharedFactor], figure("The shared loadings of the approved books, by factor")]
