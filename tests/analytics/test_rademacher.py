"""The Rademacher anti-serum (analytics/rademacher.py, pipeline/catalogue_bound.py and
/analytics/significance's catalogue_bound): the complexity against its known answers (identical
columns: sqrt(2 / (pi T)); N independent normal columns: E max_n |Z_n| / sqrt(T), integrated with
scipy, close to sqrt(2 ln N / T)), against a plain loop over the draws and the columns, the bounds
against the formulas written out from Paleologo (2024), and the served block against the demo
lake's generation recomputed here."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import integrate, stats

from analytics import rademacher
from datasets import catalogue_index
from pipeline import catalogue_bound
from tests.analytics.conftest import Api
from tests.analytics.helpers import check_withheld, close

PATH = "/v1/alphas/{alpha}/analytics/catalogue_bound"


def plain_sum(rows: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Per draw, max over the rows of |sum over the finite dates of eps_t x_t| (float64, loops)."""
    out = np.zeros(eps.shape[0])
    for d in range(eps.shape[0]):
        best = 0.0
        for row in rows:
            total = 0.0
            for t, value in enumerate(row):
                if math.isfinite(value):
                    total += float(eps[d, t]) * float(value)
            best = max(best, abs(total))
        out[d] = best
    return out


def test_signs_are_balanced_and_seeded() -> None:
    eps = rademacher.signs(2000, 300)
    assert set(np.unique(eps).tolist()) == {-1.0, 1.0}
    assert abs(float(eps.mean())) < 0.01
    assert np.array_equal(eps, rademacher.signs(2000, 300))
    assert not np.array_equal(eps, rademacher.signs(2000, 300, seed=1))


@pytest.mark.parametrize("dates", [52, 260, 1000])
def test_identical_columns_have_the_complexity_of_one(dates: int) -> None:
    """N copies of one unit-variance column: R = E|eps'x| / T = sqrt(2 / (pi T)) (x'x = T)."""
    rng = np.random.default_rng(dates)
    x = rng.standard_normal(dates)
    x = (x - x.mean()) / x.std(ddof=0)  # x'x = T exactly
    found = rademacher.complexity(np.tile(x, (40, 1)), draws=8000)
    expected = math.sqrt(2.0 / (math.pi * dates))
    assert abs(found.value - expected) < 4 * found.standard_error, (found, expected)
    assert found.columns == 40 and found.dates == dates


def expected_max_abs_normal(n: int) -> float:
    """E max of n independent |N(0, 1)|: the integral of P(max > z) = 1 - (2 Phi(z) - 1)^n."""
    value, _ = integrate.quad(lambda z: 1.0 - (2.0 * stats.norm.cdf(z) - 1.0) ** n, 0.0, np.inf)
    return float(value)


@pytest.mark.parametrize("columns", [10, 300, 3000])
def test_independent_columns_approach_massart(columns: int) -> None:
    """N independent normal columns: eps'x_n / sqrt(T) are N independent N(0, 1), so R = E max |Z_n|
    / sqrt(T) (scipy's integral), below Massart's sqrt(2 ln(2N) / T) and close to sqrt(2 ln N / T)."""
    dates = 400
    rows = np.random.default_rng(columns).standard_normal((columns, dates))
    found = rademacher.complexity(rows, draws=1000)
    exact = expected_max_abs_normal(columns) / math.sqrt(dates)
    # The Monte Carlo error and that of one matrix x among all (its columns' norms are not exactly T)
    assert abs(found.value - exact) < 4 * found.standard_error + 0.02 * exact, (found, exact)
    assert found.value < math.sqrt(2 * math.log(2 * columns) / dates)
    assert 0.75 < found.value / math.sqrt(2 * math.log(columns) / dates) < 1.05


def test_the_complexity_is_the_plain_loop_missing_dates_zero() -> None:
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((9, 60))
    rows[rng.random(rows.shape) < 0.2] = np.nan
    rows[3] = np.nan  # a column with no value is no strategy
    draws = 64
    found = rademacher.complexity(rows, draws=draws, dates=75)
    sums = plain_sum(rows, rademacher.signs(draws, 60))
    assert close(found.value, float(sums.mean() / 75), 1e-5)
    assert close(found.standard_error, float(sums.std(ddof=1) / 75 / math.sqrt(draws)), 1e-4)
    assert found.columns == 8 and found.dates == 75


