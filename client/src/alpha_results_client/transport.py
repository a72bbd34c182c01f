"""One httpx client, and the rules for each request: pacing, retries, and turning failures into
typed exceptions.

Every request is a GET, so every retry is safe. What is retried, and how long the client waits,
is the `RetryPolicy` (config.py); a permanent error raises at the first answer.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import msgspec

from alpha_results_client._auth import BearerToken, redact
from alpha_results_client._envelope import ERROR_CLASSES, ErrorEnvelope
from alpha_results_client._version import __version__
from alpha_results_client.config import RetryPolicy, Timeouts
from alpha_results_client.exceptions import (
    STATUS_FAMILIES,
    ApiError,
    RateLimitedError,
    TransportError,
    UnexpectedResponseError,
)
from alpha_results_client.frames import require
from alpha_results_client.ratelimit import Pacer, retry_after_seconds

log = logging.getLogger("alpha_results_client")

T = TypeVar("T")
GATEWAY_STATUSES = frozenset({502, 503, 504})
"""Answered by a proxy in front of the API rather than by the API: transient when not our JSON."""
RATE_LIMIT_JITTER = 0.25
"""Seconds of jitter added to a `Retry-After`, so clients refused together do not return together."""
ARROW_STREAM = "application/vnd.apache.arrow.stream"


@dataclass(frozen=True)
class ArrowPage:
    """One collection page as an Arrow IPC stream: its rows as a `pyarrow.Table`, and the
    envelope's `pagination` and `meta`, typed as the JSON page types them."""

    table: Any
    pagination: Any
    meta: Any


class ArrowNotServed(Exception):
    """The server answered a page asked for as Arrow with JSON: a server older than the
    representations (`Transport.serves_arrow` is then False for the client's life)."""


