"""The catalogue as one request reads it: its index, its date-aligned matrices, the trials columns
and each alpha's score neighbours, all of one generation.

A request takes one `CatalogueSnapshot` (`LakeReader.snapshot()`), as it takes one view per build:
every catalogue-wide figure of its answer is read from the same catalogue, so a refresh between two
reads cannot mix two generations under an ETag computed from the first. What is mapped or decoded
once per catalogue generation (the matrices, the trials columns, the neighbour-list paths) is kept
in the reader's `CatalogueCache`, keyed by the catalogue's version; the score neighbour lists of
the NEIGHBOUR_LISTS alphas asked for last are kept too (`pipeline/catalogue_neighbours.py` writes
them, one small file per alpha).

A catalogue figure is exact or absent: the index, a matrix or a list that cannot be read raises
`CatalogueIncomplete` (503), never a figure over fewer alphas than published.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from alpha_results_seal.storage import Storage
from datasets import catalogue_index
from datasets.faults import CatalogueIncomplete, CorruptLakeFile, LakeUnavailable
from datasets.screener import Screener
from datasets.served import Catalogue
from datasets.trial_sums import TrialSums
from schemas.lake import SCORE_NEIGHBOURS, TRIAL_LINKS

NEIGHBOUR_LISTS = 256
"""Score neighbour lists a worker keeps (each a few tens of KiB: 50 pairings of weekly series)."""


@dataclass(frozen=True)
class ScoreNeighbour:
    """One score neighbour of an alpha: per common week (days since 1970, ascending), the two
    alphas' rank correlation (`rho`) and the names behind it (`names`)."""

    alpha_id: str
    build_id: str  # the neighbour's build it was paired with
    days: np.ndarray
    rho: np.ndarray
    names: np.ndarray


@dataclass(frozen=True)
class Trials:
    """Columns of the catalogue index for the listed alphas, in the listing's order."""

    version: str  # of the catalogue they were read from (`Catalogue.version`)
    rows: dict[str, int]  # alpha -> its row
    sharpes: np.ndarray  # per-session Sharpe of each alpha's whole long_short history; NaN: none
    p_values: np.ndarray  # nwt.ic p-value of each alpha; NaN where not measurable
    count: int  # alphas with a measurable Sharpe ratio, and the unreadable ones
    sums: TrialSums | None = None  # the generation's exact sums of those Sharpe ratios (trial_sums)
    # The links of the trials' clustering (analytics/trial_clusters.py) as rows of the listing, both
    # ends listed; None when the generation records none (written before them, or too large to link
    # from scratch at a publish: `alpha-results lake index` writes them)
    links: tuple[np.ndarray, np.ndarray] | None = None
    # The generation's clusters of its trials, kept by every publish, and the unreadable alphas one
    # each; None when not recorded or not over the listing's trials
    clusters: int | None = None


@dataclass(frozen=True)
class Matrix:
    """One basis of the catalogue's date-aligned matrices (`pipeline/index_rows.py`): a row per
    alpha of the index (`rows`), a column per date (`days`, days since 1970), NaN where none."""

    version: str
    rows: dict[str, int]
    ids: pa.Array  # alpha_id of each row
    days: np.ndarray
    values: np.ndarray
    # The matrix's correlation index (analytics/nearest.py), None in a generation written before it:
    # each row z-normalised (float32, zero where none) and its span (first and last date, dates
    # held, z sums: `analytics.nearest.span_rows`)
    z: np.ndarray | None = None
    span: np.ndarray | None = None
    listed: np.ndarray | None = None  # the row of each alpha of the listing (catalogue order)
    # The index's stored gap lists (`catalogue_index.read_gaps`: each row's count, the gaps' date
    # columns), None in a generation written before them (analytics makes them from the z rows)
    gaps: tuple[np.ndarray, np.ndarray] | None = None
    # What analytics derives from the matrix once per generation, on first use (the correlation
    # index's spans on this matrix's date columns, `analytics.nearest.Spans`)
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def series(self, alpha: str) -> tuple[np.ndarray, np.ndarray]:
        """(days, values) where the alpha has a finite value."""
        values = np.asarray(self.values[self.rows[alpha]])
        finite = np.isfinite(values)
        return self.days[finite], values[finite]


ANSWERS_KEPT = 64
"""Answers over the catalogue a reader keeps (`CatalogueCache.answer`): a few scopes of a few
generations."""

