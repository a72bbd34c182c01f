"""A catalogue of N synthetic alphas, written directly (issue 51, item 1): `just synthetic-catalogue`.

`python -m tests.bench.synthetic_catalogue --n 100000 [--base LAKE] [--out DIR]` copies a real lake
(hard links; default bench-catalogue's 20 small demo alphas, built when absent) and commits one
catalogue generation holding its alphas and N synthetic ones: the index table (every column of
`schemas.lake.CATALOGUE_INDEX`, the headline and trials figures computed from each synthetic
alpha's series), the date-aligned matrices (returns, ic, risk_free) and the correlation index
(`analytics.nearest`), through `datasets.catalogue_index.commit`, the writer every publish uses:
a server reads it unchanged. No build is written for a synthetic alpha: the per-alpha routes
are asked of the real ones, and the catalogue-wide answers (the listing, the screener, the
correlation of a real alpha to the catalogue, the trials) span all of them.

The series are a factor model with known clusters: daily returns on the base lake's sessions are
loadings (a cluster's centre plus the alpha's own part) on K common factors, plus the cluster's
own factor, plus the alpha's noise; weekly IC likewise on the base's rebalance weeks. A share
of alphas are planted near-duplicates of another (its series plus a little noise: correlation
about 0.98), and each alpha starts at a random week (half at the first). `synthetic_series` is
the model alone (the unit tests use it without a lake). Score neighbour lists are not written
(a synthetic alpha has no decisions): its row's `score_neighbours` is null.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "var" / "bench-synthetic"
FACTORS = 12
WORDS = (
    "momentum value quality carry reversal lowvol size growth liquidity sentiment earnings "
    "revision dispersion seasonality crowding short_interest skew trend breakout mean_reversion"
).split()
STRUCTURES = ("cross_sectional_long_short", "time_series", "sector_neutral", "pairs")
METHODS = ("price_momentum", "fundamental", "statistical", "alternative_data", "machine_learning")


@dataclass(frozen=True)
class Series:
    """`n` alphas' series: returns (n x sessions) and ic (n x weeks), NaN before each one starts;
    the cluster of each; `duplicates[i]` the alpha row i near-duplicates (-1: none)."""

    returns: np.ndarray
    ic: np.ndarray
    clusters: np.ndarray
    duplicates: np.ndarray


def synthetic_series(
    n: int,
    sessions: int,
    weeks: int,
    seed: int = 51,
    clusters: int | None = None,
    duplicate_share: float = 0.02,
) -> Series:
    rng = np.random.default_rng(seed)
    clusters = clusters or max(4, n // 200)
    cluster = rng.integers(0, clusters, n)

    def model(length: int, scale: float) -> np.ndarray:
        factors = rng.standard_normal((length, FACTORS)) * scale
        centres = rng.standard_normal((clusters, FACTORS))
        own = rng.standard_normal((clusters, length)) * scale * 0.6
        found = np.empty((n, length))
        for start in range(0, n, 16_384):  # a block at a time: the temporaries stay small
            part = cluster[start : start + 16_384]
            size = part.size
            loads = centres[part] + 0.5 * rng.standard_normal((size, FACTORS))
            noise = rng.uniform(0.3, 1.5, size)[:, None] * scale * rng.standard_normal((size, length))
            found[start : start + size] = (
                loads @ factors.T + own[part] * rng.uniform(0.5, 1.5, size)[:, None] + noise
            )
        return found

    returns = model(sessions, 0.01) + 0.0003  # a small positive drift: a catalogue of kept alphas
    ic = model(weeks, 0.03) * 0.5 + 0.01
    duplicates = np.full(n, -1)
    planted = int(n * duplicate_share)
    if planted:
        copies = np.arange(n - planted, n)
        sources = rng.integers(0, n - planted, planted)
        duplicates[copies] = sources
        returns[copies] = returns[sources] + 0.002 * rng.standard_normal((planted, sessions))
        ic[copies] = ic[sources] + 0.006 * rng.standard_normal((planted, weeks))
        cluster[copies] = cluster[sources]
    start_week = np.where(rng.random(n) < 0.5, 0, rng.integers(0, max(1, weeks // 2), n))
    start_week[duplicates >= 0] = start_week[duplicates[duplicates >= 0]]
    per_week = max(1, sessions // max(weeks, 1))
    returns[np.arange(sessions)[None, :] < (start_week * per_week)[:, None]] = np.nan
    ic[np.arange(weeks)[None, :] < start_week[:, None]] = np.nan
    return Series(returns, ic, cluster, duplicates)


def _figures(series: Series, sessions_per_year: int = 252, weeks_per_year: int = 52) -> dict[str, np.ndarray]:
    """The index's figures of each synthetic alpha, from its series (nan where not measurable)."""
    r, ic = series.returns, series.ic
    with np.errstate(invalid="ignore", divide="ignore"):
        mean, std = np.nanmean(r, axis=1), np.nanstd(r, axis=1, ddof=1)
        sharpe = mean / std
        ic_mean, ic_std = np.nanmean(ic, axis=1), np.nanstd(ic, axis=1, ddof=1)
        weeks = np.isfinite(ic).sum(axis=1)
        t_stat = ic_mean / ic_std * np.sqrt(weeks)
        growth = np.nancumprod(1 + np.nan_to_num(r), axis=1)
        drawdown = 100 * (1 - (growth / np.maximum.accumulate(growth, axis=1)).min(axis=1))
    from scipy import stats  # the p-values' normal tail

    return {
        "sharpe_per_session": sharpe,
        "information_ratio": sharpe * math.sqrt(sessions_per_year),
        "excess_sharpe": (mean - 0.0001) / std * math.sqrt(sessions_per_year),
        "mean_ic": ic_mean,
        "icir_annualised": ic_mean / ic_std * math.sqrt(weeks_per_year),
        "max_drawdown_pct": drawdown,
        "nwt_ic_p_value": 2 * stats.norm.sf(np.abs(t_stat)),
        "sessions": np.isfinite(r).sum(axis=1),
        "weeks": weeks,
    }


