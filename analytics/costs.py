"""What a book's modelled execution costs take, and at what cost level it stops paying.

Ledger flows (`execution_cost`, the equity columns) are in normalised equity (1.0 = the book's
equity at inception); notional columns are in base currency, and `equity_basis` converts them
(notional / equity_basis is in equity units). Over the window's sessions t:

- daily net return r_t = ending_t / starting_t - 1; the cost rate k_t = -execution_cost_t /
  starting_t (the ledger books costs as negative flows); the gross return g_t = r_t + k_t;
- net P&L = sum(ending - starting), execution cost = -sum(execution_cost), gross = net + cost;
- break-even multiple m*: the multiple of the modelled cost at which the window's compounded net
  return is zero, prod(1 + g_t - m* k_t) = 1 (the root of a decreasing function of m, found by
  Brent's method); in basis points of traded notional, m* times the modelled rate
  cost / (sum(turnover_notional / equity_basis)) * 10^4;
- break-even cost of the information ratio: the multiple m° of the modelled cost at which the
  window's net information ratio is 0, i.e. mean(r_t - (m° - 1) k_t) = 0, m° = mean(g) / mean(k)
  (an arithmetic mean, where m* compounds: m° >= m* as a rule), in bps m° times the modelled rate;
- the curve of the net information ratio against the cost level c (bps): IR of r_t - (m - 1) k_t,
  m = c / modelled rate, on a fixed grid with the modelled and break-even levels; and tied to
  capacity, at each capital K of /analytics/capacity's default grid (K0 its default), the net
  return r_t - (sqrt(K/K0) - 1) x_t of `analytics.capacity` (x_t the session's slippage rate), the
  cost per traded notional it implies and the fills' 95th-percentile participation at K.

`costs_payload` is `/analytics/costs` of one book over a window.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytics import capacity, compounding, inputs
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, day_bounds, declared_stat, number, window_echo
from analytics.metrics.blocks import BUCKET_COUNT
from analytics.returns import daily_returns, information_ratio
from datasets.queries import Window
from datasets.reader import BuildView
from schemas import wire
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.capacity import CAPITAL_DEFAULT, GRID_DEFAULT
from schemas.bodies.costs import (
    COST_GRID_BPS,
    CostAtCapital,
    CostLevel,
    CostLevelKind,
    Costs,
    InformationRatioSides,
    TurnoverBucket,
    TurnoverByDecile,
)

BPS = 10_000.0
MAX_MULTIPLE = 1e6  # beyond this, costs are immaterial: reported as not measurable


@dataclass(frozen=True)
class CostFigures:
    sessions: int
    net_pnl: float
    execution_cost: float
    gross_pnl: float
    traded_notional: float  # in equity units
    break_even_multiple: float  # NaN when not measurable (see `why_not`)
    break_even_bps: float
    modelled_cost_bps: float
    net_information_ratio: float
    gross_information_ratio: float
    why_not: str | None  # why the break-even figures are not measurable
    break_even_cost_multiple: float  # m° with mean(g - m° k) = 0; NaN when not measurable
    break_even_cost_bps: float
    why_not_ratio: str | None  # why the break-even of the information ratio is not measurable
    net_returns: np.ndarray  # r_t, the window's sessions in date order
    cost_rate: np.ndarray  # k_t


def compounded_growth(gross: np.ndarray, cost_rate: np.ndarray, multiple: float) -> float:
    """log of prod(1 + g_t - m k_t); -inf once a session loses everything."""
    return compounding.log_growth(gross - multiple * cost_rate)


def break_even_multiple(gross: np.ndarray, cost_rate: np.ndarray) -> float:
    """m* with prod(1 + g_t - m* k_t) = 1, for a window that pays before costs (log growth at
    m = 0 above 0) and has costs (k_t >= 0, not all 0); NaN beyond MAX_MULTIPLE."""
    high = 1.0
    while compounded_growth(gross, cost_rate, high) > 0:
        high *= 2.0
        if high > MAX_MULTIPLE:
            return math.nan

    def growth(m: float) -> float:
        value = compounded_growth(gross, cost_rate, m)
        return value if math.isfinite(value) else -1e300

    from scipy import optimize  # when used: ~1 s to import (development.md)

    return float(optimize.brentq(growth, 0.0, high, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def mean_break_even_multiple(gross: np.ndarray, cost_rate: np.ndarray) -> float:
    """m° with mean(g_t - m° k_t) = 0, the multiple of the modelled cost at which the mean daily net
    return, and so the net information ratio, is 0: mean(g) / mean(k)."""
    return float(np.mean(gross)) / float(np.mean(cost_rate))


def net_ratio_at_multiple(
    net_returns: np.ndarray, cost_rate: np.ndarray, multiple: float, per_year: int
) -> float:
    """The information ratio of r_t - (m - 1) k_t: every session's modelled cost scaled by m (the
    ledger's own net returns at m = 1, the gross ones at m = 0)."""
    return information_ratio(net_returns - (multiple - 1.0) * cost_rate, per_year)


