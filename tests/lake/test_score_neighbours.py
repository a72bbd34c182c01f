"""Score neighbours (issue 21): each alpha's nearest alphas on the scores basis, kept by the
catalogue index (pipeline/catalogue_neighbours.py), checked against an independent brute force.

The reference pairs every two alphas from their builds' decisions (the open table read apart, at
the version the build's generation names) with pandas and scipy (weekly
Spearman over the names both scored, averaged over the weeks it exists), so the lists the
publishes merged one alpha at a time are compared with the true nearest alphas of the catalogue.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from alpha_results_seal.storage import Storage
from analytics.correlation import Pairing
from datasets import catalogue_index, layout
from pipeline import catalogue_neighbours as neighbours
from pipeline import index_rows as rows
from pipeline.publish import publish_seal
from schemas.lake import SCORE_NEIGHBOURS
from tests.pipeline.factory import write_factory_seal
from tests.support.build_tables import open_table_rows

ALPHAS = 7
KEPT = 3  # neighbours per alpha, below the catalogue's size so that the lists must choose


def decisions(root: str, alpha: str) -> pd.DataFrame:
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    index = catalogue_index.read_index(storage, root, generation).to_pandas().set_index("alpha_id")
    build = layout.alpha_build_dir(root, alpha, index.loc[alpha, "build_id"])
    frame = open_table_rows(Path(build), "decisions").select("date", "symbol", "score").to_pandas()
    assert len(frame), alpha
    return frame[np.isfinite(frame["score"])][["date", "symbol", "score"]]


def brute_force(root: str, a: str, b: str) -> float:
    """Mean over common weeks of the Spearman correlation of the two alphas' scores."""
    left, right = decisions(root, a), decisions(root, b)
    merged = left.merge(right, on=["date", "symbol"])
    weekly = []
    for _, week in merged.groupby("date"):
        if len(week) >= 3 and week["score_x"].nunique() > 1 and week["score_y"].nunique() > 1:
            weekly.append(stats.spearmanr(week["score_x"], week["score_y"]).statistic)
    return float(np.mean(weekly)) if weekly else math.nan


def stored(root: str) -> dict[str, list[tuple[str, str, float]]]:
    """alpha -> its list as stored: (neighbour, its build, whole-history correlation)."""
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    index = catalogue_index.read_index(storage, root, generation)
    found = {}
    for alpha, path in zip(
        index.column("alpha_id").to_pylist(), index.column("score_neighbours").to_pylist(), strict=True
    ):
        assert path is not None, alpha
        table = catalogue_index.read_table(storage, root, path, SCORE_NEIGHBOURS)
        found[alpha] = [(n, b, w) for n, b, w, *_ in catalogue_index.neighbour_entries(table)]
    return found


def builds(root: str) -> dict[str, str]:
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    index = catalogue_index.read_index(storage, root, generation)
    return dict(zip(index.column("alpha_id").to_pylist(), index.column("build_id").to_pylist(), strict=True))


def nearest_by_brute_force(root: str, alpha: str, alphas: list[str]) -> list[tuple[str, float]]:
    found = [(other, brute_force(root, alpha, other)) for other in alphas if other != alpha]
    found = [(other, value) for other, value in found if math.isfinite(value)]
    return sorted(found, key=lambda pair: (-abs(pair[1]), pair[0]))[:KEPT]


@pytest.fixture(scope="module")
def seals(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("neighbour_seals")
    return [
        write_factory_seal(root / f"s{n}", alpha_id=f"Test_near_{n}", weeks=10, seed=70 + n)
        for n in range(ALPHAS)
    ]


@pytest.fixture
def small_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neighbours, "NEIGHBOURS", KEPT)


def test_publishes_merge_lists_that_hold_each_alphas_nearest(
    seals: list[Path], tmp_path: Path, small_lists: None
) -> None:
    root = str(tmp_path / "lake")
    for seal in seals:
        publish_seal(str(seal), root)
    alphas = sorted(builds(root))
    lists = stored(root)
    served = builds(root)
    for alpha in alphas:
        expected = nearest_by_brute_force(root, alpha, alphas)
        assert [n for n, _, _ in lists[alpha]] == [n for n, _ in expected], alpha
        for (neighbour, build, whole), (_, value) in zip(lists[alpha], expected, strict=True):
            assert build == served[neighbour]
            assert whole == pytest.approx(value, rel=1e-9, abs=1e-12), (alpha, neighbour)
    # A whole rebuild makes the same lists.
    rows.rebuild(root)
    assert stored(root) == lists


