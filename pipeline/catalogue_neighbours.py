"""The scores basis of the catalogue's correlations: each alpha's nearest neighbours, computed once
per publish (docs/analytics.md, "Correlation"; docs/lake.md, "The catalogue index").

A score correlation pairs two alphas' weekly cross-sections (the mean over common weeks of the
Spearman correlation of their conditioned scores over the names both scored), so unlike returns and
IC it is not a product of two date-aligned series, and the catalogue cannot hold it for every pair
of 10,000 alphas. Each alpha keeps instead its `neighbours` nearest alphas by absolute
whole-history score correlation, each with the pairing's weekly series, so any window is a slice:
the figure served is the one a pairing of the two builds gives.

- Candidates: the `candidates` alphas whose daily returns or weekly IC correlate most (in absolute
  value, over whole histories) with the alpha's: one masked matrix product over the catalogue's
  matrices. Two alphas whose scores agree trade alike, so their returns and IC agree too; with no
  more alphas than `candidates`, every alpha is one.
- Each candidate is paired exactly (`analytics.correlation.weekly_score_spearman_against`).
- The alpha's list is its nearest candidates; each candidate's list takes the alpha in when it is
  nearer than the farthest it holds, or the list is not full.

A list names each neighbour's build. An entry whose neighbour was republished since is stale: it
is dropped when read (by the server, and by the next publish that rewrites the list), so no
figure pairs two builds that were never current together. A list may hence hold fewer entries than
`neighbours` until `alpha-results lake index` rebuilds every list.
"""

from __future__ import annotations

import io
import math
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from analytics.correlation import Pairing, pearson_between, weekly_score_spearman_against
from analytics.nearest import Gaps, Spans, estimate, znormalised
from schemas.lake import SCORE_NEIGHBOURS

NEIGHBOURS = 50
"""Neighbours kept per alpha (the most the scores basis of `/analytics/correlation` lists)."""
CANDIDATES = 100
"""Alphas paired exactly with each newly published alpha, chosen by returns and IC correlation."""
HOP_FROM = 20
"""The second hop: the lists of an alpha's nearest HOP_FROM candidates name more candidates (alphas
near its near neighbours). Returns and IC alone found 78% of the true 50 nearest over the
benchmark's 2,000 alphas; with the second hop, 99.9% (docs/benchmarks.md)."""
PROXY_BASES = ("returns", "ic")
READERS = 8
"""Threads reading candidates' scores and lists (each a few object-store requests on S3)."""
WHOLE_HISTORY = (int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max))
"""Day bounds that hold every date: a pairing's whole-history correlation."""

ScoreReader = Callable[[str], pl.DataFrame | None]
"""alpha_id -> (date, symbol, score) of its current build (None: it has no decisions)."""


@dataclass(frozen=True, eq=False)
class Neighbour:
    alpha_id: str
    build_id: str
    whole: float  # whole-history score correlation (mean weekly Spearman); finite
    pairing: Pairing

    @property
    def key(self) -> tuple[float, str]:
        """Nearest first, ties by alpha id."""
        return (-abs(self.whole), self.alpha_id)


def nearest(entries: Iterable[Neighbour], count: int) -> list[Neighbour]:
    return sorted(entries, key=lambda entry: entry.key)[:count]


def whole_history(pairing: Pairing) -> float:
    return pairing.correlate(*WHOLE_HISTORY).spearman


def candidates(matrices: Mapping[str, np.ndarray], row: int, eligible: np.ndarray, count: int) -> list[int]:
    """Rows (of the matrices) of the `count` eligible alphas other than `row` most correlated with
    it on daily returns or weekly IC, nearest first, ties by row. An eligible alpha with neither
    correlation measurable ranks after every measured one."""
    closeness = np.full(eligible.size, -1.0)
    for basis in PROXY_BASES:
        values = matrices[basis]
        found, _ = pearson_between(values, values[row : row + 1])
        closeness = np.fmax(closeness, np.nan_to_num(np.abs(found[:, 0]), nan=-1.0))
    closeness[~eligible] = -math.inf
    closeness[row] = -math.inf
    order = np.lexsort((np.arange(eligible.size), -closeness))[:count]
    return [int(position) for position in order if closeness[position] > -math.inf]


