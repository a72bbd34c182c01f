"""Printing a body shows what the server sent: the fields it left out (`UNSET`) are not in the repr,
an explicit null (`None`) is."""

from __future__ import annotations

import inspect
import re
from datetime import date

import msgspec
import pytest
from msgspec import UNSET

from alpha_results_client import Client, _generated
from alpha_results_client._generated import Meta, ResponseWarning, Stat, Window
from alpha_results_client._struct import ApiStruct

ALPHA = "momentum_12_1"


def test_every_body_class_leaves_unset_fields_out_of_its_repr() -> None:
    structs = [
        value
        for module in (_generated,)
        for value in vars(module).values()
        if inspect.isclass(value) and issubclass(value, msgspec.Struct)
    ]
    assert len(structs) > 100
    assert [cls.__name__ for cls in structs if not issubclass(cls, ApiStruct)] == []

    warning = ResponseWarning(code="kind_missing", message="no decisions", kind="decisions")
    assert repr(warning) == "ResponseWarning(code='kind_missing', message='no decisions', kind='decisions')"
    assert repr(Meta()) == "Meta()"
    stat = Stat(
        value=None,
        unit="ratio",
        status="not_measurable",
        source="metrics",
        source_kind="metric",
        withheld_reason="no weeks",
    )
    assert repr(stat) == (
        "Stat(value=None, unit='ratio', status='not_measurable', withheld_reason='no weeks', "
        "source='metrics', source_kind='metric')"
    )
    window = Window(from_=None, to=date(2021, 6, 30))
    assert repr(window) == "Window(from_=None, to=datetime.date(2021, 6, 30))"
    assert str(warning) == repr(warning)  # print() shows the same
    assert warning == ResponseWarning(
        code="kind_missing", message="no decisions", kind="decisions", block=UNSET
    )


@pytest.mark.e2e
def test_printed_bodies_show_what_the_server_sent(plain: Client, raw: Client) -> None:
    metrics = plain.metrics(ALPHA)
    shown = repr(metrics)
    assert "UNSET" not in shown and shown.startswith("MetricsResponse(data=Metrics(granularity='overall'")
    assert not re.search(r"\bpanel=", shown) and not re.search(r"\bdoc=", shown)  # not asked for: not sent
    assert "panel=Panel(" in repr(plain.metrics(ALPHA, panel=True).data)

    significance = plain.significance(ALPHA).data
    assert "UNSET" not in repr(significance)
    sharpe = significance.sharpe
    sent = [f"{name}=" for name in sharpe.__struct_fields__ if getattr(sharpe, name) is not UNSET]
    assert repr(sharpe) == f"AnalyticsStat({', '.join(f'{n}{getattr(sharpe, n[:-1])!r}' for n in sent)})"

    row = plain.scores(ALPHA).head(1).to_list()[0]
    assert row.raw_score is UNSET and "raw_score" not in repr(row)  # a key without raw access
    raw_row = raw.scores(ALPHA).head(1).to_list()[0]
    assert f"raw_score={raw_row.raw_score!r}" in repr(raw_row)

    shown = repr(plain.benchmark().summary)
    assert shown.startswith("BenchmarkSummary(symbol='SPY', name=") and "return_basis='close'" in shown
