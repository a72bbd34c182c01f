"""Endpoint 6 on a local lake: HMAC-signed URLs on this server's `/downloads/...` route, and every
outcome of the spec (Source download, Errors)."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from pipeline import index_rows
from serve.signing.archives import hmac_signature
from tests.ops.conftest import AppFactory, assert_error, bearer
from tests.support.source_downloads import BASE, SOURCE, local_path, source_record


@pytest.fixture
def client(make_client: AppFactory, lake_copy: Path, signing_key: Path):
    return make_client(lake=str(lake_copy), signing_key_file=str(signing_key), public_base_url=BASE)


def test_ready_archive_downloads_with_matching_bytes(client, lake_copy: Path) -> None:
    response = client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member"))
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    record = source_record(lake_copy, "Test_planted_factor")
    assert record is not None and record["status"] == "ready"
    assert data["expires_in"] == 3600
    assert data["filename"] == "Test_planted_factor.zip"
    assert data["sha256"] == record["sha256"] and data["size_bytes"] == record["size_bytes"]
    query = parse_qs(urlsplit(data["url"]).query)
    assert abs(int(query["expires"][0]) - (time.time() + 3600)) < 5
    assert response.json()["meta"]["run"] == "Test_planted_factor"

    download = client.get(local_path(data["url"]))  # no API key: the URL is the credential
    assert download.status_code == 200
    assert hashlib.sha256(download.content).hexdigest() == data["sha256"]
    assert len(download.content) == data["size_bytes"]
    assert download.headers["content-disposition"] == 'attachment; filename="Test_planted_factor.zip"'
    assert download.headers["content-type"] == "application/zip"
    on_disk = (lake_copy / record["object_path"]).read_bytes()
    assert download.content == on_disk


def test_every_call_signs_a_fresh_url(client) -> None:
    first = client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).json()["data"]["url"]
    time.sleep(1.05)
    second = client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).json()["data"]["url"]
    assert first != second


@pytest.mark.parametrize(
    ("alpha", "status"), [("Test_short_term_reversal", "packaging"), ("Test_small_universe", "failed")]
)
def test_not_packaged_is_not_ready_with_status(client, alpha: str, status: str) -> None:
    error = assert_error(client.get(SOURCE.format(alpha), headers=bearer("member")), 404, "source_not_ready")
    assert error["details"] == {"status": status}


def test_no_record_is_not_ready_without_status(client, lake_copy: Path) -> None:
    assert source_record(lake_copy, "Test_low_vol_incomplete") is None
    error = assert_error(
        client.get(SOURCE.format("Test_low_vol_incomplete"), headers=bearer("member")),
        404,
        "source_not_ready",
    )
    assert "status" not in error["details"]


def test_delivered_but_absent_is_object_missing(client) -> None:
    response = client.get(SOURCE.format("value_composite_legacy"), headers=bearer("member"))
    error = assert_error(response, 404, "source_object_missing")
    assert "url" not in json.dumps(error)


def test_archive_deleted_after_publishing_is_object_missing(client, lake_copy: Path) -> None:
    record = source_record(lake_copy, "Test_planted_factor")
    assert record is not None
    (lake_copy / record["object_path"]).unlink()
    assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        404,
        "source_object_missing",
    )


def test_store_failure_while_signing_is_unavailable(client, monkeypatch: pytest.MonkeyPatch) -> None:
    client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member"))  # builds the signer
    signer = client.app.state["archive_signer"]  # the app's own signer is the one that fails
    assert signer is not None

    def broken(path: str) -> bool:
        raise OSError("I/O error reading the archive store")

    monkeypatch.setattr(signer.storage, "exists", broken)
    error = assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        503,
        "source_download_unavailable",
    )
    assert error["details"] == {}


def test_no_signing_key_is_not_configured(make_client: AppFactory, lake_copy: Path, tmp_path: Path) -> None:
    client = make_client(lake=str(lake_copy), signing_key_file=str(tmp_path / "absent.key"))
    assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        503,
        "source_download_not_configured",
    )
    # Not-ready outcomes are still told apart: they do not depend on the signer.
    assert_error(
        client.get(SOURCE.format("Test_short_term_reversal"), headers=bearer("member")),
        404,
        "source_not_ready",
    )


def test_authorisation_runs_before_lookup(client) -> None:
    from dataclasses import replace

    from core.context import AllowList
    from tests.ops.conftest import CALLERS

    CALLERS["testonly_src"] = replace(CALLERS["member"], runs=AllowList.of_prefixes(["Test_"]))
    try:
        for alpha in ("momentum_12_1", "no_such_alpha"):
            assert_error(
                client.get(SOURCE.format(alpha), headers=bearer("testonly_src")), 403, "run_not_allowed"
            )
    finally:
        del CALLERS["testonly_src"]
    assert_error(client.get(SOURCE.format("no_such_alpha"), headers=bearer("member")), 404, "run_not_found")
    error = assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("nosource")),
        403,
        "endpoint_not_allowed",
    )
    assert error["details"]["endpoint"] == "catalog.alphas.source.download"


def _signed(client) -> str:
    return local_path(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).json()["data"]["url"]
    )


def test_tampered_urls_are_refused(client) -> None:
    good = _signed(client)
    path, _, query = good.partition("?")
    params = {k: v[0] for k, v in parse_qs(query).items()}
    flipped = params["signature"][:-1] + ("0" if params["signature"][-1] != "0" else "1")
    later = int(params["expires"]) + 86400
    other_sha = path.rsplit("/", 1)[0] + "/" + "0" * 64 + ".zip"
    expires, holder, signature = params["expires"], params["holder"], params["signature"]
    other_holder = "0" * 16 if holder != "0" * 16 else "1" * 16
    for tampered in (
        f"{path}?expires={expires}&holder={holder}&signature={flipped}",  # signature changed
        f"{path}?expires={later}&holder={holder}&signature={signature}",  # lifetime extended
        f"{path}?expires={expires}&holder={other_holder}&signature={signature}",  # another key's
        f"{other_sha}?expires={expires}&holder={holder}&signature={signature}",  # other object
        f"{path}?expires={expires}&holder={holder}",  # signature missing
        f"{path}?expires={expires}&signature={signature}",  # holder missing
        path,
        f"{good}&foo=1",  # a parameter that was not signed
        f"{good}&expires={params['expires']}",  # a signed parameter repeated
    ):
        assert_error(client.get(tampered), 403, "download_url_invalid")
    assert client.get(good).status_code == 200


def test_expired_url_is_refused(client, signing_key: Path, lake_copy: Path) -> None:
    record = source_record(lake_copy, "Test_planted_factor")
    assert record is not None
    expires = int(time.time()) - 1
    # Signed with the deployment's key (an honest URL whose hour has passed).
    holder = "k" * 16  # the key id the URL was signed for
    signature = hmac_signature(signing_key.read_bytes(), record["object_path"], expires, holder)
    query = f"expires={expires}&holder={holder}&signature={signature}"
    response = client.get(f"/downloads/{record['object_path']}?{query}")
    assert_error(response, 403, "download_url_expired")


def test_download_route_serves_only_archives(client) -> None:
    assert_error(client.get("/downloads/alphas/Test_planted_factor/_current.json"), 404, "not_found")
    assert_error(client.post(_signed(client)), 404, "method_not_allowed")


def test_signing_key_file_is_created_once_owner_only(tmp_path: Path) -> None:
    from serve.signing.archives import ensure_signing_key, read_signing_key

    path = tmp_path / "var" / "signing.key"
    assert ensure_signing_key(str(path)) is True
    key = read_signing_key(str(path))
    assert key is not None and len(key) == 32
    assert path.stat().st_mode & 0o777 == 0o600
    assert ensure_signing_key(str(path)) is False
    assert read_signing_key(str(path)) == key


def _signed_parts(client) -> tuple[str, str, str, str]:
    path, _, query = _signed(client).partition("?")
    params = {k: v[0] for k, v in parse_qs(query).items()}
    return path, params["expires"], params["holder"], params["signature"]


def test_malformed_download_queries_are_invalid_not_500(client, caplog: pytest.LogCaptureFixture) -> None:
    path, expires, holder, signature = _signed_parts(client)
    to_arabic = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
    caplog.clear()
    for query in (
        f"expires=%C2%B2&holder={holder}&signature={signature}",  # '²'.isdigit() is True, int() refuses it
        f"expires={'9' * 5000}&holder={holder}&signature={signature}",  # beyond int()'s digit limit
        f"expires={'9' * 13}&holder={holder}&signature={signature}",
        f"expires=0{expires}&holder={holder}&signature={signature}",  # same number, other text
        f"expires=+{expires}&holder={holder}&signature={signature}",
        f"expires={quote(expires.translate(to_arabic))}&holder={holder}&signature={signature}",
        f"expires={expires}&holder={holder}&signature={quote('é' * 64)}",  # compare_digest: no non-ASCII
        f"expires={expires}&holder={holder}&signature={signature.upper()}",
        f"expires={expires}&holder={holder}&signature={signature[:-1]}",
        f"expires={expires}&holder={holder}&signature={signature}00",
        f"expires=&holder={holder}&signature={signature}",
        f"expires={expires}&holder={holder}&signature=",
        f"expires={expires}&holder={holder.upper()}&signature={signature}",
        f"expires={expires}&holder={holder}0&signature={signature}",
        f"expires={expires}&holder={quote('é' * 16)}&signature={signature}",
        f"expires={expires}&holder=&signature={signature}",
    ):
        assert_error(client.get(f"{path}?{query}"), 403, "download_url_invalid")
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert client.get(f"{path}?expires={expires}&holder={holder}&signature={signature}").status_code == 200


@pytest.mark.parametrize("unreadable", ["directory", "permission"])
def test_unreadable_signing_key_is_not_configured(
    make_client: AppFactory,
    lake_copy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    unreadable: str,
) -> None:
    from serve.signing import archives

    key_file = tmp_path / "signing.key"
    if unreadable == "directory":
        key_file.mkdir()
    else:  # tests may run as root, where chmod 000 still reads: refuse the open itself
        key_file.write_bytes(b"k" * 32)
        real_open = open

        def denied(path: Any, *args: Any, **kwargs: Any) -> Any:
            if str(path) == str(key_file):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr(archives, "open", denied, raising=False)
    client = make_client(lake=str(lake_copy), signing_key_file=str(key_file), public_base_url=BASE)
    assert_error(
        client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
        503,
        "source_download_not_configured",
    )
    record = source_record(lake_copy, "Test_planted_factor")
    assert record is not None
    response = client.get(f"/downloads/{record['object_path']}?expires=9999999999&signature={'0' * 64}")
    assert_error(response, 503, "source_download_not_configured")


def test_lake_outage_is_unavailable_not_missing(
    make_client: AppFactory, lake_copy: Path, signing_key: Path
) -> None:
    client = make_client(
        lake=str(lake_copy),
        signing_key_file=str(signing_key),
        public_base_url=BASE,
        lake_refresh_seconds=60,
    )
    signed = _signed(client)  # the catalogue and the source record are now cached
    moved = lake_copy.with_name("lake-unmounted")
    lake_copy.rename(moved)  # the lake folder is gone (an unmounted volume)
    try:
        assert_error(
            client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")),
            503,
            "source_download_unavailable",
        )
        assert_error(client.get(signed), 503, "source_download_unavailable")
    finally:
        moved.rename(lake_copy)
    # Transient indeed: back as soon as the lake is.
    assert client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).status_code == 200
    assert client.get(signed).status_code == 200


def test_archive_deleted_after_signing_is_object_missing_on_the_route(client, lake_copy: Path) -> None:
    signed = _signed(client)
    record = source_record(lake_copy, "Test_planted_factor")
    assert record is not None
    (lake_copy / record["object_path"]).unlink()
    error = assert_error(client.get(signed), 404, "source_object_missing")
    assert error["details"] == {"filename": "Test_planted_factor.zip"}


def rewrite_manifest(build: Path) -> None:
    """Record the build's files as they are now in its manifest (alpha.json `files`)."""
    entry_path = build / "alpha.json"
    entry = json.loads(entry_path.read_text())
    for relative in entry["files"]:
        payload = (build / relative).read_bytes()
        entry["files"][relative] = {"bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}
    entry_path.write_text(json.dumps(entry))
    index_rows.rebuild(str(build.parents[3]))  # the index holds each build's alpha.json


def test_filename_is_the_alpha_id_never_the_seal_text(
    make_client: AppFactory, lake_copy: Path, signing_key: Path
) -> None:
    pointer = json.loads((lake_copy / "alphas" / "Test_planted_factor" / "_current.json").read_text())
    path = lake_copy / "alphas" / "Test_planted_factor" / "builds" / pointer["build_id"] / "source.json"
    record = json.loads(path.read_text())
    record["filename"] = 'evil"; filename*=x\r\nX-Injected: 1.zip'
    path.write_text(json.dumps(record))
    rewrite_manifest(path.parent)  # as a pipeline that published this record would have
    client = make_client(lake=str(lake_copy), signing_key_file=str(signing_key), public_base_url=BASE)
    data = client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member")).json()["data"]
    assert data["filename"] == "Test_planted_factor.zip"
    download = client.get(local_path(data["url"]))
    assert download.headers["content-disposition"] == 'attachment; filename="Test_planted_factor.zip"'
