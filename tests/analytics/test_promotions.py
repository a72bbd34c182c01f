"""`alpha-results promote`, `retire` and `promotions`: a decision recorded with the checks the API
served for that day, its event beside it, the history in order."""

from __future__ import annotations

import json
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
    where = ("--lake", str(demo_lake), "--keystore", keystore, "--policy", "")
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
    assert snapshot["build_id"] == recorded["build_id"]
    assert snapshot["policy"] == served["policy"]
    assert snapshot["summary"] == served["summary"]
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