class Transport:
    serves_arrow: bool | None = None
    """Whether the server answers pages as Arrow: None until a page was asked for as Arrow."""

    def __init__(
        self,
        base_url: str,
        token: str | None,
        *,
        timeouts: Timeouts,
        retry: RetryPolicy,
        http_transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.base_url = base_url
        self.retry = retry
        self._auth = BearerToken(token, base_url) if token else None
        self._sleep = sleep
        self._jitter = jitter
        self.pacer = Pacer(sleep=sleep)
        self.http = httpx.Client(
            base_url=base_url,
            auth=self._auth,
            timeout=timeouts.to_httpx(),
            headers={"User-Agent": f"alpha-results-client/{__version__}", "Accept": "application/json"},
            transport=http_transport,
        )

    def __repr__(self) -> str:
        return f"Transport({self.base_url!r}, token={'set' if self._auth else 'none'})"

    def close(self) -> None:
        self.http.close()

    def redact(self, text: str) -> str:
        return redact(text, self._auth)

    # -- requests ------------------------------------------------------------------------------

    def refuse_token_in_url(self, path: str, params: Mapping[str, str]) -> None:
        """A token in a URL lands in proxy and server logs (and httpx's own log line), so a path
        or parameter holding it is refused here, as the server refuses it (docs/access.md)."""
        for text in (path, *params.values()):
            if self.redact(text) != text:
                raise ValueError("refused: the request would carry the API token in its URL")

    def get_json(self, path: str, params: Mapping[str, str], response_type: type[T]) -> T:
        """GET `path` on the API and decode its 200 body as `response_type`."""
        self.refuse_token_in_url(path, params)
        response = self.send(lambda: self.http.get(path, params=params), path)
        try:
            return msgspec.json.decode(response.content, type=response_type)
        except msgspec.ValidationError as exc:
            request_id = response.headers.get("x-request-id")
            raise UnexpectedResponseError(
                f"GET {path}: the body does not match {response_type.__name__} ({exc}); "
                f"is the client older than the server? (request_id {request_id})"
            ) from None
        except msgspec.DecodeError:
            raise UnexpectedResponseError(f"GET {path}: the answer is not JSON") from None

    def get_arrow(self, path: str, params: Mapping[str, str], page_type: type[Any]) -> ArrowPage:
        """GET the collection page `path` as an Arrow IPC stream (needs pyarrow). The server puts
        the JSON envelope's `pagination` and `meta` in the schema's metadata, as JSON text; they
        are decoded with the JSON page's type `page_type`, so they are the objects a JSON page has."""
        ipc = require("pyarrow.ipc")
        self.refuse_token_in_url(path, params)
        headers = {"Accept": ARROW_STREAM}
        response = self.send(lambda: self.http.get(path, params=params, headers=headers), path)
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media == "application/json" and self.serves_arrow is None:
            self.serves_arrow = False
            raise ArrowNotServed(path)
        self.serves_arrow = True
        try:
            if media != ARROW_STREAM:
                raise ValueError(f"a {media or 'untyped'} body")
            table = ipc.open_stream(response.content).read_all()
            metadata = table.schema.metadata or {}
            envelope = b'{"data":[],"pagination":%s,"meta":%s}' % (metadata[b"pagination"], metadata[b"meta"])
            page = msgspec.json.decode(envelope, type=page_type)
        except (ValueError, KeyError, msgspec.DecodeError) as exc:  # ArrowInvalid is a ValueError
            request_id = response.headers.get("x-request-id")
            raise UnexpectedResponseError(
                f"GET {path}: not an Arrow page of {page_type.__name__} ({exc}); "
                f"is the server older than the client? (request_id {request_id})"
            ) from None
        return ArrowPage(table, page.pagination, page.meta)

    def fetch_signed(self, url: str, on_chunk: Callable[[int], None] | None = None) -> bytes:
        """GET a signed download URL, streamed (`on_chunk` is told each chunk's size). The URL is
        the credential: no token is sent with it."""
        self.refuse_token_in_url(url, {})
        where = httpx.URL(url).copy_with(query=None)  # the signature stays out of logs and errors
        body = bytearray()

        def request() -> httpx.Response:
            body.clear()
            with self.http.stream("GET", url, auth=None, headers={"Accept": "*/*"}) as response:
                if response.status_code >= 400:
                    response.read()  # the error envelope, for error_of
                    return response
                for chunk in response.iter_bytes():
                    body.extend(chunk)
                    if on_chunk is not None:
                        on_chunk(len(chunk))
            return response

        self.send(request, str(where))
        return bytes(body)

    def send(self, request: Callable[[], httpx.Response], what: str) -> httpx.Response:
        """Send `request` until it succeeds, a permanent error is answered, or the policy gives up."""
        attempt = 0
        rate_limit_waits = 0
        while True:
            self.pacer.wait()
            attempt += 1
            try:
                response = request()
            except httpx.TransportError as exc:
                failure = f"GET {what}: {type(exc).__name__}: {self.redact(str(exc)) or 'no detail'}"
                if not self.retry.retry_transport_errors or attempt >= self.retry.max_attempts:
                    raise TransportError(f"{failure} (after {attempt} attempt(s))") from None
                self._back_off(attempt, None, failure)
                continue
            self.pacer.observe(response.headers)
            log.debug("GET %s -> %s", what, response.status_code)
            if response.status_code < 400:
                return response
            error = self.error_of(response)
            if isinstance(error, RateLimitedError) and self._may_wait_for(error, rate_limit_waits):
                rate_limit_waits += 1
                attempt -= 1  # waiting out a window is not a failed attempt
                delay = (error.retry_after or 1.0) + self._jitter() * RATE_LIMIT_JITTER
                log.info("GET %s: %s; waiting %.1f s as Retry-After asks", what, error.code, delay)
                self.pacer.hold_until(delay)
                continue
            if error.retryable and attempt < self.retry.max_attempts:
                self._back_off(attempt, error.retry_after, f"GET {what}: {error}")
                continue
            raise error

    def _may_wait_for(self, error: RateLimitedError, waits: int) -> bool:
        wait = error.retry_after if error.retry_after is not None else 1.0
        return wait <= self.retry.max_rate_limit_wait and waits < self.retry.max_rate_limit_waits

    def _back_off(self, attempt: int, retry_after: float | None, failure: str) -> None:
        """Full jitter: a uniform wait below the capped exponential ceiling; a server's (or a
        proxy's) `Retry-After` on a 503 sets the wait instead, within `backoff_max`."""
        if retry_after is not None:
            delay = min(retry_after, self.retry.backoff_max)
        else:
            delay = self._jitter() * self.retry.backoff_ceiling(attempt)
        log.info(
            "%s; retrying in %.2f s (attempt %d of %d)", failure, delay, attempt + 1, self.retry.max_attempts
        )
        self._sleep(delay)

    # -- failures ------------------------------------------------------------------------------

    def error_of(self, response: httpx.Response) -> ApiError:
        """The typed exception of a failed response (its code's class, else its status's)."""
        retry_after = retry_after_seconds(response.headers)
        request_id = response.headers.get("x-request-id")
        try:
            body = msgspec.json.decode(response.content, type=ErrorEnvelope).error
        except (msgspec.ValidationError, msgspec.DecodeError):
            cls = STATUS_FAMILIES.get(response.status_code, ApiError)
            error = cls(
                f"HTTP {response.status_code} without the API's error envelope (a proxy in between?)",
                code=f"http_{response.status_code}",
                status=response.status_code,
                request_id=request_id,
                retry_after=retry_after,
            )
            error.retryable = response.status_code in GATEWAY_STATUSES
            return error
        cls = ERROR_CLASSES.get(body.code) or STATUS_FAMILIES.get(response.status_code, ApiError)
        return cls(
            self.redact(body.message),
            code=body.code,
            status=response.status_code,
            details=self._redacted(body.details),
            request_id=body.request_id or request_id,
            retry_after=retry_after,
        )

    def _redacted(self, details: dict[str, Any]) -> dict[str, Any]:
        if self._auth is None or not details:
            return details
        text = msgspec.json.encode(details).decode()
        cleaned = self.redact(text)
        return details if cleaned == text else dict(msgspec.json.decode(cleaned))
