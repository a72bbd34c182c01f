"""The analytics methods against the real server: each returns what its raw JSON route returns
(collections row for row across several small pages), sends every parameter it is given, and an
invalid parameter raises the bad-request class naming it."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import msgspec
import pytest

from alpha_results_client import BadRequestError, Client, Collection, InvalidRequestError
from tests.client.conftest import Api, Key, Recorder
from tests.support.client_json import as_json, stable

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def raw(api: Api, key: Key, route: str, **params: Any) -> dict[str, Any]:
    """The body of `/v1/alphas/{ALPHA}/analytics/{route}`, read with httpx, not the client."""
    response = httpx.get(
        f"{api.base_url}/v1/alphas/{ALPHA}/analytics/{route}",
        params={k: str(v) for k, v in params.items()},
        headers={"Authorization": f"Bearer {key.token}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_single_objects_equal_their_raw_routes(api: Api, plain_key: Key, plain: Client) -> None:
    significance = plain.significance(ALPHA)
    costs = plain.costs(ALPHA)
    long_only = plain.costs(ALPHA, "long_only")
    doc = plain.analytics_doc(ALPHA)
    cases: list[tuple[Any, dict[str, Any]]] = [
        (significance, raw(api, plain_key, "significance")),
        (costs, raw(api, plain_key, "costs")),
        (long_only, raw(api, plain_key, "costs", book="long_only")),
        (doc, raw(api, plain_key, "_doc")),
    ]
    for answer, body in cases:
        assert as_json(answer.data) == body["data"]
        assert stable(answer.meta) == stable(body["meta"])
    figures = significance.data
    assert figures.alpha == ALPHA and figures.book == "long_short"
    assert figures.psr.status == "available" and 0.0 <= (figures.psr.value or -1) <= 1.0
    assert figures.dsr.trials and figures.dsr.trials.count_source == "catalogue"
    assert figures.bootstrap.rebuilt_mean_ic.lower is not None
    assert costs.data.book == "long_short" and long_only.data.book == "long_only"
    deciles = long_only.data.turnover_by_decile
    assert deciles is not None and [b.bucket for b in deciles.buckets] == [f"Q{q}" for q in range(1, 11)]
    assert deciles.score_field == "score" and costs.data.net_pnl.unit == "equity"
    assert set(doc.data.endpoint) == {
        "paths",
        "access",
        "catalogue",
        "window_semantics",
        "signal_families",
        "sharpe_convention",
        "name_conventions",
        "min_overlap",
        "not_measurable",
        "combination",
        "risk",
        "references",
    }
    assert "significance.psr" in doc.data.fields and "rolling[].rebuilt_mean_ic" in doc.data.fields
    assert set(doc.data.fields["significance.psr"].__struct_fields__) == {
        "meaning",
        "formula",
        "horizon",
        "granularity",
        "source",
        "unit",
        "annualisation",
    }
    assert {"kind_missing", "access_limited"} <= set(doc.data.warnings)


COLLECTIONS: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    # (method, arguments, route, query parameters of the raw route)
    ("correlation", {}, "correlation", {}),
    ("correlation", {"basis": "ic"}, "correlation", {"basis": "ic"}),
    ("correlation", {"basis": "scores"}, "correlation", {"basis": "scores"}),
    ("drawdowns", {}, "drawdowns", {}),
    ("drawdowns", {"book": "long_only"}, "drawdowns", {"book": "long_only"}),
    ("rolling", {}, "rolling", {}),
    ("rolling", {"window": 13}, "rolling", {"window": 13}),
    ("rolling", {"window": "52", "book": "long_only"}, "rolling", {"window": 52, "book": "long_only"}),
]


@pytest.mark.parametrize(
    ("method", "arguments", "route", "params"),
    COLLECTIONS,
    ids=[f"{c[0]}-{'-'.join(map(str, c[1].values())) or 'default'}" for c in COLLECTIONS],
)
def test_collections_page_to_the_raw_rows(
    api: Api,
    plain_key: Key,
    method: str,
    arguments: dict[str, Any],
    route: str,
    params: dict[str, Any],
) -> None:
    whole = raw(api, plain_key, route, limit=5000, **params)
    expected = whole["data"]
    assert whole["pagination"]["has_more"] is False and len(expected) >= 3
    page_size = len(expected) // 3  # three pages or more
    recorder = Recorder()
    with api.client(plain_key, page_size=page_size, http_transport=recorder.transport()) as client:
        collection: Collection[Any] = getattr(client, method)(ALPHA, **arguments)
        assert as_json(collection.to_list()) == expected
        offsets = [(q["offset"], q["limit"]) for _, q in recorder.queries]
        assert offsets == [(str(o), str(page_size)) for o in range(0, len(expected), page_size)]
        assert len(offsets) >= 3
        for _, query in recorder.queries:
            assert {k: v for k, v in query.items() if k not in ("limit", "offset")} == {
                k: str(v) for k, v in params.items()
            }
        assert collection.total == len(expected)
        assert stable(collection.meta) == stable(whole["meta"])
        frame = collection.to_polars()
        assert frame.columns == list(expected[0])
        assert frame.to_dicts() == [msgspec.structs.asdict(row) for row in collection]


def test_every_parameter_is_sent_and_applied(api: Api, plain_key: Key, recorder: Recorder) -> None:
    start, end = date(2021, 3, 1), "2021-10-29"
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        significance = client.significance(ALPHA, start, end, sr_benchmark=0.5, trials=10)
        correlation = client.correlation(ALPHA, "scores", start, end)
        correlation.to_list()
        drawdowns = client.drawdowns(ALPHA, "long_only", start, end)
        episodes = drawdowns.to_list()
        rolling = client.rolling(ALPHA, "long_only", start, end, window=13)
        weeks = rolling.to_list()
        costs = client.costs(ALPHA, "long_only", start, end)
        sent = {path.rsplit("/", 1)[-1]: query for path, query in recorder.queries}
        whole_history = client.costs(ALPHA, "long_only").data
    window = {"from": "2021-03-01", "to": "2021-10-29"}
    assert sent["significance"] == {**window, "sr_benchmark": "0.5", "trials": "10"}
    assert sent["correlation"] == {**window, "basis": "scores", "limit": "5000", "offset": "0"}
    assert sent["drawdowns"] == {**window, "book": "long_only", "limit": "5000", "offset": "0"}
    assert sent["rolling"] == {**window, "book": "long_only", "window": "13", "limit": "5000", "offset": "0"}
    assert sent["costs"] == {**window, "book": "long_only"}
    # ... and the server applied them.
    data = significance.data
    assert (data.window.from_, data.window.to) == (start, date(2021, 10, 29))
    assert data.psr.sr_benchmark == 0.5 and data.min_track_record.sr_benchmark == 0.5
    assert data.dsr.trials and (data.dsr.trials.count, data.dsr.trials.count_source) == (10, "request")
    assert correlation.meta.basis == "scores"  # type: ignore[attr-defined]
    assert {row.overlap_unit for row in correlation} == {"weeks"}
    assert drawdowns.meta.book == "long_only"
    assert episodes and all(start <= e.peak_date <= date(2021, 10, 29) for e in episodes if e.peak_date)
    assert rolling.meta.book == "long_only" and rolling.meta.window_weeks == 13  # type: ignore[attr-defined]
    assert rolling.meta.signal == "conditioned"  # type: ignore[attr-defined]
    assert weeks and all(start <= w.date <= date(2021, 10, 29) for w in weeks if w.date)
    assert costs.data.book == "long_only" and costs.data.window.from_ == start
    assert 0 < costs.data.sessions < whole_history.sessions


def test_an_invalid_window_is_a_bad_request_naming_it(api: Api, plain_key: Key, recorder: Recorder) -> None:
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        with pytest.raises(BadRequestError) as info:
            client.rolling(ALPHA, window=14).to_list()
    error = info.value
    assert isinstance(error, InvalidRequestError) and (error.code, error.status) == ("bad_request", 400)
    assert [p["name"] for p in error.details["parameters"]] == ["window"]
    assert "14" in error.details["parameters"][0]["rule"]
    assert recorder.statuses() == [400]  # permanent: not retried
