"""The trials of the Deflated Sharpe ratio, kept incrementally (issue 51, item 5; docs/lake.md "Delta
generations"): each generation records how many of the catalogue's per-session Sharpe ratios are
measurable, and their sum and sum of squares exactly, as integers in units of 2^-1074 and
2^-2148 (every finite double is a whole multiple of 2^-1074, so adding a publish's Sharpe ratio and
taking away the one it replaces is exact: no cancellation, unlike a Welford update run
backwards, and no drift however many publishes follow). The variance is the exact sample variance
rounded once to a float: within a few ulps of numpy's over the column (tests/lake/test_catalogue_delta.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

SCALE = 1074
"""The sum is in units of 2^-SCALE (the smallest subnormal double), the squares in 2^-(2 SCALE)."""


def _scaled(value: float) -> int:
    numerator, denominator = value.as_integer_ratio()  # denominator a power of two, at most 2^1074
    return numerator << (SCALE - denominator.bit_length() + 1)


@dataclass(frozen=True)
class TrialSums:
    count: int
    total: int  # the sum, x 2^SCALE
    squares: int  # the sum of squares, x 2^(2 SCALE)

    def plus(self, values: Iterable[float | None], sign: int = 1) -> TrialSums:
        count, total, squares = self.count, self.total, self.squares
        for value in values:
            if value is None or not math.isfinite(value):
                continue
            scaled = _scaled(float(value))
            count += sign
            total += sign * scaled
            squares += sign * scaled * scaled
        return TrialSums(count, total, squares)

    def minus(self, values: Iterable[float | None]) -> TrialSums:
        return self.plus(values, -1)

    def variance(self) -> float:
        """The sample variance (ddof 1) of the Sharpe ratios, exactly, rounded once; NaN below 2."""
        n = self.count
        if n < 2:
            return math.nan
        return float(Fraction(n * self.squares - self.total * self.total, (n * (n - 1)) << (2 * SCALE)))

    def document(self) -> dict[str, Any]:
        return {"count": self.count, "sum": hex(self.total), "squares": hex(self.squares), "scale": SCALE}

    @staticmethod
    def parse(document: dict[str, Any] | None) -> TrialSums | None:
        if not document or document.get("scale") != SCALE:
            return None
        try:
            return TrialSums(int(document["count"]), int(document["sum"], 16), int(document["squares"], 16))
        except (KeyError, ValueError, TypeError):
            return None


EMPTY = TrialSums(0, 0, 0)


def of_column(values: np.ndarray) -> TrialSums:
    """The sums of a column of Sharpe ratios (NaN: not measurable), exactly: `TrialSums.plus` of
    every finite value, in vectorised code (issue 63, item 3: a generation written without sums,
    10^6 values, costs its first publish about 0.1 s instead of 3 s of Python integers).

    Each value is m 2^k exactly (m an integer below 2^53 in magnitude, k its scaled exponent), so
    the sums are sums over each exponent k of the m's and the m^2's, shifted. Those are taken as
    float64 sums of small pieces of m, each exact: the pieces of m are below 2^27 (the sum) and
    their products, the cross terms doubled, below 2^29 (the squares), so a float64 sum of up to
    `EXACT_ROWS` (2^24) of them stays below 2^53 and never rounds. Only the few hundred distinct exponents are combined as Python integers."""
    found = np.asarray(values, dtype=np.float64).ravel()
    found = found[np.isfinite(found) & (found != 0)]  # a zero adds a count and nothing else
    count = int(np.count_nonzero(np.isfinite(np.asarray(values, dtype=np.float64))))
    total = squares = 0
    for first in range(0, found.size, EXACT_ROWS):
        part_total, part_squares = _exact_sums(found[first : first + EXACT_ROWS])
        total += part_total
        squares += part_squares
    return TrialSums(count, total, squares)


EXACT_ROWS = 1 << 24
"""Values summed at once by `of_column` (their pieces' float64 sums stay below 2^53, exact)."""
_LIMB = 14
"""Bits of each piece of |m| whose pairwise products the squares sum (four pieces hold 53 bits)."""


def _exact_sums(values: np.ndarray) -> tuple[int, int]:
    """(sum, sum of squares) of finite non-zero `values`, scaled as `TrialSums` holds them."""
    if values.size == 0:
        return 0, 0
    fraction, exponent = np.frexp(values)  # value = fraction 2^exponent, 0.5 <= |fraction| < 1
    mantissa = np.ldexp(fraction, 53).astype(np.int64)  # exact: a double has 53 significant bits
    shift = exponent.astype(np.int64) - 53 + SCALE  # value 2^SCALE = mantissa 2^shift
    low = shift < 0  # subnormal values: mantissa divisible by 2^-shift (value 2^SCALE is whole)
    mantissa[low] >>= -shift[low]
    shift[low] = 0
    lowest = int(shift.min())
    group = shift - lowest  # a bin per exponent (at most about 2,100: no sort)
    groups = int(group.max()) + 1
    high_part = mantissa >> 26  # floor: mantissa = high 2^26 + low, 0 <= low < 2^26
    low_part = mantissa - (high_part << 26)
    sum_high = np.bincount(group, high_part.astype(np.float64), groups)
    sum_low = np.bincount(group, low_part.astype(np.float64), groups)
    magnitude = np.abs(mantissa)
    limbs = [((magnitude >> (_LIMB * j)) & ((1 << _LIMB) - 1)).astype(np.float64) for j in range(4)]
    products = [
        # exact: each term below 2^29 (twice a product of two pieces), a sum of EXACT_ROWS below 2^53
        (j + k, np.bincount(group, limbs[j] * limbs[k] * (1.0 if j == k else 2.0), groups).tolist())
        for j in range(4)
        for k in range(j, 4)
    ]
    total = squares = 0
    for g in np.flatnonzero(np.bincount(group, minlength=groups)).tolist():
        shift_g = lowest + g
        total += ((int(sum_high[g]) << 26) + int(sum_low[g])) << shift_g
        square = sum(int(sums[g]) << (_LIMB * power) for power, sums in products)
        squares += square << (2 * shift_g)
    return total, squares
