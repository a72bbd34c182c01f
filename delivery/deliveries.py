"""The delivery worker: pushes each active webhook's events to its URL, in order, at least once
(`alpha-results deliver`, its own process; docs/events.md "Webhooks").

**One deliverer.** Workers share the records database; one of them holds the lease
(`records.webhooks.Lease`, a row taken atomically and renewed by its holder at every turn of its
loop, `lease_seconds` long). The others wait and take over when it expires: a worker killed with
SIGKILL is replaced within `lease_seconds`; one stopped with SIGTERM or Ctrl-C releases it at once.
Every write of the holder is fenced by the lease, so one that stalled past it writes nothing.

**In order, at least once.** A webhook's events go one at a time, oldest first. An event counts
as delivered when the receiver answered 2xx and that answer was recorded; a worker killed in
between re-delivers it (the same event id, for the receiver to drop). A failure (any other
status, a refused or unreachable destination, no answer within `timeout`) is retried on the
Standard Webhooks specification's schedule, jittered (`Schedule`), no sooner than the answer's
`Retry-After` asks, and the events after it wait; when an event has failed for the schedule's
`window` (about three days), or the receiver answers 410 Gone, the webhook is disabled and its key
told (`webhook.disabled`). A 429, 502 or 504 also paces the webhook's later deliveries (issue 60).
An operator's replay (`records.webhooks.Replay`) sends a range of events again, then resumes.

**Only to a key that may see it.** Before each attempt the worker reads the key (`delivery.webhooks.
key_access`) and asks whether `GET /v1/events` would show it the event (`delivery.event_answers.reader_of`,
`records.event_log.visible_sql`); an event it may not see then is skipped for that webhook (recorded as
a `skipped` attempt) and never sent later.

**No event passed over.** PostgreSQL numbers an event when it is inserted, not when its transaction
commits, so an event may become visible after a later one. The worker delivers only up to its
*horizon*: the last event before which no id is missing, a gap being waited for until it has been
seen for `settle` seconds (or the event after it is over a minute old): a transaction that rolled
back, or events the retention deleted.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import email.utils
import http.client
import io
import itertools
import logging
import os
import random
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from access.store import KeyStoreUnavailable, SqlKeyStore
from delivery.event_answers import Viewer, reader_of
from delivery.webhooks import (
    ATTEMPT_HEADER,
    EVENT_ID_HEADER,
    EVENT_TYPE_HEADER,
    WEBHOOK_ID_HEADER,
    Resolver,
    Target,
    UrlRefused,
    check_url,
    event_body,
    key_access,
    resolve,
    signature_headers,
)
from records.event_log import Event
from records.sql import Unavailable
from records.store import Records
from records.times import stored_time
from records.webhooks import Lease, SigningKey, Tried, Webhook
from schemas.bodies.event_data import WEBHOOK_DISABLED, recorded

log = logging.getLogger("delivery.deliveries")

USER_AGENT = "alpha-results-webhooks/1"
EXCERPT_BYTES = 1024
"""At most this much of a failed answer's body is read (its first 200 characters are recorded)."""
OLD_GAP_SECONDS = 60.0
HORIZON_BATCH = 1000
RUN_LENGTH = 100
"""Events delivered to one webhook in a row before the worker looks again (new webhooks, the lease)."""
ATTEMPT_RETENTION_CHECK_SECONDS = 3600.0


STANDARD_DELAYS = (5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 50400.0, 72000.0, 86400.0)
"""The waits after each failed attempt of an event, the Standard Webhooks specification's example
schedule ("Deliverability and reliability"): 5 s, 5 min, 30 min, 2, 5, 10, 14, 20 and 24 h, the
last repeating, spanning about three days before the webhook is disabled."""


