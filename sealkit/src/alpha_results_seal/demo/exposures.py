"""The demo engine's `exposures` kind: what each name of an alpha's universe was at each rebalance
week, as a risk model would describe it, from the demo market's own state at the decision.

- `sector`: the market's sector of the name, by its GICS-style name (`market.SECTOR_NAMES`);
- style loadings, each standardised across the alpha's universe that week (mean 0, standard
  deviation 1, as Barra-style models state exposures):
  `size` log market capitalisation (shares x close), `value` the market's slow value
  characteristic, `momentum` the 12-1 log return (252 to 21 sessions before the decision, the
  planted momentum's own definition), `beta` the name's market beta, `volatility` the standard
  deviation of its daily log returns over the 63 sessions to the decision;
- `adv`: the trailing 20-session mean dollar volume at the decision (`market.adv_dollars`).

The planted latent characteristic is deliberately not a loading: it is what a good alpha finds
beyond the risk model, so its P&L shows up as specific return.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from alpha_results_seal import arrow_schemas as seal
from alpha_results_seal.demo.market import SECTOR_NAMES, Market

MOMENTUM_SESSIONS = (252, 21)
VOLATILITY_SESSIONS = 63


def _standardised(values: np.ndarray) -> np.ndarray:
    """Each row (a week) standardised across its names: mean 0, population standard deviation 1."""
    mean = values.mean(axis=1, keepdims=True)
    sd = values.std(axis=1, keepdims=True)
    return np.divide(values - mean, sd, out=np.zeros_like(values), where=sd > 0)


def _trailing_volatility(log_close: np.ndarray, sessions: np.ndarray) -> np.ndarray:
    """(W, N) standard deviation (ddof 1) of the daily log returns over the VOLATILITY_SESSIONS
    sessions ending at each decision session."""
    step = np.diff(log_close, axis=0, prepend=log_close[:1])
    first = np.cumsum(step, axis=0)
    second = np.cumsum(step * step, axis=0)
    n = VOLATILITY_SESSIONS
    lo = np.maximum(sessions - n, 0)
    total, squares = first[sessions] - first[lo], second[sessions] - second[lo]
    variance = (squares - total * total / n) / (n - 1)
    return np.sqrt(np.maximum(variance, 0.0))


def exposures_table(market: Market, universe: np.ndarray, weeks: np.ndarray) -> pa.Table:
    """One row per (rebalance week, name of `universe`), in (date, symbol) order."""
    sessions = market.decision_sessions[weeks]
    close = market.close[:, universe]
    log_close = np.log(close)
    far, near = MOMENTUM_SESSIONS
    styles = {
        "size": np.log(market.shares_outstanding[universe] * close[sessions]),
        "value": market.value[weeks][:, universe],
        "momentum": log_close[np.maximum(sessions - near, 0)] - log_close[np.maximum(sessions - far, 0)],
        "beta": np.broadcast_to(market.beta[universe], (len(weeks), len(universe))),
        "volatility": _trailing_volatility(log_close, sessions),
    }
    symbols = market.symbols[universe]
    order = np.argsort(symbols, kind="stable")
    n_weeks, n = len(weeks), len(universe)
    columns = {
        "date": pa.array(np.repeat([market.dates[int(s)] for s in sessions], n), type=pa.date32()),
        "symbol": pa.array(np.tile(symbols[order], n_weeks), type=pa.string()),
        "sector": pa.array(
            np.tile(np.array(SECTOR_NAMES, dtype=object)[market.sectors[universe]][order], n_weeks),
            type=pa.string(),
        ),
        **{name: pa.array(_standardised(styles[name])[:, order].ravel()) for name in seal.STYLE_FACTORS},
        "adv": pa.array(market.adv_dollars[sessions][:, universe][:, order].ravel()),
    }
    return pa.Table.from_pydict(columns, schema=seal.EXPOSURES)
