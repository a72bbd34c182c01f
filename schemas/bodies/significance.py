"""`/analytics/significance`: the significance of the long_short Sharpe ratio and of the IC, corrected for the catalogue's trials, declared for the contract (docs/analytics.md, "Significance")."""

from __future__ import annotations

from typing import Annotated

from schemas import terms
from schemas.bodies import libraries
from schemas.bodies.analytics import FAMILY_SIZE, PER_YEAR, WINDOW, WINDOW_FIELD, AnalyticsStat, interval
from schemas.bodies.base import Body, Window
from schemas.bodies.figures import figure
from schemas.bodies.formats import SEAL_TEXT

LEDGER = "portfolio:long_short"
"""The `source` of a significance figure read from the long_short ledger."""
SHARPE_VARIANCE = (
    "sigma^2(x) = (a - b skew x + c (kurt - 1) / 4 x^2) / T the variance of the per-session Sharpe ratio "
    "estimate at a Sharpe ratio x over the T sessions, a = (1 + rho) / (1 - rho), b = 1 + rho / (1 - rho) + "
    "rho^2 / (1 - rho^2), c = (1 + rho^2) / (1 - rho^2), rho serial_correlation"
)
"""The Sharpe ratio's variance under non-normality and AR(1) serial correlation (López de Prado,
Lipton and Zoonekynd 2025; `analytics.sharpe_inference`), which psr, min_track_record,
critical_sharpe, power and the DSRs evaluate."""
EFFECTIVE_RANK = figure(
    "The effective rank of the correlation matrix of the trials' whole-history daily long_short returns (Roy "
    "and Vetterli 2007), a cross-check of the cluster count: over the trials the key may read (pairwise over "
    "common sessions, a pair without a correlation 0), every other trial of N uncorrelated with every trial; "
    "null for a key that may not read the ledger, when the catalogue generation records no links, or above "
    "500 readable trials",
    "exp(-sum p_i ln p_i), p_i = s_i / sum s, s the singular values (absolute eigenvalues) of the correlation "
    "matrix",
    source="catalogue",
    term=terms.TRIALS_EFFECTIVE_RANK,
)
SR_BENCHMARK = figure(
    "The request's sr_benchmark (annualised); per session it is sr_benchmark / sqrt(252)",
    source="request",
    term=terms.SR_BENCHMARK,
)


class Bootstrap(Body, kw_only=True, frozen=True):
    """Stationary block-bootstrap confidence intervals (seeded: the same request, the same answer)."""

    method: Annotated[str, figure("The resampling scheme and the interval")]
    confidence: Annotated[float, figure("Confidence level of the intervals", term=terms.CONFIDENCE)]
    resamples: Annotated[int, figure("Number of resamples", term=terms.RESAMPLES)]
    seed: Annotated[
        int,
        figure("Seed of numpy's PCG64 generator: the same request always gives the same answer"),
    ]
    block_length_rule: Annotated[str, figure("How the mean block length is chosen")]
    streams: Annotated[
        str,
        figure("The generator stream of each statistic (PCG64(SeedSequence([seed, stream])))"),
    ]
    rebuilt_mean_ic: Annotated[
        AnalyticsStat,
        interval(
            "Mean weekly conditioned IC rebuilt from the rebalance cross-sections (not the run's sealed /metrics "
            "core.ic)",
            "mean of weekly_signal.ic",
            "per_period",
            "weekly_signal",
            term=terms.REBUILT_MEAN_IC,
        ),
    ]
    rebuilt_icir: Annotated[
        AnalyticsStat,
        interval(
            "Information ratio of the rebuilt weekly IC, annualised with the run's weeks_per_year (52), bounds "
            "included (not the run's sealed /metrics core.icir)",
            "mean / std(ddof=1) of weekly IC, times sqrt(weeks_per_year)",
            "annualised",
            "weekly_signal",
            term=terms.REBUILT_ICIR,
        ),
    ]
    information_ratio: Annotated[
        AnalyticsStat,
        interval(
            "Information ratio of daily long_short returns (after costs, not in excess of the risk-free rate), "
            "daily times sqrt(252) as /metrics core.information_ratio (rolling's is weekly times sqrt(52)): "
            f"{libraries.INFORMATION_RATIO}",
            "mean / std(ddof=1) times sqrt(252)",
            "annualised",
            LEDGER,
            term=terms.INFORMATION_RATIO,
        ),
    ]


