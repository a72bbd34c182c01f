"""`alpha-results promote`, `retire` and `promotions`: a decision recorded with the checks the API
served for that day, its event beside it, the history in order."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import polars as pl
import pytest

from datasets import clock
from pipeline.build_events import record_run_events
from records.event_log import EventScope, Reader, Wanted
from records.store import open_records
from schemas.checks import LIVE_CHECKS
from tests.analytics.conftest import ALPHAS, Api
from tests.conftest import linked_copy
from tests.decided import noon
from tests.support.build_tables import build_table
from tests.support.promotions import OVERRIDE, approve, demo_promotions, run

ALPHA = "Test_planted_factor"
"""Approved by the demo's history (2021-11-08) and retired (2022-01-10)."""
REOPENED = "2022-02-28"
"""A session after the demo's retirement of ALPHA: the day test_a_promotion_keeps_what_the_checks_said_that_day
approves it again."""


def retire(capsys: pytest.CaptureFixture[str], alpha: str, day: str, *where: str) -> tuple[int, str, str]:
    """`retire`, recorded on `day`'s clock."""
    with clock.simulated(noon(day)):
        return run(capsys, "retire", alpha, *where)


def demo_nominations(records: Path) -> dict[str, list[tuple[str, str]]]:
    """The demo history's nominations (nominated_by, build_id) by alpha, oldest first."""
    with sqlite3.connect(records) as db:
        rows = db.execute("SELECT alpha_id, nominated_by, build_id FROM nominations ORDER BY id").fetchall()
    found: dict[str, list[tuple[str, str]]] = {}
    for alpha, by, build in rows:
        found.setdefault(str(alpha), []).append((str(by), str(build)))
    return found


