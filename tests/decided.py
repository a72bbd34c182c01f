"""Decisions a test records as of a past day: a decision is dated when it is recorded (issue 64), so
a test that needs an alpha approved on 2021-09-30 records it then, on that day's clock."""

from __future__ import annotations

import datetime as dt
from typing import Any

from records.promotions import Action, Promotion
from records.store import Records


def noon(day: str | dt.date) -> dt.datetime:
    return dt.datetime.combine(dt.date.fromisoformat(str(day)), dt.time(12), tzinfo=dt.UTC)


def decide_on(
    records: Records,
    alpha: str,
    action: Action,
    day: str | dt.date,
    by: str = "tests",
    note: str = "",
    build_id: str = "b",
    snapshot: dict[str, Any] | None = None,
) -> Promotion:
    """`records.decide` recorded at noon UTC of `day` (its as_of)."""
    promotion, _ = records.decide(
        alpha, action, dt.date.fromisoformat(str(day)), by, note, build_id, snapshot or {}, now=noon(day)
    )
    return promotion
