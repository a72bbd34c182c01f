"""Webhooks as the operator registers them, and what a delivery is made of (docs/events.md,
"Webhooks").

- **Where to.** `check_url`: https only and public addresses only, checked on the URL and on every
  address its host resolves to (at registration, and again at each delivery, after resolution:
  a name that later resolves to a private address is refused then, DNS rebinding; an IPv6 address
  judged by the IPv4 address it carries, 6to4, NAT64, Teredo and the rest), unless the
  setting `webhook_allow_private` allows private, loopback and link-local addresses and plain http
  (development and tests). Never credentials in the URL.
- **Who may receive what.** `key_access`: the key must exist, be usable (not revoked, suspended or
  expired, its account active) and may call `events.list`; an event is then delivered only if
  `GET /v1/events` would show it to that key (the same reader, `delivery.event_answers.reader_of`, and the
  same SQL). Checked by the worker when it delivers (`delivery.deliveries`), never cached.
- **What is sent.** `event_body` (the Struct of `/v1/events`, `schemas.bodies.events.Event`),
  signed to the Standard Webhooks specification by `signature_headers`: `webhook-id`,
  `webhook-timestamp` and `webhook-signature`, one `v1,` HMAC-SHA256 signature per secret that
  signs now (two while one is rotated) and a `v1a,` Ed25519 signature per private key, if the
  webhook has one; and, deprecated, kept one release, `Alpha-Results-Signature` (Stripe's scheme).
- **The operator's commands** (`alpha-results webhooks ...`): `register`, `rotate`, `listed`,
  `attempts`, `set_state`, each refusing a mistake with `WebhookRefused` (the CLI prints it, exit 1).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
import socket
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from access.access import build_caller
from access.authenticate import standing_refusal
from access.backends import open_store
from access.store import KeyStoreUnavailable, SqlKeyStore
from core.context import Caller
from delivery.event_answers import Viewer, event_answer
from records.cursors import CursorInvalid, Cursors
from records.event_log import Event
from records.sql import Unavailable
from records.store import Records, open_records
from records.times import stored_time
from records.webhooks import Attempt, Scheme, SigningKey, State, Webhook
from schemas.bodies.events import EVENT_TYPES

SECRET_PREFIX = "whsec_"
PRIVATE_KEY_PREFIX = "whsk_"
PUBLIC_KEY_PREFIX = "whpk_"
"""How Standard Webhooks writes an HMAC secret, an Ed25519 private key and its public key: the
prefix, then the key's bytes in base64."""
OVERLAP_MAX = timedelta(days=7)
"""The longest a replaced key may keep signing after a rotation."""
EVENTS_ENDPOINT = "events.list"
"""The registry id a key must be allowed to call for its webhooks to be delivered to."""
URL_MAX_LENGTH = 2048
ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
LEGACY_SIGNATURE_HEADER = "Alpha-Results-Signature"
"""Deprecated: sent beside the standard headers for one release, then removed (docs/events.md)."""
EVENT_ID_HEADER = "Alpha-Results-Event-Id"
EVENT_TYPE_HEADER = "Alpha-Results-Event-Type"
WEBHOOK_ID_HEADER = "Alpha-Results-Webhook-Id"
ATTEMPT_HEADER = "Alpha-Results-Delivery-Attempt"
_URL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")
"""What a URL may be written with (RFC 3986, ASCII): no space, control character or non-ASCII
letter reaches a request line or a header."""

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]
"""Host and port to the addresses it resolves to (`resolve`; tests pass their own)."""


class WebhookRefused(Exception):
    """An operator's request refused (an unknown key, a URL the rules refuse, an unknown event
    type, an unknown webhook): the message says which and why."""


class UrlRefused(WebhookRefused):
    """A destination the URL rules refuse (at registration, or at a delivery after resolution)."""


