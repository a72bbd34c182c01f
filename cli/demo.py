"""`alpha-results demo`: write the synthetic research engine's seals."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from alpha_results_seal.demo.sizes import SIZES

DEFAULT_SEED = 7


def demo_seal(name: str) -> str:
    """A seal `--only` accepts (a demo alpha or the benchmark), checked against the demo engine's
    names when a value is given: a `choices=` list would be read to print `--help`."""
    from alpha_results_seal.demo.alphas import ALPHA_IDS, FAMILY_IDS
    from alpha_results_seal.demo.corpus import BENCHMARK_SEAL

    names = [*ALPHA_IDS, *FAMILY_IDS, BENCHMARK_SEAL]
    if name not in names:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {name!r} (choose from {', '.join(repr(n) for n in names)})"
        )
    return name


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        description="Simulate a market and the demo alphas, and write one seal per alpha plus the "
        "benchmark seal under --out.",
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write the seals into")
    parser.add_argument("--size", choices=sorted(SIZES), default="full", help="corpus size (default: full)")
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default: {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="ALPHA_ID",
        type=demo_seal,
        help="write only these seals",
    )
    parser.add_argument(
        "--families",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also the two trial families' 32 variants (default: with the full size only)",
    )
    parser.add_argument(
        "--lake",
        default=None,
        help="then build the seals written into this lake (what `serve --init-demo` runs in the background)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from alpha_results_seal.demo.corpus import write_corpus

    def report(seal_id: str, rows: int, size_bytes: int) -> None:
        print(f"{seal_id}\trows={rows}\tbytes={size_bytes}", flush=True)

    families = args.size == "full" if args.families is None else args.families
    seals = write_corpus(
        args.out, size=args.size, seed=args.seed, only=args.only, report=report, families=families
    )
    if args.lake is None:
        return 0
    from pipeline.build import build_many

    outcomes = build_many([str(s) for s in seals], args.lake)
    for outcome in outcomes:
        print(f"  {outcome.line()}", flush=True)
    from cli.serve import record_demo_events
    from core.settings import Settings

    # Into the deployment's records when there are some (`serve --init-demo` created them).
    record_demo_events(replace(Settings.from_env(), lake=args.lake), outcomes, create=False)
    return 1 if any(o.status in ("refused", "failed") for o in outcomes) else 0
