"""The lower CUSUM of analytics/monitoring.py against independent computations.

- Siegmund's approximation against its formula evaluated by hand, and both against the exact
  average run lengths computed here two independent ways: the Markov chain of Brook and Evans
  (1972) over a fine discretisation of [0, h], and a Gauss-Legendre (Nystrom) solution of the
  ARL integral equation (Page 1954). They agree to 0.01%; Siegmund is within 1%.
- Simulation (numpy, fixed seeds, 4000 paths run through `first_alarms` in chunks): the run length
  of an unchanged series against ARL0 (a short design, and the default one), and the delay to a
  fall of IR 1 to 0 (and of one sigma a week) against the Markov chain's value, both from a fall at
  the start (the zero-start ARL1) and after a year in control (conditional on no alarm before the
  fall, from the chain's state distribution after that year), each within four standard errors.
- The statistic path on a small example computed by hand; NaN weeks skipped; bad inputs refused.

The measured numbers are quoted in docs/analytics.md, "Monitoring: CUSUM and false discoveries".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from scipy.special import ndtr

from analytics import monitoring
from analytics.entries import Conventions
from analytics.monitoring import (
    DEFAULT_ARL0,
    WEEKS_PER_YEAR,
    arl_siegmund,
    cusum,
    design,
    first_alarms,
    threshold_for,
    weekly_fall,
)

PATHS = 4000
CHUNK = 500
SE_BOUND = 4.0  # simulation errors allowed: a false failure about once in 16,000 runs per check


# -- independent computations of the average run length -----------------------------------------


def markov_transitions(k: float, h: float, shift: float, states: int) -> np.ndarray:
    """Brook and Evans (1972): [0, h] cut into `states` cells, the first the atom at 0 and cell i
    (i >= 1) the interval ((i - 1/2) w, (i + 1/2) w] around i w, with (states - 1/2) w = h; the
    chart moves from i w by y - k, y ~ N(shift, 1) (the standardised fall), to the cell it lands
    in, or out (the alarm) beyond h."""
    width = 2.0 * h / (2 * states - 1)
    centres = np.arange(states) * width
    uppers = (np.arange(states) + 0.5) * width
    below = ndtr(uppers[None, :] - centres[:, None] + k - shift)
    return np.diff(below, axis=1, prepend=0.0)


def markov_run_lengths(k: float, h: float, shift: float, states: int = 600) -> np.ndarray:
    """The expected run length from each cell: (I - R)^-1 1."""
    transitions = markov_transitions(k, h, shift, states)
    return np.linalg.solve(np.eye(states) - transitions, np.ones(states))


def markov_arl(k: float, h: float, shift: float, states: int = 600) -> float:
    return float(markov_run_lengths(k, h, shift, states)[0])


def markov_delay(k: float, h: float, shift: float, change: int, states: int = 600) -> float:
    """The expected weeks from a fall after `change` in-control weeks to the alarm, given no
    alarm before: the chain's distribution after `change` steps from 0 (renormalised over the
    paths still running) times the run lengths from each cell under the fall."""
    in_control = markov_transitions(k, h, 0.0, states)
    where = np.zeros(states)
    where[0] = 1.0
    for _ in range(change):
        where = where @ in_control
    where /= where.sum()
    return float(where @ markov_run_lengths(k, h, shift, states))


def integral_equation_arl(k: float, h: float, shift: float, nodes: int = 100) -> float:
    """L(u) = 1 + L(0) P(u + y - k <= 0) + int_0^h L(v) f(v - u + k - shift) dv, solved at the
    Gauss-Legendre nodes of [0, h] and at 0."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    v, weights = (x + 1.0) * h / 2.0, w * h / 2.0
    at = np.concatenate([[0.0], v])
    density = np.exp(-0.5 * (v[None, :] - at[:, None] + k - shift) ** 2) / math.sqrt(2.0 * math.pi)
    system = np.eye(nodes + 1)
    system[:, 0] -= ndtr(k - at - shift)
    system[:, 1:] -= weights[None, :] * density
    return float(np.linalg.solve(system, np.ones(nodes + 1))[0])


