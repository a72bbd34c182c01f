"""The operator routes: readiness of an alpha, usage of any key, the catalogue of builds; only on
an administrator's key."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from access import RateLimit, open_store
from core.settings import Settings
from schemas.registry import ADMIN_IDS
from serve.app import create_app
from serve.limits import MemoryLimiter
from tests.ops.conftest import AppFactory, assert_error, bearer
from tests.ops.keys import issue_key
from tests.representation_rows import filled, rows_of
from tests.support.build_tables import open_table_sizes

READINESS = "/v1/admin/alphas/{}/readiness"
ISO_UTC_SECONDS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")


def same_instant(wire: str, stored: str) -> bool:
    """The payload's timestamp is the stored one, written as docs/api.md says (UTC, `Z`, seconds)."""
    moment = datetime.fromisoformat(stored)
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return bool(ISO_UTC_SECONDS.match(wire)) and wire == moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def alpha_json(lake: Path, alpha: str) -> dict[str, Any]:
    pointer = json.loads((lake / "alphas" / alpha / "_current.json").read_text())
    document: dict[str, Any] = json.loads(
        (lake / "alphas" / alpha / "builds" / pointer["build_id"] / "alpha.json").read_text()
    )
    return document


@pytest.fixture
def client(make_client: AppFactory, lake_copy: Path) -> TestClient[Any]:
    return make_client(lake=str(lake_copy))


@pytest.mark.parametrize("alpha", ["Test_low_vol_incomplete", "momentum_12_1", "Test_ledger_only"])
def test_readiness_reports_the_served_build(client: TestClient[Any], lake_copy: Path, alpha: str) -> None:
    response = client.get(READINESS.format(alpha), headers=bearer("admin"))
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    entry = alpha_json(lake_copy, alpha)
    assert data["alpha_id"] == alpha
    assert data["build_id"] == entry["build_id"]
    assert data["kinds_present"] == entry["kinds_present"]
    assert data["required_kinds"] == entry["required_kinds"]
    missing = [k for k in entry["required_kinds"] if k not in entry["kinds_present"]]
    assert data["missing_kinds"] == missing
    assert data["complete"] is (not missing)
    assert data["pipeline_version"] == entry["pipeline_version"]
    for name in ("built_at", "sealed_at", "started_at"):
        assert same_instant(data[name], entry[name]), name
    # Rows, files and bytes per table, counted independently in the open tables at the versions the
    # build's generation names (the build folder holds no Parquet of its rows: pipeline 2.12.0).
    held = open_table_sizes(lake_copy / "alphas" / alpha / "builds" / entry["build_id"])
    assert held and sorted(data["tables"]) == sorted(held)
    for table, totals in data["tables"].items():
        assert totals == {"rows": held[table]["rows"], "bytes": held[table]["bytes"]}, table


def test_incomplete_alpha_is_reported_incomplete(client: TestClient[Any]) -> None:
    data = client.get(READINESS.format("Test_low_vol_incomplete"), headers=bearer("admin")).json()["data"]
    assert data["complete"] is False and data["missing_kinds"]


def test_readiness_of_unknown_alpha(client: TestClient[Any]) -> None:
    assert_error(
        client.get(READINESS.format("no_such_alpha"), headers=bearer("admin")), 404, "alpha_not_found"
    )


@pytest.mark.parametrize(
    "path", [READINESS.format("momentum_12_1"), "/v1/admin/keys/abc/usage", "/v1/admin/builds"]
)
@pytest.mark.parametrize("token", ["member", "fake_admin"])
def test_admin_routes_refuse_members(client: TestClient[Any], path: str, token: str) -> None:
    error = assert_error(client.get(path, headers=bearer(token)), 403, "endpoint_not_allowed")
    assert error["details"]["endpoint"] in ADMIN_IDS


