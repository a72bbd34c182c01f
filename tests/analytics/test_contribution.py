"""/v1/alphas/{alpha}/analytics/contribution through the API: the before and after books, their
figures and change, the correlations to the set and the optimal weight recomputed independently
(pandas/numpy; the weight against scipy.optimize), on random alphas, sets and windows; the
production default (only what the key may read), the set's rules and the ledger access."""

from __future__ import annotations

import json
import math
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from analytics.sets import NO_APPROVED
from core.context import AllowList
from tests.analytics.conftest import (
    ALPHAS,
    CALLERS,
    PRODUCTION,
    Api,
    Window,
    random_windows,
    serving,
    window_params,
)
from tests.analytics.helpers import check_stat, close
from tests.analytics.reference import Lake
from tests.callers import make_caller
from tests.support.combine_figures import GENERIC_META, book_figures, common_returns, metrics_turnover
from tests.support.contribution_check import (
    MIN_SESSIONS,
    best_weight,
    check_contribution,
    ledger_risk_free,
    path,
)
from tests.support.doc_paths import paths

YEAR = 252
RESTRICTED = ("momentum_12_1", "Test_planted_factor", "Test_small_universe", "Test_ledger_only")


@pytest.fixture(scope="module")
def restricted_api(demo_lake: Path) -> Iterator[Api]:
    """`restricted` reads one production alpha of the two, and three Test_ ones."""
    allowed = AllowList.of_ids(RESTRICTED)
    callers = {**CALLERS, "restricted": make_caller(alphas=allowed, runs=allowed)}
    with serving(demo_lake, callers) as found:
        yield found


def assert_same_answer(served: Any, expected: Any, where: str = "data") -> None:
    """Two bodies equal, floats to the tests' relative tolerance (the matrix products over a
    different number of members may differ in the last bits)."""
    if isinstance(expected, dict):
        assert isinstance(served, dict) and served.keys() == expected.keys(), where
        for key, value in expected.items():
            assert_same_answer(served[key], value, f"{where}.{key}")
    elif isinstance(expected, float) or isinstance(served, float):
        assert close(served, expected), (where, served, expected)
    else:
        assert served == expected, (where, served, expected)


def without_reference(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "reference"}


def test_random_alphas_sets_windows_and_weights(api: Api, lake: Lake) -> None:
    rng = random.Random("contribution")
    for window in random_windows("contribution", 4):
        for weight in (None, round(rng.uniform(0, 1), 4)):
            alpha = rng.choice(ALPHAS)
            others = [a for a in ALPHAS if a != alpha]
            reference = rng.sample(others, rng.randint(1, len(others)))
            check_contribution(api, lake, alpha, reference, window, weight)


@pytest.mark.parametrize("alpha", ["Test_planted_factor", "Test_short_term_reversal", "Test_ledger_only"])
def test_the_production_default(api: Api, lake: Lake, alpha: str) -> None:
    check_contribution(api, lake, alpha, list(PRODUCTION), (None, None), None, given=False)
    data = api.ok(path(alpha))["data"]
    assert data["reference"] == {
        "source": "production",
        "origin": "approved",  # the demo's production alphas, approved by their seal
        "alphas": list(PRODUCTION),
        "count": 2,
        "alpha_excluded": False,
        "members_in_window": 2,
        "without_returns": {"count": 0, "alphas": []},
    }


SHORT = "Test_short_term_reversal"  # its ledger starts 2021-08-06, seven months after the others'


def test_a_member_with_a_shorter_history_no_longer_shrinks_the_answer(api: Api, lake: Lake) -> None:
    """The reference book grows: before the short member's first session the book is the other
    member alone, after it both; the answer spans the alpha's whole history."""
    whole = lake.returns("Test_planted_factor", "long_short", (None, None))
    short = lake.returns(SHORT, "long_short", (None, None))
    assert len(short) < len(whole) - MIN_SESSIONS  # the demo still has the shorter history
    data = check_contribution(api, lake, "Test_planted_factor", ["momentum_12_1", SHORT], (None, None), 0.3)
    assert data["sessions"] == len(whole) > len(short)
    assert data["reference"]["members_in_window"] == 2 and data["reference"]["without_returns"]["count"] == 0
    assert data["mean_correlation_to_member"]["members"] == 2