# -- simulation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Delays:
    mean: float
    standard_error: float
    paths: int  # the paths with no alarm before the change (all of them for a change at 0)


def simulate_delays(
    seed: int, k: float, h: float, fall: float, change: int, sigma: float = 0.02, ir: float = 1.0
) -> Delays:
    """Weekly returns N(mu0, sigma) with mu0 = ir sigma / sqrt(weeks a year) (the backtest's
    level) for `change` weeks, then N(mu0 - fall sigma, sigma); the chart standardised with mu0
    and sigma. The delay of a path is the weeks of the new regime observed up to and including
    the alarm week (alarm index + 1 - change); paths that alarmed before the change are dropped."""
    rng = np.random.default_rng(seed)
    mu0 = ir * sigma / math.sqrt(WEEKS_PER_YEAR)
    state = np.zeros(PATHS)
    if change:
        before = first_alarms(mu0 + sigma * rng.standard_normal((change, PATHS)), mu0, sigma, k, h)
        state = before.state[before.first_alarm < 0]
    paths, delays, observed = state.size, [], 0
    while state.size:
        x = mu0 - fall * sigma + sigma * rng.standard_normal((CHUNK, state.size))
        chunk = first_alarms(x, mu0, sigma, k, h, start=state)
        alarmed = chunk.first_alarm >= 0
        delays.append(observed + chunk.first_alarm[alarmed] + 1)
        state = chunk.state[~alarmed]
        observed += CHUNK
    found = np.concatenate(delays)
    return Delays(float(found.mean()), float(found.std(ddof=1) / math.sqrt(found.size)), paths)


def assert_within_simulation_error(found: Delays, expected: float) -> None:
    assert abs(found.mean - expected) <= SE_BOUND * found.standard_error, (found, expected)


# -- the constants and the approximation ---------------------------------------------------------


def test_weeks_per_year_is_the_runs_convention() -> None:
    assert WEEKS_PER_YEAR == Conventions().weeks_per_year
    assert DEFAULT_ARL0 == 10 * WEEKS_PER_YEAR


def test_siegmund_against_the_formula_by_hand() -> None:
    # k = 0.5: Delta = -0.5 in control (2 Delta^2 = 0.5); Delta = +0.5 under a fall of 1 sigma
    assert arl_siegmund(0.5, 4.0) == pytest.approx((math.exp(5.166) - 5.166 - 1.0) / 0.5, rel=1e-12)
    assert arl_siegmund(0.5, 4.0) == pytest.approx(338.093, abs=1e-3)
    assert arl_siegmund(0.5, 5.0) == pytest.approx(938.222, abs=1e-3)
    assert arl_siegmund(0.5, 4.0, 1.0) == pytest.approx((math.exp(-5.166) + 5.166 - 1.0) / 0.5, rel=1e-12)
    assert arl_siegmund(0.5, 4.0, 1.0) == pytest.approx(8.3434, abs=1e-4)
    assert arl_siegmund(0.5, 5.0, 1.0) == pytest.approx(10.3362, abs=1e-4)
    # Delta = 0 (a fall of exactly k, or k = 0 in control): b^2, and continuous on either side
    assert arl_siegmund(0.5, 4.0, 0.5) == pytest.approx(5.166**2, rel=1e-12)
    assert arl_siegmund(0.0, 4.0) == pytest.approx(5.166**2, rel=1e-12)
    b = 5.166
    assert arl_siegmund(0.5, 4.0, 0.5 + 1e-9) == pytest.approx(b * b, rel=1e-8)
    assert arl_siegmund(0.5, 4.0, 0.5 - 1e-9) == pytest.approx(b * b, rel=1e-8)
    for eps in (5e-5, 2e-4, 1e-2):  # either side of the switch to the series (|2 Delta b| = 1e-3)
        for delta in (-eps, eps):
            closed = (math.exp(-2 * delta * b) + 2 * delta * b - 1) / (2 * delta**2)
            assert arl_siegmund(0.5, 4.0, 0.5 + delta) == pytest.approx(closed, rel=1e-7)
    assert arl_siegmund(0.5, 2000.0) == math.inf


