"""The sweep of a key that reads one alpha: what it may not receive (`Foreign`), its world (the
server, the keys), each GET it may make (`Call`), and the path values of one."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.ops.keys import IssuedKey, KeyedSite


@dataclass
class Foreign:
    """What a key of ALPHA alone may not receive, collected with an administrator's key."""

    ids: set[str]
    strings: set[str]  # names, source ids and build ids of the other alphas
    symbols: set[str]  # held by another alpha's book, never seen in ALPHA's own data
    pattern: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        words = sorted(self.symbols, key=len, reverse=True)
        # A symbol as a whole token: not inside a longer word, an id or a base64 cursor.
        self.pattern = re.compile(
            r"(?<![A-Za-z0-9_\-])(" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9_\-])"
        )


@dataclass
class World(KeyedSite):
    folder: Path
    admin: IssuedKey
    one: IssuedKey
    foreign: Foreign = field(init=False)


@dataclass
class Call:
    endpoint: str
    path: str
    params: dict[str, Any]
    collection: bool


def expand(names: list[str], values: dict[str, list[Any]], fixed: dict[str, Any]) -> list[dict[str, Any]]:
    combos: list[dict[str, Any]] = [{}]
    for name in names:
        options = [fixed[name]] if name in fixed else values[name]
        combos = [{**c, name: option} for c in combos for option in options]
    return combos


def path_arguments(call: Call, world: World) -> dict[str, Any]:
    """The path values of a sweep's request: the alpha, and the date, dataset or symbol it names."""
    parts = call.path.strip("/").split("/")
    found: dict[str, Any] = {}
    if len(parts) > 2 and parts[1] == "alphas":
        found["alpha"] = parts[2]
    if call.endpoint == "signals.rebalances.get":
        found["date"] = parts[-1]
    if call.endpoint == "exports.download":
        found["dataset"] = parts[-1]
    if call.endpoint == "benchmarks.daily":
        found["symbol"] = parts[2]
    return found
