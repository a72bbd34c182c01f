"""The handler is the endpoint's declaration (issue 23): what `@route` and the signature declare
is what is served and documented, and a declaration that cannot be one is refused before any
request."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Response
from litestar.params import FromPath

from schemas.bodies.decisions import Risk
from schemas.bodies.rows import DecisionRow, EquityRow, EquitySummary
from schemas.query import NoQuery, RiskQuery, WeekQuery
from serve.app import ROUTE_HANDLERS
from serve.endpoints import Handled, collected, endpoints
from serve.routes.base import Ctx
from serve.routes.declare import query_of, route


async def _week(ctx: Ctx[WeekQuery], alpha: FromPath[str]) -> Response[bytes]:
    raise AssertionError("never called")


async def _plain(alpha: FromPath[str]) -> Response[bytes]:
    raise AssertionError("never called")


async def _mistyped(ctx: int, alpha: FromPath[str]) -> Response[bytes]:
    raise AssertionError("never called")


def test_the_query_is_the_struct_the_signature_names() -> None:
    assert query_of(_week) is WeekQuery
    assert query_of(_plain) is NoQuery
    with pytest.raises(TypeError, match="Ctx"):
        query_of(_mistyped)


def test_every_mounted_endpoint_parses_the_struct_its_handler_names() -> None:
    by_handler = {handler.opt["endpoint"]: handler for handler in ROUTE_HANDLERS if "declared" in handler.opt}
    for endpoint_id, endpoint in endpoints().items():
        assert endpoint.query is query_of(by_handler[endpoint_id].fn), endpoint_id


@pytest.mark.parametrize(
    "declared",
    [
        {"body": Risk, "rows": DecisionRow},
        {},
        {"body": Risk, "meta_summary": EquitySummary},
    ],
    ids=["body and rows", "neither", "summary of a single object"],
)
def test_a_declaration_that_cannot_be_one_is_refused(declared: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match="/v1/x"):
        Handled("/v1/x", "X", **declared)
    Handled("/v1/x", "X", rows=EquityRow, meta_summary=EquitySummary)  # the one that can


def test_an_id_the_registry_lacks_is_refused_when_decorated() -> None:
    with pytest.raises(KeyError, match="analytics.nope"):
        route("analytics.nope", "/v1/nope", "Nope", body=Risk)


def test_the_handlers_and_the_registry_must_name_the_same_endpoints() -> None:
    handlers = [h for h in ROUTE_HANDLERS if "declared" in h.opt]
    assert list(collected(handlers)) == list(endpoints())
    risk = next(h for h in handlers if h.opt["endpoint"] == "analytics.risk")
    with pytest.raises(RuntimeError, match="analytics.risk"):
        collected([h for h in handlers if h is not risk])
    with pytest.raises(RuntimeError, match="analytics.risk is declared by two handlers"):
        collected([*handlers, risk])


def test_a_declared_answer_is_what_the_document_serves() -> None:
    from serve.app import openapi_document

    paths = openapi_document()["paths"]
    risk = paths[endpoints()["analytics.risk"].openapi_path]["get"]
    assert risk["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"][
        "$ref"
    ] == ("#/components/schemas/Risk")
    week = paths[endpoints()["signals.rebalances.get"].openapi_path]["get"]
    data = week["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["data"]
    assert data["type"] == "array" and data["items"] == {"$ref": "#/components/schemas/DecisionRow"}
    assert [p["name"] for p in week["parameters"] if p["in"] == "query"] == [
        p.name for p in endpoints()["signals.rebalances.get"].params
    ]
    assert endpoints()["analytics.risk"].query is RiskQuery
