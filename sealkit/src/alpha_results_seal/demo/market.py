"""The synthetic US-style equity market every demo alpha trades.

Returns have a market factor, sector factors and fat-tailed (Student-t, df 4) idiosyncratic
noise with name-specific volatility and beta, split into an overnight gap and an intraday move.
Idiosyncratic log returns carry a -sigma^2/2 drift so a name's expected arithmetic return does
not grow with its volatility (volatile names have a lower median, not a higher mean).

A small predictable component is planted in next-week returns (12-1 momentum, one-week
reversal, a persistent latent characteristic and a slow "value" characteristic) so the alphas
find realistic, small rank ICs. Each component's payoff varies week to week like a real factor's:
its nominal loading is scaled by a payoff multiplier with a persistent regime (crowding, investor
attention; it turns negative for spells), a weekly factor shock, and for momentum a crash term
(momentum loses when the market rebounds while it is in a drawdown). The multipliers are centred
to mean 1 over the published weeks, so the long-run premium is the nominal loading for any seed
and the weekly IC has the spread of a real signal's (std ~0.1, annualised ICIR ~1-2). The frictions (halts, suspensions, borrow, liquidity, data gaps)
are what makes a name untradeable at the next open.

The simulation starts a warm-up year before the first published session so 12-1 momentum is
defined from the first published week; nothing before `first_session` is ever sealed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import numpy as np

from alpha_results_seal.demo import calendar
from alpha_results_seal.demo.sizes import SIZES
from alpha_results_seal.identifiers import MARKET_BENCHMARK

FIRST_PUBLISHED_SESSION = dt.date(2021, 1, 4)
WARMUP_SESSIONS = 260
N_SECTORS = 11
# The demo's sectors, named as GICS names its eleven (the `exposures` kind seals them by name).
SECTOR_NAMES = (
    "Energy",
    "Materials",
    "Industrials",
    "Consumer Discretionary",
    "Consumer Staples",
    "Health Care",
    "Financials",
    "Information Technology",
    "Communication Services",
    "Utilities",
    "Real Estate",
)
ILLIQUID_DOLLAR_VOLUME = 2.0e6  # trailing ADV_SESSIONS-session mean below this fails the liquidity screen
ADV_SESSIONS = 20
UNADJUSTED_BENCHMARK_SESSIONS = 63  # adjusted close recorded only after ~3 months

# Unavailability reason codes in priority order (index + 1 is the code; 0 = tradeable).
REASONS = ("suspended", "halted", "data_gap", "no_borrow", "illiquid")

# Planted next-week drift loadings (weekly log-return per cross-sectional standard deviation).
MOMENTUM_LOADING = 0.0007
REVERSAL_LOADING = 0.0034
LATENT_LOADING = 0.0017
VALUE_LOADING = 0.00053
LATENT_PERSISTENCE = 0.80
VALUE_PERSISTENCE = 0.98


@dataclass(frozen=True)
class PayoffRegime:
    """Weekly payoff multiplier m_t = 1 + regime_sd * x_t + shock_sd * e_t, with x_t a unit-variance
    AR(1) of the given persistence and e_t an iid weekly factor shock (Student-t, df 5)."""

    persistence: float
    regime_sd: float
    shock_sd: float


PAYOFF_COMPONENTS = ("momentum", "reversal", "latent", "value")
PAYOFF_REGIMES = {
    "momentum": PayoffRegime(persistence=0.95, regime_sd=1.8, shock_sd=4.4),
    "reversal": PayoffRegime(persistence=0.90, regime_sd=0.5, shock_sd=1.5),
    "latent": PayoffRegime(persistence=0.93, regime_sd=1.6, shock_sd=3.6),
    "value": PayoffRegime(persistence=0.97, regime_sd=1.5, shock_sd=2.0),
}
# Momentum crash: payoff multiplier lost per weekly market standard deviation of a rebound, in
# weeks whose decision finds the market below its level MOMENTUM_CRASH_LOOKBACK weeks earlier.
MOMENTUM_CRASH = 2.0
MOMENTUM_CRASH_LOOKBACK = 26


@dataclass(frozen=True)
class Market:
    symbols: np.ndarray  # (N,) str
    sectors: np.ndarray  # (N,) int, an index into SECTOR_NAMES
    beta: np.ndarray  # (N,) loading on the market factor
    idio_vol: np.ndarray  # (N,) daily idiosyncratic volatility
    shares_outstanding: np.ndarray  # (N,) the index's shares (market capitalisation = shares x close)
    dates: list[dt.date]  # every simulated session, warm-up included
    first_session: int  # index of the first published session
    open_utc: np.ndarray  # (T,) datetime64[us], UTC
    close_utc: np.ndarray  # (T,)
    open: np.ndarray  # (T, N) observed open; carries the last close when the name did not print
    close: np.ndarray  # (T, N) observed close, carried the same way (marks use it)
    price_missing: np.ndarray  # (T, N) data gap: the vendor delivered no price that session
    halted: np.ndarray  # (T, N)
    suspended: np.ndarray  # (T, N)
    no_borrow: np.ndarray  # (T, N)
    illiquid: np.ndarray  # (T, N) trailing dollar volume below the screen
    adv_dollars: np.ndarray  # (T, N) trailing 20-session mean dollar volume
    borrow_rate: np.ndarray  # (N,) annual borrow fee on short notional; (T, N) when it varies by session
    decision_sessions: np.ndarray  # (W,) session index of each week's last session
    latent: np.ndarray  # (W, N) planted persistent characteristic, known at each decision
    payoff: np.ndarray  # (W, 4) payoff multiplier of each PAYOFF_COMPONENTS drift set at decision w
    value: np.ndarray  # (W, N) slow characteristic
    outage_block: np.ndarray  # (N,) names served by the vendor feed that had an outage
    risk_free_annual: np.ndarray  # (T,)
    index_close: np.ndarray  # (T,) the market benchmark's price index (drops on ex-dividend sessions)
    index_total_return: np.ndarray  # (T,) the same index with dividends reinvested

    @property
    def n_names(self) -> int:
        return len(self.symbols)

    @property
    def risk_free_session(self) -> np.ndarray:
        return self.risk_free_annual / 252.0

    def truncated(self, last: int) -> Market:
        """The market as the engine saw it on session `last` (an index into `dates`): every
        series up to it, the weeks decided on or before it. What a run sealed that day reads; the
        sessions before are the same as the whole market's, so two runs agree on what both hold."""
        weeks = self.decision_sessions <= last
        sessions = len(self.dates)
        fields = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "dates":
                value = value[: last + 1]
            elif name in ("decision_sessions", "latent", "payoff", "value"):
                value = value[weeks]
            elif isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == sessions:
                value = value[: last + 1]
            fields[name] = value
        return Market(**fields)

    def corrected(self, sessions: tuple[int, ...], factor: float) -> Market:
        """The market after a vendor corrected the closing prices of `sessions` (every name's close
        times `factor`): what a run sealed after the correction reads (the demo's restated run)."""
        close = self.close.copy()
        close[list(sessions)] *= factor
        return replace(self, close=close)

    def published_weeks(self) -> np.ndarray:
        """Indices into `decision_sessions` of the weeks whose decision is a published session."""
        return np.flatnonzero(self.decision_sessions >= self.first_session)

    def unavailability(self, decision_session: int) -> np.ndarray:
        """Reason code per name (0 tradeable, else 1 + index into REASONS) for the open after
        `decision_session`. The last session has no next open: every name is judged on that
        session alone, as the engine does when it seals a pending week."""
        nxt = min(decision_session + 1, len(self.dates) - 1)
        flags = (
            self.suspended[nxt] | self.suspended[decision_session],
            self.halted[nxt],
            self.price_missing[decision_session] | self.price_missing[nxt],
            self.no_borrow[nxt],
            self.illiquid[decision_session],
        )
        code = np.zeros(self.n_names, dtype=np.int8)
        for i in range(len(flags) - 1, -1, -1):
            code[flags[i]] = i + 1
        return code


