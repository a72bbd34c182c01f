"""The effective number of trials (issue 50 item 3, issue 51 item 5): the served
`dsr.trials.effective_count` and `effective_dsr` against an independent clustering of the lake's
files (pandas' pairwise Pearson of each alpha's daily long_short returns, scipy's connected
components), the links and clusters a publish keeps equal to a from-scratch computation after
several publishes, and a one-alpha key answered over the alpha it may read only."""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from alpha_results_seal.storage import Storage
from analytics.trial_clusters import LINK_CORRELATION, from_scratch
from datasets import catalogue_index
from pipeline import trial_links
from pipeline.publish import publish_seal
from tests.analytics import reference as ref
from tests.analytics.conftest import CALLERS, Api, serving
from tests.conftest import linked_copy
from tests.pipeline.factory import write_factory_seal

SIGNIFICANCE = "/v1/alphas/{}/analytics/significance"


def independent(lake: ref.Lake) -> tuple[int, set[tuple[str, str]], dict[str, float]]:
    """(clusters of the trials, their links, each trial's per-session Sharpe ratio), from the files."""
    sharpes = ref.catalogue_sharpes(lake)
    trials = sorted(sharpes)
    frame = pd.DataFrame({a: lake.returns(a, "long_short", (None, None)) for a in trials})
    corr = frame.corr(method="pearson", min_periods=3).to_numpy()
    linked = np.nan_to_num(corr, nan=-1.0) >= LINK_CORRELATION
    np.fill_diagonal(linked, False)
    count, _ = connected_components(csr_matrix(linked), directed=False)
    links = {(trials[i], trials[j]) for i, j in zip(*np.nonzero(np.triu(linked)), strict=True)}
    return int(count), links, sharpes


def dsr_with(lake: ref.Lake, alpha: str, trials: int, sharpes: dict[str, float]) -> float | None:
    m = ref.moments(lake.returns(alpha, "long_short", (None, None)).to_numpy())
    return None if m is None else ref.dsr(m, trials, float(np.var(list(sharpes.values()), ddof=1)))


def copied(seals: Path, alpha: str, new_id: str, folder: Path, sealed_at: str | None = None) -> Path:
    """`alpha`'s demo seal published as another alpha: its returns correlate 1 with the original's
    (`sealed_at`: when the copy says it was sealed, else the original's time)."""
    seal = folder / new_id
    shutil.copytree(seals / alpha, seal)
    manifest = seal / "manifest.json"
    document = json.loads(manifest.read_text())
    document["alpha_id"] = new_id
    document["name"] = f"{document['name']} (copy)"
    if sealed_at is not None:
        document["sealed_at"] = sealed_at
    manifest.write_text(json.dumps(document))
    return seal


def served(api: Api, alpha: str, token: str = "raw") -> dict[str, Any]:
    data: dict[str, Any] = api.ok(SIGNIFICANCE.format(alpha), token)["data"]
    return data


def assert_served_as_computed(api: Api, lake: ref.Lake) -> int:
    count, _, sharpes = independent(lake)
    for alpha in lake.alphas():
        data = served(api, alpha)
        assert data["dsr"]["trials"]["effective_count"] == count, alpha
        expected = dsr_with(lake, alpha, count, sharpes)
        value = data["effective_dsr"]["value"]
        if expected is None:
            assert value is None and data["effective_dsr"]["status"] == "not_measurable"
        else:
            assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), alpha
    return count


def test_the_served_effective_count_is_the_clustering_of_the_lakes_returns(api: Api, lake: ref.Lake) -> None:
    count = assert_served_as_computed(api, lake)
    assert 1 <= count <= served(api, "momentum_12_1")["dsr"]["trials"]["count"]


def assert_same_links(kept: list[tuple[str, str, float]], scratch: list[tuple[str, str, float]]) -> None:
    """The same pairs, each with the same correlation to rounding: a publish correlates its row on
    the delta's dates, a from-scratch pass on the merged matrix's, so the sums run over other zeros
    (the demo's momentum_12_1 was restated by a vendor's correction: its copy's correlation with it
    is just under 1, no longer clipped to exactly 1)."""
    assert [(a, b) for a, b, _ in kept] == [(a, b) for a, b, _ in scratch]
    for (a, b, got), (_, _, want) in zip(kept, scratch, strict=True):
        assert got == pytest.approx(want, rel=1e-12, abs=0.0), (a, b)


