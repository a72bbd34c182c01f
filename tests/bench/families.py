"""The route families of the load benchmarks and their random paths, drawn from the lake itself.

The facts (rebalance weeks, rows per week, sessions, position rows per session) are read from
the alpha's current build with polars, as an analyst would (docs/lake.md), so every path names a
week, window and offset that exists, and a run draws each request from thousands of different
paths: nothing is answered twice from a cache, but by `week100first` (each week's first page, the
page a dashboard asks), which measures the answers kept by a worker (serve/answer_cache.py).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlencode

import polars as pl

from tests.support.build_tables import build_table


@dataclass(frozen=True)
class LakeFacts:
    alpha: str
    weeks: tuple[str, ...]  # rebalance dates with a cross-section, ascending
    week_rows: tuple[int, ...]  # decision rows of each week
    sessions: tuple[str, ...]  # sessions of the long_short book, ascending
    position_rows: tuple[int, ...]  # long_short position rows of each session
    peers: tuple[str, ...] = ()  # the lake's other alphas with a long_short ledger (sets, comparisons)

    @classmethod
    def read(cls, lake: str, alpha: str) -> LakeFacts:
        if "://" in lake:
            raise ValueError(f"the load benchmarks read a local lake; got {lake}")
        root = Path(lake) / "alphas" / alpha
        build = root / "builds" / json.loads((root / "_current.json").read_text())["build_id"]
        rows_per_week = (
            build_table(build, "decisions").group_by("date").agg(pl.len().alias("rows")).sort("date")
        )
        positions = build_table(build, "positions", "long_short")
        sessions = build_table(build, "portfolio", "long_short").select("date")
        per_session = positions.group_by("date").agg(pl.len().alias("rows"))
        per_session = sessions.join(per_session, on="date", how="left").fill_null(0).sort("date")
        peers = tuple(
            sorted(
                folder.name
                for folder in (Path(lake) / "alphas").iterdir()
                if folder.name != alpha and folder.name in PEERS
            )
        )
        return cls(
            alpha=alpha,
            weeks=tuple(str(d) for d in rows_per_week["date"]),
            week_rows=tuple(int(n) for n in rows_per_week["rows"]),
            sessions=tuple(str(d) for d in per_session["date"]),
            position_rows=tuple(int(n) for n in per_session["rows"]),
            peers=peers,
        )

    def for_alpha(self, alpha: str) -> LakeFacts:
        """The same facts under another id (the scale benchmark publishes one alpha N times)."""
        return replace(self, alpha=alpha)


def _path(path: str, **params: object) -> str:
    return f"{path}?{urlencode(params)}" if params else path


def _window(counts: tuple[int, ...], rng: random.Random, shortest: int, longest: int) -> tuple[int, int, int]:
    """A random run of consecutive items [first, last] and the rows it holds."""
    length = rng.randint(shortest, min(longest, len(counts)))
    first = rng.randrange(0, len(counts) - length + 1)
    last = first + length - 1
    return first, last, sum(counts[first : last + 1])


def week_page(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/rebalances/{rng.choice(f.weeks)}", limit=100, offset=rng.randint(0, 400)
    )


def first_week_page(f: LakeFacts, rng: random.Random) -> str:
    """A random week's first page of default fields: what a dashboard asks of each week, the page
    most asked (issue 49, item 2), and the one family whose paths repeat within a run."""
    return _path(f"/v1/alphas/{f.alpha}/rebalances/{rng.choice(f.weeks)}", limit=100)


def filtered_week_page(f: LakeFacts, rng: random.Random) -> str:
    book = rng.choice(("long_short", "long_only"))
    direction = rng.choice(("long", "short"))
    # Short names hold no long_only weight: any minimum would leave nothing to page.
    minimum = 0.0 if (book, direction) == ("long_only", "short") else rng.uniform(0, 0.005)
    return _path(
        f"/v1/alphas/{f.alpha}/rebalances/{rng.choice(f.weeks)}",
        sort=rng.choice(("score", "rank", "weight", "symbol")),
        order=rng.choice(("asc", "desc")),
        direction=direction,
        min_abs_weight=f"{minimum:.5f}",
        book=book,
        limit=100,
        offset=rng.randint(0, 40),
    )


def big_week_page(f: LakeFacts, rng: random.Random) -> str:
    return _path(f"/v1/alphas/{f.alpha}/rebalances/{rng.choice(f.weeks)}", limit=5000)


def scores_window(f: LakeFacts, rng: random.Random) -> str:
    # 10 to 26 weeks hold 5,000 to 13,000 rows, so every page is a full 5,000 rows.
    first, last, rows = _window(f.week_rows, rng, 10, 26)
    return _path(
        f"/v1/alphas/{f.alpha}/scores",
        **{"from": f.weeks[first], "to": f.weeks[last]},
        limit=5000,
        offset=rng.randint(0, max(0, rows - 5000)),
    )


def positions_window(f: LakeFacts, rng: random.Random) -> str:
    first, last, rows = _window(f.position_rows, rng, 2, 30)
    return _path(
        f"/v1/alphas/{f.alpha}/positions",
        book="long_short",
        **{"from": f.sessions[first], "to": f.sessions[last]},
        limit=100,
        offset=rng.randint(0, max(0, rows - 100)),
    )


def equity_window(f: LakeFacts, rng: random.Random) -> str:
    start, end = sorted(rng.sample(range(len(f.sessions)), 2))
    return _path(f"/v1/alphas/{f.alpha}/equity-curve", **{"from": f.sessions[start], "to": f.sessions[end]})


def metrics_window(f: LakeFacts, rng: random.Random) -> str:
    start, end = sorted(rng.sample(range(len(f.weeks)), 2))
    return _path(f"/v1/alphas/{f.alpha}/metrics", **{"from": f.weeks[start], "to": f.weeks[end]}, panel=1)


def _session_window(f: LakeFacts, rng: random.Random) -> dict[str, str]:
    start, end = sorted(rng.sample(range(len(f.sessions)), 2))
    return {"from": f.sessions[start], "to": f.sessions[end]}


def rolling_page(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/rolling",
        book=rng.choice(("long_short", "long_only")),
        window=rng.choice((13, 26, 52)),
        **_session_window(f, rng),
        limit=100,
    )


def drawdowns_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(f"/v1/alphas/{f.alpha}/analytics/drawdowns", **_session_window(f, rng), limit=100)


def costs_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/costs",
        book=rng.choice(("long_short", "long_only")),
        **_session_window(f, rng),
    )


def correlation_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/correlation",
        basis=rng.choice(("returns", "ic", "scores")),
        **_session_window(f, rng),
    )


def significance_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/significance",
        **_session_window(f, rng),
        sr_benchmark=f"{rng.uniform(0, 1):.3f}",
    )


PEERS = (
    "value_composite_legacy",
    "Test_planted_factor",
    "Test_short_term_reversal",
    "Test_low_vol_incomplete",
)
"""The demo lake's alphas with a long_short ledger over the same market as the full-size one."""


