"""The analytics routes fail loud, never short: a build that predates the analytics tables is 503
`analytics_not_built`, and a catalogue build that cannot be read makes every catalogue-wide figure
a 503 that names no other alpha (never a DSR over fewer trials, never a shorter correlation list).
A republish of another alpha changes the catalogue figures on the next request."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from serve.app import create_app
from serve.context import AllowList
from serve.settings import Settings
from tests.callers import authenticator_for, make_caller

CALLERS = {
    "member": make_caller(),
    "testonly": make_caller(alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])),
}
BEARER = {name: {"Authorization": f"Bearer {name}"} for name in CALLERS}


@pytest.fixture
def lake(demo_lake: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "lake"
    shutil.copytree(demo_lake, copy)
    return copy


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
    app = create_app(Settings(lake=str(lake), environment="test"), authenticate=authenticator_for(CALLERS))
    with TestClient(app=app) as client:
        for route in ("significance", "correlation", "drawdowns", "rolling", "costs"):
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


def test_unreadable_catalogue_build_is_503_and_names_no_alpha(client: TestClient[Any], lake: Path) -> None:
    ok = client.get("/v1/alphas/Test_planted_factor/analytics/correlation", headers=BEARER["testonly"])
    assert ok.status_code == 200 and ok.json()["pagination"]["total"] == 4
    # A production alpha the caller may not read loses a serving file.
    (build_of(lake, "momentum_12_1") / "serving" / "portfolio.arrow").unlink()
    refresh(client)
    for route in ("significance",):
        response = client.get(f"/v1/alphas/Test_planted_factor/analytics/{route}", headers=BEARER["testonly"])
        error = error_of(response, 503, "upstream_unavailable")
        assert "momentum" not in response.text and "value_composite" not in response.text
        assert error["details"] == {}
    # Correlation reads only alphas the key may read: a damaged alpha it may not read is not part
    # of its answer, so it still answers in full.
    again = client.get("/v1/alphas/Test_planted_factor/analytics/correlation", headers=BEARER["testonly"])
    assert again.status_code == 200 and again.json()["pagination"]["total"] == 4
    # For a key that may read it, the correlation list cannot be whole: 503, not a shorter list.
    response = client.get("/v1/alphas/Test_planted_factor/analytics/correlation", headers=BEARER["member"])
    error_of(response, 503, "upstream_unavailable")


def test_republish_changes_the_trials(client: TestClient[Any], lake: Path) -> None:
    before = client.get("/v1/alphas/Test_planted_factor/analytics/significance", headers=BEARER["member"])
    assert before.status_code == 200
    trials = before.json()["data"]["dsr"]["trials"]
    tag = before.headers["etag"]
    # Unpublish one alpha (its pointer goes): the catalogue now has one trial fewer.
    (lake / "alphas" / "Test_short_term_reversal" / "_current.json").unlink()
    refresh(client)
    after = client.get(
        "/v1/alphas/Test_planted_factor/analytics/significance",
        headers={**BEARER["member"], "If-None-Match": tag},
    )
    assert after.status_code == 200  # not a 304: the tag names every build behind the answer
    assert after.json()["data"]["dsr"]["trials"]["count"] == trials["count"] - 1
    assert after.json()["data"]["dsr"]["trials"]["sharpe_variance"] != trials["sharpe_variance"]
