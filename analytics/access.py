"""What a caller may read besides the route it called, as data: figures know no keys.

A figure built from the ledger or from the rebalance cross-sections is shown only to a caller that
may read that data through one of its routes (the `/metrics` rule, which every analytics figure
follows): otherwise it is `not_measurable` with an `access_limited` warning in a single object
(`withheld`), and a collection whose rows are built from it is refused (`require_readable`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytics.entries import Warnings
from analytics.errors import DataNotReadable
from datasets.served import Catalogue

DATA_ENDPOINTS: dict[str, tuple[str, ...]] = {
    "cross_sections": ("signals.rebalances.get", "signals.scores"),
    "ledger": ("portfolio.ledger",),
    "pnl": ("portfolio.pnl",),
    "positions": ("portfolio.positions",),
    "trades": ("portfolio.trades",),
}
"""The data a figure may be rebuilt from, and the routes of which any one lets a key read it."""

DATA_LABELS = {
    "ledger": "the ledger",
    "cross_sections": "the rebalance cross-sections",
    "pnl": "the book's P&L by name",
    "positions": "the book's positions",
    "trades": "the trades",
}


@dataclass(frozen=True)
class Access:
    """What the caller may read besides the route itself (fields named as DATA_ENDPOINTS)."""

    cross_sections: bool
    ledger: bool
    # The per-name P&L, the positions (`/analytics/attribution`) and the trades (`/analytics/capacity`;
    # issue 36): each read by one route, so a key without it never reads them through a figure.
    # False unless said.
    pnl: bool = False
    positions: bool = False
    trades: bool = False

    @classmethod
    def of(cls, may_call: Callable[[str], bool]) -> Access:
        return cls(**{data: any(map(may_call, ids)) for data, ids in DATA_ENDPOINTS.items()})

    def may_read(self, data: str) -> bool:
        return bool(getattr(self, data))


FULL_ACCESS = Access(cross_sections=True, ledger=True, pnl=True, positions=True, trades=True)
"""A caller that may read everything: the pipeline and a notebook."""


def _needs(data: str) -> str:
    return " or ".join(DATA_ENDPOINTS[data])


def withheld(data: str, block: str, warnings: Warnings) -> str:
    """The `withheld_reason` of a figure built from `data` (a key of DATA_ENDPOINTS) that the
    caller may not read, with the `access_limited` warning naming its block (as `/metrics` does)."""
    why = f"built from {DATA_LABELS[data]}, which this key may not read ({_needs(data)})"
    warnings.add("access_limited", f"{block} is {why}.", block=block)
    return f"access_limited: {why}"


def require_readable(access: Access, data: str) -> None:
    """Refuses a collection whose rows are built from `data` the caller may not read (a page with
    its rows withheld would be a page with missing rows), naming the route it needs."""
    if not access.may_read(data):
        raise DataNotReadable(
            f"These rows are built from {DATA_LABELS[data]}; they need {_needs(data)}.",
            DATA_ENDPOINTS[data][-1],
        )


def _everything(catalogue: Catalogue) -> np.ndarray:
    listing = catalogue.listing
    assert listing is not None  # every catalogue read from the lake has one
    return np.ones(len(listing.ids), dtype=bool)


def _anything(_: str) -> bool:
    return True


@dataclass(frozen=True)
class ReaderScope:
    """What a reader may read, as data: the data behind a route (`access`), the routes it may call,
    the alphas it may read (both allow-lists of a key) as a predicate and as a mask over a
    catalogue's listing, and whether that is every alpha."""

    access: Access
    may_call: Callable[[str], bool]
    may_read: Callable[[str], bool]
    readable: Callable[[Catalogue], np.ndarray]
    every_alpha: bool
    raw: bool
    """Raw books and raw-only fields."""


EVERYTHING = ReaderScope(FULL_ACCESS, _anything, _anything, _everything, every_alpha=True, raw=True)
"""The scope of a notebook and of the pipeline: every route, alpha and dataset."""
