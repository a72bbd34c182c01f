"""A dataset the alpha's run never wrote: an empty collection, the server's `kind_missing` warning in
`.warnings`, and a `KindMissingWarning` naming the alpha and the dataset at the user's line."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import pytest

from alpha_results_client import Client, KindMissingWarning

pytestmark = pytest.mark.e2e

ALPHA = "Test_ledger_only"  # its books; no decisions, no rebalances
INCOMPLETE = "Test_low_vol_incomplete"  # decisions, rebalances, a ledger and positions; no pnl, no trades


def line() -> int:
    """The caller's line number."""
    return sys._getframe(1).f_lineno


def test_an_empty_collection_of_a_missing_kind_warns_at_the_users_call(plain: Client) -> None:
    scores = plain.scores(ALPHA)
    with pytest.warns(KindMissingWarning) as caught:
        frame = scores.to_polars()
        called = line() - 1
    assert frame.height == 0 and "score" in frame.columns
    assert len(caught) == 1
    warning = caught[0]
    assert (warning.filename, warning.lineno) == (__file__, called)  # the user's line, not the client's
    assert isinstance(warning.message, KindMissingWarning)
    assert (warning.message.alpha, warning.message.kind, warning.message.endpoint) == (
        ALPHA,
        "decisions",
        "signals.scores",
    )
    text = str(warning.message)
    assert text.startswith(f"{ALPHA}: the run did not write the decisions dataset") and ".warnings" in text
    assert [(w.code, w.kind) for w in scores.warnings] == [("kind_missing", "decisions")]  # still there

    with pytest.warns(KindMissingWarning) as caught:
        for _ in plain.rebalances(ALPHA):  # lazy iteration: the warning names the `for` line
            pass
        called = line() - 2
    assert [(w.lineno, w.message.kind) for w in kind_missing(caught)] == [(called, "rebalances")]

    with pytest.warns(KindMissingWarning) as caught:
        assert plain.trades(INCOMPLETE, "long_short").total == 0
        called = line() - 1
    assert [(w.lineno, w.message.kind) for w in kind_missing(caught)] == [(called, "trades")]

    with warnings.catch_warnings():
        warnings.simplefilter("error", KindMissingWarning)  # a warning category like any other
        with pytest.raises(KindMissingWarning, match=f"^{INCOMPLETE}: the run did not write the pnl dataset"):
            plain.pnl(INCOMPLETE).to_list()


def test_collections_with_data_and_the_books_listing_do_not_warn(plain: Client) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert plain.portfolio(ALPHA).to_polars().height > 0
        assert len(plain.scores("momentum_12_1").head(5).to_list()) == 5
        books = plain.books(INCOMPLETE)  # how to find out what the run wrote: warnings in .warnings only
        assert {row.kind for row in books} == {"portfolio", "positions"}
        assert [(w.code, w.kind) for w in books.warnings] == [
            ("kind_missing", "pnl"),
            ("kind_missing", "trades"),
        ]
    assert [w for w in caught if issubclass(w.category, KindMissingWarning)] == []


def kind_missing(caught: Any) -> list[Any]:
    """The client's warnings among those caught: a `ResourceWarning` of an object another test left
    to the garbage collector may be emitted at any moment, inside this test's capture too."""
    return [w for w in caught if isinstance(w.message, KindMissingWarning)]
