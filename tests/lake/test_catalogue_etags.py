"""A catalogue-wide answer's ETag follows only what the key's answer is built from (issue 22,
item 8), over the real server: a metadata-only republish of an alpha the key may not read leaves
a `Test_` key's significance tag as it was (a conditional GET is a 304), and one of an alpha it
may read changes it.

Significance counts the whole catalogue's trials (N) and builds the rest from the alphas the key
may read, so its tag is the build, N and the index fingerprints of the readable alphas; it once
was the catalogue's generation, which every publish moves.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from pipeline.publish import publish_seal
from serve.context import AllowList
from serve.identity import Grants, open_store
from tests.lake.conftest import serving, wait_until
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

SIGNIFICANCE = "/v1/alphas/Test_planted_factor/analytics/significance"
TEST_ONLY = Grants(
    AllowList.all(), AllowList.of_prefixes(["Test_"]), AllowList.of_prefixes(["Test_"]), expose_raw_book=False
)


def renamed_seal(seals: Path, alpha: str, folder: Path) -> Path:
    """A copy of `alpha`'s demo seal with another name in its manifest: the same data."""
    seal = folder / alpha
    shutil.copytree(seals / alpha, seal)
    manifest = seal / "manifest.json"
    document = json.loads(manifest.read_text())
    document["name"] = f"{document['name']} (renamed)"
    manifest.write_text(json.dumps(document))
    return seal


def test_only_a_readable_republish_changes_the_significance_etag(
    demo_lake: Path, demo_seals: Path, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(demo_lake, lake)
    keystore = f"sqlite:///{tmp_path}/keys.sqlite3"
    store = open_store(keystore)
    test_only = issue_key(store, grants=TEST_ONLY).headers
    full = issue_key(store).headers
    with serving(str(lake), (keystore, test_only), tmp_path, refresh_seconds=0.2) as served:
        base = f"http://127.0.0.1:{served.port}"

        def get(path: str, headers: dict[str, str]) -> httpx.Response:
            return httpx.get(base + path, headers=headers, timeout=20)

        def served_build(alpha: str) -> str:
            response = get(f"/v1/alphas/{alpha}/books", full)
            assert response.status_code == 200, response.text
            source: str = response.json()["meta"]["source"]
            return source.rsplit("@", 1)[1]

        def republish(alpha: str) -> None:
            before = served_build(alpha)
            seal = renamed_seal(demo_seals, alpha, tmp_path / f"seal-{alpha}")
            assert publish_seal(str(seal), str(lake)).status == "published"
            wait_until(lambda: served_build(alpha) != before, 20, f"the server serves {alpha}'s new build")

        first = get(SIGNIFICANCE, test_only)
        assert first.status_code == 200, first.text
        tag = first.headers["etag"]

        republish("value_composite_legacy")  # production: the Test_ key may not read it
        again = get(SIGNIFICANCE, {**test_only, "If-None-Match": tag})
        assert again.status_code == 304 and again.headers["etag"] == tag
        assert get(SIGNIFICANCE, test_only).json()["data"] == first.json()["data"]

        republish("Test_small_universe")  # one it may read: its build is behind the answer
        changed = get(SIGNIFICANCE, {**test_only, "If-None-Match": tag})
        assert changed.status_code == 200 and changed.headers["etag"] != tag
        assert changed.json()["data"] == first.json()["data"]  # metadata only: the same figures
