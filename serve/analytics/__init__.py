"""The analytics routes' answers: per-build inputs read from a build's view, the catalogue-wide
figures (trials, correlation) cached by the set of builds behind them, and the payloads.

Formulas live in `analytics/` (shared with the pipeline, which materialises the per-build tables);
docs/analytics.md states them. Pure of HTTP: errors are the `serve.errors` the routes raise.
"""
