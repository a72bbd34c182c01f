"""`open_records`: the promotions, the events, the cursors and the webhooks over the database a
URL names (the key store's, `keystore_url`), their tables created if absent."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from records.cursors import Cursors, deployment_secret
from records.databases import open_database
from records.events import Event, EventLog, event_of, in_id_order
from records.promotions import Action, Promotion, Promotions, promotion_of
from records.sql import Database
from records.tables import records_schema
from records.webhooks import Webhooks
from schemas.bodies.event_data import recorded


@dataclass(frozen=True)
class Records:
    database: Database
    promotions: Promotions
    events: EventLog
    cursors: Cursors
    webhooks: Webhooks

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
    ) -> tuple[Promotion, Event]:
        """Record a decision and its event (`alpha.approved`, `alpha.retired`) in one transaction:
        both or neither. `PromotionRefused` when it does not follow from the alpha's last one."""
        moment = now or dt.datetime.now(dt.UTC)
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
            },
        )
        event = self.events.statement(f"alpha.{action}", said, alpha_id=alpha_id, now=moment)
        promotion_rows, event_rows = in_id_order(self.database, [decision, event])
        return promotion_of(promotion_rows[0][0]), event_of(event_rows[0][0])

    def close(self) -> None:
        self.database.close()


def open_records(url: str, create: bool = True) -> Records:
    """Raises `records.sql.Unavailable` when the database cannot be opened."""
    database = open_database(url, records_schema, create=create)
    return Records(
        database=database,
        promotions=Promotions(database),
        events=EventLog(database),
        cursors=Cursors(deployment_secret(database, "event_cursors")),
        webhooks=Webhooks(database),
    )
