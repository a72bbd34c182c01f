"""Where every alpha stands, as the server reads it from its records (`serve.records.RecordsSource
.standings`), on SQLite and PostgreSQL: the latest decision about each alpha, read again only when
a decision was recorded since (the records' version, the last decision's id), so a request never
reads every alpha's decisions when nothing changed, and the next one after a decision sees it."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator

import pytest

from analytics.standings import Standings
from records.promotions import Action, Promotion
from records.store import Records
from serve.records import RecordsSource
from tests.decided import decide_on


@pytest.fixture
def source(records: Records, store_url: str) -> Iterator[RecordsSource]:
    opened = RecordsSource(store_url)
    yield opened
    opened.close()


def standings(source: RecordsSource) -> Standings:
    return asyncio.run(source.standings())


def decide(records: Records, alpha: str, action: Action, as_of: str) -> None:
    """The decision recorded on `as_of`'s clock (a decision is dated when it is recorded)."""
    decide_on(records, alpha, action, as_of, build_id="build")


def test_the_standings_follow_each_decision_and_are_read_once_per_version(
    records: Records, source: RecordsSource, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = standings(source)
    assert (dict(empty.approved), empty.retired) == ({}, frozenset())

    decide(records, "Test_a", "approved", "2021-09-30")
    decide(records, "Test_b", "approved", "2021-10-01")
    first = standings(source)
    assert dict(first.approved) == {"Test_a": dt.date(2021, 9, 30), "Test_b": dt.date(2021, 10, 1)}

    # Nothing recorded since: the same standings, without reading every alpha's decisions again.
    reads: list[int] = []
    opened = source._opened()
    real = opened.promotions.standing

    def counted() -> dict[str, Promotion]:
        reads.append(1)
        return real()

    monkeypatch.setattr(opened.promotions, "standing", counted)
    assert standings(source) is first and standings(source) is first
    assert reads == []

    # A decision (here written by another connection, as the CLI writes it): read at the next call.
    decide(records, "Test_b", "retired", "2021-12-31")
    decide(records, "Test_c", "approved", "2022-01-03")
    second = standings(source)
    assert reads == [1]
    assert dict(second.approved) == {"Test_a": dt.date(2021, 9, 30), "Test_c": dt.date(2022, 1, 3)}
    assert second.retired == frozenset({"Test_b"})
    assert [second.standing(a) for a in ("Test_a", "Test_b", "Test_c", "Test_d")] == [
        "approved",
        "retired",
        "approved",
        "never",
    ]
    # Approved again after a retirement: approved since the new approval.
    decide(records, "Test_b", "approved", "2022-02-01")
    assert standings(source).approved_since("Test_b") == dt.date(2022, 2, 1)
