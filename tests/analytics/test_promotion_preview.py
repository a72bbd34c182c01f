"""`/analytics/promotion_preview` (issue 47, item 2): the dashboard's promote preview is the
computation `alpha-results promote --dry-run` prints (`analytics.promotion`, asked through
`Reading.promotion_preview`), read-only, in the key's scope. Dated today by our clock (a decision is
dated when it is recorded, issue 64); `effective` previews an import of a decision taken elsewhere
on an earlier day."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import msgspec
import pytest

from datasets import clock
from pipeline.operator_decisions import DecisionRequest, Preview, preview
from schemas.bodies.promotions import PromotionPreview
from tests.analytics.conftest import Api
from tests.support.promotions import OVERRIDE, approve, demo_promotions, run

ALPHA = "Test_planted_factor"
ASKED = "momentum_12_1"
PATH = f"/v1/alphas/{ASKED}/analytics/promotion_preview"


def served(api: Api, path: str, token: str = "raw", **params: str) -> PromotionPreview:
    return msgspec.json.decode(
        msgspec.json.encode(api.ok(path, token, **params)["data"]), type=PromotionPreview
    )


def same_preview(
    api: Api, path: str, lake: Path, url: str, decision: DecisionRequest, **params: str
) -> PromotionPreview:
    """The route's answer (a key that reads everything), asserted byte for byte the preview the
    command line computes for `decision`."""
    found = served(api, path, **params)
    cli = preview(str(lake), url, "", decision)
    assert msgspec.json.encode(found) == msgspec.json.encode(cli.found)
    return found


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records without the demo's decisions
def test_the_route_answers_what_the_dry_run_prints(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """One computation: for the same day and standings, the route's `data` (a key that reads
    everything) is byte for byte the preview the command line prints, and its lines are the dry run's:
    today's decision, and an import of one taken elsewhere on an earlier day (`effective`)."""
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    assert approve(capsys, ALPHA, "2021-06-30", *where)[0] == 0
    # Today's decision (no date: a decision is dated when it is recorded).
    today = clock.now().date()
    code, out, err = run(capsys, "promote", ASKED, *where, "--dry-run")
    assert code == 0 and out == "", err
    now = same_preview(api, PATH, lake, url, DecisionRequest(ASKED, "approved", "ops", "why"))
    assert (now.as_of, now.imported) == (today, False)
    printed = err.splitlines()
    cli = preview(str(lake), url, "", DecisionRequest(ASKED, "approved", "ops", "why"))
    assert Preview(cli.decision, now, cli.read, cli.others_builds).lines() == printed[:-1]
    assert printed[-1].startswith("dry run")
    assert now.command.startswith(f"alpha-results promote {ASKED} --by ")
    # An import: the route's effective day is the command's --as-of with --import.
    effective = "2021-12-31"
    imported = ("--as-of", effective, "--import", "committee minutes")
    code, out, err = run(capsys, "promote", ASKED, *imported, *where, "--dry-run")
    assert code == 0 and out == "", err
    decision = DecisionRequest(
        ASKED, "approved", "ops", "why", as_of=dt.date(2021, 12, 31), imported_from="committee minutes"
    )
    found = same_preview(api, PATH, lake, url, decision, effective=effective)
    cli = preview(str(lake), url, "", decision)
    printed = err.splitlines()
    assert Preview(cli.decision, found, cli.read, cli.others_builds).lines() == printed[:-1]
    assert printed[0].startswith(f"approve {ASKED} as of {effective}, imported from committee minutes ")
    assert printed[-1].startswith("dry run")
    assert (str(found.as_of), found.imported) == (effective, True)
    assert found.action == "approved" and found.approved_before == [ALPHA]
    assert (found.approval_before, found.approval_recorded_at) == (None, None)
    assert found.approved_after == sorted([ALPHA, ASKED])
    assert ALPHA in [other.alpha_id for other in found.others] and found.others_unchecked == 0
    failed = [check.id for check in found.checks if check.verdict == "fail"]
    assert (found.refused is not None) == (found.verdict == "fail")
    assert all(check in (found.refused or "") for check in failed)
    assert found.command.startswith(f"alpha-results promote {ASKED} --as-of {effective} --import ")
    assert ("--override" in found.command) == (found.verdict == "fail")
    # The alpha already approved: its next decision is a retirement, as `retire --dry-run` says it,
    # with the approval in force and when it was recorded (its live part starts then).
    path = f"/v1/alphas/{ALPHA}/analytics/promotion_preview"
    retiring = same_preview(api, path, lake, url, DecisionRequest(ALPHA, "retired", "ops", "why"))
    assert retiring.action == "retired" and retiring.approval_before == dt.date(2021, 6, 30)
    assert (retiring.approval_recorded_at or "").startswith("2021-06-30T12:00:")
    assert (retiring.as_of, retiring.imported) == (today, False)
    assert retiring.command.startswith(f"alpha-results retire {ALPHA} --by ")
    # Nothing was recorded by any.
    assert [p["alpha_id"] for p in json.loads(run(capsys, "promotions", ASKED, "--keystore", url)[1])] == []


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records without the demo's decisions
def test_a_one_alpha_key_sees_its_own_verdict_and_no_other_name(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    assert approve(capsys, ALPHA, "2021-06-30", *where)[0] == 0
    everything = served(api, PATH)
    body = api.ok(PATH, "momentum_only")
    own = msgspec.json.decode(msgspec.json.encode(body["data"]), type=PromotionPreview)
    ids = [row["alpha_id"] for row in api.all_rows("/v1/alphas")]
    text = json.dumps(body)
    assert [alpha for alpha in ids if alpha != ASKED and alpha in text] == []
    assert own.approved_before == [] and own.approved_after == [ASKED] and own.others == []
    # Issue 60: no count of what the key may not read (others_not_shown is gone).
    assert own.others_unchecked == 0 and len(everything.others) > 0
    assert "others_not_shown" not in body["data"]
    # Issue 60, finding 5: the count followed approvals of alphas the key may not read (1 -> 2 -> 1);
    # now another's approval and retirement leave the key's answer and its ETag as they were.
    day = {"effective": str(own.as_of)}
    first = api.get(PATH, "momentum_only", **day)
    others = [alpha for alpha in ids if alpha not in (ASKED, ALPHA)]
    other = next(alpha for alpha in others if run(capsys, "promote", alpha, *where, *OVERRIDE)[0] == 0)
    assert served(api, PATH, **day).approved_before == sorted([ALPHA, other])
    again = api.get(PATH, "momentum_only", **day)
    assert run(capsys, "retire", other, *where)[0] == 0
    after = api.get(PATH, "momentum_only", **day)
    for later in (again, after):
        assert later.content == first.content.replace(
            first.json()["meta"]["request_id"].encode(), later.json()["meta"]["request_id"].encode()
        ).replace(
            first.json()["meta"]["generated_at"].encode(), later.json()["meta"]["generated_at"].encode()
        )
        assert later.headers["etag"] == first.headers["etag"]
    # Its own verdict, as its own checks route answers it.
    checks = api.ok(f"/v1/alphas/{ASKED}/analytics/checks", "momentum_only", to=str(own.as_of))["data"]
    assert own.verdict == checks["summary"]["verdict"]
    assert [c.id for c in own.checks] == [c["id"] for c in checks["checks"]]
    # A key that may not read the alpha learns nothing of it.
    assert api.get(f"/v1/alphas/{ALPHA}/analytics/promotion_preview", "momentum_only").status_code == 403


TOMORROW = "tomorrow"
"""Stands for the day after today by our clock (a parameter cannot read the clock at collection)."""


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records without the demo's decisions
@pytest.mark.parametrize("effective", ["2021-02-30", "yesterday", "2001-01-05", "2021-06-01", TOMORROW])
def test_a_bad_effective_is_a_400_naming_it(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str], effective: str
) -> None:
    """Not a date, before the alpha's history or its last decision, or after today (a decision takes
    effect when it is recorded, never later)."""
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    assert approve(capsys, ALPHA, "2021-06-30", *where)[0] == 0
    if effective == TOMORROW:
        effective = str(clock.now().date() + dt.timedelta(days=1))
    response = api.get(f"/v1/alphas/{ALPHA}/analytics/promotion_preview", effective=effective)
    assert response.status_code == 400, response.text
    parameters = response.json()["error"]["details"]["parameters"]
    assert [p["name"] for p in parameters] == ["effective"], parameters


