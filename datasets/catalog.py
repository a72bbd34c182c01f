"""What the lake serves: published alphas and benchmarks, found by their pointers.

A reader resolves `_current.json` once and then reads only inside that build, so it sees one
consistent version even while a new one is being published.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from datasets import layout
from datasets.storage import Storage


@dataclass(frozen=True)
class PublishedBuild:
    name: str  # alpha_id or benchmark symbol
    build_id: str
    build_dir: str


def _read_json(storage: Storage, path: str) -> dict[str, Any] | None:
    if not storage.exists(path):
        return None
    document = json.loads(storage.read_bytes(path))
    return document if isinstance(document, dict) else None


def current_build(root: str, alpha_id: str, storage: Storage | None = None) -> PublishedBuild | None:
    storage = storage or Storage(root)
    try:
        pointer = _read_json(storage, layout.alpha_pointer(root, alpha_id))
    except ValueError:  # not a valid alpha id: nothing is published under it
        return None
    if not pointer:
        return None
    build_id = str(pointer["build_id"])
    return PublishedBuild(alpha_id, build_id, layout.alpha_build_dir(root, alpha_id, build_id))


def published_alpha_ids(root: str, storage: Storage | None = None) -> list[str]:
    storage = storage or Storage(root)
    return [
        name
        for name in storage.list_names(layout.alphas_dir(root))
        if layout.ALPHA_ID_PATTERN.match(name) and storage.exists(layout.alpha_pointer(root, name))
    ]


def read_alpha(root: str, build: PublishedBuild, storage: Storage | None = None) -> dict[str, Any]:
    """The catalogue entry (alpha.json) of a build."""
    document = _read_json(storage or Storage(root), layout.join(build.build_dir, layout.ALPHA_JSON))
    if document is None:
        raise FileNotFoundError(f"{build.build_dir} has no {layout.ALPHA_JSON}")
    return document


def read_description(
    root: str, build: PublishedBuild, storage: Storage | None = None
) -> dict[str, Any] | None:
    """The normalised description, or None when the alpha has no written description."""
    return _read_json(storage or Storage(root), layout.join(build.build_dir, layout.DESCRIPTION_JSON))


def read_source(root: str, build: PublishedBuild, storage: Storage | None = None) -> dict[str, Any] | None:
    """The source archive record, or None when the engine recorded none."""
    return _read_json(storage or Storage(root), layout.join(build.build_dir, layout.SOURCE_JSON))


def list_alphas(root: str) -> list[dict[str, Any]]:
    """Catalogue entries of every published alpha, newest `started_at` first, then by alpha_id."""
    storage = Storage(root)
    entries = []
    for alpha_id in published_alpha_ids(root, storage):
        build = current_build(root, alpha_id, storage)
        if build is not None:
            entries.append(read_alpha(root, build, storage))
    entries.sort(key=lambda e: e["alpha_id"])
    entries.sort(key=lambda e: e["started_at"], reverse=True)
    return entries


def current_benchmark(root: str, symbol: str, storage: Storage | None = None) -> PublishedBuild | None:
    storage = storage or Storage(root)
    try:
        pointer = _read_json(storage, layout.benchmark_pointer(root, symbol))
    except ValueError:
        return None
    if not pointer:
        return None
    build_id = str(pointer["build_id"])
    return PublishedBuild(symbol, build_id, layout.benchmark_build_dir(root, symbol, build_id))


def list_benchmarks(root: str) -> list[dict[str, Any]]:
    """benchmark.json of every published benchmark, with `daily_path` to its Parquet file."""
    storage = Storage(root)
    found = []
    for symbol in storage.list_names(layout.join(root, "benchmarks")):
        build = current_benchmark(root, symbol, storage)
        if build is None:
            continue
        info = _read_json(storage, layout.join(build.build_dir, "benchmark.json")) or {"symbol": symbol}
        found.append({**info, "daily_path": layout.join(build.build_dir, "daily.parquet")})
    return found
