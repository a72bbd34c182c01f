"""`/analytics/uncertainty`: stationary block-bootstrap percentile intervals (`analytics.bootstrap`)
of a book's headline figures over a window (docs/analytics.md, "Uncertainty").

The figures are those `/analytics/live` serves for each part, under the same names and computed
the same way (the information ratio and the turnover also as `/analytics/checks`, the rebuilt IC's
mean and ICIR also as `/analytics/significance`): a figure's point is the served figure, its bounds
the quantiles of the same figure over the resamples, in its unit.

Two groups are resampled, each from its own stream of the seed: the book's sessions with a daily
return (stream 0: the information ratio, the excess Sharpe ratio, the maximum drawdown and the
turnover, each resample the same sessions for all four, so their intervals are of one bootstrap
world), and the weeks with a measurable rebuilt IC (stream 1: its mean, its ICIR and its hit rate,
the share of them above 0). A group's mean block length is the longest of its series' Politis-White
block lengths: a shorter one would cut the dependence of the most dependent of them (the turnover,
whose autocorrelation is far above the returns').

`/analytics/significance` serves its bootstrap block (the long_short book's information ratio,
rebuilt mean IC and ICIR) from these intervals: the two routes agree on the same window. The whole
history's intervals are computed once per build (and per access), a window's per request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analytics import bootstrap, inputs
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, declared_stat, number, window_echo
from analytics.metrics import metrics_inputs
from analytics.metrics.blocks import ic_reproduction_mismatch
from datasets.queries import Window
from datasets.reader import BuildView
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import Body
from schemas.bodies.uncertainty import BLOCK_LENGTH_RULE, SESSION_FIGURES, WEEK_FIGURES, Uncertainty

SESSION_STREAM, WEEK_STREAM = 0, 1
STREAM_IDS = (SESSION_STREAM, WEEK_STREAM)  # every kept stream the intervals read
METHOD = "stationary block bootstrap (Politis and Romano 1994), percentile intervals"
STREAMS = (
    "stream 0: the sessions (information_ratio, excess_sharpe, max_drawdown_pct and turnover, resampled "
    "together); stream 1: the weeks with a measurable rebuilt IC (rebuilt_mean_ic, rebuilt_icir and "
    "rebuilt_hit_rate, resampled together)"
)


@dataclass(frozen=True)
class Interval:
    """One figure: its point (the served figure), its bounds (NaN: none), the finite observations
    of its series and the mean block length its resamples were drawn with (0: none drawn)."""

    point: float
    lower: float
    upper: float
    observations: int
    block_length: float


@dataclass(frozen=True)
class Intervals:
    """Every figure of one book and window, with what each group resampled (None: not read)."""

    figures: Mapping[str, Interval]
    sessions: int | None
    weeks: int | None


Series = tuple[np.ndarray, bootstrap.Statistic, float]
"""(values, statistic, scale): the figure is the statistic of the finite values times the scale."""


def group_intervals(
    series: Mapping[str, Series],
    rng: np.random.Generator | bootstrap.KeptStream,
    resamples: int = bootstrap.RESAMPLES,
    confidence: float = bootstrap.CONFIDENCE,
    blocks: tuple[np.ndarray, np.ndarray] | None = None,
    wanted: frozenset[str] | None = None,
) -> dict[str, Interval]:
    """The intervals of figures whose series are of the same n observations, every figure over
    the same resamples (`blocks`, else drawn from `rng` with the longest Politis-White block length
    of the series with at least MIN_OBSERVATIONS finite values). `wanted`: the figures computed
    (None: all); every series still chooses the block length, so a figure's interval is the same
    whichever others are computed."""
    counted = {name: int(np.count_nonzero(np.isfinite(x))) for name, (x, _, _) in series.items()}
    measurable = [name for name, count in counted.items() if count >= bootstrap.MIN_OBSERVATIONS]
    computed = [name for name in measurable if wanted is None or name in wanted]
    length = 0.0
    if computed:  # (none asked for: nothing drawn)
        # one per distinct series (the ratio and the mean of one series, the drawdown of the returns)
        distinct = {id(series[name][0]): series[name][0] for name in measurable}
        length = max(bootstrap.block_length(bootstrap.finite(x)) for x in distinct.values())
        n = next(iter(series.values()))[0].size
        blocks = bootstrap.draw_blocks(rng, n, resamples, length) if blocks is None else blocks
    out = {name: Interval(math.nan, math.nan, math.nan, counted[name], 0.0) for name in series}
    if blocks is None or not computed:  # no series with enough observations, or none asked for
        return out
    # The moments of every distinct series read for them, in one pass over the blocks
    summed = {id(series[name][0]): series[name][0] for name in computed if series[name][1].moments}
    squared = [
        any(s.squares for name, (x, s, _) in series.items() if x is value and name in computed)
        for value in summed.values()
    ]
    known = dict(zip(summed, bootstrap.moments_of(list(summed.values()), *blocks, squared), strict=True))
    for name in computed:
        x, statistic, scale = series[name]
        draws = statistic.of_resamples(bootstrap.Resamples(x, *blocks, known.get(id(x))))
        lower, upper = bootstrap.percentile_interval(draws, confidence)
        point = statistic.of_series(bootstrap.finite(x))
        out[name] = Interval(point * scale, lower * scale, upper * scale, counted[name], length)
    return out


def session_series(ledger: inputs.Ledger, per_year: int) -> dict[str, Series]:
    """The session figures' series over the ledger's sessions with a daily return."""
    returns = ledger.returns
    keep = np.isfinite(returns)
    return session_series_of(
        returns[keep], (returns - ledger.risk_free_return)[keep], ledger.turnover[keep], per_year
    )


def session_series_of(
    r: np.ndarray, excess: np.ndarray, turnover: np.ndarray, per_year: int
) -> dict[str, Series]:
    """The session figures' series: the daily returns, the same less the risk-free return, the
    one-way turnover (NaN where none: left out of its mean), one per session."""
    root = math.sqrt(per_year)
    return {
        "information_ratio": (r, bootstrap.RATIO, root),
        "excess_sharpe": (excess, bootstrap.RATIO, root),
        "max_drawdown_pct": (r, bootstrap.MAX_DRAWDOWN, 100.0),
        "turnover": (turnover, bootstrap.MEAN, float(per_year)),
    }


def week_series(ic: np.ndarray, weeks_per_year: int) -> dict[str, Series]:
    """The week figures' series over the weeks with a measurable IC."""
    x = bootstrap.finite(ic)
    return {
        "rebuilt_mean_ic": (x, bootstrap.MEAN, 1.0),
        "rebuilt_icir": (x, bootstrap.RATIO, math.sqrt(weeks_per_year)),
        "rebuilt_hit_rate": ((x > 0).astype(np.float64), bootstrap.MEAN, 1.0),
    }


