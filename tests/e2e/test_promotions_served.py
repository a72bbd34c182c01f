"""A decision recorded by `alpha-results promote` is served by the real `alpha-results serve`
process, which reads the records beside its keys (issue 35, items 1 and 2): the alpha's history
and its live part, whose split moves to the approval: the last session the lake held when the
decision was recorded (issue 64; recomputed by tests/knowledge.py). A key that may not read the
alpha learns nothing of the decision."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from access import Grants, open_store
from cli.main import main as cli
from core.context import AllowList
from datasets import clock
from tests.conftest import linked_copy
from tests.decided import noon
from tests.knowledge import approval_recorded_at, known_split
from tests.lake.conftest import Http, Served, serving
from tests.ops.keys import IssuedKey, issue_key

pytestmark = pytest.mark.e2e

ALPHA = "Test_planted_factor"
DECIDED = "2021-12-06"
"""The day the decision is recorded on (its clock): the demo lake then held the alpha's sessions up
to 2021-12-03, published by its second run; the rest of its history was first published after."""


@pytest.fixture(scope="module")
def demo_lake(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shared demo lake: a decision records its alpha's catalogue index row again."""
    return linked_copy(demo_lake, tmp_path_factory.mktemp("lake") / "lake")


@pytest.fixture(scope="module")
def world(
    demo_lake: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, str, dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("promotions_served")
    url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(url)
    admin = issue_key(store, role="admin")
    narrow: IssuedKey = issue_key(
        store,
        role="admin",
        grants=Grants(
            AllowList.all(), AllowList.of_ids(["momentum_12_1"]), AllowList.all(), expose_raw_book=True
        ),
    )
    store.close()
    with serving(str(demo_lake), (url, admin.headers), folder) as server:
        yield server, url, {"admin": admin.headers, "narrow": narrow.headers}


def get(server: Served, headers: dict[str, str], path: str) -> tuple[int, dict[str, Any]]:
    client = Http(server.port, headers)
    try:
        return client.json(path)
    finally:
        client.close()


def test_a_promotion_is_served_with_the_live_part_it_starts(
    world: tuple[Served, str, dict[str, Any]], demo_lake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, url, keys = world
    status, before = get(server, keys["admin"], f"/v1/alphas/{ALPHA}/promotions")
    assert status == 200, before
    assert (before["data"]["standing"], before["data"]["decisions"]) == ("never", [])
    status, live = get(server, keys["admin"], f"/v1/alphas/{ALPHA}/analytics/live")
    assert status == 200 and live["data"]["split_origin"] == "research_cutoff", live

    where = ["--lake", str(demo_lake), "--keystore", url, "--by", "head of research", "--note", "diversifier"]
    with clock.simulated(noon(DECIDED)):
        assert cli(["promote", ALPHA, *where, "--override", "approved in a test whatever its checks"]) == 0
    recorded = json.loads(capsys.readouterr().out)
    split = known_split(
        demo_lake, ALPHA, approval_recorded_at(Path(url.removeprefix("sqlite:///")), ALPHA)
    ).isoformat()
    assert split < DECIDED, split

    status, after = get(server, keys["admin"], f"/v1/alphas/{ALPHA}/promotions")
    assert status == 200, after
    data = after["data"]
    assert (data["standing"], data["since"]) == ("approved", DECIDED)
    assert data["decisions"] == [{k: v for k, v in recorded.items() if k != "alpha_id"}]
    status, live = get(server, keys["admin"], f"/v1/alphas/{ALPHA}/analytics/live")
    assert status == 200, live
    assert (live["data"]["split_origin"], live["data"]["split_date"]) == ("approval", split)
    assert live["data"]["in_sample"]["last_session"] == split < live["data"]["out_of_sample"]["first_session"]

    # A key that may not read the alpha: the same refusal as for an alpha that does not exist.
    for path in (f"/v1/alphas/{ALPHA}/promotions", f"/v1/alphas/{ALPHA}/analytics/live"):
        status, refused = get(server, keys["narrow"], path)
        assert status == 403, refused
        text = json.dumps(refused)
        assert "approved" not in text and DECIDED not in text and split not in text
