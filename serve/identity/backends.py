"""`open_store`: the key-store backend a URL names. Apart from `store` so that the backends,
which build on `serve.identity.store`, are imported by nothing that they import."""

from __future__ import annotations

from serve.identity.sqlite_store import SqliteKeyStore
from serve.identity.store import DEFAULT_KEYSTORE_URL, SqlKeyStore


def open_store(url: str | None = None, create: bool = True) -> SqlKeyStore:
    """`sqlite:///relative/path`, `sqlite:////absolute/path`, `sqlite:///:memory:` or `postgresql://...`.

    `create=False` (the server) opens a SQLite file only if it exists; the CLI creates it.
    Raises `KeyStoreUnavailable` when the store cannot be opened.
    """
    url = url or DEFAULT_KEYSTORE_URL
    if url.startswith("sqlite://"):
        return SqliteKeyStore(url, create=create)
    if url.startswith(("postgresql://", "postgres://")):
        # Start-up time: psycopg (a core dependency) takes 0.3-0.5 s to import, which the operator
        # commands (`keys`, `accounts`: 0.07 s, docs/benchmarks.md "CLI start") and a server on
        # a SQLite store would pay for a driver they never use.
        from serve.identity.postgres_store import PostgresKeyStore

        return PostgresKeyStore(url)
    raise ValueError(f"key store URL must start with sqlite:// or postgresql://; got {url.split(':')[0]!r}")
