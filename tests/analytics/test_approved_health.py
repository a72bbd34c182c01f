"""`/v1/analytics/approved_health` (issue 59, item 4; docs/analytics.md "The approved book's
health"): each row's figures are the alpha's own routes' answers in the key's scope, the live
expected live ratio, its interval and percentile /analytics/expectation's, the false-discovery prior against a hand
computation of its rule, and nothing of an alpha the key may not read, not even the count."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from analytics import approved_health as health
from analytics import significance
from analytics.monitoring import design
from tests.analytics import reference, sharpe_reference
from tests.analytics.conftest import PRODUCTION, Api
from tests.analytics.reference import Lake

PATH = "/v1/analytics/approved_health"


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def paper_ofdr(m: reference.Moments, true_sharpe: float, prior_true: float) -> float:
    """The paper's oFDR by its reference code's variance (tests/analytics/sharpe_reference.py:
    sample moments, AR(1), T = n), H0 SR = 0 against H1 SR = `true_sharpe`, per session: the tails'
    probabilities by scipy.stats, not the logarithms the served figure uses."""
    sd0, sd1 = (
        math.sqrt(sharpe_reference.sharpe_ratio_variance(x, m.n, **m.moments)) for x in (0.0, true_sharpe)
    )
    p0 = stats.norm.sf(m.sr, loc=0.0, scale=sd0)
    p1 = stats.norm.sf(m.sr, loc=true_sharpe, scale=sd1)
    return float(p0 * (1 - prior_true) / (p0 * (1 - prior_true) + p1 * prior_true))


# -- what is computed here: the prior ------------------------------------------------


def test_below_ten_decided_alphas_the_prior_is_the_paper_s() -> None:
    prior = health.prior_of([health.Outcome(1.0, 200)] * 9, candidates=40)
    assert prior.basis == "paper" and prior.decided_alphas == 9 and prior.candidates == 40
    assert prior.prior_true_share == 0.05
    assert close(prior.true_information_ratio, 0.5 * math.sqrt(12))  # 0.5 a month, annualised


def test_the_deployment_s_prior_from_its_live_outcomes() -> None:
    # 16 approved alphas with a live record: 12 positive (mean 1.2), 4 negative, over 60 candidates.
    outcomes = [health.Outcome(v, 1260) for v in [0.6, 1.8] * 6 + [-0.5] * 4]
    prior = health.prior_of(outcomes, candidates=60)
    assert prior.basis == "deployment" and prior.decided_alphas == 16
    assert close(prior.true_information_ratio, 1.2)
    true_discoveries = 16 * (2 * 12 / 16 - 1)  # half of the nulls are positive by chance
    # The significance route's power (T, not T - 1), of normal returns: the paper's code
    power = sharpe_reference.sharpe_ratio_power(0.0, 1.2 / math.sqrt(252), 1260)
    assert close(prior.prior_true_share, true_discoveries / power / 60)
    # No positive live track: no true strategy found, the floor of one candidate.
    assert health.prior_of([health.Outcome(-0.2, 1260)] * 10, candidates=50).prior_true_share == 1 / 50


def test_the_false_discovery_probability_is_the_significance_route_s_ofdr() -> None:
    """Issue 81, item 7 (d): the oFDR rests on the significance route's one variance (sample
    moments, T, AR(1)), not on normal moments over T - 1."""
    rng = np.random.default_rng(81)
    x = rng.standard_t(4, 750) * 0.01 + 0.0008
    x[1:] += 0.3 * x[:-1]  # serially correlated, fat-tailed
    prior = health.prior_of([], candidates=10)
    m, expected = significance.moments(x), reference.moments(x)
    assert m is not None and expected is not None
    found = health.false_discovery_probability(m, 252, prior)
    assert found is not None
    assert math.isclose(
        found, paper_ofdr(expected, prior.true_information_ratio / math.sqrt(252), 0.05), rel_tol=1e-7
    )
    assert health.false_discovery_probability(None, 252, prior) is None
    # Below the count Sharpe inference needs, nothing (tests/analytics/test_short_windows.py)
    assert health.false_discovery_probability(significance.moments(x[:3]), 252, prior) is None
    # A stronger backtest is less likely a false discovery.
    stronger = significance.moments(x + 0.001)
    assert stronger is not None and health.false_discovery_probability(stronger, 252, prior) < found  # type: ignore[operator]
    # Another calendar (365 sessions a year): the per-session ratios are its own.
    other = health.false_discovery_probability(m, 365, prior)
    assert other is not None
    assert math.isclose(
        other, paper_ofdr(expected, prior.true_information_ratio / math.sqrt(365), 0.05), rel_tol=1e-7
    )


# -- the route: its rows are the routes' answers, in the key's scope ----------------------------------


def test_each_row_is_its_alpha_s_own_answers(api: Api, lake: Lake) -> None:
    body = api.ok(PATH)
    data = body["data"]
    chart = design()
    assert data["book"] == "long_short"
    assert close(data["arl0_weeks"], chart.arl0) and close(data["ir_fall_detected"], chart.ir_fall)
    assert close(data["expected_false_alarms_per_year"], len(PRODUCTION) * 52 / chart.arl0)
    assert sorted(row["alpha"] for row in data["alphas"]) == sorted(PRODUCTION)
    assert data["approved_count"] == len(PRODUCTION)
    prior = data["false_discovery"]
    assert prior["basis"] == "paper" and prior["candidates"] == 7  # the small demo's seven alphas
    for row in data["alphas"]:
        base = f"/v1/alphas/{row['alpha']}/analytics"
        live = api.ok(f"{base}/live")["data"]
        expectation = api.ok(f"{base}/expectation")["data"]
        watched = api.ok(f"{base}/monitoring")["data"]
        mmc = api.ok(f"{base}/mmc")["data"]
        sessions = live["out_of_sample"]["sessions"]
        assert live["split_origin"] == "approval" and row["split_date"] == live["split_date"]
        assert row["sessions_since_approval"] == sessions
        live_ir = live["out_of_sample"]["information_ratio"]["value"] if sessions >= 63 else None
        assert close(row["live_information_ratio"], live_ir)
        [ratio] = [s for s in expectation["series"] if s["series"] == "information_ratio"]
        assert close(row["expected_live_information_ratio"], ratio["expected_live"])
        last = ratio["weeks"][-1]
        for name in ("live_to_date", "predictive_lower", "predictive_upper", "percentile"):
            assert close(row[name], last[name]), name
        returns, ic = watched["charts"]
        assert row["cusum_state"] == returns["state"] and row["ic_cusum_state"] == ic["state"]
        assert close(row["cusum_statistic"], returns["cusum_statistic"])
        assert row["live_weeks"] == returns["live_weeks"]
        alarms = returns["alarms"] + ic["alarms"]
        assert row["last_alarm"] == (max(alarms) if alarms else None)
        assert close(row["mmc_mean"], mmc["mmc_mean"]["value"])
        assert close(row["correlation_to_combined_mean"], mmc["correlation_to_combined_mean"]["value"])
        # The in-sample part's daily returns, read from the lake: the paper's oFDR over them
        ledger = lake.ledger(row["alpha"], "long_short")
        assert ledger is not None
        days = ledger["date"].astype(str).str[:10]
        backtest = ledger[days <= row["split_date"]]
        assert len(backtest) == live["in_sample"]["sessions"]
        m = reference.moments((backtest["ending_equity"] / backtest["starting_equity"] - 1).to_numpy())
        assert m is not None
        assert math.isclose(
            row["false_discovery_probability"],
            paper_ofdr(m, 0.5 * math.sqrt(12) / math.sqrt(252), 0.05),
            rel_tol=1e-7,
        )
    # value_composite_legacy decays: its live ratio sits in the low tail of what was expected.
    legacy = next(row for row in data["alphas"] if row["alpha"] == "value_composite_legacy")
    assert legacy["live_information_ratio"] < 0 < legacy["expected_live_information_ratio"]
    assert legacy["percentile"] < 20  # 11.5: below the median, inside the 90% interval after 24 weeks


def test_a_key_sees_only_the_alphas_it_may_read(api: Api) -> None:
    body = api.get(PATH, "momentum_only")
    assert body.status_code == 200, body.text
    data = body.json()["data"]
    assert [row["alpha"] for row in data["alphas"]] == ["momentum_12_1"]
    assert data["approved_count"] == 1 and data["false_discovery"]["candidates"] == 1
    assert "value_composite_legacy" not in body.text
    # Its mmc is over the approved alphas it may read: none besides itself.
    assert close(
        data["alphas"][0]["mmc_mean"],
        api.ok("/v1/alphas/momentum_12_1/analytics/mmc", "momentum_only")["data"]["mmc_mean"]["value"],
    )
    # A key of the Test_ alphas reads no approved alpha in force: an empty book, no count of others.
    empty = api.ok(PATH, "testonly")["data"]
    assert empty["alphas"] == [] and empty["approved_count"] == 0 and empty["alarm_count"] == 0
    assert empty["failing_count"] == 0
    # The counts are of its own rows, never the catalogue's: the control, every approved alpha's
    # counts, holds a failing alpha (value_composite_legacy decays) that this key may not read.
    whole = api.ok(PATH)["data"]
    assert any(row["verdict"] == "failing" and row["alpha"] != "momentum_12_1" for row in whole["alphas"])
    for answer in (data, whole):
        rows = answer["alphas"]
        assert answer["failing_count"] == sum(row["verdict"] == "failing" for row in rows)
        assert answer["alarm_count"] == sum(
            "alarm" in (row["cusum_state"], row["ic_cusum_state"]) for row in rows
        )
    assert data["failing_count"] == (data["alphas"][0]["verdict"] == "failing") < whole["failing_count"]


def test_a_key_without_the_ledger_is_refused_and_the_etag_holds(api: Api) -> None:
    refused = api.get(PATH, "no_portfolio")
    assert refused.status_code == 403, refused.text
    first = api.get(PATH)
    again = api.get(PATH, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    narrowed = api.get(PATH, "momentum_only")
    assert narrowed.headers["etag"] != first.headers["etag"]


@pytest.mark.parametrize("params", [{"book": "nope"}, {"unknown": "1"}])
def test_bad_parameters_are_400_naming_them(api: Api, params: dict[str, Any]) -> None:
    response = api.get(PATH, **params)
    assert response.status_code == 400, response.text
    assert next(iter(params)) in response.text


def test_a_row_shows_nothing_its_routes_would_not(demo_lake: Path) -> None:
    """A key that may call /v1/analytics/approved_health but not /analytics/mmc nor
    /analytics/monitoring gets those figures null, each route named in withheld_reason; the rest
    as the full key's."""
    from tests.analytics.conftest import endpoints_only, serving
    from tests.callers import DATA_IDS

    ids = frozenset(i for i in DATA_IDS if i not in ("analytics.mmc", "analytics.monitoring"))
    with serving(demo_lake, {"some": endpoints_only(ids), "all": endpoints_only(frozenset(DATA_IDS))}) as api:
        some = {row["alpha"]: row for row in api.ok(PATH, "some")["data"]["alphas"]}
        full = {row["alpha"]: row for row in api.ok(PATH, "all")["data"]["alphas"]}
    assert sorted(some) == sorted(full) == sorted(PRODUCTION)
    for alpha, row in some.items():
        assert row["mmc_mean"] is None and row["correlation_to_combined_mean"] is None
        assert row["cusum_state"] == row["ic_cusum_state"] == "not_measurable"
        assert row["cusum_statistic"] is None and row["last_alarm"] is None and row["live_weeks"] is None
        assert "analytics.mmc" in row["withheld_reason"] and "analytics.monitoring" in row["withheld_reason"]
        for kept in ("live_information_ratio", "expected_live_information_ratio", "percentile"):
            assert close(row[kept], full[alpha][kept]), kept
