"""A share of a total: the one rule wherever a fraction of a total is served (issue 47, item 5).

A part over its total is a share only when the total is positive. Over a total that is negative,
a part that made money has a negative "share" and a part that lost money one above 1 (a losing
alpha's best 1% of days "made" -964% of its P&L); over a total of 0 it has none. Either is not
measurable, with the reason naming the total, so a head of research never reads a share of a loss
as a share of a gain.
"""

from __future__ import annotations

import math


def reason(total: float, whole: str) -> str:
    """Why no share of `total` (`whole` names it) is measurable; "" when it is."""
    if math.isfinite(total) and total > 0:
        return ""
    return f"{whole} is {total:.6g}, not positive: a share of it is not measurable"


def share(part: float, total: float) -> float | None:
    """`part` over `total`, or None when `total` is not positive (`reason`)."""
    return part / total if math.isfinite(total) and total > 0 else None
