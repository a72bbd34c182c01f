"""`open_database`: the SQLite or PostgreSQL database a URL names (apart from `records.sql` so
that the PostgreSQL backend, which builds on it, is imported by nothing it imports)."""

from __future__ import annotations

from records.sql import Database, Schema, SqliteDatabase


def open_database(url: str, schema: Schema, create: bool = True) -> Database:
    """The database `url` names, with `schema`'s tables created if absent. `create=False` (the
    server) opens a SQLite file only if it exists: a mistyped path is an unavailable store, never a
    new empty one. Raises `Unavailable` when it cannot be opened, ValueError for another scheme."""
    if url.startswith("sqlite://"):
        return SqliteDatabase(url, schema, create=create)
    if url.startswith(("postgresql://", "postgres://")):
        # Start-up time: psycopg (a core dependency) takes 0.3-0.5 s to import, which the operator
        # commands (`keys`, `accounts`: 0.07 s, docs/benchmarks.md "CLI start") and a server on
        # a SQLite store would pay for a driver they never use.
        from records.postgres import PostgresDatabase

        return PostgresDatabase(url, schema)
    raise ValueError(f"store URL must start with sqlite:// or postgresql://; got {url.split(':')[0]!r}")
