"""What the lake serves as of one refresh: each published alpha's and benchmark's current build,
and the catalogue of them (its order, version, listing and index), as the reader publishes it to
every request at once (`datasets.reader.LakeReader.catalogue`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets import catalogue_index
from datasets.text_search import TrigramIndex

BENCHMARK_KEY = "benchmark:"


@dataclass(frozen=True)
class AlphaBuild:
    """The current build of one alpha as the catalogue knows it: its alpha.json, without the file
    manifest (read when the build is opened), as JSON text. Kept as text: a worker holds one per
    alpha of the catalogue, and parsed they cost about 50 KiB each."""

    alpha_id: str
    build_id: str
    build_dir: str
    summary: str = field(hash=False, compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.alpha_id

    @property
    def entry(self) -> dict[str, Any]:
        """alpha.json without `files`, parsed now (an opened build's view holds the whole file)."""
        found: dict[str, Any] = json.loads(self.summary)
        return found


@dataclass(frozen=True)
class BenchmarkBuild:
    symbol: str
    build_id: str
    build_dir: str
    entry: dict[str, Any] = field(hash=False, compare=False)

    @property
    def key(self) -> str:
        return BENCHMARK_KEY + self.symbol


@dataclass(frozen=True)
class Catalogue:
    alphas: dict[str, AlphaBuild]
    unreadable: dict[str, str]  # published alphas whose pointer or alpha.json is corrupt
    benchmarks: dict[str, BenchmarkBuild]
    failure: str | None = None  # why the last re-read failed (the lake could not be listed)
    index: pa.Table | None = None  # the catalogue index it was read from (None: a lake without one)
    version: str = ""  # changes whenever any listed alpha's build changes (the catalogue's ETag)
    order: tuple[str, ...] = ()  # readable alpha ids in catalogue order (`catalog.catalogue_order`)
    listing: Listing | None = None  # what `/v1/alphas` filters on, aligned with `order`
    generation: catalogue_index.Generation | None = None  # of the index it was read from


@dataclass(frozen=True)
class Listing:
    """The catalogue's listed fields as Arrow arrays in catalogue order, built once per catalogue
    so a `/v1/alphas` request filters with vectorised kernels instead of a loop over every alpha."""

    ids: pa.Array  # alpha_id
    fingerprints: np.ndarray  # uint64 of each alpha: its build and when its index row was computed
    names: pa.Array  # name, or alpha_id when the run has none
    tldrs: pa.Array  # tldr (null when none)
    complete: pa.Array  # bool
    text: pa.Array  # alpha_id, name and tldr, casefolded, joined by NUL
    search: TrigramIndex | None = None  # over `text` (`datasets.text_search`): the search's candidates
    # The digest of the fingerprints of the alphas a mask admits, by the mask's own digest (a few
    # masks per catalogue: every alpha, each key's allow-lists): `digest_of`.
    _digests: dict[bytes, bytes] = field(default_factory=dict, compare=False, repr=False)
    _members: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(
        cls, ids: list[str], versions: list[str], names: list[Any], tldrs: list[Any], complete: list[Any]
    ) -> Listing:
        """`versions`: what identifies each alpha's figures (its build, and when its index row was
        computed: `lake index` recomputes figures of unchanged builds)."""
        names = [str(name or alpha) for alpha, name in zip(ids, names, strict=True)]
        tldrs = [None if tldr is None else str(tldr) for tldr in tldrs]
        texts = [
            SEPARATOR.join(v.casefold() for v in (alpha, name, tldr or ""))
            for alpha, name, tldr in zip(ids, names, tldrs, strict=True)
        ]
        text = pa.array(texts, pa.string())
        return cls(
            pa.array(ids, pa.string()),
            np.array(
                [fingerprint(alpha, version) for alpha, version in zip(ids, versions, strict=True)], np.uint64
            ),
            pa.array(names, pa.string()),
            pa.array(tldrs, pa.string()),
            pa.array([bool(c) for c in complete], pa.bool_()),
            text,
            TrigramIndex.of(text),
        )

    def member_mask(self, ids: tuple[str, ...] | list[str]) -> np.ndarray:
        """Which alphas (catalogue order) are among `ids` (read only); kept for a set of at most
        MEMBER_SETS ids, the sets requests name again (the approved alphas, a reference set)."""
        key = tuple(ids)
        found = self._members.get(key) if len(key) <= MEMBER_SETS else None
        if found is None:
            matched = pc.is_in(self.ids, value_set=pa.array(list(key), pa.string()))
            found = np.asarray(pc.fill_null(matched, False).to_numpy(zero_copy_only=False), dtype=bool)
            found.setflags(write=False)
            if len(key) <= MEMBER_SETS:
                if len(self._members) >= DIGESTS:
                    self._members.clear()
                self._members[key] = found
        return found

    def digest_of(self, mask: np.ndarray) -> bytes:
        """SHA-256 of the fingerprints of the alphas `mask` admits (catalogue order), kept per mask:
        a request's version costs a digest of its mask's bits, not of every fingerprint (issue 51)."""
        key = hashlib.sha256(np.packbits(mask).tobytes() + len(mask).to_bytes(8, "big")).digest()
        found = self._digests.get(key)
        if found is None:
            found = hashlib.sha256(self.fingerprints[mask].tobytes()).digest()
            if len(self._digests) >= DIGESTS:
                self._digests.clear()  # a few masks are asked for; a burst of others starts again
            self._digests[key] = found
        return found

    def rows(self, positions: Sequence[int] | np.ndarray) -> list[dict[str, Any]]:
        """`/v1/alphas` rows of the alphas at `positions`."""
        taken = pa.array(positions, pa.int64())
        columns = (self.ids.take(taken), self.names.take(taken), self.tldrs.take(taken))
        return [
            {"alpha_id": alpha, "name": name, "tldr": tldr}
            for alpha, name, tldr in zip(*(c.to_pylist() for c in columns), strict=True)
        ]

    def select(
        self, readable: pa.Array | None, complete_only: bool, needle: str | None
    ) -> np.ndarray | range:
        """Positions (catalogue order) of the alphas `readable` admits (None: all), complete
        when asked, whose alpha_id, name or tldr contains the casefolded `needle`; a numpy array or
        a range, so that a page of them is sliced without a list of the whole catalogue."""
        keep = readable
        if complete_only:
            keep = self.complete if keep is None else pc.and_(keep, self.complete)
        if needle is not None:
            if SEPARATOR in needle:
                return range(0)  # no field holds the separator
            if self.search is not None:
                # The rows holding every trigram of the needle, matched as below (issue 51).
                rows = self.search.find(self.text, needle)
                if keep is not None:
                    admitted = np.asarray(
                        pc.fill_null(keep, False).to_numpy(zero_copy_only=False), dtype=bool
                    )
                    rows = rows[admitted[rows]]
                return rows
            found = pc.match_substring(self.text, needle)
            keep = found if keep is None else pc.and_(keep, found)
        if keep is None:
            return range(len(self.ids))
        positions: np.ndarray = pc.indices_nonzero(pc.fill_null(keep, False)).to_numpy()
        return positions


SEPARATOR = "\x00"
DIGESTS = 64
"""Masks whose fingerprint digests a listing keeps (`Listing.digest_of`), and sets of ids whose
masks it keeps (`Listing.member_mask`)."""
MEMBER_SETS = 1_000
"""The largest set of ids whose mask a listing keeps."""


def fingerprint(alpha_id: str, version: str) -> int:
    """64 bits of an alpha's figures (its id and `version`): the answers built from many alphas are
    tagged by their fingerprints, gathered for the alphas a key may read without a loop."""
    return int.from_bytes(hashlib.blake2b(f"{alpha_id}@{version}".encode(), digest_size=8).digest(), "big")
