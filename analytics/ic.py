"""The ICIR on one basis (docs/analytics.md, "Same names, different conventions").

A run seals its ICIR either per week or annualised (`metric_conventions.icir_annualised`). Every
served `icir` is annualised (`/metrics` `core.icir` and `rank_ic.raw.raw_icir`, the catalogue index
and the screener, compare, significance's bootstrap, rolling): a per-week ratio times the square
root of the run's `weeks_per_year`, as an information ratio of daily returns is annualised with the
square root of its sessions per year. `/metrics` serves the per-week ratio as `core.icir_per_week`.
So one name has one basis, and an alpha's ICIR can be ranked against another's.
"""

from __future__ import annotations

import math


def annualisation_factor(weeks_per_year: int) -> float:
    """What a per-week ICIR (an interval's bounds, a column of them) is multiplied by: sqrt(weeks_per_year)."""
    return math.sqrt(weeks_per_year)


def annualised_icir(per_week: float, weeks_per_year: int) -> float:
    """mean / std (ddof 1) of the weekly IC, annualised: the per-week ratio times sqrt(weeks_per_year)."""
    return per_week * annualisation_factor(weeks_per_year)
