"""A seal cannot make the build decode more than its limits (issue 22, item 4).

A 1.7 MB `decisions.parquet` of 20 million identical rows took a build to 8.5 GB of memory over
77 s before the duplicate-row rule refused it. Rows and decoded bytes of every kind are now
checked from the Parquet footers before anything is decoded, string columns at their full size
before they are expanded, and JSON files by size before they are parsed: rule `seal.size_limits`,
the report naming the kind, the figure and the limit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from alpha_results_seal import bounded_read
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.seal import load_contents, open_seal
from alpha_results_seal.seal_limits import DEFAULT_KIND_LIMITS, KindLimit, SealLimits, declared_settings
from pipeline.publish import publish_seal
from tests.pipeline.conftest import build_command, copy_seal

ROOT = Path(__file__).resolve().parents[2]
BOMB_ROWS = 2 * DEFAULT_KIND_LIMITS["decisions"].rows  # twice the default limit of kind decisions
BLOCK_ROWS = 100_000


def write_repeated(path: Path, rows: int) -> None:
    """`rows` copies of the file's first row, a row group at a time: cheap to write, a few
    hundred KB on disk, gigabytes once decoded."""
    first = pq.read_table(path).slice(0, 1)
    block = first.take(pa.array(np.zeros(BLOCK_ROWS, dtype=np.int64)))
    with pq.ParquetWriter(path, first.schema, compression="zstd") as writer:
        for _ in range(rows // BLOCK_ROWS):
            writer.write_table(block)


@pytest.fixture(scope="module")
def bomb(factory_seal: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    seal = copy_seal(factory_seal, tmp_path_factory.mktemp("bomb") / "Test_factory")
    write_repeated(seal / "decisions.parquet", BOMB_ROWS)
    assert (seal / "decisions.parquet").stat().st_size < 2_000_000
    return seal


def refusal(seal: Path, lake: Path, limits: SealLimits | None = None) -> SealRejected:
    with pytest.raises(SealRejected) as caught:
        if limits is None:
            publish_seal(str(seal), str(lake))
        else:
            publish_seal(str(seal), str(lake), limits=limits)
    assert caught.value.rule == "seal.size_limits", caught.value.report()
    assert not (lake / "alphas").exists()
    return caught.value


@pytest.fixture
def no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any Parquet decode fails the test: a refusal must come from the footers alone."""

    def decoded(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a Parquet file was decoded")

    monkeypatch.setattr(pq, "read_table", decoded)
    monkeypatch.setattr(pq.ParquetFile, "read", decoded)
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", decoded)


def test_many_identical_rows_are_refused_from_the_footer_without_decoding(
    bomb: Path, tmp_path: Path, no_decoding: None
) -> None:
    error = refusal(bomb, tmp_path / "lake")
    assert error.kind == "decisions"
    assert error.message == (
        "decisions.parquet: 12,000,000 rows; the limit of kind decisions is 6,000,000 "
        "(ALPHA_RESULTS_SEAL_MAX_ROWS_DECISIONS)"
    )


def run_build(seal: Path, lake: Path, env: dict[str, str] | None = None) -> tuple[int, str, str, int]:
    """`alpha-results build SEAL --jobs 1` in a child (the build runs in that process): exit
    code, stdout, stderr and the child's peak RSS in KiB."""
    out, err = lake.parent / f"{lake.name}.out", lake.parent / f"{lake.name}.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        child = subprocess.Popen(
            build_command([seal], lake),
            stdout=stdout,
            stderr=stderr,
            env={**os.environ, **(env or {})},
        )
        _, status, usage = os.wait4(child.pid, 0)
    return os.waitstatus_to_exitcode(status), out.read_text(), err.read_text(), usage.ru_maxrss


def test_the_build_refuses_a_decompression_bomb_without_its_memory_growing(
    bomb: Path, factory_seal: Path, tmp_path: Path
) -> None:
    code, stdout, stderr, bomb_peak = run_build(bomb, tmp_path / "bomb_lake")
    assert code == 1, stderr
    assert "refused    Test_factory" in stdout
    assert "refused by rule seal.size_limits (kind decisions): decisions.parquet: 12,000,000 rows" in stdout
    assert "1 seals: 0 built, 1 refused" in stdout
    # The same command on the 240-decision seal it was made from: the bomb costs nothing more.
    code, _, stderr, small_peak = run_build(factory_seal, tmp_path / "small_lake")
    assert code == 0, stderr
    assert bomb_peak < small_peak + 64 * 1024, (bomb_peak, small_peak)


