"""The key store's counter tables, declared once for SQLite and PostgreSQL.

`bigint` is the dialect's 64-bit integer type (SQLite's INTEGER is 64-bit already).
"""

from __future__ import annotations


def counter_tables(bigint: str) -> tuple[str, ...]:
    return (
        # Durable day and month request counts per key (serve.identity.usage_ledger).
        f"""
        CREATE TABLE IF NOT EXISTS key_usage (
            key_id TEXT NOT NULL,
            period TEXT NOT NULL CHECK (period IN ('day', 'month')),
            period_start {bigint} NOT NULL,
            requests {bigint} NOT NULL,
            PRIMARY KEY (key_id, period, period_start)
        )
        """,
        # Fetches of each signed download URL (serve.identity.download_fetches), keyed by the
        # SHA-256 of its signature; `url_expires` is the URL's epoch expiry, after which the row
        # is purged.
        f"""
        CREATE TABLE IF NOT EXISTS download_fetches (
            signature_sha256 TEXT PRIMARY KEY,
            url_expires {bigint} NOT NULL,
            fetches INTEGER NOT NULL CHECK (fetches >= 1)
        )
        """,
        "CREATE INDEX IF NOT EXISTS download_fetches_by_expiry ON download_fetches (url_expires)",
    )
