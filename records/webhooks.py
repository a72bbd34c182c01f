"""Webhooks: where a key's events are pushed, how far each delivery has come, every attempt, and
the lease that makes one worker the deliverer.

A webhook is registered by the operator for one key (`delivery/webhooks.py`, `alpha-results webhooks
add`) and receives, in order, the events that key may see when each is delivered (the delivery
worker, `delivery/deliveries.py`, decides that; this module only stores). Its progress is durable:
every event up to `delivered_through` is done, so a worker that restarts resumes where the last
one stopped, and re-delivers an event whose delivery it never recorded (at least once).

Every write of the worker is *fenced* by the lease (`webhook_leases`): its statements run only
while the worker still holds the lease, in the same transaction that renews it. A worker that
stalled past its lease and woke up after another took over writes nothing (its attempt was a
duplicate delivery, with the same event id, which receivers de-duplicate), and progress only moves
forward (`delivered_through < ?`), so no interleaving loses an event.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from records.event_log import Event, EventLog, Reader, chosen_sql, event_of, in_id_order, visible_sql
from records.sql import Database, Statement
from records.times import read_time, stored_time

State = Literal["active", "disabled", "removed"]
Outcome = Literal["delivered", "failed", "skipped"]
Scheme = Literal["v1", "v1a"]
"""Standard Webhooks' signature schemes: `v1` HMAC-SHA256 with a shared secret, `v1a` Ed25519."""

WEBHOOK_ID_PREFIX = "wh_"
WEBHOOK_COLUMNS = (
    "id, key_id, url, secret, types, alphas, note, created_by, created_at, state, changed_at, reason"
)
PROGRESS_COLUMNS = "delivered_through, pending_event, failures, failing_since, next_attempt_at"
ATTEMPT_COLUMNS = (
    "id, webhook_id, event_id, attempt, attempted_at, outcome, http_status, error, duration_us, "
    "next_attempt_at, worker"
)
EVENT_COLUMNS = "id, type, alpha_id, audience, key_id, data, created_at"

# Each statement written whole (no caller text enters SQL); columns in the readers' order.
SELECT_WEBHOOK = (
    f"SELECT {WEBHOOK_COLUMNS}, {PROGRESS_COLUMNS} FROM webhooks "  # noqa: S608 (fixed column names)
    "JOIN webhook_progress ON webhook_progress.webhook_id = webhooks.id "
)
# Every write of the worker ends in `EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder
# = ?)`: true while the lease it names is held by the worker that writes.


@dataclass(frozen=True)
class Progress:
    delivered_through: int
    """Every event id up to this is done (delivered, or skipped for access)."""
    pending_event: int | None
    """The event being retried, None when none is."""
    failures: int
    failing_since: dt.datetime | None
    next_attempt_at: dt.datetime | None


@dataclass(frozen=True)
class Webhook:
    id: str
    key_id: str
    url: str
    secret: str
    """The current HMAC secret (`whsec_`); the other keys are in `webhook_signing_keys`."""
    types: tuple[str, ...]
    alphas: tuple[str, ...]
    note: str
    created_by: str
    created_at: dt.datetime
    state: State
    changed_at: dt.datetime | None
    reason: str | None
    progress: Progress


@dataclass(frozen=True)
class SigningKey:
    """One key a delivery is signed with now (`Webhooks.signing_keys`)."""

    scheme: Scheme
    secret: str
    """`whsec_...` (v1, the secret the receiver holds too) or `whsk_...` (v1a, the private key)."""
    retires_at: dt.datetime | None
    """When a replaced key stops signing; None for the current key of its scheme."""


@dataclass(frozen=True)
class Replay:
    """An operator's replay of a webhook's events `first_event` to `last_event` (ids): delivered
    again in order, then the webhook resumes after `resume_after`, the progress it had."""

    first_event: int
    last_event: int
    resume_after: int
    asked_by: str
    asked_at: dt.datetime


@dataclass(frozen=True)
class Attempt:
    id: int
    webhook_id: str
    event_id: int
    attempt: int
    attempted_at: dt.datetime
    outcome: Outcome
    http_status: int | None
    error: str | None
    duration_us: int
    next_attempt_at: dt.datetime | None
    worker: str


