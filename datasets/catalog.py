"""What the lake serves: published alphas and benchmarks, found by their pointers.

A reader resolves `_current.json` once and then reads only inside that build, so it sees one
consistent version even while a new one is being published.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from alpha_results_seal.storage import Storage
from datasets import layout
from datasets.faults import CorruptLakeFile as CorruptLakeFile


@dataclass(frozen=True)
class PublishedBuild:
    name: str  # alpha_id or benchmark symbol
    build_id: str
    build_dir: str


def read_json(storage: Storage, path: str) -> dict[str, Any] | None:
    """A JSON object from the lake, or None when the file is absent."""
    if not storage.exists(path):
        return None
    try:
        document = json.loads(storage.read_bytes(path))
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise CorruptLakeFile(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise CorruptLakeFile(f"{path} does not hold a JSON object")
    return document


def _pointed_build(pointer: dict[str, Any] | None, path: str) -> str | None:
    if pointer is None:
        return None
    build_id = pointer.get("build_id")
    if not isinstance(build_id, str) or not build_id:
        raise CorruptLakeFile(f"{path} names no build")
    return build_id


def current_build(root: str, alpha_id: str, storage: Storage | None = None) -> PublishedBuild | None:
    if not layout.ALPHA_ID_PATTERN.fullmatch(alpha_id):
        return None  # not a valid alpha id: nothing is published under it
    storage = storage or Storage(root)
    path = layout.alpha_pointer(root, alpha_id)
    build_id = _pointed_build(read_json(storage, path), path)
    if build_id is None:
        return None
    return PublishedBuild(alpha_id, build_id, layout.alpha_build_dir(root, alpha_id, build_id))


def published_alpha_ids(root: str, storage: Storage | None = None) -> list[str]:
    storage = storage or Storage(root)
    return [
        name
        for name in storage.list_names(layout.alphas_dir(root))
        if layout.ALPHA_ID_PATTERN.fullmatch(name) and storage.exists(layout.alpha_pointer(root, name))
    ]


def read_alpha(root: str, build: PublishedBuild, storage: Storage | None = None) -> dict[str, Any]:
    """The catalogue entry (alpha.json) of a build."""
    document = read_json(storage or Storage(root), layout.join(build.build_dir, layout.ALPHA_JSON))
    if document is None:
        raise FileNotFoundError(f"{build.build_dir} has no {layout.ALPHA_JSON}")
    return document


def read_description(
    root: str, build: PublishedBuild, storage: Storage | None = None
) -> dict[str, Any] | None:
    """The normalised description, or None when the alpha has no written description."""
    return read_json(storage or Storage(root), layout.join(build.build_dir, layout.DESCRIPTION_JSON))


def read_source(root: str, build: PublishedBuild, storage: Storage | None = None) -> dict[str, Any] | None:
    """The source archive record, or None when the engine recorded none."""
    return read_json(storage or Storage(root), layout.join(build.build_dir, layout.SOURCE_JSON))


def list_alphas(root: str) -> list[dict[str, Any]]:
    """Catalogue entries of every published alpha, newest `started_at` first, then by alpha_id."""
    storage = Storage(root)
    entries = []
    for alpha_id in published_alpha_ids(root, storage):
        build = current_build(root, alpha_id, storage)
        if build is not None:
            entries.append(read_alpha(root, build, storage))
    entries.sort(key=catalogue_order)
    return entries


def catalogue_order(entry: Mapping[str, Any]) -> tuple[bool, float, str]:
    """Sort key of the catalogue (fixed by the spec): `started_at` newest first, entries without
    one last, then `alpha_id` ascending. `started_at` is alpha.json's text or the catalogue index's
    instant (a `datetime`, issue 65 item 7): both order alike."""
    started = entry.get("started_at")
    try:
        if isinstance(started, datetime):
            moment: datetime | None = started
        else:
            moment = datetime.fromisoformat(str(started)) if started else None
    except ValueError:
        moment = None
    if moment is None:
        return (True, 0.0, str(entry.get("alpha_id")))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (False, -moment.timestamp(), str(entry.get("alpha_id")))


def current_benchmark(root: str, symbol: str, storage: Storage | None = None) -> PublishedBuild | None:
    if not layout.BENCHMARK_SYMBOL_PATTERN.fullmatch(symbol):
        return None
    storage = storage or Storage(root)
    path = layout.benchmark_pointer(root, symbol)
    build_id = _pointed_build(read_json(storage, path), path)
    if build_id is None:
        return None
    return PublishedBuild(symbol, build_id, layout.benchmark_build_dir(root, symbol, build_id))


def list_benchmarks(root: str) -> list[dict[str, Any]]:
    """benchmark.json of every published benchmark, with `daily_path` to its Parquet file."""
    storage = Storage(root)
    found = []
    for symbol in storage.list_names(layout.benchmarks_dir(root)):
        build = current_benchmark(root, symbol, storage)
        if build is None:
            continue
        info = read_json(storage, layout.join(build.build_dir, layout.BENCHMARK_JSON)) or {"symbol": symbol}
        found.append({**info, "daily_path": layout.join(build.build_dir, layout.BENCHMARK_DAILY)})
    return found


def list_builds(root: str, storage: Storage | None = None) -> list[dict[str, Any]]:
    """Every build kept in the lake: per alpha and per benchmark, the current one and the retained
    previous ones (newest `built_at` first within a name), with their facts."""
    storage = storage or Storage(root)
    found: list[dict[str, Any]] = []
    for alpha_id in storage.list_names(layout.alphas_dir(root)):
        if not layout.ALPHA_ID_PATTERN.fullmatch(alpha_id):
            continue
        current = current_build(root, alpha_id, storage)
        builds = []
        for build_id in storage.list_names(layout.alpha_builds_dir(root, alpha_id)):
            entry = read_json(
                storage, layout.join(layout.alpha_build_dir(root, alpha_id, build_id), layout.ALPHA_JSON)
            )
            if entry is None:  # a build being written (or a leftover of a crash): not published
                continue
            builds.append(
                {
                    "kind": "alpha",
                    "name": alpha_id,
                    "build_id": build_id,
                    "current": current is not None and current.build_id == build_id,
                    "built_at": entry.get("built_at"),
                    "sealed_at": entry.get("sealed_at"),
                    "pipeline_version": entry.get("pipeline_version"),
                    "complete": entry.get("complete"),
                    "rows": sum(int(t.get("rows", 0)) for t in (entry.get("tables") or {}).values()),
                    "bytes": entry.get("build_bytes"),
                }
            )
        found.extend(sorted(builds, key=lambda b: str(b["built_at"] or ""), reverse=True))
    for symbol in storage.list_names(layout.benchmarks_dir(root)):
        if not layout.BENCHMARK_SYMBOL_PATTERN.fullmatch(symbol):
            continue
        current = current_benchmark(root, symbol, storage)
        builds_dir = layout.benchmark_builds_dir(root, symbol)
        for build_id in storage.list_names(builds_dir):
            info = read_json(storage, layout.join(builds_dir, build_id, layout.BENCHMARK_JSON))
            if info is None:
                continue
            found.append(
                {
                    "kind": "benchmark",
                    "name": symbol,
                    "build_id": build_id,
                    "current": current is not None and current.build_id == build_id,
                    "built_at": None,
                    "sealed_at": None,
                    "pipeline_version": None,
                    "complete": True,
                    "rows": info.get("rows"),
                    "bytes": info.get("bytes"),
                    "first_date": info.get("first_date"),
                    "last_date": info.get("last_date"),
                }
            )
    return found
