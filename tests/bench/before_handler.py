"""`just bench-before-handler [--base CHECKOUT]`: what a request costs before its handler runs.

    python -m tests.bench.before_handler [--base /path/to/other/checkout] [--requests 3000]
                                         [--families me,week100,...]

For each route family (tests/bench/families.py; `--paths` random paths of it, seed 7, the same for
both trees), in-process (the app over the lake at `--lake`, one admin key in a fresh SQLite key
store, never throttled; each GET handed straight to the app's ASGI callable on one thread, the
work a handler sends to a worker thread run inline, so all of it is timed and a busy machine's
other threads disturb it least): the time from the app's entry to the route handler's entry
(routing, the key, limits, the query's parse, negotiation: every middleware and guard), the whole
request in the app, the process's CPU time per request, and how many times `urllib.parse.parse_qsl` ran per request, ours or Litestar's (how often the
query string was read). Each tree runs in its own process (`--base`: the other checkout's modules, `python -P`
so this tree's working directory does not shadow them), alternating, `--rounds` times; prints the
medians. Timing hooks: each route handler's `fn` is wrapped, nothing else.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench.families import BY_KEY, LakeFacts
from tests.bench.harness import REPO, create_admin_key, server_env

PROBE = r"""
import asyncio, json, sys, time, urllib.parse
from collections import Counter

import anyio.to_thread

requests, token = int(sys.argv[1]), sys.argv[3].encode()
paths = json.loads(open(sys.argv[2]).read())  # label -> paths
from serve.app import create_app

calls = Counter()
real_parse_qsl = urllib.parse.parse_qsl
def counting_parse_qsl(*args, **kwargs):
    calls["parse_qsl"] += 1
    return real_parse_qsl(*args, **kwargs)
urllib.parse.parse_qsl = counting_parse_qsl
# Every module that bound the function under any name: ours, and Litestar's own reading of the
# query string (`litestar._parsers._parse_qsl`, behind `request.query_params`).
for name, module in list(sys.modules.items()):
    for attribute in ("parse_qsl", "_parse_qsl"):
        if getattr(module, attribute, None) is real_parse_qsl:
            setattr(module, attribute, counting_parse_qsl)

async def inline(fn, *args, **kwargs):  # a handler's thread work in this thread: all of it is timed
    return fn(*args)
anyio.to_thread.run_sync = inline

app = create_app()
marks = {}
for route in app.routes:
    for handler in getattr(route, "route_handlers", ()):
        fn = handler.fn
        if handler.has_sync_callable:
            def wrapped(*a, __fn=fn, **k):
                marks["handler"] = time.perf_counter()
                return __fn(*a, **k)
        else:
            async def wrapped(*a, __fn=fn, **k):
                marks["handler"] = time.perf_counter()
                return await __fn(*a, **k)
        handler._fn = wrapped

async def get(path):
    # One GET straight into the app's ASGI callable, on this thread: no client, no socket.
    route, _, query = path.partition("?")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": route, "raw_path": route.encode(), "query_string": query.encode(),
        "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80), "state": {},
        "headers": [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer " + token),
                    (b"accept-encoding", b"identity")],
    }
    status = []
    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}
    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])
    marks["entry"] = time.perf_counter()
    await app(scope, receive, send)
    marks["done"] = time.perf_counter()
    return status[0]

async def main():
    out = {}
    for label, path in paths.items():
        # A random window may hold too few sessions for a set (a 400): only the paths answered 200.
        path = [candidate for candidate in path if await get(candidate) == 200]
        before, whole = [], []
        calls.clear()
        cpu = time.process_time()
        for i in range(requests):
            marks.clear()
            assert await get(path[i % len(path)]) == 200
            before.append(marks["handler"] - marks["entry"])
            whole.append(marks["done"] - marks["entry"])
        out[label] = {
            "before_handler_us": sorted(before)[len(before) // 2] * 1e6,
            "request_us": sorted(whole)[len(whole) // 2] * 1e6,
            "cpu_us": (time.process_time() - cpu) / requests * 1e6,
            "parse_qsl_per_request": calls["parse_qsl"] / requests,
            "paths": len(path),
        }
    print(json.dumps(out))

asyncio.run(main())
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout to measure beside this tree")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--families", default="me,week100", help="comma-separated (tests/bench/families.py)")
    parser.add_argument("--paths", type=int, default=200, help="random paths per family")
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    trees = {"this tree": REPO, **({"base": args.base.resolve()} if args.base else {})}
    facts = LakeFacts.read(args.lake, args.alpha)
    rng = random.Random(args.seed)
    paths = {
        BY_KEY[name].label: BY_KEY[name].paths(facts, rng, args.paths)
        for name in args.families.split(",")
        if name
    }
    results: dict[str, list[dict[str, dict[str, float]]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="before-handler-") as folder:
        keystore = f"sqlite:///{folder}/keys.sqlite3"
        env = server_env(args.lake, keystore)
        key = create_admin_key(keystore, env)
        listed = Path(folder) / "paths.json"
        listed.write_text(json.dumps(paths))
        for round_ in range(args.rounds):
            order = list(trees.items()) if round_ % 2 == 0 else list(reversed(trees.items()))
            for name, tree in order:
                here = {**env, "PYTHONPATH": str(tree)}
                argv_ = [sys.executable, "-P", "-c", PROBE, str(args.requests), str(listed), key.token]
                done = subprocess.run(
                    argv_, env=here, cwd=folder, capture_output=True, text=True, check=False
                )
                if done.returncode != 0:
                    raise SystemExit(f"{name}: {done.stderr[-3000:]}")
                results[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(
        f"before-handler: {args.requests} requests per family and round over {args.paths} random paths "
        f"(seed {args.seed}), {args.rounds} rounds, lake {args.lake}"
    )
    print(
        "| route family | tree | before the handler (median) | whole request in the app (median) "
        "| CPU per request | parse_qsl per request |"
    )
    print("|---|---|---|---|---|---|")
    for label in paths:
        for name, runs in results.items():
            before = statistics.median(r[label]["before_handler_us"] for r in runs)
            whole = statistics.median(r[label]["request_us"] for r in runs)
            cpu = statistics.median(r[label]["cpu_us"] for r in runs)
            parses = runs[0][label]["parse_qsl_per_request"]
            kept = runs[0][label]["paths"]
            print(
                f"| {label} ({kept} paths) | {name} | {before:.0f} µs | {whole:.0f} µs | {cpu:.0f} µs | {parses:g} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
