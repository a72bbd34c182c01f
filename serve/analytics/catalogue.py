"""Figures over the whole published catalogue, cached by the set of builds that went into them.

- `Trials`: each alpha's per-session Sharpe ratio (the Deflated Sharpe Ratio's trials) and nwt.ic
  p-value (the Holm and Benjamini-Hochberg family), read from the catalogue index (the pipeline
  computed each alpha's figures when it published it): no build is opened. A key gets `Seen`, the
  figures its answer is built from: the catalogue's trial count, and the Sharpe variance and the
  p-value family over the alphas it may read (a numpy mask of the index's columns), so no answer
  depends on the value of an alpha the key may not read.
- `Matrix`: the catalogue's date-aligned matrices of daily returns and weekly IC (returns and ic
  correlations are masked matrix products over them, any window a slice);
- each alpha's score neighbours (`pipeline/catalogue_neighbours.py`): its nearest alphas on the
  scores basis with each pairing's weekly series, one small file per alpha, kept for the
  NEIGHBOUR_LISTS alphas asked for last.

A catalogue figure is exact or absent: a published build the key may read that cannot be read
makes it a 503 (`entries.whole_catalogue`), never a figure over fewer alphas than the key may read.
One the key may not read changes nothing it is answered: the trial count N counts it as a trial
(its figures cannot be read, but it was run), so health alone names the damage.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.correlation import Pairing
from datasets import catalogue_index
from datasets.faults import CorruptLakeFile, LakeUnavailable
from datasets.reader import Catalogue, LakeReader
from schemas.lake import SCORE_NEIGHBOURS
from serve import errors
from serve.metrics import Access

log = logging.getLogger(__name__)
FULL_ACCESS = Access(cross_sections=True, ledger=True)
NEIGHBOUR_LISTS = 256
"""Score neighbour lists a worker keeps (each a few tens of KiB: 50 pairings of weekly series)."""


@dataclass(frozen=True)
class ScoreNeighbour:
    alpha_id: str
    build_id: str  # the neighbour's build it was paired with
    pairing: Pairing


@dataclass(frozen=True)
class Seen:
    """The catalogue figures of one key's significance answer."""

    count: int  # N: alphas of the whole catalogue with a measurable Sharpe ratio (a count only)
    sharpe_variance: float  # V over the readable alphas' Sharpe ratios (ddof 1); NaN below 2
    sharpe_variance_alphas: int  # how many Sharpe ratios V is over
    family: np.ndarray  # the readable alphas' measurable nwt.ic p-values
    own: int | None  # this alpha's position in `family` (None: its p-value is not measurable)

    def tag(self) -> str:
        """A digest of every catalogue figure above: with the alpha's build it is all a
        significance answer depends on, so another alpha's republish that leaves them equal
        leaves the answer's ETag as it was."""
        digest = hashlib.sha256(
            f"{self.count};{self.sharpe_variance!r};{self.sharpe_variance_alphas};{self.own}".encode()
        )
        digest.update(np.ascontiguousarray(self.family, dtype=np.float64).tobytes())
        return digest.hexdigest()[:24]


@dataclass(frozen=True)
class Trials:
    """Columns of the catalogue index for the listed alphas, in the listing's order."""

    version: str  # of the catalogue they were read from (`Catalogue.version`)
    rows: dict[str, int]  # alpha -> its row
    sharpes: np.ndarray  # per-session Sharpe of each alpha's whole long_short history; NaN: none
    p_values: np.ndarray  # nwt.ic p-value of each alpha; NaN where not measurable
    count: int  # alphas with a measurable Sharpe ratio, and the unreadable ones

    def seen(self, readable: np.ndarray, alpha: str) -> Seen:
        """What a key that may read the alphas of the mask `readable` is answered about `alpha`."""
        assert readable.size == self.sharpes.size  # both in the listing's order
        sharpes = self.sharpes[readable]
        sharpes = sharpes[np.isfinite(sharpes)]
        variance = float(np.var(sharpes, ddof=1)) if sharpes.size >= 2 else math.nan
        family_mask = readable & np.isfinite(self.p_values)
        row = self.rows.get(alpha)
        own = None if row is None or not family_mask[row] else int(np.count_nonzero(family_mask[:row]))
        return Seen(self.count, variance, int(sharpes.size), self.p_values[family_mask], own)


@dataclass(frozen=True)
class Matrix:
    """One basis of the catalogue's date-aligned matrices (`pipeline/catalogue_index.py`): a row per
    alpha of the index (`rows`), a column per date (`days`, days since 1970), NaN where none."""

    version: str
    rows: dict[str, int]
    ids: pa.Array  # alpha_id of each row
    days: np.ndarray
    values: np.ndarray

    def series(self, alpha: str) -> tuple[np.ndarray, np.ndarray]:
        """(days, values) where the alpha has a finite value."""
        values = np.asarray(self.values[self.rows[alpha]])
        finite = np.isfinite(values)
        return self.days[finite], values[finite]


