"""The weekly cross-sectional factor model of factor attribution (docs/analytics.md, "Factor
attribution"): one OLS regression per rebalance week, as a Barra-style risk model estimates its
factor returns, and the same regression residualising a score (the feature-neutral IC).

Each week, over the names with every regressor present:

    y_i = sum_s f_s D_is + sum_j g_j x_ij + e_i

- `D_is` is 1 when name i is in sector s: one dummy per sector present that week and no
  intercept (the dummies span it), so `f_s` is the return of sector s's names net of the styles;
- `x_ij` the style loadings the seal carries (those not null throughout the build);
- ordinary least squares, every name weighted equally (numpy's `lstsq`, an SVD);
- no estimate unless the names number at least the regressors plus `MARGIN` and the design has
  full column rank (a week with fewer names, or a style collinear with the sectors, is not
  estimated);
- a name alone in its sector that week is fitted exactly by its dummy: its residual is 0 (as
  written, not the rounding noise of the subtraction, which a rank would read as a signal);
- R^2 is centred, 1 - SSR / sum (y - mean y)^2, which the sector dummies make the usual one
  (statsmodels reports the same: it detects the implicit constant).

`y` is a week's forward returns (factor returns) or its scores (the residual is the score
neutralised on the loadings, `neutralised`: none when the loadings explain all of the score). The pipeline runs it once per build (`pipeline/factor_tables.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytics.variance import variance_floor
from schemas.bodies.factors import EXPLAINED as EXPLAINED  # declared with the answer that states them
from schemas.bodies.factors import MARGIN as MARGIN


@dataclass(frozen=True)
class Design:
    """One week's regressors over its names: sector dummies (sectors sorted by name), then styles."""

    matrix: np.ndarray  # (names, regressors)
    sectors: tuple[str, ...]  # the sectors present, the first columns' order
    styles: tuple[str, ...]  # the style loadings, the last columns' order
    alone: np.ndarray  # (names,) bool: the only name of its sector that week

    @property
    def regressors(self) -> int:
        return int(self.matrix.shape[1])


def design(sectors: np.ndarray, styles: np.ndarray, style_names: tuple[str, ...]) -> Design:
    """The design of names with sectors `sectors` (n,) and style loadings `styles` (n, k), every
    value present."""
    present, codes = np.unique(sectors.astype(str), return_inverse=True)
    n = sectors.size
    matrix = np.zeros((n, present.size + len(style_names)))
    matrix[np.arange(n), codes.reshape(-1)] = 1.0
    matrix[:, present.size :] = styles
    codes = codes.reshape(-1)
    alone = np.bincount(codes, minlength=present.size)[codes] == 1
    return Design(matrix, tuple(str(s) for s in present), style_names, alone)


@dataclass(frozen=True)
class Fit:
    """One week's OLS fit."""

    coefficients: np.ndarray  # the design's column order
    residuals: np.ndarray
    r_squared: float  # NaN when y does not vary


def fit(y: np.ndarray, found: Design) -> Fit | None:
    """OLS of `y` on the design, equal weights; None when the week has fewer than regressors +
    MARGIN names or the design is rank deficient."""
    x = found.matrix
    n, p = x.shape
    if n < p + MARGIN:
        return None
    coefficients, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    if rank < p:
        return None
    residuals = y - x @ coefficients
    # A name alone in its sector is fitted exactly by its dummy (leverage 1): its residual is 0, not
    # the rounding noise the subtraction leaves, which would give it a random rank.
    residuals[found.alone] = 0.0
    centred = y - y.mean()
    total = float(centred @ centred)
    # The one rule for a variance that is rounding (analytics.variance), not `total > 0`.
    r_squared = 1.0 - float(residuals @ residuals) / total if total > variance_floor(y) else math.nan
    return Fit(coefficients, residuals, r_squared)


def neutralised(y: np.ndarray, found: Design) -> np.ndarray | None:
    """The residual of `y` (a week's scores) on the design: the score neutralised on the loadings;
    None without a fit, or when the loadings explain all but EXPLAINED of its variance (a score
    that is a combination of the loadings, momentum_12_1's first week: what is left is rounding
    noise, and ranking it would be an IC of noise)."""
    fitted = fit(y, found)
    if fitted is None or not fitted.r_squared < 1.0 - EXPLAINED:
        return None
    return fitted.residuals
