"""One alpha run of the demo engine: signals, decisions, the four books, metrics, as seal tables."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from alpha_results_seal import arrow_schemas as seal
from alpha_results_seal.demo import archive, descriptions, exposures, metrics, selection, signals
from alpha_results_seal.demo.alphas import ALPHAS, FAMILY_IDS, AlphaSpec
from alpha_results_seal.demo.books import ADJUSTMENT_REASONS, EXIT_REASONS, PHASES, BookResult, simulate_book
from alpha_results_seal.demo.market import REASONS, UNADJUSTED_BENCHMARK_SESSIONS, Market
from alpha_results_seal.trading import trade_variants

ENGINE_VERSION = "demo-engine 1.5.0"
BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")
TRADE_BOOKS = BOOKS + tuple(f"{b}{suffix}" for b in BOOKS for suffix in seal.TRADE_VARIANT_SUFFIXES)


@dataclass
class SealContent:
    alpha_id: str
    manifest: dict[str, Any]
    tables: dict[str, pa.Table]  # relative path inside the seal -> table
    description: dict[str, Any] | None
    source_zip: bytes | None


def _utc(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    ints = values.astype("datetime64[us]").astype(np.int64)
    return pa.array(ints, type=seal.UTC_TS, mask=None if valid is None else ~valid)


def _floats(x: np.ndarray) -> pa.Array:
    return pa.array(x, type=pa.float64(), mask=np.isnan(x))


def _strings(codes: np.ndarray, names: tuple[str | None, ...]) -> pa.Array:
    lookup = np.array(names, dtype=object)
    return pa.array(lookup[codes], type=pa.string())


def _dates(market: Market, sessions: np.ndarray) -> pa.Array:
    return pa.array([market.dates[s] for s in sessions], type=pa.date32())


def pick_universe(spec: AlphaSpec, market: Market, size: str, rng: np.random.Generator) -> np.ndarray:
    n = min(spec.universe_size(size), market.n_names)
    if spec.universe_pick == "all" or n == market.n_names:
        return np.arange(market.n_names)
    if spec.universe_pick == "outage":
        block = np.flatnonzero(market.outage_block)
        others = np.flatnonzero(~market.outage_block)
        k = min(len(block), int(round(0.8 * n)))
        chosen = np.concatenate(
            [rng.choice(block, k, replace=False), rng.choice(others, n - k, replace=False)]
        )
        return np.sort(chosen)
    return np.sort(rng.choice(market.n_names, n, replace=False))


def forward_returns(market: Market, weeks: np.ndarray, universe: np.ndarray) -> np.ndarray:
    """Open after this decision to open after the next decision; NaN where that is not yet sealed."""
    last = len(market.dates) - 1
    out = np.full((len(weeks), len(universe)), np.nan)
    for i, w in enumerate(weeks):
        if w + 1 >= len(market.decision_sessions):
            continue
        entry, exit_ = market.decision_sessions[w] + 1, market.decision_sessions[w + 1] + 1
        if exit_ <= last:
            out[i] = market.open[exit_, universe] / market.open[entry, universe] - 1.0
    return out


def _decisions_table(
    market: Market,
    universe: np.ndarray,
    weeks: np.ndarray,
    score: np.ndarray,
    raw: np.ndarray,
    dec: selection.Decisions,
    unavailable: np.ndarray,
    fwd: np.ndarray,
    ls: BookResult,
    raw_ls: BookResult,
) -> pa.Table:
    n_weeks, n = score.shape
    last = len(market.dates) - 1
    decision = market.decision_sessions[weeks]
    entry = decision + 1
    n_decisions = len(market.decision_sessions)
    nxt = np.where(
        weeks + 1 < n_decisions,
        market.decision_sessions[np.minimum(weeks + 1, n_decisions - 1)] + 1,
        last + 1,
    )
    has_entry = np.repeat(entry <= last, n)
    has_maturity = np.repeat(nxt <= last, n)
    entry_ts = np.repeat(market.open_utc[np.minimum(entry, last)], n)
    maturity_ts = np.repeat(market.open_utc[np.minimum(nxt, last)], n)

    def fills(book: BookResult) -> pa.Array:
        sessions = book.fill_session.ravel()
        return _utc(market.open_utc[np.maximum(sessions, 0)], sessions >= 0)

    flat_score, flat_raw = score.ravel(), raw.ravel()
    reason = unavailable.ravel()
    reason_names: tuple[str | None, ...] = (None, *REASONS)
    columns = {
        "date": _dates(market, np.repeat(decision, n)),
        "symbol": pa.array(np.tile(market.symbols[universe], n_weeks), type=pa.string()),
        "score": _floats(flat_score),
        "direction": pa.array(np.sign(flat_score), type=pa.float64(), mask=np.isnan(flat_score)).cast(
            pa.int8()
        ),
        "confidence": _floats(np.abs(flat_score)),
        "average_rank": _floats(dec.average_rank.ravel()),
        "pre_smoothing_score": _floats(flat_raw),
        "raw_direction": pa.array(np.sign(flat_raw), type=pa.float64(), mask=np.isnan(flat_raw)).cast(
            pa.int8()
        ),
        "raw_confidence": _floats(np.abs(flat_raw)),
        "raw_average_rank": _floats(dec.raw_average_rank.ravel()),
        "long_short_target_weight": pa.array(dec.long_short.ravel()),
        "long_only_target_weight": pa.array(dec.long_only.ravel()),
        "raw_long_short_target_weight": pa.array(dec.raw_long_short.ravel()),
        "raw_long_only_target_weight": pa.array(dec.raw_long_only.ravel()),
        "next_open_tradeable": pa.array(reason == 0),
        "unavailability_reason": _strings(reason, reason_names),
        "decision_reason": _strings(dec.decision_reason.ravel(), selection.REASON_NAMES),
        "raw_decision_reason": _strings(dec.raw_decision_reason.ravel(), selection.REASON_NAMES),
        "fill_at": fills(ls),
        "raw_fill_at": fills(raw_ls),
        "entry_at": _utc(entry_ts, has_entry),
        "maturity_at": _utc(maturity_ts, has_maturity),
        "forward_return": _floats(fwd.ravel()),
    }
    return pa.Table.from_pydict(columns, schema=seal.DECISIONS)


def _book_tables(
    market: Market, universe: np.ndarray, weeks: np.ndarray, book: BookResult
) -> dict[str, pa.Table]:
    lg = book.ledger
    sessions = lg["session"]
    portfolio = {
        "date": _dates(market, sessions),
        "timestamp": _utc(market.close_utc[sessions]),
        **{k: pa.array(lg[k]) for k in seal.PORTFOLIO.names if k in lg},
        "equity_basis": pa.array(np.ones(len(sessions))),
    }
    pos, pnl, tr = book.positions, book.pnl, book.trades
    symbols = market.symbols[universe]
    decision_dates = market.decision_sessions[weeks]
    trades = {
        "timestamp": _utc(market.open_utc[tr["session"].astype(np.int64)]),
        "decision_at": _dates(market, decision_dates[tr["week"].astype(np.int64)]),
        "symbol": pa.array(symbols[tr["name"].astype(np.int64)], type=pa.string()),
        "phase": _strings(tr["phase"].astype(np.int64), PHASES),
        "quantity": pa.array(tr["quantity"]),
        "mid_price": pa.array(tr["mid_price"]),
        "fill_price": pa.array(tr["fill_price"]),
        "fee": pa.array(tr["fee"]),
        "execution_cost": pa.array(tr["execution_cost"]),
        "rebalance_adjustment_reason": _strings(tr["adjustment"].astype(np.int64), ADJUSTMENT_REASONS),
        "exit_reason": _strings(tr["exit_reason"].astype(np.int64), EXIT_REASONS),
    }
    return {
        "portfolio": pa.Table.from_pydict(portfolio, schema=seal.PORTFOLIO),
        "positions": pa.Table.from_pydict(
            {
                "date": _dates(market, pos["session"].astype(np.int64)),
                "symbol": pa.array(symbols[pos["name"].astype(np.int64)], type=pa.string()),
                "quantity": pa.array(pos["quantity"]),
                "mark_price": pa.array(pos["mark_price"]),
            },
            schema=seal.POSITIONS,
        ),
        "pnl": pa.Table.from_pydict(
            {
                "date": _dates(market, pnl["session"].astype(np.int64)),
                "symbol": pa.array(symbols[pnl["name"].astype(np.int64)], type=pa.string()),
                "market_pnl": pa.array(pnl["market_pnl"]),
                "execution_cost": pa.array(pnl["execution_cost"]),
                "borrow_cashflow": pa.array(pnl["borrow_cashflow"]),
            },
            schema=seal.PNL,
        ),
        "trades": pa.Table.from_pydict(trades, schema=seal.TRADES),
    }


@dataclass
class BookRun:
    """What the decision layer and the four book simulations made of one alpha's scores."""

    unavailable: np.ndarray  # (W, n) reason codes at each decision, 0 = tradeable at the next open
    decisions: selection.Decisions
    books: dict[str, BookResult]  # by book name, in BOOKS order
    forward_return: np.ndarray  # (W, n)


