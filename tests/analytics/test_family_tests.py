"""Which members of a trial family are indistinguishable from the best (issue 62, item 5):
`/analytics/family_tests` against `arch.bootstrap` (SPA, StepM, MCS) given the SAME resamples,
scipy's Spearman correlation, pandas' Sharpe ratio and a plain loop's neighbour deviation; the key's
scope (a member it may not read is never in a figure; one readable member is too few); the known
answers of the demo's two families on the full-size market (planted family's SPA p < 0.05, the noise
family's > 0.05; Sharpe against measurement_noise Spearman about -1, against noise_draw about 0).

How arch is given our resamples: arch's bootstraps draw a resample's positions with
`update_indices()` before each replication; the test replaces that method on the instance each
SPA/StepM/MCS holds with one that returns our rows of positions (`our_indices` of the
project's stationary-bootstrap blocks), in order, so arch's own loops run over our indices.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from analytics import family_tests as ft
from core.context import AllowList
from tests.analytics import reference as ref
from tests.analytics.conftest import CALLERS, Api, FamilyRuns, serving
from tests.analytics.helpers import close
from tests.callers import make_caller
from tests.support.families import NOISE, PLANTED, families_lake, family_returns  # noqa: F401

PATH = "/v1/alphas/{}/analytics/family_tests"
SEVEN = NOISE[1:8]
ONE = NOISE[:1]


def our_indices(drawn: ft.Resampled, n: int) -> np.ndarray:
    """(resamples, n) positions into the series of each of our resamples (blocks wrap past the
    end), as `arch.bootstrap.StationaryBootstrap` gives them: the reverse of
    `bootstrap.blocks_of_indices`."""
    rows = np.empty((drawn.starts.shape[0], n), dtype=np.int64)
    for r in range(drawn.starts.shape[0]):
        keep = drawn.lengths[r] > 0
        s, m = drawn.starts[r][keep], drawn.lengths[r][keep]
        begins = np.repeat(np.cumsum(m) - m, m)
        rows[r] = (np.repeat(s, m) + np.arange(n) - begins) % n
    return rows


def feed(bootstrap: Any, rows: np.ndarray) -> None:
    """arch's `bootstrap` draws `rows` (one row of positions per replication), in order."""
    it = iter(rows)
    bootstrap.update_indices = lambda: next(it)


def arch_figures(returns: np.ndarray, drawn: ft.Resampled) -> dict[str, Any]:
    """SPA, StepM and MCS by arch over `returns` (T x k) on our resamples (benchmark: each session's
    mean of the members, as a loss -mean; the members' losses -returns)."""
    from arch.bootstrap import MCS, SPA, StepM

    t, k = returns.shape
    rows = our_indices(drawn, t)
    count = rows.shape[0]
    benchmark, losses = -returns.mean(axis=1), -returns
    spa = SPA(benchmark, losses, block_size=drawn.block, reps=count)  # type: ignore[arg-type]
    feed(spa.bootstrap, rows)
    spa.compute()
    stepm = StepM(benchmark, losses, size=ft.SIZE, block_size=drawn.block, reps=count)  # type: ignore[arg-type]
    feed(stepm.spa.bootstrap, rows)
    stepm.compute()
    mcs = MCS(losses, size=ft.SIZE, reps=count, method="R")
    feed(mcs.bootstrap, rows)
    mcs.compute()
    pvalues = mcs.pvalues["Pvalue"]
    return {
        "spa": spa.pvalues.to_dict(),
        "superior": sorted(int(i) for i in stepm.superior_models),
        "mcs": np.array([float(pvalues.loc[i]) for i in range(k)]),
        "included": sorted(int(i) for i in mcs.included),
    }


