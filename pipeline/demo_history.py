"""The demo's history played into a lake and its records (issue 64, item 6).

`alpha_results_seal.demo.history` says which runs are sealed and what is decided, and when; this
plays it: each step runs on the simulated clock (`datasets.clock.simulated`, the demo's alone,
documented in docs/events.md), so every time the lake and the records keep is the step's: a run
is sealed and published (`pipeline.publish.publish_seal`, the build run's events after it:
`pipeline.build_events.record_run_events`, which records the seal's nomination), a decision is recorded
as `alpha-results promote` and `retire` record one (`pipeline.operator_decisions.record_decision`: its
snapshot, its pin, its consequences). So the demo's live tracks are what the lake first published
after its decisions, as a deployment's are.

A step starts at its time, or a second after the previous one ended (the clock moves on by a
millisecond at each reading while a step runs, `datasets.clock.TICK`): times only grow, as on a
real clock, and a history played twice is dated alike whatever the machine's speed.
"""

from __future__ import annotations

import datetime as dt
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from alpha_results_seal.demo.corpus import BENCHMARK_SEAL, write_benchmark_seal, write_seal
from alpha_results_seal.demo.history import DemoDecision, History, Run, benchmark_sealed, history, sealed
from alpha_results_seal.demo.market import Market, simulate_market
from alpha_results_seal.rules import SealRejected
from datasets import clock, layout, retention
from pipeline import operator_decisions
from pipeline.build_events import record_run_events
from pipeline.publish import Outcome, publish_seal
from records.promotions import Action
from records.store import Records, open_records

EVENTS_RETENTION_DAYS = 36_500
"""The demo's events are dated on its simulated clock, years ago: kept while it plays, then pinned
(`DEMO_PIN`; docs/events.md, "Retention")."""
DEMO_PIN = "the demo's history, dated on its simulated clock"


@dataclass(frozen=True)
class Played:
    outcomes: list[Outcome]
    decisions: int


def play(
    lake: str,
    records_url: str,
    size: str = "small",
    seed: int = 7,
    families: bool | None = None,
    report: Callable[[str], None] = lambda line: None,
    policy_file: str = "",
) -> Played:
    """Plays the demo's history of `size` into `lake` and the records at `records_url` (created
    if absent). `families`: the trial families too (default: with the full size only)."""
    market = simulate_market(size, seed)
    plan: History = history(market, families=size == "full" if families is None else families)
    records = open_records(records_url)
    outcomes: list[Outcome] = []
    decisions = 0
    floor: dt.datetime | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="demo-history-") as folder:
            for number, step in enumerate(plan.steps):
                at = step.at if floor is None else max(step.at, floor + dt.timedelta(seconds=1))
                with clock.simulated(at):
                    if isinstance(step, Run):
                        outcome = _publish(
                            step, Path(folder) / f"{number:04d}", lake, market, size, seed, plan
                        )
                        outcomes.append(outcome)
                        report(f"{at:%Y-%m-%d %H:%M} {outcome.line()}")
                        if outcome.status == "refused":
                            raise SealRejected(**(outcome.rejection or {}))
                        alphas = [] if step.alpha_id is None else [step.alpha_id]
                        found = record_run_events(
                            records, lake, alphas, [outcome], policy_file, EVENTS_RETENTION_DAYS
                        )
                        for line in found.lines():
                            report(f"{at:%Y-%m-%d %H:%M}   {line}")
                    else:
                        report(f"{at:%Y-%m-%d %H:%M} {_decide(step, records, lake, policy_file)}")
                        decisions += 1
                    floor = clock.now()
        # Its events are dated on the simulated clock, years before a later build's wall clock:
        # pinned, so the first user build's retention keeps the demo's history (docs/events.md).
        records.events.pin(DEMO_PIN)
        # The builds its runs superseded are garbage once no reader can be on them (a gc ten minutes
        # later would find them): no one reads the lake while it plays, so they go now and the
        # demo's lake holds no garbage after its first serve (issue 81, item 9).
        retention.collect_lake(lake, now=time.time() + layout.BUILD_RETENTION_SECONDS + 1.0)
    finally:
        records.close()
    return Played(outcomes, decisions)


def _publish(
    step: Run, folder: Path, lake: str, market: Market, size: str, seed: int, plan: History
) -> Outcome:
    if step.alpha_id is None:
        seal = write_benchmark_seal(benchmark_sealed(step, market, plan.correction), folder / BENCHMARK_SEAL)
    else:
        seal = write_seal(sealed(step, market, size, seed, plan.correction), folder / step.alpha_id)
    return publish_seal(str(seal), lake)


def _decide(step: DemoDecision, records: Records, lake: str, policy_file: str) -> str:
    action: Action = "approved" if step.action == "approved" else "retired"
    decision = operator_decisions.DecisionRequest(
        step.alpha_id, action, step.by, step.note, override=step.override
    )
    promotion, _ = operator_decisions.record_decision(records, lake, policy_file, decision)
    return (
        f"decision   {promotion.alpha_id} {promotion.action} by {promotion.decided_by} "
        f"(recorded {promotion.recorded_at:%Y-%m-%d %H:%M})"
    )
