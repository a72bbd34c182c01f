"""Live against backtest after a decision, through the real `alpha-results serve` (issue 35 item 2):
before the approval the live checks are not applicable; `alpha-results promote` records the
decision and the alpha's catalogue index row again, and the running server then measures the live
checks at the approval's split (the last session the lake held when it was recorded, issue 64,
recomputed by tests/knowledge.py) and serves the screener's live columns at it, each equal to
`/analytics/live`'s figures.

The served records start empty, but the copied demo lake's index row was written by the demo's own
history (its approval of the alpha, split 2021-11-05, then its retirement): the decision here is
recorded on a later day's clock, so that its split differs from the row the lake held before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from access import open_store
from cli.main import main as cli
from datasets import clock
from tests.conftest import linked_copy
from tests.decided import noon
from tests.health_wait import wait_until
from tests.knowledge import approval_recorded_at, known_split
from tests.lake.conftest import Served, serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

ALPHA = "Test_planted_factor"
LIVE = ("live_information_ratio", "decay_ratio")
DECIDED = "2021-12-06"
"""The day the decision is recorded on (its clock): the demo lake then held the alpha's sessions up
to 2021-12-03 (its second run); the 67 after were first published later, its live part."""


@pytest.fixture(scope="module")
def world(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path, str]]:
    folder = tmp_path_factory.mktemp("live_served")
    lake = linked_copy(demo_lake, folder / "lake")  # the decision writes its index row
    url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(url)
    admin = issue_key(store, role="admin")
    store.close()
    with serving(str(lake), (url, admin.headers), folder) as server:
        yield server, lake, url


def ok(server: Served, path: str) -> dict[str, Any]:
    status, body = server.get(path)
    assert status == 200, body
    data: dict[str, Any] = body["data"]
    return data


def screen_row(server: Served) -> dict[str, Any]:
    status, body = server.get(f"/v1/analytics/screen?search={ALPHA}")
    assert status == 200, body
    [row] = body["data"]
    assert isinstance(row, dict)
    return row


def test_a_promotion_moves_the_live_checks_and_the_screener_to_the_approval(
    world: tuple[Served, Path, str],
) -> None:
    server, lake, url = world
    checks = {c["id"]: c for c in ok(server, f"/v1/alphas/{ALPHA}/analytics/checks")["checks"]}
    for check in LIVE:
        assert checks[check]["verdict"] == "not_measurable" and checks[check]["reason"].startswith(
            "not_applicable"
        )
    before = screen_row(server)

    where = ["--lake", str(lake), "--keystore", url, "--by", "head of research", "--note", "e2e"]
    with clock.simulated(noon(DECIDED)):
        assert cli(["promote", ALPHA, *where, "--override", "approved in a test whatever its checks"]) == 0
    records = Path(url.removeprefix("sqlite:///"))
    as_of = known_split(lake, ALPHA, approval_recorded_at(records, ALPHA)).isoformat()
    assert before["live_split"] != as_of < DECIDED, (before, as_of)

    # The server reads the records on each request, the new index generation on its next refresh.
    row = wait_until(
        lambda: (found := screen_row(server))["live_split"] == as_of and found,
        "the screener's row at the approval",
    )
    live = ok(server, f"/v1/alphas/{ALPHA}/analytics/live")
    assert (live["split_origin"], live["split_date"]) == ("approval", as_of)
    assert row["live_split_origin"] == "approval"
    assert row["live_information_ratio"] == live["out_of_sample"]["information_ratio"]["value"] is not None
    assert row["backtest_information_ratio"] == live["in_sample"]["information_ratio"]["value"]
    assert row["decay_ratio"] == live["decay_ratio"]["value"] is not None
    assert row["live_sessions"] == live["out_of_sample"]["sessions"] > 63
    checks = {c["id"]: c for c in ok(server, f"/v1/alphas/{ALPHA}/analytics/checks")["checks"]}
    assert checks["live_information_ratio"]["value"] == live["out_of_sample"]["information_ratio"]["value"]
    assert checks["decay_ratio"]["value"] == live["decay_ratio"]["value"]
    for check in LIVE:
        assert checks[check]["verdict"] in ("pass", "fail") and checks[check]["split_date"] == as_of
    # Filtered and sorted on them: the approved alpha is kept by a bound at its own value.
    status, body = server.get(
        f"/v1/analytics/screen?min_decay_ratio={row['decay_ratio']!r}&sort=-decay_ratio"
    )
    assert status == 200 and ALPHA in [r["alpha_id"] for r in body["data"]], body