def plain_studentized(d: np.ndarray, rows: np.ndarray, block: float) -> dict[str, Any]:
    """Hansen's studentized SPA (lower, consistent, upper) and the studentized StepM, written from the
    papers with a loop over the laid-out resamples and arch's kernel-variance loop."""
    t, k = d.shape
    mean = d.mean(axis=0)
    e = d - mean
    p = 1.0 / block
    variance = np.sum(e**2, 0) / t
    for i in range(1, t):
        kappa = (1 - i / t) * (1 - p) ** i + (i / t) * (1 - p) ** (t - i)
        variance += 2 * kappa * np.sum(e[: t - i] * e[i:], 0) / t
    omega = np.sqrt(variance)
    tstat = math.sqrt(t) * mean / omega
    statistic = max(tstat.max(), 0.0)
    valid = mean >= -np.sqrt(variance / t * 2 * math.log(math.log(t)))
    centres = {
        "lower": np.maximum(mean, 0.0),
        "consistent": np.where(valid, mean, 0.0),
        "upper": mean,
    }
    draws = {name: [] for name in centres}  # type: dict[str, list[float]]
    consistent = []
    for row in rows:
        star = d[row].mean(axis=0)
        for name, centre in centres.items():
            draws[name].append(max((math.sqrt(t) * (star - centre) / omega).max(), 0.0))
        consistent.append(math.sqrt(t) * (star - centres["consistent"]) / omega)
    pvalues = {
        name: 1.0 if statistic == 0 else float(np.mean(np.array(v) > statistic)) for name, v in draws.items()
    }
    simulated = np.array(consistent)
    superior: list[int] = []
    remaining = list(range(k))
    stepm_p = [math.nan] * k  # each member's p-value against the maxima of its last step
    while remaining:
        maxima = simulated[:, remaining].max(axis=1)
        for i in remaining:
            stepm_p[i] = float(np.mean(maxima > tstat[i]))
        critical = np.quantile(maxima, 1 - ft.SIZE)
        new = [i for i in remaining if tstat[i] > critical]
        if not new:
            break
        superior += new
        remaining = [i for i in remaining if i not in new]
    return {"spa": pvalues, "superior": sorted(superior), "stepm_p": stepm_p}


def check_against_arch(returns: np.ndarray) -> ft.Tests:
    ours = ft.family_tests(returns)
    drawn = ft.resample_family(returns)
    t = returns.shape[0]
    rows = our_indices(drawn, t)
    # our resample means equal the laid-out resamples' means
    assert np.allclose(drawn.means, returns[rows].mean(axis=1), rtol=0, atol=1e-13)
    d = returns - returns.mean(axis=1, keepdims=True)
    resampled_d = drawn.means - drawn.means.mean(axis=1, keepdims=True)
    # arch's form (unstudentized) on the same indices
    theirs = arch_figures(returns, drawn)
    unstudentized = ft.spa(d, resampled_d, drawn.block, studentize=False)
    assert unstudentized.lower == theirs["spa"]["lower"]
    assert unstudentized.consistent == theirs["spa"]["consistent"]
    assert unstudentized.upper == theirs["spa"]["upper"]
    assert ft.stepm(unstudentized.statistics, unstudentized.simulated).superior == theirs["superior"]
    assert ours.mcs_pvalues is not None
    assert np.allclose(ours.mcs_pvalues, theirs["mcs"], rtol=0, atol=1e-12)
    assert sorted(np.flatnonzero(ours.mcs_pvalues > ft.SIZE).tolist()) == theirs["included"]
    # the served (studentized) form against the papers' steps written plainly
    plain = plain_studentized(d, rows, drawn.block)
    assert ours.spa is not None
    assert (ours.spa.lower, ours.spa.consistent, ours.spa.upper) == (
        plain["spa"]["lower"],
        plain["spa"]["consistent"],
        plain["spa"]["upper"],
    )
    assert ours.superior == plain["superior"]
    assert ours.stepm_pvalues is not None and ours.stepm_pvalues.tolist() == plain["stepm_p"]
    # found superior exactly when its p-value is below the size, but where Monte Carlo error decides
    for i, p in enumerate(plain["stepm_p"]):
        error = ft.monte_carlo_error(p)
        assert (i in ours.superior) == (p < ft.SIZE) or ft.within_monte_carlo_error(p, error), (i, p)
    return ours


