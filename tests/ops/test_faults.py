"""Every dependency failure maps to its documented answer, never hangs, and never leaks detail.

Each call to a dead backend runs under `returns`, which fails the test instead of hanging the
suite; what is asserted is the answer, not how long it took (issue 33, item 15).
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest
from litestar.testing import TestClient
from s3fs import S3FileSystem

from access import open_store
from access.tokens import generate_token
from core.settings import Settings
from pipeline import index_rows
from serve.app import create_app
from serve.limits import MemoryLimiter, open_limiter
from tests.conftest import own_file
from tests.health_wait import down_is, health_when, is_ok, returns
from tests.ops.conftest import AppFactory, assert_error, bearer, refresh_lake
from tests.ops.keys import issue_key
from tests.ops.proxy import TcpProxy, closed_port
from tests.support.postgres import postgres_or_skip


def health(client: TestClient[Any]) -> dict[str, Any]:
    response = client.get("/v1/health")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def test_lake_folder_removed(make_client: AppFactory, breakable_lake: Path) -> None:
    client = make_client(lake=str(breakable_lake))
    assert client.get("/v1/alphas/momentum_12_1/books", headers=bearer("member")).status_code == 200
    assert health(client)["status"] == "ok"
    shutil.rmtree(breakable_lake)
    refresh_lake(client)  # the next background refresh finds the lake gone
    for path in ("/v1/alphas", "/v1/alphas/momentum_12_1/rebalances", "/v1/alphas/Test_planted_factor"):
        error = assert_error(client.get(path, headers=bearer("member")), 503, "upstream_unavailable")
        assert error["details"] == {} and str(breakable_lake) not in error["message"]
    # Market data lives in the same lake, but only benchmark routes say so.
    assert_error(
        client.get("/v1/benchmarks/SPY/daily", headers=bearer("member")), 503, "benchmark_unavailable"
    )
    health_when(lambda: client.get("/v1/health"), down_is("lake"))


def test_one_corrupt_pointer_degrades_health_and_only_its_alpha(
    make_client: AppFactory, breakable_lake: Path
) -> None:
    pointer = breakable_lake / "alphas" / "Test_planted_factor" / "_current.json"
    good = pointer.read_bytes()
    pointer.write_text('{"build_id": ')
    index_rows.rebuild(str(breakable_lake))  # `alpha-results lake index` (or the next publish) finds it
    client = make_client(lake=str(breakable_lake))
    listed = client.get("/v1/alphas", headers=bearer("member"))
    assert listed.status_code == 200
    assert "Test_planted_factor" not in {row["alpha_id"] for row in listed.json()["data"]}
    assert client.get("/v1/alphas/momentum_12_1/books", headers=bearer("member")).status_code == 200
    error = assert_error(
        client.get("/v1/alphas/Test_planted_factor/books", headers=bearer("member")),
        503,
        "upstream_unavailable",
    )
    assert error["details"] == {} and str(breakable_lake) not in error["message"]
    # The lake is readable: it is not down, one of its alphas is degraded and named.
    body = health_when(lambda: client.get("/v1/health"), lambda body: "lake" in body)
    assert body["status"] == "degraded" and body["down"] == []
    assert set(body["lake"]["degraded_alphas"]) == {"Test_planted_factor"}

    pointer.write_bytes(good)
    index_rows.rebuild(str(breakable_lake))
    assert "lake" not in health_when(lambda: client.get("/v1/health"), is_ok)
    assert client.get("/v1/alphas/Test_planted_factor/books", headers=bearer("member")).status_code == 200


def test_s3_endpoint_on_a_closed_port(make_client: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "y")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    S3FileSystem.clear_instance_cache()
    try:
        client = make_client(lake="s3://nowhere/lake")

        def get(path: str, token: str) -> Any:
            return returns(lambda: client.get(path, headers=bearer(token)), path)  # retries bounded

        assert_error(get("/v1/alphas", "member"), 503, "upstream_unavailable")
        assert_error(get("/v1/benchmarks/SPY/daily", "member"), 503, "benchmark_unavailable")
        assert_error(get("/v1/admin/builds", "admin"), 503, "upstream_unavailable")
        body = health(client)
        assert body["status"] == "degraded" and "lake" in body["down"]
    finally:
        S3FileSystem.clear_instance_cache()


def test_benchmark_not_published(make_client: AppFactory, breakable_lake: Path) -> None:
    shutil.rmtree(breakable_lake / "benchmarks")
    index_rows.rebuild(str(breakable_lake))
    client = make_client(lake=str(breakable_lake))
    assert_error(
        client.get("/v1/benchmarks/SPY/daily", headers=bearer("member")), 503, "benchmark_not_configured"
    )
    assert client.get("/v1/alphas", headers=bearer("member")).status_code == 200  # nothing else affected


def test_benchmark_data_unreadable(make_client: AppFactory, breakable_lake: Path) -> None:
    for daily in (breakable_lake / "benchmarks").rglob("daily.parquet"):
        own_file(daily).write_bytes(b"not parquet")
    client = make_client(lake=str(breakable_lake))
    assert_error(
        client.get("/v1/benchmarks/SPY/daily", headers=bearer("member")), 503, "benchmark_unavailable"
    )
    assert client.get("/v1/alphas", headers=bearer("member")).status_code == 200


@pytest.mark.postgres
def test_key_store_on_a_closed_port(breakable_lake: Path) -> None:
    postgres_or_skip()
    url = f"postgresql://postgres@127.0.0.1:{closed_port()}/test"
    # The server still starts (no crash loop) and answers within the connect timeout.
    app = create_app(Settings(lake=str(breakable_lake), keystore_url=url), limiter=MemoryLimiter())
    with TestClient(app=app) as client:
        token = generate_token("live").token  # well-formed, so the store must be asked
        response = returns(lambda: client.get("/v1/alphas", headers={"Authorization": f"Bearer {token}"}))
        error = assert_error(response, 503, "upstream_unavailable")
        assert "5432" not in error["message"] and "postgres" not in error["message"].lower()
        body = health(client)
        assert body["status"] == "degraded" and body["down"] == ["keystore"]


@pytest.mark.postgres
def test_key_store_stopped_while_serving(breakable_lake: Path) -> None:
    import uuid

    base = postgres_or_skip()
    schema = f"ar_ops_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    proxy = TcpProxy("127.0.0.1", 5432)
    url = f"postgresql://postgres@127.0.0.1:{proxy.port}/test?options=-csearch_path%3D{schema}"
    try:
        store = open_store(url)
        member = issue_key(store)
        app = create_app(Settings(lake=str(breakable_lake)), store=store, limiter=MemoryLimiter())
        with TestClient(app=app) as client:
            assert client.get("/v1/alphas", headers=member.headers).status_code == 200
            proxy.stop()
            assert_error(client.get("/v1/alphas", headers=member.headers), 503, "upstream_unavailable")
            health_when(lambda: client.get("/v1/health"), down_is("keystore"))
        store.close()
    finally:
        proxy.stop()
        with psycopg.connect(base, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_redis_down_still_enforces_limits_and_answers_usage(breakable_lake: Path, tmp_path: Path) -> None:
    """Decision (docs/limits.md): an unreachable Redis no longer lifts the limits. The quota is
    counted in the key store meanwhile, `/v1/me` and the admin usage route answer from it, and
    `/v1/health` names the limiter down."""
    from access import RateLimit
    from access.usage_ledger import SqlUsageLedger

    store = open_store(f"sqlite:///{tmp_path}/keys.sqlite3")
    tight = issue_key(
        store, rate_limit=RateLimit(per_second=1000, per_minute=1000, per_day=3, monthly_requests=None)
    )
    admin = issue_key(store, role="admin")
    limiter = open_limiter(f"redis://127.0.0.1:{closed_port()}/0", ledger=SqlUsageLedger(store))
    app = create_app(Settings(lake=str(breakable_lake)), store=store, limiter=limiter)
    with TestClient(app=app) as client:
        for used in (1, 2):
            response = client.get("/v1/alphas", headers=tight.headers)
            assert response.status_code == 200
            assert response.headers["x-ratelimit-window"] == "day"
            assert response.headers["x-ratelimit-used"] == str(used)
        me = client.get("/v1/me", headers=tight.headers)
        assert me.status_code == 200 and me.json()["data"]["usage"]["day"] == 3
        refused = assert_error(client.get("/v1/alphas", headers=tight.headers), 429, "rate_limit_day")
        assert refused["details"]["window"] == "day"
        usage = client.get(f"/v1/admin/keys/{tight.key_id}/usage", headers=admin.headers)
        assert usage.status_code == 200 and usage.json()["data"]["usage"]["remaining_day"] == 0
        body = health(client)
        assert body["status"] == "degraded" and body["down"] == ["limiter"]
    store.close()


def fail_with(monkeypatch: pytest.MonkeyPatch, reader: Any, method: str, message: str) -> None:
    """The reader's `method` raises an unexpected error (a bug, not a lake failure)."""

    def explode(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

    monkeypatch.setattr(reader, method, explode)


def test_the_log_of_an_unhandled_failure_never_holds_a_token_from_the_path(
    make_client: AppFactory,
    breakable_lake: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = make_client(lake=str(breakable_lake))
    token = generate_token("live").token
    fail_with(monkeypatch, client.app.state["services"].reader, "alpha", "boom")
    with caplog.at_level(logging.ERROR, logger="serve.app"):
        response = client.get(f"/v1/alphas/{token}", headers=bearer("member"))
    assert_error(response, 500, "internal_error")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "request" in logged and token not in logged and "[redacted token]" in logged


def test_unhandled_failure_is_internal_error_without_detail(
    make_client: AppFactory,
    breakable_lake: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = make_client(lake=str(breakable_lake))
    fail_with(
        monkeypatch, client.app.state["services"].reader, "catalogue", "secret internal detail /srv/lake"
    )
    with caplog.at_level(logging.ERROR, logger="serve.app"):
        response = client.get("/v1/alphas", headers=bearer("member"))
    error = assert_error(response, 500, "internal_error")
    assert error["details"] == {} and "secret" not in response.text and "RuntimeError" not in response.text
    logged = [r for r in caplog.records if error["request_id"] in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None
    assert "secret internal detail" in "".join(__import__("traceback").format_exception(*logged[0].exc_info))
    assert json.loads(response.text)["error"]["message"]
