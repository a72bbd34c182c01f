"""A build's row bytes are made a chunk at a time and written without being held (issue 78, item 5).

The row bytes of a large alpha are gigabytes (3,000 names x 20 years: several GiB for the decisions
alone) and a serving file is one Arrow record batch. `datasets.spool` keeps a column made in chunks
in a temporary file; the writer copies it into the serving file by reads. What is checked: the
column and the file are byte for byte what the whole column in memory gives, and writing a
256 MiB column raises the process's peak memory by a small part of it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.ipc as ipc

from alpha_results_seal.storage import Storage
from datasets import queries, spool
from datasets.writer import BuildWriter

ROOT = Path(__file__).resolve().parents[2]


def _chunks(count: int, rows: int, width: int) -> list[pa.Array]:
    return [
        pa.array([f"{c:04d}-{r:07d}-".encode().ljust(width, b"x") for r in range(rows)], pa.large_binary())
        for c in range(count)
    ]


def test_a_spooled_column_and_its_file_are_the_column_in_memory(tmp_path: Path) -> None:
    chunks = _chunks(4, 10_000, 40)
    chunks.append(pa.array([b""] * 3, pa.large_binary()))  # empty rows keep their place
    chunks.append(chunks[0].slice(5, 7))  # a slice starts at its own offset
    whole = pa.concat_arrays(chunks)
    column = spool.spooled(chunks)
    assert column.equals(whole)
    writer = BuildWriter(Storage(str(tmp_path)))
    spooled = writer.write_arrow(str(tmp_path / "spooled.arrow"), pa.table({"a": column, "b": whole}))
    held = writer.write_arrow(str(tmp_path / "held.arrow"), pa.table({"a": whole, "b": whole}))
    assert (tmp_path / "spooled.arrow").read_bytes() == (tmp_path / "held.arrow").read_bytes()
    assert (spooled.bytes, spooled.sha256) == (held.bytes, held.sha256)
    assert ipc.open_file(str(tmp_path / "spooled.arrow")).read_all().column("a").chunk(0).equals(whole)


def test_row_bytes_over_one_chunk_are_the_rows_made_at_once() -> None:
    rows = queries.ROW_BYTES_CHUNK + 1_000
    table = pa.table({"symbol": [f"S{i}" for i in range(rows)], "score": [i / 7 for i in range(rows)]})
    made = queries.row_json(table, ("symbol", "score"), frozenset())
    encode = msgspec.json.Encoder().encode
    expected = [encode({"symbol": f"S{i}", "score": i / 7}) + queries.ROW_END for i in range(rows)]
    assert made.to_pylist() == expected


CHILD = """
import resource, sys
import pyarrow as pa
from alpha_results_seal.storage import Storage
from datasets import spool
from datasets.writer import BuildWriter

def chunks():
    for c in range(64):  # 64 x 4 MiB
        yield pa.array([bytes([65 + c % 26]) * 4096] * 1024, pa.large_binary())

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
column = spool.spooled(chunks())
BuildWriter(Storage(sys.argv[1])).write_arrow(sys.argv[1] + "/big.arrow", pa.table({"a": column}))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_writing_a_spooled_column_does_not_hold_it(tmp_path: Path) -> None:
    """256 MiB of row bytes made and written: the peak grows by less than a quarter of it."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    grown_kib = int(out.stdout.strip().splitlines()[-1])
    assert (tmp_path / "big.arrow").stat().st_size > 256 << 20
    assert grown_kib < 64 * 1024, grown_kib