def new_secret() -> str:
    """An HMAC secret as Standard Webhooks writes one: `whsec_` and the base64 of 32 random bytes
    (44 characters)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


_URL_SAFE_TO_STANDARD = str.maketrans("-_", "+/")


def secret_key(secret: str) -> bytes:
    """The HMAC key a `whsec_` secret stands for: the bytes its base64 encodes. A secret made
    before the standard headers is 32 random bytes in base64's URL-safe alphabet, unpadded: the
    same bytes, read in that alphabet (docs/events.md says how a receiver converts one)."""
    text = secret.removeprefix(SECRET_PREFIX).translate(_URL_SAFE_TO_STANDARD)
    return base64.b64decode(text + "=" * (-len(text) % 4))


def new_private_key() -> str:
    """An Ed25519 private key: `whsk_` and the base64 of its 32 bytes."""
    raw = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return PRIVATE_KEY_PREFIX + base64.b64encode(raw).decode("ascii")


def _ed25519(private_key: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(
        base64.b64decode(private_key.removeprefix(PRIVATE_KEY_PREFIX))
    )


def public_key(private_key: str) -> str:
    """The public key of a `whsk_` private key, as receivers are given it: `whpk_` and base64."""
    raw = _ed25519(private_key).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return PUBLIC_KEY_PREFIX + base64.b64encode(raw).decode("ascii")


def signature_headers(
    keys: Sequence[SigningKey], message_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The headers that sign `body`, sent at `timestamp` (unix seconds) as the message
    `message_id` (the event's cursor: the same at every attempt, no `.` in it), to the Standard
    Webhooks specification: `webhook-signature` holds, space separated, `v1,<base64 HMAC-SHA256>`
    per secret and `v1a,<base64 Ed25519>` per private key, each over `"{id}.{timestamp}." + body`.
    Beside them the deprecated `Alpha-Results-Signature`: `t=<timestamp>` and one
    `v1=<hex HMAC-SHA256 keyed by the secret's UTF-8 text, over "{timestamp}." + body>` per secret."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    standard, legacy = [], [f"t={timestamp}"]
    for key in keys:
        if key.scheme == "v1":
            mac = hmac.new(secret_key(key.secret), signed, hashlib.sha256).digest()
            standard.append("v1," + base64.b64encode(mac).decode("ascii"))
            old = hmac.new(key.secret.encode("utf-8"), f"{timestamp}.".encode() + body, hashlib.sha256)
            legacy.append("v1=" + old.hexdigest())
        else:
            standard.append("v1a," + base64.b64encode(_ed25519(key.secret).sign(signed)).decode("ascii"))
    return {
        ID_HEADER: message_id,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: " ".join(standard),
        LEGACY_SIGNATURE_HEADER: ",".join(legacy),
    }


def event_body(event: Event, cursor: str, viewer: Viewer) -> bytes:
    """The body of a delivery: one event as JSON (UTF-8), the bytes that are signed; the object
    `/v1/events` shows the key (`delivery.event_answers.event_answer`)."""
    return msgspec.json.encode(event_answer(event, cursor, viewer))


# -- where to -------------------------------------------------------------------------------


def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, in the resolver's order, each once."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
"""NAT64's well-known prefix (RFC 6052): the IPv4 host of its last 32 bits, reached through a translator."""
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
"""NAT64's local-use prefix (RFC 8215): the operator's own translator, into the operator's own network."""
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
"""`::a.b.c.d` (RFC 4291, deprecated); `::` and `::1` are not (unspecified and loopback)."""
_IPV4_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
"""`::ffff:0:a.b.c.d` (SIIT, RFC 2765)."""
_ISATAP = 0x00005EFE
"""The high half of an ISATAP interface identifier (RFC 5214), its u bit (0x02000000) aside."""


def _embedded(address: ipaddress.IPv6Address) -> tuple[str, tuple[ipaddress.IPv4Address, ...], bool] | None:
    """The IPv4 addresses an IPv6 address carries: the form's name (with its article), the
    addresses, and whether the IPv6 address is only another spelling of its IPv4 host (mapped,
    NAT64: the connection reaches that host) rather than a tunnel's end behind it (6to4, Teredo,
    ISATAP, ...). None: it carries none."""
    value = int(address)
    last = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address.ipv4_mapped is not None:
        return "an IPv4-mapped", (address.ipv4_mapped,), True
    if address in _NAT64:
        return "a NAT64", (last,), True
    if address.sixtofour is not None:
        return "a 6to4", (address.sixtofour,), False
    if address.teredo is not None:  # (server, client), the client's bits de-obfuscated
        return "a Teredo", address.teredo, False
    if address in _IPV4_COMPATIBLE and value > 1:
        return "an IPv4-compatible", (last,), False
    if address in _IPV4_TRANSLATED:
        return "an IPv4-translated", (last,), False
    if (value >> 32) & 0xFDFFFFFF == _ISATAP:
        return "an ISATAP", (last,), False
    return None


