"""What every figure shares: warnings, stat entries, the run's conventions, date windows and their
echo, JSON-safe numbers.

Stat entries have the shape of `/metrics` core entries (`schemas.bodies.metrics.Stat`): `{value,
unit, status, source, annualisation}` plus what the entry needs; a figure that cannot be measured
has status `not_measurable` and a `withheld_reason`, never zero.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from msgspec import UNSET

from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import day_number
from schemas.bodies.analytics import ANALYTICS_BLOCK, AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.base import Window as WindowEcho
from schemas.bodies.figures import field_facts
from schemas.bodies.service import Warning
from schemas.choices import WARNING_CODES
from schemas.conventions import SESSIONS_PER_YEAR, WEEKS_PER_YEAR


@dataclass
class Warnings:
    """Collects `meta.warnings` entries (`{code, message, block?, kind?}`) once each, in emission
    order."""

    entries: list[Warning] = field(default_factory=list)

    def add(self, code: str, message: str, *, block: str | None = None, kind: str | None = None) -> None:
        if code not in WARNING_CODES:
            raise ValueError(f"warning code {code!r} is not in the spec vocabulary")
        entry = Warning(
            code=code,
            message=message,
            block=UNSET if block is None else block,
            kind=UNSET if kind is None else kind,
        )
        self.extend((entry,))

    def extend(self, entries: Iterable[Warning]) -> None:
        """Add entries another collection made (a memoised block's), each once."""
        for entry in entries:
            if entry not in self.entries:
                self.entries.append(entry)


def number(value: Any) -> float | None:
    """A JSON-safe float: NaN and infinities become null."""
    if value is None:
        return None
    out = float(value)
    return out if math.isfinite(out) else None


@dataclass(frozen=True)
class DateWindow:
    """Inclusive date bounds; None means open on that side (the metrics blocks' window)."""

    start: dt.date | None = None
    end: dt.date | None = None

    @property
    def narrowed(self) -> bool:
        return self.start is not None or self.end is not None

    def mask_sorted(self, dates: np.ndarray) -> slice:
        """Slice of a date-sorted datetime64[D] array that lies inside the window."""
        lo = 0 if self.start is None else int(np.searchsorted(dates, np.datetime64(self.start, "D"), "left"))
        hi = (
            dates.size
            if self.end is None
            else int(np.searchsorted(dates, np.datetime64(self.end, "D"), "right"))
        )
        return slice(lo, max(lo, hi))

    def intersect(self, other: DateWindow) -> DateWindow:
        starts = [d for d in (self.start, other.start) if d is not None]
        ends = [d for d in (self.end, other.end) if d is not None]
        return DateWindow(max(starts) if starts else None, min(ends) if ends else None)


def analytics_stat(
    value: float | None, unit: str, source: str, annualisation: str, reason: str, **extra: Any
) -> AnalyticsStat:
    """An available entry, or a not_measurable one with `reason` when `value` is not finite."""
    clean = number(value)
    if clean is None:
        return AnalyticsStat(
            value=None,
            unit=unit,
            status="not_measurable",
            withheld_reason=reason,
            source=source,
            annualisation=annualisation,
            **extra,
        )
    return AnalyticsStat(
        value=clean, unit=unit, status="available", source=source, annualisation=annualisation, **extra
    )


def declared_stat(
    body: type[Body],
    name: str,
    value: float | None,
    reason: str,
    context: Mapping[str, str] | None = None,
    **extra: Any,
) -> AnalyticsStat:
    """The stat entry of `body`'s field `name`: its unit, annualisation and source as the field
    declares them (`figure(...)`, with `/analytics/_doc`'s defaults where it is silent; `context`
    fills the source's `{book}`), its value or not_measurable with `reason`, and `extra` keys."""
    facts = field_facts(body, name)
    defaults = ANALYTICS_BLOCK.defaults
    source = (facts.get("source") or defaults["source"]).format_map(context or {})
    annualisation = facts.get("annualisation") or defaults["annualisation"]
    return analytics_stat(value, facts["unit"], source, annualisation, reason, **extra)


@dataclass(frozen=True)
class Conventions:
    """The run's conventions (`metric_conventions` of its manifest), as its figures annualise."""

    weeks_per_year: int = WEEKS_PER_YEAR
    sessions_per_year: int = SESSIONS_PER_YEAR
    icir_annualised: bool = False
    risk_free_rate_source: str | None = None


def conventions(view: BuildView) -> Conventions:
    found = view.entry.get("metric_conventions") or {}
    return Conventions(
        weeks_per_year=int(found.get("weeks_per_year") or WEEKS_PER_YEAR),
        sessions_per_year=int(found.get("sessions_per_year") or SESSIONS_PER_YEAR),
        icir_annualised=bool(found.get("icir_annualised", False)),
        risk_free_rate_source=found.get("risk_free_rate_source"),
    )


def window_echo(window: Window) -> WindowEcho:
    """The request's window, echoed: from and to, null where open."""
    return WindowEcho(from_=window[0], to=window[1])


def day_bounds(window: Window) -> tuple[int, int]:
    """The inclusive window as days since 1970 (open sides as the int32 range)."""
    start, end = window
    return (
        -(2**31) if start is None else day_number(start),
        2**31 - 1 if end is None else day_number(end),
    )
