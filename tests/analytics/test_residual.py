"""/analytics/residual (issue 36, item 4) against statsmodels' OLS with a HAC covariance on the same
returns recomputed from the lake's Parquet files (tests/analytics/reference.py `residual`), 1e-9
relative, over every alpha, random books, windows and reference sets; the default set and what a
restricted key sees of it; the rules (overlap, collinear, too few sessions, a set larger than the
sessions allow) on synthetic series; bad input; access; the screener's residual columns, equal to
the route's answer for the default set before and after an operator's decision; and the policy
check's verdict and reason."""

from __future__ import annotations

import contextlib
import io
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from litestar.testing import TestClient

from analytics.sets import NO_APPROVED
from core.context import AllowList
from pipeline.operator_decisions import standings_of
from tests.analytics import reference as ref
from tests.analytics.conftest import (
    ALPHAS,
    BOOKS,
    CALLERS,
    PRODUCTION,
    Api,
    Window,
    endpoints_only,
    random_windows,
    serving,
    window_params,
)
from tests.analytics.helpers import check_too_short, close
from tests.callers import DATA_IDS, authenticator_for, make_caller
from tests.conftest import linked_copy
from tests.support.combine_figures import GENERIC_META
from tests.support.doc_paths import paths

PATH = "/v1/alphas/{alpha}/analytics/residual"
SCREEN = "/v1/analytics/screen"
P = 252
RESTRICTED = ("momentum_12_1", "Test_planted_factor", "Test_small_universe")
FIGURES = ("appraisal_ratio", "intercept", "intercept_t_statistic", "intercept_p_value", "r_squared")


def path(alpha: str) -> str:
    return PATH.format(alpha=alpha)


@pytest.fixture(scope="module")
def residual_api(demo_lake: Path) -> Iterator[Api]:
    """The analytics callers, `restricted` (one production alpha of the two, two Test_ ones),
    `no_benchmark` (every data endpoint but benchmarks.daily) and `no_residual`."""
    allowed = AllowList.of_ids(RESTRICTED)
    callers = {
        **CALLERS,
        "restricted": make_caller(alphas=allowed, runs=allowed),
        "no_benchmark": endpoints_only(DATA_IDS - {"benchmarks.daily"}),
        "no_residual": endpoints_only(DATA_IDS - {"analytics.residual"}),
    }
    with serving(demo_lake, callers) as found:
        yield found


def residual(api: Api, alpha: str, token: str = "raw", **params: Any) -> dict[str, Any]:
    body = api.ok(path(alpha), token, **params)
    assert set(body["meta"]) - GENERIC_META <= {"run", "alpha_id", "source_alpha_id", "book"}, body["meta"]
    data: dict[str, Any] = body["data"]
    return data


def check_against_statsmodels(
    data: dict[str, Any], lake: ref.Lake, alpha: str, book: str, window: Window, reference: list[str]
) -> ref.ResidualFit:
    """Every figure of the answer against statsmodels' OLS(cov_type="HAC") on the lake's files."""
    where = (alpha, book, window, reference)
    found = ref.residual(lake, alpha, book, window, reference)
    assert data["alpha"] == alpha and data["book"] == book, where
    assert data["window"] == {"from": window[0], "to": window[1]}, where
    assert data["reference"]["alphas"] == reference and data["reference"]["count"] == len(reference), where
    assert data["base_sessions"] == found.base_sessions, (where, data["base_sessions"])
    assert data["benchmark"]["symbol"] == "SPY" and data["benchmark"]["return_basis"] == lake.spy()[0]
    dropped = {entry["alpha"]: entry for entry in data["reference"]["dropped"]["alphas"]}
    assert {a: e["sessions"] for a, e in dropped.items()} == found.dropped, where
    assert all(e["reason"] == "overlap" for e in dropped.values()), where
    assert data["reference"]["regressed"] == len(found.kept), where
    assert data["reference"]["dropped"]["count"] == len(found.dropped), where
    fit = found.fit
    if fit is None:
        for name in FIGURES:
            entry = data[name]
            assert entry["value"] is None and entry["status"] == "not_measurable", (where, entry)
            assert entry["withheld_reason"], (where, entry)
        assert data["benchmark"]["partial_beta"]["value"] is None and data["betas"] is None, where
        assert data["newey_west_lag"] is None, where
        return found
    assert data["sessions"] == found.sessions and data["newey_west_lag"] == found.lag, where
    expected = {
        "appraisal_ratio": found.information_ratio,
        "intercept": float(fit.params[0]) * P,
        "intercept_t_statistic": float(fit.tvalues[0]),
        "intercept_p_value": float(fit.pvalues[0]),
        "r_squared": float(fit.rsquared),
    }
    for name, value in expected.items():
        entry = data[name]
        assert entry["status"] == "available" and close(entry["value"], value), (where, name, entry, value)
    assert close(data["benchmark"]["partial_beta"]["value"], float(fit.params[1])), where
    betas = data["betas"]
    assert [b["alpha"] for b in betas] == found.kept, where
    for beta, value in zip(betas, fit.params[2:], strict=True):
        assert close(beta["partial_beta"], float(value)), (where, beta, value)
    assert data["appraisal_ratio"]["periods_per_year"] == P and data["intercept"]["periods_per_year"] == P
    return found