def test_builds_lists_current_and_retained_builds(client: TestClient[Any], lake_copy: Path) -> None:
    # A retained previous build of one alpha (as publishing leaves it) and a half-written one.
    alpha_dir = lake_copy / "alphas" / "momentum_12_1" / "builds"
    current = alpha_json(lake_copy, "momentum_12_1")["build_id"]
    shutil.copytree(alpha_dir / current, alpha_dir / "previous0000000000000")
    (alpha_dir / "halfwritten000000000").mkdir()
    rows = []
    offset = 0
    while True:
        body = client.get(
            "/v1/admin/builds", params={"limit": 3, "offset": offset}, headers=bearer("admin")
        ).json()
        rows += body["data"]
        if not body["pagination"]["has_more"]:
            break
        offset += 3
    alphas = sorted(p.name for p in (lake_copy / "alphas").iterdir())
    expected = {
        ("alpha", a, b.name)
        for a in alphas
        for b in (lake_copy / "alphas" / a / "builds").iterdir()
        if (b / "alpha.json").exists()
    }
    expected |= {
        ("benchmark", s.name, b.name)
        for s in (lake_copy / "benchmarks").iterdir()
        for b in (s / "builds").iterdir()
    }
    assert {(r["kind"], r["name"], r["build_id"]) for r in rows} == expected
    assert len(rows) == len(expected) == body["pagination"]["total"]
    mom = {r["build_id"]: r for r in rows if r["name"] == "momentum_12_1"}
    assert mom[current]["current"] is True and mom["previous0000000000000"]["current"] is False
    assert "halfwritten000000000" not in mom
    currents = [r for r in rows if r["current"]]
    assert len(currents) == len(alphas) + len(list((lake_copy / "benchmarks").iterdir()))
    entry = alpha_json(lake_copy, "momentum_12_1")
    for name in ("built_at", "sealed_at"):
        assert same_instant(mom[current][name], entry[name]), name


@pytest.fixture
def keyed_app(lake_copy: Path, tmp_path: Path) -> Iterator[tuple[TestClient[Any], Any]]:
    store = open_store(f"sqlite:///{tmp_path}/keys.sqlite3")
    app = create_app(Settings(lake=str(lake_copy), environment="test"), store=store, limiter=MemoryLimiter())
    with TestClient(app=app) as client:
        yield client, store
    store.close()


def test_key_usage_reads_the_enforcing_limiter(keyed_app: tuple[TestClient[Any], Any]) -> None:
    client, store = keyed_app
    admin = issue_key(store, role="admin")
    envelope = RateLimit(per_second=50, per_minute=500, per_day=5000, monthly_requests=7)
    member = issue_key(store, rate_limit=envelope)
    for _ in range(4):
        assert client.get("/v1/alphas", headers=member.headers).status_code == 200
    response = client.get(f"/v1/admin/keys/{member.key_id}/usage", headers=admin.headers)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["key_id"] == member.key_id and data["user_id"] == member.user_id
    assert data["rate_limit"] == envelope.to_wire()
    assert data["usage"] == {
        "second": data["usage"]["second"],  # may have rolled over during the loop
        "minute": data["usage"]["minute"],
        "day": 4,
        "month": 4,
        "remaining_second": 50 - data["usage"]["second"],
        "remaining_minute": 500 - data["usage"]["minute"],
        "remaining_day": 4996,
        "remaining_month": 3,
    }
    assert member.token not in response.text
    # The admin's own calls are metered on the admin's key, not the member's.
    again = client.get(f"/v1/admin/keys/{member.key_id}/usage", headers=admin.headers).json()["data"]
    assert again["usage"]["day"] == 4


def test_key_usage_of_unknown_key(keyed_app: tuple[TestClient[Any], Any]) -> None:
    client, store = keyed_app
    admin = issue_key(store, role="admin")
    error = assert_error(
        client.get("/v1/admin/keys/0000000000000000/usage", headers=admin.headers), 404, "key_not_found"
    )
    assert error["details"] == {"key_id": "0000000000000000"}
    member = issue_key(store)
    assert_error(
        client.get(f"/v1/admin/keys/{admin.key_id}/usage", headers=member.headers),
        403,
        "endpoint_not_allowed",
    )


@pytest.mark.parametrize("name", ["arrow", "csv", "ndjson", "parquet"])
def test_builds_in_every_representation(client: TestClient[Any], name: str) -> None:
    """The builds listing's rows are made in Python: typed by their declarations (`built_at`,
    `sealed_at` instants), the same rows as the JSON page."""
    body = client.get("/v1/admin/builds", params={"limit": 20}, headers=bearer("admin")).json()
    response = client.get("/v1/admin/builds", params={"limit": 20, "format": name}, headers=bearer("admin"))
    assert response.status_code == 200
    rows = rows_of(name, response.content, body["data"])
    assert rows == (body["data"] if name == "ndjson" else filled(body["data"], list(rows[0])))
    assert json.loads(response.headers["x-pagination"]) == body["pagination"]
