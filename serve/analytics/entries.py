"""What every analytics body shares: stat entries, the window echo, the run's conventions, and
the rule for figures built from data the key may not read.

Stat entries have the shape of `/metrics` core entries: `{value, unit, status, source,
annualisation}` plus what the entry needs; a figure that cannot be measured is `not_measurable`
with a `withheld_reason`, never zero.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets.queries import Window
from datasets.reader import BuildView, Catalogue
from datasets.rows import day_number
from serve import errors
from serve.analytics.catalogue import catalogue_unavailable
from serve.context import AllowList, Caller
from serve.metrics import Access
from serve.metrics.inputs import DATA_ENDPOINTS
from serve.metrics.stats import Warnings, not_measurable, number


def whole_catalogue(caller: Caller, catalogue: Catalogue) -> None:
    """Raises 503 when an alpha the key may read is published but unreadable: a catalogue-wide
    figure without it would be short, never said so. An unreadable alpha the key may not read
    changes nothing the key is answered (its damage is not the key's to learn; health names it).
    (A listing, `/v1/alphas` or the screener, leaves it out as the catalogue does.)"""
    for alpha in catalogue.unreadable:
        if caller.may_read_alpha(alpha) and caller.may_read_run(alpha):
            raise catalogue_unavailable()


def readable_mask(caller: Caller, catalogue: Catalogue) -> np.ndarray:
    """Which of the catalogue's alphas (catalogue order) the key may read: both allow-lists admit
    them, as `caller.may_read_alpha(a) and caller.may_read_run(a)`, vectorised over the listing.
    A route computes it once per request and passes it on."""
    return admitted_mask(catalogue, caller.alphas, caller.runs)


def admitted_mask(catalogue: Catalogue, *allow_lists: AllowList) -> np.ndarray:
    """Which of the catalogue's alphas (catalogue order) every one of `allow_lists` admits."""
    listing = catalogue.listing
    assert listing is not None  # every catalogue read from the lake has one
    masks = [m for m in (allowed.mask(listing.ids) for allowed in allow_lists) if m is not None]
    if not masks:
        return np.ones(len(listing.ids), dtype=bool)
    keep = masks[0]
    for other in masks[1:]:
        keep = pc.and_(keep, other)
    return np.asarray(pc.fill_null(keep, False).to_numpy(zero_copy_only=False), dtype=bool)


def readable_ids(catalogue: Catalogue, mask: np.ndarray) -> pa.Array:
    """The ids of the catalogue's alphas (catalogue order) that `mask` (`readable_mask`) admits."""
    listing = catalogue.listing
    assert listing is not None
    return listing.ids if mask.all() else listing.ids.filter(pa.array(mask))


def catalogue_tag(catalogue: Catalogue, mask: np.ndarray, *parts: str) -> str:
    """A version of an answer built from the builds of the alphas `mask` (`readable_mask`) admits,
    in catalogue order, and `parts`: it changes when one of those changes, never with an alpha the
    key may not read. The one rule for every answer built from many alphas (the catalogue, the
    screener, correlation)."""
    listing = catalogue.listing
    assert listing is not None
    digest = hashlib.sha256("\x00".join(parts).encode())
    digest.update(listing.fingerprints[mask].tobytes())
    return digest.hexdigest()[:24]


DATA_LABELS = {"ledger": "the ledger", "cross_sections": "the rebalance cross-sections"}


def _needs(data: str) -> str:
    return " or ".join(DATA_ENDPOINTS[data])


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
    why = f"built from {DATA_LABELS[data]}, which this key may not read ({_needs(data)})"
    warnings.add("access_limited", f"{block} is {why}.", block=block)
    return f"access_limited: {why}"


def require_readable(access: Access, data: str) -> None:
    """403 for a collection whose rows are built from `data` the key may not read (a page with
    its rows withheld would be a 200 with missing rows); names the route it needs."""
    if not access.may_read(data):
        raise errors.EndpointNotAllowed(
            f"These rows are built from {DATA_LABELS[data]}; they need {_needs(data)}.",
            details={"endpoint": DATA_ENDPOINTS[data][-1]},
        )
