"""Is it still working? The odds of a drawdown deeper than x within h weeks if the book keeps the
level its approval expects, and where the live path stands in the forward cone of that expectation
(issue 59, item 5; quantstats #494 asks for the live path's percentile).

The paths: the book's backtest weeks (its sessions up to the split, compounded by calendar week as
/analytics/monitoring's, `monitoring._weeks_of`) are re-centred so their mean is the weekly return
the expectation implies, mu0 = expected live information ratio (/analytics/expectation) / sqrt(weeks a
year) x the backtest's weekly standard deviation, keeping their spread, fat tails and serial
dependence; `PATHS` paths of h weeks are drawn from them with the project's one stationary block
bootstrap (`analytics.bootstrap`: Politis and White's mean block length, one seeded stream, so a
build always gives the same answer) and compounded from 1.0 at the split.

Of each path: its maximum drawdown within h weeks (the deepest fall below its running peak, the
split's 1.0 counting as a peak, as `analytics.compounding.max_drawdown_fraction`), whose share
beyond each depth x is the odds (Monte Carlo standard error sqrt(p (1 - p) / paths)), and its
cumulative return at each week, whose quantiles are the cone. The live path (the weeks after the
split) is placed at each week among the simulated paths at that week (its percentile, ties counted
half), and its maximum drawdown so far among the simulated ones over as many weeks. The paths are
made longer than h when the live path is (up to `HORIZON_MAX_WEEKS`), so every live week has a
place; the odds and the cone read the first h weeks.

The known answer (tests/analytics/test_drawdown_odds.py): fed iid normal log returns, the expected
maximum drawdown of the log path matches Magdon-Ismail, Atiya, Pratap and Abu-Mostafa's (2004)
formula for a Brownian motion with drift, within Monte Carlo error, once the weekly sampling's
continuity correction is added (docs/analytics.md, "Drawdown odds and the forward cone").
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np

from analytics import bootstrap, inputs
from analytics.access import Access, withheld
from analytics.entries import Warnings
from analytics.errors import BadParameters
from analytics.expectation import Levels
from analytics.flight import SingleFlight, heavy
from analytics.live import Split
from analytics.monitoring import _weeks_of, live_weeks
from analytics.variance import measurable_std
from datasets.reader import BuildView
from schemas.bodies.drawdown_odds import (
    DEFAULT_DEPTHS,
    DEPTHS_MAX,
    HORIZON_MAX_WEEKS,
    MIN_BACKTEST_WEEKS,
    PATHS,
    QUANTILE_LEVELS,
    ConeWeek,
    DepthOdds,
    DrawdownOdds,
    LiveWeek,
)
from schemas.conventions import WEEKS_PER_YEAR

STREAM = 2
"""The generator's stream of `bootstrap.SEED` (/analytics/uncertainty draws streams 0 and 1)."""

EPOCH = dt.date(1970, 1, 1)


def depths_of(depths: tuple[float, ...] | None) -> tuple[float, ...]:
    """The depths to answer, shallowest first, each once (the default when None); BadParameters
    naming `depths` for more than DEPTHS_MAX or a depth outside (0, 1)."""
    if depths is None:
        return DEFAULT_DEPTHS
    if len(depths) > DEPTHS_MAX:
        raise BadParameters({"depths": f"names at most {DEPTHS_MAX} depths; got {len(depths)}"})
    if not all(math.isfinite(x) and 0.0 < x < 1.0 for x in depths):
        raise BadParameters(
            {"depths": "every depth must lie in (0, 1), a fraction of the peak (0.1: a fall of 10%)"}
        )
    return tuple(sorted(set(depths)))


def positions(starts: np.ndarray, lengths: np.ndarray, n: int) -> np.ndarray:
    """(rows, length) positions into a series of n values of the resamples given as blocks
    (`bootstrap.draw_blocks`, every row's lengths adding up to the same length): each block runs on
    from its start, wrapping around the series (modulo n) as often as it needs."""
    flat = lengths.ravel()
    begins = np.cumsum(flat) - flat  # where each block begins in the rows laid end to end
    laid = np.repeat(starts.ravel() - begins, flat) + np.arange(int(flat.sum()))
    return (laid % n).reshape(starts.shape[0], -1)


