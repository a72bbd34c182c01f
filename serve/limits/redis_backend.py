"""Redis limiter: exact across worker processes and machines, one round trip per request.

All four counters of a request are checked and incremented by one Lua script, which Redis runs
atomically, so concurrent requests from any number of processes can never admit more than the
limit; the same script checks and counts the account's pooled counters beside the key's (eight
counters, still one round trip). Keys are `{prefix}:{key_id}:{window}:{window_start_epoch}`
(prefix `ar:rl`; a pooled id in the place of a key id) and expire shortly after their window ends. The script raises a day or month counter that is below the
ledger's count to it first, which is how a restarted Redis gets its quotas back.

When Redis fails (refused, timed out), the limiter enforces the limits locally (`OutageLimits`)
and asks Redis again no sooner than `RETRY_SECONDS` later, so a dead or frozen Redis costs at most
one timeout per worker per `RETRY_SECONDS`, not one per request.

The request path (`hit_async`) sends the script with redis-py's asyncio client on the worker's
event loop: no worker thread, one round trip. Only what reads or writes the usage ledger (a
floor older than `FLOOR_SECONDS`, a counter Redis lost, the counting during an outage) leaves the
loop for a thread when the ledger is PostgreSQL. `hit` and `usage` (tests, `/v1/me/keys`, the
admin routes, in worker threads) use the synchronous client; both share every rule and all state.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

import redis
import redis.asyncio
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError, RedisError
from redis.retry import Retry

from serve.limits.ledger import UsageLedger
from serve.limits.model import Counts, Envelope, Exceeded, Limiter, LimiterUnavailable, exceeded_of, four
from serve.limits.outage import OutageLimits
from serve.limits.windows import LimitWindow, as_utc

log = logging.getLogger(__name__)

DEFAULT_KEY_PREFIX = "ar:rl"
DEFAULT_TIMEOUT_SECONDS = 0.08
"""Connect and read timeout: a frozen Redis adds at most this to the request that finds it."""
LOOP_TIMEOUT_SECONDS = 1.0
"""What one call of the asyncio client (the request path: connect, send, answer) may take. Its
timeout is kept by the event loop, which attends to a socket only between other requests' work:
on a busy worker an answer already in the socket was read past 0.08 s, and every such request
counted locally. The blocking client's timeouts are the kernel's, which sees the answer the moment
it arrives. A frozen Redis costs the requests awaiting it at that moment up to this, then one
request per `RETRY_SECONDS` (the rest count locally); the loop serves everything else meanwhile."""
RETRY_SECONDS = 0.5
"""After a failure, requests are counted locally for this long before Redis is asked again."""
# Counters outlive their window a little so a server whose clock lags the others still finds them.
EXPIRY_GRACE_SECONDS = 60

# One script for the request's envelopes (n = 1, the key's, or 2, the key's then its account's
# pooled one), each envelope four counters.
# KEYS[4e+1..4e+4]: envelope e's second, minute, day and month counters (e = 0 .. n-1).
# ARGV[4e+1..4e+4]: envelope e's limits in the same order, -1 for none;
# ARGV[4n+1..4n+4]: expiry in seconds per window (the same for every envelope);
# ARGV[4n+5+2e..4n+6+2e]: envelope e's ledger day and month counts, below which those counters
# never start; ARGV[6n+5]: 1 when those were just read from the ledger, 0 when they are the
# worker's copy.
# Counts the request in every counter only when no envelope's window is full. Returns {0 when
# admitted or 1 when refused, then every counter's count (after the request when admitted)}, or
# {-1} when a day or month counter is missing (a Redis restarted empty, or a new day or month) and
# the floors are a copy: the caller reads the ledger afresh and runs the script again.
ADMIT_SCRIPT = """
local n = #KEYS / 4
local counts = redis.call('MGET', unpack(KEYS))
if ARGV[6 * n + 5] == '0' then
  for e = 0, n - 1 do
    if not counts[4 * e + 3] or not counts[4 * e + 4] then
      return {-1}
    end
  end
end
for i = 1, 4 * n do
  counts[i] = tonumber(counts[i]) or 0
end
for e = 0, n - 1 do
  for w = 3, 4 do
    local floor = tonumber(ARGV[4 * n + 2 * e + w + 2])
    if counts[4 * e + w] < floor then
      counts[4 * e + w] = floor
      redis.call('SET', KEYS[4 * e + w], floor, 'EX', ARGV[4 * n + w])
    end
  end
