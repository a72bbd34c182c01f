"""`alpha-results demo`: write the synthetic research engine's seals."""

from __future__ import annotations

import argparse
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
        "benchmark seal under --out; or, with --lake, play the demo's history into a lake: each run "
        "published at its time on a simulated clock and the decisions recorded at theirs, in the records "
        "of --keystore (docs/events.md, 'The demo').",
    )
    parser.add_argument("--out", type=Path, default=None, help="folder to write the seals into")
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
        help="also the three trial families' 48 variants (default: with the full size only)",
    )
    parser.add_argument(
        "--lake",
        default=None,
        help="play the demo's history into this lake instead (what `serve --init-demo` runs on an empty lake)",
    )
    parser.add_argument(
        "--keystore",
        metavar="URL",
        default=None,
        help="with --lake: the records the decisions go to (default: $ALPHA_RESULTS_KEYSTORE_URL, else the server's)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import sys

    if (args.out is None) == (args.lake is None):
        print(
            "alpha-results demo: name either --out (write the seals) or --lake (play the history)",
            file=sys.stderr,
        )
        return 2
    if args.lake is not None:
        from core.settings import Settings
        from pipeline.demo_history import play

        settings = Settings.from_env()
        played = play(
            args.lake,
            args.keystore or settings.keystore_url,
            args.size,
            args.seed,
            families=args.families,
            report=lambda line: print(line, flush=True),
            policy_file=settings.checks_policy_file,
        )
        print(f"{len(played.outcomes)} runs published, {played.decisions} decisions recorded", flush=True)
        return 0
    from alpha_results_seal.demo.corpus import write_corpus

    def report(seal_id: str, rows: int, size_bytes: int) -> None:
        print(f"{seal_id}\trows={rows}\tbytes={size_bytes}", flush=True)

    families = args.size == "full" if args.families is None else args.families
    write_corpus(args.out, size=args.size, seed=args.seed, only=args.only, report=report, families=families)
    return 0