def _time(text: str) -> dt.datetime:
    moment = read_time(text)
    assert moment is not None  # NOT NULL
    return moment


def webhook_of(row: Sequence[Any]) -> Webhook:
    return Webhook(
        id=row[0],
        key_id=row[1],
        url=row[2],
        secret=row[3],
        types=tuple(json.loads(row[4])),
        alphas=tuple(json.loads(row[5])),
        note=row[6],
        created_by=row[7],
        created_at=_time(row[8]),
        state=row[9],
        changed_at=read_time(row[10]),
        reason=row[11],
        progress=Progress(
            delivered_through=int(row[12]),
            pending_event=None if row[13] is None else int(row[13]),
            failures=int(row[14]),
            failing_since=read_time(row[15]),
            next_attempt_at=read_time(row[16]),
        ),
    )


def attempt_of(row: Sequence[Any]) -> Attempt:
    return Attempt(
        id=int(row[0]),
        webhook_id=row[1],
        event_id=int(row[2]),
        attempt=int(row[3]),
        attempted_at=_time(row[4]),
        outcome=row[5],
        http_status=None if row[6] is None else int(row[6]),
        error=row[7],
        duration_us=int(row[8]),
        next_attempt_at=read_time(row[9]),
        worker=row[10],
    )


@dataclass(frozen=True)
class Lease:
    """A worker's claim on delivering: `name` (one per deployment: `deliveries`), held by `holder`
    (unique per worker process) for `seconds` after each renewal."""

    holder: str
    seconds: float
    name: str = "deliveries"


@dataclass(frozen=True)
class Tried:
    """One attempt, as the worker reports it."""

    webhook_id: str
    event_id: int
    attempt: int
    at: dt.datetime
    outcome: Outcome
    duration_us: int = 0
    http_status: int | None = None
    error: str | None = None
    next_attempt_at: dt.datetime | None = None


@dataclass(frozen=True)
class Backlog:
    """How the deliveries stand, for the server's metrics (`Webhooks.backlog`)."""

    by_state: dict[str, int]
    """Webhooks per state, removed ones left out."""
    failing: int
    """Active webhooks whose next event failed its last attempt (retried later)."""
    oldest_undelivered: dt.datetime | None
    """When the oldest event an active webhook still waits for was created (None: none waits)."""
    attempts: dict[str, int]
    """Attempts recorded since the time asked, by outcome (delivered, failed, skipped)."""


