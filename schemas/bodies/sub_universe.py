"""`/analytics/sub_universe`: is the signal robust to where it trades? The weekly IC and ICIR on the
liquid and the illiquid half of each week's names by the sealed average daily volume, and on random
halves, against the full cross-section's, with WorldQuant's sub-universe test (issue 62 item 6;
docs/analytics.md "Sub-universe test")."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, UnsetType

from schemas import terms
from schemas.bodies.analytics import WINDOW_FIELD
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure

RATIO = 0.75
"""WorldQuant's sub-universe test: a part passes when its ICIR >= RATIO x sqrt(n_sub / n) x the
full cross-section's ICIR."""
DRAWS = 50
"""Random halves drawn per week."""
SEED = 20261122
"""The seed of the random halves, with each week's day number (numpy default_rng([SEED, day])): the
service's one seed, `analytics.bootstrap.SEED` (a test holds them equal; schemas/ does not import
analytics/)."""
SPLIT = (
    "per rebalance week, over the names with a finite score and a finite forward return: liquid when the "
    "name's sealed adv (exposures.adv) is at or above the week's median adv over those names with a finite, "
    "positive adv, illiquid when below it; a name without such an adv is in neither half (without_adv_mean_names "
    f"counts them). Each random half is ceil(n/2) of the week's n names (with or without an adv), {DRAWS} draws a "
    f"week from numpy default_rng([{SEED}, days since 1970 of the week])"
)
SOURCE = "decisions:score, forward_return; exposures:adv"
FULL_SOURCE = "signals:weekly_signal.ic"
TEST = "ICIR_sub >= 0.75 x sqrt(n_sub / n) x ICIR_full, n the mean names per week with a measurable IC"
ICIR = (
    "mean_t IC_t / std_t(IC_t, ddof=1) x sqrt(weeks_per_year), over the window's weeks with a measurable IC"
)


class SubUniverseHalf(Body, kw_only=True, frozen=True):
    """One half of each week's names by adv."""

    half: Annotated[
        Literal["liquid", "illiquid"], figure("Which half: adv at or above the week's median, or below")
    ]
    weeks: Annotated[
        int, figure("Weeks of the window with a measurable IC on the half", source=SOURCE, term=terms.WEEKS)
    ]
    half_mean_names: Annotated[
        float | None,
        figure(
            "Mean names of the half over those weeks; null without a week",
            source=SOURCE,
            term=terms.HALF_MEAN_NAMES,
        ),
    ]
    half_mean_ic: Annotated[
        float | None,
        figure(
            "Mean over those weeks of the half's weekly rank IC (the weekly IC's rule on the half's names)",
            "mean_t Spearman(score, forward_return | half, week t)",
            source=SOURCE,
            term=terms.HALF_MEAN_IC,
        ),
    ]
    half_icir: Annotated[
        float | None, figure("ICIR of the half's weekly IC", ICIR, source=SOURCE, term=terms.HALF_ICIR)
    ]
    required_icir: Annotated[
        float | None,
        figure(
            "The ICIR the half must reach to pass; null unless universe_icir is positive",
            "0.75 x sqrt(half_mean_names / universe_mean_names) x universe_icir",
            term=terms.REQUIRED_ICIR,
        ),
    ]
    sub_universe: Annotated[
        float | None,
        figure(
            "The half's ICIR over the full one scaled by sqrt(n_sub / n): passes at 0.75 or more (the checks "
            "battery's sub_universe is the liquid half's); null unless universe_icir is positive and half_icir "
            "measurable",
            "half_icir / (sqrt(half_mean_names / universe_mean_names) x universe_icir)",
            term=terms.SUB_UNIVERSE,
        ),
    ]
    passes: Annotated[
        bool | None,
        figure(f"Whether the half passes the sub-universe test ({TEST}); null when not measurable"),
    ]


