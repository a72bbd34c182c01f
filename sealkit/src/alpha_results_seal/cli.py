"""`alpha-results-seal check SEAL... [--json]`: every rule over each seal, without a lake.

The one implementation of the check command: `alpha-results seal check` (the server's command
line, cli/seal.py) registers the same arguments and runs the same `run_check`. What `alpha-results
build` would refuse, all of it in one run (`alpha_results_seal.check`, the code the publish path
runs), with nothing written. Exit 0 when every seal holds, 1 when any is refused, 2 for a usage
error (docs/seal.md, "Checking a seal").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def add_check_arguments(check: argparse.ArgumentParser) -> None:
    """The arguments of the check command, on the parser of either command line."""
    check.add_argument("seals", nargs="+", metavar="SEAL", help="seal folders (or s3:// prefixes)")
    check.add_argument(
        "--json",
        action="store_true",
        help='print one JSON document (docs/seal.md, "Checking a seal") instead of the readable report',
    )


CHECK_HELP = "check seal folders against every rule the build applies, without a lake (nothing is written)"


def run_check(args: argparse.Namespace, prog: str = "alpha-results-seal check") -> int:
    """Checks `args.seals`, prints the report (or `--json`'s document); the exit code."""
    from alpha_results_seal.check import check_seal, is_folder
    from alpha_results_seal.seal_limits import SealLimits

    try:
        limits = SealLimits.from_env()
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    missing = [path for path in args.seals if not is_folder(path)]
    if missing:
        for path in missing:
            print(f"{prog}: {path} is not a folder (a seal is a folder)", file=sys.stderr)
        return 2
    reports = [check_seal(path, limits) for path in args.seals]
    refused = sum(not report.ok for report in reports)
    if args.json:
        document = {"ok": not refused, "seals": [report.as_dict() for report in reports]}
        print(json.dumps(document, indent=2, allow_nan=False))
    else:
        for report in reports:
            print("\n".join(report.lines()))
        count = f"{len(reports)} seal{'' if len(reports) == 1 else 's'}"
        print(f"{count}: {len(reports) - refused} OK, {refused} refused")
    return 1 if refused else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="alpha-results-seal", description="The seal kit of alpha-results (docs/seal.md)."
    )
    actions = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = actions.add_parser("check", help=CHECK_HELP)
    add_check_arguments(check)
    args = parser.parse_args(argv)
    return run_check(args)


if __name__ == "__main__":
    sys.exit(main())
