"""`/analytics/residual`: what is new in an alpha against the catalogue (docs/analytics.md,
"Residual against the catalogue").

The alpha's daily returns r (its requested book) are regressed by OLS, with an intercept, on the
same sessions' daily long_short returns of a reference set of alphas (the catalogue's returns
matrix: no other build is opened) and SPY's daily returns m:

    r_t = a + b_SPY m_t + sum_i b_i r_i,t + e_t

over the window's sessions on which the alpha, SPY and every reference alpha kept have a return. A
reference alpha is kept when it has a return on at least RESIDUAL_MIN_COVERAGE of the sessions on
which the alpha and SPY have one (dropped: overlap), and when its returns are not, within rounding,
a linear combination of the columns before it (dropped: collinear; the intercept and the residual
are the same without it). The figures: the annualised information ratio of a + e (the appraisal
ratio), the intercept annualised and its t-statistic with Newey-West standard errors (Bartlett
kernel, lag `newey_west.lag_rule(n)`, no small-sample correction: statsmodels' HAC), R^2 and the
betas. Not measurable below RESIDUAL_MIN_SESSIONS sessions, or below RESIDUAL_PER_COEFFICIENT
sessions per coefficient (a set larger than the sessions allow).

One computation (`regress`) serves the route (`residual_payload`), the checks
(`residual_information_ratio`) and the pipeline's catalogue index columns (`index_figures`, over
the generation's matrices: the screener's `residual_information_ratio` and `residual_t_statistic`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

import numpy as np

from analytics import inputs, sets
from analytics.contribution import Reference
from analytics.costs import information_ratio
from analytics.entries import conventions, declared_stat, window_echo
from analytics.errors import BadParameters
from analytics.newey_west import lag_rule, long_run_sum
from analytics.series import BenchmarkSeries
from analytics.variance import variance_floor
from datasets.catalogue_snapshot import Matrix
from datasets.faults import BenchmarkMissing, CatalogueIncomplete
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.served import Catalogue
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.residual import (
    RESIDUAL_MAX_LISTED,
    RESIDUAL_MIN_COVERAGE,
    RESIDUAL_MIN_SESSIONS,
    RESIDUAL_PER_COEFFICIENT,
    SESSION_RULE,
    Residual,
    ResidualBenchmark,
    ResidualBeta,
    ResidualDrop,
    ResidualDropped,
    ResidualReference,
)
from schemas.query import MAX_SET
from schemas.wire import MARKET_BENCHMARK

MIN_SESSIONS = RESIDUAL_MIN_SESSIONS
PER_COEFFICIENT = RESIDUAL_PER_COEFFICIENT
ROWS_PER_BLOCK = 256
"""Rows of the catalogue `index_figures` counts the coverage of at once: its temporary is a block of
rows x every alpha, whatever the catalogue's size."""
COLLINEAR = 1e-9
"""A column is collinear with those before it when the part of it they leave (|R_jj| of the QR
decomposition) is at most this share of its norm: a linear combination of them within rounding."""


# -- the reference set ----------------------------------------------------------------------------


def residual_parameters(reference: tuple[str, ...] | None) -> None:
    """400 naming `reference` when the list breaks the set's rule 1 (`sets.listed`: no id twice,
    1 to MAX_SET ids)."""
    if reference is not None:
        problem = sets.listed(reference, 1, MAX_SET)
        if problem is not None:
            raise BadParameters({"reference": problem})


def default_set(
    catalogue: Catalogue, readable: np.ndarray, alpha: str, approved: Collection[str] = ()
) -> Reference:
    """The default reference set (`sets.default_reference`: the `approved` alphas the caller may
    read, `alpha` excepted). Unlike a contribution's, it may be empty (the alpha is then regressed
    on SPY alone, `reference.count` says 0 and `reference.empty_reason` why) and is not capped: a
    set larger than the sessions allow is not measurable, which the answer says."""
    if catalogue.index is None:
        raise CatalogueIncomplete(
            "The lake has no catalogue index, which the residual is read from; an operator writes it with "
            "`alpha-results lake index`."
        )
    return as_reference(sets.default_reference(catalogue, readable, approved, alpha))


