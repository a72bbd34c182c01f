"""`alpha-results-seal check SEAL... [--json]`: every rule over each seal, without a lake.

The one implementation of the check command: `alpha-results seal check` (the server's command
line, cli/seal.py) registers the same arguments and runs the same `run_check`. What `alpha-results
build` would refuse, all of it in one run (`alpha_results_seal.check`, the code the publish path
runs), with nothing written. Exit 0 when every seal holds, 1 when any is refused, 2 for a usage
error or a seal that could not be read (docs/seal.md, "Checking a seal"). Every line of the report
and of its errors is printed by `alpha_results_seal.printable.print_lines`, its control characters
escaped: a seal's text cannot rewrite or add a line.
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
    check.add_argument(
        "--lake",
        default=None,
        metavar="ROOT",
        help="also check the family rules (family.owner, family.members) against this lake's trial "
        "families, as a publish into it would (a folder or s3:// prefix; read only)",
    )
    check.add_argument(
        "--team",
        default=None,
        metavar="TEAM",
        help="the team the seals would be published for (alpha-results build --team; default: none, and a "
        "seal naming a family is then refused by family.owner)",
    )


def storage_errors() -> tuple[type[BaseException], ...]:
    """What reading a seal raises when its store cannot be reached: an OSError (a folder, or s3fs's
    translation of an S3 error), or botocore's own (no credentials, an endpoint that does not
    answer) when the `[s3]` extra is installed."""
    errors: list[type[BaseException]] = [OSError]
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:  # the kit without `[s3]`: no object store to reach
        pass
    else:
        errors += [BotoCoreError, ClientError]
    return tuple(errors)


def _cause(error: BaseException) -> str:
    """One line: the error's class and its first line (botocore's message names the bucket, the
    operation or the missing credentials; never a secret)."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


CHECK_HELP = "check seal folders against every rule the build applies, without a lake (nothing is written)"


def run_check(args: argparse.Namespace, prog: str = "alpha-results-seal check") -> int:
    """Checks `args.seals`, prints the report (or `--json`'s document); the exit code."""
    from alpha_results_seal.check import SealReport, check_seal, is_folder
    from alpha_results_seal.printable import print_lines
    from alpha_results_seal.seal_limits import SealLimits

    try:
        limits = SealLimits.from_env()
    except ValueError as exc:
        print_lines([f"{prog}: {exc}"], sys.stderr)
        return 2
    from alpha_results_seal.families import lake_families, team_checked

    try:
        # No --team: checked as a build that declares none (its family seals are refused).
        team = None if args.team is None else team_checked(args.team)
    except ValueError as exc:
        print_lines([f"{prog}: --team: {exc}"], sys.stderr)
        return 2
    families = None if args.lake is None else lake_families(args.lake)
    unreachable = storage_errors()
    usage: list[str] = []
    for path in args.seals:
        try:
            if not is_folder(path):
                usage.append(f"{prog}: {path} is not a folder (a seal is a folder)")
        except unreachable as error:
            usage.append(f"{prog}: {path} could not be read: {_cause(error)}")
    if usage:
        print_lines(usage, sys.stderr)
        return 2
    reports: list[SealReport] = []
    for path in args.seals:
        try:
            reports.append(check_seal(path, limits, families, team))
        except unreachable as error:  # the store failed mid-check: no verdict, not a refusal
            print_lines([f"{prog}: {path} could not be read: {_cause(error)}"], sys.stderr)
            return 2
    refused = sum(not report.ok for report in reports)
    if args.json:
        document = {"ok": not refused, "seals": [report.as_dict() for report in reports]}
        print(json.dumps(document, indent=2, allow_nan=False))
    else:
        for report in reports:
            print_lines(report.lines())
        count = f"{len(reports)} seal{'' if len(reports) == 1 else 's'}"
        print_lines([f"{count}: {len(reports) - refused} OK, {refused} refused"])
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
