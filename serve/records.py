"""The deployment's records (promotions, events: `records/`) as the server reads them.

Kept in the key store's database (`keystore_url`), opened on first use and never created by the
server (a SQLite file that does not exist is unavailable, as for the key store). A database that
cannot be opened or used answers 503 `upstream_unavailable`, never a figure computed as if nothing
had been decided. An app embedded without records (tests that inject their own authenticator)
has none: no alpha is approved there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from anyio import to_thread

from records.promotions import Promotion
from records.sql import Unavailable
from records.store import Records, open_records
from serve.errors import UpstreamUnavailable

T = TypeVar("T")


class RecordsSource:
    """Opens the records of `url` once, on first use; retried on the next use after a failure."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._lock = threading.Lock()
        self._records: Records | None = None

    def _opened(self) -> Records:
        with self._lock:
            if self._records is None:
                self._records = open_records(self._url, create=False)
            return self._records

    def _call(self, read: Callable[[Records], T]) -> T:
        try:
            return read(self._opened())
        except Unavailable as exc:
            raise UpstreamUnavailable(
                "The records database is temporarily unreachable; retry with backoff."
            ) from exc

    async def read(self, read: Callable[[Records], T]) -> T:
        """`read(records)`: on the event loop once a SQLite file is open (microseconds, as the key
        store's reads, `serve.auth.call_backends`), else in a worker thread (the first open, and
        every PostgreSQL round trip, never stall the loop)."""
        opened = self._records
        if opened is not None and opened.database.in_process:
            return self._call(read)
        return await to_thread.run_sync(partial(self._call, read))

    async def approval(self, alpha_id: str) -> Promotion | None:
        return await self.read(lambda records: records.promotions.approval(alpha_id))

    def close(self) -> None:
        with self._lock:
            if self._records is not None:
                self._records.close()
                self._records = None
