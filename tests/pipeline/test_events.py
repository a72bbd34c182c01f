"""The pipeline's events (pipeline/build_events.py, docs/events.md "What is recorded"): what a build run
records, checked against what the API serves for the same build, and what a run that could not
record leaves for the next one."""

from __future__ import annotations

import datetime as dt
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from analytics.figures import Figures
from pipeline.build_events import (
    CHECKS_CHANGED,
    DECAY,
    PUBLISHED,
    REPUBLISHED,
    RESTATED,
    TOLERANCES,
    Tolerance,
    build_events,
)
from pipeline.operator_decisions import standings_of
from records.event_log import Event, EventScope, Reader, Wanted
from records.store import open_records
from tests.knowledge import approval_recorded_at, known_split
from tests.pipeline.conftest import copy_seal
from tests.pipeline.factory import write_benchmark_seal, write_factory_seal
from tests.support.build_runs import REPO, build, events_of

ALPHA = "Test_events"


def event(data: dict[str, Any], type: str = PUBLISHED) -> Event:
    return Event(1, type, ALPHA, "readers", None, data, dt.datetime.now(dt.UTC))


HEADLINE = {name: 1.0 for name in TOLERANCES} | {"sessions": 40, "weeks": 8}
CHECKS = {
    "information_ratio": {"value": 1.2, "unit": "annualised", "verdict": "pass"},
    "live_information_ratio": {"value": None, "unit": "annualised", "verdict": "not_measurable"},
}


# -- what one build says, against the last recorded ------------------------------------------------


def test_the_first_build_is_published_with_its_figures_and_checks() -> None:
    [(kind, data)] = build_events(ALPHA, "b1", HEADLINE, CHECKS, None, approved=False)
    assert kind == PUBLISHED
    assert data == {"build_id": "b1", "headline": HEADLINE, "checks": CHECKS}


def test_a_build_already_recorded_says_nothing() -> None:
    last = event({"build_id": "b1", "headline": HEADLINE, "checks": CHECKS})
    assert build_events(ALPHA, "b1", HEADLINE, CHECKS, last, approved=True) == []


def test_a_republish_says_each_figure_before_and_after_and_which_moved() -> None:
    last = event({"build_id": "b1", "headline": HEADLINE, "checks": CHECKS})
    after = HEADLINE | {"information_ratio": 1.05, "ic": 1.01, "turnover": 1.2, "weeks": 9}
    [(kind, data)] = build_events(ALPHA, "b2", after, CHECKS, last, approved=False)
    assert kind == REPUBLISHED
    assert data["previous_build_id"] == "b1" and data["build_id"] == "b2"
    assert data["figures"]["information_ratio"] == {"before": 1.0, "after": 1.05, "moved": False}
    # ic's tolerance is 0.005; turnover's a tenth of it; a week more is a different history.
    assert data["moved"] == ["ic", "turnover", "weeks"]
    assert list(data["figures"]) == list(TOLERANCES)


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        (None, None, False),
        (None, 0.0, True),
        (0.0, None, True),
        (1.0, 1.09, False),
        (1.0, 1.11, True),
        (-1.0, -1.11, True),
    ],
)
def test_tolerance(before: float | None, after: float | None, moved: bool) -> None:
    assert Tolerance(0.1).moved(before, after) is moved


def test_a_flipped_verdict_is_checks_changed_with_old_and_new() -> None:
    last = event({"build_id": "b1", "headline": HEADLINE, "checks": CHECKS})
    now = CHECKS | {"information_ratio": {"value": 0.3, "unit": "annualised", "verdict": "fail"}}
    events = dict(build_events(ALPHA, "b2", HEADLINE, now, last, approved=False))
    assert events[CHECKS_CHANGED] == {
        "build_id": "b2",
        "previous_build_id": "b1",
        "changed": [
            {
                "id": "information_ratio",
                "before": CHECKS["information_ratio"],
                "after": now["information_ratio"],
            }
        ],
    }
    assert DECAY not in events