def address_refusal(address: Address) -> str | None:
    """Why a destination may not be this address unless private ones are allowed, as the end of
    "the host ... is" (None: it may). An IPv6 address that carries an IPv4 one is refused when that
    IPv4 address would be, whatever Python's `is_global` says of the IPv6 form (it calls
    2002:7f00:1::1, 6to4 for 127.0.0.1, public); a tunnel's IPv6 address must then pass too."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in _LOCAL_NAT64:  # where it puts the IPv4 address is the operator's choice
            return "a local-use NAT64 address (64:ff9b:1::/48: the deployment's own translator)"
        embedded = _embedded(address)
        if embedded is not None:
            form, carried, same_host = embedded
            for ipv4 in carried:
                why = address_refusal(ipv4)
                if why is not None:
                    return f"{form} address embedding {ipv4}, {why}"
            if same_host:
                return None
    for refused, kind in (
        (address.is_unspecified, "an unspecified"),
        (address.is_loopback, "a loopback"),
        (address.is_link_local, "a link-local"),
        (isinstance(address, ipaddress.IPv6Address) and address.is_site_local, "a site-local"),
        (address.is_multicast, "a multicast"),
        (address.is_private, "a private"),
        (address.is_reserved, "a reserved"),
        (not address.is_global, "a not public"),
    ):
        if refused:
            return f"{kind} address"
    return None


@dataclass(frozen=True)
class Target:
    """A destination the rules admit: where to connect (one of `addresses`, as resolved when it was
    checked) and what to ask for."""

    scheme: str
    host: str
    port: int
    target: str
    """The request target: the URL's path (at least `/`) and query."""
    addresses: tuple[str, ...]


def _addresses(host: str, port: int, resolver: Resolver) -> list[str]:
    """The host's address when it is one, else those it resolves to (`UrlRefused`: none)."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass  # a name
    try:
        addresses = list(resolver(host, port))
    except (OSError, UnicodeError) as exc:
        raise UrlRefused(f"the host {host} does not resolve ({exc})") from None
    if not addresses:
        raise UrlRefused(f"the host {host} does not resolve")
    return addresses


def check_url(url: str, allow_private: bool, resolver: Resolver = resolve) -> Target:
    """The destination `url` names, resolved and checked; `UrlRefused` saying which rule it breaks."""
    if len(url) > URL_MAX_LENGTH:
        raise UrlRefused(f"a webhook URL is at most {URL_MAX_LENGTH} characters; this one has {len(url)}")
    if not url or any(character not in _URL_CHARACTERS for character in url):
        raise UrlRefused(
            "a webhook URL is written in ASCII without spaces or control characters "
            "(percent-encode a path; an international domain name in its xn-- form)"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UrlRefused(f"not a URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and allow_private):
        raise UrlRefused(
            "a webhook URL must start with https:// (http:// only where the setting "
            "webhook_allow_private is true, in development)"
        )
    if "@" in parts.netloc:
        raise UrlRefused("a webhook URL may not carry credentials (user:password@): sign, do not log in")
    if parts.fragment or url.endswith("#"):
        raise UrlRefused("a webhook URL has no #fragment (it is never sent)")
    host = parts.hostname
    if not host:
        raise UrlRefused("a webhook URL names a host (https://host/path)")
    port = port or (443 if scheme == "https" else 80)
    addresses = _addresses(host, port, resolver)
    if not allow_private:
        for text in addresses:
            refused = address_refusal(ipaddress.ip_address(text.split("%", 1)[0]))
            if refused is not None:
                where = "is" if text == host else f"resolves to {text}, which is"
                raise UrlRefused(
                    f"the host {host} {where} {refused}; webhooks go to public addresses "
                    "only (the setting webhook_allow_private lifts this, in development)"
                )
    path = parts.path or "/"
    return Target(scheme, host, port, path + (f"?{parts.query}" if parts.query else ""), tuple(addresses))


# -- who may receive what -------------------------------------------------------------------


def key_access(store: SqlKeyStore, key_id: str, now: datetime) -> Caller | str:
    """What `key_id` may read now, as a request of it would be authorised (its IP allow-list
    aside: it governs where requests come from); or why its webhooks get nothing now."""
    key = store.get_key(key_id)
    if key is None:
        return "the key does not exist"
    account = store.get_account(key.user_id)
    if account is None:
        return "the key's account does not exist"
    refused = standing_refusal(key, account, now)
    if refused is not None:
        return refused.code.replace("_", " ")
    caller = build_caller(key, account, client_ip="")
    if not caller.endpoint_allow.permits(EVENTS_ENDPOINT):
        return f"the key may not call {EVENTS_ENDPOINT}"
    return caller


# -- the operator's commands ----------------------------------------------------------------


@dataclass
class Registry:
    """The records and the key store of one database, as the operator's commands use them."""

    records: Records
    store: SqlKeyStore

    def close(self) -> None:
        self.records.close()
        self.store.close()


