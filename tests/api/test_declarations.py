"""The handler is the endpoint's declaration (issue 23): what `@route` and the signature declare
is what is served and documented, and a declaration that cannot be one is refused before any
request."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

import msgspec
import pytest
from litestar import Response
from litestar.params import FromPath

from core.errors import BadRequest
from schemas.bodies.envelope import Collection, Series, Single
from schemas.bodies.risk import Risk
from schemas.bodies.rows import DecisionRow, EquityRow, EquitySummary
from schemas.bodies.service import Health
from schemas.choices import DEFAULT_BOOK
from schemas.query import Book, NoQuery, Query, RiskQuery, WeekQuery, params_of
from serve.app import ROUTE_HANDLERS
from serve.declaration import Handled
from serve.endpoints import collected, endpoints
from serve.exchange import query_pairs
from serve.params import QueryParams
from serve.routes.base import Ctx
from serve.routes.declare import answer_of, query_of, route


async def _week(ctx: Ctx[WeekQuery], alpha: FromPath[str]) -> Response[Collection[DecisionRow]]:
    raise AssertionError("never called")


async def _plain(alpha: FromPath[str]) -> Response[bytes]:
    raise AssertionError("never called")


async def _untyped(alpha: FromPath[str]) -> bytes:
    raise AssertionError("never called")


async def _mistyped(ctx: int, alpha: FromPath[str]) -> Response[bytes]:
    raise AssertionError("never called")


class _SkewQuery(Query, frozen=True):
    """A query Struct declared beside its handler, as a new route's may be (docs/development.md)."""

    book: Book = DEFAULT_BOOK
    lags: Annotated[int, msgspec.Meta(ge=1, le=20, description="Lags.")] = 5


async def _skew(ctx: Ctx[_SkewQuery], alpha: FromPath[str]) -> Response[Single[Risk]]:
    raise AssertionError("never called")


def test_a_query_struct_beside_its_handler_is_its_declaration() -> None:
    assert query_of(_skew) is _SkewQuery
    params = params_of(query_of(_skew))
    assert [(param.name, param.default) for param in params] == [("book", DEFAULT_BOOK), ("lags", 5)]
    accepted = [param.name for param in params]
    assert QueryParams(query_pairs(b"lags=7"), accepted).parse(_SkewQuery) == _SkewQuery(lags=7)
    with pytest.raises(BadRequest) as refused:
        QueryParams(query_pairs(b"lags=0&width=3"), accepted).parse(_SkewQuery)
    assert refused.value.details == {
        "parameters": [
            {"name": "lags", "rule": "must be between 1 and 20; got 0"},
            {"name": "width", "rule": "unknown parameter; this endpoint accepts: book, lags"},
        ]
    }


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
    "answer",
    [bytes, dict[str, Any], Single[dict[str, Any]], Collection[int], Risk | None, Risk, Single, Collection],
    ids=[
        "bytes",
        "a dict",
        "a single dict",
        "rows of int",
        "a union",
        "a body without its envelope",
        "Single without its body",
        "Collection without its rows",
    ],
)
def test_an_answer_that_is_no_declared_body_is_refused(answer: Any) -> None:
    with pytest.raises(TypeError, match="/v1/x"):
        Handled("/v1/x", "X", answer)


def test_the_answer_is_the_return_type() -> None:
    week = Handled("/v1/x", "X", answer_of(_week))
    assert (week.rows, week.body, week.meta_summary, week.enveloped) == (DecisionRow, None, None, True)
    series = Handled("/v1/x", "X", Series[EquityRow, EquitySummary])
    assert (series.rows, series.meta_summary, series.body) == (EquityRow, EquitySummary, None)
    single = Handled("/v1/x", "X", Single[Risk], meta=("window",))
    assert (single.body, single.rows, single.enveloped) == (Risk, None, True)
    bare = Handled("/v1/x", "X", Health)
    assert (bare.body, bare.enveloped) == (Health, False)
    with pytest.raises(TypeError, match="no meta"):
        Handled("/v1/x", "X", Health, meta=("window",))
    with pytest.raises(TypeError, match="Response"):
        answer_of(_untyped)


def test_route_reads_the_answer_and_the_query_from_the_signature() -> None:
    week = route("analytics.risk", "/v1/x", "X")(_week).opt["declared"]
    assert (week.answer, week.rows, week.query) == (Collection[DecisionRow], DecisionRow, WeekQuery)
    skew = route("analytics.risk", "/v1/y", "Y")(_skew).opt["declared"]
    assert (skew.body, skew.query) == (Risk, _SkewQuery)
    assert endpoints()["meta.health"].body is Health and not endpoints()["meta.health"].enveloped
    assert endpoints()["portfolio.equity_curve"].meta_summary is EquitySummary


def test_every_reference_of_the_document_names_a_component() -> None:
    from serve.app import openapi_document

    document = openapi_document()
    text = json.dumps(document)
    named = set(re.findall(r'"#/components/schemas/([^"]+)"', text))
    assert named and named <= set(document["components"]["schemas"]), sorted(
        named - set(document["components"]["schemas"])
    )


def test_an_id_the_registry_lacks_is_refused_when_decorated() -> None:
    with pytest.raises(KeyError, match="analytics.nope"):
        route("analytics.nope", "/v1/nope", "Nope")


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
