"""The screener's live columns (issue 35 item 2): each alpha's live against backtest at its split,
paid once in the pipeline (the catalogue index row), served, sorted and filtered.

Over a copy of the demo lake on which an operator approved four alphas on random days' clocks with
the real command line (`alpha-results promote`, one retired since): every alpha's `live_split` is
its approval's, the last session the lake had first published when it was recorded (the decision
recorded its index row again; tests/knowledge.py), else its seal's research_cutoff, else the last
session of its first publication, as `/analytics/live` says; the figures are `/analytics/live`'s at that split exactly, and an
independent recomputation from the served ledger rows within 1e-9; sorts and filters select what
the recomputation selects; a key without the ledger sees them null and may not filter on them;
`alpha-results lake index` keeps the approval split; and an index written before the columns serves
them null until a row is recorded again."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import math
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from cli.main import main as cli
from datasets import clock
from tests.analytics.conftest import ALPHAS, CALLERS, Api
from tests.callers import authenticator_for
from tests.conftest import linked_copy
from tests.decided import noon
from tests.knowledge import current_build, known_split
from tests.knowledge import recorded_at as recorded
from tests.support.build_tables import build_table

PATH = "/v1/analytics/screen"
LIVE_PATH = "/v1/alphas/{}/analytics/live"
TOLERANCE = 1e-9
MIN_OOS = 63
LIVE_FIGURES = ("live_information_ratio", "backtest_information_ratio", "decay_ratio", "live_sessions")
APPROVED = ("momentum_12_1", "value_composite_legacy", "Test_planted_factor", "Test_small_universe")
RETIRED = "Test_planted_factor"


@dataclass(frozen=True)
class World:
    api: Api
    lake: Path
    records: str
    approvals: dict[str, str]  # alpha -> its live split: the last session known when it was approved
    ends: dict[str, str]  # a retired alpha -> the last session known when it was retired


def run_cli(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(list(argv)) == 0, argv
    return out.getvalue()


def ledger_dates(api: Api, alpha: str) -> list[str]:
    return [row["date"] for row in api.all_rows(f"/v1/alphas/{alpha}/portfolio", book="long_short")]


def first_published_on(lake: Path, alpha: str) -> dt.date:
    """The day the lake first published the alpha (polars over its `known_sessions`)."""
    known = build_table(current_build(lake, alpha), "known_sessions")
    first = known["first_published_at"].min()
    assert isinstance(first, dt.datetime)
    return first.date()


@pytest.fixture(scope="module")
def world(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory, api: Api) -> Iterator[World]:
    """Records of their own (not the demo's), on which an operator approved four alphas with the
    command line, each on a random day's clock (a decision is dated when it is recorded), and
    retired one: so each live split is the last session the lake had first published that day
    (tests/knowledge.py), never the day itself. The demo played its history on a simulated clock:
    momentum_12_1, value_composite_legacy and Test_planted_factor were published run by run, the
    others all at once at its end."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    folder = tmp_path_factory.mktemp("screen_live")
    lake = linked_copy(demo_lake, folder / "lake")
    records = f"sqlite:///{folder / 'records.sqlite3'}"
    rng = random.Random("screen:live")
    retired_on = dt.date.fromisoformat(ledger_dates(api, RETIRED)[-3])
    days: dict[str, dt.date] = {}
    for n, alpha in enumerate(APPROVED):
        dates = ledger_dates(api, alpha)
        if n == 0:  # approved too recently for a decay ratio
            days[alpha] = dt.date.fromisoformat(dates[-20])
            continue
        first = first_published_on(lake, alpha)
        if alpha == "Test_small_universe":  # first published whole at the history's end: no live part
            days[alpha] = first + dt.timedelta(days=1)
            continue
        # Any day after its first publication whose live part (to its retirement) holds a quarter.
        last = known_split(lake, alpha, noon(retired_on)).isoformat() if alpha == RETIRED else dates[-1]
        splits = {
            day: known_split(lake, alpha, noon(day)).isoformat()
            for day in (first + dt.timedelta(days=k) for k in range(1, 120))
        }
        candidates = [
            day for day, split in splits.items() if sum(split < d <= last for d in dates) >= MIN_OOS + 5
        ]
        days[alpha] = rng.choice(candidates)
    where = ("--lake", str(lake), "--keystore", records, "--policy", "", "--by", "head of research")
    override = ("--override", "approved in a test whatever its checks")
    decisions: list[tuple[Any, ...]] = [
        (day, "promote", alpha, "live", *override) for alpha, day in days.items()
    ]
    decisions.append((retired_on, "retire", RETIRED, "decayed"))
    for day, action, alpha, note, *more in sorted(decisions):
        with clock.simulated(noon(day)):
            run_cli(action, alpha, *where, "--note", note, *more)
    approvals = {
        alpha: known_split(lake, alpha, recorded(records, alpha, "approved")).isoformat()
        for alpha in APPROVED
    }
    for alpha, day in days.items():  # never the day itself: what was first published by then
        assert approvals[alpha] < day.isoformat(), (alpha, approvals[alpha], day)
    ends = {RETIRED: known_split(lake, RETIRED, recorded(records, RETIRED, "retired")).isoformat()}
    app = create_app(
        Settings(lake=str(lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(records),
    )
    with TestClient(app=app) as client:
        yield World(Api(client), lake, records, approvals, ends)


def information_ratio(r: np.ndarray) -> float | None:
    if r.size < 2:
        return None
    sd = float(np.std(r, ddof=1))
    return float(np.mean(r)) / sd * math.sqrt(252) if sd > 0 else None


def recomputed(api: Api, alpha: str, split: str | None, end: str | None = None) -> dict[str, Any]:
    """The live columns from the served long_short ledger rows (numpy only), at `split`, the live
    part ending with `end` (a retirement's last known session) when given."""
    rows = api.all_rows(f"/v1/alphas/{alpha}/portfolio", book="long_short")
    if end is not None:
        rows = [row for row in rows if row["date"] <= end]
    if split is None:
        return dict.fromkeys(LIVE_FIGURES)
    if not rows:
        return {"live_sessions": None} | dict.fromkeys(LIVE_FIGURES[:3])
    dates = np.array([row["date"] for row in rows])
    r = np.array([row["ending_equity"] / row["starting_equity"] - 1.0 for row in rows])
    inside = dates <= split
    live, backtest = information_ratio(r[~inside]), information_ratio(r[inside])
    sessions = int(np.count_nonzero(~inside))
    if sessions < MIN_OOS:  # the live information ratio's one rule, as on every page (issue 81, item 9)
        live = None
    decay = None
    if sessions >= MIN_OOS and live is not None and backtest is not None and backtest > 0:
        decay = live / backtest
    return {
        "live_information_ratio": live,
        "backtest_information_ratio": backtest,
        "decay_ratio": decay,
        "live_sessions": sessions,
    }


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def screened(world: World, token: str = "raw", **params: Any) -> list[dict[str, Any]]:
    return world.api.all_rows(PATH, token, **params)


def test_every_row_splits_where_the_live_route_does(world: World) -> None:
    rows = {row["alpha_id"]: row for row in screened(world)}
    assert set(rows) == set(ALPHAS)
    for alpha, row in rows.items():
        live = world.api.ok(LIVE_PATH.format(alpha))["data"]
        assert (row["live_split"], row["live_split_origin"]) == (live["split_date"], live["split_origin"]), (
            alpha
        )
        if alpha in world.approvals:  # the retired one too: its live part starts at the approval
            assert (row["live_split"], row["live_split_origin"]) == (world.approvals[alpha], "approval")
            if alpha in world.ends:  # the last session known when its retirement was recorded
                assert live["out_of_sample"]["last_session"] == world.ends[alpha]
        else:
            assert row["live_split_origin"] in ("research_cutoff", "first_published"), row
        # One computation: the live route's own figures at that split, to the last bit.
        assert row["live_information_ratio"] == live["out_of_sample"]["information_ratio"]["value"], alpha
        assert row["backtest_information_ratio"] == live["in_sample"]["information_ratio"]["value"], alpha
        assert row["decay_ratio"] == live["decay_ratio"]["value"], alpha
        assert row["live_sessions"] == live["out_of_sample"]["sessions"], alpha


def test_the_live_columns_equal_a_recomputation_from_served_rows(world: World) -> None:
    measured = 0
    for row in screened(world):
        want = recomputed(world.api, row["alpha_id"], row["live_split"], world.ends.get(row["alpha_id"]))
        for name in LIVE_FIGURES:
            assert close(row[name], want[name]), (row["alpha_id"], name, row[name], want[name])
        measured += row["decay_ratio"] is not None
    assert measured >= 2  # approvals with a live quarter and a positive backtest
    recent = next(r for r in screened(world) if r["alpha_id"] == APPROVED[0])
    assert 0 < recent["live_sessions"] < MIN_OOS and recent["decay_ratio"] is None
    # Approved after its whole history was first published at once: nothing live yet.
    whole = next(r for r in screened(world) if r["alpha_id"] == APPROVED[3])
    assert (whole["live_sessions"], whole["live_information_ratio"]) == (0, None)


@pytest.mark.parametrize(
    "column",
    ["live_information_ratio", "backtest_information_ratio", "decay_ratio", "live_sessions", "live_split"],
)
def test_sorted_on_a_live_column_as_recomputed(world: World, column: str) -> None:
    rows = screened(world)
    for descending in (False, True):
        served = [r["alpha_id"] for r in screened(world, sort=("-" if descending else "") + column)]
        known = sorted(
            (r for r in rows if r[column] is not None),
            key=lambda r: r["alpha_id"],
        )
        known.sort(key=lambda r: r[column], reverse=descending)  # stable: alpha_id breaks ties
        nulls = sorted(r["alpha_id"] for r in rows if r[column] is None)
        assert served == [r["alpha_id"] for r in known] + nulls, (column, descending)


def test_filtered_on_live_columns_as_recomputed(world: World) -> None:
    rows = screened(world)
    want = {
        r["alpha_id"]: recomputed(world.api, r["alpha_id"], r["live_split"], world.ends.get(r["alpha_id"]))
        for r in rows
    }

    def kept(name: str, low: float | None = None, high: float | None = None) -> list[str]:
        return [
            a
            for a, w in want.items()
            if w[name] is not None and (low is None or w[name] >= low) and (high is None or w[name] <= high)
        ]

    decays = sorted(w["decay_ratio"] for w in want.values() if w["decay_ratio"] is not None)
    irs = sorted(
        w["live_information_ratio"] for w in want.values() if w["live_information_ratio"] is not None
    )
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"min_decay_ratio": repr(decays[1])}, kept("decay_ratio", decays[1])),  # a bound equal to a value
        ({"max_decay_ratio": repr(decays[0])}, kept("decay_ratio", None, decays[0])),
        ({"min_live_information_ratio": "0"}, kept("live_information_ratio", 0.0)),
        ({"max_live_information_ratio": repr(irs[-2])}, kept("live_information_ratio", None, irs[-2])),
        ({"min_backtest_information_ratio": "0.5"}, kept("backtest_information_ratio", 0.5)),
        ({"min_live_sessions": str(MIN_OOS)}, kept("live_sessions", MIN_OOS)),
        ({"max_live_sessions": "0"}, kept("live_sessions", None, 0)),
    ]
    for params, expected in cases:
        served = [r["alpha_id"] for r in screened(world, **params)]
        order = [r["alpha_id"] for r in rows]  # catalogue order, as without a filter
        assert served == [a for a in order if a in expected], params
    # The bounds select some alphas and leave others (not trivially all or nothing).
    assert all(0 < len(expected) < len(rows) for _, expected in cases)
    bad = world.api.get(PATH, min_live_sessions="1.5")
    assert (
        bad.status_code == 400
        and bad.json()["error"]["details"]["parameters"][0]["name"] == "min_live_sessions"
    )


