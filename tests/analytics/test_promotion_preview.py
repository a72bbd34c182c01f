"""`/analytics/promotion_preview` (issue 47, item 2): the dashboard's promote preview is the
computation `alpha-results promote --dry-run` prints (`analytics.promotion`, asked through
`Reading.promotion_preview`), read-only, in the key's scope."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import msgspec
import pytest

from pipeline.promotions import Decision, Preview, preview
from schemas.bodies.promotions import PromotionPreview
from tests.analytics.conftest import Api
from tests.analytics.test_promotions import approve, long_short_returns, run

ALPHA = "Test_planted_factor"
ASKED = "momentum_12_1"
PATH = f"/v1/alphas/{ASKED}/analytics/promotion_preview"


def served(api: Api, path: str, token: str = "raw", **params: str) -> PromotionPreview:
    return msgspec.json.decode(
        msgspec.json.encode(api.ok(path, token, **params)["data"]), type=PromotionPreview
    )


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records that never heard of the seals
def test_the_route_answers_what_the_dry_run_prints(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """One computation: for the same as_of and standings, the route's `data` (a key that reads
    everything) is byte for byte the preview the command line prints, and its lines are the dry run's."""
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    assert approve(capsys, ALPHA, "2021-06-30", *where)[0] == 0
    as_of = "2021-12-31"
    code, out, err = run(capsys, "promote", ASKED, "--as-of", as_of, *where, "--dry-run")
    assert code == 0 and out == "", err
    found = served(api, PATH, as_of=as_of)
    cli = preview(str(lake), url, "", Decision(ASKED, "approved", dt.date(2021, 12, 31), "ops", "why"))
    assert msgspec.json.encode(found) == msgspec.json.encode(cli.found)
    printed = err.splitlines()
    assert Preview(cli.decision, found).lines() == printed[:-1] and printed[-1].startswith("dry run")
    assert found.action == "approved" and found.approved_before == [ALPHA]
    assert found.approved_after == sorted([ALPHA, ASKED])
    assert ALPHA in [other.alpha_id for other in found.others] and found.others_not_shown == 0
    failed = [check.id for check in found.checks if check.verdict == "fail"]
    assert (found.refused is not None) == (found.verdict == "fail")
    assert all(check in (found.refused or "") for check in failed)
    assert found.command.startswith(f"alpha-results promote {ASKED} --as-of {as_of} --by ")
    assert ("--override" in found.command) == (found.verdict == "fail")
    # The alpha already approved: its next decision is a retirement, as `retire --dry-run` says it.
    retiring = served(api, f"/v1/alphas/{ALPHA}/analytics/promotion_preview")
    cli = preview(str(lake), url, "", Decision(ALPHA, "retired", None, "ops", "why"))
    assert retiring.action == "retired" and retiring.approval_before == dt.date(2021, 6, 30)
    assert msgspec.json.encode(retiring) == msgspec.json.encode(cli.found)
    assert retiring.command.startswith(f"alpha-results retire {ALPHA} --as-of {retiring.as_of} ")
    # Nothing was recorded by either.
    assert [p["alpha_id"] for p in json.loads(run(capsys, "promotions", ASKED, "--keystore", url)[1])] == []


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records that never heard of the seals
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
    assert own.others_not_shown == 0 and len(everything.others) > 0  # issue 60: was the count
    # Issue 60, finding 5: the count followed approvals of alphas the key may not read (1 -> 2 -> 1);
    # now another's approval and retirement leave the key's answer and its ETag as they were.
    as_of = {"as_of": str(own.as_of)}
    first = api.get(PATH, "momentum_only", **as_of)
    others = [alpha for alpha in ids if alpha not in (ASKED, ALPHA)]
    other = next(alpha for alpha in others if approve(capsys, alpha, str(own.as_of), *where)[0] == 0)
    assert served(api, PATH, **as_of).approved_before == sorted([ALPHA, other])
    again = api.get(PATH, "momentum_only", **as_of)
    assert run(capsys, "retire", other, *where)[0] == 0
    after = api.get(PATH, "momentum_only", **as_of)
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


@pytest.mark.parametrize("as_of", ["2021-02-30", "yesterday", "2001-01-05", "2021-06-01"])
def test_a_bad_as_of_is_a_400_naming_it(
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str], as_of: str
) -> None:
    """Not a date, before the alpha's history, or before its last decision."""
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why", "--policy", "")
    assert approve(capsys, ALPHA, "2021-06-30", *where)[0] == 0
    response = api.get(f"/v1/alphas/{ALPHA}/analytics/promotion_preview", as_of=as_of)
    assert response.status_code == 400, response.text
    parameters = response.json()["error"]["details"]["parameters"]
    assert [p["name"] for p in parameters] == ["as_of"], parameters


def test_the_seals_approvals_are_previewed_for_retirement_the_others_for_approval(
    api: Api, demo_lake: Path
) -> None:
    """Over the demo's records (issue 47, item 1: the seal approved its restricted alphas at their
    first publish), momentum_12_1's next decision is a retirement from the approval its seal
    recorded, a `Test_` alpha's an approval; each as of the alpha's last session."""
    found = served(api, PATH)
    history = api.ok(f"/v1/alphas/{ASKED}/promotions")["data"]
    assert (history["standing"], history["decisions"][-1]["decided_by"]) == ("approved", "seal")
    assert found.action == "retired" and str(found.approval_before) == history["since"]
    assert found.approved_before == ["momentum_12_1", "value_composite_legacy"]
    assert found.approved_after == ["value_composite_legacy"]
    assert found.as_of == long_short_returns(demo_lake, ASKED)["date"].max()
    fresh = served(api, f"/v1/alphas/{ALPHA}/analytics/promotion_preview")
    assert fresh.action == "approved" and fresh.approval_before is None
    assert fresh.approved_after == sorted([ALPHA, "momentum_12_1", "value_composite_legacy"])
    assert fresh.as_of == long_short_returns(demo_lake, ALPHA)["date"].max()