def test_a_member_without_a_return_in_the_window_is_said_and_left_out(api: Api, lake: Lake) -> None:
    """A window before the short member's history: the book is the other member alone, exactly
    the answer naming it alone, and the body names the member it could not hold."""
    window: Window = (None, "2021-07-30")
    reference = ["momentum_12_1", SHORT, "value_composite_legacy"]
    data = check_contribution(api, lake, "Test_planted_factor", reference, window, None)
    assert data["reference"]["count"] == 3 and data["reference"]["members_in_window"] == 2
    assert data["reference"]["without_returns"] == {"count": 1, "alphas": [SHORT]}
    assert data["mean_correlation_to_member"]["members"] == 2
    params: dict[str, Any] = {**window_params(window), "reference": "momentum_12_1,value_composite_legacy"}
    alone = api.ok(path("Test_planted_factor"), **params)["data"]
    assert alone["reference"]["without_returns"] == {"count": 0, "alphas": []}
    assert_same_answer(without_reference(data), without_reference(alone))
    # The short alpha as the path alpha over that window has no return: 400 naming the window.
    response = api.get(path(SHORT), **{**params, "reference": "momentum_12_1"})
    assert response.status_code == 400
    assert [p["name"] for p in response.json()["error"]["details"]["parameters"]] == ["to"]


def blank_catalogue_row(root: Path, alpha: str) -> None:
    """Rewrite the newest catalogue generation's returns and risk_free rows of `alpha` as NaN: the
    catalogue of an alpha whose build has no long_short ledger. The demo's history publishes run by
    run, so its newest generation is a delta over a base (docs/lake.md, "Delta generations"): the
    alpha's row is blanked in each of the two that holds it."""
    generation = json.loads((root / "catalogue" / "latest.json").read_text())["generation"]
    described = json.loads((root / "catalogue" / "generations" / f"{generation:012d}.json").read_text())
    blanked = 0
    for part in (described, described.get("delta")):
        if part is None:
            continue
        ids = pq.read_table(root / "catalogue" / part["index"], columns=["alpha_id"]).column("alpha_id")
        if alpha not in ids.to_pylist():
            continue
        row = ids.to_pylist().index(alpha)
        for basis in ("returns", "risk_free"):
            file = root / "catalogue" / part["matrices"][basis]
            values = np.load(file)
            values[row] = np.nan
            np.save(file, values)
        blanked += 1
    assert blanked, f"{alpha} is in no index of generation {generation}"


