"""`alpha-results build SEAL... [--lake ROOT] [--jobs N]`, `alpha-results lake show` and `lake gc`."""

from __future__ import annotations

import argparse
import os
from typing import Any

from datasets import catalog, retention
from pipeline.build import build_many
from pipeline.rules import SealRejected

DEFAULT_LAKE = "var/lake"


def default_lake() -> str:
    return os.environ.get("ALPHA_RESULTS_LAKE") or DEFAULT_LAKE


def register(subparsers: Any) -> None:
    build = subparsers.add_parser("build")
    build.add_argument("seals", nargs="+", metavar="SEAL", help="seal folders (or s3:// prefixes)")
    build.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    build.add_argument("--jobs", type=int, default=None, help="parallel processes (default: CPU count)")
    build.set_defaults(handler=run_build)

    lake = subparsers.add_parser("lake")
    lake_sub = lake.add_subparsers(dest="lake_command", required=True, metavar="ACTION")
    show = lake_sub.add_parser("show", help="print the published alphas and benchmarks")
    show.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    show.set_defaults(handler=run_show)
    gc = lake_sub.add_parser(
        "gc",
        help="list the build folders no pointer names and no publish lease covers (--apply deletes them)",
    )
    gc.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    gc.add_argument("--apply", action="store_true", help="delete them (default: a dry run that only lists)")
    gc.set_defaults(handler=run_gc)


def run_build(args: argparse.Namespace) -> int:
    lake_root = args.lake or default_lake()
    outcomes = build_many(args.seals, lake_root, args.jobs)
    refused = 0
    for outcome in outcomes:
        print(outcome.line())
        if outcome.rejection is not None:
            refused += 1
            print("  " + SealRejected(**outcome.rejection).report().replace("\n", "\n  "))
    print(f"{len(outcomes)} seals: {len(outcomes) - refused} built, {refused} refused  (lake {lake_root})")
    # Garbage of earlier killed publishes anywhere in the lake goes with any later build.
    for garbage in retention.collect_lake(lake_root):
        print(f"collected  {garbage.path}")
    return 1 if refused else 0


def run_gc(args: argparse.Namespace) -> int:
    lake_root = args.lake or default_lake()
    found = retention.collect_lake(lake_root) if args.apply else retention.lake_garbage(lake_root)
    verb = "deleted" if args.apply else "garbage"
    for garbage in found:
        print(f"{verb}  {garbage.path}")
    if args.apply:
        print(f"{len(found)} build folders deleted  (lake {lake_root})")
    else:
        print(f"{len(found)} build folders to delete  (dry run; pass --apply to delete them)")
    return 0


def run_show(args: argparse.Namespace) -> int:
    lake_root = args.lake or default_lake()
    alphas = catalog.list_alphas(lake_root)
    print(f"lake {lake_root}: {len(alphas)} alphas")
    for entry in alphas:
        rows = sum(t["rows"] for t in entry["tables"].values())
        state = (
            "complete"
            if entry["complete"]
            else "incomplete (missing " + ", ".join(entry["missing_kinds"]) + ")"
        )
        print(f"  {entry['alpha_id']:<28} build {entry['build_id']}  {state}")
        print(
            f"  {'':<28} kinds {', '.join(entry['kinds_present']) or '-'}  {rows:,} rows  {entry['build_bytes']:,} bytes"
        )
    benchmarks = catalog.list_benchmarks(lake_root)
    print(f"{len(benchmarks)} benchmarks")
    for info in benchmarks:
        print(
            f"  {info.get('symbol')}  {info.get('name')}  {info.get('rows', '?')} sessions  "
            f"{info.get('first_date')} .. {info.get('last_date')}"
        )
    return 0
