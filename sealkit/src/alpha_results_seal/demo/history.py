"""The demo's history: which runs a research team seals, and when, and what the committee decides
(issue 64, item 6).

A real deployment's live track is what the lake first published after a decision was recorded. So
the demo does not publish each alpha's whole history at once: it plays a history on a simulated
clock (`datasets.clock.simulated`, for the demo alone), and the pipeline's driver
(`pipeline.demo_history`) publishes each run and records each decision at its time:

- the benchmark (SPY) is republished up to the day before each step, as a vendor delivers it;
- `value_composite_legacy` seals its research run at its research cutoff, is approved by the head
  of research (its checks fail: with an override, as the committee did), and then its signal turns
  against the book (`reverses_after_share`): its live track decays;
- `Test_planted_factor` seals its research run at its cutoff, is approved, and is retired later
  (its turnover is too costly for the book it was meant for); its team keeps running it;
- `momentum_12_1` seals its research run at its cutoff, asking for review (`nominate`), and is
  approved with an override; its runs from 90 % of the history on read closing prices a vendor
  corrected for three sessions a month earlier (`Market.corrected`): the first of them restates
  what was published of those sessions (value_composite_legacy's runs read the same feed);
- `Test_short_term_reversal` is sealed at the end, asking for review: it waits in the queue;
- every other alpha (and the trial families) is sealed once, at the end, never decided on.

After a decision an approved alpha's runs follow the market: every `RUN_EVERY` weeks, and every
week over the last `WEEKLY_LAST` weeks (each run is a whole build: a run a week over years would
make the full demo's first start take an hour). Every run ends on a decision session, so a run holds
exactly what the next holds of those sessions (the engine draws its scores over the whole market:
`engine.run_alpha(end=...)`), and only the correction restates anything. Times are the day after the
run's last session at 06:00 UTC (its seal two hours earlier); decisions two days after the run they
read, at 15:00 UTC.
"""

from __future__ import annotations

import bisect
import datetime as dt
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from alpha_results_seal.demo.alphas import ALPHAS, FAMILIES, alpha_spec
from alpha_results_seal.demo.engine import SealContent, benchmark_table, run_alpha
from alpha_results_seal.demo.market import Market

RUN_EVERY = 4
"""Weeks between an approved alpha's runs before its last `WEEKLY_LAST` weeks."""
WEEKLY_LAST = 8
"""The last weeks of the history, in which every approved alpha is run every week."""
CORRECTED_SESSIONS = 3
"""The sessions a vendor's correction restates (momentum_12_1's restated run)."""
CORRECTION = 1.004
"""The corrected closes: 0.4 % higher than first delivered, every name, those sessions."""

HEAD = "head of research"


@dataclass(frozen=True)
class Run:
    """One run of an alpha (or the benchmark, `alpha_id` None) sealed on market session `end`."""

    alpha_id: str | None
    end: int
    at: dt.datetime
    corrected: bool = False
    """Reads the feed the vendor corrected (`History.correction`): the live book's runs from the
    restating one on. The benchmark and the alphas sealed once read the feed as first delivered."""


@dataclass(frozen=True)
class DemoDecision:
    """A decision the demo's history records at `at` (`pipeline.demo_history` asks the operator's
    command for it: `pipeline.operator_decisions.DecisionRequest`)."""

    alpha_id: str
    action: str  # approved | retired
    at: dt.datetime
    note: str
    override: str | None = None
    by: str = HEAD


Step = Run | DemoDecision


@dataclass(frozen=True)
class History:
    steps: tuple[Step, ...]
    correction: tuple[int, ...]
    """The sessions (indices into the market's dates) whose closes the vendor corrected."""


def _day(market: Market, session: int) -> dt.date:
    return market.dates[session]


def _at(day: dt.date, days: int, hour: int) -> dt.datetime:
    return dt.datetime.combine(day + dt.timedelta(days=days), dt.time(hour), tzinfo=dt.UTC)


