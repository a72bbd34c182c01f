"""The alpha sets a request names (`alphas` of /analytics/combine, `reference` of
/analytics/contribution): one set of rules, in one order (docs/analytics.md, "Combination").

1. the list itself: no id twice, between `minimum` and `maximum` ids (400 naming the parameter;
   `listed` says the rule, reported with the request's other parameter problems, in one 400);
2. authorisation, for every id before any lookup: an id the key may not read is 403
   `run_not_allowed` whether it exists or not (`admitted`);
3. then lookup: ids the key may read that the catalogue does not hold are 400 naming the
   parameter, all of them; a published alpha that cannot be read is a 503 naming no alpha;
4. then data: an alpha without long_short returns in the catalogue's returns matrix (no ledger)
   is 400 naming the parameter (`matrix_rows`).

A figure is never computed over fewer alphas than the request named; the one exception is the
reference set of a contribution, a book that grows as alphas are added (`held_rows`: an alpha
without returns is a member without returns there, said in the body).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analytics.errors import BadParameters, NotReadable
from datasets.catalogue_snapshot import Matrix
from datasets.faults import CatalogueIncomplete
from datasets.served import Catalogue


def listed(ids: tuple[str, ...], minimum: int, maximum: int) -> str | None:
    """The rule the ids a set parameter lists break (rule 1 above), or None."""
    repeated = sorted({alpha for alpha in ids if ids.count(alpha) > 1})
    if repeated:
        return f"names {', '.join(repeated)} more than once; name each alpha once"
    if len(ids) < minimum:
        return f"needs at least {minimum} alpha{'s' if minimum > 1 else ''}, got {len(ids)}"
    if len(ids) > maximum:
        return f"names at most {maximum} alphas, got {len(ids)}"
    return None


def admitted(may_read: Callable[[str], bool], catalogue: Catalogue, ids: tuple[str, ...], name: str) -> None:
    """Authorises every id (`may_read`: may the caller read this alpha and its run), then finds
    every one (the rules 2 and 3 above)."""
    for alpha in ids:
        if not may_read(alpha):
            raise NotReadable(alpha, name)
    unknown = [alpha for alpha in ids if alpha not in catalogue.alphas and alpha not in catalogue.unreadable]
    if unknown:
        raise BadParameters({name: f"names alphas the catalogue does not hold: {', '.join(unknown)}"})
    if any(alpha in catalogue.unreadable for alpha in ids):
        raise CatalogueIncomplete()


def held_rows(matrix: Matrix, ids: tuple[str, ...]) -> np.ndarray:
    """Each id's row of the returns matrix, with or without returns; 503 when the matrix does not
    hold an alpha of the catalogue (an index written before it)."""
    if any(alpha not in matrix.rows for alpha in ids):
        raise CatalogueIncomplete(
            "The catalogue's returns matrix does not hold every alpha of the catalogue yet; retry with "
            "backoff, or an operator rewrites it with `alpha-results lake index`."
        )
    return np.array([matrix.rows[alpha] for alpha in ids], dtype=np.int64)


def matrix_rows(matrix: Matrix, ids: tuple[str, ...], name: str) -> np.ndarray:
    """Each id's row of the returns matrix (`held_rows`); 400 naming `name` for an alpha without
    returns."""
    rows = held_rows(matrix, ids)
    found = np.isfinite(np.asarray(matrix.values[rows])).any(axis=1)
    empty = [alpha for alpha, ok in zip(ids, found, strict=True) if not ok]
    if empty:
        raise BadParameters(
            {
                name: f"{', '.join(empty)} {'has' if len(empty) == 1 else 'have'} no long_short returns (no ledger)"
            }
        )
    return rows


def readable_ids(catalogue: Catalogue, mask: np.ndarray) -> pa.Array:
    """The ids of the catalogue's alphas (catalogue order) that `mask` admits (a caller's readable
    mask, `serve.scope.readable.readable_mask`, or a part of it)."""
    listing = catalogue.listing
    assert listing is not None
    return listing.ids if mask.all() else listing.ids.filter(pa.array(mask))


DEFAULT_ORIGINS = ("approved",)
"""Where a default reference set comes from (`default_reference`): the approved alphas, the one
meaning of "production"; a set the request names is `given`."""

NO_APPROVED = "no approved alpha other than this one is readable by this key (alpha-results promote)"
"""Why a default reference set is empty: no alpha the caller may read, the one asked about
excepted, stands approved. There is no other default: an alpha's id prefix says how it was sealed
and who may read it, not that it is in the live book."""


@dataclass(frozen=True)
class DefaultReference:
    """The reference set a decision route compares with when the request names none."""

    alphas: list[str]  # catalogue order, the alpha asked about never among them
    mask: np.ndarray  # the same alphas, as a readable mask (what the answer's version is built from)
    origin: str  # approved (DEFAULT_ORIGINS)
    excluded: bool  # the alpha asked about is of that set and was left out
    empty_reason: str | None = None  # why the set is empty (NO_APPROVED); None when it is not


def default_reference(
    catalogue: Catalogue, readable: np.ndarray, approved: Collection[str], alpha: str | None = None
) -> DefaultReference:
    """The one rule of the default reference set (docs/analytics.md, "The reference set"): the
    alphas in force in the live book (`approved`: the ids approved by the operator, or by a seal
    at its first publish, from the deployment's records) that `readable` (the caller's readable
    mask) admits, `alpha` excepted; when there is none, the set is empty and says why
    (`empty_reason`). A caller learns nothing of an approved alpha it may not read: for it, that
    alpha is not approved."""
    listing = catalogue.listing
    assert listing is not None
    other = np.ones(len(listing.ids), dtype=bool) if alpha is None else ~set_mask(catalogue, (alpha,))
    chosen, origin, excluded = default_members(readable & set_mask(catalogue, tuple(approved)), other)
    found = readable_ids(catalogue, chosen).to_pylist()
    return DefaultReference(found, chosen, origin, excluded, None if found else NO_APPROVED)


def default_members(approved: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, str, bool]:
    """`default_reference`'s rule on masks over any one order of alphas (the catalogue's, or the
    index rows the pipeline computes the screener's residual columns over): the `approved` alphas
    the caller may read that `other` admits (every alpha but the one asked about). (the set's mask,
    its origin, whether the alpha asked about was of it)."""
    return approved & other, "approved", bool((approved & ~other).any())


def set_mask(catalogue: Catalogue, ids: tuple[str, ...] | list[str]) -> np.ndarray:
    """Which of the catalogue's alphas (catalogue order) are in `ids`: the mask an answer built
    from their builds alone is tagged by (`entries.catalogue_tag`)."""
    listing = catalogue.listing
    assert listing is not None
    return listing.member_mask(ids).copy()  # kept per set by the listing (issue 51)
