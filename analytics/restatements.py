"""What a build says was restated: values a later run changed after the lake had published them
(`restatements`, written by `pipeline.knowledge`; docs/lake.md, "Restatements").

One reading for every surface: the alpha's `/restatements` route, the `restated` warning on every
answer whose window holds a restated session (`restated_in`), the `alpha.restated` event, the alpha
page and the tear sheet. Read once per opened build.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from analytics.access import DATA_LABELS, FULL_ACCESS, Access
from datasets.reader import BuildView
from datasets.rows import date_at
from schemas import wire
from schemas.bodies.restatements import RestatementRow
from schemas.bodies.service import Warning

TABLE = "restatements"

DATASET_DATA = {"portfolio": "ledger", "decisions": "cross_sections", "metrics_stored": "ledger"}
"""The data each restated dataset's values are built from (`analytics.access.Access`): a key that
may not read it sees the restatement's date and field, not its values (`withheld_reason`)."""

WITHHELD_VALUES = ("symbol", "before", "after")
"""A restatement's values, null for a key that may not read the data they are built from."""


def withheld_reason(dataset: object, access: Access) -> str | None:
    """Why a key with `access` is not shown a restatement's values (`WITHHELD_VALUES`) of `dataset`:
    the data they are built from (`DATASET_DATA`) is not its to read; None when it is. The one rule
    the `/restatements` route and the `alpha.restated` event (`delivery.event_answers`) ask."""
    data = DATASET_DATA.get(str(dataset), "ledger")
    if access.may_read(data):
        return None
    return f"access_limited: built from {DATA_LABELS[data]}, which this key may not read"


@dataclass(frozen=True)
class Restated:
    """The build's restatements, in table order (`pipeline.knowledge.RESTATEMENT_ORDER`: restated_at,
    build_id, then dataset, book, date, field, period, symbol)."""

    table: pa.Table | None
    days: np.ndarray  # the restated dates (days since 1970), sorted ascending (for windows)
    data: np.ndarray  # what each of `days` is built from (`DATASET_DATA`), in the same order
    raw: np.ndarray  # whether each of `days` is of a raw book or field (`visible`), in the same order
    names: frozenset[str] = frozenset()  # the distinct values of `data`: a key's access asked once each

    @property
    def count(self) -> int:
        return 0 if self.table is None else self.table.num_rows

    def rows(self) -> list[dict[str, Any]]:
        return [] if self.table is None else self.table.to_pylist()

    def by_build(self, build_id: str) -> list[dict[str, Any]]:
        """The rows one build added (what its `alpha.restated` event lists)."""
        return [row for row in self.rows() if row.get("build_id") == build_id]


def visible(row: dict[str, Any], raw: bool) -> bool:
    """Whether a key with raw-book access `raw` sees the restatement `row` at all: the raw-book
    scope's rule (`schemas.wire.book_visible`, `field_visible`), as every other surface asks it. A
    restatement of a raw book does not exist for a key without raw-book access: not its row, not its
    date in a `restated` warning's count, not its values in an `alpha.restated` event."""
    return wire.book_visible(row.get("book"), raw) and wire.field_visible(str(row["field"]), raw)


def restated_of(view: BuildView) -> Restated:
    return view.memo(TABLE, lambda: _read(view))


def _read(view: BuildView) -> Restated:
    table = view.table(TABLE)
    if table is None or table.num_rows == 0:
        return Restated(
            table, np.empty(0, dtype=np.int64), np.empty(0, dtype=object), np.empty(0, dtype=bool)
        )
    days = np.asarray(table.column("date").cast(pa.int32()).to_numpy(zero_copy_only=False), dtype=np.int64)
    data = np.array(
        [DATASET_DATA.get(d, "ledger") for d in table.column("dataset").to_pylist()], dtype=object
    )
    raw = np.array(
        [not visible(row, False) for row in table.select(["book", "field"]).to_pylist()], dtype=bool
    )
    order = np.argsort(days, kind="stable")
    return Restated(table, days[order], data[order], raw[order], frozenset(str(name) for name in data))


