"""The Rademacher anti-serum (issue 62, item 4): a lower bound on every alpha's Sharpe ratio and IC
at once, from the catalogue's matrices, with no trial count or clustering threshold to choose.

Paleologo, "The Elements of Quantitative Investing" (Wiley 2024), section 8.3 (Procedures 8.1 and
8.2), and "The Rademacher Anti-Serum" (SSRN 2024). Over a T x N matrix x of per-period values
(T dates, N strategies), the empirical Rademacher complexity is

    R_hat = E_eps[ sup_n |(1/T) sum_t eps_t x_{t,n}| ]

eps_t independent signs (+1 or -1 with probability 1/2), estimated by Monte Carlo over `draws`
seeded draws. The absolute value: the set of strategies is taken closed under a change of sign
(a short of an alpha is a strategy one could pick as easily), which is what gives the known answers
R_hat = E|eps'x| / T = sqrt(2 / (pi T)) for N identical unit-variance columns and
R_hat ~ sqrt(2 ln(2N) / T) for N independent ones (Massart's bound, approached as N grows).

With probability at least 1 - delta, for every n at once (theta_n the expected value of column n,
theta_hat_n = (1/T) sum_t x_{t,n} its sample mean):

    bounded, |x| <= 1 (the IC):       theta_n >= theta_hat_n - 2 R_hat - 3 sqrt(2 ln(2/delta) / T)
    sub-Gaussian (the Sharpe ratio):  theta_n >= theta_hat_n - 2 R_hat - 3 sqrt(2 ln(2/delta) / T)
                                                              - sqrt(2 ln(2N/delta) / T)

(the bounded form is the two-sided Rademacher generalisation bound, Mohri, Rostamizadeh and
Talwalkar, "Foundations of Machine Learning", theorem 3.3, for a range of width 2; the sub-Gaussian
one adds the union bound over the N columns' normalisation, Paleologo's Procedure 8.2.)

Missing dates: a date a column has no value on counts as a flat period, x = 0, and T is the number
of the matrix's dates (the catalogue's window). So theta_hat_n is the column's sum over T, not over
its own dates: an alpha with half the window's dates has its mean halved, as the bound requires (the
sup and the mean are over the same x).

Served over the alphas the key may read (issue 81, item 7): R_hat over their rows alone, T the dates
one of them has a value on, N their count, so the bound holds for every alpha the key reads at once
and nothing another team publishes moves it (`in_scope`). The generation's stored sums
(pipeline/catalogue_bound.py) are over every published alpha, and on a delta generation an upper
bound (+48 % to +64 % on the demo): the route no longer serves them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytics.access import Access, withheld
from analytics.entries import Warnings, declared_stat
from datasets.catalogue_snapshot import Matrix
from schemas.bodies.catalogue_bound import CatalogueBound

DRAWS = 256
"""Monte Carlo draws of the sign vector (the estimate's standard error is served beside it)."""
SEED = 20240
"""Seed of numpy's PCG64 generator for the draws: a generation's complexity is reproducible."""
DELTA = 0.05
"""1 - the bound's confidence: the bound holds for every alpha at once with probability 0.95."""
CHUNK = 4096
"""Columns multiplied at a time (memory: draws x CHUNK and CHUNK x T floats)."""
MIN_OBSERVATIONS = 3
"""A returns column with fewer finite values (or no variance) is not a strategy of the set."""


@dataclass(frozen=True)
class Complexity:
    """R_hat of one matrix: its estimate, the Monte Carlo standard error, T and N."""

    value: float
    standard_error: float
    dates: int  # T
    columns: int  # N: the columns with a value


def signs(draws: int, dates: int, seed: int = SEED) -> np.ndarray:
    """`draws` x `dates` Rademacher signs (float64), seeded."""
    generator = np.random.Generator(np.random.PCG64(seed))
    return (generator.integers(0, 2, size=(draws, dates), dtype=np.int8) * 2 - 1).astype(np.float64)


def unit_variance(values: np.ndarray) -> np.ndarray:
    """Rows (alphas) of a returns matrix each divided by its standard deviation (ddof 1) over its
    finite values; NaN rows where fewer than MIN_OBSERVATIONS or no variance."""
    rows = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(rows)
    counts = finite.sum(axis=1)
    filled = np.where(finite, rows, 0.0)
    means = np.divide(filled.sum(axis=1), counts, out=np.zeros(rows.shape[0]), where=counts > 0)
    squares = np.where(finite, (rows - means[:, None]) ** 2, 0.0).sum(axis=1)
    sd = np.sqrt(np.divide(squares, counts - 1, out=np.zeros(rows.shape[0]), where=counts > 1))
    usable = (counts >= MIN_OBSERVATIONS) & (sd > 0)
    out = np.full(rows.shape, np.nan)
    out[usable] = rows[usable] / sd[usable, None]
    return out


def complexity(
    rows: np.ndarray,
    draws: int = DRAWS,
    seed: int = SEED,
    dates: int | None = None,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Complexity:
    """R_hat of a matrix given as rows (one per strategy, a column per date; NaN: no value, taken as
    0). `dates`: T when the rows are on a subset of a wider window's dates (the delta's rows over a
    generation's merged dates); the draws are then over the rows' own dates, which is the same
    expectation. `transform`: applied to each chunk of rows first (`unit_variance`), so no
    temporary is larger than a chunk. O(draws x dates x rows), the rows in chunks of CHUNK."""
    matrix = rows
    n, t = matrix.shape
    total = t if dates is None else dates
    best = np.zeros(draws, dtype=np.float64)
    held = 0
    eps = signs(draws, t, seed) if t else None
    for start in range(0, n, CHUNK):
        block = np.asarray(matrix[start : start + CHUNK], dtype=np.float64)
        if transform is not None:
            block = transform(block)
        block = block[np.isfinite(block).any(axis=1)]
        if block.shape[0] == 0 or eps is None:
            continue
        held += block.shape[0]
        # float64: a float32 product's last bits depend on the CPU's BLAS kernel (2.4e-9 apart on an
        # AMD EPYC and an Intel Xeon for the demo's complexity), and a served figure may not.
        sums = np.abs(eps @ np.nan_to_num(block, nan=0.0).T)  # draws x chunk
        np.maximum(best, sums.max(axis=1), out=best)
    if total == 0 or held == 0:
        return Complexity(0.0, 0.0, total, 0)
    sups = best / total
    error = float(sups.std(ddof=1) / math.sqrt(draws)) if draws > 1 else math.nan
    return Complexity(float(sups.mean()), error, total, held)


def observed(row: np.ndarray, dates: int) -> float:
    """theta_hat of one row: its sum over the T dates, a missing date 0."""
    values = np.asarray(row, dtype=np.float64)
    return float(np.nansum(values) / dates) if dates else math.nan


def bounded_error(dates: int, delta: float = DELTA) -> float:
    """3 sqrt(2 ln(2/delta) / T): the bounded (|x| <= 1) form's estimation term."""
    return 3.0 * math.sqrt(2.0 * math.log(2.0 / delta) / dates)


def sub_gaussian_error(dates: int, columns: int, delta: float = DELTA) -> float:
    """The sub-Gaussian form's terms: 3 sqrt(2 ln(2/delta) / T) + sqrt(2 ln(2N/delta) / T)."""
    return bounded_error(dates, delta) + math.sqrt(2.0 * math.log(2.0 * max(columns, 1) / delta) / dates)


def sharpe_bound(theta_hat: float, r_hat: float, dates: int, columns: int, delta: float = DELTA) -> float:
    """Lower bound on the per-period Sharpe ratio (sub-Gaussian form)."""
    return theta_hat - 2.0 * r_hat - sub_gaussian_error(dates, columns, delta)


def ic_bound(theta_hat: float, r_hat: float, dates: int, delta: float = DELTA) -> float:
    """Lower bound on the mean IC (bounded form, |IC| <= 1)."""
    return theta_hat - 2.0 * r_hat - bounded_error(dates, delta)


@dataclass(frozen=True)
class Scoped:
    """R_hat of one basis over the alphas one key may read: the complexity over their rows, on the
    dates (`dates`, a mask of the matrix's columns) on which one of them has a value: T."""

    complexity: Complexity
    dates: np.ndarray  # bool, one per column of the matrix


def in_scope(matrix: Matrix, readable: list[str], transform: Callable[[np.ndarray], np.ndarray]) -> Scoped:
    """The exact R_hat over the rows of the alphas `readable` (issue 81, item 7: the generation's
    stored sum over its base and its delta is an upper bound, 48 % to 64 % above the exact value,
    and it moved with every alpha a key may not read): O(draws x T x N) over those rows alone, so
    nothing another alpha publishes moves it, T included (the dates one of them has a value on)."""
    rows = np.sort(np.array([matrix.rows[a] for a in readable if a in matrix.rows], dtype=np.int64))
    values = (
        np.asarray(matrix.values[rows], dtype=np.float64) if rows.size else np.zeros((0, matrix.days.size))
    )
    dates = np.asarray(np.isfinite(values).any(axis=0))
    return Scoped(complexity(values[:, dates], transform=transform), dates)


def clipped(rows: np.ndarray) -> np.ndarray:
    """The IC within [-1, 1] (an IC is a correlation: |IC| <= 1 is the bounded form's assumption)."""
    return np.clip(rows, -1.0, 1.0)


def catalogue_bound_payload(
    alpha: str,
    sharpe: Scoped | None,
    ic: Scoped | None,
    returns: Matrix,
    ic_matrix: Matrix,
    access: Access,
    warnings: Warnings,
) -> CatalogueBound:
    """`/analytics/catalogue_bound` of `alpha`: the complexities over the alphas the key may read
    (`in_scope`; None: the key may not read that side's data), and the alpha's own observed values
    and bounds from its rows on the same dates, O(T)."""
    sharpe_hat = sharpe_low = ic_hat = ic_low = None
    sharpe_reason = ic_reason = ""
    sessions = 0 if sharpe is None else sharpe.complexity.dates
    weeks = 0 if ic is None else ic.complexity.dates
    if not access.ledger or sharpe is None:
        sharpe_reason = withheld("ledger", "catalogue_bound", warnings)
    elif (row := returns.rows.get(alpha)) is None:
        sharpe_reason = "the alpha has no row in the catalogue's returns matrix"
    else:
        scaled = unit_variance(np.asarray(returns.values[row])[None, :])[0][sharpe.dates]
        if np.isfinite(scaled).any() and sessions:
            sharpe_hat = observed(scaled, sessions)
            sharpe_low = sharpe_bound(
                sharpe_hat, sharpe.complexity.value, sessions, sharpe.complexity.columns
            )
        else:
            sharpe_reason = "fewer than 3 daily returns with variance in the catalogue's returns matrix"
    if not access.cross_sections or ic is None:
        ic_reason = withheld("cross_sections", "catalogue_bound", warnings)
    elif (row := ic_matrix.rows.get(alpha)) is None:
        ic_reason = "the alpha has no row in the catalogue's IC matrix"
    else:
        values = clipped(np.asarray(ic_matrix.values[row], dtype=np.float64))[ic.dates]
        if np.isfinite(values).any() and weeks:
            ic_hat = observed(values, weeks)
            ic_low = ic_bound(ic_hat, ic.complexity.value, weeks)
        else:
            ic_reason = "the alpha has no weekly IC in the catalogue's IC matrix"
    side = sharpe.complexity if sharpe is not None and access.ledger else None
    other = ic.complexity if ic is not None and access.cross_sections else None
    return CatalogueBound(
        alpha=alpha,
        ras_confidence=1.0 - DELTA,
        ras_draws=DRAWS,
        ras_sharpe_observed=declared_stat(CatalogueBound, "ras_sharpe_observed", sharpe_hat, sharpe_reason),
        ras_sharpe_lower_bound=declared_stat(
            CatalogueBound, "ras_sharpe_lower_bound", sharpe_low, sharpe_reason
        ),
        ras_sharpe_complexity=None if side is None else side.value,
        ras_sharpe_complexity_error=None if side is None else side.standard_error,
        ras_sessions=None if side is None else sessions,
        ras_sharpe_alphas=None if side is None else side.columns,
        ras_ic_observed=declared_stat(CatalogueBound, "ras_ic_observed", ic_hat, ic_reason),
        ras_ic_lower_bound=declared_stat(CatalogueBound, "ras_ic_lower_bound", ic_low, ic_reason),
        ras_ic_complexity=None if other is None else other.value,
        ras_ic_complexity_error=None if other is None else other.standard_error,
        ras_weeks=None if other is None else weeks,
        ras_ic_alphas=None if other is None else other.columns,
    )
