"""The identity cache's one race that no served test can stage at will: a store read that a change
overtakes (its signal arrives while the read is in flight) must not be kept, or the worker would
answer from the old row until the next change. tests/e2e/test_identity_cache.py covers the rest
through the real server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from access import open_store
from access.cache import NotifiedCache
from access.tokens import hash_secret, parse_token
from tests.ops.keys import issue_key


def test_a_read_overtaken_by_a_change_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(f"sqlite:///{tmp_path}/keys.sqlite3")
    key = issue_key(store)
    digest = hash_secret(parse_token(key.token).secret)
    cache = NotifiedCache(store, "postgresql://127.0.0.1:1/never")  # never started: no connection
    monkeypatch.setattr(cache._listener, "live", lambda: True)
    read = store.find_credentials

    def overtaken(key_id: str, secret_sha256: str) -> Any:
        found = read(key_id, secret_sha256)
        cache._changed(f"key:{key_id}")  # the change's notification, while the read is in flight
        return found

    monkeypatch.setattr(store, "find_credentials", overtaken)
    assert cache.find_credentials(key.key_id, digest) is not None
    assert len(cache) == 0
    monkeypatch.setattr(store, "find_credentials", read)
    assert cache.find_credentials(key.key_id, digest) is not None
    assert len(cache) == 1  # nothing changed during this read: kept
    store.close()
