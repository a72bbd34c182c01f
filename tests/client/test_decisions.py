"""The decision methods (risk, checks, compare, combine, contribution) against the real server:
each returns what its raw JSON route returns for the same parameters, sends every parameter under
its wire name (`other` as `with`, weights joined by commas), and its frames (polars, pandas,
Arrow) hold the served values."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import pandas as pd
import polars as pl
import pytest

from alpha_results_client import Client, InvalidRequestError
from tests.client.conftest import Api, Key
from tests.support.client_json import as_json, stable

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
    combined = plain.combine(alphas, "long_short", weighting="given", weights=weights, start="2021-02-01")
    body = raw(
        api,
        plain_key,
        "/v1/analytics/combine",
        alphas=",".join(alphas),
        book="long_short",
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


def test_combine_and_contribution_fit_out_of_sample(api: Api, plain_key: Key, plain: Client) -> None:
    """`fit_to` (a date) reaches both routes: the same answer as the raw route, said out of sample."""
    alphas = [ALPHA, OTHER, "Test_planted_factor"]
    combined = plain.combine(alphas, weighting="max_ir", fit_to=date(2021, 6, 30))
    body = raw(
        api,
        plain_key,
        "/v1/analytics/combine",
        alphas=",".join(alphas),
        weighting="max_ir",
        fit_to="2021-06-30",
    )
    assert stable(combined.meta) == stable(body["meta"])
    assert combined.meta.fit is not None and combined.meta.fit.sample == "out_of_sample"
    assert combined.meta.fit.fit_to == date(2021, 6, 30) and combined.to_list()[0].date > date(2021, 6, 30)
    added = plain.contribution("Test_small_universe", alphas, weighting="max_ir", fit_to="2021-06-30")
    fit = added.data.reference.combination.fit
    assert fit is not None and fit.sessions == combined.meta.fit.sessions
    assert [w.weight for w in added.data.reference.combination.weights] == [
        w.weight for w in combined.meta.weights
    ]


LIBRARIES = ("polars", "pandas", "arrow")


def records(frame: Any) -> list[dict[str, Any]]:
    """A frame's rows as plain dicts, whatever its library: null as None, dates as ISO text."""
    if isinstance(frame, pl.DataFrame):
        rows = frame.to_dicts()
    elif isinstance(frame, pd.DataFrame):
        rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    else:
        rows = frame.to_pylist()
    return [{k: v.isoformat() if isinstance(v, date) else v for k, v in row.items()} for row in rows]


def columns(frame: Any) -> list[str]:
    return list(frame.column_names if hasattr(frame, "column_names") else frame.columns)


def frames_of(table: Any) -> dict[str, Any]:
    """`table(library)` in each library, each checked to be of that library."""
    found = {library: table(library) for library in LIBRARIES}
    assert isinstance(found["polars"], pl.DataFrame) and isinstance(found["pandas"], pd.DataFrame)
    assert type(found["arrow"]).__name__ == "Table"
    return found


def check_frames(table: Any, expected: list[dict[str, Any]], names: list[str]) -> None:
    """Every library's frame has the columns `names` and the rows `expected` (the JSON's values)."""
    for library, frame in frames_of(table).items():
        assert columns(frame) == names, (library, columns(frame))
        assert records(frame) == expected, library


def one_table(answer: Any) -> Any:
    """The three readers of an answer that is one table, as one `table(library)`."""
    return lambda library: getattr(answer, f"to_{library}")()


