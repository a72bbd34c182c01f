"""`/analytics/correlation`: one row per other alpha the key may read (on the scores basis, per
score neighbour the key may read), from the catalogue's matrices and neighbour lists
(`serve.analytics.catalogue`), sorted by absolute correlation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.correlation import Correlation, correlate_rows, pearson_against, pearson_between
from datasets.queries import Page, Window, page_of
from datasets.reader import BuildView, Catalogue, LakeReader
from schemas import choices
from serve import errors
from serve.analytics.catalogue import CatalogueFigures, Matrix
from serve.analytics.entries import day_bounds


@dataclass(frozen=True)
class Basis:
    kind: str  # the seal kind it is built from (kind_missing names it)
    data: str  # what the key must be able to read: "ledger" or "cross_sections"
    unit: str  # of `overlap`
    table: str  # the serving table (meta.source)


BASES = {
    "returns": Basis("portfolio", "ledger", "sessions", "portfolio"),
    "ic": Basis("decisions", "cross_sections", "weeks", "weekly_signal"),
    "scores": Basis("decisions", "cross_sections", "weeks", "decisions"),
}
assert tuple(BASES) == choices.CORRELATION_BASES


def correlation_row(alpha: str, basis: str, found: Correlation) -> dict[str, Any]:
    headline = found.spearman if basis == "scores" else found.pearson
    return {
        "alpha": alpha,
        "correlation": headline,
        "pearson": found.pearson,
        "spearman": found.spearman,
        "overlap": found.overlap,
        "overlap_unit": BASES[basis].unit,
        "common_names": found.common_names,
    }


def _row_order(row: dict[str, Any]) -> tuple[bool, float, str]:
    """Absolute correlation descending, NaN last, ties (NaN among them) by alpha id."""
    missing = math.isnan(row["correlation"])
    return (missing, 0.0 if missing else -abs(row["correlation"]), row["alpha"])


def _order(alphas: pa.Array, correlations: np.ndarray) -> np.ndarray:
    """Positions by absolute correlation descending, NaN last, ties by alpha id (one Arrow sort:
    no Python object per alpha)."""
    magnitude = np.abs(correlations)
    keys = pa.table(
        {"missing": np.isnan(magnitude), "magnitude": -np.nan_to_num(magnitude, nan=-1.0), "alpha": alphas}
    )
    order = pc.sort_indices(
        keys, sort_keys=[("missing", "ascending"), ("magnitude", "ascending"), ("alpha", "ascending")]
    )
    return np.asarray(order.to_numpy(), dtype=np.int64)


def _positions(ids: pa.Array, value_set: pa.Array) -> np.ndarray:
    """Each of `ids`' position in `value_set`, -1 where it is not there."""
    found = pc.fill_null(pc.index_in(ids, value_set=value_set), -1)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int64)


def correlation_page(
    catalogue: CatalogueFigures,
    reader: LakeReader,
    build: BuildView,
    served: Catalogue,
    readable: np.ndarray,
    basis: str,
    window: Window,
    limit: int,
    offset: int,
) -> Page:
    """The rows for the other alphas of `served` (the catalogue) that `readable` (its readable
    mask) admits, this one excluded, by absolute correlation descending, rows without one last,
    ties by alpha id (the ticker-style tiebreak); the page asked for. NaN stands for null (the
    encoder writes null).

    returns and ic: the whole catalogue's Pearson correlations are one masked pass over the
    catalogue's date-aligned matrix (no pairing per alpha), the others picked and ordered by
    vectorised kernels; the rows of the page are then correlated as a pairing of the two series
    is (two-pass Pearson and Spearman, in one pass over the page:
    `analytics.correlation.correlate_rows`). scores: the alpha's score neighbours the key may
    read, each still served from the build it was paired with, over the window of its weekly
    series."""
    listing = served.listing
    assert listing is not None
    others = listing.ids.filter(pa.array(readable))
    others = others.filter(pc.not_equal(others, build.alpha_id))
    low, high = day_bounds(window)
    if basis == "scores":
        listed = catalogue.score_neighbours(reader, build.alpha_id) or []
        readable_listed = _positions(pa.array([entry.alpha_id for entry in listed], pa.string()), others) >= 0
        rows = [
            correlation_row(entry.alpha_id, basis, entry.pairing.correlate(low, high))
            for entry, ok in zip(listed, readable_listed, strict=True)
            if ok and _build_id(served, entry.alpha_id) == entry.build_id
        ]
        rows.sort(key=_row_order)
        return page_of(rows, limit, offset)
    matrix = catalogue.matrix(reader, basis)
    first, last = np.searchsorted(matrix.days, low, "left"), np.searchsorted(matrix.days, high, "right")
    matrix_rows = _positions(others, matrix.ids)
    if build.alpha_id not in matrix.rows or (matrix_rows < 0).any():
        raise errors.UpstreamUnavailable(
            "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
            "retry with backoff."
        )
    window_values = matrix.values[:, first:last]
    target = matrix.rows[build.alpha_id]
    found, _ = pearson_against(window_values, target)
    ordered = _order(others, found[matrix_rows])
    page = ordered[offset : offset + limit]
    pearson, spearman, overlap = correlate_rows(
        np.asarray(window_values[target]), np.asarray(window_values[matrix_rows[page]])
    )
    rows = [
        correlation_row(name, basis, Correlation(float(p), float(s), int(n), math.nan))
        for name, p, s, n in zip(
            others.take(pa.array(page)).to_pylist(), pearson, spearman, overlap, strict=True
        )
    ]
    return Page(rows=rows, total=len(ordered))


def _build_id(served: Catalogue, alpha: str) -> str | None:
    build = served.alphas.get(alpha)
    return None if build is None else build.build_id


def within_correlation(
    candidates: list[str], matrix: Matrix, references: list[str], bound: float
) -> list[str]:
    """The screener's `max_correlation`: the candidates whose largest absolute Pearson
    correlation, over the whole of `matrix`, to the `references` (a candidate's own row excepted)
    is defined and at most `bound`. A pair without a correlation (too few common dates, a constant
    side) is no evidence either way; a candidate with none at all fails, as a null figure fails a
    range. One block of matrix products (candidates x references), never a pairing per pair."""

    if not candidates or not references:
        return []
    if any(alpha not in matrix.rows for alpha in (*candidates, *references)):
        raise errors.UpstreamUnavailable(
            "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
            "retry with backoff."
        )
    rows = [matrix.rows[alpha] for alpha in candidates]
    columns = [matrix.rows[alpha] for alpha in references]
    found, _ = pearson_between(matrix.values[rows], matrix.values[columns])
    magnitude = np.abs(found)
    magnitude[np.equal.outer(np.array(rows), np.array(columns))] = math.nan  # an alpha with itself
    with np.errstate(invalid="ignore"):
        largest = np.fmax.reduce(magnitude, axis=1)  # NaN only where every pair is
        kept = largest <= bound  # NaN fails
    return [alpha for alpha, ok in zip(candidates, kept, strict=True) if ok]
