"""The OpenAPI document tells the truth about what is served (regressions of what schemathesis found).

- Served bodies validate against the declared 200 schemas. The catalogue's `tldr` and the dates and
  labels of the equity-curve and benchmark `meta.summary` were declared as numbers (nine fields):
  a field no lake column types fell back to float64. Now each such field is typed in
  `schemas.wire.COMPUTED_FIELD_TYPES` and an untyped field is an error.
- A request that satisfies every declared parameter schema is not refused for that parameter:
  `symbol` declares the ticker-list pattern the server parses with, `search` its length, the
  benchmark `{symbol}` its served symbols and the rebalance `{date}` its date format.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from schemas import wire
from schemas.query import MAX_SYMBOLS, TEXT_MAX_LENGTH
from schemas.wire import wire_type
from serve import params
from serve.exchange import query_pairs
from tests.api.conftest import Api

ALPHA = "/v1/alphas/Test_planted_factor"
BODIES = [
    ("/v1/alphas", {"limit": 5000}),
    (f"{ALPHA}/rebalances", {"limit": 5}),
    (f"{ALPHA}/rebalances/2021-01-15", {"limit": 5}),
    (f"{ALPHA}/scores", {"limit": 5, "fields": "all"}),
    (f"{ALPHA}/books", {}),
    (f"{ALPHA}/portfolio", {"limit": 5}),
    (f"{ALPHA}/positions", {"limit": 5}),
    (f"{ALPHA}/pnl", {"limit": 5}),
    (f"{ALPHA}/trades", {"limit": 5, "book": "long_short"}),
    (f"{ALPHA}/equity-curve", {"limit": 5}),
    (f"{ALPHA}/equity-curve", {"from": "2030-01-01"}),  # an empty window: null summary dates
    ("/v1/benchmarks/SPY/daily", {"limit": 5}),
    ("/v1/benchmarks/SPY/daily", {"from": "2030-01-01"}),
]


@pytest.fixture(scope="module")
def document(api: Api) -> dict[str, Any]:
    body: dict[str, Any] = api.get("/openapi.json", token=None).json()
    return body


def _template(document: dict[str, Any], path: str) -> str:
    for template in document["paths"]:
        if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)), path):
            return template
    raise AssertionError(f"{path} is not in the document")


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    # `#/components/...` references resolve against the root of the schema validated.
    return Draft202012Validator(
        {**schema, "components": document["components"]}, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


def _parameter_schema(document: dict[str, Any], template: str, name: str) -> dict[str, Any]:
    parameters = document["paths"][template]["get"]["parameters"]
    schema: dict[str, Any] = next(p["schema"] for p in parameters if p["name"] == name)
    return schema


@pytest.mark.parametrize(("path", "query"), BODIES)
def test_served_bodies_validate_against_the_declared_schema(
    api: Api, document: dict[str, Any], path: str, query: dict[str, Any]
) -> None:
    body = api.ok(path, **query)
    operation = document["paths"][_template(document, path)]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in _validator(document, schema).iter_errors(body)
    ]
    assert not problems, problems


def test_the_fields_that_were_declared_as_numbers_are_strings(document: dict[str, Any]) -> None:
    def resolved(schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref", "")
        found: dict[str, Any] = document["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else schema
        return found

    def summary(path: str) -> dict[str, Any]:
        schema = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        properties: dict[str, Any] = resolved(schema["properties"]["meta"]["properties"]["summary"])[
            "properties"
        ]
        return properties

    def typed(schema: dict[str, Any]) -> dict[str, Any]:
        """The type keywords of a property (its description and `x-` extensions aside), a Struct's
        `anyOf: [T, null]` written as `type: [T, null]`."""
        arms = schema.get("anyOf", [schema])
        types = [t for arm in arms for t in ([arm["type"]] if isinstance(arm["type"], str) else arm["type"])]
        formats = {arm["format"] for arm in arms if "format" in arm}
        return {"type": types if len(types) > 1 else types[0]} | (
            {"format": formats.pop()} if formats else {}
        )

    alphas = document["paths"]["/v1/alphas"]["get"]["responses"]["200"]["content"]["application/json"]
    assert typed(resolved(alphas["schema"]["properties"]["data"]["items"])["properties"]["tldr"]) == {
        "type": ["string", "null"]
    }
    curve, bench = summary("/v1/alphas/{alpha}/equity-curve"), summary("/v1/benchmarks/{symbol}/daily")
    for fields in (curve, bench):
        for name in ("first_date", "last_date", "max_drawdown_date"):
            assert typed(fields[name]) == {"type": ["string", "null"], "format": "date"}, name
        assert typed(fields["sessions"]) == {"type": ["integer", "null"]}
    for name in ("name", "return_basis"):
        assert typed(bench[name]) == {"type": ["string", "null"]}, name


def test_a_served_field_without_a_wire_type_is_an_error() -> None:
    with pytest.raises(KeyError, match="COMPUTED_FIELD_TYPES"):
        wire_type("no_such_field")
    computed = (
        wire.EQUITY_CURVE_FIELDS,
        wire.EQUITY_SUMMARY_FIELDS,
        wire.BENCHMARK_FIELDS,
        wire.BENCHMARK_SUMMARY_FIELDS,
        ("tldr",),
    )
    for fields in computed:
        for name in fields:
            wire_type(name)


def ecma_match(pattern: str, value: str) -> bool:
    """A JSON Schema `pattern` (ECMA-262) in Python: `$` ends the text, never before a final newline."""
    return re.search(re.sub(r"\$$", r"\\Z", pattern), value) is not None


def _accepted(value: str) -> bool:
    query = params.QueryParams(query_pairs(urlencode({"symbol": value}).encode()), ["symbol"])
    return query.tickers("symbol") is not None and not query.problems


SYMBOL_VALUES = [
    ("AAPL", True),
    ("aapl, MSFT", True),
    ("BRK.B,\tBF-B ,x_1", True),
    (",".join(["A"] * MAX_SYMBOLS), True),
    (",".join(["A"] * (MAX_SYMBOLS + 1)), False),
    ("", False),
    ("AAPL,", False),
    (".A", False),
    ("A" * 25, False),
    ("\x1cAAPL", False),  # str.strip() took this as whitespace
    ("AAPL\n", False),
    ("ß", False),
    ("ﬁ", False),
]


@pytest.mark.parametrize(("value", "accepted"), SYMBOL_VALUES)
def test_the_symbol_pattern_is_what_the_server_accepts(
    document: dict[str, Any], value: str, accepted: bool
) -> None:
    pattern = _parameter_schema(document, "/v1/alphas/{alpha}/positions", "symbol")["pattern"]
    assert ecma_match(pattern, value) is accepted
    assert _accepted(value) is accepted


@settings(max_examples=300)
@given(
    st.one_of(
        st.text(max_size=40),
        st.from_regex(params.SYMBOL_LIST_PATTERN, fullmatch=True),
        st.lists(
            st.sampled_from(["A", "b9", " ", "\t", ",", ".", "-", "_", "Z", "\n", "é"]), max_size=30
        ).map("".join),
    )
)
def test_declared_symbol_pattern_and_server_agree(value: str) -> None:
    declared = f"^(?:{params.SYMBOL_LIST})$"
    assert ecma_match(declared, value) is _accepted(value), repr(value)


def test_search_declares_the_length_the_server_accepts(api: Api, document: dict[str, Any]) -> None:
    schema = _parameter_schema(document, "/v1/alphas", "search")
    assert schema["maxLength"] == TEXT_MAX_LENGTH
    api.ok("/v1/alphas", search="x" * TEXT_MAX_LENGTH)
    error = api.error("/v1/alphas", 400, "bad_request", search="x" * (TEXT_MAX_LENGTH + 1))
    assert [p["name"] for p in error["details"]["parameters"]] == ["search"]


def test_path_parameters_declare_their_accepted_values(api: Api, document: dict[str, Any]) -> None:
    symbol = _parameter_schema(document, "/v1/benchmarks/{symbol}/daily", "symbol")
    assert symbol["enum"] == list(wire.BENCHMARK_SYMBOLS)
    error = api.error("/v1/benchmarks/QQQ/daily", 400, "bad_request")
    assert error["details"]["available"] == list(wire.BENCHMARK_SYMBOLS)
    date = _parameter_schema(document, "/v1/alphas/{alpha}/rebalances/{date}", "date")
    assert date == {"type": "string", "format": "date"}
    api.error(f"{ALPHA}/rebalances/2021-02-30", 400, "bad_request")


def _tags_accepted(value: str) -> bool:
    query = params.QueryParams(query_pairs(urlencode({"tag": value}).encode()), ["tag"])
    return query.items("tag", TEXT_MAX_LENGTH) is not None and not query.problems


@settings(max_examples=300)
@given(
    st.one_of(
        st.text(max_size=40),
        st.lists(st.sampled_from(["a", "Q", " ", "\t", ",", "-", "\n", "é", "\x0b"]), max_size=30).map(
            "".join
        ),
    )
)
def test_declared_tag_pattern_and_server_agree(value: str) -> None:
    """schemathesis sent `tag=` (an empty string the document admitted) and got a 400: the
    declared pattern is now the parser's."""
    declared = f"^(?:{params.ITEM_LIST_PATTERN.pattern})$"
    assert ecma_match(declared, value) is _tags_accepted(value), repr(value)


@pytest.mark.parametrize(
    ("value", "accepted"), [("", False), ("a,,b", False), (" ,a", False), ("a, b", True), ("trend", True)]
)
def test_the_tag_pattern_is_declared_and_served(
    api: Api, document: dict[str, Any], value: str, accepted: bool
) -> None:
    pattern = _parameter_schema(document, "/v1/analytics/screen", "tag")["pattern"]
    assert ecma_match(pattern, value) is accepted
    if accepted:
        api.ok("/v1/analytics/screen", tag=value)
    else:
        error = api.error("/v1/analytics/screen", 400, "bad_request", tag=value)
        assert [p["name"] for p in error["details"]["parameters"]] == ["tag"]