class Webhooks:
    def __init__(self, database: Database) -> None:
        self._database = database

    def backlog(self, through: int, attempts_since: dt.datetime) -> Backlog:
        """The deliveries' state up to event `through` (the newest event), and the attempts since
        `attempts_since`: one query per active webhook for its next event, as the delivery worker
        asks it (`next_event`), and one over the attempts' time index."""
        rows, _ = self._database.execute(
            "SELECT state, count(*) FROM webhooks WHERE state <> 'removed' GROUP BY state"
        )
        active = self.active()
        waiting = [event.created_at for w in active if (event := self.next_event(w, through)) is not None]
        tried, _ = self._database.execute(
            "SELECT outcome, count(*) FROM webhook_attempts WHERE attempted_at >= ? GROUP BY outcome",
            (stored_time(attempts_since),),
        )
        return Backlog(
            by_state={str(state): int(count) for state, count in rows},
            failing=sum(1 for w in active if w.progress.failures > 0),
            oldest_undelivered=min(waiting, default=None),
            attempts={str(outcome): int(count) for outcome, count in tried},
        )

    # -- the operator's -----------------------------------------------------------------------

    def register(
        self,
        key_id: str,
        url: str,
        secret: str,
        types: Sequence[str],
        alphas: Sequence[str],
        note: str,
        created_by: str,
        now: dt.datetime | None = None,
        private_key: str | None = None,
    ) -> Webhook:
        """A new active webhook, delivering the events appended from now on (its progress starts at
        the log's newest event), signed with `secret` and, when given, the Ed25519 `private_key`."""
        webhook_id = WEBHOOK_ID_PREFIX + secrets.token_hex(8)
        asymmetric: list[Statement] = []
        if private_key is not None:
            asymmetric.append(
                (
                    "INSERT INTO webhook_signing_keys (webhook_id, scheme, secret, retires_at) "
                    "VALUES (?, 'v1a', ?, NULL)",
                    (webhook_id, private_key),
                )
            )
        self._database.transaction(
            [
                (
                    f"INSERT INTO webhooks ({WEBHOOK_COLUMNS}) "  # noqa: S608 (fixed column names)
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', NULL, NULL)",
                    (
                        webhook_id,
                        key_id,
                        url,
                        secret,
                        json.dumps(list(types)),
                        json.dumps(list(alphas)),
                        note,
                        created_by,
                        stored_time(now or dt.datetime.now(dt.UTC)),
                    ),
                ),
                (
                    f"INSERT INTO webhook_progress (webhook_id, {PROGRESS_COLUMNS}) "  # noqa: S608
                    "SELECT ?, coalesce(max(id), 0), NULL, 0, NULL, NULL FROM events",
                    (webhook_id,),
                ),
                *asymmetric,
            ]
        )
        found = self.get(webhook_id)
        assert found is not None
        return found

    def get(self, webhook_id: str) -> Webhook | None:
        rows, _ = self._database.execute(SELECT_WEBHOOK + "WHERE webhooks.id = ?", (webhook_id,))
        return webhook_of(rows[0]) if rows else None

    def listed(self, key_id: str | None = None, include_removed: bool = False) -> list[Webhook]:
        """The webhooks (of one key), oldest first; removed ones only when asked."""
        conditions, params = ["1 = 1"], []
        if key_id is not None:
            conditions.append("key_id = ?")
            params.append(key_id)
        if not include_removed:
            conditions.append("state <> 'removed'")
        rows, _ = self._database.execute(
            SELECT_WEBHOOK + "WHERE " + " AND ".join(conditions) + " ORDER BY created_at, webhooks.id",
            params,
        )
        return [webhook_of(row) for row in rows]

    def active(self) -> list[Webhook]:
        rows, _ = self._database.execute(
            SELECT_WEBHOOK + "WHERE state = 'active' ORDER BY created_at, webhooks.id"
        )
        return [webhook_of(row) for row in rows]

    def set_state(self, webhook_id: str, state: State, reason: str, now: dt.datetime | None = None) -> bool:
        """Disable, enable or remove (an operator's change); False when the webhook is unknown or
        removed (a removed webhook stays removed). Enabling clears the pending retry, so the event
        it stopped at is tried again at once."""
        moment = stored_time(now or dt.datetime.now(dt.UTC))
        statements: list[Statement] = [
            (
                "UPDATE webhooks SET state = ?, changed_at = ?, reason = ?, change_id = ?, "
                "secret = CASE WHEN ? = 'removed' THEN '' ELSE secret END "
                "WHERE id = ? AND state <> 'removed'",
                (state, moment, reason, secrets.token_hex(8), state, webhook_id),
            )
        ]
        if state == "removed":  # its keys go with its secret
            statements.append(("DELETE FROM webhook_signing_keys WHERE webhook_id = ?", (webhook_id,)))
        if state == "active":
            statements.append(
                (
                    "UPDATE webhook_progress SET failures = 0, failing_since = NULL, "
                    "next_attempt_at = NULL WHERE webhook_id = ?",
                    (webhook_id,),
                )
            )
        results = self._database.transaction(statements)
        return results[0][1] == 1

    def signing_keys(self, webhook_id: str, now: dt.datetime) -> list[SigningKey]:
        """The keys a delivery of the webhook is signed with at `now`, in one read (a rotation is
        seen whole or not at all): its current HMAC secret, those replaced but not yet retired, and
        its Ed25519 keys; current keys first. None when the webhook is removed or unknown."""
        rows, _ = self._database.execute(
            "SELECT 'v1', secret, NULL, 0 FROM webhooks WHERE id = ? AND state <> 'removed' "
            "UNION ALL SELECT scheme, secret, retires_at, id FROM webhook_signing_keys "
            "WHERE webhook_id = ? AND (retires_at IS NULL OR retires_at > ?) "
            "AND EXISTS (SELECT 1 FROM webhooks WHERE id = ? AND state <> 'removed')",
            (webhook_id, webhook_id, stored_time(now), webhook_id),
        )
        ordered = sorted(rows, key=lambda row: (row[0], row[2] is not None, int(row[3])))
        return [SigningKey(row[0], row[1], read_time(row[2])) for row in ordered]

    def rotate(
        self, webhook_id: str, scheme: Scheme, secret: str, old_retires_at: dt.datetime, now: dt.datetime
    ) -> bool:
        """Make `secret` the webhook's current key of `scheme`, in one transaction: every key of
        that scheme it replaces (the current one, and any still retiring from an earlier rotation)
        signs until `old_retires_at` at the latest, and keys retired by `now` are deleted (those it
        replaces too, when `old_retires_at` is not after `now`: a leaked key). False when the
        webhook is removed or unknown (nothing written)."""
        retire = stored_time(old_retires_at)
        statements: list[Statement] = [
            (
                "UPDATE webhook_signing_keys SET retires_at = ? WHERE webhook_id = ? AND scheme = ? "
                "AND (retires_at IS NULL OR retires_at > ?)",
                (retire, webhook_id, scheme, retire),
            )
        ]
        if scheme == "v1":  # the current secret is the webhook's own column: kept here meanwhile
            statements.append(
                (
                    "INSERT INTO webhook_signing_keys (webhook_id, scheme, secret, retires_at) "
                    "SELECT id, 'v1', secret, ? FROM webhooks WHERE id = ? AND state <> 'removed'",
                    (retire, webhook_id),
                )
            )
        statements.append(
            (
                "DELETE FROM webhook_signing_keys WHERE webhook_id = ? AND retires_at <= ?",
                (webhook_id, stored_time(now)),
            )
        )
        if scheme == "v1":
            statements.append(
                (
                    "UPDATE webhooks SET secret = ? WHERE id = ? AND state <> 'removed'",
                    (secret, webhook_id),
                )
            )
        else:
            statements.append(
                (
                    "INSERT INTO webhook_signing_keys (webhook_id, scheme, secret, retires_at) "
                    "SELECT ?, 'v1a', ?, NULL "
                    "WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ? AND state <> 'removed')",
                    (webhook_id, secret, webhook_id),
                )
            )
        results = self._database.transaction(statements)
        return bool(results[-1][1] == 1)  # the new key written

    def skip_to_now(self, webhook_id: str) -> None:
        """Move the progress to the log's newest event (an operator enabling without the backlog)."""
        self._database.execute(
            "UPDATE webhook_progress SET delivered_through = (SELECT coalesce(max(id), 0) FROM events), "
            "pending_event = NULL, failures = 0, failing_since = NULL, next_attempt_at = NULL "
            "WHERE webhook_id = ?",
            (webhook_id,),
        )

    def replay(self, webhook_id: str, first: int, last: int, by: str, now: dt.datetime) -> Replay | None:
        """Deliver the webhook's events `first` to `last` again (an operator's): its progress moved
        back to before `first` (any retry pending cleared), and the replay recorded with where it
        resumes after (the progress it had, or `last` when that is further). A replay asked while
        one runs replaces it, resuming where the first would have. None when the webhook is removed
        or unknown."""
        moment = stored_time(now)
        results = self._database.transaction(
            [
                (
                    "INSERT INTO webhook_replays (webhook_id, first_event, last_event, resume_after, asked_by, "
                    "asked_at) SELECT webhook_id, ?, ?, "
                    "CASE WHEN coalesce((SELECT resume_after FROM webhook_replays r WHERE r.webhook_id = ?), "
                    "delivered_through) > ? THEN coalesce((SELECT resume_after FROM webhook_replays r "
                    "WHERE r.webhook_id = ?), delivered_through) ELSE ? END, ?, ? "
                    "FROM webhook_progress WHERE webhook_id = ? AND EXISTS (SELECT 1 FROM webhooks "
                    "WHERE id = ? AND state <> 'removed') "
                    "ON CONFLICT (webhook_id) DO UPDATE SET first_event = excluded.first_event, "
                    "last_event = excluded.last_event, resume_after = excluded.resume_after, "
                    "asked_by = excluded.asked_by, asked_at = excluded.asked_at",
                    (first, last, webhook_id, last, webhook_id, last, by, moment, webhook_id, webhook_id),
                ),
                (
                    "UPDATE webhook_progress SET delivered_through = ?, pending_event = NULL, failures = 0, "
                    "failing_since = NULL, next_attempt_at = NULL WHERE webhook_id = ? AND EXISTS "
                    "(SELECT 1 FROM webhook_replays WHERE webhook_id = ? AND asked_at = ?)",
                    (first - 1, webhook_id, webhook_id, moment),
                ),
            ]
        )
        return self.replay_of(webhook_id) if results[1][1] == 1 else None

    def replay_of(self, webhook_id: str) -> Replay | None:
        rows, _ = self._database.execute(
            "SELECT first_event, last_event, resume_after, asked_by, asked_at FROM webhook_replays "
            "WHERE webhook_id = ?",
            (webhook_id,),
        )
        if not rows:
            return None
        first, last, resume, by, at = rows[0]
        return Replay(int(first), int(last), int(resume), str(by), _time(at))

    def end_replay(self, lease: Lease, webhook_id: str, replay: Replay) -> bool:
        """The replay done (every event through its last one delivered or skipped): the webhook
        resumes after `replay.resume_after`. False when the lease was lost or the replay changed."""
        _, ended = self._fenced(
            lease,
            [
                (
                    "UPDATE webhook_progress SET delivered_through = ? WHERE webhook_id = ? AND "
                    "delivered_through < ? AND EXISTS (SELECT 1 FROM "
                    "webhook_replays WHERE webhook_id = ? AND last_event = ? AND asked_at = ?) AND "
                    "EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
                    (
                        replay.resume_after,
                        webhook_id,
                        replay.resume_after,
                        webhook_id,
                        replay.last_event,
                        stored_time(replay.asked_at),
                        lease.name,
                        lease.holder,
                    ),
                ),
                (
                    "DELETE FROM webhook_replays WHERE webhook_id = ? AND last_event = ? AND asked_at = ? "
                    "AND EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
                    (webhook_id, replay.last_event, stored_time(replay.asked_at), lease.name, lease.holder),
                ),
            ],
        )
        return bool(ended[1] == 1)  # the replay's row deleted: the progress is where it resumes

    def attempts(self, webhook_id: str, limit: int = 50) -> list[Attempt]:
        """The last `limit` attempts of a webhook, oldest first."""
        rows, _ = self._database.execute(
            f"SELECT {ATTEMPT_COLUMNS} FROM webhook_attempts "  # noqa: S608 (fixed column names)
            "WHERE webhook_id = ? ORDER BY id DESC LIMIT ?",
            (webhook_id, limit),
        )
        return [attempt_of(row) for row in reversed(rows)]

    def purge_attempts(self, before: dt.datetime) -> int:
        """Delete the attempts made before `before` (the events' retention); how many went."""
        _, count = self._database.execute(
            "DELETE FROM webhook_attempts WHERE attempted_at < ?", (stored_time(before),)
        )
        return count

    # -- the worker's -------------------------------------------------------------------------

    def take_lease(self, lease: Lease, now: dt.datetime) -> bool:
        """Take or renew `lease` for `lease.seconds` from `now`: True when `lease.holder` holds it
        afterwards. One statement, so two workers racing for it cannot both win: the row is
        written only when absent, already ours, or expired."""
        until = stored_time(now + dt.timedelta(seconds=lease.seconds))
        rows, _ = self._database.execute(
            "INSERT INTO webhook_leases (name, holder, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
            "WHERE webhook_leases.holder = excluded.holder OR webhook_leases.expires_at < ? "
            "RETURNING holder",
            (lease.name, lease.holder, until, stored_time(now)),
        )
        return bool(rows)

    def lease_holder(self, name: str = "deliveries") -> tuple[str, dt.datetime] | None:
        rows, _ = self._database.execute(
            "SELECT holder, expires_at FROM webhook_leases WHERE name = ?", (name,)
        )
        return (rows[0][0], _time(rows[0][1])) if rows else None

    def release_lease(self, lease: Lease) -> None:
        """Give the lease up (a worker stopping), so the next one need not wait for it to expire."""
        self._database.execute(
            "DELETE FROM webhook_leases WHERE name = ? AND holder = ?", (lease.name, lease.holder)
        )

    def event_ids_after(self, after: int, limit: int) -> list[tuple[int, dt.datetime]]:
        """The ids of the events after `after` and when each was created, in order (the worker's
        horizon, `delivery.deliveries`)."""
        rows, _ = self._database.execute(
            "SELECT id, created_at FROM events WHERE id > ? ORDER BY id LIMIT ?", (after, limit)
        )
        return [(int(row[0]), _time(row[1])) for row in rows]

    def next_event(self, webhook: Webhook, through: int) -> Event | None:
        """The first event after the webhook's progress, up to `through`, that its filters select
        and that could be its key's: about an alpha, for administrators, or addressed to this key
        (whether the key may see it *now* is the worker's to decide, and recorded)."""
        conditions = ["id > ?", "id <= ?", "(audience <> 'key' OR key_id = ?)"]
        params: list[Any] = [webhook.progress.delivered_through, through, webhook.key_id]
        chosen, chosen_params = chosen_sql(webhook.types, webhook.alphas)
        conditions += chosen
        params += chosen_params
        rows, _ = self._database.execute(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE "  # noqa: S608 (fixed words and markers)
            + " AND ".join(conditions)
            + " ORDER BY id LIMIT 1",
            params,
        )
        return event_of(rows[0]) if rows else None

    def visible(self, reader: Reader, event_id: int) -> bool:
        """Whether `reader` may see the event `event_id`: the rule of every read of the log
        (`records.event_log.visible_sql`, as `GET /v1/events` applies it), on one event."""
        condition, params = visible_sql(reader)
        rows, _ = self._database.execute(
            "SELECT 1 FROM events WHERE id = ? AND " + condition,  # noqa: S608 (markers and fixed words)
            (event_id, *params),
        )
        return bool(rows)

    def _fenced(self, lease: Lease, statements: list[Statement], events: bool = False) -> list[Any]:
        """Run `statements` after renewing the lease, in one transaction; each of them carries the
        lease's condition, so none writes unless `lease.holder` still holds the lease (on PostgreSQL
        the renewal locks the lease's row until the commit, so no one takes it in between)."""
        until = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=lease.seconds)
        renew: Statement = (
            "UPDATE webhook_leases SET expires_at = ? WHERE name = ? AND holder = ?",
            (stored_time(until), lease.name, lease.holder),
        )
        if events:  # it inserts an event: in the order the ids say (records.event_log.in_id_order)
            return in_id_order(self._database, [renew, *statements])[1:]
        return self._database.transaction([renew, *statements])[1:]

    @staticmethod
    def _attempt(lease: Lease, tried: Tried) -> Statement:
        # The CASTs type the parameters for PostgreSQL (a NULL status, say), as SELECT gives none.
        return (
            "INSERT INTO webhook_attempts (webhook_id, event_id, attempt, attempted_at, outcome, "
            "http_status, error, duration_us, next_attempt_at, worker) "
            "SELECT ?, CAST(? AS BIGINT), CAST(? AS INTEGER), ?, ?, CAST(? AS INTEGER), ?, "
            "CAST(? AS BIGINT), ?, ? WHERE EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
            (
                tried.webhook_id,
                tried.event_id,
                tried.attempt,
                stored_time(tried.at),
                tried.outcome,
                tried.http_status,
                tried.error,
                tried.duration_us,
                stored_time(tried.next_attempt_at),
                lease.holder,
                lease.name,
                lease.holder,
            ),
        )

    def finish(self, lease: Lease, tried: Tried) -> bool:
        """Record a delivered (2xx) or skipped event and move the progress past it; False when the
        lease was lost (nothing written)."""
        assert tried.outcome in ("delivered", "skipped")
        attempt, _ = self._fenced(
            lease,
            [
                self._attempt(lease, tried),
                (
                    "UPDATE webhook_progress SET delivered_through = ?, pending_event = NULL, "
                    "failures = 0, failing_since = NULL, next_attempt_at = NULL "
                    "WHERE webhook_id = ? AND delivered_through < ? AND "
                    # A replay asked while this attempt was under way moved the progress back:
                    # it is kept (the event is sent again with the range).
                    "NOT EXISTS (SELECT 1 FROM webhook_replays WHERE webhook_id = ? AND asked_at > ?) AND "
                    "EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
                    (
                        tried.event_id,
                        tried.webhook_id,
                        tried.event_id,
                        tried.webhook_id,
                        stored_time(tried.at),
                        lease.name,
                        lease.holder,
                    ),
                ),
            ],
        )
        return bool(attempt[1] == 1)

    def retry_later(self, lease: Lease, tried: Tried, failing_since: dt.datetime) -> bool:
        """Record a failed attempt and when the event is tried next; False when the lease was lost."""
        assert tried.outcome == "failed" and tried.next_attempt_at is not None
        attempt, _ = self._fenced(
            lease,
            [
                self._attempt(lease, tried),
                (
                    "UPDATE webhook_progress SET pending_event = ?, failures = ?, failing_since = ?, "
                    "next_attempt_at = ? "
                    "WHERE webhook_id = ? AND delivered_through < ? AND "
                    "EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
                    (
                        tried.event_id,
                        tried.attempt,
                        stored_time(failing_since),
                        stored_time(tried.next_attempt_at),
                        tried.webhook_id,
                        tried.event_id,
                        lease.name,
                        lease.holder,
                    ),
                ),
            ],
        )
        return bool(attempt[1] == 1)

    def give_up(
        self, lease: Lease, tried: Tried, webhook: Webhook, reason: str, said: dict[str, Any]
    ) -> bool:
        """Record the last failed attempt, disable the webhook (`reason`) and append its
        `webhook.disabled` event (`said`, for its key only), all in one transaction; the event is
        written only when this transaction is the one that disabled it. False when the lease was
        lost or the webhook was no longer active."""
        assert tried.outcome == "failed"
        moment, change_id = stored_time(tried.at), secrets.token_hex(8)
        event_sql, event_params = EventLog.statement(
            "webhook.disabled", said, audience="key", key_id=webhook.key_id, now=tried.at
        )
        columns = "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) VALUES"
        # The event log's own insert (its checks and its JSON), made conditional: inserted only when
        # the UPDATE before it disabled the webhook (its `change_id` is this transaction's).
        assert event_sql.startswith(columns), "records.event_log.EventLog.statement changed its columns"
        attempt, progress, disabled, event = self._fenced(
            lease,
            [
                self._attempt(lease, tried),
                (
                    "UPDATE webhook_progress SET pending_event = ?, failures = ?, next_attempt_at = NULL "
                    "WHERE webhook_id = ? AND delivered_through < ? AND "
                    "EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
                    (
                        tried.event_id,
                        tried.attempt,
                        tried.webhook_id,
                        tried.event_id,
                        lease.name,
                        lease.holder,
                    ),
                ),
                (
                    "UPDATE webhooks SET state = 'disabled', changed_at = ?, reason = ?, change_id = ? "
                    "WHERE id = ? AND state = 'active' AND "
                    "EXISTS (SELECT 1 FROM webhook_leases WHERE name = ? AND holder = ?)",
                    (moment, reason, change_id, webhook.id, lease.name, lease.holder),
                ),
                (
                    "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) "
                    "SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhooks "
                    "WHERE id = ? AND state = 'disabled' AND change_id = ?)",
                    (*event_params, webhook.id, change_id),
                ),
            ],
            events=True,
        )
        return bool(disabled[1] == 1 and event[1] == 1)
