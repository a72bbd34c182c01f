"""Probabilistic and Deflated Sharpe ratios, the minimum track record length, the critical Sharpe
ratio and the test's power.

Bailey, D. H. and López de Prado, M. (2012), "The Sharpe Ratio Efficient Frontier", Journal of
Risk 15(2): PSR and MinTRL. Bailey, D. H. and López de Prado, M. (2014), "The Deflated Sharpe
Ratio", Journal of Portfolio Management 40(5): DSR. Both to the standard of López de Prado, Lipton
and Zoonekynd (2025), SSRN 5520741 (`analytics.sharpe_inference`, issue 62): the Sharpe ratio's
variance for non-normal returns serially correlated as AR(1), under the hypothesis tested, over T
sessions, the DSR's that of the maximum of N Sharpe ratios. Sharpe ratios here are per observation
(per session), annualised only where served as Sharpe ratios; skewness and kurtosis are the sample
moments (biased estimators, kurtosis not in excess), as in the papers.

`significance_payload` is `/analytics/significance`: PSR, MinTRL, DSR, the serial correlation, the
Sharpe ratio's standard error, the critical Sharpe ratio and the power of the long_short daily
returns, bootstrap intervals of the IC and the information ratio, and the nwt.ic p-value adjusted
for the trials. The catalogue figures (`Seen`): the DSR's trial count N is the whole published
catalogue's (a count: deflating by fewer trials than were run would flatter the Sharpe ratio); the
variance V of the trials' Sharpe ratios and the Holm and Benjamini-Hochberg family are over the
alphas the caller may read. Both are functions of other alphas' values: over the whole catalogue,
a caller that may read every alpha but one solves V for the hidden alpha's Sharpe ratio (one
quadratic), and an adjusted p-value for its p-value. `dsr_family` (`FamilyTrials`, issue 65)
deflates by the alpha's own trial family instead: N its members the caller may read with a
measurable Sharpe ratio, V their variance, so an unrelated publish leaves it as it was.
`clustered_dsr` (`Clustered`, issue 62 item 2) deflates as López de Prado and Lewis (2019): K the
clusters of the trials (`effective_dsr`'s K), V the variance of the readable clusters' Sharpe
ratios, each cluster's returns the inverse-variance-weighted portfolio of its members; beside K,
the effective rank of the readable trials' correlation matrix (Roy and Vetterli 2007).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytics import (
    bootstrap,
    haircut,
    inputs,
    multiple_testing,
    sharpe_inference,
    trial_clusters,
    uncertainty,
)
from analytics.access import Access, withheld
from analytics.correlation import pearson_between
from analytics.entries import Warnings, conventions, declared_stat, number, window_echo
from analytics.overfitting import NOT_IN_A_FAMILY
from analytics.variance import measurable_std
from datasets.catalogue_snapshot import Matrix, Trials
from datasets.queries import Window
from datasets.reader import BuildView
from schemas.bodies.analytics import AnalyticsStat, DsrTrials
from schemas.bodies.significance import Bootstrap, HaircutMethod, MultipleTesting, SharpeHaircut, Significance
from schemas.bodies.uncertainty import BLOCK_LENGTH_RULE

INCREMENTAL_FROM = 20_000
"""Alphas from which a key reading every alpha is answered the variance V of the trials' Sharpe
ratios from the generation's exact sums (kept by every publish: `datasets.trial_sums`) instead of
a pass over the column; equal within 1e-12 (the exact variance rounded once, against numpy's
pairwise sum), and below it every answer is the pass as recorded (tests/equality)."""
MIN_TRL_CONFIDENCE = 0.95
POWER_ALTERNATIVE_EXCESS = 1.0
"""The alternative the power is at: a true annualised Sharpe ratio this far above sr_benchmark
(SR1 = sr_benchmark + 1). The paper computes the power at an alternative fixed before the data (its
example's SR1 = 0.5 a month); never at the observed Sharpe ratio, whose power is a function of the
PSR itself. A Sharpe ratio of 1 above the benchmark is the conventional bar of a deployable
strategy, and one fixed alternative makes the powers of two alphas comparable."""


@dataclass(frozen=True)
class Moments:
    n: int
    sharpe: float  # mean / std(ddof=1), per observation
    skewness: float
    kurtosis: float  # Pearson (3 for a normal distribution)
    serial_correlation: float  # rho: the lag-1 correlation of the returns (sharpe_inference)


def moments(returns: np.ndarray) -> Moments | None:
    """The moments of the finite returns; None below 3 values or without measurable variance
    (`analytics.variance`: a near-constant series has no Sharpe ratio, never one of 1e15)."""
    from scipy import stats  # when used: ~1 s to import (development.md)

    x = returns[np.isfinite(returns)]
    if x.size < 3:
        return None
    sd = measurable_std(x)
    if not math.isfinite(sd):
        return None
    # Each moment from its own count (`sharpe_inference`): below it, it is fixed by construction
    return Moments(
        n=int(x.size),
        sharpe=float(np.mean(x)) / sd,
        skewness=float(stats.skew(x, bias=True)) if x.size >= sharpe_inference.SKEWNESS_FROM else math.nan,
        kurtosis=float(stats.kurtosis(x, fisher=False, bias=True))
        if x.size >= sharpe_inference.KURTOSIS_FROM
        else math.nan,
        serial_correlation=sharpe_inference.serial_correlation(x),
    )


def psr(m: Moments, benchmark: float) -> float:
    """P(true Sharpe > benchmark): Phi((SR - SR*) / sigma(SR*)), sigma^2 the Sharpe ratio's variance
    under H0 over the n sessions, non-normal and AR(1) (`sharpe_inference.psr`)."""
    return float(sharpe_inference.psr(m.sharpe, benchmark, m.n, m.skewness, m.kurtosis, m.serial_correlation))


def min_track_record(m: Moments, benchmark: float, confidence: float = MIN_TRL_CONFIDENCE) -> float:
    """Sessions needed for PSR(benchmark) to reach `confidence`: T sigma^2(SR*) (z_confidence /
    (SR - SR*))^2 (`sharpe_inference.min_track_record`); NaN when SR <= SR*."""
    return float(
        sharpe_inference.min_track_record(
            m.sharpe, benchmark, m.skewness, m.kurtosis, m.serial_correlation, alpha=1.0 - confidence
        )
    )


def standard_error(m: Moments) -> float:
    """The standard deviation of the per-session Sharpe ratio estimate at the observed SR over the n
    sessions, non-normal and AR(1)."""
    return math.sqrt(
        float(sharpe_inference.sharpe_variance(m.sharpe, m.n, m.skewness, m.kurtosis, m.serial_correlation))
    )


def critical_sharpe(m: Moments, benchmark: float, confidence: float = MIN_TRL_CONFIDENCE) -> float:
    """The per-session Sharpe ratio n sessions of these moments must exceed for the PSR against
    `benchmark` to reach `confidence` (SR* + z_confidence sigma(SR*))."""
    return float(
        sharpe_inference.critical_sharpe(
            benchmark, m.n, m.skewness, m.kurtosis, m.serial_correlation, alpha=1.0 - confidence
        )
    )


def power(m: Moments, benchmark: float, alternative: float, confidence: float = MIN_TRL_CONFIDENCE) -> float:
    """The probability that the test of SR = `benchmark` at level 1 - `confidence` over n sessions of
    these moments rejects when the true per-session Sharpe ratio is `alternative`."""
    return float(
        sharpe_inference.power(
            benchmark, alternative, m.n, m.skewness, m.kurtosis, m.serial_correlation, alpha=1.0 - confidence
        )
    )


def ofdr(m: Moments, null: float, true: float, prior_true: float) -> float:
    """The observed false discovery rate of López de Prado, Lipton and Zoonekynd (2025) of an
    estimate m.sharpe (`false_discovery.posterior_null`): P(H0: SR = `null` | SR_hat >= m.sharpe)
    against H1: SR = `true` (per session), a share `prior_true` of the candidates true, each tail
    normal with the one variance this route's figures use (sample moments, AR(1), T = m.n, at its
    hypothesis's Sharpe ratio). NaN where that variance is not measurable."""
    from analytics.false_discovery import posterior_null

    sd0, sd1 = (
        math.sqrt(
            float(sharpe_inference.sharpe_variance(x, m.n, m.skewness, m.kurtosis, m.serial_correlation))
        )
        for x in (null, true)
    )
    if not (math.isfinite(sd0) and math.isfinite(sd1)):
        return math.nan
    return posterior_null(m.sharpe, null, true, sd0, sd1, prior_true)


def dsr(m: Moments, trials: int, sharpe_variance: float) -> float:
    """PSR against the expected maximum Sharpe ratio of `trials` unskilled trials, its variance the
    variance of the maximum of `trials` Sharpe ratios (`sharpe_inference.dsr`)."""
    return sharpe_inference.dsr(
        m.sharpe, m.n, m.skewness, m.kurtosis, m.serial_correlation, trials, sharpe_variance
    )


@dataclass(frozen=True)
class Seen:
    """The catalogue figures of one key's significance answer."""

    count: int  # N: alphas of the whole catalogue with a measurable Sharpe ratio (a count only)
    sharpe_variance: float  # V over the readable alphas' Sharpe ratios (ddof 1); NaN below 2
    sharpe_variance_alphas: int  # how many Sharpe ratios V is over
    family: np.ndarray  # the readable alphas' measurable nwt.ic p-values
    own: int | None  # this alpha's position in `family` (None: its p-value is not measurable)
    # The effective number of trials (analytics/trial_clusters.py): the clusters of the readable
    # trials, each trial the key may not read one cluster of its own; None when the generation
    # records no links
    effective: int | None = None

    def tag(self) -> str:
        """A digest of every catalogue figure above: with the alpha's build it is all a
        significance answer depends on, so another alpha's republish that leaves them equal
        leaves the answer's ETag as it was."""
        digest = hashlib.sha256(
            f"{self.count};{self.sharpe_variance!r};{self.sharpe_variance_alphas};{self.own};{self.effective}".encode()
        )
        digest.update(np.ascontiguousarray(self.family, dtype=np.float64).tobytes())
        return digest.hexdigest()[:24]


@dataclass(frozen=True)
class FamilyTrials:
    """The trials of the alpha's own trial family (issue 65, item 2: deflating by the whole
    catalogue moved with every unrelated publish): the members the key may read with a measurable
    Sharpe ratio, N, and the variance V of their Sharpe ratios. In the key's scope: a member it may
    not read is neither counted nor in V."""

    family: str
    count: int
    sharpe_variance: float  # ddof 1; NaN below 2 members

    def tag(self) -> str:
        return hashlib.sha256(f"{self.family};{self.count};{self.sharpe_variance!r}".encode()).hexdigest()[
            :16
        ]


MIN_FAMILY_TRIALS = 2
"""Members (readable, with a measurable Sharpe ratio) from which the family's DSR is measured and
the deflated_sharpe check deflates by the family: V needs 2 Sharpe ratios."""


def family_trials(trials: Trials, family: str, members: list[str]) -> FamilyTrials:
    """`members` (the family's members the reader may read) as trials: those with a measurable
    Sharpe ratio in the catalogue's index."""
    rows = np.array([trials.rows[a] for a in members if a in trials.rows], dtype=np.int64)
    sharpes = trials.sharpes[rows]
    sharpes = sharpes[np.isfinite(sharpes)]
    variance = float(np.var(sharpes, ddof=1)) if sharpes.size >= MIN_FAMILY_TRIALS else math.nan
    return FamilyTrials(family, int(sharpes.size), variance)


def seen(trials: Trials, readable: np.ndarray, alpha: str) -> Seen:
    """What a key that may read the alphas of the mask `readable` is answered about `alpha`."""
    assert readable.size == trials.sharpes.size  # both in the listing's order
    family_mask = readable & np.isfinite(trials.p_values)
    row = trials.rows.get(alpha)
    own = None if row is None or not family_mask[row] else int(np.count_nonzero(family_mask[:row]))
    sums = trials.sums
    every = readable.size >= INCREMENTAL_FROM and bool(readable.all())
    if sums is not None and every:
        # Every alpha readable: the generation's exact sums (datasets.trial_sums), no pass.
        return Seen(
            trials.count,
            sums.variance(),
            sums.count,
            trials.p_values[family_mask],
            own,
            trials.clusters if trials.clusters is not None else effective_trials(trials, readable),
        )
    sharpes = trials.sharpes[readable]
    sharpes = sharpes[np.isfinite(sharpes)]
    variance = float(np.var(sharpes, ddof=1)) if sharpes.size >= 2 else math.nan
    return Seen(
        trials.count,
        variance,
        int(sharpes.size),
        trials.p_values[family_mask],
        own,
        effective_trials(trials, readable),
    )


def effective_trials(trials: Trials, readable: np.ndarray) -> int | None:
    """The effective number of trials a key that may read the alphas of `readable` is answered:
    the clusters of the readable trials (single linkage over the generation's links,
    `analytics.trial_clusters`) and every other trial (N counts them: unreadable, or not the key's)
    one cluster each. Over the readable alphas only, as V: whether an alpha the key may not read
    links two readable ones is a fact about its returns. Never below the catalogue's own clusters
    (a trial split off its cluster only adds one), so it never flatters. None without links."""
    if trials.links is None:
        return None
    rows = np.flatnonzero(readable & np.isfinite(trials.sharpes))
    a, b = trials.links
    return trial_clusters.effective_count(rows, a, b, trials.count - int(rows.size))


EFFECTIVE_RANK_UP_TO = 500
"""Readable trials up to which the effective rank is measured (a correlation matrix of that many
rows and its eigenvalues, once per generation and scope); above, it is null."""


@dataclass(frozen=True)
class Clustered:
    """The trials as López de Prado and Lewis (2019) deflate by them, in one key's scope: K the
    effective number of trials (`Seen.effective`), V the variance of the K clusters' Sharpe ratios
    (each readable cluster's returns the inverse-variance-weighted portfolio of its readable
    members, `trial_clusters.cluster_returns`; a one-member cluster's Sharpe ratio the trial's own),
    and the effective rank of the readable trials' correlation matrix beside K (Roy and Vetterli
    2007), every other trial of N an identity block as K counts it one cluster."""

    count: int  # K
    sharpe_variance: float  # V over the readable clusters' Sharpe ratios (ddof 1); NaN below 2
    sharpe_variance_clusters: int  # how many cluster Sharpe ratios V is over
    effective_rank: float | None  # None above EFFECTIVE_RANK_UP_TO readable trials

    def tag(self) -> str:
        return hashlib.sha256(
            f"{self.count};{self.sharpe_variance!r};{self.sharpe_variance_clusters};{self.effective_rank!r}".encode()
        ).hexdigest()[:16]


def clustered(trials: Trials, readable: np.ndarray, matrix: Callable[[], Matrix]) -> Clustered | None:
    """The clustered trials a key that may read the alphas of `readable` is answered; None when the
    generation records no links. Kept per generation and scope on the returns matrix's memo."""
    if trials.links is None:
        return None
    returns = matrix()
    key = "clustered:" + hashlib.sha256(np.packbits(readable).tobytes()).hexdigest()
    found = returns.memo.get(key)
    if isinstance(found, Clustered):
        return found
    found = _clustered(trials, readable, returns)
    returns.memo[key] = found
    return found


def _matrix_rows(trials: Trials, returns: Matrix, rows: np.ndarray) -> np.ndarray:
    """The returns matrix's row of each listing row of `rows` (-1 where it has none)."""
    if returns.listed is not None:
        return returns.listed[rows]
    ids = {row: alpha for alpha, row in trials.rows.items()}
    return np.array([returns.rows.get(ids[int(r)], -1) for r in rows], dtype=np.int64)


def _clustered(trials: Trials, readable: np.ndarray, returns: Matrix) -> Clustered:
    assert trials.links is not None
    rows = np.flatnonzero(readable & np.isfinite(trials.sharpes))
    position = np.full(trials.sharpes.size, -1)
    position[rows] = np.arange(rows.size)
    a, b = trials.links
    pa_, pb_ = position[a], position[b]
    kept = (pa_ >= 0) & (pb_ >= 0)
    label = trial_clusters.labels(int(rows.size), pa_[kept], pb_[kept])
    others = trials.count - int(rows.size)
    in_matrix = _matrix_rows(trials, returns, rows)
    clusters = int(label.max(initial=-1)) + 1
    sizes = np.bincount(label, minlength=clusters)
    # A one-member cluster's Sharpe ratio is its trial's; the others' from their portfolios
    sharpes = np.full(clusters, np.nan)
    alone = sizes[label] == 1
    sharpes[label[alone]] = trials.sharpes[rows[alone]]
    order = np.argsort(label, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for cluster in np.flatnonzero(sizes > 1).tolist():
        members = order[starts[cluster] : starts[cluster + 1]]
        at = in_matrix[members]
        at = at[at >= 0]
        series = trial_clusters.cluster_returns(np.asarray(returns.values[np.sort(at)]))
        sd = measurable_std(series) if series.size >= 3 else math.nan
        sharpes[cluster] = float(np.mean(series)) / sd if math.isfinite(sd) else math.nan
    values = sharpes[np.isfinite(sharpes)]
    variance = float(np.var(values, ddof=1)) if values.size >= 2 else math.nan
    rank = None
    if rows.size <= EFFECTIVE_RANK_UP_TO:
        at = in_matrix[in_matrix >= 0]
        block = np.asarray(returns.values[np.sort(at)])
        correlation, _ = pearson_between(block, block) if at.size else (np.zeros((0, 0)), None)
        correlation = np.nan_to_num(correlation, nan=0.0)
        np.fill_diagonal(correlation, 1.0)
        rank = trial_clusters.effective_rank(correlation, others + int(rows.size - at.size))
    return Clustered(clusters + others, variance, int(values.size), rank)


def significance_payload(
    view: BuildView,
    window: Window,
    sr_benchmark: float,
    trials_override: int | None,
    seen: Seen,
    access: Access,
    warnings: Warnings,
    family: FamilyTrials | None = None,
    clusters: Clustered | None = None,
) -> Significance:
    """`family`: the trials of the alpha's family (None: its seal names none); `clusters`: the
    clustered trials (`clustered`; None: the generation records no links)."""
    per_year = conventions(view).sessions_per_year
    ledger = inputs.ledger(view, "long_short")
    returns = np.empty(0) if ledger is None else ledger.window(window).returns
    m = moments(returns) if access.ledger else None
    if not access.ledger:
        reason = withheld("ledger", "significance", warnings)
    elif ledger is None:
        reason = "the run has no long_short ledger"
    else:
        reason = "fewer than 3 daily returns with variance in the window"
    benchmark = sr_benchmark / math.sqrt(per_year)
    alternative = sr_benchmark + POWER_ALTERNATIVE_EXCESS
    n_trials = seen.count if trials_override is None else trials_override
    variance = seen.sharpe_variance
    trl = math.nan if m is None else min_track_record(m, benchmark)
    expected = sharpe_inference.expected_max_sharpe(n_trials, variance)
    # A moment is measured but the Sharpe ratio's variance is not: |rho| reached 1, or the variance
    # factor is not positive at the Sharpe ratio the figure evaluates it at
    no_variance = (
        "the Sharpe ratio's variance is not measurable: the serial correlation of the daily returns is not "
        "within (-1, 1) or its variance factor is not positive"
    )
    short = None if m is None else sharpe_inference.inference_reason(m.n)
    variance_reason = reason if m is None else short or no_variance
    dsr_reason = variance_reason
    effective = seen.effective if access.ledger else None
    effective_reason = variance_reason
    if m is not None and effective is None:
        effective_reason = (
            "the catalogue generation records no correlation links of its trials (written before them, "
            "or too large to link at a publish); an operator writes them with `alpha-results lake index`"
        )
    elif m is not None and effective is not None and effective < 2:
        effective_reason = "fewer than 2 effective trials: no expected maximum Sharpe ratio"
    if m is not None and not math.isfinite(variance):
        dsr_reason = (
            "fewer than 2 alphas this key may read have a measurable Sharpe ratio, so the variance of the "
            "trials' Sharpe ratios is unknown"
        )
        effective_reason = dsr_reason
    if short is not None:  # the window's count comes first: nothing below is measured on it
        dsr_reason = effective_reason = short
    return Significance(
        alpha=view.alpha_id,
        source_alpha_id=str(view.entry.get("source_alpha_id") or view.alpha_id),
        book="long_short",
        window=window_echo(window),
        # The window's sessions, as /portfolio and costs count them (the figures need 3 of them)
        sessions=int(returns.size) if access.ledger else None,  # withheld: a count of the ledger
        sharpe=declared_stat(
            Significance,
            "sharpe",
            None if m is None else m.sharpe * math.sqrt(per_year),
            reason,
            periods_per_year=per_year,
        ),
        skewness=declared_stat(Significance, "skewness", None if m is None else m.skewness, reason),
        kurtosis=declared_stat(
            Significance,
            "kurtosis",
            None if m is None else m.kurtosis,
            reason
            if m is None
            else f"the window holds {m.n} daily returns: their kurtosis needs {sharpe_inference.KURTOSIS_FROM} "
            "(below, it is fixed by construction)",
        ),
        serial_correlation=declared_stat(
            Significance,
            "serial_correlation",
            None if m is None else m.serial_correlation,
            reason
            if m is None
            else f"the window holds {m.n} daily returns: their lag-1 correlation needs "
            f"{sharpe_inference.SERIAL_CORRELATION_FROM} (over 2 pairs it is +-1 by construction)"
            if m.n < sharpe_inference.SERIAL_CORRELATION_FROM
            else "the lag-1 correlation of the daily returns is not measurable",
        ),
        sharpe_standard_error=declared_stat(
            Significance,
            "sharpe_standard_error",
            None if m is None else standard_error(m) * math.sqrt(per_year),
            variance_reason,
            periods_per_year=per_year,
        ),
        psr=declared_stat(
            Significance,
            "psr",
            None if m is None else psr(m, benchmark),
            variance_reason,
            sr_benchmark=sr_benchmark,
        ),
        min_track_record=declared_stat(
            Significance,
            "min_track_record",
            trl,
            variance_reason
            if m is None or m.sharpe > benchmark
            else "the Sharpe ratio does not exceed sr_benchmark: no track record suffices",
            confidence=MIN_TRL_CONFIDENCE,
            sr_benchmark=sr_benchmark,
            years=number(trl / per_year),
        ),
        min_backtest_length=declared_stat(
            Significance,
            "min_backtest_length",
            None
            if m is None
            else sharpe_inference.min_backtest_length(n_trials, m.sharpe * math.sqrt(per_year)),
            reason
            if m is None
            else "fewer than 2 trials"
            if n_trials < 2
            else "the Sharpe ratio is not positive: no backtest length tells it from the search's luck",
            trial_count=n_trials,
        ),
        critical_sharpe=declared_stat(
            Significance,
            "critical_sharpe",
            None if m is None else critical_sharpe(m, benchmark) * math.sqrt(per_year),
            variance_reason,
            confidence=MIN_TRL_CONFIDENCE,
            sr_benchmark=sr_benchmark,
        ),
        power=declared_stat(
            Significance,
            "power",
            None if m is None else power(m, benchmark, alternative / math.sqrt(per_year)),
            variance_reason,
            confidence=MIN_TRL_CONFIDENCE,
            sr_benchmark=sr_benchmark,
            sr_alternative=alternative,
        ),
        dsr=declared_stat(
            Significance,
            "dsr",
            None if m is None else dsr(m, n_trials, variance),
            dsr_reason,
            trials=DsrTrials(
                count=n_trials,
                count_source="catalogue" if trials_override is None else "request",
                # Built from the readable alphas' ledgers: not for a key that may not read ledgers.
                sharpe_variance=number(variance) if access.ledger else None,
                sharpe_variance_alphas=seen.sharpe_variance_alphas if access.ledger else None,
                expected_max_sharpe=number(expected * math.sqrt(per_year)) if access.ledger else None,
                effective_count=effective,
                effective_rank=_effective_rank(clusters, access),
            ),
        ),
        clustered_dsr=_clustered_dsr(m, variance_reason, clusters, per_year, access),
        dsr_family=_dsr_family(view.alpha_id, m, reason, family, per_year, access),
        effective_dsr=declared_stat(
            Significance,
            "effective_dsr",
            None if m is None or effective is None else dsr(m, effective, variance),
            effective_reason,
        ),
        bootstrap=_bootstrap(view, window, access, warnings),
        multiple_testing=_multiple_testing(seen, access, warnings),
        sharpe_haircut=_sharpe_haircut(m, reason, seen, per_year, access),
    )


HAIRCUT_METHOD = (
    'Harvey and Liu (2015), "Backtesting" (Journal of Portfolio Management 42(1)), as their code and mlfinlab\'s '
    "CampbellBacktesting.haircut_sharpe_ratios: Bonferroni, Holm and BHY adjustments of the Sharpe ratio's "
    "monthly t-ratio, the other tests simulated with Harvey, Liu and Zhu's (2016) model"
)


def first_use(seen: Seen) -> None:
    """What the significance answer computes once per worker, whatever the alpha and its numbers:
    the haircut's simulated panel for the M tests `seen` counts (only an alpha with a positive
    Sharpe ratio asks it) and the bootstrap's kept streams in full (an alpha with a longer history
    than another grows them). A server worker's warm-up asks it (serve/warm.py), so the first
    request after a start does not pay them (issue 81, item 10)."""
    haircut.prepare(seen.sharpe_variance_alphas)
    for stream in uncertainty.STREAM_IDS:
        bootstrap.fill_kept(bootstrap.SEED, stream)


def _sharpe_haircut(
    m: Moments | None, reason: str, seen: Seen, per_year: int, access: Access
) -> SharpeHaircut:
    """Harvey and Liu's haircut of the window's Sharpe ratio among the M tests the key may see
    (`analytics.haircut`): M the readable alphas with a measurable Sharpe ratio, as V's."""
    tests = seen.sharpe_variance_alphas
    found = (
        None if m is None else haircut.haircut_sharpe(m.sharpe, m.n, per_year, m.serial_correlation, tests)
    )
    if m is not None and found is None:
        observed = haircut.months(m.n, per_year)
        if observed < 2:
            reason = f"the window holds {observed} month(s) of sessions: the monthly t-ratio needs 2"
        elif tests < 1:
            reason = "no alpha this key may read has a measurable Sharpe ratio: no tests to adjust for"
        elif not -1.0 < m.serial_correlation < 1.0:
            reason = "the serial correlation of the daily returns is not within (-1, 1)"
        else:
            reason = "the Sharpe ratio is not above 0: the haircut is of a positive Sharpe ratio's one-sided p-value"

    def stat(
        body: type[SharpeHaircut] | type[HaircutMethod], name: str, value: float | None, why: str = reason
    ) -> AnalyticsStat:
        return declared_stat(body, name, value, why)

    def method(key: str) -> HaircutMethod:
        why = reason
        if found is not None and found.simulations == 0:  # `haircut.MAX_SIMULATED_TESTS`
            why = (
                f"{tests:,} tests: the other tests' p-values are simulated for at most "
                f"{haircut.MAX_SIMULATED_TESTS:,} (a bounded panel); Bonferroni, exact, is served"
            )
        return HaircutMethod(
            adjusted_p_value=stat(
                HaircutMethod, "adjusted_p_value", None if found is None else found.adjusted[key], why
            ),
            adjusted_p_value_monte_carlo_error=stat(
                HaircutMethod,
                "adjusted_p_value_monte_carlo_error",
                None if found is None else found.monte_carlo_error[key],
                why,
            ),
            haircut_sharpe=stat(
                HaircutMethod, "haircut_sharpe", None if found is None else found.haircut_sharpe[key], why
            ),
            haircut_share=stat(
                HaircutMethod, "haircut_share", None if found is None else found.haircut[key], why
            ),
        )

    return SharpeHaircut(
        method=HAIRCUT_METHOD,
        frequency="monthly",
        tested_sharpe=stat(SharpeHaircut, "tested_sharpe", None if found is None else found.annual_sharpe),
        sharpe_t_ratio=stat(SharpeHaircut, "sharpe_t_ratio", None if found is None else found.t_ratio),
        sharpe_p_value=stat(SharpeHaircut, "sharpe_p_value", None if found is None else found.p_value),
        bonferroni_haircut=method("bonferroni"),
        holm_haircut=method("holm"),
        bhy_haircut=method("bhy"),
        average_haircut=method("average"),
        tests=tests if access.ledger else None,
        test_correlation=haircut.DEFAULT_CORRELATION,
        observed_months=None if m is None else haircut.months(m.n, per_year),
        # A function of M: withheld with it (the count of the readable ledgers' Sharpe ratios)
        simulations=haircut.simulations_for(tests) if access.ledger else haircut.SIMULATIONS,
        seed=haircut.SEED,
    )


def _effective_rank(clusters: Clustered | None, access: Access) -> float | None:
    return None if clusters is None or not access.ledger else number(clusters.effective_rank)


def _clustered_dsr(
    m: Moments | None, reason: str, clusters: Clustered | None, per_year: int, access: Access
) -> AnalyticsStat:
    """The DSR as López de Prado and Lewis (2019) deflate: K the clusters of the trials, V the
    variance of the clusters' Sharpe ratios (`Clustered`)."""
    count = 0 if clusters is None or not access.ledger else clusters.count
    variance = math.nan if clusters is None or not access.ledger else clusters.sharpe_variance
    expected = sharpe_inference.expected_max_sharpe(count, variance)
    short = None if m is None else sharpe_inference.inference_reason(m.n)
    if short is not None:
        reason = short
    elif m is not None and clusters is None:
        reason = (
            "the catalogue generation records no correlation links of its trials (written before them, "
            "or too large to link at a publish); an operator writes them with `alpha-results lake index`"
        )
    elif m is not None and clusters is not None and clusters.count < 2:
        reason = "fewer than 2 effective trials: no expected maximum Sharpe ratio"
    elif m is not None and not math.isfinite(variance):
        reason = (
            "fewer than 2 clusters of the trials this key may read have a measurable Sharpe ratio, so the "
            "variance of the clusters' Sharpe ratios is unknown"
        )
    value = None if m is None or clusters is None or count < 2 else dsr(m, count, variance)
    return declared_stat(
        Significance,
        "clustered_dsr",
        value,
        reason,
        trials=DsrTrials(
            count=count,
            count_source="clusters",
            sharpe_variance=number(variance) if access.ledger and clusters is not None else None,
            sharpe_variance_alphas=clusters.sharpe_variance_clusters
            if access.ledger and clusters is not None
            else None,
            expected_max_sharpe=number(expected * math.sqrt(per_year))
            if access.ledger and clusters is not None
            else None,
            effective_count=None if clusters is None or not access.ledger else clusters.count,
            effective_rank=_effective_rank(clusters, access),
        ),
    )


def _dsr_family(
    alpha: str, m: Moments | None, reason: str, family: FamilyTrials | None, per_year: int, access: Access
) -> AnalyticsStat:
    """The DSR over the alpha's own family's trials: N its members the key may read with a
    measurable Sharpe ratio, V the variance of their Sharpe ratios (`FamilyTrials`)."""
    count = 0 if family is None else family.count
    variance = math.nan if family is None else family.sharpe_variance
    expected = sharpe_inference.expected_max_sharpe(count, variance)
    short = None if m is None else sharpe_inference.inference_reason(m.n)
    if short is not None:
        reason = short
    elif m is not None and family is None:
        reason = NOT_IN_A_FAMILY.format(alpha=alpha)
    elif m is not None and family is not None and count < MIN_FAMILY_TRIALS:
        reason = (
            f"fewer than {MIN_FAMILY_TRIALS} members of family {family.family} this key may read have a "
            "measurable Sharpe ratio, so the variance of the trials' Sharpe ratios is unknown"
        )
    return declared_stat(
        Significance,
        "dsr_family",
        None if m is None or family is None else dsr(m, count, variance),
        reason,
        trials=DsrTrials(
            count=count,
            count_source="family",
            sharpe_variance=number(variance) if access.ledger else None,
            sharpe_variance_alphas=count if access.ledger else None,
            expected_max_sharpe=number(expected * math.sqrt(per_year)) if access.ledger else None,
            effective_count=None,
        ),
    )


BOOTSTRAP_FIGURES = frozenset({"information_ratio", "rebuilt_mean_ic", "rebuilt_icir"})
"""The intervals the bootstrap block serves: a window computes these alone (its maximum drawdown's
resamples were 1/4 of the answer's time, never served here)."""


def _bootstrap(view: BuildView, window: Window, access: Access, warnings: Warnings) -> Bootstrap:
    """The long_short book's intervals of `/analytics/uncertainty` (the same resamples: the two
    routes agree), computed once per build for the whole history, per request for a window."""
    ic = inputs.weekly_ic(view)
    ic_reason = "the run has no weekly IC (no rebalance cross-sections)" if ic is None else ""
    if not access.cross_sections:
        ic_reason = withheld("cross_sections", "significance.bootstrap", warnings)
    elif ic is not None:
        uncertainty.warn_if_ic_does_not_reproduce(
            view,
            warnings,
            "significance.bootstrap",
            "bootstrap.rebuilt_mean_ic and bootstrap.rebuilt_icir are computed from that rebuilt weekly IC, "
            "and multiple_testing has no nwt.ic p-value to adjust.",
        )
    ir_reason = "" if access.ledger else withheld("ledger", "significance.bootstrap", warnings)
    if access.ledger and inputs.ledger(view, "long_short") is None:
        ir_reason = "the run has no long_short ledger"
    found = uncertainty.intervals(view, "long_short", window, access, BOOTSTRAP_FIGURES)
    return Bootstrap(
        method=uncertainty.METHOD,
        confidence=bootstrap.CONFIDENCE,
        resamples=bootstrap.RESAMPLES,
        seed=bootstrap.SEED,
        block_length_rule=BLOCK_LENGTH_RULE,
        streams=uncertainty.STREAMS + " (as /analytics/uncertainty of the long_short book)",
        rebuilt_mean_ic=uncertainty.stat(Bootstrap, "rebuilt_mean_ic", found, ic_reason),
        rebuilt_icir=uncertainty.stat(Bootstrap, "rebuilt_icir", found, ic_reason),
        information_ratio=uncertainty.stat(Bootstrap, "information_ratio", found, ir_reason),
    )


def _multiple_testing(seen: Seen, access: Access, warnings: Warnings) -> MultipleTesting:
    own = holm = bh = None
    if not access.cross_sections:
        reason = withheld("cross_sections", "significance.multiple_testing", warnings)
    else:
        reason = "nwt.ic of this alpha is not measurable (see /metrics), so there is no p-value to adjust"
    if access.cross_sections and seen.own is not None:
        own = float(seen.family[seen.own])
        holm, bh = multiple_testing.adjusted_at(seen.family, seen.own)  # one sort, no argsort
    size = int(seen.family.size) if access.cross_sections else None
    return MultipleTesting(
        p_value=declared_stat(MultipleTesting, "p_value", own, reason),
        holm=declared_stat(MultipleTesting, "holm", holm, reason, family_size=size),
        benjamini_hochberg=declared_stat(MultipleTesting, "benjamini_hochberg", bh, reason, family_size=size),
    )
