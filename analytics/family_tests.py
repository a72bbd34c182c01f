"""Which members of a trial family are indistinguishable from the best, and how stable the family's
Sharpe ratio is across its parameters (issue 62, item 5; docs/analytics.md "Family tests").

The members are a family's trials the reader may read, on the sessions every one of them has a
daily long_short return (R: T sessions x k members, the same common sessions as the probability of
backtest overfitting's). Losses are the negated returns, L = -R, so the best member is the one of
highest mean daily return.

- **SPA** (Hansen 2005, "A test for superior predictive ability", JBES 23(4)): H0 no member beats
  the benchmark, here the family itself: each session's equal-weighted mean return of the members
  compared (the members the reader may read), so d_k = r_k - mean_j r_j. Hansen's studentized
  statistic T_SPA = max(max_k sqrt(T) mean(d_k) / omega_k, 0), omega_k^2 the stationary bootstrap's
  kernel variance of d_k (Politis and Romano 1994, as arch computes it); the consistent p-value
  re-centres the resamples only of the members whose mean is not too far below zero (mean(d_k) >=
  -sqrt(omega_k^2 / T * 2 ln ln T)). Below 0.05: some variant beats the family's average variant
  by more than the search over k variants explains, i.e. the parameter matters. (Against a zero
  return, the demo's planted family's best variant, Sharpe 0.7 over 5.6 years, is not significant
  alone, and every noise variant loses its costs.) `arch.bootstrap.SPA` 8.0 computes the p-values
  unstudentized whatever its `studentize`: `spa(..., studentize=False)` is that form, which the
  tests compare with arch on the same indices; the studentized one against a plain loop.
- **StepM** (Romano and Wolf 2005, "Stepwise multiple testing as formalized data snooping",
  Econometrica 73(4)): the members whose studentized statistic beats the (1 - size) quantile of the
  resampled re-centred maximum over the members not yet found superior, step after step (arch's
  StepM steps; arch's statistic is unstudentized): the variants better than the family's average.
- **MCS** (Hansen, Lunde and Nason 2011, "The model confidence set", Econometrica 79(2)), the
  range statistic T_R: pairwise differences of mean losses standardised by their bootstrap
  variance, the member of the largest standardised difference eliminated step by step; a member's
  MCS p-value is the largest elimination p-value up to its own (1 for the last); in the set at
  `SIZE` when it exceeds SIZE (arch's MCS, method "R").

Every resample comes from the project's stationary bootstrap (`analytics.bootstrap.draw_blocks`,
stream STREAM of the project's seed), the same rows of sessions for every member (so their
dependence is kept), RESAMPLES of them, of mean block length the mean over the members of
Politis and White's automatic choice (`bootstrap.block_length`). A resample's means of the members
are its count of each session times the returns (`resampled_means`), never a laid-out resample.

Parameter stability: for each parameter the members' seals name, the members' annualised Sharpe
ratio (mean / standard deviation, ddof 1, of the common sessions' daily returns, x sqrt(252))
against the parameter's value: the Spearman rank correlation (average ranks) and the neighbour
deviation, mean_i |SR_i - mean(SR_j, j a neighbour of i)| / sd(SR) over the members with a
neighbour, i's neighbours the members at the next lower and next higher value of the parameter
whose other parameters equal i's (0: each member's Sharpe ratio is its neighbours' mean; about 1
when neighbours are unrelated).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics import bootstrap
from analytics.entries import declared_stat
from analytics.overfitting import common_sessions
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.family_tests import (
    FamilyTestMember,
    FamilyTests,
    ParameterStability,
)
from schemas.conventions import SESSIONS_PER_YEAR

MIN_MEMBERS = 2
"""Members the tests need: a comparison of one member with itself is none."""
MIN_SESSIONS = 20
"""Common sessions below which no test is run (a month of sessions)."""
RESAMPLES = 1000
"""Resamples of the stationary bootstrap (arch's default for SPA, StepM and MCS)."""
SIZE = 0.05
"""The level of StepM (family-wise error rate) and of the model confidence set."""
STREAM = 3
"""The project seed's stream of these resamples (0 and 1: /analytics/uncertainty, 2: drawdown odds)."""
KEPT = 64
"""Family results a worker keeps (one per catalogue generation and members)."""


@dataclass(frozen=True)
class Resampled:
    """The members' stationary-bootstrap resamples: rows of blocks (start, length) of one shared
    draw, and each resample's mean of each member."""

    block: float
    starts: np.ndarray
    lengths: np.ndarray
    means: np.ndarray  # (resamples, k)


def resample_family(returns: np.ndarray, count: int = RESAMPLES) -> Resampled:
    """`count` stationary-bootstrap resamples of the rows (sessions) of `returns` (T x k), one draw
    shared by every member, and each resample's mean of each member."""
    t, k = returns.shape
    block = float(np.mean([bootstrap.block_length(returns[:, j]) for j in range(k)]))
    starts, lengths = bootstrap.draw_blocks(bootstrap.generator(bootstrap.SEED, STREAM), t, count, block)
    return Resampled(block, starts, lengths, resampled_means(returns, starts, lengths))


def resampled_means(returns: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(resamples, k): each resample's mean of each column of `returns` (every value finite).

    Every member shares the resamples, so a resample is its count of each session, C (resamples x
    T), and its means C @ R / T: one matrix product for all the members. C is made from the blocks
    without laying them out: +1 at each block's start and -1 past its end on the series laid twice
    (a block wraps), a running sum along each row, the second copy folded onto the first."""
    t = returns.shape[0]
    count = starts.shape[0]
    width = 2 * t + 1
    row = np.arange(count, dtype=np.int64)[:, None] * width
    used = lengths > 0
    begin = (row + starts)[used]
    end = (row + starts + lengths)[used]
    marks = np.bincount(begin, minlength=count * width) - np.bincount(end, minlength=count * width)
    laid = np.cumsum(marks.reshape(count, width)[:, : 2 * t], axis=1)
    counts = (laid[:, :t] + laid[:, t:]).astype(np.float64)
    return np.asarray(counts @ returns) / t


def kernel_variance(d: np.ndarray, block: float) -> np.ndarray:
    """Per column of `d` (T x k), the stationary bootstrap's variance of sqrt(T) mean(d) (Politis and
    Romano 1994): gamma_0 + 2 sum_{i=1}^{T-1} kappa_i gamma_i, gamma_i = sum_t e_t e_{t+i} / T (e the
    demeaned column), kappa_i = (1 - i/T)(1 - p)^i + (i/T)(1 - p)^(T - i), p = 1 / block. The
    autocovariances by FFT."""
    t = d.shape[0]
    e = d - d.mean(axis=0)
    size = 1 << int(math.ceil(math.log2(2 * t)))
    spectrum = np.fft.rfft(e, n=size, axis=0)
    gamma = np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=0)[:t] / t
    i = np.arange(1, t)
    p = 1.0 / block
    kappa = (1.0 - i / t) * (1.0 - p) ** i + (i / t) * (1.0 - p) ** (t - i)
    return np.asarray(gamma[0] + 2.0 * (kappa @ gamma[1:]))


@dataclass(frozen=True)
class Spa:
    lower: float
    consistent: float
    upper: float
    statistics: np.ndarray  # (k): each member's statistic (t_k studentized, else mean(d_k))
    simulated: np.ndarray  # (resamples, k): the consistent re-centred resampled statistics


def spa(d: np.ndarray, means: np.ndarray, block: float, studentize: bool = True) -> Spa:
    """Hansen's SPA p-values (lower, consistent, upper) of loss differentials `d` (T x k, benchmark
    loss minus each member's) from the resampled means of d (`means`, resamples x k).

    Studentized (Hansen 2005, the served form): t_k = sqrt(T) mean(d_k) / omega_k, T_SPA =
    max(max_k t_k, 0), each resample's max(max_k sqrt(T) (mean*(d_k) - mu_k) / omega_k, 0), p = the
    share of resamples above T_SPA. Not studentized (`arch.bootstrap.SPA` 8.0's computation, whatever
    its `studentize`): the statistic max_k mean(d_k), each resample's max_k (mean*(d_k) - mu_k).
    p = 1 when the studentized T_SPA is 0 (no member above the benchmark).
    mu_k: lower max(mean(d_k), 0), consistent mean(d_k) if mean(d_k) >= -sqrt(omega_k^2 / T * 2 ln ln T)
    else 0, upper mean(d_k)."""
    t = d.shape[0]
    mean = d.mean(axis=0)
    variance = kernel_variance(d, block)
    valid = mean >= -np.sqrt(variance / t * 2.0 * math.log(math.log(t)))
    if studentize:
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(variance > 0, math.sqrt(t) / np.sqrt(variance), 0.0)
        floor = 0.0
    else:
        scale, floor = np.ones_like(mean), -np.inf
    statistics = mean * scale
    statistic = max(float(np.max(statistics)), floor)
    found = []
    for centre in (np.maximum(mean, 0.0), np.where(valid, mean, 0.0), mean):
        simulated = np.maximum(np.max((means - centre) * scale, axis=1), floor)
        # T_SPA = 0 (no member above the benchmark) is no evidence against H0: p = 1, not the share of
        # resamples above 0 (which the strict inequality would give, spuriously small).
        found.append(1.0 if statistic == floor else float(np.mean(simulated > statistic)))
    return Spa(found[0], found[1], found[2], statistics, (means - np.where(valid, mean, 0.0)) * scale)


MONTE_CARLO_ERRORS = 2.0
"""Monte Carlo standard errors of a simulated p-value within which its verdict at the cut-off
(test_size) is marked as within Monte Carlo error: another draw of the resamples could turn it."""


MCS_ERROR_BATCHES = 10
"""Batches of the resamples (every 10th of the 1,000, 100 each) over which the model confidence set's
p-values' Monte Carlo error is measured: the MCS standardises by variances estimated from the same
resamples and keeps the largest elimination p-value, so its p-values vary between draws more than a
binomial share does (1.5 times its error on a synthetic family: tests/analytics/test_family_tests.py).
Batch means cost one more MCS; 16 independent draws cost 16 (4 s on a family of 24)."""


def monte_carlo_error(p: float, resamples: int = RESAMPLES) -> float:
    """The Monte Carlo standard error of a p-value estimated as the share of `resamples` resamples
    drawn independently given the data, whose statistic and re-centring the resamples do not move
    (SPA's and StepM's): the binomial sqrt(p (1 - p) / B). What another seed moves the p-value by
    (tests/analytics/test_family_tests.py measures it over 40 streams); 0 at p = 0 or 1."""
    return math.sqrt(max(p * (1.0 - p), 0.0) / resamples)


def mcs_monte_carlo_errors(losses_mean: np.ndarray, resampled_losses: np.ndarray) -> np.ndarray:
    """(k): each member's MCS p-value's Monte Carlo standard error, measured by batch means: the
    standard deviation (ddof 1) of its p-value over MCS_ERROR_BATCHES batches of the resamples (the
    resamples' means `resampled_losses` as `mcs` takes them), over the square root of their count.
    Within about 20% of the spread over independent draws (the tests: 0.8 to 1.04 of it)."""
    g = MCS_ERROR_BATCHES
    batches = np.array([mcs(losses_mean, resampled_losses[b::g]) for b in range(g)])
    return np.asarray(np.std(batches, axis=0, ddof=1) / math.sqrt(g))


def within_monte_carlo_error(p: float, error: float, cut: float = SIZE) -> bool:
    """Whether the p-value `p` lies within MONTE_CARLO_ERRORS of its Monte Carlo standard error
    `error` of the cut-off `cut`: its verdict (below the cut or not) is not settled by the
    resamples drawn."""
    return abs(p - cut) <= MONTE_CARLO_ERRORS * error


@dataclass(frozen=True)
class StepM:
    """StepM's verdicts and each member's p-value at its last step."""

    superior: list[int]  # the members found superior (column indices, ascending)
    p_values: np.ndarray  # (k): the share of the resampled maxima of the step that decided the
    # member (found superior, or the last step it was compared at) above its statistic


def stepm(statistics: np.ndarray, simulated: np.ndarray, size: float = SIZE) -> StepM:
    """Romano and Wolf's StepM over the consistent re-centred resamples (`Spa.simulated`, and
    `Spa.statistics`): the members (column indices, ascending) whose statistic exceeds the
    (1 - size) quantile (linear interpolation) of the resampled maximum over the members not yet
    found, step after step (arch's StepM when not studentized); and each member's p-value against
    the resampled maximum of the step that decided it (below `size` as it is found superior, up to
    the quantile's interpolation: Monte Carlo error)."""
    k = statistics.size
    p_values = np.full(k, np.nan)

    def better(selected: np.ndarray) -> list[int]:
        maxima = np.max(simulated[:, selected], axis=1)
        critical = float(np.percentile(maxima, 100.0 * (1.0 - size)))
        at = np.flatnonzero(selected)
        p_values[at] = np.mean(maxima[:, None] > statistics[at][None, :], axis=0)
        return [int(i) for i in np.flatnonzero((statistics > critical) & selected)]

    found = better(np.ones(k, dtype=bool))
    every = found[:]
    while found and len(found) < k and len(every) < k:
        selected = np.ones(k, dtype=bool)
        selected[every] = False
        found = better(selected)
        every.extend(found)
    return StepM(sorted(every), p_values)


def mcs(losses_mean: np.ndarray, resampled_losses: np.ndarray) -> np.ndarray:
    """The model confidence set's p-value of each member (Hansen, Lunde and Nason's T_R): from the
    mean losses (k) and each resample's mean losses (resamples x k)."""
    k = losses_mean.size
    diffs = losses_mean[:, None] - losses_mean[None, :]
    resampled = resampled_losses[:, :, None] - resampled_losses[:, None, :] - diffs
    variances = (resampled**2).mean(axis=0) + np.eye(k)
    scale = np.sqrt(variances)
    standard, standard_resampled = diffs / scale, resampled / scale
    included = np.ones(k, dtype=bool)
    order: list[tuple[int, float]] = []
    while included.sum() > 1:
        at = np.flatnonzero(included)
        block = standard[np.ix_(at, at)]
        statistic = float(np.max(block))
        simulated = np.max(standard_resampled[:, at][:, :, at], axis=(1, 2))
        p = float(np.mean(statistic < simulated))
        worst = int(at[np.argwhere(block == statistic)[0][0]])
        order.append((worst, p))
        included[worst] = False
    order.extend((int(i), 1.0) for i in np.flatnonzero(included))
    pvalues = np.empty(k)
    running = 0.0
    for member, p in order:
        running = max(running, p)
        pvalues[member] = running
    return pvalues


@dataclass(frozen=True)
class Tests:
    """The figures of one family's tests, kept per (catalogue generation, members)."""

    sessions: int
    block: float
    spa: Spa | None
    superior: list[int]
    mcs_pvalues: np.ndarray | None
    sharpe: np.ndarray
    stepm_pvalues: np.ndarray | None = None
    mcs_errors: np.ndarray | None = None  # (k): `mcs_monte_carlo_errors`


def family_tests(returns: np.ndarray) -> Tests:
    """SPA, StepM, MCS and the members' Sharpe ratios over `returns` (T common sessions x k members)."""
    t, k = returns.shape
    sharpe = sharpe_ratios(returns)
    if k < MIN_MEMBERS or t < MIN_SESSIONS:
        return Tests(t, math.nan, None, [], None, sharpe)
    drawn = resample_family(returns)
    # The benchmark: each session's equal-weighted mean of the members (its loss -mean(r)), so d_k =
    # r_k - mean(r) and a resample's mean of d_k is its mean of r_k less its mean of the members'.
    d = returns - returns.mean(axis=1, keepdims=True)
    found = spa(d, drawn.means - drawn.means.mean(axis=1, keepdims=True), drawn.block)
    stepped = stepm(found.statistics, found.simulated)
    pvalues = mcs(-returns.mean(axis=0), -drawn.means)
    errors = mcs_monte_carlo_errors(-returns.mean(axis=0), -drawn.means)
    return Tests(t, drawn.block, found, stepped.superior, pvalues, sharpe, stepped.p_values, errors)


def sharpe_ratios(returns: np.ndarray) -> np.ndarray:
    """Each column's annualised Sharpe ratio: mean / std (ddof 1) x sqrt(252); NaN without variance."""
    if returns.shape[0] < 2:
        return np.full(returns.shape[1], math.nan)
    sd = returns.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, returns.mean(axis=0) / sd * math.sqrt(SESSIONS_PER_YEAR), math.nan)


_kept: OrderedDict[tuple[str, tuple[str, ...]], Tests] = OrderedDict()
_kept_lock = threading.Lock()


def kept_tests(version: str, members: tuple[str, ...], values: Callable[[], np.ndarray]) -> Tests:
    """`family_tests` of `members`' common sessions (`values()`: their rows of the catalogue's
    returns matrix of generation `version`), computed once per (version, members) and kept: the
    members are the reader's, so an entry never serves another scope."""
    key = (version, members)
    with _kept_lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    found = family_tests(common_sessions(values()))
    with _kept_lock:
        _kept[key] = found
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return found


# --- parameter stability ---------------------------------------------------------------------------


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given their average rank."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(x.size)
    sorted_x = x[order]
    i = 0
    while i < x.size:
        j = i
        while j + 1 < x.size and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    """Spearman's rank correlation (Pearson's of the average ranks); None when either is constant."""
    rx, ry = average_ranks(x), average_ranks(y)
    dx, dy = rx - rx.mean(), ry - ry.mean()
    denominator = math.sqrt(float(dx @ dx) * float(dy @ dy))
    return None if denominator == 0.0 else float(dx @ dy) / denominator


def neighbour_deviation(
    values: Sequence[float], others: Sequence[tuple[Any, ...]], sharpe: np.ndarray
) -> float | None:
    """mean_i |SR_i - mean(SR of i's neighbours)| / sd(SR) (ddof 1) over the members with a
    neighbour: the members whose parameter takes the next lower or next higher value of the
    parameter among the members and whose other parameters (`others`) equal i's. None when no
    member has a neighbour or the Sharpe ratios do not vary."""
    sd = float(np.std(sharpe, ddof=1)) if sharpe.size > 1 else 0.0
    if not sd > 0.0:
        return None
    levels = sorted(set(values))
    place = {v: n for n, v in enumerate(levels)}
    deviations = []
    for i, (v, rest) in enumerate(zip(values, others, strict=True)):
        near = [
            sharpe[j]
            for j, (w, other) in enumerate(zip(values, others, strict=True))
            if other == rest and abs(place[w] - place[v]) == 1
        ]
        if near:
            deviations.append(abs(sharpe[i] - float(np.mean(near))))
    return float(np.mean(deviations)) / sd if deviations else None


def parameter_stability(parameters: list[dict[str, Any]], sharpe: np.ndarray) -> list[ParameterStability]:
    """For each parameter the members name (sorted by name), Spearman's correlation of the members'
    Sharpe ratios with its value and the neighbour deviation; a reason when not measurable."""
    names = sorted({name for p in parameters for name in p})
    found = []
    for name in names:
        present = [i for i, p in enumerate(parameters) if name in p]
        raw = [parameters[i][name] for i in present]
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
        finite = [i for n, i in enumerate(present) if numeric and math.isfinite(float(raw[n]))]
        finite = [i for i in finite if math.isfinite(float(sharpe[i]))]
        values = np.array([float(parameters[i][name]) for i in finite])
        reason = None
        rho = deviation = None
        if not numeric:
            reason = f"{name} is not a number for every member that names it"
        elif len(finite) < 3:
            reason = f"{len(finite)} member(s) with {name} and a Sharpe ratio: 3 needed"
        elif np.unique(values).size < 2:
            reason = f"{name} takes one value among the members"
        else:
            rho = spearman(values, sharpe[finite])
            others = [tuple(sorted((k, v) for k, v in parameters[i].items() if k != name)) for i in finite]
            deviation = neighbour_deviation(list(values), others, sharpe[finite])
            if rho is None:
                reason = "the members' Sharpe ratios do not vary"
        found.append(
            ParameterStability(
                parameter=name,
                members_with_parameter=len(finite),
                distinct_values=int(np.unique(values).size) if numeric else 0,
                sharpe_spearman=rho,
                neighbour_deviation=deviation,
                reason=reason,
            )
        )
    return found


# --- the answer ------------------------------------------------------------------------------------


def family_tests_payload(
    family: str | None,
    members: list[tuple[str, dict[str, Any]]],
    computed: Tests | None,
    withheld_reason: str | None,
) -> FamilyTests:
    """The answer over `members` (the family's members the reader may read with a return series,
    with their parameters) and `computed` (`kept_tests` over their returns, None when not computed);
    `withheld_reason`: why no figure is given before any is computed (access, no family)."""
    reason = withheld_reason
    k = len(members)
    if reason is None and k < MIN_MEMBERS:
        reason = (
            f"the family tests need at least {MIN_MEMBERS} members: this key may read {k} member(s) of "
            f"family {family} with daily returns"
        )
    if reason is None and computed is not None and computed.spa is None:
        reason = f"the members share {computed.sessions} sessions with a return, fewer than {MIN_SESSIONS}"
    found = None if reason is not None else computed
    reason = reason or "not measurable"

    def stat(name: str, value: float | None) -> AnalyticsStat:
        return declared_stat(FamilyTests, name, value, reason)

    pvalues = found.mcs_pvalues if found is not None and found.spa is not None else None
    superior = set(found.superior) if found is not None else set()
    stepped = found.stepm_pvalues if pvalues is not None and found is not None else None
    mcs_errors = found.mcs_errors if pvalues is not None and found is not None else None

    def error(p: float | None) -> float | None:
        return None if p is None else monte_carlo_error(p)

    def within(p: float | None, measured: float | None = None) -> bool | None:
        if p is None:
            return None
        return within_monte_carlo_error(p, monte_carlo_error(p) if measured is None else measured)

    def mcs_error(i: int) -> float | None:
        return None if mcs_errors is None else float(mcs_errors[i])

    def sharpe_of(i: int) -> float | None:
        if computed is None or withheld_reason is not None:
            return None
        value = float(computed.sharpe[i])
        return value if math.isfinite(value) else None

    rows = [
        FamilyTestMember(
            alpha_id=alpha,
            parameters=parameters,
            family_sharpe=sharpe_of(i),
            stepm_superior=None if pvalues is None else i in superior,
            stepm_p_value=None if stepped is None else float(stepped[i]),
            stepm_p_value_monte_carlo_error=error(None if stepped is None else float(stepped[i])),
            stepm_within_monte_carlo_error=within(None if stepped is None else float(stepped[i])),
            mcs_p_value=None if pvalues is None else float(pvalues[i]),
            mcs_p_value_monte_carlo_error=mcs_error(i),
            in_confidence_set=None if pvalues is None else bool(pvalues[i] > SIZE),
            mcs_within_monte_carlo_error=within(None if pvalues is None else float(pvalues[i]), mcs_error(i)),
        )
        for i, (alpha, parameters) in enumerate(members)
    ]
    stability: list[ParameterStability] = []
    if computed is not None and withheld_reason is None:
        stability = parameter_stability([p for _, p in members], computed.sharpe)
    spa_found = found.spa if found is not None else None
    return FamilyTests(
        family=family,
        compared_members=k,
        compared_sessions=0 if computed is None or withheld_reason is not None else computed.sessions,
        test_size=SIZE,
        comparison_resamples=RESAMPLES,
        comparison_block_length=None if found is None else found.block,
        spa_p_value=stat("spa_p_value", None if spa_found is None else spa_found.consistent),
        spa_p_value_lower=stat("spa_p_value_lower", None if spa_found is None else spa_found.lower),
        spa_p_value_upper=stat("spa_p_value_upper", None if spa_found is None else spa_found.upper),
        spa_p_value_monte_carlo_error=error(None if spa_found is None else spa_found.consistent),
        spa_p_value_lower_monte_carlo_error=error(None if spa_found is None else spa_found.lower),
        spa_p_value_upper_monte_carlo_error=error(None if spa_found is None else spa_found.upper),
        spa_within_monte_carlo_error=within(None if spa_found is None else spa_found.consistent),
        members=rows,
        parameters=stability,
    )
