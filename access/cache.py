"""The identity cache: a worker keeps the keys (with their accounts) it authenticated, and is told
of every change, so that a request needs no database round trip and account status is still read
live: a change is refused by every worker within the time its signal takes to arrive.

What is kept, per key_id: the key, its owner's account and the secret's SHA-256, exactly as one
`find_credentials` read them. Only a read that found a key is kept (an unknown key_id or a wrong
secret is read from the store every time, so the two still cost the same), and a request whose
secret's hash differs from the one kept reads the store too. Usage counts are not identity: the
limiter counts them (serve/limits). At most `MAX_ENTRIES` keys are kept per worker, the oldest
dropped first.

How a change reaches the cache (the triggers of access/tables.py signal every INSERT,
UPDATE and DELETE of `accounts`, `account_limits` and `api_keys`, in the writing transaction):
- PostgreSQL (`NotifiedCache`): a connection of the worker's own LISTENs (records.postgres
  `ChangeListener`); each notification drops the key or the account's keys it names. While that
  connection is not live (not yet connected, cut, or silent for `LIVE_SECONDS`), nothing is
  answered from memory: every request reads the store, as without a cache. When it LISTENs again,
  everything kept before is dropped (what changed meanwhile was never notified).
- SQLite (`CountedCache`): every lookup first reads the change counter (`identity_version`); when
  it moved, everything kept is dropped.

A read that started before a change and ends after the change's signal is not kept: each signal
moves the cache's generation, and a read is kept only if the generation it started in is current.
"""

from __future__ import annotations

import hmac
import logging
import threading
from typing import Any

from anyio import to_thread

from access.records import Credentials, KeyRecord
from access.tables import CHANGES_CHANNEL

log = logging.getLogger("access")

MAX_ENTRIES = 10_000
"""Keys kept per worker; past it, the oldest kept is dropped for each new one."""
LISTENER_APPLICATION_NAME = "alpha-results identity listener"
"""The `application_name` of each worker's LISTEN connection (`pg_stat_activity`)."""


