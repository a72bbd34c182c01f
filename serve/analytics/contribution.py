"""`/analytics/contribution`: a reference set's equally weighted book before and after adding
the alpha at weight w (docs/analytics.md, "Marginal contribution").

before_t = mean_i r_i,t over the reference alphas; after_t = (1 - w) before_t + w a_t, over the
common sessions of the alpha and every reference alpha. The risk-free return of each book is the
same mix of the alphas' own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from analytics import combination
from analytics.combination import SESSIONS_PER_YEAR
from analytics.returns import book_figures
from serve import errors
from serve.analytics.combined import RETURNS_SOURCE, SESSION_RULE, SetReturns, change_entries, figure_entries
from serve.analytics.entries import stat

NO_CORRELATION = "a side has no variance over the common sessions"


def contribution_payload(found: SetReturns, weight: float | None) -> dict[str, Any]:
    """The body's figures; `found` holds the alpha first, then the reference set."""
    alpha, members = found.returns[:, 0], found.returns[:, 1:]
    before = members.mean(axis=1)
    chosen = "given"
    if weight is None:
        chosen = "optimal"
        weight = combination.optimal_weight(before, alpha)
        if not math.isfinite(weight):
            raise errors.bad_parameters(
                {
                    "weight": "required here: no weight in [0, 1] gives the book a measurable information ratio "
                    "(its returns have no variance over the common sessions)"
                }
            )
    after = (1.0 - weight) * before + weight * alpha
    rf_before = rf_after = None
    if found.risk_free is not None:
        rf_before = found.risk_free[:, 1:].mean(axis=1)
        rf_after = (1.0 - weight) * rf_before + weight * found.risk_free[:, 0]
    before_entries = figure_entries(
        book_figures(before, rf_before, SESSIONS_PER_YEAR), found.risk_free_reason
    )
    after_entries = figure_entries(book_figures(after, rf_after, SESSIONS_PER_YEAR), found.risk_free_reason)
    to_members = combination.pearson_with_columns(alpha, members)
    ids = found.ids[1:]
    known = np.isfinite(to_members)
    nearest = int(np.argmax(np.where(known, np.abs(to_members), -1.0))) if known.any() else None
    none = "no reference alpha has a correlation with the alpha (a side without variance)"
    return {
        "weight": {"value": weight, "chosen": chosen},
        "sessions": int(found.days.size),
        "session_rule": SESSION_RULE.replace("every alpha of the set", "the alpha and every reference alpha"),
        "before": before_entries,
        "after": after_entries,
        "change": change_entries(before_entries, after_entries),
        "correlation_to_set": _correlation(combination.pearson(alpha, before), NO_CORRELATION),
        "max_correlation_to_member": _correlation(
            math.nan if nearest is None else float(to_members[nearest]),
            none,
            alpha=None if nearest is None else ids[nearest],
        ),
        "mean_correlation_to_member": _correlation(
            float(np.mean(to_members[known])) if known.any() else math.nan,
            none,
            members=int(np.count_nonzero(known)),
        ),
    }


def _correlation(value: float, reason: str, **extra: Any) -> dict[str, Any]:
    return stat(value, "ratio", RETURNS_SOURCE, "not_annualisable", reason, **extra)
