"""Each endpoint's query parameters are one msgspec Struct; the server parses into it by its fields."""

from __future__ import annotations

import datetime as dt
import re

import msgspec
import pytest

from core import errors
from schemas.query import (
    BenchmarkQuery,
    MetricsQuery,
    Query,
    TradesQuery,
    WeekQuery,
    WindowPageQuery,
    params_of,
    path_params_of,
)
from serve.endpoints import endpoints
from serve.exchange import query_pairs
from serve.params import QueryParams


def parse(query_string: str, query: type[Query], path: dict[str, str] | None = None) -> Query:
    return QueryParams(
        query_pairs(query_string.encode()), [p.name for p in params_of(query)], query.refused
    ).parse(query, path=path)


def test_values_arrive_typed_with_the_declared_defaults() -> None:
    args = parse("from=2024-01-02&limit=7", WindowPageQuery)
    assert args == WindowPageQuery(start=dt.date(2024, 1, 2), end=None, limit=7, offset=0)
    metrics = parse("doc=TRUE&granularity=Yearly", MetricsQuery)
    assert isinstance(metrics, MetricsQuery)
    assert (metrics.doc, metrics.panel, metrics.granularity) == (True, False, "yearly")
    week = parse("", WeekQuery, {"date": "2024-01-05"})
    assert isinstance(week, WeekQuery)
    assert (week.date, week.book, week.sort, week.order, week.limit) == (
        dt.date(2024, 1, 5),
        "long_short",
        "score",
        None,
        100,
    )


def test_a_path_parameter_is_typed_by_the_struct_and_named_first_in_the_400() -> None:
    """`{date}` and `{symbol}` are declared on their routes' query Structs (`in: path`): read from
    the path, not the query string, and their problems come first in the one 400."""
    assert [p.name for p in path_params_of(WeekQuery)] == ["date"]
    assert "date" not in [p.name for p in params_of(WeekQuery)]
    with pytest.raises(errors.ApiError) as caught:
        parse("limit=0&date=2024-01-05", WeekQuery, {"date": "2024-02-30"})
    assert caught.value.details["parameters"] == [
        {
            "name": "date",
            "rule": "unknown parameter; this endpoint accepts: symbol, direction, "
            "min_abs_weight, book, sort, order, limit, offset, format, as_of",
        },
        {"name": "limit", "rule": "must be between 1 and 5000; got 0"},
    ]
    with pytest.raises(errors.ApiError) as caught:
        parse("limit=0", WeekQuery, {"date": "2024-02-30"})
    assert caught.value.details["parameters"][0] == {
        "name": "date",
        "rule": "path date must be a calendar date YYYY-MM-DD; got '2024-02-30'",
    }
    with pytest.raises(errors.ApiError) as caught:
        parse("", BenchmarkQuery, {"symbol": "spy"})
    assert caught.value.details == {
        "parameters": [{"name": "symbol", "rule": "must be one of SPY; got 'spy'"}],
        "available": ["SPY"],
    }
    assert parse("", BenchmarkQuery, {"symbol": "SPY"}) == BenchmarkQuery(symbol="SPY")


def test_every_problem_is_named_in_one_400_in_wire_names() -> None:
    with pytest.raises(errors.ApiError) as caught:
        parse("from=2024-02-01&to=2024-01-01&limit=0&offset=x&nope=1", WindowPageQuery)
    error = caught.value
    assert error.status == 400 and error.code == "bad_request"
    assert [p["name"] for p in error.details["parameters"]] == ["from", "limit", "nope", "offset", "to"]


def test_a_required_parameter_without_a_default_is_reported_missing() -> None:
    with pytest.raises(errors.ApiError) as caught:
        parse("limit=5", TradesQuery)
    assert [p["name"] for p in caught.value.details["parameters"]] == ["book"]


def test_the_documented_parameters_are_the_struct_fields_in_order() -> None:
    for endpoint in endpoints().values():
        in_path = {p.name for p in path_params_of(endpoint.query)}
        assert in_path <= set(re.findall(r"\{(\w+):", endpoint.path)), endpoint.id  # a path's own
        fields = [f for f in msgspec.structs.fields(endpoint.query) if f.encode_name not in in_path]
        assert [p.name for p in endpoint.params] == [f.encode_name for f in fields], endpoint.id
        assert [p.required for p in endpoint.params] == [f.required for f in fields], endpoint.id
