"""`as_of`'s one rule (issue 81, item 3; `schemas.query.as_of_moment`, read by the query parser and
by `context_of`): a value is a real moment or a 400 naming the broken rule. Before, a value of the
right form that was no real moment (30 February, hour 24, year 0000, offset +25:00, Arabic-Indic
digits) was answered as "now", and one whose conversion to UTC left years 0001-9999 was a 500.

Checked against an independent reading (`strptime`, then `astimezone`) over generated values, and
through the parser that answers every route (the routes and MCP through the real server:
tests/e2e/test_as_of_served.py)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import given, settings

from core import errors
from schemas import query as query_module
from schemas.query import AsOfQuery, as_of_moment
from serve.params import QueryParams
from tests.support.as_of_values import MOMENTS, MORE, REPORTED


@pytest.mark.parametrize(("text", "rule"), [*REPORTED.items(), *MORE.items()])
def test_a_value_that_is_no_real_moment_is_refused_naming_the_rule(text: str, rule: str) -> None:
    with pytest.raises(ValueError, match=re.escape(rule)):
        as_of_moment(text)
    with pytest.raises(errors.ApiError) as refused:
        QueryParams([("as_of", text)], ["as_of"]).parse(AsOfQuery)
    assert refused.value.status == 400
    [problem] = refused.value.details["parameters"]
    assert problem["name"] == "as_of" and rule in problem["rule"]


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("2021-06-01T15:00:00Z", dt.datetime(2021, 6, 1, 15, tzinfo=dt.UTC)),
        ("2021-06-01T15:00:00.5+02:00", dt.datetime(2021, 6, 1, 13, 0, 0, 500_000, tzinfo=dt.UTC)),
        ("2020-02-29T23:59:59.999999-18:00", dt.datetime(2020, 3, 1, 17, 59, 59, 999_999, tzinfo=dt.UTC)),
        ("0001-01-01T00:00:00Z", dt.datetime(1, 1, 1, tzinfo=dt.UTC)),
        ("0001-01-01T01:00:00+01:00", dt.datetime(1, 1, 1, tzinfo=dt.UTC)),
        ("9999-12-31T23:59:59Z", dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)),
        ("2021-06-01T15:00:00-00:00", dt.datetime(2021, 6, 1, 15, tzinfo=dt.UTC)),
    ],
)
def test_a_real_moment_is_read_in_utc(text: str, utc: dt.datetime) -> None:
    assert as_of_moment(text) == utc
    assert QueryParams([("as_of", text)], ["as_of"]).parse(AsOfQuery).as_of == text


@pytest.mark.parametrize("text", ["2021-06-01T15:00:00.5+02:00", "2021-02-30T15:00:00Z"])
def test_one_request_reads_its_as_of_once(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`context_of` takes the moment (`QueryParams.moment_of`) before the route parses its query:
    the rule runs once per request, and both answer alike (the moment, or the same broken rule)."""
    calls: list[str] = []

    def counted(value: str) -> dt.datetime:
        calls.append(value)
        return as_of_moment(value)

    monkeypatch.setattr(query_module, "as_of_moment", counted)
    query = QueryParams([("as_of", text)], ["as_of"])
    try:
        moment: dt.datetime | str = query.moment_of("as_of")
    except ValueError as broken:
        moment = str(broken)
    if isinstance(moment, dt.datetime):
        assert moment == as_of_moment(text)
        assert query.parse(AsOfQuery).as_of == text
    else:
        with pytest.raises(errors.ApiError) as refused:
            query.parse(AsOfQuery)
        assert refused.value.details["parameters"][0]["rule"] == moment
    assert calls == [text]


def independent(text: str) -> dt.datetime | None:
    """The moment `text` names, read without the rule: ASCII, strptime's calendar, the +-18:00 bound
    and Python's own conversion to UTC (None for anything that is not one)."""
    if not text.isascii() or not text[:4].isdigit():
        return None
    form = "%Y-%m-%dT%H:%M:%S.%f%z" if "." in text else "%Y-%m-%dT%H:%M:%S%z"
    try:
        local = dt.datetime.strptime(text, form)
    except ValueError:
        return None
    offset = local.utcoffset()
    assert offset is not None
    if abs(offset) > dt.timedelta(hours=18):
        return None
    try:
        return local.astimezone(dt.UTC)
    except OverflowError:
        return None


@settings(max_examples=2000, deadline=None)
@given(MOMENTS)
def test_the_rule_agrees_with_an_independent_reading(text: str) -> None:
    try:
        found: dt.datetime | None = as_of_moment(text)
    except ValueError:
        found = None
    assert found == independent(text), text
