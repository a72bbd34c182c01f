"""The decision methods (risk, checks, compare, combine, contribution) against the real server:
each returns what its raw JSON route returns for the same parameters, sends every parameter under
its wire name (`other` as `with`, weights joined by commas), and its frames hold the served rows."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from alpha_results_client import Client, InvalidRequestError

from tests.client.conftest import Api, Key
from tests.client.test_analytics import as_json, stable

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"
OTHER = "value_composite_legacy"


def raw(api: Api, key: Key, path: str, **params: Any) -> dict[str, Any]:
    response = httpx.get(
        f"{api.base_url}{path}",
        params={k: str(v) for k, v in params.items()},
        headers={"Authorization": f"Bearer {key.token}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_single_objects_equal_their_raw_routes(api: Api, plain_key: Key, plain: Client) -> None:
    base = f"/v1/alphas/{ALPHA}/analytics"
    cases: list[tuple[Any, dict[str, Any]]] = [
        (
            plain.risk(ALPHA, "long_only", "2021-03-01", "2021-12-31"),
            raw(
                api, plain_key, f"{base}/risk", book="long_only", **{"from": "2021-03-01", "to": "2021-12-31"}
            ),
        ),
        (
            plain.checks(ALPHA, min_information_ratio=1.5, max_weight=0.05),
            raw(api, plain_key, f"{base}/checks", min_information_ratio=1.5, max_weight=0.05),
        ),
        (
            plain.compare(ALPHA, OTHER, window=21, start="2021-02-01"),
            raw(api, plain_key, f"{base}/compare", **{"with": OTHER, "window": 21, "from": "2021-02-01"}),
        ),
        (
            plain.contribution("Test_planted_factor", [ALPHA, OTHER], weight=0.25),
            raw(
                api,
                plain_key,
                "/v1/alphas/Test_planted_factor/analytics/contribution",
                reference=f"{ALPHA},{OTHER}",
                weight=0.25,
            ),
        ),
    ]
    for answer, body in cases:
        assert as_json(answer.data) == body["data"]
        assert stable(answer.meta) == stable(body["meta"])
    risk, checks, compared, contribution = (answer.data for answer, _ in cases)
    assert risk.book == "long_only" and risk.benchmark.symbol == "SPY"
    # The tightened bounds were sent: the thresholds applied are the request's.
    applied = {c.id: c.threshold for c in checks.checks}
    assert applied["information_ratio"].min == 1.5 and applied["max_weight"].max == 0.05
    frame = checks.to_polars()
    assert frame.height == len(checks.checks) and frame["id"].to_list() == [c.id for c in checks.checks]
    assert compared.with_ == OTHER and compared.rolling_window.sessions == 21
    curves = compared.equity_frame()
    assert curves.height == compared.sessions and curves.columns == [
        "date",
        "cumulative_return_alpha",
        "cumulative_return_with",
        "difference",
    ]
    assert contribution.weight.value == 0.25 and contribution.weight.chosen == "given"
    assert contribution.reference.alphas == [ALPHA, OTHER]


def test_combine_pages_equal_the_raw_route(api: Api, plain_key: Key, plain: Client) -> None:
    alphas = [ALPHA, OTHER, "Test_planted_factor"]
    weights = [0.5, 0.3, 0.2]
    combined = plain.combine(alphas, weighting="given", weights=weights, start="2021-02-01")
    body = raw(
        api,
        plain_key,
        "/v1/analytics/combine",
        alphas=",".join(alphas),
        weighting="given",
        weights="0.5,0.3,0.2",
        **{"from": "2021-02-01"},
        limit=5000,
    )
    rows = combined.to_list()
    assert as_json(rows) == body["data"]
    assert combined.total == body["pagination"]["total"] == len(rows)
    assert stable(combined.meta) == stable(body["meta"])
    assert [(w.alpha, w.weight) for w in combined.meta.weights] == list(zip(alphas, weights, strict=True))
    frame = combined.to_polars()  # JSON pages: the route answers no other representation
    assert frame.height == len(rows) and frame["period_return"].to_list() == [r.period_return for r in rows]


def test_a_bad_parameter_raises_naming_it(plain: Client) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        plain.combine([ALPHA, OTHER], weighting="given", weights=[1.0]).to_list()  # lazy until read
    assert "weights" in str(raised.value)
    with pytest.raises(InvalidRequestError) as raised:
        plain.compare(ALPHA, ALPHA)
    assert "with" in str(raised.value)
