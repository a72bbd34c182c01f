"""A tiny hand-built seal that satisfies every rule: 8 weeks x 30 names, two books, a benchmark.

Used where a test needs a seal whose every number it can state (and before or beside the demo
corpus). Values are built from a seeded generator, identities by construction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from alpha_results_seal import arrow_schemas as S

OPEN_UTC = dt.time(14, 30)


def _utc(day: dt.date, time: dt.time = OPEN_UTC) -> dt.datetime:
    return dt.datetime.combine(day, time, tzinfo=dt.UTC)


def _write(path: Path, rows: dict[str, list], schema: pa.Schema) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pydict(rows, schema=schema), path)


def write_factory_seal(
    out: Path, alpha_id: str = "Test_factory", weeks: int = 8, names: int = 30, seed: int = 3
) -> Path:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    symbols = [f"S{i:03d}" for i in range(names)]
    fridays = [dt.date(2023, 1, 6) + dt.timedelta(weeks=w) for w in range(weeks)]
    sessions = [f + dt.timedelta(days=d) for f in fridays[:-1] for d in (3, 4, 5, 6, 7)]

    statuses = ["traded"] * weeks
    statuses[-1] = "pending"
    _write(out / "rebalances.parquet", {"date": fridays, "week_status": statuses}, S.REBALANCES)

    decisions: dict[str, list] = {name: [] for name in S.DECISIONS.names}
    for w, friday in enumerate(fridays):
        score = rng.normal(size=names)
        raw = score + rng.normal(scale=0.5, size=names)
        tradeable = np.ones(names, bool)
        if w == 2:
            tradeable[0] = False
        books = {}
        for label, values in (("", score), ("raw_", raw)):
            order = np.argsort(-np.where(tradeable, values, -np.inf))
            long_only = np.zeros(names)
            long_only[order[:10]] = 0.1
            long_short = np.zeros(names)
            long_short[order[:5]] = 0.1
            eligible = [i for i in np.argsort(np.where(tradeable, values, np.inf)) if tradeable[i]][:5]
            long_short[eligible] = -0.1
            books[label] = (long_short, long_only)
        pending = statuses[w] == "pending"
        for i, symbol in enumerate(symbols):
            decisions["date"].append(friday)
            decisions["symbol"].append(symbol)
            decisions["score"].append(float(score[i]))
            decisions["direction"].append(int(np.sign(score[i])))
            decisions["confidence"].append(float(abs(score[i])))
            decisions["average_rank"].append(float(1 + np.sum(score > score[i])))
            decisions["pre_smoothing_score"].append(float(raw[i]))
            decisions["raw_direction"].append(int(np.sign(raw[i])))
            decisions["raw_confidence"].append(float(abs(raw[i])))
            decisions["raw_average_rank"].append(float(1 + np.sum(raw > raw[i])))
            decisions["long_short_target_weight"].append(float(books[""][0][i]))
            decisions["long_only_target_weight"].append(float(books[""][1][i]))
            decisions["raw_long_short_target_weight"].append(float(books["raw_"][0][i]))
            decisions["raw_long_only_target_weight"].append(float(books["raw_"][1][i]))
            decisions["next_open_tradeable"].append(bool(tradeable[i]))
            decisions["unavailability_reason"].append(None if tradeable[i] else "halted")
            decisions["decision_reason"].append(None if tradeable[i] else "gated_untradeable")
            decisions["raw_decision_reason"].append(None)
            fill = None if pending or not tradeable[i] else _utc(friday + dt.timedelta(days=3))
            decisions["fill_at"].append(fill)
            decisions["raw_fill_at"].append(fill)
            decisions["entry_at"].append(_utc(friday + dt.timedelta(days=3)))
            decisions["maturity_at"].append(_utc(friday + dt.timedelta(days=10)))
            decisions["forward_return"].append(
                None if pending else float(rng.normal(scale=0.03) + 0.01 * score[i])
            )
    _write(out / "decisions.parquet", decisions, S.DECISIONS)

    sectors = ("Energy", "Health Care", "Information Technology")
    exposures: dict[str, list] = {
        "date": [f for f in fridays for _ in symbols],
        "symbol": symbols * weeks,
        "sector": [sectors[i % len(sectors)] for _ in fridays for i in range(names)],
        **{name: list(rng.normal(size=weeks * names)) for name in S.STYLE_FACTORS},
        "adv": list(rng.uniform(1e6, 5e7, size=weeks * names)),
    }
    _write(out / "exposures.parquet", exposures, S.EXPOSURES)

    _write(
        out / "metrics.parquet",
        {
            "scope": ["overall", "yearly"],
            "period": ["", "2023"],
            "metric": ["mean_ic", "mean_ic"],
            "value": [0.02, 0.02],
        },
        S.METRICS,
    )

    books = ["long_short", "long_only"]
    closes = 10 * np.exp(np.cumsum(rng.normal(scale=0.01, size=(len(sessions), names)), axis=0))
    for book in books:
        held = np.arange(10)
        quantity = np.where(held < 5, 0.01, -0.01) if book == "long_short" else np.full(10, 0.01)
        ledger: dict[str, list] = {name: [] for name in S.PORTFOLIO.names}
        positions: dict[str, list] = {name: [] for name in S.POSITIONS.names}
        pnl: dict[str, list] = {name: [] for name in S.PNL.names}
        equity = 1.0
        cash = 1.0
        for t, day in enumerate(sessions):
            market = quantity * (closes[t, held] - (closes[t - 1, held] if t else closes[t, held]))
            cost = np.full(10, -1e-5) if t == 0 else np.zeros(10)
            borrow = np.where(quantity < 0, -2e-6, 0.0)
            carry, rounding = 3e-5, 1e-12
            ending = equity + market.sum() + cost.sum() + borrow.sum() + carry + rounding
            value = quantity * closes[t, held]
            for i, q, mark, m, c, b in zip(
                held, quantity, closes[t, held], market, cost, borrow, strict=True
            ):
                positions["date"].append(day)
                positions["symbol"].append(symbols[i])
                positions["quantity"].append(float(q))
                positions["mark_price"].append(float(mark))
                pnl["date"].append(day)
                pnl["symbol"].append(symbols[i])
                pnl["market_pnl"].append(float(m))
                pnl["execution_cost"].append(float(c))
                pnl["borrow_cashflow"].append(float(b))
            row = {
                "date": day,
                "timestamp": _utc(day, dt.time(21, 0)),
                "starting_equity": equity,
                "ending_equity": ending,
                "cash_start": cash,
                "cash_end": ending - value.sum(),
                "position_value_end": value.sum(),
                "market_pnl": market.sum(),
                "execution_cost": cost.sum(),
                "borrow_cashflow": borrow.sum(),
                "cash_carry": carry,
                "risk_free_return": 3e-5,
                "rounding_adjustment": rounding,
                "equity_basis": 1.0,
                "gross_notional": np.abs(value).sum(),
                "net_notional": value.sum(),
                "largest_abs_weight": float(np.abs(value).max() / ending),
                "turnover_notional": 0.0,
                "turnover": 0.0,
            }
            for key, value_ in row.items():
                ledger[key].append(float(value_) if isinstance(value_, np.floating) else value_)
            equity, cash = ending, ending - value.sum()
        _write(out / "portfolio" / f"{book}.parquet", ledger, S.PORTFOLIO)
        _write(out / "positions" / f"{book}.parquet", positions, S.POSITIONS)
        _write(out / "pnl" / f"{book}.parquet", pnl, S.PNL)
        trades: dict[str, list] = {name: [] for name in S.TRADES.names}
        for i, q in zip(held, quantity, strict=True):
            for phase, day, qty in (("open", sessions[0], q), ("rebalance", sessions[5], q / 10)):
                trades["timestamp"].append(_utc(day))
                trades["decision_at"].append(fridays[0] if phase == "open" else fridays[1])
                trades["symbol"].append(symbols[i])
                trades["phase"].append(phase)
                trades["quantity"].append(float(qty))
                trades["mid_price"].append(10.0)
                trades["fill_price"].append(10.01)
                trades["fee"].append(-1e-6)
                trades["execution_cost"].append(-1e-6)
                trades["rebalance_adjustment_reason"].append(
                    "entry" if phase == "open" else "weight_increase"
                )
                trades["exit_reason"].append(None)
        table = pa.Table.from_pydict(trades, schema=S.TRADES)
        (out / "trades").mkdir(exist_ok=True)
        pq.write_table(table, out / "trades" / f"{book}.parquet")
        phase = table.column("phase").to_pylist()
        pq.write_table(
            table.filter(pa.array([p == "rebalance" for p in phase])),
            out / "trades" / f"{book}_adjustments.parquet",
        )
        pq.write_table(
            table.filter(pa.array([p != "rebalance" for p in phase])),
            out / "trades" / f"{book}_settlements.parquet",
        )

    archive = b"PK\x05\x06" + b"\0" * 18
    (out / "source.zip").write_bytes(archive)
    description = {
        "name": "Factory alpha",
        "tldr": "A seal built by hand for tests.",
        "thesis": {"hypothesis": "Scores predict returns."},
        "source_papers": [
            {"title": "Seed paper", "published_date": "2001-01-01", "role": "seed", "rationale": "origin"},
            {
                "title": "Check",
                "published_date": "2010-01-01",
                "role": "validation",
                "rationale": "replication",
            },
        ],
    }
    (out / "description.json").write_text(json.dumps(description))
    manifest = {
        "seal_format": "1",
        "type": "alpha",
        "alpha_id": alpha_id,
        "source_alpha_id": f"run-{alpha_id}",
        "name": "Factory alpha",
        "tldr": "A seal built by hand for tests.",
        "started_at": "2023-01-01T00:00:00+00:00",
        "sealed_at": "2023-03-01T00:00:00+00:00",
        "engine_version": "factory-1",
        "kinds_sealed": list(S.ALL_KINDS),
        "required_kinds": list(S.ALL_KINDS),
        "books": books,
        "trade_books": [b + s for b in books for s in ("", "_adjustments", "_settlements")],
        "signal_processing": {
            "signal": "conditioned",
            "smoothing_applied": False,
            "smoothing_half_life_weeks": None,
            "detail": "none",
        },
        "metric_conventions": {
            "weeks_per_year": 52,
            "sessions_per_year": 252,
            "icir_annualised": True,
            "risk_free_rate_source": "flat",
        },
        "universe_size": names,
        "source_archive": {
            "status": "ready",
            "filename": f"{alpha_id}.zip",
            "size_bytes": len(archive),
            "sha256": hashlib.sha256(archive).hexdigest(),
        },
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return out


def write_benchmark_seal(out: Path, sessions: int = 30, seed: int = 5) -> Path:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    days = [dt.date(2023, 1, 2) + dt.timedelta(days=i) for i in range(sessions)]
    close = 400 * np.exp(np.cumsum(rng.normal(scale=0.01, size=sessions)))
    _write(
        out / "daily.parquet",
        {"date": days, "close": close.tolist(), "adjusted_close": (close * 1.01).tolist()},
        S.BENCHMARK_DAILY,
    )
    (out / "manifest.json").write_text(
        json.dumps(
            {
                "seal_format": "1",
                "type": "benchmark",
                "symbol": "SPY",
                "name": "S&P 500 ETF",
                "currency": "USD",
            }
        )
    )
    return out


def weekly_runs(root: Path, alpha_id: str = "Test_factory") -> tuple[Path, Path]:
    """Two runs of one alpha a week apart (10 weeks, then 11: the same rows and one week more)."""
    return (
        write_factory_seal(root / "v1", alpha_id=alpha_id, weeks=10),
        write_factory_seal(root / "v2", alpha_id=alpha_id, weeks=11),
    )
