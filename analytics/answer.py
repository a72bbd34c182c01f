"""An answer as every surface receives it (issue 46): its Struct (or page), the warnings the API
puts in `meta.warnings`, and its version, the material of its ETag (what it depends on: the builds
it read, and for an answer over the catalogue only those of the alphas its reader may read)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from schemas.bodies.service import Warning

T = TypeVar("T")


@dataclass(frozen=True)
class Answer(Generic[T]):
    """An answer: its Struct (or page), the warnings of `meta.warnings`, and its version."""

    data: T
    warnings: list[Warning]
    version: str
