"""Property: for random windows, filters, sorts and page sizes, the pages concatenate to the whole,
and for the filtered signal and position endpoints the whole equals an independent polars read of
the lake's Parquet, in the documented order (docs/api.md "Default orders").

Windows and symbols are drawn from the data itself so most examples have rows; each test counts
the examples that did and fails when too few did (an empty answer proves nothing about paging).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.api.conftest import Api
from tests.api.lakedata import table

ALPHA = "Test_planted_factor"
BASE = f"/v1/alphas/{ALPHA}"
# Most pages stay small; the floor keeps a large answer under about this many requests.
MAX_PAGES = 25
SETTINGS = settings(max_examples=20)


class Lake:
    """The alpha's tables, read once with polars straight from Parquet."""

    def __init__(self, lake: Path) -> None:
        self.decisions = table(lake, ALPHA, "decisions")
        self.positions = table(lake, ALPHA, "positions")
        ledger = table(lake, ALPHA, "portfolio").filter(pl.col("book") == "long_short")
        self.sessions: list[date] = sorted(ledger["date"].to_list())
        self.weeks: list[date] = sorted(table(lake, ALPHA, "rebalances")["date"].to_list())
        self.symbols: list[str] = sorted(set(self.decisions["symbol"].to_list()))


@pytest.fixture(scope="module")
def lake(demo_lake: Path) -> Lake:
    return Lake(demo_lake)


def session_windows(sessions: list[date]) -> st.SearchStrategy[dict[str, str]]:
    """`from`/`to` (each optional) on real sessions, 5 to 120 sessions apart."""

    @st.composite
    def draw_window(draw: st.DrawFn) -> dict[str, str]:
        first = draw(st.integers(0, len(sessions) - 5))
        last = min(len(sessions) - 1, first + draw(st.integers(4, 120)))
        chosen: dict[str, str] = {}
        if draw(st.booleans()):
            chosen["from"] = sessions[first].isoformat()
        if draw(st.booleans()):
            chosen["to"] = sessions[last].isoformat()
        return chosen

    return draw_window()


def in_window(frame: pl.DataFrame, window: dict[str, str]) -> pl.DataFrame:
    if "from" in window:
        frame = frame.filter(pl.col("date") >= date.fromisoformat(window["from"]))
    if "to" in window:
        frame = frame.filter(pl.col("date") <= date.fromisoformat(window["to"]))
    return frame


def expected_rows(frame: pl.DataFrame, columns: list[str]) -> list[dict[str, Any]]:
    rows = frame.select(columns).to_dicts()
    for row in rows:
        if "date" in row:
            row["date"] = row["date"].isoformat()
    return rows