@pytest.fixture(scope="module")
def blank_api(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """The demo lake whose catalogue holds no return of Test_ledger_only."""
    root = tmp_path_factory.mktemp("blank") / "lake"
    shutil.copytree(demo_lake, root)  # not linked: the row is blanked in the matrices' files in place
    blank_catalogue_row(root, "Test_ledger_only")
    with serving(root, CALLERS) as found:
        yield found


def test_a_member_without_any_return_is_no_longer_a_400(blank_api: Api, lake: Lake) -> None:
    """A reference alpha the catalogue holds no return of is a member that never trades: named in
    without_returns, the figures those of the other members (recomputed from their ledgers)."""
    checked = 0
    for window in random_windows("contribution-blank", 2):
        named = ["momentum_12_1", "Test_ledger_only", "Test_small_universe"]
        others = ["momentum_12_1", "Test_small_universe"]
        alone = check_contribution(blank_api, lake, "Test_planted_factor", others, window, 0.4)
        if not alone:
            continue
        params: dict[str, Any] = {**window_params(window), "weight": 0.4, "reference": ",".join(named)}
        response = blank_api.get(path("Test_planted_factor"), **params)
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        assert data["reference"]["alphas"] == named and data["reference"]["count"] == 3
        assert data["reference"]["members_in_window"] == 2
        assert data["reference"]["without_returns"] == {"count": 1, "alphas": ["Test_ledger_only"]}
        assert_same_answer(without_reference(data), without_reference(alone))
        checked += 1
    assert checked  # the whole history at least
    # The path alpha without any return stays a 400, naming it.
    response = blank_api.get(path("Test_ledger_only"), reference="momentum_12_1")
    assert response.status_code == 400
    assert [p["name"] for p in response.json()["error"]["details"]["parameters"]] == ["alpha"]


def test_a_production_alpha_is_left_out_of_its_own_default(api: Api, lake: Lake) -> None:
    check_contribution(
        api, lake, "momentum_12_1", ["value_composite_legacy"], (None, None), 0.25, given=False
    )
    reference = api.ok(path("momentum_12_1"))["data"]["reference"]
    assert reference["alphas"] == ["value_composite_legacy"] and reference["alpha_excluded"] is True


def test_the_alpha_named_in_its_own_reference_is_left_out_and_said_so(api: Api, lake: Lake) -> None:
    params: dict[str, Any] = {
        "reference": "Test_planted_factor,momentum_12_1,value_composite_legacy",
        "weight": 0.3,
    }
    data = api.ok(path("Test_planted_factor"), **params)["data"]
    assert data["reference"]["alphas"] == list(PRODUCTION) and data["reference"]["alpha_excluded"] is True
    assert data == api.ok(
        path("Test_planted_factor"), weight=0.3, reference="momentum_12_1,value_composite_legacy"
    )["data"] | {"reference": data["reference"]}
    response = api.get(path("Test_planted_factor"), reference="Test_planted_factor")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["parameters"][0]["name"] == "reference"


def test_a_restricted_key_gets_only_the_production_alphas_it_may_read(
    restricted_api: Api, lake: Lake
) -> None:
    for alpha in ("Test_planted_factor", "Test_small_universe"):
        check_contribution(
            restricted_api, lake, alpha, ["momentum_12_1"], (None, None), None, "restricted", given=False
        )
        data = restricted_api.ok(path(alpha), "restricted")["data"]
        assert data["reference"]["alphas"] == ["momentum_12_1"]
        assert "value_composite_legacy" not in repr(data)
    # Its only production alpha has no other to compare with: 400 asking for reference.
    response = restricted_api.get(path("momentum_12_1"), "restricted")
    assert response.status_code == 400
    assert response.json()["error"]["details"]["parameters"][0]["name"] == "reference"
    # A key reading no production alpha at all: the same 400, saying why the default set is empty.
    response = restricted_api.get(path("Test_planted_factor"), "testonly")
    assert response.status_code == 400 and "reference" in response.text
    assert NO_APPROVED in response.json()["error"]["details"]["parameters"][0]["rule"]


@pytest.mark.parametrize("other", ["value_composite_legacy", "prod_no_such_alpha"])
def test_a_reference_the_key_may_not_read_is_403_whether_it_exists_or_not(
    restricted_api: Api, other: str
) -> None:
    response = restricted_api.get(
        path("Test_planted_factor"), "restricted", reference=f"momentum_12_1,{other}"
    )
    assert response.status_code == 403, response.text
    assert response.json()["error"]["details"] == {"alpha": other, "parameter": "reference"}


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"reference": "momentum_12_1,momentum_12_1"}, "reference"),
        ({"reference": ",".join(f"Test_a{i}" for i in range(51))}, "reference"),
        ({"reference": "Test_no_such_alpha"}, "reference"),
        ({"reference": "momentum_12_1", "weight": "1.5"}, "weight"),
        ({"reference": "momentum_12_1", "from": "2022-03-01"}, "from"),
    ],
)
def test_bad_parameters_are_400_naming_them(api: Api, params: dict[str, Any], named: str) -> None:
    response = api.get(path("Test_planted_factor"), **params)
    assert response.status_code == 400, response.text
    assert [p["name"] for p in response.json()["error"]["details"]["parameters"]] == [named]


def test_the_alpha_itself_is_authorised_first(api: Api) -> None:
    assert api.get(path("momentum_12_1"), "testonly").json()["error"]["code"] == "run_not_allowed"
    assert api.get(path("Test_no_such_alpha")).status_code == 404


def test_a_key_without_the_ledger_is_403_naming_the_route(api: Api) -> None:
    response = api.get(path("Test_planted_factor"), "no_portfolio")
    assert response.status_code == 403
    assert response.json()["error"]["details"]["endpoint"] == "portfolio.ledger"


