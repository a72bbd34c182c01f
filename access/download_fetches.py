"""How many times each signed download URL has been fetched, kept in the key store's database.

A signed URL of a local lake (`serve.signing.archives.HmacSigner`) is a credential of its own: its fetches
are not metered (docs/access.md). What bounds a leaked URL is its lifetime, its key (a URL ends
with the key it was signed for) and this count: at most `download_fetch_limit` fetches per URL.

- **Ranges count their share.** A reader of Parquet over HTTP (the Delta Sharing clients, Spark,
  DuckDB) fetches a file in byte ranges, the footer first, several requests per read: a range
  counts the share of the file it returns, in thousandths of a fetch (`FETCH_UNITS`, at least one),
  a whole fetch `FETCH_UNITS`. So a URL serves at most `download_fetch_limit` times its file's
  bytes however they are asked for, and a `HEAD` (no bytes) counts nothing. The stored `fetches`
  are these units.

- **Shared.** The count lives in the key store's database (table `download_fetch_units`, created with
  the store's schema), so every worker process and machine serving the lake sees one count, and
  it survives a restart.
- **Atomic.** One fetch is one statement: an UPSERT that inserts the first fetch or adds one to a
  count still under the limit, and RETURNs the new count. At the limit the UPDATE's condition is
  false, no row comes back and nothing changes, so a refused fetch consumes nothing and no two
  concurrent fetches can both take the last place (no read-then-write race, on SQLite or
  PostgreSQL).
- **Keyed by a hash.** The row's key is the SHA-256 of the URL's signature: the signature is the
  credential and is never stored. It identifies the URL (the HMAC covers the object path and
  `expires`).
- **Expiring with the URL.** Each row carries its URL's `expires` (epoch seconds). Rows of expired
  URLs are deleted opportunistically: at most once every `PURGE_INTERVAL_SECONDS` per process, by
  the fetch that comes due (one indexed DELETE), `PURGE_GRACE_SECONDS` after expiry so a clock
  running ahead on one machine cannot reset the count of a URL another still honours. An expired
  URL is refused before it is counted, so its row is never read again either way.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

PURGE_INTERVAL_SECONDS = 600.0
"""How often (per process) one fetch also deletes the rows of URLs that have expired."""
PURGE_GRACE_SECONDS = 300
"""A row is deleted this long after its URL expired (tolerance for clocks that disagree)."""

# Every statement is a literal with `?` markers (the PostgreSQL backend turns them into `%s`).
# The table name qualifies the existing row inside DO UPDATE, as both dialects accept.
COUNT_FETCH = (
    "INSERT INTO download_fetch_units (signature_sha256, url_expires, fetches) VALUES (?, ?, ?) "
    "ON CONFLICT (signature_sha256) DO UPDATE SET fetches = download_fetch_units.fetches + ? "
    "WHERE download_fetch_units.fetches + ? <= ? "
    "RETURNING fetches"
)
FETCH_UNITS = 1000
"""What one whole fetch counts; a byte range counts its share of the file (module docstring)."""


def range_units(length: int, size: int) -> int:
    """What a range of `length` bytes of a file of `size` bytes counts: its share of a whole
    fetch, rounded up, at least one unit."""
    if size <= 0:
        return FETCH_UNITS
    return max(1, min(FETCH_UNITS, -(-FETCH_UNITS * length // size)))


PURGE_EXPIRED = "DELETE FROM download_fetch_units WHERE url_expires < ?"


def signature_digest(signature: str) -> str:
    """The row key of a URL: SHA-256 (hex) of its signature, which is never stored itself."""
    return hashlib.sha256(signature.encode()).hexdigest()


class DownloadFetches:
    """The fetch counts of signed download URLs, over a key store (`SqlKeyStore`, or the
    `DeferredStore` that stands in for one until it opens)."""

    def __init__(self, store: Any, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the fetch limit of a download URL must be at least 1, got {limit}")
        self.store = store
        self.limit = limit
        self._purge_lock = threading.Lock()
        self._next_purge_at = 0.0

    def count_fetch(self, signature: str, expires: int, now: float, units: int = FETCH_UNITS) -> int | None:
        """Count one fetch (`units` of it, `range_units` for a byte range) of the verified URL with
        this signature and expiry: the fetches counted so far, rounded up (1 to `limit`), or None
        when it would take the URL past `limit` fetches (nothing is counted).

        Raises `KeyStoreUnavailable` when the database cannot be reached (nothing is counted)."""
        self._purge_expired_when_due(now)
        # `_execute` is the store's one-statement primitive (access/store.py); this module
        # is the identity package's own, like the backends.
        parameters = (signature_digest(signature), expires, units, units, units, self.limit * FETCH_UNITS)
        rows, _ = self.store._execute(COUNT_FETCH, parameters)
        return -(-int(rows[0][0]) // FETCH_UNITS) if rows else None

    def purge_expired(self, now: float) -> int:
        """Delete the rows of URLs expired more than `PURGE_GRACE_SECONDS` ago; how many went."""
        _, deleted = self.store._execute(PURGE_EXPIRED, (int(now) - PURGE_GRACE_SECONDS,))
        return int(deleted)

    def _purge_expired_when_due(self, now: float) -> None:
        with self._purge_lock:
            if now < self._next_purge_at:
                return
            self._next_purge_at = now + PURGE_INTERVAL_SECONDS
        self.purge_expired(now)