def test_the_monte_carlo_error_is_the_spread_over_other_draws() -> None:
    """Issue 81, item 7 (e): the served Monte Carlo standard error of a simulated p-value,
    sqrt(p (1 - p) / B), is what 40 other draws of the resamples (other streams of the seed) move
    the SPA and MCS p-values by, measured: their standard deviation over the draws, within the
    sampling error of a standard deviation of 40 (about 11%, so a factor 0.7 to 1.4)."""
    from analytics import bootstrap

    rng = np.random.default_rng(81)
    t, k = 500, 6
    drift = np.linspace(-0.0004, 0.0012, k)
    returns = drift + 0.01 * rng.standard_normal((t, k)) + 0.004 * rng.standard_normal((t, 1))
    d = returns - returns.mean(axis=1, keepdims=True)
    block = ft.resample_family(returns).block
    spa_p, mcs_p = [], []
    for stream in range(100, 140):
        starts, lengths = bootstrap.draw_blocks(
            bootstrap.generator(bootstrap.SEED, stream), t, ft.RESAMPLES, block
        )
        means = ft.resampled_means(returns, starts, lengths)
        spa_p.append(ft.spa(d, means - means.mean(axis=1, keepdims=True), block).consistent)
        mcs_p.append(ft.mcs(-returns.mean(axis=0), -means))
    spa_values = np.array(spa_p)
    p = float(spa_values.mean())
    assert 0.02 < p < 0.5, p  # a p-value whose Monte Carlo error is not 0
    assert 0.7 < float(spa_values.std(ddof=1)) / ft.monte_carlo_error(p) < 1.4
    # The MCS's p-values vary more than a binomial share (1.5 times here: variances from the same
    # resamples, a running maximum): their error is measured over other draws, and agrees
    mcs_values = np.array(mcs_p)
    member = int(np.argmin(np.abs(mcs_values.mean(axis=0) - 0.2)))  # a member of p far from 0 and 1
    q = float(mcs_values[:, member].mean())
    assert 0.05 < q < 0.6, q
    measured = ft.family_tests(returns).mcs_errors
    assert measured is not None
    # batch means of one draw against the spread of 40 draws: within ~20% and ~11% of the truth
    assert 0.6 < float(measured[member]) / float(mcs_values[:, member].std(ddof=1)) < 1.5


def test_a_verdict_within_monte_carlo_error_is_marked() -> None:
    error = math.sqrt(0.05 * 0.95 / 1000)  # 0.0069 at the cut-off
    assert ft.monte_carlo_error(0.05) == error and ft.monte_carlo_error(0.0) == 0.0

    def within(p: float) -> bool:
        return ft.within_monte_carlo_error(p, ft.monte_carlo_error(p))

    assert within(0.05) and within(0.061) and within(0.039)
    assert not within(0.07) and not within(0.03) and not within(0.0) and not within(1.0)
    assert ft.within_monte_carlo_error(0.08, 0.016) and not ft.within_monte_carlo_error(0.08, 0.01)


def test_the_kernel_variance_is_arch_s_loop() -> None:
    rng = np.random.default_rng(3)
    d = rng.standard_normal((300, 4)) + 0.3 * np.roll(rng.standard_normal((300, 4)), 1, axis=0)
    t, p = d.shape[0], 1 / 2.7
    e = d - d.mean(axis=0)
    expected = np.sum(e**2, 0) / t
    for i in range(1, t):
        kappa = (1 - i / t) * (1 - p) ** i + (i / t) * (1 - p) ** (t - i)
        expected += 2 * kappa * np.sum(e[: t - i] * e[i:], 0) / t
    assert np.allclose(ft.kernel_variance(d, 2.7), expected, rtol=1e-10, atol=0)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_synthetic_families_equal_arch_on_the_same_indices(seed: int) -> None:
    """Families with some members above zero (StepM finds some), some below, and ties of none."""
    rng = np.random.default_rng(seed)
    t, k = 600, 7
    drift = np.linspace(-0.001, 0.003, k)
    returns = drift + 0.01 * rng.standard_normal((t, k)) + 0.004 * rng.standard_normal((t, 1))
    ours = check_against_arch(returns)
    assert ours.superior, "the test should reach StepM's steps"
    d = returns - returns.mean(axis=1, keepdims=True)
    drawn = ft.resample_family(returns)
    plain = ft.spa(d, drawn.means - drawn.means.mean(axis=1, keepdims=True), drawn.block, studentize=False)
    assert ft.stepm(plain.statistics, plain.simulated).superior, "arch's StepM should find some too"