def test_a_key_without_the_ledger_sees_no_live_figure(world: World) -> None:
    full = {r["alpha_id"]: r for r in screened(world, "plain")}
    body = world.api.ok(PATH, "no_portfolio", limit=100)
    for row in body["data"]:
        assert [row[name] for name in LIVE_FIGURES] == [None] * len(LIVE_FIGURES), row
        # The split is no ledger figure: an approval, a seal's cutoff or a publish date.
        assert (row["live_split"], row["live_split_origin"]) == (
            full[row["alpha_id"]]["live_split"],
            full[row["alpha_id"]]["live_split_origin"],
        )
    for params in ({"min_decay_ratio": "0"}, {"sort": "-live_information_ratio"}, {"max_live_sessions": "9"}):
        response = world.api.get(PATH, "no_portfolio", **params)
        assert response.status_code == 403, (params, response.text)
        assert response.json()["error"]["details"] == {"endpoint": "portfolio.ledger"}
    assert world.api.get(PATH, "no_portfolio", sort="live_split").status_code == 200


def index_rows(lake: Path) -> dict[str, dict[str, Any]]:
    from pipeline.index_rows import current_rows

    table = current_rows(str(lake))
    assert table is not None
    return {row["alpha_id"]: row for row in table.to_pylist()}


def test_lake_index_keeps_the_approval_split(world: World, tmp_path: Path) -> None:
    """A rebuild reads no records: each row keeps the approval split its previous row had."""
    lake = linked_copy(world.lake, tmp_path / "lake")
    before = index_rows(lake)
    run_cli("lake", "index", "--lake", str(lake))
    after = index_rows(lake)
    assert after[APPROVED[1]]["indexed_at"] != before[APPROVED[1]]["indexed_at"]  # every row recomputed
    for alpha, row in after.items():
        columns = ("live_split", "live_split_origin", *LIVE_FIGURES)
        assert {c: row[c] for c in columns} == {c: before[alpha][c] for c in columns}, alpha
        if alpha in world.approvals:
            assert row["live_split_origin"] == "approval"


