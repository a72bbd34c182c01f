"""`alpha-results seal check SEAL... [--json]`: every rule over each seal, without a lake.

What `alpha-results build` would refuse, all of it in one run (`pipeline.seal_check`, the code
the publish path runs), with nothing written: a team checks its seals before delivering them.
Exit 0 when every seal holds, 1 when any is refused, 2 for a usage error (docs/seal.md,
"Checking a seal").
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: Any) -> None:
    seal = subparsers.add_parser("seal")
    actions = seal.add_subparsers(dest="seal_command", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="check seal folders against every rule the build applies, without a lake (nothing is written)",
    )
    check.add_argument("seals", nargs="+", metavar="SEAL", help="seal folders (or s3:// prefixes)")
    check.add_argument(
        "--json",
        action="store_true",
        help='print one JSON document (docs/seal.md, "Checking a seal") instead of the readable report',
    )
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    from pipeline.seal_check import check_seal, is_folder
    from pipeline.seal_limits import SealLimits

    try:
        limits = SealLimits.from_env()
    except ValueError as exc:
        print(f"alpha-results seal check: {exc}", file=sys.stderr)
        return 2
    missing = [path for path in args.seals if not is_folder(path)]
    if missing:
        for path in missing:
            print(f"alpha-results seal check: {path} is not a folder (a seal is a folder)", file=sys.stderr)
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
