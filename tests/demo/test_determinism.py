from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from alpha_results_seal.demo.corpus import write_corpus
from cli.main import main


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_other_data(tmp_path: Path) -> None:
    only = ["momentum_12_1", "Test_planted_factor", "benchmark_SPY"]
    a = write_corpus(tmp_path / "a", size="small", seed=7, only=only)
    write_corpus(tmp_path / "b", size="small", seed=7, only=only)
    write_corpus(tmp_path / "c", size="small", seed=8, only=only)
    assert [p.name for p in a] == only
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    table = "momentum_12_1/decisions.parquet"
    assert not pq.read_table(tmp_path / "a" / table).equals(pq.read_table(tmp_path / "c" / table))


def test_cli_writes_and_reports_each_seal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--out", str(tmp_path), "--size", "small", "--only", "Test_ledger_only"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    seal_id, rows, size = lines[0].split("\t")
    assert seal_id == "Test_ledger_only" and int(rows.split("=")[1]) > 0
    assert int(size.split("=")[1]) == sum(
        p.stat().st_size for p in (tmp_path / seal_id).rglob("*") if p.is_file()
    )
    assert (tmp_path / "Test_ledger_only" / "manifest.json").exists()
    assert not (tmp_path / "benchmark_SPY").exists()
