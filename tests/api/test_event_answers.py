"""What of an event's data a key sees (serve/event_answers.py): figures as the routes that serve
them would show them to that key."""

from __future__ import annotations

from serve.event_answers import shown_data

CHECKS = {
    "information_ratio": {"value": 1.2, "unit": "ratio", "verdict": "pass"},  # from portfolio.ledger
    "max_weight": {"value": 0.1, "unit": "fraction", "verdict": "pass"},  # from portfolio.positions
}
DATA = {
    "build_id": "b2",
    "headline": {"information_ratio": 1.2, "sessions": 40},
    "figures": {
        "information_ratio": {"before": 1.0, "after": 1.2, "moved": True},
        "sessions": {"before": 30, "after": 40, "moved": True},
    },
    "moved": ["information_ratio", "sessions"],
    "checks": CHECKS,
    "changed": [{"id": "max_weight", "before": None, "after": CHECKS["max_weight"]}],
}


def allowed(*ids: str):  # type: ignore[no-untyped-def]
    return lambda endpoint: endpoint in ids


def test_everything_for_a_key_that_may_call_every_route() -> None:
    assert shown_data(DATA, lambda _: True) == DATA


def test_a_figure_built_from_data_the_key_may_not_read_is_null() -> None:
    """The screener's rule (sessions come from the ledger) and the checks' (each from its source)."""
    shown = shown_data(DATA, allowed("analytics.screen", "analytics.checks", "portfolio.ledger"))
    assert (
        shown["headline"] == DATA["headline"]
        and shown["checks"]["information_ratio"] == CHECKS["information_ratio"]
    )
    withheld = {
        "value": None,
        "unit": "fraction",
        "verdict": "not_measurable",
        "withheld_reason": "access_limited: built from portfolio.positions, which this key may not call",
    }
    assert shown["checks"]["max_weight"] == withheld
    assert shown["changed"] == [{"id": "max_weight", "before": None, "after": withheld}]
    no_ledger = shown_data(DATA, allowed("analytics.screen", "analytics.checks"))
    assert no_ledger["headline"] == {"information_ratio": 1.2, "sessions": None}
    assert no_ledger["figures"]["sessions"] == {"before": None, "after": None, "moved": None}
    assert no_ledger["moved"] == ["information_ratio"]
    assert "withheld" not in no_ledger


def test_a_block_whose_route_the_key_may_not_call_is_null_and_named() -> None:
    shown = shown_data(DATA, allowed("analytics.checks", "portfolio.ledger", "portfolio.positions"))
    assert shown["headline"] is None and shown["figures"] is None and shown["moved"] is None
    assert shown["checks"] == CHECKS
    assert set(shown["withheld"]) == {"headline", "figures", "moved"}
    assert DATA["headline"] == {"information_ratio": 1.2, "sessions": 40}  # the event is not changed
