"""A catalogue-wide answer's ETag follows only what the key's answer is built from (issue 22,
items 8, 4 and 16), over the real server: a metadata-only republish of an alpha the key may not
read leaves a `Test_` key's significance, `/v1/alphas` and screener tags as they were (a
conditional GET is a 304, and the body it stands for, `meta.source` included, is unchanged); one
of an alpha it may read changes the lists, which show its name, and not significance, whose
figures it leaves equal.

The lists' tags are the index fingerprints of the alphas the key may read; significance's the
build and the catalogue figures the answer uses. Both once were the catalogue's generation (the
lists) or every readable alpha's build (significance), which moved with unrelated publishes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest

from access import Grants, open_store
from core.context import AllowList
from pipeline.publish import publish_seal
from tests.conftest import linked_copy
from tests.health_wait import wait_until
from tests.lake.conftest import serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

SIGNIFICANCE = "/v1/alphas/Test_planted_factor/analytics/significance"
LISTS = ("/v1/alphas", "/v1/analytics/screen?search=small")
"""Lists built from the alphas the key may read (the search narrows the screen to one alpha whose
name the second republish changes; `/v1/alphas` lists every name)."""
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


def test_catalogue_etags_follow_only_what_the_answer_depends_on(
    demo_lake: Path, demo_seals: Path, tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    linked_copy(demo_lake, lake)
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
            wait_until(lambda: served_build(alpha) != before, f"the server serves {alpha}'s new build")

        first = {path: get(path, test_only) for path in (SIGNIFICANCE, *LISTS)}
        for path, answer in first.items():
            assert answer.status_code == 200, (path, answer.text)

        def conditional(path: str) -> httpx.Response:
            return get(path, {**test_only, "If-None-Match": first[path].headers["etag"]})

        republish("value_composite_legacy")  # production: the Test_ key may not read it
        for path, answer in first.items():
            again = conditional(path)
            assert again.status_code == 304 and again.headers["etag"] == answer.headers["etag"], path
            body = get(path, test_only).json()
            assert body["data"] == answer.json()["data"], path
            # What a 304 stands for is the whole body: meta.source names no global generation.
            assert body["meta"].get("source") == answer.json()["meta"].get("source"), path

        republish("Test_small_universe")  # one it may read: the lists show its new name
        for path in LISTS:
            changed = conditional(path)
            assert changed.status_code == 200 and changed.headers["etag"] != first[path].headers["etag"], path
            assert changed.json()["data"] != first[path].json()["data"], path
        # Significance depends on the figures alone, and a metadata-only republish leaves them equal.
        unchanged = conditional(SIGNIFICANCE)
        assert unchanged.status_code == 304, unchanged.text
        assert get(SIGNIFICANCE, test_only).json()["data"] == first[SIGNIFICANCE].json()["data"]
