"""The realistic synthetic catalogue's model (tests/bench/realistic_catalogue.py, issue 63 item 1),
without a lake: fitted to a small made-up "real" catalogue whose calendars have late starts,
interior gaps and early ends, the generated alphas hold exactly the real calendars, the families
are of the sizes asked and their members correlated, the near-duplicates correlate above 0.9 with
their source (numpy's own Pearson over the common dates, not the generator's), spread over the
ids, and the whole is fixed by its seed."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bench.realistic_catalogue import components_for, real_model, realistic_series, spectrum, statistics

REAL, SESSIONS, WEEKS = 12, 150, 30
N = 2_000


def _made_up_real() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    factors = rng.standard_normal((SESSIONS, 3))
    returns = 0.01 * (rng.standard_normal((REAL, 3)) @ factors.T + rng.standard_normal((REAL, SESSIONS)))
    ic = 0.1 * (rng.standard_normal((REAL, 2)) @ rng.standard_normal((WEEKS, 2)).T)
    ic += 0.1 * rng.standard_normal((REAL, WEEKS))
    for row in range(REAL):
        start, end = 5 * (row % 4), WEEKS - (row % 3)  # late starts, early ends
        ic[row, :start] = ic[row, end:] = np.nan
        returns[row, : 5 * start] = returns[row, 5 * end :] = np.nan
        if row % 2:  # an interior gap
            ic[row, 20] = np.nan
            returns[row, 100:103] = np.nan
    return returns, ic


@pytest.fixture(scope="module")
def made() -> tuple[tuple[np.ndarray, np.ndarray], object, object]:
    real = _made_up_real()
    model = real_model(*real)
    series = realistic_series(
        N, model, seed=11, family_share=0.3, family_sizes=(10, 40), duplicate_share=0.03, cluster_sizes=(2, 6)
    )
    return real, model, series


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    both = np.isfinite(a) & np.isfinite(b)
    return float(np.corrcoef(a[both], b[both])[0, 1])


def test_calendars_are_the_real_ones_with_their_gaps(made) -> None:  # type: ignore[no-untyped-def]
    (returns, ic), _, series = made
    for real, generated in ((returns, series.returns), (ic, series.ic)):
        calendars = {tuple(row) for row in np.isfinite(real)}
        held = np.isfinite(generated)
        assert all(tuple(row) in calendars for row in held)
        first = held.argmax(axis=1)
        last = held.shape[1] - 1 - held[:, ::-1].argmax(axis=1)
        interior = (last - first + 1) > held.sum(axis=1)
        assert 0.3 < interior.mean() < 0.7  # half the real calendars have a gap
        assert (first > 0).mean() > 0.5 and (last < held.shape[1] - 1).mean() > 0.4
    # one real alpha's calendar for both bases
    same = [
        int(np.flatnonzero((np.isfinite(ic) == np.isfinite(series.ic[i])).all(axis=1))[0])
        in np.flatnonzero((np.isfinite(returns) == np.isfinite(series.returns[i])).all(axis=1)).tolist()
        for i in range(0, N, 37)
    ]
    assert all(same)
    # the report's own count agrees
    found = statistics(series.ic)["calendar"]
    held = np.isfinite(series.ic)
    first, last = held.argmax(axis=1), WEEKS - 1 - held[:, ::-1].argmax(axis=1)
    assert found["share_with_interior_gaps"] == round(
        float(((last - first + 1) > held.sum(axis=1)).mean()), 3
    )


def test_families_have_the_sizes_asked_and_correlated_members(made) -> None:  # type: ignore[no-untyped-def]
    _, _, series = made
    families = series.families
    sizes = np.bincount(families[families >= 0])
    assert sizes.size >= 5 and sizes.min() >= 10 and sizes.max() <= 40
    assert int(0.3 * N) - 10 < sizes.sum() <= int(0.3 * N)
    members = np.flatnonzero(families >= 0)
    assert members.min() < N // 10 and members.max() > N - N // 10  # spread over the ids
    within, across = [], []
    rng = np.random.default_rng(0)
    for _ in range(300):
        a, b = rng.choice(members, 2, replace=False)
        (within if families[a] == families[b] else across).append(
            abs(_pearson(series.returns[a], series.returns[b]))
        )
    for family in range(sizes.size):
        a, b = np.flatnonzero(families == family)[:2]
        within.append(_pearson(series.returns[a], series.returns[b]))
    assert np.mean(within) > 0.3 and np.mean(within) > np.mean(across) + 0.15


def test_near_duplicates_above_0_9_in_clusters_spread_over_the_ids(made) -> None:  # type: ignore[no-untyped-def]
    _, _, series = made
    copies = np.flatnonzero(series.duplicates >= 0)
    assert copies.size == int(0.03 * N)
    assert copies.min() < N // 10 and copies.max() > N - N // 10
    assert (series.families[copies] < 0).all()
    for copy in copies:
        source = series.duplicates[copy]
        assert series.duplicates[source] == -1
        for values in (series.returns, series.ic):
            assert _pearson(values[copy], values[source]) > 0.9
    clusters = series.clusters[copies]
    sizes = np.unique(clusters, return_counts=True)[1] + 1  # the source and its copies
    assert sizes.max() <= 6 and (sizes >= 2).all() and (sizes > 2).any()
    for cluster in np.unique(clusters)[:20]:  # two copies of one source
        pair = np.flatnonzero((series.clusters == cluster) & (series.duplicates >= 0))[:2]
        if pair.size == 2:
            assert _pearson(series.returns[pair[0]], series.returns[pair[1]]) > 0.9


def test_the_spectrum_is_near_the_real_one(made) -> None:  # type: ignore[no-untyped-def]
    (returns, ic), _, series = made
    rng = np.random.default_rng(5)
    for real, generated in ((returns, series.returns), (ic, series.ic)):
        wanted = components_for(spectrum(real))
        found = np.mean(
            [
                components_for(spectrum(generated[np.sort(rng.choice(N, REAL, replace=False))]))
                for _ in range(10)
            ]
        )
        assert abs(found - wanted) <= 2.0


def test_fixed_by_its_seed(made) -> None:  # type: ignore[no-untyped-def]
    _, model, series = made
    again = realistic_series(
        N, model, seed=11, family_share=0.3, family_sizes=(10, 40), duplicate_share=0.03, cluster_sizes=(2, 6)
    )
    np.testing.assert_array_equal(again.returns, series.returns)
    np.testing.assert_array_equal(again.ic, series.ic)
    np.testing.assert_array_equal(again.families, series.families)
    np.testing.assert_array_equal(again.duplicates, series.duplicates)
    other = realistic_series(N, model, seed=12, family_sizes=(10, 40), cluster_sizes=(2, 6))
    assert not np.array_equal(np.nan_to_num(other.returns), np.nan_to_num(series.returns))
