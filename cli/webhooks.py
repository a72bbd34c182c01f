"""`alpha-results webhooks ...` (the operator's webhooks) and `alpha-results deliver` (the delivery
worker), over the database the key store uses (`--keystore`, else `ALPHA_RESULTS_KEYSTORE_URL`,
else `sqlite:///var/keys.sqlite3`). docs/events.md, "Webhooks".

    webhooks add KEY_ID URL [--type T ...] [--alpha A ...] [--note TEXT] [--by NAME] [--ed25519]
    webhooks list [--key KEY_ID] [--all]
    webhooks attempts WEBHOOK_ID [--limit N]
    webhooks rotate-secret WEBHOOK_ID [--keep-old-for DURATION] [--ed25519]
    webhooks disable|enable|remove WEBHOOK_ID
    webhooks replay WEBHOOK_ID --from CURSOR [--to CURSOR] [--by NAME]
    deliver [--once] [--timeout S] [--retry-first S] [--retry-max S] [--retry-window S]
            [--retry-jitter SHARE] [--throttle S] ...

`add` prints the webhook as JSON with its signing secret, the only time the secret is shown;
`rotate-secret` prints the new one, the only time it is shown, the old one signing too meanwhile.
A refusal (an unknown key or webhook, a URL the rules refuse, an unknown event type) exits 1 with
the reason on stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.settings import Settings

if TYPE_CHECKING:
    from delivery.webhooks import Registry, Webhook


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds; got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"a number of seconds > 0; got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number >= 1; got {text!r}")
    return value


_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(text: str) -> dt.timedelta:
    matched = _DURATION.fullmatch(text.strip())
    if matched is None:
        raise argparse.ArgumentTypeError(f"a duration such as 0, 90m, 24h or 7d; got {text!r}")
    return dt.timedelta(seconds=float(matched[1]) * _UNIT_SECONDS[matched[2]])


def _operator() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "operator"


def _keystore(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--keystore", metavar="URL", default=None, help="the database (default: the server's)"
    )


def register(subparsers: Any) -> None:
    webhooks = subparsers.add_parser("webhooks", help="the webhooks of keys", description=__doc__)
    actions = webhooks.add_subparsers(dest="webhooks_command", required=True, metavar="ACTION")

    add = actions.add_parser("add", help="register a webhook for a key and print its secret once")
    add.add_argument("key_id", help="the key whose events it receives")
    add.add_argument("url", help="where they are POSTed (https://, a public address)")
    add.add_argument(
        "--type",
        dest="types",
        action="append",
        default=[],
        metavar="TYPE",
        help="only this event type (repeat)",
    )
    add.add_argument(
        "--alpha",
        dest="alphas",
        action="append",
        default=[],
        metavar="ALPHA",
        help="only this alpha (repeat)",
    )
    add.add_argument("--note", default="", help="what it is for")
    add.add_argument("--by", default=None, help="who registers it (default: the OS user)")
    add.add_argument(
        "--ed25519",
        action="store_true",
        help="sign with an Ed25519 key too (a v1a signature; its public key is printed)",
    )
    _keystore(add)
    add.set_defaults(handler=_add)

    listed = actions.add_parser("list", help="the webhooks (of one key) and how far each has delivered")
    listed.add_argument("--key", default=None, metavar="KEY_ID", help="only this key's")
    listed.add_argument("--all", action="store_true", help="include removed webhooks")
    _keystore(listed)
    listed.set_defaults(handler=_list)

    attempts = actions.add_parser("attempts", help="a webhook's last delivery attempts, oldest first")
    attempts.add_argument("webhook_id")
    attempts.add_argument("--limit", type=_count, default=50, help="how many (default 50)")
    _keystore(attempts)
    attempts.set_defaults(handler=_attempts)

    rotate = actions.add_parser(
        "rotate-secret",
        help="replace a webhook's secret (or Ed25519 key) and print the new one once",
    )
    rotate.add_argument("webhook_id")
    rotate.add_argument(
        "--keep-old-for",
        type=_duration,
        default=dt.timedelta(hours=24),
        metavar="DURATION",
        help="the old one signs too for this long (24h; at most 7d; 0 when it leaked)",
    )
    rotate.add_argument(
        "--ed25519", action="store_true", help="replace the Ed25519 key (made if none) instead"
    )
    _keystore(rotate)
    rotate.set_defaults(handler=_rotate)

    for name, state, help_text in (
        ("disable", "disabled", "stop delivering to a webhook (its progress is kept)"),
        ("enable", "active", "deliver again, from the event its delivery stopped at"),
        ("remove", "removed", "remove a webhook for good (its secret is erased; its attempts kept)"),
    ):
        parser = actions.add_parser(name, help=help_text)
        parser.add_argument("webhook_id")
        if name == "enable":
            parser.add_argument(
                "--from-now", action="store_true", help="skip the events it missed: resume at the newest"
            )
        _keystore(parser)
        parser.set_defaults(handler=_change, state=state)

    replayed = actions.add_parser(
        "replay",
        help="deliver a range of a webhook's events again, in order, then resume where it was",
    )
    replayed.add_argument("webhook_id")
    replayed.add_argument(
        "--from", dest="first", required=True, metavar="CURSOR", help="the first event's id"
    )
    replayed.add_argument(
        "--to", dest="last", default=None, metavar="CURSOR", help="the last event's id (default: the newest)"
    )
    replayed.add_argument("--by", default=None, help="who asks (default: the OS user)")
    _keystore(replayed)
    replayed.set_defaults(handler=_replay)

    deliver = subparsers.add_parser(
        "deliver", help="the delivery worker: push events to webhooks", description=__doc__
    )
    deliver.add_argument("--once", action="store_true", help="deliver what is due now, then exit")
    deliver.add_argument("--timeout", type=_positive, default=10.0, help="seconds a delivery may take (10)")
    deliver.add_argument(
        "--retry-first",
        type=_positive,
        default=None,
        help="first retry after S seconds, doubling to --retry-max (default: the Standard Webhooks "
        "schedule, 5 s, 5 min, 30 min, 2, 5, 10, 14, 20 and 24 h)",
    )
    deliver.add_argument(
        "--retry-max",
        type=_positive,
        default=None,
        help="longest wait between retries (with --retry-first; 86400 s)",
    )
    deliver.add_argument(
        "--retry-window",
        type=_positive,
        default=None,
        help="failing this long disables a webhook (default: the schedule's span, 272405 s, about 3 days)",
    )
    deliver.add_argument(
        "--retry-jitter",
        type=float,
        default=0.2,
        help="each wait drawn within this share either side of its step (0.2)",
    )
    deliver.add_argument(
        "--throttle",
        type=_positive,
        default=1.0,
        help="after a 429, 502 or 504, at most one delivery per S seconds to that webhook, doubling (1)",
    )
    deliver.add_argument(
        "--poll", type=_positive, default=1.0, help="seconds between looks for new events (1)"
    )
    deliver.add_argument(
        "--lease", type=_positive, default=30.0, help="seconds the worker's lease lasts (30)"
    )
    deliver.add_argument("--concurrency", type=_count, default=8, help="webhooks delivered to at once (8)")
    deliver.add_argument(
        "--settle", type=_positive, default=10.0, help="seconds a missing event id is waited for (10)"
    )
    deliver.add_argument("--worker-id", default=None, help="this worker's name (default: host:pid:random)")
    _keystore(deliver)
    deliver.set_defaults(handler=_deliver)


def _answer(args: argparse.Namespace, work: Callable[[Registry], Any]) -> int:
    """Open the registry (`--keystore`, else the server's), print `work(registry)` as JSON and
    close it; a refusal (`WebhookRefused`: the database, an unknown key or webhook, a URL) is one
    line on stderr and exit 1."""
    from delivery.webhooks import WebhookRefused, open_registry

    try:
        registry = open_registry(args.keystore or Settings.from_env().keystore_url)
    except WebhookRefused as exc:
        return _refused(exc)
    try:
        shown = work(registry)
    except WebhookRefused as exc:
        return _refused(exc)
    finally:
        registry.close()
    print(json.dumps(shown, indent=2))
    return 0


def _refused(exc: Exception) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 1


def _add(args: argparse.Namespace) -> int:
    from delivery.webhooks import register

    settings = Settings.from_env()
    warnings: list[str] = []

    def add(registry: Registry) -> Any:
        registered = register(
            registry,
            args.key_id,
            args.url,
            types=args.types,
            alphas=args.alphas,
            note=args.note,
            created_by=_operator() if args.by is None else args.by,
            allow_private=settings.webhook_allow_private,
            ed25519=args.ed25519,
        )
        warnings.extend(registered.warnings)
        return _shown(registry, registered.webhook, with_secret=True)

    status = _answer(args, add)
    if status == 0:
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print(
            "The secret is shown this once: give it to the receiver, which verifies each delivery with it.",
            file=sys.stderr,
        )
    return status


def _shown(registry: Registry, webhook: Webhook, with_secret: bool = False) -> dict[str, Any]:
    """A webhook as printed, with the keys its deliveries are signed with now."""
    from delivery.webhooks import as_json

    keys = registry.records.webhooks.signing_keys(webhook.id, dt.datetime.now(dt.UTC))
    return as_json(webhook, registry.records.cursors, keys, with_secret=with_secret)


def _list(args: argparse.Namespace) -> int:
    return _answer(
        args,
        lambda registry: [
            _shown(registry, w) for w in registry.records.webhooks.listed(args.key, include_removed=args.all)
        ],
    )


def _rotate(args: argparse.Namespace) -> int:
    from delivery.webhooks import rotate

    def rotated(registry: Registry) -> Any:
        webhook = rotate(registry, args.webhook_id, args.keep_old_for, ed25519=args.ed25519)
        return _shown(registry, webhook, with_secret=not args.ed25519)

    status = _answer(args, rotated)
    if status == 0:
        new = (
            "The new public key is in signing_keys (v1a, retires_at null)"
            if args.ed25519
            else "The new secret is shown this once"
        )
        old = "signs each delivery too until its retires_at" if args.keep_old_for else "no longer signs"
        print(f"{new}: give it to the receiver. The old one {old}.", file=sys.stderr)
    return status


def _attempts(args: argparse.Namespace) -> int:
    from delivery.webhooks import attempt_json, found

    def attempts(registry: Registry) -> Any:
        if registry.records.webhooks.get(args.webhook_id) is None:  # a removed one keeps its attempts
            found(registry, args.webhook_id)  # refused, naming the webhook
        return [
            attempt_json(a, registry.records.cursors)
            for a in registry.records.webhooks.attempts(args.webhook_id, args.limit)
        ]

    return _answer(args, attempts)


def _change(args: argparse.Namespace) -> int:
    from delivery.webhooks import change_state

    def change(registry: Registry) -> Any:
        changed = change_state(
            registry, args.webhook_id, args.state, from_now=getattr(args, "from_now", False)
        )
        return _shown(registry, changed)

    return _answer(args, change)


def _replay(args: argparse.Namespace) -> int:
    from delivery.webhooks import replay

    def replayed(registry: Registry) -> Any:
        by = _operator() if args.by is None else args.by
        return _shown(registry, replay(registry, args.webhook_id, args.first, args.last, by))

    return _answer(args, replayed)


def _deliver(args: argparse.Namespace) -> int:
    from delivery.deliveries import Options, Schedule, run_worker

    settings = Settings.from_env()
    standard = Schedule()
    window = standard.window if args.retry_window is None else args.retry_window
    jitter = min(max(args.retry_jitter, 0.0), 0.9)
    if args.retry_first is None and args.retry_max is None:
        schedule = Schedule(standard.delays, window, jitter)
    else:
        schedule = Schedule.doubling(args.retry_first or 5.0, args.retry_max or 86400.0, window, jitter)
    options = Options(
        schedule=schedule,
        throttle_first=args.throttle,
        timeout=args.timeout,
        poll=args.poll,
        lease_seconds=args.lease,
        concurrency=args.concurrency,
        settle=args.settle,
        allow_private=settings.webhook_allow_private,
        retention_days=settings.events_retention_days,
        **({} if args.worker_id is None else {"worker_id": args.worker_id}),
    )
    return run_worker(args.keystore or settings.keystore_url, options, once=args.once)
