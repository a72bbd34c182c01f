"""Live against backtest (`/analytics/live`): one book's in-sample and out-of-sample parts side by
side, the decay ratio, and whether the out-of-sample part is consistent with the in-sample one
(docs/analytics.md, "Live against backtest").

The split is one date (`Split`): sessions on or before it are in-sample, those after it
out-of-sample. `split_of` says where it comes from, in this order: the request's `split` (a
what-if), the alpha's tenure (the last session the lake held when its approval was recorded: the
out-of-sample part is then live, first seen after the decision; `analytics.tenure`), the seal's
`research_cutoff` (out of sample after the research cutoff, never live), the last session of the
alpha's first publication. A weekly IC belongs to the part its forward return is realised in
(`schemas.bodies.live.WEEK_RULE`).

Every figure is the one other routes serve under the same name: the information ratio and turnover
of `/analytics/checks`, the excess Sharpe ratio against the ledger's own risk-free return, mean IC,
the annualised ICIR and the hit rate over the conditioned weekly IC, the max drawdown of `/metrics`.
The consistency test is the probabilistic Sharpe ratio (`analytics.significance.psr`) of the
out-of-sample daily returns against the in-sample per-session Sharpe ratio.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import msgspec
import numpy as np

from analytics import inputs, significance, tenure
from analytics.access import FULL_ACCESS, Access, withheld
from analytics.compounding import max_drawdown_fraction
from analytics.costs import information_ratio
from analytics.entries import Warnings, conventions, declared_stat
from analytics.returns import mean_over_std
from analytics.tenure import Tenure
from datasets.reader import BuildView
from datasets.rows import date_at, day_number
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.live import (
    LIVE_CONSISTENCY_LEVEL,
    LIVE_MIN_SESSIONS,
    Live,
    LiveConsistency,
    LivePart,
    SplitOrigin,
    Verdict,
)
from schemas.lake import LIVE_COLUMNS

WEEK_DAYS = 7


@dataclass(frozen=True)
class Split:
    """The last in-sample date and where it comes from (both None: the alpha has no split), and
    for a retired alpha the last session of its live part (`end`; None: every later session)."""

    date: dt.date | None
    origin: SplitOrigin | None
    end: dt.date | None = None


def _day(text: object) -> dt.date | None:
    """A date, or the date of an ISO timestamp (UTC), from a build's entry; None when absent."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        return None


def split_of(view: BuildView, held: Tenure | None, requested: dt.date | None = None) -> Split:
    """The split of `view`'s alpha, the one rule every surface asks (`analytics.tenure`):
    `requested` (a what-if), else the tenure's knowledge split (the last session the lake held when
    the approval was recorded; the live part ends with the last known when a retirement was), else
    the seal's `research_cutoff`, else the last session of the alpha's first publication."""
    if requested is not None:
        return Split(requested, "request")
    if held is not None:
        found = tenure.knowledge_split(view, held)
        return Split(found.last_backtest, "approval", found.last_live)
    cutoff = _day(view.entry.get("research_cutoff"))
    if cutoff is not None:
        return Split(cutoff, "research_cutoff")
    published = tenure.first_publication(view)
    if published is not None:
        return Split(published, "first_published")
    return Split(None, None)


def index_columns(view: BuildView, held: Tenure | None) -> dict[str, object]:
    """The catalogue index's live columns (`schemas.lake.LIVE_COLUMNS`) of `view`'s alpha: the
    long_short book's `/analytics/live` at its split (`split_of`: the tenure the row is computed
    with, else the seal's research_cutoff, else the first publication), read off `live_payload`'s
    answer (the one computation); None where not measurable."""
    split = split_of(view, held)
    if split.date is None:
        return dict.fromkeys(LIVE_COLUMNS)
    found = live_payload(view, "long_short", split, FULL_ACCESS, Warnings())
    columns: dict[str, object] = {
        "live_split": split.date,
        "live_split_origin": split.origin,
        "live_information_ratio": found.out_of_sample.information_ratio.value,
        "backtest_information_ratio": found.in_sample.information_ratio.value,
        "decay_ratio": found.decay_ratio.value,
        "live_sessions": found.out_of_sample.sessions,
        "live_approved_at": None if held is None else held.approved_at,
        "live_retired_at": None if held is None else held.retired_at,
    }
    assert tuple(columns) == LIVE_COLUMNS
    return columns


def realised_days(days: np.ndarray) -> np.ndarray:
    """When each weekly IC's forward return is realised: the next rebalance's date (the last week:
    its own date plus 7 days)."""
    return np.append(days[1:], days[-1] + WEEK_DAYS) if days.size else days


def in_sample_weeks(days: np.ndarray, split_day: int) -> np.ndarray:
    """Which weekly ICs are in-sample: their forward return is realised on or before the split."""
    return realised_days(days) <= split_day


