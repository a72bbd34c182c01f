"""Writes the demo corpus: one seal folder per alpha and the benchmark seal."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal.demo.alphas import ALPHAS, FAMILIES, alpha_spec
from alpha_results_seal.demo.engine import SealContent, benchmark_table, run_alpha
from alpha_results_seal.demo.market import simulate_market
from alpha_results_seal.demo.sizes import SIZES
from alpha_results_seal.identifiers import MARKET_BENCHMARK

BENCHMARK_SEAL = f"benchmark_{MARKET_BENCHMARK}"
BENCHMARK_MANIFEST = {
    "seal_format": "1",
    "type": "benchmark",
    "symbol": MARKET_BENCHMARK,
    "name": "SPDR S&P 500 ETF Trust (demo market index)",
    "currency": "USD",
}


def _write_json(path: Path, payload: Any) -> None:
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def write_seal(content: SealContent, folder: Path) -> Path:
    """Write one alpha seal into `folder`, replacing whatever was there."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for relative, table in content.tables.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, compression="zstd")
    if content.description is not None:
        _write_json(folder / "description.json", content.description)
    if content.source_zip is not None:
        (folder / "source.zip").write_bytes(content.source_zip)
    _write_json(folder / "manifest.json", content.manifest)
    return folder


def write_benchmark_seal(table: pa.Table, folder: Path) -> Path:
    """Write the benchmark seal of `table` (its daily series) into `folder`, replacing it."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    pq.write_table(table, folder / "daily.parquet", compression="zstd")
    _write_json(folder / "manifest.json", BENCHMARK_MANIFEST)
    return folder


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def write_corpus(
    out_dir: Path,
    size: str = "full",
    seed: int = 7,
    only: list[str] | None = None,
    report: Callable[[str, int, int], None] | None = None,
    families: bool = False,
) -> list[Path]:
    """Write the seals of the demo corpus under `out_dir` and return their folders.

    `only` restricts the alphas written (by alpha_id; `BENCHMARK_SEAL` selects the benchmark).
    `report(seal_id, rows, bytes)` is called after each seal is written. `families`: the two trial
    families' variants too (`alphas.FAMILIES`; `only` may name them without it).
    """
    if size not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, got {size!r}")
    wanted = set(only) if only else None
    if wanted is not None:
        for alpha_id in wanted - {BENCHMARK_SEAL}:
            alpha_spec(alpha_id)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    market = simulate_market(size, seed)
    written: list[Path] = []
    for spec in (*ALPHAS, *FAMILIES):
        if spec.family is not None and not families and (wanted is None or spec.alpha_id not in wanted):
            continue
        if wanted is not None and spec.alpha_id not in wanted:
            continue
        content = run_alpha(spec, market, size, seed)
        folder = write_seal(content, out_dir / spec.alpha_id)
        written.append(folder)
        if report:
            report(spec.alpha_id, sum(t.num_rows for t in content.tables.values()), _folder_bytes(folder))
    if wanted is None or BENCHMARK_SEAL in wanted:
        table = benchmark_table(market)
        folder = write_benchmark_seal(table, out_dir / BENCHMARK_SEAL)
        written.append(folder)
        if report:
            report(BENCHMARK_SEAL, table.num_rows, _folder_bytes(folder))
    return written
