"""`as_of` through the real `alpha-results serve` (issue 81, item 3): on every route that takes it
and every MCP tool of those routes, a value that is no real moment is a 400 naming `as_of` and the
broken rule, never a 200 answered as "now" (audit 7: 30 February, hour 24, offset +25:00,
Arabic-Indic digits) nor a 500 (a moment whose UTC time leaves years 0001-9999: an OverflowError
in `astimezone` on every route and inside MCP results); a real moment is answered as of then (200
with `meta.as_of`), 410 `as_of_gone` or 400 when in the future. A key asking distinct moments past
its `as_of` budget is 429 `as_of_budget_exceeded` with Retry-After (serve/limits/as_of.py).

The rule itself, against an independent reading over generated values: tests/api/test_as_of_rule.py."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas.query import params_of
from serve.endpoints import endpoints
from tests.ops.keys import IssuedKey, issue_key
from tests.shared_servers import SharedServer
from tests.support.as_of_values import MOMENTS, MORE, REPORTED

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"
PATH_VALUES = {"alpha": ALPHA, "date": "2021-06-04", "symbol": "SPY"}
REQUIRED = {
    "book": "long_short",
    "alphas": f"{ALPHA},value_composite_legacy",
    "with": "value_composite_legacy",
}
"""Values of the parameters some of these routes require (an MCP tool checks them before the route
reads as_of; a route names them in the same 400)."""
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    "Content-Type": "application/json",
}
EXTREMES = (
    "0001-01-01T00:00:00Z",
    "0001-01-01T17:59:59+18:00",
    "9999-12-31T23:59:59Z",
    "9999-12-31T06:00:00-18:00",
)
"""Real moments at the edges of what the rule takes: the oldest is before any generation (410),
the newest in the future (400)."""


def routes_with_as_of() -> dict[str, tuple[str, dict[str, str]]]:
    """Every endpoint taking `as_of`, by id (its MCP tool's name): its path with its path
    parameters filled, and those parameters (a tool's arguments)."""
    found = {}
    for e in endpoints().values():
        if e.query is not None and "as_of" in [p.name for p in params_of(e.query)]:
            names = re.findall(r"\{(\w+)(?::\w+)?\}", e.path)
            path = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: PATH_VALUES[m[1]], e.path)
            required = {p.name: REQUIRED[p.name] for p in params_of(e.query) if p.required}
            found[e.id] = (path, {name: PATH_VALUES[name] for name in names} | required)
    return found


ROUTES = routes_with_as_of()


def get(server: SharedServer, key: IssuedKey, path: str, **params: Any) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{server.port}{path}", params=params, headers=key.headers, timeout=120)


def call_tool(server: SharedServer, key: IssuedKey, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    answer = httpx.post(
        f"http://127.0.0.1:{server.port}/mcp", json=call, headers={**key.headers, **MCP_HEADERS}, timeout=120
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def assert_names_as_of(error: dict[str, Any], text: str) -> None:
    assert error["code"] == "bad_request", (text, error)
    assert "as_of" in [p["name"] for p in error["details"]["parameters"]], (text, error)


def assert_as_of_answer(status: int, body: dict[str, Any], text: str) -> None:
    """A real moment: answered as of then, gone, or in the future; never "now", never a 5xx."""
    assert status < 500, (text, status, body)
    if status == 200:
        assert "as_of" in body["meta"], (text, body["meta"])
    else:
        assert body["error"]["code"] in ("as_of_gone", "bad_request"), (text, body)


@pytest.fixture(scope="module")
def key(shared_server: SharedServer) -> IssuedKey:
    return shared_server.key()


@pytest.fixture(scope="module")
def admin(shared_server: SharedServer) -> IssuedKey:
    """For generated values: an administrator's key has no as_of budget, so every real moment is
    resolved (a member's is counted: test_distinct_moments_past_the_budget_...)."""
    from access import open_store

    store = open_store(shared_server.keystore_url)
    try:
        return issue_key(store, role="admin")
    finally:
        store.close()


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_no_route_answers_a_broken_as_of_as_now(
    shared_server: SharedServer, key: IssuedKey, route: str
) -> None:
    path, _ = ROUTES[route]
    for text in [*REPORTED, *MORE]:
        answer = get(shared_server, key, path, as_of=text)
        assert answer.status_code == 400, (route, text, answer.status_code, answer.text[:300])
        assert_names_as_of(answer.json()["error"], text)
    for text in EXTREMES:
        answer = get(shared_server, key, path, as_of=text)
        assert_as_of_answer(answer.status_code, answer.json(), text)


@pytest.mark.parametrize("tool", sorted(ROUTES))
def test_no_mcp_tool_answers_a_broken_as_of_as_now(
    shared_server: SharedServer, key: IssuedKey, tool: str
) -> None:
    _, arguments = ROUTES[tool]
    for text in [*REPORTED, *EXTREMES]:
        result = call_tool(shared_server, key, tool, {**arguments, "as_of": text})
        if text in REPORTED:
            assert result["isError"], (tool, text, result)
            assert_names_as_of(result["structuredContent"]["error"], text)
        elif result["isError"]:
            assert_as_of_answer(400, result["structuredContent"], text)  # 410 or 400, never a 5xx
        else:
            assert "as_of" in result["structuredContent"]["meta"], (tool, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(MOMENTS, st.text(max_size=40)))
def test_generated_as_of_values_are_never_now_nor_a_5xx(
    shared_server: SharedServer, admin: IssuedKey, text: str
) -> None:
    answer = get(shared_server, admin, f"/v1/alphas/{ALPHA}/metrics", as_of=text)
    assert_as_of_answer(answer.status_code, answer.json(), text)


def test_distinct_moments_past_the_budget_are_429_and_an_asked_one_is_not(
    shared_server: SharedServer,
) -> None:
    key = shared_server.key()
    asked = []
    for second in range(70):  # the default budget: 4 a second, 60 a minute
        text = f"2025-01-01T00:00:{second % 60:02d}.{second // 60:06d}Z"
        answer = get(shared_server, key, "/v1/alphas", as_of=text, limit=1)
        if answer.status_code == 429:
            error = answer.json()["error"]
            assert error["code"] == "as_of_budget_exceeded", error
            assert error["details"]["budget"] in ("second", "minute")
            assert int(answer.headers["retry-after"]) >= 1 and error["details"]["retry_after"] >= 1
            break
        assert_as_of_answer(answer.status_code, answer.json(), text)
        asked.append(text)
    else:
        raise AssertionError("70 distinct as_of moments in a minute were all resolved")
    again = get(shared_server, key, "/v1/alphas", as_of=asked[0], limit=1)
    assert again.status_code != 429, again.text  # a moment already asked is not resolved again
    other = get(shared_server, shared_server.key(), "/v1/alphas", as_of=text, limit=1)
    assert other.status_code != 429, other.text  # another key's budget is its own
