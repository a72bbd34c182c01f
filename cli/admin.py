"""The operator CLI: `alpha-results accounts ...` and `alpha-results keys ...`.

Every command opens the key store named by `--keystore` (else the server setting `ALPHA_RESULTS_KEYSTORE_URL`, else
`sqlite:///var/keys.sqlite3`), does one thing, and prints JSON (`keys create` without `--json`
prints the token with a warning that it is shown once). Secrets and their hashes are never printed.
A SQLite key store that does not exist yet is created (with its folder) by the first command;
the server never creates one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from access.access import callable_endpoints, clamp, endpoint_allow
from access.backends import open_store
from access.records import AccountRecord, Grants, KeyRecord, PooledLimit, RateLimit, SubjectLink, iso
from access.store import (
    DEFAULT_KEYSTORE_URL,
    IdentityError,
    KeyStoreUnavailable,
    SqlKeyStore,
)
from access.tokens import ENVIRONMENTS, display_prefix
from cli.access import KeyAccess, clamp_warning
from cli.main import console_script
from core.context import AllowList
from core.settings import Settings

# -- argument syntax ----------------------------------------------------------------------


def parse_endpoint_allow(text: str) -> AllowList:
    """`all` or a comma-separated list of registry ids."""
    if text.strip() == "all":
        return AllowList.all()
    try:
        return endpoint_allow(i.strip() for i in text.split(",") if i.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_alpha_allow(text: str) -> AllowList:
    """`all`, `prefix:Test_,Other_` or `list:alpha_a,alpha_b`."""
    text = text.strip()
    if text == "all":
        return AllowList.all()
    mode, sep, rest = text.partition(":")
    values = [v.strip() for v in rest.split(",") if v.strip()]
    if sep and mode == "prefix":
        return AllowList.of_prefixes(values)
    if sep and mode == "list":
        return AllowList.of_ids(values)
    raise argparse.ArgumentTypeError(f"expected all, prefix:P1,P2 or list:ID1,ID2; got {text!r}")


def parse_on_off(text: str) -> bool:
    if text in ("on", "off"):
        return text == "on"
    raise argparse.ArgumentTypeError("expected on or off")


def parse_expiry(text: str) -> datetime | None:
    """ISO date or timestamp (UTC when no offset is given), or `never`."""
    if text == "never":
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected an ISO timestamp or never; got {text!r}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_monthly(text: str) -> int | None:
    """A positive integer, or `unlimited` (no monthly quota; 0 is refused, it would block the key)."""
    if text == "unlimited":
        return None
    return _positive(text)


def parse_pooled(text: str) -> int | None:
    """A positive integer, or `none` (no pooled cap in that window; `unlimited` says the same)."""
    if text in ("none", "unlimited"):
        return None
    return _positive(text)


def _positive(text: str) -> int:
    """A window limit of 0 would refuse every request: suspend the key instead."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from exc
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
    return value


# -- output ---------------------------------------------------------------------------------


def account_view(account: AccountRecord) -> dict[str, Any]:
    effective = account.effective_ceiling
    return {
        "user_id": account.user_id,
        "email": account.email,
        "role": account.role,
        "is_admin": account.is_admin,
        "status": account.status,
        "ceiling": {**account.ceiling.allow_to_wire(), "expose_raw_book": account.ceiling.expose_raw_book},
        "effective_ceiling": {**effective.allow_to_wire(), "expose_raw_book": effective.expose_raw_book},
        # What every credential of the account may spend together (null: no pooled cap).
        "pooled_rate_limit": None if account.pooled_limit is None else account.pooled_limit.to_wire(),
        "created_at": iso(account.created_at),
    }


def key_view(key: KeyRecord, account: AccountRecord) -> dict[str, Any]:
    """What an operator sees of a key: grants as given and as clamped now; never the secret."""
    effective = clamp(key.grants, account)
    return {
        "key_id": key.key_id,
        "display_prefix": display_prefix(key.env, key.key_id),
        "name": key.name,
        "user_id": key.user_id,
        "email": account.email,
        "env": key.env,
        "status": key.status,
        "revoked_at": iso(key.revoked_at),
        "expires_at": iso(key.expires_at),
        "granted": {**key.grants.allow_to_wire(), "expose_raw_book": key.grants.expose_raw_book},
        "effective": {**effective.allow_to_wire(), "expose_raw_book": effective.expose_raw_book},
        "callable_endpoints": callable_endpoints(effective.endpoints, account.is_admin),
        "rate_limit": key.rate_limit.to_wire(),
        "ip_allow": None if key.ip_allow is None else list(key.ip_allow),
        "created_at": iso(key.created_at),
    }