def test_a_republished_alpha_leaves_no_stale_figure(
    seals: list[Path], tmp_path: Path, small_lists: None
) -> None:
    root = str(tmp_path / "lake")
    for seal in seals:
        publish_seal(str(seal), root)
    before = builds(root)
    # The same alpha id, other scores: every pairing with its old build is stale.
    again = write_factory_seal(tmp_path / "again", alpha_id="Test_near_0", weeks=10, seed=999)
    publish_seal(str(again), root)
    after = builds(root)
    assert after["Test_near_0"] != before["Test_near_0"]
    lists = stored(root)
    for alpha, entries in lists.items():
        current = [(n, w) for n, b, w in entries if b == after[n]]
        # What a reader keeps (current entries) is nearest first and exact for the new build.
        assert current == sorted(current, key=lambda pair: (-abs(pair[1]), pair[0]))
        for neighbour, whole in current:
            assert whole == pytest.approx(brute_force(root, alpha, neighbour), rel=1e-9, abs=1e-12)
    assert [n for n, _, _ in lists["Test_near_0"]] == [
        n for n, _ in nearest_by_brute_force(root, "Test_near_0", sorted(after))
    ]


def test_candidates_are_the_closest_on_returns_or_ic() -> None:
    rng = np.random.default_rng(5)
    base = rng.normal(size=200)
    returns = np.vstack([base, base + 0.1 * rng.normal(size=200), rng.normal(size=200), -base, base])
    ic = np.vstack(
        [base, rng.normal(size=200), base + 0.01 * rng.normal(size=200), rng.normal(size=200), base]
    )
    ic[4] = np.nan  # no IC at all: measured on returns only
    returns[3, :] = np.nan  # no returns: measured on IC only
    eligible = np.array([True, True, True, True, False])  # the last has no decisions
    chosen = neighbours.candidates({"returns": returns, "ic": ic}, 0, eligible, 2)
    # Row 2 tracks row 0's IC almost exactly, row 1 its returns; row 4 is not eligible.
    assert chosen == [2, 1]
    assert neighbours.candidates({"returns": returns, "ic": ic}, 0, eligible, 10) == [2, 1, 3]


def test_admitted_drops_stale_entries_and_keeps_the_nearest() -> None:
    empty = Pairing(np.empty(0, np.int32), np.empty(0), np.empty(0))

    def entry(alpha: str, build: str, whole: float) -> neighbours.Neighbour:
        return neighbours.Neighbour(alpha, build, whole, empty)

    held = [entry("a", "a1", 0.9), entry("b", "b1", -0.5), entry("c", "c1", 0.2)]
    current = {"a": "a1", "b": "b2", "c": "c1", "d": "d1", "e": "e1"}
    # b was republished: its entry goes; d, nearer than c, comes in.
    following = neighbours.admitted(held, entry("d", "d1", -0.3), current, 3)
    assert following is not None
    assert [(e.alpha_id, e.whole) for e in following] == [("a", 0.9), ("d", -0.3), ("c", 0.2)]
    # Farther than every entry of a full, current list: nothing changes.
    assert neighbours.admitted(following, entry("e", "e1", 0.1), current, 3) is None


def test_retired_lists_are_collected_with_their_generation(
    seals: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalogue_index, "KEEP_GENERATIONS", 2)
    monkeypatch.setattr(catalogue_index, "RETENTION_SECONDS", 0)
    root = str(tmp_path / "lake")
    for seal in seals:
        publish_seal(str(seal), root)
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    index = catalogue_index.read_index(storage, root, generation)
    named = {p for p in index.column("score_neighbours").to_pylist() if p is not None}
    on_disk = {
        str(path.relative_to(Path(root) / "catalogue"))
        for path in (Path(root) / "catalogue" / "neighbours").glob("*/*.parquet")
    }
    # On disk: the lists the newest generation names, and those a generation not yet collected
    # retired (an older generation, still readable, names them); every other list is gone.
    remaining = [catalogue_index.read_generation(storage, root, n) for n in range(1, generation.number + 1)]
    retired_by_kept = {path for found in remaining if found is not None for path in found.retired}
    assert on_disk == named | retired_by_kept
    assert sum(found is None for found in remaining) >= ALPHAS - 1 - catalogue_index.KEEP_GENERATIONS


def test_the_second_hop_pairs_the_neighbours_of_near_neighbours_once() -> None:
    """a-b and b-c were paired (a is near b, b near c), a-c not: the second hop pairs a with c, once."""
    empty = Pairing(np.empty(0, np.int32), np.empty(0), np.empty(0))
    rows = [{"alpha_id": a, "build_id": f"{a}1"} for a in ("a", "b", "c", "d")]
    found = [
        ("a", [neighbours.Neighbour("b", "b1", 0.9, empty)]),
        ("b", [neighbours.Neighbour("c", "c1", 0.8, empty)]),
        ("d", [neighbours.Neighbour("c", "c1", 0.1, empty)]),
    ]
    plan = neighbours.second_hop(rows, np.array([True, True, True, True]), found)
    pairs = {frozenset((alpha, other)) for alpha, _, others in plan for other, _ in others}
    # a reaches c through b; b reaches d through c; c reaches a through b; d reaches b through c.
    assert pairs == {frozenset(("a", "c")), frozenset(("b", "d"))}
    assert sum(len(others) for _, _, others in plan) == len(pairs)  # each pair once