def _rows(series: Series, base: pa.Table, days: np.ndarray, seed: int) -> pa.Table:
    """The index rows of the synthetic alphas (catalogue order is made by the caller)."""
    from schemas.lake import CATALOGUE_INDEX

    rng = np.random.default_rng(seed + 1)
    n = series.returns.shape[0]
    template = json.loads(base.column("entry")[0].as_py())
    figures = _figures(series)
    first_column = np.argmax(np.isfinite(series.returns), axis=1)
    now = datetime.now(UTC)
    started = datetime(2026, 1, 1, tzinfo=UTC)
    columns: dict[str, list[object]] = {name: [] for name in CATALOGUE_INDEX.names}
    for i in range(n):
        alpha = f"syn{i:07d}"
        words = [WORDS[w] for w in rng.choice(len(WORDS), 3, replace=False)]
        name = f"{words[0].replace('_', ' ').title()} {words[1].replace('_', ' ')} #{i}"
        build = f"synthetic{i:011d}-{seed:08x}"
        begun = (started - timedelta(minutes=int(i))).isoformat()
        entry = dict(
            template, alpha_id=alpha, name=name, build_id=build, started_at=begun, tldr=" ".join(words)
        )
        values = {
            "alpha_id": alpha,
            "build_id": build,
            "name": name,
            "tldr": f"Synthetic alpha of cluster {int(series.clusters[i])}: {' '.join(words)}.",
            "started_at": begun,
            "complete": bool(rng.random() < 0.9),
            "structure": STRUCTURES[int(rng.integers(len(STRUCTURES)))],
            "method": METHODS[int(rng.integers(len(METHODS)))],
            "tags": words,
            "pipeline_version": template.get("pipeline_version"),
            "built_at": now.isoformat(),
            "ic_reproduces": bool(rng.random() < 0.95),
            "turnover": float(rng.uniform(1, 30)),
            "turnover_unit": "per_year",
            "first_date": date(1970, 1, 1) + timedelta(days=int(days[first_column[i]])),
            "last_date": date(1970, 1, 1) + timedelta(days=int(days[-1])),
            "approved": False,
            "indexed_at": now,
            "replaced_at": now.replace(microsecond=0),
            "entry": json.dumps(entry, sort_keys=True),
        }
        for key, column in figures.items():
            value = column[i]
            values[key] = (
                int(value) if key in ("sessions", "weeks") else (float(value) if np.isfinite(value) else None)
            )
        for name_ in CATALOGUE_INDEX.names:
            columns[name_].append(values.get(name_))
    return pa.table(
        {name: pa.array(columns[name], CATALOGUE_INDEX.field(name).type) for name in CATALOGUE_INDEX.names}
    )


