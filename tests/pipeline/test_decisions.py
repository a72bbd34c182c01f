"""Only a decision approves, dated when it is recorded, with every consequence announced
(issue 64, items 2 to 5): the command line over a copy of the demo's lake and records."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from alpha_results_seal.storage import Storage
from cli.main import main
from datasets import clock, pins
from pipeline.build_events import record_run_events
from pipeline.operator_decisions import DecisionRequest, decide, preview, standings_of
from records.store import open_records
from schemas.checks import CHECKS
from tests.conftest import linked_copy


@dataclass(frozen=True)
class Deployment:
    lake: str
    keystore: str

    @property
    def where(self) -> tuple[str, ...]:
        return ("--lake", self.lake, "--keystore", self.keystore, "--policy", "")


@pytest.fixture
def deployment(demo_lake: Path, demo_records: Path, tmp_path: Path) -> Iterator[Deployment]:
    lake = linked_copy(demo_lake, tmp_path / "lake")
    shutil.copyfile(demo_records, tmp_path / "records.sqlite3")
    yield Deployment(str(lake), f"sqlite:///{tmp_path}/records.sqlite3")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_decision_is_dated_when_recorded_never_later_and_earlier_only_as_an_import(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    today = clock.now().date()
    for as_of, rule in (("2021-03-01", "before today"), ("2099-01-01", "after today")):
        code, _, err = run(
            capsys, "retire", "momentum_12_1", "--by", "x", "--note", "y", "--as-of", as_of, *deployment.where
        )
        assert code == 1 and rule in err and "--import" in err or rule == "after today", err
    # The default (today) works, with no --as-of: a dry run needs neither --by nor --note.
    code, _, err = run(capsys, "retire", "momentum_12_1", "--dry-run", *deployment.where)
    assert code == 0 and f"retire momentum_12_1 as of {today}" in err, err
    # An import of a decision taken elsewhere on an earlier day is labelled, and its live part
    # still starts when it is recorded.
    code, out, err = run(
        capsys,
        "promote",
        "Test_small_universe",
        "--by",
        "the committee",
        "--note",
        "minuted on 2022-02-01",
        "--as-of",
        "2022-02-01",
        "--import",
        "committee minutes, 2022-02-01",
        "--override",
        "taken elsewhere",
        *deployment.where,
    )
    assert code == 0, err
    record = json.loads(out)
    assert (
        record["as_of"] == "2022-02-01"
        and record["snapshot"]["imported_from"] == "committee minutes, 2022-02-01"
    )
    records = open_records(deployment.keystore)
    try:
        held = standings_of(records).tenure("Test_small_universe")
    finally:
        records.close()
    assert held is not None and held.imported and held.approved_at.date() == today


def test_a_seal_id_without_the_test_prefix_approves_nothing(demo_records: Path) -> None:
    records = open_records(f"sqlite:///{demo_records}", create=False)
    try:
        # The production ids of the demo were approved by the head of research, never by a seal.
        assert all(
            p.decided_by != "seal"
            for alpha in ("momentum_12_1", "value_composite_legacy")
            for p in records.promotions.history(alpha)
        )
    finally:
        records.close()


def test_a_decision_announces_every_check_it_flips_and_records_an_event_for_each(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    """Retiring the approved alphas one by one empties the reference set: every other alpha's
    production correlation goes not measurable, listed before and recorded after with its cause."""
    decision = DecisionRequest("momentum_12_1", "retired", "head of research", "a test")
    found = preview(deployment.lake, deployment.keystore, "", decision)
    flipped = {alpha for alpha, _ in found.flips()}
    listed = [other.alpha_id for other in found.found.others]
    assert set(found.found.approved_before) - set(found.found.approved_after) == {"momentum_12_1"}
    assert flipped  # the reference set of every other alpha loses momentum_12_1: some verdict flips
    code, _, err = run(capsys, "retire", "momentum_12_1", "--by", "x", "--note", "y", *deployment.where)
    assert code == 0, err
    for alpha in listed:
        assert alpha in err
    records = open_records(deployment.keystore)
    try:
        for alpha in flipped:
            event = records.events.latest(alpha, ("alpha.checks_changed",))
            assert event is not None and event.data["cause"] == "alpha.retired of momentum_12_1"
    finally:
        records.close()


def test_a_snapshot_names_what_it_read_and_pins_it(deployment: Deployment) -> None:
    decision = DecisionRequest(
        "Test_ledger_only", "approved", "head of research", "a test", override="a test"
    )
    promotion, _ = decide(deployment.lake, deployment.keystore, "", decision)
    read = promotion.snapshot["read"]
    assert read["build_id"] == promotion.build_id and read["generation"] is not None
    assert read["request"].startswith("/v1/alphas/Test_ledger_only/analytics/checks?book=long_short&to=")
    assert "as_of=" in read["request"] and read["at"] < promotion.recorded_at.strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )
    held = pins.pinned(Storage(deployment.lake), deployment.lake)
    assert read["generation"] in held.generations
    assert promotion.build_id in held.alphas["Test_ledger_only"]
    assert set(read["reference_builds"]) <= set(held.alphas)


def test_a_snapshot_is_reproduced_from_its_request_as_of_its_read_time(
    deployment: Deployment, runs_after: Path
) -> None:
    """Done means (issue 64): a promotion snapshot reproduced from the route `as_of` its read time
    within 1e-9, after the world moved on: another alpha approved (the reference set changed) and
    the alpha published again (its build changed). Without as_of the route answers today's
    figures; before the lake's oldest generation it is a 410, in the future a 400."""
    import math
    from urllib.parse import parse_qsl, urlsplit

    from litestar.testing import TestClient

    from core.settings import Settings
    from pipeline.publish import publish_seal
    from serve.app import create_app
    from serve.records import RecordsSource
    from tests.analytics.conftest import CALLERS
    from tests.callers import authenticator_for

    alpha = "Test_ledger_only"
    decision = DecisionRequest(alpha, "approved", "head of research", "a test", override="a test")
    promotion, _ = decide(deployment.lake, deployment.keystore, "", decision)
    read = promotion.snapshot["read"]
    # The world moves on: another approval, and a new run of the alpha itself.
    other = DecisionRequest("Test_small_universe", "approved", "head of research", "later", override="later")
    decide(deployment.lake, deployment.keystore, "", other)
    assert publish_seal(str(runs_after), deployment.lake).status == "published"

    app = create_app(
        Settings(lake=deployment.lake, environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(deployment.keystore),
    )
    url = urlsplit(read["request"])
    params = dict(parse_qsl(url.query))
    headers = {"Authorization": "Bearer raw"}
    with TestClient(app=app) as client:
        then = client.get(url.path, params=params, headers=headers)
        assert then.status_code == 200, then.text
        body = then.json()
        now = client.get(url.path, params={k: v for k, v in params.items() if k != "as_of"}, headers=headers)
        assert now.status_code == 200, now.text
        gone = client.get(url.path, params={**params, "as_of": "2001-01-01T00:00:00Z"}, headers=headers)
        future = client.get(url.path, params={**params, "as_of": "2099-01-01T00:00:00Z"}, headers=headers)
        bad = client.get(url.path, params={**params, "as_of": "yesterday"}, headers=headers)

    assert body["meta"]["as_of"] == read["at"] and body["meta"]["generation"] == read["generation"]
    served = {c["id"]: c for c in body["data"]["checks"]}
    assert [c["id"] for c in promotion.snapshot["checks"]] == list(served)
    for seen in promotion.snapshot["checks"]:
        check = served[seen["id"]]
        assert check["verdict"] == seen["verdict"] and check["reason"] == seen["reason"], seen["id"]
        a, b = check["value"], seen["value"]
        assert (a is None and b is None) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), (seen["id"], a, b)
    # Today's answer is another: the new build and the new reference set.
    today = {c["id"]: c["value"] for c in now.json()["data"]["checks"]}
    assert today != {c["id"]: c["value"] for c in promotion.snapshot["checks"]}
    assert "as_of" not in now.json()["meta"]
    assert gone.status_code == 410 and gone.json()["error"]["code"] == "as_of_gone", gone.text
    assert future.status_code == 400 and "as_of" in future.text
    assert bad.status_code == 400 and "as_of" in bad.text


