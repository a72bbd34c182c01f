"""Property: for random windows, filters, sorts and page sizes, the pages concatenate to the whole."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.conftest import Api

BASE = "/v1/alphas/Test_planted_factor"
FIRST, LAST = date(2021, 1, 4), date(2022, 3, 14)
WEEKS = [(date(2021, 1, 8) + timedelta(weeks=i)).isoformat() for i in range(0, 60, 7)]
SYMBOLS = ["RVEL", "STV", "ABWP", "BZZU", "ARZR", "QQQZ"]


@st.composite
def windows(draw: st.DrawFn) -> dict[str, str]:
    days = (LAST - FIRST).days
    start = FIRST + timedelta(days=draw(st.integers(0, days)))
    end = start + timedelta(days=draw(st.integers(0, 120)))
    chosen: dict[str, str] = {}
    if draw(st.booleans()):
        chosen["from"] = start.isoformat()
    if draw(st.booleans()):
        chosen["to"] = end.isoformat()
    return chosen


ENDPOINTS = st.sampled_from(
    [
        ("/rebalances", {}),
        ("/scores", {"fields": "all"}),
        ("/portfolio", {"book": "long_only"}),
        ("/positions", {}),
        ("/pnl", {"book": "raw_long_short"}),
        ("/trades", {"book": "long_short"}),
        ("/equity-curve", {}),
    ]
)


def _check_pages(api: Api, path: str, params: dict[str, Any], limit: int) -> None:
    whole = api.ok(path, limit=5000, **params)
    assert whole["pagination"]["total"] <= 5000
    offset, rows = 0, []
    while True:
        body = api.ok(path, limit=limit, offset=offset, **params)
        page = body["pagination"]
        assert page["limit"] == limit and page["offset"] == offset
        assert page["returned"] == len(body["data"]) <= limit
        assert page["total"] == whole["pagination"]["total"]
        assert page["has_more"] == (offset + page["returned"] < page["total"])
        rows.extend(body["data"])
        if not page["has_more"]:
            break
        offset += limit
    assert rows == whole["data"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(endpoint=ENDPOINTS, window=windows(), limit=st.integers(1, 400))
def test_window_pages_concatenate(
    api: Api, endpoint: tuple[str, dict[str, str]], window: dict[str, str], limit: int
) -> None:
    path, params = endpoint
    # Trades have many rows per session; a floor on the page size keeps the request count small.
    _check_pages(api, BASE + path, {**params, **window}, max(limit, 20) if path == "/trades" else limit)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    week=st.sampled_from(WEEKS),
    sort=st.sampled_from([None, "score", "rank", "weight", "symbol"]),
    order=st.sampled_from([None, "asc", "desc"]),
    book=st.sampled_from([None, "long_short", "long_only"]),
    direction=st.sampled_from([None, "long", "short", "flat"]),
    symbols=st.lists(st.sampled_from(SYMBOLS), max_size=3),
    limit=st.integers(1, 15),
)
def test_cross_section_pages_concatenate(
    api: Api, week: str, sort: str | None, order: str | None, book: str | None,
    direction: str | None, symbols: list[str], limit: int,
) -> None:  # fmt: skip
    params = {
        k: v for k, v in {"sort": sort, "order": order, "book": book, "direction": direction}.items() if v
    }
    if symbols:
        params["symbol"] = ",".join(symbols)
    _check_pages(api, f"{BASE}/rebalances/{week}", params, limit)


def test_a_page_past_the_end_still_counts(api: Api) -> None:
    body = api.ok(f"{BASE}/positions", offset=10**6)
    assert body["data"] == []
    assert body["pagination"]["total"] > 0 and body["pagination"]["has_more"] is False
