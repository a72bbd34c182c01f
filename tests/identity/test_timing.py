"""A wrong secret for a known key_id costs what an unknown key_id costs (no timing oracle),
checked by what the two paths do rather than by timing them (issue 33, item 15: the median of
2,000 timed samples moved on a busy machine; `just bench-timing` still measures it).

Both defects the timing once caught were work done for a known key_id only: building the key
and account records before the secret was compared (about 60 µs), and the store returning the
known key's row so that its hash could be compared (about 5 µs). Now the store is sent one
statement that matches the key_id and the secret's hash together: the same statement for both,
returning no row for either, so nothing of the known key reaches the process.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from access import authenticate, open_store
from access import tokens as token_module
from access.tokens import generate_token, hash_secret
from core import errors
from tests.ops.keys import issue_key


def test_a_known_key_id_with_a_wrong_secret_does_what_an_unknown_key_id_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keys.sqlite3"
    store = open_store(f"sqlite:///{path}")
    key, good = issue_key(store), issue_key(store)
    # The key_id's checksum covers the secret, so a well-formed token with a known key_id and a
    # wrong secret is one whose stored hash belongs to another secret (an attacker finds such
    # tokens by searching CRC collisions offline).
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE api_keys SET secret_sha256 = ? WHERE key_id = ?", (hash_secret("another"), key.key_id)
        )
    statements: list[tuple[str, int]] = []  # (SQL, rows returned) of every statement sent
    execute = store._execute  # type: ignore[attr-defined]

    def recorded(sql: str, params: Any = ()) -> Any:
        rows, count = execute(sql, params)
        statements.append((sql, len(rows)))
        return rows, count

    monkeypatch.setattr(store, "_execute", recorded)
    now = datetime.now(UTC)

    def refused(header: str) -> list[tuple[str, int]]:
        statements.clear()
        with pytest.raises(errors.InvalidApiKey):
            authenticate(store, header, "127.0.0.1", now)
        return list(statements)

    wrong_secret = refused(f"Bearer {key.token}")
    unknown = refused(f"Bearer {generate_token().token}")
    assert len(wrong_secret) == 1 and wrong_secret == unknown, (wrong_secret, unknown)
    sql, rows = wrong_secret[0]
    assert rows == 0  # the known key's row never reaches the process
    assert "key_id = ?" in sql and "secret_sha256 = ?" in sql  # both matched by the database
    # The recorder sees the store: the key with its own secret is found by that same statement.
    statements.clear()
    assert authenticate(store, f"Bearer {good.token}", "127.0.0.1", now).key_id == good.key_id
    assert statements[0] == (sql, 1)
    store.close()


def test_the_stored_hash_is_compared_again_in_constant_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: the row found is checked with `hmac.compare_digest`, never `==`."""
    store = open_store(f"sqlite:///{tmp_path}/keys.sqlite3")
    key = issue_key(store)
    compared: list[tuple[str, str]] = []
    compare = token_module.hmac.compare_digest

    def recorded(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return compare(a, b)

    monkeypatch.setattr(token_module.hmac, "compare_digest", recorded)
    assert authenticate(store, f"Bearer {key.token}", "127.0.0.1", datetime.now(UTC)).key_id == key.key_id
    secret = key.token.rpartition(".")[2]
    assert (hash_secret(secret), hash_secret(secret)) in compared, compared
    assert not [pair for pair in compared if secret in pair]  # digests are compared, never the secret
    store.close()
