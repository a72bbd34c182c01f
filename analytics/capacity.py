"""Capacity of a book (`/analytics/capacity`, docs/analytics.md "Capacity"): each fill's
participation in its name's average daily traded value, and the book's net information ratio as
its capital grows and its modelled costs with it.

The seal's ledger is normalised (1.0 of equity at inception), so the request names the capital K0
the book is taken to run at (`schemas.bodies.capacity.CAPITAL_DEFAULT`), and the seal's modelled
costs are taken as the costs at K0. Per fill i (once per build, `fill_amounts`, in the
`analytics_capacity` table): its notional n_i = |quantity x fill_price| / equity_basis (equity
units), its cost c_i = -execution_cost_i, and its slippage s_i = c_i - clip(fee_i, 0, c_i): the
cost beyond its per-share fee. Over a window (`capacity_payload`):

- participation at capital K: p_i(K) = K n_i / adv_i, so every percentile scales with K;
- net return at capital K: r_t(K) = r_t - a x_t, a = sqrt(K / K0) - 1, x_t = sum of the session's
  slippage / starting_equity_t: the fee keeps its rate per unit of notional, the slippage's rate
  grows with sqrt(participation) (a square-root impact), so at K it costs sqrt(K / K0) times as much
  per unit of equity; at K0 r_t(K0) is the ledger's own r_t;
- the capacity: the smallest K > K0 with IR(K) = IR(K0) / 2, IR the annualised mean over standard
  deviation; with the sample moments of r and x this is a quadratic in a (`half_ratio_multiple`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from analytics import inputs
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, day_bounds, declared_stat, number, window_echo
from analytics.errors import BadParameters
from analytics.returns import information_ratio, mean_over_std
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import floats
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.capacity import (
    CAPITAL_DEFAULT,
    CAPITAL_MAX,
    CAPITAL_MIN,
    GRID_DEFAULT,
    GRID_MAX,
    MIN_WINDOW_SESSIONS,
    PARTICIPATION_LIMIT,
    Capacity,
    CapacityParticipation,
    CapacityPoint,
    LargestFill,
)

TABLE = "analytics_capacity"
PERCENTILE = 95.0


def fill_amounts(
    quantity: np.ndarray,
    fill_price: np.ndarray,
    fee: np.ndarray,
    execution_cost: np.ndarray,
    equity_basis: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per fill: its notional in equity units (NaN without an equity basis), its modelled cost
    (-execution_cost) and the part of that cost beyond its per-share fee (the fee clipped to
    [0, cost]: a seal's fee is untrusted, and a negative or oversized one would make slippage of
    the fee)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        notional = np.where(equity_basis > 0, np.abs(quantity * fill_price) / equity_basis, np.nan)
    cost = -execution_cost
    fixed = np.clip(fee, 0.0, np.maximum(cost, 0.0))
    return notional, cost + 0.0, cost - fixed


def capital_grid(capital: float, grid: tuple[float, ...] | None) -> tuple[float, ...]:
    """The grid of capitals to answer (the default when None); BadParameters naming `capital` or
    `grid` for a value outside [CAPITAL_MIN, CAPITAL_MAX] or a grid of more than GRID_MAX."""
    problems = {}
    bounds = f"[{CAPITAL_MIN:g}, {CAPITAL_MAX:g}] (the book's currency)"
    if not (math.isfinite(capital) and CAPITAL_MIN <= capital <= CAPITAL_MAX):
        problems["capital"] = f"must lie in {bounds}; got {capital:g}"
    if grid is not None:
        if len(grid) > GRID_MAX:
            problems["grid"] = f"names at most {GRID_MAX} capitals; got {len(grid)}"
        elif not all(math.isfinite(k) and CAPITAL_MIN <= k <= CAPITAL_MAX for k in grid):
            problems["grid"] = f"every capital must lie in {bounds}"
    if problems:
        raise BadParameters(problems)
    return GRID_DEFAULT if grid is None else tuple(float(k) for k in grid)


@dataclass(frozen=True)
class Fills:
    """One book's rows of the `analytics_capacity` table (date order)."""

    rows: pa.Table
    days: np.ndarray  # the fill's session, days since 1970
    notional: np.ndarray  # equity units; NaN without an equity basis
    impact: np.ndarray  # the cost beyond the fee, equity units
    per_capital: np.ndarray  # notional / adv: participation per unit of capital; NaN without adv


