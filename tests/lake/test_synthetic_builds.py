"""Synthetic alphas asked through HTTP (issue 63, item 1): `tests/bench/synthetic_catalogue.write`
gives each synthetic alpha a minimal build, so a served benchmark can draw its targets from the
catalogue itself. Over a copy of the small demo lake with 60 synthetic alphas added: a synthetic
alpha's correlation to the catalogue answers, its top row's Pearson correlation equal to numpy's
over the two rows' common dates of the matrices written; `max_correlation` to it keeps exactly the
alphas numpy finds below the bound; its own data routes answer empty pages saying the kind is
missing; and without `builds` its routes fail loud as before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from litestar.testing import TestClient

from alpha_results_seal.storage import Storage
from analytics.correlation import MIN_OVERLAP
from core.settings import Settings
from datasets import catalogue_index
from serve.app import create_app
from tests.api.conftest import CALLERS, Api
from tests.bench.synthetic_catalogue import write
from tests.callers import authenticator_for

N = 60


def _api(lake: Path) -> Iterator[Api]:
    app = create_app(
        Settings(lake=str(lake), environment="test"), authenticate=authenticator_for(CALLERS), limiter=None
    )
    with TestClient(app=app) as client:
        yield Api(client)


@pytest.fixture(scope="module")
def lakes(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made = {}
    for name, builds in (("with", True), ("without", False)):
        out = tmp_path_factory.mktemp(f"synthetic-{name}") / "lake"
        write(str(demo_lake), str(out), N, seed=5, builds=builds)
        made[name] = out
    return made


@pytest.fixture(scope="module")
def api(lakes: dict[str, Path]) -> Iterator[Api]:
    yield from _api(lakes["with"])


def _rows(lake: Path, basis: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    storage = Storage(str(lake))
    generation = catalogue_index.newest(storage, str(lake))
    assert generation is not None
    ids = (
        catalogue_index.read_index(storage, str(lake), generation, ["alpha_id"])
        .column("alpha_id")
        .to_pylist()
    )
    values = np.asarray(catalogue_index.read_matrix(storage, str(lake), generation, basis, mmap=False))
    return dict(zip(ids, values, strict=True)), values


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    """numpy's Pearson over the common dates; NaN below the route's minimum overlap."""
    both = ~np.isnan(a) & ~np.isnan(b)
    if both.sum() < MIN_OVERLAP or np.ptp(a[both]) == 0 or np.ptp(b[both]) == 0:
        return float("nan")
    return float(np.corrcoef(a[both], b[both])[0, 1])


@pytest.mark.parametrize("basis", ["returns", "ic"])
def test_a_synthetic_alphas_correlation_answers(api: Api, lakes: dict[str, Path], basis: str) -> None:
    rows, _ = _rows(lakes["with"], basis)
    # The synthetic alpha holding the most dates (a calendar taken from a real alpha may be short).
    target = max((a for a in rows if a.startswith("syn")), key=lambda a: int(np.isfinite(rows[a]).sum()))
    body = api.ok(f"/v1/alphas/{target}/analytics/correlation", "raw", basis=basis, limit=5)
    assert len(body["data"]) == 5 and target not in {row["alpha"] for row in body["data"]}
    top = body["data"][0]
    assert top["pearson"] == pytest.approx(_pearson(rows[target], rows[top["alpha"]]), abs=1e-9)
    measured = [_pearson(rows[target], row) for alpha, row in rows.items() if alpha != target]
    largest = max(abs(value) for value in measured if np.isfinite(value))
    assert abs(top["pearson"]) == pytest.approx(largest, abs=1e-9)


def test_max_correlation_to_a_synthetic_alpha(api: Api, lakes: dict[str, Path]) -> None:
    rows, _ = _rows(lakes["with"], "returns")
    target = "syn0000042"
    kept = {
        row["alpha_id"]
        for row in api.all_pages(
            "/v1/analytics/screen", 100, "raw", max_correlation=0.3, correlated_to=target
        )
    }
    expected = {
        alpha for alpha, row in rows.items() if alpha != target and abs(_pearson(rows[target], row)) <= 0.3
    }
    assert kept == expected and len(kept) > 5


def test_a_synthetic_alphas_own_routes_answer_empty(api: Api) -> None:
    body: dict[str, Any] = api.ok("/v1/alphas/syn0000003/positions", "raw")
    assert body["data"] == [] and body["pagination"]["total"] == 0
    assert [w["code"] for w in body["meta"]["warnings"]] == ["kind_missing"]


def test_without_builds_a_synthetic_alpha_fails_loud(lakes: dict[str, Path]) -> None:
    for api in _api(lakes["without"]):
        api.error("/v1/alphas/syn0000017/analytics/correlation", 503, "upstream_unavailable", basis="returns")