def run_books(
    market: Market, universe: np.ndarray, weeks: np.ndarray, score: np.ndarray, raw: np.ndarray
) -> BookRun:
    """Decide every week on `score` (the raw twins on `raw`) and simulate the four books."""
    unavailable = np.array([market.unavailability(int(d)) for d in market.decision_sessions[weeks]])[
        :, universe
    ]
    dec = selection.decide(score, raw, unavailable, len(universe))
    book_targets = {
        "long_short": dec.long_short,
        "long_only": dec.long_only,
        "raw_long_short": dec.raw_long_short,
        "raw_long_only": dec.raw_long_only,
    }
    results = {
        name: simulate_book(market, universe, weeks, dec.week_status, targets, unavailable)
        for name, targets in book_targets.items()
    }
    return BookRun(unavailable, dec, results, forward_returns(market, weeks, universe))


def seal_tables(
    market: Market,
    universe: np.ndarray,
    weeks: np.ndarray,
    score: np.ndarray,
    raw: np.ndarray,
    run: BookRun,
    kinds_sealed: tuple[str, ...],
    *,
    legacy_ic: bool,
    icir_annualised: bool,
) -> dict[str, pa.Table]:
    """The seal's tables of the kinds in `kinds_sealed`, by relative path; metrics always."""
    dec, results, fwd, unavailable = run.decisions, run.books, run.forward_return, run.unavailable
    week_dates = [market.dates[int(d)] for d in market.decision_sessions[weeks]]
    tables: dict[str, pa.Table] = {}
    if "rebalances" in kinds_sealed:
        tables[seal.kind_path("rebalances")] = pa.Table.from_pydict(
            {"date": pa.array(week_dates, type=pa.date32()), "week_status": pa.array(dec.week_status)},
            schema=seal.REBALANCES,
        )
    if "decisions" in kinds_sealed:
        tables[seal.kind_path("decisions")] = _decisions_table(
            market,
            universe,
            weeks,
            score,
            raw,
            dec,
            unavailable,
            fwd,
            results["long_short"],
            results["raw_long_short"],
        )
    if "exposures" in kinds_sealed:
        tables[seal.kind_path("exposures")] = exposures.exposures_table(market, universe, weeks)
    for name, result in results.items():
        per_kind = _book_tables(market, universe, weeks, result)
        for kind in ("portfolio", "positions", "pnl"):
            if kind in kinds_sealed:
                tables[seal.kind_path(kind, name)] = per_kind[kind]
        if "trades" in kinds_sealed:
            trades = per_kind["trades"]
            tables[seal.kind_path("trades", name)] = trades
            for suffix, variant in trade_variants(trades).items():
                tables[seal.kind_path("trades", name + suffix)] = variant

    ls = results["long_short"].ledger
    ledger = metrics.Ledger(
        dates=[market.dates[int(s)] for s in ls["session"]],
        starting_equity=ls["starting_equity"],
        ending_equity=ls["ending_equity"],
        risk_free_return=ls["risk_free_return"],
        turnover=ls["turnover"],
    )
    has_sections = "decisions" in kinds_sealed
    ic = raw_ic = coverage = None
    if has_sections:
        ic = metrics.legacy_weekly_ic(score, fwd) if legacy_ic else metrics.weekly_ic(score, fwd)
        raw_ic = metrics.weekly_ic(raw, fwd)
        coverage = (~np.isnan(score)).sum(axis=1) / len(universe)
    rows = metrics.stored_metrics(
        ledger, week_dates if has_sections else None, ic, raw_ic, coverage, icir_annualised
    )
    tables[seal.kind_path("metrics")] = metrics.metrics_table(rows)
    return tables


