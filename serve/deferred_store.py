"""A key store opened on first use, so a server whose database is down at start still starts.

Without it a worker dies while creating the app and the deployment crash-loops; with it the
server answers `/v1/health` (200 `degraded`, `keystore` down) and every keyed request with
503 `upstream_unavailable` until the database answers, then carries on without a restart.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger("serve.identity")


class DeferredStore:
    def __init__(self, url: str) -> None:
        self._url = url
        self._store: Any | None = None
        self._lock = threading.Lock()

    def _opened(self) -> Any:
        with self._lock:
            if self._store is None:
                from serve.identity import open_store

                # Raises KeyStoreUnavailable (503 upstream_unavailable) while the database is down.
                self._store = open_store(self._url)
                log.warning("key store reachable again; opened it")
            return self._store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._opened(), name)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()


def open_store_or_defer(url: str) -> Any:
    """The key store of `url`, or a `DeferredStore` when it cannot be reached right now."""
    from serve.identity import KeyStoreUnavailable, open_store

    try:
        return open_store(url)
    except KeyStoreUnavailable:
        log.warning("key store unreachable at start; serving 503 upstream_unavailable until it answers")
        return DeferredStore(url)
