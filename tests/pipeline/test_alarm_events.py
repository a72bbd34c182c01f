"""`alpha.alarm` (pipeline/build_events.py, docs/events.md "What is recorded"): an approved alpha's
CUSUM of `/analytics/monitoring` crossing its threshold in a live week, announced once, with the
chart the operator's policy sets (`[monitoring]`)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from analytics.figures import Figures
from analytics.monitoring import design
from analytics.policy import load_policy
from delivery.event_answers import EVERYTHING, Viewer, shown_data
from pipeline.build_events import ALARM, alarm_event
from pipeline.operator_decisions import standings_of
from records.event_log import Event
from records.store import open_records
from schemas.bodies.monitoring import CusumChart, Monitoring
from schemas.query import LiveQuery
from tests.conftest import linked_copy
from tests.pipeline.factory import write_benchmark_seal, write_factory_seal
from tests.support.build_runs import REPO, build, events_of

ALPHA = "Test_alarm"
CHART = design()


def chart(series: str, alarms: list[dt.date], statistic: float = 3.0) -> CusumChart:
    return CusumChart(
        series=series,  # type: ignore[arg-type]
        state="alarm" if alarms else "in_control",
        withheld_reason=None,
        expected_weekly_mean=0.001,
        weekly_sd=0.02,
        live_weeks=30,
        cusum_statistic=statistic,
        first_alarm=alarms[0] if alarms else None,
        alarms=alarms,
        weeks=[],
    )


def watched(*charts: CusumChart) -> Monitoring:
    return Monitoring(
        alpha=ALPHA,
        book="long_short",
        split_date=dt.date(2024, 1, 5),
        split_origin="approval",
        live=True,
        expected_level_basis="expectation",
        expected_live_information_ratio=0.5,
        ir_fall_detected=CHART.ir_fall,
        cusum_reference_value=CHART.k,
        cusum_threshold=CHART.h,
        arl0_weeks=CHART.arl0,
        false_alarm_probability_per_year=CHART.false_alarm_probability_per_year,
        arl1_weeks=CHART.arl1,
        charts=list(charts),
    )


def recorded(data: dict[str, Any]) -> Event:
    return Event(1, ALARM, ALPHA, "readers", None, data, dt.datetime.now(dt.UTC))


WEEK = dt.date(2024, 6, 7)


def test_no_alarm_week_is_no_event() -> None:
    assert alarm_event(watched(chart("book_return", []), chart("ic", [])), "b1", "literature", []) is None


def test_an_alarm_week_is_announced_with_both_charts_and_the_false_alarm_rate() -> None:
    found = alarm_event(watched(chart("book_return", [WEEK]), chart("ic", [])), "b1", "literature", [])
    assert found is not None
    kind, data = found
    assert kind == ALARM
    assert data["build_id"] == "b1" and data["split_date"] == "2024-01-05" and data["book"] == "long_short"
    assert data["arl0_weeks"] == CHART.arl0
    assert data["false_alarm_probability_per_year"] == CHART.false_alarm_probability_per_year
    returns, ic = data["charts"]
    assert returns["series"] == "book_return" and returns["alarms"] == returns["new_alarms"] == ["2024-06-07"]
    assert returns["cusum_threshold"] == CHART.h and returns["state"] == "alarm"
    assert ic["alarms"] == ic["new_alarms"] == [] and ic["state"] == "in_control"


def test_an_alarm_already_announced_is_not_announced_again() -> None:
    _, first = alarm_event(watched(chart("book_return", [WEEK]), chart("ic", [])), "b1", "literature", [])  # type: ignore[misc]
    again = watched(chart("book_return", [WEEK]), chart("ic", []))
    assert alarm_event(again, "b2", "literature", [recorded(first)]) is None
    # A later alarm week, on the other chart: only the new week is new.
    later = watched(chart("book_return", [WEEK]), chart("ic", [WEEK + dt.timedelta(weeks=3)]))
    found = alarm_event(later, "b3", "literature", [recorded(first)])
    assert found is not None
    returns, ic = found[1]["charts"]
    assert returns["new_alarms"] == [] and ic["new_alarms"] == ["2024-06-28"]


def test_charts_calibrated_on_other_alphas_are_withheld_from_a_key_that_does_not_read_them() -> None:
    _, data = alarm_event(watched(chart("book_return", [WEEK]), chart("ic", [])), "b1", "catalogue", [])  # type: ignore[misc]
    assert shown_data(data, EVERYTHING)["charts"] == data["charts"]
    some = shown_data(data, Viewer(lambda _: True, every_alpha=False, raw=True))
    assert some["charts"] is None and some["withheld"]["charts"].startswith("access_limited")
    no_route = shown_data(
        data, Viewer(lambda endpoint: endpoint != "analytics.monitoring", every_alpha=True, raw=True)
    )
    assert no_route["charts"] is None and "analytics.monitoring" in no_route["withheld"]["charts"]
    _, literature = alarm_event(
        watched(chart("book_return", [WEEK]), chart("ic", [])), "b1", "literature", []
    )  # type: ignore[misc]
    assert (
        shown_data(literature, Viewer(lambda _: True, every_alpha=False, raw=True))["charts"]
        == literature["charts"]
    )


def test_a_build_run_announces_the_alarm_monitoring_serves(tmp_path: Path) -> None:
    """Approved after 20 weeks, republished with 20 live weeks under a policy whose chart alarms
    about every fourth week of an alpha that still works: the run records alpha.alarm with the
    alarm weeks `/analytics/monitoring` serves under the same policy, and a rerun of the same build
    records none."""
    seals = {w: write_factory_seal(tmp_path / f"w{w}", alpha_id=ALPHA, weeks=w, seed=3) for w in (20, 40)}
    policy = tmp_path / "policy.toml"
    policy.write_text("[monitoring]\nir_fall = 4.0\narl0_weeks = 4\n")
    lake, url = tmp_path / "lake", f"sqlite:///{tmp_path / 'records.sqlite3'}"
    env = dict(os.environ, ALPHA_RESULTS_CHECKS_POLICY_FILE=str(policy))
    build(write_benchmark_seal(tmp_path / "spy", sessions=300), seals[20], lake=lake, records=url, env=env)
    promote = [sys.executable, "-m", "cli.main", "promote", ALPHA, "--by", "head of research", "--note", "n"]
    promote += ["--override", "approved in a test whatever its checks"]
    promote += ["--lake", str(lake), "--keystore", url, "--policy", str(policy)]
    done = subprocess.run(promote, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert ALARM not in [e.type for e in events_of(url)]  # no live week yet
    build(seals[40], lake=lake, records=url, env=env)
    records = open_records(url)
    try:
        standings = standings_of(records)
    finally:
        records.close()
    figures = Figures.open(str(lake), standings)
    served = figures.reading(load_policy(str(policy))).monitoring(figures.build(ALPHA), LiveQuery()).data
    assert served.live and served.arl0_weeks == design(4.0, 4.0).arl0
    expected = {c.series: [d.isoformat() for d in c.alarms] for c in served.charts}
    assert any(expected.values()), "the policy's chart alarms on these live weeks"
    [alarm] = [e for e in events_of(url) if e.type == ALARM]
    assert {c["series"]: c["alarms"] for c in alarm.data["charts"]} == expected
    assert {c["series"]: c["new_alarms"] for c in alarm.data["charts"]} == expected
    assert alarm.data["build_id"] == figures.build(ALPHA).build_id
    assert alarm.data["arl0_weeks"] == served.arl0_weeks
    build(seals[40], lake=lake, records=url, env=env)
    assert [e.type for e in events_of(url)].count(ALARM) == 1


# -- the weekly digest: alpha.health ---------------------------------------------------------------


def test_the_weekly_digest_is_each_approved_alpha_s_health_once_a_week(
    demo_lake: Path, demo_records: Path, tmp_path: Path
) -> None:
    """`alpha-results events digest` (issue 59, item 4): one alpha.health per approved alpha in
    force per ISO week of our clock, its row of /v1/analytics/approved_health; again in the same
    week, nothing; the next week, again; a key that does not read every alpha gets the figures over
    other alphas null and named; the retention keeps each alpha's last digest."""
    import shutil

    from analytics.policy import default_policy
    from pipeline.build_events import HEALTH, health_digest, iso_week
    from schemas.bodies.event_data import Health

    lake = linked_copy(demo_lake, tmp_path / "lake")
    url = f"sqlite:///{shutil.copy(demo_records, tmp_path / 'records.sqlite3')}"
    monday = dt.datetime(2026, 11, 23, 9, tzinfo=dt.UTC)
    records = open_records(url)
    try:
        figures = Figures.open(str(lake), standings_of(records))
        made = health_digest(records, figures, default_policy(), monday)
        served = {row.alpha: row for row in figures.approved_health().alphas}
        assert (
            sorted(e.alpha_id for e in made) == sorted(served) == ["momentum_12_1", "value_composite_legacy"]
        )
        import msgspec

        for event in made:
            assert event.type == HEALTH and event.data["week"] == iso_week(monday) == "2026-W48"
            assert event.data["health"] == msgspec.to_builtins(served[event.alpha_id])
            assert event.data["build_id"] == figures.build(event.alpha_id).build_id
        assert health_digest(records, figures, default_policy(), monday + dt.timedelta(days=6)) == []
        again = health_digest(records, figures, default_policy(), monday + dt.timedelta(days=7))
        assert [e.data["week"] for e in again] == ["2026-W49", "2026-W49"]
        data = made[0].data
        some = shown_data(data, Viewer(lambda _: True, every_alpha=False, raw=True))
        hidden = Health.over_catalogue + (
            Health.calibrated if data["expectation_basis"] == "catalogue" else ()
        )
        assert all(some["health"][name] is None for name in hidden)
        # The CUSUM's level is the expected live information ratio, shrunk toward the catalogue's
        # alphas in the small demo (issue 81, item 4): made of other alphas, so withheld from a key
        # that does not read every alpha, with the verdict made of it.
        assert data["expectation_basis"] == "catalogue"
        assert some["health"]["cusum_state"] is None and some["health"]["verdict"] is None
        assert some["health"]["live_information_ratio"] == data["health"]["live_information_ratio"]
        assert "access_limited" in next(iter(some["withheld"].values()))
        assert shown_data(data, EVERYTHING)["health"] == data["health"]
        # A retention of a day, two weeks on: each alpha's last digest (and last build) is kept.
        gone = records.events.purge(
            monday + dt.timedelta(days=15),
            keep_latest_of=("alpha.published", "alpha.republished"),
            keep_latest_each=(HEALTH,),
        )
        assert gone > 0
        for alpha in served:
            assert records.events.latest(alpha, (HEALTH,)).data["week"] == "2026-W49"  # type: ignore[union-attr]
            assert records.events.latest(alpha, ("alpha.published", "alpha.republished")) is not None
    finally:
        records.close()


