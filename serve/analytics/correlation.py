"""`/analytics/correlation`: one row per other alpha the key may read, from the catalogue's
pairings (`serve.analytics.catalogue`), sorted by absolute correlation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from analytics.correlation import Correlation
from datasets.queries import Window
from datasets.reader import AlphaBuild, BuildView, LakeReader
from schemas import choices
from serve.analytics.catalogue import CatalogueFigures, open_builds


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


def correlation_rows(
    catalogue: CatalogueFigures,
    reader: LakeReader,
    build: BuildView,
    others: list[AlphaBuild],
    basis: str,
    window: Window,
) -> list[dict[str, Any]]:
    """Rows for `others` (the alphas the key may read, this one excluded), by absolute
    correlation descending, rows without one last, ties by alpha id (the ticker-style tiebreak).
    NaN stands for null (the encoder writes null)."""
    rows = [
        correlation_row(view.alpha_id, basis, catalogue.pair(basis, build, view, window))
        for view in open_builds(reader, others)
    ]
    return sorted(rows, key=lambda r: (math.isnan(r["correlation"]), -abs(r["correlation"]), r["alpha"]))
