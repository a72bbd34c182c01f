"""`open_records`: the promotions, the events and the cursors over the database a URL names (the
key store's, `keystore_url`), their tables created if absent."""

from __future__ import annotations

from dataclasses import dataclass

from records.cursors import Cursors, deployment_secret
from records.databases import open_database
from records.events import EventLog
from records.promotions import Promotions
from records.sql import Database
from records.tables import records_schema


@dataclass(frozen=True)
class Records:
    database: Database
    promotions: Promotions
    events: EventLog
    cursors: Cursors

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
    )
