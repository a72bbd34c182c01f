"""Decay and the expected live haircut (`/analytics/decay`; issue 50, item 7).

Over a copy of the demo lake on which an operator approved every alpha with the real command line
(`alpha-results promote`, each at a date with a positive backtest and a live quarter where one
exists; one retired since): the IC's decay is refitted by scipy's `curve_fit` (another optimiser)
to the term structure read from the build's `weekly_term.parquet` with pandas; the haircut is
recomputed from the served `/analytics/live` of every other approved alpha the key may read
(numpy's `lstsq`, a loop for leave-one-out) within 1e-9, for a key reading every alpha (the
catalogue's calibration) and one reading Test_ alphas alone (too few: the literature's, counted
over its alphas alone); the figures withheld from a key without the ledger or the cross-sections.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import io
import math
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pandas as pd
import pytest
from litestar.testing import TestClient
from scipy.optimize import curve_fit

from analytics.decay import fit_decay
from cli.main import main as cli
from tests.analytics.conftest import ALPHAS, CALLERS, Api
from tests.analytics.reference import Lake
from tests.callers import authenticator_for

PATH = "/v1/alphas/{}/analytics/decay"
LIVE_PATH = "/v1/alphas/{}/analytics/live"
TOLERANCE = 1e-9
MIN_LIVE = 63  # M
MIN_ALPHAS = 5  # K
PRIOR = 0.74  # 1 - McLean and Pontiff's 26%
HORIZONS = (1, 2, 4, 8)
RETIRED = "Test_small_universe"


@dataclass(frozen=True)
class World:
    api: Api
    lake: Path
    approvals: dict[str, str]


def run_cli(*argv: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli(list(argv)) == 0, argv


def ir(r: pd.Series) -> float | None:
    sd = r.std(ddof=1)
    return None if len(r) < 2 or not sd > 0 else float(r.mean() / sd * math.sqrt(252))


def approval_date(api: Api, alpha: str, rng: random.Random) -> str:
    """A date with a positive backtest information ratio and a live quarter after it, where one is."""
    rows = api.all_rows(f"/v1/alphas/{alpha}/portfolio", book="long_short")
    frame = pd.DataFrame(rows)
    r = frame["ending_equity"] / frame["starting_equity"] - 1.0
    cuts = range(60, len(frame) - MIN_LIVE - 5)
    good = [c for c in cuts if (ir(r.iloc[: c + 1]) or 0.0) > 0]
    return str(frame["date"].iloc[rng.choice(good or list(cuts))])


@pytest.fixture(scope="module")
def world(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory, api: Api) -> Iterator[World]:
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    folder = tmp_path_factory.mktemp("decay")
    lake = Path(shutil.copytree(demo_lake, folder / "lake"))
    records = f"sqlite:///{folder / 'records.sqlite3'}"
    rng = random.Random("decay")
    approvals = {alpha: approval_date(api, alpha, rng) for alpha in ALPHAS}
    where = ("--lake", str(lake), "--keystore", records, "--policy", "", "--by", "head of research")
    for alpha, as_of in approvals.items():
        run_cli("promote", alpha, "--as-of", as_of, *where, "--note", "live", "--override", "a test")
    # Retired since: its live record still counts (no survivorship).
    last = api.all_rows(f"/v1/alphas/{RETIRED}/portfolio", book="long_short")[-3]["date"]
    run_cli("retire", RETIRED, "--as-of", last, *where, "--note", "decayed")
    app = create_app(
        Settings(lake=str(lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(records),
    )
    with TestClient(app=app) as client:
        yield World(Api(client), lake, approvals)


def close(a: float | None, b: float | None, tol: float = TOLERANCE) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def decay(world: World, alpha: str, token: str = "raw", **params: Any) -> dict[str, Any]:
    return world.api.ok(PATH.format(alpha), token, **params)


# -- the IC's decay ------------------------------------------------------------------------------


def term_means(lake: Path, alpha: str) -> dict[int, float] | None:
    """Mean IC by horizon over the whole history, read with pandas from the build's parquet."""
    path = Lake(lake).build(alpha) / "weekly_term.parquet"
    if not path.exists():
        return None
    frame = pd.read_parquet(path)
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
    cut = data["haircut"]
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
    expected = data["expected_live_information_ratio"]["value"]
    assert close(expected, None if backtest is None or not backtest > 0 else backtest * want["retention"])
    if backtest is not None and not backtest > 0:
        assert "not positive" in data["expected_live_information_ratio"]["withheld_reason"]
    return str(want["calibration"])


