"""The key store: the `KeyStore` interface and the rules shared by every backend (`open_store`, in
access/backends.py, picks a backend; the backends import this module, never the reverse).

The database (`records.sql`: SQLite or PostgreSQL, shared with the records) only opens
connections, creates tables and runs one parameterised statement at a time; every rule (who may be
changed, what a new key gets) lives here so both behave identically. The store caches nothing:
every read goes to the database. The server keeps keys and accounts it authenticated in a cache of
its own (access/cache.py), which the tables' triggers (access/tables.py) invalidate
on every change.

Timestamps are stored as fixed-width UTC text (`YYYY-MM-DDTHH:MM:SS.ffffffZ`) in both backends,
so they sort as text and read back identically; allow-lists are stored as their JSON wire form.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Protocol

from access.records import (
    ACCOUNT_STATUSES,
    DEFAULT_KEY_GRANTS,
    DEFAULT_RATE_LIMIT,
    KEY_STATUSES,
    LINK_KINDS,
    ROLES,
    SELF_SERVICE_GRANTS,
    AccountRecord,
    Credentials,
    Grants,
    KeyRecord,
    PooledLimit,
    RateLimit,
    SubjectLink,
)
from access.tokens import BASE62, IssuedToken, generate_token
from core import errors
from core.context import AllowList
from records import sql as sql_backend
from records.sql import Database, Rows
from records.times import read_time, stored_time

log = logging.getLogger("access")

DEFAULT_KEYSTORE_URL = "sqlite:///var/keys.sqlite3"


class IdentityError(Exception):
    """A refused store operation (operator mistakes); the CLI prints the message."""


class UnknownAccount(IdentityError):
    pass


class UnknownKey(IdentityError):
    pass


class DuplicateEmail(IdentityError):
    pass


class InvalidTransition(IdentityError):
    pass


class StoreConflict(Exception):
    """A uniqueness constraint refused a write (raised by backends)."""


class KeyStoreUnavailable(errors.UpstreamUnavailable):
    """The key store cannot be reached; answered as 503 `upstream_unavailable`."""

    default_message = "The service is temporarily unable to check API keys; retry with backoff."


class KeyStore(Protocol):
    def ping(self) -> None: ...
    def close(self) -> None: ...

    def create_account(
        self, email: str, role: str = "member", now: datetime | None = None
    ) -> AccountRecord: ...
    def get_account(self, user_id: str) -> AccountRecord | None: ...
    def find_account_by_email(self, email: str) -> AccountRecord | None: ...
    def set_account_role(self, user_id: str, role: str) -> AccountRecord: ...
    def set_account_status(self, user_id: str, status: str) -> AccountRecord: ...
    def set_account_ceiling(self, user_id: str, ceiling: Grants) -> AccountRecord: ...
    def set_account_limits(self, user_id: str, limit: PooledLimit | None) -> AccountRecord: ...

    def create_key(
        self,
        user_id: str,
        name: str,
        env: str = "live",
        grants: Grants | None = None,
        rate_limit: RateLimit | None = None,
        ip_allow: Sequence[str] | None = None,
        expires_at: datetime | None = None,
        now: datetime | None = None,
    ) -> tuple[KeyRecord, str]: ...
    def get_key(self, key_id: str) -> KeyRecord | None: ...
    def list_keys_of_user(self, user_id: str, include_revoked: bool = False) -> list[KeyRecord]: ...
    def find_credentials(self, key_id: str, secret_sha256: str) -> Credentials | None: ...
    def set_key_status(self, key_id: str, status: str) -> KeyRecord: ...
    def revoke_key(self, key_id: str, now: datetime | None = None) -> KeyRecord: ...
    def set_key_expiry(self, key_id: str, expires_at: datetime | None) -> KeyRecord: ...
    def set_key_grants(self, key_id: str, grants: Grants) -> KeyRecord: ...
    def set_key_limits(self, key_id: str, rate_limit: RateLimit) -> KeyRecord: ...
    def set_key_ips(self, key_id: str, ip_allow: Sequence[str] | None) -> KeyRecord: ...

    def linked_account(self, issuer: str, subject: str) -> str | None: ...
    def link_subject(
        self, issuer: str, subject: str, user_id: str, linked_by: str, now: datetime | None = None
    ) -> bool: ...
    def links_of_account(self, user_id: str) -> list[SubjectLink]: ...
    def unlink_subject(self, user_id: str, issuer: str, subject: str) -> None: ...


# -- row <-> record -------------------------------------------------------------------------

# Every statement is a literal: values travel only as `?` parameters. Row readers below unpack
# columns in exactly the order these SELECTs list them.
INSERT_ACCOUNT = (
    "INSERT INTO accounts (user_id, email, role, status, ceiling_endpoints, ceiling_alphas, "
    "ceiling_runs, ceiling_raw_book, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# An account's columns, then its pooled envelope's (NULL when it has none: `account_limits`).
SELECT_ACCOUNT_BY_ID = (
    "SELECT a.user_id, a.email, a.role, a.status, a.ceiling_endpoints, a.ceiling_alphas, "
    "a.ceiling_runs, a.ceiling_raw_book, a.created_at, "
    "l.per_second, l.per_minute, l.per_day, l.monthly_requests "
    "FROM accounts a LEFT JOIN account_limits l ON l.user_id = a.user_id WHERE a.user_id = ?"
)
SELECT_ACCOUNT_BY_EMAIL = (
    "SELECT a.user_id, a.email, a.role, a.status, a.ceiling_endpoints, a.ceiling_alphas, "
    "a.ceiling_runs, a.ceiling_raw_book, a.created_at, "
    "l.per_second, l.per_minute, l.per_day, l.monthly_requests "
    "FROM accounts a LEFT JOIN account_limits l ON l.user_id = a.user_id WHERE lower(a.email) = ?"
)
# An account's pooled envelope, set whole (NULL: no cap in that window). The CASTs type NULLs for
# PostgreSQL.
UPSERT_ACCOUNT_LIMITS = (
    "INSERT INTO account_limits (user_id, per_second, per_minute, per_day, monthly_requests) "
    "VALUES (?, CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS BIGINT)) "
    "ON CONFLICT (user_id) DO UPDATE SET per_second = excluded.per_second, "
    "per_minute = excluded.per_minute, per_day = excluded.per_day, "
    "monthly_requests = excluded.monthly_requests"
)
# Inserts only while the owner exists and is not deleted (one statement, so no deletion can slip
# in between a check and the insert). The CAST types a NULL quota for PostgreSQL.
INSERT_KEY = (
    "INSERT INTO api_keys (key_id, user_id, name, env, status, revoked_at, expires_at, "
    "allow_endpoints, allow_alphas, allow_runs, expose_raw_book, per_second, per_minute, "
    "per_day, monthly_requests, ip_allow, created_at, secret_sha256) "
    "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS BIGINT), ?, ?, ? "
    "WHERE EXISTS (SELECT 1 FROM accounts WHERE user_id = ? AND status <> 'deleted')"
)
SELECT_KEY_BY_ID = (
    "SELECT key_id, user_id, name, env, status, revoked_at, expires_at, allow_endpoints, "
    "allow_alphas, allow_runs, expose_raw_book, per_second, per_minute, per_day, "
    "monthly_requests, ip_allow, created_at "
    "FROM api_keys WHERE key_id = ?"
)
SELECT_KEYS_OF_USER = (
    "SELECT key_id, user_id, name, env, status, revoked_at, expires_at, allow_endpoints, "
    "allow_alphas, allow_runs, expose_raw_book, per_second, per_minute, per_day, "
    "monthly_requests, ip_allow, created_at "
    "FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, key_id DESC"
)
SELECT_CREDENTIALS = (
    "SELECT k.key_id, k.user_id, k.name, k.env, k.status, k.revoked_at, k.expires_at, "
    "k.allow_endpoints, k.allow_alphas, k.allow_runs, k.expose_raw_book, k.per_second, "
    "k.per_minute, k.per_day, k.monthly_requests, k.ip_allow, k.created_at, "
    "a.user_id, a.email, a.role, a.status, a.ceiling_endpoints, a.ceiling_alphas, "
    "a.ceiling_runs, a.ceiling_raw_book, a.created_at, "
    "l.per_second, l.per_minute, l.per_day, l.monthly_requests, "
    "k.secret_sha256 FROM api_keys k JOIN accounts a ON a.user_id = k.user_id "
    "LEFT JOIN account_limits l ON l.user_id = a.user_id "
    "WHERE k.key_id = ? AND k.secret_sha256 = ?"
)
# A link made at a sign-in (by verified e-mail, or with the account it created): only to an active
# account, and only while the account has no link at that issuer (`account_links_once` holds it
# between two sign-ins at once). An operator's: to any account not deleted.
INSERT_LINK_AT_SIGN_IN = (
    "INSERT INTO account_links (issuer, subject, user_id, linked_by, created_at) "
    "SELECT ?, ?, ?, ?, ? "
    "WHERE EXISTS (SELECT 1 FROM accounts WHERE user_id = ? AND status = 'active') "
    "AND NOT EXISTS (SELECT 1 FROM account_links WHERE issuer = ? AND user_id = ?)"
)
INSERT_LINK_BY_OPERATOR = (
    "INSERT INTO account_links (issuer, subject, user_id, linked_by, created_at) "
    "SELECT ?, ?, ?, ?, ? "
    "WHERE EXISTS (SELECT 1 FROM accounts WHERE user_id = ? AND status <> 'deleted')"
)
ACCOUNT_COLUMN_COUNT = 13
KEY_COLUMN_COUNT = 17


def _allow_json(allow: AllowList) -> str:
    return json.dumps(allow.to_wire(), separators=(",", ":"))


def _grant_columns(grants: Grants) -> tuple[str, str, str, int]:
    """A grant set (a key's grants, an account's ceiling) as it is stored: the endpoints, alphas and
    runs allow-lists as JSON, and the raw-book flag."""
    return (
        _allow_json(grants.endpoints),
        _allow_json(grants.alphas),
        _allow_json(grants.runs),
        int(grants.expose_raw_book),
    )


def _rate_columns(rate_limit: RateLimit) -> tuple[int, int, int, int | None]:
    """A key's rate limits as they are stored, in the columns' order."""
    return rate_limit.per_second, rate_limit.per_minute, rate_limit.per_day, rate_limit.monthly_requests


@lru_cache(maxsize=1024)
def _read_allow(text: str) -> AllowList:
    """The allow-list a stored JSON text spells. Memoised on the text, which is still read from
    the store on every request: only the parsing of an identical text is skipped."""
    return AllowList.from_wire(json.loads(text))


def _account_from_row(row: Sequence[Any]) -> AccountRecord:
    user_id, email, role, status, c_end, c_alp, c_run, c_raw, created, *pooled = row
    limit = PooledLimit(*(None if value is None else int(value) for value in pooled))
    return AccountRecord(
        user_id=user_id,
        email=email,
        role=role,
        status=status,
        ceiling=Grants(_read_allow(c_end), _read_allow(c_alp), _read_allow(c_run), bool(c_raw)),
        created_at=read_time(created),  # type: ignore[arg-type]
        pooled_limit=None if limit.is_empty else limit,
    )


def _key_from_row(row: Sequence[Any]) -> KeyRecord:
    (key_id, user_id, name, env, status, revoked, expires, a_end, a_alp, a_run, raw,
     per_second, per_minute, per_day, monthly, ip_allow, created) = row  # fmt: skip
    return KeyRecord(
        key_id=key_id,
        user_id=user_id,
        name=name,
        env=env,
        status=status,
        revoked_at=read_time(revoked),
        expires_at=read_time(expires),
        grants=Grants(_read_allow(a_end), _read_allow(a_alp), _read_allow(a_run), bool(raw)),
        rate_limit=RateLimit(
            int(per_second), int(per_minute), int(per_day), None if monthly is None else int(monthly)
        ),
        ip_allow=None if ip_allow is None else tuple(json.loads(ip_allow)),
        created_at=read_time(created),  # type: ignore[arg-type]
    )


def _new_user_id() -> str:
    return "u_" + "".join(secrets.choice(BASE62) for _ in range(14))


def _check_rate_limit(rate_limit: RateLimit) -> None:
    """Every window at least 1: a 0 would refuse every request (suspend the key instead), and
    "no monthly quota" is spelled `unlimited` (None), never 0."""
    for name in ("per_second", "per_minute", "per_day"):
        if getattr(rate_limit, name) < 1:
            raise IdentityError(f"{name} must be a positive integer")
    if rate_limit.monthly_requests is not None and rate_limit.monthly_requests < 1:
        raise IdentityError("monthly_requests must be a positive integer or unlimited")


def _check_pooled_limit(limit: PooledLimit) -> None:
    """Each capped window at least 1, as a key's (no cap in a window is None, never 0)."""
    for name, value in limit.to_wire().items():
        if value is not None and value < 1:
            raise IdentityError(f"{name} must be a positive integer or none")


