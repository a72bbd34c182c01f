"""The server's Prometheus metrics (docs/operations.md "Monitoring"): declared once here, recorded by
every worker, served whole by any of them at `GET /metrics` (serve/routes/prometheus.py).

Each figure is recorded where it costs least:
- **per request**, one counter increment and one histogram observation, from the access-log
  middleware (`ServerMetrics.record_request`); nothing else touches the request path;
- **per worker, once a second**, in the health monitor's thread (`Sampler`, handed each new
  `HealthState`): the gauges (lake, key store and limiter up, builds open, damaged builds, degraded
  alphas), and the counters the lake reader and the limiter keep themselves
  (`datasets.reader.READER_COUNTS`, `Limiter.outages`), turned into increments;
- **per scrape**, what the shared records database holds (events appended, the webhooks' backlog,
  the catalogue follow-ups pending),
  read once by the worker that answers: it is the same for every worker (`backlog_families`).

Under `alpha-results serve` with `ALPHA_RESULTS_PROMETHEUS` on, the workers share a folder
(`PROMETHEUS_MULTIPROC_DIR`, made fresh by `serve.startup.metrics_folder`): prometheus-client's
multiprocess mode keeps each worker's values in memory-mapped files there, and a scrape merges
them (`MultiProcessCollector`). A gauge says how it merges (`multiprocess_mode`): `livemin` for the
"up" gauges (0 as soon as one live worker sees the part down, as `/v1/health` of that worker
would), `livesum` for builds open (the server's total), `livemax` for what each worker finds on
its own (a damaged build is found by each worker that opens it: the sum would count it once per
worker). `live` modes drop a worker's gauges when it exits (`mark_process_dead`, at shutdown, and
at each worker's start for a worker that died without one). An app made outside `serve` (tests,
a notebook) keeps its metrics in a registry of its own instead.
"""

from __future__ import annotations

import datetime as dt
import glob
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, values
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

from datasets.reader import READER_COUNTS
from serve.access_log import route_of
from serve.health import HealthState
from serve.startup import MULTIPROC_ENV

