"""Decay and the expected live haircut (`/analytics/decay`; issue 50, item 7).

The IC's decay, over a copy of the demo lake: refitted by scipy's `curve_fit` (another optimiser)
to the term structure read from the build's `weekly_term` rows (the open table's) with pandas.

The haircut is recomputed from the served `/analytics/live` of every other approved alpha the key
may read with a live quarter (numpy's `lstsq`, a loop for leave-one-out) within 1e-9. A live track
is the sessions the lake first published after the approval was recorded (docs/events.md, "What
was known when"), so each world records its decisions with the real command line (`alpha-results
promote`, `retire`) on that day's clock, and expects the knowledge split (tests/knowledge.py):

- the demo lake, every alpha approved on a random day (one retired since): its history published
  value_composite_legacy and Test_planted_factor run by run, so theirs alone hold a live quarter,
  too few for the catalogue's calibration: the literature's, its error over those two;
- a lake of eight factory alphas published run by run on a simulated clock (a research run, then
  two more), each approved after the first: the catalogue's calibration for a key reading every
  alpha, the literature's for one reading Test_ alphas alone (two of them), a retired one still
  counted;

and the figures withheld from a key without the ledger or the cross-sections.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import io
import math
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import polars as pl
import pytest
from litestar.testing import TestClient
from scipy.optimize import curve_fit

from analytics.decay import fit_decay
from cli.main import main as cli
from datasets import clock
from tests.analytics.conftest import ALPHAS, CALLERS, Api, serving
from tests.analytics.reference import Lake
from tests.callers import authenticator_for
from tests.conftest import linked_copy
from tests.decided import noon
from tests.knowledge import current_build, known_split
from tests.knowledge import recorded_at as recorded
from tests.support.build_tables import build_pandas, build_table, has_table

PATH = "/v1/alphas/{}/analytics/decay"
LIVE_PATH = "/v1/alphas/{}/analytics/live"
TOLERANCE = 1e-9
MIN_LIVE = 63  # M
MIN_ALPHAS = 5  # K
PRIOR = 0.74  # 1 - McLean and Pontiff's 26%
HORIZONS = (1, 2, 4, 8)
RETIRED = "Test_planted_factor"
LIVE_TRACKS = ("value_composite_legacy", "Test_planted_factor")
"""The demo's alphas published run by run long enough for a live quarter after an approval."""
FACTORY = {
    "factory_a": 100,
    "factory_b": 102,
    "factory_c": 104,
    "factory_d": 106,
    "factory_e": 110,
    "factory_f": 112,
    "Test_factory_g": 113,
    "Test_factory_h": 118,
}
"""The factory lake's alphas and their seeds (each with a positive backtest at its approval, some
with a live track that keeps it and some with one that loses it)."""
FACTORY_RETIRED = "factory_c"
RUNS = {30: "2023-07-29", 50: "2023-12-16", 60: "2024-02-24"}
"""The factory alphas' runs (weeks) and the day each was published: the day after its last session."""
FACTORY_APPROVED_ON = "2023-07-31"
FACTORY_RETIRED_ON = "2024-01-10"


@dataclass(frozen=True)
class World:
    api: Api
    lake: Path
    records: str
    approvals: dict[str, str]  # alpha -> its live split: the last session known when it was approved


