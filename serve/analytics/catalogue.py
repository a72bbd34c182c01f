"""TEMPORARY (issue 34, until the decision routes move): the catalogue-wide figures as the routes not
yet moved to `analytics/` read them, delegated to the request's catalogue snapshot
(`datasets.catalogue_snapshot`). Removed with those routes' move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytics.significance import Seen, seen
from datasets import catalogue_snapshot
from datasets.catalogue_snapshot import Matrix, ScoreNeighbour
from datasets.faults import CatalogueIncomplete
from datasets.reader import LakeReader
from datasets.served import Catalogue
from serve import errors

__all__ = ["CatalogueFigures", "Matrix", "ScoreNeighbour", "Seen", "catalogue_unavailable"]


@dataclass(frozen=True)
class Trials(catalogue_snapshot.Trials):
    def seen(self, readable: np.ndarray, alpha: str) -> Seen:
        return seen(self, readable, alpha)


class CatalogueFigures:
    def __init__(self, reader: LakeReader | None = None) -> None:
        self.reader = reader

    def trials(self, catalogue: Catalogue) -> Trials:
        assert self.reader is not None
        found = self.reader.snapshot().trials()
        return Trials(found.version, found.rows, found.sharpes, found.p_values, found.count)

    def matrix(self, reader: LakeReader, basis: str) -> Matrix:
        return reader.snapshot().matrix(basis)

    def score_neighbours(self, reader: LakeReader, alpha: str) -> list[ScoreNeighbour] | None:
        return reader.snapshot().score_neighbours(alpha)

    def list_path(self, reader: LakeReader, alpha: str) -> str | None:
        return reader.snapshot().list_path(alpha)


def catalogue_unavailable() -> errors.ApiError:
    return errors.UpstreamUnavailable(CatalogueIncomplete().message)
