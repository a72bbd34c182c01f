"""`alpha-results promote ALPHA`, `alpha-results retire ALPHA`, `alpha-results promotions ALPHA`
and `alpha-results events purge`: the operator's decisions about an alpha, kept as an append-only history in the database the key
store uses (`--keystore`, else `ALPHA_RESULTS_KEYSTORE_URL`, else `sqlite:///var/keys.sqlite3`).

A decision records the date it takes effect (`--as-of`, default the alpha's last session), who
decided (`--by`), why (`--note`), and a snapshot of what was seen: the alpha's served build and its
checks over its history up to that date against the operator's policy (`--policy`, else
`ALPHA_RESULTS_CHECKS_POLICY_FILE`, else the built-in defaults). Before anything is written it says
on stderr the verdict, each failed check, and what the decision changes for the other alphas (the
approved set their reference set is drawn from, and each check of the live book that flips);
`--dry-run` stops there. An approval whose checks fail is refused unless `--override "reason"`,
recorded with it. It prints the record as JSON on stdout. Each writes its event (`alpha.approved`,
`alpha.retired`) with it, in one transaction.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from typing import Any

from core.settings import Settings


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a date YYYY-MM-DD; got {text!r}") from None


def register(subparsers: Any) -> None:
    for name, action, help_text in (
        ("promote", "approved", "approve an alpha into the live book, with what its checks said"),
        ("retire", "retired", "retire an approved alpha from the live book"),
    ):
        parser = subparsers.add_parser(name, help=help_text, description=__doc__)
        parser.add_argument("alpha", help="the alpha's id, as the lake publishes it")
        parser.add_argument("--by", required=True, help="who decided (a name or an e-mail)")
        parser.add_argument("--note", required=True, help="why, in a sentence")
        parser.add_argument(
            "--as-of",
            type=_date,
            default=None,
            help="the date the decision takes effect (default: the alpha's last session, its data's last day)",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="say the verdict and what the decision would change for the other alphas; record nothing",
        )
        if action == "approved":
            parser.add_argument(
                "--override",
                metavar="REASON",
                default=None,
                help="approve an alpha whose checks fail, saying why (recorded in the snapshot and the event)",
            )
        _common(parser)
        parser.set_defaults(handler=_decide, action=action)
    history = subparsers.add_parser("promotions", help="the decisions about an alpha, oldest first")
    history.add_argument("alpha")
    _common(history)
    history.set_defaults(handler=_history)
    events = subparsers.add_parser("events", help="the event log (docs/events.md)")
    events_sub = events.add_subparsers(dest="events_command", required=True, metavar="ACTION")
    purge = events_sub.add_parser(
        "purge", help="delete the events older than the retention (each build run also does)"
    )
    purge.add_argument(
        "--days",
        type=int,
        default=None,
        help="the retention in days (default: $ALPHA_RESULTS_EVENTS_RETENTION_DAYS, 90)",
    )
    purge.add_argument("--keystore", metavar="URL", default=None, help="the database (default: the server's)")
    purge.set_defaults(handler=_purge)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    parser.add_argument(
        "--keystore", metavar="URL", default=None, help="the database (default: the server's)"
    )
    parser.add_argument(
        "--policy", metavar="FILE", default=None, help="checks policy file (default: the server's)"
    )


def _decide(args: argparse.Namespace) -> int:
    from alpha_results_seal.printable import print_lines
    from pipeline.promotions import Decision, DecisionRefused, as_json, decide, preview

    settings = Settings.from_env()
    override = getattr(args, "override", None)
    if override is not None and not override.strip():
        print("error: --override needs a reason", file=sys.stderr)
        return 2
    decision = Decision(args.alpha, args.action, args.as_of, args.by, args.note, override)
    policy = settings.checks_policy_file if args.policy is None else args.policy
    where = (args.lake or settings.lake, args.keystore or settings.keystore_url, policy)
    try:
        # The verdict and the decision's effects first, before anything is written.
        found = preview(*where, decision)
        print_lines(found.lines(), sys.stderr)
        if args.dry_run:
            refused = found.refusal()
            print_lines([f"dry run: nothing recorded{'; ' + refused if refused else ''}"], sys.stderr)
            return 0
        promotion, _ = decide(*where, decision)
    except DecisionRefused as exc:
        print_lines([f"error: {exc}"], sys.stderr)
        return 1
    print(json.dumps(as_json(promotion), indent=2))
    return 0


def _history(args: argparse.Namespace) -> int:
    from pipeline.promotions import DecisionRefused, as_json, history

    settings = Settings.from_env()
    try:
        found = history(args.keystore or settings.keystore_url, args.alpha)
    except DecisionRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps([as_json(p) for p in found], indent=2))
    return 0


def _purge(args: argparse.Namespace) -> int:
    from pipeline.events import RecordsUnavailable, purge

    settings = Settings.from_env()
    days = settings.events_retention_days if args.days is None else args.days
    if days < 1:
        print("error: --days must be at least 1", file=sys.stderr)
        return 2
    try:
        gone = purge(args.keystore or settings.keystore_url, days)
    except RecordsUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{gone} events older than {days} days deleted")
    return 0
