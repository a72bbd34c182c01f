"""Performance and signal-quality metrics (`/metrics`, `/metrics/_doc`).

`compute_metrics(inputs, granularity, from, to, panel, access)` is pure; `InputsCache` reads a
build's tables once; `metrics_doc()` is the documentation block.
"""

from serve.metrics.compute import GRANULARITIES, compute_metrics
from serve.metrics.doc import SCHEMA_VERSION, metrics_doc, shared_metrics_doc
from serve.metrics.inputs import Access, Conventions, InputsCache, MetricsInputs, read_inputs

__all__ = [
    "GRANULARITIES",
    "SCHEMA_VERSION",
    "Access",
    "Conventions",
    "InputsCache",
    "MetricsInputs",
    "compute_metrics",
    "metrics_doc",
    "read_inputs",
    "shared_metrics_doc",
]