@dataclass(frozen=True)
class _Side:
    """The inputs of one part."""

    ledger: inputs.Ledger | None
    ic: np.ndarray | None  # finite weekly ICs


def _part(
    side: _Side, per_year: int, weeks_per_year: int, reasons: dict[str, str], context: dict[str, str]
) -> LivePart:
    ledger, ic = side.ledger, side.ic

    def stat(name: str, value: float | None, reason: str, **extra: object) -> AnalyticsStat:
        return declared_stat(LivePart, name, value, reason, context, **extra)

    ledger_reason = reasons.get("ledger", "")
    ic_reason = reasons.get("ic", "")
    if ledger is not None and not ledger_reason:
        r = ledger.returns
        if ledger.days.size == 0:
            ledger_reason = "the part holds no session of this book"
        elif not np.isfinite(r).all():
            ledger_reason = "a session of the part has no return (its starting equity is 0)"
    if ic is not None and not ic_reason and ic.size == 0:
        ic_reason = "the part holds no week with a measurable IC"
    few = "fewer than 2 daily returns with variance in the part"
    if ledger is None or ledger_reason:
        ir = excess = drawdown = turnover = None
    else:
        r = ledger.returns
        ir = information_ratio(r, per_year)
        excess = information_ratio(r - ledger.risk_free_return, per_year)
        drawdown = max_drawdown_fraction(r) * 100.0
        traded = inputs.book_turnover(ledger)
        turnover = float(np.mean(traded)) * per_year if traded.size else None
    if ic is None or ic_reason:
        mean_ic = icir = hit_rate = None
    else:
        mean_ic = float(np.mean(ic))
        icir = mean_over_std(ic) * math.sqrt(weeks_per_year)
        hit_rate = float(np.count_nonzero(ic > 0)) / ic.size
    return LivePart(
        first_session=None if ledger is None else date_at(ledger.days, 0),
        last_session=None if ledger is None else date_at(ledger.days, ledger.days.size - 1),
        sessions=None if ledger is None or reasons.get("ledger") else int(ledger.days.size),
        weeks=None if ic is None or reasons.get("ic") else int(ic.size),
        information_ratio=stat("information_ratio", ir, ledger_reason or few, periods_per_year=per_year),
        excess_sharpe=stat("excess_sharpe", excess, ledger_reason or few, periods_per_year=per_year),
        rebuilt_mean_ic=stat("rebuilt_mean_ic", mean_ic, ic_reason),
        rebuilt_icir=stat(
            "rebuilt_icir",
            icir,
            ic_reason or "fewer than 2 weekly ICs with variance in the part",
            periods_per_year=weeks_per_year,
        ),
        rebuilt_hit_rate=stat("rebuilt_hit_rate", hit_rate, ic_reason),
        max_drawdown_pct=stat("max_drawdown_pct", drawdown, ledger_reason),
        turnover=stat(
            "turnover",
            turnover,
            ledger_reason or "no session of the part has a turnover",
            periods_per_year=per_year,
        ),
    )


def backtest_part(view: BuildView, book: str, split: Split, reason: str | None) -> LivePart:
    """`live_payload`'s in-sample part of `book` at `split`, its ledger figures alone (what
    `/analytics/decay` calls the backtest); `reason`: why the ledger is withheld, None when it is
    readable."""
    facts = conventions(view)
    ledger = inputs.ledger(view, book)
    reasons = {"ic": "not asked"}
    if reason is not None:
        reasons["ledger"] = reason
    elif ledger is None:
        reasons["ledger"] = "the run has no ledger for this book"
    before = None if ledger is None else ledger.split(split.date)[0]
    return _part(_Side(before, None), facts.sessions_per_year, facts.weeks_per_year, reasons, {"book": book})


