"""A catalogue of N synthetic alphas, written directly (issue 51, item 1): `just synthetic-catalogue`.

`python -m tests.bench.synthetic_catalogue --n 100000 [--base LAKE] [--out DIR]` copies a real lake
(hard links; default bench-catalogue's 20 small demo alphas, built when absent) and commits one
catalogue generation holding its alphas and N synthetic ones: the index table (every column of
`schemas.lake.CATALOGUE_INDEX`, the headline and trials figures computed from each synthetic
alpha's series), the date-aligned matrices (returns, ic, risk_free) and the correlation index
(`analytics.nearest`), through `datasets.catalogue_index.commit`, the writer every publish uses:
a server reads it unchanged. Each synthetic alpha gets a minimal build (`write_minimal_builds`:
its alpha.json, which is its index entry with a manifest, and the serving index with the empty
analytics marker table), so it can be asked through HTTP: the catalogue-wide answers of the alpha
(its correlation to the catalogue, its significance, `max_correlation` to it) span every row of the
matrices, while its own data routes answer empty pages with `kind_missing` warnings (the build
holds none of its tables). `--no-builds` leaves them out (the catalogue of issue 51, faster at 10^6).

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
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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
    """`n` alphas' series: returns (n x sessions) and ic (n x weeks), NaN where an alpha holds no
    value; the cluster of each; `duplicates[i]` the alpha row i near-duplicates (-1: none);
    `families[i]` the parameter family row i is a variant of (-1: none; the realistic model only)."""

    returns: np.ndarray
    ic: np.ndarray
    clusters: np.ndarray
    duplicates: np.ndarray
    families: np.ndarray | None = None


def synthetic_series(
    n: int,
    sessions: int,
    weeks: int,
    seed: int = 51,
    clusters: int | None = None,
    duplicate_share: float = 0.02,
    out: tuple[np.ndarray, np.ndarray] | None = None,
) -> Series:
    """`out`: the (n x sessions, n x weeks) float64 arrays to fill (memory-mapped files at 10^6:
    the series are made a block of rows at a time, never a whole matrix of temporaries)."""
    rng = np.random.default_rng(seed)
    clusters = clusters or max(4, n // 200)
    cluster = rng.integers(0, clusters, n)

    def model(length: int, scale: float, found: np.ndarray, shift: float, factor: float) -> np.ndarray:
        factors = rng.standard_normal((length, FACTORS)) * scale
        centres = rng.standard_normal((clusters, FACTORS))
        own = rng.standard_normal((clusters, length)) * scale * 0.6
        for start in range(0, n, 16_384):  # a block at a time: the temporaries stay small
            part = cluster[start : start + 16_384]
            size = part.size
            loads = centres[part] + 0.5 * rng.standard_normal((size, FACTORS))
            noise = rng.uniform(0.3, 1.5, size)[:, None] * scale * rng.standard_normal((size, length))
            block = loads @ factors.T + own[part] * rng.uniform(0.5, 1.5, size)[:, None] + noise
            found[start : start + size] = block * factor + shift if factor != 1.0 else block + shift
        return found

    returns_out, ic_out = out if out is not None else (np.empty((n, sessions)), np.empty((n, weeks)))
    # a small positive drift: a catalogue of kept alphas
    returns = model(sessions, 0.01, returns_out, 0.0003, 1.0)
    ic = model(weeks, 0.03, ic_out, 0.01, 0.5)
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
    for start in range(0, n, 65_536):
        weeks_of = start_week[start : start + 65_536]
        returns[start : start + weeks_of.size][
            np.arange(sessions)[None, :] < (weeks_of * per_week)[:, None]
        ] = np.nan
        ic[start : start + weeks_of.size][np.arange(weeks)[None, :] < weeks_of[:, None]] = np.nan
    return Series(returns, ic, cluster, duplicates)


def _figures(series: Series, sessions_per_year: int = 252, weeks_per_year: int = 52) -> dict[str, np.ndarray]:
    """The index's figures of each synthetic alpha, from its series (nan where not measurable), a
    block of rows at a time."""
    n = series.returns.shape[0]
    found: dict[str, np.ndarray] = {}
    for start in range(0, n, BLOCK):
        part = Series(
            series.returns[start : start + BLOCK],
            series.ic[start : start + BLOCK],
            series.clusters,
            series.duplicates,
        )
        for key, column in _block_figures(part, sessions_per_year, weeks_per_year).items():
            found.setdefault(key, np.empty(n, dtype=column.dtype))[start : start + column.size] = column
    return found


BLOCK = 32_768
"""Rows the generator works on at once (its temporaries: a few blocks of rows x sessions)."""


def _block_figures(series: Series, sessions_per_year: int, weeks_per_year: int) -> dict[str, np.ndarray]:
    r, ic = np.asarray(series.returns), np.asarray(series.ic)
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
        "ic": ic_mean,  # the index's names since issue 65 (INDEX_RENAMED: they were mean_ic, icir_annualised)
        "icir": ic_mean / ic_std * math.sqrt(weeks_per_year),
        "max_drawdown_pct": drawdown,
        "nwt_ic_p_value": 2 * stats.norm.sf(np.abs(t_stat)),
        "sessions": np.isfinite(r).sum(axis=1),
        "weeks": weeks,
    }


SLIM_DROPS = ("tables", "books", "source_archive", "signal_processing", "metric_conventions")
"""The keys of the base's alpha.json a synthetic alpha's entry leaves out with `--slim-entries`
(about 2.6 of its 3.9 KB: at 10^6 alphas the entries alone are 3.9 GB of index and worker memory)."""


def _rows(series: Series, base: pa.Table, days: np.ndarray, seed: int, slim: bool = False) -> pa.Table:
    """The index rows of the synthetic alphas (catalogue order is made by the caller), built a
    column at a time (no Python dict per alpha: 10^6 rows in seconds)."""
    from schemas.lake import CATALOGUE_INDEX

    rng = np.random.default_rng(seed + 1)
    n = series.returns.shape[0]
    template = json.loads(base.column("entry")[0].as_py())
    if slim:  # no manifest of a build's files and contents (a synthetic alpha has no build)
        template = {key: value for key, value in template.items() if key not in SLIM_DROPS}
    figures = _figures(series)
    first_column = np.empty(n, dtype=np.int64)
    last_column = np.empty(n, dtype=np.int64)
    for start in range(0, n, BLOCK):
        held = np.isfinite(series.returns[start : start + BLOCK])
        first_column[start : start + BLOCK] = np.argmax(held, axis=1)
        last_column[start : start + BLOCK] = held.shape[1] - 1 - np.argmax(held[:, ::-1], axis=1)
    now = datetime.now(UTC)
    started = datetime(2026, 1, 1, tzinfo=UTC)
    chosen = np.argsort(rng.random((n, len(WORDS))), axis=1)[:, :3]  # three distinct words each
    words = np.array(WORDS, dtype=object)[chosen]
    numbers = [str(i) for i in range(n)]
    alphas = [f"syn{i:07d}" for i in range(n)]
    builds = [f"synthetic{i:011d}-{seed:08x}" for i in range(n)]
    begun_at = [(started - timedelta(minutes=i)).isoformat() for i in range(n)]
    titled = {w: w.replace("_", " ").title() for w in WORDS}
    spaced = {w: w.replace("_", " ") for w in WORDS}
    names = [
        f"{titled[a]} {spaced[b]} #{i}" for a, b, i in zip(words[:, 0], words[:, 1], numbers, strict=True)
    ]
    joined = [" ".join(row) for row in words.tolist()]
    tldrs = [
        f"Synthetic alpha of cluster {c}: {text}."
        for c, text in zip(series.clusters.tolist(), joined, strict=True)
    ]
    # alpha.json of each: the base's, its own id, name, build, start and tldr (as one json.dumps
    # of each would write it, sort_keys: the template's text with the five values put in).
    marks = {
        "alpha_id": "\x01A",
        "name": "\x01N",
        "build_id": "\x01B",
        "started_at": "\x01S",
        "tldr": "\x01T",
    }
    text = json.dumps(dict(template, **marks), sort_keys=True)
    pieces = text.replace(json.dumps(marks["alpha_id"]), "\x02A\x02")
    for key in ("name", "build_id", "started_at", "tldr"):
        pieces = pieces.replace(json.dumps(marks[key]), f"\x02{key[0].upper()}\x02")
    parts = pieces.split("\x02")
    slots = {"A": alphas, "N": names, "B": builds, "S": begun_at, "T": joined}
    columns_of = [slots[p] if p in slots and len(p) == 1 else None for p in parts]
    entries = pa.chunked_array(
        [
            pa.array(
                [
                    "".join(
                        part if column is None else json.dumps(column[i])
                        for part, column in zip(parts, columns_of, strict=True)
                    )
                    for i in range(start, min(n, start + BLOCK))
                ],
                pa.string(),
            )
            for start in range(0, n, BLOCK)
        ],
        pa.string(),
    )
    dates = np.datetime64("1970-01-01") + days[first_column].astype("timedelta64[D]")
    values: dict[str, object] = {
        "alpha_id": alphas,
        "build_id": builds,
        "name": names,
        "tldr": tldrs,
        "started_at": [started - timedelta(minutes=i) for i in range(n)],  # an instant since issue 65
        "complete": rng.random(n) < 0.9,
        "structure": np.array(STRUCTURES, dtype=object)[rng.integers(len(STRUCTURES), size=n)].tolist(),
        "method": np.array(METHODS, dtype=object)[rng.integers(len(METHODS), size=n)].tolist(),
        "tags": words.tolist(),
        "pipeline_version": [template.get("pipeline_version")] * n,
        "built_at": [now.replace(microsecond=0)] * n,
        "ic_reproduces": rng.random(n) < 0.95,
        "turnover": rng.uniform(1, 30, n),
        "turnover_unit": ["per_year"] * n,
        "first_date": dates,
        "last_date": np.datetime64("1970-01-01") + days[last_column].astype("timedelta64[D]"),
        "approved": np.zeros(n, dtype=bool),
        "indexed_at": [now] * n,
        "replaced_at": [now.replace(microsecond=0)] * n,
        "entry": entries,
    }
    if series.families is not None:
        from tests.bench.realistic_catalogue import family_parameters

        values["family"], values["parameters"] = family_parameters(series.families)
    for key, column in figures.items():
        values[key] = (
            column.astype(np.int64)
            if key in ("sessions", "weeks")
            else pa.array(column, mask=~np.isfinite(column))
        )
    arrays = {}
    for name in CATALOGUE_INDEX.names:
        kind = CATALOGUE_INDEX.field(name).type
        given = values.get(name)
        if given is None:
            arrays[name] = pa.nulls(n, kind)
        elif isinstance(given, (pa.Array, pa.ChunkedArray)):
            arrays[name] = given.cast(kind)
        else:
            arrays[name] = pa.array(given, kind)
    return pa.table(arrays)


FAMILY = "synthetic_search"
"""The trial family `--family-members` writes (issue 60's 10^4-member family)."""


def with_family(index: pa.Table, members: int, real_member: str | None) -> pa.Table:
    """`index` with its first `members` synthetic alphas, and `real_member` (a real alpha, whose
    routes answer), naming `FAMILY`, each with a parameter of its own: a family no cap admitted,
    as a lake published before the cap may hold (written directly, not published)."""
    alphas = index.column("alpha_id").to_pylist()
    family = index.column("family").to_pylist()
    parameters = index.column("parameters").to_pylist()
    named = 0
    for i, alpha in enumerate(alphas):
        if alpha == real_member or (named < members and alpha.startswith("syn")):
            family[i], parameters[i] = FAMILY, json.dumps({"variant": i})
            named += alpha != real_member
    return index.set_column(
        index.schema.get_field_index("family"), "family", pa.array(family, index.schema.field("family").type)
    ).set_column(
        index.schema.get_field_index("parameters"),
        "parameters",
        pa.array(parameters, index.schema.field("parameters").type),
    )


def write(
    base_root: str,
    out_root: str,
    n: int,
    seed: int = 51,
    slim: bool = False,
    family_members: int = 0,
    real_member: str | None = None,
    flattering: bool = False,
    builds: bool = True,
) -> dict[str, object]:
    """Copies the lake `base_root` to `out_root` (hard links) and commits a generation of its
    alphas and `n` synthetic ones; returns what it did and how long each step took. The series and
    the ordered matrices are memory-mapped files beside the lake, written a block of rows at a time
    (`BLOCK`): what stays in memory is the index's columns and, while the commit writes it, one
    matrix's .npy bytes (`datasets.catalogue_index.commit` writes each from memory)."""
    from numpy.lib.format import open_memmap

    from alpha_results_seal.storage import Storage
    from analytics import nearest
    from datasets import catalogue_index
    from pipeline import catalogue_bound
    from pipeline.index_rows import _in_catalogue_order

    timings: dict[str, float] = {}
    started = time.monotonic()
    shutil.rmtree(out_root, ignore_errors=True)
    subprocess.run(["cp", "-al", base_root, out_root], check=True)
    timings["copy_base_seconds"] = time.monotonic() - started
    scratch = Path(out_root).parent / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    storage = Storage(out_root)
    generation = catalogue_index.newest(storage, out_root)
    if generation is None:
        raise SystemExit(f"{base_root} has no catalogue index: `alpha-results lake index` it first")
    base = catalogue_index.read_index(storage, out_root, generation)
    matrices = {
        name: np.asarray(catalogue_index.read_matrix(storage, out_root, generation, name, mmap=False))
        for name in ("returns", "returns_days", "ic", "ic_days", "risk_free", "risk_free_days")
    }
    sessions, weeks = matrices["returns_days"].size, matrices["ic_days"].size
    clock = time.monotonic()
    own = {
        "returns": open_memmap(scratch / "returns.npy", "w+", np.float64, (n, sessions)),
        "ic": open_memmap(scratch / "ic.npy", "w+", np.float64, (n, weeks)),
    }
    if flattering:
        series = synthetic_series(n, sessions, weeks, seed, out=(own["returns"], own["ic"]))
    else:
        from tests.bench.realistic_catalogue import real_model, realistic_series

        model = real_model(matrices["returns"], matrices["ic"])
        series = realistic_series(n, model, seed, out=(own["returns"], own["ic"]))
    timings["series_seconds"] = time.monotonic() - clock
    clock = time.monotonic()
    synthetic = _rows(series, base, matrices["returns_days"], seed, slim)
    timings["rows_seconds"] = time.monotonic() - clock
    clock = time.monotonic()
    both = pa.concat_tables([base, synthetic.cast(base.schema)])
    del synthetic
    marked = both.append_column("_row", pa.array(np.arange(both.num_rows), pa.int64()))
    ordered = _in_catalogue_order(marked)
    order = ordered.column("_row").to_numpy()
    index = ordered.drop_columns(["_row"])
    if family_members:
        index = with_family(index, family_members, real_member)
    del both, marked, ordered
    timings["order_seconds"] = time.monotonic() - clock
    clock = time.monotonic()
    found: dict[str, np.ndarray] = {}
    risk_free_row = matrices["risk_free"][0] if matrices["risk_free"].shape[0] else None
    for basis in ("returns", "ic", "risk_free"):
        before = matrices[basis]
        values = open_memmap(
            scratch / f"{basis}_ordered.npy", "w+", np.float64, (index.num_rows, before.shape[1])
        )
        for first in range(0, index.num_rows, BLOCK):
            rows = order[first : first + BLOCK]
            real = rows < base.num_rows
            block = np.empty((rows.size, before.shape[1]))
            block[real] = before[rows[real]]
            if basis == "risk_free":
                block[~real] = risk_free_row if risk_free_row is not None else np.nan
            else:
                block[~real] = own[basis][rows[~real] - base.num_rows]
            values[first : first + rows.size] = block
        values.flush()
        found[basis], found[f"{basis}_days"] = values, matrices[f"{basis}_days"]
        if basis in nearest.INDEXED_BASES:
            found.update(nearest.index_matrices(basis, values, matrices[f"{basis}_days"]))
    timings["matrices_seconds"] = time.monotonic() - clock
    clock = time.monotonic()
    # The Rademacher anti-serum's complexity, as a whole generation records it (pipeline/catalogue_bound.py)
    trials = {"ras": catalogue_bound.whole(found)}
    timings["bound_seconds"] = time.monotonic() - clock

    def update(current: object, _: object) -> catalogue_index.Next:
        return catalogue_index.Next(
            index, dict(generation.benchmarks), [{"synthetic": n}], found, trials=trials
        )

    clock = time.monotonic()
    written = catalogue_index.commit(storage, out_root, update)
    timings["commit_seconds"] = time.monotonic() - clock
    if builds:
        clock = time.monotonic()
        write_minimal_builds(out_root, synthetic_rows(index, base.num_rows, order))
        timings["builds_seconds"] = time.monotonic() - clock
    found.clear()
    own.clear()
    shutil.rmtree(scratch, ignore_errors=True)
    planted = np.flatnonzero(series.duplicates >= 0)
    return {
        "n_synthetic": n,
        "n_real": base.num_rows,
        "generation": written.number,
        "sessions": int(sessions),
        "weeks": int(weeks),
        "slim_entries": slim,
        "minimal_builds": builds,
        "model": "flattering" if flattering else "realistic",
        "families": 0 if series.families is None else int(series.families.max() + 1),
        "real_alphas": base.column("alpha_id").to_pylist(),
        "planted": [[f"syn{int(c):07d}", f"syn{int(series.duplicates[c]):07d}"] for c in planted[:200]],
        "bytes": sum(p.stat().st_size for p in (Path(out_root) / "catalogue").rglob("*") if p.is_file()),
        **{k: round(v, 2) for k, v in timings.items()},
        "total_seconds": round(time.monotonic() - started, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def synthetic_rows(index: pa.Table, n_real: int, order: np.ndarray) -> pa.Table:
    """The synthetic alphas' `alpha_id`, `build_id` and `entry` of the committed index (`order`:
    each index row's row before ordering; the first `n_real` were the base lake's)."""
    return index.select(["alpha_id", "build_id", "entry"]).filter(pa.array(order >= n_real))


def write_minimal_builds(out_root: str, rows: pa.Table) -> None:
    """A minimal build of each of `rows` (alpha_id, build_id, entry) where the reader looks for
    it: alpha.json (the index entry with its file manifest) and `serving/` holding the serving
    index and the analytics marker table, empty (what a build without a ledger writes), so that
    `analytics.inputs.require_built` admits it. No `_current.json`: the reader takes the build
    from the catalogue index (a lake with an index never scans pointers)."""
    from alpha_results_seal.storage import Storage
    from analytics.inputs import MARKER_TABLE
    from datasets import layout
    from datasets.writer import BuildWriter
    from schemas import lake

    # The two serving files are the same bytes for every build: made once, written per build
    # (not hard links: a file may have at most 65,000 of them on ext4).
    writer = BuildWriter(Storage(out_root))
    template = Path(out_root).parent / "minimal-build"
    shutil.rmtree(template, ignore_errors=True)
    writer.write_arrow(
        layout.serving_path(str(template), MARKER_TABLE), lake.ANALYTICS_DRAWDOWNS.empty_table()
    )
    index = {"format": layout.SERVING_FORMAT, "tables": {MARKER_TABLE: {"rows": 0}}}
    writer.write_json(layout.serving_path(str(template), layout.SERVING_INDEX), index)
    files = writer.manifest(str(template))
    payloads = {relative: (template / relative).read_bytes() for relative in files}
    shutil.rmtree(template)
    manifest = json.dumps(files, sort_keys=True)
    for alpha, build, entry in zip(
        *(rows.column(n).to_pylist() for n in ("alpha_id", "build_id", "entry")), strict=True
    ):
        folder = Path(layout.alpha_build_dir(out_root, alpha, build))
        (folder / layout.SERVING_DIR).mkdir(parents=True, exist_ok=True)
        for relative, payload in payloads.items():
            (folder / relative).write_bytes(payload)
        # The entry's text with its manifest put in (no parse per alpha: the reader takes keys in any order).
        (folder / layout.ALPHA_JSON).write_text(f'{entry[:-1]}, "files": {manifest}}}')


def lake_of(n: int, flattering: bool = False) -> Path:
    """Where `just synthetic-catalogue --n N [--flattering]` writes its lake by default."""
    return DEFAULT_OUT / (f"{n}-flattering" if flattering else str(n)) / "lake"


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
    parser.add_argument(
        "--slim-entries",
        action="store_true",
        help=f"synthetic alpha.json entries without {', '.join(SLIM_DROPS)} (for 10^6)",
    )
    parser.add_argument(
        "--flattering",
        action="store_true",
        help="the issue 51 model (no gaps, no families, isolated near-duplicate pairs in the last "
        "2 %% of ids, 12 factors), to reproduce earlier figures; default var/bench-synthetic/N-flattering/lake",
    )
    parser.add_argument(
        "--no-builds",
        action="store_true",
        help="no minimal build per synthetic alpha (its routes then answer 503, as before issue 63)",
    )
    args = parser.parse_args(argv)
    base = args.base or default_base()
    out = args.out or lake_of(args.n, args.flattering)
    out.parent.mkdir(parents=True, exist_ok=True)
    facts = write(
        str(base),
        str(out),
        args.n,
        args.seed,
        args.slim_entries,
        flattering=args.flattering,
        builds=not args.no_builds,
    )
    (out.parent / "synthetic.json").write_text(json.dumps(facts, indent=1) + "\n")
    print(json.dumps({k: v for k, v in facts.items() if k not in ("planted", "real_alphas")}, indent=1))
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
