"""Each endpoint's query parameters are one msgspec Struct; the server parses into it by its fields."""

from __future__ import annotations

import datetime as dt

import msgspec
import pytest

from schemas.query import MetricsQuery, Query, TradesQuery, WeekQuery, WindowPageQuery, params_of
from serve import errors
from serve.endpoints import endpoints
from serve.params import QueryParams


def parse(query_string: str, query: type[Query]) -> Query:
    return QueryParams(query_string, [p.name for p in params_of(query)], query.refused).parse(query)


def test_values_arrive_typed_with_the_declared_defaults() -> None:
    args = parse("from=2024-01-02&limit=7", WindowPageQuery)
    assert args == WindowPageQuery(start=dt.date(2024, 1, 2), end=None, limit=7, offset=0)
    metrics = parse("doc=TRUE&granularity=Yearly", MetricsQuery)
    assert isinstance(metrics, MetricsQuery)
    assert (metrics.doc, metrics.panel, metrics.granularity) == (True, False, "yearly")
    week = parse("", WeekQuery)
    assert isinstance(week, WeekQuery)
    assert (week.book, week.sort, week.order, week.limit) == ("long_short", "score", None, 100)


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
        fields = msgspec.structs.fields(endpoint.query)
        assert [p.name for p in endpoint.params] == [f.encode_name for f in fields], endpoint.id
        assert [p.required for p in endpoint.params] == [f.required for f in fields], endpoint.id
