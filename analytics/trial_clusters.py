"""The effective number of trials (issue 50 item 3, issue 51 item 5; docs/analytics.md, "Significance").

The trials of the Deflated Sharpe ratio (the published alphas with a measurable Sharpe ratio) are
clustered by single linkage at a stated correlation: two trials are linked when the Pearson
correlation of their daily long_short returns over the sessions both hold (whole histories, at
least MIN_OVERLAP of them, each side varying on them: `/analytics/correlation`'s `returns`
figure) is at least LINK_CORRELATION, and a cluster is a connected component of those links
(single linkage cut at a distance: Gower and Ross 1969; the correlation distance of López de Prado
2016). The effective number of trials is the number of clusters, an unreadable alpha one of its own.
Lopez de Prado and Lewis (2019) use the number of clusters of the trials as the effective number of
trials of the Deflated Sharpe ratio; they cluster with ONC, we with single linkage at a threshold,
which a publish can keep exactly and which never merges independent trials (ONC measured against it:
tests/bench/onc_bench.py, docs/analytics.md "The clustering rule, measured"). `cluster_returns` is a
cluster's portfolio and `effective_rank` the threshold-free cross-check of `clustered_dsr`
(analytics/significance.py).

Kept per catalogue generation (`pipeline/trial_links.py`): every link, as (alpha, alpha,
correlation). A publish correlates its alpha's row with every row of the returns matrix (one
masked pass, `analytics.correlation.pearson_between`), decides each pair the pass places within
SCREEN of the threshold or above with the served two-pass formula (`correlate_rows`), drops the
links of the builds it replaces and counts the components again over the links kept
(`components`, O(trials + links)): exact against the definition, removals included (union-find
alone cannot split a cluster).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

from analytics.correlation import correlate_rows, pearson_between

LINK_CORRELATION = 0.9
"""Two trials whose daily returns correlate at least this much are one trial (variants of one bet)."""
SCREEN = 1e-6
"""The pass's sums formula places a pair this far below the threshold or above: decided with the
two-pass formula (their difference is of the order of 1e-15 on returns)."""
BLOCK = 1024
"""Rows of the from-scratch pass correlated against every later row at once."""

Link = tuple[str, str, float]


def _pair(a: str, b: str, correlation: float) -> Link:
    return (a, b, correlation) if a < b else (b, a, correlation)


def links_against(
    values: np.ndarray, ids: Sequence[str], target: np.ndarray, target_id: str, skip: np.ndarray | None = None
) -> list[Link]:
    """The links of the row `target` (on the dates of `values`' columns, NaN where none) with the
    rows of `values` (alphas x dates, ids `ids`), never with itself; rows of `skip` (a mask) left out."""
    if values.shape[0] == 0:
        return []
    found, _ = pearson_between(values, target[None, :])
    close = np.nan_to_num(found[:, 0], nan=-math.inf) >= LINK_CORRELATION - SCREEN
    if skip is not None:
        close &= ~skip
    rows = np.flatnonzero(close)
    rows = np.array([r for r in rows.tolist() if ids[r] != target_id], dtype=np.int64)
    if rows.size == 0:
        return []
    exact, _, _ = correlate_rows(target, np.asarray(values[rows]))
    return [
        _pair(target_id, ids[int(r)], float(c))
        for r, c in zip(rows, exact, strict=True)
        if math.isfinite(c) and c >= LINK_CORRELATION
    ]


def from_scratch(values: np.ndarray, ids: Sequence[str]) -> list[Link]:
    """Every link among the rows of `values` (O(rows^2 x dates): a whole rebuild's, once)."""
    found: list[Link] = []
    for start, block, found_block in _blocks(values):
        for offset in range(block.shape[0]):
            row = start + offset
            later = np.flatnonzero(found_block[offset] >= LINK_CORRELATION - SCREEN)
            later = later[later > row]
            if later.size == 0:
                continue
            exact, _, _ = correlate_rows(block[offset], np.asarray(values[later]))
            found += [
                _pair(ids[row], ids[int(other)], float(c))
                for other, c in zip(later, exact, strict=True)
                if math.isfinite(c) and c >= LINK_CORRELATION
            ]
    return sorted(found)


def _blocks(values: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    for start in range(0, values.shape[0], BLOCK):
        block = np.asarray(values[start : start + BLOCK])
        correlations, _ = pearson_between(values, block)
        yield start, block, np.nan_to_num(correlations.T, nan=-math.inf)


def components(nodes: int, a: np.ndarray, b: np.ndarray) -> int:
    """Connected components of the graph on `nodes` nodes whose edges join `a[i]` and `b[i]`."""
    if nodes == 0:
        return 0
    if a.size == 0:
        return nodes
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(nodes, nodes))
    count, _ = connected_components(graph, directed=False)
    return int(count)


def effective_count(trial_rows: np.ndarray, a: np.ndarray, b: np.ndarray, others: int) -> int:
    """The clusters of the trials at `trial_rows` (rows of one order, e.g. the listing's) linked by
    the links (`a[i]`, `b[i]`, rows of that order; a link with an end outside the trials ignored),
    plus `others` trials counted one cluster each."""
    position = np.full(int(max(trial_rows.max(initial=-1), a.max(initial=-1), b.max(initial=-1))) + 1, -1)
    position[trial_rows] = np.arange(trial_rows.size)
    pa_, pb_ = position[a], position[b]
    kept = (pa_ >= 0) & (pb_ >= 0)
    return components(int(trial_rows.size), pa_[kept], pb_[kept]) + others


def labels(nodes: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The component of each of `nodes` nodes (0 to K-1) under the edges (`a[i]`, `b[i]`)."""
    if nodes == 0:
        return np.zeros(0, dtype=np.int64)
    if a.size == 0:
        return np.arange(nodes, dtype=np.int64)
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(nodes, nodes))
    _, found = connected_components(graph, directed=False)
    return np.asarray(found, dtype=np.int64)


def cluster_returns(values: np.ndarray) -> np.ndarray:
    """One cluster's daily returns (López de Prado and Lewis 2019, section 4: the cluster's members
    aggregated by the minimum-variance allocation that ignores their correlations, weights
    proportional to the inverse of each member's variance, summing to 1): over the sessions every
    member of `values` (members x dates, NaN where none) holds, each member's variance (ddof 1) on
    those sessions. Empty below 3 common sessions or when a member does not vary on them."""
    common = np.all(np.isfinite(values), axis=0)
    held = values[:, common]
    if held.shape[1] < 3:
        return np.empty(0)
    variances = np.var(held, axis=1, ddof=1)
    if not np.all(variances > 0):
        return np.empty(0)
    weights = (1.0 / variances) / np.sum(1.0 / variances)
    return np.asarray(weights @ held)


def effective_rank(correlation: np.ndarray, others: int = 0) -> float:
    """Roy and Vetterli (2007): exp of the Shannon entropy of the normalised singular values of the
    trials' correlation matrix (its absolute eigenvalues: a pairwise-complete matrix need not be
    positive semi-definite), `others` trials more each uncorrelated with every trial (an identity
    block: `others` singular values of 1). Identity n x n: n; all ones: 1."""
    singular = np.abs(np.linalg.eigvalsh(correlation)) if correlation.size else np.zeros(0)
    singular = np.concatenate([singular, np.ones(others)])
    total = float(np.sum(singular))
    if total <= 0.0:
        return math.nan
    p = singular[singular > 0.0] / total
    return float(math.exp(-float(np.sum(p * np.log(p)))))
