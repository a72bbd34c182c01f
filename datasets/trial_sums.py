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
    """The sums of a column of Sharpe ratios (NaN: not measurable), exactly."""
    found = np.asarray(values, dtype=np.float64)
    return EMPTY.plus(found[np.isfinite(found)].tolist())