def run_cli(*argv: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli(list(argv)) == 0, argv


def ir(r: pd.Series) -> float | None:
    sd = r.std(ddof=1)
    return None if len(r) < 2 or not sd > 0 else float(r.mean() / sd * math.sqrt(252))


def publications(lake: Path, alpha: str) -> list[tuple[dt.datetime, dt.date]]:
    """Each publication of the alpha's sessions: when, and the last session it held (polars)."""
    known = build_table(current_build(lake, alpha), "known_sessions")
    grouped = (
        known.filter(pl.col("dataset") == "portfolio")
        .group_by("first_published_at")
        .agg(pl.col("date").max())
        .sort("first_published_at")
    )
    return list(zip(grouped["first_published_at"], grouped["date"], strict=True))


def approval_day(api: Api, lake: Path, alpha: str, rng: random.Random, end: str | None) -> dt.date | None:
    """A day after the alpha's first publication on which an approval splits it at a positive
    backtest information ratio with a live quarter after it (to `end`, a retirement's last known
    session), None when no day does."""
    frame = pd.DataFrame(api.all_rows(f"/v1/alphas/{alpha}/portfolio", book="long_short"))
    r = frame["ending_equity"] / frame["starting_equity"] - 1.0
    dates = frame["date"]
    published = publications(lake, alpha)
    good = []
    for k in range(1, 200):
        day = published[0][0].date() + dt.timedelta(days=k)
        split = max(last for at, last in published if at <= noon(day)).isoformat()
        live = int(((dates > split) & (dates <= (end or dates.iloc[-1]))).sum())
        if live >= MIN_LIVE + 5 and (ir(r[dates <= split]) or 0.0) > 0:
            good.append(day)
    return rng.choice(good) if good else None


def served_app(lake: Path, records: str) -> Any:
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    return create_app(
        Settings(lake=str(lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(records),
    )


@pytest.fixture(scope="module")
def world(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory, api: Api) -> Iterator[World]:
    """A copy of the demo lake with records of its own, on which an operator approved every alpha
    on a random day's clock (where one gives a live quarter after a positive backtest, else the day
    after its first publication) and retired one since."""
    folder = tmp_path_factory.mktemp("decay")
    lake = linked_copy(demo_lake, folder / "lake")
    records = f"sqlite:///{folder / 'records.sqlite3'}"
    rng = random.Random("decay")
    retired_on = dt.date.fromisoformat(
        api.all_rows(f"/v1/alphas/{RETIRED}/portfolio", book="long_short")[-3]["date"]
    )
    retired_end = max(last for at, last in publications(lake, RETIRED) if at <= noon(retired_on)).isoformat()
    days: dict[str, dt.date] = {}
    for alpha in ALPHAS:
        found = approval_day(api, lake, alpha, rng, retired_end if alpha == RETIRED else None)
        assert (found is not None) == (alpha in LIVE_TRACKS), alpha
        days[alpha] = found or publications(lake, alpha)[0][0].date() + dt.timedelta(days=1)
    where = ("--lake", str(lake), "--keystore", records, "--policy", "", "--by", "head of research")
    decisions: list[tuple[Any, ...]] = [
        (day, "promote", alpha, "live", "--override", "a test") for alpha, day in days.items()
    ]
    decisions.append((retired_on, "retire", RETIRED, "decayed"))  # its live record still counts
    for day, action, alpha, note, *more in sorted(decisions):
        with clock.simulated(noon(day)):
            run_cli(action, alpha, *where, "--note", note, *more)
    approvals = {
        alpha: known_split(lake, alpha, recorded(records, alpha, "approved")).isoformat() for alpha in ALPHAS
    }
    for alpha, day in days.items():  # never the day itself: what was first published by then
        assert approvals[alpha] < day.isoformat(), (alpha, approvals[alpha], day)
    with TestClient(app=served_app(lake, records)) as client:
        yield World(Api(client), lake, records, approvals)


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """Eight factory alphas, each published run by run on a simulated clock: a research run of 30
    weeks, approved two days after it was published, then runs of 50 and 60 weeks; one retired
    between those two. Each live track is first seen after its approval: 30 weeks, the retired
    one's 20."""
    from pipeline.build import build_many
    from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

    folder = tmp_path_factory.mktemp("decay_factory")
    lake = folder / "lake"
    records = f"sqlite:///{folder / 'records.sqlite3'}"
    spy = write_benchmark_seal(folder / "spy", sessions=430)
    where = ("--lake", str(lake), "--keystore", records, "--policy", "", "--by", "head of research")
    for n, (weeks, day) in enumerate(RUNS.items()):
        seals = [
            str(write_factory_seal(folder / f"{alpha}-{weeks}", alpha_id=alpha, weeks=weeks, seed=seed))
            for alpha, seed in FACTORY.items()
        ]
        with clock.simulated(noon(day)):
            built = build_many([str(spy), *seals] if n == 0 else seals, str(lake), jobs=1)
        assert all(o.status == "published" for o in built), built
        if n == 0:
            with clock.simulated(noon(FACTORY_APPROVED_ON)):
                for alpha in FACTORY:
                    run_cli("promote", alpha, *where, "--note", "live", "--override", "a test")
        if n == 1:
            with clock.simulated(noon(FACTORY_RETIRED_ON)):
                run_cli("retire", FACTORY_RETIRED, *where, "--note", "decayed")
    approvals = {
        alpha: known_split(lake, alpha, recorded(records, alpha, "approved")).isoformat() for alpha in FACTORY
    }
    assert set(approvals.values()) == {"2023-07-28"}  # the research run's last session
    with TestClient(app=served_app(lake, records)) as client:
        yield World(Api(client), lake, records, approvals)


def close(a: float | None, b: float | None, tol: float = TOLERANCE) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def decay(world: World, alpha: str, token: str = "raw", **params: Any) -> dict[str, Any]:
    return world.api.ok(PATH.format(alpha), token, **params)


# -- the IC's decay ------------------------------------------------------------------------------


def term_means(lake: Path, alpha: str) -> dict[int, float] | None:
    """Mean IC by horizon over the whole history, read with pandas from the build's rows."""
    build = Lake(lake).build(alpha)
    if not has_table(build, "weekly_term"):
        return None
    frame = build_pandas(build, "weekly_term")
    frame = frame[np.isfinite(frame["ic"].astype(float))]
    return {int(h): float(v) for h, v in frame.groupby("horizon_weeks")["ic"].mean().items()}


def model(h: np.ndarray, ic_1: float, rate: float) -> np.ndarray:
    """sqrt(h) x the h-week IC: the sum of the marginal ICs of weeks 1..h."""
    return np.array([sum(ic_1 * math.exp(-rate * k) for k in range(int(x))) for x in h])


def exact_fit(y: np.ndarray, start: float) -> tuple[float, float]:
    """The least-squares (rate, ic_1) in 40 digits (the standard library's decimal), near `start`:
    the root of the squared error's derivative (a central difference), bisected."""
    decimal.getcontext().prec = 40
    ys = [Decimal(float(v)) for v in y]

    def x(rate: Decimal) -> list[Decimal]:
        return [sum(((-rate * j).exp() for j in range(k)), Decimal(0)) for k in HORIZONS]

    def scale(rate: Decimal) -> Decimal:
        xs = x(rate)
        return sum((a * b for a, b in zip(xs, ys, strict=True)), Decimal(0)) / sum(
            (a * a for a in xs), Decimal(0)
        )

    def sse(rate: Decimal) -> Decimal:
        c = scale(rate)
        return sum(((b - c * a) ** 2 for a, b in zip(x(rate), ys, strict=True)), Decimal(0))

    def slope(rate: Decimal) -> Decimal:
        step = Decimal("1e-18")
        return sse(rate + step) - sse(rate - step)

    low, high = Decimal(start) * Decimal("0.9999"), Decimal(start) * Decimal("1.0001")
    low, high = min(low, high), max(low, high)
    assert slope(low) < 0 < slope(high)
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if slope(mid) < 0 else (low, mid)
    rate = (low + high) / 2
    return float(rate), float(scale(rate))


@pytest.mark.parametrize("alpha", ALPHAS)
def test_the_ic_decay_is_refitted_by_another_optimiser(world: World, alpha: str) -> None:
    data = decay(world, alpha)["data"]["ic_decay"]
    means = term_means(world.lake, alpha)
    points = {p["horizon_weeks"]: p for p in data["term_structure"]}
    assert tuple(points) == HORIZONS
    if means is None:
        assert data["decay_rate"]["status"] == "not_measurable"
        assert "no decisions" in data["decay_rate"]["withheld_reason"]
        return
    for h in HORIZONS:
        assert close(points[h]["mean_ic"], means.get(h)), (alpha, h)
    if not means[1] > 0:
        assert "not positive" in data["decay_rate"]["withheld_reason"]
        return
    h = np.array(HORIZONS, dtype=float)
    y = np.sqrt(h) * np.array([means[k] for k in HORIZONS])
    # Levenberg-Marquardt, unbounded, on both parameters at once (the route profiles the scale out
    # and searches the rate by Brent, then the root of the derivative).
    (ic_1, rate), _ = curve_fit(
        model, h, y, p0=(means[1], 0.1), method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15, maxfev=100_000
    )
    if not -1 + 1e-4 < rate < 5 - 1e-4:  # beyond the route's search: it says the fit reached its bound
        assert data["decay_rate"]["value"] is None and "bound" in data["decay_rate"]["withheld_reason"], alpha
        assert data["half_life_weeks"]["value"] is None
        return
    # Levenberg-Marquardt stops within a relative 1e-7 of the minimum; from there, the minimum in 40
    # digits (decimal): the root of the derivative of the squared error, the scale profiled out.
    assert math.isclose(data["decay_rate"]["value"], rate, rel_tol=1e-6), (alpha, data["decay_rate"], rate)
    exact_rate, exact_ic_1 = exact_fit(y, rate)
    assert close(data["decay_rate"]["value"], exact_rate), (alpha, data["decay_rate"], exact_rate)
    assert close(data["ic_1"]["value"], exact_ic_1)
    assert math.isclose(ic_1, exact_ic_1, rel_tol=1e-6)
    served = data["decay_rate"]["value"]
    if served > 0:
        assert close(data["half_life_weeks"]["value"], math.log(2) / served)
    else:
        assert data["half_life_weeks"]["value"] is None
        assert "does not decay" in data["half_life_weeks"]["withheld_reason"]
    # The points from the served rate and scale, written again.
    for k in HORIZONS:
        g = sum(math.exp(-served * j) for j in range(k))
        assert close(points[k]["fitted_ic"], data["ic_1"]["value"] * g / math.sqrt(k))
        assert close(points[k]["marginal_ic"], data["ic_1"]["value"] * math.exp(-served * (k - 1)))


def test_an_exact_exponential_is_recovered() -> None:
    h = np.array(HORIZONS, dtype=float)
    truth = model(h, 0.03, 0.12) / np.sqrt(h)
    fit = fit_decay(h, truth)
    assert math.isclose(fit.rate, 0.12, rel_tol=1e-8) and math.isclose(fit.ic_1, 0.03, rel_tol=1e-8)


def test_momentum_decays_with_a_half_life() -> None:
    """momentum_12_1's h-week IC rises with h (0.025, 0.033, 0.046, 0.057): a fit of the h-week IC
    itself would say "no decay"; its marginal IC halves in about 11 weeks."""
    h = np.array(HORIZONS, dtype=float)
    fit = fit_decay(
        h, np.array([0.025149898733995455, 0.03340324959834404, 0.046036239521774436, 0.057450904373287884])
    )
    assert 10 < math.log(2) / fit.rate < 13


# -- the haircut ---------------------------------------------------------------------------------


def calibration(world: World, alpha: str, readable: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The other approved alphas the key reads with a live quarter and a positive backtest, from the
    served /analytics/live of each (the split its approval's)."""
    ids, b, l_ = [], [], []
    for other in readable:
        if other == alpha:
            continue
        live = world.api.ok(LIVE_PATH.format(other))["data"]
        if live["split_origin"] != "approval":
            continue
        sessions = live["out_of_sample"]["sessions"]
        back = live["in_sample"]["information_ratio"]["value"]
        out = live["out_of_sample"]["information_ratio"]["value"]
        if sessions is None or sessions < MIN_LIVE or back is None or out is None or not back > 0:
            continue
        ids.append(other)
        b.append(back)
        l_.append(out)
    return ids, np.array(b), np.array(l_)


def expected_haircut(b: np.ndarray, l_: np.ndarray) -> dict[str, Any]:
    n = b.size
    if n < MIN_ALPHAS:
        rmse = float(np.sqrt(np.mean((l_ - PRIOR * b) ** 2))) if n else None
        return {"calibration": "literature", "retention": PRIOR, "se": None, "rmse": rmse}
    slope, residuals, *_ = np.linalg.lstsq(b[:, None], l_, rcond=None)
    beta = float(slope[0])
    se = math.sqrt(float(residuals[0]) / (n - 1) / float(np.sum(b**2)))
    errors = []
    for i in range(n):
        keep = np.arange(n) != i
        beta_i = float(np.linalg.lstsq(b[keep][:, None], l_[keep], rcond=None)[0][0])
        errors.append(l_[i] - beta_i * b[i])
    rmse = math.sqrt(float(np.mean(np.square(errors))))
    return {"calibration": "catalogue", "retention": beta, "se": se, "rmse": rmse}


def check_haircut(world: World, alpha: str, token: str, readable: list[str]) -> str:
    body = decay(world, alpha, token)
    data = body["data"]
    ids, b, l_ = calibration(world, alpha, readable)
    want = expected_haircut(b, l_)
    cut = data["live_haircut"]
    assert cut["calibration"] == want["calibration"], (alpha, token, ids)
    assert cut["calibration_alphas"] == len(ids), (alpha, token, ids)
    assert (cut["min_alphas"], cut["min_live_sessions"]) == (MIN_ALPHAS, MIN_LIVE)
    assert close(cut["retention"]["value"], want["retention"])
    assert close(cut["haircut"]["value"], 1 - want["retention"])
    assert close(cut["haircut_standard_error"]["value"], want["se"])
    assert close(cut["calibration_rmse"]["value"], want["rmse"])
    live = world.api.ok(LIVE_PATH.format(alpha), token)["data"]
    assert (data["split_date"], data["split_origin"]) == (live["split_date"], live["split_origin"])
    backtest = live["in_sample"]["information_ratio"]["value"]
    assert data["backtest_information_ratio"]["value"] == backtest
    expected = data["haircut_information_ratio"]["value"]
    assert close(expected, None if backtest is None or not backtest > 0 else backtest * want["retention"])
    if backtest is not None and not backtest > 0:
        assert "not positive" in data["haircut_information_ratio"]["withheld_reason"]
    return str(want["calibration"])


def test_calibration_known_answers() -> None:
    """Alphas that kept exactly half their backtest: retention 0.5, no error; one fewer than K: the
    prior, its error over them; none: no error to measure."""
    from analytics.decay import CalibrationSet, calibrate

    b = np.array([0.4, 0.8, 1.2, 1.6, 2.0])
    exact = calibrate(CalibrationSet(list("abcde"), b, 0.5 * b))
    assert (exact.calibration, exact.retention) == ("catalogue", 0.5)
    assert exact.standard_error == 0.0 and exact.rmse == 0.0
    noisy = calibrate(CalibrationSet(list("abcdef"), np.append(b, 1.0), np.append(0.5 * b, 1.1)))
    want = expected_haircut(np.append(b, 1.0), np.append(0.5 * b, 1.1))
    assert close(noisy.retention, want["retention"]) and noisy.retention > 0.5
    assert close(noisy.standard_error, want["se"]) and close(noisy.rmse, want["rmse"])
    few = calibrate(CalibrationSet(list("abcd"), b[:4], 0.5 * b[:4]))
    assert (few.calibration, few.retention, few.standard_error) == ("literature", PRIOR, None)
    assert close(few.rmse, float(np.sqrt(np.mean((0.5 * b[:4] - PRIOR * b[:4]) ** 2))))
    none = calibrate(CalibrationSet([], np.empty(0), np.empty(0)))
    assert (none.calibration, none.rmse) == ("literature", None)


def test_the_demos_haircut_is_the_literatures_over_its_live_tracks(world: World) -> None:
    """Every demo alpha approved, but only two were first published long enough before the end
    for a live quarter after their approval: too few for the catalogue's own calibration."""
    found = {alpha: check_haircut(world, alpha, "raw", ALPHAS) for alpha in ALPHAS}
    assert set(found.values()) == {"literature"}, found
    ids, *_ = calibration(world, "momentum_12_1", ALPHAS)
    assert ids == list(LIVE_TRACKS)
    # momentum_12_1's track since its approval is shorter than a quarter: not counted.
    live = world.api.ok(LIVE_PATH.format("momentum_12_1"))["data"]
    assert live["split_origin"] == "approval" and 0 < live["out_of_sample"]["sessions"] < MIN_LIVE


def test_the_demos_own_decisions_leave_the_alphas_the_guide_names(demo_lake: Path) -> None:
    """docs/analytics.md ("Decay and the expected live haircut") names the small demo's alphas with
    a live quarter after an approval under the demo's own decisions (its records): measured here
    from the served /analytics/live, and every alpha's haircut is then the literature's."""
    text = " ".join((Path(__file__).resolve().parents[2] / "docs" / "analytics.md").read_text().split())
    found = re.search(r"with a live quarter after an approval are: ((?:`\w+`(?:, )?)+) \(", text)
    assert found is not None, "the guide's sentence is gone"
    named = re.findall(r"`(\w+)`", found.group(1))
    with serving(demo_lake, CALLERS) as api:
        measured = []
        for alpha in ALPHAS:
            live = api.ok(LIVE_PATH.format(alpha))["data"]
            sessions = live["out_of_sample"]["sessions"]
            if live["split_origin"] == "approval" and sessions is not None and sessions >= MIN_LIVE:
                measured.append(alpha)
        assert sorted(named) == sorted(measured)
        assert len(measured) < MIN_ALPHAS
        for alpha in ALPHAS:
            assert api.ok(PATH.format(alpha))["data"]["live_haircut"]["calibration"] == "literature", alpha


def test_the_haircut_is_calibrated_on_the_approved_alphas(factory: World) -> None:
    alphas = list(FACTORY)
    found = {alpha: check_haircut(factory, alpha, "raw", alphas) for alpha in alphas}
    # Enough live records first seen after their approvals for the catalogue's own calibration.
    assert set(found.values()) == {"catalogue"}, found
    for alpha in alphas:
        ids, *_ = calibration(factory, alpha, alphas)
        assert ids == [a for a in alphas if a != alpha]


def test_a_key_calibrates_on_the_alphas_it_may_read_alone(factory: World) -> None:
    tests = [a for a in FACTORY if a.startswith("Test_")]
    for alpha in tests:
        # One other Test_ alpha: below K, the literature's, its RMSE over it alone.
        assert check_haircut(factory, alpha, "testonly", tests) == "literature"
        assert (
            decay(factory, alpha, "testonly")["data"]["live_haircut"]["calibration_alphas"] == len(tests) - 1
        )


def test_a_retired_alpha_still_counts(factory: World) -> None:
    """An alpha retired since its approval keeps its live record in the calibration: leaving the
    decayed ones out would flatter the haircut. Its live part ends with the last session the lake
    had first published when the retirement was recorded."""
    ids, *_ = calibration(factory, "factory_a", list(FACTORY))
    assert FACTORY_RETIRED in ids
    live = factory.api.ok(LIVE_PATH.format(FACTORY_RETIRED))["data"]["out_of_sample"]
    ended = known_split(factory.lake, FACTORY_RETIRED, recorded(factory.records, FACTORY_RETIRED, "retired"))
    assert live["last_session"] == ended.isoformat() == "2023-12-15"
    assert live["sessions"] >= MIN_LIVE


def test_without_the_ledger_the_haircut_is_withheld(world: World) -> None:
    body = decay(world, "momentum_12_1", "no_portfolio")
    data = body["data"]
    for name in ("retention", "haircut", "haircut_standard_error", "calibration_rmse"):
        assert data["live_haircut"][name]["value"] is None
        assert data["live_haircut"][name]["withheld_reason"].startswith("access_limited")
    assert (data["live_haircut"]["calibration"], data["live_haircut"]["calibration_alphas"]) == (None, 0)
    assert data["haircut_information_ratio"]["value"] is None
    assert data["backtest_information_ratio"]["value"] is None
    assert (
        data["ic_decay"]["decay_rate"]["value"]
        == decay(world, "momentum_12_1")["data"]["ic_decay"]["decay_rate"]["value"]
    )
    assert {w["block"] for w in body["meta"]["warnings"] if w["code"] == "access_limited"} == {"decay"}


def test_without_the_cross_sections_the_ic_decay_is_withheld(world: World) -> None:
    body = decay(world, "momentum_12_1", "no_signals")
    data = body["data"]
    for name in ("decay_rate", "half_life_weeks", "ic_1"):
        assert data["ic_decay"][name]["withheld_reason"].startswith("access_limited")
    assert all(p["mean_ic"] is None for p in data["ic_decay"]["term_structure"])
    full = decay(world, "momentum_12_1")["data"]
    assert data["live_haircut"] == full["live_haircut"]
    assert data["haircut_information_ratio"] == full["haircut_information_ratio"]


def test_a_split_what_if_moves_the_backtest(world: World) -> None:
    split = world.approvals["momentum_12_1"]
    data = decay(world, "momentum_12_1", split="2021-06-30")["data"]
    live = world.api.ok(LIVE_PATH.format("momentum_12_1"), split="2021-06-30")["data"]
    assert (data["split_date"], data["split_origin"]) == ("2021-06-30", "request") != (split, "approval")
    assert data["backtest_information_ratio"]["value"] == live["in_sample"]["information_ratio"]["value"]


def test_bad_input_is_a_400_naming_the_parameter(world: World) -> None:
    for params in ({"split": "yesterday"}, {"book": "nope"}):
        response = world.api.get(PATH.format("momentum_12_1"), **params)
        assert response.status_code == 400, response.text
        assert next(iter(params)) in response.text


def test_a_notebook_gets_the_same_figures(world: World) -> None:
    from analytics.figures import Figures
    from pipeline.operator_decisions import standings_of
    from records.store import open_records

    held = open_records(world.records)
    try:
        figures = Figures.open(str(world.lake), standings_of(held))
    finally:
        held.close()
    try:
        for alpha in ("momentum_12_1", "Test_planted_factor"):
            found = figures.decay(alpha)
            assert found.split_date == dt.date.fromisoformat(world.approvals[alpha])
            assert msgspec.json.decode(msgspec.json.encode(found)) == decay(world, alpha)["data"]
    finally:
        figures.reader.close()