def open_registry(url: str) -> Registry:
    """The records and the key store of `url`; `WebhookRefused` when the database cannot be opened."""
    try:
        records = open_records(url)
    except Unavailable as exc:
        raise WebhookRefused(f"the database cannot be opened: {exc}") from None
    try:
        store = open_store(url)
    except KeyStoreUnavailable:
        records.close()
        raise WebhookRefused("the key store cannot be opened") from None
    return Registry(records, store)


@dataclass(frozen=True)
class Registered:
    webhook: Webhook
    warnings: tuple[str, ...]
    """What will keep deliveries from happening now (a suspended key, one that may not call
    events.list): registered all the same, skipped until it is fixed."""


def register(
    registry: Registry,
    key_id: str,
    url: str,
    types: Sequence[str] = (),
    alphas: Sequence[str] = (),
    note: str = "",
    created_by: str = "",
    allow_private: bool = False,
    resolver: Resolver = resolve,
    now: datetime | None = None,
    ed25519: bool = False,
) -> Registered:
    """Register a webhook for `key_id` (its secret on the returned record, shown once), its
    deliveries signed with an Ed25519 key too when `ed25519`."""
    moment = now or datetime.now(UTC)
    unknown = sorted(set(types) - set(EVENT_TYPES))
    if unknown:
        raise WebhookRefused(f"unknown event type(s): {', '.join(unknown)} (known: {', '.join(EVENT_TYPES)})")
    if any(not alpha.strip() for alpha in alphas):
        raise WebhookRefused("an --alpha filter names an alpha id")
    if not created_by.strip():
        raise WebhookRefused("say who registers the webhook (--by)")
    key = registry.store.get_key(key_id)
    if key is None:
        raise WebhookRefused(f"no key {key_id!r} (alpha-results keys list --user USER shows a user's keys)")
    if key.is_revoked:
        raise WebhookRefused(f"the key {key_id} is revoked: its webhooks would never be delivered")
    check_url(url, allow_private, resolver)
    access = key_access(registry.store, key_id, moment)
    warnings = () if isinstance(access, Caller) else (f"nothing is delivered while {access}",)
    webhook = registry.records.webhooks.register(
        key_id, url, new_secret(), tuple(dict.fromkeys(types)), tuple(dict.fromkeys(alphas)),
        note, created_by, moment, new_private_key() if ed25519 else None,
    )  # fmt: skip
    return Registered(webhook, warnings)


def found(registry: Registry, webhook_id: str) -> Webhook:
    webhook = registry.records.webhooks.get(webhook_id)
    if webhook is None or webhook.state == "removed":
        raise WebhookRefused(f"no webhook {webhook_id!r} (alpha-results webhooks list shows them)")
    return webhook


def change_state(registry: Registry, webhook_id: str, state: State, from_now: bool = False) -> Webhook:
    """Disable, enable or remove a webhook (the operator's); enabling resumes at the event its
    delivery stopped at, or at the newest event with `from_now`."""
    webhook = found(registry, webhook_id)
    if webhook.state == state:
        raise WebhookRefused(f"the webhook {webhook_id} is already {state}")
    reason = {"active": "enabled by the operator", "disabled": "disabled by the operator"}.get(
        state, "removed by the operator"
    )
    registry.records.webhooks.set_state(webhook_id, state, reason)
    if from_now:
        registry.records.webhooks.skip_to_now(webhook_id)
    changed = registry.records.webhooks.get(webhook_id)
    assert changed is not None
    return changed


