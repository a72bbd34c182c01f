"""Drawdown episodes of an equity level series.

The level series is the opening equity of the first session followed by each session's ending
equity (the equity curve's convention: the peak includes the opening equity). An episode starts
at a running peak the level then falls below, reaches its trough (the lowest level before
recovery; the first one on a tie), and recovers at the first level at or above the peak; an
episode still under water at the end has no recovery.

`drawdown_rows` serves a book's episodes: the pipeline's table for the whole history, the same
function over the window's sessions when `from`/`to` narrow it (the peak restarts at the window's
start).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics import compounding, inputs
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import date_text, shape_of
from schemas import wire


@dataclass(frozen=True)
class Episode:
    peak: int  # index into the level series (0 = the opening equity)
    trough: int
    recovery: int | None
    peak_level: float
    trough_level: float

    @property
    def depth_pct(self) -> float:
        """Depth in percentage points of the peak."""
        return (self.peak_level - self.trough_level) / self.peak_level * 100.0


def levels(starting_equity: np.ndarray, ending_equity: np.ndarray) -> np.ndarray:
    """The level series: the first session's opening equity, then every session's ending equity."""
    if ending_equity.size == 0:
        return ending_equity.astype(np.float64)
    return np.concatenate([starting_equity[:1], ending_equity]).astype(np.float64)


def episodes(level: np.ndarray) -> list[Episode]:
    """Every episode of `level` in time order (non-finite or non-positive levels end the scan: a
    drawdown in percent of a peak exists only for a positive peak)."""
    found: list[Episode] = []
    finite = np.isfinite(level) & (level > 0)
    usable = int(np.argmin(finite)) if not finite.all() else level.size
    level = level[:usable]
    if level.size < 2:
        return found
    running = compounding.running_peak(level)
    under = level < running
    i = 1
    n = level.size
    while i < n:
        if not under[i]:
            i += 1
            continue
        peak = i - 1  # the last point at the running peak before the fall
        peak_level = float(level[peak])
        stop = i
        while stop < n and level[stop] < peak_level:
            stop += 1
        trough = i + int(np.argmin(level[i:stop]))
        recovery = stop if stop < n else None
        found.append(Episode(peak, trough, recovery, peak_level, float(level[trough])))
        i = stop
    return found


EPISODE_COLUMNS = (
    "peak_date",
    "trough_date",
    "recovery_date",
    "depth_pct",
    "sessions_to_trough",
    "sessions_to_recovery",
    "peak_equity",
    "trough_equity",
)


def episode_columns(
    dates: np.ndarray, starting_equity: np.ndarray, ending_equity: np.ndarray
) -> dict[str, list]:
    """The episodes of a book's sessions (`dates` ascending, any dtype) as columns of
    EPISODE_COLUMNS, deepest first (ties: the earlier peak first). The opening equity is dated
    with the first session."""
    level_dates = np.concatenate([dates[:1], dates]) if dates.size else dates
    found = sorted(episodes(levels(starting_equity, ending_equity)), key=lambda e: (-e.depth_pct, e.peak))
    return {
        "peak_date": [level_dates[e.peak] for e in found],
        "trough_date": [level_dates[e.trough] for e in found],
        "recovery_date": [None if e.recovery is None else level_dates[e.recovery] for e in found],
        "depth_pct": [e.depth_pct for e in found],
        "sessions_to_trough": [e.trough - e.peak for e in found],
        "sessions_to_recovery": [None if e.recovery is None else e.recovery - e.peak for e in found],
        "peak_equity": [e.peak_level for e in found],
        "trough_equity": [e.trough_level for e in found],
    }


def drawdown_rows(view: BuildView, book: str, window: Window) -> list[Any]:
    shape = shape_of(wire.DRAWDOWN_FIELDS)
    if window == (None, None):
        table = inputs.table_rows(view, "analytics_drawdowns", book)
        return [] if table is None else shape.rows(table)
    ledger = inputs.ledger(view, book)
    if ledger is None:
        return []
    part = ledger.window(window)
    columns = episode_columns(part.days.astype(np.int64), part.starting_equity, part.ending_equity)
    for name in ("peak_date", "trough_date"):
        columns[name] = date_text(np.asarray(columns[name], dtype=np.int64))
    recovered = [d for d in columns["recovery_date"] if d is not None]
    texts = iter(date_text(np.asarray(recovered, dtype=np.int64)))
    columns["recovery_date"] = [None if d is None else next(texts) for d in columns["recovery_date"]]
    return shape.from_columns([columns[name] for name in wire.DRAWDOWN_FIELDS])
