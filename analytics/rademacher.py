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

The complexity only grows with the set (a sup over more columns), so R_hat over the whole catalogue
bounds every subset's from above: the bound served to a key over the catalogue holds for the alphas
it may read (docs/security.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics.access import Access, withheld
from analytics.entries import Warnings, declared_stat
from datasets.catalogue_snapshot import Matrix
from datasets.faults import CatalogueIncomplete
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


def _stored(document: dict[str, Any], dates: int) -> tuple[float, float, int]:
    """(R_hat, its standard error, N) of one basis of a generation's `ras` document at T `dates`:
    S_base + S_delta over T (pipeline/catalogue_bound.py)."""
    parts = [document.get(part) or [0.0, 0.0, 0] for part in ("base", "delta")]
    total = sum(float(p[0]) for p in parts)
    error = math.sqrt(sum(float(p[1]) ** 2 for p in parts))
    columns = sum(int(p[2]) for p in parts)
    if dates <= 0:
        return math.nan, math.nan, columns
    return total / dates, error / dates, columns


def catalogue_bound_payload(
    alpha: str,
    generation: int,
    ras: dict[str, Any] | None,
    returns: Matrix,
    ic: Matrix,
    access: Access,
    warnings: Warnings,
) -> CatalogueBound:
    """`/analytics/catalogue_bound` of `alpha`: the complexities the generation records (`ras`,
    computed once per generation by the pipeline: `CatalogueIncomplete`, 503, when it records none),
    T and N of its matrices, and the alpha's own observed values and bounds from its rows, O(T)."""
    if not ras:
        raise CatalogueIncomplete(
            "The catalogue generation records no Rademacher complexity (written before it); the next whole "
            "generation records it, which an operator writes with `alpha-results lake index`."
        )
    sessions, weeks = int(returns.days.size), int(ic.days.size)
    r_sharpe, e_sharpe, n_sharpe = _stored(ras.get("returns") or {}, sessions)
    r_ic, e_ic, n_ic = _stored(ras.get("ic") or {}, weeks)
    sharpe_hat = sharpe_low = ic_hat = ic_low = None
    sharpe_reason = ic_reason = ""
    if not access.ledger:
        sharpe_reason = withheld("ledger", "catalogue_bound", warnings)
    elif (row := returns.rows.get(alpha)) is None:
        sharpe_reason = "the alpha has no row in the catalogue's returns matrix"
    else:
        scaled = unit_variance(np.asarray(returns.values[row])[None, :])[0]
        if np.isfinite(scaled).any() and sessions:
            sharpe_hat = observed(scaled, sessions)
            sharpe_low = sharpe_bound(sharpe_hat, r_sharpe, sessions, n_sharpe)
        else:
            sharpe_reason = "fewer than 3 daily returns with variance in the catalogue's returns matrix"
    if not access.cross_sections:
        ic_reason = withheld("cross_sections", "catalogue_bound", warnings)
    elif (row := ic.rows.get(alpha)) is None:
        ic_reason = "the alpha has no row in the catalogue's IC matrix"
    else:
        values = np.clip(np.asarray(ic.values[row], dtype=np.float64), -1.0, 1.0)
        if np.isfinite(values).any() and weeks:
            ic_hat = observed(values, weeks)
            ic_low = ic_bound(ic_hat, r_ic, weeks)
        else:
            ic_reason = "the alpha has no weekly IC in the catalogue's IC matrix"
    return CatalogueBound(
        alpha=alpha,
        ras_generation=generation,
        ras_confidence=1.0 - DELTA,
        ras_draws=int(ras.get("draws") or DRAWS),
        ras_sharpe_observed=declared_stat(CatalogueBound, "ras_sharpe_observed", sharpe_hat, sharpe_reason),
        ras_sharpe_lower_bound=declared_stat(
            CatalogueBound, "ras_sharpe_lower_bound", sharpe_low, sharpe_reason
        ),
        ras_sharpe_complexity=r_sharpe if access.ledger else None,
        ras_sharpe_complexity_error=e_sharpe if access.ledger else None,
        ras_sessions=sessions if access.ledger else None,
        ras_sharpe_alphas=n_sharpe if access.ledger else None,
        ras_ic_observed=declared_stat(CatalogueBound, "ras_ic_observed", ic_hat, ic_reason),
        ras_ic_lower_bound=declared_stat(CatalogueBound, "ras_ic_lower_bound", ic_low, ic_reason),
        ras_ic_complexity=r_ic if access.cross_sections else None,
        ras_ic_complexity_error=e_ic if access.cross_sections else None,
        ras_weeks=weeks if access.cross_sections else None,
        ras_ic_alphas=n_ic if access.cross_sections else None,
    )