@pytest.mark.parametrize(
    ("h", "shift", "exact"),
    # the exact values to the digits both independent methods below agree on
    [(4.0, 0.0, 335.37), (5.0, 0.0, 930.89), (4.0, 1.0, 8.3832), (5.0, 1.0, 10.3760)],
)
def test_siegmund_against_the_exact_run_lengths(h: float, shift: float, exact: float) -> None:
    chain = markov_arl(0.5, h, shift, states=800)
    quadrature = integral_equation_arl(0.5, h, shift)
    assert chain == pytest.approx(exact, rel=1e-4)
    assert quadrature == pytest.approx(exact, rel=1e-4)
    assert chain == pytest.approx(quadrature, rel=1e-4)
    # Siegmund: 338.09 and 938.22 in control (0.8% long), 8.343 and 10.336 under the fall (0.5% short)
    assert arl_siegmund(0.5, h, shift) == pytest.approx(exact, rel=0.01)


def test_the_lower_chart_reads_a_fall_as_a_positive_shift() -> None:
    k, h = 0.25, 8.0
    in_control = arl_siegmund(k, h, 0.0)
    falls = [arl_siegmund(k, h, shift) for shift in (0.1, 0.25, 0.5, 1.0, 2.0)]
    rise = arl_siegmund(k, h, -0.5)
    assert rise > in_control > falls[0]
    assert all(a > b for a, b in zip(falls, falls[1:], strict=False))
    assert falls[-1] < 10  # a fall of 2 sigma a week alarms within a few weeks
    # the same ordering in the exact chain: the sign convention is the chart's
    assert markov_arl(k, h, -0.5) > markov_arl(k, h, 0.0) > markov_arl(k, h, 0.5)
    # and in the function that runs the chart: x below mu0 raises S
    assert cusum([-1.0], 0.0, 1.0, 0.25, 8.0).statistic[0] == pytest.approx(0.75)
    assert cusum([1.0], 0.0, 1.0, 0.25, 8.0).statistic[0] == 0.0


def test_threshold_for_inverts_the_approximation() -> None:
    assert threshold_for(arl_siegmund(0.5, 4.0), 0.5) == pytest.approx(4.0, abs=1e-9)
    assert threshold_for(arl_siegmund(0.5, 5.0), 0.5) == pytest.approx(5.0, abs=1e-9)
    for k in (0.0, 0.05, 0.5, 1.0):
        for arl0 in (50.0, 200.0, 520.0, 5000.0):
            h = threshold_for(arl0, k)
            assert h > 0 and arl_siegmund(k, h) == pytest.approx(arl0, rel=1e-10)
    assert threshold_for(520.0, 0.0) == pytest.approx(math.sqrt(520.0) - 1.166, rel=1e-10)


# -- the default design --------------------------------------------------------------------------


