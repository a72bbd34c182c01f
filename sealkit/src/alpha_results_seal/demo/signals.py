"""Raw weekly signals computed from the demo market, and the engine's smoothing of them.

Every function returns a (weeks x names) array of raw scores for the given decision weeks
(indices into `Market.decision_sessions`) and universe (name indices). A name whose price is
missing at the decision session has no valid score (NaN), as the real engine does on a data gap.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alpha_results_seal.demo.market import Market

SignalFunction = Callable[[Market, np.ndarray, np.ndarray, np.random.Generator], np.ndarray]


def _log_close(market: Market, sessions: np.ndarray, universe: np.ndarray) -> np.ndarray:
    return np.log(market.close[np.ix_(sessions, universe)])


def momentum_12_1(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Twelve-month return skipping the most recent month (log, sessions t-252 to t-21)."""
    d = market.decision_sessions[weeks]
    return _log_close(market, d - 21, universe) - _log_close(market, d - 252, universe)


def short_term_reversal(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Minus the last week's log return: last week's losers score high."""
    d = market.decision_sessions[weeks]
    return -(_log_close(market, d, universe) - _log_close(market, d - 5, universe))


def planted_factor(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The persistent latent characteristic, observed through measurement noise."""
    return market.latent[np.ix_(weeks, universe)] + 0.35 * rng.standard_normal((len(weeks), len(universe)))


def value_composite(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The slow value characteristic, observed through noisier accounting data."""
    return market.value[np.ix_(weeks, universe)] + 0.6 * rng.standard_normal((len(weeks), len(universe)))


def low_volatility(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Minus the 60-session idiosyncratic volatility: the standard deviation of daily close-to-close
    log returns net of the name's estimated beta times the universe's mean return, so the
    dollar-neutral book is roughly beta-neutral (a total-volatility sort shorts high beta)."""
    log_close = np.log(market.close[:, universe])
    daily = np.diff(log_close, axis=0, prepend=log_close[:1])
    out = np.empty((len(weeks), len(universe)))
    for i, d in enumerate(market.decision_sessions[weeks]):
        window = daily[d - 59 : d + 1]
        mkt = window.mean(axis=1)
        dm = mkt - mkt.mean()
        beta = (dm @ (window - window.mean(axis=0))) / (dm @ dm)
        out[i] = -(window - np.outer(mkt, beta)).std(axis=0, ddof=1)
    return out


def momentum_reversal_blend(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Equal blend of the cross-sectionally standardised momentum and reversal signals."""

    def z(x: np.ndarray) -> np.ndarray:
        return (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)

    return 0.5 * z(momentum_12_1(market, weeks, universe, rng)) + 0.5 * z(
        short_term_reversal(market, weeks, universe, rng)
    )


def pure_noise(
    market: Market, weeks: np.ndarray, universe: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Independent standard normal scores: nothing to do with returns (the noise trial family)."""
    return rng.standard_normal((len(weeks), len(universe)))


SIGNALS: dict[str, SignalFunction] = {
    "pure_noise": pure_noise,
    "momentum_12_1": momentum_12_1,
    "short_term_reversal": short_term_reversal,
    "planted_factor": planted_factor,
    "value_composite": value_composite,
    "low_volatility": low_volatility,
    "momentum_reversal_blend": momentum_reversal_blend,
}


def raw_scores(
    market: Market,
    signal: str,
    weeks: np.ndarray,
    universe: np.ndarray,
    rng: np.random.Generator,
    flat_weeks: frozenset[int] = frozenset(),
) -> np.ndarray:
    """Raw scores with NaN on data gaps. On a `flat_weeks` position the engine's input snapshot
    was stale and every scored name received the same value (0.0)."""
    raw = SIGNALS[signal](market, weeks, universe, rng).astype(float)
    for i in flat_weeks:
        raw[i] = 0.0
    gap = market.price_missing[np.ix_(market.decision_sessions[weeks], universe)]
    raw[gap] = np.nan
    return raw


def smooth(raw: np.ndarray, half_life_weeks: float, flat_weeks: frozenset[int] = frozenset()) -> np.ndarray:
    """Exponential smoothing per name across weeks. A missing raw score leaves the name's state
    unchanged (its score that week is missing too); a flat week is sealed as the flat value and
    does not enter the state."""
    decay = 0.5 ** (1.0 / half_life_weeks)
    out = np.full_like(raw, np.nan)
    state = np.full(raw.shape[1], np.nan)
    for w in range(raw.shape[0]):
        x = raw[w]
        if w in flat_weeks:
            out[w] = x
            continue
        valid = ~np.isnan(x)
        fresh = valid & np.isnan(state)
        state[fresh] = x[fresh]
        update = valid & ~fresh
        state[update] = decay * state[update] + (1 - decay) * x[update]
        out[w] = np.where(valid, state, np.nan)
    return out
