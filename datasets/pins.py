"""Builds and catalogue generations a record read, kept while the record exists (issue 64, item 5).

    {root}/pins/{name}.json    {"name", "generation", "alphas": {alpha_id: build_id},
                                "benchmarks": {symbol: build_id}, "reason", "pinned_at"}

A decision's snapshot names what it read: the alpha's build, the approved alphas' builds its
reference-set checks were measured against, SPY's build and the catalogue generation (its index
and matrices). `alpha-results promote` and `retire` write a pin naming them, and the lake's garbage
collection (`datasets.retention`, `datasets.catalogue_index.collect`) never deletes what a pin
names: the records are never deleted, so neither is a pin. So a decision can be reproduced from
the API a year later (`as_of` its read time), whatever was published since.

Pins are written once and never changed; reading them is one listing of this folder (a pin per
decision: the operator's decisions, not the catalogue, set its size).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from alpha_results_seal.storage import Storage
from datasets import clock, layout

PINS_DIR = "pins"


def pins_dir(root: str) -> str:
    return layout.join(root, PINS_DIR)


@dataclass(frozen=True)
class Pinned:
    """What every pin of a lake names together."""

    generations: frozenset[int] = frozenset()
    alphas: Mapping[str, frozenset[str]] = field(default_factory=dict)  # alpha_id -> build ids
    benchmarks: Mapping[str, frozenset[str]] = field(default_factory=dict)  # symbol -> build ids

    def builds_of(self, builds_dir: str, root: str) -> frozenset[str]:
        """The pinned build ids under one alpha's (or benchmark's) builds folder."""
        for alpha, builds in self.alphas.items():
            if layout.alpha_builds_dir(root, alpha) == builds_dir:
                return builds
        for symbol, builds in self.benchmarks.items():
            if layout.benchmark_builds_dir(root, symbol) == builds_dir:
                return builds
        return frozenset()


def pin(
    storage: Storage,
    root: str,
    name: str,
    *,
    generation: int | None,
    alphas: Mapping[str, str],
    benchmarks: Mapping[str, str],
    reason: str,
) -> None:
    """Writes the pin `name` (once: a pin of that name already written is kept as it is)."""
    document: dict[str, Any] = {
        "name": name,
        "generation": generation,
        "alphas": dict(alphas),
        "benchmarks": dict(benchmarks),
        "reason": reason,
        "pinned_at": clock.now().isoformat(timespec="seconds"),
    }
    path = layout.join(pins_dir(root), f"{name}.json")
    try:
        storage.create_exclusive(path, json.dumps(document, indent=1).encode())
    except FileExistsError:
        return


def pinned(storage: Storage, root: str) -> Pinned:
    """Everything the lake's pins name (an unreadable pin protects nothing it cannot name, and is
    logged by nobody: it is the operator's file to mend)."""
    generations: set[int] = set()
    alphas: dict[str, set[str]] = {}
    benchmarks: dict[str, set[str]] = {}
    folder = pins_dir(root)
    for name in storage.list_names(folder):
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            document = json.loads(storage.read_bytes(layout.join(folder, name)))
        except (OSError, ValueError):
            continue
        if isinstance(document.get("generation"), int):
            generations.add(document["generation"])
        for alpha, build in (document.get("alphas") or {}).items():
            alphas.setdefault(str(alpha), set()).add(str(build))
        for symbol, build in (document.get("benchmarks") or {}).items():
            benchmarks.setdefault(str(symbol), set()).add(str(build))
    return Pinned(
        frozenset(generations),
        {a: frozenset(b) for a, b in alphas.items()},
        {s: frozenset(b) for s, b in benchmarks.items()},
    )