T = TypeVar("T")


class CatalogueCache:
    """What the reader keeps per catalogue generation; one per reader, thread-safe (routes compute
    in worker threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.trials: Trials | None = None
        self.matrices: dict[str, Matrix] = {}
        self.neighbours: OrderedDict[str, list[ScoreNeighbour]] = OrderedDict()
        self.paths: tuple[str, dict[str, str | None]] | None = None
        self.answers: OrderedDict[str, object] = OrderedDict()
        """Answers over the catalogue made once per version (an answer's version names the builds,
        standings, policy and scope it is of: `analytics.reading.catalogue_tag`), the newest kept."""

    def answer(self, version: str, make: Callable[[], T]) -> T:
        """The answer of `version`, made by `make` the first time (outside the lock: two threads
        may both make it once; either is the same answer)."""
        with self.lock:
            kept = self.answers.get(version)
            if kept is not None:
                self.answers.move_to_end(version)
                return kept  # type: ignore[return-value]
        made = make()
        with self.lock:
            self.answers[version] = made
            while len(self.answers) > ANSWERS_KEPT:
                self.answers.popitem(last=False)
        return made


@dataclass(frozen=True)
class CatalogueSnapshot:
    """The catalogue of one request (see the module's docstring)."""

    catalogue: Catalogue
    storage: Storage
    root: str
    cache: CatalogueCache
    screener: Screener  # the reader's DuckDB database over the catalogue index (/analytics/screen)

    @property
    def version(self) -> str:
        return self.catalogue.version

    def trials(self) -> Trials:
        """The trials columns (each alpha's Sharpe ratio and nwt.ic p-value) of the listed alphas."""
        catalogue, cache = self.catalogue, self.cache
        cached = cache.trials
        if cached is not None and cached.version == catalogue.version:
            return cached
        if catalogue.index is None:
            raise CatalogueIncomplete(
                "The lake has no catalogue index, which the catalogue-wide figures are read from; an "
                "operator writes it with `alpha-results lake index`."
            )
        # The listed alphas' rows, in the listing's order (the readable mask's): an unreadable
        # alpha has no figures in the index, and whether it stops an answer is the route's rule
        # (only when the key may read it).
        listing = catalogue.listing
        assert listing is not None
        index = catalogue.index
        rows = pc.index_in(listing.ids, value_set=index.column("alpha_id")).to_numpy(zero_copy_only=False)
        sharpes = _floats(index.column("sharpe_per_session"))[rows]
        generation = catalogue.generation
        sums = None if generation is None else TrialSums.parse(generation.trials)
        if sums is not None and sums.count != int(np.count_nonzero(np.isfinite(sharpes))):
            sums = None  # not the listing's (never expected): the pass over the column serves
        links, clusters = self._links(generation, listing.ids, sharpes)
        found = Trials(
            catalogue.version,
            {alpha: row for row, alpha in enumerate(listing.ids.to_pylist())},
            sharpes,
            _floats(index.column("nwt_ic_p_value"))[rows],
            # An unreadable alpha was run too: counted as a trial (deflating by fewer trials than
            # were run would flatter), and a key that may not read it sees N as it was.
            int(np.count_nonzero(np.isfinite(sharpes))) + len(catalogue.unreadable),
            sums,
            links,
            None if clusters is None else clusters + len(catalogue.unreadable),
        )
        with cache.lock:
            cache.trials = found
        return found

    def _links(
        self, generation: catalogue_index.Generation | None, ids: pa.Array, sharpes: np.ndarray
    ) -> tuple[tuple[np.ndarray, np.ndarray] | None, int | None]:
        """The generation's trial links as listing rows, and its recorded clusters (None unless
        recorded over exactly the listing's trials)."""
        document = None if generation is None else generation.trials
        path = None if not document else document.get("links")
        if path is None or document is None:
            return None, None
        try:
            table = catalogue_index.read_table(self.storage, self.root, str(path), TRIAL_LINKS)
        except (OSError, CorruptLakeFile) as exc:
            raise CatalogueIncomplete() from exc
        a = pc.index_in(table.column("alpha_a"), value_set=ids)
        b = pc.index_in(table.column("alpha_b"), value_set=ids)
        listed = pc.and_(pc.is_valid(a), pc.is_valid(b))
        rows_a = np.asarray(pc.filter(a, listed).to_numpy(zero_copy_only=False), dtype=np.int64)
        rows_b = np.asarray(pc.filter(b, listed).to_numpy(zero_copy_only=False), dtype=np.int64)
        clusters = document.get("clusters")
        clustered = document.get("clustered")
        if not isinstance(clusters, int) or clustered != int(np.count_nonzero(np.isfinite(sharpes))):
            clusters = None
        return (rows_a, rows_b), clusters

    def matrix(self, basis: str) -> Matrix:
        """The catalogue's matrix of `basis` (returns, ic), mapped once per catalogue generation."""
        catalogue, cache = self.catalogue, self.cache
        cached = cache.matrices.get(basis)
        if cached is not None and cached.version == catalogue.version:
            return cached
        generation, index = catalogue.generation, catalogue.index
        values = days = None
        if generation is not None and index is not None:
            try:
                days = catalogue_index.read_matrix(self.storage, self.root, generation, f"{basis}_days")
                values = catalogue_index.read_matrix(self.storage, self.root, generation, basis)
            except (OSError, LakeUnavailable) as exc:
                raise CatalogueIncomplete() from exc
        if values is None or days is None or index is None:
            raise CatalogueIncomplete(
                "The catalogue index has no correlation matrices; an operator writes them with "
                "`alpha-results lake index`."
            )
        ids = index.column("alpha_id").combine_chunks()
        rows = {alpha: row for row, alpha in enumerate(ids.to_pylist())}
        assert generation is not None
        try:
            z = catalogue_index.read_matrix(self.storage, self.root, generation, f"{basis}_z")
            span = catalogue_index.read_matrix(self.storage, self.root, generation, f"{basis}_span")
            gaps = (
                None if z is None else catalogue_index.read_gaps(self.storage, self.root, generation, basis)
            )
        except (OSError, LakeUnavailable) as exc:
            raise CatalogueIncomplete() from exc
        listed = None
        if catalogue.listing is not None:
            positions = pc.fill_null(pc.index_in(catalogue.listing.ids, value_set=ids), -1)
            listed = np.asarray(positions.to_numpy(zero_copy_only=False), dtype=np.int64)
        found = Matrix(catalogue.version, rows, ids, np.asarray(days), values, z, span, listed, gaps)
        with cache.lock:
            cache.matrices[basis] = found
        return found

    def score_neighbours(self, alpha: str) -> list[ScoreNeighbour] | None:
        """The score neighbours of `alpha` as its row of the catalogue index names them (stale
        entries included: the caller keeps those whose neighbour is still served from the build
        named); None when its build has no decisions."""
        index = self.catalogue.index
        if index is None or "score_neighbours" not in index.column_names:
            raise CatalogueIncomplete(
                "The catalogue index has no score neighbours; an operator writes them with "
                "`alpha-results lake index`."
            )
        path = self.list_path(alpha)
        if path is None:
            return None
        cache = self.cache
        with cache.lock:
            found = cache.neighbours.get(path)
            if found is not None:
                cache.neighbours.move_to_end(path)
                return found
        try:
            table = catalogue_index.read_table(self.storage, self.root, path, SCORE_NEIGHBOURS)
        except (OSError, CorruptLakeFile) as exc:
            raise CatalogueIncomplete() from exc
        found = [
            ScoreNeighbour(alpha_id, build_id, days, rho, names)
            for alpha_id, build_id, _, days, rho, names in catalogue_index.neighbour_entries(table)
        ]
        with cache.lock:
            cache.neighbours[path] = found
            while len(cache.neighbours) > NEIGHBOUR_LISTS:
                cache.neighbours.popitem(last=False)
        return found

    def list_path(self, alpha: str) -> str | None:
        """The path of `alpha`'s score neighbours list (None: it has none)."""
        return self._list_paths().get(alpha)

    def _list_paths(self) -> dict[str, str | None]:
        """alpha -> the path of its score neighbours list, once per catalogue version."""
        catalogue, cache = self.catalogue, self.cache
        cached = cache.paths
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
        cache.paths = (catalogue.version, paths)
        return paths

    def build_id(self, alpha: str) -> str | None:
        """The build `alpha` is served from in this catalogue (None: not published)."""
        build = self.catalogue.alphas.get(alpha)
        return None if build is None else build.build_id


def _floats(column: pa.ChunkedArray) -> np.ndarray:
    """A float column of the index as numpy, NaN for null."""
    return np.asarray(column.to_numpy(), dtype=np.float64)
