"""`python -m tests.bench.page_profile LAKE`: where a random-offset 100-row week page's CPU goes, in
process (docs/benchmarks.md "Issue 61, item 3").

    python -m tests.bench.page_profile /tmp/shared/shared-demo_lake [--requests 3000]
        [--accept-encoding identity] [--out var/page.prof]

The app over LAKE (no answer cache, a test caller, no limiter); `--requests` random week pages of
`tests.bench.families.week_page` (seed 7), each GET handed straight to the app's ASGI callable on
one thread, the work a handler sends to a worker thread run inline. Prints the process's CPU per
request without the profiler, then, from a cProfile of the same requests, the share of the own
time in Litestar's modules, in this project's and elsewhere, and the functions with the most own
time. Another checkout (one without this file) is profiled by putting it first on the path and
running this file by its path: `PYTHONPATH=/path/to/checkout python tests/bench/page_profile.py LAKE`.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import random
import time
from pathlib import Path
from typing import Any

import anyio.to_thread

from core.settings import Settings
from serve.app import create_app
from tests.bench.families import LakeFacts, week_page
from tests.callers import authenticator_for, make_caller
from tests.raw_asgi import exchange


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lake")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--accept-encoding", default="identity")
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--out", default="var/page.prof", help="where the cProfile stats are written")
    return parser.parse_args(argv)


async def _inline(fn: Any, *args: Any, **kwargs: Any) -> Any:  # thread work timed on this thread
    return fn(*args)


def group_of(path: str) -> str:
    if "/litestar/" in path:
        return "litestar"
    if "site-packages" in path or "/lib/python" in path or path.startswith("~") or path.startswith("<"):
        return "libraries and Python"
    return "this project"


async def run(args: argparse.Namespace) -> None:
    anyio.to_thread.run_sync = _inline  # type: ignore[assignment]
    app = create_app(
        Settings(lake=args.lake, environment="test", answer_cache_bytes=0),
        authenticate=authenticator_for({"raw": make_caller(expose_raw_book=True)}),
        limiter=None,
    )
    rng = random.Random(7)
    facts = LakeFacts.read(args.lake, args.alpha)
    paths = [week_page(facts, rng) for _ in range(args.requests)]
    coding = args.accept_encoding.encode()

    async def get(path: str) -> int:
        route, _, query = path.partition("?")
        head = [
            (b"host", b"127.0.0.1"),
            (b"authorization", b"Bearer raw"),
            (b"accept-encoding", coding),
            (b"accept", b"*/*"),
        ]
        status, _, _ = await exchange(app, "GET", route, head, query=query.encode())
        return status

    for path in paths[:200]:  # warm: every week opened once
        assert await get(path) == 200, path
    cpu = time.process_time()
    for path in paths:
        await get(path)
    print(f"CPU per request, without the profiler: {(time.process_time() - cpu) / len(paths) * 1e6:.0f} us")
    profile = cProfile.Profile()
    profile.enable()
    for path in paths:
        await get(path)
    profile.disable()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    profile.dump_stats(args.out)
    stats: Any = pstats.Stats(args.out)
    own: dict[str, float] = {}
    for (path, _, _), values in stats.stats.items():
        own[group_of(path)] = own.get(group_of(path), 0.0) + values[2]
    total = sum(own.values())
    print("own time under cProfile:", ", ".join(f"{k} {v / total:.1%}" for k, v in sorted(own.items())))
    listing = io.StringIO()
    pstats.Stats(args.out, stream=listing).sort_stats("tottime").print_stats(20)
    print(listing.getvalue())


def main(argv: list[str] | None = None) -> int:
    asyncio.run(run(parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
