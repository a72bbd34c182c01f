"""Every figure beyond the spec's collections, and the `/metrics` object: formulas, and the
assembly of each answer as the contract's Struct (schemas/bodies/), from a build view, the
catalogue snapshot or plain arrays. No HTTP: faults are domain errors (`analytics.errors`).

The pipeline materialises what depends on one build (`pipeline/analytics_tables.py`: drawdown
episodes, rolling series, weekly turnover by decile; `pipeline/index_rows.py`: the index's
headline figures); the server, a notebook (`analytics.figures`) and the checks apply the same
functions to a requested window and to the catalogue. docs/analytics.md states every formula with
its reference; docs/development.md, "Where a figure lives", lists the modules.
"""

LAZY_MODULES = ("scipy.stats", "scipy.optimize", "scipy.linalg")
"""The modules `analytics/` imports inside the functions that use them (about 2.5 s together on a
busy machine: a build or a CLI command that computes no p-value does not pay it); a server worker
imports them before its first request (`serve.warm`). A new lazy import is named here too: the
suite fails when a request imports a module (tests/ops/test_first_request.py)."""