@pytest.fixture
def runs_after(tmp_path: Path) -> Path:
    """A later run of Test_ledger_only than the demo published: the demo engine's run of it over a
    market one simulated week longer (its own seal, written here)."""
    from alpha_results_seal.demo.alphas import alpha_spec
    from alpha_results_seal.demo.corpus import write_seal
    from alpha_results_seal.demo.engine import run_alpha
    from alpha_results_seal.demo.market import simulate_market

    market = simulate_market("small", 7)
    content = run_alpha(alpha_spec("Test_ledger_only"), market, "small", 7)
    content.manifest["sealed_at"] = "2099-01-01T00:00:00Z"  # sealed after the published run
    return write_seal(content, tmp_path / "later")


def test_the_written_policy_approves_a_nominated_alpha_only_when_every_check_passes(
    deployment: Deployment, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[approval]\napprove = "every_check_passes"\n')
    records = open_records(deployment.keystore)
    try:
        assert standings_of(records).standing("Test_short_term_reversal") == "nominated"
        record_run_events(records, deployment.lake, [], [], str(policy), 36_500)
        # Its checks fail under the default thresholds: it waits for an operator.
        assert standings_of(records).standing("Test_short_term_reversal") == "nominated"
        # Another nominated alpha whose checks all pass under thresholds that pass everything: the
        # policy approves it, and says so (decided_by policy, with its snapshot).
        build = json.loads(
            (Path(deployment.lake) / "alphas" / "Test_small_universe" / "_current.json").read_text()
        )
        records.nominate("Test_small_universe", build["build_id"], "pm", "a test")
        lenient = tmp_path / "lenient.toml"
        bounds = "".join(
            f"[checks.{check.id}]\n"
            + "".join(f"{side} = {-1e9 if side == 'min' else 1e9}\n" for side in check.parameters)
            for check in CHECKS
            if not check.optional
        )
        lenient.write_text('[approval]\napprove = "every_check_passes"\n' + bounds)
        recorded = record_run_events(records, deployment.lake, [], [], str(lenient), 36_500)
        assert [e.type for e in recorded.events if e.alpha_id == "Test_small_universe"] == ["alpha.approved"]
        [approval] = records.promotions.history("Test_small_universe")
        assert approval.decided_by == "policy" and approval.snapshot["verdict"] == "pass"
        # The reversal's fragility cannot be measured (its information ratio is not positive): not
        # every check passes, so the policy leaves it to an operator.
        assert standings_of(records).standing("Test_short_term_reversal") == "nominated"
    finally:
        records.close()


def test_review_lists_the_queue(deployment: Deployment, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "review", "--json", *deployment.where)
    assert code == 0, err
    [entry] = json.loads(out)
    assert entry["alpha"] == "Test_short_term_reversal" and entry["nominated_by"] == "seal"
    code, out, _ = run(
        capsys, "review", "--nominate", "Test_ledger_only", "--by", "pm", "--note", "look", *deployment.where
    )
    assert code == 0 and "Test_ledger_only" in out and "Test_short_term_reversal" in out
    code, _, err = run(
        capsys,
        "review",
        "--nominate",
        "value_composite_legacy",
        "--by",
        "pm",
        "--note",
        "x",
        *deployment.where,
    )
    assert code == 1 and "stands approved" in err
