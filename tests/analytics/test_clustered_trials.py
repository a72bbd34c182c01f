"""The DSR as López de Prado and Lewis (2019) deflate (issue 62 item 2): `clustered_dsr` (K the
clusters of the trials, V the variance of the clusters' Sharpe ratios, each cluster's returns the
inverse-variance-weighted portfolio of its members) and the effective rank of the trials'
correlation matrix (Roy and Vetterli 2007) served beside the cluster count, against known answers
and an independent computation from the lake's files (pandas' pairwise Pearson, scipy's connected
components, numpy's eigenvalues), over a demo lake the near-duplicate demo family is published onto."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from analytics.trial_clusters import LINK_CORRELATION, cluster_returns, effective_rank
from pipeline.publish import publish_seal
from tests.analytics import reference as ref
from tests.analytics.conftest import CALLERS, Api, serving
from tests.conftest import linked_copy

SIGNIFICANCE = "/v1/alphas/{}/analytics/significance"
NEAR = [f"Test_family_near_{i:02d}" for i in (1, 5, 10, 16)]
"""Four of the demo's near-duplicate family (alphas.FAMILIES, `momentum_half_life`)."""


# -- known answers ------------------------------------------------------------------------------


def test_the_effective_rank_of_the_identity_is_its_size() -> None:
    assert effective_rank(np.eye(3)) == pytest.approx(3.0, rel=1e-15)
    assert effective_rank(np.zeros((0, 0)), others=3) == pytest.approx(3.0, rel=1e-15)


def test_the_effective_rank_of_perfectly_correlated_trials_is_one() -> None:
    assert effective_rank(np.ones((3, 3))) == pytest.approx(1.0, rel=1e-12)


def test_the_effective_rank_counts_the_other_trials_as_an_identity_block() -> None:
    # Singular values 2, 0 and 1: p = (2/3, 1/3).
    p = np.array([2 / 3, 1 / 3])
    assert effective_rank(np.ones((2, 2)), others=1) == pytest.approx(
        math.exp(-np.sum(p * np.log(p))), rel=1e-12
    )


def test_a_clusters_returns_are_its_members_inverse_variance_portfolio() -> None:
    rng = np.random.default_rng(5)
    values = rng.normal(scale=[[0.01], [0.02], [0.03]], size=(3, 50))
    values[1, 7] = np.nan  # session 7 is not common to every member: left out
    common = [t for t in range(50) if t != 7]
    held = values[:, common]
    inverse = np.array([1.0 / np.var(row, ddof=1) for row in held])
    expected = sum(w * row for w, row in zip(inverse / inverse.sum(), held, strict=True))
    np.testing.assert_allclose(cluster_returns(values), expected, rtol=1e-12, atol=0.0)


# -- served, against the lake's files --------------------------------------------------------


def independent(lake: ref.Lake, count: int, readable: Callable[[str], bool]) -> dict[str, Any]:
    """What a key reading the alphas `readable` accepts is answered, from the files: K, V over the
    clusters' Sharpe ratios, and the effective rank (`count`: N, the served trials)."""
    sharpes = ref.catalogue_sharpes(lake)
    trials = sorted(a for a in sharpes if readable(a))
    frame = pd.DataFrame({a: lake.returns(a, "long_short", (None, None)) for a in trials})
    corr = frame.corr(method="pearson", min_periods=3).to_numpy()
    linked = np.nan_to_num(corr, nan=-1.0) >= LINK_CORRELATION
    np.fill_diagonal(linked, False)
    clusters, label = connected_components(csr_matrix(linked), directed=False)
    cluster_sharpes = []
    for k in range(clusters):
        members = [trials[i] for i in np.flatnonzero(label == k)]
        if len(members) == 1:
            cluster_sharpes.append(sharpes[members[0]])
            continue
        common = frame[members].dropna()
        weights = 1.0 / common.var(ddof=1)
        series = (common * (weights / weights.sum())).sum(axis=1)
        cluster_sharpes.append(float(series.mean() / series.std(ddof=1)))
    others = count - len(trials)
    matrix = np.nan_to_num(corr, nan=0.0)
    np.fill_diagonal(matrix, 1.0)
    singular = np.concatenate([np.abs(np.linalg.eigvalsh(matrix)), np.ones(others)])
    p = singular[singular > 0] / singular.sum()
    return {
        "count": clusters + others,
        "variance": float(np.var(cluster_sharpes, ddof=1)),
        "clusters": len(cluster_sharpes),
        "rank": math.exp(-float(np.sum(p * np.log(p)))),
        "multi": sum(int(np.count_nonzero(label == k)) > 1 for k in range(clusters)),
    }