IndexPart = tuple[np.ndarray, Spans, np.ndarray, np.ndarray | None, Gaps | None]
"""One stored part of a generation's correlation index on one basis (a whole generation has one; a
delta generation its base's and its delta's): (z rows, their spans, the part's days, the position
of each of its rows in the merged index, -1 for a row the delta replaced (None: a whole
generation's, each row its own), its rows' gap lists)."""


def every_eligible(eligible: np.ndarray, count: int) -> np.ndarray | None:
    """Every eligible row (ascending) when there are at most `count`: each is a candidate, whatever
    its correlation, so no index is read (a catalogue whose rows mostly have no list); else None."""
    if int(np.count_nonzero(eligible)) <= count:
        found: np.ndarray = np.flatnonzero(eligible)
        return found
    return None


def open_candidates(
    parts: Mapping[str, list[IndexPart]],
    series: Mapping[str, tuple[np.ndarray, np.ndarray]],
    eligible: np.ndarray,
    count: int,
) -> np.ndarray:
    """The eligible rows of the index (merged positions, ascending) that may be among a new
    alpha's `count` `candidates`, decided by the correlation index's error bounds (analytics/nearest.py)
    without reading any row's series: every row whose closeness (its larger absolute correlation on
    returns or IC, -1 with neither) may reach the count-th largest lower bound. Correlated exactly,
    they choose what correlating every eligible row would (issue 51: a publish that does not read
    the catalogue's series). `series`: the new alpha's (days, values) per basis."""
    every = every_eligible(eligible, count)
    if every is not None:
        return every
    size = eligible.size
    lower, upper = np.full(size, -1.0), np.full(size, -1.0)
    # Each part's bounds, both bases' taken together where their parts hold the same rows (a
    # generation's bases share its merge): one scatter into the merged rows per part, not per basis.
    bounds: list[tuple[np.ndarray | None, np.ndarray, np.ndarray]] = []
    for basis in PROXY_BASES:
        own_days, own_values = series.get(basis, (np.empty(0, np.int32), np.empty(0)))
        for z, spans, days, positions, gaps in parts[basis]:
            row = np.full(days.size, np.nan)
            inside = np.isin(own_days, days)
            row[np.searchsorted(days, own_days[inside])] = own_values[inside]
            finite = np.isfinite(row)
            if not finite.any():
                continue  # no common date with any row of the part: no correlation (-1)
            found = estimate(z, spans, znormalised(row[None, :])[0], finite, (0, days.size), None, gaps)
            undecided, measured = np.isinf(found.error), np.isfinite(found.value)
            magnitude = np.abs(found.value)
            low = np.where(undecided | ~measured, -1.0, magnitude - found.error)
            high = np.where(undecided, np.inf, np.where(measured, magnitude + found.error, -1.0))
            for held, held_low, held_high in bounds:
                if _same_rows(held, positions):
                    np.fmax(held_low, low, out=held_low)
                    np.fmax(held_high, high, out=held_high)
                    break
            else:
                bounds.append((positions, low, high))
    for positions, low, high in bounds:
        if positions is None:  # a whole generation's: its rows are the index's, in order
            np.fmax(lower, low, out=lower)
            np.fmax(upper, high, out=upper)
            continue
        there = positions >= 0
        rows = positions[there]
        lower[rows] = np.fmax(lower[rows], low[there])
        upper[rows] = np.fmax(upper[rows], high[there])
    lower[~eligible] = -np.inf
    floor = np.partition(lower, size - count)[size - count]
    found_rows: np.ndarray = np.flatnonzero(eligible & (upper >= floor))
    return found_rows