def cost_figures(
    starting_equity: np.ndarray,
    ending_equity: np.ndarray,
    equity_basis: np.ndarray,
    execution_cost: np.ndarray,
    turnover_notional: np.ndarray,
    periods_per_year: int,
) -> CostFigures:
    """The figures of the window's sessions (every column in date order, one value per session)."""
    net_returns = daily_returns(starting_equity, ending_equity)
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_rate = np.where(starting_equity != 0, -execution_cost / starting_equity, np.nan)
        traded_per_session = turnover_notional / equity_basis
    gross_returns = net_returns + cost_rate
    net = float(np.sum(ending_equity - starting_equity))
    cost = -float(np.sum(execution_cost))
    traded = float(np.sum(traded_per_session))
    usable = np.isfinite(gross_returns) & np.isfinite(cost_rate)
    why_not = None
    if not cost > 0:
        why_not = "the book paid no modelled execution cost in the window"
    elif not np.all(usable):
        why_not = "a session of the window has no starting equity, so its return is undefined"
    elif not compounded_growth(gross_returns, cost_rate, 0.0) > 0:
        why_not = "the book loses before costs in the window: no cost level makes it pay"
    multiple = math.nan if why_not is not None else break_even_multiple(gross_returns, cost_rate)
    if why_not is None and not math.isfinite(multiple):
        why_not = f"the book still pays at {MAX_MULTIPLE:g} times its modelled costs"
    modelled_bps = cost / traded * BPS if traded > 0 and cost >= 0 else math.nan
    why_not_ratio = None
    if not cost > 0 or not float(np.mean(cost_rate)) > 0:
        why_not_ratio = "the book paid no modelled execution cost in the window"
    elif not traded > 0:
        why_not_ratio = "the book traded nothing in the window"
    elif not np.all(usable):
        why_not_ratio = "a session of the window has no starting equity, so its return is undefined"
    elif gross_returns.size < 2:
        why_not_ratio = "fewer than 2 daily returns in the window: no information ratio"
    elif not float(np.mean(gross_returns)) > 0:
        why_not_ratio = (
            "the book's mean daily return before costs is not positive in the window: its net information "
            "ratio is not positive at any cost"
        )
    ratio_multiple = math.nan if why_not_ratio else mean_break_even_multiple(gross_returns, cost_rate)
    return CostFigures(
        sessions=int(ending_equity.size),
        net_pnl=net,
        execution_cost=cost,
        gross_pnl=net + cost,
        traded_notional=traded,
        break_even_multiple=multiple,
        break_even_bps=multiple * modelled_bps if why_not is None else math.nan,
        modelled_cost_bps=modelled_bps,
        net_information_ratio=information_ratio(net_returns, periods_per_year),
        gross_information_ratio=information_ratio(gross_returns, periods_per_year),
        why_not=why_not,
        break_even_cost_multiple=ratio_multiple,
        break_even_cost_bps=ratio_multiple * modelled_bps,
        why_not_ratio=why_not_ratio,
        net_returns=net_returns,
        cost_rate=cost_rate,
    )


def holding_period_weeks(gross_weight: np.ndarray, turnover: np.ndarray) -> float:
    """Mean gross weight over mean one-way weekly turnover (weeks a position is held on average);
    NaN without turnover."""
    if turnover.size == 0:
        return math.nan
    mean_turnover = float(np.mean(turnover))
    return float(np.mean(gross_weight)) / mean_turnover if mean_turnover > 0 else math.nan


DayFilter = Callable[[np.ndarray], np.ndarray]
"""Which of some days (since 1970) a route's `regime` keeps (`analytics.regimes.session_filter`)."""


def every_day(days: np.ndarray) -> np.ndarray:
    return np.ones(days.shape, dtype=bool)


