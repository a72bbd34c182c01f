"""What a key may read, as the figures take it (figures know no keys: a readable set is data):
the mask of the catalogue's alphas it may read (`analytics.sets.readable_ids` names them) and the
whole scope an answer is computed in (`scope_of`, `analytics.reading`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pyarrow.compute as pc

from analytics.access import Access, ReaderScope
from core.context import AllowList, Caller
from datasets.served import Catalogue


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


def scope_of(caller: Caller) -> ReaderScope:
    """What `caller` may read, as the figures take it (`analytics.access.ReaderScope`): the one place a
    key becomes a scope."""
    return ReaderScope(
        access=Access.of(caller.may_call),
        may_call=caller.may_call,
        may_read=caller.may_read,
        readable=partial(readable_mask, caller),
        every_alpha=caller.alphas.mode == "all" and caller.runs.mode == "all",
        raw=caller.expose_raw_book,
    )
