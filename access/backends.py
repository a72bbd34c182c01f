"""`open_store`: the key store over the database a URL names (`records.sql`), its tables created
if absent."""

from __future__ import annotations

from access.store import DEFAULT_KEYSTORE_URL, KeyStoreUnavailable, SqlKeyStore
from access.tables import key_store_schema
from records.databases import open_database
from records.sql import Unavailable


def open_store(url: str | None = None, create: bool = True) -> SqlKeyStore:
    """`sqlite:///relative/path`, `sqlite:////absolute/path`, `sqlite:///:memory:` or `postgresql://...`.

    `create=False` (the server) opens a SQLite file only if it exists; the CLI creates it.
    Raises `KeyStoreUnavailable` when the store cannot be opened.
    """
    try:
        return SqlKeyStore(open_database(url or DEFAULT_KEYSTORE_URL, key_store_schema, create=create))
    except Unavailable as exc:
        raise KeyStoreUnavailable() from exc