def link_view(link: SubjectLink) -> dict[str, Any]:
    return {
        "issuer": link.issuer,
        "subject": link.subject,
        "linked_by": link.linked_by,
        "created_at": iso(link.created_at),
    }


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


# -- commands -------------------------------------------------------------------------------


def _account(store: SqlKeyStore, ref: str) -> AccountRecord:
    """An account by user_id or e-mail address."""
    account = store.find_account_by_email(ref) if "@" in ref else store.get_account(ref)
    if account is None:
        create = (
            f"alpha-results accounts create --email {ref}"
            if "@" in ref
            else "alpha-results accounts create --email <e-mail>"
        )
        raise IdentityError(f"no account {ref!r}; create it first: {create}")
    return account


def _key(store: SqlKeyStore, key_id: str) -> tuple[KeyRecord, AccountRecord]:
    key = store.get_key(key_id)
    if key is None:
        raise IdentityError(f"no key {key_id!r}")
    account = store.get_account(key.user_id)
    assert account is not None  # a foreign key guarantees the owner
    return key, account


def _show_key(store: SqlKeyStore, key_id: str) -> None:
    key, account = _key(store, key_id)
    _print_json(key_view(key, account))


def accounts_create(store: SqlKeyStore, args: argparse.Namespace) -> None:
    _print_json(account_view(store.create_account(args.email, role=args.role)))


def accounts_show(store: SqlKeyStore, args: argparse.Namespace) -> None:
    _print_json(account_view(_account(store, args.account)))


def accounts_set_role(store: SqlKeyStore, args: argparse.Namespace) -> None:
    _print_json(account_view(store.set_account_role(_account(store, args.account).user_id, args.role)))


def accounts_set_ceiling(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.account)
    ceiling = _merge_grants(account.ceiling, args)
    _print_json(account_view(store.set_account_ceiling(account.user_id, ceiling)))


def accounts_links(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.account)
    _print_json(
        {
            "user_id": account.user_id,
            "email": account.email,
            "links": [link_view(link) for link in store.links_of_account(account.user_id)],
        }
    )


def accounts_link(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.account)
    if not store.link_subject(args.issuer, args.subject, account.user_id, "operator"):
        other = store.linked_account(args.issuer, args.subject)
        if other is None:
            raise IdentityError(f"account {account.user_id} is deleted; it cannot be linked")
        raise IdentityError(
            f"subject {args.subject!r} at {args.issuer} is linked to account {other}; "
            f"alpha-results accounts unlink {other} --issuer {args.issuer} --subject {args.subject} first"
        )
    accounts_links(store, args)


def accounts_unlink(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.account)
    store.unlink_subject(account.user_id, args.issuer, args.subject)
    accounts_links(store, args)


def accounts_set_limits(store: SqlKeyStore, args: argparse.Namespace) -> None:
    """Set the windows given of the account's pooled envelope; the others stay as they were (none
    on an account without one)."""
    account = _account(store, args.account)
    current = account.pooled_limit or PooledLimit()
    limit = PooledLimit(
        per_second=current.per_second if args.per_second is _UNCHANGED else args.per_second,
        per_minute=current.per_minute if args.per_minute is _UNCHANGED else args.per_minute,
        per_day=current.per_day if args.per_day is _UNCHANGED else args.per_day,
        monthly_requests=current.monthly_requests if args.monthly is _UNCHANGED else args.monthly,
    )
    _print_json(account_view(store.set_account_limits(account.user_id, limit)))


def accounts_clear_limits(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.account)
    _print_json(account_view(store.set_account_limits(account.user_id, None)))


def _status_command(status: str) -> Callable[[SqlKeyStore, argparse.Namespace], None]:
    def run(store: SqlKeyStore, args: argparse.Namespace) -> None:
        _print_json(account_view(store.set_account_status(_account(store, args.account).user_id, status)))

    return run


def keys_create(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.user)
    key, token = store.create_key(account.user_id, args.name, env=args.env)
    if args.json:
        print(json.dumps({"token": token, **key_view(key, account)}, ensure_ascii=False))
        said = f"key_id {key.key_id} for {account.email} (its token is in the JSON above, shown only once)."
    else:
        print(token)
        said = (
            f"key_id {key.key_id} for {account.email}. The token above is shown only once; "
            "store it now (only its hash is kept)."
        )
    # On stderr, so that stdout stays the token (or one JSON object) for a script to read.
    print("\n".join([said, *KeyAccess.of(key, account, console_script()).lines()]), file=sys.stderr)


def keys_list(store: SqlKeyStore, args: argparse.Namespace) -> None:
    account = _account(store, args.user)
    keys = store.list_keys_of_user(account.user_id, include_revoked=args.all)
    _print_json([key_view(k, account) for k in keys])


