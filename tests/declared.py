"""What each route declares about its answer, by registry id, read from the handlers' declarations
(`serve.endpoints`) for the tests that walk every row, summary or body."""

from __future__ import annotations

from schemas.bodies.base import Body
from schemas.bodies.rows import DECLARED
from serve.endpoints import endpoints
from serve.openapi.declared import documented

DOCUMENTED = documented()

ROWS: dict[str, type[Body]] = {e.id: e.rows for e in endpoints().values() if e.rows in DECLARED}
"""The row Struct of each collection typed from the lake."""
SUMMARIES: dict[str, type[Body]] = {
    e.id: e.meta_summary for e in endpoints().values() if e.meta_summary is not None
}
"""The Struct of `meta.summary` of the two series."""
BODIES: dict[str, type[Body]] = {e.id: e.body for e in endpoints().values() if e.body in DOCUMENTED}
"""The single-object bodies whose Structs document each field."""
SINGLE_BODIES: dict[str, type[Body]] = {
    e.id: e.body
    for e in endpoints().values()
    if e.body is not None and e.body not in DOCUMENTED and e.enveloped
}
"""The other single objects inside the envelope (documented by each field's `doc` on its Struct)."""
ROW_BODIES: dict[str, type[Body]] = {
    e.id: e.rows for e in endpoints().values() if e.rows is not None and e.rows not in DECLARED
}
"""The rows of the collections the lake does not type (keys, builds, exports)."""