def test_a_promotion_keeps_what_the_checks_said_that_day(
    api: Api, demo_lake: Path, demo_records: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keystore = f"sqlite:///{tmp_path}/records.sqlite3"
    shutil.copyfile(demo_records, tmp_path / "records.sqlite3")  # the server's: the demo's decisions
    copy = linked_copy(demo_lake, tmp_path / "lake")  # a decision records its index row again
    where = ("--lake", str(copy), "--keystore", keystore, "--policy", "")
    asked = ("promote", ALPHA, "--by", "head of research", "--note", "diversifier")
    demo = json.loads(run(capsys, "promotions", ALPHA, "--keystore", keystore)[1])
    assert [(p["action"], p["as_of"], p["decided_by"]) for p in demo] == demo_promotions(demo_records, ALPHA)
    assert [p["action"] for p in demo] == ["approved", "retired"] and demo[-1]["as_of"] < REOPENED
    served = api.get(f"/v1/alphas/{ALPHA}/analytics/checks", "raw", to=REOPENED).json()["data"]
    failed = [c for c in served["checks"] if c["verdict"] == "fail"]
    assert served["summary"]["verdict"] == "fail" and failed
    with clock.simulated(noon(REOPENED)):
        # A decision is dated when it is recorded: an earlier day only as an import of a decision
        # taken elsewhere, a later one never; nothing is written.
        code, out, err = run(capsys, *asked, "--as-of", "2021-12-31", *where, *OVERRIDE)
        assert (
            code == 1
            and out == ""
            and err.startswith(f"error: as of 2021-12-31 is before today ({REOPENED})")
        )
        assert '--import "where"' in err
        code, out, err = run(
            capsys, *asked, "--as-of", "2022-03-01", "--import", "minutes", *where, *OVERRIDE
        )
        assert (
            code == 1 and out == "" and err.startswith(f"error: as of 2022-03-01 is after today ({REOPENED}")
        )
        # Issue 47: the verdict first, one line per failed check; a failing alpha is not approved
        # without an override, and nothing is written.
        code, out, err = run(capsys, *asked, *where)
        lines = err.splitlines()
        assert code == 1 and out == "", err
        assert (
            lines[0].startswith(f"approve {ALPHA} as of {REOPENED}")
            and f"FAIL, {len(failed)} failed" in lines[0]
        )
        assert lines[1 : 1 + len(failed)] == [f"  fail  {c['id']}: {c['reason']}" for c in failed]
        assert '--override "reason"' in lines[-1] and lines[-1].startswith("error: ")
        assert json.loads(run(capsys, "promotions", ALPHA, "--keystore", keystore)[1]) == demo
        # --dry-run says the same and records nothing, exit 0.
        code, out, err = run(capsys, *asked, *where, "--dry-run")
        assert code == 0 and out == "" and err.splitlines()[0] == lines[0]
        assert "dry run: nothing recorded" in err
        code, out, err = run(capsys, *asked, *where, "--override", "the diversifier we lack")
    assert code == 0, err
    recorded = json.loads(out)
    assert recorded["snapshot"]["override"] == "the diversifier we lack"
    assert recorded["action"] == "approved" and recorded["as_of"] == REOPENED
    assert recorded["recorded_at"].startswith(f"{REOPENED}T12:")
    assert recorded["decided_by"] == "head of research" and recorded["note"] == "diversifier"
    snapshot = recorded["snapshot"]
    assert snapshot["as_of"] == REOPENED and snapshot.get("imported_from") is None
    assert snapshot["policy"] == served["policy"]
    assert snapshot["verdict"] == served["summary"]["verdict"]
    assert snapshot["checks"] == [
        {key: check[key] for key in ("id", "value", "unit", "verdict", "reason")}
        for check in served["checks"]
    ]
    # Its event was written with it, for the alpha's readers.
    records = open_records(keystore)
    try:
        events = records.events.page(Reader(scopes=(EventScope(everything=True),)), Wanted()).events
    finally:
        records.close()
    # (the records also hold the demo history's events: its approval of ALPHA among them)
    assert [
        (e.type, e.alpha_id, e.data["as_of"], e.data["override"])
        for e in events
        if (e.alpha_id, e.type) == (ALPHA, "alpha.approved")
    ] == [
        ("alpha.approved", ALPHA, demo[0]["as_of"], demo[0]["snapshot"]["override"]),
        ("alpha.approved", ALPHA, REOPENED, "the diversifier we lack"),
    ]

    # A decision that does not follow from the last is refused, and nothing is written.
    with clock.simulated(noon(REOPENED)):
        code, _, err = run(capsys, "promote", ALPHA, "--by", "me", "--note", "again", *where, *OVERRIDE)
        assert code == 1 and "already approved" in err
        early = ("--as-of", "2022-02-01", "--import", "committee minutes")
        code, _, err = run(capsys, "retire", ALPHA, "--by", "me", "--note", "early", *early, *where)
        assert code == 1 and "before the last decision" in err
    code, out, err = retire(capsys, ALPHA, "2022-03-11", "--by", "risk", "--note", "decayed", *where)
    assert code == 0, err
    code, out, _ = run(capsys, "promotions", ALPHA, "--keystore", keystore)
    assert code == 0
    assert [(p["action"], p["as_of"]) for p in json.loads(out)] == [
        *((p["action"], p["as_of"]) for p in demo),
        ("approved", REOPENED),
        ("retired", "2022-03-11"),
    ]


def test_an_alpha_the_lake_does_not_publish_is_refused(
    demo_lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keystore = f"sqlite:///{tmp_path}/records.sqlite3"
    code, _, err = run(
        capsys,
        "promote",
        "no_such_alpha",
        "--by",
        "me",
        "--note",
        "x",
        "--lake",
        str(demo_lake),
        "--keystore",
        keystore,
    )
    assert code == 1 and "no_such_alpha" in err
    code, out, _ = run(capsys, "promotions", "no_such_alpha", "--keystore", keystore)
    assert code == 0 and json.loads(out) == []


def test_the_history_is_served_to_the_alphas_readers_only(
    with_records: tuple[Api, str, Path], demo_records: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why")
    demo = demo_promotions(demo_records, ALPHA)  # approved, then retired, by the demo's history
    assert approve(capsys, ALPHA, REOPENED, *where)[0] == 0
    approved = api.ok(f"/v1/alphas/{ALPHA}/promotions")["data"]["decisions"][-1]
    checks = api.ok(f"/v1/alphas/{ALPHA}/analytics/checks", to=REOPENED)["data"]
    assert approved["snapshot"]["verdict"] == checks["summary"]["verdict"]
    assert [c["verdict"] for c in approved["snapshot"]["checks"]] == [c["verdict"] for c in checks["checks"]]
    assert retire(capsys, ALPHA, "2022-03-11", *where)[0] == 0
    printed = json.loads(run(capsys, "promotions", ALPHA, "--keystore", url)[1])
    body = api.get(f"/v1/alphas/{ALPHA}/promotions")
    assert body.status_code == 200, body.text
    data = body.json()["data"]
    assert (data["alpha"], data["standing"], data["since"]) == (ALPHA, "retired", "2022-03-11")
    assert [(d["action"], d["as_of"], d["decided_by"]) for d in data["decisions"]] == [
        *demo,
        ("approved", REOPENED, "ops"),
        ("retired", "2022-03-11", "ops"),
    ]
    # The command line prints the same decisions, each with its alpha; the route also says which
    # build it serves now of a decision taken on another (the demo's, on its research run).
    served_now = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())["build_id"]
    assert [d.get("served_build_id") for d in data["decisions"]] == [
        None if d["build_id"] == served_now else served_now for d in data["decisions"]
    ]
    assert data["decisions"][0]["build_id"] != served_now
    assert [{k: v for k, v in d.items() if k not in ("alpha_id", "served_build_id")} for d in printed] == [
        {k: v for k, v in d.items() if k != "served_build_id"} for d in data["decisions"]
    ]
    # Never decided nor nominated: standing never, no decisions.
    never = api.ok("/v1/alphas/Test_small_universe/promotions")["data"]
    assert (never["standing"], never["since"], never["decisions"], never["nominations"]) == (
        "never",
        None,
        [],
        [],
    )
    # The demo's history recorded momentum_12_1's nomination by its seal, then the head of research's
    # approval (with an override): its seal approved nothing.
    momentum = api.ok("/v1/alphas/momentum_12_1/promotions")["data"]
    recorded = demo_promotions(demo_records, "momentum_12_1")
    assert [(d["action"], d["as_of"], d["decided_by"]) for d in momentum["decisions"]] == recorded
    assert [d["decided_by"] for d in momentum["decisions"]] == ["head of research"]
    assert momentum["decisions"][0]["snapshot"]["override"]
    assert (momentum["standing"], momentum["since"]) == ("approved", recorded[-1][1])
    nominated = demo_nominations(demo_records)["momentum_12_1"]
    assert [(n["nominated_by"], n["build_id"]) for n in momentum["nominations"]] == nominated
    assert [by for by, _ in nominated] == ["seal"]
    assert momentum["nominations"][0]["recorded_at"] < momentum["decisions"][0]["recorded_at"]
    # A key that may not read the alpha learns nothing about its decisions, not even that there are any.
    hidden = api.get("/v1/alphas/momentum_12_1/promotions", token="testonly")
    assert hidden.status_code == 403 and hidden.json()["error"]["code"] == "alpha_not_allowed"
    assert "decisions" not in hidden.text


def long_short_returns(lake: Path, alpha: str) -> pl.DataFrame:
    """The alpha's daily long_short returns r = ending/starting - 1, read from its served build's
    ledger with polars (independent of analytics/)."""
    root = lake / "alphas" / alpha
    build = json.loads((root / "_current.json").read_text())["build_id"]
    ledger = build_table(root / "builds" / build, "portfolio", "long_short")
    return ledger.select("date", (pl.col("ending_equity") / pl.col("starting_equity") - 1).alias(alpha))


def publish_now(api: Api, url: str, lake: Path, alpha: str) -> list[dict]:
    """The build events a run of `alpha` records now (the checks of today's standings), as served."""
    records = open_records(url)
    try:
        # A retention that keeps the events of the test's decisions, recorded on 2021's clock: a
        # purge of them would leave ids missing before the new event, which the feed waits for.
        record_run_events(records, str(lake), [alpha], [], "", 36_500)
    finally:
        records.close()
    return [e for e in api.ok("/v1/events", limit=100)["data"] if e["type"] == "alpha.published"]


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records without the demo's decisions
def test_a_snapshot_and_an_event_are_the_checks_route_with_the_standings_of_their_day(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 46, item 1: the snapshot of a second approval measured production_correlation and the
    residual against the sealed production set, while the route measures them against the approved
    alphas; and a one-alpha key read them, and the Deflated Sharpe, over alphas it may not read."""
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    assert approve(capsys, ALPHA, "2021-06-30", *where)[0] == 0
    code, out, err = approve(capsys, "momentum_12_1", "2021-12-31", *where)
    assert code == 0, err
    snapshot = json.loads(out)["snapshot"]
    served = api.ok("/v1/alphas/momentum_12_1/analytics/checks", to="2021-12-31")["data"]
    # The live checks differ by design: the snapshot's see the approval in force before the
    # decision (none), the route's this one.
    assert [c for c in snapshot["checks"] if c["id"] not in LIVE_CHECKS] == [
        {key: check[key] for key in ("id", "value", "unit", "verdict", "reason")}
        for check in served["checks"]
        if check["id"] not in LIVE_CHECKS
    ]
    by_id = {check["id"]: check for check in snapshot["checks"]}
    # Recomputed independently: the approved set is Test_planted_factor alone (momentum excepted),
    # each correlation over the common sessions of the whole histories.
    both = long_short_returns(lake, "momentum_12_1").join(long_short_returns(lake, ALPHA), on="date")
    expected = abs(both.select(pl.corr("momentum_12_1", ALPHA)).item())
    assert by_id["production_correlation"]["value"] == pytest.approx(expected, abs=1e-9)
    assert ALPHA in by_id["production_correlation"]["reason"]
    assert "value_composite_legacy" not in by_id["production_correlation"]["reason"]

    # The build events of a run now: the checks route of today's standings, for a full key.
    published = publish_now(api, url, lake, "momentum_12_1")
    route = api.ok("/v1/alphas/momentum_12_1/analytics/checks")["data"]["checks"]
    assert published[-1]["data"]["checks"] == {
        c["id"]: {"value": c["value"], "unit": c["unit"], "verdict": c["verdict"]} for c in route
    }

    # A key of one alpha: no figure computed over the others, on /promotions and on /v1/events.
    wide = ("deflated_sharpe", "production_correlation", "residual_information_ratio", "pbo")
    # Its own route: no production alpha or trial variance it may read; the residual on SPY alone.
    own = {
        c["id"]: c
        for c in api.ok("/v1/alphas/momentum_12_1/analytics/checks", token="momentum_only")["data"]["checks"]
    }
    assert own["production_correlation"]["value"] is None and own["deflated_sharpe"]["value"] is None
    assert own["residual_information_ratio"]["value"] != by_id["residual_information_ratio"]["value"]
    decisions = api.ok("/v1/alphas/momentum_12_1/promotions", token="momentum_only")["data"]["decisions"]
    seen = {c["id"]: c for c in decisions[-1]["snapshot"]["checks"]}
    for check in wide:
        assert seen[check]["value"] is None and seen[check]["verdict"] == "not_measurable"
        assert seen[check]["reason"].startswith("access_limited: computed over alphas this key may not read")
    assert decisions[-1]["snapshot"]["verdict"] is None
    assert "production_correlation" in decisions[-1]["snapshot"]["withheld_reason"]
    others = ("value_composite_legacy", ALPHA)
    text = api.get("/v1/alphas/momentum_12_1/promotions", token="momentum_only").text
    assert not any(other in text for other in others), text
    assert {k: v for k, v in seen.items() if k not in wide} == {
        k: v for k, v in by_id.items() if k not in wide
    }
    events = api.ok("/v1/events", token="momentum_only", limit=100)["data"]
    assert [e["alpha"] for e in events] == ["momentum_12_1"] * len(events)
    checks = [e["data"]["checks"] for e in events if e["type"] == "alpha.published"][-1]
    assert {k: (checks[k]["value"], checks[k]["verdict"]) for k in wide} == dict.fromkeys(
        wide, (None, "not_measurable")
    )
    # A key that may read the decisions but not the checks: the decision, no figure of the checks.
    bare = api.ok("/v1/alphas/momentum_12_1/promotions", token="momentum_promotions")["data"]
    for decision in bare["decisions"]:
        assert decision["snapshot"]["checks"] == [] and decision["snapshot"]["verdict"] is None
        assert "analytics.checks" in decision["snapshot"]["withheld_reason"]
    assert not any(other in json.dumps(bare) for other in others)


def test_a_decision_takes_effect_the_day_it_is_recorded_and_says_what_it_moves(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 64: a decision is dated when it is recorded (`--as-of` defaults to today by the records'
    clock; issue 47 had made it the alpha's last session), and (issue 47) it says what it changes for
    the live book: the approved set every reference set is drawn from, and each reference-set check
    of the approved alphas (the production ones) that moves, as their own checks route answers
    before and after."""
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    override = OVERRIDE
    today = "2022-03-14"  # the Monday after the demo's last session (2022-03-11)
    with clock.simulated(noon(today)):
        code, _, err = run(capsys, "promote", ALPHA, *where, *override, "--dry-run")
    assert code == 0 and err.splitlines()[0].startswith(f"approve {ALPHA} as of {today} "), err
    (moves,) = [line for line in err.splitlines() if line.startswith("the approved set every")]
    before_set, after_set = moves.split(": ", 1)[1].split(" -> ")
    assert before_set == "momentum_12_1, value_composite_legacy", moves  # the demo's approvals
    assert set(after_set.split(", ")) == {"momentum_12_1", "value_composite_legacy", ALPHA}, moves
    before = {c["id"]: c for c in api.ok("/v1/alphas/momentum_12_1/analytics/checks")["data"]["checks"]}
    code, out, err = approve(capsys, ALPHA, today, *where)
    assert code == 0 and json.loads(out)["as_of"] == today
    after = {c["id"]: c for c in api.ok("/v1/alphas/momentum_12_1/analytics/checks")["data"]["checks"]}
    moving = [
        c
        for c in ("production_correlation", "residual_information_ratio")
        if f"{before[c]['value']:.4g}" != f"{after[c]['value']:.4g}"
    ]
    assert "residual_information_ratio" in moving  # a check whose value stays is not listed
    for check in moving:
        moved = f"  momentum_12_1  {check}: {before[check]['value']:.4g} -> {after[check]['value']:.4g}, "
        assert any(line.startswith(moved) for line in err.splitlines()), (moved, err)
    # A decision that does not follow from the last is refused before any figure is computed.
    with clock.simulated(noon(today)):
        code, _, err = run(capsys, "promote", ALPHA, *where, *override, "--dry-run")
    assert code == 1 and err.splitlines() == [
        f"error: {ALPHA} is already approved (as of {today}); retire it first"
    ]


def test_the_catalogue_shows_each_alphas_standing_and_since_when(api: Api, demo_records: Path) -> None:
    """Issue 47, item 1: one standing per alpha, shown where the alphas are listed. `/v1/alphas`
    says of every alpha where it stands and since when, as its `/promotions` does: the demo's
    history decided on value_composite_legacy and momentum_12_1 (approved), Test_planted_factor
    (approved, then retired), its seal's nomination of Test_short_term_reversal waits in the queue,
    every other alpha never decided (read independently from the records with sqlite3); a key
    reading `Test_` alphas alone sees their rows only, the same."""
    nominations = demo_nominations(demo_records)
    expected: dict[str, tuple[str, str | None]] = {}
    for alpha in ALPHAS:
        decided = demo_promotions(demo_records, alpha)
        if decided:
            expected[alpha] = (decided[-1][0], decided[-1][1] if decided[-1][0] == "approved" else None)
        else:
            expected[alpha] = ("nominated" if alpha in nominations else "never", None)
    assert {a for a, (standing, _) in expected.items() if standing == "approved"} == {
        "momentum_12_1",
        "value_composite_legacy",
    }
    assert expected[ALPHA][0] == "retired" and expected["Test_short_term_reversal"][0] == "nominated"
    rows = {row["alpha_id"]: row for row in api.all_rows("/v1/alphas")}
    assert sorted(rows) == sorted(ALPHAS)
    for alpha, row in rows.items():
        assert (row["standing"], row["approved_since"]) == expected[alpha], row
        history = api.ok(f"/v1/alphas/{alpha}/promotions")["data"]
        decided = [(d["action"], d["as_of"], d["decided_by"]) for d in history["decisions"]]
        assert decided == demo_promotions(demo_records, alpha)
        assert history["standing"] == row["standing"]
        assert history["since"] == (decided[-1][1] if decided else None)
        assert [(n["nominated_by"], n["build_id"]) for n in history["nominations"]] == nominations.get(
            alpha, []
        )
    # The screener's standing column says the same, and its production filter is the approved set.
    screened = {
        r["alpha_id"]: (r["standing"], r["approved_since"]) for r in api.all_rows("/v1/analytics/screen")
    }
    assert screened == expected
    production = {r["alpha_id"] for r in api.all_rows("/v1/analytics/screen", production="true")}
    assert production == {a for a, (standing, _) in expected.items() if standing == "approved"}
    tested = api.all_rows("/v1/alphas", "testonly")
    assert [(r["alpha_id"], r["standing"], r["approved_since"]) for r in tested] == [
        (r["alpha_id"], *expected[r["alpha_id"]]) for r in rows.values() if r["alpha_id"].startswith("Test_")
    ]


@pytest.mark.parametrize(
    "with_records", ["empty"], indirect=True
)  # without the demo's decisions: the sets are the test's
def test_after_a_retirement_a_snapshot_measures_the_set_of_its_day(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 46, done means: after approvals and a retirement, a snapshot's production_correlation and
    residual information ratio are recomputed independently (polars for the correlation, statsmodels
    for the residual: tests/analytics/reference.py) over the approved set of its day, the retired
    alpha left out, and equal the checks route asked for that day."""
    from tests.analytics import reference as ref

    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    for alpha, as_of in ((ALPHA, "2021-06-30"), ("value_composite_legacy", "2021-09-30")):
        assert approve(capsys, alpha, as_of, *where)[0] == 0
    assert retire(capsys, ALPHA, "2021-11-30", *where)[0] == 0
    code, out, err = approve(capsys, "momentum_12_1", "2021-12-31", *where)
    assert code == 0, err
    by_id = {check["id"]: check for check in json.loads(out)["snapshot"]["checks"]}
    served = api.ok("/v1/alphas/momentum_12_1/analytics/checks", to="2021-12-31")["data"]["checks"]
    assert [c for c in by_id.values() if c["id"] not in LIVE_CHECKS] == [
        {key: check[key] for key in ("id", "value", "unit", "verdict", "reason")}
        for check in served
        if check["id"] not in LIVE_CHECKS
    ]
    # The set of 2021-12-31: value_composite_legacy alone (Test_planted_factor retired a month before).
    both = long_short_returns(lake, "momentum_12_1").join(
        long_short_returns(lake, "value_composite_legacy"), on="date"
    )
    expected = abs(both.select(pl.corr("momentum_12_1", "value_composite_legacy")).item())
    assert by_id["production_correlation"]["value"] == pytest.approx(expected, abs=1e-9)
    assert "value_composite_legacy" in by_id["production_correlation"]["reason"]
    assert ALPHA not in by_id["production_correlation"]["reason"]
    window = (None, "2021-12-31")
    residual = ref.residual(ref.Lake(lake), "momentum_12_1", "long_short", window, ["value_composite_legacy"])
    assert by_id["residual_information_ratio"]["value"] == pytest.approx(residual.information_ratio, abs=1e-9)
    # Measured against the retired alpha too, it would differ: the set is what the test pins.
    with_retired = ref.residual(
        ref.Lake(lake), "momentum_12_1", "long_short", window, [ALPHA, "value_composite_legacy"]
    )
    assert with_retired.information_ratio != pytest.approx(residual.information_ratio, abs=1e-6)
    # A build event now carries the checks of today's standings: the same set, the whole history.
    published = publish_now(api, url, lake, "momentum_12_1")
    checks = published[-1]["data"]["checks"]
    assert checks["production_correlation"]["value"] == pytest.approx(expected, abs=1e-9)
    whole = ref.residual(
        ref.Lake(lake), "momentum_12_1", "long_short", (None, None), ["value_composite_legacy"]
    )
    assert checks["residual_information_ratio"]["value"] == pytest.approx(whole.information_ratio, abs=1e-9)