class CatalogueFigures:
    """One per worker; thread-safe (routes compute in worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trials: Trials | None = None
        self._matrices: dict[str, Matrix] = {}
        self._neighbours: OrderedDict[str, list[ScoreNeighbour]] = OrderedDict()
        self._paths: tuple[str, dict[str, str | None]] | None = None

    def trials(self, catalogue: Catalogue) -> Trials:
        cached = self._trials
        if cached is not None and cached.version == catalogue.version:
            return cached
        if catalogue.index is None:
            raise errors.UpstreamUnavailable(
                "The lake has no catalogue index, which the catalogue-wide figures are read from; an "
                "operator writes it with `alpha-results lake index`."
            )
        # The listed alphas' rows, in the listing's order (the readable mask's): an unreadable
        # alpha has no figures in the index, and whether it stops an answer is the route's rule
        # (`entries.whole_catalogue`: only when the key may read it).
        listing = catalogue.listing
        assert listing is not None
        index = catalogue.index
        rows = pc.index_in(listing.ids, value_set=index.column("alpha_id")).to_numpy(zero_copy_only=False)
        sharpes = _floats(index.column("sharpe_per_session"))[rows]
        found = Trials(
            catalogue.version,
            {alpha: row for row, alpha in enumerate(listing.ids.to_pylist())},
            sharpes,
            _floats(index.column("nwt_ic_p_value"))[rows],
            # An unreadable alpha was run too: counted as a trial (deflating by fewer trials than
            # were run would flatter), and a key that may not read it sees N as it was.
            int(np.count_nonzero(np.isfinite(sharpes))) + len(catalogue.unreadable),
        )
        with self._lock:
            self._trials = found
        return found

    def matrix(self, reader: LakeReader, basis: str) -> Matrix:
        """The catalogue's matrix of `basis` (returns, ic), mapped once per catalogue generation."""
        catalogue = reader.catalogue()
        cached = self._matrices.get(basis)
        if cached is not None and cached.version == catalogue.version:
            return cached
        generation, index = catalogue.generation, catalogue.index
        values = days = None
        if generation is not None and index is not None:
            try:
                days = catalogue_index.read_matrix(reader.storage, reader.root, generation, f"{basis}_days")
                values = catalogue_index.read_matrix(reader.storage, reader.root, generation, basis)
            except (OSError, LakeUnavailable) as exc:
                raise catalogue_unavailable() from exc
        if values is None or days is None or index is None:
            raise errors.UpstreamUnavailable(
                "The catalogue index has no correlation matrices; an operator writes them with "
                "`alpha-results lake index`."
            )
        ids = index.column("alpha_id").combine_chunks()
        rows = {alpha: row for row, alpha in enumerate(ids.to_pylist())}
        found = Matrix(catalogue.version, rows, ids, np.asarray(days), values)
        with self._lock:
            self._matrices[basis] = found
        return found

    def score_neighbours(self, reader: LakeReader, alpha: str) -> list[ScoreNeighbour] | None:
        """The score neighbours of `alpha` as its row of the catalogue index names them (stale
        entries included: the caller keeps those whose neighbour is still served from the build
        named); None when its build has no decisions. Raises 503 when the index holds no lists."""
        catalogue = reader.catalogue()
        index = catalogue.index
        if index is None or "score_neighbours" not in index.column_names:
            raise errors.UpstreamUnavailable(
                "The catalogue index has no score neighbours; an operator writes them with "
                "`alpha-results lake index`."
            )
        path = self.list_path(reader, alpha)
        if path is None:
            return None
        with self._lock:
            found = self._neighbours.get(path)
            if found is not None:
                self._neighbours.move_to_end(path)
                return found
        try:
            table = catalogue_index.read_table(reader.storage, reader.root, path, SCORE_NEIGHBOURS)
        except (OSError, CorruptLakeFile) as exc:
            raise catalogue_unavailable() from exc
        found = [
            ScoreNeighbour(alpha_id, build_id, Pairing(days, rho, names))
            for alpha_id, build_id, _, days, rho, names in catalogue_index.neighbour_entries(table)
        ]
        with self._lock:
            self._neighbours[path] = found
            while len(self._neighbours) > NEIGHBOUR_LISTS:
                self._neighbours.popitem(last=False)
        return found

    def list_path(self, reader: LakeReader, alpha: str) -> str | None:
        """The path of `alpha`'s score neighbours list (None: it has none)."""
        return self._list_paths(reader.catalogue()).get(alpha)

    def _list_paths(self, catalogue: Catalogue) -> dict[str, str | None]:
        """alpha -> the path of its score neighbours list, once per catalogue version."""
        cached = self._paths
        if cached is not None and cached[0] == catalogue.version:
            return cached[1]
        index = catalogue.index
        assert index is not None
        paths = dict(
            zip(
                index.column("alpha_id").to_pylist(),
                index.column("score_neighbours").to_pylist(),
                strict=True,
            )
        )
        self._paths = (catalogue.version, paths)
        return paths


def _floats(column: pa.ChunkedArray) -> np.ndarray:
    """A float column of the index as numpy, NaN for null."""
    return np.asarray(column.to_numpy(), dtype=np.float64)


def catalogue_unavailable() -> errors.ApiError:
    # Never name the other alpha: the caller may not be allowed to know it exists.
    return errors.UpstreamUnavailable(
        "A published build of the catalogue cannot be read, so the catalogue-wide figures are "
        "unavailable; retry with backoff."
    )