def test_every_served_path_is_documented(api: Api) -> None:
    fields = api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]
    served: set[str] = {"contribution"}
    for alpha in ("Test_planted_factor", "momentum_12_1"):
        cases: list[dict[str, Any]] = [
            {},
            {"weight": 0.4, "reference": "Test_small_universe,Test_ledger_only"},
            {"reference": "Test_small_universe,Test_ledger_only", "weighting": "given", "weights": "0.6,0.4"},
            {"reference": "Test_small_universe,Test_ledger_only", "weighting": "max_ir"},
        ]
        for params in cases:
            body = api.ok(path(alpha), **params)
            served |= paths(body["data"], "contribution")
            assert set(body["meta"]) - GENERIC_META <= {"run", "alpha_id", "source_alpha_id"}
    assert "contribution.max_correlation_to_member.alpha" in served
    assert {
        "contribution.reference.combination.shrinkage.source",
        "contribution.after.turnover.approximation",
    } <= served
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented


def test_etag_changes_with_the_set(api: Api) -> None:
    first = api.get(path("Test_planted_factor"), reference="momentum_12_1")
    assert (
        api.get(
            path("Test_planted_factor"),
            headers={"If-None-Match": first.headers["etag"]},
            reference="momentum_12_1",
        ).status_code
        == 304
    )
    assert (
        api.get(path("Test_planted_factor"), reference="value_composite_legacy").headers["etag"]
        != first.headers["etag"]
    )


def test_the_optimal_weight_on_planted_series_is_the_tangency_weight(api: Api, lake: Lake) -> None:
    """Guards the reference itself: for two uncorrelated series the tangency weight is
    (mu_a / var_a) / (mu_a / var_a + mu_b / var_b)."""
    rng = np.random.default_rng(11)
    before = pd.Series(rng.normal(0.001, 0.01, 5000))
    alpha = pd.Series(rng.normal(0.001, 0.02, 5000))
    alpha = alpha - before * (alpha.cov(before) / before.var())  # exactly uncorrelated in sample
    ka, kb = alpha.mean() / alpha.var(), before.mean() / before.var()
    assert math.isclose(best_weight(before, alpha), ka / (ka + kb), abs_tol=1e-6)


# -- a weighted reference set: the combination the user built -------------------------------------

COMBINATION = ["momentum_12_1", "Test_small_universe", "value_composite_legacy"]
COMBINE = "/v1/analytics/combine"
WEIGHTINGS: list[dict[str, Any]] = [
    {"weighting": "given", "weights": "0.5,0.3,0.2"},
    {"weighting": "given", "weights": "0.7,-0.2,0.4"},
    {"weighting": "equal"},
    {"weighting": "inverse_volatility"},
    {"weighting": "max_ir"},
    {"weighting": "max_ir", "shrinkage": 0.35},
    {"weighting": "max_ir", "fit_to": "2021-06-30"},
    {"weighting": "inverse_volatility", "fit_to": "2021-09-30"},
]
WEIGHTED_WINDOWS: list[Window] = [(None, None), ("2021-03-01", "2022-01-31")]


def combination_of(api: Api, ids: list[str], window: Window, weighting: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"alphas": ",".join(ids), "limit": 1, **window_params(window), **weighting}
    meta: dict[str, Any] = api.ok(COMBINE, **params)["meta"]
    return meta


def assert_figures_equal(served: dict[str, Any], expected: dict[str, Any], where: Any) -> None:
    """The same entries in the same order; values to 1e-9 relative, every other key exactly."""
    assert list(served) == list(expected), where
    for name, entry in expected.items():
        assert list(served[name]) == list(entry), (where, name)
        for key, value in entry.items():
            if isinstance(value, float):
                assert math.isclose(served[name][key], value, rel_tol=1e-9, abs_tol=1e-15), (where, name, key)
            else:
                assert served[name][key] == value, (where, name, key)