def test_the_lake_families_equal_arch_on_the_same_indices(families_lake: Path) -> None:  # noqa: F811
    lake = ref.Lake(families_lake)
    for family in (PLANTED, NOISE):
        members = sorted(family, reverse=True)  # catalogue order
        check_against_arch(family_returns(lake, members).to_numpy())


def test_spearman_and_the_neighbour_deviation() -> None:
    rng = np.random.default_rng(11)
    sharpe = rng.standard_normal(9)
    grid = [{"a": float(a), "b": b} for a in (1, 2, 3) for b in (10, 20, 30)]
    found = {p.parameter: p for p in ft.parameter_stability(grid, sharpe)}
    for name in ("a", "b"):
        values = np.array([g[name] for g in grid], dtype=float)
        assert close(found[name].sharpe_spearman, float(spearmanr(values, sharpe).statistic))
        # plain loop: neighbours along `name`, the other parameter equal
        other = "b" if name == "a" else "a"
        levels = sorted(set(values))
        deviations = []
        for i, g in enumerate(grid):
            at = levels.index(g[name])
            near = [
                sharpe[j]
                for j, h in enumerate(grid)
                if h[other] == g[other] and h[name] in levels[max(at - 1, 0) : at + 2] and h[name] != g[name]
            ]
            deviations.append(abs(sharpe[i] - np.mean(near)))
        assert close(found[name].neighbour_deviation, float(np.mean(deviations) / np.std(sharpe, ddof=1)))
        assert found[name].distinct_values == 3 and found[name].members_with_parameter == 9
    one = ft.parameter_stability([{"h": 4.0, "c": "x"}] * 4, sharpe[:4])
    assert [(p.parameter, p.sharpe_spearman, p.reason) for p in one] == [
        ("c", None, "c is not a number for every member that names it"),
        ("h", None, "h takes one value among the members"),
    ]


# -- served -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def family_api(families_lake: Path) -> Iterator[Api]:  # noqa: F811
    callers = {
        **CALLERS,
        "seven": make_caller(alphas=AllowList.of_ids(SEVEN), runs=AllowList.of_ids(SEVEN)),
        "one": make_caller(alphas=AllowList.of_ids(ONE), runs=AllowList.of_ids(ONE)),
    }
    with serving(families_lake, callers) as api:
        yield api


def check_served(body: dict[str, Any], returns: pd.DataFrame) -> None:
    values = returns.to_numpy()
    expected = ft.family_tests(values)
    assert expected.spa is not None and expected.mcs_pvalues is not None
    assert body["compared_members"] == values.shape[1] and body["compared_sessions"] == values.shape[0]
    assert body["spa_p_value"]["value"] == expected.spa.consistent
    assert body["spa_p_value_lower"]["value"] == expected.spa.lower
    assert body["spa_p_value_upper"]["value"] == expected.spa.upper
    assert [m["alpha_id"] for m in body["members"]] == list(returns.columns)
    pandas_sharpe = returns.mean() / returns.std(ddof=1) * math.sqrt(252)
    for i, member in enumerate(body["members"]):
        assert close(member["family_sharpe"], float(pandas_sharpe.iloc[i]))
        assert member["stepm_superior"] == (i in expected.superior)
        assert close(member["mcs_p_value"], float(expected.mcs_pvalues[i]))
        assert member["in_confidence_set"] == (member["mcs_p_value"] > 0.05)
        # Issue 81, item 7 (e): each simulated p-value with its Monte Carlo error beside it, and a
        # verdict within 2 of them of the cut-off marked
        assert expected.stepm_pvalues is not None
        assert member["stepm_p_value"] == float(expected.stepm_pvalues[i])
        p = member["stepm_p_value"]
        error = math.sqrt(p * (1 - p) / 1000)
        assert close(member["stepm_p_value_monte_carlo_error"], error)
        assert member["stepm_within_monte_carlo_error"] == (abs(p - 0.05) <= 2 * error)
        assert expected.mcs_errors is not None
        error = member["mcs_p_value_monte_carlo_error"]
        assert close(error, float(expected.mcs_errors[i]))
        assert member["mcs_within_monte_carlo_error"] == (abs(member["mcs_p_value"] - 0.05) <= 2 * error)
    for name in ("spa_p_value", "spa_p_value_lower", "spa_p_value_upper"):
        p = body[name]["value"]
        assert close(body[f"{name}_monte_carlo_error"], math.sqrt(p * (1 - p) / 1000))
    p = body["spa_p_value"]["value"]
    assert body["spa_within_monte_carlo_error"] == (abs(p - 0.05) <= 2 * math.sqrt(p * (1 - p) / 1000))