def test_publishes_keep_the_links_a_from_scratch_pass_finds(
    demo_lake: Path, demo_seals: Path, tmp_path: Path
) -> None:
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    sealed = dt.datetime.fromisoformat(
        json.loads((demo_seals / "momentum_12_1" / "manifest.json").read_text())["sealed_at"]
    )
    later = (sealed + dt.timedelta(minutes=1)).isoformat()
    seals = [
        copied(demo_seals, "momentum_12_1", "Test_momentum_copy", tmp_path / "copies"),
        write_factory_seal(tmp_path / "seals" / "f0", alpha_id="Test_trials_0", seed=70, weeks=10),
        copied(demo_seals, "Test_small_universe", "Test_small_copy", tmp_path / "copies"),
        write_factory_seal(tmp_path / "seals" / "f1", alpha_id="Test_trials_1", seed=71, weeks=10),
        # A republish of the first copy as another alpha's data: its link to momentum_12_1 goes.
        # A later run (an older one would be refused: publish.not_older_than_published).
        copied(demo_seals, "Test_planted_factor", "Test_momentum_copy", tmp_path / "again", later),
    ]
    deltas = 0
    for seal in seals:
        assert publish_seal(str(seal), root).status == "published"
        generation = catalogue_index.newest(storage, root)
        assert generation is not None
        deltas += generation.delta is not None
        # The links the publishes kept, against every pair linked from scratch over the merged matrix.
        index = catalogue_index.read_index(storage, root, generation, ["alpha_id", "sharpe_per_session"])
        matrix = catalogue_index.read_matrix(storage, root, generation, "returns")
        assert matrix is not None
        kept = trial_links.read(storage, root, generation.trials)
        assert kept is not None
        scratch = from_scratch(np.asarray(matrix), index.column("alpha_id").to_pylist())
        assert_same_links(sorted(kept[0]), scratch)
        clusters, trials = trial_links.clusters(
            index.column("alpha_id"), trial_links.sharpes_of(index), scratch
        )
        assert generation.trials is not None
        assert (generation.trials["clusters"], generation.trials["clustered"]) == (clusters, trials)
    assert deltas >= 3, "the publishes should commit delta generations"
    # The lake's files, read independently: the copies of the last state linked as pandas finds them.
    lake = ref.Lake(Path(root))
    count, links, _ = independent(lake)
    assert ("Test_small_copy", "Test_small_universe") in links
    assert ("Test_momentum_copy", "Test_planted_factor") in links
    assert not any("momentum_12_1" in pair for pair in links)
    final = catalogue_index.newest(storage, root)
    assert final is not None and final.trials is not None
    found = trial_links.read(storage, root, final.trials)
    assert found is not None
    assert {(a, b) for a, b, _ in found[0]} == links
    assert final.trials["clusters"] == count
    with serving(Path(root), CALLERS) as api:
        assert assert_served_as_computed(api, lake) == count
        whole = served(api, "momentum_12_1")["dsr"]["trials"]
        assert whole["effective_count"] == whole["count"] - 2
        # One alpha readable: its own cluster, and every other trial of N one of its own.
        one = served(api, "momentum_12_1", "momentum_only")
        assert one["dsr"]["trials"]["effective_count"] == one["dsr"]["trials"]["count"]
        assert one["dsr"]["trials"]["sharpe_variance_alphas"] == 1
        assert one["effective_dsr"]["status"] == "not_measurable"  # V over one alpha: unknown


def test_a_key_that_may_not_read_the_ledger_gets_no_effective_count(api: Api) -> None:
    data = served(api, "momentum_12_1", "no_portfolio")
    assert data["dsr"]["trials"]["effective_count"] is None
    assert data["effective_dsr"]["value"] is None
    assert math.isfinite(served(api, "momentum_12_1")["effective_dsr"]["value"])
