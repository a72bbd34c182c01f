"""The analytics routes fail loud, never short: a build that predates the analytics tables is 503
`analytics_not_built`, and a published alpha that cannot be read makes every catalogue-wide figure
that counts it a 503 that names no other alpha (never a DSR over fewer trials, never a shorter
correlation list). The catalogue-wide figures come from the catalogue index, computed when each
build was published whole: a served build damaged later stops its own routes, not them.
A republish of another alpha changes the catalogue figures on the next request."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.context import AllowList
from core.settings import Settings
from pipeline import index_rows
from serve.app import create_app
from tests.callers import authenticator_for, make_caller
from tests.conftest import linked_copy

CALLERS = {
    "member": make_caller(),
    "testonly": make_caller(alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])),
}
BEARER = {name: {"Authorization": f"Bearer {name}"} for name in CALLERS}


@pytest.fixture
def lake(demo_lake: Path, tmp_path: Path) -> Path:
    """A copy of the demo lake whose pointers and manifests (files of its own) the tests write over."""
    return linked_copy(demo_lake, tmp_path / "lake")


@pytest.fixture
def client(lake: Path) -> Iterator[TestClient[Any]]:
    app = create_app(
        Settings(lake=str(lake), environment="test", lake_refresh_seconds=60),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
    )
    with TestClient(app=app) as test_client:
        yield test_client


def build_of(lake: Path, alpha: str) -> Path:
    root = lake / "alphas" / alpha
    return root / "builds" / json.loads((root / "_current.json").read_text())["build_id"]


def refresh(client: TestClient[Any]) -> None:
    client.app.state.services.reader.refresh()


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


def test_build_before_the_analytics_tables_is_503_analytics_not_built(lake: Path) -> None:
    """A 2.1 build: no analytics table in its manifest or serving index (as it was published)."""
    build = build_of(lake, "Test_planted_factor")
    index_path = build / "serving" / "index.json"
    index = json.loads(index_path.read_text())
    index["tables"] = {t: v for t, v in index["tables"].items() if not t.startswith("analytics_")}
    index_path.write_text(json.dumps(index))
    for served in (build / "serving").glob("analytics_*"):
        served.unlink()
    entry = json.loads((build / "alpha.json").read_text())
    entry["files"] = {p: v for p, v in entry["files"].items() if "analytics_" not in p}
    entry["files"]["serving/index.json"] = {
        "bytes": index_path.stat().st_size,
        "sha256": hashlib.sha256(index_path.read_bytes()).hexdigest(),
    }
    entry["pipeline_version"] = "2.1.0"
    (build / "alpha.json").write_text(json.dumps(entry))
    index_rows.rebuild(str(lake))  # the index holds each build's alpha.json as published
    app = create_app(Settings(lake=str(lake), environment="test"), authenticate=authenticator_for(CALLERS))
    with TestClient(app=app) as client:
        for route in (
            "significance",
            "correlation",
            "drawdowns",
            "rolling",
            "costs",
            "attribution",
            "sub_universe",
        ):
            response = client.get(
                f"/v1/alphas/Test_planted_factor/analytics/{route}", headers=BEARER["member"]
            )
            error = error_of(response, 503, "analytics_not_built")
            assert error["details"]["pipeline_version"] == "2.1.0"
            assert "alpha-results build" in error["message"]
        # The rest of the build is served as before.
        assert (
            client.get("/v1/alphas/Test_planted_factor/metrics", headers=BEARER["member"]).status_code == 200
        )


def test_a_damaged_build_stops_its_own_routes_not_the_catalogue_figures(
    client: TestClient[Any], lake: Path
) -> None:
    before = {
        basis: client.get(
            "/v1/alphas/Test_planted_factor/analytics/correlation",
            params={"basis": basis},
            headers=BEARER["member"],
        ).json()
        for basis in ("returns", "ic", "scores")
    }
    assert before["returns"]["pagination"]["total"] == 6
    # A production alpha's served build loses a serving file after it was published.
    (build_of(lake, "momentum_12_1") / "serving" / "portfolio.arrow").unlink()
    refresh(client)
    error_of(
        client.get("/v1/alphas/momentum_12_1/equity-curve", headers=BEARER["member"]),
        503,
        "upstream_unavailable",
    )
    # The catalogue's figures were computed from it when it was published whole: the same answers.
    significance = client.get(
        "/v1/alphas/Test_planted_factor/analytics/significance", headers=BEARER["testonly"]
    )
    assert significance.status_code == 200
    assert significance.json()["data"]["dsr"]["trials"]["count"] == 7
    assert "momentum" not in significance.text and "value_composite" not in significance.text
    for basis, answer in before.items():
        again = client.get(
            "/v1/alphas/Test_planted_factor/analytics/correlation",
            params={"basis": basis},
            headers=BEARER["member"],
        )
        assert again.status_code == 200 and again.json()["data"] == answer["data"], basis


def test_an_unreadable_alpha_is_503_for_the_keys_that_may_read_it_and_names_no_alpha(
    client: TestClient[Any], lake: Path
) -> None:
    ok = client.get("/v1/alphas/Test_planted_factor/analytics/correlation", headers=BEARER["testonly"])
    assert ok.status_code == 200 and ok.json()["pagination"]["total"] == 4
    significance_before = client.get(
        "/v1/alphas/Test_planted_factor/analytics/significance", headers=BEARER["testonly"]
    )
    assert significance_before.status_code == 200
    # A production alpha's pointer is corrupt: the index records the alpha as unreadable.
    (lake / "alphas" / "momentum_12_1" / "_current.json").write_text("{not json")
    index_rows.record(str(lake), ["momentum_12_1"])
    refresh(client)
    # Significance follows the correlation list's rule (`whole_catalogue`): a 503, naming no alpha,
    # for a key that may read the unreadable alpha; the same figures as before for one that may
    # not, which learns nothing of a production alpha's damage.
    response = client.get("/v1/alphas/Test_planted_factor/analytics/significance", headers=BEARER["member"])
    error_of(response, 503, "upstream_unavailable")
    assert "momentum" not in response.text
    hidden = client.get("/v1/alphas/Test_planted_factor/analytics/significance", headers=BEARER["testonly"])
    assert hidden.status_code == 200, hidden.text
    assert hidden.json()["data"] == significance_before.json()["data"]
    # A correlation list counts the alphas the key may read: whole for a key that may not read the
    # unreadable alpha, a 503 (never a shorter list) for one that may.
    again = client.get("/v1/alphas/Test_planted_factor/analytics/correlation", headers=BEARER["testonly"])
    assert again.status_code == 200 and again.json()["pagination"]["total"] == 4
    for basis in ("returns", "ic", "scores"):
        response = client.get(
            "/v1/alphas/Test_planted_factor/analytics/correlation",
            params={"basis": basis},
            headers=BEARER["member"],
        )
        error = error_of(response, 503, "upstream_unavailable")
        assert "momentum" not in error["message"], basis


def test_republish_changes_the_trials(client: TestClient[Any], lake: Path) -> None:
    before = client.get("/v1/alphas/Test_planted_factor/analytics/significance", headers=BEARER["member"])
    assert before.status_code == 200
    trials = before.json()["data"]["dsr"]["trials"]
    tag = before.headers["etag"]
    # Unpublish one alpha (its pointer goes): the catalogue now has one trial fewer.
    (lake / "alphas" / "Test_short_term_reversal" / "_current.json").unlink()
    index_rows.rebuild(str(lake))  # `alpha-results lake index` drops it from the catalogue
    refresh(client)
    after = client.get(
        "/v1/alphas/Test_planted_factor/analytics/significance",
        headers={**BEARER["member"], "If-None-Match": tag},
    )
    assert after.status_code == 200  # not a 304: the tag names every build behind the answer
    assert after.json()["data"]["dsr"]["trials"]["count"] == trials["count"] - 1
    assert after.json()["data"]["dsr"]["trials"]["sharpe_variance"] != trials["sharpe_variance"]