def test_the_demos_decisions_are_previewed_for_what_follows_them(api: Api, demo_records: Path) -> None:
    """Over the demo's records (issue 64: the head of research approved momentum_12_1 after its
    seal nominated it, approved Test_planted_factor and retired it; a seal approves nothing),
    momentum_12_1's next decision is a retirement from the approval recorded then, Test_planted_factor's
    an approval again, the nominated Test_short_term_reversal's an approval; each dated today."""
    today = clock.now().date()
    found = served(api, PATH)
    history = api.ok(f"/v1/alphas/{ASKED}/promotions")["data"]
    (approval,) = history["decisions"]
    assert demo_promotions(demo_records, ASKED) == [("approved", approval["as_of"], "head of research")]
    assert [n["nominated_by"] for n in history["nominations"]] == ["seal"]
    assert found.action == "retired" and str(found.approval_before) == history["since"] == approval["as_of"]
    assert found.approval_recorded_at == approval["recorded_at"]
    assert found.approved_before == ["momentum_12_1", "value_composite_legacy"]
    assert found.approved_after == ["value_composite_legacy"]
    assert (found.as_of, found.imported) == (today, False)
    assert found.command.startswith(f"alpha-results retire {ASKED} --by ")
    # Retired by the demo: approving it again; its approval before is the one its retirement ended.
    again = served(api, f"/v1/alphas/{ALPHA}/analytics/promotion_preview")
    decided = demo_promotions(demo_records, ALPHA)
    assert [action for action, _, _ in decided] == ["approved", "retired"]
    assert again.action == "approved" and str(again.approval_before) == decided[0][1]
    assert again.approved_before == ["momentum_12_1", "value_composite_legacy"]
    assert again.approved_after == sorted([ALPHA, "momentum_12_1", "value_composite_legacy"])
    assert (again.as_of, again.imported) == (today, False)
    # Waiting in the queue, never approved.
    queued = served(api, "/v1/alphas/Test_short_term_reversal/analytics/promotion_preview")
    assert api.ok("/v1/alphas/Test_short_term_reversal/promotions")["data"]["standing"] == "nominated"
    assert queued.action == "approved" and (queued.approval_before, queued.approval_recorded_at) == (
        None,
        None,
    )
    assert queued.approved_after == sorted(
        ["Test_short_term_reversal", "momentum_12_1", "value_composite_legacy"]
    )
    assert (queued.as_of, queued.imported) == (today, False)
