"""Redis limiter: exact across worker processes and machines, one round trip per request.

All four counters of a request are checked and incremented by one Lua script, which Redis runs
atomically, so concurrent requests from any number of processes can never admit more than the
limit. Keys are `{prefix}:{key_id}:{window}:{window_start_epoch}` (prefix `ar:rl`) and expire
shortly after their window ends.
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError, RedisError
from redis.retry import Retry

from serve.limits.model import Counts, Limiter, LimiterUnavailable, Limits
from serve.limits.windows import Window, as_utc

DEFAULT_KEY_PREFIX = "ar:rl"
DEFAULT_TIMEOUT_SECONDS = 0.25
# Counters outlive their window a little so a server whose clock lags the others still finds them.
EXPIRY_GRACE_SECONDS = 60

# KEYS[1..4]: second, minute, day, month counters.
# ARGV[1..4]: limits in the same order, -1 for none; ARGV[5..8]: expiry in seconds per counter.
# Returns {exceeded window index (1..4) or 0 when admitted, count1, count2, count3, count4}.
ADMIT_SCRIPT = """
local counts = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
for i = 1, 4 do
  counts[i] = tonumber(counts[i]) or 0
end
for i = 1, 4 do
  local limit = tonumber(ARGV[i])
  if limit >= 0 and counts[i] >= limit then
    return {i, counts[1], counts[2], counts[3], counts[4]}
  end
end
for i = 1, 4 do
  counts[i] = redis.call('INCR', KEYS[i])
  if counts[i] == 1 then
    redis.call('EXPIRE', KEYS[i], ARGV[4 + i])
  end
end
return {0, counts[1], counts[2], counts[3], counts[4]}
"""
ADMIT_SCRIPT_SHA = hashlib.sha1(ADMIT_SCRIPT.encode()).hexdigest()


class RedisLimiter(Limiter):
    def __init__(
        self,
        url: str,
        *,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    ) -> None:
        self._prefix = key_prefix
        # No retries: a retried script after a read timeout could count one request twice, and
        # a dead Redis must answer within one timeout, not after a backoff ladder.
        self._client = redis.Redis.from_url(
            url,
            socket_connect_timeout=timeout_seconds,
            socket_timeout=timeout_seconds,
            retry=Retry(NoBackoff(), 0),
            retry_on_timeout=False,
        )
        kwargs = self._client.connection_pool.connection_kwargs
        # Named without the password so the address can appear in errors and logs.
        self._where = f"redis {kwargs.get('host', kwargs.get('path', '?'))}:{kwargs.get('port', '')}"

    def key_name(self, key_id: str, window: Window) -> str:
        return f"{self._prefix}:{key_id}:{window.name}:{window.start_epoch}"

    def ping(self) -> None:
        self._call(self._client.ping)

    def close(self) -> None:
        self._client.close()

    def _admit(
        self, key_id: str, limits: Limits, windows: tuple[Window, ...], now: datetime
    ) -> tuple[Counts, int | None]:
        keys = [self.key_name(key_id, w) for w in windows]
        limit_args = [-1 if limit is None else limit for limit in limits.as_tuple()]
        utc = as_utc(now)
        expiries = [math.ceil((w.reset - utc).total_seconds()) + EXPIRY_GRACE_SECONDS for w in windows]
        reply = self._call(self._run_admit_script, keys, [*limit_args, *expiries])
        exceeded_position, *counts = (int(value) for value in reply)
        second, minute, day, month = counts
        return (second, minute, day, month), (exceeded_position - 1 if exceeded_position else None)

    def _run_admit_script(self, keys: list[str], args: list[int]) -> Any:
        try:
            return self._client.evalsha(ADMIT_SCRIPT_SHA, len(keys), *keys, *args)
        except NoScriptError:
            # First call after a Redis restart or flush: EVAL runs it and caches it for EVALSHA.
            return self._client.eval(ADMIT_SCRIPT, len(keys), *keys, *args)

    def _read(self, key_id: str, windows: tuple[Window, ...]) -> Counts:
        values = self._call(self._client.mget, [self.key_name(key_id, w) for w in windows])
        second, minute, day, month = (int(value) if value is not None else 0 for value in values)
        return (second, minute, day, month)

    def _call(self, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except RedisError as error:
            raise LimiterUnavailable(f"rate limiter store unavailable ({self._where}): {error}") from error