# -- values -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_figure_is_statsmodels_ols_with_hac(residual_api: Api, lake: ref.Lake, alpha: str) -> None:
    rng = random.Random(f"residual:{alpha}")
    others = [a for a in ALPHAS if a != alpha]
    for window in random_windows(f"residual:{alpha}"):
        book = rng.choice(BOOKS)
        ledger, whole = lake.ledger_in(alpha, book, window), lake.ledger_in(alpha, book, (None, None))
        sessions = 0 if ledger is None else len(ledger)
        if (
            whole is not None
            and sessions < ref.RESIDUAL_MIN_SESSIONS <= len(whole)
            and window != (None, None)
        ):
            check_too_short(residual_api, path(alpha), window, sessions, book=book)
            continue
        reference = rng.sample(others, rng.randint(1, len(others)))
        token = "raw" if book.startswith("raw_") else "plain"
        params = {"book": book, "reference": ",".join(reference), **window_params(window)}
        data = residual(residual_api, alpha, token, **params)
        assert data["reference"]["origin"] == "given" and data["reference"]["alpha_excluded"] is False
        check_against_statsmodels(data, lake, alpha, book, window, reference)
    # The default set: the approved alphas (the demo's production ones, approved by their seal at
    # their first publish) but the alpha itself.
    data = residual(residual_api, alpha)
    default = [p for p in PRODUCTION if p != alpha]
    assert data["reference"]["origin"] == "approved"
    assert data["reference"]["empty_reason"] is None
    assert data["reference"]["alpha_excluded"] is (alpha in PRODUCTION)
    found = check_against_statsmodels(data, lake, alpha, "long_short", (None, None), default)
    assert found.fit is not None, alpha


def test_a_short_member_is_dropped_for_overlap_and_said_so(residual_api: Api, lake: ref.Lake) -> None:
    """Test_short_term_reversal trades half of the demo's sessions: below 90% of the alpha's, it is
    dropped (named, with its sessions), and the regression runs on the others."""
    reference = ["momentum_12_1", "Test_short_term_reversal", "value_composite_legacy"]
    data = residual(residual_api, "Test_planted_factor", reference=",".join(reference))
    (drop,) = data["reference"]["dropped"]["alphas"]
    assert drop["alpha"] == "Test_short_term_reversal" and drop["reason"] == "overlap", drop
    assert drop["sessions"] < 0.9 * data["base_sessions"]
    assert [b["alpha"] for b in data["betas"]] == ["momentum_12_1", "value_composite_legacy"]
    check_against_statsmodels(data, lake, "Test_planted_factor", "long_short", (None, None), reference)


