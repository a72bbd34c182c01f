"""The answers as Structs: the contract, and the values the server sends.

Figures (analytics/) and handlers build these Structs and msgspec encodes them, so each field's
meaning, unit, annualisation and null rule is declared once, on the field; the OpenAPI document
describes them (`msgspec.json.schema_components`) and the client is generated from it. tests/api/test_bodies.py decodes every recorded answer of each endpoint
with its Struct and encodes it back, byte for byte in key order.

`DOCUMENTED` lists the single-object bodies whose Structs document each field; a route names
its own body in its handler's return type (`Response[Single[Risk]]`, `serve.routes.declare`).
"""

from __future__ import annotations

from schemas.bodies.analytics import Costs, Significance
from schemas.bodies.base import Body
from schemas.bodies.comparison import Comparison
from schemas.bodies.decisions import Checks, Contribution, Risk
from schemas.bodies.description import AlphaDescription
from schemas.bodies.docs import AnalyticsDoc, MetricsDoc
from schemas.bodies.metrics import Metrics

DOCUMENTED: tuple[type[Body], ...] = (
    AlphaDescription,
    Metrics,
    MetricsDoc,
    Significance,
    Costs,
    Contribution,
    Checks,
    Comparison,
    Risk,
    AnalyticsDoc,
)
"""The single-object bodies whose Structs declare each field's meaning (the description, the
metrics, the analytics objects and the two documentation blocks); a route names its own body in
its handler's return type (`serve.routes.declare`)."""

__all__ = [
    "DOCUMENTED",
    "AlphaDescription",
    "AnalyticsDoc",
    "Body",
    "Checks",
    "Comparison",
    "Contribution",
    "Costs",
    "Metrics",
    "MetricsDoc",
    "Risk",
    "Significance",
]