def as_reference(found: sets.DefaultReference) -> Reference:
    """A default reference set as the regression takes it (the checks hold theirs as found)."""
    return Reference(tuple(found.alphas), found.origin, found.excluded, empty_reason=found.empty_reason)


@dataclass(frozen=True)
class Basis:
    """What a residual figure needs besides the alpha's build (the checks'): the catalogue's returns
    matrix, the reference set and SPY's daily series; or why the caller may not have it (`why_not`)."""

    matrix: Matrix | None
    reference: Reference | None
    market: BenchmarkSeries | None
    why_not: str | None = None


def market_missing(fault: BenchmarkMissing) -> str:
    """Why a residual figure that needs SPY's series has none (the checks' reason: the rest of the
    battery does not need it)."""
    state = "cannot be read" if fault.configured else "is not published in the lake"
    return f"SPY's daily series, which the residual is regressed on, {state}"


# -- the regression ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Panel:
    """The sessions on which the alpha and SPY both have a return (the base), and what the
    reference set holds on them."""

    returns: np.ndarray  # the alpha's
    market: np.ndarray  # SPY's
    coverage: np.ndarray  # per reference alpha: base sessions on which it has a return
    members: Callable[[np.ndarray], np.ndarray]  # positions in the set -> their returns, rows x base sessions


def panel_of(
    matrix: Matrix,
    rows: np.ndarray,
    days: np.ndarray,
    returns: np.ndarray,
    market: np.ndarray,
    coverage: np.ndarray | None = None,
) -> Panel:
    """The panel of the alpha's `days` (days since 1970, ascending) and `returns`, `market` (SPY's
    on the same days), over the reference alphas at `rows` of the returns `matrix`; `coverage`,
    each of them's count of the base sessions, when a caller has it (the pipeline counts every
    alpha's at once: `index_figures`)."""
    base = np.isfinite(returns) & np.isfinite(market)
    days, returns, market = days[base], returns[base], market[base]
    columns = np.searchsorted(matrix.days, days)
    on = columns < matrix.days.size
    on[on] = matrix.days[columns[on]] == days[on]
    if not on.all():  # a session the matrix has no column for: no reference alpha has a return on it
        columns = np.where(on, columns, 0)
    rows = np.asarray(rows, dtype=np.int64)
    if coverage is None:
        coverage = (np.isfinite(np.asarray(matrix.values[np.ix_(rows, columns)])) & on).sum(axis=1)

    def members(positions: np.ndarray) -> np.ndarray:
        found = np.asarray(matrix.values[np.ix_(rows[positions], columns)], dtype=np.float64)
        return found if on.all() else np.where(on, found, np.nan)

    return Panel(returns, market, coverage, members)


@dataclass(frozen=True)
class Fit:
    """The regression's figures (NaN where not measurable, `why` says why by name)."""

    intercept: float  # per session
    t_statistic: float
    p_value: float
    information_ratio: float  # annualised
    r_squared: float
    market_beta: float
    betas: np.ndarray  # of the reference alphas regressed, in the set's order
    why: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Found:
    """The regression of one alpha on one reference set."""

    base_sessions: int
    coverage: np.ndarray  # per reference alpha
    regressed: np.ndarray  # positions in the set the regression holds
    collinear: np.ndarray  # positions dropped as collinear
    sessions: int  # of the regression (0 when none was run)
    lag: int | None
    fit: Fit | None
    why_not: str  # why there is no regression ("" when there is one)


def _not_measurable(panel: Panel, kept: np.ndarray, sessions: int, why: str) -> Found:
    return Found(panel.returns.size, panel.coverage, kept, np.empty(0, np.int64), sessions, None, None, why)


