"""Which of the catalogue's alphas a caller may read, as the mask the figures take (figures know
no keys: a readable set is data; `analytics.sets.readable_ids` names its alphas), and the version
of an answer built from them.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow.compute as pc

from datasets.faults import CatalogueIncomplete
from datasets.served import Catalogue
from serve.context import AllowList, Caller


def whole_catalogue(caller: Caller, catalogue: Catalogue) -> None:
    """Raises 503 when an alpha the key may read is published but unreadable: a catalogue-wide
    figure without it would be short, never said so. An unreadable alpha the key may not read
    changes nothing the key is answered (its damage is not the key's to learn; health names it).
    (A listing, `/v1/alphas` or the screener, leaves it out as the catalogue does.)"""
    for alpha in catalogue.unreadable:
        if caller.may_read_alpha(alpha) and caller.may_read_run(alpha):
            raise CatalogueIncomplete()


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
