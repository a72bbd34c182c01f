"""Where a book's P&L came from over a window (`/analytics/attribution`; docs/analytics.md,
"Attribution"): by name, by leg and by sector, the fragility of its information ratio, and its
realised concentration; and the fragility check's figure (`best_days_kept`).

Everything that does not depend on the request is in the build's `analytics_attribution` table
(pipeline/analytics_tables.py: per book, session and name, the net P&L, the leg, the return
contribution and the realised weight, sorted by book, date and symbol): a window is two binary
searches over its rows and the answer is a few `np.bincount`s over them.

With r_t = ending_t / starting_t - 1 the book's daily return and c_it = net_pnl_it / starting_t a
name's return contribution, sum_i c_it + (cash_carry_t + rounding_adjustment_t) / starting_t = r_t
each session (the ledger's identity, checked on every seal), so contributions add up across names,
legs and sectors to the sum of the daily returns.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow.compute as pc

from analytics import inputs, shares
from analytics.access import Access, withheld
from analytics.costs import information_ratio
from analytics.entries import Warnings, conventions, declared_stat, window_echo
from analytics.errors import AnalyticsNotBuilt
from datasets.queries import Window, window_bounds
from datasets.reader import BuildView
from datasets.rows import date_at, floats
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.attribution import (
    DAY_SHARES,
    MIN_SESSIONS,
    Attribution,
    BestDay,
    ByLeg,
    ByName,
    BySector,
    Concentration,
    Fragility,
    LargestWeight,
    LegPart,
    NameAttribution,
    SectorPart,
    Totals,
)

TABLE = "analytics_attribution"
NO_EXPOSURES = "missing_kind: the run sealed no exposures, so its names have no sector"
LEGS = {"long": 1, "short": -1, "neither": 0}


@dataclass(frozen=True)
class Rows:
    """One book's rows of `analytics_attribution`, in date then symbol order."""

    days: np.ndarray  # days since 1970 (int32)
    names: np.ndarray  # the symbol's code (int32): its index in `symbols`
    legs: np.ndarray  # 1 long, -1 short, 0 neither (int8)
    pnl: np.ndarray  # net_pnl, NaN where the run sealed no P&L for the book
    contribution: np.ndarray  # net_pnl / starting_equity, NaN where not measurable
    weight: np.ndarray  # realised weight at the close, NaN without a position
    sectors: np.ndarray  # the sector's code (int32): its index in `sector_names`; -1 without one
    symbols: np.ndarray  # code -> symbol (object; None for a code this book never holds)
    sector_names: tuple[str, ...]  # code -> sector


@dataclass(frozen=True)
class Cash:
    """The ledger's lines that belong to no name, per session (the book's ledger order)."""

    cash_carry: np.ndarray
    rounding_adjustment: np.ndarray


def rows_of(view: BuildView, book: str) -> Rows | None:
    """The book's rows (None when the build has no such table or no row of the book), read once
    per build."""

    def read() -> Rows | None:
        table = inputs.table_rows(view, TABLE, book)
        if table is None or table.num_rows == 0:
            return None
        names = table.column("name").to_numpy().astype(np.int32, copy=False)
        codes, first = np.unique(names, return_index=True)
        symbols = np.full(int(codes[-1]) + 1, None, dtype=object)
        symbols[codes] = table.column("symbol").take(first).to_pylist()
        sectors = pc.dictionary_encode(table.column("sector")).combine_chunks()
        return Rows(
            days=table.column("date").cast("int32").to_numpy(),
            names=names,
            legs=table.column("leg").to_numpy().astype(np.int8, copy=False),
            pnl=floats(table.column("net_pnl")),
            contribution=floats(table.column("contribution")),
            weight=floats(table.column("weight")),
            sectors=pc.fill_null(sectors.indices, -1).to_numpy().astype(np.int32, copy=False),
            symbols=symbols,
            sector_names=tuple(sectors.dictionary.to_pylist()),
        )

    return view.memo(f"analytics:attribution:{book}", read)


def cash_of(view: BuildView, book: str) -> Cash | None:
    """The book's cash carry and rounding adjustment per session (`inputs.ledger`'s order)."""

    def read() -> Cash | None:
        rows = view.book_rows("portfolio", book)
        if rows is None:
            return None
        return Cash(floats(rows.column("cash_carry")), floats(rows.column("rounding_adjustment")))

    return view.memo(f"analytics:attribution:cash:{book}", read)