@dataclass(frozen=True)
class Schedule:
    """When a failed event is tried again, and for how long before its webhook is disabled."""

    delays: tuple[float, ...] = STANDARD_DELAYS
    window: float = sum(STANDARD_DELAYS)  # 272,405 s, about 75.7 h
    jitter: float = 0.2
    """Each wait is drawn uniformly within this share either side of its step, so receivers that
    failed together (an outage) are not all retried at the same instant: the specification
    recommends jitter "to prevent cases where the failures are due to recurring load caused by the
    webhook attempts themselves"."""

    @classmethod
    def doubling(cls, first: float, longest: float, window: float, jitter: float = 0.2) -> Schedule:
        """Waits from `first`, doubling up to `longest` (the operator's `--retry-first`, `--retry-max`)."""
        delays = [first]
        while delays[-1] * 2 < longest and len(delays) < 64:
            delays.append(delays[-1] * 2)
        if delays[-1] < longest:
            delays.append(longest)
        return cls(tuple(delays), window, jitter)

    def step(self, failures: int) -> float:
        """The wait after `failures` failed attempts, before jitter."""
        return self.delays[min(failures, len(self.delays)) - 1]

    def delay(self, failures: int, draw: Callable[[], float] = random.random) -> float:
        """Seconds before the next attempt after `failures` failed ones: the step, jittered."""
        return self.step(failures) * (1.0 - self.jitter + 2.0 * self.jitter * draw())


RETRY_AFTER_MAX = 86400.0
"""The longest wait a receiver's `Retry-After` may ask for: honoured up to a day, so an answer
cannot postpone its events for ever (the window still disables a webhook that never recovers)."""
THROTTLED = frozenset({429, 502, 504})
"""Statuses that say the receiver is overloaded (the specification: "throttle"): besides the retry,
the worker paces that webhook's later deliveries (`Options.throttle_first`)."""
GONE = 410
"""The receiver wants no more deliveries: the webhook is disabled at once (the specification)."""


@dataclass(frozen=True)
class Options:
    schedule: Schedule = field(default_factory=Schedule)
    timeout: float = 10.0
    """Seconds a delivery may take, from the connection to the answer's status and headers."""
    poll: float = 1.0
    """Seconds between looks for new events (and renewals of the lease)."""
    lease_seconds: float = 30.0
    concurrency: int = 8
    """Webhooks delivered to at the same time (each one's events still one at a time)."""
    settle: float = 10.0
    allow_private: bool = False
    retention_days: int = 90
    throttle_first: float = 1.0
    """The pace after a throttling answer (429, 502, 504): at most one delivery per this many seconds
    to that webhook, doubling with each further such answer up to `throttle_max`, halving with each
    delivery, until it is under an eighth of this."""
    throttle_max: float = 60.0
    worker_id: str = field(
        default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{os.urandom(3).hex()}"
    )


@dataclass(frozen=True)
class Sent:
    """What one POST came to: the HTTP status (None when no answer), or why it failed."""

    status: int | None
    error: str | None
    duration_us: int
    retry_after: float | None = None
    """Seconds the receiver's `Retry-After` asked for (a number, or an HTTP date from now)."""

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


# -- one POST ---------------------------------------------------------------------------------


class _HeadLines:
    """The answer's stream while its head is read (line by line): whether a line came back empty,
    the end of the stream rather than the head's empty line."""

    def __init__(self, stream: io.BufferedReader) -> None:
        self._stream = stream
        self.cut = False

    def readline(self, limit: int = -1) -> bytes:
        line = self._stream.readline(limit)
        self.cut = line == b""
        return line

    def close(self) -> None:
        self._stream.close()


class _WholeHead(http.client.HTTPResponse):
    """An answer whose head must end with its empty line. http.client takes the end of the stream
    for the end of the headers, so a receiver that sent its status line and stalled read, once the
    deadline shut the socket, as a complete 200: the event recorded delivered and lost (issue 48,
    item 7). A head cut short is a failed attempt, retried."""

    def begin(self) -> None:
        stream = self.fp
        head = _HeadLines(stream)
        self.fp = cast(io.BufferedReader, head)  # only readline (and close) while the head is read
        try:
            super().begin()
        finally:
            self.fp = stream
        if head.cut:
            raise http.client.HTTPException("the head ended before its empty line")


class _PinnedConnection(http.client.HTTPConnection):
    """Plain HTTP to the one address that was checked (the Host header still names the host)."""

    response_class = _WholeHead

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _PinnedTlsConnection(_PinnedConnection):
    """HTTPS to the one address that was checked; the certificate is verified against the host."""

    _tls = ssl.create_default_context()
    default_port = 443

    def connect(self) -> None:
        super().connect()
        self.sock = self._tls.wrap_socket(self.sock, server_hostname=self.host)


_PRINTABLE = re.compile(r"[^\x21-\x7e]+")


def _excerpt(raw: bytes) -> str:
    """What a receiver answered, safe to print: printable ASCII words, at most 200 characters."""
    return _PRINTABLE.sub(" ", raw.decode("utf-8", "replace")).strip()[:200]


