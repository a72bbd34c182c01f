"""The reader owns the answer (issue 23): `datasets.answers` applies visibility, a kind the run never
sealed and the default order itself, with no HTTP in between. tests/equality proves the served
bodies did not change when the handlers stopped doing it; these pin the rules at the lake."""

from __future__ import annotations

import math
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from analytics import series
from datasets import answers
from datasets.build_view import BuildView
from datasets.reader import LakeReader
from schemas import wire
from schemas.query import (
    BookQuery,
    PageQuery,
    ScoresQuery,
    SeriesQuery,
    TradesQuery,
    WeekQuery,
    WindowPageQuery,
)


@pytest.fixture(scope="module")
def reader(demo_lake: Path) -> LakeReader:
    return LakeReader(str(demo_lake), 60.0)


def view(reader: LakeReader, alpha: str) -> BuildView:
    build = reader.alpha(alpha)
    assert build is not None
    return reader.view(build)


def as_dict(row: object) -> dict[str, Any]:
    """A row as a user reads it in the JSON body (rows are msgspec Structs, or dicts)."""
    out: dict[str, Any] = msgspec.to_builtins(row)
    return out


def first_week(build: BuildView) -> date:
    row = answers.rebalances(build, WindowPageQuery(limit=1)).page.rows[0]
    return date.fromisoformat(as_dict(row)["date"])


def test_a_week_is_by_score_descending_unless_asked_and_nulls_come_last(reader: LakeReader) -> None:
    build = view(reader, "momentum_12_1")
    day = first_week(build)
    answer = answers.week(build, WeekQuery(date=day, limit=1000), raw=True)
    scores = [as_dict(r).get("score") for r in answer.page.rows]
    known = [s for s in scores if s is not None and not math.isnan(s)]
    assert len(known) > 10
    assert known == sorted(known, reverse=True)
    assert scores[: len(known)] == known  # nulls after every known score
    assert answer.meta["date"] == day and answer.meta["book"] == "long_short"
    assert answer.page.total == answer.meta["n_symbols"] == len(scores)

    ascending = answers.week(build, WeekQuery(date=day, sort="rank", limit=1000), raw=True)
    ranks = [as_dict(r)["average_rank"] for r in ascending.page.rows]
    assert ranks == sorted(ranks)


def test_raw_fields_and_raw_books_exist_only_for_a_caller_allowed_them(reader: LakeReader) -> None:
    build = view(reader, "momentum_12_1")
    day = first_week(build)
    seen = set(as_dict(answers.week(build, WeekQuery(date=day, limit=5), raw=True).page.rows[0]))
    hidden = set(as_dict(answers.week(build, WeekQuery(date=day, limit=5), raw=False).page.rows[0]))
    assert wire.RAW_FIELDS & seen and not (wire.RAW_FIELDS & hidden)
    assert seen - hidden == wire.RAW_FIELDS & seen

    books = {as_dict(r)["book"] for r in answers.books(build, PageQuery(limit=1000), raw=False).page.rows}
    assert books and not any(wire.is_raw_book(b) for b in books)
    with pytest.raises(answers.NoSuchBook) as refused:
        answers.book(build, "pnl", BookQuery(book="raw_long_short"), raw=False)
    assert refused.value.available and not any(wire.is_raw_book(b) for b in refused.value.available)
    assert answers.book(build, "pnl", BookQuery(book="raw_long_short"), raw=True).meta == {
        "book": "raw_long_short"
    }


def test_a_kind_never_sealed_is_an_empty_page_that_says_so(reader: LakeReader) -> None:
    build = view(reader, "Test_ledger_only")  # no decisions, no rebalance index
    answer = answers.scores(build, ScoresQuery(), raw=False)
    assert answer.page.rows == [] and answer.page.total == 0
    assert [w.code for w in answer.warnings] == ["kind_missing"]
    assert answer.warnings[0].kind == "decisions"
    assert answer.page.fields == wire.visible_fields(wire.SCORE_CORE_FIELDS, False)  # type: ignore[attr-defined]

    books = answers.books(build, PageQuery(), raw=False)
    assert [w.kind for w in books.warnings] == []  # every book kind was sealed

    incomplete = view(reader, "Test_low_vol_incomplete")  # no pnl, no trades
    trades = answers.book(incomplete, "trades", TradesQuery(book="long_short"), raw=False)
    assert trades.page.total == 0 and trades.warnings[0].kind == "trades"
    assert {w.kind for w in answers.books(incomplete, PageQuery(), raw=False).warnings} == {
        "pnl",
        "trades",
    }


def test_a_date_that_is_not_a_rebalance_names_its_neighbours(reader: LakeReader) -> None:
    build = view(reader, "momentum_12_1")
    day = first_week(build)
    with pytest.raises(answers.NotARebalance) as missed:
        answers.week(build, WeekQuery(date=day + timedelta(days=1)), raw=True)
    assert missed.value.neighbours["previous_rebalance"] == day
    assert missed.value.neighbours["first_rebalance"] == day

    without_index = view(reader, "Test_ledger_only")
    with pytest.raises(answers.NotARebalance) as none:
        answers.week(without_index, WeekQuery(date=day), raw=True)
    assert set(none.value.neighbours.values()) == {None}


def test_the_equity_curve_pages_the_window_and_its_summary_counts_every_session(reader: LakeReader) -> None:
    build = view(reader, "momentum_12_1")
    curve = series.equity_curve_answer(build, SeriesQuery(limit=5), raw=False)
    assert curve.page.total > 5 and len(curve.page.rows) == 5 and not curve.warnings
    assert curve.meta["book"] == "long_short" and curve.meta["summary"]["sessions"] == curve.page.total
