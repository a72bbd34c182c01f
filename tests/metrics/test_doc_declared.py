"""`/metrics/_doc` is read from the declaration of the metrics object (issue 23): every path it
documents exists in the OpenAPI document's schema of that object, a field's meaning there is its
description, and the facts a field states hold for what it contains unless that states its own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from schemas.bodies.metrics import DECILES_AVAILABILITY, FULL, STAT_KEYS, WINDOW, Metrics
from serve.app import openapi_document
from serve.doc_blocks.metrics_doc import metrics_doc


@pytest.fixture(scope="module")
def fields() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = metrics_doc()["fields"]
    return out


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    out: dict[str, Any] = openapi_document()["components"]["schemas"]
    return out


def _object(components: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The object a property holds: through `anyOf` with null, arrays and `$ref`."""
    for arm in schema.get("anyOf", [schema]):
        if arm.get("type") == "null":
            continue
        if arm.get("type") == "array":
            arm = arm["items"]
        if "$ref" in arm:
            return components[arm["$ref"].rsplit("/", 1)[-1]]  # type: ignore[no-any-return]
        return arm  # type: ignore[no-any-return]
    return schema


def _property(components: dict[str, Any], path: str) -> dict[str, Any]:
    """The OpenAPI property at a dotted documentation path (`periods[].core.ic.value`)."""
    node = components[Metrics.__name__]
    prop: dict[str, Any] = {}
    for name in path.replace("[]", "").split("."):
        prop = node["properties"][name]
        node = _object(components, prop)
    return prop


def test_every_documented_path_is_a_field_of_the_declared_object(
    fields: dict[str, dict[str, Any]], components: dict[str, Any]
) -> None:
    assert len(fields) > 300
    for path in fields:
        _property(components, path)  # a KeyError names a path the contract does not have


def test_a_field_means_in_the_block_what_the_openapi_document_says_of_it(
    fields: dict[str, dict[str, Any]], components: dict[str, Any]
) -> None:
    for path, entry in fields.items():
        if path.startswith("periods[]"):  # `where` gives some fields other words under a period
            continue
        description = _property(components, path).get("description", "")
        parent, _, key = path.rpartition(".")
        if re.fullmatch(r"nwt\.\w+\.(source|source_kind|signal|frequency)", path):
            continue  # one Struct for every test: the shared description is general, each test's own
        if description.startswith(entry["meaning"] + " (availability: "):
            assert description.endswith(f"{entry['availability']})"), path
        elif "the series tested" in description:  # a Newey-West test names its series
            assert entry["meaning"].startswith(description.split("the series tested")[0]), path
        elif key in STAT_KEYS and f"{parent}.value" in fields:  # a statistic's keys name it
            assert entry["meaning"] == f"{description} ({parent.rsplit('.', 1)[-1]})", path
        else:
            assert entry["meaning"] == description, path


def test_facts_are_inherited_unless_a_field_states_its_own(fields: dict[str, dict[str, Any]]) -> None:
    assert fields["core.ic.value"]["horizon"] == FULL
    assert fields["periods[].core.ic.value"]["horizon"] == "the period"
    assert fields["periods[].core.ic.value"]["granularity"] == "yearly or monthly"
    assert fields["core.tenure.weeks"]["horizon"] == WINDOW  # tenure states its own window
    assert (
        fields["periods[].core.tenure.weeks"]["horizon"]
        == "the period, intersected with the requested window"
    )
    assert fields["ic_deciles.buckets[].ic"]["availability"] == DECILES_AVAILABILITY
    assert fields["ic_deciles.buckets[].ic"]["signal"] == "raw"
    assert fields["panel.ic_weekly[].ic"]["signal"] == "conditioned"
    assert "signal" not in fields["panel.coverage[].coverage"]  # stated as none
    assert fields["panel.ic_term_structure[].newey_west.mean"]["source"] == "weekly_term"
    assert fields["nwt.ir.mean"]["meaning"] == "Mean of daily long_short returns (ending/starting - 1)"
    assert "nwt.ir.frequency" in fields and "nwt.ic.frequency" not in fields
    assert fields["core.excess_sharpe.value"]["unit"] == "ratio"
    assert fields["core.excess_sharpe.status"]["unit"] is None
    assert fields["core.excess_sharpe.risk_free_rate"]["unit"] == "per_year"
    assert "core.ic.risk_free_rate" not in fields
    assert fields["periods[].core.pnl"]["formula"] != fields["core.pnl"]["formula"]