def test_the_default_design() -> None:
    chosen = design()
    assert chosen.ir_fall == 1.0 and chosen.periods_per_year == WEEKS_PER_YEAR
    assert chosen.delta == pytest.approx(1.0 / math.sqrt(WEEKS_PER_YEAR), rel=1e-12)  # 0.1387
    assert chosen.k == pytest.approx(0.069338, abs=1e-6)
    assert chosen.h == pytest.approx(13.9104, abs=1e-4)
    assert chosen.arl0 == pytest.approx(520.0, rel=1e-10)
    assert chosen.arl1 == pytest.approx(126.29, abs=0.01)
    assert chosen.delay_years == pytest.approx(126.29 / WEEKS_PER_YEAR, abs=1e-3)  # 2.43 years
    assert chosen.false_alarms_per_year == pytest.approx(0.1, rel=1e-12)
    assert chosen.false_alarm_probability_per_year == pytest.approx(1 - (1 - 1 / 520) ** 52, rel=1e-12)
    assert chosen.false_alarm_probability_per_year == pytest.approx(0.0952, abs=1e-4)
    # a shorter ARL0 buys little: 74 weeks at ARL0 = 200, 29 at one false alarm a year
    assert threshold_for(200.0, chosen.k) == pytest.approx(9.5279, abs=1e-4)
    assert arl_siegmund(chosen.k, threshold_for(200.0, chosen.k), chosen.delta) == pytest.approx(
        73.83, abs=0.01
    )
    assert arl_siegmund(chosen.k, threshold_for(52.0, chosen.k), chosen.delta) == pytest.approx(
        29.31, abs=0.01
    )
    # The exact chain: Siegmund's ARL0 and ARL1 at this small k are within 0.05% of it
    assert markov_arl(chosen.k, chosen.h, 0.0, states=800) == pytest.approx(520.0, rel=5e-4)
    assert markov_arl(chosen.k, chosen.h, chosen.delta, states=800) == pytest.approx(chosen.arl1, rel=5e-4)


def test_a_fall_of_one_sigma_a_week() -> None:
    chosen = design(math.sqrt(WEEKS_PER_YEAR))
    assert chosen.delta == pytest.approx(1.0, rel=1e-12) and chosen.k == pytest.approx(0.5, rel=1e-12)
    assert chosen.h == pytest.approx(4.4197, abs=1e-4)
    assert chosen.arl1 == pytest.approx(9.179, abs=1e-3)
    # Siegmund is 0.8% long in control and 0.4% short under the fall here, as at h = 4 and 5
    assert markov_arl(chosen.k, chosen.h, 0.0) == pytest.approx(515.86, abs=0.05)
    assert markov_arl(chosen.k, chosen.h, 1.0) == pytest.approx(9.2186, abs=1e-3)


def test_weekly_fall_converts_an_annualised_information_ratio() -> None:
    assert weekly_fall(1.0) == pytest.approx(1.0 / math.sqrt(WEEKS_PER_YEAR), rel=1e-15)
    assert weekly_fall(2.0, 4) == 1.0
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="ir_fall"):
            weekly_fall(bad)


# -- simulation ----------------------------------------------------------------------------------


def test_an_unchanged_series_alarms_no_more_often_than_stated() -> None:
    """ARL0 = 200 at the default k (h 9.53): the mean run length is not shorter than stated
    beyond simulation error, and matches the exact chain's."""
    k = design().k
    h = threshold_for(200.0, k)
    found = simulate_delays(seed=20260101, k=k, h=h, fall=0.0, change=0)
    assert found.mean >= 200.0 - SE_BOUND * found.standard_error, found
    assert_within_simulation_error(found, markov_arl(k, h, 0.0))


def test_the_default_design_in_control_by_simulation() -> None:
    chosen = design()
    found = simulate_delays(seed=20260102, k=chosen.k, h=chosen.h, fall=0.0, change=0)
    assert found.mean >= chosen.arl0 - SE_BOUND * found.standard_error, found
    assert_within_simulation_error(found, markov_arl(chosen.k, chosen.h, 0.0))


def test_a_fall_of_ir_one_to_zero_from_the_start() -> None:
    """The zero-start ARL1: about 126 weeks, as Siegmund and the chain say."""
    chosen = design()
    found = simulate_delays(seed=20260103, k=chosen.k, h=chosen.h, fall=chosen.delta, change=0)
    assert_within_simulation_error(found, chosen.arl1)
    assert_within_simulation_error(found, markov_arl(chosen.k, chosen.h, chosen.delta))