def fills(view: BuildView, book: str) -> Fills | None:
    """The book's fills, read once per build; None for a build published before the table."""

    def read() -> Fills | None:
        rows = inputs.table_rows(view, TABLE, book)
        if rows is None:
            return None
        notional = floats(rows.column("notional"))
        with np.errstate(divide="ignore", invalid="ignore"):
            per_capital = notional / floats(rows.column("adv"))
        return Fills(
            rows,
            rows.column("date").cast(pa.int32()).to_numpy(),
            notional,
            floats(rows.column("impact_cost")),
            per_capital,
        )

    return view.memo(f"analytics:capacity:{book}", read)


def half_ratio_multiple(r: np.ndarray, x: np.ndarray) -> float:
    """The smallest a > 0 at which mean(r - a x) / std(r - a x) is half of mean(r) / std(r) (> 0),
    or NaN when it never falls that far. With m, v, c the sample means, variances and covariance
    (ddof 1), squaring mean(a) = t sd(a), t the half ratio, gives A a^2 + B a + C = 0 with
    A = m_x^2 - t^2 v_x, B = 2 (t^2 c - m_r m_x), C = m_r^2 - t^2 v_r; a root counts where
    mean(r - a x) > 0 (the other sign solves ratio = -t). The ratio is continuous in a, so the
    smallest such root is where it first reaches t."""
    t = mean_over_std(r) / 2.0
    m_r, m_x = float(np.mean(r)), float(np.mean(x))
    covariance = np.cov(r, x, ddof=1)
    v_r, v_x, c = float(covariance[0, 0]), float(covariance[1, 1]), float(covariance[0, 1])
    a2, b, c0 = m_x * m_x - t * t * v_x, 2.0 * (t * t * c - m_r * m_x), m_r * m_r - t * t * v_r
    roots: list[float] = []
    if a2 == 0.0:
        roots = [-c0 / b] if b != 0.0 else []
    else:
        discriminant = b * b - 4.0 * a2 * c0
        if discriminant >= 0.0:
            # The numerically stable pair: q and c0 / q instead of (-b +- sqrt(D)) / 2A.
            q = -0.5 * (b + math.copysign(math.sqrt(discriminant), b))
            roots = [q / a2] + ([c0 / q] if q != 0.0 else [])
    found = [a for a in roots if math.isfinite(a) and a > 0.0 and m_r - a * m_x > 0.0]
    return min(found) if found else math.nan


@dataclass(frozen=True)
class Aligned:
    """The window's sessions and fills, aligned."""

    returns: np.ndarray  # the ledger's net daily returns r_t (finite sessions)
    cost_rate: np.ndarray  # k_t = -execution_cost_t / starting_equity_t
    slippage: np.ndarray  # x_t: the session's fills' cost beyond their fees / starting_equity_t
    slippage_total: float  # sum of those sessions' fills' cost beyond their fees, equity units


def aligned_sessions(ledger: inputs.Ledger, days: np.ndarray, impact: np.ndarray) -> Aligned:
    """The window's finite sessions with each session's slippage (a fill on a date the ledger has
    no session of is left out: it has no equity to be a fraction of)."""
    slot = np.searchsorted(ledger.days, days)
    inside = slot < ledger.days.size
    inside[inside] &= ledger.days[slot[inside]] == days[inside]
    per_session = np.bincount(slot[inside], weights=impact[inside], minlength=ledger.days.size)
    start = ledger.starting_equity
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(start != 0, per_session / start, np.nan)
        k = np.where(start != 0, -ledger.execution_cost / start, np.nan)
    r = ledger.returns
    keep = np.isfinite(r) & np.isfinite(x) & np.isfinite(k)
    return Aligned(r[keep], k[keep], x[keep], float(np.sum(per_session[keep])))


