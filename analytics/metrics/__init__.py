"""Performance and signal-quality metrics (`/metrics`).

`compute_metrics(inputs, granularity, from, to, panel, access)` is pure; `metrics_inputs(view)`
reads a build's tables once, through the build's view.
"""

from analytics.access import Access
from analytics.metrics.compute import GRANULARITIES, compute_metrics
from analytics.metrics.inputs import Conventions, MetricsInputs, metrics_inputs, read_inputs

__all__ = [
    "GRANULARITIES",
    "Access",
    "Conventions",
    "MetricsInputs",
    "compute_metrics",
    "metrics_inputs",
    "read_inputs",
]