def paged(api: Api, path: str, params: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    """Every page of `path` at a page size of at least `limit`; checks each page's envelope against
    the unpaged answer and returns the concatenated rows, which must equal the unpaged rows."""
    whole = api.ok(path, limit=5000, **params)
    total = whole["pagination"]["total"]
    assert total <= 5000
    limit = max(limit, math.ceil(total / MAX_PAGES))
    offset, rows = 0, []
    while True:
        body = api.ok(path, limit=limit, offset=offset, **params)
        page = body["pagination"]
        assert page["limit"] == limit and page["offset"] == offset
        assert page["returned"] == len(body["data"]) <= limit
        assert page["total"] == total
        assert page["has_more"] == (offset + page["returned"] < total)
        rows.extend(body["data"])
        if not page["has_more"]:
            break
        offset += limit
    assert rows == whole["data"]
    assert len(rows) == total
    data: list[dict[str, Any]] = whole["data"]
    return data


def run_counted(examples: Counter[str], body: Callable[[], None], share: float) -> None:
    body()
    assert examples["all"] >= 10
    assert examples["with_rows"] >= share * examples["all"], examples


ENDPOINTS = [
    ("/rebalances", {}),
    ("/scores", {"fields": "all"}),
    ("/portfolio", {"book": "long_only"}),
    ("/positions", {}),
    ("/pnl", {"book": "raw_long_short"}),
    ("/trades", {"book": "long_short"}),
    ("/equity-curve", {}),
]


def test_window_pages_concatenate(api: Api, lake: Lake) -> None:
    examples: Counter[str] = Counter()

    @SETTINGS
    @given(
        endpoint=st.sampled_from(ENDPOINTS),
        window=session_windows(lake.sessions),
        limit=st.integers(1, 400),
    )
    def check(endpoint: tuple[str, dict[str, str]], window: dict[str, str], limit: int) -> None:
        path, params = endpoint
        rows = paged(api, BASE + path, {**params, **window}, limit)
        examples["all"] += 1
        examples["with_rows"] += bool(rows)

    run_counted(examples, check, share=0.8)


SIDES = {"long": 1, "short": -1, "flat": 0, "1": 1, "-1": -1, "neutral": 0}
SORT_COLUMNS = {"score": "score", "rank": "average_rank", "symbol": "symbol"}
DEFAULT_ORDER = {"score": "desc", "weight": "desc", "rank": "asc", "symbol": "asc"}
WEIGHTS = {"long_short": "long_short_target_weight", "long_only": "long_only_target_weight"}
CROSS_COLUMNS = ["symbol", "direction", "score", "average_rank", *WEIGHTS.values()]


def expected_cross_section(lake: Lake, week: date, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The spec's rules for /rebalances/{date}, applied to the decisions Parquet. Null sort keys
    (unscored names) come last in either order: the spec is silent, this is the served choice."""
    frame = lake.decisions.filter(pl.col("date") == week)
    weight = WEIGHTS[params.get("book", "long_short")]
    if "symbol" in params:
        frame = frame.filter(pl.col("symbol").is_in(params["symbol"].upper().split(",")))
    if "direction" in params:
        frame = frame.filter(pl.col("direction") == SIDES[params["direction"]])
    if "min_abs_weight" in params:
        frame = frame.filter(pl.col(weight).abs() >= params["min_abs_weight"])
    sort = params.get("sort", "score")
    column = SORT_COLUMNS.get(sort, weight)
    descending = params.get("order", DEFAULT_ORDER[sort]) == "desc"
    if column == "symbol":
        frame = frame.sort("symbol", descending=descending)
    else:
        frame = frame.sort([column, "symbol"], descending=[descending, False], nulls_last=True)
    return expected_rows(frame, CROSS_COLUMNS)


def optional(values: list[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.sampled_from(values))


def week_and_symbols(lake: Lake) -> st.SearchStrategy[tuple[date, list[str]]]:
    """A rebalance week and a symbol list (empty half the time: no filter) that includes at least
    one name the week weights, so the weight and direction filters usually leave rows."""
    weighted = (
        lake.decisions.filter(pl.col("long_short_target_weight") != 0)
        .group_by("date")
        .agg(pl.col("symbol").sort())
    )
    held = dict(zip(weighted["date"].to_list(), weighted["symbol"].to_list(), strict=True))

    @st.composite
    def draw(draw: st.DrawFn) -> tuple[date, list[str]]:
        week = draw(st.sampled_from(lake.weeks))
        if not held.get(week) or draw(st.booleans()):
            return week, []
        chosen = draw(st.lists(st.sampled_from(held[week]), min_size=1, max_size=4, unique=True))
        others = draw(st.lists(st.sampled_from(lake.symbols), max_size=8, unique=True))
        return week, sorted(set(chosen) | set(others))

    return draw()


def test_cross_section_pages_match_the_lake(api: Api, lake: Lake) -> None:
    examples: Counter[str] = Counter()

    @settings(max_examples=40)
    @given(
        week_symbols=week_and_symbols(lake),
        sort=optional(["score", "rank", "weight", "symbol"]),
        order=optional(["asc", "desc"]),
        book=optional(["long_short", "long_only"]),
        # Flat (`neutral`) is an exact zero score, so almost always empty: drawn once in ten.
        direction=optional(["long", "short", "1", "-1", "neutral"]),
        min_abs_weight=optional([0, 0.01, 0.12]),
        lower=st.booleans(),
        limit=st.integers(1, 15),
    )
    # Every sort with its default order, whatever the random draws cover.
    @example((lake.weeks[5], []), "score", None, None, None, None, False, 7)
    @example((lake.weeks[5], []), "rank", None, "long_only", None, None, False, 7)
    @example((lake.weeks[5], []), "weight", None, "long_only", None, None, False, 7)
    @example((lake.weeks[5], []), "symbol", None, None, None, None, False, 7)
    def check(
        week_symbols: tuple[date, list[str]], sort: str | None, order: str | None, book: str | None,
        direction: str | None, min_abs_weight: float | None, lower: bool, limit: int,
    ) -> None:  # fmt: skip
        week, symbols = week_symbols
        chosen = {"sort": sort, "order": order, "book": book, "direction": direction}
        params: dict[str, Any] = {k: v for k, v in chosen.items() if v is not None}
        if min_abs_weight is not None:
            params["min_abs_weight"] = min_abs_weight
        if symbols:
            # Tickers match upper-cased, so a lower-case list must find the same names.
            params["symbol"] = ",".join(s.lower() if lower else s for s in symbols)
        rows = paged(api, f"{BASE}/rebalances/{week.isoformat()}", params, limit)
        assert [{k: r[k] for k in CROSS_COLUMNS} for r in rows] == expected_cross_section(lake, week, params)
        examples["all"] += 1
        examples["with_rows"] += bool(rows)

    run_counted(examples, check, share=0.6)


SCORE_COLUMNS = ["date", "symbol", "score", "score_z", "average_rank", "direction", "forward_return"]


def test_scores_pages_match_the_lake(api: Api, lake: Lake) -> None:
    examples: Counter[str] = Counter()

    @SETTINGS
    @given(
        window=session_windows(lake.sessions),
        symbols=st.lists(st.sampled_from(lake.symbols), max_size=6, unique=True),
        limit=st.integers(1, 200),
    )
    def check(window: dict[str, str], symbols: list[str], limit: int) -> None:
        params: dict[str, Any] = dict(window)
        frame = in_window(lake.decisions, window)
        if symbols:
            params["symbol"] = ",".join(symbols)
            frame = frame.filter(pl.col("symbol").is_in(symbols))
        rows = paged(api, f"{BASE}/scores", params, limit)
        expected = expected_rows(frame.sort(["date", "symbol"]), SCORE_COLUMNS)
        assert [{k: r[k] for k in SCORE_COLUMNS} for r in rows] == expected
        examples["all"] += 1
        examples["with_rows"] += bool(rows)

    run_counted(examples, check, share=0.8)


POSITION_COLUMNS = ["book", "date", "symbol", "quantity", "mark_price", "signed_notional", "weight"]


def test_positions_pages_match_the_lake(api: Api, lake: Lake) -> None:
    examples: Counter[str] = Counter()
    held = sorted(set(lake.positions["symbol"].to_list()))

    @SETTINGS
    @given(
        book=st.sampled_from(["long_short", "long_only", "raw_long_short"]),
        window=session_windows(lake.sessions),
        symbols=st.lists(st.sampled_from(held), min_size=3, max_size=10, unique=True),
        limit=st.integers(1, 200),
    )
    def check(book: str, window: dict[str, str], symbols: list[str], limit: int) -> None:
        params = {"book": book, "symbol": ",".join(symbols), **window}
        frame = in_window(lake.positions.filter(pl.col("book") == book), window)
        frame = frame.filter(pl.col("symbol").is_in(symbols)).sort(["date", "symbol"])
        rows = paged(api, f"{BASE}/positions", params, limit)
        assert rows == expected_rows(frame, POSITION_COLUMNS)
        examples["all"] += 1
        examples["with_rows"] += bool(rows)

    run_counted(examples, check, share=0.6)


def test_a_page_past_the_end_still_counts(api: Api) -> None:
    body = api.ok(f"{BASE}/positions", offset=10**6)
    assert body["data"] == []
    assert body["pagination"]["total"] > 0 and body["pagination"]["has_more"] is False