class MultipleTesting(Body, kw_only=True, frozen=True):
    """The `nwt.ic` p-value of `/metrics`, adjusted within the family of the alphas the key may read."""

    p_value: Annotated[
        AnalyticsStat,
        figure(
            "Two-sided Newey-West p-value of the mean weekly IC (as /metrics nwt.ic.p_value)",
            source="nwt.ic",
            term=terms.P_VALUE,
        ),
    ]
    holm: Annotated[
        AnalyticsStat,
        figure(
            "Holm step-down adjusted p-value within the family",
            "max over j <= k of min(1, (m - j + 1) p_(j)), k this alpha's rank",
            keys={"family_size": FAMILY_SIZE},
            term=terms.HOLM,
        ),
    ]
    benjamini_hochberg: Annotated[
        AnalyticsStat,
        figure(
            "Benjamini-Hochberg adjusted p-value (false discovery rate) within the family",
            "min over j >= k of min(1, m / j p_(j))",
            keys={"family_size": FAMILY_SIZE},
            term=terms.BENJAMINI_HOCHBERG,
        ),
    ]


HAIRCUT_T = "t = SR / sqrt(12) sqrt(T), SR tested_sharpe, T observed_months"


class HaircutMethod(Body, kw_only=True, frozen=True):
    """One adjustment of `sharpe_haircut`: its adjusted p-value and the Sharpe ratio it implies."""

    adjusted_p_value: Annotated[
        AnalyticsStat,
        figure(
            "The p-value of the Sharpe ratio's t-ratio adjusted for the tests: Bonferroni min(M p, 1); Holm and "
            "BHY the median over the simulations of the alpha's p adjusted among M simulated p-values of the other "
            "tests; average the mean of those three (Harvey and Liu 2015)",
            "bonferroni: min(M p, 1); holm: median of max over j <= k of min(1, (m - j + 1) p_(j)); bhy: median of "
            "min over i >= k of (m c / i) p_(i) (the largest kept as it is), c = sum_{i=1..M} 1/i; m = M + 1, k "
            "the alpha's rank; average: (bonferroni + holm + bhy) / 3",
            term=terms.ADJUSTED_P_VALUE,
        ),
    ]
    adjusted_p_value_monte_carlo_error: Annotated[
        AnalyticsStat,
        figure(
            "The Monte Carlo standard error of adjusted_p_value: how far another seed of the simulations moves it. "
            "Holm and BHY: Maritz and Jarrett's (1978) standard error of the median over the simulations (about 0 "
            "where the median sits on one rank's value, which another seed rarely leaves); Bonferroni 0 (exact, "
            "not simulated); average (Holm's + BHY's) / 3, a bound whatever their correlation",
            "holm, bhy: sqrt(sum_i w_i x_(i)^2 - (sum_i w_i x_(i))^2), w_i = I_{i/S}(a, a) - I_{(i-1)/S}(a, a), "
            "a = (S + 1) / 2, x_(i) the i-th smallest of the S simulations' adjusted p-values; bonferroni: 0; "
            "average: (holm + bhy) / 3",
            term=terms.ADJUSTED_P_VALUE_MONTE_CARLO_ERROR,
        ),
    ]
    haircut_sharpe: Annotated[
        AnalyticsStat,
        figure(
            'The annualised Sharpe ratio the adjusted p-value implies ("a Sharpe ratio of 1.0 is worth 0.45")',
            "F^-1_{T-1}(1 - p* / 2) / sqrt(T) sqrt(12), F Student's t, T observed_months, p* adjusted_p_value",
            source=LEDGER,
            term=terms.HAIRCUT_SHARPE,
        ),
    ]
    haircut_share: Annotated[
        AnalyticsStat,
        figure(
            "The share of the tested Sharpe ratio the adjustment takes off",
            "(tested_sharpe - haircut_sharpe) / tested_sharpe",
            source=LEDGER,
            term=terms.HAIRCUT_SHARE,
        ),
    ]


