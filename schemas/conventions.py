"""A run's metric conventions where its seal states none: the one place the service writes how many
sessions and weeks a year has (the seal kit, installed alone, writes its own into every manifest it
makes: `alpha_results_seal.demo.metrics`). A run's own `metric_conventions` win over these
(`analytics.entries.conventions`); tests/contract/test_conventions.py fails on a 252 or a 52
written as a number anywhere else in the service's code."""

from __future__ import annotations

SESSIONS_PER_YEAR = 252
"""Trading sessions a year: what a daily figure is annualised with (`sqrt(252)`, `x 252`)."""
WEEKS_PER_YEAR = 52
"""Weeks a year: what a weekly figure is annualised with."""


def weeks_of_sessions(sessions: int) -> int:
    """The weeks spanning as long as `sessions` trading sessions (21 -> 4, 63 -> 13, 252 -> 52)."""
    return round(sessions * WEEKS_PER_YEAR / SESSIONS_PER_YEAR)


BOOK_CURRENCY = "USD"
"""The currency of every book's capital, traded value and average daily traded value (the capacity
and costs routes' `base_currency` figures, served as their `currency`): an alpha's seal states none
(its ledger is normalised to 1.0 and its exposures' adv is in its prices' currency), so the service
declares it once here. The demo's universe is US equities (its benchmark seal, SPY, declares USD);
a lake of books in another currency changes this line, and a seal format that states a currency
per book would take this one's place."""
