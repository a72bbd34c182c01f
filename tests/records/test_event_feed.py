"""The feed and the stream as the server reads the event log (`serve.records`), on SQLite and
PostgreSQL: what a caller's allow-lists let it see, the cursor to resume from, where a stream
starts, and a cursor older than the retention."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from core.context import AllowList
from delivery.event_answers import reader_of
from records.cursors import CursorInvalid, Cursors
from records.event_log import Wanted
from records.store import Records, open_records
from serve.records import SETTLE, EventsPage, RecordsSource
from tests.callers import make_caller

EVERYONE = make_caller()
TEST_ONLY = make_caller(
    key_id="t" * 16, alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])
)
DESCRIPTIONS_ONLY = make_caller(key_id="d" * 16, runs=AllowList.of_ids(["Test_a"]))
ADMIN = make_caller(key_id="a" * 16, role="admin", is_admin=True)


@pytest.fixture
def source(records: Records, store_url: str) -> Iterator[RecordsSource]:
    opened = RecordsSource(store_url)
    yield opened
    opened.close()


def page(source: RecordsSource, caller: Any, after: str | None = None, **wanted: Any) -> EventsPage:
    return asyncio.run(source.events_page(reader_of(caller), after, Wanted(**wanted)))


def numbers(found: EventsPage) -> list[int]:
    return [event.data["n"] for event in found.events]


def fill(records: Records) -> None:
    records.events.append("alpha.published", {"n": 1}, alpha_id="Test_a")
    records.events.append("alpha.published", {"n": 2}, alpha_id="momentum")
    records.events.append("build.refused", {"n": 3}, audience="admin")
    records.events.append("webhook.disabled", {"n": 4}, audience="key", key_id=TEST_ONLY.key_id)
    records.events.append("alpha.republished", {"n": 5}, alpha_id="Test_b")


def test_a_caller_sees_what_its_allow_lists_admit(records: Records, source: RecordsSource) -> None:
    fill(records)
    assert numbers(page(source, EVERYONE)) == [1, 2, 5]
    assert numbers(page(source, TEST_ONLY)) == [1, 4, 5]
    assert numbers(page(source, ADMIN)) == [1, 2, 3, 5]
    # Both allow-lists must admit the alpha: its description alone is not enough.
    assert numbers(page(source, DESCRIPTIONS_ONLY)) == [1]


def test_the_cursor_to_resume_from(records: Records, source: RecordsSource) -> None:
    start = page(source, TEST_ONLY)
    assert start.events == [] and start.next_cursor == records.cursors.write(0)  # an empty log: its start
    fill(records)
    first = page(source, TEST_ONLY, limit=2)
    assert numbers(first) == [1, 4] and first.has_more
    assert first.cursors == [records.cursors.write(e.id) for e in first.events]
    assert first.next_cursor == first.cursors[-1]
    rest = page(source, TEST_ONLY, first.next_cursor, limit=2)
    assert numbers(rest) == [5] and not rest.has_more and rest.next_cursor == rest.cursors[-1]
    # Nothing new it may see: the cursor it gave comes back, whatever else was recorded meanwhile.
    records.events.append("alpha.published", {"n": 6}, alpha_id="momentum")
    again = page(source, TEST_ONLY, rest.next_cursor)
    assert again.events == [] and again.next_cursor == rest.next_cursor
    # The start of the log, given back to a poller that has seen nothing, reads everything from it.
    assert numbers(page(source, TEST_ONLY, start.next_cursor)) == [1, 4, 5]


def test_a_cursor_of_another_deployment_is_refused(records: Records, source: RecordsSource) -> None:
    fill(records)
    with pytest.raises(CursorInvalid):
        page(source, EVERYONE, Cursors(b"another deployment").write(1))


def test_a_cursor_older_than_the_retention_resumes_at_the_oldest_kept(
    records: Records, source: RecordsSource
) -> None:
    old = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    first = records.events.append("alpha.published", {"n": 1}, alpha_id="Test_a", now=old)
    records.events.append("alpha.published", {"n": 2}, alpha_id="Test_a", now=old)
    # Older than SETTLE: right after the gap the retention made, a newer event would be waited
    # for that long (the gap could be a transaction still open: test_nothing_is_read_past...).
    records.events.append("alpha.published", {"n": 3}, alpha_id="Test_a", now=old + dt.timedelta(days=2))
    cursor = records.cursors.write(first.id)
    assert records.events.purge(old + dt.timedelta(days=1)) == 2
    assert numbers(page(source, EVERYONE, cursor)) == [3]


def test_a_stream_from_now_starts_at_the_newest_event_the_caller_may_see(
    records: Records, source: RecordsSource
) -> None:
    fill(records)
    reader = reader_of(TEST_ONLY)
    position, cursor = asyncio.run(source.stream_start(reader, None))
    newest = page(source, TEST_ONLY).events[-1]
    assert (position, cursor) == (newest.id, records.cursors.write(newest.id))
    # Events it may not see move neither the start nor its cursor.
    records.events.append("alpha.published", {"n": 6}, alpha_id="momentum")
    assert asyncio.run(source.stream_start(reader, None)) == (position, cursor)
    shown = records.events.append("alpha.published", {"n": 7}, alpha_id="Test_c")
    hidden = records.events.append("alpha.published", {"n": 8}, alpha_id="momentum")
    read = asyncio.run(source.stream_page(reader, Wanted(after=position, through=hidden.id)))
    assert [(e.data["n"], c) for e, c in read.found] == [(7, records.cursors.write(shown.id))]
    assert (read.read_through, read.held) == (hidden.id, False)
    assert asyncio.run(source.stream_start(reader, cursor)) == (position, cursor)


def test_nothing_is_read_past_an_event_still_being_committed(
    records: Records, source: RecordsSource, store_url: str
) -> None:
    """An id missing before a newer event (a transaction still open, here a row taken away) holds
    the feed and the stream before it until the newer event is `SETTLE` old."""
    first = records.events.append("alpha.published", {"n": 1}, alpha_id="Test_a")
    missing = records.events.append("alpha.published", {"n": 2}, alpha_id="Test_a")
    third = records.events.append("alpha.published", {"n": 3}, alpha_id="Test_a")
    records.database.execute("DELETE FROM events WHERE id = ?", (missing.id,))
    assert records.events.settled_through(0, third.id, SETTLE) == first.id
    later = dt.datetime.now(dt.UTC) + SETTLE + dt.timedelta(seconds=1)
    assert records.events.settled_through(0, third.id, SETTLE, now=later) == third.id
    held = page(source, EVERYONE)
    assert numbers(held) == [1] and not held.has_more and held.next_cursor == records.cursors.write(first.id)
    read = asyncio.run(source.stream_page(reader_of(EVERYONE), Wanted(after=0, through=third.id)))
    assert [e.data["n"] for e, _ in read.found] == [1] and (read.read_through, read.held) == (first.id, True)


@pytest.mark.postgres
def test_an_open_transaction_holds_the_feed_on_postgresql(postgres_schema_url: str) -> None:
    """SQLite writes one transaction at a time; PostgreSQL may commit a later id first."""
    import psycopg

    records, source = open_records(postgres_schema_url), RecordsSource(postgres_schema_url)
    try:
        records.events.append("alpha.published", {"n": 1}, alpha_id="Test_a")
        assert numbers(page(source, EVERYONE)) == [1]  # the server's records open (their schema checked)
        with psycopg.connect(postgres_schema_url) as other:  # a writer whose transaction is still open
            sql, params = records.events.statement("alpha.published", {"n": 2}, alpha_id="Test_a")
            other.execute(sql.replace("?", "%s"), params)
            records.events.append("alpha.published", {"n": 3}, alpha_id="Test_a")  # committed first
            assert numbers(page(source, EVERYONE)) == [1]  # 3 would pass over 2, not yet visible
            other.commit()
        assert numbers(page(source, EVERYONE)) == [1, 2, 3]
    finally:
        source.close()
        records.close()
