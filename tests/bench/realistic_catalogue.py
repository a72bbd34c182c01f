"""A synthetic catalogue that looks like the real one (issue 63, item 1), and the statistics that
say how close it is: `just synthetic-stats --n N`.

The model (`realistic_series`), fitted to a real lake's alphas (`real_model`):

- **Calendars** drawn from the real alphas': each synthetic alpha (or family, or cluster of
  near-duplicates) takes one real alpha's dates held, returns and ic together, so its late
  start, early end and interior gaps are a real one's.
- **A factor structure fitted to the real spectrum**: unit-variance series are k common factors
  with loadings of variance v_j, plus the alpha's own noise (variance 1 - sum v). k is the
  number of the real correlation matrix's eigenvalues above the Marchenko-Pastur edge of its
  size, (1 + sqrt(m / T))^2; the v_j start from the population relation lambda_j = m v_j + e
  and are then corrected by simulation (the sample spectrum of m model alphas on the real
  calendars, averaged over draws, against the real one), per basis.
- **Families of parameter variants**: `family_share` of the alphas in families of sizes drawn
  log-uniformly from `family_sizes` (10-300 by default), members at random ids; a member is
  sqrt(w) of the family's core series plus sqrt(1 - w) of its own (w uniform in 0.35-0.85 per
  family: the members' correlation about w); the family's members share a calendar.
- **Clusters of near-duplicates**: `duplicate_share` of the alphas are copies, in clusters of
  `cluster_sizes` (2-8: one source and its copies) at random ids outside the families; a copy is
  its source plus noise of 0.05-0.2 of the source's standard deviation (correlation to the
  source about 0.98-0.999, between two copies about 0.96-0.998), on the source's calendar.
- **Scales** drawn from the real alphas': each alpha's standard deviation and Sharpe ratio are
  a real alpha's, jittered.

`statistics` computes, for a matrix of series, what the report compares; `compare` reads a
written synthetic lake and puts its real and synthetic rows side by side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.bench.synthetic_catalogue import BLOCK, Series


@dataclass(frozen=True)
class Basis:
    """What the model takes from the real alphas for one basis (returns or ic)."""

    mask: np.ndarray
    """real alphas x dates: the dates each real alpha holds."""
    loadings: np.ndarray
    """the variance of each common factor's loadings (unit-variance series)."""
    std: np.ndarray
    """each real alpha's standard deviation."""
    sharpe: np.ndarray
    """each real alpha's mean over its standard deviation."""
    eigenvalues: np.ndarray
    """the real alphas' correlation matrix's eigenvalues, largest first."""


@dataclass(frozen=True)
class RealModel:
    returns: Basis
    ic: Basis


def correlation_matrix(values: np.ndarray) -> np.ndarray:
    """Pairwise Pearson over the dates both rows hold (analytics.correlation.pearson_between),
    NaN (too few common dates) as 0, 1 on the diagonal."""
    from analytics.correlation import pearson_between

    found, _ = pearson_between(values, values)
    found = np.nan_to_num(found)
    np.fill_diagonal(found, 1.0)
    return found


def spectrum(values: np.ndarray) -> np.ndarray:
    """The eigenvalues of `values`' correlation matrix, largest first, negatives (a pairwise
    matrix need not be positive semi-definite) as 0."""
    return np.clip(np.linalg.eigvalsh(correlation_matrix(values))[::-1], 0.0, None)


def components_for(eigenvalues: np.ndarray, share: float = 0.9) -> int:
    """The fewest leading components whose eigenvalues hold `share` of their sum."""
    cumulative = np.cumsum(eigenvalues) / eigenvalues.sum()
    return int(np.searchsorted(cumulative, share - 1e-12) + 1)


def _unit(rng: np.random.Generator, rows: int, factors: np.ndarray, loadings: np.ndarray) -> np.ndarray:
    """`rows` unit-variance series: loadings (variance `loadings` each) on `factors` (dates x k),
    plus own noise of variance 1 - sum(loadings)."""
    own = math.sqrt(max(0.0, 1.0 - float(loadings.sum())))
    loads = rng.standard_normal((rows, loadings.size)) * np.sqrt(loadings)
    return loads @ factors.T + own * rng.standard_normal((rows, factors.shape[0]))