@pytest.mark.parametrize("window", WEIGHTED_WINDOWS)
@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: "-".join(str(v) for v in w.values()))
def test_with_a_weighting_before_is_the_combination(
    api: Api, lake: Lake, weighting: dict[str, Any], window: Window
) -> None:
    """`before` equals /analytics/combine's figures for the same set, weights and window (the alpha
    trades on every one of its sessions); `after` holds the alpha as one more member at w, its
    turnover and diversification ratio recomputed here from /metrics and the ledgers."""
    alpha = "Test_planted_factor"
    meta = combination_of(api, COMBINATION, window, weighting)
    params: dict[str, Any] = {"reference": ",".join(COMBINATION), **window_params(window), **weighting}
    data = api.ok(path(alpha), **params)["data"]
    where = (weighting, window)
    assert data["reference"]["combination"] == {
        "weighting": meta["weighting"],
        "shrinkage": meta["shrinkage"],
        "weights": meta["weights"],
        "fit": meta["fit"],
        "sessions": meta["sessions"],
    }, where
    # The same warnings as combine's (in-sample, shorts), said of the reference's weights.
    warned = api.ok(path(alpha), **params)["meta"].get("warnings", [])
    assert [(w["code"], w["message"]) for w in warned] == [
        (w["code"], w["message"]) for w in meta.get("warnings", [])
    ], where
    assert all(w["block"] == "reference.combination.weights" for w in warned)
    assert list(data["reference"])[-1] == "combination"
    assert data["sessions"] == meta["sessions"], where
    assert data["reference"]["members_in_window"] == 3 and data["reference"]["without_returns"]["count"] == 0
    assert_figures_equal(data["before"], meta["figures"], where)
    assert "every reference alpha and the alpha" in data["session_rule"]

    # after, from the ledgers: (1 - w) sum_i w_i r_i + w a over the common sessions (after fit_to).
    returns = common_returns(lake, [*COMBINATION, alpha], window)
    if "fit_to" in weighting:
        returns = returns[returns.index > weighting["fit_to"]]
        assert "after fit_to" in data["session_rule"]
    assert len(returns) == meta["sessions"]
    weights = np.array([w["weight"] for w in meta["weights"]])
    w = data["weight"]["value"]
    assert data["weight"]["chosen"] == "optimal"
    before = returns[COMBINATION] @ weights
    a = returns[alpha]
    assert abs(w - best_weight(before, a)) < 1e-5, (where, w)
    after = (1 - w) * before + w * a
    rf = ledger_risk_free(lake, [*COMBINATION, alpha], returns.index)
    rf_after = (1 - w) * (rf[COMBINATION] @ weights) + w * rf[alpha]
    for name, value in book_figures(after, rf_after).items():
        check_stat(data["after"][name], value, (where, "after", name))
    all_weights = np.append((1 - w) * weights, w)
    turnover = [metrics_turnover(api, x) for x in [*COMBINATION, alpha]]
    assert len({unit for _, unit in turnover}) == 1
    expected_turnover = float(np.sum(np.abs(all_weights) * np.array([t for t, _ in turnover])))
    check_stat(data["after"]["turnover"], expected_turnover, (where, "after turnover"))
    assert data["after"]["turnover"]["approximation"] == meta["figures"]["turnover"]["approximation"]
    stds = returns[[*COMBINATION, alpha]].std(ddof=1).to_numpy()
    check_stat(
        data["after"]["diversification_ratio"],
        float(np.sum(np.abs(all_weights) * stds) / after.std(ddof=1)),
        (where, "after diversification_ratio"),
    )
    for name in data["before"]:
        assert close(
            data["change"][name]["value"],
            data["after"][name]["value"] - data["before"][name]["value"],
            rel_tol=1e-9,
        ), (where, name)


