"""`/analytics/combine` and `/analytics/contribution` read a set's returns from the catalogue's
matrices (never opening a build) and state their figures as stat entries: what both share, and
the combination's answer (docs/analytics.md, "Combination").

The returns matrix holds every alpha's daily long_short returns, so only that book is combined;
the `risk_free` matrix holds the risk-free return each alpha's long_short ledger accrued per
session (an index written before it has none: excess Sharpe ratios are then not_measurable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from msgspec import UNSET, UnsetType

from analytics import compounding, sets
from analytics.combination import (
    MIN_SESSIONS,
    NotCombinable,
    common_sessions,
    correlation_matrix,
    diversification_ratio,
    equal_weights,
    equity,
    first_wipeout,
    inverse_volatility_weights,
    ledoit_wolf_intensity,
    max_ir_weights,
)
from analytics.entries import Warnings, analytics_stat, day_bounds, declared_stat
from analytics.errors import BadParameters
from analytics.returns import BookFigures as BookFiguresOf
from analytics.returns import book_figures
from analytics.series import BenchmarkSeries
from datasets.catalogue_snapshot import CatalogueSnapshot, Matrix
from datasets.queries import Window
from datasets.served import Catalogue
from schemas import choices
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import field_names
from schemas.bodies.decisions import BookFigures, CombinationFit, CombinationShrinkage, CombinationWeight
from schemas.bodies.envelope import BenchmarkEcho, CorrelationMatrix, EnvelopeMeta
from schemas.bodies.metrics import TURNOVER_ANNUALISATIONS, UNSEALED_TURNOVER_UNIT
from schemas.bodies.rows import CombinedRow
from schemas.conventions import SESSIONS_PER_YEAR
from schemas.query import MAX_SET, MAX_WEIGHT
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK

RISK_FREE = "risk_free"
SESSION_RULE = (
    "the window's sessions on which every alpha of the set has a long_short return (their intersection): "
    "a session one of them did not trade is left out for all"
)
AFTER_FIT = "; of those, the sessions after fit_to (the ones up to it fit the weights)"
NO_RISK_FREE = (
    "the catalogue index holds no risk-free returns (written before they were indexed); an operator writes "
    "them with `alpha-results lake index`"
)
EPOCH = date(1970, 1, 1)


@dataclass(frozen=True)
class SetReturns:
    """The common sessions of a set (ids in the request's order)."""

    ids: tuple[str, ...]
    days: np.ndarray  # the common sessions, days since 1970
    returns: np.ndarray  # sessions x alphas
    risk_free: np.ndarray | None  # sessions x alphas; None when not measurable (`risk_free_reason`)
    risk_free_reason: str


def set_returns(
    snapshot: CatalogueSnapshot,
    rows: np.ndarray,
    ids: tuple[str, ...],
    window: Window,
    name: str,
) -> SetReturns:
    """The set's returns (`rows` of the returns matrix, `sets.matrix_rows`) over the window's
    common sessions; 400 below MIN_SESSIONS of them, naming from/to when the whole histories
    would have enough, else `name` (the set)."""
    matrix = snapshot.matrix("returns")
    low, high = day_bounds(window)
    first, last = np.searchsorted(matrix.days, low, "left"), np.searchsorted(matrix.days, high, "right")
    values = np.asarray(matrix.values[rows])
    common = common_sessions(values)
    inside = np.zeros_like(common)
    inside[first:last] = True
    count = int(np.count_nonzero(common & inside))
    if count < MIN_SESSIONS:
        whole = int(np.count_nonzero(common))
        rule = (
            f"holds {count} session{'' if count == 1 else 's'} on which every alpha has a long_short return; "
            f"at least {MIN_SESSIONS} are needed"
        )
        if whole >= MIN_SESSIONS and (window[0] is not None or window[1] is not None):
            problems = {
                side: f"the window {rule}"
                for side, bound in zip(("from", "to"), window, strict=True)
                if bound
            }
            raise BadParameters(problems)
        raise BadParameters(
            {
                name: f"the alphas' histories have {whole} sessions in common; at least {MIN_SESSIONS} are needed"
            }
        )
    keep = common & inside
    days = np.asarray(matrix.days[keep])
    risk_free, reason = _risk_free(snapshot, ids, days)
    return SetReturns(ids, days, values[:, keep].T.copy(), risk_free, reason)


def risk_free_rows(
    snapshot: CatalogueSnapshot, ids: tuple[str, ...], days: np.ndarray
) -> tuple[np.ndarray | None, str]:
    """The risk-free matrix's rows of `ids` on `days` (alphas x days, NaN where an alpha accrued
    none), or None and why when the matrix lacks an alpha or a day."""
    generation = snapshot.catalogue.generation
    if generation is None or RISK_FREE not in generation.matrices:
        return None, NO_RISK_FREE
    matrix: Matrix = snapshot.matrix(RISK_FREE)
    at = np.searchsorted(matrix.days, days)
    found = at < matrix.days.size
    found[found] = matrix.days[at[found]] == days[found]
    missing = [alpha for alpha in ids if alpha not in matrix.rows]
    if missing or not found.all():
        return None, NO_RISK_FREE.replace("no risk-free returns", "no risk-free returns of every alpha")
    rows = np.array([matrix.rows[alpha] for alpha in ids], dtype=np.int64)
    if at.size and at[-1] - at[0] + 1 == at.size:  # a run of the matrix's days: read a slice, not every row
        return np.asarray(matrix.values[rows, at[0] : at[-1] + 1]), ""
    return np.asarray(matrix.values[np.ix_(rows, at)]), ""


def _risk_free(
    snapshot: CatalogueSnapshot, ids: tuple[str, ...], days: np.ndarray
) -> tuple[np.ndarray | None, str]:
    """The set's risk-free returns on `days` (sessions x alphas), or None and why."""
    rows, reason = risk_free_rows(snapshot, ids, days)
    if rows is None:
        return None, reason
    values = rows.T
    if not np.isfinite(values).all():
        return None, (
            "the catalogue index holds no risk-free return of some alpha on some common session (indexed before "
            "they were); an operator writes them with `alpha-results lake index`"
        )
    return values.copy(), ""


def iso_dates(days: np.ndarray) -> list[str]:
    return [(EPOCH + timedelta(days=int(day))).isoformat() for day in days]


def book_entries(
    found: BookFiguresOf,
    risk_free_reason: str,
    turnover: AnalyticsStat | UnsetType = UNSET,
    **more: AnalyticsStat,
) -> BookFigures:
    """The five figures of a book as its declaration states them (`BookFigures`: units, sources,
    annualisation), with the turnover and the diversification ratio where a route adds them."""
    no_variance = "the book's daily returns have no variance over the common sessions"
    no_excess = "the book's daily excess returns have no variance over the common sessions"
    year = {"periods_per_year": SESSIONS_PER_YEAR}

    def entry(name: str, reason: str, **extra: Any) -> AnalyticsStat:
        return declared_stat(BookFigures, name, getattr(found, name), reason, **extra)

    return BookFigures(
        information_ratio=entry("information_ratio", no_variance, **year),
        excess_sharpe=entry("excess_sharpe", risk_free_reason or no_excess, **year),
        max_drawdown_pct=entry("max_drawdown_pct", "no session"),
        annualised_return=entry("annualised_return", "no session", **year),
        volatility=entry("volatility", "no session", **year),
        turnover=turnover,
        **more,
    )


def change_entries(before: BookFigures, after: BookFigures) -> BookFigures:
    """after - before of each figure, not_measurable where either side is."""
    changed: dict[str, Any] = {}
    for name in field_names(BookFigures):
        entry, old_entry = getattr(after, name), getattr(before, name)
        if entry is UNSET:
            continue
        old, new = old_entry.value, entry.value
        value = math.nan if old is None or new is None else new - old
        reason = _reason(old_entry) or _reason(entry)
        extra = {} if entry.periods_per_year is UNSET else {"periods_per_year": entry.periods_per_year}
        changed[name] = analytics_stat(value, entry.unit, entry.source, entry.annualisation, reason, **extra)
    return BookFigures(**changed)


def _reason(entry: AnalyticsStat) -> str:
    return "" if entry.withheld_reason is UNSET else entry.withheld_reason


# -- /analytics/combine ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Weighting:
    method: str  # one of choices.WEIGHTINGS
    given: tuple[float, ...] | None  # weighting=given
    shrinkage: float | None  # weighting=max_ir: the request's, else Ledoit-Wolf
    fit_to: date | None = None  # a fitted weighting: the last session the weights are fitted on

    @property
    def fitted(self) -> bool:
        """Whether the weights are estimated from the set's returns (inverse_volatility, max_ir)."""
        return self.method in choices.FITTED_WEIGHTINGS


def weighting_of(
    method: str | None,
    weights: tuple[float, ...] | None,
    shrinkage: float | None,
    fit_to: date | None,
    window: Window,
    ids: tuple[str, ...] | None,
    name: str,
    problems: dict[str, str],
) -> Weighting | None:
    """The weighting of the set `name` (`alphas` of combine, `reference` of contribution) from the
    `weighting` (`method`), `weights`, `shrinkage` and `fit_to` parameters, one rule for both
    routes; each broken one is added to `problems`. `ids`: the set, None when its list is broken
    (the weights are then not counted). None: no weighting asked (a contribution's book as it
    grew)."""
    shown = "absent" if method is None else method
    if method is not None and method not in choices.WEIGHTINGS:  # the server's parser refused it
        problems["weighting"] = f"one of {', '.join(choices.WEIGHTINGS)}"
    given = None
    if weights is not None:
        if method != "given":
            problems["weights"] = f"only with weighting=given (weighting is {shown})"
        elif ids is not None:
            rule = _given_weights_rule(weights, len(ids), name)
            if rule is None:
                given = weights
            else:
                problems["weights"] = rule
    elif method == "given":
        problems["weights"] = f"required with weighting=given: one weight per alpha, in the order of `{name}`"
    if shrinkage is not None and method != "max_ir":
        problems["shrinkage"] = f"only with weighting=max_ir (weighting is {shown})"
    if fit_to is not None:
        rule = _fit_to_rule(fit_to, method, shown, window)
        if rule is not None:
            problems["fit_to"] = rule
    return None if method is None else Weighting(method, given, shrinkage, fit_to)


def _given_weights_rule(values: tuple[float, ...], count: int, name: str) -> str | None:
    """The rule given weights break (one per alpha of the set `name`, finite, each |w| <=
    MAX_WEIGHT, not all zero: sum |w| > 0), or None."""
    if not all(math.isfinite(v) for v in values):
        return "every weight must be finite"
    if len(values) != count:
        return f"needs one weight per alpha of `{name}` ({count}), got {len(values)}"
    if any(abs(v) > MAX_WEIGHT for v in values):
        return f"each weight must lie in [-{MAX_WEIGHT:g}, {MAX_WEIGHT:g}] (a fraction of the book's capital)"
    if not any(values):
        return "the weights are all zero (sum |w| must be above 0): the book would hold nothing"
    return None


def _fit_to_rule(fit_to: date, method: str | None, shown: str, window: Window) -> str | None:
    """The rule `fit_to` breaks before any data is read (None: none): only a fitted weighting has
    weights to fit, and the date must leave the window sessions on both sides (the counts are
    checked on the set's sessions, `split_at_fit`)."""
    start, end = window
    if method not in choices.FITTED_WEIGHTINGS:
        fitted = " or ".join(choices.FITTED_WEIGHTINGS)
        return f"only with weighting={fitted} (weighting is {shown}): equal and given weights are not fitted"
    if start is not None and fit_to < start:
        return f"must lie in the window: on or after from ({start.isoformat()}); the weights are fitted on the window's sessions up to it"
    if end is not None and fit_to >= end:
        return f"must lie in the window: before to ({end.isoformat()}); the sessions after it are the ones judged"
    return None


@dataclass(frozen=True)
class Turnover:
    """The set's whole-history turnover from the catalogue index (in the set's order)."""

    values: np.ndarray  # NaN where unknown
    units: tuple[str | None, ...]


def turnover_of(catalogue: Catalogue, ids: tuple[str, ...]) -> Turnover:
    index = catalogue.index
    assert index is not None  # the returns matrix was read from it
    at = pc.index_in(pa.array(list(ids), pa.string()), value_set=index.column("alpha_id"))
    taken = index.take(pc.fill_null(at, 0))
    found = pc.is_valid(at).to_numpy(zero_copy_only=False)
    values = np.array(taken.column("turnover").to_numpy(), dtype=np.float64)  # a copy: written below
    values[~found] = math.nan
    units = tuple(
        u if ok else None for u, ok in zip(taken.column("turnover_unit").to_pylist(), found, strict=True)
    )
    return Turnover(values, units)


TURNOVER_APPROXIMATION = (
    "sum |w_i| x turnover_i, each alpha's whole-history turnover as /metrics core.turnover serves it (the "
    "window does not narrow it); it ignores trades that net between alphas, so it is an upper bound of the "
    "combined book's"
)


def _turnover_entry(weights: np.ndarray, turnover: Turnover) -> AnalyticsStat:
    """The combined book's turnover in the unit its alphas state theirs in (their whole-history
    /metrics core.turnover; not measurable when one has none or their units differ)."""
    units = set(turnover.units)
    unit = next(iter(units)) if len(units) == 1 else None
    annualisation = TURNOVER_ANNUALISATIONS.get(unit or "", "per_period")
    # An annualised figure says how many sessions make its year, as every annualised entry does.
    year = {"periods_per_year": SESSIONS_PER_YEAR} if unit == "per_year" else {}
    if not np.isfinite(turnover.values).all() or unit is None:
        reason = (
            "an alpha of the set has no turnover"
            if not np.isfinite(turnover.values).all()
            else "the alphas state turnover in different units: " + ", ".join(sorted(str(u) for u in units))
        )
        return analytics_stat(
            None, unit or UNSEALED_TURNOVER_UNIT, "catalogue_index:turnover", annualisation, reason, **year
        )
    value = float(np.sum(np.abs(weights) * turnover.values))
    return analytics_stat(
        value,
        unit,
        "catalogue_index:turnover",
        annualisation,
        "",
        approximation=TURNOVER_APPROXIMATION,
        **year,
    )


def weights_of(returns: np.ndarray, weighting: Weighting) -> tuple[np.ndarray, CombinationShrinkage | None]:
    """The weights and, for max_ir, the shrinkage used."""
    n = returns.shape[1]
    if weighting.method == "equal":
        return equal_weights(n), None
    if weighting.method == "given":
        assert weighting.given is not None
        return np.array(weighting.given, dtype=np.float64), None
    if weighting.method == "inverse_volatility":
        return inverse_volatility_weights(returns), None
    given = weighting.shrinkage
    intensity = ledoit_wolf_intensity(returns) if given is None else given
    used = CombinationShrinkage(value=intensity, source="ledoit_wolf" if given is None else "given")
    return max_ir_weights(returns, intensity), used


@dataclass(frozen=True)
class Combined:
    days: np.ndarray
    period: np.ndarray
    cumulative: np.ndarray
    drawdown_pct: np.ndarray
    benchmark: np.ndarray | None  # the benchmark's cumulative return; None: the key may not read it
    benchmark_echo: BenchmarkEcho | None  # its symbol and basis (`meta.benchmark`); None as above
    # The combination's own `meta` keys (`EnvelopeMeta` declares them): the set, its weights and fit,
    # the sessions combined, the book's figures and the set's correlations.
    alphas: list[str]
    weighting: str
    shrinkage: CombinationShrinkage | None
    weights: list[CombinationWeight]
    fit: CombinationFit | None
    session_rule: str
    figures: BookFigures
    correlation: CorrelationMatrix

    def meta(self, request: EnvelopeMeta[Any]) -> EnvelopeMeta[Any]:
        """The route's `meta`: `request`'s keys (the request's echoes, source and id) with the
        combination's."""
        return msgspec.structs.replace(
            request,
            benchmark=self.benchmark_echo,
            alphas=self.alphas,
            weighting=self.weighting,
            shrinkage=self.shrinkage,
            weights=self.weights,
            fit=self.fit,
            sessions=int(self.days.size),
            session_rule=self.session_rule,
            figures=self.figures,
            correlation=self.correlation,
        )

    def rows(self, limit: int, offset: int) -> list[CombinedRow]:
        page = slice(offset, offset + limit)
        dates = self.days[page].astype("datetime64[D]").tolist()
        columns = [self.period[page], self.cumulative[page], self.drawdown_pct[page]]
        market = [None] * len(dates) if self.benchmark is None else _nullable(self.benchmark[page])
        return [
            CombinedRow(
                date=day,
                period_return=float(r),
                cumulative_return=float(c),
                drawdown_pct=float(d),
                benchmark_cumulative_return=b,
            )
            for day, r, c, d, b in zip(dates, *columns, market, strict=True)
        ]


def _nullable(values: np.ndarray) -> list[float | None]:
    return [float(v) if math.isfinite(v) else None for v in values]


def benchmark_cumulative(benchmark: BenchmarkSeries, days: np.ndarray) -> np.ndarray:
    """The benchmark's returns on the combined book's sessions, compounded from the first (a
    session it lacks counts as 0, null until its first known return, as the equity curve does)."""
    return compounding.cumulative(benchmark.on(days))


def _require_solvent(period: np.ndarray, days: np.ndarray, weighting: Weighting, name: str) -> None:
    """400 when the combined book loses all its equity on a common session (a daily return <= -1):
    its level would be 0 or negative from then on, its cumulative return below -100% and its
    drawdown above 100%, a book no one can hold. Given weights name `weights`; a computed
    weighting names the set, `name` (the set is what produced it)."""
    lost = first_wipeout(period)
    if lost is None:
        return
    day = iso_dates(days[lost : lost + 1])[0]
    rule = f"the combined book loses all its equity on {day} (a daily return of {period[lost]:.0%})"
    if weighting.method == "given":
        raise BadParameters({"weights": f"{rule}; scale the weights down"})
    raise BadParameters({name: f"{rule} with the {weighting.method} weights; combine other alphas"})


@dataclass(frozen=True)
class Weighted:
    """A set combined: its weights (the set's order), the shrinkage used (max_ir), the sessions the
    weights were fitted on (`fit`, null for weights not fitted) and the book's daily returns and
    risk-free returns on the sessions judged (`judged`: the set's common sessions of the window,
    after fit_to when it is given)."""

    weights: np.ndarray
    shrinkage: CombinationShrinkage | None
    fit: CombinationFit | None
    judged: SetReturns
    period: np.ndarray
    risk_free: np.ndarray | None


def _sessions(found: SetReturns, part: slice) -> SetReturns:
    risk_free = None if found.risk_free is None else found.risk_free[part]
    return SetReturns(found.ids, found.days[part], found.returns[part], risk_free, found.risk_free_reason)


def split_at_fit(found: SetReturns, weighting: Weighting) -> tuple[SetReturns, SetReturns]:
    """(the sessions the weights are fitted on, the sessions judged): without fit_to both are the
    set's common sessions of the window (in-sample); with it, those up to and including fit_to and
    those after it, each at least MIN_SESSIONS, else 400 naming fit_to."""
    if weighting.fit_to is None:
        return found, found
    cut = int(np.searchsorted(found.days, (weighting.fit_to - EPOCH).days, "right"))
    for count, where, need in (
        (cut, "on or before it", "to fit the weights"),
        (found.days.size - cut, "after it", "to judge them"),
    ):
        if count < MIN_SESSIONS:
            raise BadParameters(
                {
                    "fit_to": f"leaves {count} of the set's {found.days.size} common sessions of the window {where}; "
                    f"at least {MIN_SESSIONS} are needed {need}"
                }
            )
    return _sessions(found, slice(0, cut)), _sessions(found, slice(cut, None))


def _fit_echo(weighting: Weighting, fit: SetReturns, judged: SetReturns) -> CombinationFit | None:
    """meta.fit: which sessions fit the weights and which judge them (null: weights not fitted)."""
    if not weighting.fitted:
        return None
    method, n = weighting.method, int(fit.days.size)
    if weighting.fit_to is None:
        rule = (
            f"in-sample: the {method} weights are fitted on the same {n} sessions the figures are over, so the "
            "figures overstate what the weights would have earned; fit_to fits them on the sessions up to a date "
            "and judges them on those after it"
        )
    else:
        first, last = iso_dates(fit.days[[0, -1]])
        after = iso_dates(judged.days[[0, -1]])
        rule = (
            f"out-of-sample: the {method} weights are fitted on the set's {n} common sessions of the window up to "
            f"and including fit_to ({first} to {last}); the rows and figures are over the {judged.days.size} after "
            f"it ({after[0]} to {after[1]})"
        )
    return CombinationFit(
        fit_to=weighting.fit_to,
        sample="in_sample" if weighting.fit_to is None else "out_of_sample",
        sessions=n,
        rule=rule,
    )


def weighted(found: SetReturns, weighting: Weighting, name: str) -> Weighted:
    """The set's book at its weights, fitted on the sessions up to fit_to and judged on those after
    it (all of them, in-sample, without fit_to; 400 naming fit_to when a side holds too few; raises
    combination.NotCombinable for a set no weights fit; 400 naming `weights` or `name` for a book
    that loses all its equity): what /analytics/combine serves, and the reference book of a
    contribution with a weighting."""
    fit, judged = split_at_fit(found, weighting)
    weights, shrinkage = weights_of(fit.returns, weighting)
    period = judged.returns @ weights
    _require_solvent(period, judged.days, weighting, name)
    risk_free = None if judged.risk_free is None else judged.risk_free @ weights
    return Weighted(weights, shrinkage, _fit_echo(weighting, fit, judged), judged, period, risk_free)


def weight_warnings(
    book: Weighted, weighting: Weighting, production: frozenset[str], block: str, warnings: Warnings
) -> None:
    """Warns of weights fitted on the sessions they are judged on (in_sample_weights) and of a
    computed weighting that shorts alphas of the set (negative_weights, naming them with their
    weights and saying which are production alphas): a given weight is the caller's own choice."""
    judged = int(book.judged.days.size)
    if weighting.fitted and weighting.fit_to is None:
        warnings.add(
            "in_sample_weights",
            f"The {weighting.method} weights are fitted on the same {judged} sessions the figures are over "
            "(in-sample): the figures overstate what the weights would have earned. Pass fit_to=YYYY-MM-DD to fit "
            "them on the sessions up to that date and judge them on those after it.",
            block=block,
        )
    if weighting.fitted:
        shorts = [
            f"{alpha} ({weight:.2%}{', a production alpha' if alpha in production else ''})"
            for alpha, weight in zip(book.judged.ids, book.weights, strict=True)
            if weight < 0
        ]
        if shorts:
            one = len(shorts) == 1
            warnings.add(
                "negative_weights",
                f"The {weighting.method} weights short {len(shorts)} alpha{'' if one else 's'} of the set: "
                f"{', '.join(shorts)}; the combination sells {'its' if one else 'their'} returns.",
                block=block,
            )


def combination_weights(ids: tuple[str, ...], weights: np.ndarray) -> list[CombinationWeight]:
    return [CombinationWeight(alpha=a, weight=float(w)) for a, w in zip(ids, weights, strict=True)]


def production_of(catalogue: Catalogue, ids: tuple[str, ...]) -> frozenset[str]:
    """Which of `ids` are production alphas: approved, as the catalogue index last heard of the
    standings (its `approved` column; an index written before it knows of none)."""
    index = catalogue.index
    assert index is not None  # the returns matrix was read from it
    if "approved" not in index.column_names:
        return frozenset()
    flags = pc.fill_null(index.column("approved"), False)
    produced = index.filter(flags).column("alpha_id").to_pylist()
    return frozenset(produced) & frozenset(ids)


def combined_figures(
    returns: np.ndarray,
    weights: np.ndarray,
    period: np.ndarray,
    risk_free: np.ndarray | None,
    risk_free_reason: str,
    turnover: Turnover,
) -> BookFigures:
    """`meta.figures` of a combination: the five figures, the turnover and the diversification
    ratio of the book `period = returns @ weights` (sessions x alphas)."""
    diversification = declared_stat(
        BookFigures,
        "diversification_ratio",
        diversification_ratio(returns, weights, period),
        "the combined book's daily returns have no variance over the common sessions",
    )
    return book_entries(
        book_figures(period, risk_free, SESSIONS_PER_YEAR),
        risk_free_reason,
        _turnover_entry(weights, turnover),
        diversification_ratio=diversification,
    )


def combined(
    found: SetReturns,
    weighting: Weighting,
    turnover: Turnover,
    benchmark: BenchmarkSeries | None,
    production: frozenset[str],
    warnings: Warnings,
) -> Combined:
    """The combined book over the sessions judged (raises combination.NotCombinable for a set no
    weights fit)."""
    book = weighted(found, weighting, "alphas")
    weight_warnings(book, weighting, production, "weights", warnings)
    weights, period, judged = book.weights, book.period, book.judged
    cumulative, drawdown_pct = equity(period)
    entries = combined_figures(
        judged.returns, weights, period, book.risk_free, judged.risk_free_reason, turnover
    )
    matrix = correlation_matrix(judged.returns)
    market = None if benchmark is None else benchmark_cumulative(benchmark, judged.days)
    return Combined(
        judged.days,
        period,
        cumulative,
        drawdown_pct,
        market,
        None if benchmark is None else BenchmarkEcho(symbol=benchmark.symbol, basis=benchmark.basis),
        alphas=list(judged.ids),
        weighting=weighting.method,
        shrinkage=book.shrinkage,
        weights=combination_weights(judged.ids, weights),
        fit=book.fit,
        session_rule=SESSION_RULE if weighting.fit_to is None else SESSION_RULE + AFTER_FIT,
        figures=entries,
        correlation=CorrelationMatrix(alphas=list(judged.ids), matrix=[_nullable(row) for row in matrix]),
    )


def combine_weighting(
    ids: tuple[str, ...],
    method: str,
    weights: tuple[float, ...] | None,
    shrinkage: float | None,
    fit_to: date | None,
    window: Window,
) -> Weighting:
    """The weighting of the set `ids` (`alphas`, 2 to MAX_SET of them), or one BadParameters
    naming every broken parameter (`weighting_of`)."""
    problem = sets.listed(ids, 2, MAX_SET)
    problems = {} if problem is None else {"alphas": problem}
    found = weighting_of(
        method,
        weights,
        shrinkage,
        fit_to,
        window,
        ids if problem is None else None,
        "alphas",
        problems,
    )
    if problems:
        raise BadParameters(problems)
    assert found is not None  # combine's weighting has a default
    return found


def combination(
    snapshot: CatalogueSnapshot,
    ids: tuple[str, ...],
    window: Window,
    weighting: Weighting,
    benchmark: BenchmarkSeries | None,
    warnings: Warnings,
) -> Combined:
    """/analytics/combine: the set `ids` (admitted: `sets.admitted`) combined over the window, its
    rows compounded against `benchmark` (None: the caller may not read it, warned as such). Maps
    the returns matrix, so the server runs it in a worker thread."""
    if benchmark is None:
        warnings.add(
            "access_limited",
            f"benchmark_cumulative_return is built from {MARKET_BENCHMARK}'s daily series, which this key may not "
            f"read ({BENCHMARK_ENDPOINT}): it is null on every row.",
            block="benchmark_cumulative_return",
        )
    catalogue = snapshot.catalogue
    rows = sets.matrix_rows(snapshot.matrix("returns"), ids, "alphas")
    found = set_returns(snapshot, rows, ids, window, "alphas")
    try:
        return combined(
            found, weighting, turnover_of(catalogue, ids), benchmark, production_of(catalogue, ids), warnings
        )
    except NotCombinable as exc:
        raise BadParameters({"alphas": f"cannot be combined by {weighting.method}: {exc}"}) from exc
