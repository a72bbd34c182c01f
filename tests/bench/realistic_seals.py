"""Realistic alphas for one machine (issue 78, item 5): `just realistic-seals`.

`python -m tests.bench.realistic_seals [--names 1000 3000] [--years 1 5 20] [--out var/realistic-seals]
[--seed 78] [--next-week]` writes, with the seal kit's own `seal_from_factor`, one seal per (names,
years): `OUT/base/Test_realistic_<names>x<years>y`, and with `--next-week` the same alpha one week
later, `OUT/next/Test_realistic_<names>x<years>y` (the same id, the same weeks and one more: its
next weekly run). Deterministic from the seed: every week draws from its own generator
(`default_rng([seed, names, week])`), so a longer history is the shorter one and more, row for
row; only the manifest's `sealed_at` is the time of the call.

The factor is a persistent score per name (a weekly AR(1), `PERSISTENCE`), and each name's daily
log return is a small loading on last week's score plus noise, so the books hold 10 % of the names
a side (long_short: 200 of 1,000) with a realistic turnover. Sessions are the weekdays from
`START`, 52 weeks a year; a decision is each week's Friday close. `adv_dollars` and `borrow_rate`
take `seal_from_factor`'s defaults.

Prints one line per seal: its folder, rows of `prices`, seconds to write and bytes on disk.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from alpha_results_seal.factor import seal_from_factor

REPO = Path(__file__).resolve().parents[2]
START = dt.date(2005, 1, 3)  # a Monday: 20 years and a week end before 2026
STARTED_AT = dt.datetime(2026, 1, 5, tzinfo=dt.UTC)
SESSIONS_PER_WEEK = 5
WEEKS_PER_YEAR = 52
PERSISTENCE = 0.5  # week-to-week autocorrelation of a name's score: turnover about 14 a year
LOADING = 0.0004  # daily log return per unit of last week's score
DAILY_VOL = 0.02
HALF_LIFE_WEEKS = 4.0
RISK_FREE = 0.03


def alpha_id(names: int, years: int) -> str:
    return f"Test_realistic_{names}x{years}y"


def frames(names: int, weeks: int, seed: int) -> tuple[pa.Table, pa.Table]:
    """(scores, prices) of `names` names over `weeks` weeks; week w's draws depend only on
    (seed, names, w), so the frames of more weeks extend those of fewer."""
    symbols = np.array([f"N{i:05d}" for i in range(names)])
    score = np.empty((weeks, names))
    log_close = np.empty((weeks * SESSIONS_PER_WEEK, names))
    level = np.log(50.0) * np.ones(names)
    for w in range(weeks):
        rng = np.random.default_rng([seed, names, w])
        shock = rng.standard_normal(names)
        if w == 0:
            score[w] = shock
        else:
            score[w] = PERSISTENCE * score[w - 1] + np.sqrt(1 - PERSISTENCE**2) * shock
        drift = LOADING * (score[w - 1] if w else np.zeros(names))
        daily = drift + DAILY_VOL * rng.standard_normal((SESSIONS_PER_WEEK, names))
        block = level + np.cumsum(daily, axis=0)
        log_close[w * SESSIONS_PER_WEEK : (w + 1) * SESSIONS_PER_WEEK] = block
        level = block[-1]
    days = np.busday_offset(np.datetime64(START, "D"), np.arange(weeks * SESSIONS_PER_WEEK), roll="forward")
    fridays = days[SESSIONS_PER_WEEK - 1 :: SESSIONS_PER_WEEK]
    close = np.exp(log_close)
    open_ = np.vstack([close[:1], close[:-1]])  # fills at the open: the last close, no overnight gap
    scores = pa.table(
        {
            "date": pa.array(np.repeat(fridays, names), pa.date32()),
            "symbol": pa.array(np.tile(symbols, weeks)),
            "score": score.ravel(),
        }
    )
    prices = pa.table(
        {
            "date": pa.array(np.repeat(days, names), pa.date32()),
            "symbol": pa.array(np.tile(symbols, len(days))),
            "open": open_.ravel(),
            "close": close.ravel(),
        }
    )
    return scores, prices


def write(names: int, years: int, extra_weeks: int, out: Path, seed: int) -> Path:
    scores, prices = frames(names, years * WEEKS_PER_YEAR + extra_weeks, seed)
    return seal_from_factor(
        scores,
        prices,
        out,
        alpha_id=alpha_id(names, years),
        name=f"Realistic {names:,} names x {years} years",
        tldr="A persistent synthetic score with a small daily payoff (tests/bench/realistic_seals.py).",
        half_life_weeks=HALF_LIFE_WEEKS,
        risk_free=RISK_FREE,
        started_at=STARTED_AT,
    )


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--years", type=int, nargs="+", default=[1, 5, 20])
    parser.add_argument("--out", type=Path, default=REPO / "var" / "realistic-seals")
    parser.add_argument("--seed", type=int, default=78)
    parser.add_argument("--next-week", action="store_true", help="also write each alpha one week later")
    args = parser.parse_args()
    for names in args.names:
        for years in args.years:
            for folder, extra in (("base", 0), ("next", 1))[: 2 if args.next_week else 1]:
                started = time.perf_counter()
                seal = write(names, years, extra, args.out / folder, args.seed)
                seconds = time.perf_counter() - started
                rows = names * (years * WEEKS_PER_YEAR + extra) * SESSIONS_PER_WEEK
                print(
                    f"{seal}  prices {rows:,} rows  {seconds:.1f} s  {folder_bytes(seal):,} bytes", flush=True
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