@dataclass(frozen=True)
class InWindow:
    """The restated dates inside a window: how many, the first and the last."""

    count: int
    first: dt.date | None
    last: dt.date | None


def restated_in(
    view: BuildView,
    start: dt.date | None,
    end: dt.date | None,
    access: Access = FULL_ACCESS,
    raw: bool = True,
) -> InWindow:
    """The restatements dated inside [start, end] (None: open) of data `access` may read, and of
    raw books and fields only with raw-book access `raw` (`visible`), for the `restated` warning of
    an answer over that window."""
    found = restated_of(view)
    # Every answer over a window asks this: the access is asked once per kind of data, not per row.
    unreadable = [name for name in found.names if not access.may_read(name)]
    keep = np.ones(found.days.size, dtype=bool)
    if unreadable:
        keep &= ~np.isin(found.data, unreadable)
    if not raw:
        keep &= ~found.raw
    days = found.days if keep.all() else found.days[keep]
    if days.size == 0:
        return InWindow(0, None, None)
    lo = 0 if start is None else int(np.searchsorted(days, (start - dt.date(1970, 1, 1)).days, "left"))
    hi = days.size if end is None else int(np.searchsorted(days, (end - dt.date(1970, 1, 1)).days, "right"))
    if hi <= lo:
        return InWindow(0, None, None)
    inside = days[lo:hi]
    return InWindow(int(inside.size), date_at(inside, 0), date_at(inside, inside.size - 1))


def restatement_rows(
    view: BuildView, window: tuple[dt.date | None, dt.date | None], access: Access, raw: bool
) -> list[RestatementRow]:
    """The build's restatements dated inside `window` that a key with raw-book access `raw` sees
    (`visible`), the table's order reversed (newest restatement first, then build_id, dataset, book, date,
    field, period, symbol descending), each with both values unless
    the key may not read the data they are built from, then with `withheld_reason`."""
    start, end = window
    rows = []
    for row in reversed(restated_of(view).rows()):
        day = row["date"]
        if (start is not None and day < start) or (end is not None and day > end) or not visible(row, raw):
            continue
        why = withheld_reason(row["dataset"], access)
        rows.append(
            RestatementRow(
                restated_at=_wire(row["restated_at"]),
                build_id=row["build_id"],
                previous_build_id=row.get("previous_build_id"),
                dataset=row["dataset"],
                book=row.get("book"),
                date=day,
                field=row["field"],
                period=row.get("period"),
                symbol=None if why else row.get("symbol"),
                before=None if why else _finite(row.get("before")),
                after=None if why else _finite(row.get("after")),
                names_changed=row.get("names_changed"),
                withheld_reason=why,
            )
        )
    return rows


def _wire(value: object) -> str:
    """A time as the API writes it: the serving file's text, or a timestamp made so."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return aware.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value)


def _finite(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def restated_warning(
    view: BuildView, query: object, access: Access = FULL_ACCESS, raw: bool = True
) -> Warning | None:
    """The `restated` warning of an answer about `view` over the window `query` asks (its `start`
    and `end`, `from` and `to` on the wire; a week's `date`; the whole history without them): how
    many values a later run changed after the lake had first published them, in that window. Every
    surface adds it alike: the routes' `meta.warnings` first (`serve.routes.base.Context.run_meta`),
    `Figures`' warnings first. Only restatements of data `access` may read, and of raw books and fields
    only with raw-book access `raw`, are counted."""
    start = getattr(query, "start", None)
    end = getattr(query, "end", None)
    week = getattr(query, "date", None)
    if isinstance(week, dt.date):
        start = end = week
    found = restated_in(
        view,
        start if isinstance(start, dt.date) else None,
        end if isinstance(end, dt.date) else None,
        access,
        raw,
    )
    if not found.count:
        return None
    return Warning(
        code="restated",
        message=(
            f"{found.count} value(s) in this window, dated {found.first} to {found.last}, were restated: a later "
            "run changed them after the lake had first published them. The answer is today's; both values are "
            f"on /v1/alphas/{view.alpha_id}/restatements."
        ),
    )
