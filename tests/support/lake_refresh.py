"""A running app following its lake: publishes from another process, a seal sealed again, and
the check (shared by the local and the S3 lake) that new builds and new alphas are served after a
refresh."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from core.settings import Settings
from datasets import catalog
from datasets.reader import LakeReader
from pipeline.publish import publish_seal
from serve.app import create_app
from tests.api.conftest import fake_authenticate

RAW = {"Authorization": "Bearer raw"}
REFRESH = 60.0


def app_client(root: str) -> tuple[TestClient[Any], LakeReader]:
    reader = LakeReader(root, refresh_seconds=REFRESH)
    app = create_app(Settings(lake=root, environment="test"), authenticate=fake_authenticate, reader=reader)
    return TestClient(app=app), reader


def publish_elsewhere(seals: list[Path], root: str) -> None:
    """Publish from another process, as the pipeline does next to a running server (a publish in
    this process would share, and so refresh, the server's filesystem caches)."""
    script = "import sys\nfrom pipeline.publish import publish_seal\nfor s in sys.argv[2:]: publish_seal(s, sys.argv[1])"
    subprocess.run([sys.executable, "-c", script, root, *map(str, seals)], check=True, timeout=120)


def resealed(seal: Path, target: Path, tldr: str) -> Path:
    """`seal` sealed again with another tldr (in the manifest and, where it has one, in its
    description: a seal whose two texts differ is refused)."""
    shutil.copytree(seal, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["tldr"] = tldr
    (target / "manifest.json").write_text(json.dumps(manifest))
    description = target / "description.json"
    if description.exists():
        written = json.loads(description.read_text())
        if written.get("tldr") is not None:
            written["tldr"] = tldr
            description.write_text(json.dumps(written))
    return target


def served(client: TestClient[Any]) -> dict[str, str | None]:
    response = client.get("/v1/alphas", headers=RAW)
    assert response.status_code == 200, response.text
    return {row["alpha_id"]: row["tldr"] for row in response.json()["data"]}


def served_build(client: TestClient[Any], alpha: str) -> str:
    response = client.get(f"/v1/alphas/{alpha}/books", headers=RAW)
    assert response.status_code == 200, response.text
    source: str = response.json()["meta"]["source"]
    return source.rsplit("@", 1)[1]


def check_new_build_and_new_alpha_are_served(root: str, demo_seals: Path, tmp_path: Path) -> None:
    """Shared by the local and the S3 lake tests."""
    first = publish_seal(str(demo_seals / "Test_planted_factor"), root)
    client, reader = app_client(root)
    with client:
        before = served(client)
        assert list(before) == ["Test_planted_factor"]
        assert served_build(client, "Test_planted_factor") == first.build_id

        second = resealed(demo_seals / "Test_planted_factor", tmp_path / "second", "Sealed a second time.")
        publish_elsewhere([second, demo_seals / "Test_ledger_only"], root)
        new_build = catalog.current_build(root, "Test_planted_factor")
        assert new_build is not None and new_build.build_id != first.build_id

        assert served(client) == before  # until the next refresh, the catalogue is as it was

        reader.refresh()
        after = served(client)
        assert set(after) == {"Test_planted_factor", "Test_ledger_only"}
        assert after["Test_planted_factor"] == "Sealed a second time."
        assert served_build(client, "Test_planted_factor") == new_build.build_id
        assert client.get("/v1/alphas/Test_ledger_only/books", headers=RAW).status_code == 200
