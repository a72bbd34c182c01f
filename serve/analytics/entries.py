"""What every analytics body shares: stat entries, the window echo, the run's conventions, and
the rule for figures built from data the key may not read.

Stat entries have the shape of `/metrics` core entries: `{value, unit, status, source,
annualisation}` plus what the entry needs; a figure that cannot be measured is `not_measurable`
with a `withheld_reason`, never zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import day_number
from serve.metrics.stats import Warnings, not_measurable, number

LEDGER_ENDPOINT = "portfolio.ledger"
CROSS_SECTION_ENDPOINTS = ("signals.rebalances.get", "signals.scores")
ACCESS_REASON = {
    "ledger": f"access_limited: built from the ledger, which this key may not read ({LEDGER_ENDPOINT})",
    "cross_sections": "access_limited: built from the rebalance cross-sections, which this key may not "
    f"read ({' or '.join(CROSS_SECTION_ENDPOINTS)})",
}


def stat(
    value: float | None, unit: str, source: str, annualisation: str, reason: str, **extra: Any
) -> dict[str, Any]:
    """An available entry, or a not_measurable one with `reason` when `value` is not finite."""
    clean = number(value)
    if clean is None:
        return not_measurable(reason, unit=unit, source=source, annualisation=annualisation, **extra)
    return {
        "value": clean,
        "unit": unit,
        "status": "available",
        "source": source,
        "annualisation": annualisation,
        **extra,
    }


@dataclass(frozen=True)
class Conventions:
    sessions_per_year: int
    weeks_per_year: int


def conventions(view: BuildView) -> Conventions:
    found = view.entry.get("metric_conventions") or {}
    return Conventions(int(found.get("sessions_per_year") or 252), int(found.get("weeks_per_year") or 52))


def window_echo(window: Window) -> dict[str, str | None]:
    start, end = window
    return {
        "from": None if start is None else start.isoformat(),
        "to": None if end is None else end.isoformat(),
    }


def day_bounds(window: Window) -> tuple[int, int]:
    """The inclusive window as days since 1970 (open sides as the int32 range)."""
    start, end = window
    return (
        -(2**31) if start is None else day_number(start),
        2**31 - 1 if end is None else day_number(end),
    )


def withheld(data: str, block: str, warnings: Warnings) -> str:
    """The `withheld_reason` of a figure built from `data` ("ledger" or "cross_sections") that the
    key may not read, with the `access_limited` warning naming its block (as `/metrics` does)."""
    warnings.add(
        "access_limited", f"{block} is {ACCESS_REASON[data].removeprefix('access_limited: ')}.", block=block
    )
    return ACCESS_REASON[data]
