"""A book's sealed fills with their session, equity basis and adv, read from the build's rows of
the lake's open tables (`tests.support.build_tables`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tests.analytics.reference import Lake, iso
from tests.support.build_tables import build_pandas, has_table


def fills_of(lake: Lake, alpha: str, book: str) -> pd.DataFrame:
    """The book's sealed fills with their session (the New York date of the fill's timestamp), the
    ledger's equity basis of that session, and the adv of (decision_at, symbol) in the exposures."""
    build = lake.build(alpha)
    trades = build_pandas(build, "trades", book)
    stamps = pd.to_datetime(trades["timestamp"], utc=True).dt.tz_convert("America/New_York")
    trades["session"] = stamps.dt.strftime("%Y-%m-%d")
    trades["decision_at"] = iso(trades["decision_at"])
    ledger = lake.ledger(alpha, book)
    assert ledger is not None
    trades = trades.merge(
        ledger[["date", "equity_basis"]].rename(columns={"date": "session"}), on="session", how="left"
    )
    if has_table(build, "exposures"):
        exposures = build_pandas(build, "exposures")[["date", "symbol", "adv"]].copy()
        exposures["decision_at"] = iso(exposures["date"])
        trades = trades.merge(
            exposures[["decision_at", "symbol", "adv"]], on=["decision_at", "symbol"], how="left"
        )
    else:
        trades["adv"] = np.nan
    trades["notional"] = (trades["quantity"] * trades["fill_price"]).abs() / trades["equity_basis"]
    cost = -trades["execution_cost"]
    fee = np.minimum(np.maximum(trades["fee"], 0.0), np.maximum(cost, 0.0))
    trades["slippage"] = cost - fee
    return trades.sort_values(["session", "symbol"], kind="stable").reset_index(drop=True)