def test_decay_is_a_live_check_newly_failing_on_an_approved_alpha() -> None:
    failing = {"value": 0.1, "unit": "ratio", "verdict": "fail"}
    last = event({"build_id": "b1", "headline": HEADLINE, "checks": CHECKS})
    now = CHECKS | {"live_information_ratio": failing}
    events = dict(build_events(ALPHA, "b2", HEADLINE, now, last, approved=True))
    assert events[DECAY] == {"build_id": "b2", "failed": [{"id": "live_information_ratio", **failing}]}
    # Not approved: no decay (the check is the operator's for approved alphas).
    assert DECAY not in dict(build_events(ALPHA, "b2", HEADLINE, now, last, approved=False))
    # Failing already in the last recorded build: said once, not on every build.
    still = event({"build_id": "b2", "headline": HEADLINE, "checks": now})
    assert DECAY not in dict(build_events(ALPHA, "b3", HEADLINE, now, still, approved=True))


# -- a build run, end to end -----------------------------------------------------------------------


def finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


@pytest.fixture(scope="module")
def seals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("event_seals")
    return {
        "v1": write_factory_seal(root / "v1", alpha_id=ALPHA, seed=3),
        "v2": write_factory_seal(root / "v2", alpha_id=ALPHA, seed=4),
        "spy": write_benchmark_seal(root / "spy"),
    }


def test_a_build_run_records_what_the_api_serves_then_what_changed(
    seals: dict[str, Path], tmp_path: Path
) -> None:
    lake, url = tmp_path / "lake", f"sqlite:///{tmp_path / 'records.sqlite3'}"
    out = build(seals["spy"], seals["v1"], lake=lake, records=url)
    [published] = events_of(url)
    assert published.type == PUBLISHED and published.alpha_id == ALPHA, out
    figures = Figures.open(str(lake))
    assert published.data["build_id"] == figures.build(ALPHA).build_id
    # The headline figures are the screener's row for the build; the checks the checks route's.
    [row] = figures.screen(limit=10).rows
    for name in TOLERANCES:
        assert published.data["headline"][name] == finite(getattr(row, name)), name
    checks = figures.checks(ALPHA, book="long_short")
    assert published.data["checks"] == {
        c.id: {"value": c.value, "unit": c.unit, "verdict": c.verdict} for c in checks.checks
    }

    # The same seal again: nothing new. A new version: republished, with the figures before and after.
    build(seals["v1"], lake=lake, records=url)
    assert len(events_of(url)) == 1
    build(seals["v2"], lake=lake, records=url)
    events = events_of(url)
    republished = events[1]
    assert republished.type == REPUBLISHED
    assert republished.data["previous_build_id"] == published.data["build_id"]
    [row] = Figures.open(str(lake)).screen(limit=10).rows
    for name, figure in republished.data["figures"].items():
        assert figure["before"] == published.data["headline"][name]
        assert figure["after"] == finite(getattr(row, name))
        assert figure["moved"] == TOLERANCES[name].moved(figure["before"], figure["after"])
    assert republished.data["moved"] == [n for n, f in republished.data["figures"].items() if f["moved"]]
    flipped = [
        check
        for check, now in republished.data["checks"].items()
        if published.data["checks"][check]["verdict"] != now["verdict"]
    ]
    changed = [e for e in events if e.type == CHECKS_CHANGED]
    if flipped:  # the verdicts that flipped, and only those, in one event
        assert [c["id"] for c in changed[0].data["changed"]] == flipped
    else:
        assert changed == []


