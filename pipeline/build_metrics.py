"""`alpha-results build --metrics-file PATH`: the run's figures as a node-exporter textfile
(docs/operations.md "Monitoring", "Builds").

A build is a command that ends, not a server: nothing would be there to scrape. So each run adds its
seals to counters kept in the file and rewrites it whole (prometheus-client's `write_to_textfile`:
a temporary file renamed over the old one, so node-exporter's textfile collector never reads half
of it); the collector serves it with the machine's other figures. Runs that overlap on one machine
(a scheduler starting several) take turns on a lock beside the file, so none loses another's counts.
No Pushgateway: a counter there would need the same read-add-write, over the network.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from prometheus_client import CollectorRegistry, write_to_textfile
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

PREFIX = "alpha_results_build_"
OUTCOMES = ("published", "unchanged", "refused", "failed")
"""What became of a seal (`pipeline.publish.Outcome.status`, `pipeline.build.Failure`)."""


def counts_in(path: str) -> tuple[Counter[str], int]:
    """The seal counts by outcome and the failed catalogue steps the file holds (none: zero)."""
    seals: Counter[str] = Counter()
    steps = 0
    try:
        with open(path) as handle:
            text = handle.read()
    except FileNotFoundError:
        return seals, steps
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == PREFIX + "seals_total":
                seals[sample.labels["outcome"]] += int(sample.value)
            elif sample.name == PREFIX + "catalogue_step_failures_total":
                steps += int(sample.value)
    return seals, steps


class _Run(Collector):
    def __init__(self, families: list[Metric]) -> None:
        self._families = families

    def collect(self) -> list[Metric]:
        return self._families


def record_run(
    path: str, statuses: Sequence[str], failed_steps: int, started: float, finished: float | None = None
) -> None:
    """Add one run (its seals' `statuses`, its failed catalogue steps) to the counters in `path` and
    write the run's own gauges (when it ended, how long it took)."""
    finished = time.time() if finished is None else finished
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        seals, steps = counts_in(path)
        seals.update(statuses)
        families: list[Any] = []
        counted = CounterMetricFamily(
            PREFIX + "seals",
            "Seals built by the runs that wrote this file, by outcome: published (a new build), unchanged "
            "(already published), refused (the seal breaks a rule), failed (the build raised).",
            labels=["outcome"],
        )
        for outcome in OUTCOMES:
            counted.add_metric([outcome], seals[outcome])
        families.append(counted)
        families.append(
            CounterMetricFamily(
                PREFIX + "catalogue_step_failures",
                "Catalogue-wide steps after the seals (aggregate, gc, events) that failed in those runs.",
                value=steps + failed_steps,
            )
        )
        families.append(
            GaugeMetricFamily(
                PREFIX + "last_run_timestamp_seconds",
                "When the last run ended (Unix time).",
                value=finished,
            )
        )
        families.append(
            GaugeMetricFamily(
                PREFIX + "last_run_duration_seconds",
                "How long the last run took, from its start to its last step.",
                value=max(0.0, finished - started),
            )
        )
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Run(families))
        write_to_textfile(path, registry)