def test_an_index_written_before_the_live_columns_serves_them_null(world: World, tmp_path: Path) -> None:
    """Until `lake index`, an older generation has no live column: null on every row, and a
    decision records its alpha's row with them."""
    from alpha_results_seal.storage import Storage
    from analytics.tenure import Tenure
    from datasets.catalogue_index import catalogue_dir, newest
    from pipeline.index_rows import record
    from schemas.lake import LIVE_COLUMNS

    lake = Path(shutil.copytree(world.lake, tmp_path / "lake"))  # not linked: the index is rewritten in place
    generation = newest(Storage(str(lake)), str(lake))
    assert generation is not None
    path = Path(catalogue_dir(str(lake))) / generation.index
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(list(LIVE_COLUMNS)), path)
    app = TestClient(app=_app(lake))
    with app as client:
        rows = Api(client).all_rows(PATH)
    served = ("live_split", "live_split_origin", *LIVE_FIGURES)  # the tenure columns are the index's own
    assert rows and all(row[c] is None for row in rows for c in served)
    # An approval recorded (as `alpha-results promote` records the row): that row alone has them.
    alpha = APPROVED[1]
    approved_at = recorded(world.records, alpha, "approved")
    record(str(lake), approvals={alpha: Tenure(approved_at, approved_at.date())})
    found = index_rows(lake)
    split = dt.date.fromisoformat(world.approvals[alpha])
    assert (found[alpha]["live_split"], found[alpha]["live_split_origin"]) == (split, "approval")
    assert found[alpha]["live_sessions"] >= MIN_OOS
    assert all(found[a]["live_split"] is None for a in found if a != alpha)