def _symbols(rng: np.random.Generator, n: int) -> np.ndarray:
    letters = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    seen: set[str] = {MARKET_BENCHMARK}
    out: list[str] = []
    while len(out) < n:
        length = 3 if rng.random() < 0.55 else 4
        name = "".join(rng.choice(letters, size=length))
        if name not in seen:
            seen.add(name)
            out.append(name)
    return np.array(out)


def trailing_mean(values: np.ndarray, sessions: int = ADV_SESSIONS) -> np.ndarray:
    """(T, N) mean over the `sessions` sessions ending at each session, that session included (the
    first sessions average what there is): how `adv_dollars` is computed from dollar volume."""
    csum = np.cumsum(values, axis=0)
    out = np.empty(values.shape)
    head = min(sessions, len(values))
    out[:head] = csum[:head] / np.arange(1, head + 1)[:, None]
    out[sessions:] = (csum[sessions:] - csum[:-sessions]) / float(sessions)
    return out


def _zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)


def _spells(
    rng: np.random.Generator, shape: tuple[int, int], start_prob: float, lo: int, hi: int
) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    starts = np.argwhere(rng.random(shape) < start_prob)
    lengths = rng.integers(lo, hi + 1, size=len(starts))
    for (t, n), length in zip(starts, lengths, strict=True):
        mask[t : t + length, n] = True
    return mask