def _same_rows(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two index parts' positions (`IndexPart`) place the same rows alike."""
    if a is None or b is None:
        return a is None and b is None
    return a is b or (a.shape == b.shape and bool(np.array_equal(a, b)))


def paired(scores: pl.DataFrame, others: list[tuple[str, str]], read: ScoreReader) -> list[Neighbour]:
    """`scores` paired with each (alpha_id, build_id) of `others` whose correlation is measurable."""
    with ThreadPoolExecutor(READERS) as pool:  # on S3 each read is a few requests: side by side
        read_frames = list(pool.map(read, [alpha for alpha, _ in others]))
    frames = [(alpha, build, frame) for (alpha, build), frame in zip(others, read_frames, strict=True)]
    present = [(alpha, build, frame) for alpha, build, frame in frames if frame is not None]
    pairings = weekly_score_spearman_against(scores, [frame for _, _, frame in present])
    found = []
    for (alpha, build, _), pairing in zip(present, pairings, strict=True):
        correlation = whole_history(pairing)
        if math.isfinite(correlation):
            found.append(Neighbour(alpha, build, correlation, pairing))
    return found


def admitted(
    entries: list[Neighbour], newcomer: Neighbour, builds: Mapping[str, str], count: int
) -> list[Neighbour] | None:
    """`entries` (a list as stored) with its stale entries and any older entry of the newcomer's
    alpha dropped, and `newcomer` taken in when it is among the `count` nearest; None when that
    changes nothing."""
    kept = [
        entry
        for entry in entries
        if builds.get(entry.alpha_id) == entry.build_id and entry.alpha_id != newcomer.alpha_id
    ]
    following = nearest([*kept, newcomer], count)
    unchanged = len(following) == len(entries) and all(
        a is b for a, b in zip(following, entries, strict=True)
    )
    return None if unchanged else following


def current(entries: list[Neighbour], builds: Mapping[str, str]) -> list[Neighbour]:
    """The entries whose neighbour is still served from the build they were paired with."""
    return [entry for entry in entries if builds.get(entry.alpha_id) == entry.build_id]


# -- files ------------------------------------------------------------------------------------------


def encode(entries: list[Neighbour]) -> bytes:
    table = pa.table(
        {
            "neighbour_id": pa.array([e.alpha_id for e in entries], pa.string()),
            "neighbour_build": pa.array([e.build_id for e in entries], pa.string()),
            "whole": pa.array([e.whole for e in entries], pa.float64()),
            "days": pa.array([e.pairing.days.astype(np.int32) for e in entries], pa.list_(pa.int32())),
            "rho": pa.array([e.pairing.x for e in entries], pa.list_(pa.float64())),
            "names": pa.array([e.pairing.y.astype(np.int32) for e in entries], pa.list_(pa.int32())),
        },
        schema=SCORE_NEIGHBOURS,
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def new_path(alpha_id: str) -> str:
    """Where a new list of `alpha_id` is written, relative to the catalogue folder (never reused)."""
    return f"neighbours/{alpha_id}/{uuid.uuid4().hex}.parquet"


@dataclass
class Lists:
    """What a generation changes in the lists: the files to write (path -> bytes), the new path of
    each alpha whose list changed (None: the alpha has no decisions, so no list) and the paths no
    longer referenced."""

    files: dict[str, bytes]
    paths: dict[str, str | None]
    retired: list[str]


Resolve = Callable[[Collection[str]], list[tuple[str, str, str]]]
"""alphas -> (alpha, its build, its list's path) of those the index holds with a list."""


@dataclass
class _Known:
    """The rows a lists update knows: each alpha's position in `rows`, its build, its list's path
    before the update and whether it may be a candidate (`eligible`), grown as the lists it reads
    name alphas `rows` lacks (`resolve`, each asked once)."""

    rows: list[dict[str, Any]]
    before: dict[str, str | None]
    position: dict[str, int]
    builds: dict[str, str]
    eligible: np.ndarray
    resolve: Resolve | None
    asked: set[str] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        rows: list[dict[str, Any]],
        fresh: Mapping[str, pl.DataFrame | None],
        before: Mapping[str, str | None],
        resolve: Resolve | None,
    ) -> _Known:
        eligible = np.array(
            [
                fresh[a] is not None if a in fresh else before.get(a) is not None
                for a in (row["alpha_id"] for row in rows)
            ],
            dtype=bool,
        )
        return cls(
            list(rows),
            dict(before),
            {row["alpha_id"]: n for n, row in enumerate(rows)},
            {row["alpha_id"]: row["build_id"] for row in rows if row.get("build_id") is not None},
            eligible,
            resolve,
        )

    def learn(self, lists: Iterable[list[Neighbour]]) -> None:
        """The alphas named in `lists` that `rows` lacks, resolved (each asked once)."""
        unknown = {e.alpha_id for entries in lists for e in entries} - self.position.keys() - self.asked
        if self.resolve is None or not unknown:
            return
        self.asked.update(unknown)
        found = self.resolve(unknown)
        for alpha, build, path in found:
            self.position[alpha] = len(self.rows)
            self.rows.append({"alpha_id": alpha, "build_id": build})
            self.builds[alpha] = build
            self.before[alpha] = path
        self.eligible = np.concatenate([self.eligible, np.ones(len(found), dtype=bool)])


def _hop(
    alpha: str,
    found: list[Neighbour],
    fresh: Mapping[str, Any],
    changed: Mapping[str, list[Neighbour] | None],
    held_lists: Mapping[str, list[Neighbour]],
    known: _Known,
) -> list[str]:
    """The second hop of `alpha`'s pairing: the eligible alphas on the lists of its nearest
    HOP_FROM (not fresh) that it was not paired with."""
    near = [e for e in nearest(found, HOP_FROM) if e.alpha_id not in fresh]
    paired_ids = {alpha, *(e.alpha_id for e in found)}
    return sorted(
        {
            e.alpha_id
            for n in near
            for e in current(
                changed.get(n.alpha_id) or held_lists.get(known.before.get(n.alpha_id) or "", []),
                known.builds,
            )
            if e.alpha_id not in paired_ids and known.eligible[known.position[e.alpha_id]]
        }
    )


def _mirrored(
    alpha: str,
    found: list[Neighbour],
    fresh: Mapping[str, Any],
    changed: dict[str, list[Neighbour] | None],
    held_lists: Mapping[str, list[Neighbour]],
    known: _Known,
    neighbours: int,
) -> None:
    """Each paired alpha (not fresh) whose list `alpha` now enters gets its list changed."""
    for entry in found:
        if entry.alpha_id in fresh:
            continue  # a fresh alpha's list is made from its own candidates
        theirs = changed.get(entry.alpha_id)
        if theirs is None:
            held = known.before.get(entry.alpha_id)
            theirs = [] if held is None else held_lists[held]
        # Spearman and the common names are symmetric: the pairing reads the same both ways.
        mirror = Neighbour(alpha, known.builds[alpha], entry.whole, entry.pairing)
        following = admitted(theirs, mirror, known.builds, neighbours)
        if following is not None:
            changed[entry.alpha_id] = following


def update(
    rows: list[dict[str, Any]],
    matrices: Mapping[str, np.ndarray],
    fresh: Mapping[str, pl.DataFrame | None],
    before: Mapping[str, str | None],
    read_list: Callable[[str], list[Neighbour]],
    read_scores: ScoreReader,
    neighbours: int,
    candidate_count: int,
    chosen: Mapping[str, list[int]] | None = None,
    resolve: Resolve | None = None,
) -> Lists:
    """The lists after the alphas of `fresh` (alpha -> scores of its new build, None without
    decisions) were published. `rows`: the next index's rows (alpha_id, build_id), aligned with the
    matrices' rows; `before`: the path of each alpha's list in the previous index; `chosen`: each
    fresh alpha's `candidates` (positions in `rows`) where the caller chose them already (the
    matrices are then not read). With `resolve`, `rows` and `before` need hold only the fresh alphas
    and their chosen candidates: the other alphas the lists read name are resolved as they are met
    (their build and list; an alpha it does not return has no list in the index)."""
    known = _Known.of(rows, fresh, before, resolve)
    changed: dict[str, list[Neighbour] | None] = {
        alpha: None for alpha in known.before if alpha not in known.position
    }
    for alpha, scores in fresh.items():
        if alpha not in known.position:
            continue
        if scores is None:
            changed[alpha] = None
            continue
        picked = (
            chosen[alpha]
            if chosen is not None
            else candidates(matrices, known.position[alpha], known.eligible, candidate_count)
        )
        found = paired(
            scores, [(known.rows[n]["alpha_id"], known.rows[n]["build_id"]) for n in picked], read_scores
        )
        held_lists = _read_lists(found, fresh, changed, known.before, read_list)
        known.learn(
            [*held_lists.values(), *(changed[e.alpha_id] or [] for e in found if e.alpha_id in changed)]
        )
        hop = _hop(alpha, found, fresh, changed, held_lists, known)
        second = paired(scores, [(a, known.builds[a]) for a in hop], read_scores)
        held_lists.update(_read_lists(second, fresh, changed, known.before, read_list))
        known.learn(held_lists.values())
        found += second
        changed[alpha] = nearest(found, neighbours)
        _mirrored(alpha, found, fresh, changed, held_lists, known, neighbours)
    return written(changed, known.before)


def _read_lists(
    found: list[Neighbour],
    fresh: Mapping[str, Any],
    changed: Mapping[str, Any],
    before: Mapping[str, str | None],
    read_list: Callable[[str], list[Neighbour]],
) -> dict[str, list[Neighbour]]:
    """The stored lists (path -> entries) of the alphas of `found` this update has not rewritten."""
    unread = [e.alpha_id for e in found if e.alpha_id not in fresh and e.alpha_id not in changed]
    paths = [p for p in (before.get(a) for a in unread) if p is not None]
    with ThreadPoolExecutor(READERS) as pool:
        return dict(zip(paths, pool.map(read_list, paths), strict=True))


def written(changed: Mapping[str, list[Neighbour] | None], before: Mapping[str, str | None]) -> Lists:
    """The files and paths of the `changed` lists (alpha -> entries; None: no list), retiring the
    paths they held `before`."""
    lists = Lists({}, {}, [])
    for alpha, entries in changed.items():
        old = before.get(alpha)
        if old is not None:
            lists.retired.append(old)
        if entries is None:
            lists.paths[alpha] = None
            continue
        path = new_path(alpha)
        lists.files[path] = encode(entries)
        lists.paths[alpha] = path
    return lists


def pair_task(
    alpha: str, build: str, others: list[tuple[str, str]], read_scores: ScoreReader
) -> list[Neighbour]:
    """A whole rebuild's pairings of one alpha with the candidates it pairs (each pair once)."""
    scores = read_scores(alpha)
    return [] if scores is None else paired(scores, others, read_scores)


def candidate_block(
    matrices: Mapping[str, np.ndarray], block: list[int], eligible: np.ndarray, candidate_count: int
) -> list[list[int]]:
    """`candidates` of each row of `block`: a part of a rebuild's plan, as a task of its own (on
    Dask, one per block of rows: the plan's correlations are O(N^2) and partition by rows)."""
    return [candidates(matrices, row, eligible, candidate_count) for row in block]


Candidates = Callable[[Mapping[str, np.ndarray], list[int], np.ndarray, int], list[list[int]]]
"""(matrices, rows, eligible, count) -> each row's candidates, in the rows' order (`candidate_block`,
or Dask tasks running it on blocks of rows)."""


def plan(
    rows: list[dict[str, Any]],
    matrices: Mapping[str, np.ndarray],
    eligible: np.ndarray,
    candidate_count: int,
    candidates_of: Candidates = candidate_block,
) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """A whole rebuild's pairings: (alpha, build, the candidates it pairs) per eligible alpha, each
    unordered pair of an alpha and one of its candidates once."""
    seen: set[tuple[int, int]] = set()
    tasks = []
    chosen = [int(row) for row in np.flatnonzero(eligible)]
    for row, found in zip(chosen, candidates_of(matrices, chosen, eligible, candidate_count), strict=True):
        others = []
        for other in found:
            pair = (min(int(row), other), max(int(row), other))
            if pair not in seen:
                seen.add(pair)
                others.append((rows[other]["alpha_id"], rows[other]["build_id"]))
        tasks.append((rows[row]["alpha_id"], rows[row]["build_id"], others))
    return tasks


def second_hop(
    rows: list[dict[str, Any]], eligible: np.ndarray, found: Iterable[tuple[str, list[Neighbour]]]
) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """A whole rebuild's second pairing plan: for each alpha, the alphas on the first-pass lists of
    its nearest HOP_FROM that it was not paired with (each unordered pair once)."""
    builds = {row["alpha_id"]: row["build_id"] for row, ok in zip(rows, eligible, strict=True) if ok}
    every: dict[str, list[Neighbour]] = {alpha: [] for alpha in builds}
    for alpha, entries in found:
        for entry in entries:
            if alpha in every and entry.alpha_id in every:
                every[alpha].append(entry)
                every[entry.alpha_id].append(Neighbour(alpha, builds[alpha], entry.whole, entry.pairing))
    paired_pairs = {frozenset((a, e.alpha_id)) for a, entries in every.items() for e in entries}
    lists = {alpha: nearest(entries, NEIGHBOURS) for alpha, entries in every.items()}
    tasks = []
    for alpha, entries in lists.items():
        reached = {e.alpha_id for n in entries[:HOP_FROM] for e in lists[n.alpha_id]} - {alpha}
        others = []
        for other in sorted(reached):
            pair = frozenset((alpha, other))
            if pair not in paired_pairs:
                paired_pairs.add(pair)
                others.append((other, builds[other]))
        if others:
            tasks.append((alpha, builds[alpha], others))
    return tasks


def assembled(
    rows: list[dict[str, Any]],
    eligible: np.ndarray,
    found: Iterable[tuple[str, list[Neighbour]]],
    before: Mapping[str, str | None],
    neighbours: int,
) -> Lists:
    """A whole rebuild's lists from its pairings ((alpha, its neighbours) as `pair_task` returned
    them): each alpha of `rows` (those rebuilt) its nearest among every pairing it is part of,
    either side, between builds still current; the lists of `before` retired."""
    builds: dict[str, str] = {
        row["alpha_id"]: row["build_id"] for row in rows if row.get("build_id") is not None
    }
    every: dict[str, list[Neighbour]] = {
        row["alpha_id"]: [] for row, ok in zip(rows, eligible, strict=True) if ok
    }
    for alpha, entries in found:
        if alpha not in every:
            continue  # republished or removed since it was paired
        for entry in entries:
            if entry.alpha_id not in every or builds[entry.alpha_id] != entry.build_id:
                continue
            every[alpha].append(entry)
            every[entry.alpha_id].append(Neighbour(alpha, builds[alpha], entry.whole, entry.pairing))
    changed: dict[str, list[Neighbour] | None] = {alpha: None for alpha in (*before, *builds)}
    changed.update({alpha: nearest(entries, neighbours) for alpha, entries in every.items()})
    return written(changed, before)