def test_the_tables_hold_the_served_values(api: Api, plain_key: Key, plain: Client) -> None:
    base = f"/v1/alphas/{ALPHA}/analytics"

    # risk: one row per figure, the benchmark block's by their path; the stat-entry keys some carries.
    risk = plain.risk(ALPHA, "long_only", "2021-03-01", "2021-12-31").data
    body = raw(api, plain_key, f"{base}/risk", book="long_only", **{"from": "2021-03-01", "to": "2021-12-31"})
    data = body["data"]
    figures = {f"benchmark.{k}": data["benchmark"][k] for k in ("beta", "alpha", "tracking_error")}
    figures |= {k: v for k, v in data.items() if isinstance(v, dict) and "status" in v}
    names = columns(risk.to_polars())
    assert names[:4] == ["figure", "value", "unit", "status"]
    carried = {key for entry in figures.values() for key in entry}
    assert "withheld_reason" not in carried  # every figure measurable: the column is kept, null
    assert set(names[1:]) == carried | {"withheld_reason"}
    assert {"date", "sessions", "confidence", "horizon_sessions", "periods_per_year"} <= set(names)
    expected = [{"figure": name, **{c: entry.get(c) for c in names[1:]}} for name, entry in figures.items()]
    check_frames(one_table(risk), expected, names)

    # checks: one row per check, the bounds applied as min and max.
    checks = plain.checks(ALPHA, min_information_ratio=1.5, max_weight=0.05).data
    body = raw(api, plain_key, f"{base}/checks", min_information_ratio=1.5, max_weight=0.05)
    expected = [
        {
            "id": c["id"],
            "value": c["value"],
            "unit": c["unit"],
            "min": c["threshold"].get("min"),
            "max": c["threshold"].get("max"),
            "verdict": c["verdict"],
            "reason": c.get("reason"),
            "source": c["source"],
        }
        for c in body["data"]["checks"]
    ]
    check_frames(one_table(checks), expected, list(expected[0]))

    # contribution: one row per book figure, the values before, after and their change.
    contribution = plain.contribution("Test_planted_factor", [ALPHA, OTHER], weight=0.25).data
    body = raw(
        api,
        plain_key,
        "/v1/alphas/Test_planted_factor/analytics/contribution",
        reference=f"{ALPHA},{OTHER}",
        weight=0.25,
    )
    data = body["data"]
    expected = [
        {"figure": name, **{side: data[side][name]["value"] for side in ("before", "after", "change")}}
        for name in data["before"]
    ]
    assert [row["figure"] for row in expected][:2] == ["information_ratio", "excess_sharpe"]
    check_frames(one_table(contribution), expected, ["figure", "before", "after", "change"])

    # compare: the curves and both rolling correlations, one row per session or week.
    compared = plain.compare(ALPHA, OTHER, window=21, start="2021-02-01").data
    body = raw(api, plain_key, f"{base}/compare", **{"with": OTHER, "window": 21, "from": "2021-02-01"})
    for field in ("equity", "rolling_return_correlation", "rolling_ic_correlation"):
        served = body["data"][field]
        assert len(served) > 10 and any(row.get("correlation", 0) is not None for row in served), field
        method = getattr(compared, f"{field}_frame")
        check_frames(lambda library, m=method: m(library=library), served, list(served[0]))
    assert compared.rolling_return_correlation_frame().height == compared.sessions
    assert compared.rolling_ic_correlation_frame().height == compared.weeks

    # combine: the weights, and the correlation matrix as a square table with an `alpha` column.
    alphas = [ALPHA, OTHER, "Test_planted_factor"]
    combined = plain.combine(alphas, weighting="inverse_volatility", start="2021-02-01")
    body = raw(
        api,
        plain_key,
        "/v1/analytics/combine",
        alphas=",".join(alphas),
        weighting="inverse_volatility",
        **{"from": "2021-02-01"},
    )
    meta = combined.meta
    check_frames(
        lambda library: meta.weights_frame(library=library), body["meta"]["weights"], ["alpha", "weight"]
    )
    matrix = body["meta"]["correlation"]
    assert matrix["alphas"] == alphas
    expected = [
        {"alpha": a, **dict(zip(alphas, row, strict=True))}
        for a, row in zip(alphas, matrix["matrix"], strict=True)
    ]
    check_frames(lambda library: meta.correlation_frame(library=library), expected, ["alpha", *alphas])
    with pytest.raises(ValueError, match="library"):
        meta.weights_frame(library="excel")


def test_a_bad_parameter_raises_naming_it(plain: Client) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        plain.combine([ALPHA, OTHER], weighting="given", weights=[1.0]).to_list()  # lazy until read
    assert "weights" in str(raised.value)
    with pytest.raises(InvalidRequestError) as raised:
        plain.compare(ALPHA, ALPHA)
    assert "with" in str(raised.value)


def test_a_weighted_contribution_starts_from_the_combination(plain: Client) -> None:
    """`contribution(weighting=, weights=)` sends combine's parameters: its `before` is the
    combination `combine` builds of the same set and weights."""
    reference, weights = ["momentum_12_1", "value_composite_legacy"], [0.6, 0.4]
    answer = plain.contribution("Test_planted_factor", reference, weighting="given", weights=weights).data
    combined = plain.combine(reference, weighting="given", weights=weights).meta.figures
    for name in ("information_ratio", "excess_sharpe", "max_drawdown_pct", "volatility"):
        served, expected = getattr(answer.before, name).value, getattr(combined, name).value
        assert served == pytest.approx(expected, rel=1e-9), name
    assert answer.reference.combination.weighting == "given"
