"""The figures of `/analytics/checks` that no other route serves (docs/analytics.md "Checks"):
the information ratio of a book's recent sessions, the share of its calendar years that made
money, its information ratio with the modelled execution cost doubled and the largest weight it
held; and each check's verdict with its reason in words.

Returns and cost rates are as `analytics.costs` defines them: the daily net return r_t =
ending_t / starting_t - 1 (after the modelled costs), the cost rate k_t = -execution_cost_t /
starting_t (the ledger books costs as negative flows), the gross return g_t = r_t + k_t.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics import (
    attribution,
    compounding,
    haircut,
    inputs,
    live,
    residual,
    sets,
    sharpe_inference,
    significance,
    sub_universe,
    uncertainty,
)
from analytics.access import Access, withheld
from analytics.correlation import against_set
from analytics.costs import information_ratio
from analytics.entries import Warnings, conventions, number, window_echo
from analytics.errors import AnalyticsNotBuilt
from analytics.metrics import metrics_inputs
from analytics.metrics.blocks import nwt_ic_block
from analytics.overfitting import NOT_IN_A_FAMILY
from analytics.policy import BY_ID, CHECKS, Policy
from analytics.returns import daily_returns
from analytics.significance import MIN_FAMILY_TRIALS, FamilyTrials, Seen
from analytics.tenure import Tenure
from datasets.catalogue_snapshot import Matrix
from datasets.faults import CatalogueIncomplete
from datasets.queries import Window, day_numbers, window_bounds
from datasets.reader import BuildView
from datasets.rows import floats
from datasets.served import Catalogue
from schemas.bodies.decisions import Bound, CheckResult, Checks, ChecksSummary
from schemas.bodies.live import LIVE_MIN_SESSIONS
from schemas.bodies.overfitting import Overfitting
from schemas.checks import (
    FAMILY_CHECKS,
    FRAGILITY_DAYS,
    LIVE_CHECKS,
    MAX,
    MIN,
    MIN_YEAR_SESSIONS,
    NOT_APPROVED,
    OPTIONAL_CHECKS,
    PBO_BELOW_DEFAULT,
    PBO_DEFAULT_MIN_TRIALS,
    PERCENT_UNITS,
    RECENT_SESSIONS,
    STRESS_MULTIPLE,
    Check,
)
from schemas.conventions import SESSIONS_PER_YEAR
from schemas.wire import BENCHMARK_ENDPOINT

MAX_DIGITS = 17
"""Significant digits that tell any two distinct doubles apart (`verdict`'s numbers stop there)."""


def recent(values: np.ndarray, sessions: int = RECENT_SESSIONS) -> np.ndarray:
    """The last `sessions` values (all of them when there are fewer)."""
    return values[-sessions:] if values.size > sessions else values


def stressed_returns(
    starting_equity: np.ndarray,
    ending_equity: np.ndarray,
    execution_cost: np.ndarray,
    multiple: float = STRESS_MULTIPLE,
) -> np.ndarray:
    """Daily returns paying `multiple` times the modelled cost: g_t - multiple k_t, i.e. the net
    return r_t less (multiple - 1) more cost k_t; NaN where the starting equity is 0."""
    net = daily_returns(starting_equity, ending_equity)
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_rate = np.where(starting_equity != 0, -execution_cost / starting_equity, np.nan)
    return net - (multiple - 1.0) * cost_rate


def positive_years(
    days: np.ndarray,
    returns: np.ndarray,
    sessions_per_year: int = SESSIONS_PER_YEAR,
    min_sessions: int = MIN_YEAR_SESSIONS,
) -> tuple[float, float]:
    """(the years whose compounded return prod(1 + r_t) - 1 is above 0, the years counted), each
    calendar year weighed by how much of a year it holds: its sessions with a finite return over
    `sessions_per_year` (its run's calendar), at most 1, so a partial year never counts as a full
    one (issue 81, item 9: a 10-week year is 10/52 of a year); a year with fewer than
    `min_sessions` such sessions is not counted. `days`: days since 1970, ascending, one per return."""
    finite = np.isfinite(returns)
    years = days[finite].astype("datetime64[D]").astype("datetime64[Y]").astype(np.int64)
    starts, growth = compounding.period_growth(returns[finite], years)
    counts = np.diff(np.append(starts, years.size))
    weight = np.where(counts >= min_sessions, np.minimum(1.0, counts / sessions_per_year), 0.0)
    return float(weight[growth > 1.0].sum()), float(weight.sum())


def share(part: float, whole: float) -> float:
    return part / whole if whole else math.nan


def largest_weight(weights: np.ndarray) -> int | None:
    """The index of the largest |weight| (the first on a tie), ignoring non-finite ones; None when
    there is none."""
    magnitude = np.abs(weights)
    finite = np.isfinite(magnitude)
    if not finite.any():
        return None
    return int(np.argmax(np.where(finite, magnitude, -1.0)))


def verdict(
    check: Check, value: float | None, bound: Mapping[str, float], context: Mapping[str, object]
) -> tuple[str, str | None]:
    """(pass, fail or not_measurable; the reason of a pass or a fail): the comparison that decided
    it, then what the value means (the check's `meaning` filled with `context`), e.g.
    "0.744 < 0.95: the probability that ...". A pass needs min <= value <= max on the sides
    `bound` has. None for not_measurable: its reason is why there is no value."""
    if value is None:
        return "not_measurable", None
    low, high = bound.get(MIN), bound.get(MAX)
    shown, lower, upper = numbers((value, low, high), check.unit)
    if low is not None and value < low:
        found, comparison = "fail", f"{shown} < {lower}"
    elif high is not None and value > high:
        found, comparison = "fail", f"{shown} > {upper}"
    elif low is not None and high is not None:
        found, comparison = "pass", f"{lower} <= {shown} <= {upper}"
    else:
        found, comparison = "pass", f"{shown} >= {lower}" if low is not None else f"{shown} <= {upper}"
    # Counts read as counts elsewhere on the site: 1,406 sessions
    named = {k: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v for k, v in context.items()}
    return found, f"{comparison}: {check.meaning.format(**named)}"


def numbers(values: tuple[float | None, ...], unit: str) -> list[str]:
    """`values` as a reason writes them (None as ""): in percent for PERCENT_UNITS, with the
    fewest significant digits (3 at least) that keep distinct values distinct, so 0.9496 against
    0.95 never reads "0.95 < 0.95"."""
    scale, suffix = (100.0, "%") if unit in PERCENT_UNITS else (1.0, "")
    given = [v * scale for v in values if v is not None]
    for digits in range(3, MAX_DIGITS + 1):
        texts = [f"{v:.{digits}g}" for v in given]
        if len(set(texts)) == len(set(given)):
            break
    out = iter(texts)
    return ["" if v is None else next(out) + suffix for v in values]


CHECKS_ENDPOINT = "analytics.checks"
CORRELATION_ENDPOINT = "analytics.correlation"
POSITIONS_ENDPOINT = "portfolio.positions"
RESIDUAL_ENDPOINT = "analytics.residual"

WINDOW = "window"
RECENT = "window_last_504_sessions"
MIN_WINDOW_SESSIONS = 2
"""Below this, no ledger check is measurable: a shorter window is a 400 (`from`/`to`)."""
WHOLE = "whole_history"
APPROVAL_SPLIT = "approval_split"


@dataclass(frozen=True)
class Production:
    """What the production correlation is computed from: the catalogue's returns matrix and the
    reference set (`production_references`: the approved alphas, this one excluded), or why it is
    not measurable."""

    matrix: Matrix | None
    references: list[str]
    why_not: str | None
    origin: str = "approved"  # where the references come from (`sets.DEFAULT_ORIGINS`)


@dataclass(frozen=True)
class Figure:
    value: float | None
    reason: str  # why not measurable (used only when value is None)
    book: str | None  # whose figures the value is built from (None: the signal's)
    horizon: str
    extra: Mapping[str, Any] | None = None  # keys the entry appends after the common ones
    context: Mapping[str, Any] | None = None  # what the check's `meaning` names (a measured value only)


def checks_payload(
    view: BuildView,
    book: str,
    window: Window,
    thresholds: Mapping[str, Mapping[str, float]],
    policy: Policy,
    seen: Seen,
    family: FamilyTrials | None,
    production: Production,
    access: Access,
    positions: str | None,
    warnings: Warnings,
    held: Tenure | None = None,
    residual_basis: residual.Basis | None = None,
    pbo: Figure | None = None,
    only: frozenset[str] | None = None,
) -> Checks:
    """`positions`: why the key may not read the book's positions (None: it may); `held`: the
    alpha's tenure (None: never approved), whose live part the live checks measure;
    `residual_basis`: what the residual information ratio is computed from (None: not asked for,
    not measurable); `pbo`: the pbo check's figure, when it is on (`pbo_figure`); `only`:
    the checks to compute (a decision's consequences need the reference-set checks alone), None for
    the battery."""
    if only is not None:
        return _only(
            view, book, window, thresholds, policy, production, residual_basis, only, warnings, held, access
        )
    per_year = conventions(view).sessions_per_year
    ledger = inputs.ledger(view, book)
    part = None if ledger is None else ledger.window(window)
    if part is not None and ledger is not None and access.ledger:
        sessions = f"sessions of the {book} book"
        inputs.require_window_sessions(
            part.days.size, ledger.days.size, window, MIN_WINDOW_SESSIONS, sessions
        )
    figures = {
        **_ledger_figures(book, part, per_year, access, warnings),
        "deflated_sharpe": _deflated_sharpe(view, window, seen, family, access, warnings),
        "max_weight": _max_weight(view, book, window, positions),
        "production_correlation": _production_correlation(view, production, warnings),
        "ic_t_statistic": _ic_t_statistic(view, access, warnings),
        **_live_figures(view, book, held, window[1], access, warnings),
        "fragility": _fragility(view, book, window, access, warnings),
        "residual_information_ratio": _residual(view, book, window, residual_basis),
    }
    if "information_ratio_lower_bound" in thresholds:  # on: a bootstrap, only then
        figures["information_ratio_lower_bound"] = _information_ratio_lower_bound(
            view, book, window, access, warnings
        )
    if "sharpe_t_statistic" in thresholds:  # optional: on when the policy or the request bounds it
        figures["sharpe_t_statistic"] = _sharpe_t_statistic(book, part, access, warnings)
    if pbo is not None:
        figures["pbo"] = pbo
    if "sub_universe" in thresholds:
        figures["sub_universe"] = _sub_universe(view, window, access, warnings)
    # An optional check is in the battery only when the policy or the request bounds it.
    entries = [
        _entry(check.id, figures[check.id], thresholds, policy) for check in CHECKS if check.id in thresholds
    ]
    verdicts = [entry.verdict for entry in entries]
    failed, unmeasured = verdicts.count("fail"), verdicts.count("not_measurable")
    # A live check without a value (never approved, too short a live part), or a family check without
    # one (no family, too few members), leaves the verdict as the rest of the battery makes it: it
    # counts once measured (docs/analytics.md "Checks", "Summary").
    incomplete = any(
        e.verdict == "not_measurable" and e.id not in (*LIVE_CHECKS, *OPTIONAL_CHECKS, *FAMILY_CHECKS)
        for e in entries
    )
    return Checks(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        # The window's sessions of the book (a count of the ledger: null when it is withheld)
        sessions=None if not access.ledger else (0 if part is None else int(part.days.size)),
        policy=policy.echo(),
        checks=entries,
        summary=ChecksSummary(
            passed=verdicts.count("pass"),
            failed=failed,
            not_measurable=unmeasured,
            verdict="fail" if failed else ("incomplete" if incomplete else "pass"),
        ),
    )


def _only(
    view: BuildView,
    book: str,
    window: Window,
    thresholds: Mapping[str, Mapping[str, float]],
    policy: Policy,
    production: Production,
    residual_basis: residual.Basis | None,
    only: frozenset[str],
    warnings: Warnings,
    held: Tenure | None,
    access: Access,
) -> Checks:
    """The checks of `only` the battery can compute alone (the reference-set checks a decision's
    consequences need, the live checks the approved book's health reads), as the battery computes
    them; its summary counts them alone."""
    measured: dict[str, Figure] = {}

    def live_figure(name: str) -> Callable[[], Figure]:
        def get() -> Figure:
            if not measured:  # both live checks from one /analytics/live answer
                measured.update(_live_figures(view, book, held, window[1], access, warnings))
            return measured[name]

        return get

    figures: dict[str, Callable[[], Figure]] = {
        "production_correlation": lambda: _production_correlation(view, production, warnings),
        "residual_information_ratio": lambda: _residual(view, book, window, residual_basis),
        **{name: live_figure(name) for name in LIVE_CHECKS},
    }
    entries = [
        _entry(check.id, figures[check.id](), thresholds, policy)
        for check in CHECKS
        if check.id in thresholds and check.id in only and check.id in figures
    ]
    verdicts = [entry.verdict for entry in entries]
    return Checks(
        alpha=view.alpha_id,
        book=book,
        window=window_echo(window),
        sessions=None,
        policy=policy.echo(),
        checks=entries,
        summary=ChecksSummary(
            passed=verdicts.count("pass"),
            failed=verdicts.count("fail"),
            not_measurable=verdicts.count("not_measurable"),
            verdict="fail" if "fail" in verdicts else "pass",
        ),
    )


def pbo_figure(
    alpha: str, answer: Overfitting | None, bounded: bool, access: Access, warnings: Warnings
) -> Figure:
    """The pbo check's figure: /analytics/overfitting's pbo at its default splits. `bounded`: the
    operator's policy or the request bounds the check, which then measures it whenever the route
    does; on by default it is measured for a family of at least PBO_DEFAULT_MIN_TRIALS members the
    key may read (the route's count, in the key's scope), else not applicable with that count.
    `answer` None: the lake has no catalogue index to read the families from."""
    if answer is None:
        why = "the lake has no catalogue index, which the trial families are read from (alpha-results lake index)"
        return Figure(None, why, "long_short", WHOLE)
    context = {"trials": answer.family_trials, "family": answer.family}

    def figure(value: float | None, reason: str) -> Figure:
        return Figure(value, reason, "long_short", WHOLE, None, context)

    if answer.family is None:  # the seal's manifest says so, whatever the key may read of ledgers
        return figure(None, NOT_IN_A_FAMILY.format(alpha=alpha))
    if not access.ledger:
        return figure(None, withheld("ledger", "checks.pbo", warnings))
    if not bounded and answer.family_trials < PBO_DEFAULT_MIN_TRIALS:
        return figure(None, PBO_BELOW_DEFAULT.format(family=answer.family, trials=answer.family_trials))
    return figure(answer.pbo.value, str(answer.pbo.withheld_reason or ""))


def _entry(
    check_id: str, figure: Figure, thresholds: Mapping[str, Mapping[str, float]], policy: Policy
) -> CheckResult:
    check = BY_ID[check_id]
    bound = dict(thresholds[check_id])
    value = number(figure.value)
    verdict_, reason = verdict(check, value, bound, figure.context or {})
    return CheckResult(
        id=check_id,
        value=value,
        unit=check.unit,
        annualisation=check.annualisation,
        threshold=Bound(**bound),
        policy_threshold=Bound(**policy.thresholds.get(check_id, {})),  # empty: off in the policy
        verdict=verdict_,
        source=check.source,
        book=figure.book,
        horizon=figure.horizon,
        reason=figure.reason if reason is None else reason,
        **(figure.extra or {}),
    )


def _ledger_figures(
    book: str,
    part: inputs.Ledger | None,
    per_year: int,
    access: Access,
    warnings: Warnings,
) -> dict[str, Figure]:
    """information_ratio, turnover, recent_information_ratio, yearly_consistency and
    stressed_net_information_ratio: the book's ledger over the window."""
    names = (
        "information_ratio",
        "turnover",
        "recent_information_ratio",
        "yearly_consistency",
        "stressed_net_information_ratio",
    )
    horizons = dict.fromkeys(names, WINDOW) | {"recent_information_ratio": RECENT}
    if not access.ledger:
        return {
            name: Figure(None, withheld("ledger", f"checks.{name}", warnings), book, horizons[name])
            for name in names
        }
    if part is None:
        return {
            name: Figure(None, "the run has no ledger for this book", book, horizons[name]) for name in names
        }
    if part.days.size == 0:
        return {
            name: Figure(None, "the window holds no session of this book", book, horizons[name])
            for name in names
        }
    returns = part.returns
    few = "fewer than 2 daily returns with variance in the window"
    turnover = inputs.book_turnover(part)
    positive, years = positive_years(part.days, returns, per_year)
    stressed = stressed_returns(part.starting_equity, part.ending_equity, part.execution_cost)
    last = recent(returns)
    sessions = {"sessions": int(part.days.size)}
    return {
        "information_ratio": Figure(
            information_ratio(returns, per_year), few, book, WINDOW, context=sessions
        ),
        "turnover": Figure(
            float(np.mean(turnover)) * per_year if turnover.size else None,
            "no session of the window has a turnover",
            book,
            WINDOW,
            context={"sessions": int(turnover.size)},
        ),
        "recent_information_ratio": Figure(
            information_ratio(last, per_year),
            f"fewer than 2 daily returns with variance in the window's last {RECENT_SESSIONS} sessions",
            book,
            RECENT,
            context={"sessions": int(last.size)},
        ),
        "yearly_consistency": Figure(
            share(positive, years),
            f"no calendar year of the window holds {MIN_YEAR_SESSIONS} sessions of this book",
            book,
            WINDOW,
            # a partial year weighs its share of a year: "1.9 of 2.9" (the definition says so)
            context={"positive": f"{positive:.1f}", "years": f"{years:.1f}"},
        ),
        "stressed_net_information_ratio": Figure(information_ratio(stressed, per_year), few, book, WINDOW),
    }


def _information_ratio_lower_bound(
    view: BuildView,
    book: str,
    window: Window,
    access: Access,
    warnings: Warnings,
) -> Figure:
    """The lower bound of /analytics/uncertainty's information_ratio interval (asked only while the
    check is on: a bootstrap)."""
    if not access.ledger:
        return Figure(
            None, withheld("ledger", "checks.information_ratio_lower_bound", warnings), book, WINDOW
        )
    if inputs.ledger(view, book) is None:
        return Figure(None, "the run has no ledger for this book", book, WINDOW)
    entry = uncertainty.intervals(view, book, window, access, frozenset({"information_ratio"})).figures[
        "information_ratio"
    ]
    return Figure(
        entry.lower,
        "fewer than 3 daily returns with variance in the window, or no resample with variance",
        book,
        WINDOW,
        context={"point": f"{entry.point:.3g}", "sessions": entry.observations},
    )


def _sub_universe(view: BuildView, window: Window, access: Access, warnings: Warnings) -> Figure:
    """/analytics/sub_universe's liquid half's `sub_universe` ratio over the window (the signal's,
    not a book's)."""
    own = Warnings()
    try:
        found = sub_universe.sub_universe_payload(view, window, access, own)
    except AnalyticsNotBuilt as exc:
        return Figure(None, f"analytics_not_built: {exc}", None, WINDOW)
    if found.status != "available" or not found.halves:
        if not access.cross_sections:
            return Figure(None, withheld("cross_sections", "checks.sub_universe", warnings), None, WINDOW)
        return Figure(None, found.withheld_reason or "no week to split", None, WINDOW)
    liquid = found.halves[0]
    reason = (
        "the full cross-section's ICIR is not positive over the window"
        if not (found.universe_icir or 0) > 0
        else "the liquid half's ICIR is not measurable over the window (fewer than 2 weeks, or no variance)"
    )
    return Figure(
        liquid.sub_universe,
        reason,
        None,
        WINDOW,
        context={
            "liquid": f"{liquid.half_icir:.3g}" if liquid.half_icir is not None else "null",
            "full": f"{found.universe_icir:.3g}" if found.universe_icir is not None else "null",
            "n_sub": f"{liquid.half_mean_names:.1f}" if liquid.half_mean_names is not None else "null",
            "n": f"{found.universe_mean_names:.1f}" if found.universe_mean_names is not None else "null",
        },
    )


def _live_figures(
    view: BuildView,
    book: str,
    held: Tenure | None,
    end: dt.date | None,
    access: Access,
    warnings: Warnings,
) -> dict[str, Figure]:
    """live_information_ratio and decay_ratio: `/analytics/live`'s out-of-sample information ratio
    and decay ratio at the tenure's split (`analytics.live.split_of`, the same computation: the
    sessions first published after the approval was recorded), up to `end` (the window's `to`; its
    `from` does not narrow them), measured once LIVE_MIN_SESSIONS sessions are live."""

    def figures(reason: str, split: dt.date | None) -> dict[str, Figure]:
        return {
            name: Figure(None, reason, book, APPROVAL_SPLIT, {"split_date": split}) for name in LIVE_CHECKS
        }

    if held is None:
        return figures(NOT_APPROVED, None)
    split = live.split_of(view, held)
    if not access.ledger:
        return {
            name: Figure(
                None,
                withheld("ledger", f"checks.{name}", warnings),
                book,
                APPROVAL_SPLIT,
                {"split_date": split.date},
            )
            for name in LIVE_CHECKS
        }
    if inputs.ledger(view, book) is None:
        return figures("the run has no ledger for this book", split.date)
    found = live.live_payload(view, book, split, access, Warnings(), end)
    sessions = found.out_of_sample.sessions or 0
    if sessions < LIVE_MIN_SESSIONS:
        up_to = "" if end is None else f" up to {end}"
        recorded = held.approved_at.strftime("%Y-%m-%d %H:%M UTC")
        return figures(
            f"{sessions} sessions were first published after the approval was recorded ({recorded}){up_to}; "
            f"at least {LIVE_MIN_SESSIONS} are needed",
            split.date,
        )
    ir, decay = found.out_of_sample.information_ratio, found.decay_ratio
    backtest = found.in_sample.information_ratio.value
    context = {
        "sessions": sessions,
        "split_date": split.date,
        "backtest": "n/a" if backtest is None else f"{backtest:.3g}",
        "live": "n/a" if ir.value is None else f"{ir.value:.3g}",
    }
    extra = {"split_date": split.date}
    return {
        "live_information_ratio": Figure(
            ir.value, ir.withheld_reason or "not measurable", book, APPROVAL_SPLIT, extra, context
        ),
        "decay_ratio": Figure(
            decay.value, decay.withheld_reason or "not measurable", book, APPROVAL_SPLIT, extra, context
        ),
    }


def _fragility(view: BuildView, book: str, window: Window, access: Access, warnings: Warnings) -> Figure:
    """`/analytics/attribution` fragility.best_days_kept at drop = FRAGILITY_DAYS: the share of the
    window's information ratio the book keeps without its best sessions."""
    if not access.ledger:
        return Figure(None, withheld("ledger", "checks.fragility", warnings), book, WINDOW)
    value, reason, context = attribution.best_days_kept(view, book, window, FRAGILITY_DAYS)
    return Figure(value, reason, book, WINDOW, context=context)


def _deflated_sharpe(
    view: BuildView,
    window: Window,
    seen: Seen,
    family: FamilyTrials | None,
    access: Access,
    warnings: Warnings,
) -> Figure:
    """The significance route's DSR over the window, the long_short book's whatever the book: its
    `dsr_family` when the alpha's family has MIN_FAMILY_TRIALS members the key may read with a
    measurable Sharpe ratio (the trials the search really ran), else its `dsr` (the catalogue's
    trials, no `trials` override); the reason names the basis and its N."""
    if not access.ledger:
        return Figure(None, withheld("ledger", "checks.deflated_sharpe", warnings), "long_short", WINDOW)
    ledger = inputs.ledger(view, "long_short")
    if ledger is None:
        return Figure(None, "the run has no long_short ledger", "long_short", WINDOW)
    m = significance.moments(ledger.window(window).returns)
    if m is None:
        return Figure(None, "fewer than 3 daily returns with variance in the window", "long_short", WINDOW)
    short = sharpe_inference.inference_reason(m.n)
    if short is not None:
        return Figure(None, short, "long_short", WINDOW)
    if family is not None and family.count >= MIN_FAMILY_TRIALS:
        value = significance.dsr(m, family.count, family.sharpe_variance)
        context = {"trials": family.count, "basis": f"of its trial family {family.family}"}
        return Figure(
            value,
            "the DSR is not measurable (its dispersion term is not positive)",
            "long_short",
            WINDOW,
            context=context,
        )
    reason = "the DSR is not measurable (its dispersion term is not positive)"
    if not math.isfinite(seen.sharpe_variance):
        reason = (
            "fewer than 2 alphas this key may read have a measurable Sharpe ratio, so the variance of the "
            "trials' Sharpe ratios is unknown"
        )
    value = significance.dsr(m, seen.count, seen.sharpe_variance)
    return Figure(
        value, reason, "long_short", WINDOW, context={"trials": seen.count, "basis": "of the catalogue"}
    )


def _sharpe_t_statistic(book: str, part: inputs.Ledger | None, access: Access, warnings: Warnings) -> Figure:
    """SR sqrt(T) of the book's daily returns over the window (`analytics.haircut.t_statistic`):
    the Sharpe ratio per session as /analytics/significance measures it (`significance.moments`)."""
    if not access.ledger:
        return Figure(None, withheld("ledger", "checks.sharpe_t_statistic", warnings), book, WINDOW)
    if part is None:
        return Figure(None, f"the run has no {book} ledger", book, WINDOW)
    m = significance.moments(part.returns)
    if m is None:
        return Figure(None, "fewer than 3 daily returns with variance in the window", book, WINDOW)
    # SR over its standard error: Sharpe inference, from the count its variance needs
    short = sharpe_inference.inference_reason(m.n)
    if short is not None:
        return Figure(None, short, book, WINDOW)
    return Figure(haircut.t_statistic(m.sharpe, m.n), "", book, WINDOW, context={"sessions": m.n})


def _max_weight(view: BuildView, book: str, window: Window, refused: str | None) -> Figure:
    """The largest |weight| the book held in the window's sessions: its positions' weight
    (signed_notional / ending_equity at the close), the realised weight the ledger's
    largest_abs_weight summarises, with the position's symbol and date; not the decisions' target
    weights, which the book drifts from between rebalances. `refused`: why the key may not read
    the positions."""

    def figure(value: float | None, why: str, symbol: str | None, day: dt.date | None) -> Figure:
        context = None if value is None else {"symbol": symbol, "date": day}
        return Figure(value, why, book, WINDOW, {"symbol": symbol, "date": day}, context)

    if refused is not None:
        return figure(None, refused, None, None)
    table = view.table("positions") if "positions" in view.kinds_present else None
    found = None if table is None else view.book_range("positions", book)
    if table is None:
        return figure(None, "the run sealed no positions, so no book has a weight held", None, None)
    if found is None:
        return figure(None, "the run has no positions of this book", None, None)

    def read() -> tuple[np.ndarray, np.ndarray]:
        rows = table.slice(found[0], found[1] - found[0])
        return day_numbers(rows), floats(rows.column("weight"))

    days, weights = view.memo(f"analytics:checks:weights:{book}", read)
    a, b = window_bounds(days, window)
    at = largest_weight(weights[a:b])
    if at is None:
        return figure(None, "the book held no position in the window", None, None)
    row = found[0] + a + at
    symbol = table.column("symbol")[row].as_py()
    day = np.datetime64(int(days[a + at]), "D").item()
    return figure(abs(float(weights[a + at])), "", symbol, day)


def _production_correlation(view: BuildView, production: Production, warnings: Warnings) -> Figure:
    """The largest |Pearson| of the alpha's daily long_short returns with each production
    (approved) alpha the key may read (this one excluded), each over their common sessions of the
    whole history: the correlation route's returns basis, from the catalogue's matrix. One without
    a correlation (fewer than MIN_OVERLAP common sessions, or a side constant on them) is not
    compared; the entry says how many were (`compared`) of how many the key may read (`of`), and
    which gives the value (`nearest`), so a maximum over fewer alphas than asked is never silent."""

    def figure(value: float | None, reason: str, compared: int | None, nearest: str | None) -> Figure:
        of = None if compared is None else len(production.references)
        extra = {"compared": compared, "of": of, "nearest": nearest, "reference": production.origin}
        context = {"compared": compared, "nearest": nearest}
        return Figure(value, reason, "long_short", WHOLE, extra, context)

    if production.why_not is not None:
        return figure(None, production.why_not, None, None)
    matrix = production.matrix
    assert matrix is not None
    if not production.references:
        return figure(None, sets.NO_APPROVED, 0, None)
    if any(alpha not in matrix.rows for alpha in (view.alpha_id, *production.references)):
        raise CatalogueIncomplete(
            "The catalogue's correlation matrices do not hold every alpha of the catalogue yet; "
            "retry with backoff."
        )
    rows = np.array([matrix.rows[a] for a in production.references], dtype=np.int64)
    found, nearest = against_set(matrix, rows, matrix.rows[view.alpha_id])
    compared = int(np.count_nonzero(np.isfinite(found)))
    if nearest is None:
        return figure(
            None,
            f"no {production.origin} alpha has a correlation with it (too few common sessions, or a constant side)",
            0,
            None,
        )
    return figure(float(abs(found[nearest])), "", compared, production.references[nearest])


def production_references(
    catalogue: Catalogue, readable: np.ndarray, alpha: str, approved: Collection[str] = ()
) -> sets.DefaultReference:
    """The alphas the production correlation compares with: the default reference set
    (`sets.default_reference`: the `approved` alphas `readable`, the caller's readable mask,
    admits, `alpha` excepted; empty, with its reason, when there is none)."""
    return sets.default_reference(catalogue, readable, approved, alpha)


def positions_refused(may_call: bool, warnings: Warnings) -> str | None:
    """Why the key may not have max_weight (None: it may): the weights held are the book's
    positions, which it reads with portfolio.positions."""
    if may_call:
        return None
    why = f"built from the book's positions, which this key may not read ({POSITIONS_ENDPOINT})"
    warnings.add("access_limited", f"checks.max_weight is {why}.", block="checks.max_weight")
    return f"access_limited: {why}"


def production_refused(access: Access, may_call: bool, warnings: Warnings) -> str | None:
    """Why the key may not have the production correlation (None: it may): it is a correlation
    figure (the key needs analytics.correlation) over daily returns (the ledger)."""
    if not may_call:
        why = f"a correlation figure, which needs {CORRELATION_ENDPOINT}"
        warnings.add(
            "access_limited",
            f"checks.production_correlation is {why}.",
            block="checks.production_correlation",
        )
        return f"access_limited: {why}"
    if not access.ledger:
        return withheld("ledger", "checks.production_correlation", warnings)
    return None


def _residual(view: BuildView, book: str, window: Window, basis: residual.Basis | None) -> Figure:
    """`/analytics/residual` appraisal_ratio of the book over the window against the default
    reference set (`residual.residual_of`, the route's computation): the reason carries the
    regression's own figures."""
    if basis is None:
        return Figure(None, "not computed: no reference set or SPY series was given", book, WINDOW)
    origin = None if basis.reference is None else basis.reference.origin
    extra = {"reference": origin} if origin is not None else None
    if basis.why_not is not None:
        return Figure(None, basis.why_not, book, WINDOW, extra)
    assert basis.matrix is not None and basis.reference is not None and basis.market is not None
    found, why, per_year = residual.residual_of(
        view, book, window, basis.matrix, basis.reference, basis.market
    )
    fit = found.fit
    if fit is None or not math.isfinite(fit.information_ratio):
        return Figure(None, why or (fit.why.get("appraisal_ratio", "") if fit else ""), book, WINDOW, extra)
    regressed = int(found.regressed.size)
    context = {
        "regressed": f"{regressed:,} alpha{'' if regressed == 1 else 's'}",
        "reference": f"the {origin} set",
        "sessions": found.sessions,
        "intercept": f"{fit.intercept * per_year * 100:.3g}%",
        "t_statistic": f"{fit.t_statistic:.3g}" if math.isfinite(fit.t_statistic) else "n/a",
        "lag": found.lag,
    }
    return Figure(fit.information_ratio, "", book, WINDOW, extra, context)


def residual_refused(access: Access, may_call: bool, market: bool, warnings: Warnings) -> str | None:
    """Why the key may not have the residual information ratio (None: it may): it is
    /analytics/residual's figure (the key needs analytics.residual), a regression of ledger
    returns (the ledger) on SPY's (benchmarks.daily)."""
    block = "checks.residual_information_ratio"
    if not may_call:
        why = f"a figure of {RESIDUAL_ENDPOINT}, which this key may not call"
    elif not market:
        why = f"built from SPY's daily series, which this key may not read ({BENCHMARK_ENDPOINT})"
    elif not access.ledger:
        return withheld("ledger", block, warnings)
    else:
        return None
    warnings.add("access_limited", f"{block} is {why}.", block=block)
    return f"access_limited: {why}"


def _ic_t_statistic(view: BuildView, access: Access, warnings: Warnings) -> Figure:
    """`/metrics` nwt.ic t_statistic: the Newey-West t-statistic of the mean weekly IC of the whole
    history (the conditioned signal, not a book's)."""
    if not access.cross_sections:
        return Figure(None, withheld("cross_sections", "checks.ic_t_statistic", warnings), None, WHOLE)

    def compute() -> tuple[float | None, str]:
        own = Warnings()
        block = nwt_ic_block(metrics_inputs(view), access, own)
        if block is not None:
            return float(block.t_statistic), ""
        why = "; ".join(f"{w.code}: {w.message}" for w in own.entries) or "nwt.ic is null on /metrics"
        return None, why

    value, why = view.memo("analytics:checks:nwt_ic", compute)
    return Figure(value, why, None, WHOLE)
