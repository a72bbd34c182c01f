"""The correlation index served (issue 51, item 2): over the demo lake, whole and after delta
publishes (the index's z rows and spans merged from the base's and the delta's), every
`/analytics/correlation` page (returns and ic, whole history and windows, deep pages) and every
screener answer with `max_correlation` (several bounds and references) that the index decides
equals the answer of the pass over every row, through the app; and the index did decide them (the
demo lake is far below `nearest.APPROXIMATE_FROM`, so the test lowers it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from analytics import correlation, nearest
from core.settings import Settings
from datasets import catalogue_index
from pipeline.publish import publish_seal
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.conftest import linked_copy
from tests.pipeline.factory import write_factory_seal
from tests.support.catalogue_generations import newest, stripped


def answers(root: str, alphas: list[str]) -> dict[str, Any]:
    app = create_app(Settings(lake=root, environment="test"), authenticate=fake_authenticate, limiter=None)
    paths = []
    for alpha in alphas:
        base = f"/v1/alphas/{alpha}/analytics/correlation"
        paths += [
            f"{base}?basis=returns&limit=3",
            f"{base}?basis=ic&limit=2",
            f"{base}?basis=returns&limit=2&offset=3",
            f"{base}?basis=returns&limit=3&from=2021-06-01&to=2022-03-31",
            f"{base}?basis=ic&limit=3&from=2021-09-01",
        ]
        for bound in (0.05, 0.2, 0.5):
            paths.append(f"/v1/analytics/screen?limit=100&max_correlation={bound}&correlated_to={alpha}")
    paths.append("/v1/analytics/screen?limit=100&max_correlation=0.3&correlation_basis=ic")
    found = {}
    with TestClient(app=app) as client:
        for path in paths:
            response = client.get(path, headers={"Authorization": "Bearer raw"})
            found[path] = (response.status_code, stripped(response.json()))
    return found


@pytest.fixture()
def decided(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The index used at any size; counts the estimates made."""
    calls: list[int] = []
    estimate = nearest.estimate

    def counted(*args: Any, **kwargs: Any) -> nearest.Estimate:
        calls.append(1)
        return estimate(*args, **kwargs)

    monkeypatch.setattr(nearest, "estimate", counted)
    return calls


def test_the_index_serves_what_the_pass_serves(
    demo_lake: Path, tmp_path: Path, decided: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    for stage in ("whole", "delta"):
        if stage == "delta":
            for n in range(2):
                seal = write_factory_seal(
                    tmp_path / "seals" / f"f{n}", alpha_id=f"Test_index_{n}", seed=80 + n, weeks=12
                )
                assert publish_seal(str(seal), root).status == "published"
            assert newest(root).delta is not None
        generation = newest(root)
        assert {"returns_z", "returns_span", "ic_z", "ic_span"} <= set(generation.matrices)
        index = catalogue_index.read_index(catalogue_index.Storage(root), root, generation)
        alphas = index.column("alpha_id").to_pylist()[::3]
        monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 10**9)
        passed = answers(root, alphas)
        monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1)
        monkeypatch.setattr(correlation, "EXACT_ROWS", 0)
        monkeypatch.setattr(correlation, "PASS_FROM_SHARE", 1.0)
        decided.clear()
        indexed = answers(root, alphas)
        assert len(decided) >= len(alphas) * 5, stage  # the index decided most answers
        for path, answer in passed.items():
            assert answer[0] == 200, (path, answer)
            assert indexed[path] == answer, (stage, path)