def _unfit(panel: Panel, kept: np.ndarray, n: int, sessions: int, held: str, base: bool) -> Found | None:
    """Why the regression of the `kept` reference alphas cannot be fitted on `sessions` (`held`
    says what they are; `base`: the base sessions, else those the regression holds): fewer than
    MIN_SESSIONS, or fewer than PER_COEFFICIENT per coefficient; None when it can."""
    if sessions < MIN_SESSIONS:
        return _not_measurable(panel, kept, n, f"{held}; at least {MIN_SESSIONS} are needed")
    if sessions < PER_COEFFICIENT * (kept.size + 2):
        return _not_measurable(panel, kept, n, _too_large(int(kept.size), sessions, base))
    return None


def _too_large(count: int, sessions: int, base: bool) -> str:
    coefficients = count + 2
    where = "the alpha and SPY both have a return on" if base else "the regression holds"
    return (
        f"the set is larger than the sessions allow: {count} reference alpha{'' if count == 1 else 's'}, SPY and "
        f"the intercept are {coefficients} coefficients, which need at least {PER_COEFFICIENT * coefficients} "
        f"sessions ({PER_COEFFICIENT} per coefficient); {where} {sessions} sessions"
    )


def regress(panel: Panel, per_year: int) -> Found:
    """The regression of the panel's alpha on SPY and the reference alphas kept (the module's
    docstring)."""
    from scipy.linalg import solve_triangular  # when used: ~1 s to import (development.md)

    base = int(panel.returns.size)
    kept = np.flatnonzero(panel.coverage >= math.ceil(RESIDUAL_MIN_COVERAGE * base - 1e-9))
    # Every session of the regression is a base session: a set too large for those is too large.
    held = f"the window holds {base} sessions on which the alpha and SPY both have a return"
    if (unfit := _unfit(panel, kept, 0, base, held, True)) is not None:
        return unfit
    block = panel.members(kept)
    common = np.isfinite(block).all(axis=0)
    n = int(np.count_nonzero(common))
    shared = f"the alpha, SPY and the {kept.size} reference alphas kept share {n} sessions"
    if (unfit := _unfit(panel, kept, n, n, shared, False)) is not None:
        return unfit
    y = panel.returns[common]
    x = np.column_stack([np.ones(n), panel.market[common], block[:, common].T])
    columns = np.arange(x.shape[1])
    while True:
        # R of [X y] holds R of X and Q'y in its last column: Q itself is never formed.
        whole = np.asarray(np.linalg.qr(np.column_stack([x[:, columns], y]), mode="r"))  # R alone
        r, projected = whole[:-1, :-1], whole[:-1, -1]
        left = np.abs(np.diag(r)) <= COLLINEAR * np.linalg.norm(x[:, columns], axis=0)
        if not left.any():
            break
        first = int(np.argmax(left))
        if columns[first] == 1:  # SPY's, on the intercept: a constant series
            return _not_measurable(panel, kept, n, "SPY's returns have no variance on the sessions")
        columns = np.delete(columns, first)  # the first collinear column; the others are judged again
    collinear = kept[np.setdiff1d(np.arange(2, x.shape[1]), columns) - 2]
    regressed = kept[columns[2:] - 2]
    x = x[:, columns]
    coefficients = solve_triangular(r, projected)
    residual = y - x @ coefficients
    intercept = float(coefficients[0])
    # The intercept's row of (X'X)^-1 = R^-1 R^-T: its Newey-West variance is the long-run sum of
    # u_t = (x_t . w) e_t (statsmodels' S_hac_simple seen in that direction).
    w = solve_triangular(r, solve_triangular(r, np.eye(r.shape[0])[0], trans="T"))
    lag = lag_rule(n)
    variance = long_run_sum((x @ w) * residual, lag)
    why: dict[str, str] = {}
    t_statistic = p_value = math.nan
    if variance > 0:
        t_statistic = intercept / math.sqrt(variance)
        p_value = math.erfc(abs(t_statistic) / math.sqrt(2.0))
    else:
        why["intercept_t_statistic"] = why["intercept_p_value"] = (
            "the intercept's Newey-West variance is not positive"
        )
    ratio = information_ratio(intercept + residual, per_year)
    if not math.isfinite(ratio):
        why["appraisal_ratio"] = (
            "what is left has no variance: the set and SPY explain the alpha's returns exactly on these sessions"
        )
    spread = y - y.mean()
    total = float(spread @ spread)
    # The one rule for a variance that is rounding (analytics.variance), not `total > 0`.
    measured = total > variance_floor(y)
    r_squared = 1.0 - float(residual @ residual) / total if measured else math.nan
    if not measured:
        why["r_squared"] = "the alpha's returns are constant on these sessions"
    fit = Fit(
        intercept, t_statistic, p_value, ratio, r_squared, float(coefficients[1]), coefficients[2:], why
    )
    return Found(base, panel.coverage, regressed, collinear, n, lag, fit, "")


