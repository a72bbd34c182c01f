"""The key store's tables, declared once for SQLite and PostgreSQL.

The dialect's `flag` is its type of a 0/1 column and `bigint` its 64-bit integer type (SQLite's
INTEGER is both).
"""

from __future__ import annotations

from records.sql import Dialect


def key_store_schema(dialect: Dialect) -> tuple[str, ...]:
    flag, bigint = dialect.flag, dialect.bigint
    return (
        f"""
        CREATE TABLE IF NOT EXISTS accounts (
            user_id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
            status TEXT NOT NULL CHECK (status IN ('active', 'deactivated', 'deleted')),
            ceiling_endpoints TEXT NOT NULL,
            ceiling_alphas TEXT NOT NULL,
            ceiling_runs TEXT NOT NULL,
            ceiling_raw_book {flag} NOT NULL CHECK (ceiling_raw_book IN (0, 1)),
            created_at TEXT NOT NULL
        )
        """,
        f"""
        CREATE TABLE IF NOT EXISTS api_keys (
            key_id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES accounts (user_id),
            name TEXT NOT NULL,
            env TEXT NOT NULL CHECK (env IN ('live', 'test')),
            secret_sha256 TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
            revoked_at TEXT,
            expires_at TEXT,
            allow_endpoints TEXT NOT NULL,
            allow_alphas TEXT NOT NULL,
            allow_runs TEXT NOT NULL,
            expose_raw_book {flag} NOT NULL CHECK (expose_raw_book IN (0, 1)),
            per_second INTEGER NOT NULL,
            per_minute INTEGER NOT NULL,
            per_day INTEGER NOT NULL,
            monthly_requests {bigint},
            ip_allow TEXT,
            created_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS api_keys_by_user ON api_keys (user_id, created_at)",
        # E-mails are stored lower-cased; the index also keeps older mixed-case rows unique.
        "CREATE UNIQUE INDEX IF NOT EXISTS accounts_email_lower ON accounts (lower(email))",
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
