"""The slow-client budget (issue 48, items 1 and 2): what a client sending or reading at its own pace
may hold of a worker, beyond the connection limits of `serve.http_protocol` (docs/security.md,
"Slow clients"; the limits are settings, docs/settings.md).

- **A request body arrives in time.** Two surfaces read a body, `/mcp` and Delta Sharing's `query`
  (every other request announcing one is answered without it and its connection closed:
  serve/http_protocol.py). A body has `request_body_timeout_seconds` from the request's start, plus
  one second for every `request_body_min_bytes_per_second` bytes of it received (Apache's
  mod_reqtimeout `body=10,MinRate=1024`): a body that stops is cut, one trickled below the floor
  falls behind and is cut, and a large body arriving above the floor is never cut. Then 408
  `request_body_timeout`, raised from `receive` so that each surface answers in its own error shape
  (MCP a JSON-RPC error, Delta Sharing the protocol's body), and the connection is closed (the
  protocol closes every connection whose request announced a body once it is answered). Before, a
  body that stopped (`Content-Length: 100` and one byte) held its connection for ever, and 4 x 128
  of them from four addresses filled a worker's 512 places: `/v1/health` answered 503 to everyone.
  The deadline applies until the answer begins: a body still arriving after that can no longer be
  refused, and is bounded by the answer. A route whose answer never ends (the event stream,
  `HOLDS_OPEN`) reads any body it was sent whole before it answers, under the same deadline: a
  trickled one is 408 like the others'.
- **Bodies still arriving, per key and per account.** Both surfaces read a body only once the key
  is known, so a worker reads at most `max_request_bodies_per_key` bodies of one key at once, and
  `max_request_bodies_per_account` of one account's keys; the next is 429
  `too_many_request_bodies` before a byte of it is read. Without it one key stalling bodies from
  four addresses still held every place until their deadlines, again and again. A body that
  arrives with its head holds its place for no time at all.
- **Open event streams, per key and per account.** A stream holds its connection for as long as
  the client keeps it: one key opened 4 x 128 of them and every other client got 503. A worker
  holds at most `max_streams_per_key` streams of one key and `max_streams_per_account` of one
  account's keys; the next is 429 `too_many_streams` (serve/routes/events.py).

**Per worker, not shared.** What the caps protect is each worker's own connection places (and its
descriptors), so each worker counts its own: a key holds at most the cap in each worker, workers x
the cap in all. A count shared through Redis would have to outlive a worker killed with streams
open (leases renewed while a stream lives), and would bound nothing that a worker's places need.

**Held until the request ends.** A place is given back when its request's ASGI call returns,
however it ends (answered, cut by the deadline, the client gone, an exception), by the one-pass
layer every request passes (serve/front.py, whose `Cycle` also reads the body under its deadline): a stream whose client leaves before its body's first byte is never iterated, so a release
in the stream's own code would leak its place. Everything here runs on the worker's event loop:
no lock is needed.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from litestar.types import Scope

from core import errors
from core.context import Caller
from core.settings import Settings
from serve.exchange import exchange_of

log = logging.getLogger("serve.http")

HOLDS_OPEN = "holds_open"
"""A route option: its answer stays open as long as the client keeps it (the event stream). Such a
route has any body it was sent read whole first, under the body deadline (`Front.dispatch`): a body
still arriving once its answer began would never be cut, since the answer never ends (issue 81,
item 8: a stream asked for with a trickled body held its connection with no 408)."""

RETRY_AFTER_SECONDS = 10
"""`Retry-After` of the two 429s: a place frees when one of the key's own requests ends, which the
server cannot foresee; 10 s keeps a client that waits as told to six tries a minute."""


@dataclass(frozen=True)
class Caps:
    per_key: int
    per_account: int


class Places:
    """How many requests of one kind (open streams, bodies still arriving) each key and each
    account holds in this worker, under its caps."""

    def __init__(self, what: str, refusal: type[errors.ApiError]) -> None:
        self.what = what  # "open event streams", "request bodies still arriving"
        self.refusal = refusal
        self.per_key: Counter[str] = Counter()
        self.per_account: Counter[str] = Counter()

    def take(self, caller: Caller, caps: Caps) -> Callable[[], None]:
        """A place for the caller's request, and what gives it back (once, however often it is
        called); the refusal when its key or its account holds its cap."""
        for counts, name, cap, per in (
            (self.per_key, caller.key_id, caps.per_key, "key"),
            (self.per_account, caller.user_id, caps.per_account, "account"),
        ):
            if counts[name] >= cap:
                log.info("refused a request of key %s: %d %s held per %s", caller.key_id, cap, self.what, per)
                holder = "This key" if per == "key" else "This key's account"
                raise self.refusal(
                    f"{holder} holds {cap:,} {self.what} on this server process, the most it may; "
                    f"retry once one of them has ended.",
                    details={"limit": cap, "per": per},
                    headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                )
        self.per_key[caller.key_id] += 1
        self.per_account[caller.user_id] += 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                for counts, name in ((self.per_key, caller.key_id), (self.per_account, caller.user_id)):
                    counts[name] -= 1
                    if not counts[name]:
                        del counts[name]  # the counters hold only the keys and accounts holding some

        return give_back


STREAMS = Places("open event streams", errors.TooManyStreams)
BODIES = Places("request bodies still arriving", errors.TooManyRequestBodies)
"""This worker's counts (the caps are the app's settings, read at each `take`)."""


def hold_stream(scope: Scope, caller: Caller, settings: Settings) -> None:
    """A place among the caller's open streams for this request, held until it ends; else 429."""
    caps = Caps(settings.max_streams_per_key, settings.max_streams_per_account)
    exchange_of(scope).held.append(STREAMS.take(caller, caps))


@dataclass(frozen=True)
class BodyLimits:
    timeout_seconds: float
    min_bytes_per_second: int
    caps: Caps

    @classmethod
    def of(cls, settings: Settings) -> BodyLimits:
        return cls(
            settings.request_body_timeout_seconds,
            settings.request_body_min_bytes_per_second,
            Caps(settings.max_request_bodies_per_key, settings.max_request_bodies_per_account),
        )


def body_timeout(limits: BodyLimits, received: int) -> errors.ApiError:
    came = f"{received:,} byte{'' if received == 1 else 's'}"
    return errors.RequestBodyTimeout(
        f"The request body did not arrive in time ({came} of it came): a body has "
        f"{limits.timeout_seconds:g} s, and 1 s more for every {limits.min_bytes_per_second:,} bytes "
        "that arrive.",
        details={
            "limit_seconds": limits.timeout_seconds,
            "min_bytes_per_second": limits.min_bytes_per_second,
            "received_bytes": received,
        },
    )
