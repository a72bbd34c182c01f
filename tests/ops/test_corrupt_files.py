"""A served file whose bytes are not those recorded is never served (issue 22, item 7), through
the real `alpha-results serve` process over a copy of the demo lake.

- 64 bytes flipped in `serving/pnl.arrow` (same size) after the build was checked: `/pnl` answers
  503 `upstream_unavailable` (never a wrong number) and health names the build `corrupt_file`.
- An export the server made (a folder lake stores none, pipeline 2.13.0) truncated or corrupted on
  its disk after its first download: the next download makes it again and sends the recorded
  bytes, never others; the build stays whole.
- A source archive corrupted: the download is 503 `source_download_unavailable`, health says
  `corrupt_archive`; restored, it downloads again and health is ok.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from access import open_store
from tests.health_wait import wait_until
from tests.lake.conftest import Served, serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

REFRESH = 0.5


def pnl(alpha: str) -> str:
    return f"/v1/alphas/{alpha}/pnl?book=long_short&limit=1000"


@pytest.fixture(scope="module")
def lake(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo lake shared by the tests of this module, each damaging its own alpha."""
    target = tmp_path_factory.mktemp("corrupt_files") / "lake"
    shutil.copytree(demo_lake, target)
    return target


@pytest.fixture(scope="module")
def served(lake: Path) -> Iterator[Served]:
    folder = lake.parent
    url = f"sqlite:///{folder}/keys.sqlite3"
    key = (url, issue_key(open_store(url)).headers)
    signing_key = folder / "signing.key"
    signing_key.write_bytes(os.urandom(32))
    extra = {"ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key)}
    with serving(str(lake), key, folder, refresh_seconds=REFRESH, env_extra=extra) as server:
        yield server


def build_folder(lake: Path, alpha: str) -> Path:
    build_id = json.loads((lake / "alphas" / alpha / "_current.json").read_text())["build_id"]
    return lake / "alphas" / alpha / "builds" / build_id


def flip_64_bytes(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.seek(path.stat().st_size // 2)
        middle = handle.read(64)
        handle.seek(-len(middle), os.SEEK_CUR)
        handle.write(bytes(byte ^ 0xFF for byte in middle))


def truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def degraded(served: Served) -> dict[str, str]:
    status, body = served.get("/v1/health")
    assert status == 200, body
    return dict((body.get("lake") or {}).get("degraded_alphas") or {})


def fetch(served: Served, url: str) -> tuple[int, bytes]:
    """A signed URL, without the API key (the URL is the credential)."""
    parts = urlsplit(url)
    client = served.client()
    client.headers = {}
    try:
        return client.get(f"{parts.path}?{parts.query}")
    finally:
        client.close()


def error_code(body: bytes) -> str:
    code: str = json.loads(body)["error"]["code"]
    return code


def test_a_served_file_with_flipped_bytes_answers_503_never_a_wrong_number(
    served: Served, lake: Path
) -> None:
    """Polled, never slept on: the build's SHA-256 check runs in the background once it opens, and
    whichever check sees the flip first (a request's, for a file whose signature changed since it
    was checked, or the background one), every answer until the deadline is the recorded numbers
    or 503, and then 503 for good, with health naming the build."""
    alpha = "momentum_12_1"
    status, before = served.get(pnl(alpha))
    assert status == 200, before
    assert alpha not in degraded(served)
    flip_64_bytes(build_folder(lake, alpha) / "serving" / "pnl.arrow")

    def refused() -> dict[str, Any] | None:
        status, after = served.get(pnl(alpha))
        if status == 200:
            assert after["data"] == before["data"], "a wrong number was served"
            return None
        return after

    after = wait_until(refused, "the damaged build answers 503")
    assert after["error"]["code"] == "upstream_unavailable", after
    status, other = served.get(f"/v1/alphas/{alpha}/books")  # every route of the damaged build
    assert (status, other["error"]["code"]) == (503, "upstream_unavailable"), other
    wait_until(lambda: degraded(served).get(alpha) == "corrupt_file", "health names the build")
    assert served.get(pnl(alpha))[0] == 503  # for good


@pytest.mark.parametrize(
    ("damage", "alpha"),
    [(truncate, "Test_small_universe"), (flip_64_bytes, "Test_short_term_reversal")],
    ids=["truncated", "flipped"],
)
def test_a_made_export_damaged_on_the_server_s_disk_is_made_again_never_sent_with_other_bytes(
    served: Served, lake: Path, damage: Callable[[Path], None], alpha: str
) -> None:
    """A folder lake stores no alpha export (pipeline 2.13.0): the server makes it on the first
    download into its derived folder. A made file damaged there is never sent: the next download
    finds it changed, makes it again and sends the recorded bytes; the build is whole throughout."""
    status, signed = served.get(f"/v1/alphas/{alpha}/exports/pnl?book=long_short")
    assert status == 200, signed
    export = signed["data"]
    assert not (build_folder(lake, alpha) / "exports" / "pnl.long_short.parquet").exists()
    status, content = fetch(served, export["url"])
    assert status == 200 and hashlib.sha256(content).hexdigest() == export["sha256"]
    (made,) = (lake.parent / "serving-cache" / ".derived" / alpha).glob("export-*/pnl.long_short.parquet")
    damage(made)

    status, again = fetch(served, export["url"])
    assert status == 200, f"{status} with {len(again)} bytes"
    assert hashlib.sha256(again).hexdigest() == export["sha256"] and len(again) == export["size_bytes"]
    assert hashlib.sha256(made.read_bytes()).hexdigest() == export["sha256"]  # made again, whole
    assert alpha not in degraded(served) and served.get(pnl(alpha))[0] == 200


def test_a_corrupt_source_archive_is_503_and_health_says_so_until_restored(
    served: Served, lake: Path
) -> None:
    alpha = "Test_planted_factor"
    status, signed = served.get(f"/v1/alphas/{alpha}/source/download")
    assert status == 200, signed
    archive = lake / json.loads((build_folder(lake, alpha) / "source.json").read_text())["object_path"]
    original = archive.read_bytes()
    flip_64_bytes(archive)

    status, body = fetch(served, signed["data"]["url"])
    assert status == 503, f"{status} with {len(body)} bytes"
    assert error_code(body) == "source_download_unavailable"
    wait_until(lambda: degraded(served).get(alpha) == "corrupt_archive", "health names the alpha")
    assert served.get(pnl(alpha))[0] == 200  # the build itself is whole: its routes are served

    archive.write_bytes(original)
    wait_until(lambda: alpha not in degraded(served), "health ok once the archive is restored")
    status, content = fetch(served, signed["data"]["url"])
    assert status == 200 and hashlib.sha256(content).hexdigest() == signed["data"]["sha256"]
