"""The demo corpus: which alphas the engine runs and which seal state each one exercises.

Every state docs/seal.md and the API spec name is carried by at least one alpha here (pending
week, skip weeks, each unavailability reason, thin weeks, no or partial description, missing
required kinds, no cross-sections, a stored IC that does not reproduce, each archive state).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from alpha_results_seal.arrow_schemas import ALL_KINDS, BOOK_KINDS

WITHOUT_EXPOSURES = tuple(k for k in ALL_KINDS if k != "exposures")
"""Every kind but the optional `exposures`: what a complete run must seal (`required_kinds`), and
what an engine without a risk model seals (value_composite_legacy, so the figures that need
exposures are shown not measurable on a production alpha too)."""

ArchiveState = str  # "ready", "packaging", "failed", "delivered_absent" or "none"
DescriptionState = str  # "full", "partial" or "none"


@dataclass(frozen=True)
class AlphaSpec:
    alpha_id: str
    source_alpha_id: str
    name: str
    tldr: str | None
    signal: str  # key of alpha_results_seal.demo.signals.SIGNALS
    half_life_weeks: float
    universe_full: int
    universe_small: int
    started_at: str  # ISO; each alpha differs, the catalogue orders on it
    # Share of the market's published weeks skipped before this alpha's first decision.
    first_week_share: float = 0.0
    # Positions (as shares of this alpha's weeks) where the input snapshot was flat.
    flat_week_shares: tuple[float, ...] = ()
    # "all", "random", or "outage" (mostly names of the feed that had an outage).
    universe_pick: str = "random"
    description: DescriptionState = "full"
    archive: ArchiveState = "ready"
    kinds_sealed: tuple[str, ...] = ALL_KINDS
    required_kinds: tuple[str, ...] = WITHOUT_EXPOSURES
    icir_annualised: bool = True
    legacy_ic: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)
    # Where the research stopped looking, as a share of the published sessions: the manifest's
    # `research_cutoff` (None: not sealed), so the demo has an out-of-sample part to show.
    research_cutoff_share: float | None = None
    # A variant of a trial family (the manifest's `family` and `parameters`): its measurement noise
    # added to the raw signal, per unit of the signal's own (FAMILIES).
    family: str | None = None
    parameters: tuple[tuple[str, float | int | str], ...] = ()
    extra_noise: float = 0.0
    # From this share of its weeks on, the signal turns against the book (its raw scores negated: a
    # crowded factor whose payoff reversed): an alpha whose live track decays (`demo/history.py`).
    reverses_after_share: float | None = None
    # The run asks for review (the manifest's `nominate`, with this note): the demo's history puts it
    # in the review queue (None: it does not ask).
    nomination_note: str | None = None

    def universe_size(self, size: str) -> int:
        return self.universe_full if size == "full" else self.universe_small


ALPHAS: tuple[AlphaSpec, ...] = (
    AlphaSpec(
        alpha_id="momentum_12_1",
        source_alpha_id="mom-12-1-r7",
        name="Cross-sectional momentum 12-1",
        tldr="Stocks that outperformed over the past year, skipping the last month, keep outperforming.",
        signal="momentum_12_1",
        half_life_weeks=4,
        universe_full=500,
        universe_small=60,
        started_at="2026-08-20T06:00:00+00:00",
        flat_week_shares=(0.7,),
        universe_pick="all",
        tags=("momentum", "cross_sectional", "price"),
        research_cutoff_share=0.8,
        nomination_note="12-1 momentum: research complete, ready for the committee",
    ),
    AlphaSpec(
        alpha_id="Test_planted_factor",
        source_alpha_id="planted-latent-v2",
        name="Planted latent factor (test)",
        tldr="A persistent per-name characteristic predicts next-week returns; a sanity check for the stack.",
        signal="planted_factor",
        half_life_weeks=4,
        universe_full=200,
        universe_small=40,
        started_at="2026-08-19T09:15:00+00:00",
        tags=("synthetic", "calibration"),
        research_cutoff_share=0.7,
    ),
    AlphaSpec(
        alpha_id="Test_short_term_reversal",
        source_alpha_id="str-1w-r3",
        name="Short-term reversal, one week",
        tldr="Last week's losers bounce back and last week's winners give back part of their gain.",
        signal="short_term_reversal",
        half_life_weeks=1,
        universe_full=500,
        universe_small=30,
        started_at="2026-08-18T14:30:00+00:00",
        first_week_share=0.49,
        description="partial",
        archive="packaging",
        tags=("reversal", "liquidity_provision"),
        nomination_note="one-week reversal as a liquidity provider: please review",
    ),
    AlphaSpec(
        alpha_id="Test_small_universe",
        source_alpha_id="small-univ-mom-r1",
        name="Momentum on a thin universe",
        tldr=None,
        signal="momentum_12_1",
        half_life_weeks=4,
        universe_full=40,
        universe_small=30,
        started_at="2026-08-17T11:00:00+00:00",
        universe_pick="outage",
        description="none",
        archive="failed",
        flat_week_shares=(0.8,),
    ),
    AlphaSpec(
        alpha_id="Test_low_vol_incomplete",
        source_alpha_id="lowvol-60d-r2",
        name="Low volatility (run interrupted)",
        tldr="Low-volatility names earn more per unit of risk than high-volatility names.",
        signal="low_volatility",
        half_life_weeks=6,
        universe_full=120,
        universe_small=30,
        started_at="2026-08-16T08:45:00+00:00",
        kinds_sealed=("rebalances", "decisions", "metrics", "portfolio", "positions"),
        archive="none",
        tags=("low_risk", "defensive"),
    ),
    AlphaSpec(
        alpha_id="Test_ledger_only",
        source_alpha_id="blend-ledger-r1",
        name="Momentum and reversal blend (ledger only)",
        tldr="An equal blend of 12-1 momentum and one-week reversal, sealed without cross-sections.",
        signal="momentum_reversal_blend",
        half_life_weeks=3,
        universe_full=100,
        universe_small=30,
        started_at="2026-08-15T16:20:00+00:00",
        kinds_sealed=("metrics", *BOOK_KINDS),
        required_kinds=("metrics", *BOOK_KINDS),
        tags=("blend", "momentum", "reversal"),
    ),
    AlphaSpec(
        alpha_id="value_composite_legacy",
        source_alpha_id="VALCOMP-2019-legacy",
        name="Value composite (legacy engine)",
        tldr="Cheap stocks on a composite of accounting ratios outperform expensive ones over time.",
        signal="value_composite",
        half_life_weeks=8,
        universe_full=250,
        universe_small=40,
        started_at="2026-08-14T07:00:00+00:00",
        archive="delivered_absent",
        kinds_sealed=WITHOUT_EXPOSURES,
        icir_annualised=False,
        legacy_ic=True,
        tags=("value", "fundamental"),
        research_cutoff_share=0.6,
        reverses_after_share=0.62,
    ),
)

ALPHA_IDS = tuple(a.alpha_id for a in ALPHAS)

FAMILY_VARIANTS = 16
"""Parameter variants per demo trial family: enough for the probability of backtest overfitting
(analytics/overfitting.py needs 6) and for its 16 splits."""


def _family(family: str, prefix: str, signal: str, name: str, tldr: str, day: int) -> tuple[AlphaSpec, ...]:
    """FAMILY_VARIANTS variants of one signal, ledger only on a small universe (a few seconds of
    the demo's build each). The planted family's variants observe the latent characteristic through
    more noise, variant after variant (0 to 3 times the signal's own spread), so their true Sharpe
    ratios are ordered; the noise family's variants are independent random scores (`noise_draw`).
    Every variant trades the family's one universe and smooths over 4 weeks."""
    specs = []
    for i in range(FAMILY_VARIANTS):
        parameters: tuple[tuple[str, float | int | str], ...]
        if signal == "momentum_12_1":
            # Near-duplicates: one deterministic signal smoothed over half-lives 0.1 week apart, so
            # every pair of variants correlates above the 0.9 link (analytics/trial_clusters.py)
            extra, half_life = 0.0, round(4.0 + 0.1 * i, 4)
            parameters = (("half_life_weeks", half_life),)
        elif signal == "planted_factor":
            extra = round(3.0 * i / (FAMILY_VARIANTS - 1), 4)
            half_life = 4.0
            parameters = (
                ("measurement_noise", extra),
                ("half_life_weeks", half_life),
            )
        else:
            extra, half_life = 0.0, 4.0
            parameters = (("noise_draw", i + 1), ("half_life_weeks", half_life))
        specs.append(
            AlphaSpec(
                alpha_id=f"{prefix}_{i + 1:02d}",
                source_alpha_id=f"{family}-v{i + 1}",
                name=f"{name}, variant {i + 1}",
                tldr=tldr,
                signal=signal,
                half_life_weeks=half_life,
                universe_full=120,
                universe_small=60,
                started_at=f"2026-08-{day:02d}T{i // 4 + 6:02d}:{(i % 4) * 15:02d}:00+00:00",
                description="none",
                archive="none",
                kinds_sealed=("metrics", *BOOK_KINDS),
                required_kinds=("metrics", *BOOK_KINDS),
                family=family,
                parameters=parameters,
                extra_noise=extra,
            )
        )
    return tuple(specs)


FAMILIES: tuple[AlphaSpec, ...] = (
    *_family(
        "planted_latent",
        "Test_family_planted",
        "planted_factor",
        "Planted latent factor",
        "The planted characteristic observed through more measurement noise, variant after variant.",
        12,
    ),
    *_family(
        "pure_noise",
        "Test_family_noise",
        "pure_noise",
        "Pure noise",
        "Random scores with no relation to returns: a family whose best backtest is luck.",
        11,
    ),
    *_family(
        "momentum_half_life",
        "Test_family_near",
        "momentum_12_1",
        "Momentum 12-1, smoothing variants",
        "One momentum signal smoothed over half-lives a tenth of a week apart: near-duplicate trials.",
        10,
    ),
)
"""Three trial families of FAMILY_VARIANTS variants over the same market (issue 50): one on the
planted signal, one on noise, so the probability of backtest overfitting has a known answer on each
(low, high), and one of near-duplicates (issue 62, last so the others' random streams are as they
were: one momentum signal smoothed over half-lives 0.1 week apart, whose daily returns correlate
above the 0.9 link, so the effective number of trials is below N). In the full demo corpus only
(`write_corpus(families=True)`): 48 alphas more in every catalogue-wide answer of the small demo
lake the test suite reads would change them all."""

FAMILY_IDS = tuple(a.alpha_id for a in FAMILIES)


def alpha_spec(alpha_id: str) -> AlphaSpec:
    for spec in (*ALPHAS, *FAMILIES):
        if spec.alpha_id == alpha_id:
            return spec
    raise KeyError(f"unknown demo alpha {alpha_id!r}; known: {', '.join((*ALPHA_IDS, *FAMILY_IDS))}")
