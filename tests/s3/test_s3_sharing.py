"""Delta Sharing over an S3 lake: the table's schema is read from the export in the object store,
and the `file` URL is S3's presigned GET, which the official client's own file reader (pyarrow over
fsspec's HTTP file system, by byte ranges) reads to the rows of the JSON pages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from delta_sharing.converter import to_converters
from delta_sharing.protocol import AddFile
from delta_sharing.reader import DeltaSharingReader
from litestar.testing import TestClient

from serve.routes.sharing import PREFIX
from tests.support.exports import ALPHA, json_pages
from tests.support.pandas_json import json_of

pytestmark = pytest.mark.s3


@pytest.mark.parametrize(
    ("table", "dataset", "book"),
    [("decisions", "decisions", None), ("positions_long_only", "positions", "long_only")],
)
def test_a_presigned_file_reads_to_the_json_pages(
    s3_client: TestClient[Any], table: str, dataset: str, book: str | None
) -> None:
    path = f"{PREFIX}/shares/alpha_results/schemas/{ALPHA}/tables/{table}/query"
    response = s3_client.post(path, json={}, headers={"Authorization": "Bearer plain"})
    assert response.status_code == 200, response.text
    protocol, metadata, file = (json.loads(line) for line in response.text.splitlines())
    assert protocol == {"protocol": {"minReaderVersion": 1}}
    action = AddFile.from_json(file["file"])
    assert "X-Amz-Signature=" in action.url and f"/exports/{dataset}" in action.url.split("?", 1)[0]
    schema = json.loads(metadata["metaData"]["schemaString"])
    frame = DeltaSharingReader._to_pandas(action, to_converters(schema), False, None, False)
    assert list(frame.columns) == [f["name"] for f in schema["fields"]]
    expected = json_pages(s3_client, "plain", ALPHA, dataset, book)
    assert len(frame) == len(expected) == json.loads(action.stats)["numRecords"]
    for got, want in zip(frame.to_dict("records"), expected, strict=True):
        assert {c: json_of(got[c]) for c in frame.columns} == {c: want.get(c) for c in frame.columns}
