"""`alpha-results promote`, `retire` and `promotions`: a decision recorded with the checks the API
served for that day, its event beside it, the history in order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli.main import main
from records.events import Reader, Scope, Wanted
from records.store import open_records
from tests.analytics.conftest import Api

ALPHA = "Test_planted_factor"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_promotion_keeps_what_the_checks_said_that_day(
    api: Api, demo_lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keystore = f"sqlite:///{tmp_path}/records.sqlite3"
    copy = shutil.copytree(demo_lake, tmp_path / "lake")  # a decision records its index row again
    where = ("--lake", str(copy), "--keystore", keystore, "--policy", "")
    code, out, err = run(
        capsys,
        "promote",
        ALPHA,
        "--by",
        "head of research",
        "--note",
        "diversifier",
        "--as-of",
        "2021-12-31",
        *where,
    )
    assert code == 0, err
    recorded = json.loads(out)
    served = api.get(f"/v1/alphas/{ALPHA}/analytics/checks", "raw", to="2021-12-31").json()["data"]
    assert recorded["action"] == "approved" and recorded["as_of"] == "2021-12-31"
    assert recorded["decided_by"] == "head of research" and recorded["note"] == "diversifier"
    snapshot = recorded["snapshot"]
    assert snapshot["as_of"] == "2021-12-31"
    assert snapshot["policy"] == served["policy"]
    assert snapshot["verdict"] == served["summary"]["verdict"]
    assert snapshot["checks"] == [
        {key: check[key] for key in ("id", "value", "unit", "verdict", "reason")}
        for check in served["checks"]
    ]
    # Its event was written with it, for the alpha's readers.
    records = open_records(keystore)
    try:
        events = records.events.page(Reader(scopes=(Scope(everything=True),)), Wanted()).events
    finally:
        records.close()
    assert [(e.type, e.alpha_id, e.data["as_of"]) for e in events] == [
        ("alpha.approved", ALPHA, "2021-12-31")
    ]

    # A decision that does not follow from the last is refused, and nothing is written.
    code, _, err = run(capsys, "promote", ALPHA, "--by", "me", "--note", "again", *where)
    assert code == 1 and "already approved" in err
    code, _, err = run(
        capsys, "retire", ALPHA, "--by", "me", "--note", "early", "--as-of", "2021-06-01", *where
    )
    assert code == 1 and "before the last decision" in err
    code, out, err = run(
        capsys, "retire", ALPHA, "--by", "risk", "--note", "decayed", "--as-of", "2022-03-01", *where
    )
    assert code == 0, err
    code, out, _ = run(capsys, "promotions", ALPHA, "--keystore", keystore)
    assert code == 0
    assert [(p["action"], p["as_of"]) for p in json.loads(out)] == [
        ("approved", "2021-12-31"),
        ("retired", "2022-03-01"),
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
    with_records: tuple[Api, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    api, url, lake = with_records
    where = ("--lake", str(lake), "--keystore", url, "--by", "ops", "--note", "why")
    assert run(capsys, "promote", ALPHA, "--as-of", "2021-06-30", *where)[0] == 0
    assert run(capsys, "retire", ALPHA, "--as-of", "2021-09-30", *where)[0] == 0
    printed = json.loads(run(capsys, "promotions", ALPHA, "--keystore", url)[1])
    body = api.get(f"/v1/alphas/{ALPHA}/promotions")
    assert body.status_code == 200, body.text
    data = body.json()["data"]
    assert (data["alpha"], data["standing"], data["since"]) == (ALPHA, "retired", "2021-09-30")
    assert [d["action"] for d in data["decisions"]] == ["approved", "retired"]
    # The command line prints the same decisions, each with its alpha.
    assert [{k: v for k, v in d.items() if k != "alpha_id"} for d in printed] == data["decisions"]
    approved = data["decisions"][0]
    checks = api.ok(f"/v1/alphas/{ALPHA}/analytics/checks", to="2021-06-30")["data"]
    assert approved["snapshot"]["verdict"] == checks["summary"]["verdict"]
    assert [c["verdict"] for c in approved["snapshot"]["checks"]] == [c["verdict"] for c in checks["checks"]]
    # Never decided: standing never, no decisions.
    never = api.ok("/v1/alphas/momentum_12_1/promotions")["data"]
    assert (never["standing"], never["since"], never["decisions"]) == ("never", None, [])
    # A key that may not read the alpha learns nothing about its decisions, not even that there are any.
    hidden = api.get("/v1/alphas/momentum_12_1/promotions", token="testonly")
    assert hidden.status_code == 403 and hidden.json()["error"]["code"] == "alpha_not_allowed"
    assert "decisions" not in hidden.text
