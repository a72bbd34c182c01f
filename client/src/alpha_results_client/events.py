"""Events (the server's docs/events.md): read the feed, follow the stream, verify a webhook.

    with Client("https://api.example.com") as client:
        feed = client.events(type="alpha.decay")            # every event kept, oldest first
        for event in feed:
            print(event.type, event.alpha, event.data)
        saved = feed.cursor                                  # resume later: client.events(after=saved)

        for event in client.stream_events(last_event_id=saved):   # as they are recorded
            handle(event)                                    # reconnects by itself, no gap, no duplicate

    verify_webhook_signature(secret, request.headers["Alpha-Results-Signature"], request.body)

The same `Event` everywhere: a row of `GET /v1/events`, the `data:` of one message of `GET
/v1/events/stream`, the body of one webhook delivery. Its `id` is its cursor: resume after it,
and drop an event whose id you already handled (a webhook is delivered at least once).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx
import msgspec

from alpha_results_client._generated import Event
from alpha_results_client.exceptions import AlphaResultsError, ApiError, RateLimitedError, TransportError

if TYPE_CHECKING:
    from alpha_results_client.transport import Transport

FEED_PATH = "/v1/events"
STREAM_PATH = "/v1/events/stream"
FEED_PAGE_SIZE = 5000
"""The server's largest page (as every collection's): the fewer pages, the fewer metered requests."""
STREAM_READ_TIMEOUT = 60.0
"""Seconds a stream may stay silent before the client takes the connection for dead and
reconnects: four of the server's heartbeats at its default interval (15 s)."""
SIGNATURE_HEADER = "Alpha-Results-Signature"
SIGNATURE_TOLERANCE_SECONDS = 300


def decode_event(body: bytes | str) -> Event:
    """One event from its JSON (a stream message's `data:`, a webhook delivery's body)."""
    return msgspec.json.decode(body, type=Event)


class _Pagination(msgspec.Struct):
    has_more: bool


class _Meta(msgspec.Struct):
    next_cursor: str | None = None


class _Page(msgspec.Struct):
    data: list[Event]
    pagination: _Pagination
    meta: _Meta


def _listed(value: str | Iterable[str] | None) -> str | None:
    """A list parameter as the query carries it: comma-separated."""
    if value is None or isinstance(value, str):
        return value
    return ",".join(value)


def _filters(type: str | Iterable[str] | None, alpha: str | Iterable[str] | None) -> dict[str, str]:
    return {name: text for name, text in (("type", _listed(type)), ("alpha", _listed(alpha))) if text}


# -- the feed -------------------------------------------------------------------------------------


class EventFeed:
    """Every event the key may see after `after` (from the oldest kept when None), oldest first,
    read page by page as it is iterated; iteration ends at the newest event recorded.

    `cursor` is where to resume: the id of the last event iterated, or at the end the page's
    `next_cursor` (the cursor given back, or the start of the log when the key saw none). Keep it
    and pass it as `after` (or as `last_event_id` to `stream_events`) to read exactly the events
    that follow, however long afterwards (within the retention)."""

    def __init__(
        self,
        transport: Transport,
        after: str | None,
        type: str | Iterable[str] | None,
        alpha: str | Iterable[str] | None,
        page_size: int,
    ) -> None:
        if not 1 <= page_size <= FEED_PAGE_SIZE:
            raise ValueError(f"page_size must be 1 to {FEED_PAGE_SIZE}")
        self._transport = transport
        self._filters = _filters(type, alpha)
        self._page_size = page_size
        self.cursor: str | None = after

    def __repr__(self) -> str:
        return f"EventFeed(cursor={self.cursor!r}, filters={self._filters!r})"

    def __iter__(self) -> Iterator[Event]:
        while True:
            params = {**self._filters, "limit": str(self._page_size)}
            if self.cursor is not None:
                params["after"] = self.cursor
            page = self._transport.get_json(FEED_PATH, params, _Page)
            for event in page.data:
                self.cursor = event.id
                yield event
            if page.meta.next_cursor:
                self.cursor = page.meta.next_cursor
            if not page.pagination.has_more:
                return

    def to_list(self) -> list[Event]:
        return list(self)


# -- the stream -----------------------------------------------------------------------------------