end
for i = 1, 4 * n do
  local limit = tonumber(ARGV[i])
  if limit >= 0 and counts[i] >= limit then
    table.insert(counts, 1, 1)
    return counts
  end
end
for i = 1, 4 * n do
  counts[i] = redis.call('INCR', KEYS[i])
  if counts[i] == 1 then
    redis.call('EXPIRE', KEYS[i], ARGV[4 * n + (i - 1) % 4 + 1])
  end
end
table.insert(counts, 1, 0)
return counts
"""
ADMIT_SCRIPT_SHA = hashlib.sha1(ADMIT_SCRIPT.encode()).hexdigest()


class RedisLimiter(Limiter):
    def __init__(
        self,
        url: str,
        *,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
        ledger: UsageLedger | None = None,
    ) -> None:
        super().__init__(ledger)
        self._prefix = key_prefix
        self._outage = OutageLimits(self.floors)
        self._down_since: float | None = None
        self._state_lock = threading.Lock()  # `_down_since`: one probe per retry interval
        self._trip_lock = threading.Lock()
        # key_id -> the windows and counts of the last answer Redis gave this worker for the key:
        # what the sync writes to the ledger, and where local counting starts when Redis fails.
        self._seen: dict[str, tuple[tuple[LimitWindow, ...], Counts]] = {}
        # The event loop's client waits longer: see LOOP_TIMEOUT_SECONDS.
        self._url, self._loop_timeout = url, max(timeout_seconds, LOOP_TIMEOUT_SECONDS)
        # No retries: a retried script after a read timeout could count one request twice, and
        # a dead Redis must answer within one timeout, not after a backoff ladder.
        self._client = redis.Redis.from_url(
            url,
            socket_connect_timeout=timeout_seconds,
            socket_timeout=timeout_seconds,
            retry=Retry(NoBackoff(), 0),
            retry_on_timeout=False,
        )
        # The asyncio client of the event loop that last used it (its connections belong to it).
        self._async_client: redis.asyncio.Redis | None = None
        self._async_loop: asyncio.AbstractEventLoop | None = None
        kwargs = self._client.connection_pool.connection_kwargs
        # Named without the password so the address can appear in errors and logs.
        self._where = f"redis {kwargs.get('host', kwargs.get('path', '?'))}:{kwargs.get('port', '')}"

    def key_name(self, key_id: str, window: LimitWindow) -> str:
        return self._name(key_id, window.name, window.start_epoch)

    def _name(self, key_id: str, window_name: str, start_epoch: int) -> str:
        return f"{self._prefix}:{key_id}:{window_name}:{start_epoch}"

    def ping(self) -> None:
        self._call(self._client.ping)

    @property
    def in_outage(self) -> bool:
        """Whether requests are being counted locally because Redis failed."""
        return self._down_since is not None

    def _release(self) -> None:
        self._client.close()

    async def detach(self) -> None:
        client, self._async_client, self._async_loop = self._async_client, None, None
        if client is not None:
            await client.aclose()

    def _loop_client(self) -> redis.asyncio.Redis:
        """The asyncio client of the running event loop (made on first use in each loop: a
        worker has one; a test may run apps on several loops in turn)."""
        loop = asyncio.get_running_loop()
        if self._async_client is None or self._async_loop is not loop:
            # No socket timeout: with one, redis-py runs every send in a task of its own
            # (`asyncio.wait_for`, about a fifth of the call's time); `_call_async` bounds the
            # whole call (connect, send, answer) with one timeout instead.
            self._async_client = redis.asyncio.Redis.from_url(
                self._url,
                socket_connect_timeout=self._loop_timeout,
                socket_timeout=None,
                # One reconnection on a connection error, never on a timeout: a Redis restarted
                # between two requests leaves every pooled connection broken, and the first use of
                # one must reach the new server (whose empty counters then start from the ledger
                # read afresh) rather than put the worker in an outage that the other workers leave
                # at other times, each counting the same quota in another place meanwhile. A dead
                # Redis refuses the second connection at once; a frozen one is not asked twice.
                retry=AsyncRetry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)),
                retry_on_timeout=False,
            )
            self._async_loop = loop
        return self._async_client

    async def _admit(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        if self._redis_usable():
            try:
                counted = await self._admit_in_redis(envelopes, windows, now)
            except LimiterUnavailable:
                await self._with_ledger(self._trip)
            else:
                self._recovered()
                return counted
        return await self._with_ledger(self._outage.admit, envelopes, windows, now)

    async def _admit_in_redis(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        """The script, one round trip on the event loop, for every envelope at once."""
        keys, args = self._script_arguments(envelopes, windows, now)
        day_start, month_start = windows[2].start_epoch, windows[3].start_epoch
        floors: list[int] = []
        unknown: list[str] = []
        for key_id, _ in envelopes:
            known = self.floors.known(key_id, day_start, month_start)
            if known is None:
                unknown.append(key_id)
            floors += known or (0, 0)
        if unknown:
            floors = await self._with_ledger(self._floors_now, envelopes, day_start, month_start, unknown)
        reply = await self._call_async(self._run_admit_script, keys, [*args, *floors, 0])
        if int(reply[0]) == -1:
            # A counter Redis does not hold starts from the ledger as it is now, not from a copy
            # up to FLOOR_SECONDS old (other workers' counts may have reached it since).
            ids = [key_id for key_id, _ in envelopes]
            fresh = await self._with_ledger(self._floors_now, envelopes, day_start, month_start, ids)
            reply = await self._call_async(self._run_admit_script, keys, [*args, *fresh, 1])
        return self._counted(envelopes, windows, reply)

    def _floors_now(
        self, envelopes: tuple[Envelope, ...], day_start: int, month_start: int, read: list[str]
    ) -> list[int]:
        """Each envelope's day and month floors, those of the ids in `read` read from the ledger
        now (one trip to a worker thread for all of them), the others the worker's copy."""
        floors: list[int] = []
        for key_id, _ in envelopes:
            if key_id in read:
                floors += self.floors.read_now(key_id, day_start, month_start)
            else:
                floors += self.floors.get(key_id, day_start, month_start)
        return floors

    def _script_arguments(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], now: datetime
    ) -> tuple[list[str], list[int]]:
        """The script's KEYS, and its ARGV up to the floors (the limits, then the expiries)."""
        keys = [self.key_name(key_id, w) for key_id, _ in envelopes for w in windows]
        limit_args = [
            -1 if limit is None else limit for _, limits in envelopes for limit in limits.as_tuple()
        ]
        epoch = as_utc(now).timestamp()  # to the microsecond near today: plenty for whole seconds
        expiries = [math.ceil(w.reset_epoch - epoch) + EXPIRY_GRACE_SECONDS for w in windows]
        return keys, [*limit_args, *expiries]

    def _counted(
        self, envelopes: tuple[Envelope, ...], windows: tuple[LimitWindow, ...], reply: Any
    ) -> tuple[tuple[Counts, ...], Exceeded | None]:
        values = [int(value) for value in reply]
        counts = tuple(four(values[1 + 4 * e : 5 + 4 * e]) for e in range(len(envelopes)))
        for (key_id, _), counted in zip(envelopes, counts, strict=True):
            self._seen[key_id] = (windows, counted)
        if not values[0]:
            return counts, None
        # The script refused on these very counts: the same rule names the envelope and window.
        return counts, exceeded_of(counts, [limits for _, limits in envelopes]) or (0, 0)

    async def _run_admit_script(self, keys: list[str], args: list[int]) -> Any:
        client = self._loop_client()
        try:
            return await client.evalsha(ADMIT_SCRIPT_SHA, len(keys), *keys, *args)
        except NoScriptError:
            return await client.eval(ADMIT_SCRIPT, len(keys), *keys, *args)

    def _egress_name(self, key_id: str, day_start: int) -> str:
        return f"{self._prefix}:{key_id}:egress:{day_start}"

    async def egress_add(self, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> None:
        """Add to the day of each of `key_ids` (the key's, its account's pooled id) in Redis, shared
        by every worker, in one transaction (one round trip), learning their totals; while Redis
        fails, counted in this worker (its day's totals then start from what it last knew)."""
        if self._redis_usable():
            try:
                totals = await self._call_async(self._egress_in_redis, key_ids, day_start, rows, size)
            except LimiterUnavailable:
                pass  # the request path's own call trips the outage; this count stays local
            else:
                self._egress_totals(key_ids, day_start, totals)
                return
        self._egress_add_here(key_ids, day_start, rows, size)

    def egress_add_sync(self, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> None:
        if self._redis_usable():
            try:
                pipe = self._client.pipeline(transaction=True)
                self._queue_egress(pipe, key_ids, day_start, rows, size)
                totals = self._call(pipe.execute)
            except LimiterUnavailable:
                pass
            else:
                self._egress_totals(key_ids, day_start, totals)
                return
        self._egress_add_here(key_ids, day_start, rows, size)

    async def _egress_in_redis(self, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> Any:
        pipe = self._loop_client().pipeline(transaction=True)
        self._queue_egress(pipe, key_ids, day_start, rows, size)
        return await pipe.execute()

    def _queue_egress(self, pipe: Any, key_ids: Sequence[str], day_start: int, rows: int, size: int) -> None:
        """Three commands per id: its rows, its bytes (each answering the day's total), its expiry."""
        for key_id in key_ids:
            name = self._egress_name(key_id, day_start)
            pipe.hincrby(name, "rows", rows)
            pipe.hincrby(name, "bytes", size)
            pipe.expire(name, 86_400 + EXPIRY_GRACE_SECONDS)

    def _egress_totals(self, key_ids: Sequence[str], day_start: int, totals: list[Any]) -> None:
        for index, key_id in enumerate(key_ids):
            self._egress_known(key_id, day_start, int(totals[3 * index]), int(totals[3 * index + 1]))

    def _read(self, key_id: str, windows: tuple[LimitWindow, ...]) -> Counts:
        if self._redis_usable():
            try:
                values = self._call(self._client.mget, [self.key_name(key_id, w) for w in windows])
            except LimiterUnavailable:
                self._trip()
            else:
                self._recovered()
                second, minute, day, month = (int(value) if value is not None else 0 for value in values)
                day_floor, month_floor = self.floor_of(key_id, windows)
                return (second, minute, max(day, day_floor), max(month, month_floor))
        return self._outage.read(key_id, windows)

    def _day_month_counts(self, touched: dict[str, tuple[int, int]]) -> list[tuple[str, int, int, int, int]]:
        # Redis's own answers: every admission this worker made is in them, with no round trip.
        rows = []
        for key_id, (day_start, month_start) in touched.items():
            seen = self._seen.get(key_id)
            if seen is not None and (seen[0][2].start_epoch, seen[0][3].start_epoch) == (
                day_start,
                month_start,
            ):
                rows.append((key_id, day_start, seen[1][2], month_start, seen[1][3]))
        return rows

    def _redis_usable(self) -> bool:
        """Whether to ask Redis: always, but for `RETRY_SECONDS` after a failure. The first request
        after that tries Redis itself (a Redis still frozen costs it one timeout, never two), with
        every floor read again from the ledger, where the other workers counted meanwhile; the
        requests that come while it waits count locally for another `RETRY_SECONDS` (on the event
        loop, many requests wait on Redis at once: one asks, not all)."""
        if self._down_since is None:
            return True
        with self._state_lock:
            down_since = self._down_since
            if down_since is None:
                return True
            now = time.monotonic()
            if now - down_since < RETRY_SECONDS:
                return False
            self._down_since = now
        self.floors.forget_all()
        return True

    def _recovered(self) -> None:
        if self._down_since is not None:
            self._down_since = None
            log.warning("rate limiter store reachable again (%s); counting in Redis", self._where)

    def _trip(self) -> None:
        # Held through the sync below: a request that failed at the same time waits for it, then
        # finds the outage begun (one warning, one sync), and counts locally from the ledger as
        # written, never from before it.
        with self._trip_lock:
            if self._down_since is None:
                log.warning(
                    "rate limiter store unavailable (%s); each worker enforces limits locally", self._where
                )
                self.outages += 1
                # Local counting starts from what Redis last said: the ledger gets the day and month
                # admitted since the last sync, the local windows the second and minute so far.
                for key_id, (windows, counts) in list(self._seen.items()):
                    self._outage.start_from(key_id, windows, counts)
                try:
                    self.sync()
                except Exception:
                    log.warning("usage counts could not be written to the key store; retrying")
            self._down_since = time.monotonic()

    def _call(self, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except RedisError as error:
            raise self._unavailable(error) from error

    async def _call_async(self, function: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        try:
            # A timeout cancels the call: redis-py then drops the connection (an answer that
            # comes later is never read as another command's).
            async with asyncio.timeout(self._loop_timeout):
                return await function(*args)
        except (
            RedisError,
            OSError,
        ) as error:  # OSError: TimeoutError, a socket failure redis-py did not wrap
            raise self._unavailable(error) from error

    def _unavailable(self, error: Exception) -> LimiterUnavailable:
        return LimiterUnavailable(f"rate limiter store unavailable ({self._where}): {error}")
