"""Catalogue follow-ups: the catalogue index's work a decision leaves to do, recorded until it is done.

A decision about an alpha (`alpha-results promote`, `retire`, the build run's policy approvals)
moves its row's live split and the reference set of every row's residual columns, and with them
the score neighbours and trial links the index keeps (`pipeline.index_rows.record(...,
approvals=..., in_force=...)`). The decision is recorded with a follow-up row in the same
transaction, so the records always say when the index has not followed yet. A follow-up is done once
the index has been recorded against the standings in force; one that fails stays pending with its
attempts and last error, and is retried by the next build run, `alpha-results lake index --events`
and `alpha-results lake follow-ups` (`pipeline.operator_decisions.catch_up`). `alpha-results lake
show` lists the pending ones and `/metrics` counts them (`alpha_results_catalogue_followups_pending`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from datasets import clock
from records.sql import Database, Statement
from records.times import read_time, stored_time

# Each statement written whole (no text assembled into SQL); their columns in `followup_of`'s order.
INSERT = (
    "INSERT INTO catalogue_followups (alpha_id, cause, recorded_at, attempts) VALUES (?, ?, ?, 0) "
    "RETURNING id, alpha_id, cause, recorded_at, attempts, last_attempt_at, error, done_at"
)
PENDING = (
    "SELECT id, alpha_id, cause, recorded_at, attempts, last_attempt_at, error, done_at "
    "FROM catalogue_followups WHERE done_at IS NULL ORDER BY id"
)
PENDING_COUNT = "SELECT count(*) FROM catalogue_followups WHERE done_at IS NULL"
FAILED = (
    "UPDATE catalogue_followups SET attempts = attempts + 1, last_attempt_at = ?, error = ? "
    "WHERE id = ? AND done_at IS NULL"
)
DONE = (
    "UPDATE catalogue_followups SET attempts = attempts + 1, last_attempt_at = ?, error = NULL, done_at = ? "
    "WHERE id = ? AND done_at IS NULL"
)
HISTORY = (
    "SELECT id, alpha_id, cause, recorded_at, attempts, last_attempt_at, error, done_at "
    "FROM catalogue_followups WHERE alpha_id = ? ORDER BY id"
)


@dataclass(frozen=True)
class FollowUp:
    """One follow-up, as recorded."""

    id: int
    alpha_id: str
    cause: str
    """What left it to do: the decision's event type (`alpha.approved`, `alpha.retired`)."""
    recorded_at: dt.datetime
    attempts: int
    last_attempt_at: dt.datetime | None
    error: str | None
    """The last attempt's error (None: not tried yet, or done)."""
    done_at: dt.datetime | None

    def line(self) -> str:
        """The follow-up as `alpha-results lake show` and `lake follow-ups` print it."""
        tried = (
            "not tried yet"
            if self.last_attempt_at is None
            else f"{self.attempts} attempt(s), the last at {self.last_attempt_at.isoformat(timespec='seconds')}"
        )
        failed = "" if self.error is None else f": {self.error}"
        return (
            f"  #{self.id} {self.alpha_id}  after {self.cause} recorded at "
            f"{self.recorded_at.isoformat(timespec='seconds')}  {tried}{failed}"
        )


def followup_of(row: tuple[Any, ...]) -> FollowUp:
    recorded_at = read_time(row[3])
    assert recorded_at is not None  # NOT NULL
    return FollowUp(
        int(row[0]), row[1], row[2], recorded_at, int(row[4]), read_time(row[5]), row[6], read_time(row[7])
    )


class FollowUps:
    def __init__(self, database: Database) -> None:
        self._database = database

    def statement(self, alpha_id: str, cause: str, now: dt.datetime | None = None) -> Statement:
        """The insert of a pending follow-up, to run in the transaction of the decision that leaves
        it (`records.store.Records.decide`'s `consequences`)."""
        return (INSERT, (alpha_id, cause, stored_time(now or clock.now())))

    def pending(self) -> list[FollowUp]:
        """Every follow-up not done, oldest first."""
        rows, _ = self._database.execute(PENDING)
        return [followup_of(row) for row in rows]

    def pending_count(self) -> int:
        rows, _ = self._database.execute(PENDING_COUNT)
        return int(rows[0][0])

    def history(self, alpha_id: str) -> list[FollowUp]:
        """Every follow-up of `alpha_id`, done or not, oldest first."""
        rows, _ = self._database.execute(HISTORY, (alpha_id,))
        return [followup_of(row) for row in rows]

    def failed(self, ids: Sequence[int], error: str, now: dt.datetime | None = None) -> None:
        """An attempt at `ids` failed with `error`: they stay pending."""
        at = stored_time(now or clock.now())
        if ids:
            self._database.transaction([(FAILED, (at, error, i)) for i in ids])

    def done(self, ids: Sequence[int], now: dt.datetime | None = None) -> None:
        """An attempt at `ids` succeeded: the index follows the records."""
        at = stored_time(now or clock.now())
        if ids:
            self._database.transaction([(DONE, (at, at, i)) for i in ids])
