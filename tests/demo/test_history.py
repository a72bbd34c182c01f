"""The demo's history (issue 64, item 6): its lake holds a live track first seen after the
decisions, as a deployment's would, and every state a head of research meets: an approved alpha
whose live part starts after its recorded approval, one that decays, a restated run, a nominated
alpha waiting, a retired one; overrides, nominations and restatements on the record."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from analytics.access import FULL_ACCESS, Access
from analytics.figures import Figures
from analytics.restatements import DATASET_DATA, restated_in, restated_of
from analytics.tenure import known_of
from datasets.rows import day_number
from pipeline.operator_decisions import standings_of
from records.store import Records, open_records


@pytest.fixture(scope="module")
def records(demo_records: Path) -> Iterator[Records]:
    opened = open_records(f"sqlite:///{demo_records}", create=False)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def figures(demo_lake: Path, records: Records) -> Figures:
    return Figures.open(str(demo_lake), standings_of(records))


def _live_sessions_first_published(figures: Figures, alpha: str, after: dt.date) -> np.ndarray:
    """When each session after `after` was first published (µs since the epoch)."""
    known = known_of(figures.build(alpha))
    return known.session_first_us[known.session_days > day_number(after)]


def test_the_approved_alpha_is_live_only_after_its_recorded_approval(
    figures: Figures, records: Records
) -> None:
    [approval] = [p for p in records.promotions.history("momentum_12_1") if p.action == "approved"]
    assert approval.decided_by == "head of research" and approval.snapshot["override"]
    live = figures.live("momentum_12_1", book="long_short")
    assert live.split_origin == "approval" and live.split_date is not None
    # The split is the research run's last session: what the lake held when the approval was recorded.
    entry_cutoff = dt.date.fromisoformat(figures.build("momentum_12_1").entry["research_cutoff"])
    assert live.split_date >= entry_cutoff
    first = _live_sessions_first_published(figures, "momentum_12_1", live.split_date)
    recorded_us = int(approval.recorded_at.timestamp() * 1_000_000)
    assert first.size and (first > recorded_us).all()  # every live session was first seen after it
    held = known_of(figures.build("momentum_12_1"))
    assert (held.session_first_us[held.session_days <= day_number(live.split_date)] <= recorded_us).all()
    assert live.out_of_sample.sessions and live.out_of_sample.sessions >= 40


def test_a_session_dated_after_the_approval_but_published_before_it_is_not_live(figures: Figures) -> None:
    """The approval's as_of is the day it was recorded: sessions the research run held up to its
    last one are backtest, whatever their dates (an approval as of an earlier day is an import)."""
    approval = figures.standings.tenure("momentum_12_1")
    assert approval is not None and approval.as_of == approval.approved_at.date()
    live = figures.live("momentum_12_1", book="long_short")
    assert live.split_date is not None and live.split_date < approval.as_of


def test_the_retired_alpha_was_live_from_its_approval_to_its_retirement(
    figures: Figures, records: Records
) -> None:
    actions = [p.action for p in records.promotions.history("Test_planted_factor")]
    assert actions == ["approved", "retired"]
    assert figures.standings.standing("Test_planted_factor") == "retired"
    tenure = figures.standings.tenure("Test_planted_factor")
    assert tenure is not None and tenure.retired_at is not None
    live = figures.live("Test_planted_factor", book="long_short")
    assert live.split_origin == "approval" and live.out_of_sample.last_session is not None
    assert live.out_of_sample.last_session <= tenure.retired_at.date()


def test_the_reversing_alpha_decays_live(figures: Figures) -> None:
    live = figures.live("value_composite_legacy", book="long_short")
    assert live.split_origin == "approval"
    assert live.decay_ratio.value is not None and live.decay_ratio.value < 0


def test_the_nominated_alpha_waits_in_the_queue(figures: Figures, records: Records) -> None:
    queue = figures.review()
    assert [e.alpha for e in queue.entries] == ["Test_short_term_reversal"]
    [entry] = queue.entries
    assert (
        entry.nominated_by == "seal"
        and "review" in entry.note
        and entry.verdict in ("pass", "fail", "incomplete")
    )
    assert figures.standings.standing("Test_short_term_reversal") == "nominated"
    assert records.promotions.history("Test_short_term_reversal") == []  # a nomination approves nothing


def test_the_restated_run_is_on_the_record_with_both_values(figures: Figures, records: Records) -> None:
    rows = restated_of(figures.build("momentum_12_1")).rows()
    returns = [r for r in rows if r["field"] == "return"]
    assert returns and all(r["before"] != r["after"] for r in returns)
    events = records.events.latest("momentum_12_1", ("alpha.restated",))
    assert events is not None
    # The raw books' values are counted apart (`raw_books`: served only with raw-book access).
    raw = events.data.get("raw_books") or {"count": 0}
    assert raw["count"] > 0 and events.data["count"] + raw["count"] >= len(returns)


@pytest.mark.parametrize(
    "access",
    [
        FULL_ACCESS,
        Access(cross_sections=False, ledger=True, pnl=True, positions=True, trades=True),
        Access(cross_sections=True, ledger=False, pnl=True, positions=True, trades=True),
        Access(cross_sections=False, ledger=False, pnl=False, positions=False, trades=False),
    ],
)
def test_a_window_counts_the_restatements_of_data_the_key_may_read(figures: Figures, access: Access) -> None:
    """`restated_in` (every window answer's `restated` warning) against the table's rows, each
    counted when it falls in the window and the key may read the data it is built from."""
    build = figures.build("momentum_12_1")
    rows = restated_of(build).rows()
    days = sorted({r["date"] for r in rows})
    assert len(days) > 2
    for start, end in ((None, None), (days[1], days[-2]), (days[0], days[0]), (None, days[1])):
        expected = sorted(
            r["date"]
            for r in rows
            if access.may_read(DATASET_DATA.get(r["dataset"], "ledger"))
            and (start is None or r["date"] >= start)
            and (end is None or r["date"] <= end)
        )
        found = restated_in(build, start, end, access)
        assert found.count == len(expected), (start, end)
        assert (found.first, found.last) == ((expected[0], expected[-1]) if expected else (None, None))


def test_no_alpha_is_approved_by_its_seal(records: Records) -> None:
    """A seal's production id is an access class: every approval in the demo is an operator's."""
    deciders = {
        p.decided_by
        for a in ("momentum_12_1", "value_composite_legacy", "Test_planted_factor")
        for p in records.promotions.history(a)
    }
    assert deciders == {"head of research"}


def test_the_expected_live_information_ratio_is_calibrated_on_live_tracks_first_seen_after_approvals(
    figures: Figures,
) -> None:
    """The calibration's alphas are the approved ones whose live part (first published after the
    approval was recorded) is long enough: the decay answer says which."""
    index = figures.reader.snapshot().catalogue.index
    assert index is not None
    approval_rows = index.filter(pa.compute.equal(index.column("live_split_origin"), "approval"))
    approved = set(approval_rows.column("alpha_id").to_pylist())
    assert approved == {"momentum_12_1", "value_composite_legacy", "Test_planted_factor"}
    for row in approval_rows.to_pylist():
        assert row["live_approved_at"] is not None  # split at a recorded approval, never a date claimed


def test_a_user_build_s_retention_keeps_the_demo_s_history(demo_records: Path, tmp_path: Path) -> None:
    """Issue 81, item 9: the demo's events are dated on its simulated clock, years before the wall
    clock; the first real build's retention (90 days by the wall clock: `pipeline.build_events.purge`,
    what every build run that records events runs) deletes none of them, `alpha.decay` included,
    while an event of a user's own older than the retention still goes."""
    import shutil
    import sqlite3

    from pipeline.build_events import purge
    from schemas.bodies.event_data import DECAY

    copy = Path(shutil.copy(demo_records, tmp_path / "records.sqlite3"))

    def listed() -> list[tuple[int, str]]:
        with sqlite3.connect(copy) as db:
            return [(int(i), str(t)) for i, t in db.execute("SELECT id, type FROM events ORDER BY id")]

    demo = listed()
    assert any(t == DECAY for _, t in demo), "the demo fires alpha.decay (docs/dashboard.md's walkthrough)"
    url = f"sqlite:///{copy}"
    now = dt.datetime.now(dt.UTC)
    opened = open_records(url, create=False)
    try:
        for moment, build in ((now - dt.timedelta(days=400), "b"), (now, "c")):
            opened.events.append("alpha.published", {"build_id": build}, alpha_id="user_alpha", now=moment)
    finally:
        opened.close()
    assert purge(url, 90, now) == 1  # the user's own old event, not one of the demo's
    assert listed()[: len(demo)] == demo


def test_the_demo_s_lake_holds_no_garbage_after_its_play(demo_lake: Path) -> None:
    """Issue 81, item 9: the builds the demo's runs superseded were garbage ten minutes after the
    first serve (29 folders, 313 MB for `lake gc`); the play collects them at its end, so a gc at
    any time after finds nothing."""
    import time

    from datasets import layout, retention

    later = time.time() + layout.BUILD_RETENTION_SECONDS + 60.0
    assert [g.path for g in retention.lake_garbage(str(demo_lake), now=later)] == []
