"""`ApiStruct`: the base of every body, row and object the client decodes (`_generated.py`, `_envelope.py`).

A msgspec Struct whose repr leaves out the fields the server did not send (`UNSET`), so printing
a body shows what it holds instead of a wall of `field=UNSET`; an explicit null (`None`) is
shown, as the API distinguishes the two. Equality, hashing, encoding and `msgspec.structs`
are msgspec's own.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET


class ApiStruct(msgspec.Struct, kw_only=True, frozen=True):
    """A frozen msgspec Struct whose repr omits `UNSET` fields."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.__rich_repr__())
        return f"{type(self).__name__}({shown})"

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        """The fields `rich` (and `repr`) show: every one the server sent."""
        fields = ((name, getattr(self, name)) for name in self.__struct_fields__)
        return [(name, value) for name, value in fields if value is not UNSET]