def test_an_alpha_trading_on_fewer_sessions_says_so(api: Api, lake: Lake) -> None:
    """Test_short_term_reversal trades on 151 of the set's 296 sessions: before is the combination's
    book (its weights, from the 296) over those 151, said by the two counts."""
    alpha = "Test_short_term_reversal"
    weighting = {"weighting": "max_ir"}
    meta = combination_of(api, COMBINATION, (None, None), weighting)
    data = api.ok(path(alpha), reference=",".join(COMBINATION), **weighting)["data"]
    returns = common_returns(lake, [*COMBINATION, alpha], (None, None))
    assert data["sessions"] == len(returns) == 151 < data["reference"]["combination"]["sessions"] == 296
    assert data["reference"]["combination"]["weights"] == meta["weights"]
    weights = np.array([w["weight"] for w in meta["weights"]])
    rf = ledger_risk_free(lake, COMBINATION, returns.index)
    for name, value in book_figures(returns[COMBINATION] @ weights, rf @ weights).items():
        check_stat(data["before"][name], value, ("before", name))
    assert not close(
        data["before"]["information_ratio"]["value"], meta["figures"]["information_ratio"]["value"]
    )


@pytest.mark.parametrize("window", WEIGHTED_WINDOWS)
@pytest.mark.parametrize("weights", ["0.5,0.3,0.2", "0.25,0.25,0.5", "0.7,-0.2,0.4", "1,1,0.5"])
def test_given_weights_naming_the_alpha_ask_about_the_combination_as_given(
    api: Api, lake: Lake, weights: str, window: Window
) -> None:
    """Issue 47, item 4 (the combine page's before/after at the weights on screen): with
    weighting=given a `reference` naming the alpha is the combination that holds it at exactly the
    weights given. `after` is /analytics/combine's figures for that set and those weights, its
    weight the alpha's own; `before` the others at theirs over 1 - w (recomputed from the ledgers)."""
    alpha = "value_composite_legacy"  # the last of the combination: the others keep their order
    given = [float(w) for w in weights.split(",")]
    meta = combination_of(api, COMBINATION, window, {"weighting": "given", "weights": weights})
    params: dict[str, Any] = {
        "reference": ",".join(COMBINATION),
        "weighting": "given",
        "weights": weights,
        **window_params(window),
    }
    data = api.ok(path(alpha), **params)["data"]
    where = (weights, window)
    own = given[COMBINATION.index(alpha)]
    others = [a for a in COMBINATION if a != alpha]
    rest = [w / (1 - own) for a, w in zip(COMBINATION, given, strict=True) if a != alpha]
    assert data["weight"] == {"value": own, "chosen": "given"}, where
    assert data["reference"]["alphas"] == others and data["reference"]["alpha_excluded"] is True
    served_rest = data["reference"]["combination"]["weights"]
    assert [w["alpha"] for w in served_rest] == others
    assert all(close(w["weight"], x, rel_tol=1e-15) for w, x in zip(served_rest, rest, strict=True)), where
    assert data["sessions"] == meta["sessions"], where
    # After is the combination as given: combine's own figures for it (turnover and diversification too).
    assert list(data["after"]) == list(meta["figures"])
    for name, entry in meta["figures"].items():
        check_stat(data["after"][name], entry["value"], (where, "after", name))
    # Before: the others at their weights over 1 - w, from the ledgers.
    returns = common_returns(lake, COMBINATION, window)
    rf = ledger_risk_free(lake, COMBINATION, returns.index)
    for name, value in book_figures(returns[others] @ np.array(rest), rf[others] @ np.array(rest)).items():
        check_stat(data["before"][name], value, (where, "before", name))


def test_given_weights_naming_the_alpha_need_its_weight_below_one_and_no_weight(api: Api) -> None:
    reference = {"reference": "momentum_12_1,value_composite_legacy", "weighting": "given"}
    found = rules(api.get(path("momentum_12_1"), weights="1,0.5", **reference))
    assert set(found) == {"weights"} and "below 1" in found["weights"], found
    found = rules(api.get(path("momentum_12_1"), weights="0.5,0", **reference))
    assert set(found) == {"weights"} and "no book before" in found["weights"], found
    found = rules(api.get(path("momentum_12_1"), weights="0.5,0.5", weight=0.3, **reference))
    assert set(found) == {"weight"} and "its own in `weights`" in found["weight"], found
    # A computed weighting leaves it out and weights the rest, as without a weighting.
    data = api.ok(path("momentum_12_1"), reference="momentum_12_1,value_composite_legacy", weighting="equal")
    assert data["data"]["reference"]["alpha_excluded"] is True
    assert data["data"]["reference"]["combination"]["weights"] == [
        {"alpha": "value_composite_legacy", "weight": 1.0}
    ]