def _fit_basis(values: np.ndarray, seed: int, draws: int = 30, rounds: int = 8) -> Basis:
    values = np.asarray(values, dtype=np.float64)
    mask = np.isfinite(values)
    m = values.shape[0]
    eigenvalues = spectrum(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        std = np.nanstd(values, axis=1, ddof=1)
        sharpe = np.nanmean(values, axis=1) / std
    held = float(np.median(mask.sum(axis=1)))
    edge = (1 + math.sqrt(m / max(held, 1.0))) ** 2
    k = max(1, int((eigenvalues > edge).sum()), int((eigenvalues > 1.0).sum()))
    target = eigenvalues[:k]
    noise = (m - target.sum()) / max(m - k, 1)
    loadings = np.clip((target - noise) / m, 0.01, None)
    rng = np.random.default_rng(seed)
    for _ in range(rounds):  # the sample spectrum's bias corrected by simulation
        found = np.zeros(k)
        for _ in range(draws):
            factors = rng.standard_normal((values.shape[1], k))
            simulated = _unit(rng, m, factors, loadings)
            simulated[~mask] = np.nan
            found += spectrum(simulated)[:k] / draws
        # damped, and kept in order: the j-th sample eigenvalue is the j-th largest factor's
        loadings = np.sort(loadings * np.sqrt(target / found))[::-1]
        if loadings.sum() > 0.95:
            loadings *= 0.95 / loadings.sum()
    return Basis(mask, loadings, std, sharpe, eigenvalues)


def real_model(returns: np.ndarray, ic: np.ndarray, seed: int = 63) -> RealModel:
    """The model fitted to real alphas' returns and ic (rows: the same alphas, in the same order)."""
    if returns.shape[0] != ic.shape[0] or returns.shape[0] < 2:
        raise ValueError("real_model wants the same two or more alphas' returns and ic")
    return RealModel(_fit_basis(returns, seed), _fit_basis(ic, seed + 1))


def _sizes(rng: np.random.Generator, rows: int, low: int, high: int) -> list[int]:
    """Group sizes in [low, high], log-uniform, filling at most `rows`."""
    sizes: list[int] = []
    left = rows
    while left >= low:
        size = int(round(math.exp(rng.uniform(math.log(low), math.log(high + 1)))))
        size = min(max(low, min(size, high)), left)
        sizes.append(size)
        left -= size
    return sizes


def realistic_series(
    n: int,
    model: RealModel,
    seed: int = 63,
    family_share: float = 0.3,
    family_sizes: tuple[int, int] = (10, 300),
    duplicate_share: float = 0.03,
    cluster_sizes: tuple[int, int] = (2, 8),
    out: tuple[np.ndarray, np.ndarray] | None = None,
) -> Series:
    """`n` synthetic alphas on the real alphas' dates (the module's docstring). `out`: the
    (n x sessions, n x weeks) float64 arrays to fill (memory-mapped at scale: the series are
    made `BLOCK` rows at a time). `Series.clusters` labels each row's family (0 up) or cluster
    of near-duplicates (after the families), -1 neither; `duplicates[i]` the source a copy
    copies."""
    rng = np.random.default_rng(seed)
    real = model.returns.mask.shape[0]
    order = rng.permutation(n)  # the roles spread over the ids
    families = np.full(n, -1, dtype=np.int64)
    at = 0
    family_rows = _sizes(rng, int(n * family_share), *family_sizes) if family_share > 0 else []
    for number, size in enumerate(family_rows):
        families[order[at : at + size]] = number
        at += size
    clusters = families.copy()
    duplicates = np.full(n, -1, dtype=np.int64)
    rest = order[at:]
    copies_wanted, copies, place, label = int(n * duplicate_share), 0, 0, len(family_rows)
    low, high = cluster_sizes
    while copies < copies_wanted and place + 2 <= rest.size:
        size = min(int(rng.integers(low, high + 1)), copies_wanted - copies + 1, rest.size - place)
        members = rest[place : place + size]
        duplicates[members[1:]] = members[0]
        clusters[members] = label
        copies += size - 1
        place += size
        label += 1
    # one real calendar per alpha; a family's members share one, a copy takes its source's
    calendar = rng.integers(0, real, n)
    family_calendar = rng.integers(0, real, max(1, len(family_rows)))
    calendar[families >= 0] = family_calendar[families[families >= 0]]
    copied = duplicates >= 0
    calendar[copied] = calendar[duplicates[copied]]
    # each alpha's scale and Sharpe ratio: a real alpha's, jittered (the returns and ic of one)
    like = rng.integers(0, real, n)
    jitter = np.exp(0.1 * rng.standard_normal((2, n)))
    weights = rng.uniform(0.35, 0.85, max(1, len(family_rows)))
    sessions, weeks = model.returns.mask.shape[1], model.ic.mask.shape[1]
    returns_out, ic_out = out if out is not None else (np.empty((n, sessions)), np.empty((n, weeks)))
    for basis, found, scale in ((model.returns, returns_out, jitter[0]), (model.ic, ic_out, jitter[1])):
        dates = basis.mask.shape[1]
        factors = rng.standard_normal((dates, basis.loadings.size))
        cores = _unit(rng, len(family_rows), factors, basis.loadings)
        std = basis.std[like] * scale
        mean = (np.nan_to_num(basis.sharpe[like]) + 0.02 * rng.standard_normal(n)) * std
        for start in range(0, n, BLOCK):
            stop = min(n, start + BLOCK)
            block = _unit(rng, stop - start, factors, basis.loadings)
            family = families[start:stop]
            member = family >= 0
            if member.any():
                w = weights[family[member]][:, None]
                block[member] = np.sqrt(w) * cores[family[member]] + np.sqrt(1 - w) * block[member]
            block = block * std[start:stop, None] + mean[start:stop, None]
            block[~basis.mask[calendar[start:stop]]] = np.nan
            found[start:stop] = block
        sources = duplicates[copied]
        if sources.size:
            # of the source's own scale over its dates (a short ic row's differs from its model's)
            scale = np.nanstd(found[sources], axis=1, ddof=1)[:, None]
            noise = rng.uniform(0.05, 0.2, sources.size)[:, None] * scale
            found[copied] = found[sources] + noise * rng.standard_normal((sources.size, dates))
    return Series(returns_out, ic_out, clusters, duplicates, families)


def family_parameters(families: np.ndarray) -> tuple[list[str | None], list[str | None]]:
    """The index's `family` and `parameters` of each row (a variant's parameters: a grid of
    lookbacks and thresholds, distinct within its family)."""
    names: list[str | None] = [None] * families.size
    parameters: list[str | None] = [None] * families.size
    seen: dict[int, int] = {}
    for row in np.flatnonzero(families >= 0).tolist():
        family = int(families[row])
        variant = seen.get(family, 0)
        seen[family] = variant + 1
        names[row] = f"synthetic_family_{family:05d}"
        parameters[row] = f'{{"lookback": {5 + 5 * (variant // 10)}, "threshold": {(variant % 10) / 10}}}'
    return names, parameters


# ---------------------------------------------------------------------------------------------
# The statistics


def _calendar(values: np.ndarray) -> dict[str, object]:
    """Interior gaps, late starts and early ends of each row, against the matrix's own dates."""
    found = np.zeros(6)
    firsts, lasts = [], []
    dates = values.shape[1]
    for start in range(0, values.shape[0], BLOCK):
        held = np.isfinite(np.asarray(values[start : start + BLOCK]))
        any_held = held.any(axis=1)
        held = held[any_held]
        first = held.argmax(axis=1)
        last = dates - 1 - held[:, ::-1].argmax(axis=1)
        gaps = (last - first + 1) - held.sum(axis=1)
        found += [held.shape[0], (gaps > 0).sum(), (first > 0).sum(), (last < dates - 1).sum(), 0, 0]
        firsts.append(first)
        lasts.append(dates - 1 - last)
    first, tail = np.concatenate(firsts), np.concatenate(lasts)
    rows = max(found[0], 1)
    return {
        "rows": int(found[0]),
        "share_with_interior_gaps": round(found[1] / rows, 3),
        "share_starting_late": round(found[2] / rows, 3),
        "share_ending_early": round(found[3] / rows, 3),
        "start_dates_late_p10_p50_p90": np.quantile(first, [0.1, 0.5, 0.9]).round(1).tolist(),
        "end_dates_early_p10_p50_p90": np.quantile(tail, [0.1, 0.5, 0.9]).round(1).tolist(),
    }


def statistics(
    values: np.ndarray, families: list[str | None] | None = None, seed: int = 63, probes: int = 200
) -> dict[str, object]:
    """What the report compares, for one basis's matrix (rows x dates, NaN where not held):
    the calendar (`_calendar`); the pairwise correlation over common dates of `probes` sampled
    rows against every row (quantiles, the largest, the share of probes with a neighbour above
    0.9); the eigenvalue spectrum of 20-row samples (like the real lake's 20) and of one
    1,000-row sample: the components for 90 % of the variance and the leading shares; the family
    sizes from the index's `family` column."""
    from analytics.correlation import pearson_between

    rng = np.random.default_rng(seed)
    n = values.shape[0]
    found: dict[str, object] = {"calendar": _calendar(values)}
    chosen = np.sort(rng.choice(n, min(probes, n), replace=False))
    probe = np.asarray(values[chosen])
    correlations, _ = pearson_between(values, probe)
    correlations[chosen, np.arange(chosen.size)] = np.nan  # not a row with itself
    pairs = correlations[np.isfinite(correlations)]
    nearest = np.nanmax(np.abs(correlations), axis=0)
    found["pairwise_correlation"] = {
        "pairs": int(pairs.size),
        "quantiles_p1_p5_p50_p95_p99": np.quantile(pairs, [0.01, 0.05, 0.5, 0.95, 0.99]).round(3).tolist(),
        "max_abs": round(float(np.abs(pairs).max()), 4),
        "share_of_rows_with_a_neighbour_above_0.9": round(float((nearest > 0.9).mean()), 3),
        "nearest_abs_p50": round(float(np.median(nearest)), 3),
    }
    small = [
        spectrum(np.asarray(values[np.sort(rng.choice(n, min(20, n), replace=False))])) for _ in range(20)
    ]
    shares = np.mean([s / s.sum() for s in small], axis=0)
    found["spectrum_20_rows"] = {
        "samples": len(small),
        "components_for_90pct_mean": round(float(np.mean([components_for(s) for s in small])), 1),
        "leading_shares": shares[:5].round(3).tolist(),
    }
    if n >= 200:
        large = spectrum(np.asarray(values[np.sort(rng.choice(n, min(1000, n), replace=False))]))
        found["spectrum_1000_rows"] = {
            "components_for_90pct": components_for(large),
            "components_for_50pct": components_for(large, 0.5),
            "leading_shares": (large[:5] / large.sum()).round(3).tolist(),
        }
    if families is not None:
        counts: dict[str, int] = {}
        for family in families:
            if family is not None:
                counts[family] = counts.get(family, 0) + 1
        sizes = np.array(sorted(counts.values()) or [0])
        found["families"] = {
            "count": len(counts),
            "share_of_rows": round(float(sizes.sum()) / max(len(families), 1), 3),
            "size_min_p50_max": [int(sizes.min()), float(np.median(sizes)), int(sizes.max())],
        }
    return found


def compare(lake: str, seed: int = 63) -> dict[str, object]:
    """The statistics of a written synthetic lake's real rows beside its synthetic rows (`syn`
    ids), per basis."""
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index

    storage = Storage(lake)
    generation = catalogue_index.newest(storage, lake)
    if generation is None:
        raise SystemExit(f"{lake} has no catalogue index")
    index = catalogue_index.read_index(storage, lake, generation)
    ids = index.column("alpha_id").to_pylist()
    family = index.column("family").to_pylist()
    synthetic = np.array([alpha.startswith("syn") for alpha in ids])
    found: dict[str, object] = {"lake": lake, "generation": generation.number}
    for basis in ("returns", "ic"):
        matrix = catalogue_index.read_matrix(storage, lake, generation, basis, mmap=True)
        real_rows, syn_rows = np.flatnonzero(~synthetic), np.flatnonzero(synthetic)
        found[basis] = {
            "real": statistics(np.asarray(matrix[real_rows]), [family[i] for i in real_rows.tolist()], seed),
            "synthetic": statistics(
                np.asarray(matrix[syn_rows]), [family[i] for i in syn_rows.tolist()], seed
            ),
        }
    return found


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json
    import sys

    from tests.bench import synthetic_catalogue

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="synthetic alphas (default 10,000)")
    parser.add_argument("--flattering", action="store_true", help="the issue 51 model's catalogue")
    parser.add_argument(
        "--lake", default=None, help="a written synthetic lake (default: by --n, written when absent)"
    )
    args = parser.parse_args(argv)
    lake = Path(args.lake) if args.lake else synthetic_catalogue.lake_of(args.n, args.flattering)
    if args.lake is None and not lake.is_dir():
        synthetic_catalogue.main(["--n", str(args.n), *(["--flattering"] if args.flattering else [])])
    found = compare(str(lake))
    (lake.parent / "stats.json").write_text(json.dumps(found, indent=1) + "\n")
    json.dump(found, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
