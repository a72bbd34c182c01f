"""The key store's tables, declared once for SQLite and PostgreSQL, and the triggers that signal
every change of a key or an account to the servers' identity caches (access/cache.py).

The dialect's `flag` is its type of a 0/1 column and `bigint` its 64-bit integer type (SQLite's
INTEGER is both).
"""

from __future__ import annotations

from records.sql import Dialect

CHANGES_CHANNEL = "ar_identity_changes"
"""The PostgreSQL channel every change of `accounts`, `account_limits` or `api_keys` is notified on.
Its payload is `key:<key_id>`, `account:<user_id>`, or `*` (a TRUNCATE: everything)."""

_WATCHED = (
    ("accounts", "account", "user_id"),
    ("account_limits", "account", "user_id"),
    ("api_keys", "key", "key_id"),
)
"""The tables whose rows the identity cache holds: (table, payload kind, the row's id column)."""


def key_store_schema(dialect: Dialect) -> tuple[str, ...]:
    return (*_tables(dialect), *change_signals(dialect))


def change_signals(dialect: Dialect) -> tuple[str, ...]:
    """Triggers on every INSERT, UPDATE and DELETE of `accounts` (and its `account_limits`) and
    `api_keys`, whoever writes
    (the store, the operator commands, SQL typed by hand), that signal the change in the writing
    transaction itself: nothing that commits a change can leave the signal out.

    - PostgreSQL: `pg_notify` on `CHANGES_CHANNEL`, naming the row; delivered to every listening
      server when (and only when) the transaction commits.
    - SQLite (one file, no notifications): the one row of `identity_version` counts changes; a
      server reads it on every request, which costs far less than reading the key and account.
    """
    if dialect.name == "postgresql":
        return (
            # TG_ARGV: the payload's kind and the id column of the table the trigger is on.
            f"""
            CREATE OR REPLACE FUNCTION identity_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_LEVEL = 'STATEMENT' THEN
                    PERFORM pg_notify('{CHANGES_CHANNEL}', '*');
                ELSIF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('{CHANGES_CHANNEL}', TG_ARGV[0] || ':' || (to_jsonb(OLD) ->> TG_ARGV[1]));
                ELSE
                    PERFORM pg_notify('{CHANGES_CHANNEL}', TG_ARGV[0] || ':' || (to_jsonb(NEW) ->> TG_ARGV[1]));
                END IF;
                RETURN NULL;
            END
            $$
            """,
            *(
                statement
                for table, kind, column in _WATCHED
                for statement in (
                    f"CREATE OR REPLACE TRIGGER {table}_changed AFTER INSERT OR UPDATE OR DELETE ON {table} "
                    f"FOR EACH ROW EXECUTE FUNCTION identity_changed('{kind}', '{column}')",
                    f"CREATE OR REPLACE TRIGGER {table}_truncated AFTER TRUNCATE ON {table} "
                    f"FOR EACH STATEMENT EXECUTE FUNCTION identity_changed('{kind}', '{column}')",
                )
            ),
        )
    return (
        """
        CREATE TABLE IF NOT EXISTS identity_version (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            version INTEGER NOT NULL
        )
        """,
        "INSERT OR IGNORE INTO identity_version (id, version) VALUES (1, 0)",
        *(
            f"CREATE TRIGGER IF NOT EXISTS {table}_{event.lower()}_counted AFTER {event} ON {table} "  # noqa: S608 (fixed names)
            "BEGIN UPDATE identity_version SET version = version + 1; END"
            for table, _, _ in _WATCHED
            for event in ("INSERT", "UPDATE", "DELETE")
        ),
    )


def _tables(dialect: Dialect) -> tuple[str, ...]:
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
        # An account's pooled envelope (`access.records.PooledLimit`), one row per account that has
        # one; NULL: no pooled cap in that window. A table of its own, not columns of `accounts`:
        # `CREATE TABLE IF NOT EXISTS` adds a table to a store made by an earlier release, never a
        # column (there are no migrations), so a store of any release opens with every statement.
        f"""
        CREATE TABLE IF NOT EXISTS account_limits (
            user_id TEXT PRIMARY KEY REFERENCES accounts (user_id),
            per_second INTEGER,
            per_minute INTEGER,
            per_day INTEGER,
            monthly_requests {bigint}
        )
        """,
        # Durable day and month request counts per key, and per account's pooled id
        # (access.usage_ledger).
        f"""
        CREATE TABLE IF NOT EXISTS key_usage (
            key_id TEXT NOT NULL,
            period TEXT NOT NULL CHECK (period IN ('day', 'month')),
            period_start {bigint} NOT NULL,
            requests {bigint} NOT NULL,
            PRIMARY KEY (key_id, period, period_start)
        )
        """,
        # Fetches of each signed download URL (access.download_fetches), in thousandths of
        # a fetch (a byte range counts its share), keyed by the SHA-256 of its signature. Not the
        # `download_fetches` table of earlier releases, which counted whole fetches: a worker of
        # this release reading those counts as thousandths would allow a URL 1000 times its limit
        # (that table is left unused; its rows expire with their URLs within the hour); `url_expires` is the URL's epoch expiry, after which the row
        # is purged.
        f"""
        CREATE TABLE IF NOT EXISTS download_fetch_units (
            signature_sha256 TEXT PRIMARY KEY,
            url_expires {bigint} NOT NULL,
            fetches INTEGER NOT NULL CHECK (fetches >= 1)
        )
        """,
        "CREATE INDEX IF NOT EXISTS download_fetch_units_by_expiry ON download_fetch_units (url_expires)",
        # A provider's person (its `iss` and `sub`) -> the account they sign in as (access.oauth
        # `account_of`, rule `subject`). Linked automatically (by verified e-mail, or by creating the
        # account) at most once per account and issuer, which the partial index holds even between
        # two sign-ins at once; an operator may link more (`accounts link`).
        """
        CREATE TABLE IF NOT EXISTS account_links (
            issuer TEXT NOT NULL,
            subject TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES accounts (user_id),
            linked_by TEXT NOT NULL CHECK (linked_by IN ('email', 'created', 'operator')),
            created_at TEXT NOT NULL,
            PRIMARY KEY (issuer, subject)
        )
        """,
        "CREATE INDEX IF NOT EXISTS account_links_by_user ON account_links (user_id)",
        "CREATE UNIQUE INDEX IF NOT EXISTS account_links_once ON account_links (issuer, user_id) "
        "WHERE linked_by <> 'operator'",
    )
