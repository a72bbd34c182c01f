"""Performance and signal-quality metrics (`/metrics`, `/metrics/_doc`).

`compute_metrics(inputs, granularity, from, to, panel, access)` is pure; `metrics_inputs(view)`
reads a build's tables once, through the request's build view; `metrics_doc()` is the
documentation block.
"""

from serve.metrics.compute import GRANULARITIES, compute_metrics
from serve.metrics.doc import SCHEMA_VERSION, metrics_doc, shared_metrics_doc
from serve.metrics.inputs import Access, Conventions, MetricsInputs, metrics_inputs, read_inputs

__all__ = [
    "GRANULARITIES",
    "SCHEMA_VERSION",
    "Access",
    "Conventions",
    "MetricsInputs",
    "compute_metrics",
    "metrics_doc",
    "metrics_inputs",
    "read_inputs",
    "shared_metrics_doc",
]