PREFIX = "alpha_results_"
UNMATCHED = "unmatched"
"""The `route` label of a request no route matched (an unknown path): one label for all of them,
whatever the path, so a scan of random paths adds one series, not one per path."""
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds, 1 ms to 10 s in 1-2.5-5 steps: a constant route answers in about 1 ms, a figure of a
full-size alpha in tens of ms, a first request that opens a build on S3 in seconds."""

READER_COUNTERS = {
    "evicted": "lake_builds_evicted",
    "checks": "lake_integrity_checks",
    "checks_failed": "lake_integrity_failures",
    "refresh_failures": "lake_refresh_failures",
    "resource_failures": "worker_resource_failures",
}
"""The counter each of the lake reader's counts becomes (its help is the reader's meaning)."""


def multiprocess() -> bool:
    """Whether this process records into the shared folder (a worker of `alpha-results serve`)."""
    return MULTIPROC_ENV in os.environ


class ServerMetrics:
    """The metrics one worker records. `registry` None: the multiprocess folder holds them."""

    def __init__(self, registry: CollectorRegistry | None) -> None:
        self.registry = registry
        self.requests = Counter(
            PREFIX + "http_requests",
            "Requests answered, by route (the registry id; the handler's name outside the registry; "
            f"{UNMATCHED} for an unknown path) and HTTP status.",
            ["route", "status"],
            registry=registry,
        )
        self.latency = Histogram(
            PREFIX + "http_request_duration_seconds",
            "Time from a request's arrival in the worker to its last byte handed to the server, by route.",
            ["route"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.lake_up = Gauge(
            PREFIX + "lake_up",
            "1 when every live worker read the lake's catalogue at its last refresh; 0 when one could "
            "not (/v1/health down: [lake]).",
            registry=registry,
            multiprocess_mode="livemin",
        )
        self.keystore_up = Gauge(
            PREFIX + "keystore_up",
            "1 when every live worker's last probe of the key store (and records) database answered; "
            "0 when one did not (/v1/health down: [keystore]).",
            registry=registry,
            multiprocess_mode="livemin",
        )
        self.limiter_up = Gauge(
            PREFIX + "limiter_backend_up",
            "1 when every live worker's last probe of the rate limiter's store (Redis PING) answered; 0 "
            "when one did not and limits are counted locally (/v1/health down: [limiter]); always 1 "
            "for memory://.",
            registry=registry,
            multiprocess_mode="livemin",
        )
        self.identity_cache_live = Gauge(
            PREFIX + "identity_cache_live",
            "1 when every live worker answers the keys it holds from memory (its PostgreSQL change "
            "listener live; always on SQLite); 0 when one reads the key store on every request "
            '(slower, never stale: docs/operations.md "The identity cache").',
            registry=registry,
            multiprocess_mode="livemin",
        )
        self.builds_open = Gauge(
            PREFIX + "lake_builds_open",
            "Builds the live workers hold open, summed (each at most ALPHA_RESULTS_MAX_OPEN_BUILDS).",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.damaged_builds = Gauge(
            PREFIX + "lake_damaged_builds",
            "Served builds found damaged and not served until whole, the most any live worker found.",
            registry=registry,
            multiprocess_mode="livemax",
        )
        self.degraded_alphas = Gauge(
            PREFIX + "lake_degraded_alphas",
            "Alphas /v1/health names in lake.degraded_alphas (a damaged build, an unreadable pointer, "
            "a corrupt archive), the most any live worker names.",
            registry=registry,
            multiprocess_mode="livemax",
        )
        self.answer_cache_bytes = Gauge(
            PREFIX + "answer_cache_bytes",
            "Bytes of answers the live workers keep to answer again, summed (each at most "
            'ALPHA_RESULTS_ANSWER_CACHE_BYTES; docs/operations.md "Answers made once").',
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.counters = {
            name: Counter(PREFIX + metric, _sentence(READER_COUNTS[name]), registry=registry)
            for name, metric in READER_COUNTERS.items()
        }
        self.counters["answer_hits"] = Counter(
            PREFIX + "answer_cache_hits",
            "Requests answered from an answer a worker kept (a run's collection page asked before).",
            registry=registry,
        )
        self.counters["answer_misses"] = Counter(
            PREFIX + "answer_cache_misses",
            "Requests of a run's collection page no kept answer had: answered by the route.",
            registry=registry,
        )
        self.counters["outages"] = Counter(
            PREFIX + "limiter_outages",
            "Times a worker found the rate limiter's Redis failing and began counting limits locally.",
            registry=registry,
        )
        self._children: dict[tuple[str, int], tuple[Any, Any]] = {}

    @classmethod
    def for_process(cls) -> ServerMetrics:
        """A worker's metrics: in the shared folder under `serve`, else in a registry of the app's."""
        if not multiprocess():
            return cls(CollectorRegistry(auto_describe=True))
        if not getattr(values.ValueClass, "_multiprocess", False):
            # prometheus-client picks its value store when first imported: imported before the
            # folder was set, this worker would keep its figures in memory, out of every scrape.
            raise RuntimeError(f"prometheus_client was imported before {MULTIPROC_ENV} was set")
        return cls(None)

    def record_request(self, scope: Any, status: int, seconds: float) -> None:
        """One request: +1 to its (route, status) counter, its time into its route's histogram.
        The labelled children are kept by key, so a request costs two dictionary lookups and the two
        updates (prometheus-client's own lock, held for a memory write each)."""
        route = route_of(scope) or UNMATCHED
        children = self._children.get((route, status))
        if children is None:
            children = (self.requests.labels(route, str(status)), self.latency.labels(route))
            self._children[(route, status)] = children
        children[0].inc()
        children[1].observe(seconds)

    def sampler(self, reader: Any, limiter: Any | None, cache: Any | None, answers: Any | None) -> Sampler:
        return Sampler(self, reader, limiter, cache, answers)

    def exposition(self, extra: Iterable[Metric], accept: str | None) -> tuple[bytes, str]:
        """The text a scrape receives (Prometheus text format, or OpenMetrics when `accept` asks for
        it): every worker's metrics merged, then `extra` (the records' figures)."""
        registry = CollectorRegistry(auto_describe=False)
        if self.registry is None:
            MultiProcessCollector(registry)
        else:
            registry.register(_Families(self.registry.collect))
        families = list(extra)
        registry.register(_Families(lambda: iter(families)))
        encoder, content_type = choose_encoder(accept or "")
        return encoder(registry), content_type


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


class _Families(Collector):
    """A collector of the families a function yields (an app's own registry, the records' figures)."""

    def __init__(self, families: Any) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        families: Iterable[Metric] = self._families()
        return families


@dataclass
class Sampler:
    """Each health state of one worker into its gauges, and the counts its reader and limiter kept
    since the last state into its counters (the health monitor's thread calls it once a second)."""

    metrics: ServerMetrics
    reader: Any
    limiter: Any | None
    cache: Any | None  # access.cache.IdentityCache
    answers: Any | None  # serve.answer_cache.AnswerCache (None: none kept)

    def __post_init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, state: HealthState) -> None:
        metrics = self.metrics
        metrics.lake_up.set(0 if "lake" in state.down else 1)
        metrics.keystore_up.set(0 if "keystore" in state.down else 1)
        metrics.limiter_up.set(0 if "limiter" in state.down else 1)
        if self.cache is not None:
            metrics.identity_cache_live.set(1 if self.cache.vouches() else 0)
        metrics.builds_open.set(self.reader.open_builds())
        metrics.damaged_builds.set(self.reader.damaged_builds())
        metrics.degraded_alphas.set(len(state.degraded_alphas))
        counts = {**self.reader.counts.snapshot(), "outages": getattr(self.limiter, "outages", 0)}
        if self.answers is not None:
            metrics.answer_cache_bytes.set(self.answers.used)
            counts |= {"answer_hits": self.answers.hits, "answer_misses": self.answers.misses}
        for name, value in counts.items():
            grown = value - self._seen.get(name, 0)
            if grown > 0:
                metrics.counters[name].inc(grown)
            self._seen[name] = value


