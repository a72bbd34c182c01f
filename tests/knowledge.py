"""Knowledge time recomputed independently for the tests (polars over the build's `known_sessions`
rows, read from the open tables as its generation names them; nothing of `analytics/`): the last session the lake had published of an alpha when a decision was recorded,
which is where its live part starts (docs/events.md, "What was known when")."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import polars as pl

from tests.support.build_tables import build_table


def current_build(lake: Path, alpha: str) -> Path:
    build = json.loads((lake / "alphas" / alpha / "_current.json").read_text())["build_id"]
    return lake / "alphas" / alpha / "builds" / build


def known_split(lake: Path, alpha: str, recorded_at: dt.datetime) -> dt.date:
    """The last ledger session the current build says was first published at or before
    `recorded_at` (whole seconds, as the serving files keep them)."""
    known = build_table(current_build(lake, alpha), "known_sessions")
    second = recorded_at.astimezone(dt.UTC).replace(microsecond=999_999)
    held = known.filter(
        (pl.col("dataset") == "portfolio")
        & (pl.col("first_published_at").dt.truncate("1s") <= pl.lit(second).dt.cast_time_unit("us"))
    )
    found = held["date"].max()
    assert isinstance(found, dt.date)
    return found


def recorded_at(records: Path | str, alpha: str, action: str = "approved") -> dt.datetime:
    """When the alpha's latest decision `action` was recorded (the records' SQLite file, a path or a
    `sqlite:///` URL, read with sqlite3)."""
    with sqlite3.connect(str(records).removeprefix("sqlite:///")) as db:
        row = db.execute(
            "SELECT recorded_at FROM promotions WHERE alpha_id = ? AND action = ? ORDER BY id DESC LIMIT 1",
            (alpha, action),
        ).fetchone()
    assert row is not None, (alpha, action)
    return dt.datetime.fromisoformat(row[0])


def approval_recorded_at(records: Path, alpha: str) -> dt.datetime:
    """When the alpha's latest approval was recorded."""
    return recorded_at(records, alpha)


def demo_split(lake: Path, records: Path, alpha: str) -> str:
    """The demo's approved alpha's live split, as an ISO date."""
    return known_split(lake, alpha, approval_recorded_at(records, alpha)).isoformat()
