"""Probabilistic and Deflated Sharpe ratios and the minimum track record length.

Bailey, D. H. and López de Prado, M. (2012), "The Sharpe Ratio Efficient Frontier", Journal of
Risk 15(2): PSR and MinTRL. Bailey, D. H. and López de Prado, M. (2014), "The Deflated Sharpe
Ratio", Journal of Portfolio Management 40(5): DSR. Sharpe ratios here are per observation
(per session), never annualised; skewness and kurtosis are the sample moments (biased
estimators, kurtosis not in excess), as in the papers.

`significance_payload` is `/analytics/significance`: PSR, MinTRL and DSR of the long_short daily
returns, bootstrap intervals of the IC and the information ratio, and the nwt.ic p-value adjusted
for the trials. The catalogue figures (`Seen`): the DSR's trial count N is the whole published
catalogue's (a count: deflating by fewer trials than were run would flatter the Sharpe ratio); the
variance V of the trials' Sharpe ratios and the Holm and Benjamini-Hochberg family are over the
alphas the caller may read. Both are functions of other alphas' values: over the whole catalogue,
a caller that may read every alpha but one solves V for the hidden alpha's Sharpe ratio (one
quadratic), and an adjusted p-value for its p-value. `dsr_family` (`FamilyTrials`, issue 65)
deflates by the alpha's own trial family instead: N its members the caller may read with a
measurable Sharpe ratio, V their variance, so an unrelated publish leaves it as it was.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from analytics import bootstrap, inputs, multiple_testing, trial_clusters, uncertainty
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, declared_stat, number, window_echo
from analytics.overfitting import NOT_IN_A_FAMILY
from analytics.variance import measurable_std
from datasets.catalogue_snapshot import Trials
from datasets.queries import Window
from datasets.reader import BuildView
from schemas.bodies.analytics import AnalyticsStat, DsrTrials
from schemas.bodies.significance import Bootstrap, MultipleTesting, Significance
from schemas.bodies.uncertainty import BLOCK_LENGTH_RULE

EULER_GAMMA = 0.5772156649015329
INCREMENTAL_FROM = 20_000
"""Alphas from which a key reading every alpha is answered the variance V of the trials' Sharpe
ratios from the generation's exact sums (kept by every publish: `datasets.trial_sums`) instead of
a pass over the column; equal within 1e-12 (the exact variance rounded once, against numpy's
pairwise sum), and below it every answer is the pass as recorded (tests/equality)."""
MIN_TRL_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Moments:
    n: int
    sharpe: float  # mean / std(ddof=1), per observation
    skewness: float
    kurtosis: float  # Pearson (3 for a normal distribution)


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
    return Moments(
        n=int(x.size),
        sharpe=float(np.mean(x)) / sd,
        skewness=float(stats.skew(x, bias=True)),
        kurtosis=float(stats.kurtosis(x, fisher=False, bias=True)),
    )


def _dispersion(m: Moments) -> float:
    """1 - skew * SR + (kurtosis - 1) / 4 * SR^2: the variance factor of the Sharpe estimate."""
    return 1.0 - m.skewness * m.sharpe + (m.kurtosis - 1.0) / 4.0 * m.sharpe**2


def psr(m: Moments, benchmark: float) -> float:
    """P(true Sharpe > benchmark) = Phi((SR - SR*) sqrt(n - 1) / sqrt(dispersion))."""
    from scipy import stats  # when used: ~1 s to import (development.md)

    d = _dispersion(m)
    if not d > 0:
        return math.nan
    return float(stats.norm.cdf((m.sharpe - benchmark) * math.sqrt(m.n - 1) / math.sqrt(d)))


def min_track_record(m: Moments, benchmark: float, confidence: float = MIN_TRL_CONFIDENCE) -> float:
    """Observations needed for PSR(benchmark) to reach `confidence`:
    1 + dispersion * (z_confidence / (SR - SR*))^2; NaN when SR <= SR*."""
    from scipy import stats  # when used: ~1 s to import (development.md)

    if not m.sharpe > benchmark:
        return math.nan
    z = float(stats.norm.ppf(confidence))
    return 1.0 + _dispersion(m) * (z / (m.sharpe - benchmark)) ** 2


def expected_max_sharpe(trials: int, sharpe_variance: float) -> float:
    """E[max of `trials` Sharpe ratios] under the null of no skill:
    sqrt(V) * ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e)))."""
    from scipy import stats  # when used: ~1 s to import (development.md)

    if trials < 2 or not sharpe_variance >= 0:
        return math.nan
    n = float(trials)
    return math.sqrt(sharpe_variance) * (
        (1.0 - EULER_GAMMA) * float(stats.norm.ppf(1.0 - 1.0 / n))
        + EULER_GAMMA * float(stats.norm.ppf(1.0 - 1.0 / (n * math.e)))
    )


def dsr(m: Moments, trials: int, sharpe_variance: float) -> float:
    """PSR against the expected maximum Sharpe ratio of `trials` unskilled trials."""
    return psr(m, expected_max_sharpe(trials, sharpe_variance))


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


def significance_payload(
    view: BuildView,
    window: Window,
    sr_benchmark: float,
    trials_override: int | None,
    seen: Seen,
    access: Access,
    warnings: Warnings,
    family: FamilyTrials | None = None,
) -> Significance:
    """`family`: the trials of the alpha's family (None: its seal names none)."""
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
    n_trials = seen.count if trials_override is None else trials_override
    variance = seen.sharpe_variance
    trl = math.nan if m is None else min_track_record(m, benchmark)
    expected = expected_max_sharpe(n_trials, variance)
    dsr_reason = reason
    effective = seen.effective if access.ledger else None
    effective_reason = reason
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
        kurtosis=declared_stat(Significance, "kurtosis", None if m is None else m.kurtosis, reason),
        psr=declared_stat(
            Significance, "psr", None if m is None else psr(m, benchmark), reason, sr_benchmark=sr_benchmark
        ),
        min_track_record=declared_stat(
            Significance,
            "min_track_record",
            trl,
            reason
            if m is None
            else "the Sharpe ratio does not exceed sr_benchmark: no track record suffices",
            confidence=MIN_TRL_CONFIDENCE,
            sr_benchmark=sr_benchmark,
            years=number(trl / per_year),
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
            ),
        ),
        dsr_family=_dsr_family(view.alpha_id, m, reason, family, per_year, access),
        effective_dsr=declared_stat(
            Significance,
            "effective_dsr",
            None if m is None or effective is None else dsr(m, effective, variance),
            effective_reason,
        ),
        bootstrap=_bootstrap(view, window, access, warnings),
        multiple_testing=_multiple_testing(seen, access, warnings),
    )


def _dsr_family(
    alpha: str, m: Moments | None, reason: str, family: FamilyTrials | None, per_year: int, access: Access
) -> AnalyticsStat:
    """The DSR over the alpha's own family's trials: N its members the key may read with a
    measurable Sharpe ratio, V the variance of their Sharpe ratios (`FamilyTrials`)."""
    count = 0 if family is None else family.count
    variance = math.nan if family is None else family.sharpe_variance
    expected = expected_max_sharpe(count, variance)
    if m is not None and family is None:
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
    found = uncertainty.intervals(view, "long_short", window, access)
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
