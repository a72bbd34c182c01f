"""The records' tables, declared once for SQLite and PostgreSQL (`records.sql.Dialect`).

Both histories are append-only: a promotion or an event is inserted and never updated, and only
the events' retention deletes (the oldest first). Every `id` is numbered by the database and only
grows, which is what makes it a cursor. Times are fixed-width UTC text, as the key store's.
"""

from __future__ import annotations

from records.sql import Dialect


def records_schema(dialect: Dialect) -> tuple[str, ...]:
    return (
        # An operator's decision about an alpha (records.promotions): approved into the live book,
        # or retired from it, as of a date, with what was seen then (`snapshot`, JSON).
        f"""
        CREATE TABLE IF NOT EXISTS promotions (
            id {dialect.serial},
            alpha_id TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('approved', 'retired')),
            as_of TEXT NOT NULL,
            decided_by TEXT NOT NULL,
            note TEXT NOT NULL,
            build_id TEXT NOT NULL,
            snapshot TEXT NOT NULL,
            recorded_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS promotions_by_alpha ON promotions (alpha_id, id)",
        # What happened (records.events): about one alpha (`alpha_id`), for administrators only
        # (`audience` admin: a refused build), or for one key only (`key_id`: its webhook).
        f"""
        CREATE TABLE IF NOT EXISTS events (
            id {dialect.serial},
            type TEXT NOT NULL,
            alpha_id TEXT,
            audience TEXT NOT NULL CHECK (audience IN ('readers', 'admin', 'key')),
            key_id TEXT,
            data TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS events_by_alpha ON events (alpha_id, id)",
        "CREATE INDEX IF NOT EXISTS events_by_time ON events (created_at)",
        # One secret of the deployment, made when the tables are (records.cursors): every process
        # that shares the database reads the same, so a cursor one worker wrote another reads.
        """
        CREATE TABLE IF NOT EXISTS record_secrets (
            name TEXT PRIMARY KEY,
            secret TEXT NOT NULL
        )
        """,
    )
