"""`alpha-results seal check SEAL... [--json]`: every rule over each seal, without a lake.

The seal kit's own command (`alpha-results-seal check`, alpha_results_seal/cli.py) under the
server's command line: the same arguments, report and exit codes, one implementation
(docs/seal.md, "Checking a seal").
"""

from __future__ import annotations

import argparse
from typing import Any

from alpha_results_seal.cli import CHECK_HELP, add_check_arguments
from alpha_results_seal.cli import run_check as run_kit_check


def register(subparsers: Any) -> None:
    seal = subparsers.add_parser("seal")
    actions = seal.add_subparsers(dest="seal_command", required=True, metavar="ACTION")
    check = actions.add_parser("check", help=CHECK_HELP)
    add_check_arguments(check)
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    return run_kit_check(args, "alpha-results seal check")
