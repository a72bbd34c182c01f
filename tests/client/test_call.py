"""`Client.call`: any endpoint by its registry id, from the served document alone, with the same
answers as the named methods."""

from __future__ import annotations

from datetime import date

import pytest

from alpha_results_client import Client

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def test_a_single_object_is_its_typed_body(raw: Client) -> None:
    called = raw.call("analytics.risk", alpha=ALPHA, book="long_only", start=date(2018, 1, 1))
    named = raw.risk(ALPHA, book="long_only", start=date(2018, 1, 1))
    assert type(called) is type(named) and called.data == named.data


def test_a_collection_pages_lazily_as_the_named_method_does(raw: Client) -> None:
    week = raw.rebalances(ALPHA).to_list()[10].date
    symbols = [row.symbol for row in raw.cross_section(ALPHA, week, sort="rank").to_list()[:3]]
    window = {"start": week, "end": week, "symbol": symbols}
    called = raw.call("signals.scores", alpha=ALPHA, **window)
    named = raw.scores(ALPHA, **window)
    assert called.total == named.total > 0
    assert called.to_list() == named.to_list()


def test_path_parameters_are_keywords_too(raw: Client) -> None:
    week = raw.rebalances(ALPHA).to_list()[10].date
    called = raw.call("signals.rebalances.get", alpha=ALPHA, date=week, sort="rank")
    assert [row.symbol for row in called.to_list()] == [
        row.symbol for row in raw.cross_section(ALPHA, week, sort="rank")
    ]


def test_a_mistake_is_named_before_any_request(raw: Client) -> None:
    with pytest.raises(ValueError, match="no endpoint 'analytics.nope'"):
        raw.call("analytics.nope", alpha=ALPHA)
    with pytest.raises(TypeError, match="path parameter"):
        raw.call("analytics.risk", book="long_only")
    with pytest.raises(TypeError, match="takes no parameter colour"):
        raw.call("analytics.risk", alpha=ALPHA, colour="blue")