def test_the_digest_command(demo_lake: Path, demo_records: Path, tmp_path: Path) -> None:
    """`alpha-results events digest`: the week's digests once, then nothing; absent records: exit 1."""
    import shutil

    lake = linked_copy(demo_lake, tmp_path / "lake")
    url = f"sqlite:///{shutil.copy(demo_records, tmp_path / 'records.sqlite3')}"
    command = [sys.executable, "-m", "cli.main", "events", "digest", "--lake", str(lake), "--keystore"]
    first = subprocess.run([*command, url], cwd=REPO, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("alpha.health") == 2 and "momentum_12_1" in first.stdout
    again = subprocess.run([*command, url], cwd=REPO, capture_output=True, text=True, check=False)
    assert again.returncode == 0 and "every approved alpha is digested this week" in again.stdout
    absent = f"sqlite:///{tmp_path / 'absent.sqlite3'}"
    missing = subprocess.run([*command, absent], cwd=REPO, capture_output=True, text=True, check=False)
    assert missing.returncode == 1 and "cannot be opened" in missing.stderr
    assert not (tmp_path / "absent.sqlite3").exists()


def test_an_event_shows_a_key_only_what_its_routes_would() -> None:
    """alpha.alarm and alpha.health as delivered (delivery/event_answers.py): a chart or a figure
    whose data or route the key may not read is null, and named in withheld."""
    from schemas.bodies.event_data import Health

    _, alarm = alarm_event(watched(chart("book_return", [WEEK]), chart("ic", [])), "b1", "literature", [])  # type: ignore[misc]
    no_ledger = Viewer(lambda endpoint: not endpoint.startswith("portfolio."), every_alpha=True, raw=True)
    shown = shown_data(alarm, no_ledger)
    returns, ic = shown["charts"]
    assert returns["state"] == "not_measurable" and returns["alarms"] is None and returns["weekly_sd"] is None
    assert ic == alarm["charts"][1] and "charts[book_return]" in shown["withheld"]
    row = {name: 1.0 for name in (*Health.over_catalogue, *Health.calibrated)} | {"alpha": ALPHA}
    row |= {name: 1.0 for fields in Health.from_routes.values() for name in fields}
    digest = {
        "week": "2026-W48",
        "expectation_basis": "literature",
        "build_id": "b1",
        "book": "long_short",
        "arl0_weeks": 520.0,
        "false_alarm_probability_per_year": 0.095,
        "false_discovery_basis": "paper",
        "health": row,
    }
    assert shown_data(digest, no_ledger)["health"] is None
    no_mmc = shown_data(
        digest, Viewer(lambda endpoint: endpoint != "analytics.mmc", every_alpha=True, raw=True)
    )
    assert no_mmc["health"]["mmc_mean"] is None and no_mmc["health"]["live_information_ratio"] == 1.0
    assert "analytics.mmc" in no_mmc["withheld"]["health.mmc_mean"]
    scoped = shown_data(
        {**digest, "expectation_basis": "catalogue"}, Viewer(lambda _: True, every_alpha=False, raw=True)
    )
    assert all(scoped["health"][name] is None for name in (*Health.over_catalogue, *Health.calibrated))
    assert scoped["false_discovery_basis"] is None and scoped["health"]["sessions_since_approval"] == 1.0


def test_a_week_announced_by_any_earlier_alarm_of_the_tenure_is_not_announced_again() -> None:
    """A restated build moves the alarm a week, another moves it back: the first week was announced
    by the first event, not the latest, and is not announced again; another tenure's (another
    split's) alarms announce nothing for this one."""
    later = WEEK + dt.timedelta(weeks=1)
    _, first = alarm_event(watched(chart("book_return", [WEEK]), chart("ic", [])), "b1", "literature", [])  # type: ignore[misc]
    _, moved = alarm_event(
        watched(chart("book_return", [later]), chart("ic", [])), "b2", "literature", [recorded(first)]
    )  # type: ignore[misc]
    assert moved["charts"][0]["new_alarms"] == [later.isoformat()]
    back = watched(chart("book_return", [WEEK]), chart("ic", []))
    assert alarm_event(back, "b3", "literature", [recorded(first), recorded(moved)]) is None
    other_tenure = recorded({**first, "split_date": "2023-01-06"})
    assert alarm_event(back, "b3", "literature", [other_tenure]) is not None


def test_a_digest_is_recorded_once_however_many_runs_check_at_once(tmp_path: Path) -> None:
    """The check and the insert are one statement in one transaction (`append_once_since`): a
    second run that checked before the first wrote records nothing."""
    records = open_records(f"sqlite:///{tmp_path / 'records.sqlite3'}")
    monday = dt.datetime(2026, 11, 23, tzinfo=dt.UTC)
    try:
        log = records.events
        first = log.append_once_since(
            "alpha.health", {"week": "2026-W48"}, alpha_id=ALPHA, since=monday, now=monday
        )
        second = log.append_once_since(
            "alpha.health", {"week": "2026-W48"}, alpha_id=ALPHA, since=monday, now=monday
        )
        assert first is not None and second is None
        other = log.append_once_since(
            "alpha.health", {"week": "2026-W48"}, alpha_id="Test_other", since=monday
        )
        assert other is not None  # per alpha
        next_week = monday + dt.timedelta(weeks=1)
        assert log.append_once_since(
            "alpha.health", {"week": "2026-W49"}, alpha_id=ALPHA, since=next_week, now=next_week
        )
        assert [e.data["week"] for e in log.every(ALPHA, "alpha.health")] == ["2026-W48", "2026-W49"]
    finally:
        records.close()