def replay(registry: Registry, webhook_id: str, first: str, last: str | None, by: str) -> Webhook:
    """Deliver the webhook's events from cursor `first` through cursor `last` (default: the newest
    event) again, in order, then resume where its delivery was (the operator's; the Standard
    Webhooks specification: "replay ... failures within a range in order to recover from long
    outages"). Each is sent with its own `webhook-id` (its cursor), so a receiver that kept one
    drops it; the key's access is checked again at each, as at every delivery."""
    found(registry, webhook_id)
    cursors = registry.records.cursors
    try:
        first_id = cursors.read(first)
        last_id = registry.records.events.last_id() if last is None else cursors.read(last)
    except CursorInvalid as exc:
        raise WebhookRefused(f"not an event cursor of this deployment: {exc}") from None
    if last_id < first_id:
        raise WebhookRefused("the range is empty: --to names an event before --from")
    if registry.records.webhooks.replay(webhook_id, first_id, last_id, by, datetime.now(UTC)) is None:
        raise WebhookRefused(f"no webhook {webhook_id!r} (alpha-results webhooks list shows them)")
    changed = registry.records.webhooks.get(webhook_id)
    assert changed is not None
    return changed


def rotate(
    registry: Registry,
    webhook_id: str,
    keep_old_for: timedelta,
    ed25519: bool = False,
    now: datetime | None = None,
) -> Webhook:
    """Replace the webhook's HMAC secret (its new one on the returned record, shown once), or with
    `ed25519` its Ed25519 key (made when it has none). The replaced key keeps signing for
    `keep_old_for` (at most `OVERLAP_MAX`; zero: not at all, a leaked key), so a receiver that
    takes the new one in that time misses no delivery."""
    found(registry, webhook_id)
    if not timedelta(0) <= keep_old_for <= OVERLAP_MAX:
        raise WebhookRefused(f"the old key may keep signing for 0 to {OVERLAP_MAX.days} days")
    moment = now or datetime.now(UTC)
    scheme: Scheme = "v1a" if ed25519 else "v1"
    key = new_private_key() if ed25519 else new_secret()
    if not registry.records.webhooks.rotate(webhook_id, scheme, key, moment + keep_old_for, moment):
        raise WebhookRefused(f"the webhook {webhook_id} was removed meanwhile")
    rotated = registry.records.webhooks.get(webhook_id)
    assert rotated is not None
    return rotated


def as_json(
    webhook: Webhook, cursors: Cursors, keys: Sequence[SigningKey], with_secret: bool = False
) -> dict[str, Any]:
    """A webhook as the command line prints it, with the keys its deliveries are signed with now
    (`keys`, `records.webhooks.Webhooks.signing_keys`: each Ed25519 one's public key): never a
    secret, but the current one once, when it is made."""
    progress = webhook.progress
    shown: dict[str, Any] = {
        "id": webhook.id,
        "key_id": webhook.key_id,
        "url": webhook.url,
        "types": list(webhook.types),
        "alphas": list(webhook.alphas),
        "note": webhook.note,
        "created_by": webhook.created_by,
        "created_at": stored_time(webhook.created_at),
        "state": webhook.state,
        "changed_at": stored_time(webhook.changed_at),
        "reason": webhook.reason,
        "delivered_through": progress.delivered_through,
        "retrying": None
        if progress.pending_event is None
        else {
            "event_id": progress.pending_event,
            "event": cursors.write(progress.pending_event),
            "failures": progress.failures,
            "failing_since": stored_time(progress.failing_since),
            "next_attempt_at": stored_time(progress.next_attempt_at),
        },
    }
    shown["signing_keys"] = [
        {"scheme": key.scheme, "retires_at": stored_time(key.retires_at)}
        | ({"public_key": public_key(key.secret)} if key.scheme == "v1a" else {})
        for key in keys
    ]
    if with_secret:
        shown["secret"] = webhook.secret
    return shown


def attempt_json(attempt: Attempt, cursors: Cursors) -> dict[str, Any]:
    return {
        "event_id": attempt.event_id,
        "event": cursors.write(attempt.event_id),
        "attempt": attempt.attempt,
        "attempted_at": stored_time(attempt.attempted_at),
        "outcome": attempt.outcome,
        "http_status": attempt.http_status,
        "error": attempt.error,
        "duration_seconds": round(attempt.duration_us / 1e6, 6),
        "next_attempt_at": stored_time(attempt.next_attempt_at),
        "worker": attempt.worker,
    }
