"""Source downloads from an S3 lake: presigned URLs that really download the archive, and every
failure outcome of endpoint 6 (spec: Source download)."""

from __future__ import annotations

import hashlib

import httpx
import pytest

from alpha_results_seal.storage import Storage
from core import errors
from datasets import catalog
from serve.signing.archives import URL_LIFETIME_SECONDS, S3Signer, source_download

pytestmark = pytest.mark.s3

KEY_ID = "k" * 16  # the API key a URL is signed for


def record_of(root: str, alpha: str) -> dict | None:
    build = catalog.current_build(root, alpha)
    assert build is not None
    return catalog.read_source(root, build)


def test_presigned_url_downloads_the_recorded_archive(s3_demo_lake: str) -> None:
    record = record_of(s3_demo_lake, "Test_planted_factor")
    archive = source_download(record, S3Signer(Storage(s3_demo_lake)), KEY_ID)
    assert archive.expires_in == URL_LIFETIME_SECONDS == 3600
    assert archive.filename == "Test_planted_factor.zip"
    assert "X-Amz-Signature=" in archive.url and "X-Amz-Expires=3600" in archive.url
    response = httpx.get(archive.url)
    assert response.status_code == 200
    assert hashlib.sha256(response.content).hexdigest() == archive.sha256
    assert len(response.content) == archive.size_bytes
    assert 'filename="Test_planted_factor.zip"' in response.headers["content-disposition"]


def test_delivered_but_absent_archive_is_object_missing(s3_demo_lake: str) -> None:
    record = record_of(s3_demo_lake, "value_composite_legacy")
    with pytest.raises(errors.SourceObjectMissing):
        source_download(record, S3Signer(Storage(s3_demo_lake)), KEY_ID)


def test_archive_deleted_from_the_bucket_after_publishing_is_object_missing(s3_demo_lake: str) -> None:
    storage = Storage(s3_demo_lake)
    record = dict(record_of(s3_demo_lake, "Test_planted_factor") or {})
    record["object_path"] = record["object_path"].replace(record["sha256"], "0" * 64)
    with pytest.raises(errors.SourceObjectMissing):
        source_download(record, S3Signer(storage), KEY_ID)


def test_not_packaged_archive_is_not_ready_with_its_status(s3_demo_lake: str) -> None:
    record = record_of(s3_demo_lake, "Test_short_term_reversal")
    with pytest.raises(errors.SourceNotReady) as raised:
        source_download(record, S3Signer(Storage(s3_demo_lake)), KEY_ID)
    assert raised.value.details == {"status": "packaging"}


def test_no_record_is_not_ready_without_status(s3_demo_lake: str) -> None:
    assert record_of(s3_demo_lake, "Test_low_vol_incomplete") is None
    with pytest.raises(errors.SourceNotReady) as raised:
        source_download(None, S3Signer(Storage(s3_demo_lake)), KEY_ID)
    assert "status" not in raised.value.details


def test_store_failure_while_signing_is_unavailable(
    s3_demo_lake: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = record_of(s3_demo_lake, "Test_planted_factor")
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
    dead = Storage(
        s3_demo_lake.replace("s3://", "s3://"),
        skip_instance_cache=True,
        config_kwargs={"connect_timeout": 0.5, "read_timeout": 0.5, "retries": {"max_attempts": 1}},
    )
    with pytest.raises(errors.SourceDownloadUnavailable):
        source_download(record, S3Signer(dead), KEY_ID)


def test_no_signer_configured_is_not_configured(s3_demo_lake: str) -> None:
    record = record_of(s3_demo_lake, "Test_planted_factor")
    with pytest.raises(errors.SourceDownloadNotConfigured):
        source_download(record, None, KEY_ID)


def test_missing_bucket_is_unavailable_not_object_missing(s3_demo_lake: str) -> None:
    # A lake whose bucket is gone answers "absent" for every object; that is an outage of the
    # store (retry), not the permanent source_object_missing.
    record = record_of(s3_demo_lake, "Test_planted_factor")
    gone = s3_demo_lake.replace("s3://", "s3://gone-", 1)
    with pytest.raises(errors.SourceDownloadUnavailable):
        source_download(record, S3Signer(Storage(gone)), KEY_ID)


def test_seal_filename_never_reaches_the_presigned_header(s3_demo_lake: str) -> None:
    record = dict(record_of(s3_demo_lake, "Test_planted_factor") or {})
    record["filename"] = 'evil"; filename*=x\r\nX-Injected: 1.zip'
    archive = source_download(record, S3Signer(Storage(s3_demo_lake)), KEY_ID)
    assert archive.filename == "Test_planted_factor.zip"
    response = httpx.get(archive.url)
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="Test_planted_factor.zip"'
    assert "x-injected" not in response.headers
