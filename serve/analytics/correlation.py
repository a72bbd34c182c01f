"""`/analytics/correlation`: one row per other alpha the key may read (on the scores basis, per
score neighbour the key may read), from the catalogue's matrices and neighbour lists
(`serve.analytics.catalogue`), sorted by absolute correlation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics.correlation import Correlation, correlate_rows, pearson_against, pearson_between
from datasets.queries import Page, Window, page_of
from datasets.reader import AlphaBuild, BuildView, LakeReader
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


def _order(alphas: list[str], correlations: np.ndarray) -> list[int]:
    """Positions by absolute correlation descending, NaN last, ties by alpha id."""
    magnitude = np.abs(correlations)
    keys = (np.array(alphas, dtype=str), -np.nan_to_num(magnitude, nan=-1.0), np.isnan(magnitude))
    return [int(position) for position in np.lexsort(keys)]


def correlation_page(
    catalogue: CatalogueFigures,
    reader: LakeReader,
    build: BuildView,
    others: list[AlphaBuild],
    basis: str,
    window: Window,
    limit: int,
    offset: int,
) -> Page:
    """The rows for `others` (the alphas the key may read, this one excluded) by absolute
    correlation descending, rows without one last, ties by alpha id (the ticker-style tiebreak);
    the page asked for. NaN stands for null (the encoder writes null).

    returns and ic: the whole catalogue's Pearson correlations are one masked pass over the
    catalogue's date-aligned matrix (no pairing per alpha); the rows of the page are then
    correlated as a pairing of the two series is (two-pass Pearson and Spearman, in one pass over
    the page: `analytics.correlation.correlate_rows`). scores: the alpha's score neighbours the key may read,
    each still served from the build it was paired with, over the window of its weekly series."""
    low, high = day_bounds(window)
    if basis == "scores":
        listed = catalogue.score_neighbours(reader, build.alpha_id) or []
        served = {other.alpha_id: other.build_id for other in others}
        rows = [
            correlation_row(entry.alpha_id, basis, entry.pairing.correlate(low, high))
            for entry in listed
            if served.get(entry.alpha_id) == entry.build_id
        ]
        rows.sort(key=_row_order)
        return page_of(rows, limit, offset)
    matrix = catalogue.matrix(reader, basis)
    first, last = np.searchsorted(matrix.days, low, "left"), np.searchsorted(matrix.days, high, "right")
    names = [other.alpha_id for other in others]
    if build.alpha_id not in matrix.rows or any(name not in matrix.rows for name in names):
        raise errors.UpstreamUnavailable(
            "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
            "retry with backoff."
        )
    window_values = matrix.values[:, first:last]
    target = matrix.rows[build.alpha_id]
    found, _ = pearson_against(window_values, target)
    picked = found[[matrix.rows[name] for name in names]]
    ordered = [names[position] for position in _order(names, picked)]
    page = ordered[offset : offset + limit]
    pearson, spearman, overlap = correlate_rows(
        np.asarray(window_values[target]), np.asarray(window_values[[matrix.rows[name] for name in page]])
    )
    rows = [
        correlation_row(name, basis, Correlation(float(p), float(s), int(n), math.nan))
        for name, p, s, n in zip(page, pearson, spearman, overlap, strict=True)
    ]
    return Page(rows=rows, total=len(ordered))


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
