"""The GET requests of the read-path equality check: a pure function of the demo lake and a seed.

Valid values (alpha ids, rebalance dates, symbols, books, sessions) are read straight from the
lake's files (JSON pointers, and each build's rows of the open tables via polars,
`tests.support.build_tables`), never through the server code, so the list does not change when
the server's read path does. Every data endpoint and parameter family is
covered for every alpha and every test caller (`raw`, `plain`, `testonly`, `alphaonly`,
`metaonly`, see tests/api/conftest.py), with a few requests without a key or with an unknown one.

Left out: `/v1/health`, `/v1/me`, `/v1/me/keys` and the admin routes (they answer from time and
the key store, not the lake), and the successful `/source/download` answers (the URL is signed
with the current time; whether a deployment can sign depends on a key file relative to the
working directory). Its answers decided before any signing (403, 404, 400, `source_not_ready`)
are included.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

import polars as pl

from analytics.reading import SERVED
from schemas import choices
from tests.support.build_tables import build_table, has_table

SEED = 20_240_611

TOKENS = ("raw", "plain", "testonly", "alphaonly", "metaonly")
DATA_TOKENS = ("raw", "plain")  # the two full-access callers; raw_* fields differ between them
UNKNOWN_ALPHA = "no_such_alpha"
UNKNOWN_TEST_ALPHA = "Test_no_such_alpha"  # allowed to `testonly`, so its 404 is reachable

BOOK_KINDS = ("portfolio", "positions", "pnl", "trades")
BASE_BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")

# Registry id -> path pattern of every data endpoint (a frozen copy: the recording is compared
# against the registry in test_equality, so a drift in either is caught).
ENDPOINT_PATTERNS: dict[str, re.Pattern[str]] = {
    "catalog.alphas.list": re.compile(r"/v1/alphas"),
    "catalog.alphas.get": re.compile(r"/v1/alphas/[^/]+"),
    "catalog.alphas.source.download": re.compile(r"/v1/alphas/[^/]+/source/download"),
    "signals.rebalances.list": re.compile(r"/v1/alphas/[^/]+/rebalances"),
    "signals.rebalances.get": re.compile(r"/v1/alphas/[^/]+/rebalances/[^/]+"),
    "signals.scores": re.compile(r"/v1/alphas/[^/]+/scores"),
    "portfolio.books": re.compile(r"/v1/alphas/[^/]+/books"),
    "portfolio.ledger": re.compile(r"/v1/alphas/[^/]+/portfolio"),
    "portfolio.positions": re.compile(r"/v1/alphas/[^/]+/positions"),
    "portfolio.pnl": re.compile(r"/v1/alphas/[^/]+/pnl"),
    "portfolio.trades": re.compile(r"/v1/alphas/[^/]+/trades"),
    "portfolio.equity_curve": re.compile(r"/v1/alphas/[^/]+/equity-curve"),
    "performance.metrics": re.compile(r"/v1/alphas/[^/]+/metrics"),
    "performance.metrics.doc": re.compile(r"/v1/alphas/[^/]+/metrics/_doc"),
    "benchmarks.daily": re.compile(r"/v1/benchmarks/[^/]+/daily"),
    "analytics.significance": re.compile(r"/v1/alphas/[^/]+/analytics/significance"),
    "analytics.overfitting": re.compile(r"/v1/alphas/[^/]+/analytics/overfitting"),
    "analytics.correlation": re.compile(r"/v1/alphas/[^/]+/analytics/correlation"),
    "analytics.drawdowns": re.compile(r"/v1/alphas/[^/]+/analytics/drawdowns"),
    "analytics.rolling": re.compile(r"/v1/alphas/[^/]+/analytics/rolling"),
    "analytics.costs": re.compile(r"/v1/alphas/[^/]+/analytics/costs"),
    "analytics.uncertainty": re.compile(r"/v1/alphas/[^/]+/analytics/uncertainty"),
    "analytics.returns": re.compile(r"/v1/alphas/[^/]+/analytics/returns"),
    "analytics.doc": re.compile(r"/v1/alphas/[^/]+/analytics/_doc"),
    "analytics.combine": re.compile(r"/v1/analytics/combine"),
    "analytics.screen": re.compile(r"/v1/analytics/screen"),
    "analytics.contribution": re.compile(r"/v1/alphas/[^/]+/analytics/contribution"),
    "analytics.checks": re.compile(r"/v1/alphas/[^/]+/analytics/checks"),
    "analytics.promotion_preview": re.compile(r"/v1/alphas/[^/]+/analytics/promotion_preview"),
    "analytics.compare": re.compile(r"/v1/alphas/[^/]+/analytics/compare"),
    "analytics.risk": re.compile(r"/v1/alphas/[^/]+/analytics/risk"),
    "analytics.live": re.compile(r"/v1/alphas/[^/]+/analytics/live"),
    "analytics.decay": re.compile(r"/v1/alphas/[^/]+/analytics/decay"),
    "analytics.attribution": re.compile(r"/v1/alphas/[^/]+/analytics/attribution"),
    "analytics.capacity": re.compile(r"/v1/alphas/[^/]+/analytics/capacity"),
    "analytics.factors": re.compile(r"/v1/alphas/[^/]+/analytics/factors"),
    "analytics.quantiles": re.compile(r"/v1/alphas/[^/]+/analytics/quantiles"),
    "analytics.residual": re.compile(r"/v1/alphas/[^/]+/analytics/residual"),
    "analytics.regimes": re.compile(r"/v1/alphas/[^/]+/analytics/regimes"),
    "catalog.alphas.promotions": re.compile(r"/v1/alphas/[^/]+/promotions"),
    "analytics.mmc": re.compile(r"/v1/alphas/[^/]+/analytics/mmc"),
    "analytics.crowding": re.compile(r"/v1/analytics/crowding"),
    "analytics.approved_health": re.compile(r"/v1/analytics/approved_health"),
    "catalog.families.list": re.compile(r"/v1/families"),
    "catalog.alphas.restatements": re.compile(r"/v1/alphas/[^/]+/restatements"),
    "catalog.review": re.compile(r"/v1/review"),
}


HAND_WRITTEN = frozenset(
    {
        "significance",
        "overfitting",
        "correlation",
        "drawdowns",
        "rolling",
        "costs",
        "regimes",
        "uncertainty",
        "returns",
        "live",
        "decay",
        "attribution",
        "capacity",
        "factors",
        "quantiles",
        "residual",
        "risk",
        "mmc",
    }
)
"""The served answers the generators above ask, each with parameters of its own (written before
issue 58 derived the rest); it never grows: a new answer's requests are `served_answers`'."""

ENDPOINT_PATTERNS |= {
    served.endpoint: re.compile(rf"/v1/alphas/[^/]+/analytics/{name}")
    for name, served in SERVED.items()
    if served.endpoint not in ENDPOINT_PATTERNS
}


class Request(NamedTuple):
    token: str | None  # bearer token (a test caller name); None sends no Authorization header
    path: str  # path with its query string, sent as is


def endpoint_of(path: str) -> str | None:
    """The registry id whose path pattern the request path matches, or None (router answers)."""
    bare = path.split("?", 1)[0]
    for endpoint, pattern in ENDPOINT_PATTERNS.items():
        if pattern.fullmatch(bare):
            return endpoint
    return None


# -- the lake, read directly -----------------------------------------------------------------------


@dataclass
class AlphaFacts:
    alpha_id: str
    name: str
    tldr: str | None
    kinds: tuple[str, ...]
    books: dict[str, list[str]]  # kind -> books written
    source_status: str | None  # status in source.json; None when no record
    rebalances: list[date] = field(default_factory=list)
    week_status: dict[date, str] = field(default_factory=dict)
    week_symbols: dict[date, list[str]] = field(default_factory=dict)
    symbols: list[str] = field(default_factory=list)
    sessions: list[date] = field(default_factory=list)


@dataclass
class LakeFacts:
    alphas: list[AlphaFacts]
    benchmark_sessions: list[date]


def _table(build: Path, name: str) -> pl.DataFrame | None:
    """The build's rows of `name` from the lake's open tables (`build_table`, every book of a book
    table), None when it has none."""
    return build_table(build, name) if has_table(build, name) else None


def _current_build(folder: Path) -> Path:
    pointer = json.loads((folder / "_current.json").read_text(encoding="utf-8"))
    return folder / "builds" / str(pointer["build_id"])


def read_lake(lake: Path) -> LakeFacts:
    alphas = []
    for folder in sorted((lake / "alphas").iterdir()):
        if not (folder / "_current.json").exists():
            continue
        build = _current_build(folder)
        entry = json.loads((build / "alpha.json").read_text(encoding="utf-8"))
        source_file = build / "source.json"
        source = json.loads(source_file.read_text(encoding="utf-8")) if source_file.exists() else None
        facts = AlphaFacts(
            alpha_id=str(entry["alpha_id"]),
            name=str(entry.get("name") or entry["alpha_id"]),
            tldr=entry.get("tldr"),
            kinds=tuple(entry.get("kinds_present", ())),
            books={kind: sorted(books) for kind, books in (entry.get("books") or {}).items()},
            source_status=None if source is None else source.get("status"),
        )
        rebalances = _table(build, "rebalances")
        if rebalances is not None:
            facts.rebalances = sorted(rebalances["date"].to_list())
            facts.week_status = dict(
                zip(rebalances["date"].to_list(), rebalances["week_status"].to_list(), strict=True)
            )
        decisions = _table(build, "decisions")
        symbols: set[str] = set()
        sessions: set[date] = set()
        if decisions is not None:
            for (day,), group in decisions.group_by("date"):
                assert isinstance(day, date)
                facts.week_symbols[day] = sorted(group["symbol"].to_list())
            symbols.update(decisions["symbol"].to_list())
            sessions.update(decisions["date"].to_list())
        for kind in ("portfolio", "positions"):
            table = _table(build, kind)
            if table is not None:
                sessions.update(table["date"].to_list())
                if "symbol" in table.columns:
                    symbols.update(table["symbol"].to_list())
        facts.symbols = sorted(symbols)
        facts.sessions = sorted(sessions)
        alphas.append(facts)
    bench = pl.read_parquet(_current_build(lake / "benchmarks" / "SPY") / "daily.parquet")
    return LakeFacts(alphas=alphas, benchmark_sessions=sorted(bench["date"].to_list()))


# -- building requests -----------------------------------------------------------------------------

Param = tuple[str, str]


def query(params: list[Param] | None = None, raw: str | None = None) -> str:
    """`?name=value&...` with values percent-encoded (commas kept), plus an optional raw tail."""
    parts = [f"{quote(name, safe='')}={quote(value, safe=',')}" for name, value in params or []]
    if raw:
        parts.append(raw)
    return "?" + "&".join(parts) if parts else ""


class Generator:
    def __init__(self, facts: LakeFacts, seed: int) -> None:
        self.facts = facts
        self.seed = seed
        self.rng = random.Random(seed)
        self.requests: list[Request] = []

    # -- helpers --------------------------------------------------------------------------------

    def add(self, path: str, tokens: Sequence[str | None] = ("raw",)) -> None:
        for token in tokens:
            self.requests.append(Request(token, path))

    def data_tokens(self, alpha: str | None = None) -> list[str | None]:
        """raw always, plain mostly, and now and then a restricted caller."""
        tokens: list[str | None] = ["raw"]
        if self.rng.random() < 0.7:
            tokens.append("plain")
        if alpha is not None and alpha.startswith("Test_") and self.rng.random() < 0.25:
            tokens.append("testonly")
        roll = self.rng.random()
        if roll < 0.04:
            tokens.append("alphaonly")
        elif roll < 0.07:
            tokens.append("metaonly")
        elif roll < 0.09 and alpha is not None and not alpha.startswith("Test_"):
            tokens.append("testonly")
        return tokens

    def limit(self, low: int = 1, high: int = 25) -> Param:
        return ("limit", str(self.rng.randint(low, high)))

    def paging(self, total_hint: int, high: int = 25) -> list[Param]:
        params: list[Param] = []
        roll = self.rng.random()
        if roll < 0.85:
            params.append(self.limit(1, high))
        if self.rng.random() < 0.5:
            params.append(("offset", str(self.rng.randint(0, max(total_hint + 3, 1)))))
        elif self.rng.random() < 0.1:
            params.append(("offset", str(total_hint + self.rng.randint(0, 50))))
        self.rng.shuffle(params)
        return params

    def window(self, sessions: list[date], p_none: float = 0.2) -> list[Param]:
        """A random window: two sessions, a one-sided bound, off-calendar days, or none."""
        if not sessions or self.rng.random() < p_none:
            return []
        first, last = sessions[0], sessions[-1]
        roll = self.rng.random()
        if roll < 0.45:
            i, j = sorted(self.rng.sample(range(len(sessions)), 2)) if len(sessions) > 1 else (0, 0)
            return [("from", sessions[i].isoformat()), ("to", sessions[j].isoformat())]
        if roll < 0.6:
            day = self.rng.choice(sessions)
            return [("from", day.isoformat())]
        if roll < 0.72:
            day = self.rng.choice(sessions)
            return [("to", day.isoformat())]
        if roll < 0.82:  # calendar days that need not be sessions (weekends included)
            span = (last - first).days
            a = first + timedelta(days=self.rng.randint(0, span))
            b = a + timedelta(days=self.rng.randint(0, 60))
            return [("from", a.isoformat()), ("to", b.isoformat())]
        if roll < 0.88:
            day = self.rng.choice(sessions)
            return [("from", day.isoformat()), ("to", day.isoformat())]
        if roll < 0.94:  # reaching outside the data on one or both sides
            a = first - timedelta(days=self.rng.randint(1, 400))
            b = last + timedelta(days=self.rng.randint(1, 400))
            return [("from", a.isoformat()), ("to", b.isoformat())]
        # entirely outside the data
        a = last + timedelta(days=self.rng.randint(1, 30))
        return [("from", a.isoformat()), ("to", (a + timedelta(days=20)).isoformat())]

    def symbol_list(self, pool: list[str], low: int = 1, high: int = 6) -> str:
        if not pool:
            return "AAA"
        picked = self.rng.sample(pool, min(len(pool), self.rng.randint(low, high)))
        roll = self.rng.random()
        if roll < 0.15:
            picked = [s.lower() for s in picked]
        elif roll < 0.25:
            picked = [*picked, "ZZZZ9"]  # a well-formed ticker the lake does not hold
        elif roll < 0.3:
            picked = [*picked, picked[0]]  # a duplicate
        elif roll < 0.35:
            return " , ".join(picked)
        return ",".join(picked)

    def shuffled(self, params: list[Param]) -> list[Param]:
        params = list(params)
        self.rng.shuffle(params)
        return params

    # -- endpoint families --------------------------------------------------------------------------

    def catalogue(self) -> None:
        base = "/v1/alphas"
        for token in TOKENS:
            self.add(base, [token])
            self.add(base + query([("complete_only", "true")]), [token])
        terms: list[str] = ["", "test", "TEST", "momentum", "Momentum", "zzz-no-match", "_", "12-1", "rev"]
        for alpha in self.facts.alphas:
            terms.append(alpha.alpha_id)
            terms.append(alpha.name[: self.rng.randint(3, len(alpha.name))].upper())
            if alpha.tldr:
                start = self.rng.randint(0, max(len(alpha.tldr) - 8, 0))
                terms.append(alpha.tldr[start : start + self.rng.randint(4, 12)])
        for term in terms:
            self.add(base + query([("search", term)]), self.rng.sample(TOKENS[:4], 2))
        self.add(base + query([("search", "x" * 200)]), ["raw"])
        self.add(base + query([("search", "x" * 201)]), ["raw"])
        for value in ("true", "false", "1", "0", "yes", "no", "TRUE", " No ", "maybe", ""):
            self.add(base + query([("complete_only", value)]), ["raw", "testonly"])
        n = len(self.facts.alphas)
        for _ in range(30):
            params = self.paging(n, high=8)
            if self.rng.random() < 0.3:
                params.append(("complete_only", self.rng.choice(["true", "false"])))
            if self.rng.random() < 0.3:
                params.append(("search", self.rng.choice(terms)))
            self.add(base + query(self.shuffled(params)), [self.rng.choice(TOKENS[:4])])
        self.common_errors(base, paged=True, tokens=("raw",))

    def descriptions(self) -> None:
        for alpha in self.facts.alphas:
            path = f"/v1/alphas/{alpha.alpha_id}"
            self.add(path, TOKENS)
            self.add(path + query([("limit", "5")]), ["raw"])  # no parameters accepted
        for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
            self.add(f"/v1/alphas/{missing}", TOKENS)

    def source_downloads(self) -> None:
        for alpha in self.facts.alphas:
            path = f"/v1/alphas/{alpha.alpha_id}/source/download"
            # Decided before any signing: callers refused, unknown parameters, archives not ready.
            self.add(
                path, ["alphaonly", "metaonly"] + ([] if alpha.alpha_id.startswith("Test_") else ["testonly"])
            )
            self.add(path + query([("foo", "1")]), ["raw", "plain"])
            if alpha.source_status != "ready":
                self.add(
                    path, ["raw", "plain"] + (["testonly"] if alpha.alpha_id.startswith("Test_") else [])
                )
        for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
            self.add(f"/v1/alphas/{missing}/source/download", TOKENS)

    def rebalance_index(self, alpha: AlphaFacts) -> None:
        path = f"/v1/alphas/{alpha.alpha_id}/rebalances"
        self.add(path, ["raw", "plain", "testonly", "alphaonly", "metaonly"])
        self.add(path + query([("limit", "5000")]), ["raw"])
        dates = alpha.rebalances or alpha.sessions
        for _ in range(10):
            params = self.window(dates) + self.paging(len(alpha.rebalances), high=30)
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))

    def rebalance_weeks(self, alpha: AlphaFacts) -> None:
        """`/rebalances/{date}` of one alpha: its weeks, misses and defaults."""
        base = f"/v1/alphas/{alpha.alpha_id}/rebalances/"
        rng = self.rng
        dates = alpha.rebalances
        if not dates:
            # A run without a rebalance index: every date is 404 with all four neighbours null.
            some = alpha.sessions[:: max(len(alpha.sessions) // 4, 1)] or [date(2021, 1, 8)]
            for day in some:
                self.add(base + day.isoformat(), ["raw", "plain"])
            self.add(base + "2021-01-08" + query([("sort", "rank")]), ["raw", "testonly", "alphaonly"])
            self.add(base + "not-a-date", ["raw"])
            return
        # Every week that is not plainly traded (pending and skip reasons), and a sample of the rest.
        special = [day for day in dates if alpha.week_status.get(day) != "traded"]
        traded = [day for day in dates if alpha.week_status.get(day) == "traded"]
        for day in sorted(special + rng.sample(traded, min(len(traded), 14))):
            params = [("limit", str(rng.randint(1, 8)))]
            if rng.random() < 0.3:
                params.append(("offset", str(rng.randint(0, 40))))
            self.add(base + day.isoformat() + query(params), [rng.choice(DATA_TOKENS)])
        week = rng.choice(dates)
        self.add(base + week.isoformat() + query([("limit", "10")]), TOKENS)
        self.add(base + week.isoformat(), ["raw"])  # default limit 100: the whole week
        self.add(base + rng.choice(dates).isoformat() + query([("limit", "5000")]), ["plain"])
        # Dates that are not rebalances (404 with neighbours) and paths that are not dates (400).
        first, last = dates[0], dates[-1]
        misses = [first - timedelta(days=1), last + timedelta(days=1), date(1990, 1, 1)]
        for _ in range(3):
            i = rng.randint(0, len(dates) - 2)
            gap = (dates[i + 1] - dates[i]).days
            if gap > 1:
                misses.append(dates[i] + timedelta(days=rng.randint(1, gap - 1)))
        for day in misses:
            self.add(base + day.isoformat(), [rng.choice(DATA_TOKENS)])
        self.add(base + misses[-1].isoformat() + query([("sort", "rank"), ("limit", "3")]), ["raw"])
        self.add(base + rng.choice(["2021-02-30", "20210108", "2021-1-8", "latest"]), ["raw"])

    def rebalance_sweeps(self) -> None:
        """`/rebalances/{date}` parameter families, each value on a randomly chosen alpha and week."""
        rng = self.rng
        alphas = [a for a in self.facts.alphas if a.rebalances]

        def pick() -> tuple[AlphaFacts, date, str]:
            alpha = rng.choice(alphas)
            day = rng.choice(alpha.rebalances)
            return alpha, day, f"/v1/alphas/{alpha.alpha_id}/rebalances/{day.isoformat()}"

        def books() -> list[Param]:
            return [("book", rng.choice(["long_short", "long_only"]))] if rng.random() < 0.5 else []

        # Every sort x order (none, asc, desc) x book, on two alphas each.
        for sort in ("score", "rank", "weight", "symbol", None):
            for order in (None, "asc", "desc"):
                for book in ("long_short", "long_only"):
                    for _ in range(2):
                        alpha, _day, path = pick()
                        params = [("limit", str(rng.randint(3, 20)))]
                        if sort is not None:
                            params.append(("sort", sort))
                        if order is not None:
                            params.append(("order", order))
                        if book != "long_short" or rng.random() < 0.5:
                            params.append(("book", book))
                        if rng.random() < 0.25:
                            params.append(("offset", str(rng.randint(0, 30))))
                        self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        for sort, order in (("RANK", "DESC"), ("Weight", "Asc"), (" symbol ", "desc"), ("score", " ASC ")):
            self.add(pick()[2] + query([("sort", sort), ("order", order), self.limit()]), ["raw"])
        for bad_sort, bad_order in (("price", None), (None, "up"), ("", None), ("rank", "")):
            params = [("sort", bad_sort)] if bad_sort is not None else []
            params += [("order", bad_order)] if bad_order is not None else []
            self.add(pick()[2] + query(params), ["raw"])
        # Directions: every accepted value, case variants, synonyms and refused ones.
        accepted = ["1", "long", "-1", "short", "0", "flat", "neutral"]
        variants = ["LONG", "Short", "NEUTRAL", "Flat", " long ", "+1"]
        for value in accepted + accepted + variants:
            alpha, _day, path = pick()
            params = [("direction", value), self.limit(1, 30), *books()]
            if rng.random() < 0.3:
                params.append(("sort", rng.choice(["score", "rank", "weight", "symbol"])))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        for value in ("up", "2", "", "buy"):
            self.add(pick()[2] + query([("direction", value)]), ["raw"])
        # min_abs_weight on either book column, valid and refused spellings.
        weights = ["0", "0.001", "0.01", "0.02", "0.03", "0.05", "5e-2", "0.1", "0.25", "1", " 0.04 ", ".02"]
        for value in weights:
            alpha, _day, path = pick()
            params = [
                ("min_abs_weight", value),
                self.limit(1, 30),
                ("book", rng.choice(["long_short", "long_only"])),
            ]
            if rng.random() < 0.4:
                params.append(("sort", "weight"))
            if rng.random() < 0.3:
                params.append(("direction", rng.choice(["long", "short"])))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        for value in ("nan", "inf", "-1", "-0.01", "1_0", "0x1", "abc", "", "1e999"):
            self.add(pick()[2] + query([("min_abs_weight", value)]), ["raw"])
        for value in ("LONG_ONLY", "Long_Short", "raw_long_short", "long_short_adjustments", "", "both"):
            self.add(pick()[2] + query([("book", value), self.limit()]), [rng.choice(DATA_TOKENS)])
        # Symbol lists from the week itself (some lower-cased, with unknown names or duplicates).
        for _ in range(14):
            alpha, day, path = pick()
            pool = alpha.week_symbols.get(day, alpha.symbols)
            params = [("symbol", self.symbol_list(pool, 1, 8)), self.limit(1, 30)]
            if rng.random() < 0.4:
                params.append(("sort", rng.choice(["score", "rank", "weight", "symbol"])))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        for value in ("ß", "a b", "", ",", "TOO_LONG_TICKER_NAME_ABCDEFGH", "$ABC"):
            self.add(pick()[2] + query([("symbol", value)]), ["raw"])
        # Page sizes 1..5000 and offsets past the end.
        for limit in ("1", "2", "5", "17", "50", "100", "5000", "5000"):
            self.add(pick()[2] + query([("limit", limit)]), [rng.choice(DATA_TOKENS)])
        for offset in ("61", "200", "1000000000"):
            self.add(pick()[2] + query([("offset", offset), self.limit()]), ["raw"])
        # Mixed parameters.
        for _ in range(24):
            alpha, day, path = pick()
            params = [self.limit(1, 40)]
            options: list[Param] = [
                ("sort", rng.choice(["score", "rank", "weight", "symbol"])),
                ("order", rng.choice(["asc", "desc"])),
                ("direction", rng.choice(accepted)),
                ("min_abs_weight", rng.choice(weights[:6])),
                ("book", rng.choice(["long_short", "long_only"])),
                ("symbol", self.symbol_list(alpha.week_symbols.get(day, alpha.symbols), 3, 20)),
                ("offset", str(rng.randint(0, 10))),
            ]
            params += rng.sample(options, rng.randint(2, 5))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        self.add(
            pick()[2].rsplit("/", 1)[0] + "/2021-02-30" + query([("limit", "0"), ("sort", "x")]), ["raw"]
        )

    def scores(self, alpha: AlphaFacts) -> None:
        path = f"/v1/alphas/{alpha.alpha_id}/scores"
        rng = self.rng
        dates = alpha.rebalances or alpha.sessions
        self.add(path + query([("limit", "20")]), TOKENS)
        for fields in rng.sample([None, "core", "all", "ALL", " Core "], 3):
            params = [self.limit(1, 30)] + ([("fields", fields)] if fields is not None else [])
            params += self.window(dates, p_none=0.5)
            self.add(path + query(self.shuffled(params)), ["raw", "plain"])
        for _ in range(10):
            params = self.window(dates) + self.paging(len(alpha.symbols) * 10, high=30)
            if rng.random() < 0.6:
                params.append(("fields", rng.choice(["core", "all"])))
            if rng.random() < 0.5:
                params.append(("symbol", self.symbol_list(alpha.symbols, 1, 5)))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        # limit=5000 over a narrowed panel (one or two names, or a short window).
        if alpha.symbols:
            names = ",".join(rng.sample(alpha.symbols, min(2, len(alpha.symbols))))
            self.add(
                path + query([("symbol", names), ("limit", "5000"), ("fields", "all")]), ["raw", "plain"]
            )
        if dates:
            i = rng.randint(0, max(len(dates) - 3, 0))
            window = [("from", dates[i].isoformat()), ("to", dates[min(i + 2, len(dates) - 1)].isoformat())]
            self.add(path + query([*window, ("limit", "5000")]), ["raw"])

    def books(self, alpha: AlphaFacts) -> None:
        path = f"/v1/alphas/{alpha.alpha_id}/books"
        self.add(path, TOKENS)
        for _ in range(4):
            self.add(path + query(self.paging(24, high=10)), ["raw", "plain"])
        self.add(path + query([("limit", "5000")]), ["raw"])

    def book_choices(self, alpha: AlphaFacts, kind: str) -> list[str]:
        written = alpha.books.get(kind) or []
        return sorted(set(written) | set(BASE_BOOKS))

    def ledger_family(self, alpha: AlphaFacts, kind: str, endpoint: str) -> None:
        """`/portfolio`, `/positions`, `/pnl`, `/trades` of one alpha."""
        path = f"/v1/alphas/{alpha.alpha_id}/{endpoint}"
        rng = self.rng
        with_symbol = kind != "portfolio"
        required = kind == "trades"
        books = self.book_choices(alpha, kind)
        if kind == "trades":
            books = sorted(
                set(books) | {f"{b}_{v}" for b in BASE_BOOKS for v in ("adjustments", "settlements")}
            )
        default: list[Param] = [("book", "long_short")] if required else []
        self.add(path + query([*default, ("limit", "10")]), TOKENS)
        # Every book, each with a random window; a raw_ book is unknown_book for `plain`.
        for book in books:
            params = [("book", book), *self.window(alpha.sessions), *self.paging(200, high=15)]
            self.add(path + query(self.shuffled(params)), ["raw"])
        raw_book = rng.choice([b for b in books if b.startswith("raw_")])
        self.add(path + query([("book", raw_book), ("limit", "3")]), ["plain"])
        bad = ["nope", "LONG_SHORT", "", "long_short_adjustments" if kind != "trades" else "long_short_x"]
        for book in rng.sample(bad, 2):
            self.add(path + query([("book", book), ("limit", "3")]), [rng.choice(DATA_TOKENS)])
        if required:
            self.add(path, ["raw", "plain"])  # book is required: 400 with the available list
        else:
            self.add(path, ["raw"])  # default limit 100, default book
        for _ in range(7):
            params = self.window(alpha.sessions) + self.paging(200 if kind == "portfolio" else 2000, high=25)
            if required or rng.random() < 0.6:
                params.append(
                    ("book", rng.choice([b for b in books if not b.startswith("raw_")] or ["long_short"]))
                )
            if with_symbol and rng.random() < 0.5:
                params.append(("symbol", self.symbol_list(alpha.symbols, 1, 4)))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        if with_symbol and alpha.symbols:
            names = rng.choice(alpha.symbols)
            self.add(path + query([*default, ("symbol", names), ("limit", "5000")]), ["raw"])

    def equity_curve(self, alpha: AlphaFacts) -> None:
        path = f"/v1/alphas/{alpha.alpha_id}/equity-curve"
        rng = self.rng
        self.add(path, TOKENS)  # default limit 500: the whole curve
        for book in self.book_choices(alpha, "portfolio"):
            params = [("book", book), *self.window(alpha.sessions), self.limit(1, 15)]
            self.add(path + query(self.shuffled(params)), ["raw"])
        self.add(path + query([("book", rng.choice(["raw_long_short", "raw_long_only"]))]), ["plain"])
        for _ in range(8):
            params = self.window(alpha.sessions, p_none=0.1) + self.paging(300, high=20)
            if rng.random() < 0.5:
                params.append(("book", rng.choice(["long_short", "long_only"])))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        # A whole window at the default limit (the summary covers the window).
        self.add(path + query(self.window(alpha.sessions, p_none=0.0)), [rng.choice(DATA_TOKENS)])

    def metrics(self, alpha: AlphaFacts) -> None:
        path = f"/v1/alphas/{alpha.alpha_id}/metrics"
        rng = self.rng
        self.add(path, TOKENS)
        for granularity in (None, "overall", "yearly", "monthly"):
            for doc in (None, "1"):
                for panel in (None, "0", "1"):
                    params: list[Param] = []
                    if granularity is not None:
                        params.append(("granularity", granularity))
                    if doc is not None:
                        params.append(("doc", doc))
                    if panel is not None:
                        params.append(("panel", panel))
                    if rng.random() < 0.5:
                        params += self.window(alpha.sessions, p_none=0.0)
                    self.add(path + query(self.shuffled(params)), [rng.choice(DATA_TOKENS)])
        for _ in range(5):
            params = self.window(alpha.sessions, p_none=0.0)
            params.append(("granularity", rng.choice(["overall", "yearly", "monthly"])))
            if rng.random() < 0.4:
                params.append(("panel", rng.choice(["true", "1", "no"])))
            self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))

    def alpha_sweeps(self) -> None:
        """Failures of the alpha-scoped families, each on a randomly chosen alpha."""
        rng = self.rng
        alphas = self.facts.alphas

        def path(suffix: str) -> str:
            return f"/v1/alphas/{rng.choice(alphas).alpha_id}/{suffix}"

        for value in ("everything", "", "core,all"):
            self.add(path("scores") + query([("fields", value)]), ["raw"])
        self.add(path("scores") + query([("symbol", "ß")]), ["raw"])
        for endpoint in ("portfolio", "positions", "pnl", "trades"):
            # unknown_book comes after every other parameter problem.
            self.add(path(endpoint) + query([("book", "nope"), ("limit", "0")]), ["raw"])
        self.add(path("trades") + query([("limit", "0")]), ["raw", "testonly"])
        self.add(path("portfolio") + query([("symbol", "AAA")]), ["raw"])  # refused on /portfolio
        self.add(path("portfolio") + query([("symbol", "AAA"), ("book", "nope")]), ["raw"])
        self.add(path("equity-curve") + query([("symbol", "AAA")]), ["raw"])
        for book in ("nope", "long_short_adjustments", "LONG_ONLY"):
            self.add(path("equity-curve") + query([("book", book)]), [rng.choice(DATA_TOKENS)])
        for params in (
            [("granularity", "Monthly")],
            [("granularity", "weekly")],
            [("doc", "maybe")],
            [("panel", "2")],
            [("doc", "yes"), ("panel", "TRUE")],
            [("doc", "false"), ("granularity", "YEARLY")],
            [("limit", "10")],
        ):
            self.add(path("metrics") + query(params), ["raw"])
        # The shared parameter failures, on two alphas per family.
        families = {
            "rebalances": True,
            "scores": True,
            "books": False,
            "portfolio": True,
            "positions": True,
            "pnl": True,
            "trades": True,
            "equity-curve": True,
            "metrics": True,
        }
        for suffix, windowed in families.items():
            extra: list[Param] = [("book", "long_short")] if suffix == "trades" else []
            for alpha in rng.sample(alphas, 2):
                self.common_errors(
                    f"/v1/alphas/{alpha.alpha_id}/{suffix}",
                    paged=suffix != "metrics",
                    windowed=windowed,
                    tokens=(rng.choice(DATA_TOKENS),),
                    extra=extra,
                )
        alpha = rng.choice([a for a in alphas if a.rebalances])
        self.common_errors(
            f"/v1/alphas/{alpha.alpha_id}/rebalances/{rng.choice(alpha.rebalances).isoformat()}", paged=True
        )

    def metrics_doc(self, alpha: AlphaFacts) -> None:
        path = f"/v1/alphas/{alpha.alpha_id}/metrics/_doc"
        self.add(path, TOKENS)
        self.add(path + query([("doc", "1")]), ["raw"])

    def benchmarks(self) -> None:
        path = "/v1/benchmarks/SPY/daily"
        sessions = self.facts.benchmark_sessions
        self.add(path, TOKENS)
        self.add(path, [None, "bogus"])
        for _ in range(40):
            params = self.window(sessions, p_none=0.1) + self.paging(len(sessions), high=40)
            self.add(
                path + query(self.shuffled(params)),
                [self.rng.choice(("raw", "plain", "testonly", "alphaonly"))],
            )
        self.add(path + query([("limit", "5000")]), ["plain"])
        for _ in range(3):
            self.add(path + query(self.window(sessions, p_none=0.0)), ["raw"])  # default limit 500
        for symbol in ("spy", "QQQ", "SPY.X", "%20SPY"):
            self.add(f"/v1/benchmarks/{symbol}/daily", ["raw"])
        self.add("/v1/benchmarks/QQQ/daily" + query([("limit", "0"), ("from", "x")]), ["raw"])
        self.common_errors(path, paged=True, windowed=True, tokens=("plain",))

    def common_errors(
        self,
        path: str,
        paged: bool,
        windowed: bool = False,
        tokens: tuple[str, ...] = ("raw",),
        extra: list[Param] | None = None,
    ) -> None:
        """Parameter failures every endpoint shares: limits, offsets, dates, unknown names."""
        rng = self.rng
        extra = extra or []
        cases: list[list[Param] | str] = [[("foo", "1")], [("api_key", "abc")], [("Limit", "5")]]
        if paged:
            cases += [
                [("limit", rng.choice(["0", "5001", "-1", "abc", "1.5", "١", "99999999999999999999", ""]))],
                [("offset", rng.choice(["-1", "1000000001", "x"]))],
                [("limit", "3"), ("limit", "4")],
                "limit=+5",
            ]
        if windowed:
            cases += [
                [("from", rng.choice(["2021-02-30", "2021-1-1", "yesterday", "２０２１-01-01"]))],
                [("to", "2021-13-01")],
                [("from", "2022-01-01"), ("to", "2021-01-01")],
                [("from", "2022-01-01"), ("to", "2021-01-01"), ("limit", "0"), ("bar", "")],
            ]
        for case in cases:
            if isinstance(case, str):
                self.add(path + query(extra, raw=case), list(tokens))
            else:
                self.add(path + query([*extra, *case]), list(tokens))

    def access(self) -> None:
        """Run-scoped endpoints for the restricted callers and for alphas that do not exist."""
        suffixes = [
            "/rebalances",
            "/rebalances/2021-01-08",
            "/scores",
            "/books",
            "/portfolio",
            "/positions",
            "/pnl",
            "/trades?book=long_short",
            "/equity-curve",
            "/metrics",
            "/metrics/_doc",
        ]
        for suffix in suffixes:
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}{suffix}", TOKENS)
            self.add(f"/v1/alphas/{UNKNOWN_ALPHA}{suffix}", [None, "bogus"])
        # Router answers (before any key is read).
        for path in (
            "/v1/alphas/",
            "/v1/alphas/momentum_12_1/",
            "/v1//alphas",
            "/v1/alphas/momentum_12_1/nope",
        ):
            self.add(path, ["raw"])

    def analytics(self, alpha: AlphaFacts) -> None:
        rng = self.rng
        base = f"/v1/alphas/{alpha.alpha_id}/analytics"
        self.add(f"{base}/_doc", [rng.choice(DATA_TOKENS)])
        self.add(f"{base}/significance", TOKENS)
        for _ in range(3):
            params = self.window(alpha.sessions, p_none=0.0)
            if rng.random() < 0.5:
                params.append(("sr_benchmark", f"{rng.uniform(-0.5, 1.5):.2f}"))
            if rng.random() < 0.4:
                params.append(("trials", str(rng.randint(2, 500))))
            self.add(f"{base}/significance" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        for basis in (None, "returns", "ic", "scores"):
            params = [("basis", basis)] if basis is not None else []
            if rng.random() < 0.5:
                params += self.window(alpha.sessions, p_none=0.0)
            params += self.paging(6, high=4)
            self.add(f"{base}/correlation" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        for book in self.book_choices(alpha, "portfolio"):
            for suffix in ("drawdowns", "costs"):
                params = [("book", book), *self.window(alpha.sessions)]
                if suffix == "drawdowns":
                    params += self.paging(10, high=6)
                self.add(f"{base}/{suffix}" + query(self.shuffled(params)), ["raw"])
            for window in ("13", "26", "52"):
                params = [("book", book), ("window", window), *self.window(alpha.sessions), *self.paging(40)]
                self.add(f"{base}/rolling" + query(self.shuffled(params)), ["raw"])
        for suffix in ("drawdowns", "rolling", "costs"):
            self.add(f"{base}/{suffix}", self.data_tokens(alpha.alpha_id))

    def analytics_sweeps(self) -> None:
        rng = self.rng
        alphas = self.facts.alphas

        def path(suffix: str) -> str:
            return f"/v1/alphas/{rng.choice(alphas).alpha_id}/analytics/{suffix}"

        for suffix, params in (
            ("rolling", [("window", "14")]),
            ("rolling", [("window", "52"), ("book", "nope")]),
            ("correlation", [("basis", "prices")]),
            ("significance", [("trials", "1")]),
            ("significance", [("sr_benchmark", "abc")]),
            ("significance", [("limit", "5")]),
            ("costs", [("book", "raw_long_short")]),
            ("costs", [("offset", "1")]),
            ("drawdowns", [("book", "long_short_adjustments")]),
            ("_doc", [("x", "1")]),
        ):
            self.add(path(suffix) + query(params), ["raw", "plain"])
        for suffix, paged in (
            ("significance", False),
            ("correlation", True),
            ("drawdowns", True),
            ("rolling", True),
            ("costs", False),
        ):
            self.common_errors(path(suffix), paged=paged, windowed=True, tokens=(rng.choice(DATA_TOKENS),))
        for suffix in ("significance", "correlation", "drawdowns", "rolling", "costs", "_doc"):
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/{suffix}", TOKENS)

    def decisions(self, alpha: AlphaFacts) -> None:
        """Issue 24's routes over one alpha: risk, checks and compare per book, a contribution and a
        combination with random others, over random windows."""
        rng = self.rng
        base = f"/v1/alphas/{alpha.alpha_id}/analytics"
        others = [a.alpha_id for a in self.facts.alphas if a.alpha_id != alpha.alpha_id]
        for book in ("long_short", "long_only", "raw_long_short"):
            for suffix in ("risk", "checks"):
                params = [("book", book), *self.window(alpha.sessions)]
                self.add(f"{base}/{suffix}" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
            params = [
                ("book", book),
                ("with", rng.choice(others)),
                ("window", rng.choice(("21", "63"))),
                *self.window(alpha.sessions),
            ]
            self.add(f"{base}/compare" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        params = self.window(alpha.sessions, p_none=0.5)
        if rng.random() < 0.5:
            params.append(("reference", ",".join(rng.sample(others, rng.randint(1, 3)))))
        if rng.random() < 0.4:
            params.append(("weight", f"{rng.uniform(0.05, 0.6):.2f}"))
        self.add(f"{base}/contribution" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        members = [alpha.alpha_id, *rng.sample(others, rng.randint(1, 3))]
        weighting = rng.choice(("equal", "given", "inverse_volatility", "max_ir"))
        params = [
            ("alphas", ",".join(members)),
            ("weighting", weighting),
            *self.window(alpha.sessions, p_none=0.5),
        ]
        if weighting == "given":
            params.append(("weights", ",".join(f"{rng.uniform(-0.5, 1):.2f}" for _ in members)))
        params += self.paging(300, high=40)
        self.add("/v1/analytics/combine" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))

    def decision_sweeps(self) -> None:
        """Bad input on issue 24's routes: each answer names the parameter and the rule."""
        first, second = (a.alpha_id for a in self.facts.alphas[:2])
        for path in (
            f"/v1/alphas/{first}/analytics/compare",
            f"/v1/alphas/{first}/analytics/compare?with={first}",
            f"/v1/alphas/{first}/analytics/compare?with={UNKNOWN_ALPHA}",
            f"/v1/alphas/{first}/analytics/compare?with={second}&window=30",
            f"/v1/alphas/{first}/analytics/checks?min_information_ratio=-5",
            f"/v1/alphas/{first}/analytics/checks?min_turnover=0.5&max_turnover=0.1",
            f"/v1/alphas/{first}/analytics/risk?book=nope",
            f"/v1/alphas/{first}/analytics/contribution?weight=2",
            f"/v1/alphas/{first}/analytics/contribution?reference={UNKNOWN_ALPHA}",
            "/v1/analytics/combine",
            f"/v1/analytics/combine?alphas={first}",
            f"/v1/analytics/combine?alphas={first},{first}",
            f"/v1/analytics/combine?alphas={first},{second}&weighting=given",
            f"/v1/analytics/combine?alphas={first},{second}&weighting=given&weights=1",
            f"/v1/analytics/combine?alphas={first},{second}&shrinkage=0.5",
            f"/v1/analytics/combine?alphas={first},{second}&book=long_only",
            f"/v1/analytics/combine?alphas={first},{UNKNOWN_ALPHA}",
            f"/v1/analytics/combine?alphas={first},{second}&from=2021-01-04&to=2021-01-08",
        ):
            self.add(path, ["raw", "testonly"])
        for suffix in ("risk", "checks", "contribution", f"compare?with={first}"):
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/{suffix}", TOKENS)

    def generate(self) -> list[Request]:
        self.catalogue()
        self.descriptions()
        self.source_downloads()
        for alpha in self.facts.alphas:
            self.rebalance_index(alpha)
            self.rebalance_weeks(alpha)
            self.scores(alpha)
            self.books(alpha)
            for kind, endpoint in zip(BOOK_KINDS, ("portfolio", "positions", "pnl", "trades"), strict=True):
                self.ledger_family(alpha, kind, endpoint)
            self.equity_curve(alpha)
            self.metrics(alpha)
            self.metrics_doc(alpha)
        self.rebalance_sweeps()
        self.alpha_sweeps()
        self.benchmarks()
        self.access()
        # Added with the analytics routes, last, so every request before keeps its draw of the RNG.
        for alpha in self.facts.alphas:
            self.analytics(alpha)
        self.analytics_sweeps()
        # Added with issue 24's routes, last, likewise.
        for alpha in self.facts.alphas:
            self.decisions(alpha)
        self.decision_sweeps()
        # Added with issue 35's routes, last, likewise.
        for alpha in self.facts.alphas:
            self.live(alpha)
        # Added with issue 36's attribution route, last, likewise.
        for alpha in self.facts.alphas:
            self.attribution(alpha)
        # Issue 36's capacity, last, with a generator of its own: the other routes issue 36 adds
        # keep their draws whichever is merged first.
        self.capacity()
        # Added with issue 36's factor attribution, last, likewise.
        for alpha in self.facts.alphas:
            self.factors(alpha)
        # Issue 36's quantile returns, last, with a generator of its own (as capacity).
        self.quantiles()
        # Added with issue 36's residual against the catalogue, last, likewise.
        for alpha in self.facts.alphas:
            self.residual(alpha)
        # Issue 47's promotion preview, last, with a generator of its own (as capacity).
        self.promotion_preview()
        # Issue 46's calendar returns and trailing beta, last, with a generator of its own (as capacity).
        self.calendar_returns()
        # Issue 49's weeks' first pages as the pipeline writes them, last, with a generator of its own.
        self.first_pages()
        # Issue 50's regimes of SPY, last, with a generator of its own (as capacity).
        self.regimes()
        # Issue 50's decay and expected live haircut, last, with a generator of its own (as capacity).
        self.decay()
        # Issue 50's meta-model contribution and crowding, last, with a generator of their own.
        self.mmc_crowding()
        # Issue 50's bootstrap intervals, last, with a generator of its own (as capacity).
        self.uncertainty()
        # Issue 50's probability of backtest overfitting, last, drawing nothing from the RNG.
        self.overfitting()
        # Issue 64's restatements (the demo's vendor correction) and queue, last, drawing nothing.
        self.known()
        # Every served answer of one alpha asked above by a generator of its own is in HAND_WRITTEN;
        # each other one is asked here, derived from its declaration (issue 58), drawing nothing.
        self.served_answers()
        return self.requests

    def served_answers(self) -> None:
        """Each served answer of one alpha (`analytics.answer.SERVED`) no generator above asks: per
        alpha with its query's defaults, for every token, and for the two unknown alphas."""
        for name in SERVED:
            if name in HAND_WRITTEN:
                continue
            for alpha in self.facts.alphas:
                self.add(f"/v1/alphas/{alpha.alpha_id}/analytics/{name}", TOKENS)
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/{name}", TOKENS)

    def known(self) -> None:
        """Issue 64: each alpha's restatements and the review queue (an app without records: empty),
        for every token."""
        for alpha in self.facts.alphas:
            self.add(f"/v1/alphas/{alpha.alpha_id}/restatements", TOKENS)
        self.add("/v1/review", TOKENS)

    def first_pages(self) -> None:
        """Issue 49 item 2: each alpha's weeks' first pages of default fields (what the pipeline
        writes as JSON, served from its file) for keys without raw fields, with the defaults left
        out and spelled out, and the same page for the raw key (made from the rows)."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:first_pages")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/rebalances/"
                for day in self.rng.sample(alpha.rebalances, min(3, len(alpha.rebalances))):
                    self.add(base + day.isoformat(), ["plain", "testonly", "raw"])
                    spelled = [("limit", "100"), ("offset", "0"), ("sort", "score"), ("order", "desc")]
                    self.add(base + day.isoformat() + query(self.shuffled(spelled)), ["plain"])
        finally:
            self.rng = shared

    def regimes(self) -> None:
        """Issue 50's `/analytics/regimes` per alpha (every token), a random book, window and regime,
        and `/analytics/costs` over a random regime; bad input (a regime that is not one)."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:regimes")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/analytics"
                self.add(f"{base}/regimes", TOKENS)
                for route in ("regimes", "costs"):
                    params = [
                        ("book", self.rng.choice(("long_short", "long_only", "raw_long_short"))),
                        ("regime", self.rng.choice(choices.REGIMES)),
                        *self.window(alpha.sessions, p_none=0.5),
                    ]
                    self.add(
                        f"{base}/{route}" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id)
                    )
            path = f"/v1/alphas/{self.facts.alphas[0].alpha_id}/analytics"
            for bad in ("regimes?regime=trend", "regimes?regime=trend:sideways", "costs?regime=up"):
                self.add(f"{path}/{bad}", ["raw", "plain"])
        finally:
            self.rng = shared

    def decay(self) -> None:
        """Issue 50 item 7's `/analytics/decay` per alpha: at a random split per book (never the
        first-publish default: the date the lake was built), the default split of the alphas whose
        seals carry a research_cutoff (every token: the calibration counts the alphas each reads),
        and bad input (a split that is no date, an unknown book, an unknown alpha)."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:decay")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/analytics/decay"
                sessions = alpha.sessions or [date(2021, 6, 30)]
                for book in self.book_choices(alpha, "portfolio"):
                    params = [("book", book), ("split", self.rng.choice(sessions).isoformat())]
                    self.add(base + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
                if alpha.alpha_id in ("momentum_12_1", "Test_planted_factor"):  # a sealed research_cutoff
                    self.add(base, TOKENS)
            path = f"/v1/alphas/{self.facts.alphas[0].alpha_id}/analytics/decay"
            for bad in ("split=2021-02-30", "book=nope"):
                self.add(f"{path}?{bad}", ["raw"])
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/decay", TOKENS)
        finally:
            self.rng = shared

    def mmc_crowding(self) -> None:
        """Issue 50's `/analytics/mmc` per alpha and `/analytics/crowding` (an app without records:
        nothing approved, so not measurable with its reason), over a random window, and bad input."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:mmc_crowding")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/analytics/mmc"
                self.add(base, TOKENS)
                self.add(base + query(self.shuffled(self.window(alpha.sessions))), ["raw"])
            self.add("/v1/analytics/crowding", TOKENS)
            # Issue 59's health of the approved book: empty here (no records), its shape and scope.
            self.add("/v1/analytics/approved_health", TOKENS)
            self.add("/v1/analytics/approved_health?book=raw_long_short", ["raw"])
            for bad in ("from=2022-02-30", "from=2022-03-01&to=2021-03-01"):
                self.add(f"/v1/alphas/{self.facts.alphas[0].alpha_id}/analytics/mmc?{bad}", ["raw"])
                self.add(f"/v1/analytics/crowding?{bad}", ["raw"])
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/mmc", TOKENS)
        finally:
            self.rng = shared

    def uncertainty(self) -> None:
        """Issue 50's `/analytics/uncertainty` per alpha: whole history (every token: a key without
        the ledger or the cross-sections gets those figures withheld), each ledger book over a random
        window; bad input; and the optional check it feeds, bounded by a request."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:uncertainty")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/analytics/uncertainty"
                self.add(base, TOKENS)
                for book in self.book_choices(alpha, "portfolio"):
                    params = [("book", book), *self.window(alpha.sessions)]
                    self.add(base + query(self.shuffled(params)), ["raw"])
            first = self.facts.alphas[0].alpha_id
            path = f"/v1/alphas/{first}/analytics/uncertainty"
            for bad in ("book=nope", "from=2022-02-30", "limit=5"):
                self.add(f"{path}?{bad}", ["raw", "plain"])
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/uncertainty", TOKENS)
            checks = f"/v1/alphas/{first}/analytics/checks"
            for bound in ("-1", "0.5"):
                self.add(f"{checks}?min_information_ratio_lower_bound={bound}", ["raw", "plain"])
        finally:
            self.rng = shared

    def overfitting(self) -> None:
        """Issue 50's `/analytics/overfitting` per alpha: every token at the default S, S = 8 and an
        odd S (400) for the raw key; the small demo names no trial family, so every figure is not
        measurable with its reason (tests/analytics/test_overfitting.py builds families of its own),
        and the checks with the optional pbo check turned on by the request."""
        for alpha in self.facts.alphas:
            base = f"/v1/alphas/{alpha.alpha_id}/analytics"
            self.add(f"{base}/overfitting", TOKENS)
            self.add(f"{base}/overfitting?splits=8", ["raw"])
            self.add(f"{base}/overfitting?splits=7", ["raw"])
            self.add(f"{base}/checks?max_pbo=0.5", ["raw"])
        self.add("/v1/families", TOKENS)

    def calendar_returns(self) -> None:
        """Issue 46's `/analytics/returns` per alpha: whole history (every token: a key without
        benchmarks.daily gets the book's figures without SPY's), each book over a random window, and
        bad input (an unknown book, a window that is not one, an unknown alpha)."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:calendar_returns")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/analytics/returns"
                self.add(base, TOKENS)
                for book in self.book_choices(alpha, "portfolio"):
                    params = [("book", book), *self.window(alpha.sessions)]
                    self.add(base + query(self.shuffled(params)), ["raw"])
            path = f"/v1/alphas/{self.facts.alphas[0].alpha_id}/analytics/returns"
            for bad in ("book=nope", "from=2022-02-30", "limit=5"):
                self.add(f"{path}?{bad}", ["raw", "plain"])
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/returns", TOKENS)
        finally:
            self.rng = shared

    def promotion_preview(self) -> None:
        """Issue 47's `/analytics/promotion_preview` per alpha (an app without records: every alpha
        previewed for approval): as of its last session, and as of a random session; its bad input
        (not a date, a date before the alpha's history)."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:promotion_preview")
        try:
            for alpha in self.facts.alphas:
                path = f"/v1/alphas/{alpha.alpha_id}/analytics/promotion_preview"
                self.add(path, TOKENS)
                if alpha.sessions:
                    as_of = self.rng.choice(alpha.sessions).isoformat()
                    self.add(path + query([("as_of", as_of)]), self.data_tokens(alpha.alpha_id))
            path = "/v1/alphas/momentum_12_1/analytics/promotion_preview"
            for bad in ("as_of=2021-02-30", "as_of=2001-01-05"):
                self.add(f"{path}?{bad}", ["raw"])
        finally:
            self.rng = shared

    def residual(self, alpha: AlphaFacts) -> None:
        """Issue 36's /analytics/residual over one alpha: the default set (and the screener's residual
        columns, sorted), a random set, book and window, and bad input."""
        rng = self.rng
        base = f"/v1/alphas/{alpha.alpha_id}/analytics/residual"
        others = [a.alpha_id for a in self.facts.alphas if a.alpha_id != alpha.alpha_id]
        self.add(base, TOKENS)
        params = [
            ("book", rng.choice(("long_short", "long_only", "raw_long_short"))),
            ("reference", ",".join(rng.sample(others, rng.randint(1, len(others))))),
            *self.window(alpha.sessions, p_none=0.5),
        ]
        self.add(base + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        if alpha is self.facts.alphas[0]:
            for bad in (
                f"reference={alpha.alpha_id}",
                f"reference={others[0]},{others[0]}",
                f"reference={UNKNOWN_ALPHA}",
                "book=nope",
                "from=2022-03-01",
            ):
                self.add(f"{base}?{bad}", ["raw", "testonly"])

    def live(self, alpha: AlphaFacts) -> None:
        """Issue 35's routes over one alpha: live against backtest at random splits per book (never
        the default split of an alpha without a research_cutoff: the date its lake was built), and
        its promotions (an app without records: none)."""
        rng = self.rng
        base = f"/v1/alphas/{alpha.alpha_id}"
        sessions = alpha.sessions or [date(2021, 6, 30)]
        for book in ("long_short", "raw_long_short"):
            split = rng.choice(sessions)
            params = [("book", book), ("split", split.isoformat())]
            self.add(
                f"{base}/analytics/live" + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id)
            )
        if alpha.alpha_id in ("momentum_12_1", "Test_planted_factor"):  # a sealed research_cutoff
            self.add(f"{base}/analytics/live", TOKENS)
        self.add(f"{base}/analytics/live?split=2021-02-30", ["raw"])
        self.add(f"{base}/promotions", TOKENS)

    def attribution(self, alpha: AlphaFacts) -> None:
        """`/analytics/attribution` (issue 36) over one alpha: a random book, window, `top` and
        `drop` per request, the defaults, and its 400s (a bound out of range, a window of one
        session, an unknown book)."""
        rng = self.rng
        base = f"/v1/alphas/{alpha.alpha_id}/analytics/attribution"
        for book in ("long_short", "long_only", "raw_long_short"):
            params = [("book", book), *self.window(alpha.sessions)]
            if rng.random() < 0.6:
                params.append(("top", str(rng.randint(1, 50))))
            if rng.random() < 0.6:
                params.append(("drop", str(rng.randint(1, 20))))
            self.add(base + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        self.add(base, TOKENS)
        if alpha.alpha_id == "Test_planted_factor":
            day = (alpha.sessions or [date(2021, 6, 30)])[-1].isoformat()
            for bad in ("top=0", "top=51", "drop=21", "book=nope", f"from={day}&to={day}"):
                self.add(f"{base}?{bad}", ["raw"])

    def capacity(self) -> None:
        """Issue 36's `/analytics/capacity` per alpha and book over random windows, reference capitals
        and grids (the alphas without exposures answer not_measurable), and its bad input."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:capacity")
        try:
            for alpha in self.facts.alphas:
                base = f"/v1/alphas/{alpha.alpha_id}/analytics/capacity"
                self.add(base, TOKENS)
                for book in ("long_short", "long_only", "raw_long_short"):
                    params = [("book", book), *self.window(alpha.sessions)]
                    if self.rng.random() < 0.5:
                        params.append(("capital", f"{self.rng.uniform(1e6, 1e9):.4g}"))
                    if self.rng.random() < 0.5:
                        grid = sorted(self.rng.uniform(1e5, 1e11) for _ in range(self.rng.randint(1, 5)))
                        params.append(("grid", ",".join(f"{g:.3g}" for g in grid)))
                    self.add(base + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
            first = self.facts.alphas[0].alpha_id
            for params in (
                [("capital", "0")],
                [("capital", "-1e8")],
                [("capital", "abc")],
                [("grid", ",".join(["1e6"] * 26))],
                [("grid", "1e6,0")],
                [("grid", "1e6,,1e7")],
                [("book", "long_short_adjustments")],
                [("from", "2021-06-01"), ("to", "2021-01-01")],
            ):
                self.add(f"/v1/alphas/{first}/analytics/capacity" + query(params), ["raw", "plain"])
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/capacity", TOKENS)
        finally:
            self.rng = shared

    def factors(self, alpha: AlphaFacts) -> None:
        """Issue 36's factor attribution over one alpha: per book over random windows (a window too
        short is a 400), the whole history for every caller, and bad input."""
        base = f"/v1/alphas/{alpha.alpha_id}/analytics/factors"
        for book in ("long_short", "long_only", "raw_long_short"):
            params = [("book", book), *self.window(alpha.sessions)]
            self.add(base + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
        self.add(base, TOKENS)
        self.add(base + query([("book", "nope")]), ["raw"])
        self.add(base + query([("from", "2021-06-30"), ("to", "2021-07-02")]), ["raw"])

    def quantiles(self) -> None:
        """Issue 36's `/analytics/quantiles` per alpha: each score with a random quantile count, over
        the whole history or a random window of at least 8 rebalance weeks; and its bad input (a count
        out of 2..10, an unknown score, raw_score for a key without raw books, a window of one week)."""
        shared, self.rng = self.rng, random.Random(f"{self.seed}:quantiles")
        try:
            for alpha in self.facts.alphas:
                path = f"/v1/alphas/{alpha.alpha_id}/analytics/quantiles"
                self.add(path, TOKENS)
                weeks = alpha.rebalances
                for score in ("score", "raw_score"):
                    params = [("score", score), ("quantiles", str(self.rng.randint(2, 10)))]
                    if len(weeks) > 8 and self.rng.random() < 0.7:
                        first = self.rng.randrange(len(weeks) - 8)
                        last = self.rng.randrange(first + 8, len(weeks))
                        params += [("from", weeks[first].isoformat()), ("to", weeks[last].isoformat())]
                    self.add(path + query(self.shuffled(params)), self.data_tokens(alpha.alpha_id))
            alpha = next(a for a in self.facts.alphas if a.alpha_id == "momentum_12_1")
            path = f"/v1/alphas/{alpha.alpha_id}/analytics/quantiles"
            week = alpha.rebalances[len(alpha.rebalances) // 2].isoformat()
            for params in (
                [("quantiles", "1")],
                [("quantiles", "11")],
                [("score", "direction")],
                [("from", week), ("to", week)],
            ):
                self.add(path + query(params), ["raw"])
            self.add(path + query([("score", "raw_score")]), ["plain"])
            for missing in (UNKNOWN_ALPHA, UNKNOWN_TEST_ALPHA):
                self.add(f"/v1/alphas/{missing}/analytics/quantiles", TOKENS)
        finally:
            self.rng = shared


def generate(lake: Path, seed: int = SEED) -> list[Request]:
    """Every request of the equality check, in replay order; a pure function of the lake and seed."""
    return Generator(read_lake(Path(lake)), seed).generate()
