"""`python -m tests.bench.scores_pages LAKE`: what a `/scores` page costs from the row bytes and from
its rows, and what the row parts add to a lake (docs/benchmarks.md "Issue 61: /scores from bytes").

    python -m tests.bench.scores_pages /tmp/shared/shared-demo_lake [--requests 300] [--rounds 6]

Three measurements, on LAKE (written by pipeline 2.10 or later; the first only on a 2.10 lake, whose
builds hold their row bytes: since 2.11 each worker derives them, `datasets.derived`):

- the lake: every build's serving files, the row parts' share (each `decisions_json.arrow` written
  again without them: the file a 2.9 build held) and their bytes per decision row;
- a page alone (`--alpha`'s build, 100 and 5,000 rows at random places, the median CPU of
  `--repeats` calls), by each design weighed: the rows made (`RowShape`, as before), the row parts
  joined after the date (chosen: `datasets.queries.dated_rows`), and the decision row's bytes cut
  apart and joined again in `/scores` order at request time (`pyarrow.compute.split_pattern`, no
  bytes stored); each design's page is checked to be the same bytes;
- a request in process (the app's ASGI callable, no answer cache, no limiter, a test caller):
  `--requests` random 100-row `/scores` pages (`fields` core or all, a key with raw fields or not,
  any offset, a third with a symbol filter), the row bytes on and off in turn (`ROW_JSON` and
  `ROW_PARTS` emptied: the rows made), `--rounds` interleaved rounds, CPU per request medians.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import io
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio.to_thread
import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.settings import Settings
from datasets import queries
from datasets.reader import LakeReader
from datasets.rows import shape_of
from schemas import wire
from serve.app import create_app
from tests.callers import authenticator_for, make_caller
from tests.raw_asgi import exchange


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lake")
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=200)
    return parser.parse_args(argv)


# -- the lake -------------------------------------------------------------------------------------


def lake_sizes(lake: str) -> None:
    serving = list(Path(lake).glob("alphas/*/builds/*/serving/*.arrow"))
    total = sum(path.stat().st_size for path in serving)
    parts_names = [name for table in queries.ROW_PARTS.values() for name in table]
    without, rows, builds = 0, 0, set()
    for path in serving:
        if path.name != f"{queries.row_json_table('decisions')}.arrow":
            continue
        builds.add(path.parent.parent)
        with pa.memory_map(str(path)) as source:
            written = pa.ipc.open_file(source).read_all()
        rows += written.num_rows
        sink = io.BytesIO()
        kept = written.drop_columns([name for name in parts_names if name in written.column_names])
        with pa.ipc.new_file(sink, kept.schema) as writer:
            writer.write_table(kept)
        without += path.stat().st_size - len(sink.getvalue())
    mb = 1e6
    print(
        f"serving files of {len(builds)} builds: {total / mb:.1f} MB; without the row parts {(total - without) / mb:.1f} MB"
    )
    print(
        f"row parts: {without / mb:.1f} MB over {rows:,} decision rows, {without / max(rows, 1):.0f} bytes a row"
    )


# -- a page alone ---------------------------------------------------------------------------------


def _joined(made: Any) -> bytes:
    return bytes(made.json) if isinstance(made, queries.PremadeRows) else msgspec.json.encode(made)


def split_design(view: Any, fields: tuple[str, ...], raw: bool) -> Callable[[np.ndarray], bytes]:
    """The decision row's bytes cut at its members (`,"`) and joined again in `fields`' order, the
    date before: nothing stored beyond the week rows. Only `fields=core` (no field omitted when null
    among them, each at a fixed place from the row's start or its end)."""
    stored = wire.visible_fields(wire.DECISION_FIELDS, raw)
    rows = queries._row_json_column(view, "decisions", "raw" if raw else "plain")
    table = view.table("decisions")
    assert rows is not None and table is not None

    def place(name: str) -> tuple[int, bool]:
        at = stored.index(name)
        if not wire.OMIT_WHEN_NULL & set(stored[:at]):
            return at, True
        return at - len(stored), False

    places = [place(name) for name in fields[1:]]
    large = pa.large_binary()

    def page(picked: np.ndarray) -> bytes:
        at = pa.array(picked, pa.int64())
        inner = pc.binary_slice(rows.take(at), 1, -1 - len(queries.ROW_END))
        members = pc.split_pattern(inner, ',"')
        offsets = members.offsets.to_numpy()
        wanted = np.empty((len(picked), len(places)), np.int64)
        for column, (index, from_start) in enumerate(places):
            wanted[:, column] = (offsets[:-1] if from_start else offsets[1:]) + index
        chosen = members.values.take(pa.array(wanted.ravel()))
        step = np.arange(0, len(chosen) + 1, len(places), dtype=np.int64)
        joined = pc.binary_join(
            pa.LargeListArray.from_arrays(pa.array(step), chosen), pa.scalar(b',"', large)
        )
        days = table.column("date").chunk(0).take(at).cast(pa.string()).cast(large)
        made = pc.binary_join_element_wise(
            pa.scalar(b'{"date":"', large),
            days,
            pa.scalar(b'",', large),
            joined,
            pa.scalar(b"},", large),
            pa.scalar(b"", large),
        )
        return _joined(queries._premade(made, 0, len(picked)))

    return page


def made_rows(table: pa.Table, shape: Any, picked: np.ndarray) -> bytes:
    """The rows made from the Arrow columns and encoded (a build without row bytes)."""
    return _joined(shape.rows(table, picked))


def joined_rows(view: Any, fields: tuple[str, ...], picked: np.ndarray) -> bytes:
    """The chosen design: the row bytes joined after each row's date."""
    return _joined(queries.dated_rows(view, "decisions", fields, wire.OMIT_WHEN_NULL, picked))


def _median_cpu(work: Callable[[], object], repeats: int) -> float:
    spent = []
    for _ in range(repeats):
        started = time.process_time()
        work()
        spent.append(time.process_time() - started)
    return statistics.median(spent) * 1e6


def _view(lake: str, alpha: str) -> Any:
    reader = LakeReader(lake)
    reader.refresh()
    build = reader.alpha(alpha)
    assert build is not None
    view = reader.view(build)
    if view.table(queries.row_json_table("decisions")) is None:  # pipeline 2.11: derived by the worker
        reader.derived.wait()
    return view


def page_costs(lake: str, alpha: str, repeats: int) -> None:
    view = _view(lake, alpha)
    table = view.table("decisions")
    rng = np.random.default_rng(7)
    print("a page alone, µs of CPU (median): rows made | row bytes (chosen) | decision rows cut and joined")
    for size in (100, 5_000):
        start = int(rng.integers(0, max(1, table.num_rows - size)))
        picked = np.arange(start, min(table.num_rows, start + size))
        for name, raw in (("core", False), ("core", True), ("all", False), ("all", True)):
            fields = wire.visible_fields(wire.SCORE_FIELD_SETS[name], raw)
            shape = shape_of(fields, wire.OMIT_WHEN_NULL)
            designs: list[Callable[[np.ndarray], bytes]] = [
                functools.partial(made_rows, table, shape),
                functools.partial(joined_rows, view, fields),
            ]
            if name == "core":
                designs.append(split_design(view, fields, raw))
            assert len({design(picked) for design in designs}) == 1, (
                f"{name} raw={raw}: the designs' pages differ"
            )
            costs = [_median_cpu(functools.partial(design, picked), repeats) for design in designs]
            key = "raw key" if raw else "plain key"
            print(
                f"  {len(picked):>5} rows, fields={name:<4} {key:<9} "
                + " | ".join(f"{c:8.1f}" for c in costs)
            )


# -- a request in process -------------------------------------------------------------------------


async def _inline(fn: Any, *args: Any, **kwargs: Any) -> Any:  # thread work timed on this thread
    return fn(*args)


def scores_paths(view: Any, alpha: str, rng: random.Random, n: int) -> list[tuple[str, str]]:
    table = view.table("decisions")
    symbols = sorted(set(table.column("symbol").to_pylist()))
    paths = []
    for _ in range(n):
        query = f"limit=100&offset={rng.randrange(0, max(1, table.num_rows - 100))}&fields={rng.choice(['core', 'all'])}"
        if rng.random() < 1 / 3:
            query = f"limit=100&offset={rng.randrange(0, 20)}&symbol={','.join(rng.sample(symbols, 5))}"
            query += f"&fields={rng.choice(['core', 'all'])}"
        paths.append((f"/v1/alphas/{alpha}/scores?{query}", rng.choice(["raw", "plain"])))
    return paths


async def request_costs(lake: str, alpha: str, requests: int, rounds: int) -> None:
    anyio.to_thread.run_sync = _inline  # type: ignore[assignment]
    app = create_app(
        Settings(lake=lake, environment="test", answer_cache_bytes=0),
        authenticate=authenticator_for(
            {"raw": make_caller(expose_raw_book=True), "plain": make_caller(expose_raw_book=False)}
        ),
        limiter=None,
    )
    paths = scores_paths(_view(lake, alpha), alpha, random.Random(7), requests)

    async def get(path: str, key: str) -> None:
        route, _, query = path.partition("?")
        head = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {key}".encode()), (b"accept", b"*/*")]
        status, _, _ = await exchange(app, "GET", route, head, query=query.encode())
        assert status == 200, (path, status)

    stored = (queries.ROW_JSON, queries.ROW_PARTS)
    per_request: dict[str, list[float]] = {"row bytes": [], "rows made": []}
    for path, key in paths[:50]:  # warm: the build opened, its files mapped
        await get(path, key)
    for _ in range(rounds):
        for name in per_request:
            queries.ROW_JSON, queries.ROW_PARTS = stored if name == "row bytes" else ({}, {})
            started = time.process_time()
            for path, key in paths:
                await get(path, key)
            per_request[name].append((time.process_time() - started) / len(paths) * 1e3)
    queries.ROW_JSON, queries.ROW_PARTS = stored
    made, premade = (statistics.median(per_request[name]) for name in ("rows made", "row bytes"))
    print(f"a random 100-row /scores request in process, CPU ms (median of {rounds} rounds of {requests}):")
    print(f"  rows made {made:.3f}, row bytes {premade:.3f} ({premade / made:.2f})")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    lake_sizes(args.lake)
    page_costs(args.lake, args.alpha, args.repeats)
    asyncio.run(request_costs(args.lake, args.alpha, args.requests, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
