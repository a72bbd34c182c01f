"""Correlation to the catalogue without a pass over its series (issue 51, item 2; docs/analytics.md
"Correlation to a large catalogue").

The index: each row of a catalogue matrix (returns, ic) z-normalised over its own finite dates
(mean 0, unit norm, zero where it has no value), so that the inner product of two rows is their
Pearson correlation when they hold the same dates; projected on the catalogue's RANK principal
directions (`axes`, from a sample of rows) into a `sketch` of RANK float32 numbers, its residual's
norm beside them (column RANK: zero for a constant row); and which dates each row holds, as bits
(`presence`). The pipeline writes the three with each generation's matrices (`{basis}_sketch`,
`{basis}_axes`, `{basis}_present`, `index_matrices`).

A request then ranks the catalogue by the sketches' inner products (RANK numbers per alpha, not the
series: at 100,000 alphas 13 MB instead of 240 MB), keeps the CANDIDATES best, ranks those again by
the sketched correlation corrected for the dates each shares with the target (`refined`, from the
presence bits) and computes the best EXACT of them exactly (`analytics.correlation.pearson_between`):
the approximate stages only prune, every figure served is exact, and what they may miss is measured
against brute force (docs/benchmarks.md "Issue 51"). Chosen by measurement over random projections (recall of the true 50 nearest 0.56-0.78 with
32-64 numbers per alpha and 1,000 candidates: a factor model's correlations crowd together, and a
random projection's error, about 1/sqrt(dimensions), is larger than their gaps) and over the
z-normalised series scanned whole (recall 1.00 but 120 MB read per request at 100,000 alphas).

Below APPROXIMATE_FROM rows every answer is computed as before, over every row.
"""

from __future__ import annotations

import numpy as np

RANK = 32
"""Principal directions a sketch holds."""
SAMPLE = 20_000
"""Rows the directions are estimated from (a seeded sample; every row below that)."""
APPROXIMATE_FROM = 20_000
"""Rows of a matrix from which a request uses the index; below, every row is computed exactly."""
CANDIDATES = 6_000
"""Rows a top-k request ranks first by their sketches (and the screener's filter computes exactly)."""
EXACT = 1_000
"""Rows of those a top-50 request computes exactly, chosen by their corrected sketched correlation
(`refined`); a deeper page computes EXACT_PER_ROW per row it reaches, up to CANDIDATES."""
EXACT_PER_ROW = 20
BLOCK = 8_192
"""Rows z-normalised and projected at once (the temporaries are a few blocks of rows x dates)."""


def znormalised(values: np.ndarray) -> np.ndarray:
    """Each row minus its mean over its finite values, divided by its norm (float64), zero where
    it has no value; a row with fewer than two values or constant on them is zero."""
    block = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(block)
    count = finite.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, block, 0.0).sum(axis=1, keepdims=True) / count
        centred = np.where(finite, block - mean, 0.0)
        norm = np.sqrt((centred * centred).sum(axis=1, keepdims=True))
        found = np.where(norm > 0, centred / norm, 0.0)
    return found


def axes(values: np.ndarray, rank: int = RANK, sample: int = SAMPLE, seed: int = 51) -> np.ndarray:
    """(rank x dates) float32: the leading principal directions of the z-normalised rows (of a
    seeded sample of `sample` rows), as the eigenvectors of their second-moment matrix."""
    rows = values.shape[0]
    chosen = (
        np.arange(rows)
        if rows <= sample
        else np.sort(np.random.default_rng(seed).choice(rows, sample, replace=False))
    )
    moment = np.zeros((values.shape[1], values.shape[1]))
    for start in range(0, chosen.size, BLOCK):
        z = znormalised(values[chosen[start : start + BLOCK]])
        moment += z.T @ z
    rank = min(rank, values.shape[1])
    if rank == 0:
        return np.zeros((0, values.shape[1]), np.float32)
    _, vectors = np.linalg.eigh(moment)  # ascending eigenvalues
    found: np.ndarray = vectors[:, ::-1][:, :rank].T.astype(np.float32)
    return found