def _long_window(f: LakeFacts, rng: random.Random, shortest: int = 60) -> dict[str, str]:
    """A random window of at least `shortest` sessions (a combination needs 20 common ones)."""
    start = rng.randrange(0, len(f.sessions) - shortest)
    end = rng.randrange(start + shortest - 1, len(f.sessions))
    return {"from": f.sessions[start], "to": f.sessions[end]}


def risk_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/risk",
        book=rng.choice(("long_short", "long_only")),
        **_long_window(f, rng),
    )


def checks_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/checks",
        book=rng.choice(("long_short", "long_only")),
        **_long_window(f, rng),
    )


def compare_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(
        f"/v1/alphas/{f.alpha}/analytics/compare",
        **{"with": rng.choice(f.peers)},
        window=rng.choice(("21", "63")),
        **_long_window(f, rng),
    )


def combine_set(f: LakeFacts, rng: random.Random) -> str:
    members = [f.alpha, *rng.sample(f.peers, rng.randint(1, len(f.peers)))]
    return _path(
        "/v1/analytics/combine",
        alphas=",".join(members),
        weighting=rng.choice(("equal", "inverse_volatility", "max_ir")),
        **_long_window(f, rng),
        limit=100,
    )


def contribution_window(f: LakeFacts, rng: random.Random) -> str:
    return _path(f"/v1/alphas/{f.alpha}/analytics/contribution", **_long_window(f, rng))


def as_arrow(make: Callable[[LakeFacts, random.Random], str]) -> Callable[[LakeFacts, random.Random], str]:
    """The same random page asked for as an Arrow IPC stream (`format=arrow`)."""
    return lambda f, rng: f"{make(f, rng)}&format=arrow"


@dataclass(frozen=True)
class Family:
    key: str
    label: str
    target: float | None  # ratio to the floor
    keyed: bool
    make: Callable[[LakeFacts, random.Random], str]
    on_alpha: bool = True  # reads the alpha alone (the scale benchmark draws from these; not the sets)

    def paths(self, facts: LakeFacts, rng: random.Random, n: int) -> list[str]:
        return [self.make(facts, rng) for _ in range(n)]


FAMILIES: tuple[Family, ...] = (
    Family("week100", "random 100-row week page", 0.25, True, week_page),
    Family("week100first", "a random week's first 100-row page (repeats)", 0.25, True, first_week_page),
    Family("filtered", "filtered/sorted week page", 0.25, True, filtered_week_page),
    Family("week5000", "5,000-row week page", 0.04, True, big_week_page),
    Family("scores5000", "5,000-row `/scores` window", 0.03, True, scores_window),
    Family("scores5000arrow", "5,000-row `/scores` window, Arrow", None, True, as_arrow(scores_window)),
    Family("week100arrow", "random 100-row week page, Arrow", None, True, as_arrow(week_page)),
    Family("positions100", "100-row `/positions` window", 0.25, True, positions_window),
    Family("equity", "`/equity-curve` window", 0.2, True, equity_window),
    Family("metrics", "`/metrics` random window, `panel=1`", 0.1, True, metrics_window),
    Family("rolling", "`/analytics/rolling` 100-row page, random window", 0.25, True, rolling_page),
    Family("drawdowns", "`/analytics/drawdowns` random window", 0.25, True, drawdowns_window),
    Family("costs", "`/analytics/costs` random window", 0.1, True, costs_window),
    Family("correlation", "`/analytics/correlation` random basis and window", 0.1, True, correlation_window),
    Family("significance", "`/analytics/significance` random window", 0.1, True, significance_window),
    Family("risk", "`/analytics/risk` random book and window", None, True, risk_window),
    Family("checks", "`/analytics/checks` random book and window", None, True, checks_window),
    Family(
        "compare", "`/analytics/compare` random peer and window", None, True, compare_window, on_alpha=False
    ),
    Family(
        "combine",
        "`/analytics/combine` 2-5 alphas, random weighting and window",
        None,
        True,
        combine_set,
        on_alpha=False,
    ),
    Family(
        "contribution",
        "`/analytics/contribution` random window",
        None,
        True,
        contribution_window,
        on_alpha=False,
    ),
    Family("health", "`/v1/health` (no key)", 0.5, False, lambda f, r: "/v1/health", on_alpha=False),
    Family("me", "`/v1/me`", None, True, lambda f, r: "/v1/me", on_alpha=False),
)
BY_KEY = {f.key: f for f in FAMILIES}