def intervals(
    view: BuildView, book: str, window: Window, access: Access, wanted: frozenset[str] | None = None
) -> Intervals:
    """The intervals of `book` over `window` in the reach of `access` (a group the key may not read
    is neither read nor drawn: its figures NaN, its count None). `wanted`: the figures a window's
    answer serves (None: all; `group_intervals`); the whole history's are computed all at once, once.
    The uniforms come from the streams' kept prefix (`bootstrap.kept_stream`): the same values as a
    fresh generator's, without drawing them per request."""

    def compute() -> Intervals:
        run = conventions(view)
        figures: dict[str, Interval] = {}
        sessions = weeks = None
        ledger = inputs.ledger(view, book) if access.ledger else None
        if ledger is not None:
            series = session_series(ledger.window(window), run.sessions_per_year)
            sessions = int(series["information_ratio"][0].size)
            figures |= group_intervals(
                series, bootstrap.kept_stream(bootstrap.SEED, SESSION_STREAM), wanted=subset
            )
        ic = inputs.weekly_ic(view) if access.cross_sections else None
        if ic is not None:
            series = week_series(ic.window(window).values, run.weeks_per_year)
            weeks = int(series["rebuilt_mean_ic"][0].size)
            figures |= group_intervals(
                series, bootstrap.kept_stream(bootstrap.SEED, WEEK_STREAM), wanted=subset
            )
        return Intervals(figures, sessions, weeks)

    whole = window == (None, None)
    subset = None if whole else wanted
    if whole:
        return view.memo(
            f"analytics:uncertainty:{book}:{int(access.ledger)}{int(access.cross_sections)}", compute
        )
    return compute()