def forward_fill(values: np.ndarray) -> np.ndarray:
    valid = ~np.isnan(values)
    idx = np.where(valid, np.arange(values.shape[0])[:, None], 0)
    np.maximum.accumulate(idx, axis=0, out=idx)
    return values[idx, np.arange(values.shape[1])]


def _risk_free_path(dates: list[dt.date]) -> np.ndarray:
    knots = [
        (dt.date(2020, 1, 1), 0.0005),
        (dt.date(2022, 2, 28), 0.0005),
        (dt.date(2023, 7, 31), 0.0530),
        (dt.date(2024, 8, 31), 0.0530),
        (dt.date(2025, 3, 31), 0.0430),
        (dt.date(2027, 12, 31), 0.0390),
    ]
    x = np.array([k[0].toordinal() for k in knots], dtype=float)
    y = np.array([k[1] for k in knots])
    return np.interp([d.toordinal() for d in dates], x, y)


def _ex_dividend_sessions(dates: list[dt.date]) -> np.ndarray:
    """Last session on or before the third Friday of March, June, September and December."""
    out: list[int] = []
    for i, day in enumerate(dates):
        if day.month % 3 != 0:
            continue
        third_friday = calendar.nth_weekday(day.year, day.month, 4, 3)
        nxt = dates[i + 1] if i + 1 < len(dates) else None
        if day <= third_friday and (nxt is None or nxt > third_friday):
            out.append(i)
    return np.array(out, dtype=np.int64)


def _payoff_multipliers(
    rng: np.random.Generator,
    decisions: np.ndarray,
    published: np.ndarray,
    market_log_return: np.ndarray,
) -> np.ndarray:
    """(W, 4) payoff multipliers, one column per PAYOFF_COMPONENTS entry; row w scales the drift
    set at decision w (earned over the following week)."""
    n_weeks = len(decisions)
    out = np.empty((n_weeks, len(PAYOFF_COMPONENTS)))
    for j, component in enumerate(PAYOFF_COMPONENTS):
        regime = PAYOFF_REGIMES[component]
        x = np.empty(n_weeks)
        x[0] = rng.standard_normal()
        innovations = np.sqrt(1 - regime.persistence**2) * rng.standard_normal(n_weeks)
        for w in range(1, n_weeks):
            x[w] = regime.persistence * x[w - 1] + innovations[w]
        shock = rng.standard_t(5, size=n_weeks) / np.sqrt(5 / 3)
        out[:, j] = 1.0 + regime.regime_sd * x + regime.shock_sd * shock
    # Momentum crashes when the market rebounds out of a drawdown (past losers are the rebounders).
    level = np.concatenate([[0.0], np.cumsum(market_log_return)])
    at_decision = level[decisions + 1]
    next_week = np.append(at_decision[1:] - at_decision[:-1], 0.0)
    trailing = at_decision - at_decision[np.maximum(np.arange(n_weeks) - MOMENTUM_CRASH_LOOKBACK, 0)]
    rebound = np.maximum(next_week / next_week.std(), 0.0)
    out[:, 0] -= MOMENTUM_CRASH * rebound * (trailing < 0)
    out += 1.0 - out[published].mean(axis=0)
    return out


