"""Property: no date a parameter takes answers a 5xx, on any route (issue 48, item 5).

`/analytics/live?split=9999-12-31` answered 500: the out-of-sample part began the day after the
split, and `date.max + 1 day` overflows. Every date parameter of every route (a window's `from` and
`to`, `split`, `fit_to`, a date in the path) is read off the OpenAPI document, so a route added
later is covered without a list kept by hand. Each is sent the calendar's edges (date.min,
date.max and their neighbours) and dates around the demo's history, alone and then in random
combinations: the answer is a 200 or a 4xx in the error envelope, never a 5xx.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

ALPHA = "momentum_12_1"
REQUIRED: dict[str, str] = {
    "alpha": ALPHA,
    "book": "long_short",
    "alphas": f"{ALPHA},Test_planted_factor",
    "with": "Test_planted_factor",
}
"""A value for each required parameter that is not a date and has no enum (an enum's first value
is taken): a new one fails the test by name, to be added here."""

EDGES = [
    dt.date.min,
    dt.date.min + dt.timedelta(days=1),
    dt.date.max - dt.timedelta(days=1),
    dt.date.max,
    dt.date(2021, 1, 8),  # the demo's first rebalance
    dt.date(2022, 3, 11),  # its last session
]
DATES = st.one_of(st.sampled_from(EDGES), st.dates())


@dataclass(frozen=True)
class Operation:
    """A GET route with date parameters, the other values it requires filled in."""

    path: str  # `{name}` placeholders
    dates: tuple[tuple[str, str], ...]  # (where: path or query, name)
    fixed: dict[str, str]  # the required non-date values, by name

    def request(self, client: TestClient[Any], chosen: dict[str, dt.date]) -> Any:
        values = self.fixed | {name: day.isoformat() for name, day in chosen.items()}
        path = self.path
        for name in [name for name in values if f"{{{name}}}" in path]:
            path = path.replace(f"{{{name}}}", values.pop(name))
        return client.get(path, params=values, headers={"Authorization": "Bearer raw"})


def is_date(schema: dict[str, Any]) -> bool:
    return schema.get("format") == "date" or any(is_date(s) for s in schema.get("anyOf", []))


def operations_of(document: dict[str, Any]) -> list[Operation]:
    found = []
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            parameters = operation.get("parameters", []) if isinstance(operation, dict) else []
            dates = tuple((p["in"], p["name"]) for p in parameters if is_date(p.get("schema", {})))
            if not dates:
                continue
            assert method == "get", (method, path)  # a date in a body would need its own strategy
            fixed = {}
            for p in parameters:
                if p.get("required") and (p["in"], p["name"]) not in dates:
                    enum = p.get("schema", {}).get("enum")
                    assert enum or p["name"] in REQUIRED, f"{path}: a value for {p['name']} in REQUIRED"
                    fixed[p["name"]] = enum[0] if enum else REQUIRED[p["name"]]
            found.append(Operation(path, dates, fixed))
    return found


@pytest.fixture(scope="module")
def operations(client: TestClient[Any]) -> list[Operation]:
    found = operations_of(client.get("/openapi.json").json())
    names = {name for operation in found for _, name in operation.dates}
    # The enumeration sees every kind of date parameter the routes declare today.
    assert names >= {"from", "to", "split", "fit_to", "date"} and len(found) >= 25, found
    return found


def assert_not_a_server_error(response: Any, asked: str) -> None:
    assert response.status_code < 500, (asked, response.text)
    if response.status_code >= 400:  # a refusal names its parameter, in the error envelope
        assert set(response.json()) == {"error"}, (asked, response.text)


def test_each_date_parameter_at_the_calendars_edges(
    client: TestClient[Any], operations: list[Operation]
) -> None:
    answered = 0
    for operation in operations:
        for _, name in operation.dates:
            for day in EDGES:
                response = operation.request(client, {name: day})
                assert_not_a_server_error(response, f"{operation.path} {name}={day}")
                answered += response.status_code == 200
    assert answered > 0  # the requests reach the routes (a key refused would pass the rest)


@settings(max_examples=40)
@given(data=st.data())
def test_any_dates_in_any_combination(
    client: TestClient[Any], operations: list[Operation], data: st.DataObject
) -> None:
    operation = data.draw(st.sampled_from(operations))
    names = [name for _, name in operation.dates]
    path_names = {name for where, name in operation.dates if where == "path"}
    chosen = {}
    for name in names:  # a path date is always sent; each query date may be left out
        if name in path_names or data.draw(st.booleans()):
            chosen[name] = data.draw(DATES)
    response = operation.request(client, chosen)
    assert_not_a_server_error(response, f"{operation.path} {chosen}")


def test_a_split_after_every_session_puts_every_session_in_sample(
    client: TestClient[Any], operations: list[Operation]
) -> None:
    """The answer `split=9999-12-31` gets (docs/analytics.md, "Live against backtest"): a what-if
    of an alpha not live yet, as `split=9999-12-30` answers it."""
    [live] = [o for o in operations if o.path.endswith("/analytics/live")]
    last, before = (live.request(client, {"split": day}).json()["data"] for day in EDGES[3:1:-1])
    assert (last["split_date"], last["split_origin"]) == ("9999-12-31", "request")
    assert (last["out_of_sample"]["sessions"], last["out_of_sample"]["weeks"]) == (0, 0)
    assert last["in_sample"]["sessions"] > 0
    assert {k: v for k, v in last.items() if k != "split_date"} == {
        k: v for k, v in before.items() if k != "split_date"
    }
