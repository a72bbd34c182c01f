"""Health from state: a background thread probes the backends, `/v1/health` only reads the result.

Probing on every call made health a way to load the key store, the limiter and the lake from the
public, unmetered internet (a health flood raised `/v1/me` p50 from 4.8 ms to 78 ms), and logged a
traceback per call during an outage. Here a `HealthMonitor` probes at most once every
`REFRESH_SECONDS`:
- `keystore`: `store.ping()` and `limiter`: `limiter.ping()`, each bounded by the backend's own
  timeouts and, together, by `PROBE_DEADLINE_SECONDS` (a probe that has not answered by then is
  down; it is not started again while it still runs, so a hung backend holds one thread);
- `lake`: `reader.health()`, the reader's own view (no I/O): `down` (the lake cannot be read at all)
  and `alphas` (alpha_id -> reason code, for alphas whose served build is damaged).

A change of a part's state (up to down, down to up, a different set of degraded alphas) is logged
once, as one line without a traceback: WARNING when something went down or degraded, INFO when it
recovered. The app starts the monitor at startup (`start_health_monitor`, after one synchronous
probe, so the first request already has a state) and stops it at shutdown.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from litestar import Litestar

from datasets.reader import LakeHealth

log = logging.getLogger("serve.health")

REFRESH_SECONDS = 1.0
"""How often the monitor probes; also how stale the state `/v1/health` serves can be."""
PROBE_DEADLINE_SECONDS = 1.5
"""All probes of one refresh together; a probe that has not answered by then is reported down."""
PARTS = ("lake", "keystore", "limiter")
"""The parts probed, in the order `down` names them."""
STATE_KEY = "health_monitor"
"""Where the app's monitor is kept on `app.state`."""


@dataclass(frozen=True)
class HealthState:
    """One refresh's result: what is down, which alphas are degraded, and when it was probed."""

    down: tuple[str, ...] = ()
    degraded_alphas: Mapping[str, str] = field(default_factory=dict)
    checked_at: float = 0.0  # monotonic clock
    worker: str | None = None  # a resource this worker ran out of lately (datasets.reader)

    @property
    def status(self) -> str:
        return "degraded" if self.down or self.degraded_alphas or self.worker else "ok"


class HealthMonitor:
    """The last known health of the backends of one worker, refreshed by one daemon thread."""

    def __init__(
        self,
        *,
        reader: Any,
        store: Any | None,
        limiter: Any | None,
        interval: float = REFRESH_SECONDS,
        deadline: float = PROBE_DEADLINE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.deadline = deadline
        self._clock = clock
        probes: dict[str, Callable[[], Any]] = {"lake": lambda: reader.health()}
        # Looked up per probe: a store opened on first use (access/deferred_store.py) has no `ping` yet.
        if store is not None:
            probes["keystore"] = lambda: store.ping()
        if limiter is not None:
            probes["limiter"] = lambda: limiter.ping()
        self._probes = probes
        # One thread per part at most: a probe still running is not started again.
        self._executor = ThreadPoolExecutor(max_workers=len(probes), thread_name_prefix="health-probe")
        self._running: dict[str, Future[Any]] = {}
        self._state: HealthState | None = None
        self._refresh_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.observers: list[Callable[[HealthState], None]] = []
        """Called with each new state, in the probing thread (the metrics' sampler,
        serve/prometheus.py): once a second, never on a request."""

    # -- reading ----------------------------------------------------------------------------

    def current(self) -> HealthState:
        """The last state. Only a monitor that was never started (an app run without its startup
        hooks) probes here, synchronously and at most once every `interval`."""
        state = self._state
        if state is not None and (
            self._thread is not None or self._clock() - state.checked_at < self.interval
        ):
            return state
        with self._refresh_lock:
            state = self._state
            if state is None or self._clock() - state.checked_at >= self.interval:
                state = self._refresh()
        return state

    # -- probing ----------------------------------------------------------------------------

    def refresh(self) -> HealthState:
        """Probe every part once (bounded by `deadline`), keep and return the new state."""
        with self._refresh_lock:
            return self._refresh()

    def _refresh(self) -> HealthState:
        for name, probe in self._probes.items():
            running = self._running.get(name)
            if running is None or running.done():
                self._running[name] = self._executor.submit(probe)
        wait(self._running.values(), timeout=self.deadline)
        reasons: dict[str, str] = {}
        degraded: dict[str, str] = {}
        worker: str | None = None
        for name in self._probes:
            outcome = self._running[name]
            if not outcome.done():
                reasons[name] = f"no answer within {self.deadline:g} s"
            elif (error := outcome.exception()) is not None:
                reasons[name] = _reason(error)
            elif isinstance(lake := outcome.result(), LakeHealth):
                if lake.down:
                    reasons[name] = "the lake cannot be read"
                degraded = dict(sorted(lake.alphas.items()))
                worker = lake.worker
        state = HealthState(
            down=tuple(name for name in PARTS if name in reasons),
            degraded_alphas=degraded,
            checked_at=self._clock(),
            worker=worker,
        )
        self._log_changes(self._state or HealthState(), state, reasons)
        self._state = state
        for observe in self.observers:
            try:
                observe(state)
            except Exception:  # a failing observer must not stop health reporting
                log.exception("health: an observer of the state failed")
        return state

    def _log_changes(self, before: HealthState, after: HealthState, reasons: Mapping[str, str]) -> None:
        for name in PARTS:
            if name in after.down and name not in before.down:
                log.warning("health: %s is down (%s)", name, reasons[name])
            elif name in before.down and name not in after.down:
                log.info("health: %s is up again", name)
        if after.degraded_alphas != before.degraded_alphas:
            if after.degraded_alphas:
                named = ", ".join(f"{alpha} ({reason})" for alpha, reason in after.degraded_alphas.items())
                log.warning("health: lake alphas degraded: %s", named)
            else:
                log.info("health: no lake alpha is degraded any more")

    # -- the background thread --------------------------------------------------------------

    def start(self) -> None:
        """Probe once now (so the first request has a state), then every `interval` in a thread."""
        if self._thread is not None:
            return
        self.refresh()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="health-monitor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.refresh()
            except Exception:  # a bug in a probe's bookkeeping must not end health reporting
                log.exception("health: refresh failed")

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.deadline + self.interval)
            self._thread = None
        self._executor.shutdown(wait=False, cancel_futures=True)


def _reason(error: BaseException) -> str:
    """A short, secret-free reason: exception type names only (a message may carry a URL)."""
    cause = error.__cause__ or error.__context__
    if cause is None or type(cause) is type(error):
        return type(error).__name__
    return f"{type(error).__name__} from {type(cause).__name__}"


def monitor_of(app: Litestar) -> HealthMonitor:
    """The app's monitor; created (not started) on first use when the app's startup did not run."""
    monitor: HealthMonitor | None = app.state.get(STATE_KEY)
    if monitor is None:
        services = app.state["services"]
        monitor = HealthMonitor(reader=services.reader, store=services.store, limiter=services.limiter)
        app.state[STATE_KEY] = monitor
    return monitor


def start_health_monitor(app: Litestar) -> None:
    """`on_startup`: probe once, then keep probing in the background."""
    monitor_of(app).start()


def stop_health_monitor(app: Litestar) -> None:
    """`on_shutdown`: stop the thread; a later startup of the same app builds a new monitor."""
    monitor: HealthMonitor | None = app.state.get(STATE_KEY)
    if monitor is not None:
        del app.state[STATE_KEY]
        monitor.stop()