@pytest.fixture(scope="module")
def near_lake(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small demo lake with four of the near-duplicate family published onto it."""
    from alpha_results_seal.demo.corpus import write_corpus

    folder = tmp_path_factory.mktemp("near")
    root = folder / "lake"
    linked_copy(demo_lake, str(root))
    for seal in write_corpus(folder / "seals", size="small", seed=7, only=NEAR):
        assert publish_seal(str(seal), str(root)).status == "published"
    return root


@pytest.fixture(scope="module")
def near_api(near_lake: Path) -> Iterator[Api]:
    with serving(near_lake, CALLERS) as api:
        yield api


@pytest.mark.parametrize(
    ("token", "readable"), [("raw", lambda a: True), ("testonly", lambda a: a.startswith("Test_"))]
)
def test_the_served_clustered_dsr_is_the_papers_from_the_files(
    near_api: Api, near_lake: Path, token: str, readable: Callable[[str], bool]
) -> None:
    lake = ref.Lake(near_lake)
    first: dict[str, Any] = near_api.ok(SIGNIFICANCE.format(NEAR[0]), token)["data"]
    want = independent(lake, first["dsr"]["trials"]["count"], readable)
    assert want["multi"] >= 1, "the near-duplicates should form a cluster of several trials"
    assert want["count"] < first["dsr"]["trials"]["count"]
    for alpha in [a for a in lake.alphas() if readable(a)]:
        data: dict[str, Any] = near_api.ok(SIGNIFICANCE.format(alpha), token)["data"]
        clustered, trials = data["clustered_dsr"], data["clustered_dsr"]["trials"]
        assert (
            trials["count"]
            == trials["effective_count"]
            == data["dsr"]["trials"]["effective_count"]
            == want["count"]
        )
        assert trials["count_source"] == "clusters"
        assert trials["sharpe_variance"] == pytest.approx(want["variance"], rel=1e-9)
        assert trials["sharpe_variance_alphas"] == want["clusters"]
        assert trials["effective_rank"] == pytest.approx(want["rank"], rel=1e-9)
        assert data["dsr"]["trials"]["effective_rank"] == trials["effective_rank"]
        m = ref.moments(lake.returns(alpha, "long_short", (None, None)).to_numpy())
        expected = None if m is None else ref.dsr(m, want["count"], want["variance"])
        if expected is None:
            assert clustered["value"] is None and clustered["status"] == "not_measurable", alpha
        else:
            assert clustered["value"] == pytest.approx(expected, rel=1e-9, abs=1e-12), alpha
        # effective_dsr keeps its meaning: K, and V over every trial's Sharpe ratio
        assert data["effective_dsr"]["value"] != clustered["value"] or clustered["value"] is None


def test_a_key_that_may_not_read_the_ledger_gets_no_clustered_figures(near_api: Api) -> None:
    data: dict[str, Any] = near_api.ok(SIGNIFICANCE.format(NEAR[0]), "no_portfolio")["data"]
    assert data["clustered_dsr"]["value"] is None
    assert data["clustered_dsr"]["status"] == "not_measurable"
    trials = data["clustered_dsr"]["trials"]
    assert trials["sharpe_variance"] is None and trials["effective_rank"] is None
    assert trials["effective_count"] is None
    assert data["dsr"]["trials"]["effective_rank"] is None


def test_without_links_between_trials_the_clustered_dsr_is_the_effective_dsr(api: Api) -> None:
    """The small demo: no two trials linked (largest correlation 0.47), so every cluster is one trial,
    V_K is dsr's V and clustered_dsr equals effective_dsr."""
    for alpha in ("momentum_12_1", "Test_planted_factor"):
        data: dict[str, Any] = api.ok(SIGNIFICANCE.format(alpha))["data"]
        trials = data["clustered_dsr"]["trials"]
        assert trials["count"] == data["dsr"]["trials"]["effective_count"] == data["dsr"]["trials"]["count"]
        assert trials["sharpe_variance"] == pytest.approx(data["dsr"]["trials"]["sharpe_variance"], rel=1e-12)
        assert data["clustered_dsr"]["value"] == pytest.approx(data["effective_dsr"]["value"], rel=1e-12)
        assert 1.0 <= trials["effective_rank"] <= trials["count"]


def test_the_effective_rank_is_null_above_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above EFFECTIVE_RANK_UP_TO readable trials the rank is not measured (null); K and V_K still are."""
    import pyarrow as pa

    from analytics import significance
    from datasets.catalogue_snapshot import Matrix, Trials

    rng = np.random.default_rng(3)
    values = rng.normal(scale=0.01, size=(6, 40))
    values[1] = values[0] + rng.normal(scale=1e-4, size=40)  # a near-duplicate of trial 0
    ids = [f"a{i}" for i in range(6)]
    rows = {a: i for i, a in enumerate(ids)}
    sharpes = values.mean(axis=1) / values.std(axis=1, ddof=1)
    links = (np.array([0]), np.array([1]))
    trials = Trials("v", rows, sharpes, np.full(6, np.nan), 6, None, links)
    matrix = Matrix("v", rows, pa.array(ids), np.arange(40), values, listed=np.arange(6))
    readable = np.ones(6, dtype=bool)
    pair = cluster_returns(values[:2])
    want = np.var([pair.mean() / pair.std(ddof=1), *sharpes[2:]], ddof=1)
    measured = significance._clustered(trials, readable, matrix)
    assert (measured.count, measured.sharpe_variance_clusters) == (5, 5)
    assert measured.sharpe_variance == pytest.approx(want, rel=1e-12)
    assert measured.effective_rank is not None and 1.0 < measured.effective_rank < 6.0
    monkeypatch.setattr(significance, "EFFECTIVE_RANK_UP_TO", 5)
    above = significance._clustered(trials, readable, matrix)
    assert above.effective_rank is None
    assert (above.count, above.sharpe_variance) == (measured.count, measured.sharpe_variance)
