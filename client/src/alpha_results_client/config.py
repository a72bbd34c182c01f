"""What a caller may tune: timeouts, the retry policy, page size, and where the token comes from."""

from __future__ import annotations

import os

import httpx
import msgspec

TOKEN_VARIABLE = "ALPHA_RESULTS_TOKEN"
URL_VARIABLE = "ALPHA_RESULTS_URL"
MAX_PAGE_SIZE = 5000
"""The server's largest `limit`: the fewer pages, the fewer metered requests."""


class Timeouts(msgspec.Struct, frozen=True, kw_only=True):
    """Seconds, per request attempt (httpx's four timeouts)."""

    connect: float = 5.0
    read: float = 60.0
    """A 5,000-row page of the decision record is a few MB; a slow link needs time."""
    write: float = 10.0
    pool: float = 10.0

    def to_httpx(self) -> httpx.Timeout:
        return httpx.Timeout(connect=self.connect, read=self.read, write=self.write, pool=self.pool)


class RetryPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """When and how long the client waits and tries again.

    - 503 with a transient code (`upstream_unavailable`, `benchmark_unavailable`,
      `source_download_unavailable`, `export_download_unavailable`), a 503 that is not this API's
      JSON, and connection failures and timeouts: capped exponential backoff with full jitter,
      `uniform(0, min(backoff_max, backoff_initial * 2**attempt))`, or the server's `Retry-After`
      when it sends one, at most `max_attempts` attempts in all.
    - 429: wait `Retry-After` (plus a little jitter) and try again, up to `max_rate_limit_waits`
      times for one request, while the wait is at most `max_rate_limit_wait`; a longer one (a day
      window or the monthly quota) raises at once: no client should sleep until tomorrow unasked.
      Waiting out a window is not a failed attempt.
    - Every other error code is permanent and raises at once.
    """

    max_attempts: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    max_rate_limit_wait: float = 120.0
    max_rate_limit_waits: int = 20
    retry_transport_errors: bool = True

    def backoff_ceiling(self, attempt: int) -> float:
        """The upper bound of the jittered wait after failed attempt number `attempt` (from 1)."""
        return float(min(self.backoff_max, self.backoff_initial * 2 ** (attempt - 1)))


NO_RETRIES = RetryPolicy(max_attempts=1, max_rate_limit_waits=0, retry_transport_errors=False)


def resolve_token(token: str | None) -> str | None:
    """The token given, else `ALPHA_RESULTS_TOKEN`; None when neither (public routes still work)."""
    if token is None:
        token = os.environ.get(TOKEN_VARIABLE)
    token = token.strip() if token else None
    return token or None


def resolve_base_url(base_url: str | None) -> str:
    base_url = base_url or os.environ.get(URL_VARIABLE)
    if not base_url:
        raise ValueError(f"no base URL: pass Client(base_url) or set {URL_VARIABLE}")
    return base_url.rstrip("/")