def test_a_fall_of_ir_one_to_zero_after_a_year() -> None:
    """A year in control first: the chart has drifted off 0 by then (a weekly step of mean -k is a
    slow pull back), so the conditional delay (108.7 weeks) is shorter than the zero-start ARL1
    (126.3); the simulation matches the chain's conditional value, not the zero-start one."""
    chosen = design()
    found = simulate_delays(seed=20260104, k=chosen.k, h=chosen.h, fall=chosen.delta, change=WEEKS_PER_YEAR)
    conditional = markov_delay(chosen.k, chosen.h, chosen.delta, WEEKS_PER_YEAR)
    assert conditional == pytest.approx(108.71, abs=0.01)
    assert_within_simulation_error(found, conditional)
    assert found.mean < chosen.arl1 - SE_BOUND * found.standard_error
    # about 3% of the paths alarmed falsely in that year (the chain's survival: 0.9708)
    assert abs(found.paths / PATHS - 0.9708) < SE_BOUND * math.sqrt(0.03 * 0.97 / PATHS)


@pytest.mark.parametrize(("change", "seed"), [(0, 20260105), (WEEKS_PER_YEAR, 20260106)])
def test_a_fall_of_one_sigma_a_week_is_seen_within_weeks(change: int, seed: int) -> None:
    chosen = design(math.sqrt(WEEKS_PER_YEAR))
    found = simulate_delays(seed=seed, k=chosen.k, h=chosen.h, fall=1.0, change=change)
    expected = markov_delay(chosen.k, chosen.h, 1.0, change)  # 9.22 from the start, 8.53 after a year
    assert_within_simulation_error(found, expected)
    assert found.mean < 10


# -- the chart on given series -------------------------------------------------------------------


def test_the_statistic_by_hand() -> None:
    """mu0 = 0.5, sigma = 0.25, k = 0.5, h = 2: each week adds (0.5 - x) / 0.25 - 0.5 (values exact
    in binary, so S = 2 is exactly h)."""
    x = [0.25, 0.5, 0.0, 0.25, 1.0, 0.0, 0.25, math.nan, 0.125, 0.75]
    # steps:  0.5, -0.5,  1.5,   0.5, -2.5,  1.5,   0.5,   (skip), 1.0, -1.5
    # S:      0.5,  0.0,  1.5,   2.0,  0.0,  1.5,   2.0,    2.0,   3.0 (alarm, then 0), 0.0
    found = cusum(x, mu0=0.5, sigma=0.25, k=0.5, h=2.0)
    np.testing.assert_allclose(found.statistic, [0.5, 0.0, 1.5, 2.0, 0.0, 1.5, 2.0, 2.0, 3.0, 0.0], atol=0)
    assert found.alarms.tolist() == [8]  # S = 2.0 is not above h
    assert found.first_alarm == 8
    assert found.skipped.tolist() == [7]
    assert found.state == 0.0 and (found.k, found.h) == (0.5, 2.0)
    # two alarms: the restart at 0 lets the second need its own evidence
    again = cusum([-0.25, 0.25, -0.25, 0.5], mu0=0.5, sigma=0.25, k=0.5, h=2.0)
    # steps: 2.5 (alarm), 0.5, 2.5 (S 3.0: alarm), -0.5
    np.testing.assert_allclose(again.statistic, [2.5, 0.5, 3.0, 0.0], atol=1e-12)
    assert again.alarms.tolist() == [0, 2] and again.first_alarm == 0
    # the next week starts from the last statistic, 0 after an alarm on the last week
    assert cusum([0.25, 0.25], 0.5, 0.25, 0.5, 2.0).state == 1.0
    assert cusum([-0.25], 0.5, 0.25, 0.5, 2.0).state == 0.0
    assert cusum([0.0], 0.0, 1.0, 0.5, 2.0).first_alarm is None
    with pytest.raises(ValueError):
        found.statistic[0] = 1.0  # read-only


