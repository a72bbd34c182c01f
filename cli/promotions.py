"""`alpha-results promote ALPHA`, `alpha-results retire ALPHA`, `alpha-results promotions ALPHA`
and `alpha-results events purge`: the operator's decisions about an alpha, kept as an append-only history in the database the key
store uses (`--keystore`, else `ALPHA_RESULTS_KEYSTORE_URL`, else `sqlite:///var/keys.sqlite3`).

A decision is dated when it is recorded (today, by the records' clock); an earlier `--as-of` is
accepted only for an import of a decision taken elsewhere (`--import "where"`), whose live part
still starts when it is recorded, and a later one never. It records who decided (`--by`), why
(`--note`), and a snapshot of what was seen: the alpha's served build and its checks against the
operator's policy (`--policy`, else `ALPHA_RESULTS_CHECKS_POLICY_FILE`, else the built-in defaults),
what it read and the request that answers the same checks again. Before anything is written it says
on stderr the verdict, each failed check, and what the decision changes for the other alphas (the
approved set their reference set is drawn from, each check of the live book that moves, and every
other alpha whose check flips, each of which gets an `alpha.checks_changed` event); `--dry-run`
stops there (and needs neither `--by` nor `--note`). An approval whose checks fail is refused unless `--override "reason"`,
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
        parser.add_argument(
            "--by", default=None, help="who decided (a name or an e-mail); not with --dry-run"
        )
        parser.add_argument("--note", default=None, help="why, in a sentence; not with --dry-run")
        parser.add_argument(
            "--as-of",
            type=_date,
            default=None,
            help="the day it takes effect: today (the default: a decision is dated when it is recorded), or an "
            "earlier day with --import",
        )
        parser.add_argument(
            "--import",
            dest="imported_from",
            metavar="WHERE",
            default=None,
            help="record a decision taken elsewhere on --as-of, saying where (its live part still starts now)",
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
    review = subparsers.add_parser(
        "review",
        help="the review queue: the nominated alphas, each with its verdict and failed checks",
        description="The alphas standing nominated (their seal asked for review, or an operator nominated "
        "them), oldest nomination first, each with its build and the verdict of its checks; --nominate puts an "
        "alpha in the queue, --apply-policy approves every nominated alpha whose checks pass when the written "
        "policy says so ([approval] approve = every_check_passes).",
    )
    review.add_argument("--nominate", metavar="ALPHA", default=None, help="put this alpha in the queue")
    review.add_argument("--by", default=None, help="who nominates (with --nominate)")
    review.add_argument("--note", default=None, help="why (with --nominate)")
    review.add_argument(
        "--apply-policy", action="store_true", help="approve by the written policy (decided_by policy)"
    )
    review.add_argument("--json", action="store_true", help="the queue as JSON")
    _common(review)
    review.set_defaults(handler=_review)
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
    digest = events_sub.add_parser(
        "digest",
        help="record this week's alpha.health of every approved alpha (run it weekly: a webhook carries it)",
        description="Records alpha.health for each approved alpha in force not digested yet in this ISO week of "
        "our clock: its row of /v1/analytics/approved_health (docs/events.md, 'The weekly digest'). Run again in "
        "the same week, it records nothing.",
    )
    _common(digest)
    digest.set_defaults(handler=_digest)


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
    from pipeline.operator_decisions import DecisionRefused, DecisionRequest, as_json, decide, preview

    settings = Settings.from_env()
    override = getattr(args, "override", None)
    if override is not None and not override.strip():
        print("error: --override needs a reason", file=sys.stderr)
        return 2
    if not args.dry_run and (args.by is None or args.note is None):
        print("error: say who decided and why: --by and --note (a --dry-run needs neither)", file=sys.stderr)
        return 2
    decision = DecisionRequest(
        args.alpha,
        args.action,
        args.by or "(dry run)",
        args.note or "",
        override,
        as_of=args.as_of,
        imported_from=args.imported_from,
    )
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


def _review(args: argparse.Namespace) -> int:
    from alpha_results_seal.printable import print_lines
    from pipeline.operator_decisions import DecisionRefused, apply_policy, nominate, queue

    settings = Settings.from_env()
    policy = settings.checks_policy_file if args.policy is None else args.policy
    lake, url = args.lake or settings.lake, args.keystore or settings.keystore_url
    try:
        if args.nominate is not None:
            if not args.by or not args.note:
                print("error: --nominate needs --by and --note", file=sys.stderr)
                return 2
            nominate(lake, url, args.nominate, args.by, args.note)
        if args.apply_policy:
            for line in apply_policy(lake, url, policy):
                print_lines([line], sys.stderr)
        found = queue(lake, url, policy)
    except DecisionRefused as exc:
        print_lines([f"error: {exc}"], sys.stderr)
        return 1
    if args.json:
        print(json.dumps([entry.as_json() for entry in found], indent=2))
        return 0
    if not found:
        print("the review queue is empty")
    for entry in found:
        print_lines(entry.lines())
    return 0


def _history(args: argparse.Namespace) -> int:
    from pipeline.operator_decisions import DecisionRefused, as_json, history

    settings = Settings.from_env()
    try:
        found = history(args.keystore or settings.keystore_url, args.alpha)
    except DecisionRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps([as_json(p) for p in found], indent=2))
    return 0


def _purge(args: argparse.Namespace) -> int:
    from pipeline.build_events import RecordsUnavailable, purge

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


def _digest(args: argparse.Namespace) -> int:
    from pipeline.build_events import RecordsUnavailable, digest

    settings = Settings.from_env()
    policy_file = settings.checks_policy_file if args.policy is None else args.policy
    try:
        events = digest(args.lake or settings.lake, args.keystore or settings.keystore_url, policy_file)
    except (RecordsUnavailable, ValueError) as exc:  # PolicyError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for event in events:
        print(f"event      alpha.health  {event.alpha_id}  {event.data['week']}")
    if not events:
        print("every approved alpha is digested this week (or none stands approved)")
    return 0