def backlog_families(
    last_event_id: int, backlog: Any, now: dt.datetime, followups_pending: int = 0
) -> Iterator[Metric]:
    """The records' figures of one scrape: events appended, the webhooks' backlog
    (`records.webhooks.Backlog`) and the catalogue follow-ups pending (`records.followups`), read
    from the shared database by the worker that answers."""
    appended = CounterMetricFamily(
        PREFIX + "events_appended",
        "Events appended to the event log since it began (the newest event's id: ids are never reused).",
    )
    appended.add_metric([], last_event_id)
    yield appended
    webhooks = GaugeMetricFamily(PREFIX + "webhooks", "Webhooks registered, by state.", labels=["state"])
    for state in ("active", "disabled"):
        webhooks.add_metric([state], backlog.by_state.get(state, 0))
    yield webhooks
    yield GaugeMetricFamily(
        PREFIX + "webhooks_failing",
        "Active webhooks whose next event failed its last attempt (retried later; disabled after the window).",
        value=backlog.failing,
    )
    attempts = GaugeMetricFamily(
        PREFIX + "webhook_attempts_last_hour",
        "Delivery attempts the delivery worker recorded in the last hour, by outcome.",
        labels=["outcome"],
    )
    for outcome in ("delivered", "failed", "skipped"):
        attempts.add_metric([outcome], backlog.attempts.get(outcome, 0))
    yield attempts
    oldest = backlog.oldest_undelivered
    yield GaugeMetricFamily(
        PREFIX + "webhook_oldest_undelivered_age_seconds",
        "Age of the oldest event an active webhook still waits for (0: none waits): the delivery lag.",
        value=0.0 if oldest is None else max(0.0, (now - oldest).total_seconds()),
    )
    yield GaugeMetricFamily(
        PREFIX + "catalogue_followups_pending",
        "Catalogue follow-ups of recorded decisions not done yet (the index does not follow the records "
        "until they are: alpha-results lake follow-ups retries them).",
        value=followups_pending,
    )


ATTEMPTS_WINDOW = dt.timedelta(hours=1)
"""The attempts counted by `webhook_attempts_last_hour`: a window, not a counter, because the
attempts table is purged after the events' retention (a count of it would go down, which
Prometheus reads as a counter's reset)."""


def read_events_backlog(records: Any) -> tuple[int, Any, int]:
    """(the newest event id, the webhooks' backlog up to it, the catalogue follow-ups pending), in
    one read of the records."""
    last = records.events.last_id()
    backlog = records.webhooks.backlog(last, dt.datetime.now(dt.UTC) - ATTEMPTS_WINDOW)
    return last, backlog, records.followups.pending_count()


_LIVE_GAUGE_FILE = re.compile(r"gauge_live[a-z]+_(\d+)\.db$")


def forget_dead_workers() -> None:
    """A worker's start: drop the live gauges of workers that died without their shutdown (killed;
    uvicorn starts another in its place), so they no longer count in `livemin`/`livemax`/`livesum`."""
    folder = os.environ.get(MULTIPROC_ENV)
    if not folder:
        return
    files = glob.glob(os.path.join(folder, "gauge_live*.db"))
    pids = {int(found.group(1)) for name in files if (found := _LIVE_GAUGE_FILE.search(name))}
    for pid in pids - {os.getpid()}:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, folder)
        except PermissionError:
            pass  # alive, another user's: not a worker of ours, whose files these would not be


def worker_stopped() -> None:
    """A worker's shutdown: its live gauges leave the merge (its counters stay: they only grow)."""
    folder = os.environ.get(MULTIPROC_ENV)
    if folder:
        mark_process_dead(os.getpid(), folder)