def fill_span(found: Fills | None, window: Window) -> tuple[int, int]:
    """The positions [a, b) of the window's fills in the book's rows (date order)."""
    low, high = day_bounds(window)
    a, b = (0, 0) if found is None else np.searchsorted(found.days, [low, high + 1])
    return int(a), int(b)


def fill_reason(
    view: BuildView,
    found: Fills | None,
    span: tuple[int, int],
    measured: np.ndarray,
    access: Access,
    warnings: Warnings,
    block: str,
) -> str:
    """Why the fill figures (participation, and what the fills' slippage scales) are not measurable
    ("" when they are), in the order a reader would fix it; `measured` the window's fills'
    participation per unit of capital with an adv; `block` the answer's block a key without the
    trades is told of."""
    if not access.trades:
        return withheld("trades", block, warnings)
    if "exposures" not in view.kinds_present:
        return (
            "the seal has no exposures (kind missing): no average daily traded value (adv) to measure "
            "participation against"
        )
    if found is None:
        return (
            f"the build {view.build_id} was published before the capacity table; an operator rebuilds it "
            "with `alpha-results build`"
        )
    if span[0] == span[1]:
        return "the book has no fill in the window"
    if measured.size == 0:
        return "no fill of the window has an adv: the exposures hold none for its names and weeks"
    return ""


def capacity_payload(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    warnings: Warnings,
    capital: float = CAPITAL_DEFAULT,
    grid: tuple[float, ...] | None = None,
) -> Capacity:
    """`/analytics/capacity` of `book` over `window` at the reference capital `capital` (K0), with
    the book at each capital of `grid` (docs/analytics.md, "Capacity")."""
    capitals = capital_grid(capital, grid)
    per_year = conventions(view).sessions_per_year
    context = {"book": book}
    ledger = inputs.ledger(view, book)
    found = fills(view, book)
    part = None if ledger is None else ledger.window(window)
    if ledger is not None and part is not None and access.ledger:
        # An information ratio needs 2 sessions: a window holding fewer, in a history holding more,
        # is the caller's to fix (the decision routes' rule).
        inputs.require_window_sessions(
            part.days.size, ledger.days.size, window, MIN_WINDOW_SESSIONS, f"sessions of the {book} book"
        )
    a, b = fill_span(found, window)
    per_capital = np.empty(0) if found is None else found.per_capital[a:b]
    measured = per_capital[np.isfinite(per_capital)]

    # Why the fill figures (participation) and the ledger figures (the information ratios) are not
    # measurable, in the order a reader would fix them.
    fills_why = fill_reason(view, found, (a, b), measured, access, warnings, "capacity.participation")
    ledger_reason = fills_why
    if not access.ledger:
        ledger_reason = withheld("ledger", "capacity.grid", warnings)
    elif part is None:
        ledger_reason = ledger_reason or "the run has no ledger for this book"
    elif part.days.size == 0:
        ledger_reason = ledger_reason or "the window holds no session of this book"

    sessions = None if not access.ledger else 0 if part is None else int(part.days.size)
    net = None
    aligned = None
    if not ledger_reason:
        assert found is not None and part is not None
        aligned = aligned_sessions(part, found.days[a:b], found.impact[a:b])
        net = information_ratio(aligned.returns, per_year)

    def ir_entry(body: type, value: float | None, reason: str) -> AnalyticsStat:
        why = reason or "fewer than 2 daily returns with variance in the window"
        return declared_stat(body, "net_information_ratio", value, why, context, periods_per_year=per_year)

    # Participation is proportional to capital: its percentiles per unit of capital, once.
    q50, q95 = (
        (float(q) for q in np.percentile(measured, [50.0, PERCENTILE])) if measured.size else (math.nan,) * 2
    )
    points = []
    for k in capitals:
        ratio = drag = None
        if aligned is not None:
            extra = math.sqrt(k / capital) - 1.0
            ratio = information_ratio(aligned.returns - extra * aligned.slippage, per_year)
            costs = aligned.cost_rate + extra * aligned.slippage
            drag = float(np.mean(costs)) * per_year if costs.size else math.nan
        points.append(
            CapacityPoint(
                capital=k,
                net_information_ratio=ir_entry(CapacityPoint, ratio, ledger_reason),
                cost_drag=declared_stat(
                    CapacityPoint,
                    "cost_drag",
                    drag,
                    ledger_reason or "the window holds no session with a return",
                    context,
                    periods_per_year=per_year,
                ),
                participation_p95=declared_stat(
                    CapacityPoint, "participation_p95", None if fills_why else k * q95, fills_why, context
                ),
            )
        )
    return Capacity(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        capital=capital,
        sessions=sessions,
        fills=b - a if access.trades else None,
        fills_with_adv=int(measured.size) if access.trades else None,
        participation=_participation(found, a, b, capital, (q50, q95), fills_why, context),
        net_information_ratio=ir_entry(Capacity, net, ledger_reason),
        capacity=_capacity(aligned, net, capital, ledger_reason, context),
        participation_capacity=declared_stat(
            Capacity,
            "participation_capacity",
            None if fills_why or not q95 > 0 else PARTICIPATION_LIMIT / q95,
            fills_why or "the 95th-percentile fill of the window traded nothing",
            context,
        ),
        grid=points,
    )