def simulate(x: np.ndarray, weeks: int, paths: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """(paths, weeks) weekly returns drawn from the series x by the stationary block bootstrap, and
    the mean block length used (`bootstrap.block_length` of x)."""
    mean_block = bootstrap.block_length(x)
    starts, lengths = bootstrap.draw_blocks(rng, x.size, paths, mean_block, length=weeks)
    return x[positions(starts, lengths, x.size)], mean_block


def compounded(returns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cumulative return, maximum drawdown so far), each (paths, weeks), of paths of weekly returns
    compounded from 1.0: W_t = prod(1 + r), the drawdown 1 - W_t / max(1, max_{s<=t} W_s). A
    return at or below -100% loses everything (the wealth stays 0, the drawdown 1)."""
    wealth = np.cumprod(np.maximum(1.0 + returns, 0.0), axis=1)
    peak = np.maximum(np.maximum.accumulate(wealth, axis=1), 1.0)
    drawdown = np.maximum(1.0 - wealth / peak, 0.0)
    return wealth - 1.0, np.maximum.accumulate(drawdown, axis=1)


def below_share(simulated: np.ndarray, value: np.ndarray | float) -> np.ndarray:
    """Per column, the share of `simulated` rows below `value`, ties counted half."""
    below = np.count_nonzero(simulated < value, axis=0)
    equal = np.count_nonzero(simulated == value, axis=0)
    return (below + 0.5 * equal) / simulated.shape[0]


@dataclass(frozen=True, eq=False)
class Simulated:
    """What a request's depths are answered from (memoised on the view for the alpha's own split)."""

    backtest_weeks: int
    sd: float
    mu0: float
    block_length: float
    max_drawdowns: np.ndarray  # each path's within h weeks, sorted
    cone: np.ndarray  # (h, len(QUANTILE_LEVELS))
    live_days: np.ndarray
    live_returns: np.ndarray
    live_cumulative: np.ndarray
    live_percentiles: np.ndarray  # NaN after the simulated weeks
    live_max_drawdown: float | None
    live_max_drawdown_percentile: float | None


def simulated(
    backtest: np.ndarray, live_days: np.ndarray, live: np.ndarray, expected_ir: float, horizon: int
) -> Simulated | str:
    """The paths of `horizon` weeks (longer when the live weeks are, up to HORIZON_MAX_WEEKS) drawn
    from the backtest's weekly returns re-centred on the level `expected_ir` implies, with the
    live weeks placed among them; a reason when the backtest cannot be resampled."""
    x = backtest[np.isfinite(backtest)]
    if x.size < MIN_BACKTEST_WEEKS:
        return f"fewer than {MIN_BACKTEST_WEEKS} backtest weeks with a return: too few to resample"
    sd = measurable_std(x)  # the project's one rule for a spread that is only rounding
    if not math.isfinite(sd):
        return "the backtest's weekly returns have no spread"
    mu0 = expected_ir / math.sqrt(WEEKS_PER_YEAR) * sd
    centred = x - float(np.mean(x)) + mu0
    weeks = max(horizon, min(live.size, HORIZON_MAX_WEEKS))
    returns, mean_block = simulate(centred, weeks, PATHS, bootstrap.generator(bootstrap.SEED, STREAM))
    cumulative, drawdowns = compounded(returns)
    max_drawdowns = np.sort(drawdowns[:, horizon - 1])
    cone = np.quantile(cumulative[:, :horizon], QUANTILE_LEVELS, axis=0).T
    # A week without a return adds nothing to the live path.
    live_cumulative, live_drawdowns = compounded(np.where(np.isfinite(live), live, 0.0)[None, :])
    placed = min(live.size, weeks)
    percentiles = np.full(live.size, np.nan)
    percentiles[:placed] = below_share(cumulative[:, :placed], live_cumulative[0, :placed])
    live_mdd = live_pct = None
    if live.size:
        live_mdd = float(live_drawdowns[0, -1])
        if live.size <= weeks:
            live_pct = float(below_share(drawdowns[:, live.size - 1 : live.size], live_mdd)[0])
    return Simulated(
        backtest_weeks=int(x.size),
        sd=sd,
        mu0=mu0,
        block_length=mean_block,
        max_drawdowns=max_drawdowns,
        cone=cone,
        live_days=live_days,
        live_returns=live,
        live_cumulative=live_cumulative[0],
        live_percentiles=percentiles,
        live_max_drawdown=live_mdd,
        live_max_drawdown_percentile=live_pct,
    )


# -- the served answer (`/analytics/drawdown_odds`, `Reading.drawdown_odds`) ---------------------------


_flights: SingleFlight[Simulated | str] = SingleFlight()


def drawdown_odds_payload(
    view: BuildView,
    book: str,
    split: Split,
    levels: Levels,
    horizon: int,
    depths: tuple[float, ...] | None,
    access: Access,
    warnings: Warnings,
) -> DrawdownOdds:
    """The odds of each depth within `horizon` weeks, the expected maximum drawdown, the cone and the
    live path at the level the alpha is expected to show live (`levels`:
    `analytics.expectation.expected_levels` at the same split, the one expected live information ratio). The
    simulation is made once per build for the alpha's own split (`view.memo`: a second request
    only counts its depths); a what-if split is simulated for its request. Either is single-flight
    and heavy (`analytics.flight`)."""
    asked = depths_of(depths)
    expected_ir = levels.information_ratio
    made: Simulated | str
    if not access.ledger:
        made = withheld("ledger", "drawdown_odds", warnings)
    elif (found := inputs.ledger(view, book)) is None:
        made = "the run sealed no ledger for this book"
    elif split.date is None:
        made = "the alpha has no split: no backtest to expect a level from"
    elif expected_ir is None:
        made = f"no expected live level: {levels.information_ratio_reason or 'not measurable'}"
    else:
        last, level = split.date, expected_ir

        def compute() -> Simulated | str:
            backtest, after = found.split(last)
            if split.end is not None:
                after = after.window((None, split.end))
            _, backtest_weeks = _weeks_of(backtest.days, backtest.returns)
            live_days, live_growth = live_weeks(last, after.days, after.returns)
            return simulated(backtest_weeks, live_days, live_growth, level, horizon)

        # Heavy (10,000 paths): one computation per question at a time in a worker, and one heavy
        # computation at once (`analytics.flight`), so that concurrent asks cannot take the loop.
        question = f"analytics:drawdown_odds:{book}:{last}:{split.end}:{horizon}:{level!r}"
        once = (view.build_id, split.origin == "request", question)

        if split.origin == "request":
            made = _flights.run(once, lambda: heavy(compute))
        else:  # the memo inside the flight: what it records as read is the computing thread's
            made = _flights.run(once, lambda: view.memo(question, lambda: heavy(compute)))
    s = made if isinstance(made, Simulated) else None
    expected, error, p05, p25, p50, p75, p95 = _max_drawdown(s)
    return DrawdownOdds(
        alpha=view.alpha_id,
        book=book,
        split_date=split.date,
        split_origin=split.origin,
        live=split.origin == "approval",
        state="not_measurable" if s is None else "measured",
        withheld_reason=made if isinstance(made, str) else None,
        horizon_weeks=horizon,
        expected_live_information_ratio=expected_ir,
        expected_weekly_return=None if s is None else s.mu0,
        backtest_weekly_sd=None if s is None else s.sd,
        backtest_weeks=0 if s is None else s.backtest_weeks,
        paths=PATHS,
        block_length=None if s is None else s.block_length,
        seed=bootstrap.SEED,
        stream=STREAM,
        expected_max_drawdown=expected,
        expected_max_drawdown_error=error,
        max_drawdown_p05=p05,
        max_drawdown_p25=p25,
        max_drawdown_p50=p50,
        max_drawdown_p75=p75,
        max_drawdown_p95=p95,
        odds=[] if s is None else odds_of(s.max_drawdowns, asked),
        cone=[] if s is None else _cone(s.cone),
        live_weeks=0 if s is None else int(s.live_returns.size),
        live_max_drawdown=None if s is None else s.live_max_drawdown,
        live_max_drawdown_percentile=None if s is None else s.live_max_drawdown_percentile,
        live_path=[] if s is None else _live_path(s),
    )


def _max_drawdown(s: Simulated | None) -> list[float | None]:
    """The mean of the simulated maximum drawdowns, its Monte Carlo standard error, and their
    quantiles (QUANTILE_LEVELS); all None when not measured."""
    if s is None:
        return [None] * (2 + len(QUANTILE_LEVELS))
    mdd = s.max_drawdowns
    error = float(np.std(mdd, ddof=1)) / math.sqrt(mdd.size)
    return [float(np.mean(mdd)), error, *np.quantile(mdd, QUANTILE_LEVELS).tolist()]


def odds_of(max_drawdowns: np.ndarray, depths: tuple[float, ...]) -> list[DepthOdds]:
    """Each depth's share of paths whose maximum drawdown is deeper (the drawdowns sorted: one
    binary search a depth)."""
    count = max_drawdowns.size
    beyond = count - np.searchsorted(max_drawdowns, np.asarray(depths), side="right")
    out = []
    for depth, exceeded in zip(depths, beyond.tolist(), strict=True):
        p = exceeded / count
        out.append(
            DepthOdds(
                depth=depth, exceedance_probability=p, exceedance_error=math.sqrt(p * (1.0 - p) / count)
            )
        )
    return out


def _cone(cone: np.ndarray) -> list[ConeWeek]:
    return [
        ConeWeek(week=week, cone_p05=a, cone_p25=b, cone_p50=c, cone_p75=d, cone_p95=e)
        for week, (a, b, c, d, e) in enumerate(cone.tolist(), start=1)
    ]


def _live_path(s: Simulated) -> list[LiveWeek]:
    rows = zip(
        s.live_days.tolist(),
        s.live_returns.tolist(),
        s.live_cumulative.tolist(),
        s.live_percentiles.tolist(),
        strict=True,
    )
    return [
        LiveWeek(
            week=week,
            date=EPOCH + dt.timedelta(days=int(day)),
            live_weekly_return=value if math.isfinite(value) else None,
            live_cumulative_return=cumulative,
            cone_percentile=percentile if math.isfinite(percentile) else None,
        )
        for week, (day, value, cumulative, percentile) in enumerate(rows, start=1)
    ]