def costs_payload(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    warnings: Warnings,
    kept: DayFilter = every_day,
) -> Costs:
    """`kept`: the days of a regime (`regime=`): the window's sessions, fills and weeks on them only."""
    per_year = conventions(view).sessions_per_year
    context = {"book": book}
    ledger = inputs.ledger(view, book)
    part = None if ledger is None or not access.ledger else ledger.window(window)
    outside = False  # the window holds sessions, none of them the regime's
    if part is not None:
        whole = part.days.size
        part = part.keep(kept(part.days))
        outside = whole > 0 and part.days.size == 0
    f = None
    if not access.ledger:
        reason = withheld("ledger", "costs", warnings)
    elif part is None:
        reason = "the run has no ledger for this book"
    elif outside:
        reason = "no session of the book in the window is in the regime"
    elif part.days.size == 0:
        reason = "the window holds no session of this book"
    else:
        reason = ""
    ledger_reason = reason
    if not reason:
        assert part is not None
        f = cost_figures(
            part.starting_equity,
            part.ending_equity,
            part.equity_basis,
            part.execution_cost,
            part.turnover_notional,
            per_year,
        )
        reason = f.why_not or ""

    def entry(name: str, value: float | None, why: str = reason) -> AnalyticsStat:
        return declared_stat(Costs, name, value, why, context)

    def flow(name: str, value: float | None) -> AnalyticsStat:
        # + 0.0: a sum of zero costs is -0.0, served as 0.0
        return entry(name, None if value is None else value + 0.0)

    def ir(side: str) -> AnalyticsStat:
        value = None if f is None else getattr(f, f"{side}_information_ratio")
        why = reason if f is None else "fewer than 2 daily returns with variance in the window"
        return declared_stat(InformationRatioSides, side, value, why, context, periods_per_year=per_year)

    turnover_by_decile, holding_period = _turnover(view, book, window, access, warnings, kept)
    return Costs(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        sessions=0 if f is None else f.sessions,
        net_pnl=flow("net_pnl", None if f is None else f.net_pnl),
        execution_cost=flow("execution_cost", None if f is None else f.execution_cost),
        gross_pnl=flow("gross_pnl", None if f is None else f.gross_pnl),
        traded_notional=flow("traded_notional", None if f is None else f.traded_notional),
        break_even_multiple=entry("break_even_multiple", None if f is None else f.break_even_multiple),
        break_even_bps=entry("break_even_bps", None if f is None else f.break_even_bps),
        break_even_cost_bps=entry(
            "break_even_cost_bps",
            None if f is None else f.break_even_cost_bps,
            reason if f is None else f.why_not_ratio or "",
        ),
        modelled_cost_bps=entry(
            "modelled_cost_bps",
            None if f is None else f.modelled_cost_bps,
            reason if f is None else "the book traded nothing in the window",
        ),
        information_ratio=InformationRatioSides(gross=ir("gross"), net=ir("net")),
        net_ir_by_cost=_by_cost(f, ledger_reason, context, per_year),
        net_ir_by_capital=_by_capital(
            view, book, window, access, warnings, part, f, ledger_reason, per_year, kept
        ),
        turnover_by_decile=turnover_by_decile,
        holding_period=holding_period,
    )


def _by_cost(f: CostFigures | None, reason: str, context: dict[str, str], per_year: int) -> list[CostLevel]:
    """`net_ir_by_cost`: the fixed grid's levels, with the modelled and break-even ones when measurable,
    in ascending cost (a tie in the grid's place first)."""
    modelled = math.nan if f is None else f.modelled_cost_bps
    priced = math.isfinite(modelled) and modelled > 0
    levels: list[tuple[float, CostLevelKind]] = [(c, "grid") for c in COST_GRID_BPS]
    if f is not None and priced:
        levels.append((modelled, "modelled"))
        if math.isfinite(f.break_even_cost_bps):
            levels.append((f.break_even_cost_bps, "break_even"))
    why = reason or (
        "the book paid no modelled execution cost or traded nothing in the window: a cost level is no multiple "
        "of its modelled cost"
        if not priced
        else "fewer than 2 daily returns with variance in the window"
    )
    rows = []
    for cost, kind in sorted(levels, key=lambda level: level[0]):
        multiple = cost / modelled if priced else None
        value = None
        if f is not None and multiple is not None:
            # At the break-even the mean, and so the ratio, is 0 by definition (not its rounding).
            value = (
                0.0
                if kind == "break_even"
                else net_ratio_at_multiple(f.net_returns, f.cost_rate, multiple, per_year)
            )
        rows.append(
            CostLevel(
                cost_bps=cost,
                cost_multiple=multiple,
                level=kind,
                net_information_ratio_at_cost=declared_stat(
                    CostLevel, "net_information_ratio_at_cost", value, why, context, periods_per_year=per_year
                ),
            )
        )
    return rows


