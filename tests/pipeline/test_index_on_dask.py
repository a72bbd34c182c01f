"""`alpha-results lake index --executor dask://...`: every row computed by a Dask task of its own on
a real two-process LocalCluster, committed as one generation equal to the local rebuild."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed
import numpy as np
import pytest

from alpha_results_seal.storage import Storage
from datasets import catalogue_index
from schemas.lake import SCORE_NEIGHBOURS
from tests.conftest import linked_copy

REPO = Path(__file__).resolve().parents[2]
VOLATILE = [
    "built_at",
    "indexed_at",
    "replaced_at",
    "entry",
    "score_neighbours",
]  # score_neighbours: each rebuild writes new files


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", scheduler_port=0
    ) as local_cluster:
        yield local_cluster


def index_command(lake: Path, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "lake", "index", "--lake", str(lake), *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_the_index_rebuilt_on_dask_equals_the_local_rebuild(
    cluster: Any, demo_lake: Path, tmp_path: Path
) -> None:
    lakes = {name: tmp_path / name for name in ("local", "dask")}
    for lake in lakes.values():
        linked_copy(demo_lake, lake)
        shutil.rmtree(lake / "catalogue")  # as a lake published before the index
    assert "7 alphas" in index_command(lakes["local"])
    address = "dask://" + cluster.scheduler_address.removeprefix("tcp://")
    assert "7 alphas" in index_command(lakes["dask"], "--executor", address)
    found = {}
    for name, lake in lakes.items():
        storage = Storage(str(lake))
        generation = catalogue_index.newest(storage, str(lake))
        assert generation is not None and generation.number == 1
        found[name] = (storage, generation, catalogue_index.read_index(storage, str(lake), generation))
    local, dask = found["local"], found["dask"]
    assert local[2].drop(VOLATILE).equals(dask[2].drop(VOLATILE))
    assert local[2].column("entry").to_pylist() == dask[2].column("entry").to_pylist()
    assert local[1].benchmarks == dask[1].benchmarks
    for name in ("returns", "returns_days", "ic", "ic_days"):
        left = catalogue_index.read_matrix(local[0], str(lakes["local"]), local[1], name)
        right = catalogue_index.read_matrix(dask[0], str(lakes["dask"]), dask[1], name)
        assert left is not None and right is not None
        # Other processes, the same CPU and bytes: equal to the bit.
        np.testing.assert_array_equal(np.asarray(left), np.asarray(right))
    # The score neighbours, paired by the cluster's tasks, are the local rebuild's.
    lists = [
        {
            alpha: catalogue_index.read_table(storage, str(lakes[name]), path, SCORE_NEIGHBOURS).to_pylist()
            for alpha, path in zip(
                index.column("alpha_id").to_pylist(),
                index.column("score_neighbours").to_pylist(),
                strict=True,
            )
            if path is not None
        }
        for name, (storage, _, index) in found.items()
    ]
    assert lists[0] == lists[1] and len(lists[0]) == 6  # every alpha but Test_ledger_only