# -- the route ----------------------------------------------------------------------------------


def residual_payload(
    view: BuildView,
    book: str,
    window: Window,
    matrix: Matrix,
    reference: Reference,
    market: BenchmarkSeries,
) -> Residual:
    """`/analytics/residual` of `view`'s alpha and `book` over `window` against `reference`: its
    rows of the catalogue's returns `matrix` (503 when the matrix lacks one) and `market`, SPY's
    daily series. A window holding fewer than MIN_SESSIONS sessions of the book, when the whole
    history holds enough, is a 400 naming from/to (the decision routes' rule)."""
    ledger = inputs.ledger(view, book)
    if ledger is not None:
        part = ledger.window(window)
        inputs.require_window_sessions(
            part.days.size, ledger.days.size, window, MIN_SESSIONS, f"sessions of the {book} book"
        )
    found, why, per_year = residual_of(view, book, window, matrix, reference, market)
    return _body(view.alpha_id, book, window, reference, market.basis, found, why, per_year)


def residual_of(
    view: BuildView,
    book: str,
    window: Window,
    matrix: Matrix,
    reference: Reference,
    market: BenchmarkSeries,
) -> tuple[Found, str, int]:
    """The regression of `view`'s `book` over `window` on `reference` and SPY (`residual_payload`'s,
    the `residual_information_ratio` check's): (found, why not measurable, sessions per year)."""
    per_year = conventions(view).sessions_per_year
    ledger = inputs.ledger(view, book)
    rows = sets.held_rows(matrix, reference.alphas)
    if ledger is None:
        days, returns = np.empty(0, np.int32), np.empty(0)
    else:
        part = ledger.window(window)
        days, returns = part.days, part.returns
    found = regress(panel_of(matrix, rows, days, returns, market.on(days)), per_year)
    why = "the run has no ledger for this book" if ledger is None else found.why_not
    return found, why, per_year


