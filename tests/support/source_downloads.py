"""The source download route on a local lake: its path, the base URL its signed URLs are under,
the build's source record, and a signed URL's path as the TestClient requests it."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

BASE = "https://api.example.test/prefix"
SOURCE = "/v1/alphas/{}/source/download"


def source_record(lake: Path, alpha: str) -> dict | None:
    pointer = json.loads((lake / "alphas" / alpha / "_current.json").read_text())
    path = lake / "alphas" / alpha / "builds" / pointer["build_id"] / "source.json"
    return json.loads(path.read_text()) if path.exists() else None


def local_path(url: str) -> str:
    """The path and query of a signed URL, as the TestClient requests it."""
    assert url.startswith(BASE + "/downloads/")
    parts = urlsplit(url)
    return parts.path.removeprefix("/prefix") + "?" + parts.query