def test_nan_weeks_are_skipped() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(-0.3, 1.0, size=200)
    holes = x.copy()
    missing = rng.choice(200, size=30, replace=False)
    holes[missing] = np.nan
    kept = np.setdiff1d(np.arange(200), missing)
    with_holes, without = cusum(holes, 0.0, 1.0, 0.25, 5.0), cusum(x[kept], 0.0, 1.0, 0.25, 5.0)
    np.testing.assert_array_equal(with_holes.statistic[kept], without.statistic)
    assert with_holes.alarms.tolist() == kept[without.alarms].tolist()
    assert with_holes.skipped.tolist() == sorted(missing.tolist())
    assert with_holes.state == without.state
    assert cusum([math.nan, math.nan], 0.0, 1.0, 0.5, 1.0).statistic.tolist() == [0.0, 0.0]


def test_a_panel_is_each_series_and_chunks_continue() -> None:
    rng = np.random.default_rng(11)
    panel = rng.normal(-0.4, 1.0, size=(300, 25))
    panel[rng.random(panel.shape) < 0.05] = np.nan
    whole = first_alarms(panel, 0.0, 1.0, 0.3, 6.0)
    for column in range(panel.shape[1]):
        one = cusum(panel[:, column], 0.0, 1.0, 0.3, 6.0)
        assert whole.first_alarm[column] == (-1 if one.first_alarm is None else one.first_alarm)
        assert whole.state[column] == one.state
    head = first_alarms(panel[:120], 0.0, 1.0, 0.3, 6.0)
    tail = first_alarms(panel[120:], 0.0, 1.0, 0.3, 6.0, start=head.state)
    np.testing.assert_array_equal(tail.state, whole.state)
    joined = np.where(
        head.first_alarm >= 0, head.first_alarm, np.where(tail.first_alarm >= 0, tail.first_alarm + 120, -1)
    )
    np.testing.assert_array_equal(joined, whole.first_alarm)


# -- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (dict(sigma=0.0), "sigma"),
        (dict(sigma=-1.0), "sigma"),
        (dict(sigma=math.nan), "sigma"),
        (dict(mu0=math.inf), "mu0"),
        (dict(h=0.0), "h"),
        (dict(h=-2.0), "h"),
        (dict(h=math.nan), "h"),
        (dict(k=-0.1), "k"),
        (dict(k=math.nan), "k"),
        (dict(x=[]), "empty"),
        (dict(x=[0.1, math.inf]), "infinite"),
        (dict(x=[[0.1]]), "dimension"),
    ],
)
def test_bad_parameters_are_refused(arguments: dict[str, Any], message: str) -> None:
    call: dict[str, Any] = dict(x=[0.1, -0.2], mu0=0.0, sigma=1.0, k=0.5, h=4.0) | arguments
    with pytest.raises(ValueError, match=message):
        cusum(**call)


def test_bad_design_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="arl0 must exceed"):
        threshold_for(1.0, 0.5)
    with pytest.raises(ValueError, match="arl0"):
        threshold_for(math.nan, 0.5)
    with pytest.raises(ValueError, match="k"):
        threshold_for(200.0, -0.5)
    with pytest.raises(ValueError, match="shift"):
        arl_siegmund(0.5, 4.0, math.nan)
    with pytest.raises(ValueError, match="h"):
        arl_siegmund(0.5, 0.0)
    with pytest.raises(ValueError, match="ir_fall"):
        design(0.0)
    with pytest.raises(ValueError, match="periods_per_year"):
        design(1.0, periods_per_year=0)
    with pytest.raises(ValueError, match="start"):
        first_alarms(np.zeros((3, 2)), 0.0, 1.0, 0.5, 4.0, start=-1.0)
    with pytest.raises(ValueError, match="empty"):
        first_alarms(np.zeros((0, 2)), 0.0, 1.0, 0.5, 4.0)
    assert monitoring.SIEGMUND_CORRECTION == 1.166