def _body(
    alpha: str,
    book: str,
    window: Window,
    reference: Reference,
    basis: str,
    found: Found,
    why: str,
    per_year: int,
) -> Residual:
    fit = found.fit
    context = {"book": book}

    def stat(name: str, value: float | None, body: type = Residual, **extra: object) -> AnalyticsStat:
        reason = why if fit is None else fit.why.get(name, "")
        return declared_stat(body, name, value, reason, context, **extra)

    def value(pick: Callable[[Fit], float]) -> float | None:
        return None if fit is None else pick(fit)

    regressed, dropped = set(found.regressed.tolist()), set(found.collinear.tolist())
    drops = [
        ResidualDrop(
            alpha=name,
            reason="collinear" if position in dropped else "overlap",
            sessions=int(found.coverage[position]),
        )
        for position, name in enumerate(reference.alphas)
        if position not in regressed
    ]
    betas = None
    if fit is not None:
        betas = [
            ResidualBeta(alpha=reference.alphas[position], partial_beta=float(beta))
            for position, beta in zip(found.regressed.tolist(), fit.betas, strict=True)
        ]
    return Residual(
        alpha=alpha,
        book=book,
        window=window_echo(window),
        reference=ResidualReference(
            origin=reference.origin,  # type: ignore[arg-type]  # given or approved
            empty_reason=reference.empty_reason,
            alphas=list(reference.alphas),
            count=len(reference.alphas),
            alpha_excluded=reference.excluded,
            regressed=len(regressed),
            dropped=ResidualDropped(count=len(drops), alphas=drops[:RESIDUAL_MAX_LISTED]),
        ),
        benchmark=ResidualBenchmark(
            symbol=MARKET_BENCHMARK,
            return_basis=basis,
            partial_beta=stat("partial_beta", value(lambda f: f.market_beta), ResidualBenchmark),
        ),
        base_sessions=found.base_sessions,
        sessions=found.sessions,
        session_rule=SESSION_RULE,
        newey_west_lag=found.lag,
        appraisal_ratio=stat(
            "appraisal_ratio", value(lambda f: f.information_ratio), periods_per_year=per_year
        ),
        intercept=stat("intercept", value(lambda f: f.intercept * per_year), periods_per_year=per_year),
        intercept_t_statistic=stat("intercept_t_statistic", value(lambda f: f.t_statistic)),
        intercept_p_value=stat("intercept_p_value", value(lambda f: f.p_value)),
        r_squared=stat("r_squared", value(lambda f: f.r_squared)),
        betas=betas,
    )


# -- the catalogue index ----------------------------------------------------------------------------


def index_figures(
    matrix: Matrix,
    approved: np.ndarray,
    per_year: np.ndarray,
    market: BenchmarkSeries | None,
    rows: Iterable[int],
) -> dict[int, tuple[float | None, float | None]]:
    """The catalogue index's residual columns of the alphas at `rows` of `matrix` (the
    generation's returns matrix, its rows the index's): each one's whole-history long_short
    returns against its default reference set as a key reading every alpha has it (the `approved`
    alphas, itself excepted: a mask over the matrix's rows), as
    `/analytics/residual` answers it with no parameter; `per_year`, each row's sessions per
    year. row -> (residual_information_ratio, residual_t_statistic), None where not measurable or
    without SPY (`market` None)."""
    out: dict[int, tuple[float | None, float | None]] = {}
    wanted = list(rows)
    if market is None:
        return dict.fromkeys(wanted, (None, None))
    values = matrix.values
    spy = market.on(matrix.days)
    # Every alpha's presence, and each row's base sessions (its own and SPY's returns): how many base
    # sessions each alpha covers is one product per block of rows, not a gather per row and member.
    presence = np.isfinite(values).astype(np.float32)  # counts are exact in float32 below 2^24
    everyone = np.ones(values.shape[0], dtype=bool)
    for start in range(0, len(wanted), ROWS_PER_BLOCK):
        block = wanted[start : start + ROWS_PER_BLOCK]
        covered = (presence[block] * np.isfinite(spy)) @ presence.T
        for row, counts in zip(block, covered, strict=True):
            other = everyone.copy()
            other[row] = False
            chosen, _, _ = sets.default_members(approved, other)
            members = np.flatnonzero(chosen)
            own = presence[row] > 0
            panel = panel_of(
                matrix,
                members,
                matrix.days[own],
                values[row][own],
                spy[own],
                counts[members].astype(np.int64),
            )
            fit = regress(panel, int(per_year[row])).fit
            if fit is None:
                out[row] = (None, None)
                continue
            out[row] = tuple(  # type: ignore[assignment]
                v if math.isfinite(v) else None for v in (fit.information_ratio, fit.t_statistic)
            )
    return out