def keys_show(store: SqlKeyStore, args: argparse.Namespace) -> None:
    _show_key(store, args.key_id)


def keys_suspend(store: SqlKeyStore, args: argparse.Namespace) -> None:
    store.set_key_status(args.key_id, "suspended")
    _show_key(store, args.key_id)


def keys_reactivate(store: SqlKeyStore, args: argparse.Namespace) -> None:
    store.set_key_status(args.key_id, "active")
    _show_key(store, args.key_id)


def keys_revoke(store: SqlKeyStore, args: argparse.Namespace) -> None:
    store.revoke_key(args.key_id)
    _show_key(store, args.key_id)


def keys_set_expiry(store: SqlKeyStore, args: argparse.Namespace) -> None:
    store.set_key_expiry(args.key_id, args.expiry)
    _show_key(store, args.key_id)


def keys_grant(store: SqlKeyStore, args: argparse.Namespace) -> None:
    key, account = _key(store, args.key_id)
    _set_grants(store, args.key_id, _merge_grants(key.grants, args), account)


def keys_set_raw_book(store: SqlKeyStore, args: argparse.Namespace) -> None:
    key, account = _key(store, args.key_id)
    _set_grants(store, args.key_id, replace(key.grants, expose_raw_book=args.value), account)


def _set_grants(store: SqlKeyStore, key_id: str, grants: Grants, account: AccountRecord) -> None:
    """Store a key's grants as given, saying on stderr what the account's ceiling takes away."""
    store.set_key_grants(key_id, grants)
    warning = clamp_warning(grants, account)
    if warning is not None:
        print(warning, file=sys.stderr)
    _show_key(store, key_id)


def keys_set_limits(store: SqlKeyStore, args: argparse.Namespace) -> None:
    key, _ = _key(store, args.key_id)
    current = key.rate_limit
    limits = RateLimit(
        per_second=current.per_second if args.per_second is None else args.per_second,
        per_minute=current.per_minute if args.per_minute is None else args.per_minute,
        per_day=current.per_day if args.per_day is None else args.per_day,
        monthly_requests=current.monthly_requests if args.monthly is _UNCHANGED else args.monthly,
    )
    store.set_key_limits(args.key_id, limits)
    _show_key(store, args.key_id)


def keys_set_ips(store: SqlKeyStore, args: argparse.Namespace) -> None:
    entries = [e.strip() for arg in args.ips for e in arg.split(",") if e.strip()]
    store.set_key_ips(args.key_id, None if entries == ["any"] else entries)
    _show_key(store, args.key_id)


def _merge_grants(current: Grants, args: argparse.Namespace) -> Grants:
    """Replace only the lists given on the command line."""
    merged = replace(
        current,
        endpoints=args.endpoints or current.endpoints,
        alphas=args.alphas or current.alphas,
        runs=args.runs or current.runs,
    )
    raw = getattr(args, "raw_book", None)
    return merged if raw is None else replace(merged, expose_raw_book=raw)


_UNCHANGED: Any = object()


# -- parser ---------------------------------------------------------------------------------


def _keystore_option() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--keystore",
        metavar="URL",
        default=argparse.SUPPRESS,
        help=f"key store URL (default: $ALPHA_RESULTS_KEYSTORE_URL, else {DEFAULT_KEYSTORE_URL})",
    )
    return parent


