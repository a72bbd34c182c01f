"""The live checks of `/analytics/checks` (`live_information_ratio`, `decay_ratio`; issue 35 item 2):
an approved alpha is measured over its live part (the sessions first published after its approval
was recorded: issue 64) with exactly `/analytics/live`'s figures at that split (and within 1e-9 of
the independent recomputation of tests/support/live_figures.py at the split the lake's knowledge
times give, tests/knowledge.py); an alpha never approved is not_applicable, one approved too
recently not measurable, each with its reason, and neither moves the summary's verdict; the
operator's policy file sets both thresholds and a request may only tighten them; the notebook's
`Figures.checks` with the same standings is the served answer byte for byte.

The demo's history approved value_composite_legacy (its live part long enough) and momentum_12_1
(too short); the lake is a copy and the records a copy of the demo's (a decision re-records an
index row)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from cli.main import main as cli
from tests.analytics.conftest import CALLERS, Api
from tests.analytics.reference import Lake
from tests.callers import authenticator_for
from tests.conftest import linked_copy
from tests.knowledge import demo_split
from tests.support.live_figures import expected

PATH = "/v1/alphas/{}/analytics/checks"
LIVE_PATH = "/v1/alphas/{}/analytics/live"
LIVE = ("live_information_ratio", "decay_ratio")
MIN_OOS = 63
TOLERANCE = 1e-9
POLICY = {"live_information_ratio": {"min": -5.0}, "decay_ratio": {"min": -10.0}}
"""The operator's live thresholds in this module's policy file (the defaults are 0.0 and 0.25)."""
MEASURED = "value_composite_legacy"  # approved after its research run, live for 24 weeks since
RECENT = "momentum_12_1"  # approved later: its live part is shorter than a quarter
NEVER = "Test_small_universe"


@dataclass(frozen=True)
class World:
    api: Api
    lake: Path
    records: str
    policy: Path
    approved: dict[str, str]  # alpha -> its live split (the last session known at its approval)


@pytest.fixture(scope="module")
def world(demo_lake: Path, demo_records: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    folder = tmp_path_factory.mktemp("live_checks")
    lake = linked_copy(demo_lake, folder / "lake")
    shutil.copyfile(demo_records, folder / "records.sqlite3")
    records = f"sqlite:///{folder / 'records.sqlite3'}"
    policy = folder / "checks.toml"
    policy.write_text(
        "".join(f"[checks.{check}]\nmin = {bound['min']!r}\n\n" for check, bound in POLICY.items())
    )
    approved = {alpha: demo_split(lake, folder / "records.sqlite3", alpha) for alpha in (MEASURED, RECENT)}
    app = create_app(
        Settings(lake=str(lake), environment="test", checks_policy_file=str(policy)),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(records),
    )
    with TestClient(app=app) as client:
        yield World(Api(client), lake, records, policy, approved)


def _promoted(lake: Path, records: str, policy: Path, alpha: str) -> dict[str, Any]:
    """`alpha-results promote` as an operator runs it today (with the server's policy file); the
    decision it prints."""
    out = io.StringIO()
    where = ["--lake", str(lake), "--keystore", records, "--policy", str(policy), "--by", "head of research"]
    where += ["--note", "live", "--override", "approved in a test whatever its checks"]
    with contextlib.redirect_stdout(out):
        assert cli(["promote", alpha, *where]) == 0
    decision: dict[str, Any] = json.loads(out.getvalue())
    return decision


def by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in data["checks"]}


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def battery_verdict(entries: list[dict[str, Any]]) -> str:
    """The summary's rule: a live check counts once it has a value."""
    verdicts = [e["verdict"] for e in entries]
    if "fail" in verdicts:
        return "fail"
    unmeasured = any(e["verdict"] == "not_measurable" and e["id"] not in LIVE for e in entries)
    return "incomplete" if unmeasured else "pass"


@pytest.mark.parametrize("book", ["long_short", "long_only"])
def test_an_approved_alpha_is_measured_with_the_live_routes_figures(world: World, book: str) -> None:
    as_of = world.approved[MEASURED]
    data = world.api.ok(PATH.format(MEASURED), book=book)["data"]
    live = world.api.ok(LIVE_PATH.format(MEASURED), book=book)["data"]
    assert (live["split_origin"], live["split_date"]) == ("approval", as_of)
    entries = by_id(data)
    ir, decay = entries["live_information_ratio"], entries["decay_ratio"]
    # One computation: the very figures /analytics/live serves at the approval's split.
    assert ir["value"] == live["out_of_sample"]["information_ratio"]["value"] is not None
    assert decay["value"] == live["decay_ratio"]["value"] is not None
    # And the independent recomputation from the lake's files.
    want = expected(Lake(world.lake), MEASURED, book, as_of)
    assert close(ir["value"], want["out_of_sample"]["information_ratio"]), (ir, want)
    assert close(decay["value"], want["decay_ratio"]), (decay, want)
    sessions = want["out_of_sample"]["sessions"]
    assert sessions >= MIN_OOS
    for entry in (ir, decay):
        assert entry["split_date"] == as_of and entry["book"] == book and entry["unit"] == "ratio"
        assert entry["source"] == "analytics.live"
        assert entry["policy_threshold"] == entry["threshold"] == POLICY[entry["id"]]
        bound = POLICY[entry["id"]]["min"]
        assert entry["verdict"] == ("pass" if entry["value"] >= bound else "fail"), entry
        assert f"over the {sessions} sessions first published after its approval" in entry["reason"], entry
    assert ir["horizon"] == decay["horizon"] == "approval_split"
    assert (
        f"in-sample information ratio ({live['in_sample']['information_ratio']['value']:.3g})"
        in decay["reason"]
    )
    assert data["summary"]["verdict"] == battery_verdict(data["checks"])


def test_an_alpha_never_approved_is_not_applicable(world: World) -> None:
    data = world.api.ok(PATH.format(NEVER))["data"]
    for check in LIVE:
        entry = by_id(data)[check]
        assert (entry["value"], entry["verdict"], entry["split_date"]) == (None, "not_measurable", None), (
            entry
        )
        assert entry["reason"] == (
            "not_applicable: the alpha was never approved (alpha-results promote); the live checks measure the "
            "sessions first published after an approval was recorded"
        )
        assert entry["threshold"] == POLICY[check]
    # Counted as not measurable, but the verdict is the rest of the battery's.
    summary = data["summary"]
    assert summary["not_measurable"] == sum(e["verdict"] == "not_measurable" for e in data["checks"])
    assert summary["verdict"] == battery_verdict(data["checks"])
    rest = [e for e in data["checks"] if e["id"] not in LIVE]
    assert summary["verdict"] == battery_verdict(rest)


def test_a_live_part_too_short_is_not_measurable_and_says_why(world: World) -> None:
    as_of = world.approved[RECENT]
    data = world.api.ok(PATH.format(RECENT))["data"]
    live = world.api.ok(LIVE_PATH.format(RECENT))["data"]
    sessions = live["out_of_sample"]["sessions"]
    assert 0 < sessions < MIN_OOS
    # One rule (issue 81, item 9): the live route waits for a quarter as the check does.
    assert live["out_of_sample"]["information_ratio"]["value"] is None
    assert live["out_of_sample"]["information_ratio"]["withheld_reason"].endswith(
        f"at least {MIN_OOS} are needed"
    )
    for check in LIVE:
        entry = by_id(data)[check]
        assert (entry["value"], entry["verdict"], entry["split_date"]) == (None, "not_measurable", as_of)
        assert entry["reason"].startswith(
            f"{sessions} sessions were first published after the approval was recorded"
        )
        assert entry["reason"].endswith(f"at least {MIN_OOS} are needed")
    assert data["summary"]["verdict"] == battery_verdict(data["checks"])


def test_a_check_up_to_a_date_sees_no_session_after_it(world: World) -> None:
    """`to` ends the live part (`from` does not narrow the in-sample one): the values are the
    independent recomputation over the ledger up to that date; before the approval there is none."""
    as_of = world.approved[MEASURED]
    reference = Lake(world.lake)
    ledger = reference.ledger(MEASURED, "long_short")
    assert ledger is not None
    dates = ledger["date"].tolist()
    end = dates[dates.index(as_of) + 100]
    data = by_id(world.api.ok(PATH.format(MEASURED), to=end, **{"from": dates[150]})["data"])
    cut = ledger[ledger["date"] <= end]
    r = cut["ending_equity"].to_numpy(float) / cut["starting_equity"].to_numpy(float) - 1.0
    inside = (cut["date"] <= as_of).to_numpy()
    ins, oos = ratio(r[inside]), ratio(r[~inside])
    assert oos is not None and ins is not None and ins > 0
    assert close(data["live_information_ratio"]["value"], oos), data["live_information_ratio"]
    assert close(data["decay_ratio"]["value"], oos / ins), data["decay_ratio"]
    assert (
        "over the 100 sessions first published after its approval" in data["live_information_ratio"]["reason"]
    )
    before = by_id(world.api.ok(PATH.format(MEASURED), to=as_of)["data"])
    for check in LIVE:
        assert before[check]["reason"].startswith(
            "0 sessions were first published after the approval was recorded"
        )
        assert f"up to {as_of}; at least {MIN_OOS} are needed" in before[check]["reason"]


def ratio(r: Any) -> float | None:
    """The annualised information ratio (numpy only, as tests/support/live_figures.py)."""
    import numpy as np

    if r.size < 2 or float(np.std(r, ddof=1)) == 0:
        return None
    return float(np.mean(r)) / float(np.std(r, ddof=1)) * math.sqrt(252)


def test_a_retirement_records_the_live_checks_of_the_tenure_it_ends(world: World, tmp_path: Path) -> None:
    """The snapshot of a retirement sees the approval it ends: the live checks of its live part, as
    the checks route answered them just before."""
    lake = linked_copy(world.lake, tmp_path / "lake")
    records = tmp_path / "records.sqlite3"
    shutil.copyfile(world.records.removeprefix("sqlite:///"), records)
    served = by_id(world.api.ok(PATH.format(MEASURED))["data"])
    out = io.StringIO()
    where = ["--lake", str(lake), "--keystore", f"sqlite:///{records}", "--policy", str(world.policy)]
    with contextlib.redirect_stdout(out):
        assert cli(["retire", MEASURED, *where, "--by", "ops", "--note", "decayed"]) == 0
    seen = {check["id"]: check for check in json.loads(out.getvalue())["snapshot"]["checks"]}
    for check in LIVE:
        assert seen[check]["value"] is not None
        assert {k: seen[check][k] for k in ("value", "verdict", "reason")} == {
            k: served[check][k] for k in ("value", "verdict", "reason")
        }


def test_the_snapshot_of_an_approval_lists_the_live_checks_not_applicable(
    world: World, tmp_path: Path
) -> None:
    """At the approval the alpha has no live part yet: the snapshot says so, and its verdict is the
    battery's without them."""
    lake = linked_copy(world.lake, tmp_path / "lake")
    records = tmp_path / "records.sqlite3"
    shutil.copyfile(world.records.removeprefix("sqlite:///"), records)
    snapshot = _promoted(lake, f"sqlite:///{records}", world.policy, NEVER)["snapshot"]
    seen = {check["id"]: check for check in snapshot["checks"]}
    assert list(seen)[-3:] == [*LIVE, "pbo"]  # the live checks, then the family's
    for check in LIVE:
        assert seen[check]["verdict"] == "not_measurable" and seen[check]["reason"].startswith(
            "not_applicable"
        )
    assert snapshot["policy"]["thresholds"]["decay_ratio"] == POLICY["decay_ratio"]


def test_a_request_may_only_tighten_the_live_thresholds(world: World) -> None:
    base = by_id(world.api.ok(PATH.format(MEASURED))["data"])
    for check, parameter in (
        ("live_information_ratio", "min_live_information_ratio"),
        ("decay_ratio", "min_decay_ratio"),
    ):
        value = base[check]["value"]
        assert value is not None and value >= POLICY[check]["min"], base[check]
        step = max(abs(value) * 1e-6, 1e-9)
        failed = world.api.ok(PATH.format(MEASURED), **{parameter: repr(value + step)})["data"]
        entry = by_id(failed)[check]
        assert entry["verdict"] == "fail" and entry["threshold"] == {"min": value + step}, entry
        assert entry["policy_threshold"] == POLICY[check]
        shown, bound = entry["reason"].split(": ", 1)[0].split(" < ")  # as many digits as tell them apart
        assert math.isclose(float(shown), value, rel_tol=1e-6) and float(bound) > float(shown), entry
        # A failing live check fails the battery: the alpha decays.
        assert failed["summary"]["verdict"] == "fail"
        at = by_id(world.api.ok(PATH.format(MEASURED), **{parameter: repr(value)})["data"])[check]
        assert at["verdict"] == "pass", at
        looser = world.api.get(PATH.format(MEASURED), **{parameter: repr(POLICY[check]["min"] - 0.5)})
        assert looser.status_code == 400, looser.text
        assert looser.json()["error"]["details"]["parameters"] == [
            {
                "name": parameter,
                "rule": f"may only tighten the operator's policy: at least {POLICY[check]['min']!r}",
            }
        ]


def test_a_key_without_the_ledger_has_them_withheld(world: World) -> None:
    body = world.api.ok(PATH.format(MEASURED), "no_portfolio")
    for check in LIVE:
        entry = by_id(body["data"])[check]
        assert entry["verdict"] == "not_measurable" and entry["reason"].startswith("access_limited"), entry
        assert entry["split_date"] == world.approved[MEASURED]
    blocks = {w["block"] for w in body["meta"]["warnings"] if w["code"] == "access_limited"}
    assert {f"checks.{check}" for check in LIVE} <= blocks


def test_the_notebooks_checks_take_the_tenure_from_the_standings(world: World) -> None:
    from analytics.figures import Figures
    from pipeline.operator_decisions import standings_of
    from records.store import open_records

    records = open_records(world.records)
    try:  # the server's default reference set (production_correlation) follows the records too
        standings = standings_of(records)
    finally:
        records.close()
    figures = Figures.open(str(world.lake), standings)
    try:
        found = figures.checks(MEASURED, world.policy, book="long_only")
    finally:
        figures.reader.close()
    served = world.api.ok(PATH.format(MEASURED), book="long_only")["data"]
    assert json.loads(msgspec.json.encode(found)) == served
    # Opened without the records' standings, nothing is approved: the live checks do not apply.
    bare = Figures.open(str(world.lake))
    try:
        unapproved = bare.checks(MEASURED, world.policy, book="long_only")
    finally:
        bare.reader.close()
    assert by_id(json.loads(msgspec.json.encode(unapproved)))["decay_ratio"]["reason"].startswith(
        "not_applicable"
    )
