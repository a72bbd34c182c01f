"""Nominations: the review queue's entries (issue 64, item 3).

A seal may ask for its alpha to be reviewed (`nominate` in its manifest: docs/seal.md); the build
run that publishes it records a nomination, by the seal's team, of the build it published. An
operator may nominate one too (`alpha-results review --nominate`). A nomination approves nothing:
the alpha stands `nominated` in the review queue until a decision about it is recorded after it
(`alpha-results promote`, `retire`, or the written approval policy: `decided_by` policy).
Append-only, like the decisions.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from datasets import clock
from records.sql import Database, Statement
from records.times import read_time, stored_time

# Each statement written whole (no text assembled into SQL); their columns in `nomination_of`'s order.
INSERT = (
    "INSERT INTO nominations (alpha_id, build_id, nominated_by, note, recorded_at) VALUES (?, ?, ?, ?, ?) "
    "RETURNING id, alpha_id, build_id, nominated_by, note, recorded_at"
)
HISTORY = "SELECT id, alpha_id, build_id, nominated_by, note, recorded_at FROM nominations WHERE alpha_id = ? ORDER BY id"
LATEST_BY = (
    "SELECT id, alpha_id, build_id, nominated_by, note, recorded_at FROM nominations WHERE id IN "
    "(SELECT max(id) FROM nominations WHERE recorded_at <= ? GROUP BY alpha_id)"
)
LATEST = (
    "SELECT id, alpha_id, build_id, nominated_by, note, recorded_at FROM nominations "
    "WHERE id IN (SELECT max(id) FROM nominations GROUP BY alpha_id)"
)


@dataclass(frozen=True)
class Nomination:
    id: int
    alpha_id: str
    build_id: str
    nominated_by: str
    note: str
    recorded_at: dt.datetime


def nomination_of(row: tuple[Any, ...]) -> Nomination:
    recorded_at = read_time(row[5])
    assert recorded_at is not None  # NOT NULL
    return Nomination(int(row[0]), row[1], row[2], row[3], row[4], recorded_at)


class Nominations:
    def __init__(self, database: Database) -> None:
        self._database = database

    def statement(
        self, alpha_id: str, build_id: str, nominated_by: str, note: str, now: dt.datetime | None = None
    ) -> Statement:
        if not nominated_by.strip():
            raise ValueError("say who nominates")
        return (INSERT, (alpha_id, build_id, nominated_by, note, stored_time(now or clock.now())))

    def history(self, alpha_id: str) -> list[Nomination]:
        rows, _ = self._database.execute(HISTORY, (alpha_id,))
        return [nomination_of(row) for row in rows]

    def latest(self) -> dict[str, Nomination]:
        """The latest nomination of every alpha ever nominated, by alpha_id."""
        rows, _ = self._database.execute(LATEST)
        return {row[1]: nomination_of(row) for row in rows}

    def latest_by(self, moment: str) -> dict[str, Nomination]:
        """The latest nomination of every alpha recorded at or before `moment` (the stored time
        form), by alpha_id."""
        rows, _ = self._database.execute(LATEST_BY, (moment,))
        return {row[1]: nomination_of(row) for row in rows}

    def version(self) -> int:
        rows, _ = self._database.execute("SELECT coalesce(max(id), 0) FROM nominations")
        return int(rows[0][0])
