"""A key store opened on first use, so a server whose store cannot be opened at start still starts.

Without it a worker dies while creating the app and the deployment crash-loops; with it the
server answers `/v1/health` (200 `degraded`, `keystore` down) and every keyed request with
503 `upstream_unavailable` until the store opens (PostgreSQL answers again, the SQLite file is
created or repaired), then carries on without a restart.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from access import KeyStoreUnavailable, open_store

log = logging.getLogger("access")

LOCK_WAIT_SECONDS = 2.0
"""How long a request waits for another request's attempt to open the store."""
RETRY_OPEN_AFTER_SECONDS = 1.0
"""After a failed attempt, requests answer 503 at once for this long instead of each trying again
(and each waiting a connect timeout)."""


class DeferredStore:
    def __init__(self, url: str) -> None:
        self._url = url
        # What the store will be once opened (set here: `__getattr__` would try to open it).
        self.in_process = url.startswith("sqlite:")
        self._store: Any | None = None
        self._lock = threading.Lock()
        self._retry_at = time.monotonic() + RETRY_OPEN_AFTER_SECONDS

    def _opened(self) -> Any:

        if not self._lock.acquire(timeout=LOCK_WAIT_SECONDS):
            raise KeyStoreUnavailable()
        try:
            if self._store is None:
                if time.monotonic() < self._retry_at:
                    raise KeyStoreUnavailable()
                try:
                    self._store = open_store(self._url, create=False)
                except KeyStoreUnavailable:
                    self._retry_at = time.monotonic() + RETRY_OPEN_AFTER_SECONDS
                    raise
                log.warning("key store reachable again; opened it")
            return self._store
        finally:
            self._lock.release()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._opened(), name)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()


def open_store_or_defer(url: str) -> Any:
    """The key store of `url`, or a `DeferredStore` when it cannot be opened right now.

    The server never creates a SQLite key store (or its folder): a missing file is unavailable.
    """

    try:
        return open_store(url, create=False)
    except KeyStoreUnavailable:
        log.warning("key store cannot be opened at start; serving 503 upstream_unavailable until it can")
        return DeferredStore(url)
