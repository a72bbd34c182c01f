"""`just bench-answer-cache`: what the answers a worker keeps cost in memory (issue 49, item 2).

    python -m tests.bench.answer_cache_bench [--lake var/lake] [--limits 0,16777216,67108864]
                                             [--pages 3000]

For each `ALPHA_RESULTS_ANSWER_CACHE_BYTES` of `--limits`, one `alpha-results serve` worker over
the lake: the worker's RSS after a warm-up, then after `--pages` distinct pages were each asked
twice (so each is kept: an answer is kept the second time its key is asked), in the five
representations of random weeks, offsets and limits of the alpha; and again after one more pass of
new pages (the bound holds while older entries leave). Prints a row per limit: RSS (MiB) after the
warm-up, after filling, after the second pass, and the growth over the limit-0 worker's.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

import httpx

from tests.bench.families import LakeFacts
from tests.bench.harness import (
    REPO,
    Children,
    create_admin_key,
    git_revision,
    memory_mib,
    server_env,
    start_api,
    worker_pids,
)

FORMATS = ("json", "csv", "ndjson", "arrow", "json")


def pages(facts: LakeFacts, rng: random.Random, n: int) -> list[str]:
    out = set()
    while len(out) < n:
        week = rng.randrange(len(facts.weeks))
        limit = rng.choice((100, 250, 500))
        offset = rng.randrange(0, max(1, facts.week_rows[week] - 1))
        out.add(
            f"/v1/alphas/{facts.alpha}/rebalances/{facts.weeks[week]}"
            f"?limit={limit}&offset={offset}&format={rng.choice(FORMATS)}"
        )
    return sorted(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--alpha", default="momentum_12_1")
    parser.add_argument("--limits", default=f"0,{16 << 20},{64 << 20}")
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    facts = LakeFacts.read(args.lake, args.alpha)
    rng = random.Random(args.seed)
    first, second = pages(facts, rng, args.pages), pages(facts, rng, args.pages)
    print(
        f"answer-cache-bench at {git_revision()}: {args.pages} pages asked twice, then {args.pages} more; lake {args.lake}"
    )
    print(
        "| ALPHA_RESULTS_ANSWER_CACHE_BYTES | RSS after warm-up (MiB) | after filling | after a second pass | growth over limit 0 |"
    )
    print("|---|---|---|---|---|")
    baseline = None
    with tempfile.TemporaryDirectory() as folder, Children() as children:
        work = Path(folder)
        for limit in (int(x) for x in args.limits.split(",")):
            keystore = f"sqlite:///{work / f'keys-{limit}.sqlite3'}"
            env = server_env(args.lake, keystore)
            env["ALPHA_RESULTS_ANSWER_CACHE_BYTES"] = str(limit)
            key = create_admin_key(keystore, env)
            server = start_api(children, f"api-{limit}", env=env, workers=1, log=work / f"api-{limit}.log")
            (worker,) = worker_pids(server.proc.pid)[:1]
            headers = {"Authorization": f"Bearer {key.token}"}
            with httpx.Client(base_url=server.base_url, headers=headers, timeout=60) as client:
                for path in first[:200]:  # warm-up: every code path of the route family
                    client.get(path).raise_for_status()
                warm = memory_mib(worker)[0]
                for path in first:
                    client.get(path).raise_for_status()
                    client.get(path).raise_for_status()
                filled = memory_mib(worker)[0]
                for path in second:
                    client.get(path).raise_for_status()
                    client.get(path).raise_for_status()
                after = memory_mib(worker)[0]
            children.stop(server.proc)
            if baseline is None:
                baseline = after
            print(f"| {limit:,} | {warm:.0f} | {filled:.0f} | {after:.0f} | {after - baseline:+.0f} |")


if __name__ == "__main__":
    main()
