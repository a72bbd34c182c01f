"""The event log: in order, every read narrowed to what the reader may see, kept for a retention."""

from __future__ import annotations

import datetime as dt
import threading

import psycopg
import pytest

from records.event_log import Event, EventScope, Reader, Wanted
from records.postgres import PostgresDatabase
from records.store import Records, open_records
from tests.health_wait import wait_until
from tests.identity.conftest import seconds_waiting_behind

EVERYTHING = Reader(scopes=(EventScope(everything=True),))
TEST_ONLY = Reader(scopes=(EventScope(prefixes=("Test_",)), EventScope(prefixes=("Test_",))), key_id="k1")


def fill(records: Records) -> None:
    records.events.append("alpha.published", {"n": 1}, alpha_id="momentum_12_1")
    records.events.append("alpha.published", {"n": 2}, alpha_id="Test_planted_factor")
    records.events.append("build.refused", {"n": 3}, audience="admin")
    records.events.append("alpha.republished", {"n": 4}, alpha_id="test_lowercase")
    records.events.append("webhook.disabled", {"n": 5}, audience="key", key_id="k1")
    records.events.append("webhook.disabled", {"n": 6}, audience="key", key_id="k2")
    records.events.append("alpha.checks_changed", {"n": 7}, alpha_id="Test_planted_factor")


ANY = Wanted()


def numbers(records: Records, reader: Reader, wanted: Wanted = ANY) -> list[int]:
    return [event.data["n"] for event in records.events.page(reader, wanted).events]


def test_a_reader_sees_only_what_it_may(records: Records) -> None:
    fill(records)
    assert numbers(records, EVERYTHING) == [1, 2, 4, 7]
    assert numbers(records, Reader(scopes=(EventScope(everything=True),), admin=True)) == [1, 2, 3, 4, 7]
    # The prefix is exact (SQLite's LIKE would have let `test_lowercase` through), and a key sees
    # what is addressed to it, not to another key.
    assert numbers(records, TEST_ONLY) == [2, 5, 7]
    listed = Reader(
        scopes=(EventScope(ids=("momentum_12_1", "Test_planted_factor")), EventScope(ids=("momentum_12_1",)))
    )
    assert numbers(records, listed) == [1]  # both allow-lists must admit the alpha
    assert numbers(records, Reader(scopes=(EventScope(),))) == []  # an empty allow-list reads nothing


def test_pages_and_has_more_count_only_visible_events(records: Records) -> None:
    fill(records)
    first = records.events.page(TEST_ONLY, Wanted(limit=2))
    assert [e.data["n"] for e in first.events] == [2, 5] and first.has_more
    rest = records.events.page(TEST_ONLY, Wanted(after=first.events[-1].id, limit=2))
    assert [e.data["n"] for e in rest.events] == [7] and not rest.has_more
    # The last visible event ends the log for this reader, though hidden ones follow it.
    records.events.append("alpha.published", {"n": 8}, alpha_id="momentum_12_1")
    last = records.events.page(TEST_ONLY, Wanted(after=rest.events[-1].id, limit=1))
    assert last.events == [] and not last.has_more


def test_newest_first_pages_go_back_in_time(records: Records) -> None:
    """`order=newest` (the activity page, issue 64): the newest visible events first, each page older
    than the last, the same events as the feed's order reversed, filters and scope alike."""
    fill(records)
    first = records.events.page(TEST_ONLY, Wanted(limit=2, newest=True))
    assert [e.data["n"] for e in first.events] == [7, 5] and first.has_more
    rest = records.events.page(TEST_ONLY, Wanted(after=first.events[-1].id, limit=2, newest=True))
    assert [e.data["n"] for e in rest.events] == [2] and not rest.has_more
    assert numbers(records, EVERYTHING, Wanted(newest=True)) == [7, 4, 2, 1]
    assert numbers(records, EVERYTHING, Wanted(types=("alpha.published",), newest=True)) == [2, 1]


def test_filters_by_type_and_alpha(records: Records) -> None:
    fill(records)
    assert numbers(records, EVERYTHING, Wanted(types=("alpha.published",))) == [1, 2]
    assert numbers(records, EVERYTHING, Wanted(alphas=("Test_planted_factor",))) == [2, 7]
    assert numbers(records, TEST_ONLY, Wanted(alphas=("momentum_12_1",))) == []
    assert numbers(
        records, EVERYTHING, Wanted(through=records.events.page(EVERYTHING, Wanted()).events[1].id)
    ) == [1, 2]


def test_ids_only_grow_and_retention_drops_the_oldest(records: Records) -> None:
    old = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    first = records.events.append("alpha.published", {"n": 1}, alpha_id="a", now=old)
    second = records.events.append("alpha.published", {"n": 2}, alpha_id="a", now=old + dt.timedelta(days=40))
    assert second.id > first.id and records.events.last_id() == second.id
    assert records.events.purge(old + dt.timedelta(days=30)) == 1
    assert numbers(records, EVERYTHING) == [2]
    third = records.events.append("alpha.published", {"n": 3}, alpha_id="a")
    assert third.id > second.id  # a deleted id is never handed out again


def test_an_event_names_whom_it_is_for(records: Records) -> None:
    with pytest.raises(ValueError):
        records.events.append("alpha.published", {}, audience="readers")  # no alpha
    with pytest.raises(ValueError):
        records.events.append("webhook.disabled", {}, audience="key")  # no key


@pytest.mark.postgres
def test_on_postgresql_ids_follow_the_commits(postgres_schema_url: str) -> None:
    """An identity numbers a row when it is inserted, not when it commits: without the write order
    an event inserted first (id 1) and committed last would fall behind a reader that had already
    passed id 2. With it, the second writer waits for the first to commit before it is numbered."""
    records = open_records(postgres_schema_url)
    reader = Reader(scopes=(EventScope(everything=True),))
    assert isinstance(records.database, PostgresDatabase) and records.database.write_order is not None
    lock_sql, lock_params = records.database.write_order
    first = psycopg.connect(postgres_schema_url)  # a writer that takes its time to commit
    try:
        first.execute(lock_sql.replace("?", "%s"), lock_params)
        first.execute(
            "INSERT INTO events (type, alpha_id, audience, key_id, data, created_at) "
            "VALUES ('alpha.published', 'a', 'readers', NULL, '{}', '2026-11-25T00:00:00.000000Z')"
        )
        second: list[Event] = []
        writer = threading.Thread(
            target=lambda: second.append(records.events.append("alpha.published", {}, alpha_id="b"))
        )
        writer.start()
        with psycopg.connect(postgres_schema_url, autocommit=True) as watch:
            wait_until(
                lambda: seconds_waiting_behind(watch, first.info.backend_pid) is not None,
                "the second writer to wait for the first",
            )
        first.commit()
        writer.join(timeout=60)
        assert [e.alpha_id for e in records.events.page(reader, Wanted()).events] == ["a", "b"]
        assert second[0].id > records.events.page(reader, Wanted()).events[0].id
    finally:
        first.close()
        records.close()
