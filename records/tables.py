"""The records' tables, declared once for SQLite and PostgreSQL (`records.sql.Dialect`).

The histories are append-only: a promotion, an event or a webhook's delivery attempt is inserted
and never updated, and only the retention deletes (the oldest first). A webhook's registration and
its delivery progress, and a catalogue follow-up's progress, are the rows that change. Every `id` is numbered by the database and only
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
        # A nomination (records.nominations): a seal that asked for its alpha to be reviewed, or an
        # operator who put it in the review queue; it stands nominated until a decision follows it.
        f"""
        CREATE TABLE IF NOT EXISTS nominations (
            id {dialect.serial},
            alpha_id TEXT NOT NULL,
            build_id TEXT NOT NULL,
            nominated_by TEXT NOT NULL,
            note TEXT NOT NULL,
            recorded_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS nominations_by_alpha ON nominations (alpha_id, id)",
        # What happened (records.event_log): about one alpha (`alpha_id`), for administrators only
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
        # Events the retention never deletes (records.events.EventLog.pin): every event up to
        # `through_id`, and why (the demo's history, dated on its simulated clock: docs/events.md).
        """
        CREATE TABLE IF NOT EXISTS event_pins (
            through_id INTEGER NOT NULL,
            reason TEXT NOT NULL
        )
        """,
        # One secret of the deployment, made when the tables are (records.cursors): every process
        # that shares the database reads the same, so a cursor one worker wrote another reads.
        """
        CREATE TABLE IF NOT EXISTS record_secrets (
            name TEXT PRIMARY KEY,
            secret TEXT NOT NULL
        )
        """,
        # A webhook the operator registered for one key (records.webhooks): where its events go,
        # the secret they are signed with, which it wants (`types`, `alphas`: JSON lists, empty for
        # any) and whether it is delivered to (`state`; `changed_at`, `reason` and a random
        # `change_id` of the last change, which the worker's disabling transaction recognises).
        """
        CREATE TABLE IF NOT EXISTS webhooks (
            id TEXT PRIMARY KEY,
            key_id TEXT NOT NULL,
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            types TEXT NOT NULL,
            alphas TEXT NOT NULL,
            note TEXT NOT NULL,
            created_by TEXT NOT NULL,
            created_at TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('active', 'disabled', 'removed')),
            changed_at TEXT,
            reason TEXT,
            change_id TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS webhooks_by_key ON webhooks (key_id, created_at)",
        # How far each webhook's delivery has come: every event up to `delivered_through` is done
        # (delivered, or skipped because its key may not see it); `pending_event` is being retried
        # (`failures` so far, the first at `failing_since`, the next at `next_attempt_at`).
        f"""
        CREATE TABLE IF NOT EXISTS webhook_progress (
            webhook_id TEXT PRIMARY KEY REFERENCES webhooks (id),
            delivered_through {dialect.bigint} NOT NULL,
            pending_event {dialect.bigint},
            failures INTEGER NOT NULL,
            failing_since TEXT,
            next_attempt_at TEXT
        )
        """,
        # Every delivery attempt, appended (deleted only with the events' retention): the event,
        # its attempt number, when, the outcome, the HTTP status or the error, how long it took
        # (microseconds), when the next attempt is due, and the worker that made it.
        f"""
        CREATE TABLE IF NOT EXISTS webhook_attempts (
            id {dialect.serial},
            webhook_id TEXT NOT NULL REFERENCES webhooks (id),
            event_id {dialect.bigint} NOT NULL,
            attempt INTEGER NOT NULL,
            attempted_at TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'skipped')),
            http_status INTEGER,
            error TEXT,
            duration_us {dialect.bigint} NOT NULL,
            next_attempt_at TEXT,
            worker TEXT NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS webhook_attempts_by_webhook ON webhook_attempts (webhook_id, id)",
        "CREATE INDEX IF NOT EXISTS webhook_attempts_by_time ON webhook_attempts (attempted_at)",
        # A webhook's signing keys besides its current HMAC secret (`webhooks.secret`, records.
        # webhooks.SigningKey): an HMAC secret (`v1`) replaced by a rotation, which still signs
        # until `retires_at`, and its Ed25519 private keys (`v1a`: the current one, `retires_at`
        # NULL, and one being replaced). A table of its own, so a database made before it gains it.
        f"""
        CREATE TABLE IF NOT EXISTS webhook_signing_keys (
            id {dialect.serial},
            webhook_id TEXT NOT NULL REFERENCES webhooks (id),
            scheme TEXT NOT NULL CHECK (scheme IN ('v1', 'v1a')),
            secret TEXT NOT NULL,
            retires_at TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS webhook_signing_keys_by_webhook ON webhook_signing_keys (webhook_id, id)",
        # An operator's replay of a range of a webhook's events (records.webhooks.Replay, issue 60):
        # its progress was moved back to before `first_event`; once the events through
        # `last_event` are done it resumes after `resume_after`, where it was. A table of its own.
        f"""
        CREATE TABLE IF NOT EXISTS webhook_replays (
            webhook_id TEXT PRIMARY KEY REFERENCES webhooks (id),
            first_event {dialect.bigint} NOT NULL,
            last_event {dialect.bigint} NOT NULL,
            resume_after {dialect.bigint} NOT NULL,
            asked_by TEXT NOT NULL,
            asked_at TEXT NOT NULL
        )
        """,
        # The catalogue index's work a decision leaves to do (records.followups): inserted with the
        # decision, `done_at` set once the index follows the records; a failed attempt counts in
        # `attempts` with its `error`, and the row stays pending until a retry succeeds.
        f"""
        CREATE TABLE IF NOT EXISTS catalogue_followups (
            id {dialect.serial},
            alpha_id TEXT NOT NULL,
            cause TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            last_attempt_at TEXT,
            error TEXT,
            done_at TEXT
        )
        """,
        "CREATE INDEX IF NOT EXISTS catalogue_followups_pending ON catalogue_followups (done_at, id)",
        # Who delivers (records.webhooks.Lease): one row per lease, taken atomically by one worker
        # and renewed by it; another takes it only once it has expired.
        """
        CREATE TABLE IF NOT EXISTS webhook_leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at TEXT NOT NULL
        )
        """,
    )
