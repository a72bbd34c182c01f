"""The formulas of the analytics routes, as pure functions of numpy arrays (no I/O, no HTTP).

The pipeline materialises what depends on one build (`pipeline/analytics_tables.py`: drawdown
episodes, rolling series, weekly turnover by decile); the server applies the same functions to a
requested window and to the catalogue (`serve/analytics/`). docs/analytics.md states every formula
with its reference.
"""