def _capacity(
    aligned: Aligned | None, net: float | None, capital: float, reason: str, context: dict[str, str]
) -> AnalyticsStat:
    value = None
    if not reason:
        assert aligned is not None and net is not None
        if not math.isfinite(net):
            reason = "fewer than 2 daily returns with variance in the window: no information ratio to halve"
        elif not net > 0:
            reason = (
                f"the net information ratio at the reference capital is {number(net):.4g}, not positive: "
                "there is no information ratio for the costs to halve"
            )
        elif not np.any(aligned.slippage != 0):
            reason = "the book paid no slippage in the window: its costs do not grow faster than its capital"
        else:
            multiple = half_ratio_multiple(aligned.returns, aligned.slippage)
            if math.isfinite(multiple):
                value = capital * (1.0 + multiple) ** 2
            else:
                reason = (
                    "the net information ratio never falls to half of the reference capital's at any capital"
                )
    return declared_stat(Capacity, "capacity", value, reason, context)


def _participation(
    found: Fills | None,
    a: int,
    b: int,
    capital: float,
    quantiles: tuple[float, float],
    reason: str,
    context: dict[str, str],
) -> CapacityParticipation:
    """The distribution of the window's fills' participation at the reference capital (`quantiles`:
    the median and 95th percentile per unit of capital)."""
    values: dict[str, float | None] = dict.fromkeys(
        ("median", "p95", "max", "above_1pct", "above_5pct", "above_10pct")
    )
    largest = None
    if not reason:
        assert found is not None
        per_capital = found.per_capital[a:b]
        finite = np.isfinite(per_capital)
        p = per_capital[finite] * capital
        values.update(
            median=quantiles[0] * capital,
            p95=quantiles[1] * capital,
            max=float(np.max(p)),
            above_1pct=np.count_nonzero(p > 0.01) / p.size,
            above_5pct=np.count_nonzero(p > 0.05) / p.size,
            above_10pct=np.count_nonzero(p > 0.10) / p.size,
        )
        # The first fill (date, then symbol order) at the maximum.
        at = a + int(np.flatnonzero(finite)[int(np.argmax(p))])
        row = found.rows.slice(at, 1).to_pylist()[0]
        largest = LargestFill(
            date=row["date"],
            decision_at=row["decision_at"],
            symbol=row["symbol"],
            participation=float(found.per_capital[at] * capital),
            notional=float(found.notional[at] * capital),
            adv=float(row["adv"]),
        )

    def entry(name: str) -> AnalyticsStat:
        return declared_stat(CapacityParticipation, name, values[name], reason, context)

    return CapacityParticipation(
        median=entry("median"),
        p95=entry("p95"),
        max=entry("max"),
        above_1pct=entry("above_1pct"),
        above_5pct=entry("above_5pct"),
        above_10pct=entry("above_10pct"),
        largest=largest,
    )