def stat(
    body: type[Body],
    name: str,
    found: Intervals,
    reason: str,
    context: Mapping[str, str] | None = None,
    **extra: object,
) -> AnalyticsStat:
    """The stat entry of figure `name`: its point with its interval, or not_measurable with `reason`
    (the key may not read its data, the run has none) or, when computed, why it has no value.
    `context` fills the `{book}` of its source."""
    entry = found.figures.get(name)
    if entry is None:  # not read: no observations, nothing drawn
        entry = Interval(math.nan, math.nan, math.nan, 0, 0.0)
    elif not math.isfinite(entry.point):
        few = entry.observations < bootstrap.MIN_OBSERVATIONS
        reason = (
            f"fewer than {bootstrap.MIN_OBSERVATIONS} observations in the window"
            if few
            else "the series has no measurable variance in the window"
        )
    return declared_stat(
        body,
        name,
        entry.point,
        reason,
        context,
        lower=number(entry.lower),
        upper=number(entry.upper),
        observations=entry.observations,
        block_length=entry.block_length,
        **extra,
    )


def warn_if_ic_does_not_reproduce(view: BuildView, warnings: Warnings, block: str, consequence: str) -> None:
    """The `/metrics` rule (`ic_reproduction_mismatch`, which nulls nwt.ic there) on the weekly IC
    the bootstrap resamples: its figures are served, with the warning that the series they come
    from does not reproduce the run's sealed mean IC."""
    mismatch = ic_reproduction_mismatch(metrics_inputs(view))
    if mismatch is not None:
        warnings.add(
            "ic_reproduction_mismatch",
            f"{mismatch}; {consequence}",
            block=block,
        )


def uncertainty_payload(
    view: BuildView, book: str, window: Window, access: Access, warnings: Warnings
) -> Uncertainty:
    run = conventions(view)
    reasons: dict[str, str] = {}
    if not access.ledger:
        reasons["ledger"] = withheld("ledger", "uncertainty", warnings)
    elif inputs.ledger(view, book) is None:
        reasons["ledger"] = "the run has no ledger for this book"
    if not access.cross_sections:
        reasons["ic"] = withheld("cross_sections", "uncertainty.ic", warnings)
    elif inputs.weekly_ic(view) is None:
        reasons["ic"] = "the run has no weekly IC (no rebalance cross-sections)"
    else:
        warn_if_ic_does_not_reproduce(
            view,
            warnings,
            "uncertainty",
            "rebuilt_mean_ic, rebuilt_icir and rebuilt_hit_rate are computed from that rebuilt weekly IC.",
        )
    found = intervals(view, book, window, access)
    per_session = {"periods_per_year": run.sessions_per_year}
    per_week = {"periods_per_year": run.weeks_per_year}
    ledger_reason, ic_reason = reasons.get("ledger", ""), reasons.get("ic", "")

    def session(name: str, **extra: object) -> AnalyticsStat:
        return stat(Uncertainty, name, found, ledger_reason, {"book": book}, **extra)

    def week(name: str, **extra: object) -> AnalyticsStat:
        return stat(Uncertainty, name, found, ic_reason, {"book": book}, **extra)

    assert set(SESSION_FIGURES) | set(WEEK_FIGURES) <= set(Uncertainty.__struct_fields__)
    return Uncertainty(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        sessions=found.sessions,
        weeks=found.weeks,
        method=METHOD,
        confidence=bootstrap.CONFIDENCE,
        resamples=bootstrap.RESAMPLES,
        seed=bootstrap.SEED,
        block_length_rule=BLOCK_LENGTH_RULE,
        streams=STREAMS,
        information_ratio=session("information_ratio", **per_session),
        excess_sharpe=session("excess_sharpe", **per_session),
        max_drawdown_pct=session("max_drawdown_pct"),
        turnover=session("turnover", **per_session),
        rebuilt_mean_ic=week("rebuilt_mean_ic"),
        rebuilt_icir=week("rebuilt_icir", **per_week),
        rebuilt_hit_rate=week("rebuilt_hit_rate"),
    )