class SharpeHaircut(Body, kw_only=True, frozen=True):
    """`sharpe_haircut` of the significance object: Harvey and Liu's (2015) haircut Sharpe ratios."""

    method: Annotated[str, figure("The method and its reference")]
    frequency: Annotated[str, figure("The frequency of the t-ratio: monthly, as the paper's")]
    tested_sharpe: Annotated[
        AnalyticsStat,
        figure(
            "The Sharpe ratio the haircut starts from: the window's daily Sharpe ratio annualised with Lo's (2002) "
            "adjustment for the returns' lag-1 serial correlation (the paper's input; sharpe is without it)",
            "SR_d sqrt(q) (1 + 2 rho / (1 - rho) (1 - (1 - rho^q) / (q (1 - rho))))^(-1/2), q = 252, rho "
            "serial_correlation; not measurable unless above 0 (the p-value is one-sided) or below 2 months",
            source=LEDGER,
            term=terms.TESTED_SHARPE,
        ),
    ]
    sharpe_t_ratio: Annotated[
        AnalyticsStat,
        figure(
            "The tested Sharpe ratio's t-ratio over the window's months",
            HAIRCUT_T,
            source=LEDGER,
            term=terms.SHARPE_T_RATIO,
        ),
    ]
    sharpe_p_value: Annotated[
        AnalyticsStat,
        figure(
            "The t-ratio's p-value before any adjustment",
            "2 (1 - F_{T-1}(t)), F Student's t with T - 1 degrees of freedom",
            source=LEDGER,
            term=terms.SHARPE_P_VALUE,
        ),
    ]
    bonferroni_haircut: Annotated[HaircutMethod, figure("Bonferroni's adjustment: min(M p, 1)")]
    holm_haircut: Annotated[HaircutMethod, figure("Holm's step-down adjustment, simulated")]
    bhy_haircut: Annotated[
        HaircutMethod,
        figure(
            "Benjamini, Hochberg and Yekutieli's adjustment (false discovery rate under dependence), simulated"
        ),
    ]
    average_haircut: Annotated[
        HaircutMethod, figure("The mean of the three adjusted p-values, and its Sharpe ratio")
    ]
    tests: Annotated[
        int | None,
        figure(
            "M: the tests adjusted for, the published alphas the key may read with a measurable long_short Sharpe "
            "ratio (this one included; dsr.trials.sharpe_variance_alphas); null for a key that may not read the "
            "ledger",
            source="catalogue",
            term=terms.TESTS,
        ),
    ]
    test_correlation: Annotated[
        float,
        figure(
            "rho: the average correlation between the tests' returns the simulation assumes (Harvey, Liu and Zhu's "
            "preferred level 0.2, fixed)",
            term=terms.TEST_CORRELATION,
        ),
    ]
    observed_months: Annotated[
        int | None,
        figure(
            "T: the window's sessions in months, floor(sessions 12 / 252); null for a key that may not read the ledger",
            source=LEDGER,
            term=terms.OBSERVED_MONTHS,
        ),
    ]
    simulations: Annotated[
        int,
        figure(
            "Simulations of the other tests (20,000, fewer when M is large: docs/analytics.md)",
            term=terms.SIMULATIONS,
        ),
    ]
    seed: Annotated[
        int,
        figure(
            "Seed of numpy's PCG64 generator of the simulations: the same request always gives the same answer"
        ),
    ]


