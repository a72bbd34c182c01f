"""Every figure field a route serves, with its declaration (the OpenAPI document's own walk)."""

from __future__ import annotations

import msgspec

from schemas.bodies.envelope import EnvelopeMeta
from schemas.bodies.figures import DeclaredField, declared_fields
from serve.endpoints import endpoints
from serve.openapi.declared import held_structs


def _served_structs() -> list[type[msgspec.Struct]]:
    """Every Struct a route serves, and what they hold (the OpenAPI document's own walk)."""
    roots = [s for e in endpoints().values() for s in (e.body, e.rows) if s is not None] + [EnvelopeMeta]
    return held_structs(roots)


def _served() -> list[DeclaredField]:
    return declared_fields(_served_structs())