def simulate_market(size: str = "full", seed: int = 7) -> Market:
    cfg = SIZES[size]
    rng = np.random.default_rng([seed, 1])
    n = cfg.n_names
    dates = calendar.sessions_before(FIRST_PUBLISHED_SESSION, WARMUP_SESSIONS) + calendar.trading_sessions(
        FIRST_PUBLISHED_SESSION, cfg.n_sessions
    )
    t_all = len(dates)
    first = WARMUP_SESSIONS
    decisions = calendar.week_last_sessions(dates)
    n_weeks = len(decisions)

    symbols = _symbols(rng, n)
    sectors = rng.integers(0, N_SECTORS, size=n)
    beta = np.clip(rng.normal(1.0, 0.25, n), 0.3, 2.0)
    idio_vol = np.clip(np.exp(rng.normal(np.log(0.013), 0.35, n)), 0.005, 0.045)

    def student_t(shape: tuple[int, ...]) -> np.ndarray:
        return rng.standard_t(4, size=shape) / np.sqrt(2.0)  # unit variance at df 4

    mkt_on = 0.00010 + 0.004 * student_t((t_all,))
    mkt_id = 0.00016 + 0.009 * student_t((t_all,))
    sec_on = 0.002 * rng.standard_normal((t_all, N_SECTORS))
    sec_id = 0.005 * rng.standard_normal((t_all, N_SECTORS))
    # Idiosyncratic log returns drift by -sigma^2/2 so their expected arithmetic return is zero.
    r_on = (
        beta * mkt_on[:, None]
        + sec_on[:, sectors]
        + np.sqrt(0.35) * idio_vol * student_t((t_all, n))
        - 0.5 * 0.35 * idio_vol**2
    )
    r_id = (
        beta * mkt_id[:, None]
        + sec_id[:, sectors]
        + np.sqrt(0.65) * idio_vol * student_t((t_all, n))
        - 0.5 * 0.65 * idio_vol**2
    )

    latent = np.empty((n_weeks, n))
    value = np.empty((n_weeks, n))
    latent[0] = rng.standard_normal(n)
    value[0] = rng.standard_normal(n)
    for w in range(1, n_weeks):
        latent[w] = LATENT_PERSISTENCE * latent[w - 1] + np.sqrt(
            1 - LATENT_PERSISTENCE**2
        ) * rng.standard_normal(n)
        value[w] = VALUE_PERSISTENCE * value[w - 1] + np.sqrt(1 - VALUE_PERSISTENCE**2) * rng.standard_normal(
            n
        )

    payoff = _payoff_multipliers(
        np.random.default_rng([seed, 3]), decisions, np.flatnonzero(decisions >= first), mkt_on + mkt_id
    )
    m_mom, m_rev, m_lat, m_val = payoff.T

    # Week by week, because the planted momentum and reversal drifts depend on the path so far.
    log_close = np.empty((t_all, n))
    log_open = np.empty((t_all, n))
    prev = np.log(np.exp(rng.normal(np.log(40.0), 0.8, n)).clip(3.0, 900.0))
    start = 0
    drift = np.zeros(n)
    for w in range(n_weeks):
        end = decisions[w] + 1
        k = end - start
        intraday = r_id[start:end] + drift / k
        steps = np.empty((2 * k, n))
        steps[0::2] = r_on[start:end]
        steps[1::2] = intraday
        path = prev + np.cumsum(steps, axis=0)
        log_open[start:end] = path[0::2]
        log_close[start:end] = path[1::2]
        prev = log_close[end - 1]
        d = decisions[w]
        reversal = log_close[d] - log_close[max(d - 5, 0)]
        momentum = log_close[d - 21] - log_close[d - 252] if d >= 252 else np.zeros(n)
        drift = (
            MOMENTUM_LOADING * m_mom[w] * _zscore(momentum)
            - REVERSAL_LOADING * m_rev[w] * _zscore(reversal)
            + LATENT_LOADING * m_lat[w] * latent[w]
            + VALUE_LOADING * m_val[w] * value[w]
        )
        start = end
    true_open = np.exp(log_open)
    true_close = np.exp(log_close)

    # Frictions. Each sits on published sessions only so the warm-up stays clean.
    shape = (t_all, n)
    halted = rng.random(shape) < 0.003
    suspended = _spells(rng, shape, 0.0003, 10, 35)
    borrow_rate = np.exp(rng.normal(np.log(0.004), 0.3, n))
    hard_to_borrow = rng.random(n) < 0.12
    hard_to_borrow[rng.choice(n, size=max(2, n // 25), replace=False)] = True
    borrow_rate[hard_to_borrow] = rng.uniform(0.05, 0.30, hard_to_borrow.sum())
    no_borrow = _spells(rng, shape, 0.004, 5, 30) & hard_to_borrow
    price_missing = rng.random(shape) < 0.002

    published_weeks = np.flatnonzero(decisions >= first)
    n_pub = len(published_weeks)
    # A vendor feed outage: a block of names delivers patchy prices for eight weeks.
    outage_block = np.zeros(n, dtype=bool)
    outage_block[rng.choice(n, size=int(round(0.4 * n)), replace=False)] = True
    intensity = (0.5, 0.7, 0.85, 1.0, 1.0, 0.75, 0.6, 0.3)
    w0 = published_weeks[int(0.45 * n_pub)]
    for j, p in enumerate(intensity):
        lo, hi = decisions[w0 + j - 1] + 1, decisions[w0 + j] + 1
        price_missing[lo:hi] |= (rng.random((hi - lo, n)) < p) & outage_block
    # A market-wide feed failure on one decision session.
    wide = decisions[published_weeks[int(0.3 * n_pub)]]
    price_missing[wide] |= rng.random(n) < 0.97
    # One certain multi-week suspension inside the published window.
    s0 = decisions[published_weeks[int(0.35 * n_pub)]] - 2
    suspended[s0 : s0 + 15, int(rng.integers(n))] = True

    liquidity = np.exp(rng.normal(np.log(3.0e7), 1.1, n))
    thin = rng.choice(n, size=max(3, n // 25), replace=False)
    liquidity[thin] = rng.uniform(1.6e6, 2.6e6, len(thin))
    wander = np.cumsum(0.05 * rng.standard_normal(shape), axis=0)
    wander -= wander.mean(axis=0)
    dollar_volume = liquidity * np.exp(np.clip(wander, -1.0, 1.0) + 0.4 * rng.standard_normal(shape))
    adv = trailing_mean(dollar_volume)
    illiquid = adv < ILLIQUID_DOLLAR_VOLUME

    for mask in (halted, suspended, no_borrow, price_missing, illiquid):
        mask[:first] = False
    halted[first] = suspended[first] = price_missing[first] = False

    no_print = halted | suspended | price_missing
    close = forward_fill(np.where(no_print, np.nan, true_close))
    carried = np.vstack([close[:1], close[:-1]])
    open_ = np.where(no_print, carried, true_open)

    # The market benchmark's index: cap-weighted over the true prices, a ~1.5%/yr dividend paid quarterly.
    shares = np.exp(rng.normal(np.log(2.0e9), 1.0, n)) / true_close[0]
    ret = np.zeros(t_all)
    ret[1:] = (shares * true_close[1:]).sum(axis=1) / (shares * true_close[:-1]).sum(axis=1) - 1.0
    ex_div = np.zeros(t_all, dtype=bool)
    ex_div[_ex_dividend_sessions(dates)] = True
    index_close = np.empty(t_all)
    index_tr = np.empty(t_all)
    index_close[0] = index_tr[0] = 1.0
    for t in range(1, t_all):
        index_tr[t] = index_tr[t - 1] * (1 + ret[t])
        dividend = 0.015 / 4 * index_close[t - 1] if ex_div[t] else 0.0
        index_close[t] = index_close[t - 1] * (1 + ret[t]) - dividend
    scale = 368.79 / index_close[first]
    index_close *= scale
    index_tr *= scale

    return Market(
        symbols=symbols,
        sectors=sectors,
        beta=beta,
        idio_vol=idio_vol,
        shares_outstanding=shares,
        dates=dates,
        first_session=first,
        open_utc=calendar.open_instants(dates),
        close_utc=calendar.close_instants(dates),
        open=open_,
        close=close,
        price_missing=price_missing,
        halted=halted,
        suspended=suspended,
        no_borrow=no_borrow,
        illiquid=illiquid,
        adv_dollars=adv,
        borrow_rate=borrow_rate,
        decision_sessions=decisions,
        latent=latent,
        payoff=payoff,
        value=value,
        outage_block=outage_block,
        risk_free_annual=_risk_free_path(dates),
        index_close=index_close,
        index_total_return=index_tr,
    )