def test_the_served_answer(family_api: Api, families_lake: Path) -> None:  # noqa: F811
    lake = ref.Lake(families_lake)
    for family, slug in ((PLANTED, "planted_latent"), (NOISE, "pure_noise")):
        body = family_api.ok(PATH.format(family[0]))["data"]
        assert body["family"] == slug and body["test_size"] == 0.05 and body["comparison_resamples"] == 1000
        check_served(body, family_returns(lake, sorted(family, reverse=True)))
        names = [p["parameter"] for p in body["parameters"]]
        assert names == sorted(names) and "half_life_weeks" in names
        constant = next(p for p in body["parameters"] if p["parameter"] == "half_life_weeks")
        assert constant["sharpe_spearman"] is None and "takes one value" in constant["reason"]


def test_a_key_is_answered_over_the_members_it_may_read(family_api: Api, families_lake: Path) -> None:  # noqa: F811
    """Seven of the ten: the figures are the seven's; one: too few, not measurable, saying so."""
    lake = ref.Lake(families_lake)
    seven = family_api.ok(PATH.format(SEVEN[0]), "seven")["data"]
    members = sorted(SEVEN, reverse=True)
    check_served(seven, family_returns(lake, members))
    assert not {m["alpha_id"] for m in seven["members"]} - set(SEVEN)
    whole = family_api.ok(PATH.format(SEVEN[0]))["data"]
    assert whole["compared_members"] == len(NOISE) and seven["compared_members"] == 7

    one = family_api.ok(PATH.format(ONE[0]), "one")["data"]
    assert one["compared_members"] == 1 and [m["alpha_id"] for m in one["members"]] == ONE
    for name in ("spa_p_value", "spa_p_value_lower", "spa_p_value_upper"):
        entry = one[name]
        assert entry["value"] is None and entry["status"] == "not_measurable"
        assert (
            "at least 2 members" in entry["withheld_reason"]
            and "may read 1 member" in entry["withheld_reason"]
        )
    assert one["members"][0]["mcs_p_value"] is None and one["members"][0]["stepm_superior"] is None
    assert one["spa_p_value_monte_carlo_error"] is None and one["spa_within_monte_carlo_error"] is None
    assert (
        one["members"][0]["stepm_p_value"] is None
        and one["members"][0]["mcs_within_monte_carlo_error"] is None
    )
    assert one["comparison_block_length"] is None
    # Its own Sharpe ratio is still its own figure; parameters need 3 members.
    assert all(p["sharpe_spearman"] is None for p in one["parameters"])


def test_withheld_and_without_a_family(family_api: Api, api: Api) -> None:
    withheld = family_api.ok(PATH.format(NOISE[0]), "no_portfolio")
    assert withheld["data"]["spa_p_value"]["withheld_reason"].startswith("access_limited")
    assert withheld["data"]["parameters"] == [] and withheld["data"]["compared_sessions"] == 0
    assert all(m["family_sharpe"] is None for m in withheld["data"]["members"])
    body = api.ok(PATH.format("momentum_12_1"))["data"]
    assert body["family"] is None and body["compared_members"] == 0 and body["members"] == []
    assert body["spa_p_value"]["withheld_reason"] == "the seal of momentum_12_1 names no trial family"


