"""`/analytics/drawdown_odds` (issue 59, item 5): the odds of a drawdown deeper than x within h weeks
at the expected level, and the live path's percentile in the forward cone.

- the known answer: fed iid normal log returns, the simulated expected maximum drawdown of the log
  path is Magdon-Ismail, Atiya, Pratap and Abu-Mostafa's (2004) for a Brownian motion with drift,
  within Monte Carlo error, once the weekly sampling's continuity correction is added; their
  formula is computed here from the drawdown's distribution, an eigenfunction series of the
  reflected Brownian motion (the paper's Theorem 1), integrated over the depth;
- the simulation against a plain loop over the same draws (the blocks `analytics.bootstrap` draws
  from the same stream): every path's maximum drawdown, the odds, the cone and the live ranks;
- the served answer against pandas (the weeks, the spread, the expected level, the live path) and
  numpy (the percentiles among paths drawn again from the series pandas made);
- a 400 naming the parameter for a horizon or a depth out of range.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq

from analytics import bootstrap
from analytics.drawdown_odds import STREAM, compounded, odds_of, simulate, simulated
from schemas.bodies.drawdown_odds import (
    DEFAULT_DEPTHS,
    DEFAULT_HORIZON_WEEKS,
    DEPTHS_MAX,
    HORIZON_MAX_WEEKS,
    PATHS,
    QUANTILE_LEVELS,
)
from schemas.conventions import WEEKS_PER_YEAR
from tests.analytics.conftest import ALPHAS, Api
from tests.analytics.reference import Lake

PATH = "/v1/alphas/{}/analytics/drawdown_odds"
TOLERANCE = 1e-9

# -- Magdon-Ismail et al. (2004), independently -------------------------------------------------------
#
# X(t) = mu t + sigma W(t); its drawdown Y = max X - X is a Brownian motion with drift -mu reflected
# at 0, and D(T) < h while Y stays below h. On [0, h] the generator (sigma^2 / 2) f'' - mu f' with
# f'(0) = 0 and f(h) = 0 has the eigenfunctions f = e^(a y) (cos(k y) - (a / k) sin(k y)), a = mu /
# sigma^2, where theta = k h solves tan(theta) = theta / alpha, alpha = mu h / sigma^2 (one root
# i eta, tanh(eta) = eta / alpha, when alpha > 1), with eigenvalues sigma^2 (theta^2 + alpha^2) /
# (2 h^2). So P(D(T) < h) = sum_n c_n exp(-lambda_n T), c_n the coefficient of 1 in the weighted
# (e^(-2 a y)) basis, and E[D(T)] = integral over h of P(D(T) > h): the paper's
# 2 sigma^2 / mu Q_p(mu^2 T / (2 sigma^2)) for mu > 0, -2 sigma^2 / mu Q_n(.) for mu < 0 and
# sqrt(pi / 2) sigma sqrt(T) for mu = 0 (checked below against the last and the asymptotes).


def _angles(alpha: float, count: int) -> tuple[np.ndarray, float]:
    if abs(alpha - 1.0) < 1e-6:  # the first root meets 0 at alpha = 1: either side's limit
        alpha = 1.0 + math.copysign(1e-6, alpha - 1.0)
    roots: list[complex] = []
    if alpha > 1.0:
        roots.append(1j * brentq(lambda e: alpha * math.tanh(e) - e, 1e-9 * alpha, alpha))
    elif alpha > 0.0:
        roots.append(brentq(lambda t: alpha * math.sin(t) / t - math.cos(t), 1e-9, math.pi / 2))
    n = 1
    while len(roots) < count:
        if alpha > 0:  # tan(theta) = theta / alpha > 0: in (n pi, n pi + pi / 2)
            low, high = n * math.pi, n * math.pi + math.pi / 2
        elif alpha < 0:
            low, high = n * math.pi - math.pi / 2, n * math.pi
        else:
            low = high = n * math.pi - math.pi / 2
        roots.append(
            low if low == high else brentq(lambda t: alpha * math.sin(t) - t * math.cos(t), low, high)
        )
        n += 1
    return np.array(roots, dtype=complex), alpha


def _phi(z: np.ndarray) -> np.ndarray:
    """(e^z - 1) / z, 1 at 0: the integral of e^(z s) over [0, 1]."""
    small = np.abs(z) < 1e-8
    safe = np.where(small, 1.0, z)
    return np.where(small, 1.0 + z / 2.0, np.expm1(safe) / safe)


def survival(h: float, mu: float, sigma: float, T: float) -> float:
    """P(D(T) < h) for X(t) = mu t + sigma W(t) (numerically sound for |alpha| up to about 10)."""
    theta, alpha = _angles(mu * h / sigma**2, int(4 * h / (sigma * math.sqrt(T))) + 10)
    cos_part = (_phi(-alpha + 1j * theta) + _phi(-alpha - 1j * theta)) / 2.0  # int e^(-alpha s) cos
    sin_part = (_phi(-alpha + 1j * theta) - _phi(-alpha - 1j * theta)) / 2j  # int e^(-alpha s) sin
    r = alpha / theta
    half = np.sin(2.0 * theta) / (4.0 * theta)
    norm = (0.5 + half) - r * np.sin(theta) ** 2 / theta + r * r * (0.5 - half)  # int g^2
    c = (cos_part - r * sin_part) / norm
    rate = sigma**2 * (theta**2 + alpha**2) / (2.0 * h * h)
    return float(np.real(np.sum(c * np.exp(-rate * T))))


def expected_max_drawdown(mu: float, sigma: float, T: float) -> float:
    """E[D(T)] = integral of P(D(T) > h) dh (Gauss-Legendre on 40 panels), up to a depth past which
    the tail is below 1e-8."""
    top = 8.0 * sigma * math.sqrt(T) + max(0.0, -mu) * T
    if mu > 0:
        top = min(top, 10.0 * sigma**2 / mu)  # P(D > h) ~ exp(-2 mu h / sigma^2)
    nodes, weights = np.polynomial.legendre.leggauss(12)
    total = 0.0
    for a, b in zip(np.linspace(0.0, top, 41)[:-1], np.linspace(0.0, top, 41)[1:], strict=True):
        for x, w in zip(nodes, weights, strict=True):
            tail = 1.0 - survival((b - a) / 2.0 * x + (a + b) / 2.0, mu, sigma, T)
            total += (b - a) / 2.0 * w * min(1.0, max(0.0, tail))
    return total


def test_the_formula_is_magdon_ismails() -> None:
    """The series against what the paper states: sqrt(pi / 2) sigma sqrt(T) without drift, and
    Q_p(x) -> 0.25 ln x + 0.49088, Q_n(x) ~ gamma sqrt(2 x) (gamma = sqrt(pi / 8)) near 0."""
    assert expected_max_drawdown(0.0, 1.0, 1.0) == pytest.approx(math.sqrt(math.pi / 2), rel=1e-9)
    assert expected_max_drawdown(0.0, 0.02, 100.0) == pytest.approx(math.sqrt(math.pi / 2) * 0.2, rel=1e-9)
    for x, within in ((100.0, 0.004), (400.0, 0.0012)):
        q_p = expected_max_drawdown(1.0, 1.0, 2.0 * x) / 2.0  # mu = sigma = 1: x = T / 2
        assert q_p == pytest.approx(0.25 * math.log(x) + 0.49088, abs=within)
    x = 0.001
    q_n = expected_max_drawdown(-1.0, 1.0, 2.0 * x) / 2.0
    assert q_n == pytest.approx(math.sqrt(math.pi / 8) * math.sqrt(2 * x), rel=0.02)


CONTINUITY = 2 * 0.5825971579390106
"""The weekly sampling misses each end of the fall by about -zeta(1/2) / sqrt(2 pi) sigma sqrt(dt)
(Asmussen, Glynn and Pitman 1995, for the maximum; the drawdown's peak and trough are each a
maximum): the simulated walk's expected drawdown is the Brownian motion's less twice that."""


@pytest.mark.parametrize("drift", [-1.0, 0.0, 1.0])
def test_the_expected_maximum_drawdown_is_the_formulas(drift: float) -> None:
    """Weekly log returns iid normal (20,000 draws standardised to their mean and sd, which the
    bootstrap then draws from), paths of the longest horizon compounded by the served code: the
    maximum drawdown of the log path, -log(1 - MDD), has Magdon-Ismail's mean within 3 Monte Carlo
    standard errors. `drift` is mu sqrt(T) / sigma: a loss, none, a gain over the horizon."""
    weeks, sigma = HORIZON_MAX_WEEKS, 0.02
    mu = drift * sigma / math.sqrt(weeks)
    z = np.random.default_rng(59).standard_normal(20_000)
    z = (z - z.mean()) / z.std() * sigma + mu
    returns, _ = simulate(np.expm1(z), weeks, PATHS, bootstrap.generator(bootstrap.SEED, STREAM))
    _, drawdowns = compounded(returns)
    log_drawdowns = -np.log1p(-drawdowns[:, -1])
    measured = float(np.mean(log_drawdowns)) + CONTINUITY * sigma
    error = float(np.std(log_drawdowns, ddof=1)) / math.sqrt(PATHS)
    formula = expected_max_drawdown(mu, sigma, weeks)
    print(f"drift {drift:+.0f}: formula {formula:.5f}, simulated {measured:.5f} +- {error:.5f}")
    assert abs(measured - formula) < 3 * error


# -- the simulation against a plain loop ----------------------------------------------------------


def _series(n: int) -> np.ndarray:
    """Weekly returns with serial dependence and fat tails (an AR(1) of t-distributed shocks)."""
    rng = np.random.default_rng(5)
    shocks = rng.standard_t(4, size=n) * 0.012
    x = np.empty(n)
    x[0] = shocks[0]
    for t in range(1, n):
        x[t] = 0.3 * x[t - 1] + shocks[t]
    return x + 0.001


def test_the_simulation_is_a_plain_loop_over_the_same_draws() -> None:
    backtest, horizon, expected_ir = _series(180), 40, 0.8
    live = _series(60)[:45] - 0.004
    live[7] = np.nan  # a week without a return adds nothing
    made = simulated(backtest, np.arange(live.size), live, expected_ir, horizon)
    assert not isinstance(made, str)

    sd = float(np.std(backtest, ddof=1))
    mu0 = expected_ir / math.sqrt(WEEKS_PER_YEAR) * sd
    centred = backtest - backtest.mean() + mu0
    rng = bootstrap.generator(bootstrap.SEED, STREAM)
    starts, lengths = bootstrap.draw_blocks(
        rng, centred.size, PATHS, bootstrap.block_length(centred), length=live.size
    )
    worst_h, worst_live, cumulative = [], [], np.empty((PATHS, live.size))
    for p in range(PATHS):
        wealth, peak, worst, week = 1.0, 1.0, 0.0, 0
        for start, length in zip(starts[p], lengths[p], strict=True):
            for k in range(int(length)):
                wealth *= 1.0 + centred[(start + k) % centred.size]
                peak = max(peak, wealth)
                worst = max(worst, 1.0 - wealth / peak)
                cumulative[p, week] = wealth - 1.0
                week += 1
                if week == horizon:
                    worst_h.append(worst)
        worst_live.append(worst)
    assert made.mu0 == pytest.approx(mu0, rel=1e-12) and made.sd == pytest.approx(sd, rel=1e-12)
    assert np.allclose(made.max_drawdowns, np.sort(worst_h), rtol=1e-12, atol=1e-15)
    cone = np.percentile(cumulative[:, :horizon], [100 * q for q in QUANTILE_LEVELS], axis=0).T
    assert np.allclose(made.cone, cone, rtol=1e-12, atol=1e-15)

    for row, depth in zip(odds_of(made.max_drawdowns, DEFAULT_DEPTHS), DEFAULT_DEPTHS, strict=True):
        p = sum(w > depth for w in worst_h) / PATHS
        assert row.depth == depth and row.exceedance_probability == p
        assert row.exceedance_error == pytest.approx(math.sqrt(p * (1 - p) / PATHS), rel=1e-12)

    wealth, peak, worst, path = 1.0, 1.0, 0.0, []
    for value in live:
        wealth *= 1.0 if math.isnan(value) else 1.0 + value
        peak, path = max(peak, wealth), [*path, wealth - 1.0]
        worst = max(worst, 1.0 - wealth / peak)
    assert np.allclose(made.live_cumulative, path, rtol=1e-12)
    for week, value in enumerate(path):
        column = cumulative[:, week]
        rank = (np.sum(column < value) + 0.5 * np.sum(column == value)) / PATHS
        assert made.live_percentiles[week] == pytest.approx(rank, abs=1e-15)
    assert made.live_max_drawdown == pytest.approx(worst, rel=1e-12)
    rank = (sum(w < worst for w in worst_live) + 0.5 * sum(w == worst for w in worst_live)) / PATHS
    assert made.live_max_drawdown_percentile == pytest.approx(rank, abs=1e-15)


def test_a_short_or_flat_backtest_is_not_measurable() -> None:
    none = np.zeros(0)
    assert "too few" in str(simulated(_series(10), none, none, 0.5, 10))
    assert "no spread" in str(simulated(np.full(100, 0.001), none, none, 0.5, 10))


# -- the served answer ----------------------------------------------------------------------------


def _weekly(daily: pd.Series) -> pd.Series:
    """Compounded by calendar week (Monday to Sunday), the weeks with a session."""
    weeks = (1 + daily).resample("W-SUN").prod() - 1
    return weeks[daily.resample("W-SUN").size() > 0]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_the_served_answer_is_recomputed(api: Api, lake: Lake, alpha: str) -> None:
    answer = api.ok(PATH.format(alpha))["data"]
    decay = api.ok(f"/v1/alphas/{alpha}/analytics/decay")["data"]
    assert answer["split_date"] == decay["split_date"] and answer["split_origin"] == decay["split_origin"]
    assert answer["horizon_weeks"] == DEFAULT_HORIZON_WEEKS and answer["paths"] == PATHS
    expectation = api.ok(f"/v1/alphas/{alpha}/analytics/expectation")["data"]
    # The one expected live information ratio (issue 81, item 4): /analytics/expectation's.
    expected = next(s for s in expectation["series"] if s["series"] == "information_ratio")["expected_live"]
    assert answer["expected_live_information_ratio"] == expected
    if answer["state"] == "not_measurable":
        assert answer["withheld_reason"] and answer["odds"] == [] and answer["live_path"] == []
        return
    daily = lake.returns(alpha, "long_short", (None, None))
    daily.index = pd.to_datetime(daily.index)
    split = pd.Timestamp(answer["split_date"])
    backtest = _weekly(daily[daily.index <= split]).to_numpy()
    after = daily[daily.index > split]
    live = _weekly(after).to_numpy()[: answer["live_weeks"]]  # a retirement ends the live part
    sd = float(np.std(backtest, ddof=1))
    mu0 = expected / math.sqrt(WEEKS_PER_YEAR) * sd
    assert answer["backtest_weeks"] == backtest.size
    assert answer["backtest_weekly_sd"] == pytest.approx(sd, rel=TOLERANCE)
    assert answer["expected_weekly_return"] == pytest.approx(mu0, rel=TOLERANCE)

    # The paths again, from the series pandas made, and every figure from them with numpy.
    centred = backtest - backtest.mean() + mu0
    weeks = max(DEFAULT_HORIZON_WEEKS, live.size)
    returns, block = simulate(centred, weeks, PATHS, bootstrap.generator(bootstrap.SEED, STREAM))
    assert answer["block_length"] == pytest.approx(block, rel=TOLERANCE)
    wealth = np.cumprod(1 + returns, axis=1)
    falls = 1 - wealth / np.maximum(np.maximum.accumulate(wealth, axis=1), 1.0)
    worst = np.maximum.accumulate(falls, axis=1)
    within = worst[:, DEFAULT_HORIZON_WEEKS - 1]
    assert answer["expected_max_drawdown"] == pytest.approx(within.mean(), rel=1e-9)
    assert answer["max_drawdown_p50"] == pytest.approx(np.median(within), rel=1e-9)
    for row in answer["odds"]:
        assert row["exceedance_probability"] == pytest.approx(np.mean(within > row["depth"]), abs=1e-12)
    cone = pd.DataFrame(wealth[:, :DEFAULT_HORIZON_WEEKS] - 1).quantile([0.05, 0.5, 0.95])
    for week in answer["cone"]:
        assert week["cone_p05"] == pytest.approx(cone.iloc[0, week["week"] - 1], rel=1e-9)
        assert week["cone_p50"] == pytest.approx(cone.iloc[1, week["week"] - 1], rel=1e-9)
        assert week["cone_p95"] == pytest.approx(cone.iloc[2, week["week"] - 1], rel=1e-9)

    path = (1 + pd.Series(live).fillna(0.0)).cumprod() - 1
    served = answer["live_path"]
    assert [w["week"] for w in served] == list(range(1, live.size + 1))
    for week, value in zip(served, path.to_numpy(), strict=True):
        assert week["live_cumulative_return"] == pytest.approx(value, rel=1e-9, abs=1e-12)
        column = wealth[:, week["week"] - 1] - 1
        rank = np.mean(column < value) + 0.5 * np.mean(column == value)
        assert week["cone_percentile"] == pytest.approx(rank, abs=1e-12)
        if week["week"] <= DEFAULT_HORIZON_WEEKS:  # inside the cone it shows
            cone_week = answer["cone"][week["week"] - 1]
            if value <= cone_week["cone_p05"]:
                assert week["cone_percentile"] <= 0.05 + 1e-4
            if value >= cone_week["cone_p95"]:
                assert week["cone_percentile"] >= 0.95 - 1e-4
    if live.size:
        live_worst = float(np.max(1 - (1 + path) / np.maximum((1 + path).cummax(), 1.0)))
        assert answer["live_max_drawdown"] == pytest.approx(live_worst, rel=1e-9, abs=1e-15)
        column = worst[:, live.size - 1]
        rank = np.mean(column < live_worst) + 0.5 * np.mean(column == live_worst)
        assert answer["live_max_drawdown_percentile"] == pytest.approx(rank, abs=1e-12)


def test_the_demo_places_live_weeks(api: Api) -> None:
    """The recomputation above is not vacuous: the approved alphas of the played history have live
    weeks placed in the cone, and asking twice gives the same answer (made once per build)."""
    for alpha in ("momentum_12_1", "value_composite_legacy"):
        first = api.ok(PATH.format(alpha))["data"]
        assert first["state"] == "measured" and first["live"] is True and first["live_weeks"] > 4
        assert all(w["cone_percentile"] is not None for w in first["live_path"])
        assert api.ok(PATH.format(alpha))["data"] == first


def test_the_parameters_are_answered(api: Api) -> None:
    answer = api.ok(PATH.format("momentum_12_1"), horizon_weeks="13", depths="0.3,0.02,0.1,0.1")["data"]
    assert answer["horizon_weeks"] == 13 and len(answer["cone"]) == 13
    assert [row["depth"] for row in answer["odds"]] == [0.02, 0.1, 0.3]
    probabilities = [row["exceedance_probability"] for row in answer["odds"]]
    assert probabilities == sorted(probabilities, reverse=True)
    cone = answer["cone"][-1]
    assert cone["cone_p05"] <= cone["cone_p25"] <= cone["cone_p50"] <= cone["cone_p75"] <= cone["cone_p95"]
    what_if = api.ok(PATH.format("momentum_12_1"), split="2022-06-30")["data"]
    assert what_if["split_origin"] == "request" and what_if["split_date"] == "2022-06-30"


def test_a_key_without_the_ledger_is_told_why(api: Api) -> None:
    body = api.ok(PATH.format("momentum_12_1"), "no_portfolio")
    assert body["data"]["state"] == "not_measurable"
    assert "access_limited" in body["data"]["withheld_reason"]
    assert any(w["code"] == "access_limited" for w in body["meta"]["warnings"])


@pytest.mark.parametrize(
    ("params", "named", "rule"),
    [
        ({"horizon_weeks": "0"}, "horizon_weeks", f"between 1 and {HORIZON_MAX_WEEKS}"),
        (
            {"horizon_weeks": str(HORIZON_MAX_WEEKS + 1)},
            "horizon_weeks",
            f"between 1 and {HORIZON_MAX_WEEKS}",
        ),
        ({"horizon_weeks": "ten"}, "horizon_weeks", ""),
        ({"depths": "0.1,1.5"}, "depths", "in (0, 1)"),
        ({"depths": "0"}, "depths", "in (0, 1)"),
        ({"depths": ",".join(["0.1"] * (DEPTHS_MAX + 1))}, "depths", f"at most {DEPTHS_MAX}"),
        ({"depths": "0.1,,0.2"}, "depths", "plain decimals"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(api: Api, params: dict[str, str], named: str, rule: str) -> None:
    response = api.get(PATH.format("momentum_12_1"), "plain", **params)
    assert response.status_code == 400, response.text
    [problem] = response.json()["error"]["details"]["parameters"]
    assert problem["name"] == named and rule in problem["rule"], problem


def test_unknown_or_forbidden_is_refused_as_on_every_route(api: Api) -> None:
    assert api.get(PATH.format("momentum_12_1"), "testonly").status_code == 403
    assert api.get(PATH.format("Test_nope"), "testonly").status_code == 404
    assert api.get(PATH.format("momentum_12_1"), "raw", book="nope").status_code == 400


def test_concurrent_asks_simulate_one_at_a_time_and_each_question_once(
    demo_lake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 81, item 8 (d): six concurrent drawdown_odds at the largest parameters each simulated
    10,000 paths at once, and a bystander's /v1/health took 515 ms. The simulation is single-flight
    (askers of one question wait for its answer) and heavy (`analytics.flight`: one heavy
    computation at once in a worker), the families' CSCV's mechanism. Counted here in the worker:
    how many simulations run at once, and how many are made."""
    import threading

    from analytics import drawdown_odds
    from analytics.figures import Figures

    what_if_split = dt.date(2022, 6, 30)  # a what-if split: simulated for its request, no per-build memo
    running, most, made = 0, 0, []
    lock = threading.Lock()
    overlapped = threading.Event()
    plain = drawdown_odds.simulated

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
            made.append(args[-1])  # the horizon
            if running > 1:
                overlapped.set()
        try:
            # Leave another asker the time to start a simulation of its own, if it may: found at
            # once before the fix; after it, none may, and this is the longest the test waits.
            overlapped.wait(1.0)
            return plain(*args, **kwargs)
        finally:
            with lock:
                running -= 1

    monkeypatch.setattr(drawdown_odds, "simulated", counted)
    asks = [HORIZON_MAX_WEEKS] * 4 + [HORIZON_MAX_WEEKS - 1, HORIZON_MAX_WEEKS - 2]
    answers: list[Any] = []
    failures: list[BaseException] = []

    # A reader per asker, as requests of one worker, each with the level it simulates at already
    # asked (`/analytics/decay`), so that the askers reach the simulation together.
    readers = [Figures.open(str(demo_lake)) for _ in asks]
    for figures in readers:
        figures.decay("momentum_12_1", split=what_if_split)
    together = threading.Barrier(len(asks))

    def ask(figures: Figures, horizon: int) -> None:
        try:
            together.wait(60)
            answers.append(figures.drawdown_odds("momentum_12_1", horizon_weeks=horizon, split=what_if_split))
        except BaseException as failure:  # reported below
            failures.append(failure)

    askers = [threading.Thread(target=ask, args=(f, h)) for f, h in zip(readers, asks, strict=True)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(600)
    assert not failures, failures
    assert len(answers) == len(asks) and all(a.state == "measured" for a in answers)
    assert most == 1, f"{most} simulations ran at once"
    # The four asks of one question were one simulation (one what-if split: no per-build memo).
    assert sorted(made) == sorted(set(asks)), made