def write(base_root: str, out_root: str, n: int, seed: int = 51) -> dict[str, object]:
    """Copies the lake `base_root` to `out_root` (hard links) and commits a generation of its
    alphas and `n` synthetic ones; returns what it did and how long each step took."""
    from alpha_results_seal.storage import Storage
    from analytics import nearest
    from datasets import catalogue_index
    from pipeline.catalogue_index import _in_catalogue_order

    timings: dict[str, float] = {}
    started = time.monotonic()
    shutil.rmtree(out_root, ignore_errors=True)
    subprocess.run(["cp", "-al", base_root, out_root], check=True)
    timings["copy_base_seconds"] = time.monotonic() - started
    storage = Storage(out_root)
    generation = catalogue_index.newest(storage, out_root)
    if generation is None:
        raise SystemExit(f"{base_root} has no catalogue index: `alpha-results lake index` it first")
    base = catalogue_index.read_index(storage, out_root, generation)
    matrices = {
        name: np.asarray(catalogue_index.read_matrix(storage, out_root, generation, name, mmap=False))
        for name in ("returns", "returns_days", "ic", "ic_days", "risk_free", "risk_free_days")
    }
    clock = time.monotonic()
    series = synthetic_series(n, matrices["returns_days"].size, matrices["ic_days"].size, seed)
    timings["series_seconds"] = time.monotonic() - clock
    clock = time.monotonic()
    synthetic = _rows(series, base, matrices["returns_days"], seed)
    timings["rows_seconds"] = time.monotonic() - clock
    clock = time.monotonic()
    both = pa.concat_tables([base, synthetic])
    marked = both.append_column("_row", pa.array(np.arange(both.num_rows), pa.int64()))
    ordered = _in_catalogue_order(marked)
    order = ordered.column("_row").to_numpy()
    index = ordered.drop_columns(["_row"])
    found: dict[str, np.ndarray] = {}
    risk_free_row = matrices["risk_free"][0] if matrices["risk_free"].shape[0] else None
    for basis, own in (("returns", series.returns), ("ic", series.ic), ("risk_free", None)):
        before = matrices[basis]
        if own is None:
            own = np.broadcast_to(
                risk_free_row if risk_free_row is not None else np.nan, (n, before.shape[1])
            )
        values = np.empty((index.num_rows, before.shape[1]))
        real = order < base.num_rows
        values[real] = before[order[real]]
        values[~real] = own[order[~real] - base.num_rows]
        found[basis], found[f"{basis}_days"] = values, matrices[f"{basis}_days"]
        if basis in nearest.INDEXED_BASES:
            found.update(nearest.index_matrices(basis, values))
    timings["matrices_seconds"] = time.monotonic() - clock

    def update(current: object, _: object) -> catalogue_index.Next:
        return catalogue_index.Next(index, dict(generation.benchmarks), [{"synthetic": n}], found)

    clock = time.monotonic()
    written = catalogue_index.commit(storage, out_root, update)
    timings["commit_seconds"] = time.monotonic() - clock
    positions = np.empty(order.size, dtype=np.int64)
    positions[order] = np.arange(order.size)
    planted = np.flatnonzero(series.duplicates >= 0)
    return {
        "n_synthetic": n,
        "n_real": base.num_rows,
        "generation": written.number,
        "sessions": int(matrices["returns_days"].size),
        "weeks": int(matrices["ic_days"].size),
        "real_alphas": base.column("alpha_id").to_pylist(),
        "planted": [[f"syn{int(c):07d}", f"syn{int(series.duplicates[c]):07d}"] for c in planted[:200]],
        "bytes": sum(p.stat().st_size for p in (Path(out_root) / "catalogue").rglob("*") if p.is_file()),
        **{k: round(v, 2) for k, v in timings.items()},
        "total_seconds": round(time.monotonic() - started, 2),
    }


def default_base() -> Path:
    """bench-catalogue's lake of 20 small demo alphas (built through the real pipeline when absent)."""
    from tests.bench.catalogue_bench import DEFAULT_CACHE, ensure_corpus

    return ensure_corpus(20, 1, 2, False, DEFAULT_CACHE).lake


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="synthetic alphas (default 100,000)")
    parser.add_argument(
        "--base", type=Path, default=None, help="the real lake copied (default: 20 small demo alphas)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="the lake written (default var/bench-synthetic/N/lake)"
    )
    parser.add_argument("--seed", type=int, default=51)
    args = parser.parse_args(argv)
    base = args.base or default_base()
    out = args.out or DEFAULT_OUT / str(args.n) / "lake"
    out.parent.mkdir(parents=True, exist_ok=True)
    facts = write(str(base), str(out), args.n, args.seed)
    (out.parent / "synthetic.json").write_text(json.dumps(facts, indent=1) + "\n")
    print(json.dumps({k: v for k, v in facts.items() if k not in ("planted", "real_alphas")}, indent=1))
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
