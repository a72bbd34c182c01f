"""What the analytics read from one build's view, as numpy arrays, computed once per build."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analytics.errors import AnalyticsNotBuilt, BadParameters
from analytics.returns import daily_returns
from datasets.queries import Window, window_bounds
from datasets.reader import BuildView
from datasets.rows import floats

MARKER_TABLE = "analytics_drawdowns"
"""Written for every build from pipeline 2.2 on (empty without a ledger)."""


@dataclass(frozen=True)
class Ledger:
    """One book's sessions in date order."""

    days: np.ndarray  # days since 1970 (int32)
    starting_equity: np.ndarray
    ending_equity: np.ndarray
    equity_basis: np.ndarray
    execution_cost: np.ndarray
    turnover_notional: np.ndarray
    turnover: np.ndarray  # one-way: 1/2 sum |quantity x mid| / starting_equity (NaN where none)
    risk_free_return: np.ndarray  # what the cash earned per session

    def window(self, window: Window) -> Ledger:
        return self._rows(*window_bounds(self.days, window))

    def split(self, last: dt.date | None) -> tuple[Ledger, Ledger]:
        """The sessions on or before `last`, and those after it (None: none after). Cut at a
        position, never at the day after `last`, which date.max does not have."""
        cut = window_bounds(self.days, (None, last))[1]
        return self._rows(0, cut), self._rows(cut, self.days.size)

    def keep(self, sessions: np.ndarray) -> Ledger:
        """The sessions a boolean mask keeps, in date order (a regime's: `analytics.regimes`)."""
        return Ledger(*(getattr(self, name)[sessions] for name in Ledger.__dataclass_fields__))

    def _rows(self, a: int, b: int) -> Ledger:
        return Ledger(*(getattr(self, name)[a:b] for name in Ledger.__dataclass_fields__))

    @property
    def returns(self) -> np.ndarray:
        return daily_returns(self.starting_equity, self.ending_equity)


def book_turnover(part: Ledger) -> np.ndarray:
    """The finite one-way `turnover` of the part's sessions (1/2 sum |quantity x mid| /
    starting_equity: the column whose mean the run seals as /metrics' mean_turnover), as the
    turnover check and each part of /analytics/live average it."""
    return part.turnover[np.isfinite(part.turnover)]


@dataclass(frozen=True)
class Series:
    """A dated series (days since 1970, ascending) of floats."""

    days: np.ndarray
    values: np.ndarray

    def window(self, window: Window) -> Series:
        a, b = window_bounds(self.days, window)
        return Series(self.days[a:b], self.values[a:b])


def require_built(view: BuildView) -> None:
    """503 `analytics_not_built` for a build published before the analytics tables."""
    if view.table(MARKER_TABLE) is None:
        version = view.entry.get("pipeline_version")
        raise AnalyticsNotBuilt(
            f"The served build {view.build_id} of {view.alpha_id} was published by pipeline {version}, "
            "before the analytics tables; an operator rebuilds it with `alpha-results build` "
            "(pipeline 2.2 or later).",
            details={"build": view.build_id, "pipeline_version": version},
        )


def _days(table: pa.Table, column: str = "date") -> np.ndarray:
    return table.column(column).cast(pa.int32()).to_numpy()


def ledger(view: BuildView, book: str) -> Ledger | None:
    """The ledger of `book`; None when the build has none for it."""

    def read() -> Ledger | None:
        rows = view.book_rows("portfolio", book)
        if rows is None:
            return None
        return Ledger(
            _days(rows),
            *(
                floats(rows.column(name))
                for name in (
                    "starting_equity",
                    "ending_equity",
                    "equity_basis",
                    "execution_cost",
                    "turnover_notional",
                    "turnover",
                    "risk_free_return",
                )
            ),
        )

    return view.memo(f"analytics:ledger:{book}", read)


def weekly_ic(view: BuildView, column: str = "ic") -> Series | None:
    """The conditioned weekly IC (`weekly_signal.ic`; `raw_ic`: the raw signal's), NaN where not
    computable; None without cross-sections."""

    def read() -> Series | None:
        table = view.table("weekly_signal")
        if table is None:
            return None
        return Series(_days(table), floats(table.column(column)))

    return view.memo("analytics:weekly_ic" if column == "ic" else f"analytics:weekly_{column}", read)


def table_rows(view: BuildView, name: str, book: str, **equal: int) -> pa.Table | None:
    """The rows of analytics table `name` for `book` (and columns equal to the given values), in
    the table's order, selected once per build; None when the build wrote no such table."""

    def select() -> pa.Table | None:
        table = view.table(name)
        if table is None:
            return None
        keep = np.asarray(table.column("book").to_numpy(zero_copy_only=False) == book)
        for column, value in equal.items():
            keep &= table.column(column).to_numpy(zero_copy_only=False) == value
        return table.filter(pa.array(keep))

    return view.memo(f"analytics:{name}:{book}:{sorted(equal.items())}", select)


def require_window_sessions(
    count: int, whole: int, window: Window, minimum: int, what: str, one: str | None = None
) -> None:
    """The decision routes' rule for a window too short: a 400 naming `from`/`to` when the window
    holds fewer than `minimum` `what` although the whole history holds enough (the caller's to
    fix). A history too short on its own is no bad input: its figures are `not_measurable`.
    `one`: `what` in the singular, when it is not `what` without its "sessions"' s."""
    if count >= minimum or whole < minimum or (window[0] is None and window[1] is None):
        return
    rule = f"the window holds {count} {what}; at least {minimum} are needed"
    if count == 1:
        rule = rule.replace("holds 1 sessions", "holds 1 session")
        if one is not None:
            rule = rule.replace(f"holds 1 {what}", f"holds 1 {one}")
    raise BadParameters(
        {side: rule for side, bound in zip(("from", "to"), window, strict=True) if bound is not None}
    )