@dataclass
class _Message:
    """One Server-Sent Event as the HTML standard parses it."""

    id: str | None = None
    event: str | None = None
    data: list[str] = field(default_factory=list)
    retry: int | None = None

    @property
    def empty(self) -> bool:
        return self.id is None and self.event is None and not self.data and self.retry is None


def parse_sse(lines: Iterable[str], on_comment: Callable[[str], None] | None = None) -> Iterator[_Message]:
    """The messages of a `text/event-stream` body, given its lines: fields `id`, `event`, `data`
    (several joined by newlines) and `retry`, a message ending at a blank line; comment lines
    (`: heartbeat`) go to `on_comment`."""
    message = _Message()
    for line in lines:
        if line == "":
            if not message.empty:
                yield message
            message = _Message()
            continue
        if line.startswith(":"):
            if on_comment is not None:
                on_comment(line[1:].strip())
            continue
        name, colon, value = line.partition(":")
        value = value.removeprefix(" ") if colon else ""
        if name == "data":
            message.data.append(value)
        elif name == "event":
            message.event = value
        elif name == "id" and "\0" not in value:
            message.id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            message.retry = int(value)


class EventStream:
    """The events the key may see as the server records them (`GET /v1/events/stream`), one
    `Event` per iteration, for as long as it is iterated.

    The connection is reopened by itself when it drops, when the server stops it (a restart), or
    when it stays silent past `read_timeout` (the server sends a heartbeat every 15 s by
    default), with the id of the last event (or the stream's opening id) as `Last-Event-ID`: no
    event is missed and none is repeated. A failure that retrying cannot mend (a revoked key,
    an endpoint not allowed, a bad parameter) raises its `ApiError`; a rate limit waits its
    `Retry-After`; `max_failures` consecutive failed connections (None: no limit) raise
    `TransportError`. `close()` (from any thread) ends the iteration.

    `last_event_id` is the id to resume after; `heartbeats` counts the heartbeats received."""

    def __init__(
        self,
        transport: Transport,
        last_event_id: str | None,
        after: str | None,
        type: str | Iterable[str] | None,
        alpha: str | Iterable[str] | None,
        *,
        read_timeout: float = STREAM_READ_TIMEOUT,
        max_failures: int | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self._transport = transport
        self._filters = _filters(type, alpha)
        self._after = after
        self._read_timeout = read_timeout
        self._max_failures = max_failures
        self._closed = threading.Event()
        self._sleep = sleep or self._closed.wait
        self._response: httpx.Response | None = None
        self._retry_seconds = 2.0
        self.last_event_id = last_event_id
        self.heartbeats = 0
        self.connections = 0
        """Connections opened so far (1 plus the reconnections)."""
        self._events = self._run()

    def __repr__(self) -> str:
        return f"EventStream(last_event_id={self.last_event_id!r}, filters={self._filters!r})"

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> Event:
        return next(self._events)

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the stream: the connection is closed and iteration stops."""
        self._closed.set()
        response = self._response
        if response is not None:
            response.close()

    def _request(self) -> tuple[dict[str, str], dict[str, str]]:
        params = dict(self._filters)
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        elif self._after is not None:
            params["after"] = self._after
        return params, headers

    def _run(self) -> Iterator[Event]:
        failures = 0
        transport = self._transport
        timeout = httpx.Timeout(transport.http.timeout.connect, read=self._read_timeout)
        while not self._closed.is_set():
            params, headers = self._request()
            transport.refuse_token_in_url(STREAM_PATH, params)
            failure: str | None = None
            wait = 0.0
            try:
                transport.pacer.wait()
                with transport.http.stream(
                    "GET", STREAM_PATH, params=params, headers=headers, timeout=timeout
                ) as response:
                    self._response = response
                    self.connections += 1
                    transport.pacer.observe(response.headers)
                    if response.status_code >= 400:
                        response.read()
                        error = transport.error_of(response)
                        wait = self._wait_after(error)  # raises what waiting cannot mend
                        failure = str(error)
                    else:
                        failures = 0
                        yield from self._messages(response)
                        # The server ended the stream (it is stopping): come back as it asked.
                        wait = self._retry_seconds * (0.5 + random.random() / 2)
            except (httpx.TransportError, httpx.StreamError) as exc:
                if self._closed.is_set():
                    return
                failure = transport.redact(str(exc)) or type(exc).__name__
            finally:
                self._response = None
            if failure is not None:
                failures += 1
                if self._max_failures is not None and failures >= self._max_failures:
                    raise TransportError(f"GET {STREAM_PATH}: {failure} (after {failures} attempt(s))")
                wait = wait or random.random() * transport.retry.backoff_ceiling(failures)
            if not self._closed.is_set():
                self._sleep(wait)

    def _wait_after(self, error: ApiError) -> float:
        """How long to wait before connecting again after `error` (0: the backoff's), or raise it
        when waiting cannot mend it."""
        if isinstance(error, RateLimitedError):
            wait = error.retry_after if error.retry_after is not None else 1.0
            if wait <= self._transport.retry.max_rate_limit_wait:
                return wait + random.random()
            raise error
        if error.retryable:
            return min(error.retry_after, self._transport.retry.backoff_max) if error.retry_after else 0.0
        raise error

    def _messages(self, response: httpx.Response) -> Iterator[Event]:
        for message in parse_sse(response.iter_lines(), self._heartbeat):
            if message.retry is not None:
                self._retry_seconds = message.retry / 1000
            if message.event is not None and message.data:
                event = decode_event("\n".join(message.data))
                self.last_event_id = message.id or event.id
                yield event
            elif message.id is not None:
                self.last_event_id = message.id  # where the stream starts: resume from here

    def _heartbeat(self, comment: str) -> None:
        if comment == "heartbeat":
            self.heartbeats += 1


# -- webhooks -------------------------------------------------------------------------------------


class WebhookSignatureError(AlphaResultsError):
    """A webhook delivery whose `Alpha-Results-Signature` does not prove it came from the service
    now: malformed, signed with another secret, over another body, or too old (a replay).
    `reason` says which."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def webhook_signature(secret: str | bytes, timestamp: int, body: bytes) -> str:
    """The `v1` signature of a delivery: hex HMAC-SHA256, keyed by the secret (UTF-8), of
    `f"{timestamp}."` followed by the body's bytes."""
    key = secret.encode() if isinstance(secret, str) else bytes(secret)
    return hmac.new(key, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def verify_webhook_signature(
    secret: str | bytes,
    header: str,
    body: bytes | bytearray | memoryview,
    tolerance_seconds: float = SIGNATURE_TOLERANCE_SECONDS,
    now: float | None = None,
) -> int:
    """Check a webhook delivery's `Alpha-Results-Signature` header, `t=<unix seconds>,v1=<hex>`
    (several `v1=` while the secret is being rotated; any one may match), against the body as
    received (its bytes, before any JSON parsing). Returns the signed timestamp; raises
    `WebhookSignatureError` when no `v1` matches (compared in constant time) or when the timestamp
    is more than `tolerance_seconds` away from `now` (default: the clock), which refuses a replayed
    delivery. Decode the body afterwards with `decode_event(body)`."""
    if not isinstance(body, bytes | bytearray | memoryview):
        raise TypeError("verify the body's bytes as received, not text or parsed JSON")
    timestamps, signatures = [], []
    for part in header.split(","):
        name, equals, value = part.strip().partition("=")
        if not equals:
            continue
        if name == "t":
            timestamps.append(value.strip())
        elif name == "v1":
            signatures.append(value.strip().lower())
    if len(timestamps) != 1 or not timestamps[0].isascii() or not timestamps[0].isdigit():
        raise WebhookSignatureError(
            f"{SIGNATURE_HEADER} must hold one t=<unix seconds>; got {header[:100]!r}", "malformed"
        )
    if not signatures:
        raise WebhookSignatureError(f"{SIGNATURE_HEADER} holds no v1= signature", "malformed")
    timestamp = int(timestamps[0])
    expected = webhook_signature(secret, timestamp, bytes(body))
    # Every signature is compared, each in constant time: which one matched leaks nothing either.
    matched = [hmac.compare_digest(expected, signature) for signature in signatures]
    if not any(matched):
        raise WebhookSignatureError(
            "no v1 signature matches this secret and body (another secret, or a body changed on the way)",
            "mismatch",
        )
    skew = (time.time() if now is None else now) - timestamp
    if abs(skew) > tolerance_seconds:
        when = f"{skew:.0f} s old" if skew > 0 else f"{-skew:.0f} s in the future"
        raise WebhookSignatureError(
            f"the signature's timestamp is {when}, beyond the tolerance of {tolerance_seconds:g} s", "expired"
        )
    return timestamp