class Significance(Body, kw_only=True, frozen=True):
    """Significance of the long_short Sharpe ratio and of the IC (`/analytics/significance`)."""

    alpha: Annotated[str, figure("The alpha served (meta.run)")]
    source_alpha_id: Annotated[
        str,
        SEAL_TEXT,
        figure(
            "The run's research source id: the seal's own id for the alpha (meta.source_alpha_id, the lake's"
            " source_alpha_id), not the alpha served (alpha, the path's id); the alpha's id when the run recorded none"
        ),
    ]
    book: Annotated[str, figure("Always long_short")]
    window: Annotated[Window, WINDOW_FIELD]
    sessions: Annotated[
        int | None,
        figure(
            "Sessions of the long_short book in the window, as /portfolio and costs count them (the figures need 3 "
            "daily returns with variance); null for a key that may not read the ledger (a count of it, withheld "
            "as its figures are)",
            source=LEDGER,
            term=terms.SESSIONS,
        ),
    ]
    sharpe: Annotated[
        AnalyticsStat,
        figure(
            "Sharpe ratio of daily long_short total returns, after costs and not in excess of the risk-free rate: "
            f"the /metrics core.information_ratio convention (daily, times sqrt(252)), {libraries.INFORMATION_RATIO}",
            "mean / std(ddof=1) of ending/starting - 1, times sqrt(252)",
            source=LEDGER,
            keys=PER_YEAR,
            term=terms.SHARPE,
        ),
    ]
    skewness: Annotated[
        AnalyticsStat,
        figure(
            "Sample skewness of the daily returns",
            "m3 / m2^(3/2) (biased moments)",
            source=LEDGER,
            term=terms.SKEWNESS,
        ),
    ]
    kurtosis: Annotated[
        AnalyticsStat,
        figure(
            "Sample kurtosis of the daily returns, not in excess (3 for a normal)",
            "m4 / m2^2 (biased moments)",
            source=LEDGER,
            term=terms.KURTOSIS,
        ),
    ]
    serial_correlation: Annotated[
        AnalyticsStat,
        figure(
            "rho: the serial correlation of the daily returns, the AR(1) coefficient the Sharpe ratio's variance "
            "assumes (López de Prado, Lipton and Zoonekynd 2025), estimated as the reference code does",
            "Pearson correlation of (r_2..r_n) with (r_1..r_n-1)",
            source=LEDGER,
            term=terms.SERIAL_CORRELATION,
        ),
    ]
    sharpe_standard_error: Annotated[
        AnalyticsStat,
        figure(
            "Standard error of the Sharpe ratio: the standard deviation of its estimate over the window's sessions "
            "at the observed Sharpe ratio, for non-normal returns serially correlated as AR(1) (López de Prado, "
            "Lipton and Zoonekynd 2025); annualised as sharpe is",
            SHARPE_VARIANCE + "; sqrt(sigma^2(SR)) times sqrt(252), SR the observed per-session Sharpe ratio",
            source=LEDGER,
            keys=PER_YEAR,
            term=terms.SHARPE_STANDARD_ERROR,
        ),
    ]
    psr: Annotated[
        AnalyticsStat,
        figure(
            "Probabilistic Sharpe Ratio: the probability that the true Sharpe ratio exceeds sr_benchmark, for "
            "non-normal returns serially correlated as AR(1) (López de Prado, Lipton and Zoonekynd 2025)",
            "Phi((SR - SR*) / sqrt(sigma^2(SR*))), " + SHARPE_VARIANCE + ", SR and SR* per session",
            keys={"sr_benchmark": SR_BENCHMARK},
            term=terms.PSR,
        ),
    ]
    min_track_record: Annotated[
        AnalyticsStat,
        figure(
            "Minimum track record length for PSR(sr_benchmark) to reach the confidence",
            "T sigma^2(SR*) (z_0.95 / (SR - SR*))^2 (sigma^2 as psr's: independent of T times T); not measurable "
            "when SR <= SR*",
            keys={
                "confidence": figure("Confidence of the minimum track record (0.95)", term=terms.CONFIDENCE),
                "sr_benchmark": SR_BENCHMARK,
                "years": figure("min_track_record in years (sessions / 252)", term=terms.YEARS),
            },
            term=terms.MIN_TRACK_RECORD,
        ),
    ]
    min_backtest_length: Annotated[
        AnalyticsStat,
        figure(
            "Minimum backtest length: the years of history below which the best of dsr.trials.count skill-less "
            "configurations is expected to show at least this Sharpe ratio (Bailey, Borwein, López de Prado and "
            "Zhu 2014); a backtest shorter than it cannot tell this Sharpe ratio from the search's luck",
            "(((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e))) / SR)^2, SR the annualised sharpe, N "
            "dsr.trials.count, gamma the Euler-Mascheroni constant; not measurable when SR <= 0 or N < 2",
            keys={
                "trial_count": figure(
                    "N: the trials it is computed for (dsr.trials.count)", term=terms.TRIAL_COUNT
                )
            },
            term=terms.MIN_BACKTEST_LENGTH,
        ),
    ]
    critical_sharpe: Annotated[
        AnalyticsStat,
        figure(
            "Critical Sharpe ratio: the Sharpe ratio the window's sessions must show for the test of a true Sharpe "
            "ratio of sr_benchmark to reject at level 1 - confidence (PSR(sr_benchmark) at the confidence); "
            "annualised",
            "(SR* + z_0.95 sqrt(sigma^2(SR*))) times sqrt(252), sigma^2 as psr's over the window's sessions",
            keys={
                "confidence": figure("The test's confidence, 1 - its level (0.95)", term=terms.CONFIDENCE),
                "sr_benchmark": SR_BENCHMARK,
            },
            term=terms.CRITICAL_SHARPE,
        ),
    ]
    power: Annotated[
        AnalyticsStat,
        figure(
            "Power of the test of a true Sharpe ratio of sr_benchmark at level 1 - confidence over the window's "
            "sessions: the probability it rejects when the true Sharpe ratio is sr_alternative (sr_benchmark + 1, "
            "fixed before the data, never the observed Sharpe ratio)",
            "1 - Phi((SR_c - SR1) / sqrt(sigma^2(SR1))), SR_c the critical Sharpe ratio, SR1 sr_alternative, per "
            "session, sigma^2 as psr's",
            keys={
                "confidence": figure("The test's confidence, 1 - its level (0.95)", term=terms.CONFIDENCE),
                "sr_benchmark": SR_BENCHMARK,
                "sr_alternative": figure(
                    "SR1: the true annualised Sharpe ratio the power is at, sr_benchmark + 1",
                    source="request",
                    term=terms.SR_ALTERNATIVE,
                ),
            },
            term=terms.POWER,
        ),
    ]
    dsr: Annotated[
        AnalyticsStat,
        figure(
            "Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the catalogue's trials, its "
            "variance that of the maximum of N Sharpe ratios (López de Prado, Lipton and Zoonekynd 2025)",
            "Phi((SR - SR0) / sqrt(sigma^2(SR0) Var[M_N])), SR0 = sqrt(V) ((1 - gamma) Phi^-1(1 - 1/N) + gamma "
            "Phi^-1(1 - 1/(N e))), gamma the Euler-Mascheroni constant, sigma^2 as psr's, Var[M_N] the variance "
            "of the maximum of N independent standard normals",
            keys={
                "trials": figure(
                    "The trials behind SR0: the catalogue's count, and the Sharpe variance over the alphas the key "
                    "may read (no other alpha is named, and no figure of an alpha the key may not read enters)"
                ),
                "trials.count": figure(
                    "N: alphas of the published catalogue with a measurable long_short Sharpe ratio, or the "
                    "request's trials",
                    source="catalogue",
                    term=terms.TRIALS_COUNT,
                ),
                "trials.count_source": figure("catalogue, or request when trials= overrides the count"),
                "trials.sharpe_variance": figure(
                    "V: sample variance (ddof=1) of the per-session Sharpe ratios of the alphas the key may read "
                    "(the whole catalogue's for a key that reads it all), each over its whole history; not "
                    "measurable below 2 of them; null for a key that may not read the ledger",
                    source="catalogue",
                    term=terms.TRIALS_SHARPE_VARIANCE,
                ),
                "trials.sharpe_variance_unit": figure("Unit of sharpe_variance"),
                "trials.sharpe_variance_alphas": figure(
                    "How many Sharpe ratios V is over: the alphas the key may read with a measurable Sharpe "
                    "ratio; null for a key that may not read the ledger",
                    source="catalogue",
                    term=terms.TRIALS_SHARPE_VARIANCE_ALPHAS,
                ),
                "trials.expected_max_sharpe": figure(
                    "SR0 annualised (times sqrt(252)); null for a key that may not read the ledger",
                    term=terms.TRIALS_EXPECTED_MAX_SHARPE,
                ),
                "trials.expected_max_sharpe_unit": figure("Unit of expected_max_sharpe"),
                "trials.effective_count": figure(
                    "The effective number of trials: the clusters of the trials linked when their whole-history "
                    "daily long_short returns correlate at least 0.9 (single linkage: connected components), "
                    "over the alphas the key may read, every other trial of N one cluster of its own; null for "
                    "a key that may not read the ledger or when the catalogue generation records no links",
                    source="catalogue",
                    term=terms.TRIALS_EFFECTIVE_COUNT,
                ),
                "trials.effective_rank": EFFECTIVE_RANK,
            },
            term=terms.DSR,
        ),
    ]
    dsr_family: Annotated[
        AnalyticsStat,
        figure(
            "Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the trials of the alpha's own "
            "trial family (dsr deflates by the whole catalogue's)",
            "as dsr's, Phi((SR - SR0) / sqrt(sigma^2(SR0) Var[M_N])), N the family's members the key may read "
            "with a measurable Sharpe ratio, V the variance (ddof 1) of their Sharpe ratios; not applicable "
            "without a family, not measurable below 2 such members",
            keys={
                "trials": figure(
                    "The trials behind SR0: the family's members the key may read (no other member is counted, "
                    "and no figure of a member it may not read enters); another family's publish or an "
                    "unrelated one leaves them as they were"
                ),
                "trials.count": figure(
                    "N: the members of the alpha's trial family the key may read with a measurable long_short "
                    "Sharpe ratio (0 without a family)",
                    source="catalogue",
                    term=terms.TRIALS_COUNT,
                ),
                "trials.count_source": figure("family"),
                "trials.sharpe_variance": figure(
                    "V: sample variance (ddof=1) of those members' per-session Sharpe ratios, each over its whole "
                    "history; not measurable below 2 of them; null for a key that may not read the ledger",
                    source="catalogue",
                    term=terms.TRIALS_SHARPE_VARIANCE,
                ),
                "trials.sharpe_variance_unit": figure("Unit of sharpe_variance"),
                "trials.sharpe_variance_alphas": figure(
                    "How many Sharpe ratios V is over (N); null for a key that may not read the ledger",
                    source="catalogue",
                    term=terms.TRIALS_SHARPE_VARIANCE_ALPHAS,
                ),
                "trials.expected_max_sharpe": figure(
                    "SR0 annualised (times sqrt(252)); null for a key that may not read the ledger",
                    term=terms.TRIALS_EXPECTED_MAX_SHARPE,
                ),
                "trials.expected_max_sharpe_unit": figure("Unit of expected_max_sharpe"),
                "trials.effective_count": figure(
                    "null: the family's trials are not clustered", term=terms.TRIALS_EFFECTIVE_COUNT
                ),
                "trials.effective_rank": figure(
                    "null: the family's trials are not clustered", term=terms.TRIALS_EFFECTIVE_RANK
                ),
            },
            term=terms.DSR_FAMILY,
        ),
    ]
    clustered_dsr: Annotated[
        AnalyticsStat,
        figure(
            "Deflated Sharpe Ratio as López de Prado and Lewis (2019) deflate: PSR against the expected maximum "
            "Sharpe ratio of K trials, K the clusters of the trials (dsr.trials.effective_count), V the variance "
            "of the clusters' Sharpe ratios (effective_dsr keeps V over all the trials)",
            "as dsr's with K for N and V_K for V: Phi((SR - SR0) / sqrt(sigma^2(SR0) Var[M_K])), SR0 = sqrt(V_K) "
            "((1 - gamma) Phi^-1(1 - 1/K) + gamma Phi^-1(1 - 1/(K e))), V_K the sample variance (ddof 1) of the "
            "per-session Sharpe ratios of the readable clusters, each cluster's daily returns the "
            "inverse-variance-weighted portfolio of its members over the sessions they all hold",
            keys={
                "trials": figure(
                    "The trials behind SR0: the clusters of the trials the key may read, every other trial of N "
                    "one cluster of its own (counted, never in V)"
                ),
                "trials.count": figure(
                    "K: the effective number of trials (dsr.trials.effective_count); 0 when not measurable",
                    source="catalogue",
                    term=terms.TRIALS_COUNT,
                ),
                "trials.count_source": figure("clusters"),
                "trials.sharpe_variance": figure(
                    "V_K: sample variance (ddof=1) of the readable clusters' per-session Sharpe ratios, a "
                    "one-member cluster's the trial's own over its whole history, a larger one's that of the "
                    "inverse-variance-weighted portfolio of its members over their common sessions; not "
                    "measurable below 2 of them; null for a key that may not read the ledger",
                    source="catalogue",
                    term=terms.TRIALS_SHARPE_VARIANCE,
                ),
                "trials.sharpe_variance_unit": figure("Unit of sharpe_variance"),
                "trials.sharpe_variance_alphas": figure(
                    "How many cluster Sharpe ratios V_K is over; null for a key that may not read the ledger",
                    source="catalogue",
                    term=terms.TRIALS_SHARPE_VARIANCE_ALPHAS,
                ),
                "trials.expected_max_sharpe": figure(
                    "SR0 annualised (times sqrt(252)); null for a key that may not read the ledger",
                    term=terms.TRIALS_EXPECTED_MAX_SHARPE,
                ),
                "trials.expected_max_sharpe_unit": figure("Unit of expected_max_sharpe"),
                "trials.effective_count": figure(
                    "K, as dsr.trials.effective_count", source="catalogue", term=terms.TRIALS_EFFECTIVE_COUNT
                ),
                "trials.effective_rank": EFFECTIVE_RANK,
            },
            term=terms.CLUSTERED_DSR,
        ),
    ]
    effective_dsr: Annotated[
        AnalyticsStat,
        figure(
            "Deflated Sharpe Ratio against the expected maximum Sharpe ratio of the effective number of trials "
            "(dsr.trials.effective_count in place of N; V as dsr's)",
            "as dsr's with K for N: Phi((SR - SR0) / sqrt(sigma^2(SR0) Var[M_K])), SR0 = sqrt(V) ((1 - gamma) "
            "Phi^-1(1 - 1/K) + gamma Phi^-1(1 - 1/(K e))), K the effective number of trials",
            term=terms.EFFECTIVE_DSR,
        ),
    ]
    bootstrap: Annotated[
        Bootstrap,
        figure("Stationary block-bootstrap confidence intervals (at `confidence`) over " + WINDOW),
    ]
    multiple_testing: Annotated[
        MultipleTesting,
        figure(
            "The nwt.ic p-value of /metrics adjusted within the family of the alphas the key may read (whole "
            "histories; from/to do not narrow it)"
        ),
    ]
    sharpe_haircut: Annotated[
        SharpeHaircut,
        figure(
            "Haircut Sharpe ratios (Harvey and Liu 2015): the Sharpe ratio the p-value adjusted for the M tests the key "
            "may see implies, by Bonferroni, Holm, BHY and their average, with the adjusted p-values"
        ),
    ]