def require_table(view: BuildView) -> None:
    """503 `analytics_not_built` for a build with per-name P&L or positions published before the
    attribution table."""
    if view.table(TABLE) is None and view.kinds_present & {"pnl", "positions"}:
        version = view.entry.get("pipeline_version")
        raise AnalyticsNotBuilt(
            f"The served build {view.build_id} of {view.alpha_id} was published by pipeline {version}, "
            "before the attribution table; an operator rebuilds it with `alpha-results build`.",
            details={"build": view.build_id, "pipeline_version": version},
        )


def percent_days(sessions: int, percent: int) -> int:
    """k, the best `percent`% of `sessions` days: ceil(sessions x percent / 100), at least 1
    (integer arithmetic: 0.01 x 300 is 3.0000000000000004 in floating point)."""
    return max(1, -(-sessions * percent // 100))


def distinct(codes: np.ndarray, size: int) -> int:
    """How many distinct codes (each below `size`) `codes` holds."""
    return int(np.count_nonzero(np.bincount(codes, minlength=size)))


def best_sessions(returns: np.ndarray, days: np.ndarray, count: int) -> np.ndarray:
    """Positions of the `count` largest finite returns, largest first, ties by date (earliest
    first)."""
    finite = np.flatnonzero(np.isfinite(returns))
    order = finite[np.lexsort((days[finite], -returns[finite]))]
    return order[:count]


def ranked(pnl: np.ndarray, present: np.ndarray, *, losses: bool = False) -> np.ndarray:
    """Codes of the present names by window P&L, largest first (`losses`: smallest first), ties by
    symbol ascending either way (codes ascend with their symbols)."""
    codes = np.flatnonzero(present)
    return codes[np.lexsort((codes, pnl[codes] if losses else -pnl[codes]))]


def fragility_figures(
    ledger: inputs.Ledger, per_year: int, drop: int
) -> tuple[float, float, np.ndarray, str]:
    """(information ratio, without the `drop` best days, the positions of those days, why the
    second is not measurable)."""
    r = ledger.returns
    best = best_sessions(r, ledger.days, drop)
    rest = np.delete(r, best)
    why = f"fewer than 2 daily returns with variance are left without the {drop} best sessions"
    return information_ratio(r, per_year), information_ratio(rest, per_year), best, why


def best_days_kept(
    view: BuildView, book: str, window: Window, drop: int
) -> tuple[float | None, str, dict[str, Any]]:
    """The fragility check's figure: the information ratio over the window without its `drop`
    best days over the information ratio (None when not measurable, with why), and what its
    reason names. The caller has checked the ledger may be read."""
    ledger = inputs.ledger(view, book)
    if ledger is None:
        return None, "the run has no ledger for this book", {}
    part = ledger.window(window)
    if part.days.size == 0:
        return None, "the window holds no session of this book", {}
    ir, without, _, why = fragility_figures(part, conventions(view).sessions_per_year, drop)
    kept, reason = _kept(ir, without, why)
    context = {"days": drop, "information_ratio": f"{ir:.3g}", "without": f"{without:.3g}"}
    return kept, reason, context


def _kept(ir: float, without: float, why: str) -> tuple[float | None, str]:
    if not math.isfinite(ir):
        return None, "fewer than 2 daily returns with variance in the window"
    if not ir > 0:
        return None, "the information ratio over the window is not positive: there is nothing to keep"
    if not math.isfinite(without):
        return None, why
    return without / ir, ""


class _Reasons:
    """Why each kind of data cannot be used (empty: it can), each refusal warned of once."""

    def __init__(self, access: Access, warnings: Warnings) -> None:
        self.access, self.warnings = access, warnings
        self.missing: dict[str, str] = {}
        self._refused: dict[str, str] = {}

    def refused(self, data: str) -> str:
        if self.access.may_read(data):
            return ""
        if data not in self._refused:
            self._refused[data] = withheld(data, "attribution", self.warnings)
        return self._refused[data]

    def of(self, *data: str) -> str:
        """The first reason among `data` ("ledger", "pnl", "positions"): refused, else missing."""
        for name in data:
            reason = self.refused(name) or self.missing.get(name, "")
            if reason:
                return reason
        return ""


def attribution_payload(
    view: BuildView, book: str, window: Window, top: int, drop: int, access: Access, warnings: Warnings
) -> Attribution:
    """The attribution of `book` over `window` (docs/analytics.md, "Attribution")."""
    per_year = conventions(view).sessions_per_year
    context = {"book": book}
    reasons = _Reasons(access, warnings)
    whole = inputs.ledger(view, book)
    cash_whole = cash_of(view, book)
    rows_whole = rows_of(view, book)
    if whole is None or cash_whole is None:
        reasons.missing["ledger"] = "the run has no ledger for this book"
    if "pnl" not in view.kinds_present:
        reasons.missing["pnl"] = "the run sealed no P&L by name"
    if "positions" not in view.kinds_present:
        reasons.missing["positions"] = "the run sealed no positions"
    for data in ("pnl", "positions"):
        if data not in reasons.missing and (rows_whole is None or not view.book_range(data, book)):
            reasons.missing[data] = f"the run has no {data} for this book"

    ledger = cash = None
    if whole is not None and cash_whole is not None:
        if access.ledger:
            inputs.require_window_sessions(
                whole.window(window).days.size,
                whole.days.size,
                window,
                MIN_SESSIONS,
                f"sessions of the {book} book",
            )
        a, b = window_bounds(whole.days, window)
        ledger = whole.window(window)
        cash = Cash(cash_whole.cash_carry[a:b], cash_whole.rounding_adjustment[a:b])
        if ledger.days.size == 0:
            reasons.missing["ledger"] = "the window holds no session of this book"
    rows = None
    if rows_whole is not None:
        a, b = window_bounds(rows_whole.days, window)
        rows = Rows(
            rows_whole.days[a:b],
            rows_whole.names[a:b],
            rows_whole.legs[a:b],
            rows_whole.pnl[a:b],
            rows_whole.contribution[a:b],
            rows_whole.weight[a:b],
            rows_whole.sectors[a:b],
            rows_whole.symbols,
            rows_whole.sector_names,
        )
        for data in ("pnl", "positions"):
            if rows.days.size == 0 and data not in reasons.missing:
                reasons.missing[data] = f"the window holds no {data} row of this book"

    def stat(body: type, name: str, value: float | None, reason: str, **extra: Any) -> AnalyticsStat:
        return declared_stat(body, name, value, reason, context, **extra)

    sums = _Sums.of(rows, reasons)
    totals = _totals(ledger, cash, sums, reasons, stat)
    return Attribution(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        sessions=None if reasons.refused("ledger") or ledger is None else int(ledger.days.size),
        top=top,
        totals=totals,
        by_name=_by_name(rows, sums, top, reasons, stat),
        by_leg=_by_leg(rows, sums, reasons, stat),
        by_sector=_by_sector(view, rows, sums, reasons, stat),
        fragility=_fragility(ledger, rows, sums, drop, per_year, reasons, stat),
        concentration=_concentration(rows, reasons, stat),
    )


Stat = Callable[..., AnalyticsStat]


@dataclass(frozen=True)
class _Sums:
    """The window's per-name sums (indexed by code), or why there are none."""

    pnl: np.ndarray
    contribution: np.ndarray
    present: np.ndarray  # the name has a row in the window
    total: float  # the names' P&L
    reason: str  # why the per-name P&L cannot be used ("" when it can)
    share_reason: str

    @classmethod
    def of(cls, rows: Rows | None, reasons: _Reasons) -> _Sums:
        reason = reasons.of("pnl")
        if rows is None or reason:
            empty = np.zeros(0)
            return cls(empty, empty, np.zeros(0, dtype=bool), math.nan, reason, reason)
        size = rows.symbols.size
        pnl = np.bincount(rows.names, weights=rows.pnl, minlength=size)
        contribution = np.bincount(rows.names, weights=rows.contribution, minlength=size)
        present = np.bincount(rows.names, minlength=size) > 0
        total = float(np.sum(rows.pnl))
        return cls(
            pnl, contribution, present, total, "", shares.reason(total, "the names' P&L over the window")
        )

    def share(self, value: float) -> float | None:
        return None if self.share_reason else shares.share(value, self.total)


def _contribution_reason(reasons: _Reasons, value: float) -> str:
    """Why a return contribution is not measurable: the data, else a session without equity."""
    return reasons.of("pnl", "ledger") or (
        "" if math.isfinite(value) else "a session of the window has no starting equity (it is 0)"
    )


def _totals(
    ledger: inputs.Ledger | None, cash: Cash | None, sums: _Sums, reasons: _Reasons, stat: Stat
) -> Totals:
    reason = reasons.of("ledger")
    values: dict[str, float | None] = dict.fromkeys(
        (
            "pnl",
            "cash_carry",
            "rounding_adjustment",
            "sum_of_daily_returns",
            "cash_carry_return_contribution",
            "rounding_return_contribution",
        )
    )
    if not reason and ledger is not None and cash is not None:
        start = ledger.starting_equity
        with np.errstate(divide="ignore", invalid="ignore"):
            per_equity = np.where(start != 0, 1.0 / start, np.nan)
        values = {
            "pnl": float(np.sum(ledger.ending_equity - start)),
            "cash_carry": float(np.sum(cash.cash_carry)),
            "rounding_adjustment": float(np.sum(cash.rounding_adjustment)),
            "sum_of_daily_returns": float(np.sum(ledger.returns)),
            "cash_carry_return_contribution": float(np.sum(cash.cash_carry * per_equity)),
            "rounding_return_contribution": float(np.sum(cash.rounding_adjustment * per_equity)),
        }
    no_equity = "a session of the window has no starting equity (it is 0)"
    contribution = float(np.sum(sums.contribution)) if not sums.reason else math.nan
    return Totals(
        pnl=stat(Totals, "pnl", values["pnl"], reason),
        names_pnl=stat(Totals, "names_pnl", None if sums.reason else sums.total, sums.reason),
        cash_carry=stat(Totals, "cash_carry", values["cash_carry"], reason),
        rounding_adjustment=stat(Totals, "rounding_adjustment", values["rounding_adjustment"], reason),
        sum_of_daily_returns=stat(
            Totals, "sum_of_daily_returns", values["sum_of_daily_returns"], reason or no_equity
        ),
        names_return_contribution=stat(
            Totals, "names_return_contribution", contribution, _contribution_reason(reasons, contribution)
        ),
        cash_carry_return_contribution=stat(
            Totals,
            "cash_carry_return_contribution",
            values["cash_carry_return_contribution"],
            reason or no_equity,
        ),
        rounding_return_contribution=stat(
            Totals,
            "rounding_return_contribution",
            values["rounding_return_contribution"],
            reason or no_equity,
        ),
    )


def _name(code: int, sums: _Sums, reasons: _Reasons, symbols: np.ndarray, stat: Stat) -> NameAttribution:
    pnl, contribution = float(sums.pnl[code]), float(sums.contribution[code])
    return NameAttribution(
        symbol=str(symbols[code]),
        pnl=stat(NameAttribution, "pnl", pnl, ""),
        return_contribution=stat(
            NameAttribution,
            "return_contribution",
            contribution,
            _contribution_reason(reasons, contribution),
        ),
        share=stat(NameAttribution, "share", sums.share(pnl), sums.share_reason),
    )


def _by_name(rows: Rows | None, sums: _Sums, top: int, reasons: _Reasons, stat: Stat) -> ByName:
    if rows is None or sums.reason:
        return ByName(
            status="not_measurable",
            withheld_reason=sums.reason or "the run has no P&L by name for this book",
            names=None,
            contributors=[],
            detractors=[],
        )
    order = ranked(sums.pnl, sums.present)
    gains = order[sums.pnl[order] > 0][:top]
    by_loss = ranked(sums.pnl, sums.present, losses=True)
    losses = by_loss[sums.pnl[by_loss] < 0][:top]
    return ByName(
        status="available",
        names=int(np.count_nonzero(sums.present)),
        contributors=[_name(int(c), sums, reasons, rows.symbols, stat) for c in gains],
        detractors=[_name(int(c), sums, reasons, rows.symbols, stat) for c in losses],
    )


def _by_leg(rows: Rows | None, sums: _Sums, reasons: _Reasons, stat: Stat) -> ByLeg:
    reason = sums.reason or reasons.of("positions")
    parts: dict[str, LegPart] = {}
    for leg, sign in LEGS.items():
        pnl = contribution = math.nan
        names: int | None = None
        if rows is not None and not reason:
            inside = rows.legs == sign
            pnl = float(np.sum(rows.pnl[inside]))
            contribution = float(np.sum(rows.contribution[inside]))
            names = distinct(rows.names[inside], rows.symbols.size)
        share = None if reason else sums.share(pnl)
        parts[leg] = LegPart(
            pnl=stat(LegPart, "pnl", pnl, reason),
            return_contribution=stat(
                LegPart,
                "return_contribution",
                contribution,
                reason or _contribution_reason(reasons, contribution),
            ),
            share=stat(LegPart, "share", share, reason or sums.share_reason),
            names=names,
        )
    return ByLeg(long=parts["long"], short=parts["short"], neither=parts["neither"])


def _by_sector(view: BuildView, rows: Rows | None, sums: _Sums, reasons: _Reasons, stat: Stat) -> BySector:
    """The P&L by sector: one part per sector with a row in the window, largest P&L first (ties
    by sector), then the rows whose name had no sector at that rebalance, when there are some."""
    reason = "" if "exposures" in view.kinds_present else NO_EXPOSURES
    reason = reason or sums.reason or ("" if rows is not None else "the run has no P&L by name for this book")
    if reason or rows is None:
        return BySector(status="not_measurable", withheld_reason=reason, sectors=[])
    size = len(rows.sector_names)
    key = np.where(rows.sectors < 0, size, rows.sectors)  # the last bucket: no sector
    pnl = np.bincount(key, weights=rows.pnl, minlength=size + 1)
    contribution = np.bincount(key, weights=rows.contribution, minlength=size + 1)
    present = np.bincount(key, minlength=size + 1) > 0
    seen = np.zeros((size + 1, rows.symbols.size), dtype=bool)
    seen[key, rows.names] = True
    names = seen.sum(axis=1)
    order = sorted(map(int, np.flatnonzero(present[:size])), key=lambda c: (-pnl[c], rows.sector_names[c]))
    if present[size]:
        order.append(size)

    def part(code: int) -> SectorPart:
        value = float(contribution[code])
        return SectorPart(
            sector=rows.sector_names[code] if code < size else None,
            pnl=stat(SectorPart, "pnl", float(pnl[code]), ""),
            return_contribution=stat(
                SectorPart, "return_contribution", value, _contribution_reason(reasons, value)
            ),
            share=stat(SectorPart, "share", sums.share(float(pnl[code])), sums.share_reason),
            names=int(names[code]),
        )

    return BySector(status="available", sectors=[part(c) for c in order])


def _fragility(
    ledger: inputs.Ledger | None,
    rows: Rows | None,
    sums: _Sums,
    drop: int,
    per_year: int,
    reasons: _Reasons,
    stat: Stat,
) -> Fragility:
    reason = reasons.of("ledger")
    few = "fewer than 2 daily returns with variance in the window"
    per = {"periods_per_year": per_year}
    if reason or ledger is None:
        nothing = stat(Fragility, "information_ratio", None, reason, **per)
        return Fragility(
            drop=drop,
            information_ratio=nothing,
            without_best_days=stat(Fragility, "without_best_days", None, reason, **per),
            best_days_kept=stat(Fragility, "best_days_kept", None, reason),
            without_best_names=stat(Fragility, "without_best_names", None, reason, **per),
            best_names=[],
            best_days=[],
            top_1pct_days=None,
            top_1pct_days_share=stat(Fragility, "top_1pct_days_share", None, reason),
            top_5pct_days=None,
            top_5pct_days_share=stat(Fragility, "top_5pct_days_share", None, reason),
        )
    ir, without_days, best, why = fragility_figures(ledger, per_year, drop)
    kept, kept_reason = _kept(ir, without_days, why)
    r = ledger.returns
    names_reason = reasons.of("pnl", "ledger")
    best_names: list[str] = []
    without_names = math.nan
    if rows is not None and not names_reason:
        codes = ranked(sums.pnl, sums.present)[:drop]
        best_names = [str(rows.symbols[c]) for c in codes]
        wanted = np.zeros(rows.symbols.size, dtype=bool)
        wanted[codes] = True
        chosen = wanted[rows.names]
        # The rows' sessions are the ledger's (the seal's identity ties them); a row on a day the
        # ledger does not hold would be no session's, so it is left out rather than misplaced.
        at = np.searchsorted(ledger.days, rows.days[chosen])
        known = (at < ledger.days.size) & (
            ledger.days[np.minimum(at, ledger.days.size - 1)] == rows.days[chosen]
        )
        removed = np.bincount(at[known], weights=rows.contribution[chosen][known], minlength=r.size)
        without_names = information_ratio(r - removed, per_year)
    pnl = ledger.ending_equity - ledger.starting_equity
    total = float(np.sum(pnl))
    by_pnl = np.sort(pnl)[::-1]
    day_shares: dict[int, tuple[int, float | None]] = {}
    for percent in DAY_SHARES:
        k = percent_days(int(r.size), percent)
        day_shares[percent] = (k, shares.share(float(np.sum(by_pnl[:k])), total))
    zero = shares.reason(total, "the window's P&L")
    return Fragility(
        drop=drop,
        information_ratio=stat(Fragility, "information_ratio", ir, few, **per),
        without_best_days=stat(Fragility, "without_best_days", without_days, why, **per),
        best_days_kept=stat(Fragility, "best_days_kept", kept, kept_reason),
        without_best_names=stat(
            Fragility,
            "without_best_names",
            without_names,
            names_reason or f"fewer than 2 daily returns with variance without the {drop} best names",
            **per,
        ),
        best_names=best_names,
        best_days=[_best_day(ledger, r, rows, int(i), names_reason, stat) for i in best],
        top_1pct_days=day_shares[DAY_SHARES[0]][0],
        top_1pct_days_share=stat(Fragility, "top_1pct_days_share", day_shares[DAY_SHARES[0]][1], zero),
        top_5pct_days=day_shares[DAY_SHARES[1]][0],
        top_5pct_days_share=stat(Fragility, "top_5pct_days_share", day_shares[DAY_SHARES[1]][1], zero),
    )


def _best_day(
    ledger: inputs.Ledger, returns: np.ndarray, rows: Rows | None, at: int, names_reason: str, stat: Stat
) -> BestDay:
    day = int(ledger.days[at])
    symbol: str | None = None
    contribution = math.nan
    reason = names_reason
    if rows is not None and not reason:
        lo, hi = np.searchsorted(rows.days, [day, day + 1])
        values = rows.contribution[lo:hi]
        if not np.isfinite(values).any():
            reason = "no name has a measurable return contribution that session"
        else:
            # The first of the largest: rows of a session are in symbol order.
            best = int(np.argmax(np.where(np.isfinite(values), values, -np.inf)))
            symbol, contribution = str(rows.symbols[rows.names[lo + best]]), float(values[best])
    date = date_at(ledger.days, at)
    assert date is not None
    return BestDay(
        date=date,
        day_return=stat(BestDay, "day_return", float(returns[at]), ""),
        pnl=stat(BestDay, "pnl", float(ledger.ending_equity[at] - ledger.starting_equity[at]), ""),
        top_symbol=symbol,
        top_contribution=stat(BestDay, "top_contribution", contribution, reason),
    )


def _concentration(rows: Rows | None, reasons: _Reasons, stat: Stat) -> Concentration:
    reason = reasons.of("positions")
    held = np.zeros(0, dtype=bool)
    if rows is not None and not reason:
        held = np.isfinite(rows.weight) & (rows.weight != 0)
        if not held.any():
            reason = "the book held no position in the window"
    if rows is None or reason:
        return Concentration(
            largest_weight=LargestWeight(
                weight=stat(LargestWeight, "weight", None, reason), symbol=None, date=None, side=None
            ),
            names_held=stat(Concentration, "names_held", None, reason),
            sessions_held=None,
            mean_names_per_session=stat(Concentration, "mean_names_per_session", None, reason),
            effective_names=stat(Concentration, "effective_names", None, reason),
        )
    weight = rows.weight[held]
    days = rows.days[held]
    at = int(np.argmax(np.abs(weight)))  # the first of the largest: rows in date, symbol order
    # Rows are in date order: a session's rows are one run, numbered by counting the changes.
    index = np.concatenate(([0], np.cumsum(days[1:] != days[:-1])))
    gross = np.bincount(index, weights=np.abs(weight))
    squares = np.bincount(index, weights=weight * weight)
    counts = np.bincount(index)
    date = date_at(days, at)
    return Concentration(
        largest_weight=LargestWeight(
            weight=stat(LargestWeight, "weight", float(abs(weight[at])), ""),
            symbol=str(rows.symbols[rows.names[held][at]]),
            date=date,
            side="long" if weight[at] > 0 else "short",
        ),
        names_held=stat(
            Concentration, "names_held", float(distinct(rows.names[held], rows.symbols.size)), ""
        ),
        sessions_held=int(counts.size),
        mean_names_per_session=stat(Concentration, "mean_names_per_session", float(np.mean(counts)), ""),
        effective_names=stat(Concentration, "effective_names", float(np.mean(gross * gross / squares)), ""),
    )