def test_a_notebook_is_answered_the_served_struct(family_api: Api, families_lake: Path) -> None:  # noqa: F811
    from analytics.figures import Figures

    figures = Figures.open(str(families_lake))
    try:
        for alpha in (PLANTED[0], NOISE[3]):
            served = family_api.get(PATH.format(alpha))
            assert served.status_code == 200, served.text
            local = figures.family_tests(alpha)
            raw = msgspec.json.decode(served.content, type=dict[str, msgspec.Raw])["data"]
            assert msgspec.json.encode(local) == bytes(raw)
    finally:
        figures.reader.close()


@pytest.mark.slow
def test_the_demo_families_known_answers(full_family_runs: dict[str, FamilyRuns]) -> None:
    """On the full-size market (the full demo corpus's), every variant of both families run by the
    demo engine: the planted family's SPA p < 0.05 and the noise family's > 0.05; the planted
    family's Sharpe against measurement_noise has a Spearman correlation about -1, the noise
    family's against noise_draw about 0; each equal to arch on the same indices."""
    known = ("planted_latent", "pure_noise")  # the near-duplicate family has no known answer here
    series = {family: full_family_runs[family].returns for family in known}
    parameters = {family: full_family_runs[family].parameters for family in known}
    found: dict[str, tuple[float, float | None]] = {}
    for family, members in series.items():
        frame = members.dropna().sort_index()
        tests = check_against_arch(frame.to_numpy())
        assert tests.spa is not None
        stability = {p.parameter: p for p in ft.parameter_stability(parameters[family], tests.sharpe)}
        name = "measurement_noise" if family == "planted_latent" else "noise_draw"
        found[family] = (tests.spa.consistent, stability[name].sharpe_spearman)
        if family == "planted_latent":
            # Issue 81, item 7 (e): the two verdicts at their cut-offs, marked within Monte Carlo error
            # (docs/analytics.md states them): StepM's planted_01 (p 0.054, not superior) and the
            # MCS's planted_13 (p 0.044, out of the set); the SPA's 0.036 is 2.4 errors below 0.05
            assert (
                tests.stepm_pvalues is not None
                and tests.mcs_pvalues is not None
                and tests.mcs_errors is not None
            )
            at = {alpha: i for i, alpha in enumerate(frame.columns)}
            first, thirteenth = at["Test_family_planted_01"], at["Test_family_planted_13"]
            p = float(tests.stepm_pvalues[first])
            assert first not in tests.superior and ft.within_monte_carlo_error(p, ft.monte_carlo_error(p)), p
            q, error = float(tests.mcs_pvalues[thirteenth]), float(tests.mcs_errors[thirteenth])
            assert q <= ft.SIZE and ft.within_monte_carlo_error(q, error), (q, error)
            spa = tests.spa.consistent
            assert not ft.within_monte_carlo_error(spa, ft.monte_carlo_error(spa))
            marked = [
                alpha
                for alpha, i in at.items()
                if ft.within_monte_carlo_error(
                    float(tests.stepm_pvalues[i]), ft.monte_carlo_error(float(tests.stepm_pvalues[i]))
                )
                or ft.within_monte_carlo_error(float(tests.mcs_pvalues[i]), float(tests.mcs_errors[i]))
            ]
            assert sorted(marked) == ["Test_family_planted_01", "Test_family_planted_13"], marked
    planted, noise = found["planted_latent"], found["pure_noise"]
    assert planted[0] < 0.05 and noise[0] > 0.05, found
    assert planted[1] is not None and planted[1] < -0.8, found
    assert noise[1] is not None and abs(noise[1]) < 0.5, found
    # docs/analytics.md ("Family tests", "The demo's known answers") states them as measured here
    doc = " ".join((Path(__file__).resolve().parents[2] / "docs" / "analytics.md").read_text().split())
    for stated in (
        f"planted family SPA consistent p {planted[0]:.3f} (< 0.05), noise family {noise[0]:.2f} (> 0.05)",
        f"measurement_noise Spearman {planted[1]:.2f}",
        f"against noise_draw {noise[1]:.2f} (about 0)",
    ):
        assert stated in doc, f"docs/analytics.md no longer states {stated!r}"
