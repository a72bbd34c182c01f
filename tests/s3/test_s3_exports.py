"""Parquet exports from an S3 lake: the URL is presigned by the object store (the bytes never
pass through the API), and the file it fetches equals the JSON pages of the same build."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from tests.support.exports import ALPHA, assert_export_equals_json, error, ok

pytestmark = pytest.mark.s3


@pytest.mark.parametrize("token", ["raw", "plain"])
def test_presigned_exports_equal_the_json_pages(s3_client: TestClient[Any], token: str) -> None:
    listing = ok(s3_client, f"/v1/alphas/{ALPHA}/exports", token)["data"]
    datasets = {(row["dataset"], row["book"]) for row in listing}
    for dataset, book in [
        ("decisions", None),
        ("positions", "long_only"),
        ("equity-curve", "long_short"),
        ("benchmark", None),
    ]:
        assert (dataset, book) in datasets
        data = assert_export_equals_json(s3_client, token, ALPHA, dataset, book)
        assert "X-Amz-Signature=" in data["url"] and "X-Amz-Expires=3600" in data["url"]
        # The object store's URL of exactly this build's file (moto accepts any signature, so the
        # store's own refusal of a changed URL is S3's to test, not ours).
        assert "/lake/alphas/" in data["url"] or dataset == "benchmark"
        assert f"/builds/{data['build']}/exports/" in data["url"].split("?", 1)[0]


def test_the_local_download_route_serves_no_s3_export(s3_client: TestClient[Any]) -> None:
    url = ok(s3_client, f"/v1/alphas/{ALPHA}/exports/rebalances", "plain")["data"]["url"]
    path = "/downloads/" + url.split("/lake/", 1)[1].split("?", 1)[0] + "?expires=1&signature=" + "0" * 64
    response = s3_client.get(path)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    error(s3_client, f"/v1/alphas/{ALPHA}/exports/nothing", 404, "export_not_found")


def test_an_export_is_put_in_the_lake_at_its_first_signed_url(
    s3_client: TestClient[Any], s3_demo_lake: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No build stores an alpha export (pipeline 2.13.0): the server makes it on its first signed
    URL, checked against its record, and puts it where the presigned URL points; a store that
    refuses the write is 503, never a URL of nothing."""
    import hashlib

    import fsspec

    from alpha_results_seal.storage import Storage

    fs, _ = fsspec.core.url_to_fs(s3_demo_lake, skip_instance_cache=True)
    path = f"/v1/alphas/{ALPHA}/exports/trades"

    def object_of(data: dict[str, Any]) -> str:
        return s3_demo_lake.removeprefix("s3://") + "/" + data["url"].split("/lake/", 1)[1].split("?", 1)[0]

    listed = ok(s3_client, f"/v1/alphas/{ALPHA}/exports", "plain")["data"]
    short = next(r for r in listed if (r["dataset"], r["book"]) == ("trades", "long_short"))
    build = f"alphas/{ALPHA}/builds/{short['build']}"
    assert not fs.exists(
        f"{s3_demo_lake.removeprefix('s3://')}/{build}/exports/{short['filename'].split('.', 1)[1]}"
    )

    def refused(*args: Any) -> int:
        raise PermissionError("AccessDenied: s3:PutObject")

    monkeypatch.setattr(Storage, "write_bytes", refused)
    error(s3_client, path, 503, "export_download_unavailable", token="plain", book="long_short")
    monkeypatch.undo()

    data = ok(s3_client, path, "plain", book="long_short")["data"]
    stored = fs.cat_file(object_of(data))
    assert hashlib.sha256(stored).hexdigest() == data["sha256"] and len(stored) == data["size_bytes"]
    assert data["sha256"] == short["sha256"]
