"""A served answer decoded strictly with its declared Struct and encoded again: the differences
(another value or type, key set or key order, length)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec


def differences(old: Any, new: Any, where: str = "data") -> Iterator[str]:
    """Where `new` is not `old`: another value or type, another key set or key order, another length."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            yield f"{where}: an object became {new!r}"
        elif list(old) != list(new):
            yield f"{where}: keys {list(old)} came back as {list(new)}"
        else:
            for key, value in old.items():
                yield from differences(value, new[key], f"{where}.{key}")
    elif isinstance(old, list):
        if not isinstance(new, list) or len(new) != len(old):
            yield f"{where}: a list of {len(old)} became {new!r}"
        else:
            for i, (a, b) in enumerate(zip(old, new, strict=True)):
                yield from differences(a, b, f"{where}[{i}]")
    else:
        if type(old) is not type(new) or old != new:
            yield f"{where}: {old!r} came back as {new!r}"


def round_trip(body: type[msgspec.Struct], served: Any, where: str, *, ordered: bool = True) -> list[str]:
    """`served` decoded strictly with `body` and encoded again: the differences (key order too,
    unless `ordered` is False)."""
    try:
        decoded = msgspec.json.decode(msgspec.json.encode(served), type=body)
    except msgspec.ValidationError as exc:
        return [f"{where}: {exc}"]
    again = json.loads(msgspec.json.encode(decoded))
    if not ordered:
        return [] if again == served else [f"{where}: {served!r} came back as {again!r}"]
    return [f"{where}: {problem}" for problem in differences(served, again, where)]
