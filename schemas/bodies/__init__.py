"""The `data` objects the OpenAPI document could once declare only as an open `object`, as Structs.

The server builds these answers as dicts; the Structs are their contract, so the OpenAPI document
can describe them (`msgspec.json.schema_components`) and the client can be generated from it
instead of typed by hand. tests/api/test_bodies.py decodes every recorded answer of each endpoint
with its Struct and encodes it back, byte for byte in key order.

`BODIES` maps the registry id of each endpoint to the Struct of its 200 body's `data`.
"""

from __future__ import annotations

from schemas.bodies.analytics import Costs, Significance
from schemas.bodies.base import Body
from schemas.bodies.comparison import Comparison
from schemas.bodies.decisions import Checks, Contribution, Risk
from schemas.bodies.description import AlphaDescription
from schemas.bodies.docs import AnalyticsDoc, MetricsDoc
from schemas.bodies.metrics import Metrics

BODIES: dict[str, type[Body]] = {
    "catalog.alphas.get": AlphaDescription,
    "performance.metrics": Metrics,
    "performance.metrics.doc": MetricsDoc,
    "analytics.significance": Significance,
    "analytics.costs": Costs,
    "analytics.contribution": Contribution,
    "analytics.checks": Checks,
    "analytics.compare": Comparison,
    "analytics.risk": Risk,
    "analytics.doc": AnalyticsDoc,
}

__all__ = [
    "BODIES",
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
