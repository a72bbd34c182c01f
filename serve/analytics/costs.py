"""`/analytics/costs`: what a book's modelled execution costs take (`analytics.costs`), its
turnover by score decile and its holding period (the pipeline's `analytics_turnover` rows)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from analytics import costs
from datasets.queries import Window
from datasets.reader import BuildView
from schemas import wire
from serve.analytics import inputs
from serve.analytics.entries import conventions, day_bounds, stat, window_echo, withheld
from serve.metrics import Access
from serve.metrics.blocks import BUCKET_COUNT
from serve.metrics.stats import Warnings, not_measurable, number

EQUITY = "equity"  # normalised equity: 1.0 = the book's equity at inception


def costs_payload(
    view: BuildView, book: str, window: Window, access: Access, warnings: Warnings
) -> dict[str, Any]:
    per_year = conventions(view).sessions_per_year
    source = f"portfolio:{book}"
    ledger = inputs.ledger(view, book)
    part = None if ledger is None or not access.ledger else ledger.window(window)
    f = None
    if not access.ledger:
        reason = withheld("ledger", "costs", warnings)
    elif part is None:
        reason = "the run has no ledger for this book"
    elif part.days.size == 0:
        reason = "the window holds no session of this book"
    else:
        f = costs.cost_figures(
            part.starting_equity,
            part.ending_equity,
            part.equity_basis,
            part.execution_cost,
            part.turnover_notional,
            per_year,
        )
        reason = f.why_not or ""

    def flow(value: float | None) -> dict[str, Any]:
        # + 0.0: a sum of zero costs is -0.0, served as 0.0
        return stat(None if value is None else value + 0.0, EQUITY, source, "not_annualisable", reason)

    out: dict[str, Any] = {
        "alpha": view.alpha_id,
        "book": book,
        "window": window_echo(window),
        "sessions": 0 if f is None else f.sessions,
        "net_pnl": flow(None if f is None else f.net_pnl),
        "execution_cost": flow(None if f is None else f.execution_cost),
        "gross_pnl": flow(None if f is None else f.gross_pnl),
        "traded_notional": flow(None if f is None else f.traded_notional),
        "break_even_multiple": stat(
            None if f is None else f.break_even_multiple, "multiple", "computed", "not_annualisable", reason
        ),
        "break_even_bps": stat(
            None if f is None else f.break_even_bps, "bps", "computed", "not_annualisable", reason
        ),
        "modelled_cost_bps": stat(
            None if f is None else f.modelled_cost_bps,
            "bps",
            "computed",
            "not_annualisable",
            reason if f is None else "the book traded nothing in the window",
        ),
        "information_ratio": {
            side: stat(
                None if f is None else getattr(f, f"{side}_information_ratio"),
                "ratio",
                "computed",
                "annualised",
                reason if f is None else "fewer than 2 daily returns with variance in the window",
                periods_per_year=per_year,
            )
            for side in ("gross", "net")
        },
    }
    out.update(_turnover(view, book, window, access, warnings))
    return out


def _turnover(
    view: BuildView, book: str, window: Window, access: Access, warnings: Warnings
) -> dict[str, Any]:
    found = inputs.table_rows(view, "analytics_turnover", book)
    rows = found if found is not None and found.num_rows else None
    if not access.cross_sections:
        reason = withheld("cross_sections", "costs.turnover_by_decile", warnings)
    elif rows is None:
        reason = _no_target_weights(view, book)
    else:
        reason = ""
    days = np.empty(0, np.int32) if rows is None else rows.column("date").cast("int32").to_numpy()
    low, high = day_bounds(window)
    keep = (days >= low) & (days <= high)
    if rows is None or reason or not keep.any():
        why = reason or "no week of the window has a previous week with a cross-section"
        return {
            "turnover_by_decile": None,
            "holding_period": not_measurable(
                why, unit="weeks", source="decisions", annualisation="not_annualisable"
            ),
        }
    bucket = rows.column("bucket").to_numpy()[keep].astype(np.int64)
    turnover = rows.column("turnover").to_numpy()[keep]
    gross = rows.column("gross_weight").to_numpy()[keep]
    week = days[keep]
    weeks, week_index = np.unique(week, return_inverse=True)
    per_week_turnover = np.bincount(week_index, weights=turnover, minlength=weeks.size)
    per_week_gross = np.bincount(week_index, weights=gross, minlength=weeks.size)
    bucketed_weeks = np.unique(week[bucket > 0]).size
    deciles = []
    for q in range(1, BUCKET_COUNT + 1):
        mine = bucket == q
        mean = float(np.sum(turnover[mine]) / bucketed_weeks) if bucketed_weeks else math.nan
        deciles.append(
            {
                "bucket": f"Q{q}",
                "rank": q,
                "weeks": int(np.count_nonzero(mine)),
                "mean_turnover": number(mean),
            }
        )
    return {
        "turnover_by_decile": {
            "score_field": wire.traded_score(book),
            "weight_field": f"{book}_target_weight",
            "weeks": int(weeks.size),
            "bucketed_weeks": int(bucketed_weeks),
            "mean_weekly_turnover": number(float(np.mean(per_week_turnover))),
            "unbucketed_mean_turnover": number(float(np.sum(turnover[bucket == 0]) / weeks.size)),
            "buckets": deciles,
        },
        "holding_period": stat(
            costs.holding_period_weeks(per_week_gross, per_week_turnover),
            "weeks",
            "decisions",
            "not_annualisable",
            "no turnover of target weights in the window",
        ),
    }


def _no_target_weights(view: BuildView, book: str) -> str:
    """Why a book has no turnover rows: the run sealed no decisions, or the book has no weight column."""
    if "decisions" not in view.kinds_present:
        return "the run sealed no decisions, so no book has target weights"
    if book not in wire.BASE_BOOKS:
        return f"only {', '.join(wire.BASE_BOOKS)} have target weights in the decisions"
    return f"the decisions hold no {book}_target_weight"
