"""The Rademacher anti-serum's complexity kept with each catalogue generation (issue 62, item 4;
`analytics/rademacher.py`, docs/analytics.md "A bound over the whole catalogue").

A generation's trials document holds `ras`: per basis (`returns`, the daily long_short returns each
row scaled to unit variance; `ic`, the weekly IC clipped to [-1, 1]) the Monte Carlo estimate of
S = E_eps[sup_n |sum_t eps_t x_{t,n}|] (the complexity times T: independent of how many flat dates
pad the rows, so it is kept without the window's T and divided by the served generation's T when
read), its standard error and the columns N it is over.

- A whole generation (a commit in full, `alpha-results lake index`, a compaction) computes S over
  every row of its matrices: O(draws x T x N), once.
- A delta generation (a publish: O(the rows changed since its base), docs/lake.md "Delta
  generations") keeps its base's S and adds the S of its own rows (every row changed since the
  base): sup over a union <= the sum of the sups, and a row the delta replaces or removes only
  lowers the true sup, so base + delta is an upper bound of the complexity over the generation's
  rows (the bound it makes is conservative, never short) and N = N_base + N_delta an upper bound of
  its columns. The next compaction computes it exactly again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics import rademacher

BASES = ("returns", "ic")


TRANSFORMS = {"returns": rademacher.unit_variance, "ic": rademacher.clipped}
"""How the bound reads each basis's rows: returns at unit variance, the IC within [-1, 1]."""


def _part(basis: str, rows: np.ndarray | None) -> list[float]:
    """[S, its standard error, N] over `rows` (none: zeros)."""
    if rows is None or rows.size == 0:
        return [0.0, 0.0, 0]
    found = rademacher.complexity(rows, transform=TRANSFORMS[basis])
    dates = found.dates
    return [found.value * dates, found.standard_error * dates, found.columns]


def whole(matrices: dict[str, np.ndarray]) -> dict[str, Any]:
    """The `ras` document of a whole generation, from its matrices."""
    document: dict[str, Any] = {"draws": rademacher.DRAWS, "seed": rademacher.SEED}
    for basis in BASES:
        document[basis] = {"base": _part(basis, matrices.get(basis)), "delta": [0.0, 0.0, 0]}
    return document


def delta(before: dict[str, Any] | None, matrices: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """The `ras` document of a delta generation: its base's parts (carried by `before`, the newest
    generation's document, over the same base) and its own rows' (`matrices`, the delta's); None
    when the base kept none (a generation written before the bound: the next whole one has it)."""
    if not before or before.get("draws") != rademacher.DRAWS or before.get("seed") != rademacher.SEED:
        return None
    document: dict[str, Any] = {"draws": rademacher.DRAWS, "seed": rademacher.SEED}
    for basis in BASES:
        kept = before.get(basis) or {}
        if "base" not in kept:
            return None
        document[basis] = {"base": kept["base"], "delta": _part(basis, matrices.get(basis))}
    return document


def with_bound(trials: dict[str, Any], ras: dict[str, Any] | None) -> dict[str, Any]:
    """A trials document with its `ras` entry (none when None)."""
    return trials if ras is None else {**trials, "ras": ras}
