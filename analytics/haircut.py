"""Haircut Sharpe ratios: the Sharpe ratio that a p-value adjusted for multiple testing implies
(Harvey and Liu 2015, "Backtesting", Journal of Portfolio Management 42(1); the simulated
distribution of the other tests from Harvey, Liu and Zhu 2016, "... and the Cross-Section of
Expected Returns", Review of Financial Studies 29(1)). Issue 62, item 3.

The method, as the authors' code and mlfinlab's `CampbellBacktesting.haircut_sharpe_ratios`
implement it (the independent reference: tests/analytics/haircut_reference.py):

1. The annualised Sharpe ratio SR, adjusted for the serial correlation rho_a of the returns at
   their frequency (Lo 2002): SR = SR_period sqrt(q) (1 + 2 rho_a / (1 - rho_a) (1 - (1 - rho_a^q)
   / (q (1 - rho_a))))^(-1/2), q the periods per year.
2. Its t-ratio over T months of observations (T = floor(periods 12 / q)): t = SR / sqrt(12)
   sqrt(T); its p-value p = 2 (1 - F_{T-1}(t)), F Student's t with T - 1 degrees of freedom.
3. The other M tests simulated: with probability p0 a strategy's mean is 0, else exponential with
   mean lambda (HLZ's fitted p0 and lambda, interpolated linearly in the average correlation rho
   between the strategies' returns); its t-statistic |mu / s + Z|, s = 15% / sqrt(12) / sqrt(240)
   the standard error of HLZ's monthly mean, Z standard normals equicorrelated at rho. Their
   p-values 2 (1 - Phi(t)).
4. In each simulation the alpha's p joins the M simulated ones (m = M + 1 tests) and is adjusted
   by Holm (max over j <= k of min(1, (m - j + 1) p_(j))) and BHY (Benjamini, Hochberg and
   Yekutieli: from the largest down, min((m c / i) p_(i), the next one's), the largest kept as it
   is, c = sum_{i=1}^{M} 1 / i); the adjusted p-value is the median over the simulations.
   Bonferroni is min(M p, 1), not simulated; the average is the mean of the three. Beside each
   simulated median its Monte Carlo standard error (Maritz and Jarrett's, of a median: issue 81
   asks one beside every simulated p-value); the average's is (Holm's + BHY's) / 3, a bound.
5. Each adjusted p-value p* back to a Sharpe ratio: SR* = F^-1_{T-1}(1 - p* / 2) / sqrt(T)
   sqrt(12); the haircut is (SR - SR*) / SR.

Where this differs from the reference in arithmetic, never in distribution: the equicorrelated
normals are drawn as sqrt(rho) Z_0 + sqrt(1 - rho) Z_i (the reference draws HLZ's 1,477 columns
from a multivariate normal and keeps M of them), from numpy's PCG64 seeded with SEED (the same
request, the same answer), and each simulation's Holm and BHY values at the alpha's place come
from prefix maxima and suffix minima of the sorted simulated p-values, computed once per (M, rho)
and kept (`_panel`): a request then costs one count per simulation of the simulated p-values below
its p (and the same p again nothing: `simulated_adjustments` is memoised). p-values use the
normal's survival function (2 Phi(-t), not 2 (1 - Phi(t)), which rounds to 0 beyond t = 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from analytics import bootstrap

SIMULATIONS = 20_000
"""Simulations of the other tests while SIMULATIONS x M stays within PANEL_BUDGET; beyond,
PANEL_BUDGET // M, at least MIN_SIMULATIONS. Ten times the reference's 2,000: the median of Holm
and BHY moves in steps (the alpha's rank among the simulated p-values is an integer), and at the
reference's known answer (SR 1, 120 months, M = 100, rho 0.4) the share of simulations at or below
the median's rank is 0.508, so 2,000 simulations land Holm one rank either side by the seed alone
(0.409 or 0.405); 20,000 keep it on the rank the limit has (BHY, not a function of the rank alone,
still moves about 0.006 with the seed around its limit 0.170)."""
PANEL_BUDGET = 2_000_000
"""Simulated p-values kept per (M, rho): three float64 arrays of this many values (48 MB) at most,
and at most PANELS such panels."""
PANELS = 4
ADJUSTMENTS_KEPT = 4096
"""(Holm, BHY) and their Monte Carlo errors kept per (p, M, rho, simulations, seed)
(`simulated_adjustments`: four floats an entry, under 1 MB in all): the same window's haircut again
costs no pass over the panel."""
MIN_SIMULATIONS = 200
MAX_SIMULATED_TESTS = PANEL_BUDGET // MIN_SIMULATIONS
"""The most tests (M) whose p-values are simulated: beyond, MIN_SIMULATIONS of them would exceed
PANEL_BUDGET (at 10^5 trials a panel was 2 x 10^7 values, seconds of CPU and about 500 MB a panel),
so Holm, BHY and their average are not measurable there and Bonferroni (exact: M p) alone is
served. What a request costs then does not grow with the catalogue."""
SEED = bootstrap.SEED
"""Seed of numpy's PCG64 generator: the project's one seed (the bootstraps', drawdown_odds'), so
`seed` means one value on every answer."""
DEFAULT_CORRELATION = 0.2
"""rho, the average correlation between the tests' returns: HLZ's preferred level, the one the
reference falls back to (and the paper's base case). Estimating it from the visible trials' returns
would read every readable alpha's ledger per request; fixed, the simulated panel is computed once."""
MONTHS_PER_YEAR = 12
HLZ_ANNUAL_VOLATILITY = 0.15
HLZ_MONTHS = 240
HLZ_LEVELS = (
    # rho, HLZ's trials, p0 (probability of a zero mean), lambda (mean of a true strategy's monthly mean)
    (0.0, 1295.0, 0.39660, 0.0054995),
    (0.2, 1377.0, 0.44589, 0.0055508),
    (0.4, 1476.0, 0.48604, 0.0055413),
    (0.6, 1773.0, 0.59902, 0.0055512),
    (0.8, 3109.0, 0.83901, 0.0055956),
)
"""Harvey, Liu and Zhu's (2016) fitted model at five levels of rho (the reference's table)."""
METHODS = ("bonferroni", "holm", "bhy", "average")


def hlz_parameters(rho: float) -> tuple[float, float, float, float]:
    """(rho, trials, p0, lambda) interpolated linearly between HLZ's levels as the reference does
    (from 0.8 up to 1 along the 0.6-0.8 segment); outside [0, 1) the 0.2 level."""
    levels = np.array(HLZ_LEVELS)
    if not 0.0 <= rho < 1.0:
        return tuple(float(v) for v in levels[1])  # type: ignore[return-value]
    low = min(int(rho / 0.2), 3)
    w = (rho - 0.2 * low) / 0.2
    out = (1.0 - w) * levels[low] + w * levels[low + 1]
    return tuple(float(v) for v in out)  # type: ignore[return-value]


def lo_multiplier(rho_a: float, periods_per_year: int) -> float:
    """Lo's (2002) factor annualising a Sharpe ratio of AR(1) returns: (1 + 2 rho / (1 - rho) (1 -
    (1 - rho^q) / (q (1 - rho))))^(-1/2); 1 at rho = 0."""
    q = periods_per_year
    if rho_a == 0.0:
        return 1.0
    return float(
        (1.0 + (2.0 * rho_a / (1.0 - rho_a)) * (1.0 - (1.0 - rho_a**q) / (q * (1.0 - rho_a)))) ** -0.5
    )


def months(periods: int, periods_per_year: int) -> int:
    """Monthly observations of `periods` observations at `periods_per_year`: floor(periods 12 / q)."""
    return int(math.floor(periods * MONTHS_PER_YEAR / periods_per_year))


def t_ratio(annual_sharpe: float, observed_months: int) -> float:
    """The Sharpe ratio's t-ratio: SR / sqrt(12) sqrt(T) (T months)."""
    return annual_sharpe / math.sqrt(MONTHS_PER_YEAR) * math.sqrt(observed_months)


def simulations_for(tests: int) -> int:
    """The simulations of the other tests among M = `tests`; 0 above MAX_SIMULATED_TESTS (none)."""
    if tests > MAX_SIMULATED_TESTS:
        return 0
    return max(MIN_SIMULATIONS, min(SIMULATIONS, PANEL_BUDGET // max(tests, 1)))


@dataclass(frozen=True)
class _Panel:
    shifted: np.ndarray  # (simulations, M): row i's p-values ascending, plus 2 i
    holm_prefix: np.ndarray  # (simulations, M + 1): max over j <= i of (m - j + 1) q_j, 0 at i = 0
    bhy_suffix: np.ndarray  # (simulations, M): min(q_M, min over j' >= j, j' < M of (m c / (j' + 1)) q_j')
    c: float


@lru_cache(maxsize=PANELS)
def _panel(tests: int, rho: float, simulations: int, seed: int) -> _Panel:
    """The simulated p-values of the M = `tests` other tests and what Holm and BHY need of them."""
    from scipy import special  # when used

    level_rho, _, p0, lam = hlz_parameters(rho)
    rng = np.random.Generator(np.random.PCG64(seed))
    shape = (simulations, tests)
    common = rng.standard_normal((simulations, 1))
    own = rng.standard_normal(shape)
    z = math.sqrt(level_rho) * common + math.sqrt(1.0 - level_rho) * own
    nonzero = rng.random(shape) > p0
    means = rng.exponential(lam, shape) * nonzero
    standard_error = HLZ_ANNUAL_VOLATILITY / math.sqrt(MONTHS_PER_YEAR) / math.sqrt(HLZ_MONTHS)
    t = np.abs(means / standard_error + z)
    ordered = np.sort(special.erfc(t / math.sqrt(2.0)), axis=1)  # 2 Phi(-t)
    m = tests + 1
    j = np.arange(1, tests + 1)
    holm_prefix = np.zeros((simulations, tests + 1))
    holm_prefix[:, 1:] = np.maximum.accumulate((m - j + 1) * ordered, axis=1)
    c = float(np.sum(1.0 / j))
    stepped = (m * c / (j + 1)) * ordered  # q_j at rank j + 1 (the alpha's p before it)
    stepped[:, -1] = ordered[:, -1]  # the largest of the m keeps its value
    bhy_suffix = np.minimum.accumulate(stepped[:, ::-1], axis=1)[:, ::-1]
    # Each row shifted by 2 (the figures served since item 3 compare p + 2 i with these sums, rounded
    # as they are: comparing the unshifted values could place p otherwise in a near tie)
    shifted = ordered + 2.0 * np.arange(simulations)[:, None]
    for a in (shifted, holm_prefix, bhy_suffix):
        a.setflags(write=False)
    return _Panel(shifted, holm_prefix, bhy_suffix, c)


class Simulated(NamedTuple):
    """The simulated adjustments of one p-value (`simulated_adjustments`)."""

    holm: float  # the median over the simulations of Holm's adjusted p-value
    bhy: float  # the median over the simulations of BHY's
    holm_error: float  # the Monte Carlo standard error of `holm` (`median_monte_carlo_error`)
    bhy_error: float  # the Monte Carlo standard error of `bhy`


def median_monte_carlo_error(values: np.ndarray) -> float:
    """The Monte Carlo standard error of the median of `values`, i.i.d. draws (one a simulation):
    Maritz and Jarrett's (1978) estimate (scipy's `mstats.mjci`), the standard deviation of the
    order statistics weighted by the sample median's beta distribution over the ranks. What another
    seed moves the median by (tests/analytics/test_haircut.py measures it over 24 seeds); about 0
    where the median sits on a value most simulations near it share (Holm's (m - k + 1) p at one
    rank k), where another seed moves it rarely and then by a rank."""
    from scipy.stats import mstats  # when used

    return float(mstats.mjci(values, prob=[0.5])[0])


@lru_cache(maxsize=ADJUSTMENTS_KEPT)
def simulated_adjustments(
    p: float, tests: int, rho: float, simulations: int | None = None, seed: int = SEED
) -> Simulated:
    """(Holm, BHY): the medians over the simulations of the alpha's p adjusted among M = `tests`
    simulated p-values (m = M + 1 tests), with their Monte Carlo standard errors (issue 81: one
    beside every simulated p-value)."""
    sims = simulations_for(tests) if simulations is None else simulations
    panel = _panel(tests, float(rho), sims, seed)
    m = tests + 1
    # k - 1: the simulated p-values below p (in an ascending row, the place of the first at or
    # above it: where a binary search ("left") of the flattened rows placed p), by one sequential
    # pass over the panel, where 20,000 searches were random reads of it, memory-bound)
    rows = np.arange(sims)
    above = panel.shifted >= (p + 2.0 * rows)[:, None]
    before = np.where(above[:, -1], above.argmax(axis=1), tests)  # the first at or above p, else all below
    k = before + 1
    holm = np.minimum(1.0, np.maximum(panel.holm_prefix[rows, before], (m - k + 1) * p))
    last = before >= tests  # the alpha's p is the largest: BHY keeps it
    inner = np.minimum((m * panel.c / k) * p, panel.bhy_suffix[rows, np.minimum(before, tests - 1)])
    bhy = np.where(last, p, inner)
    return Simulated(
        float(np.median(holm)),
        float(np.median(bhy)),
        median_monte_carlo_error(holm),
        median_monte_carlo_error(bhy),
    )


def prepare(tests: int, rho: float = DEFAULT_CORRELATION, seed: int = SEED) -> None:
    """The simulated panel of M = `tests` other tests made now (kept, `PANELS`): what the first
    haircut among them would pay, whatever the alpha's Sharpe ratio (a server worker's warm-up,
    serve/warm.py, for its catalogue's M). Nothing above MAX_SIMULATED_TESTS (none is simulated)."""
    sims = simulations_for(tests)
    if tests >= 1 and sims > 0:
        _panel(tests, float(rho), sims, seed)


@dataclass(frozen=True)
class Haircut:
    annual_sharpe: float  # SR after Lo's adjustment, annualised
    t_ratio: float
    p_value: float
    observed_months: int
    tests: int
    rho: float
    simulations: int
    adjusted: dict[str, float]  # method -> adjusted p-value
    monte_carlo_error: dict[str, float]  # method -> the Monte Carlo standard error of its adjusted p-value
    haircut_sharpe: dict[str, float]  # method -> SR*
    haircut: dict[str, float]  # method -> (SR - SR*) / SR


def haircut_sharpe(
    sharpe: float,
    periods: int,
    periods_per_year: int,
    autocorrelation: float,
    tests: int,
    rho: float = DEFAULT_CORRELATION,
    simulations: int | None = None,
    seed: int = SEED,
) -> Haircut | None:
    """The haircut of a Sharpe ratio of `periods` returns per period (`sharpe`: mean / std, not
    annualised) with lag-1 autocorrelation `autocorrelation`, among `tests` tests (M, this one
    counted as the reference's num_mult_test counts it). None below 2 months, for a Sharpe ratio
    not above 0 (the one-sided test the haircut is of: its p-value would exceed 1) or without a
    test to adjust for."""
    from scipy import stats  # when used

    observed = months(periods, periods_per_year)
    if observed < 2 or tests < 1 or not math.isfinite(sharpe) or not -1.0 < autocorrelation < 1.0:
        return None
    annual = sharpe * math.sqrt(periods_per_year) * lo_multiplier(autocorrelation, periods_per_year)
    if annual <= 0.0:
        return None
    t = t_ratio(annual, observed)
    p = float(2.0 * stats.t.sf(t, observed - 1))
    sims = simulations_for(tests) if simulations is None else simulations
    # Above MAX_SIMULATED_TESTS nothing is simulated: Holm and BHY (and so the average) are NaN
    nan = Simulated(math.nan, math.nan, math.nan, math.nan)
    holm, bhy, holm_error, bhy_error = simulated_adjustments(p, tests, rho, sims, seed) if sims > 0 else nan
    bonferroni = min(tests * p, 1.0)
    adjusted = {
        "bonferroni": bonferroni,
        "holm": holm,
        "bhy": bhy,
        "average": (bonferroni + holm + bhy) / 3.0,
    }
    error = {
        "bonferroni": 0.0,  # exact: nothing simulated
        "holm": holm_error,
        "bhy": bhy_error,
        # Holm's and BHY's medians come from the same simulations: the sum of their errors bounds
        # their sum's, whatever the correlation between them
        "average": (holm_error + bhy_error) / 3.0,
    }
    quantiles = stats.t.isf(np.array([adjusted[k] for k in METHODS]) / 2.0, observed - 1)
    scale = math.sqrt(MONTHS_PER_YEAR) / math.sqrt(observed)
    cut = {k: float(q) * scale for k, q in zip(METHODS, quantiles, strict=True)}
    return Haircut(
        annual_sharpe=annual,
        t_ratio=t,
        p_value=p,
        observed_months=observed,
        tests=tests,
        rho=rho,
        simulations=sims,
        adjusted=adjusted,
        monte_carlo_error=error,
        haircut_sharpe=cut,
        haircut={k: (annual - cut[k]) / annual for k in METHODS},
    )


def t_statistic(sharpe: float, periods: int) -> float:
    """The t-statistic of a Sharpe ratio of `periods` i.i.d. returns: SR sqrt(T), SR per period
    (mean / std(ddof=1)), T the periods; the min_t_statistic check's figure."""
    return sharpe * math.sqrt(periods)