def test_calibration_known_answers() -> None:
    """Alphas that kept exactly half their backtest: retention 0.5, no error; one fewer than K: the
    prior, its error over them; none: no error to measure."""
    from analytics.decay import Records, calibrate

    b = np.array([0.4, 0.8, 1.2, 1.6, 2.0])
    exact = calibrate(Records(list("abcde"), b, 0.5 * b))
    assert (exact.calibration, exact.retention) == ("catalogue", 0.5)
    assert exact.standard_error == 0.0 and exact.rmse == 0.0
    noisy = calibrate(Records(list("abcdef"), np.append(b, 1.0), np.append(0.5 * b, 1.1)))
    want = expected_haircut(np.append(b, 1.0), np.append(0.5 * b, 1.1))
    assert close(noisy.retention, want["retention"]) and noisy.retention > 0.5
    assert close(noisy.standard_error, want["se"]) and close(noisy.rmse, want["rmse"])
    few = calibrate(Records(list("abcd"), b[:4], 0.5 * b[:4]))
    assert (few.calibration, few.retention, few.standard_error) == ("literature", PRIOR, None)
    assert close(few.rmse, float(np.sqrt(np.mean((0.5 * b[:4] - PRIOR * b[:4]) ** 2))))
    none = calibrate(Records([], np.empty(0), np.empty(0)))
    assert (none.calibration, none.rmse) == ("literature", None)


def test_the_haircut_is_calibrated_on_the_approved_alphas(world: World) -> None:
    found = {alpha: check_haircut(world, alpha, "raw", ALPHAS) for alpha in ALPHAS}
    # The demo's approvals give the catalogue enough live records for its own calibration.
    assert "catalogue" in found.values(), found


def test_a_key_calibrates_on_the_alphas_it_may_read_alone(world: World) -> None:
    tests = [a for a in ALPHAS if a.startswith("Test_")]
    for alpha in tests:
        # Four other Test_ alphas at most: below K, the literature's, its RMSE over them alone.
        assert check_haircut(world, alpha, "testonly", tests) == "literature"
    counted = decay(world, tests[0], "testonly")["data"]["haircut"]["calibration_alphas"]
    assert counted <= len(tests) - 1


def test_a_retired_alpha_still_counts(world: World) -> None:
    """An alpha retired since its approval keeps its live record in the calibration: leaving the
    decayed ones out would flatter the haircut."""
    ids, *_ = calibration(world, "momentum_12_1", ALPHAS)
    live = world.api.ok(LIVE_PATH.format(RETIRED))["data"]
    if live["decay_ratio"]["value"] is not None:
        assert RETIRED in ids


def test_without_the_ledger_the_haircut_is_withheld(world: World) -> None:
    body = decay(world, "momentum_12_1", "no_portfolio")
    data = body["data"]
    for name in ("retention", "haircut", "haircut_standard_error", "calibration_rmse"):
        assert data["haircut"][name]["value"] is None
        assert data["haircut"][name]["withheld_reason"].startswith("access_limited")
    assert (data["haircut"]["calibration"], data["haircut"]["calibration_alphas"]) == (None, 0)
    assert data["expected_live_information_ratio"]["value"] is None
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
    assert data["haircut"] == full["haircut"]
    assert data["expected_live_information_ratio"] == full["expected_live_information_ratio"]


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

    figures = Figures.open(str(world.lake))
    for alpha in ("momentum_12_1", "Test_planted_factor"):
        found = figures.decay(alpha, approved=dt.date.fromisoformat(world.approvals[alpha]))
        assert msgspec.json.decode(msgspec.json.encode(found)) == decay(world, alpha)["data"]