def _by_capital(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    warnings: Warnings,
    part: inputs.Ledger | None,
    f: CostFigures | None,
    reason: str,
    per_year: int,
    kept: DayFilter,
) -> list[CostAtCapital]:
    """`net_ir_by_capital`: the book at each capital of /analytics/capacity's default grid, its
    reference capital the route's default, with `analytics.capacity`'s own model and figures (the
    same information ratios and participation as that route's grid)."""
    context = {"book": book}
    found = capacity.fills(view, book)
    a, b = capacity.fill_span(found, window)
    per_capital = np.empty(0) if found is None else found.per_capital[a:b]
    on_kept = np.empty(0, bool) if found is None else kept(found.days[a:b])
    measured = per_capital[np.isfinite(per_capital) & on_kept]
    fills_why = capacity.fill_reason(
        view, found, (a, b), measured, access, warnings, "costs.net_ir_by_capital"
    )
    ledger_why = reason or fills_why
    aligned = None
    if not ledger_why:
        assert found is not None and part is not None
        aligned = capacity.aligned_sessions(part, found.days[a:b], found.impact[a:b])
    q95 = float(np.percentile(measured, [50.0, capacity.PERCENTILE])[1]) if measured.size else math.nan
    traded = math.nan if f is None else f.traded_notional
    rows = []
    for k in GRID_DEFAULT:
        extra = math.sqrt(k / CAPITAL_DEFAULT) - 1.0
        ratio = cost = None
        if aligned is not None and f is not None:
            ratio = information_ratio(aligned.returns - extra * aligned.slippage, per_year)
            cost = (f.execution_cost + extra * aligned.slippage_total) / traded * BPS if traded > 0 else None
        rows.append(
            CostAtCapital(
                capital=k,
                cost_bps=declared_stat(
                    CostAtCapital,
                    "cost_bps",
                    cost,
                    ledger_why or "the book traded nothing in the window",
                    context,
                ),
                participation_p95=declared_stat(
                    CostAtCapital, "participation_p95", None if fills_why else k * q95, fills_why, context
                ),
                net_information_ratio=declared_stat(
                    CostAtCapital,
                    "net_information_ratio",
                    ratio,
                    ledger_why or "fewer than 2 daily returns with variance in the window",
                    context,
                    periods_per_year=per_year,
                ),
            )
        )
    return rows


def _turnover(
    view: BuildView, book: str, window: Window, access: Access, warnings: Warnings, kept: DayFilter
) -> tuple[TurnoverByDecile | None, AnalyticsStat]:
    """`turnover_by_decile` and `holding_period`."""
    found = inputs.table_rows(view, "analytics_turnover", book)
    rows = found if found is not None and found.num_rows else None
    if not access.cross_sections:
        reason = withheld("cross_sections", "costs.turnover_by_decile", warnings)
    elif rows is None:
        reason = _no_target_weights(view, book)
    else:
        reason = ""
    days = np.empty(0, np.int32) if rows is None else rows.column("date").cast("int32").to_numpy()
    low, high = day_bounds(window)
    keep = (days >= low) & (days <= high) & kept(days)
    if rows is None or reason or not keep.any():
        why = reason or "no week of the window has a previous week with a cross-section"
        return None, declared_stat(Costs, "holding_period", None, why)
    bucket = rows.column("bucket").to_numpy()[keep].astype(np.int64)
    turnover = rows.column("turnover").to_numpy()[keep]
    gross = rows.column("gross_weight").to_numpy()[keep]
    week = days[keep]
    weeks, week_index = np.unique(week, return_inverse=True)
    per_week_turnover = np.bincount(week_index, weights=turnover, minlength=weeks.size)
    per_week_gross = np.bincount(week_index, weights=gross, minlength=weeks.size)
    bucketed_weeks = np.unique(week[bucket > 0]).size
    per_year = conventions(view).weeks_per_year
    deciles = []
    for q in range(1, BUCKET_COUNT + 1):
        mine = bucket == q
        mean = float(np.sum(turnover[mine]) / bucketed_weeks) if bucketed_weeks else math.nan
        deciles.append(
            TurnoverBucket(
                bucket=f"Q{q}",
                rank=q,
                weeks=int(np.count_nonzero(mine)),
                decile_weekly_target_turnover=number(mean),
                decile_annual_target_turnover=number(mean * per_year),
            )
        )
    mean_weekly = float(np.mean(per_week_turnover))
    by_decile = TurnoverByDecile(
        score_field=wire.traded_score(book),
        weight_field=f"{book}_target_weight",
        weeks=int(weeks.size),
        bucketed_weeks=int(bucketed_weeks),
        weekly_target_turnover=number(mean_weekly),
        weeks_per_year=per_year,
        annual_target_turnover=number(mean_weekly * per_year),
        unbucketed_weekly_target_turnover=number(float(np.sum(turnover[bucket == 0]) / weeks.size)),
        buckets=deciles,
    )
    holding = holding_period_weeks(per_week_gross, per_week_turnover)
    return by_decile, declared_stat(
        Costs, "holding_period", holding, "no turnover of target weights in the window"
    )


def _no_target_weights(view: BuildView, book: str) -> str:
    """Why a book has no turnover rows: the run sealed no decisions, or the book has no weight column."""
    if "decisions" not in view.kinds_present:
        return "the run sealed no decisions, so no book has target weights"
    if book not in wire.BASE_BOOKS:
        return f"only {', '.join(wire.BASE_BOOKS)} have target weights in the decisions"
    return f"the decisions hold no {book}_target_weight"