def test_chunks_do_not_change_the_complexity(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = np.random.default_rng(2).standard_normal((50, 30))
    whole = rademacher.complexity(rows, draws=32)
    monkeypatch.setattr(rademacher, "CHUNK", 7)
    assert rademacher.complexity(rows, draws=32) == whole


def test_a_subset_has_no_more_complexity() -> None:
    """The sup over fewer columns, the same draws: the catalogue's R bounds any key's subset's."""
    rows = np.random.default_rng(3).standard_normal((40, 100))
    every = rademacher.complexity(rows)
    for subset in (rows[:5], rows[::3], rows[[7]]):
        assert rademacher.complexity(subset).value <= every.value


def test_unit_variance_is_ddof_1_over_the_finite_values() -> None:
    rows = np.array([[1.0, 2.0, np.nan, 4.0], [1.0, 1.0, 1.0, np.nan], [np.nan, 2.0, 3.0, np.nan]])
    found = rademacher.unit_variance(rows)
    first = np.array([1.0, 2.0, 4.0])
    assert np.allclose(found[0, [0, 1, 3]], first / np.std(first, ddof=1))
    assert np.isnan(found[0, 2])
    assert np.isnan(found[1]).all()  # no variance
    assert np.isnan(found[2]).all()  # fewer than 3 values


@pytest.mark.parametrize(
    ("theta", "r_hat", "dates", "columns", "delta"),
    [(0.1, 0.05, 252, 100, 0.05), (0.02, 0.01, 1000, 5, 0.01)],
)
def test_the_bounds_are_paleologo_s_procedures(
    theta: float, r_hat: float, dates: int, columns: int, delta: float
) -> None:
    bounded = theta - 2 * r_hat - 3 * math.sqrt(2 * math.log(2 / delta) / dates)
    sub_gaussian = bounded - math.sqrt(2 * math.log(2 * columns / delta) / dates)
    assert close(rademacher.ic_bound(theta, r_hat, dates, delta), bounded, 1e-14)
    assert close(rademacher.sharpe_bound(theta, r_hat, dates, columns, delta), sub_gaussian, 1e-14)


def test_a_delta_generation_s_complexity_bounds_the_union() -> None:
    """base + delta rows' S >= S over the union (and over the union less replaced rows)."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal((30, 80))
    extra = rng.standard_normal((4, 80)) * 2
    whole = catalogue_bound.whole({"returns": base, "ic": np.tanh(base)})
    delta = catalogue_bound.delta(whole, {"returns": extra, "ic": np.tanh(extra)})
    assert delta is not None
    union = catalogue_bound.whole(
        {"returns": np.vstack([base[4:], extra]), "ic": np.tanh(np.vstack([base[4:], extra]))}
    )
    for basis in catalogue_bound.BASES:
        kept = delta[basis]["base"][0] + delta[basis]["delta"][0]
        assert kept >= union[basis]["base"][0]
        assert delta[basis]["base"][2] + delta[basis]["delta"][2] == 34
    assert catalogue_bound.delta(None, {"returns": extra}) is None
    assert catalogue_bound.delta({**whole, "draws": 1}, {"returns": extra}) is None


# -- the served block against the demo lake's generation ----------------------------------------


def newest_generation(root: Path) -> dict[str, Any]:
    folder = root / "catalogue" / "generations"
    return json.loads(max(folder.iterdir()).read_text())


def stored_part(basis: str, rows: np.ndarray | None) -> list[float]:
    """[S, se, N] recomputed with the plain loop."""
    if rows is None or rows.size == 0:
        return [0.0, 0.0, 0]
    x = rademacher.unit_variance(rows) if basis == "returns" else np.clip(rows, -1.0, 1.0)
    held = x[np.isfinite(x).any(axis=1)]
    if held.shape[0] == 0:
        return [0.0, 0.0, 0]
    sums = plain_sum(held, rademacher.signs(rademacher.DRAWS, x.shape[1]))
    return [float(sums.mean()), float(sums.std(ddof=1) / math.sqrt(rademacher.DRAWS)), held.shape[0]]


def test_the_generation_records_the_complexity_of_its_rows(demo_lake: Path) -> None:
    document = newest_generation(demo_lake)
    ras = document["trials"]["ras"]
    assert ras["draws"] == rademacher.DRAWS and ras["seed"] == rademacher.SEED
    base = json.loads(
        (
            demo_lake
            / "catalogue"
            / "generations"
            / f"{document['delta']['base'] if document.get('delta') else document['generation']:012d}.json"
        ).read_text()
    )
    folder = demo_lake / "catalogue"
    for basis in catalogue_bound.BASES:
        base_rows = np.load(folder / base["matrices"][basis])
        expected = stored_part(basis, base_rows)
        for got, want in zip(ras[basis]["base"], expected, strict=True):
            assert close(got, want, 1e-5), (basis, ras[basis], expected)
        if document.get("delta"):
            own = np.load(folder / document["delta"]["matrices"][basis])
            for got, want in zip(ras[basis]["delta"], stored_part(basis, own), strict=True):
                assert close(got, want, 1e-5), (basis, "delta")


def readable_matrices(demo_lake: Path) -> tuple[list[str], dict[str, np.ndarray]]:
    """The newest generation's alpha ids (index order) and its returns and IC matrices."""
    from alpha_results_seal.storage import Storage

    root = str(demo_lake)
    generation = catalogue_index.newest(Storage(root), root)
    assert generation is not None
    index = catalogue_index.read_index(Storage(root), root, generation)
    ids = index.column("alpha_id").to_pylist()
    matrices = {
        name: np.asarray(catalogue_index.read_matrix(Storage(root), root, generation, name), dtype=np.float64)
        for name in ("returns", "ic")
    }
    return ids, matrices


def expected_block(
    ids: list[str], matrices: dict[str, np.ndarray], readable: list[str], alpha: str
) -> dict[str, Any]:
    """The anti-serum over the `readable` alphas' rows, by the plain loop: R, its error and N over
    the dates one of them has a value on (T), and `alpha`'s observed value and bound there."""
    out: dict[str, Any] = {}
    for basis, name, side in (("returns", "sharpe", "ras_sessions"), ("ic", "ic", "ras_weeks")):
        rows = matrices[basis][[ids.index(a) for a in readable]]
        dates = np.isfinite(rows).any(axis=0)
        t = int(dates.sum())
        s, error, n = stored_part(basis, rows[:, dates])
        out[side] = t
        out[f"ras_{name}_complexity"], out[f"ras_{name}_complexity_error"] = s / t, error / t
        out[f"ras_{name}_alphas"] = n
        row = matrices[basis][ids.index(alpha)][dates]
        finite = row[np.isfinite(row)]
        if basis == "returns":
            if finite.size < 3 or np.std(finite, ddof=1) == 0:
                out["ras_sharpe_observed"] = out["ras_sharpe_lower_bound"] = None
                continue
            theta = float(np.sum(finite / np.std(finite, ddof=1)) / t)
            low = (
                theta - 2 * s / t - 3 * math.sqrt(2 * math.log(40) / t) - math.sqrt(2 * math.log(40 * n) / t)
            )
        else:
            if finite.size == 0:
                out["ras_ic_observed"] = out["ras_ic_lower_bound"] = None
                continue
            theta = float(np.sum(np.clip(finite, -1, 1)) / t)
            low = theta - 2 * s / t - 3 * math.sqrt(2 * math.log(40) / t)
        out[f"ras_{name}_observed"], out[f"ras_{name}_lower_bound"] = theta, low
    return out


def check_block(block: dict[str, Any], expected: dict[str, Any]) -> None:
    for key, want in expected.items():
        got = block[key]["value"] if isinstance(block[key], dict) else block[key]
        if want is None or isinstance(want, int):
            assert got == want, (key, got, want)
        else:
            assert close(got, want, 1e-9), (key, got, want)


def test_the_served_bound_is_the_formula_over_the_readable_alphas(api: Api, demo_lake: Path) -> None:
    """Issue 81, item 7 (a): the complexity is computed exactly over the rows of the alphas the key
    may read (not a delta generation's stored upper bound over every published alpha)."""
    ids, matrices = readable_matrices(demo_lake)
    for alpha in ids:
        block = api.ok(PATH.format(alpha=alpha), "raw")["data"]
        assert block["alpha"] == alpha and "ras_generation" not in block
        assert block["ras_confidence"] == 0.95 and block["ras_draws"] == rademacher.DRAWS
        check_block(block, expected_block(ids, matrices, ids, alpha))


def test_the_complexity_is_over_the_alphas_the_key_may_read(api: Api, demo_lake: Path) -> None:
    """A key of the Test_ alphas is answered the complexity of their rows, T their dates, N their
    count: nothing of an alpha it may not read (issue 81, item 7: it moved with their publishes)."""
    ids, matrices = readable_matrices(demo_lake)
    tests = [a for a in ids if a.startswith("Test_")]
    path = PATH.format(alpha="Test_planted_factor")
    raw, testonly = api.ok(path, "raw")["data"], api.ok(path, "testonly")["data"]
    assert raw["ras_sharpe_alphas"] > testonly["ras_sharpe_alphas"]
    check_block(testonly, expected_block(ids, matrices, tests, "Test_planted_factor"))
    one = api.ok(PATH.format(alpha="momentum_12_1"), "momentum_only")["data"]
    check_block(one, expected_block(ids, matrices, ["momentum_12_1"], "momentum_12_1"))
    assert one["ras_sharpe_alphas"] == 1


@pytest.mark.parametrize(
    ("token", "data", "side"), [("no_portfolio", "ledger", "sharpe"), ("no_signals", "cross_sections", "ic")]
)
def test_each_side_is_withheld_without_its_data(api: Api, token: str, data: str, side: str) -> None:
    """The alpha's figures and the catalogue's complexity of a side are built from every alpha's
    ledger (returns) or cross-sections (IC): withheld from a key that may not read them, as the
    DSR's trial variance is; the other side served as to any key."""
    path = PATH.format(alpha="momentum_12_1")
    full = api.ok(path, "plain")["data"]
    body = api.ok(path, token)
    found = body["data"]
    assert [w["block"] for w in body["meta"].get("warnings", []) if w["code"] == "access_limited"] == [
        "catalogue_bound"
    ]
    for name in (f"ras_{side}_observed", f"ras_{side}_lower_bound"):
        check_withheld(found[name], name)
    counts = (f"ras_{side}_complexity", f"ras_{side}_complexity_error", f"ras_{side}_alphas")
    dates = "ras_sessions" if side == "sharpe" else "ras_weeks"
    for name in (*counts, dates):
        assert found[name] is None and full[name] is not None, name
    mine = (f"ras_{side}_observed", f"ras_{side}_lower_bound", *counts, dates)
    assert {k: v for k, v in found.items() if k not in mine} == {
        k: v for k, v in full.items() if k not in mine
    }