def _app(lake: Path) -> Any:
    from core.settings import Settings
    from serve.app import create_app

    return create_app(
        Settings(lake=str(lake), environment="test"), authenticate=authenticator_for(CALLERS), limiter=None
    )


def test_a_row_that_cannot_be_written_leaves_the_decision_recorded(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The decision is the record; the index row follows it where it can, and says so where not."""
    import pipeline.index_rows

    def refused(*args: Any, **kwargs: Any) -> int:
        raise OSError("No space left on device")

    monkeypatch.setattr(pipeline.index_rows, "record", refused)
    records = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    where = ("--lake", str(world.lake), "--keystore", records, "--policy", "", "--by", "ops", "--note", "n")
    before = index_rows(world.lake)
    printed = run_cli(
        "promote",
        "Test_ledger_only",
        *where,
        "--override",
        "approved in a test whatever its checks",
    )
    assert '"action": "approved"' in printed
    assert index_rows(world.lake) == before
    [warning] = [r for r in caplog.records if r.name == "pipeline.operator_decisions"]
    assert (
        "Test_ledger_only: the decision is recorded, but not the alpha's catalogue index row"
        in warning.message
    )
    assert "OSError: No space left on device" in warning.message


def test_a_failed_catalogue_follow_up_is_recorded_shown_and_completed_by_the_retry(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision whose index row cannot be written leaves a pending follow-up in the records (with
    its attempts and error), which `lake show` lists and `lake follow-ups` retries until the index
    follows the decision (issue 79, item 5)."""
    import pipeline.index_rows
    from records.store import open_records

    def refused(*args: Any, **kwargs: Any) -> int:
        raise OSError("No space left on device")

    lake = linked_copy(world.lake, tmp_path / "lake")
    records_url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    monkeypatch.setattr(pipeline.index_rows, "record", refused)
    alpha = "Test_ledger_only"
    where = ("--lake", str(lake), "--keystore", records_url)
    before = index_rows(lake)
    run_cli("promote", alpha, *where, "--policy", "", "--by", "ops", "--note", "n", "--override", "a test")

    def pending() -> list[Any]:
        records = open_records(records_url, create=False)
        try:
            return records.followups.pending()
        finally:
            records.close()

    [followup] = pending()
    assert (followup.alpha_id, followup.cause, followup.attempts) == (alpha, "alpha.approved", 1)
    assert followup.error == "OSError: No space left on device"
    shown = run_cli("lake", "show", *where)
    assert "1 catalogue follow-ups pending" in shown
    assert f"#{followup.id} {alpha}  after alpha.approved" in shown
    assert "1 attempt(s)" in shown and "OSError: No space left on device" in shown
    # A retry that fails again counts its attempt; the index is untouched.
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["lake", "follow-ups", *where]) == 1
    assert "1 still pending (OSError: No space left on device)" in out.getvalue()
    assert [f.attempts for f in pending()] == [2]
    assert index_rows(lake) == before
    assert before[alpha]["live_split_origin"] != "approval" and not before[alpha]["approved"]
    # The disk has room again: the retry records the row and the follow-up is done.
    monkeypatch.undo()
    assert "catalogue follow-ups: 1 done" in run_cli("lake", "follow-ups", *where)
    assert pending() == []
    after = index_rows(lake)
    assert after[alpha]["live_split_origin"] == "approval" and after[alpha]["approved"]
    assert "0 catalogue follow-ups pending" in run_cli("lake", "show", *where)
    assert "catalogue follow-ups: none pending" in run_cli("lake", "follow-ups", *where)


