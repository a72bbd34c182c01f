"""Raw-book access on and off: `raw_*` fields and `raw_` books exist only for keys allowed to see them."""

from __future__ import annotations

from typing import Any

import pytest

from schemas.registry import ADMIN_IDS
from tests.access.conftest import ALPHA, REBALANCE_DATE, World, endpoint_path, mounted_ids

BASE = f"/v1/alphas/{ALPHA}"
BOOK_ENDPOINTS = {
    "portfolio.ledger": f"{BASE}/portfolio",
    "portfolio.positions": f"{BASE}/positions",
    "portfolio.pnl": f"{BASE}/pnl",
    "portfolio.trades": f"{BASE}/trades",
    "portfolio.equity_curve": f"{BASE}/equity-curve",
}
# Variants that serve the widest field sets and blocks.
EXTRA_VARIANTS = [
    (f"{BASE}/scores", {"fields": "all"}),
    (f"{BASE}/metrics", {"doc": "true", "panel": "true", "granularity": "monthly"}),
    (f"{BASE}/rebalances/{REBALANCE_DATE}", {"limit": "5000"}),
]


def raw_mentions(value: Any, where: str = "$") -> list[str]:
    """Every JSON key starting with `raw_`, and every `raw_` book named as a value, with its location.

    (String values in general may name a field: `/metrics` says which score its deciles rank.)
    """
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if str(key).startswith("raw_"):
                found.append(f"{where}.{key}")
            if key in ("book", "books", "available") and "raw_" in str(item):
                found.append(f"{where}.{key} = {item}")
            found += raw_mentions(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += raw_mentions(item, f"{where}[{index}]")
    return found


@pytest.mark.parametrize("token", ["full_plain", "raw_clamped"])
def test_without_raw_access_nothing_raw_is_served(world: World, token: str) -> None:
    requests = [endpoint_path(world, i) for i in mounted_ids(world.app) if i not in ADMIN_IDS]
    for path, params in [*requests, *EXTRA_VARIANTS]:
        response = world.get(path, token, **params)
        assert response.status_code in (200, 503), (path, response.text)
        if response.headers["content-type"].startswith("text/event-stream"):  # /v1/events/stream
            assert "raw_" not in response.text, path
            continue
        assert raw_mentions(response.json()) == [], path
    me = world.get("/v1/me", token).json()["data"]
    assert me["field_policy"] == {"expose_raw_book": False}


def test_with_raw_access_raw_books_and_fields_are_served(world: World) -> None:
    books = world.get(f"{BASE}/books", "full_raw", limit=5000).json()["data"]
    assert {"raw_long_short", "raw_long_only"} <= {row["book"] for row in books}
    scores = world.get(f"{BASE}/scores", "full_raw", fields="all", limit=50).json()["data"]
    assert scores and all("raw_score" in row for row in scores)
    week = world.get(f"{BASE}/rebalances/{REBALANCE_DATE}", "full_raw").json()["data"]
    assert week and all("raw_score" in row for row in week)
    for path in BOOK_ENDPOINTS.values():
        response = world.get(path, "full_raw", book="raw_long_short")
        assert response.status_code == 200, (path, response.text)
        assert response.json()["meta"]["book"] == "raw_long_short"
    assert world.get("/v1/me", "full_raw").json()["data"]["field_policy"] == {"expose_raw_book": True}


@pytest.mark.parametrize("token", ["full_plain", "raw_clamped"])
def test_a_hidden_raw_book_reads_like_a_missing_book(world: World, token: str) -> None:
    for endpoint_id, path in BOOK_ENDPOINTS.items():
        answers = []
        for book in ("raw_long_short", "no_such_book"):
            response = world.get(path, token, book=book)
            assert response.status_code == 400, (endpoint_id, response.text)
            error = response.json()["error"]
            assert error["code"] == "unknown_book" and error["details"]["book"] == book
            assert not any(b.startswith("raw_") for b in error["details"]["available"])
            details = {k: v for k, v in error["details"].items() if k != "book"}
            answers.append((error["message"].replace(book, "<book>"), details))
        assert answers[0] == answers[1], endpoint_id
