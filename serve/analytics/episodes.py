"""Drawdown episodes of a book: the pipeline's table for the whole history, the same function
over the window's sessions when `from`/`to` narrow it (the peak restarts at the window's start)."""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics.drawdowns import episode_columns
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import date_text, shape_of
from schemas import wire
from serve.analytics import inputs


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