def test_a_republished_approved_alpha_keeps_its_approval_split(tmp_path: Path) -> None:
    """A new build of an approved alpha is published by the pipeline, which reads no records: its
    row keeps the approval split of the row it replaces, with the new build's figures there."""
    from analytics.figures import Figures
    from pipeline.build import build_many
    from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

    alpha = "Test_live_factory"
    # The same seed writes the same first weeks: the second run appends weeks after the approval.
    seals = {w: write_factory_seal(tmp_path / f"w{w}", alpha_id=alpha, weeks=w, seed=3) for w in (20, 40)}
    lake = tmp_path / "lake"
    spy = write_benchmark_seal(tmp_path / "spy", sessions=300)
    # Each step on its own day's clock (the lake keeps whole seconds: steps a second apart on the
    # real clock could be dated alike): the research run published the day after its last session,
    # the approval two days later, the next run once its weeks are over.
    with clock.simulated(noon("2023-05-20")):
        assert all(o.status != "refused" for o in build_many([str(spy), str(seals[20])], str(lake), jobs=1))
    records = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    where = ("--lake", str(lake), "--keystore", records, "--policy", "", "--by", "ops", "--note", "n")
    with clock.simulated(noon("2023-05-22")):
        run_cli("promote", alpha, *where, "--override", "approved in a test whatever its checks")
    # The last session the lake held when the approval was recorded: the research run's last.
    as_of = known_split(lake, alpha, recorded(records, alpha, "approved"))
    assert as_of == dt.date(2023, 5, 19)
    first = index_rows(lake)[alpha]
    assert (first["live_split"], first["live_split_origin"], first["live_sessions"]) == (as_of, "approval", 0)

    with clock.simulated(noon("2023-10-07")):
        assert all(o.status != "refused" for o in build_many([str(seals[40])], str(lake), jobs=1))
    row = index_rows(lake)[alpha]
    assert row["build_id"] != first["build_id"]
    assert (row["live_split"], row["live_split_origin"]) == (as_of, "approval")
    assert known_split(lake, alpha, recorded(records, alpha, "approved")) == as_of  # carried to the new build
    from pipeline.operator_decisions import standings_of
    from records.store import open_records

    held = open_records(records)
    try:
        figures = Figures.open(str(lake), standings_of(held))
    finally:
        held.close()
    try:
        live = figures.live(alpha)
    finally:
        figures.reader.close()
    assert live.split_origin == "approval"
    assert row["live_information_ratio"] == live.out_of_sample.information_ratio.value is not None
    assert row["decay_ratio"] == live.decay_ratio.value
    assert row["live_sessions"] == live.out_of_sample.sessions > 63
    assert row["live_information_ratio"] != first["live_information_ratio"]  # the new build's figures