def live_payload(
    view: BuildView, book: str, split: Split, access: Access, warnings: Warnings, end: dt.date | None = None
) -> Live:
    """In-sample against out-of-sample of `book` at `split` (docs/analytics.md, "Live against
    backtest"); `end`: the last date seen (the checks' `to`: no session after it, no week whose
    forward return is realised after it), None for the whole history (the route)."""
    facts = conventions(view)
    context = {"book": book}
    reasons: dict[str, str] = {}
    ledger = inputs.ledger(view, book)
    if not access.ledger:
        reasons["ledger"] = withheld("ledger", "live", warnings)
    elif ledger is None:
        reasons["ledger"] = "the run has no ledger for this book"
    series = inputs.weekly_ic(view)
    if not access.cross_sections:
        reasons["ic"] = withheld("cross_sections", "live.ic", warnings)
    elif series is None:
        reasons["ic"] = "the run sealed no decisions (no weekly IC)"

    # The split date closes the in-sample window; the live part is every session after it (none
    # without a split, nor after a split past the last session: 9999-12-31 is a what-if of an
    # alpha not live yet).
    # A retired alpha's live part ends with the last session known when it was retired.
    if split.end is not None:
        end = split.end if end is None else min(end, split.end)
    ledgers: list[inputs.Ledger | None] = [None, None]
    if ledger is not None:
        ledger = ledger if end is None else ledger.window((None, end))
        ledgers = list(ledger.split(split.date))
    ics: list[np.ndarray | None] = [None, None]
    if series is not None:
        finite = np.isfinite(series.values)
        inside = (
            np.ones_like(finite)
            if split.date is None
            else in_sample_weeks(series.days, day_number(split.date))
        )
        if end is not None:
            finite &= realised_days(series.days) <= day_number(end)
        ics = [series.values[finite & inside], series.values[finite & ~inside]]
    sides = [_Side(ledgers[0], ics[0]), _Side(ledgers[1], ics[1])]
    in_sample = _part(sides[0], facts.sessions_per_year, facts.weeks_per_year, reasons, context)
    out_of_sample = _part(sides[1], facts.sessions_per_year, facts.weeks_per_year, reasons, context)
    short = too_short(out_of_sample.sessions)
    if short and out_of_sample.information_ratio.value is not None:
        # One rule for the live information ratio wherever it is shown (issue 81, item 9): the
        # checks, the approved book's health and this part measure it from LIVE_MIN_SESSIONS on.
        ir = declared_stat(
            LivePart, "information_ratio", None, short, context, periods_per_year=facts.sessions_per_year
        )
        out_of_sample = msgspec.structs.replace(out_of_sample, information_ratio=ir)
    decay, consistency = _decay(sides, split, in_sample, out_of_sample, reasons, context)
    return Live(
        alpha=view.alpha_id,
        book=book,
        split_date=split.date,
        split_origin=split.origin,
        in_sample=in_sample,
        out_of_sample=out_of_sample,
        decay_ratio=decay,
        consistency=consistency,
    )


def too_short(sessions: int | None) -> str | None:
    """Why an out-of-sample part of `sessions` sessions is too short for its information ratio, its
    decay ratio and its consistency test (None: long enough, or not counted): the one rule, a
    quarter of sessions (LIVE_MIN_SESSIONS), the checks' and the approved book's health's too."""
    if sessions is not None and sessions < LIVE_MIN_SESSIONS:
        return f"the out-of-sample part holds {sessions} sessions; at least {LIVE_MIN_SESSIONS} are needed"
    return None


def _decay(
    sides: list[_Side],
    split: Split,
    in_sample: LivePart,
    out_of_sample: LivePart,
    reasons: dict[str, str],
    context: dict[str, str],
) -> tuple[AnalyticsStat, LiveConsistency]:
    """The decay ratio and the consistency test: both need a readable ledger, a split and
    LIVE_MIN_SESSIONS out-of-sample sessions."""
    before, after = sides[0].ledger, sides[1].ledger
    sessions = None if after is None or reasons.get("ledger") else int(after.days.size)
    reason = reasons.get("ledger", "")
    if not reason and split.date is None:
        reason = "the alpha has no split: never approved, no research_cutoff, no first publish date recorded"
    if not reason:
        reason = too_short(sessions) or ""
    ratio = probability = None
    test_reason = decay_reason = reason
    if not reason:
        assert before is not None and after is not None  # a readable ledger was split
        is_ir, oos_ir = in_sample.information_ratio, out_of_sample.information_ratio
        if is_ir.value is None or oos_ir.value is None:
            decay_reason = (is_ir if is_ir.value is None else oos_ir).withheld_reason or "not measurable"
        elif not is_ir.value > 0:
            decay_reason = "the in-sample information ratio is not positive: no decay to measure"
        else:
            ratio = oos_ir.value / is_ir.value
        m_is, m_oos = significance.moments(before.returns), significance.moments(after.returns)
        if m_is is None or m_oos is None:
            test_reason = "fewer than 3 daily returns with variance in a part"
        else:
            probability = significance.psr(m_oos, m_is.sharpe)
            if not math.isfinite(probability):
                test_reason = "the PSR is not measurable (its dispersion term is not positive)"
    decay = declared_stat(Live, "decay_ratio", ratio, decay_reason, context)
    entry = declared_stat(LiveConsistency, "probability", probability, test_reason, context)
    verdict: Verdict = "not_measurable"
    if entry.value is not None:
        verdict = "consistent" if entry.value >= LIVE_CONSISTENCY_LEVEL else "inconsistent"
    return decay, LiveConsistency(probability=entry, sessions=sessions, verdict=verdict)
