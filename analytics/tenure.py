"""An alpha's tenure in the live book, and the one rule that splits its live part from its backtest
(issue 64, item 2).

A tenure is what the records say of an alpha's latest approval: when it was recorded (our clock,
never a date a seal or an operator claims), its effective date (`as_of`: the day it was recorded,
or an earlier day for a labelled import of a decision taken elsewhere), and the retirement that
ended it, if one did. Figures know no records: the server, the pipeline and a notebook hand the
tenures in as data (`analytics.standings.Standings`).

**Live means first seen after the decision.** The live part of a tenure is every session the lake
first published after the approval was recorded (`known_sessions.first_published_at`, carried
across rebuilds by the pipeline) and, for a retired alpha, first published by the time its
retirement was recorded. So the split is the last session the lake held when the approval was
recorded (`knowledge_split`): a session dated after an approval but published before it (the same
run, or a backfill) is never live; it is part of the backtest, out of sample only after the
seal's research cutoff. An import's earlier `as_of` changes nothing of this: its live part also
starts at its recording.

Every surface asks `knowledge_split` through `analytics.live.split_of`: `/analytics/live`, the live
checks of `/analytics/checks`, the decay answer's calibration (the catalogue index's live columns),
the events, the decisions' snapshots, the tear sheet and `Figures`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets.reader import BuildView
from datasets.rows import date_at

KNOWN_TABLE = "known_sessions"


@dataclass(frozen=True)
class Tenure:
    """An alpha's latest approval and the retirement that ended it (None: in force)."""

    approved_at: dt.datetime
    """When the approval was recorded, by our clock (UTC)."""
    as_of: dt.date
    """Its effective date: the day it was recorded, or an import's earlier date."""
    retired_at: dt.datetime | None = None
    """When the retirement that ended it was recorded; None while it is in force."""
    decided_by: str = ""
    imported: bool = False

    @property
    def in_force(self) -> bool:
        return self.retired_at is None

    def tag(self) -> str:
        """What an answer that depends on the tenure is versioned by."""
        retired = "" if self.retired_at is None else self.retired_at.isoformat()
        return f"tenure-{self.approved_at.isoformat()}-{retired}"


@dataclass(frozen=True)
class Known:
    """When the lake first published each session of a build (`known_sessions`), as arrays sorted
    by date: the ledger books' sessions (all books together) and the weeks of scores."""

    session_days: np.ndarray  # days since 1970 of every (book, session) row
    session_first_us: np.ndarray  # first_published_at, µs since the epoch (UTC), same order
    recorded: bool
    """False for a build written before knowledge time (pipeline < 2.5): every session is taken as
    known since the build was published."""


def _micros(moment: dt.datetime) -> int:
    aware = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    return int(round(aware.timestamp() * 1_000_000))


def known_of(view: BuildView) -> Known:
    """The build's knowledge times, read once per opened build."""
    return view.memo(KNOWN_TABLE, lambda: _read_known(view))


def _read_known(view: BuildView) -> Known:
    table = view.table(KNOWN_TABLE)
    if table is None:
        published = view.entry.get("published_at") or view.entry.get("built_at")
        at = _micros(_instant(published)) if published else 0
        days = _ledger_days(view)
        return Known(days, np.full(days.size, at, dtype=np.int64), recorded=False)
    rows = table.filter(pc.equal(table.column("dataset"), "portfolio"))
    days = np.asarray(rows.column("date").cast(pa.int32()).to_numpy(zero_copy_only=False), dtype=np.int64)
    first = rows.column("first_published_at")
    if pa.types.is_string(first.type):  # the serving file holds the ISO text the API serves
        first = pc.strptime(first, format="%Y-%m-%dT%H:%M:%SZ", unit="us")
    micros = np.asarray(first.cast(pa.timestamp("us")).cast(pa.int64()).to_numpy(zero_copy_only=False))
    order = np.argsort(days, kind="stable")
    return Known(days[order], micros[order].astype(np.int64), recorded=True)


def _ledger_days(view: BuildView) -> np.ndarray:
    table = view.table("portfolio")
    if table is None:
        return np.empty(0, dtype=np.int64)
    return np.unique(np.asarray(table.column("date").cast(pa.int32()).to_numpy(), dtype=np.int64))


def _instant(text: object) -> dt.datetime:
    moment = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def last_known(view: BuildView, at: dt.datetime) -> dt.date | None:
    """The last session the lake had published of the alpha by `at` (serving files keep whole
    seconds: a session published in the same second as `at` counts as known, never as live);
    None when none was."""
    known = known_of(view)
    limit = _micros(at)
    if known.recorded:
        limit = (limit // 1_000_000) * 1_000_000 + 999_999  # the same second, whatever its fraction
    held = known.session_days[known.session_first_us <= limit]
    if held.size == 0:
        return None
    return date_at(np.array([held.max()]), 0)


def first_session(view: BuildView) -> dt.date | None:
    known = known_of(view)
    return None if known.session_days.size == 0 else date_at(known.session_days, 0)


@dataclass(frozen=True)
class KnowledgeSplit:
    """A tenure's split: the last session known when the approval was recorded (None: none was,
    the whole history is live), and the last known when the retirement was (None: in force)."""

    last_backtest: dt.date | None
    last_live: dt.date | None


def knowledge_split(view: BuildView, tenure: Tenure) -> KnowledgeSplit:
    """Where `tenure`'s live part starts and ends in `view` (module docstring)."""
    before = last_known(view, tenure.approved_at)
    if before is None:
        first = first_session(view)
        before = None if first is None else first - dt.timedelta(days=1)
    end = None if tenure.retired_at is None else last_known(view, tenure.retired_at)
    return KnowledgeSplit(before, end)


def first_publication(view: BuildView) -> dt.date | None:
    """The last session of the alpha's first publication: what was known when the catalogue first
    published it (the split of an alpha never approved and sealed without a research cutoff)."""
    known = known_of(view)
    if known.session_days.size == 0:
        return None
    first = known.session_first_us.min()
    return date_at(np.array([known.session_days[known.session_first_us == first].max()]), 0)
