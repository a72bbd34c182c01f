"""What of an event's data a key sees (delivery/event_answers.py): figures as the routes that serve
them would show them to that key."""

from __future__ import annotations

from delivery.event_answers import EVERYTHING, OVER_CATALOGUE, Viewer, shown_data

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


def allowed(*ids: str, every_alpha: bool = True) -> Viewer:
    return Viewer(lambda endpoint: endpoint in ids, every_alpha, raw=True)


def test_everything_for_a_key_that_may_call_every_route() -> None:
    assert shown_data(DATA, EVERYTHING) == DATA


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


def test_a_check_over_the_catalogue_is_withheld_from_a_key_that_does_not_read_every_alpha() -> None:
    """The production correlation and the residual were computed over every alpha: a key of one
    alpha would get a figure over alphas it may not read (issue 46, item 2)."""
    wide = {
        "production_correlation": {"value": 0.0333, "unit": "correlation", "verdict": "pass"},
        "residual_information_ratio": {"value": 0.79, "unit": "ratio", "verdict": "pass"},
        "deflated_sharpe": {"value": 0.99, "unit": "probability", "verdict": "pass"},
        **CHECKS,
    }
    routes = ("analytics.checks", "analytics.correlation", "analytics.residual", "analytics.significance")
    routes += ("portfolio.ledger", "portfolio.positions")
    assert shown_data({"checks": wide}, allowed(*routes))["checks"] == wide
    shown = shown_data({"checks": wide}, allowed(*routes, every_alpha=False))["checks"]
    for check in ("production_correlation", "residual_information_ratio", "deflated_sharpe"):
        assert shown[check] == {
            "value": None,
            "unit": wide[check]["unit"],
            "verdict": "not_measurable",
            "withheld_reason": OVER_CATALOGUE,
        }
    assert {k: shown[k] for k in CHECKS} == CHECKS


def test_a_webhook_body_withholds_what_the_feed_does() -> None:
    """The body of a delivery is the feed's object for the key (`delivery.webhooks.event_body`): a key
    of one alpha gets no check computed over the others."""
    import datetime as dt
    import json

    from delivery.webhooks import event_body
    from records.event_log import Event as Recorded

    data = {
        "build_id": "b1",
        "headline": None,
        "checks": {"production_correlation": {"value": 0.0333, "unit": "correlation", "verdict": "pass"}},
    }
    event = Recorded(1, "alpha.published", "momentum_12_1", "readers", None, data, dt.datetime.now(dt.UTC))
    one_alpha = allowed("analytics.checks", "analytics.correlation", "portfolio.ledger", every_alpha=False)
    body = json.loads(event_body(event, "c" * 32, one_alpha))
    assert body["data"]["checks"]["production_correlation"] == {
        "value": None,
        "unit": "correlation",
        "verdict": "not_measurable",
        "withheld_reason": OVER_CATALOGUE,
    }
    every = json.loads(event_body(event, "c" * 32, EVERYTHING))
    assert every["data"] == data