class RandomHalves(Body, kw_only=True, frozen=True):
    """The random halves: each draw's mean IC and ICIR over the window, summarised over draws."""

    draws: Annotated[
        int, figure("Random halves drawn per week (draw r of every week is one series)", term=terms.DRAWS)
    ]
    seed: Annotated[int, figure("The seed, with each week's day number")]
    random_mean_ic: Annotated[
        float | None,
        figure("Mean over draws of each draw's mean weekly IC", source=SOURCE, term=terms.RANDOM_MEAN_IC),
    ]
    random_mean_ic_p05: Annotated[
        float | None,
        figure(
            "5th percentile over draws of each draw's mean weekly IC (numpy linear)",
            source=SOURCE,
            term=terms.RANDOM_MEAN_IC_P05,
        ),
    ]
    random_mean_ic_p95: Annotated[
        float | None,
        figure(
            "95th percentile over draws of each draw's mean weekly IC (numpy linear)",
            source=SOURCE,
            term=terms.RANDOM_MEAN_IC_P95,
        ),
    ]
    random_icir: Annotated[
        float | None,
        figure("Mean over draws of each draw's ICIR", ICIR, source=SOURCE, term=terms.RANDOM_ICIR),
    ]
    random_icir_p05: Annotated[
        float | None,
        figure("5th percentile over draws of each draw's ICIR", source=SOURCE, term=terms.RANDOM_ICIR_P05),
    ]
    random_icir_p95: Annotated[
        float | None,
        figure("95th percentile over draws of each draw's ICIR", source=SOURCE, term=terms.RANDOM_ICIR_P95),
    ]
    random_pass_share: Annotated[
        float | None,
        figure(
            f"Share of the draws that pass the sub-universe test ({TEST}); null unless universe_icir is positive",
            term=terms.RANDOM_PASS_SHARE,
        ),
    ]


class SubUniverse(Body, kw_only=True, frozen=True):
    """The IC on the liquid, illiquid and random halves of the cross-section (`/analytics/sub_universe`)."""

    alpha: Annotated[str, figure("The alpha served")]
    score_field: Annotated[Literal["score"], figure("The score ranked: the conditioned score")]
    split: Annotated[str, figure("How a week's names are split")]
    pass_ratio: Annotated[float, figure("The test's ratio (WorldQuant's 0.75)", term=terms.PASS_RATIO)]
    window: Annotated[Window, WINDOW_FIELD]
    status: Annotated[
        Literal["available", "not_measurable"],
        figure("available, or not_measurable (then the figures are null and withheld_reason says why)"),
    ]
    withheld_reason: (
        Annotated[
            str,
            figure(
                "Why the figures are not measurable (present only then): missing_kind (the run sealed no "
                "exposures or no decisions), or access_limited (the key may not read the rebalance cross-sections)"
            ),
        ]
        | UnsetType
    ) = UNSET
    weeks: Annotated[
        int | None,
        figure(
            "Weeks of the window with a measurable full IC; null when not measurable",
            source=FULL_SOURCE,
            term=terms.WEEKS,
        ),
    ]
    universe_mean_names: Annotated[
        float | None,
        figure(
            "Mean names per week of the full IC (n_ic_obs) over those weeks",
            source=FULL_SOURCE,
            term=terms.UNIVERSE_MEAN_NAMES,
        ),
    ]
    universe_mean_ic: Annotated[
        float | None,
        figure(
            "Mean weekly IC of the full cross-section over the window (weekly_signal.ic)",
            source=FULL_SOURCE,
            term=terms.UNIVERSE_MEAN_IC,
        ),
    ]
    universe_icir: Annotated[
        float | None,
        figure(
            "ICIR of the full cross-section's weekly IC", ICIR, source=FULL_SOURCE, term=terms.UNIVERSE_ICIR
        ),
    ]
    without_adv_mean_names: Annotated[
        float | None,
        figure(
            "Mean names per week with a score and a forward return but no adv: in neither half",
            source=SOURCE,
            term=terms.WITHOUT_ADV_MEAN_NAMES,
        ),
    ]
    halves: Annotated[list[SubUniverseHalf] | None, figure("The liquid half, then the illiquid half")]
    random: Annotated[RandomHalves | None, figure("The random halves")]
    passes: Annotated[
        bool | None, figure("Whether the liquid half passes the sub-universe test; null when not measurable")
    ]