def test_a_set_larger_than_the_sessions_allow_is_not_measurable(residual_api: Api, lake: ref.Lake) -> None:
    """Five reference alphas, SPY and the intercept are 7 coefficients: 70 sessions are needed, a
    window of 66 holds fewer (and is no bad input: 63 would do for a smaller set); the answer says
    why, never zeros."""
    alpha = "Test_planted_factor"
    rows = lake.ledger(alpha, "long_short")
    assert rows is not None
    window = (rows["date"].iloc[100], rows["date"].iloc[165])
    reference = [a for a in ALPHAS if a not in (alpha, "Test_short_term_reversal")]
    data = residual(residual_api, alpha, reference=",".join(reference), **window_params(window))
    assert data["base_sessions"] == 66 and data["reference"]["regressed"] == 5, data["reference"]
    for name in FIGURES:
        entry = data[name]
        assert entry["value"] is None and entry["status"] == "not_measurable", entry
        assert entry["withheld_reason"] == (
            "the set is larger than the sessions allow: 5 reference alphas, SPY and the intercept are 7 "
            "coefficients, which need at least 70 sessions (10 per coefficient); the alpha and SPY both have a "
            "return on 66 sessions"
        ), entry
    check_against_statsmodels(data, lake, alpha, "long_short", window, reference)
    # One reference alpha fewer: 60 sessions needed, and the same window is measured.
    data = residual(residual_api, alpha, reference=",".join(reference[:4]), **window_params(window))
    assert check_against_statsmodels(data, lake, alpha, "long_short", window, reference[:4]).fit is not None


# -- the rules on synthetic series --------------------------------------------------------------------


def synthetic(members: dict[str, np.ndarray], loading: str | None = None, seed: int = 3) -> Any:
    """A returns matrix of an alpha (row 0) and `members` (rows 1..), and the market's series: the
    alpha is 0.3 market + 0.5 the member `loading` names + noise, with an intercept."""
    from datasets.catalogue_snapshot import Matrix

    n = next(iter(members.values())).size
    rng = np.random.default_rng(seed)
    days = np.arange(18_000, 18_000 + n, dtype=np.int32)
    ids = ["alpha", *members]
    market = rng.normal(0.0003, 0.01, n)
    alpha = 0.0004 + 0.3 * market + rng.normal(0.0, 0.01, n)
    if loading is not None:
        alpha = alpha + 0.5 * members[loading]
    values = np.vstack([alpha, *members.values()])
    return Matrix("v", {a: i for i, a in enumerate(ids)}, pa.array(ids), days, values), market


def test_a_collinear_member_is_dropped_and_changes_nothing_else() -> None:
    from analytics.residual import panel_of, regress

    rng = np.random.default_rng(11)
    a, b = rng.normal(0, 0.01, 400), rng.normal(0, 0.01, 400)
    matrix, market = synthetic({"a": a, "b": b, "mix": 2.0 * a - b}, loading="a")
    days, own = matrix.days, matrix.values[0]
    every = regress(panel_of(matrix, np.array([1, 2, 3]), days, own, market), P)
    without = regress(panel_of(matrix, np.array([1, 2]), days, own, market), P)
    assert every.fit is not None and without.fit is not None
    assert every.collinear.tolist() == [2] and every.regressed.tolist() == [0, 1]
    for name in ("intercept", "t_statistic", "information_ratio", "r_squared"):
        assert math.isclose(getattr(every.fit, name), getattr(without.fit, name), rel_tol=1e-9), name


def test_too_few_common_sessions_is_not_measurable() -> None:
    """Five members each with a return on 108 of 120 sessions (90%: kept), each missing a
    different block of 12: together they share 60, below 63."""
    from analytics.residual import panel_of, regress

    rng = np.random.default_rng(4)
    members = {}
    for i in range(5):
        series = rng.normal(0, 0.01, 120)
        series[12 * i : 12 * (i + 1)] = np.nan
        members[f"m{i}"] = series
    matrix, market = synthetic(members)
    found = regress(panel_of(matrix, np.arange(1, 6), matrix.days, matrix.values[0], market), P)
    assert found.fit is None and found.regressed.size == 5 and found.sessions == 60
    assert (
        found.why_not
        == "the alpha, SPY and the 5 reference alphas kept share 60 sessions; at least 63 are needed"
    )
    # Four members: 72 sessions in common, 60 needed for their 6 coefficients.
    found = regress(panel_of(matrix, np.arange(1, 5), matrix.days, matrix.values[0], market), P)
    assert found.fit is not None and found.sessions == 72


# -- the default set and access -------------------------------------------------------------------------


