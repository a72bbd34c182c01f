"""The row Structs (`schemas.bodies.rows`) are the one declaration of each collection row's fields:
the fields the server puts on the wire (`schemas.wire`, in its order), each with its meaning and
the rules the document, the reference and the client show; `EnvelopeMeta` and the objects it holds
declare `meta` the same way.

What a served row holds is checked against them on every recorded answer by
tests/api/test_bodies.py; here, the declarations themselves."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from schemas import lake, wire
from schemas.bodies import rows
from schemas.bodies.base import Window, field_schemas
from schemas.bodies.envelope import SHARED, EnvelopeMeta
from schemas.bodies.formats import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT
from serve.app import openapi_document
from serve.endpoints import endpoints
from serve.openapi.annotations import field_description
from serve.openapi.bodies import META_NESTED
from serve.openapi.jsonschema import without_null
from tests.declared import ROWS, SUMMARIES

READER_FIELDS = [
    ("ALPHA_LIST_FIELDS", rows.AlphaListRow),
    ("REBALANCE_INDEX_FIELDS", rows.RebalanceIndexRow),
    ("DECISION_FIELDS", rows.DecisionRow),
    ("SCORE_ALL_FIELDS", rows.ScoreRow),
    ("BOOK_FIELDS", rows.BookRow),
    ("PORTFOLIO_FIELDS", rows.LedgerRow),
    ("POSITION_FIELDS", rows.PositionRow),
    ("PNL_FIELDS", rows.PnlRow),
    ("TRADE_FIELDS", rows.TradeRow),
    ("EQUITY_CURVE_FIELDS", rows.EquityRow),
    ("EQUITY_SUMMARY_FIELDS", rows.EquitySummary),
    ("BENCHMARK_FIELDS", rows.BenchmarkRow),
    ("BENCHMARK_SUMMARY_FIELDS", rows.BenchmarkSummary),
    ("CORRELATION_FIELDS", rows.CorrelationRow),
    ("DRAWDOWN_FIELDS", rows.DrawdownRow),
    ("ROLLING_FIELDS", rows.RollingRow),
    ("SCREEN_FIELDS", rows.ScreenRow),
    ("COMBINED_FIELDS", rows.CombinedRow),
]
"""The field sets of `schemas.wire` the reader selects (typed from the lake's Arrow schemas), and the
row Struct each route serving them declares."""

DECLARED = [(endpoint, "row", body) for endpoint, body in ROWS.items()] + [
    (endpoint, "summary", body) for endpoint, body in SUMMARIES.items()
]
"""Each route's row and `meta.summary` Structs, as its handler declares them."""


DOCUMENTED = [*ROWS.values(), *SUMMARIES.values(), EnvelopeMeta, *META_NESTED, Window]
"""Every Struct whose fields carry their `doc`: the rows, the summaries, `meta` and what it holds."""


def fields_of(body: type[msgspec.Struct]) -> dict[str, dict[str, Any]]:
    """Each field's JSON Schema as msgspec writes it from the declaration, by wire name."""
    _, components = msgspec.json.schema_components([body])
    properties: dict[str, dict[str, Any]] = components[body.__name__]["properties"]
    return properties


def optional(body: type[msgspec.Struct]) -> set[str]:
    """The wire names of the fields the server may leave out (`| UnsetType = UNSET`)."""
    return {f.encode_name for f in msgspec.structs.fields(body) if f.default is msgspec.UNSET}


@pytest.mark.parametrize(("fields", "body"), READER_FIELDS, ids=[name for name, _ in READER_FIELDS])
def test_a_row_declares_the_fields_the_reader_selects_in_their_order(fields: str, body: Any) -> None:
    assert tuple(fields_of(body)) == getattr(wire, fields)


def test_every_route_over_lake_rows_declares_one_of_them() -> None:
    declared = {body for _, body in READER_FIELDS}
    assert {*ROWS.values(), *SUMMARIES.values()} == declared == set(rows.DECLARED)
    assert all(endpoints()[e].row_fields == tuple(fields_of(body)) for e, body in ROWS.items())


@pytest.mark.parametrize("body", DOCUMENTED, ids=lambda body: body.__name__)
def test_every_field_has_a_meaning_in_sentences(body: Any) -> None:
    endpoint = body.__name__
    for name, prop in fields_of(body).items():
        meaning = prop.get("description", "")
        assert meaning.strip() and meaning.rstrip("`").endswith((".", ")")), (endpoint, name)
        for text in (prop.get(X_NULL), prop.get(X_ABSENT)):
            assert text is None or (text[0].isupper() and text.endswith(".")), (endpoint, name)
        assert prop.get(X_NULL) is None or prop[X_NULL].startswith("Null"), (endpoint, name)
        assert prop.get(X_UNIT) is None or not prop[X_UNIT].endswith("."), (endpoint, name)


def test_every_raw_column_of_the_lake_is_declared_raw_only() -> None:
    """Stripping follows the declarations (`wire.RAW_FIELDS`): a `raw_` column the lake holds and no
    Struct marked raw-only would be served to every key. The seal's naming rule and the
    declarations must agree, over every table the server reads."""
    tables = (lake.DECISIONS, lake.REBALANCES, lake.BOOKS, lake.PORTFOLIO, lake.POSITIONS, lake.PNL)
    tables += (lake.TRADES, lake.BENCHMARK_DAILY, lake.ANALYTICS_DRAWDOWNS, lake.ANALYTICS_ROLLING)
    named = {
        name for table in (*tables, lake.CATALOGUE_INDEX) for name in table.names if name.startswith("raw_")
    }
    assert named == wire.RAW_FIELDS and len(named) >= 9
    for body in DOCUMENTED:  # stripped means left out: the key may be absent
        assert {n for n, p in fields_of(body).items() if p.get(X_RAW_ONLY)} <= optional(body), body


def test_the_fields_omitted_where_unsealed_are_the_specs() -> None:
    """`entry_at` and `maturity_at` are served "when sealed" (the spec): the decision record's
    Struct says so, and the reader omits them from that declaration (`wire.OMIT_WHEN_NULL`)."""
    assert wire.OMIT_WHEN_NULL == {"entry_at", "maturity_at"}


@pytest.mark.parametrize("body", DOCUMENTED, ids=lambda body: body.__name__)
def test_a_documented_null_is_allowed_by_the_type(body: Any) -> None:
    for name, prop in fields_of(body).items():
        _, nullable = without_null(prop)
        assert prop.get(X_NULL) is None or nullable, (body.__name__, name)
        assert prop.get(X_ABSENT) is None or name in optional(body), (body.__name__, name)


@pytest.mark.parametrize(("endpoint", "part", "body"), DECLARED)
def test_a_row_key_is_left_out_exactly_where_it_says(endpoint: str, part: str, body: Any) -> None:
    """`meta` aside (every key of it is optional: each route's schema lists its own)."""
    for name, prop in fields_of(body).items():
        assert (prop.get(X_ABSENT) is not None or bool(prop.get(X_RAW_ONLY))) == (name in optional(body)), (
            endpoint,
            name,
        )


def test_scores_fields_outside_the_core_set_say_so() -> None:
    scores = fields_of(ROWS["signals.scores"])
    assert tuple(scores) == wire.SCORE_ALL_FIELDS
    for name, prop in scores.items():
        assert ("fields=all" in (prop.get(X_ABSENT) or "")) == (name not in wire.SCORE_CORE_FIELDS), name


def test_the_document_states_each_field_with_its_rules() -> None:
    """Each row component of the served document: the Struct's meaning with its unit, null,
    absence and raw-only sentences composed, and each rule in its own `x-` key."""
    served = openapi_document()["components"]["schemas"]
    for endpoint, _, body in DECLARED:
        component = served[body.__name__]["properties"]
        for name, prop in fields_of(body).items():
            expected = field_description(
                prop["description"],
                prop.get(X_UNIT),
                prop.get(X_NULL),
                prop.get(X_ABSENT),
                bool(prop.get(X_RAW_ONLY)),
            )
            assert component[name]["description"] == expected, (endpoint, name)
            for key in (X_UNIT, X_NULL, X_ABSENT, X_RAW_ONLY):
                assert component[name].get(key) == prop.get(key), (endpoint, name, key)
    pnl = served[ROWS["portfolio.pnl"].__name__]["properties"]["net_pnl"]
    assert pnl["description"] == (
        "`market_pnl + execution_cost + borrow_cashflow` (a sum; never subtract the cost columns). "
        "Unit: base currency."
    )
    scores = served[ROWS["signals.scores"].__name__]["properties"]
    assert scores["raw_score"][X_RAW_ONLY] is True and X_RAW_ONLY not in scores["score"]
    assert "raw-book access" in scores["raw_score"]["description"]


def test_every_routes_meta_states_its_keys_as_declared() -> None:
    """Each route's `meta` lists the shared keys, `summary` on the series and its registry
    entry's keys, each with `EnvelopeMeta`'s meaning and rules composed."""
    declared = fields_of(EnvelopeMeta)
    document = openapi_document()
    checked = 0
    for item in document["paths"].values():
        for operation in item.values():
            endpoint = operation.get("x-registry-id")
            schema = operation["responses"].get("200", {}).get("content", {}).get("application/json", {})
            meta = schema.get("schema", {}).get("properties", {}).get("meta")
            if endpoint is None or meta is None:
                continue
            summary = ["summary"] if endpoint in SUMMARIES else []
            assert list(meta["properties"]) == [*SHARED, *summary, *endpoints()[endpoint].meta], endpoint
            for name, prop in meta["properties"].items():
                rule = declared[name]
                expected = field_description(
                    str(rule["description"]), rule.get(X_UNIT), rule.get(X_NULL), rule.get(X_ABSENT), False
                )
                assert prop["description"] == expected, (endpoint, name)
                for key in (X_UNIT, X_NULL, X_ABSENT):
                    assert prop.get(key) == rule.get(key), (endpoint, name, key)
                checked += 1
    assert checked >= 296  # every key of every route (296 today)


def test_every_raw_only_field_a_route_declares_is_stripped() -> None:
    """`schemas.wire.RAW_FIELDS` (what a key without raw-book access never sees) is read from
    `rows.DECLARED`: a route whose row Struct declares a raw-only field outside that list would
    serve it to every key."""
    declared = {
        name
        for e in endpoints().values()
        for body in (e.rows, e.meta_summary)
        if body is not None
        for name, schema in field_schemas(body).items()
        if schema.get(X_RAW_ONLY)
    }
    assert declared and declared <= wire.RAW_FIELDS
