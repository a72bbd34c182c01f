"""`open_records`: the promotions, the events, the cursors, the webhooks and the catalogue follow-ups over the database a
URL names (the key store's, `keystore_url`), their tables created if absent."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from datasets import clock
from records.cursors import Cursors, deployment_secret
from records.databases import open_database
from records.event_log import Event, EventLog, event_of, in_id_order
from records.followups import FollowUps
from records.nominations import Nomination, Nominations, nomination_of
from records.promotions import Action, Promotion, Promotions, promotion_of
from records.sql import Database, Statement
from records.tables import records_schema
from records.times import stored_time
from records.webhooks import Webhooks
from schemas.bodies.event_data import recorded


@dataclass(frozen=True)
class Records:
    database: Database
    promotions: Promotions
    nominations: Nominations
    events: EventLog
    cursors: Cursors
    webhooks: Webhooks
    followups: FollowUps

    def decide(
        self,
        alpha_id: str,
        action: Action,
        as_of: dt.date,
        decided_by: str,
        note: str,
        build_id: str,
        snapshot: dict[str, Any],
        now: dt.datetime | None = None,
        override: str | None = None,
        consequences: Sequence[Statement] = (),
    ) -> tuple[Promotion, Event]:
        """Record a decision and its event (`alpha.approved`, `alpha.retired`) in one transaction:
        both or neither. `PromotionRefused` when it does not follow from the alpha's last one, or
        is dated other than the clock allows (an import is a snapshot with `imported_from`).
        `consequences`: what the decision causes (other alphas' `alpha.checks_changed` events),
        written in the same transaction."""
        moment = now or clock.now()
        imported_from = snapshot.get("imported_from")
        decision = self.promotions.statement(
            alpha_id, action, as_of, decided_by, note, build_id, snapshot, moment
        )
        said = recorded(
            f"alpha.{action}",
            {
                "action": action,
                "as_of": as_of.isoformat(),
                "decided_by": decided_by,
                "note": note,
                "build_id": build_id,
                # Why an alpha whose checks failed was approved all the same; absent otherwise.
                **({"override": override} if override else {}),
                # Where a decision recorded as an import was taken; absent otherwise.
                **({"imported_from": imported_from} if imported_from else {}),
            },
        )
        event = self.events.statement(f"alpha.{action}", said, alpha_id=alpha_id, now=moment)
        promotion_rows, event_rows, *_ = in_id_order(self.database, [decision, event, *consequences])
        return promotion_of(promotion_rows[0][0]), event_of(event_rows[0][0])

    def nominate(
        self, alpha_id: str, build_id: str, nominated_by: str, note: str, now: dt.datetime | None = None
    ) -> tuple[Nomination, Event]:
        """Record a nomination and its event (`alpha.nominated`) in one transaction."""
        moment = now or clock.now()
        nomination = self.nominations.statement(alpha_id, build_id, nominated_by, note, moment)
        said = recorded("alpha.nominated", {"build_id": build_id, "nominated_by": nominated_by, "note": note})
        event = self.events.statement("alpha.nominated", said, alpha_id=alpha_id, now=moment)
        nomination_rows, event_rows = in_id_order(self.database, [nomination, event])
        return nomination_of(nomination_rows[0][0]), event_of(event_rows[0][0])

    def version(self) -> tuple[int, int]:
        """What a cache of the standings is keyed by: the last decision's id and the last
        nomination's."""
        return self.promotions.version(), self.nominations.version()

    def decisions_in_force(self) -> DecisionsRead:
        """What `analytics.standings.Standings.of` is made of, read in one go."""
        return DecisionsRead(
            self.promotions.standing(), self.promotions.approvals(), self.nominations.latest()
        )

    def decisions_at(self, moment: dt.datetime) -> DecisionsRead:
        """`decisions_in_force` as the records stood at `moment`: the decisions and nominations
        recorded by then (a read route's `as_of`)."""
        at = stored_time(moment)
        assert at is not None
        latest: dict[str, Promotion] = {}
        approvals: dict[str, Promotion] = {}
        for promotion in self.promotions.recorded_by(at):
            latest[promotion.alpha_id] = promotion
            if promotion.action == "approved":
                approvals[promotion.alpha_id] = promotion
        return DecisionsRead(latest, approvals, self.nominations.latest_by(at))

    def close(self) -> None:
        self.database.close()


@dataclass(frozen=True)
class DecisionsRead:
    """Every alpha's latest decision, latest approval and latest nomination, by alpha_id."""

    latest: dict[str, Promotion]
    approvals: dict[str, Promotion]
    nominations: dict[str, Nomination]


def open_records(url: str, create: bool = True) -> Records:
    """Raises `records.sql.Unavailable` when the database cannot be opened."""
    database = open_database(url, records_schema, create=create)
    return Records(
        database=database,
        promotions=Promotions(database),
        nominations=Nominations(database),
        events=EventLog(database),
        cursors=Cursors(deployment_secret(database, "event_cursors")),
        webhooks=Webhooks(database),
        followups=FollowUps(database),
    )