def test_a_restricted_key_never_sees_an_alpha_it_may_not_read(residual_api: Api, lake: ref.Lake) -> None:
    """Its default set is the approved alphas it may read: value_composite_legacy is neither
    named, counted nor regressed on; a key reading none regresses on SPY alone, and says why."""
    for alpha in ("Test_planted_factor", "Test_small_universe"):
        data = residual(residual_api, alpha, "restricted")
        assert data["reference"]["alphas"] == ["momentum_12_1"] and data["reference"]["count"] == 1
        assert "value_composite_legacy" not in repr(data)
        check_against_statsmodels(data, lake, alpha, "long_short", (None, None), ["momentum_12_1"])
    alone = residual(residual_api, "momentum_12_1", "restricted")
    assert alone["reference"]["alphas"] == [] and alone["reference"]["alpha_excluded"] is True
    assert alone["reference"]["empty_reason"] == NO_APPROVED
    check_against_statsmodels(alone, lake, "momentum_12_1", "long_short", (None, None), [])
    spy_only = residual(residual_api, "Test_planted_factor", "testonly")
    assert spy_only["reference"]["alphas"] == [] and spy_only["betas"] == []
    assert spy_only["reference"]["empty_reason"] == NO_APPROVED
    check_against_statsmodels(spy_only, lake, "Test_planted_factor", "long_short", (None, None), [])


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


def test_access(residual_api: Api) -> None:
    api = residual_api
    error_of(api.get(path("momentum_12_1"), "testonly"), 403, "run_not_allowed")
    error_of(api.get(path("Test_no_such_alpha")), 404, "run_not_found")
    error_of(api.get(path("momentum_12_1"), "no_analytics"), 403, "endpoint_not_allowed")
    error_of(api.get(path("momentum_12_1"), "no_residual"), 403, "endpoint_not_allowed")
    ledger = error_of(api.get(path("Test_planted_factor"), "no_portfolio"), 403, "endpoint_not_allowed")
    assert ledger["details"]["endpoint"] == "portfolio.ledger"
    spy = error_of(api.get(path("Test_planted_factor"), "no_benchmark"), 403, "endpoint_not_allowed")
    assert spy["details"]["endpoint"] == "benchmarks.daily"
    # A reference alpha the key may not read: 403 whether it exists or not, before any lookup.
    for other in ("value_composite_legacy", "prod_no_such_alpha"):
        response = api.get(path("Test_planted_factor"), "restricted", reference=f"momentum_12_1,{other}")
        assert error_of(response, 403, "run_not_allowed")["details"] == {
            "alpha": other,
            "parameter": "reference",
        }
    error_of(api.get(path("momentum_12_1"), "plain", book="raw_long_short"), 400, "unknown_book")


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"reference": "momentum_12_1,momentum_12_1"}, ["reference"]),
        ({"reference": ",".join(f"Test_a{i}" for i in range(51))}, ["reference"]),
        ({"reference": "Test_no_such_alpha"}, ["reference"]),
        ({"reference": "Test_planted_factor"}, ["reference"]),
        ({"from": "2022-03-01", "to": "2021-03-01"}, ["from", "to"]),
        ({"from": "2022-01-20"}, ["from"]),  # 36 sessions: fewer than 63
        ({"nope": "1"}, ["nope"]),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(
    residual_api: Api, params: dict[str, Any], named: list[str]
) -> None:
    error = error_of(residual_api.get(path("Test_planted_factor"), **params), 400, "bad_request")
    assert sorted(p["name"] for p in error["details"]["parameters"]) == named, error


def test_every_served_path_is_documented(residual_api: Api) -> None:
    fields = residual_api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]
    served: set[str] = set()
    for params in ({}, {"reference": "Test_short_term_reversal,Test_small_universe,Test_ledger_only"}):
        served |= paths(residual(residual_api, "Test_planted_factor", **params), "residual")
    assert (
        "residual.reference.dropped.alphas[].reason" in served and "residual.betas[].partial_beta" in served
    )
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented


def test_the_etag_follows_the_set_and_the_window(residual_api: Api) -> None:
    api = residual_api
    first = api.get(path("Test_planted_factor"), reference="momentum_12_1")
    again = api.get(
        path("Test_planted_factor"),
        headers={"If-None-Match": first.headers["etag"]},
        reference="momentum_12_1",
    )
    assert again.status_code == 304
    assert (
        api.get(path("Test_planted_factor"), reference="value_composite_legacy").headers["etag"]
        != first.headers["etag"]
    )
    windowed = api.get(path("Test_planted_factor"), reference="momentum_12_1", **{"from": "2021-03-01"})
    assert windowed.headers["etag"] != first.headers["etag"]