def sketch(values: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """(rows x rank+1) float32: each z-normalised row projected on `directions` (rank x dates),
    and the norm of what the projection leaves (zero for a row that has no correlation)."""
    rank = directions.shape[0]
    found = np.zeros((values.shape[0], rank + 1), np.float32)
    basis = directions.astype(np.float64)
    for start in range(0, values.shape[0], BLOCK):
        z = znormalised(values[start : start + BLOCK])
        projected = z @ basis.T
        total = (z * z).sum(axis=1)
        found[start : start + z.shape[0], :rank] = projected
        found[start : start + z.shape[0], rank] = np.sqrt(np.maximum(total - (projected**2).sum(axis=1), 0.0))
    return found


def presence(values: np.ndarray) -> np.ndarray:
    """(rows x words) uint64: bit d of a row set where it has a finite value at date column d."""
    words = max(1, -(-values.shape[1] // 64))
    found = np.zeros((values.shape[0], words), np.uint64)
    for start in range(0, values.shape[0], BLOCK):
        finite = np.isfinite(np.asarray(values[start : start + BLOCK]))
        padded = np.zeros((finite.shape[0], words * 64), bool)
        padded[:, : finite.shape[1]] = finite
        packed = np.packbits(padded, axis=1, bitorder="little")  # 8 bytes per word, little-endian
        found[start : start + finite.shape[0]] = packed.view("<u8")
    return found


def index_matrices(basis: str, values: np.ndarray) -> dict[str, np.ndarray]:
    """The index of one basis's matrix, as the generation stores it beside the matrix."""
    directions = axes(values)
    return {
        f"{basis}_axes": directions,
        f"{basis}_sketch": sketch(values, directions),
        f"{basis}_present": presence(values),
    }


INDEXED_BASES = ("returns", "ic")
"""The matrices a generation indexes (the correlation route's and the screener's bases)."""


def overlaps(present: np.ndarray, target: int) -> np.ndarray:
    """Dates each row holds in common with row `target` (exact, from the presence bits)."""
    return np.bitwise_count(np.asarray(present) & np.asarray(present[target])[None, :]).sum(
        axis=1, dtype=np.int64
    )


def ranked(sketches: np.ndarray, target: int, allowed: np.ndarray | None, count: int) -> np.ndarray:
    """Rows of `allowed` (a mask over rows; None: every row but `target`) with the `count` largest
    sketched absolute correlations with row `target`, best first."""
    rank = sketches.shape[1] - 1
    scores = np.abs(np.asarray(sketches[:, :rank]) @ np.asarray(sketches[target, :rank]))
    if allowed is not None:
        scores[~allowed] = -1.0
    scores[target] = -1.0
    eligible = (
        scores.size - 1
        if allowed is None
        else int(np.count_nonzero(allowed & (np.arange(scores.size) != target)))
    )
    count = min(count, eligible)
    if count <= 0:
        return np.empty(0, np.int64)
    chosen = np.argpartition(-scores, count - 1)[:count] if count < scores.size else np.arange(scores.size)
    return chosen[np.argsort(-scores[chosen], kind="stable")].astype(np.int64)


def exact_count(depth: int) -> int:
    """Rows computed exactly for a page reaching row `depth` (offset + limit): EXACT for a top 50,
    EXACT_PER_ROW per row deeper, at most CANDIDATES (issue 51: recall measured for the top 50)."""
    return min(CANDIDATES, max(EXACT, EXACT_PER_ROW * depth))


def refined(
    sketches: np.ndarray, present: np.ndarray, target: int, rows: np.ndarray, count: int
) -> np.ndarray:
    """The `count` of `rows` (best first by sketch, `ranked`) whose sketched correlation with row
    `target`, corrected for the dates the two share, is largest (in `rows`' order).

    A sketch is of the row z-normalised over its own dates; two rows sharing only part of them
    correlate over the common dates by about their inner product divided by the share of each one's
    norm on those dates (about common / own dates each): dividing by sqrt(common^2 / (own_a own_b))
    ranks a short history against a long one as the exact pass does. Rows sharing fewer than
    three dates (no correlation) come last. Only orders candidates: the values served are exact."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size <= count:
        return rows
    bits = np.asarray(present)
    chosen = bits[rows]
    common = np.bitwise_count(chosen & bits[target][None, :]).sum(axis=1, dtype=np.int64)
    own = np.bitwise_count(chosen).sum(axis=1, dtype=np.int64)
    mine = int(np.bitwise_count(bits[target]).sum())
    scores = corrected(np.asarray(sketches[rows]), np.asarray(sketches[target]), own, mine, common)
    kept = np.sort(np.argpartition(-scores, count - 1)[:count])
    found: np.ndarray = rows[kept]
    return found


def corrected(
    sketches: np.ndarray, target: np.ndarray, own: np.ndarray, mine: int, common: np.ndarray
) -> np.ndarray:
    """The absolute sketched correlation of each of `sketches` (rows x rank+1) with the `target`
    sketch, corrected for the dates they share (`common`; `own`, `mine`: the dates each holds):
    -1 where they share fewer than three (`refined`)."""
    rank = sketches.shape[1] - 1
    scores = np.abs(
        np.asarray(sketches[:, :rank], dtype=np.float64) @ np.asarray(target[:rank], dtype=np.float64)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = scores * np.sqrt(own.astype(np.float64) * mine) / common
    scores[~np.isfinite(scores) | (common < 3)] = -1.0
    return scores


def held(present: np.ndarray) -> np.ndarray:
    """The dates each row holds (int64), from the presence bits."""
    return np.bitwise_count(np.asarray(present)).sum(axis=1, dtype=np.int64)