class _Deadlines:
    """One thread that ends the deliveries past their deadline (shuts their socket down, so a
    receiver dripping its answer a byte at a time cannot hold a delivery past `timeout`); a timer
    thread per delivery cost 5 ms to start on a busy machine, more than the rest of a delivery."""

    TICK = 0.05

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._due: dict[int, tuple[float, Callable[[], None]]] = {}
        self._numbers = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, deadline: float, expire: Callable[[], None]) -> int:
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="delivery-deadlines", daemon=True)
                self._thread.start()
            number = next(self._numbers)
            self._due[number] = (deadline, expire)
            self._changed.notify()
            return number

    def remove(self, number: int) -> None:
        with self._changed:
            self._due.pop(number, None)

    def _watch(self) -> None:
        while True:
            with self._changed:
                while not self._due:
                    self._changed.wait()
                self._changed.wait(self.TICK)
                now = time.monotonic()
                overdue = [number for number, (deadline, _) in self._due.items() if deadline <= now]
                expiring = [self._due.pop(number)[1] for number in overdue]
            for expire in expiring:
                expire()


_DEADLINES = _Deadlines()


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    allow_private: bool,
    timeout: float,
    resolver: Resolver = resolve,
) -> Sent:
    """POST `body` to `url`: resolved and checked now (`check_url`, so a name rebound to a private
    address since it was registered is refused), to an address it resolved to, redirects not
    followed, the whole exchange bounded by `timeout` (a timer shuts the socket)."""
    started = time.monotonic()

    def took() -> int:
        return int((time.monotonic() - started) * 1e6)

    try:
        target = check_url(url, allow_private, resolver)
    except UrlRefused as exc:
        return Sent(None, f"refused: {exc}", took())
    error = "no address to connect to"
    for address in target.addresses:
        sent = _post_to(target, address, body, headers, timeout, started)
        if sent.status is not None or not sent.error or not sent.error.startswith("connect:"):
            return Sent(sent.status, sent.error, took(), sent.retry_after)
        error = sent.error
        if time.monotonic() - started >= timeout:
            break
    return Sent(None, error, took())


def _post_to(
    target: Target, address: str, body: bytes, headers: Mapping[str, str], timeout: float, started: float
) -> Sent:
    remaining = max(timeout - (time.monotonic() - started), 0.001)
    kind = _PinnedTlsConnection if target.scheme == "https" else _PinnedConnection
    connection = kind(target.host, target.port, address.split("%", 1)[0], remaining)
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        sock = connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watch = _DEADLINES.add(time.monotonic() + remaining, expire)
    phase = "connect"
    try:
        connection.connect()
        phase = "send"
        connection.request("POST", target.target, body=body, headers=dict(headers))
        phase = "answer"
        response = connection.getresponse()
        status = response.status
        if 200 <= status < 300:
            return Sent(status, None, 0)
        retry_after = retry_after_seconds(response.getheader("Retry-After"))
        text = _excerpt(response.read(EXCERPT_BYTES))
        moved = " (redirects are not followed)" if 300 <= status < 400 else ""
        return Sent(status, f"HTTP {status}{moved}" + (f": {text}" if text else ""), 0, retry_after)
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set() or isinstance(exc, TimeoutError):
            return Sent(None, f"{phase}: timed out after {timeout:g} s", 0)
        if isinstance(exc, ssl.SSLError):
            return Sent(None, f"{phase}: TLS: {exc.reason or exc}", 0)
        return Sent(None, f"{phase}: {_excerpt(str(exc).encode()) or type(exc).__name__}", 0)
    finally:
        _DEADLINES.remove(watch)
        connection.close()


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header's wait in seconds (RFC 9110: delay-seconds, or an HTTP date), None
    when absent or unreadable; never below 0."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text[:12]))
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


# -- the worker -------------------------------------------------------------------------------


Poster = Callable[[str, bytes, Mapping[str, str], bool, float], Sent]


