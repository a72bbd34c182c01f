"""What computing a figure can fail with: domain errors, with no HTTP in them.

A figure refuses its input (a parameter that breaks a rule, an alpha outside the set the caller
may read, data the caller may not read) or finds the data behind it unusable (the build predates
the analytics tables). Reading the catalogue or a benchmark fails with the lake's faults
(`datasets.faults`: `CatalogueIncomplete`, `BenchmarkMissing`). The HTTP boundary maps each
to the error envelope in one place (`serve/failures.py`, `as_api_error`); a notebook sees them as they
are. Messages never name an alpha the caller may not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class FigureError(Exception):
    """A figure cannot be computed for this input."""

    def __init__(self, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = dict(details or {})


class BadParameters(FigureError):
    """Parameters that break a rule: each named with the rule it broke (a 400 over HTTP)."""

    def __init__(self, problems: Mapping[str, str], details: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"Invalid parameter(s): {', '.join(sorted(problems))}.", details)
        self.problems = dict(problems)


class NotReadable(FigureError):
    """An alpha a parameter names that the caller may not read, whether it exists or not."""

    def __init__(self, alpha: str, parameter: str) -> None:
        super().__init__(f"{parameter} names an alpha this caller may not read", {"alpha": alpha})
        self.alpha = alpha
        self.parameter = parameter


class DataNotReadable(FigureError):
    """Rows built from data the caller may not read (the ledger, the cross-sections): a page
    with those rows withheld would be a page with missing rows. `endpoint` names the route whose
    grant would let the caller read the data."""

    def __init__(self, message: str, endpoint: str) -> None:
        super().__init__(message, {"endpoint": endpoint})
        self.endpoint = endpoint


class AnalyticsNotBuilt(FigureError):
    """The build was published before the analytics tables its figures are read from."""