class IdentityCache:
    """The key store as the app sees it: `find_credentials` and `get_key` answered from memory
    while the cache can vouch for them, everything else passed to the store.

    This base class vouches for nothing (every call reads the store): the app wraps a store it was
    handed (a test's) in it. `identity_cache` picks the cache for a store the app opened.
    """

    def __init__(self, store: Any) -> None:
        self._store = store
        self._entries: dict[str, Credentials] = {}  # built whole (key and account) before kept
        self._lock = threading.Lock()
        self._generation = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    @property
    def in_process(self) -> bool:
        return bool(self._store.in_process)

    def start(self) -> None:
        """Begin watching for changes (the app's startup, in the worker process)."""

    def stop(self) -> None:
        """Stop watching (the app's shutdown)."""

    def _vouch(self) -> int | None:
        """The generation the cache answers in, or None when it cannot vouch for what it holds
        now (then the store is read). Called before every lookup."""
        return None

    def vouches(self) -> bool:
        """Whether a kept key is answered from memory now, read without touching the store (the
        metrics' sampler asks once a second, from its own thread): never for a store passed in."""
        return False

    # lookups

    def find_credentials(self, key_id: str, secret_sha256: str) -> Credentials | None:
        """`KeyStore.find_credentials`, from memory when kept (reading the store may block)."""
        generation = self._vouch()
        found = self._kept(key_id, secret_sha256, generation)
        return found if found is not None else self._read(key_id, secret_sha256, generation)

    async def find_credentials_async(self, key_id: str, secret_sha256: str) -> Credentials | None:
        """`find_credentials` for the event loop: answered there from memory (or from an
        in-process store); a PostgreSQL read goes to a worker thread."""
        generation = self._vouch()
        found = self._kept(key_id, secret_sha256, generation)
        if found is not None:
            return found
        if self.in_process:
            return self._read(key_id, secret_sha256, generation)
        return await to_thread.run_sync(self._read, key_id, secret_sha256, generation)

    def get_key(self, key_id: str) -> KeyRecord | None:
        kept = self._entries.get(key_id) if self._vouch() is not None else None
        if kept is not None:
            return kept.key
        found: KeyRecord | None = self._store.get_key(key_id)
        return found

    async def get_key_async(self, key_id: str) -> KeyRecord | None:
        """`get_key` for the event loop, like `find_credentials_async`."""
        kept = self._entries.get(key_id) if self._vouch() is not None else None
        if kept is not None:
            return kept.key
        if self.in_process:
            found: KeyRecord | None = self._store.get_key(key_id)
            return found
        return await to_thread.run_sync(self._store.get_key, key_id)

    def just_authenticated(self, key_id: str) -> KeyRecord | None:
        """The key as kept, without reading the change counter again: for an answer made on the
        event loop right after this request's authentication vouched for the cache (the one-pass
        layer's `/v1/me`, serve/front.py), which read it in the same stretch of work, with no
        await between. None when it is not kept (then the caller reads it)."""
        kept = self._entries.get(key_id)
        return kept.key if kept is not None else None

    def _kept(self, key_id: str, secret_sha256: str, generation: int | None) -> Credentials | None:
        if generation is None:
            return None
        kept = self._entries.get(key_id)
        if kept is None or not hmac.compare_digest(kept.secret_sha256, secret_sha256):
            return None
        return kept

    def _read(self, key_id: str, secret_sha256: str, generation: int | None) -> Credentials | None:
        found: Credentials | None = self._store.find_credentials(key_id, secret_sha256)
        if found is None or generation is None:
            return found
        # Built here, once, not on every request answered from memory: the row matched the
        # key_id and the secret's hash (nothing leaks).
        found.key, found.account  # noqa: B018
        with self._lock:
            # Kept only if no change was signalled since the read began: it may predate it.
            if generation == self._generation:
                if len(self._entries) >= MAX_ENTRIES and key_id not in self._entries:
                    del self._entries[next(iter(self._entries))]
                self._entries[key_id] = found
        return found

    # invalidation

    def _drop_all(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class CountedCache(IdentityCache):
    """SQLite: every lookup reads `identity_version` first (one in-process statement, a few
    microseconds) and drops everything kept when it moved."""

    def vouches(self) -> bool:
        return True  # the counter is read on every lookup: nothing to lose

    def _vouch(self) -> int | None:
        version: int = self._store.identity_version()
        if version != self._generation:
            with self._lock:
                if version != self._generation:
                    self._entries.clear()
                    self._generation = version
        return version


class NotifiedCache(IdentityCache):
    """PostgreSQL: the worker's `ChangeListener` drops what each notification names; nothing is
    answered from memory while the listener is not live."""

    def __init__(self, store: Any, url: str) -> None:
        super().__init__(store)
        from records.postgres import ChangeListener  # psycopg: only a PostgreSQL store imports it

        self._listener = ChangeListener(
            url,
            CHANGES_CHANNEL,
            application_name=LISTENER_APPLICATION_NAME,
            on_change=self._changed,
            on_up=self._listening,
            on_down=self._lost,
        )
        self._watching = False  # whether the last state logged was "listening"
        self._down_logged = False

    def start(self) -> None:
        self._listener.start()

    def stop(self) -> None:
        self._listener.stop()

    def _vouch(self) -> int | None:
        return self._generation if self._listener.live() else None

    def vouches(self) -> bool:
        return self._listener.live()

    def _changed(self, payload: str) -> None:
        kind, _, ident = payload.partition(":")
        with self._lock:
            self._generation += 1
            before = len(self._entries)
            if kind == "key":
                self._entries.pop(ident, None)
            elif kind == "account":
                for key_id in [k for k, kept in self._entries.items() if kept.key.user_id == ident]:
                    del self._entries[key_id]
            else:  # `*` (a TRUNCATE), or anything this version does not know: everything
                self._entries.clear()
            dropped = before - len(self._entries)
        # One line per change and worker (changes are operator commands): when each worker learnt
        # of it (`just bench-load` reads these to time a suspension's way to every worker).
        log.info("identity cache: %s changed; %d kept key(s) dropped", payload, dropped)

    def _listening(self) -> None:
        self._drop_all()
        self._watching, self._down_logged = True, False
        log.info("identity cache on: listening for key and account changes on %s", CHANGES_CHANNEL)

    def _lost(self, reason: str) -> None:
        self._drop_all()
        if self._watching or not self._down_logged:
            log.warning(
                "identity cache off: the change listener is down (%s); reading the key store on every "
                "request until it listens again",
                reason,
            )
        self._watching, self._down_logged = False, True


def identity_cache(store: Any, url: str) -> IdentityCache:
    """The cache for the store at `url` the app opened: notified (PostgreSQL) or counted (SQLite)."""
    if url.startswith(("postgresql://", "postgres://")):
        return NotifiedCache(store, url)
    if url.startswith("sqlite:"):
        return CountedCache(store)
    return IdentityCache(store)