def test_a_refused_seal_is_an_administrators_event(seals: dict[str, Path], tmp_path: Path) -> None:
    broken = copy_seal(seals["v1"], tmp_path / "broken")
    (broken / "manifest.json").write_text(
        (broken / "manifest.json").read_text().replace('"engine_version"', '"x"')
    )
    url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    build(broken, lake=tmp_path / "lake", records=url)
    [refused] = events_of(url)
    assert refused.type == "build.refused" and refused.audience == "admin" and refused.alpha_id is None
    assert refused.data["target"] == ALPHA and refused.data["rule"]
    records = open_records(url)
    try:  # a reader of every alpha who is not an administrator does not see it
        reader = Reader(scopes=(EventScope(everything=True),))
        assert records.events.page(reader, Wanted()).events == []
    finally:
        records.close()


def test_a_run_that_could_not_record_leaves_it_to_the_next(seals: dict[str, Path], tmp_path: Path) -> None:
    lake, url = tmp_path / "lake", f"sqlite:///{tmp_path / 'records.sqlite3'}"
    (tmp_path / "a folder").mkdir()  # not a database
    out = build(seals["spy"], seals["v1"], lake=lake, records=f"sqlite:///{tmp_path / 'a folder'}")
    assert "the records database cannot be opened" in out  # named, so the step fails loudly
    assert Figures.open(str(lake)).build(ALPHA).build_id  # the build stands
    open_records(url).close()
    build(seals["v1"], lake=lake, records=url)  # unchanged seal: the log still learns the build
    [published] = events_of(url)
    assert published.type == PUBLISHED
    assert published.data["build_id"] == Figures.open(str(lake)).build(ALPHA).build_id


def test_without_a_records_database_a_build_says_so_and_creates_none(
    seals: dict[str, Path], tmp_path: Path
) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ALPHA_RESULTS_LAKE": str(tmp_path / "lake")}
    (tmp_path / "work").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "build", str(seals["v1"]), "--jobs", "1"],
        cwd=tmp_path / "work",
        capture_output=True,
        text=True,
        env=env | {"PYTHONPATH": str(REPO)},
        check=False,
    )
    assert "events     not recorded: no records database at sqlite:///var/keys.sqlite3" in done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "work" / "var" / "keys.sqlite3").exists()


def test_retention_keeps_each_alphas_last_build(tmp_path: Path) -> None:
    records = open_records(f"sqlite:///{tmp_path / 'records.sqlite3'}")
    old = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    try:
        records.events.append(PUBLISHED, {"build_id": "b1"}, alpha_id=ALPHA, now=old)
        records.events.append(REPUBLISHED, {"build_id": "b2"}, alpha_id=ALPHA, now=old)
        records.events.append(CHECKS_CHANGED, {"build_id": "b2"}, alpha_id=ALPHA, now=old)
        records.events.append("build.refused", {"target": ALPHA}, audience="admin", now=old)
        gone = records.events.purge(old + dt.timedelta(days=1), keep_latest_of=(PUBLISHED, REPUBLISHED))
        assert gone == 3
        [kept] = records.events.page(Reader(scopes=(EventScope(everything=True),)), Wanted()).events
        assert kept.data == {"build_id": "b2"}
    finally:
        records.close()