def test_one_long_string_repeated_is_refused_before_it_is_expanded(
    factory_seal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1 KiB symbols in 20,000 rows: 23 KB on disk, a dictionary in the footer's figures, 20 MB
    expanded. The rows are within the limit; the decoded size is not."""
    seal = copy_seal(factory_seal, tmp_path / "seal")
    table = pq.read_table(seal / "decisions.parquet")
    long = table.take(pa.array(np.zeros(20_000, dtype=np.int64)))
    symbol = table.schema.get_field_index("symbol")
    long = long.set_column(symbol, "symbol", pa.array(["S" * 1024] * 20_000))
    pq.write_table(long, seal / "decisions.parquet", compression="zstd")
    assert (seal / "decisions.parquet").stat().st_size < 100_000

    def expanded(*args: Any) -> Any:
        raise AssertionError("a string column was expanded")

    monkeypatch.setattr(bounded_read, "_expanded", expanded)
    limits = SealLimits({**DEFAULT_KIND_LIMITS, "decisions": KindLimit(6_000_000, 16 << 20)})
    error = refusal(seal, tmp_path / "lake", limits)
    assert error.kind == "decisions"
    decoded = re.match(r"decisions.parquet: ([\d,]+) bytes decoded;", error.message)
    assert decoded and int(decoded[1].replace(",", "")) > 20_000 * 1024, error.message
    assert (
        "the limit of kind decisions is 16,777,216 (ALPHA_RESULTS_SEAL_MAX_BYTES_DECISIONS)" in error.message
    )


def test_uncompressed_bytes_are_checked_from_the_footer(
    factory_seal: Path, tmp_path: Path, no_decoding: None
) -> None:
    limits = SealLimits({**DEFAULT_KIND_LIMITS, "decisions": KindLimit(1_500_000, 1_000)})
    error = refusal(factory_seal, tmp_path / "lake", limits)
    assert error.kind == "decisions" and "bytes uncompressed" in error.message


def test_a_book_kind_is_limited_over_all_its_books(
    factory_seal: Path, tmp_path: Path, no_decoding: None
) -> None:
    per_book = pq.ParquetFile(factory_seal / "pnl" / "long_short.parquet").metadata.num_rows
    limits = SealLimits({**DEFAULT_KIND_LIMITS, "pnl": KindLimit(per_book + 1, 256 << 20)})
    error = refusal(factory_seal, tmp_path / "lake", limits)
    assert error.kind == "pnl"
    assert error.message.startswith(f"the 2 files of kind pnl: {2 * per_book:,} rows;")


@pytest.mark.parametrize("name", ["manifest.json", "description.json"])
def test_a_json_file_over_its_size_is_refused_before_it_is_parsed(
    name: str, factory_seal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seal = copy_seal(factory_seal, tmp_path / "seal")
    document = json.loads((seal / name).read_text())
    (seal / name).write_text(json.dumps(document) + " " * (1 << 20))

    parse = json.loads

    def parsed(text: str, **kwargs: Any) -> Any:
        assert len(text) <= 1 << 20, "an oversized JSON file was parsed"
        return parse(text, **kwargs)

    monkeypatch.setattr(bounded_read.json, "loads", parsed)
    error = refusal(seal, tmp_path / "lake")
    assert error.kind == name.removesuffix(".json")
    size = (seal / name).stat().st_size
    assert error.message == (
        f"{name} has {size:,} bytes; the limit is 1,048,576 bytes (ALPHA_RESULTS_SEAL_MAX_JSON_BYTES)"
    )


def test_the_build_command_reads_the_limits_from_the_environment(factory_seal: Path, tmp_path: Path) -> None:
    code, stdout, _, _ = run_build(
        factory_seal, tmp_path / "lake", {"ALPHA_RESULTS_SEAL_MAX_ROWS_DECISIONS": "100"}
    )
    assert code == 1
    assert (
        "decisions.parquet: 240 rows; the limit of kind decisions is 100 (ALPHA_RESULTS_SEAL_MAX_ROWS_DECISIONS)"
        in stdout
    )
    code, stdout, stderr, _ = run_build(
        factory_seal, tmp_path / "bad", {"ALPHA_RESULTS_SEAL_MAX_BYTES_PNL": "lots"}
    )
    assert code == 2 and stdout == ""
    assert "ALPHA_RESULTS_SEAL_MAX_BYTES_PNL must be a positive integer, got 'lots'" in stderr


def test_every_limit_is_documented_with_its_default() -> None:
    settings = (ROOT / "docs" / "settings.md").read_text().splitlines()
    for variable, default in declared_settings():
        [row] = [line for line in settings if line.startswith("|") and f"`{variable}`" in line]
        cells = [cell.strip() for cell in row.split("|")]
        documented = cells[cells.index(f"`{variable}`") + 1]
        assert documented.replace("`", "").split(" ")[0].replace(",", "") == str(default), (
            variable,
            documented,
        )


def test_the_full_size_demo_alpha_is_a_tenth_of_every_limit(full_demo_seals: Path) -> None:
    """The defaults leave a margin of ten over the full-size demo (docs/settings.md, "Seal size
    limits"): it loads within a tenth of each."""
    tenth = SealLimits(
        {kind: KindLimit(limit.rows // 10, limit.bytes // 10) for kind, limit in DEFAULT_KIND_LIMITS.items()},
        SealLimits().json_bytes // 10,
        SealLimits().file_bytes // 10,
    )
    for name, tables in (("momentum_12_1", 28), ("benchmark_SPY", 1)):
        seal = load_contents(open_seal(str(full_demo_seals / name), limits=tenth), limits=tenth)
        assert len(seal.tables) == tables


def test_the_defaults_admit_3000_names_x_20_years_with_room(tmp_path: Path) -> None:
    """Issue 78, item 5: the realistic alpha of 3,000 names x 20 years of weeks (`just
    realistic-seals`) loads within two thirds of every default. Its rows and decoded bytes are those
    of the 1,000-name, one-year seal of the same recipe times 60: every large kind has a row per
    name held (or scored) per session (or week), so it grows with names x years."""
    from tests.bench.realistic_seals import write

    seal = write(1_000, 1, 0, tmp_path, seed=78)
    scale = 3 * 20
    loaded = load_contents(open_seal(str(seal)))
    for kind in ("decisions", "positions", "pnl", "trades"):
        tables = [table for (found, _), table in loaded.tables.items() if found == kind]
        rows = scale * sum(table.num_rows for table in tables)
        decoded = scale * sum(bounded_read.decoded_bytes(table) for table in tables)
        limit = DEFAULT_KIND_LIMITS[kind]
        assert rows <= limit.rows * 2 // 3, (kind, rows, limit)
        assert decoded <= limit.bytes * 2 // 3, (kind, decoded, limit)
    # Without the raise of issue 78 the alpha was refused (decisions: 3.1 million rows over 1.5).
    assert scale * loaded.tables[("decisions", None)].num_rows > 1_500_000


# -- raw file sizes (review of issue 22, finding 2) ----------------------------------------------

BIG = 300 << 20  # over the default ALPHA_RESULTS_SEAL_MAX_FILE_BYTES (256 MiB)
UNDER = 200 << 20


@pytest.fixture(scope="module")
def tiny_peak(factory_seal: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], int]:
    """The build's peak RSS (KiB) on the factory seal with a 1-byte file `name` (refused as the
    huge one is, by the same path): measured once per name, for every case of that name."""
    peaks: dict[str, int] = {}

    def peak(name: str) -> int:
        if name not in peaks:
            folder = tmp_path_factory.mktemp("tiny")
            seal = copy_seal(factory_seal, folder / "Test_factory")
            (seal / name).write_bytes(b"\0")
            code, stdout, stderr, peaks[name] = run_build(seal, folder / "lake")
            assert code == 1 and "1 seals: 0 built, 1 refused" in stdout, (code, stdout, stderr)
        return peaks[name]

    return peak


@pytest.mark.parametrize(
    ("name", "size", "refusal"),
    [
        ("junk.bin", BIG, f"junk.bin has {BIG:,} bytes; the limit is 268,435,456 bytes"),
        ("source.zip", BIG, f"source.zip has {BIG:,} bytes; the limit is 268,435,456 bytes"),
        ("junk.bin", UNDER, "junk.bin"),  # within the limit: hashed in chunks, never held whole
    ],
    ids=["undeclared_over", "source_zip_over", "undeclared_under"],
)
def test_a_huge_file_of_a_seal_is_refused_without_the_builds_memory_growing(
    name: str, size: int, refusal: str, factory_seal: Path, tmp_path: Path, tiny_peak: Callable[[str], int]
) -> None:
    """A file is measured before it is read and hashed as it is read: a sparse file of hundreds
    of MB (nothing on disk) once filled the build's memory while the seal was hashed. Its peak is
    the one of the same seal with a 1-byte file of that name."""
    seal = copy_seal(factory_seal, tmp_path / "huge" / "Test_factory")
    with (seal / name).open("wb") as sparse:
        sparse.truncate(size)
    code, stdout, stderr, peak = run_build(seal, tmp_path / "huge" / "lake")
    # Exit 1 (refused), never an abort at exit: Parquet was once decoded on Arrow's threads over
    # Python bytes, which ended the process with "terminate called without an active exception"
    # after its summary.
    assert code == 1 and "1 seals: 0 built, 1 refused" in stdout, (code, stdout, stderr)
    assert "refused    Test_factory" in stdout and refusal in stdout, stdout
    if size > UNDER:
        assert "(ALPHA_RESULTS_SEAL_MAX_FILE_BYTES)" in stdout
    assert peak < tiny_peak(name) + 64 * 1024, (peak, tiny_peak(name))  # KiB