def _grant_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--endpoints", type=parse_endpoint_allow, help="all, or registry ids: meta.me,meta.keys"
    )
    parser.add_argument("--alphas", type=parse_alpha_allow, help="all, prefix:Test_,Other_ or list:a,b")
    parser.add_argument("--runs", type=parse_alpha_allow, help="all, prefix:Test_,Other_ or list:a,b")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keystore = _keystore_option()

    accounts = subparsers.add_parser("accounts", parents=[keystore])
    acc = accounts.add_subparsers(dest="accounts_command", required=True, metavar="ACTION")

    def add(group: Any, name: str, handler: Callable[..., None], help_text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = group.add_parser(name, parents=[keystore], help=help_text)
        parser.set_defaults(handler=_runner(handler))
        return parser

    p = add(acc, "create", accounts_create, "create an account (self-service ceiling)")
    p.add_argument("--email", required=True)
    p.add_argument("--role", choices=("admin", "member"), default="member")
    p = add(acc, "show", accounts_show, "show an account")
    p.add_argument("account", help="user_id or e-mail")
    p = add(acc, "set-role", accounts_set_role, "set the platform role")
    p.add_argument("account", help="user_id or e-mail")
    p.add_argument("role", choices=("admin", "member"))
    p = add(
        acc, "set-ceiling", accounts_set_ceiling, "set the ceiling every key of the account is clamped to"
    )
    p.add_argument("account", help="user_id or e-mail")
    _grant_options(p)
    p.add_argument("--raw-book", dest="raw_book", type=parse_on_off, help="on or off")
    p = add(
        acc,
        "set-limits",
        accounts_set_limits,
        "the account's pooled envelope: what all its keys, tokens and sessions may spend together",
    )
    p.add_argument("account", help="user_id or e-mail")
    for option, dest in (
        ("--per-second", "per_second"),
        ("--per-minute", "per_minute"),
        ("--per-day", "per_day"),
        ("--monthly", "monthly"),
    ):
        p.add_argument(option, dest=dest, type=parse_pooled, default=_UNCHANGED, help="N or none")
    p = add(acc, "clear-limits", accounts_clear_limits, "remove the account's pooled envelope")
    p.add_argument("account", help="user_id or e-mail")
    for name, status, help_text in (
        ("deactivate", "deactivated", "deactivate (keys fail with account_inactive)"),
        ("activate", "active", "reactivate a deactivated account"),
        ("delete", "deleted", "delete (final; keys fail with account_inactive)"),
    ):
        p = add(acc, name, _status_command(status), help_text)
        p.add_argument("account", help="user_id or e-mail")

    p = add(acc, "links", accounts_links, "the provider subjects (issuer, sub) that sign in as the account")
    p.add_argument("account", help="user_id or e-mail")
    for name, handler, help_text in (
        ("link", accounts_link, "link a provider's subject to the account (it then signs in as it)"),
        ("unlink", accounts_unlink, "remove a link (its next sign-in links by verified e-mail again)"),
    ):
        p = add(acc, name, handler, help_text)
        p.add_argument("account", help="user_id or e-mail")
        p.add_argument("--issuer", required=True, help="the provider's issuer URL, as its tokens' iss")
        p.add_argument("--subject", required=True, help="the person's sub at that provider")

    keys = subparsers.add_parser("keys", parents=[keystore])
    ks = keys.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    p = add(ks, "create", keys_create, "create a key and print its token once")
    p.add_argument("--user", required=True, help="user_id or e-mail of the owner")
    p.add_argument("--name", required=True)
    p.add_argument("--env", choices=ENVIRONMENTS, default="live")
    p.add_argument("--json", action="store_true", help="print one JSON object with token and key_id")
    p = add(ks, "list", keys_list, "list the keys of an account, newest first")
    p.add_argument("--user", required=True, help="user_id or e-mail")
    p.add_argument("--all", action="store_true", help="include revoked keys")
    for name, handler, help_text in (
        ("show", keys_show, "show a key"),
        ("suspend", keys_suspend, "suspend (fails with key_suspended until reactivated)"),
        ("reactivate", keys_reactivate, "reactivate a suspended key"),
        ("revoke", keys_revoke, "revoke (final)"),
    ):
        p = add(ks, name, handler, help_text)
        p.add_argument("key_id")
    p = add(ks, "set-expiry", keys_set_expiry, "set expires_at (ISO timestamp, UTC if no offset) or never")
    p.add_argument("key_id")
    p.add_argument("expiry", type=parse_expiry)
    p = add(ks, "grant", keys_grant, "replace the endpoint, alpha or run allow-list of a key")
    p.add_argument("key_id")
    _grant_options(p)
    p = add(ks, "set-raw-book", keys_set_raw_book, "field_policy.expose_raw_book on or off")
    p.add_argument("key_id")
    p.add_argument("value", type=parse_on_off)
    p = add(ks, "set-limits", keys_set_limits, "rate limits and monthly quota")
    p.add_argument("key_id")
    p.add_argument("--per-second", dest="per_second", type=_positive)
    p.add_argument("--per-minute", dest="per_minute", type=_positive)
    p.add_argument("--per-day", dest="per_day", type=_positive)
    p.add_argument("--monthly", type=parse_monthly, default=_UNCHANGED, help="N or unlimited")
    p = add(ks, "set-ips", keys_set_ips, "IP allow-list: addresses or CIDR blocks, or any")
    p.add_argument("key_id")
    p.add_argument("ips", nargs="+", help="e.g. 10.0.0.0/8 192.0.2.7, or any")


def _runner(
    command: Callable[[SqlKeyStore, argparse.Namespace], None],
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        # The same setting the server reads, so the CLI and the server always open the same store.
        url = getattr(args, "keystore", None) or Settings.from_env().keystore_url
        try:
            store = open_store(url)
        except KeyStoreUnavailable as exc:
            cause = f": {exc.__cause__}" if exc.__cause__ is not None else ""
            print(f"error: the key store cannot be opened{cause}", file=sys.stderr)
            return 1
        try:
            command(store, args)
        except IdentityError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        finally:
            store.close()
        return 0

    return run
