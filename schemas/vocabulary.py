"""The vocabulary of the served figures: the terms (`schemas.terms`) by name, and the rules that keep
one served name to one meaning (issue 46, item 3; issue 79, item 1).

A field names its term on its declaration (`figure(..., term=terms.SHARPE)`, `doc(..., term=...)`):
nothing here finds a term by a field's served name. What reads a field's unit and annualisation (the
documentation blocks, `schemas.bodies.figures.documented` and `field_facts`, the stat entries built
from them, the OpenAPI `x-unit`, docs/reference.md's Vocabulary and the dashboard's labels,
`vocabulary.js`, whose terms the server makes from it when it starts: `as_javascript`) reads them from
the term the field names (`term_named`). `two_meanings` finds a served name given two terms:
tests/contract/test_vocabulary.py walks every served Struct with it, and fails on a figure field under a
term's name that names no term, a term no field uses, and a `figure(...)` that writes a unit or an
annualisation itself.

Pure declarations: no import of datasets/, analytics/ or serve/.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from types import MappingProxyType

from schemas.conventions import BOOK_CURRENCY
from schemas.terms import TERMS, Term

VOCABULARY: MappingProxyType[str, Term] = MappingProxyType({term.name: term for term in TERMS})
_TWICE = sorted(name for name, count in Counter(term.name for term in TERMS).items() if count > 1)
# One name, one meaning: a second Term of a name would silently replace the first's definition.
assert not _TWICE, f"schemas/terms.py declares these names twice: {_TWICE}"

STILL_TWO_MEANINGS: MappingProxyType[str, str] = MappingProxyType(
    {
        "ic": "/metrics core.ic is the sealed mean IC of the score; rank_ic.raw.ic the raw score's (raw_mean_ic), "
        "ic_deciles.buckets[].ic a decile's (decile_ic), panel.ic_weekly[].ic one week's (weekly_ic): the spec "
        "names each ic",
        "icir": "/metrics core.icir is the score's ICIR; rank_ic.raw.icir the raw score's (raw_icir): the spec "
        "names both icir",
        "pnl": "/metrics core.pnl is served in ratio units (sealed_pnl); /analytics/attribution's pnl in equity units",
        "turnover": "/metrics core.turnover is the first sealed turnover in its own unit (sealed_turnover), as the "
        "screener's; combine and contribution serve the alphas' common turnover unit (approximate_turnover); live, "
        "uncertainty and the checks serve the window's per year (turnover); the spec's /portfolio and /equity-curve "
        "rows one session's (session_turnover): the spec names each turnover",
        "observations": "/analytics/risk benchmark.observations counts sessions (observed_sessions); significance's "
        "bootstrap observations count the series' observations",
        "mean": "/metrics nwt.*.mean is the tested series' mean (newey_west_mean); /analytics/quantiles spread.mean "
        "the mean weekly spread (mean_spread)",
        "standard_error": "/metrics nwt.*.standard_error (newey_west_standard_error) against /analytics/quantiles' "
        "standard error of a mean weekly forward return",
        "weeks": "/analytics/live's parts serve their weeks with a measurable IC (ic_weeks), /metrics "
        "ic_term_structure[] its weeks with an h-week IC (horizon_ic_weeks); other routes their rebalance or common "
        "weeks (weeks)",
        "lag": "/metrics nwt.ir's Newey-West lag counts sessions (newey_west_lag, DailyNeweyWest), the weekly tests' "
        "(nwt.ic, nwt.ic_score_panel, ic_term_structure[].newey_west) weeks (newey_west_lag_weeks, NeweyWest)",
        "n": "/metrics nwt.ir.n counts the sessions tested (newey_west_sessions), the weekly tests' n the weeks "
        "(newey_west_weeks)",
        "book_return": "/analytics/factors' book_return is a week's (book_return); /analytics/returns' a calendar "
        "month's (monthly_return) or year's (calendar_year_return)",
        "partial_beta": "/analytics/residual benchmark.partial_beta is SPY's coefficient (partial_beta); betas[].partial_beta "
        "each reference alpha's (reference_partial_beta)",
        "periods_per_year": "sessions for a daily figure, weeks (weeks_per_year) for a weekly one: the figure's basis",
    }
)


COLUMNS_UNDER_A_TERMS_NAME: MappingProxyType[str, str] = MappingProxyType(
    {
        "DecisionRow.confidence": "the spec's decisions column, in the alpha's own score units",
        "BookRow.sessions": "the spec's books column: sessions of the book's ledger",
        "LedgerRow.execution_cost": "the spec's ledger column, in normalised equity",
        "LedgerRow.cash_carry": "the spec's ledger column, in normalised equity",
        "LedgerRow.rounding_adjustment": "the spec's ledger column, in normalised equity",
        "PositionRow.weight": "the spec's positions column: a position's weight at that close",
        "PnlRow.execution_cost": "the spec's P&L column, in base currency",
        "PnlRow.net_pnl": "the spec's P&L column, in base currency",
        "TradeRow.execution_cost": "the spec's trades column, in base currency",
        "EnvelopeMeta.sessions": "a count of the page's sessions, not a figure",
    }
)
"""Row columns (`doc(unit=...)`) whose served name is a term's but which are not that figure: stored
columns of the spec's tables, and what is still named so. Every other row column named as a term
takes the term (`doc(term=...)`): tests/contract/test_vocabulary.py holds the two lists exhaustive."""
"""Served names that a field names another term for because the name still carries two meanings
(issue 46, item 3: each is to be renamed); the reason says which."""

GENERIC_KEYS: frozenset[str] = frozenset(
    {"value", "alpha", "with", "difference", "min", "max", "statistic", "p_value", "lower", "upper"}
)
"""Served names that are positions, not figures (a stat's `value`, the sides of a comparison, a
policy's bounds, an interval's bounds, in their figure's unit): a field so named names its term."""


def term_named(name: str | None) -> Term | None:
    """The term a field names (`figure(..., term=...)` keeps its name), or none when it names none.
    Never a term found by the field's served name."""
    return None if name is None else VOCABULARY[name]


NO_TERM = "(no term)"
"""How `two_meanings` counts a figure that names no term: a meaning of its own."""


def two_meanings(fields: Iterable[tuple[str, str, str | None]]) -> dict[str, dict[str, list[str]]]:
    """Of `(where, served name, term name)` for each declared figure (the term None when it names
    none): every served name given more than one meaning, with where each is declared, a figure
    without a term counting as one (`NO_TERM`: served with a unit and a definition in one place and
    without them in another is two meanings too); a generic key (a position, whose figure is its
    parent's) and a name the spec still gives two meanings (`STILL_TWO_MEANINGS`) are not counted.
    One name, one meaning: a new field that serves a name already served with another term must
    take another name."""
    seen: dict[str, dict[str, list[str]]] = {}
    for where, name, term in fields:
        if name not in GENERIC_KEYS and name not in STILL_TWO_MEANINGS:
            seen.setdefault(name, {}).setdefault(term or NO_TERM, []).append(where)
    return {name: terms for name, terms in sorted(seen.items()) if len(terms) > 1}


def as_javascript() -> str:
    """The dashboard's labels as the ES module `terms.js` (each term's label, unit and basis, by name,
    the generic keys: positions, not figures, and the currency the unit base_currency is in), which serve/static/ui/vocabulary.js re-exports to
    labels.js. Made from this registry when the server starts (`serve.routes.dashboard`): never a
    file, so a new term changes this module alone."""
    entries = {
        term.name: {"label": term.label, "unit": term.unit, "basis": term.basis}
        for term in sorted(TERMS, key=lambda t: t.name)
    }
    body = ",\n".join(
        f"  {json.dumps(name)}: {json.dumps(entry, ensure_ascii=False)}" for name, entry in entries.items()
    )
    return (
        "// terms.js: made from schemas/vocabulary.py when the server starts (schemas.vocabulary.as_javascript): each\n"
        "// served figure name's label, unit and basis, as the registry writes them. labels.js names figures\n"
        "// from it.\n"
        "\n"
        "export const TERMS = Object.freeze({\n" + body + ",\n});\n"
        "\n"
        "// Served names that are positions, not figures (a stat's value, the sides of a comparison, a bound).\n"
        f"export const GENERIC_KEYS = Object.freeze({json.dumps(sorted(GENERIC_KEYS))});\n"
        "\n"
        "// The currency of the unit base_currency (schemas.conventions.BOOK_CURRENCY): how the page names it.\n"
        f"export const BOOK_CURRENCY = {json.dumps(BOOK_CURRENCY)};\n"
    )
