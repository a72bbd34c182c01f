"""What a research team's engine holds, taken from a demo seal: the columns the team has, none the
kit derives (tests/sealkit)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from alpha_results_seal.builders import DECISIONS_DERIVED, Book, Facts

BOOK_PARTS = ("positions", "pnl", "trades", "sessions")


def team_frames(seal: Path, out: Path, alpha_id: str) -> Path:
    """Writes the team's frames of the demo seal at `seal` into `out` (tests/sealkit/team_engine.py)."""
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((seal / "manifest.json").read_text())
    pl.read_parquet(seal / "decisions.parquet").drop(*DECISIONS_DERIVED).write_parquet(
        out / "decisions.parquet"
    )
    rebalances = pl.read_parquet(seal / "rebalances.parquet")
    rebalances.filter(pl.col("week_status") != "traded").write_parquet(out / "week_status.parquet")
    pl.read_parquet(seal / "metrics.parquet").write_parquet(out / "metrics.parquet")
    for book in manifest["books"]:
        pl.read_parquet(seal / "positions" / f"{book}.parquet").write_parquet(
            out / f"{book}.positions.parquet"
        )
        pnl = pl.read_parquet(seal / "pnl" / f"{book}.parquet").drop("execution_cost")
        pnl.write_parquet(out / f"{book}.pnl.parquet")
        trades = pl.read_parquet(seal / "trades" / f"{book}.parquet").drop("execution_cost")
        trades.write_parquet(out / f"{book}.trades.parquet")
        ledger = pl.read_parquet(seal / "portfolio" / f"{book}.parquet")
        ledger.select("date", "risk_free_return", "rounding_adjustment").write_parquet(
            out / f"{book}.sessions.parquet"
        )
    facts = {
        "alpha_id": alpha_id,
        "engine_version": manifest["engine_version"],
        "started_at": manifest["started_at"],
        "name": manifest["name"],
        "tldr": manifest["tldr"],
        "required_kinds": [k for k in manifest["required_kinds"] if k != "exposures"],
        "smoothing_half_life_weeks": manifest["signal_processing"]["smoothing_half_life_weeks"],
        "books": manifest["books"],
    }
    (out / "facts.json").write_text(json.dumps(facts))
    return out


def read_team(frames: Path, read: Callable[[Path], Any]) -> tuple[Facts, dict[str, Book], Any, Any]:
    """What `team_frames` wrote, read back with `read` (pandas' or polars' `read_parquet`): the
    facts, each book's frames, the decisions and the week statuses."""
    stated = json.loads((frames / "facts.json").read_text())
    books = {
        name: Book(*(read(frames / f"{name}.{part}.parquet") for part in BOOK_PARTS))
        for name in stated.pop("books")
    }
    facts = Facts(**{**stated, "started_at": dt.datetime.fromisoformat(stated["started_at"])})
    return facts, books, read(frames / "decisions.parquet"), read(frames / "week_status.parquet")