def normalise_ip_allow(entries: Sequence[str] | None) -> tuple[str, ...] | None:
    """Each entry an address or a CIDR block, stored in canonical network form; None means any."""

    if entries is None:
        return None
    networks = []
    for entry in entries:
        try:
            networks.append(str(ipaddress.ip_network(entry.strip(), strict=False)))
        except ValueError as exc:
            raise IdentityError(f"not an IP address or CIDR block: {entry!r}") from exc
    if not networks:
        raise IdentityError("an IP allow-list needs at least one entry (use `any` to lift it)")
    return tuple(dict.fromkeys(networks))


# -- the shared implementation --------------------------------------------------------------


class SqlKeyStore:
    """Every rule of the key store, over a database that runs parameterised SQL with `?` markers
    (`records.sql`: SQLite or PostgreSQL)."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self.in_process = database.in_process
        """True when a statement runs in this process without network I/O (SQLite), so the
        request path may call the store on the event loop; False (PostgreSQL) means it may wait
        on a socket."""

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run one statement; return (rows, rowcount). Raise `StoreConflict` on a unique violation
        and `KeyStoreUnavailable` when the database cannot be reached."""
        try:
            return self._database.execute(sql, params)
        except sql_backend.Conflict as exc:
            raise StoreConflict(str(exc)) from None
        except sql_backend.Unavailable as exc:
            raise KeyStoreUnavailable() from exc

    def close(self) -> None:
        self._database.close()

    def ping(self) -> None:
        try:
            self._database.ping()
        except sql_backend.Unavailable as exc:
            raise KeyStoreUnavailable() from exc

    def identity_version(self) -> int:
        """SQLite: how many changes `accounts` and `api_keys` have seen (a trigger counts each,
        access/tables.py); what a server's identity cache is checked against."""
        rows, _ = self._execute("SELECT version FROM identity_version")
        return int(rows[0][0])

    # accounts

    def create_account(self, email: str, role: str = "member", now: datetime | None = None) -> AccountRecord:
        email = normalise_email(email)
        if "@" not in email:
            raise IdentityError(f"not an e-mail address: {email!r}")
        _check_choice("role", role, ROLES)
        ceiling = SELF_SERVICE_GRANTS
        user_id = _new_user_id()
        try:
            self._execute(
                INSERT_ACCOUNT,
                (
                    user_id,
                    email,
                    role,
                    "active",
                    *_grant_columns(ceiling),
                    stored_time(now or datetime.now(UTC)),
                ),
            )
        except StoreConflict as exc:
            raise DuplicateEmail(f"an account with e-mail {email!r} exists already") from exc
        log.info("account created user_id=%s role=%s", user_id, role)
        return self._require_account(user_id)

    def get_account(self, user_id: str) -> AccountRecord | None:
        rows, _ = self._execute(SELECT_ACCOUNT_BY_ID, (user_id,))
        return _account_from_row(rows[0]) if rows else None

    def find_account_by_email(self, email: str) -> AccountRecord | None:
        rows, _ = self._execute(SELECT_ACCOUNT_BY_EMAIL, (normalise_email(email),))
        return _account_from_row(rows[0]) if rows else None

    def set_account_role(self, user_id: str, role: str) -> AccountRecord:
        _check_choice("role", role, ROLES)
        _, changed = self._execute(
            "UPDATE accounts SET role = ? WHERE user_id = ? AND status <> 'deleted'", (role, user_id)
        )
        if not changed:
            self._require_account(user_id)
            raise InvalidTransition(f"account {user_id} is deleted; deletion is final")
        log.info("account role set user_id=%s role=%s", user_id, role)
        return self._require_account(user_id)

    def set_account_status(self, user_id: str, status: str) -> AccountRecord:
        _check_choice("status", status, ACCOUNT_STATUSES)
        if status == "deleted":
            _, changed = self._execute("UPDATE accounts SET status = ? WHERE user_id = ?", (status, user_id))
        else:
            # The condition is part of the UPDATE, so a concurrent deletion cannot be undone.
            _, changed = self._execute(
                "UPDATE accounts SET status = ? WHERE user_id = ? AND status <> 'deleted'", (status, user_id)
            )
        if not changed:
            self._require_account(user_id)
            raise InvalidTransition(f"account {user_id} is deleted; deletion is final")
        log.info("account status set user_id=%s status=%s", user_id, status)
        return self._require_account(user_id)

    def set_account_ceiling(self, user_id: str, ceiling: Grants) -> AccountRecord:
        self._require_account(user_id)
        self._execute(
            "UPDATE accounts SET ceiling_endpoints = ?, ceiling_alphas = ?, ceiling_runs = ?, "
            "ceiling_raw_book = ? WHERE user_id = ?",
            (*_grant_columns(ceiling), user_id),
        )
        log.info("account ceiling set user_id=%s", user_id)
        return self._require_account(user_id)

    def set_account_limits(self, user_id: str, limit: PooledLimit | None) -> AccountRecord:
        """Set the account's pooled envelope whole; None (or no window capped) removes it."""
        self._require_account(user_id)
        if limit is None or limit.is_empty:
            self._execute("DELETE FROM account_limits WHERE user_id = ?", (user_id,))
        else:
            _check_pooled_limit(limit)
            self._execute(
                UPSERT_ACCOUNT_LIMITS,
                (user_id, limit.per_second, limit.per_minute, limit.per_day, limit.monthly_requests),
            )
        log.info("account pooled limits set user_id=%s", user_id)
        return self._require_account(user_id)

    def _require_account(self, user_id: str) -> AccountRecord:
        account = self.get_account(user_id)
        if account is None:
            raise UnknownAccount(f"no account with user_id {user_id!r}")
        return account

    # keys

    def create_key(
        self,
        user_id: str,
        name: str,
        env: str = "live",
        grants: Grants | None = None,
        rate_limit: RateLimit | None = None,
        ip_allow: Sequence[str] | None = None,
        expires_at: datetime | None = None,
        now: datetime | None = None,
    ) -> tuple[KeyRecord, str]:
        """Create a key; returns the record and the token, which exists nowhere else afterwards."""
        if not name.strip():
            raise IdentityError("a key needs a non-empty name")
        grants = grants or DEFAULT_KEY_GRANTS
        rate_limit = rate_limit or DEFAULT_RATE_LIMIT
        _check_rate_limit(rate_limit)
        ips = normalise_ip_allow(ip_allow)
        issued = self._insert_key(user_id, name.strip(), env, grants, rate_limit, ips, expires_at, now)
        log.info("key created key_id=%s user_id=%s env=%s", issued.key_id, user_id, env)
        return self._require_key(issued.key_id), issued.token

    def _insert_key(
        self,
        user_id: str,
        name: str,
        env: str,
        grants: Grants,
        rate_limit: RateLimit,
        ips: tuple[str, ...] | None,
        expires_at: datetime | None,
        now: datetime | None,
    ) -> IssuedToken:
        for _ in range(5):  # a key_id collision is astronomically unlikely; retry rather than fail
            issued = generate_token(env)
            try:
                _, inserted = self._execute(
                    INSERT_KEY,
                    (
                        issued.key_id,
                        user_id,
                        name,
                        env,
                        "active",
                        None,
                        stored_time(expires_at),
                        *_grant_columns(grants),
                        *_rate_columns(rate_limit),
                        None if ips is None else json.dumps(list(ips)),
                        stored_time(now or datetime.now(UTC)),
                        issued.secret_sha256,
                        user_id,
                    ),
                )
            except StoreConflict:
                continue
            if not inserted:
                self._require_account(user_id)
                raise InvalidTransition(f"account {user_id} is deleted; it cannot receive keys")
            return issued
        raise IdentityError("could not allocate a unique key_id")

    def get_key(self, key_id: str) -> KeyRecord | None:
        rows, _ = self._execute(SELECT_KEY_BY_ID, (key_id,))
        return _key_from_row(rows[0]) if rows else None

    def list_keys_of_user(self, user_id: str, include_revoked: bool = False) -> list[KeyRecord]:
        """Newest `created_at` first (key_id breaks ties so the order is stable)."""
        rows, _ = self._execute(
            SELECT_KEYS_OF_USER,
            (user_id,),
        )
        keys = [_key_from_row(row) for row in rows]
        return keys if include_revoked else [k for k in keys if not k.is_revoked]

    def find_credentials(self, key_id: str, secret_sha256: str) -> Credentials | None:
        """The key, its owner and the secret hash in one statement, read live on every call; None
        unless both the key_id and the secret's hash match. A wrong secret and an unknown key_id
        are then the same empty answer: the database returns no row for either, so their timing
        does not tell a known key_id apart (it compares digests, never the secret)."""
        rows, _ = self._execute(SELECT_CREDENTIALS, (key_id, secret_sha256))
        if not rows:
            return None
        row = rows[0]
        n_key, n_account = KEY_COLUMN_COUNT, ACCOUNT_COLUMN_COUNT
        return Credentials(
            secret_sha256=row[n_key + n_account],
            read_key=lambda: _key_from_row(row[:n_key]),
            read_account=lambda: _account_from_row(row[n_key : n_key + n_account]),
        )

    def set_key_status(self, key_id: str, status: str) -> KeyRecord:
        _check_choice("status", status, KEY_STATUSES)
        self._update_live_key(
            "UPDATE api_keys SET status = ? WHERE key_id = ? AND revoked_at IS NULL", status, key_id
        )
        log.info("key status set key_id=%s status=%s", key_id, status)
        return self._require_key(key_id)

    def revoke_key(self, key_id: str, now: datetime | None = None) -> KeyRecord:
        self._update_live_key(
            "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
            stored_time(now or datetime.now(UTC)),
            key_id,
        )
        log.info("key revoked key_id=%s", key_id)
        return self._require_key(key_id)

    def set_key_expiry(self, key_id: str, expires_at: datetime | None) -> KeyRecord:
        self._update_live_key(
            "UPDATE api_keys SET expires_at = ? WHERE key_id = ? AND revoked_at IS NULL",
            stored_time(expires_at),
            key_id,
        )
        log.info("key expiry set key_id=%s", key_id)
        return self._require_key(key_id)

    def set_key_grants(self, key_id: str, grants: Grants) -> KeyRecord:
        self._update_live_key(
            "UPDATE api_keys SET allow_endpoints = ?, allow_alphas = ?, allow_runs = ?, expose_raw_book = ? "
            "WHERE key_id = ? AND revoked_at IS NULL",
            *_grant_columns(grants),
            key_id,
        )
        log.info("key grants set key_id=%s", key_id)
        return self._require_key(key_id)

    def set_key_limits(self, key_id: str, rate_limit: RateLimit) -> KeyRecord:
        _check_rate_limit(rate_limit)
        self._update_live_key(
            "UPDATE api_keys SET per_second = ?, per_minute = ?, per_day = ?, monthly_requests = ? "
            "WHERE key_id = ? AND revoked_at IS NULL",
            *_rate_columns(rate_limit),
            key_id,
        )
        log.info("key rate limits set key_id=%s", key_id)
        return self._require_key(key_id)

    def set_key_ips(self, key_id: str, ip_allow: Sequence[str] | None) -> KeyRecord:
        ips = normalise_ip_allow(ip_allow)
        self._update_live_key(
            "UPDATE api_keys SET ip_allow = ? WHERE key_id = ? AND revoked_at IS NULL",
            None if ips is None else json.dumps(list(ips)),
            key_id,
        )
        log.info("key IP allow-list set key_id=%s", key_id)
        return self._require_key(key_id)

    def _require_key(self, key_id: str) -> KeyRecord:
        key = self.get_key(key_id)
        if key is None:
            raise UnknownKey(f"no key with key_id {key_id!r}")
        return key

    def _update_live_key(self, sql: str, *params: Any) -> None:
        """Run an UPDATE that ends `WHERE key_id = ? AND revoked_at IS NULL` (the key id last).

        Revocation is final: a revoked key is never changed again. The condition is part of the
        statement, so a revocation between a check and the change cannot be overwritten.
        """
        _, changed = self._execute(sql, params)
        if not changed:
            key_id = params[-1]
            self._require_key(key_id)
            raise InvalidTransition(f"key {key_id} is revoked; revocation is final")

    # links of a provider's people to accounts (access.oauth `account_of`, rule `subject`)

    def linked_account(self, issuer: str, subject: str) -> str | None:
        """The user_id (issuer, subject) is linked to, or None."""
        rows, _ = self._execute(
            "SELECT user_id FROM account_links WHERE issuer = ? AND subject = ?", (issuer, subject)
        )
        return str(rows[0][0]) if rows else None

    def link_subject(
        self, issuer: str, subject: str, user_id: str, linked_by: str, now: datetime | None = None
    ) -> bool:
        """Link (issuer, subject) to the account; True when it is linked to it afterwards (now or
        already). False: the pair names another account, or the link is refused: a sign-in's
        (`email`, `created`) to an account not active or already linked to another subject of
        `issuer`, an operator's (`operator`) to a deleted account or none."""
        _check_choice("linked_by", linked_by, LINK_KINDS)
        values: tuple[Any, ...] = (
            issuer,
            subject,
            user_id,
            linked_by,
            stored_time(now or datetime.now(UTC)),
            user_id,
        )
        if linked_by == "operator":
            statement, params = INSERT_LINK_BY_OPERATOR, values
        else:
            statement, params = INSERT_LINK_AT_SIGN_IN, (*values, issuer, user_id)
        try:
            _, inserted = self._execute(statement, params)
        except StoreConflict:  # linked meanwhile: the pair, or (a sign-in's) the account at `issuer`
            inserted = 0
        if inserted:
            log.info("subject linked user_id=%s issuer=%s by=%s", user_id, issuer, linked_by)
            return True
        return self.linked_account(issuer, subject) == user_id

    def links_of_account(self, user_id: str) -> list[SubjectLink]:
        """The account's links, oldest first."""
        rows, _ = self._execute(
            "SELECT issuer, subject, user_id, linked_by, created_at FROM account_links "
            "WHERE user_id = ? ORDER BY created_at, issuer, subject",
            (user_id,),
        )
        return [
            SubjectLink(issuer, subject, owner, linked_by, read_time(created))  # type: ignore[arg-type]
            for issuer, subject, owner, linked_by, created in rows
        ]

    def unlink_subject(self, user_id: str, issuer: str, subject: str) -> None:
        """Remove the account's link of (issuer, subject): the person's next sign-in is judged as
        a first one (their verified e-mail may link them again)."""
        _, removed = self._execute(
            "DELETE FROM account_links WHERE user_id = ? AND issuer = ? AND subject = ?",
            (user_id, issuer, subject),
        )
        if not removed:
            raise IdentityError(f"account {user_id} has no link of subject {subject!r} at {issuer}")
        log.info("subject unlinked user_id=%s issuer=%s", user_id, issuer)


def normalise_email(email: str) -> str:
    """E-mail addresses are one account whatever their case: stored and looked up lower-cased."""
    return email.strip().lower()


def _check_choice(what: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise IdentityError(f"{what} must be one of {', '.join(allowed)}; got {value!r}")
