"""Promotions: the operator's decisions about alphas, an append-only history.

An alpha is *approved* into the live book, or *retired* from it, by someone (a person, or the
written approval `policy`), with a note and a snapshot of what was seen (the builds, the policy
and every check's value and verdict, as JSON the caller made). The latest record of an alpha says
where it stands; nothing is ever changed or deleted, so the history is the audit trail.

**A decision is dated when it is recorded** (`recorded_at`, our clock: `datasets.clock`). Its
`as_of` is that day, except for a labelled import of a decision taken elsewhere on an earlier day
(`snapshot.imported_from` says where); a date in the future is refused, and so is an earlier one
that is not an import. Whatever its `as_of`, an approval's live part starts when it was recorded
(`analytics.tenure`), so no decision can make a session live that was known before it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Literal

from datasets import clock
from records.sql import Database, Statement
from records.times import read_time, stored_time

Action = Literal["approved", "retired"]
ACTIONS: tuple[Action, ...] = ("approved", "retired")

# Each statement written whole (no text assembled into SQL); their columns in `_promotion`'s order.
INSERT = (
    "INSERT INTO promotions (alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "RETURNING id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at"
)
HISTORY = (
    "SELECT id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at "
    "FROM promotions WHERE alpha_id = ? ORDER BY id"
)
LATEST = (
    "SELECT id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at "
    "FROM promotions WHERE alpha_id = ? ORDER BY id DESC LIMIT 1"
)
LATEST_APPROVAL = (
    "SELECT id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at "
    "FROM promotions WHERE alpha_id = ? AND action = 'approved' ORDER BY id DESC LIMIT 1"
)
STANDING = (
    "SELECT id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at "
    "FROM promotions WHERE id IN (SELECT max(id) FROM promotions GROUP BY alpha_id)"
)
RECORDED_BY = (
    "SELECT id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at "
    "FROM promotions WHERE recorded_at <= ? ORDER BY id"
)
LATEST_APPROVALS = (
    "SELECT id, alpha_id, action, as_of, decided_by, note, build_id, snapshot, recorded_at "
    "FROM promotions WHERE id IN (SELECT max(id) FROM promotions WHERE action = 'approved' GROUP BY alpha_id)"
)


@dataclass(frozen=True)
class Promotion:
    """One decision, as recorded."""

    id: int
    alpha_id: str
    action: Action
    as_of: dt.date
    decided_by: str
    note: str
    build_id: str
    snapshot: dict[str, Any]
    recorded_at: dt.datetime

    @property
    def imported_from(self) -> str | None:
        """Where a decision recorded as an import was taken (None: taken when recorded)."""
        found = self.snapshot.get("imported_from")
        return found if isinstance(found, str) and found else None


def promotion_of(row: tuple[Any, ...]) -> Promotion:
    recorded_at = read_time(row[8])
    assert recorded_at is not None  # NOT NULL
    return Promotion(
        id=int(row[0]),
        alpha_id=row[1],
        action=row[2],
        as_of=dt.date.fromisoformat(row[3]),
        decided_by=row[4],
        note=row[5],
        build_id=row[6],
        snapshot=json.loads(row[7]),
        recorded_at=recorded_at,
    )


class PromotionRefused(ValueError):
    """A decision that does not follow from the history (retiring an alpha never approved,
    approving one already approved, a date before the last decision's)."""


class Promotions:
    def __init__(self, database: Database) -> None:
        self._database = database

    def statement(
        self,
        alpha_id: str,
        action: Action,
        as_of: dt.date,
        decided_by: str,
        note: str,
        build_id: str,
        snapshot: dict[str, Any],
        now: dt.datetime | None = None,
    ) -> Statement:
        """The insert of a decision, checked against the alpha's last one and the clock
        (`PromotionRefused`), to run alone or in a transaction with what it causes
        (`records.store.Records.decide`). An import is a snapshot with `imported_from`."""
        recorded_at = now or clock.now()
        self.follows(alpha_id, action, as_of, decided_by, recorded_at, bool(snapshot.get("imported_from")))
        return (
            INSERT,
            (
                alpha_id,
                action,
                as_of.isoformat(),
                decided_by,
                note,
                build_id,
                json.dumps(snapshot, separators=(",", ":"), allow_nan=False),
                stored_time(recorded_at),
            ),
        )

    def follows(
        self,
        alpha_id: str,
        action: Action,
        as_of: dt.date,
        decided_by: str,
        now: dt.datetime | None = None,
        imported: bool = False,
    ) -> None:
        """`PromotionRefused` unless the decision follows from the alpha's last one and is dated
        as the clock allows (asked again by `statement`, in the decision's transaction)."""
        if action not in ACTIONS:
            raise PromotionRefused(f"action must be one of {', '.join(ACTIONS)}; got {action!r}")
        if not decided_by.strip():
            raise PromotionRefused("say who decided (--by)")
        refused = dated_refusal(as_of, (now or clock.now()).date(), imported)
        if refused is not None:
            raise PromotionRefused(refused)
        last = self.latest(alpha_id)
        if action == "approved" and last is not None and last.action == "approved":
            raise PromotionRefused(f"{alpha_id} is already approved (as of {last.as_of}); retire it first")
        if action == "retired" and (last is None or last.action != "approved"):
            raise PromotionRefused(f"{alpha_id} is not approved: nothing to retire")
        if last is not None and as_of < last.as_of:
            raise PromotionRefused(
                f"as of {as_of} is before the last decision about {alpha_id} ({last.as_of})"
            )

    def history(self, alpha_id: str) -> list[Promotion]:
        """Every decision about `alpha_id`, oldest first."""
        rows, _ = self._database.execute(HISTORY, (alpha_id,))
        return [promotion_of(row) for row in rows]

    def latest(self, alpha_id: str) -> Promotion | None:
        rows, _ = self._database.execute(LATEST, (alpha_id,))
        return promotion_of(rows[0]) if rows else None

    def approval(self, alpha_id: str) -> Promotion | None:
        """The latest approval of `alpha_id` (in force, or since retired); None when never approved:
        where its live (out-of-sample) part starts (`analytics.live`)."""
        rows, _ = self._database.execute(LATEST_APPROVAL, (alpha_id,))
        return promotion_of(rows[0]) if rows else None

    def standing(self) -> dict[str, Promotion]:
        """The latest decision about every alpha ever decided on, by alpha_id."""
        rows, _ = self._database.execute(STANDING)
        return {row[1]: promotion_of(row) for row in rows}

    def approvals(self) -> dict[str, Promotion]:
        """The latest approval of every alpha ever approved, by alpha_id (in force, or ended by a
        later retirement: `standing` says which)."""
        rows, _ = self._database.execute(LATEST_APPROVALS)
        return {row[1]: promotion_of(row) for row in rows}

    def recorded_by(self, moment: str) -> list[Promotion]:
        """Every decision recorded at or before `moment` (the stored time form), oldest first: the
        standings in force then (`Records.decisions_at`)."""
        rows, _ = self._database.execute(RECORDED_BY, (moment,))
        return [promotion_of(row) for row in rows]

    def version(self) -> int:
        """The id of the last decision (0 for none): what a cache of `standing` is keyed by."""
        rows, _ = self._database.execute("SELECT coalesce(max(id), 0) FROM promotions")
        return int(rows[0][0])


def dated_refusal(as_of: dt.date, today: dt.date, imported: bool) -> str | None:
    """Why a decision may not take effect on `as_of` when it is recorded on `today` (None: it may):
    a decision is dated when it is recorded; only an import of one taken elsewhere may say an
    earlier day, and none a later one."""
    if as_of > today:
        return (
            f"as of {as_of} is after today ({today}, by the records' clock): a decision takes effect when it "
            "is recorded, never later"
        )
    if as_of < today and not imported:
        return (
            f"as of {as_of} is before today ({today}): a decision is dated when it is recorded. To record one "
            'taken elsewhere on an earlier day, say where it was taken: --import "where" (its live part '
            "still starts when it is recorded)"
        )
    return None