def test_figures_residual_is_the_served_answer(
    residual_api: Api, demo_lake: Path, demo_records: Path
) -> None:
    import msgspec

    from analytics.figures import Figures
    from records.store import open_records

    records = open_records(f"sqlite:///{demo_records}", create=False)
    standings = standings_of(records)  # the server's: the seal's approvals
    records.close()
    figures = Figures.open(str(demo_lake), standings)
    for alpha, params in (
        ("Test_planted_factor", {}),
        ("momentum_12_1", {"reference": ["Test_ledger_only"]}),
    ):
        served = residual_api.get(path(alpha), "raw", **{k: ",".join(v) for k, v in params.items()}).json()[
            "data"
        ]
        mine = msgspec.json.decode(msgspec.json.encode(figures.residual(alpha, **params)))
        assert mine == served, alpha


# -- the screener's columns and the check ------------------------------------------------------------


def screened(api: Api, token: str = "raw", **params: Any) -> dict[str, dict[str, Any]]:
    return {row["alpha_id"]: row for row in api.all_rows(SCREEN, token, **params)}


def test_the_screener_column_is_the_routes_answer_for_the_default_set(residual_api: Api) -> None:
    rows = screened(residual_api)
    assert set(rows) == set(ALPHAS)
    for alpha, row in rows.items():
        data = residual(residual_api, alpha)
        # The same computation over the same bytes: equal to the last bit.
        assert row["residual_information_ratio"] == data["appraisal_ratio"]["value"], alpha
        assert row["residual_t_statistic"] == data["intercept_t_statistic"]["value"], alpha
    ordered = list(screened(residual_api, sort="-residual_information_ratio"))
    values = [rows[a]["residual_information_ratio"] for a in ordered]
    assert values == sorted(values, reverse=True)
    bound = sorted(values)[3]
    kept = screened(residual_api, min_residual_information_ratio=repr(bound))
    assert set(kept) == {a for a, r in rows.items() if r["residual_information_ratio"] >= bound}


def test_a_key_whose_default_set_differs_gets_the_columns_withheld(residual_api: Api) -> None:
    """`restricted` may not read value_composite_legacy, which the index's set holds: the columns are
    null with a warning, and a filter or sort on them is a 400 naming it; a key without SPY gets them
    null, and a 403 naming benchmarks.daily for a filter."""
    body = residual_api.ok(SCREEN, "restricted")
    assert all(
        row["residual_information_ratio"] is None and row["residual_t_statistic"] is None
        for row in body["data"]
    )
    warned = [w for w in body["meta"]["warnings"] if w["code"] == "access_limited"]
    assert [w["block"] for w in warned] == ["residual_information_ratio, residual_t_statistic"], warned
    assert "value_composite_legacy" not in repr(body)
    error = error_of(residual_api.get(SCREEN, "restricted", sort="residual_t_statistic"), 400, "bad_request")
    assert [p["name"] for p in error["details"]["parameters"]] == ["sort"]
    body = residual_api.ok(SCREEN, "no_benchmark")
    assert all(row["residual_information_ratio"] is None for row in body["data"])
    error = error_of(
        residual_api.get(SCREEN, "no_benchmark", min_residual_information_ratio="0"),
        403,
        "endpoint_not_allowed",
    )
    assert error["details"]["endpoint"] == "benchmarks.daily"
    error = error_of(
        residual_api.get(SCREEN, "no_portfolio", min_residual_t_statistic="0"), 403, "endpoint_not_allowed"
    )
    assert error["details"]["endpoint"] == "portfolio.ledger"


