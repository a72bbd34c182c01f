"""The raw-field policy, as the client sees it: a key without raw-book access never gets a `raw_`
field, column or book, by JSON pages or by export; a key with it gets them all."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec import UNSET

from alpha_results_client import Client, UnknownBookError

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"
RAW_DECISION_FIELDS = {
    "raw_score",
    "raw_direction",
    "raw_confidence",
    "raw_score_z",
    "raw_average_rank",
    "raw_long_short_target_weight",
    "raw_long_only_target_weight",
    "raw_fill_at",
    "raw_decision_reason",
}


def raw_fields_set(row: Any) -> set[str]:
    return {name for name in RAW_DECISION_FIELDS if getattr(row, name, UNSET) is not UNSET}


def test_a_key_without_raw_access_never_sees_raw_fields_or_books(plain: Client) -> None:
    assert plain.me().data.field_policy.expose_raw_book is False
    for row in plain.scores(ALPHA, fields="all").head(500):
        assert raw_fields_set(row) == set()
    for decision in plain.cross_section(ALPHA, "2021-01-08"):
        assert raw_fields_set(decision) == set()
    for frame in (
        plain.scores(ALPHA, fields="all").to_polars(),  # the export path
        plain.scores(ALPHA, fields="all").to_polars(use_exports=False),
        plain.scores(ALPHA).to_polars(),
        plain.cross_section(ALPHA, "2021-01-08").to_polars(),
    ):
        assert not [c for c in frame.columns if c.startswith("raw_")]
    assert not [b.book for b in plain.books(ALPHA) if (b.book or "").startswith("raw_") or b.raw]
    exports = plain.exports(ALPHA).to_list()
    assert exports and not [e for e in exports if ".raw." in e.filename or (e.book or "").startswith("raw_")]
    with pytest.raises(UnknownBookError) as info:
        plain.equity_curve(ALPHA, book="raw_long_short").to_list()
    assert "raw_long_short" not in info.value.details["available"]


def test_a_key_with_raw_access_gets_every_raw_field_and_book(raw: Client) -> None:
    assert raw.me().data.field_policy.expose_raw_book is True
    rows = raw.scores(ALPHA, fields="all").head(50).to_list()
    assert all(raw_fields_set(row) == RAW_DECISION_FIELDS for row in rows)
    core = raw.scores(ALPHA).head(5).to_list()
    assert all(raw_fields_set(row) == {"raw_score"} for row in core)
    frame = raw.scores(ALPHA, fields="all").to_polars()
    assert RAW_DECISION_FIELDS <= set(frame.columns)
    assert {b.book for b in raw.books(ALPHA) if b.raw} >= {"raw_long_short", "raw_long_only"}
    assert raw.equity_curve(ALPHA, book="raw_long_short").summary.book == "raw_long_short"
    assert any(e.filename.endswith(".raw.parquet") for e in raw.exports(ALPHA))