def test_events_purge_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    records = open_records(url)
    old = dt.datetime.now(dt.UTC) - dt.timedelta(days=40)
    try:
        records.events.append(PUBLISHED, {"build_id": "b1"}, alpha_id=ALPHA, now=old)
        records.events.append(CHECKS_CHANGED, {"build_id": "b1"}, alpha_id=ALPHA, now=old)
        records.events.append(CHECKS_CHANGED, {"build_id": "b1"}, alpha_id=ALPHA)
    finally:
        records.close()
    command = [sys.executable, "-m", "cli.main", "events", "purge", "--keystore", url]
    done = subprocess.run([*command, "--days", "30"], cwd=REPO, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, "1 events older than 30 days deleted\n"), done.stderr
    assert [e.type for e in events_of(url)] == [PUBLISHED, CHECKS_CHANGED]
    done = subprocess.run([*command, "--days", "0"], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--days must be at least 1" in done.stderr
    absent = f"sqlite:///{tmp_path / 'absent.sqlite3'}"
    done = subprocess.run([*command[:-1], absent], cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "cannot be opened" in done.stderr
    assert not (tmp_path / "absent.sqlite3").exists()


def test_an_approved_alpha_whose_live_check_fails_decays(tmp_path: Path) -> None:
    """Approved, then republished with weeks first published after the approval was recorded (its
    live part) that the operator's policy fails: alpha.decay, with the value /analytics/live
    serves for the alpha's tenure. The second run (40 weeks) holds the first run's 20 and 20 more;
    the factory draws the prices for the whole run, so it also restates the first 20 (alpha.restated),
    which stay in-sample: the lake first published them before the approval."""
    seals = {w: write_factory_seal(tmp_path / f"w{w}", alpha_id=ALPHA, weeks=w, seed=3) for w in (20, 40)}
    policy = tmp_path / "policy.toml"
    policy.write_text("[checks.live_information_ratio]\nmin = 100.0\n")  # no alpha passes it
    lake, url = tmp_path / "lake", f"sqlite:///{tmp_path / 'records.sqlite3'}"
    env = dict(os.environ, ALPHA_RESULTS_CHECKS_POLICY_FILE=str(policy))
    build(write_benchmark_seal(tmp_path / "spy", sessions=300), seals[20], lake=lake, records=url, env=env)
    promote = [sys.executable, "-m", "cli.main", "promote", ALPHA, "--by", "head of research", "--note", "n"]
    promote += ["--override", "approved in a test whatever its checks"]
    promote += ["--lake", str(lake), "--keystore", url, "--policy", str(policy)]
    done = subprocess.run(promote, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    build(seals[40], lake=lake, records=url, env=env)
    events = events_of(url)
    assert [e.type for e in events][:3] == [PUBLISHED, "alpha.approved", REPUBLISHED]
    [decay] = [e for e in events if e.type == DECAY]
    [failed] = decay.data["failed"]
    records = open_records(url)
    try:
        standings = standings_of(records)
    finally:
        records.close()
    live = Figures.open(str(lake), standings).live(ALPHA)
    assert RESTATED in [e.type for e in events]  # the first 20 weeks, restated: still in-sample
    # The split: the last session the lake held when the approval was recorded, the first run's
    # last (the factory's sessions run Monday to Friday after each Friday but the last, pending one).
    split = known_split(lake, ALPHA, approval_recorded_at(tmp_path / "records.sqlite3", ALPHA))
    assert split == dt.date(2023, 1, 6) + dt.timedelta(weeks=18, days=7)
    assert live.split_date == split and live.split_origin == "approval"
    assert live.out_of_sample.sessions > 0
    assert failed["id"] == "live_information_ratio" and failed["verdict"] == "fail"
    assert failed["value"] == live.out_of_sample.information_ratio.value
    # The same build recorded again (a rerun): no second decay.
    build(seals[40], lake=lake, records=url, env=env)
    assert [e.type for e in events_of(url)].count(DECAY) == 1


def test_a_deferred_backfill_records_its_events_with_the_index(
    seals: dict[str, Path], tmp_path: Path
) -> None:
    lake, url = tmp_path / "lake", f"sqlite:///{tmp_path / 'records.sqlite3'}"
    out = build(seals["spy"], seals["v1"], lake=lake, records=url, extra=("--defer-index",))
    assert "lake index --events" in out
    assert events_of(url) == []  # the checks need the committed index
    command = [sys.executable, "-m", "cli.main", "lake", "index", "--events", "--lake", str(lake)]
    done = subprocess.run(
        [*command, "--keystore", url], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [published] = events_of(url)
    assert published.type == PUBLISHED
    assert published.data["build_id"] == Figures.open(str(lake)).build(ALPHA).build_id
    # Again: nothing new (the log already says this build).
    subprocess.run([*command, "--keystore", url], cwd=REPO, capture_output=True, check=True)
    assert len(events_of(url)) == 1


def test_each_event_type_is_one_struct_and_a_producer_cannot_stray_from_it() -> None:
    """Issue 46, item 5: the types, the figure blocks and the reference's table come from one Struct
    per type (`schemas.bodies.event_data`); what a producer records is checked against it."""
    import msgspec

    from schemas.bodies.event_data import EVENT_DATA, FIGURE_BLOCKS, Headline, recorded
    from schemas.bodies.events import EVENT_TYPES

    assert list(TOLERANCES) == list(Headline.__struct_fields__)  # one list of the headline figures

    assert (
        EVENT_TYPES
        == tuple(EVENT_DATA)
        == (
            "alpha.published",
            "alpha.republished",
            "alpha.checks_changed",
            "alpha.approved",
            "alpha.retired",
            "alpha.nominated",
            "alpha.restated",
            "alpha.decay",
            "alpha.alarm",
            "alpha.health",
            "build.refused",
            "webhook.disabled",
        )
    )
    assert FIGURE_BLOCKS == {
        "headline": "analytics.screen",
        "checks": "analytics.checks",
        "figures": "analytics.screen",
        "moved": "analytics.screen",
        "changed": "analytics.checks",
        "failed": "analytics.checks",
        "restated": "catalog.alphas.restatements",  # an alpha.restated's values: its restatements route
        "raw_books": "catalog.alphas.restatements",  # and its raw books' (issue 81: raw-book access only)
        "charts": "analytics.monitoring",  # an alpha.alarm's charts
        "health": "analytics.approved_health",  # an alpha.health's row
    }
    [(kind, data)] = build_events(ALPHA, "b1", HEADLINE, CHECKS, None, approved=False)
    assert recorded(kind, data) == data  # what build_events says is what the Struct declares
    with pytest.raises(msgspec.ValidationError, match="unknown field `sharpe`"):
        recorded(kind, {**data, "sharpe": 1.0})
    with pytest.raises(msgspec.ValidationError, match="missing required field `headline`"):
        recorded(kind, {"build_id": "b1", "checks": None})
    with pytest.raises(KeyError):
        recorded("key.note", {})

    # Issue 64's types: a nomination approves nothing and says who asked; a restatement lists both
    # values; a flip of checks caused by a decision about another alpha names it (`cause`), one
    # caused by a build has none.
    nominated = {"build_id": "b1", "nominated_by": "seal", "note": "please review"}
    assert recorded("alpha.nominated", nominated) == nominated
    with pytest.raises(msgspec.ValidationError, match="missing required field `nominated_by`"):
        recorded("alpha.nominated", {"build_id": "b1", "note": "n"})
    value = {
        "dataset": "portfolio",
        "book": "long_short",
        "date": "2023-01-06",
        "field": "return",
        "period": None,
        "symbol": None,
        "before": 0.01,
        "after": 0.02,
        "names_changed": None,
    }
    restated = {
        "build_id": "b2",
        "previous_build_id": "b1",
        "count": 1,
        "first_date": "2023-01-06",
        "last_date": "2023-01-06",
        "restated": [value],
    }
    assert recorded("alpha.restated", restated) == restated
    # The raw books' values apart (issue 81, item 1), and no date when only theirs were restated.
    raw = {**restated, "count": 0, "first_date": None, "last_date": None, "restated": []}
    raw["raw_books"] = {**{k: restated[k] for k in ("count", "first_date", "last_date", "restated")}}
    assert recorded("alpha.restated", raw) == raw
    with pytest.raises(msgspec.ValidationError, match="unknown field `approved`"):
        recorded("alpha.restated", {**restated, "approved": True})
    flips = {"build_id": "b1", "previous_build_id": "b1", "changed": None}
    assert recorded("alpha.checks_changed", flips) == flips  # no cause key when none was given
    caused = {**flips, "cause": "alpha.approved of Test_other"}
    assert recorded("alpha.checks_changed", caused) == caused
    with pytest.raises(msgspec.ValidationError):
        recorded("alpha.checks_changed", {**flips, "cause": 3})