def test_the_check_passes_and_fails_with_its_reason(residual_api: Api) -> None:
    for alpha in ALPHAS:
        data = residual(residual_api, alpha)
        checks = residual_api.ok(f"/v1/alphas/{alpha}/analytics/checks", "raw")["data"]
        (entry,) = [c for c in checks["checks"] if c["id"] == "residual_information_ratio"]
        value = data["appraisal_ratio"]["value"]
        assert entry["value"] == value and entry["reference"] == "approved", entry
        assert entry["verdict"] == ("pass" if value >= 0.3 else "fail"), entry
        regressed = data["reference"]["regressed"]
        t = data["intercept_t_statistic"]["value"]
        assert entry["reason"].startswith(f"{value:.3g} {'>=' if value >= 0.3 else '<'} 0.3: "), entry
        assert (
            f"SPY and {regressed} alpha{'' if regressed == 1 else 's'} (the approved set)" in entry["reason"]
        )
        assert f"over {data['sessions']:,} sessions" in entry["reason"], entry
        assert f"t-statistic {t:.3g} (Newey-West, lag {data['newey_west_lag']})" in entry["reason"], entry
    verdicts = {
        c["verdict"]
        for alpha in ALPHAS
        for c in residual_api.ok(f"/v1/alphas/{alpha}/analytics/checks", "raw")["data"]["checks"]
        if c["id"] == "residual_information_ratio"
    }
    assert verdicts == {"pass", "fail"}
    short = residual_api.ok(
        "/v1/alphas/Test_planted_factor/analytics/checks", "raw", **{"from": "2022-01-20"}
    )["data"]
    (entry,) = [c for c in short["checks"] if c["id"] == "residual_information_ratio"]
    assert entry["verdict"] == "not_measurable" and "at least 63 are needed" in entry["reason"], entry
    withheld = residual_api.ok("/v1/alphas/Test_planted_factor/analytics/checks", "no_benchmark")["data"]
    (entry,) = [c for c in withheld["checks"] if c["id"] == "residual_information_ratio"]
    assert entry["reason"].startswith("access_limited") and "benchmarks.daily" in entry["reason"], entry


# -- after an operator's decision ----------------------------------------------------------------------


@dataclass(frozen=True)
class Decided:
    api: Api
    lake: Path


def run_cli(*argv: str) -> None:
    from cli.main import main as cli

    with contextlib.redirect_stdout(io.StringIO()):
        assert cli(list(argv)) == 0, argv


@pytest.fixture(scope="module")
def decided(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Decided]:
    """A copy of the demo lake on which an operator approved two alphas with the real command
    line: the default set is now those two, and every index row's residual columns follow."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    folder = tmp_path_factory.mktemp("residual_decided")
    lake = linked_copy(demo_lake, folder / "lake")
    records = f"sqlite:///{folder / 'records.sqlite3'}"
    where = ("--lake", str(lake), "--keystore", records, "--policy", "", "--by", "head of research")
    for alpha in ("Test_small_universe", "Test_low_vol_incomplete"):
        run_cli(  # recorded today: a decision is dated when it is recorded
            "promote",
            alpha,
            *where,
            "--note",
            "residual",
            "--override",
            "approved in a test whatever its checks",
        )
    app = create_app(
        Settings(lake=str(lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(records),
    )
    with TestClient(app=app) as client:
        yield Decided(Api(client), lake)


def test_after_a_decision_the_columns_follow_the_approved_set(decided: Decided) -> None:
    from pipeline.index_rows import current_rows

    approved = ["Test_low_vol_incomplete", "Test_small_universe"]
    rows = screened(decided.api)
    assert set(rows) == set(ALPHAS)
    for alpha, row in rows.items():
        data = residual(decided.api, alpha)
        assert data["reference"]["origin"] == "approved", (alpha, data["reference"])
        assert sorted(data["reference"]["alphas"]) == [a for a in approved if a != alpha], alpha
        assert row["residual_information_ratio"] == data["appraisal_ratio"]["value"], alpha
        assert row["residual_t_statistic"] == data["intercept_t_statistic"]["value"], alpha
    # The index keeps the set: `lake index` computes every row against it again, to the same bits.
    columns = ["alpha_id", "approved", "residual_information_ratio", "residual_t_statistic"]
    before = current_rows(str(decided.lake))
    assert before is not None
    run_cli("lake", "index", "--lake", str(decided.lake))
    after = current_rows(str(decided.lake))
    assert after is not None
    assert after.select(columns).to_pylist() == before.select(columns).to_pylist()
    assert sorted(r["alpha_id"] for r in after.select(columns).to_pylist() if r["approved"]) == approved