class Worker:
    """Delivers every active webhook's events while it holds the lease (`run`)."""

    def __init__(
        self,
        records: Records,
        store: SqlKeyStore,
        options: Options,
        poster: Poster | None = None,
    ) -> None:
        self.records = records
        self.store = store
        self.options = options
        self.lease = Lease(options.worker_id, options.lease_seconds)
        self._post: Poster = poster or post
        self._held = False
        self._horizon: int | None = None
        self._gap_seen: dict[int, float] = {}
        self._idle: dict[str, tuple[int, int]] = {}
        self._in_flight: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._purged_at = 0.0
        self._stop = threading.Event()
        self._pace: dict[str, float] = {}  # a throttled webhook's seconds between deliveries
        self._paced_until: dict[str, float] = {}  # monotonic time before which it gets none

    # The loop ------------------------------------------------------------------------------

    def run(self, stop: threading.Event, once: bool = False) -> str | None:
        """Deliver until `stop` is set (or, with `once`, until nothing is due now); None, or why
        `once` could not (another worker holds the lease, the database cannot be used)."""
        self._stop = stop
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=self.options.concurrency, thread_name_prefix="delivery"
        ) as pool:
            try:
                while not stop.is_set():
                    self._wake.clear()
                    try:
                        busy = self._turn(pool, stop)
                    except (Unavailable, KeyStoreUnavailable) as exc:
                        if once:
                            return f"the database cannot be used: {exc}"
                        log.warning("the database cannot be used now (%s); trying again", exc)
                        busy = True
                    if once and not self._held:
                        holder = self.records.webhooks.lease_holder(self.lease.name)
                        return f"another worker ({holder[0] if holder else 'unknown'}) is delivering"
                    if once and not busy:
                        return None
                    self._wake.wait(self.options.poll)
            finally:
                pool.shutdown(wait=True)
                if self._held:
                    try:
                        self.records.webhooks.release_lease(self.lease)
                    except Unavailable:
                        pass  # it expires on its own
        return None

    def _turn(self, pool: concurrent.futures.ThreadPoolExecutor, stop: threading.Event) -> bool:
        """One look: renew the lease, move the horizon, start what is due. True while something
        is in flight or was started."""
        now = dt.datetime.now(dt.UTC)
        held = self.records.webhooks.take_lease(self.lease, now)
        if held != self._held:
            log.info("%s the lease (worker %s)", "took" if held else "lost", self.lease.holder)
            self._held = held
            self._horizon = None
        if not held:
            return False
        self._purge(now)
        horizon = self._advance_horizon()
        started = False
        for webhook in self.records.webhooks.active():
            if stop.is_set():
                break
            with self._lock:
                if webhook.id in self._in_flight:
                    started = True
                    continue
            due = webhook.progress.next_attempt_at
            if due is not None and due > now:
                continue
            if self._paced_until.get(webhook.id, 0.0) > time.monotonic():
                continue
            if self._idle.get(webhook.id) == (horizon, webhook.progress.delivered_through):
                continue
            with self._lock:
                self._in_flight.add(webhook.id)
            pool.submit(self._step_safely, webhook.id, horizon)
            started = True
        return started

    def _purge(self, now: dt.datetime) -> None:
        """Delete attempts older than the events' retention, once an hour."""
        if time.monotonic() - self._purged_at < ATTEMPT_RETENTION_CHECK_SECONDS:
            return
        self._purged_at = time.monotonic()
        gone = self.records.webhooks.purge_attempts(now - dt.timedelta(days=self.options.retention_days))
        if gone:
            log.info("deleted %d delivery attempts older than %d days", gone, self.options.retention_days)

    def _advance_horizon(self) -> int:
        """The newest event id before which none is missing (or missing for long enough)."""
        if self._horizon is None:
            active = self.records.webhooks.active()
            self._horizon = min(
                (w.progress.delivered_through for w in active), default=self.records.events.last_id()
            )
        while True:
            rows = self.records.webhooks.event_ids_after(self._horizon, HORIZON_BATCH)
            moved = False
            for event_id, created_at in rows:
                if event_id != self._horizon + 1 and not self._gap_settled(created_at):
                    break
                self._horizon, moved = event_id, True
                self._gap_seen.clear()
            if not moved or len(rows) < HORIZON_BATCH:
                return self._horizon

    def _gap_settled(self, after_gap_created: dt.datetime) -> bool:
        """Whether the ids missing before the next event are given up on: seen missing for
        `settle` seconds, or the event after them is old (its transaction began after theirs)."""
        assert self._horizon is not None
        first_seen = self._gap_seen.setdefault(self._horizon, time.monotonic())
        if time.monotonic() - first_seen >= self.options.settle:
            return True
        return (dt.datetime.now(dt.UTC) - after_gap_created).total_seconds() >= OLD_GAP_SECONDS

    # One webhook's next event ------------------------------------------------------------------

    def _step_safely(self, webhook_id: str, horizon: int) -> None:
        """Deliver the webhook's due events one after the other, up to `RUN_LENGTH` of them: until
        one fails, none is left up to `horizon`, the lease is lost or the worker stops (then the
        loop looks again, and other webhooks get their turn in the pool)."""
        try:
            for _ in range(RUN_LENGTH):
                if self._stop.is_set() or not self._step(webhook_id, horizon):
                    break
        except (Unavailable, KeyStoreUnavailable) as exc:
            log.warning("webhook %s: the database cannot be used now (%s)", webhook_id, exc)
        except Exception:
            log.exception("webhook %s: delivery step failed", webhook_id)
        finally:
            with self._lock:
                self._in_flight.discard(webhook_id)
            self._wake.set()

    def _step(self, webhook_id: str, horizon: int) -> bool:
        """Try the webhook's next event once: deliver it, skip it, or schedule its next attempt.
        True when the event is done (delivered or skipped, and recorded): the next may follow."""
        webhook = self.records.webhooks.get(webhook_id)
        now = dt.datetime.now(dt.UTC)
        if webhook is None or webhook.state != "active":
            return False
        due = webhook.progress.next_attempt_at
        if due is not None and due > now:
            return False
        if self._paced_until.get(webhook.id, 0.0) > time.monotonic():
            return False  # throttled: the loop starts it again once its pace allows
        replay = self.records.webhooks.replay_of(webhook.id)
        through = horizon if replay is None else min(horizon, replay.last_event)
        event = self.records.webhooks.next_event(webhook, through)
        if event is None and replay is not None and replay.last_event <= horizon:
            # Every event of the replayed range is done: resume where the webhook was.
            ended = self.records.webhooks.end_replay(self.lease, webhook.id, replay)
            if ended:
                log.info("webhook %s: replay through event %d done", webhook.id, replay.last_event)
            return ended
        if event is None:
            self._idle[webhook.id] = (horizon, webhook.progress.delivered_through)
            return False
        retrying = webhook.progress.pending_event == event.id
        attempt = webhook.progress.failures + 1 if retrying else 1
        access = key_access(self.store, webhook.key_id, now)
        if isinstance(access, str) or not self.records.webhooks.visible(reader_of(access), event.id):
            why = access if isinstance(access, str) else "the key may not see this event"
            tried = Tried(webhook.id, event.id, attempt, now, "skipped", error=f"skipped: access ({why})")
            return self._record(self.records.webhooks.finish(self.lease, tried), webhook, event, tried)
        keys = self.records.webhooks.signing_keys(webhook.id, now)
        if not keys:  # removed since it was read
            return False
        body = event_body(event, self.records.cursors.write(event.id), Viewer.of(access))
        headers = self._headers(webhook, event, body, attempt, keys)
        sent = self._post(webhook.url, body, headers, self.options.allow_private, self.options.timeout)
        done = dt.datetime.now(dt.UTC)
        pace = self._paced(webhook.id, sent)
        if sent.delivered:
            tried = Tried(webhook.id, event.id, attempt, now, "delivered", sent.duration_us, sent.status)
            return self._record(self.records.webhooks.finish(self.lease, tried), webhook, event, tried)
        failing_since = (webhook.progress.failing_since if retrying else None) or now
        gone = sent.status == GONE
        if gone or (done - failing_since).total_seconds() >= self.options.schedule.window:
            tried = Tried(
                webhook.id, event.id, attempt, now, "failed", sent.duration_us, sent.status, sent.error
            )
            said = "the receiver answered 410 Gone: it wants no more deliveries" if gone else None
            self._give_up(webhook, event, tried, failing_since, said)
            return False
        wait = self.options.schedule.delay(attempt)
        if sent.retry_after is not None:  # the receiver's own word, within a day
            wait = max(wait, min(sent.retry_after, RETRY_AFTER_MAX))
        next_at = done + dt.timedelta(seconds=max(wait, pace))
        tried = Tried(
            webhook.id, event.id, attempt, now, "failed", sent.duration_us, sent.status, sent.error, next_at
        )
        self._record(
            self.records.webhooks.retry_later(self.lease, tried, failing_since), webhook, event, tried
        )
        return False

    def _paced(self, webhook_id: str, sent: Sent) -> float:
        """The webhook's pace after this answer (0: none): a throttling answer starts or doubles it,
        a delivery halves it (dropped under an eighth of `throttle_first`); the next delivery waits
        that long."""
        options = self.options
        pace = self._pace.get(webhook_id, 0.0)
        if sent.status in THROTTLED:
            pace = min(max(pace * 2.0, options.throttle_first), options.throttle_max)
        elif sent.delivered and pace:
            pace = pace / 2.0 if pace / 2.0 >= options.throttle_first / 8.0 else 0.0
        with self._lock:
            if pace:
                self._pace[webhook_id] = pace
                self._paced_until[webhook_id] = time.monotonic() + pace
            else:
                self._pace.pop(webhook_id, None)
                self._paced_until.pop(webhook_id, None)
        return pace

    def _headers(
        self, webhook: Webhook, event: Event, body: bytes, attempt: int, keys: list[SigningKey]
    ) -> dict[str, str]:
        cursor = self.records.cursors.write(event.id)
        return {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            EVENT_ID_HEADER: cursor,
            EVENT_TYPE_HEADER: event.type,
            WEBHOOK_ID_HEADER: webhook.id,
            ATTEMPT_HEADER: str(attempt),
            # webhook-id is the event's cursor: the same at every attempt, as the standard asks.
            **signature_headers(keys, cursor, int(time.time()), body),
        }

    def _give_up(
        self, webhook: Webhook, event: Event, tried: Tried, failing_since: dt.datetime, why: str | None = None
    ) -> None:
        cursor = self.records.cursors.write(event.id)
        failed_for = (tried.at - failing_since).total_seconds()
        reason = (
            f"{why} (event {cursor}, attempt {tried.attempt})"
            if why
            else f"no 2xx answer for event {cursor} in {failed_for:.0f} s ({tried.attempt} attempts; "
            f"the last: {tried.error})"
        )
        said = recorded(
            WEBHOOK_DISABLED,
            {
                "webhook_id": webhook.id,
                "url": webhook.url,
                "reason": reason,
                "event": cursor,
                "attempts": tried.attempt,
                "failing_since": stored_time(failing_since),
            },
        )
        disabled = self.records.webhooks.give_up(self.lease, tried, webhook, reason, said)
        self._record(disabled, webhook, event, tried)
        if disabled:
            log.warning("webhook %s disabled: %s", webhook.id, reason)

    def _record(self, written: bool, webhook: Webhook, event: Event, tried: Tried) -> bool:
        """Log an attempt; `written` back (False: the lease was lost, nothing was recorded)."""
        if not written:
            log.warning(
                "webhook %s event %d: not recorded (the lease was lost, or the webhook changed)",
                webhook.id,
                event.id,
            )
            return False
        if tried.outcome == "delivered":
            said = f"delivered (HTTP {tried.http_status}, {tried.duration_us / 1e6:.3f} s)"
        elif tried.outcome == "skipped":
            said = str(tried.error)
        else:
            later = stored_time(tried.next_attempt_at) if tried.next_attempt_at else "never: disabled"
            said = f"failed ({tried.error}); next attempt {later}"
        log.info("webhook %s event %d attempt %d: %s", webhook.id, event.id, tried.attempt, said)
        return True


def run_worker(url: str, options: Options, once: bool = False) -> int:
    """`alpha-results deliver`: the worker over the database `url`, until SIGTERM or Ctrl-C (or,
    with `once`, until nothing is due now). Its log goes to stderr, a line per attempt. Exit 0;
    1 when the database cannot be opened, or `once` while another worker holds the lease."""
    import signal
    import sys

    from access.backends import open_store
    from records.store import open_records

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        records = open_records(url, create=False)
    except Unavailable as exc:
        print(f"error: the database cannot be opened: {exc}", file=sys.stderr)
        return 1
    try:
        store = open_store(url, create=False)
    except KeyStoreUnavailable:
        records.close()
        print("error: the key store cannot be opened", file=sys.stderr)
        return 1
    stop = threading.Event()

    def stopping(signum: int, _frame: Any) -> None:
        log.info("stopping (signal %d): finishing the deliveries in flight", signum)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stopping)
    log.info("delivery worker %s on %s", options.worker_id, url.split("://", 1)[0])
    try:
        refused = Worker(records, store, options).run(stop, once=once)
    finally:
        records.close()
        store.close()
    if refused is not None:
        print(f"error: {refused}", file=sys.stderr)
        return 1
    return 0
