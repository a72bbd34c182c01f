"""Day-by-day simulation of one book of one alpha.

The book is normalised: 1.0 of equity at inception, quantities are fractional shares of that
1.0 book. A traded week's targets are filled at the next session's open (the mid) with a
per-share fee and modelled impact (half spread plus k * sqrt(participation)); names that are
untradeable at that open keep what they hold. Shorts pay a daily borrow fee, cash earns the
session risk-free rate, and positions are marked at the close (a name that did not print
carries its last close).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alpha_results_seal.demo.market import Market

BOOK_AUM_DOLLARS = 5.0e7  # the dollar size behind the normalised book, for participation only
FEE_PER_SHARE = 0.005  # dollars per share; in normalised units the same number per share of q
IMPACT_COEFFICIENT = 0.01
REBALANCE_BAND = 0.0005  # held names are re-targeted only when off by more than 5 bp of equity

PHASE_OPEN, PHASE_REBALANCE, PHASE_CLOSE = 0, 1, 2
PHASES = ("open", "rebalance", "close")
ADJ_ENTRY, ADJ_INCREASE, ADJ_DECREASE, ADJ_EXIT = 0, 1, 2, 3
ADJUSTMENT_REASONS = ("entry", "weight_increase", "weight_decrease", "exit")
EXIT_NONE, EXIT_SIGNAL, EXIT_RISK = 0, 1, 2
EXIT_REASONS = (None, "signal_exit", "risk_exit")


@dataclass
class BookResult:
    ledger: dict[str, np.ndarray]  # one entry per session, keyed by PORTFOLIO column
    positions: dict[str, np.ndarray]  # session index, name index, quantity, mark_price
    pnl: dict[str, np.ndarray]  # session index, name index, market_pnl, execution_cost, borrow_cashflow
    trades: dict[str, np.ndarray]  # session index, week, name index, phase, quantity, prices, costs, reasons
    fill_session: np.ndarray  # (W, n) session index of the fill implementing that week's target, -1 if none


def half_spread(adv_dollars: np.ndarray) -> np.ndarray:
    return np.clip(0.0002 + 0.0003 * np.sqrt(3.0e7 / adv_dollars), 0.0002, 0.005)


def simulate_book(
    market: Market,
    universe: np.ndarray,
    weeks: np.ndarray,
    week_status: list[str],
    targets: np.ndarray,
    unavailable: np.ndarray,
) -> BookResult:
    decision = market.decision_sessions[weeks]
    first, last = int(decision[0]), len(market.dates) - 1
    fill_week = {int(decision[w]) + 1: w for w in range(len(weeks)) if week_status[w] == "traded"}
    opens = market.open[:, universe]
    closes = market.close[:, universe]
    adv = market.adv_dollars[:, universe]
    n = len(universe)
    # (N,) one rate per name, or (T, N) a rate per session (the factor path's borrow column).
    borrow_daily = np.broadcast_to(market.borrow_rate[..., universe], (len(market.dates), n)) / 252.0
    rf = market.risk_free_session
    q = np.zeros(n)
    cash = 1.0
    equity = 1.0
    stuck = np.zeros(n, dtype=bool)  # held while untradeable at a decision: closed as a risk exit
    fill_session = np.full(targets.shape, -1, dtype=np.int64)
    n_sessions = last - first + 1
    ledger: dict[str, np.ndarray] = {
        k: np.zeros(n_sessions)
        for k in (
            "starting_equity ending_equity cash_start cash_end position_value_end market_pnl execution_cost "
            "borrow_cashflow cash_carry risk_free_return rounding_adjustment gross_notional net_notional "
            "largest_abs_weight turnover_notional turnover"
        ).split()
    }
    pos_parts: list[tuple[np.ndarray, ...]] = []
    pnl_parts: list[tuple[np.ndarray, ...]] = []
    trade_parts: list[tuple[np.ndarray, ...]] = []

    for i, s in enumerate(range(first, last + 1)):
        o, c, pc = opens[s], closes[s], closes[s - 1]
        cash_start, start_equity = cash, equity
        carry = cash_start * rf[s]
        dq = np.zeros(n)
        cost_by_name = np.zeros(n)
        q_new = q
        w = fill_week.get(s)
        if w is not None:
            tradeable = unavailable[w] == 0
            open_equity = cash_start + float(q @ o)
            target_q = np.where(tradeable, targets[w] * open_equity / o, q)
            dq = target_q - q
            small = tradeable & (q != 0) & (target_q != 0) & (np.abs(dq * o) < REBALANCE_BAND * open_equity)
            dq[small] = 0.0
            stuck |= (q != 0) & ~tradeable
            traded = np.flatnonzero(dq != 0)
            if len(traded):
                q_new = q + dq
                q_new[traded[target_q[traded] == 0]] = 0.0  # exits close exactly to zero
                dq = q_new - q
                mid = o[traded]
                participation = np.abs(dq[traded]) * mid * BOOK_AUM_DOLLARS / adv[s, traded]
                slip = half_spread(adv[s, traded]) + IMPACT_COEFFICIENT * np.sqrt(participation)
                fill = mid * (1 + np.sign(dq[traded]) * slip)
                fee = FEE_PER_SHARE * np.abs(dq[traded])
                cost = -(fee + np.abs(dq[traded]) * np.abs(fill - mid))
                cost_by_name[traded] = cost
                old, new = q[traded], q_new[traded]
                phase = np.where(old == 0, PHASE_OPEN, np.where(new == 0, PHASE_CLOSE, PHASE_REBALANCE))
                adj = np.select(
                    [phase == PHASE_OPEN, phase == PHASE_CLOSE, np.abs(new) > np.abs(old)],
                    [ADJ_ENTRY, ADJ_EXIT, ADJ_INCREASE],
                    ADJ_DECREASE,
                )
                exit_reason = np.where(
                    phase == PHASE_CLOSE, np.where(stuck[traded], EXIT_RISK, EXIT_SIGNAL), EXIT_NONE
                )
                trade_parts.append(
                    (
                        np.full(len(traded), s),
                        np.full(len(traded), w),
                        traded,
                        phase,
                        dq[traded],
                        mid,
                        fill,
                        fee,
                        cost,
                        adj,
                        exit_reason,
                    )
                )
                fill_session[w, traded] = s
                stuck[traded] = False
                ledger["turnover_notional"][i] = float(np.abs(dq[traded] * fill).sum())
                ledger["turnover"][i] = 0.5 * float(np.abs(dq[traded] * mid).sum()) / start_equity
        market_pnl = q * (o - pc) + q_new * (c - o)
        borrow = np.where(q_new < 0, -borrow_daily[s] * np.abs(q_new) * c, 0.0)
        active = np.flatnonzero((q != 0) | (q_new != 0))
        pnl_parts.append(
            (np.full(len(active), s), active, market_pnl[active], cost_by_name[active], borrow[active])
        )
        q = q_new
        held = np.flatnonzero(q != 0)
        pos_parts.append((np.full(len(held), s), held, q[held], c[held]))

        value = q[held] * c[held]
        exec_cost = float(cost_by_name.sum())
        borrow_total = float(borrow.sum())
        cash = cash_start + carry - float(dq @ o) + exec_cost + borrow_total
        position_value = float(value.sum())
        equity = cash + position_value
        mp = float(market_pnl.sum())
        ledger["starting_equity"][i] = start_equity
        ledger["ending_equity"][i] = equity
        ledger["cash_start"][i] = cash_start
        ledger["cash_end"][i] = cash
        ledger["position_value_end"][i] = position_value
        ledger["market_pnl"][i] = mp
        ledger["execution_cost"][i] = exec_cost
        ledger["borrow_cashflow"][i] = borrow_total
        ledger["cash_carry"][i] = carry
        ledger["risk_free_return"][i] = rf[s]
        ledger["rounding_adjustment"][i] = equity - (start_equity + mp + exec_cost + borrow_total + carry)
        ledger["gross_notional"][i] = float(np.abs(value).sum())
        ledger["net_notional"][i] = position_value
        ledger["largest_abs_weight"][i] = float(np.abs(value).max()) / equity if len(held) else 0.0
    ledger["session"] = np.arange(first, last + 1)
    return BookResult(
        ledger=ledger,
        positions=_stack(pos_parts, ("session", "name", "quantity", "mark_price")),
        pnl=_stack(pnl_parts, ("session", "name", "market_pnl", "execution_cost", "borrow_cashflow")),
        trades=_stack(
            trade_parts,
            (
                "session",
                "week",
                "name",
                "phase",
                "quantity",
                "mid_price",
                "fill_price",
                "fee",
                "execution_cost",
                "adjustment",
                "exit_reason",
            ),
        ),
        fill_session=fill_session,
    )


def _stack(parts: list[tuple[np.ndarray, ...]], names: tuple[str, ...]) -> dict[str, np.ndarray]:
    if not parts:
        return {k: np.zeros(0) for k in names}
    return {k: np.concatenate([p[j] for p in parts]) for j, k in enumerate(names)}
