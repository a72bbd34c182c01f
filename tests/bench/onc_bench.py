"""The clustering rule of the effective number of trials, measured (issue 62 item 2; docs/analytics.md,
"Significance", "The clustering rule"): single linkage at LINK_CORRELATION (what the service keeps
per catalogue generation, `analytics/trial_clusters.py`) against ONC (López de Prado and Lewis 2019;
the base step of López de Prado 2020, "Machine Learning for Asset Managers", snippet 4.1
`clusterKMeansBase`: k-means on the correlation distance matrix for k = 2 .. n-1, `n_init` starts
each, the k whose silhouettes' mean over standard deviation is largest), on

- a synthetic block-correlated matrix: `blocks` blocks of `size` trials, within a block each trial
  the block's factor plus noise (correlation `rho` between members), blocks independent;
- the trials of each lake `--lake` names (the correlation of their whole-history daily long_short
  returns, pairwise over common sessions): docs/analytics.md's figures are the small demo lake's
  and the same with four of the near-duplicate family published onto it.

    .venv/bin/python -m tests.bench.onc_bench [--lake DIR ...]

Prints the clusters each rule finds, their agreement with the planted blocks (adjusted Rand index)
and the time each takes. scikit-learn is a measurement dependency only (the service never imports
it).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from analytics.trial_clusters import LINK_CORRELATION


def single_linkage(corr: np.ndarray, threshold: float = LINK_CORRELATION) -> np.ndarray:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    linked = np.nan_to_num(corr, nan=-1.0) >= threshold
    np.fill_diagonal(linked, False)
    _, labels = connected_components(csr_matrix(linked), directed=False)
    return np.asarray(labels)


def onc_base(corr: np.ndarray, n_init: int = 10, seed: int = 0) -> np.ndarray:
    """clusterKMeansBase (López de Prado 2020, snippet 4.1), written plainly."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_samples

    distance = np.sqrt(np.clip((1.0 - np.nan_to_num(corr, nan=0.0)) / 2.0, 0.0, None))
    best_labels, best_quality = np.zeros(corr.shape[0], dtype=int), -np.inf
    for _ in range(n_init):
        for k in range(2, corr.shape[0]):
            labels = KMeans(n_clusters=k, n_init=1, random_state=seed).fit(distance).labels_
            seed += 1
            silhouette = silhouette_samples(distance, labels)
            quality = silhouette.mean() / silhouette.std() if silhouette.std() > 0 else -np.inf
            if quality > best_quality:
                best_quality, best_labels = quality, labels
    return np.asarray(best_labels)


def block_matrix(
    blocks: int, size: int, rho: float, sessions: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    factors = rng.standard_normal((blocks, sessions))
    noise = rng.standard_normal((blocks * size, sessions))
    loading = np.sqrt(rho / (1.0 - rho))
    returns = np.repeat(factors, size, axis=0) * loading + noise
    return np.corrcoef(returns), np.repeat(np.arange(blocks), size)


def measure(name: str, corr: np.ndarray, truth: np.ndarray | None) -> None:
    from sklearn.metrics import adjusted_rand_score

    for rule, run in (("single linkage 0.9", single_linkage), ("ONC (base)", onc_base)):
        start = time.perf_counter()
        labels = run(corr)
        took = time.perf_counter() - start
        agreement = "" if truth is None else f", adjusted Rand {adjusted_rand_score(truth, labels):.3f}"
        print(
            f"{name}: {rule}: {len(set(labels.tolist()))} clusters of {corr.shape[0]}{agreement}, {took:.3f} s"
        )


def lake_correlation(root: Path) -> np.ndarray:
    from tests.analytics import reference as ref

    lake = ref.Lake(root)
    sharpes = ref.catalogue_sharpes(lake)
    frame = pd.DataFrame({a: lake.returns(a, "long_short", (None, None)) for a in sorted(sharpes)})
    return frame.corr(method="pearson", min_periods=3).to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lake", type=Path, action="append", default=[])
    args = parser.parse_args()
    for rho in (0.95, 0.8, 0.5, 0.0):
        corr, truth = block_matrix(blocks=5, size=6, rho=rho, sessions=1_000, seed=11)
        measure(f"5 blocks of 6, within-block correlation {rho}", corr, truth)
    for root in args.lake:
        measure(f"lake {root}", lake_correlation(root), None)


if __name__ == "__main__":
    main()
