"""Endpoint 6 on an S3 lake (moto server on 127.0.0.1): presigned URLs that really download, and
every outcome of the spec, through the app."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from s3fs import S3FileSystem

from alpha_results_seal.storage import Storage
from datasets import catalog
from tests.ops.conftest import AppFactory, assert_error, bearer
from tests.ops.proxy import TcpProxy
from tests.s3_server import put_current_builds

pytestmark = pytest.mark.s3

SOURCE = "/v1/alphas/{}/source/download"


@pytest.fixture
def fresh_s3_clients() -> Iterator[None]:
    """s3fs caches one filesystem (and its endpoint) per option set; start and end clean."""
    S3FileSystem.clear_instance_cache()
    yield
    S3FileSystem.clear_instance_cache()


@pytest.fixture
def client(make_client: AppFactory, s3_demo_lake: str, fresh_s3_clients: None, tmp_path):
    # No signing key file: an S3 lake presigns with the object store's credentials instead.
    return make_client(lake=s3_demo_lake, signing_key_file=str(tmp_path / "absent.key"))


def record_of(root: str, alpha: str) -> dict | None:
    build = catalog.current_build(root, alpha)
    assert build is not None
    return catalog.read_source(root, build)


def test_ready_archive_presigned_url_downloads(client, s3_demo_lake: str, s3_endpoint: str) -> None:
    response = client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member"))
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    record = record_of(s3_demo_lake, "Test_planted_factor")
    assert record is not None
    assert data["url"].startswith(s3_endpoint + "/")  # straight to the object store
    assert "X-Amz-Expires=3600" in urlsplit(data["url"]).query
    assert (data["expires_in"], data["filename"]) == (3600, "Test_planted_factor.zip")
    download = httpx.get(data["url"])
    assert download.status_code == 200
    assert hashlib.sha256(download.content).hexdigest() == data["sha256"] == record["sha256"]
    assert len(download.content) == data["size_bytes"] == record["size_bytes"]
    assert 'filename="Test_planted_factor.zip"' in download.headers["content-disposition"]
    # The download route of local lakes does not serve an S3 lake.
    assert_error(client.get(f"/downloads/{record['object_path']}?expires=1&signature=x"), 404, "not_found")


@pytest.mark.parametrize(
    ("alpha", "status"), [("Test_short_term_reversal", "packaging"), ("Test_small_universe", "failed")]
)
def test_not_packaged_is_not_ready_with_status(client, alpha: str, status: str) -> None:
    error = assert_error(client.get(SOURCE.format(alpha), headers=bearer("member")), 404, "source_not_ready")
    assert error["details"] == {"status": status}


def test_no_record_is_not_ready_without_status(client) -> None:
    error = assert_error(
        client.get(SOURCE.format("Test_low_vol_incomplete"), headers=bearer("member")),
        404,
        "source_not_ready",
    )
    assert "status" not in error["details"]


def test_delivered_but_absent_is_object_missing(client) -> None:
    assert_error(
        client.get(SOURCE.format("value_composite_legacy"), headers=bearer("member")),
        404,
        "source_object_missing",
    )


def test_store_failure_while_signing_is_unavailable(
    make_client: AppFactory,
    s3_demo_lake: str,
    s3_endpoint: str,
    fresh_s3_clients: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = int(s3_endpoint.rsplit(":", 1)[1])
    proxy = TcpProxy("127.0.0.1", port)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{proxy.port}")
    client = make_client(lake=s3_demo_lake, lake_refresh_seconds=60)
    # Served once while the store answers: the catalogue and the source record are now cached.
    assert client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).status_code == 200
    proxy.stop()
    error = assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        503,
        "source_download_unavailable",
    )
    assert error["details"] == {}


def test_no_credentials_is_not_configured(
    make_client: AppFactory,
    s3_demo_lake: str,
    fresh_s3_clients: None,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path,
) -> None:
    client = make_client(lake=s3_demo_lake, lake_refresh_seconds=60)
    # The lake is read with the credentials the reader started with ...
    assert client.get("/v1/alphas/Test_planted_factor", headers=bearer("member")).status_code == 200
    Storage(s3_demo_lake).exists(s3_demo_lake)
    # ... while the deployment has none left for signing.
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        503,
        "source_download_not_configured",
    )


def test_deleted_bucket_is_unavailable_not_object_missing(
    make_client: AppFactory, demo_lake: Path, s3_bucket: str, fresh_s3_clients: None
) -> None:
    fs = S3FileSystem(skip_instance_cache=True)
    # The bucket is deleted: a copy of the session's s3_demo_lake of its own.
    put_current_builds(demo_lake, f"{s3_bucket}/lake")
    client = make_client(lake=f"s3://{s3_bucket}/lake", lake_refresh_seconds=60)
    # Served once: the catalogue and the source record are cached, as in a running deployment.
    assert client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).status_code == 200
    fs.rm(s3_bucket, recursive=True)  # the whole store is gone (bucket deleted, wrong account, ...)
    assert not fs.exists(s3_bucket)
    error = assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        503,
        "source_download_unavailable",
    )
    assert error["details"] == {}
