"""A trigram index over the catalogue's search text (issue 51: `/v1/alphas?search=` without a pass
over every alpha's text; docs/analytics.md "Search at scale").

The listing's search is a substring match of the casefolded needle in each alpha's casefolded
`alpha_id`, name and tldr, joined by NUL (`datasets.served.Listing.text`). `TrigramIndex` holds,
for each three-byte sequence of that UTF-8 text (one not holding the separator), the rows holding
it (ascending). A needle of three bytes or more can only be in a row holding every one of its
trigrams: the rows of its rarest trigram, narrowed by each other's, are the candidates, and the
same substring match as before (`pyarrow.compute.match_substring`) over those alone decides. So
the rows found are exactly the rows the pass over every text finds; the index only prunes. A
needle of one or two bytes has no trigram: it is matched over every row, as before.

Built from the Arrow text in a few vectorised passes when the worker reads a catalogue generation
(`Listing.of`): about 4 bytes per trigram of the text (28 MB at 100,000 synthetic alphas).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SEPARATOR = b"\x00"


@dataclass(frozen=True)
class TrigramIndex:
    codes: np.ndarray  # uint32, ascending: each trigram's three bytes, big-endian
    starts: np.ndarray  # int64, len(codes) + 1: where each trigram's rows begin in `rows`
    rows: np.ndarray  # int32: the rows holding each trigram, ascending within a trigram
    rows_count: int  # rows of the text indexed

    @classmethod
    def of(cls, text: pa.Array) -> TrigramIndex:
        """The index of `text` (strings; a null holds no trigram)."""
        text = pc.fill_null(text.cast(pa.large_string()), "")
        if isinstance(text, pa.ChunkedArray):
            text = text.combine_chunks()
        offsets = np.frombuffer(text.buffers()[1], dtype=np.int64)[text.offset : text.offset + len(text) + 1]
        data = text.buffers()[2]
        first, last = int(offsets[0]), int(offsets[-1])
        raw = np.frombuffer(data, dtype=np.uint8)[first:last] if data is not None else np.empty(0, np.uint8)
        empty = cls(np.empty(0, np.uint32), np.zeros(1, np.int64), np.empty(0, np.int32), len(text))
        if raw.size < 3:
            return empty
        lengths = np.diff(offsets)
        row_of = np.repeat(np.arange(len(text), dtype=np.int64), lengths)  # the row of each byte
        at = np.arange(raw.size - 2)
        keep = row_of[at] == row_of[at + 2]  # the three bytes in one row
        keep &= (raw[at] != 0) & (raw[at + 1] != 0) & (raw[at + 2] != 0)  # no separator
        at = at[keep]
        if not at.size:
            return empty
        codes = (raw[at].astype(np.uint64) << 16) | (raw[at + 1].astype(np.uint64) << 8) | raw[at + 2]
        keys = np.sort((codes << 32) | row_of[at].astype(np.uint64))
        keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]  # each (trigram, row) once
        found = (keys >> 32).astype(np.uint32)
        rows = (keys & 0xFFFFFFFF).astype(np.int32)
        boundary = np.flatnonzero(np.diff(found)) + 1
        starts = np.concatenate([[0], boundary, [found.size]]).astype(np.int64)
        return cls(found[starts[:-1]], starts, rows, len(text))

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes + self.starts.nbytes + self.rows.nbytes)

    def candidates(self, needle: str) -> np.ndarray | None:
        """The rows (ascending int64) that hold every trigram of `needle`: a superset of the rows
        whose text contains it; None for a needle of fewer than three bytes or holding the
        separator (no trigram of it is indexed)."""
        raw = np.frombuffer(needle.encode(), dtype=np.uint8)
        if raw.size < 3 or (raw == 0).any():
            return None  # no trigram indexed (the listing answers a needle with the separator itself)
        codes = np.unique(
            (raw[:-2].astype(np.uint32) << 16)
            | (raw[1:-1].astype(np.uint32) << 8)
            | raw[2:].astype(np.uint32)
        )
        where = np.searchsorted(self.codes, codes)
        if (where >= self.codes.size).any() or (
            self.codes[np.minimum(where, self.codes.size - 1)] != codes
        ).any():
            return np.empty(0, np.int64)  # a trigram no row holds
        lists = sorted(
            (self.rows[self.starts[w] : self.starts[w + 1]] for w in where.tolist()),
            key=lambda rows: rows.size,
        )
        found = lists[0].astype(np.int64)
        if len(lists) > 1 and found.size:
            member = np.zeros(int(self.rows_count), dtype=bool)
            for other in lists[1:]:
                if other.size > self.rows_count // 2:
                    break  # held by most rows: prunes little, and the match decides anyway
                member[other] = True
                found = found[member[found]]
                member[other] = False
                if not found.size:
                    break
        return found

    def find(self, text: pa.Array, needle: str) -> np.ndarray:
        """The rows (ascending int64) of `text` (the array this index was built from) containing
        `needle`: exactly `pc.match_substring(text, needle)`'s true rows."""
        candidates = self.candidates(needle)
        if candidates is None:
            matched = pc.fill_null(pc.match_substring(text, needle), False)
            return np.asarray(pc.indices_nonzero(matched).to_numpy(), dtype=np.int64)
        if not candidates.size:
            return candidates
        matched = pc.fill_null(pc.match_substring(text.take(pa.array(candidates)), needle), False)
        found: np.ndarray = candidates[np.asarray(matched.to_numpy(zero_copy_only=False), dtype=bool)]
        return found
