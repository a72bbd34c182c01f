"""`python -m tests.bench.row_bytes_designs`: what a page of row bytes costs in the three designs
weighed for issue 61 item 1 (docs/benchmarks.md "Row bytes: the lake's growth against a page's
cost"), on synthetic rows shaped like a decision row (25 fields, a name and floats):

- whole rows (what the pipeline writes): each row's JSON per field set, a page one `take`;
- per-field values, joined by Arrow: each field's JSON value a binary column, a page a `take` of
  each and `pyarrow.compute.binary_join_element_wise` with the keys as scalars;
- per-field values, gathered by numpy: one buffer of every row's values and a uint16 length per
  field, a page one gather of its bytes from the values and the keys.

The per-field designs hold about a third of the bytes (no keys, one copy for every field set) and
serve any field set (`/scores`' too); the whole rows are one copy of contiguous bytes. Prints µs per
page (the median of `--repeats` calls) for 100 and 5,000 random rows."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

FIELDS = 25


def rows(n: int, seed: int = 1) -> list[list[bytes]]:
    rng = np.random.default_rng(seed)
    return [[(b"%.15g" % rng.random()) if j % 5 else b'"SYM%d"' % i for j in range(FIELDS)] for i in range(n)]


KEYS = [(b"{" if j == 0 else b",") + b'"field_%d":' % j for j in range(FIELDS)]
CLOSE = b"},"


def whole_rows(values: list[list[bytes]]) -> Callable[[np.ndarray], bytes]:
    made = pa.array(
        [b"".join(k + v for k, v in zip(KEYS, row, strict=True)) + CLOSE for row in values], pa.large_binary()
    )

    def page(picked: np.ndarray) -> bytes:
        chunk = made.take(pa.array(picked))
        _, offsets, data = chunk.buffers()
        bounds = np.frombuffer(offsets, np.int64, len(picked) + 1)
        return bytes(memoryview(data)[int(bounds[0]) : int(bounds[-1])])

    return page


def arrow_join(values: list[list[bytes]]) -> Callable[[np.ndarray], bytes]:
    columns = [pa.array([row[j] for row in values], pa.binary()) for j in range(FIELDS)]
    keys = [pa.scalar(k, pa.binary()) for k in KEYS]
    close, empty = pa.scalar(CLOSE, pa.binary()), pa.scalar(b"", pa.binary())

    def page(picked: np.ndarray) -> bytes:
        at = pa.array(picked)
        parts: list[object] = []
        for key, column in zip(keys, columns, strict=True):
            parts += [key, column.take(at)]
        joined = pc.binary_join_element_wise(*parts, close, empty)
        _, offsets, data = joined.buffers()
        bounds = np.frombuffer(offsets, np.int32, len(picked) + 1)
        return bytes(memoryview(data)[int(bounds[0]) : int(bounds[-1])])

    return page


def numpy_gather(values: list[list[bytes]]) -> Callable[[np.ndarray], bytes]:
    lengths = np.array([[len(v) for v in row] for row in values], np.int64)
    buffer = np.frombuffer(b"".join(b"".join(row) for row in values), np.uint8)
    row_start = np.concatenate([[0], np.cumsum(lengths.sum(1))[:-1]])
    constants = np.frombuffer(b"".join(KEYS) + CLOSE, np.uint8)
    key_length = np.array([len(k) for k in KEYS] + [len(CLOSE)], np.int64)
    key_start = np.concatenate([[0], np.cumsum(key_length)[:-1]])
    pieces = 2 * FIELDS + 1
    is_key = np.zeros(pieces, bool)
    is_key[0::2] = True

    def page(picked: np.ndarray) -> bytes:
        length = lengths[picked]
        start = np.cumsum(length, 1) - length + row_start[picked][:, None]
        count = len(picked)
        piece_length = np.empty((count, pieces), np.int64)
        piece_source = np.empty((count, pieces), np.int64)
        piece_length[:, 0:-1:2], piece_source[:, 0:-1:2] = key_length[:-1], key_start[:-1]
        piece_length[:, 1::2], piece_source[:, 1::2] = length, start
        piece_length[:, -1], piece_source[:, -1] = key_length[-1], key_start[-1]
        flat_length = piece_length.ravel()
        total = int(flat_length.sum())
        source = np.repeat(piece_source.ravel() - (np.cumsum(flat_length) - flat_length), flat_length)
        source += np.arange(total)
        key = np.repeat(np.tile(is_key, count), flat_length)
        out = np.empty(total, np.uint8)
        out[key] = constants[source[key]]
        out[~key] = buffer[source[~key]]
        return out.tobytes()

    return page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    values = rows(args.rows)
    designs = {
        "whole rows": whole_rows(values),
        "arrow join": arrow_join(values),
        "numpy gather": numpy_gather(values),
    }
    rng = np.random.default_rng(7)
    for size in (100, 5_000):
        picked = rng.integers(0, args.rows, size)
        pages = {name: page(picked) for name, page in designs.items()}
        assert len(set(pages.values())) == 1, "the designs' pages differ"
        for name, page in designs.items():
            spent = []
            for _ in range(args.repeats):
                started = time.perf_counter()
                page(picked)
                spent.append(time.perf_counter() - started)
            print(f"{size:>5} rows  {name:<13} {statistics.median(spent) * 1e6:10.1f} µs")


if __name__ == "__main__":
    main()