def run_alpha(spec: AlphaSpec, market: Market, size: str, seed: int, end: int | None = None) -> SealContent:
    """One run of the alpha over the market; `end`: the last session it saw (an index into
    `market.dates`; None, the whole market). Its scores are drawn over the whole market and cut at
    `end`, so a run that ends earlier holds exactly what a later one holds of those sessions (the
    demo's weekly runs: `pipeline.demo_history`), but for what only the later could know (a week's
    forward return, a fill on a later open)."""
    stream = [seed, 2, ALPHAS.index(spec)] if spec in ALPHAS else [seed, 3, FAMILY_IDS.index(spec.alpha_id)]
    rng = np.random.default_rng(stream)
    # A family's variants trade one universe (drawn per family), so they differ by their parameters alone.
    family = None if spec.family is None else np.random.default_rng([seed, 4, *spec.family.encode()])
    universe = pick_universe(spec, market, size, family or rng)
    published = market.published_weeks()
    weeks = published[int(round(spec.first_week_share * len(published))) :]
    flat = frozenset(int(share * len(weeks)) for share in spec.flat_week_shares)
    raw = signals.raw_scores(market, spec.signal, weeks, universe, rng, flat)
    if spec.extra_noise:  # a family variant observing its signal through more noise (alphas.FAMILIES)
        spread = float(np.nanstd(raw))
        raw = raw + spec.extra_noise * spread * rng.standard_normal(raw.shape)
    if (
        spec.reverses_after_share is not None
    ):  # the factor's payoff reversed: the signal turns against the book
        reversed_from = int(round(spec.reverses_after_share * len(weeks)))
        raw[reversed_from:] = -raw[reversed_from:]
    score = signals.smooth(raw, spec.half_life_weeks, flat)
    whole = market
    if end is not None:  # what a run sealed on session `end` holds: the weeks decided by then
        seen = market.decision_sessions[weeks] <= end
        market, weeks, raw, score = market.truncated(end), weeks[seen], raw[seen], score[seen]
    run = run_books(market, universe, weeks, score, raw)
    tables = seal_tables(
        market,
        universe,
        weeks,
        score,
        raw,
        run,
        spec.kinds_sealed,
        legacy_ic=spec.legacy_ic,
        icir_annualised=spec.icir_annualised,
    )
    week_dates = [market.dates[int(d)] for d in market.decision_sessions[weeks]]

    # A parameter is selected for a test year before that year is traded (walk-forward), so only
    # the years that began by the research cutoff can have been selected in the research: a
    # selection "by test year" past the cutoff would claim research done after it (issue 65).
    cutoff = _research_cutoff(whole, spec.research_cutoff_share)
    years = sorted({str(d.year) for d in week_dates if cutoff is None or d.isoformat() <= cutoff})
    record, zip_bytes = archive.archive_record(spec)
    manifest = {
        "seal_format": seal.SEAL_FORMAT_VERSION,
        "type": "alpha",
        "alpha_id": spec.alpha_id,
        "source_alpha_id": spec.source_alpha_id,
        "name": spec.name,
        "tldr": spec.tldr,
        "started_at": spec.started_at,
        "sealed_at": (
            dt.datetime.fromisoformat(spec.started_at) + dt.timedelta(hours=3, minutes=17)
        ).isoformat(),
        "engine_version": ENGINE_VERSION,
        "kinds_sealed": [k for k in seal.ALL_KINDS if k in spec.kinds_sealed],
        "required_kinds": [k for k in seal.ALL_KINDS if k in spec.required_kinds],
        "books": list(BOOKS),
        "trade_books": list(TRADE_BOOKS) if "trades" in spec.kinds_sealed else [],
        "signal_processing": {
            "signal": "conditioned",
            "smoothing_applied": True,
            "smoothing_half_life_weeks": spec.half_life_weeks,
            "detail": (
                f"Raw weekly scores are smoothed per name with an exponential average of half-life "
                f"{spec.half_life_weeks:g} weeks; a week without a raw score leaves the state unchanged. "
                "Books and ranks use the smoothed score; raw_ books use the raw score."
            ),
        },
        "metric_conventions": {
            "weeks_per_year": metrics.WEEKS_PER_YEAR,
            "sessions_per_year": metrics.SESSIONS_PER_YEAR,
            "icir_annualised": spec.icir_annualised,
            "risk_free_rate_source": "Demo engine's synthetic US T-bill path, accrued per session as annual rate / 252.",
        },
        "universe_size": int(len(universe)),
        "source_archive": record,
        "research_cutoff": cutoff,
    }
    if spec.family is not None:
        manifest["family"] = spec.family
        manifest["parameters"] = dict(spec.parameters)
    if spec.nomination_note is not None:
        manifest["nominate"] = True
        manifest["nomination_note"] = spec.nomination_note
    return SealContent(
        alpha_id=spec.alpha_id,
        manifest=manifest,
        tables=tables,
        description=descriptions.description(spec, years),
        source_zip=zip_bytes,
    )


def _research_cutoff(market: Market, share: float | None) -> str | None:
    """The published session `share` of the way through the market's published sessions."""
    if share is None:
        return None
    published = market.dates[market.first_session :]
    return published[int(share * (len(published) - 1))].isoformat()


def benchmark_table(market: Market) -> pa.Table:
    first = market.first_session
    closes = market.index_close[first:]
    total = market.index_total_return[first:]
    # Vendors back-adjust: the latest adjusted close equals the latest close.
    adjusted = total * (closes[-1] / total[-1])
    recorded = np.arange(len(closes)) >= UNADJUSTED_BENCHMARK_SESSIONS
    return pa.Table.from_pydict(
        {
            "date": pa.array(market.dates[first:], type=pa.date32()),
            "close": pa.array(closes),
            "adjusted_close": pa.array(adjusted, mask=~recorded),
        },
        schema=seal.BENCHMARK_DAILY,
    )