def rules(response: Any) -> dict[str, str]:
    assert response.status_code == 400, response.text
    return {p["name"]: p["rule"] for p in response.json()["error"]["details"]["parameters"]}


PAIR = "momentum_12_1,value_composite_legacy"


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"weighting": "given"}, {"weights"}),
        ({"weighting": "given", "weights": "0.5"}, {"weights"}),
        ({"weighting": "given", "weights": "0.5,abc"}, {"weights"}),
        ({"weighting": "given", "weights": "0.5,nan"}, {"weights"}),
        ({"weighting": "given", "weights": "0,0.0"}, {"weights"}),
        ({"weighting": "given", "weights": "10.5,0"}, {"weights"}),
        ({"weighting": "equal", "weights": "0.5,0.5"}, {"weights"}),
        ({"weighting": "equal", "shrinkage": "0.5"}, {"shrinkage"}),
        ({"weighting": "max_ir", "shrinkage": "1.5"}, {"shrinkage"}),
        ({"weighting": "nope"}, {"weighting"}),
        ({"weighting": "equal", "fit_to": "2021-06-30"}, {"fit_to"}),
        ({"weighting": "max_ir", "fit_to": "2021-01-05"}, {"fit_to"}),
        ({"weighting": "max_ir", "fit_to": "2022-03-10"}, {"fit_to"}),
        ({"weighting": "max_ir", "fit_to": "2021-06-30", "to": "2021-06-30"}, {"fit_to"}),
        ({"weighting": "max_ir", "fit_to": "2021-06-30", "from": "2021-07-01"}, {"fit_to"}),
    ],
)
def test_the_weighting_follows_combines_rule(api: Api, params: dict[str, Any], named: set[str]) -> None:
    """One rule: the same parameters broken the same way, the same rules but for the set's name."""
    found = rules(api.get(path("Test_planted_factor"), reference=PAIR, **params))
    assert set(found) == named, found
    combined = rules(api.get(COMBINE, alphas=PAIR, **params))
    assert found == {k: v.replace("`alphas`", "`reference`") for k, v in combined.items()}


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"weighting": "equal"}, {"reference"}),
        ({"weights": "0.5,0.5"}, {"weights"}),
        ({"shrinkage": "0.5"}, {"shrinkage"}),
        ({"fit_to": "2021-06-30"}, {"fit_to"}),
        ({"reference": PAIR, "fit_to": "2021-06-30"}, {"fit_to"}),
        ({"reference": "momentum_12_1,momentum_12_1", "weighting": "given", "weights": "1"}, {"reference"}),
        ({"reference": "Test_no_such_alpha", "weighting": "equal"}, {"reference"}),
        ({"reference": PAIR, "weighting": "given", "weights": "0.5,0.5", "from": "2022-03-01"}, {"from"}),
    ],
)
def test_a_weighting_without_its_set_is_400_naming_it(
    api: Api, params: dict[str, Any], named: set[str]
) -> None:
    assert set(rules(api.get(path("Test_planted_factor"), **params))) == named


def test_a_weighted_reference_the_key_may_not_read_is_403_before_lookup(restricted_api: Api) -> None:
    response = restricted_api.get(
        path("Test_planted_factor"),
        "restricted",
        reference="momentum_12_1,prod_no_such_alpha",
        weighting="equal",
    )
    assert response.status_code == 403, response.text
    assert response.json()["error"]["details"] == {"alpha": "prod_no_such_alpha", "parameter": "reference"}


def test_the_etag_follows_the_weighting(api: Api) -> None:
    cases: list[dict[str, Any]] = [
        {},
        {"weighting": "equal"},
        {"weighting": "given", "weights": "0.5,0.5"},
        {"weighting": "given", "weights": "0.4,0.6"},
        {"weighting": "max_ir"},
        {"weighting": "max_ir", "fit_to": "2021-06-30"},
    ]
    tags = {
        api.get(path("Test_planted_factor"), reference=PAIR, **params).headers["etag"] for params in cases
    }
    assert len(tags) == 6