def history(market: Market, families: bool = False, only: frozenset[str] | None = None) -> History:
    """The steps of the demo's history over `market`, in time order (`only`: those alphas)."""
    published = market.decision_sessions[market.published_weeks()]
    sessions = market.dates
    first = market.first_session
    count = len(sessions) - first

    def decided_by(share: float) -> int:
        """The first decision session on or after the published session `share` of the way."""
        target = first + int(share * (count - 1))
        return int(published[np.searchsorted(published, target)])

    def runs_after(alpha: str, start: int, stop: int, corrected: bool = True) -> list[Run]:
        """The alpha's runs after `start` up to `stop` (decision sessions): every RUN_EVERY weeks,
        then every week over the history's last WEEKLY_LAST weeks; reading the corrected feed from
        the restating run on when `corrected` (the live book's feed)."""
        weeks = [int(d) for d in published if start < d <= stop]
        weekly_from = int(published[-WEEKLY_LAST]) if len(published) >= WEEKLY_LAST else 0
        chosen = [d for i, d in enumerate(weeks) if d >= weekly_from or (i + 1) % RUN_EVERY == 0 or d == stop]
        return [
            Run(alpha, d, _at(_day(market, d), 1, 6), corrected=corrected and d >= corrected_from)
            for d in chosen
        ]

    last = int(published[-1])
    # The vendor's correction: three sessions a month before the restating run (momentum's run at
    # 90 % of the history), first delivered wrong and corrected then.
    restating = decided_by(0.9)
    corrected_start = max(first, restating - 25)
    correction = tuple(range(corrected_start, corrected_start + CORRECTED_SESSIONS))
    corrected_from = restating

    value = alpha_spec("value_composite_legacy")
    planted = alpha_spec("Test_planted_factor")
    momentum = alpha_spec("momentum_12_1")
    assert value.research_cutoff_share and planted.research_cutoff_share and momentum.research_cutoff_share
    value_cut = decided_by(value.research_cutoff_share)
    planted_cut = decided_by(planted.research_cutoff_share)
    planted_retired = decided_by(0.85)
    momentum_cut = decided_by(momentum.research_cutoff_share)

    steps: list[Step] = []

    def research(alpha: str, cut: int) -> Run:
        return Run(alpha, cut, _at(_day(market, cut), 1, 6))

    def decided(alpha: str, action: str, cut: int, note: str, override: str | None = None) -> DemoDecision:
        """The committee's decision two days after the run ending on decision session `cut`."""
        return DemoDecision(alpha, action, _at(_day(market, cut), 3, 15), note, override=override)

    steps.append(research("value_composite_legacy", value_cut))
    steps.append(
        decided(
            "value_composite_legacy",
            "approved",
            value_cut,
            "the book's value sleeve: cheap names on accounting ratios, diversifies momentum",
            override="the engine is legacy and its IC convention differs; the committee takes the value "
            "sleeve on its long record",
        )
    )
    steps += runs_after("value_composite_legacy", value_cut, last)
    steps.append(research("Test_planted_factor", planted_cut))
    steps.append(
        decided(
            "Test_planted_factor",
            "approved",
            planted_cut,
            "the clean planted factor, as the stack's calibration sleeve",
            override="a calibration sleeve: the committee approves it whatever its costs check says",
        )
    )
    steps += runs_after("Test_planted_factor", planted_cut, planted_retired, corrected=False)
    steps.append(
        decided(
            "Test_planted_factor",
            "retired",
            planted_retired,
            "its turnover costs more than the calibration sleeve is worth",
        )
    )
    # Its team keeps running it after its retirement (on the feed as first delivered: it left the
    # live book before the correction reached it).
    steps += runs_after("Test_planted_factor", planted_retired, last, corrected=False)
    steps.append(research("momentum_12_1", momentum_cut))
    steps.append(
        decided(
            "momentum_12_1",
            "approved",
            momentum_cut,
            "12-1 momentum for the core book, as nominated",
            override="momentum's checks fail on its short history; the committee approves it for its "
            "long record elsewhere and watches its live track",
        )
    )
    steps += runs_after("momentum_12_1", momentum_cut, last)
    end = _at(_day(market, last), 2, 6)
    once = [
        spec.alpha_id
        for spec in (*ALPHAS, *(FAMILIES if families else ()))
        if spec.alpha_id not in {"value_composite_legacy", "Test_planted_factor", "momentum_12_1"}
    ]
    steps += [Run(alpha, last, end) for alpha in once]
    steps = [s for s in steps if only is None or s.alpha_id in only]
    steps.sort(key=lambda step: (step.at, 0 if isinstance(step, Run) else 1))
    # The benchmark as a vendor delivers it: up to the session before each step that reads it.
    with_market: list[Step] = []
    delivered = -1
    for step in steps:
        # A decision reads the market up to the session before its day (its day's close is later).
        day_before = step.at.date() - dt.timedelta(days=1)
        through = step.end if isinstance(step, Run) else _session_on_or_before(market, day_before)
        if through > delivered:
            with_market.append(
                Run(None, through, step.at - dt.timedelta(hours=1), corrected=through >= corrected_from)
            )
            delivered = through
        with_market.append(step)
    return History(tuple(with_market), correction)


def _session_on_or_before(market: Market, day: dt.date) -> int:
    return bisect.bisect_right(market.dates, day) - 1


def sealed(run: Run, market: Market, size: str, seed: int, correction: tuple[int, ...]) -> SealContent:
    """The seal of an alpha's `run` (its manifest sealed two hours before the run's time)."""
    assert run.alpha_id is not None
    read = market.corrected(correction, CORRECTION) if run.corrected else market
    content = run_alpha(alpha_spec(run.alpha_id), read, size, seed, end=run.end)
    content.manifest["sealed_at"] = (run.at - dt.timedelta(hours=2)).isoformat()
    return content


def benchmark_sealed(run: Run, market: Market, correction: tuple[int, ...]) -> pa.Table:
    """The benchmark's daily series as delivered with `run` (up to its session)."""
    read = market.corrected(correction, CORRECTION) if run.corrected else market
    return benchmark_table(read.truncated(run.end))