def test_the_build_run_retries_a_pending_catalogue_follow_up(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build run's events step retries the follow-ups earlier decisions left pending (issue 79,
    item 5: "retried by the next build run"), says so in its report and fails the step while one
    stays pending."""
    import pipeline.index_rows
    from pipeline.build_events import events_step
    from records.store import open_records

    def refused(*args: Any, **kwargs: Any) -> int:
        raise OSError("No space left on device")

    lake = linked_copy(world.lake, tmp_path / "lake")
    records_url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    monkeypatch.setattr(pipeline.index_rows, "record", refused)
    alpha = "Test_ledger_only"
    where = ("--lake", str(lake), "--keystore", records_url)
    run_cli("promote", alpha, *where, "--policy", "", "--by", "ops", "--note", "n", "--override", "a test")

    def pending() -> list[Any]:
        records = open_records(records_url, create=False)
        try:
            return records.followups.pending()
        finally:
            records.close()

    assert [f.attempts for f in pending()] == [1]
    # A run while the disk is still full: the step fails, the follow-up counts the attempt.
    report = events_step(records_url, True, str(lake), [], [], "", 36_500)
    assert report.error == "catalogue follow-ups still pending: OSError: No space left on device"
    assert [f.attempts for f in pending()] == [2]
    # The next run, with room: the index follows the decision and the follow-up is done.
    monkeypatch.undo()
    report = events_step(records_url, True, str(lake), [], [], "", 36_500)
    assert report.error is None, report
    assert any("catalogue follow-ups: 1 done" in line for line in report.lines), report.lines
    assert pending() == []
    after = index_rows(lake)
    assert after[alpha]["live_split_origin"] == "approval" and after[alpha]["approved"]
