"""The worker is stopping: what answers that never end on their own (event streams) listen for.

uvicorn stops a worker by asking each connection to finish its answer and then waiting for every
connection to close; the app's own shutdown hooks run only after that. An answer that never ends
(an open `/v1/events/stream`) would keep its connection, and the worker, for ever. So the server's
protocol announces the stop here when uvicorn asks its connections to finish
(`serve.http_protocol.ServiceHttpProtocol.shutdown`), before it waits for them, and each stream
ends its answer cleanly (the client sees the end of the body and reconnects with its
`Last-Event-ID` to another worker or the restarted one).

One process, one stop: the announcement is never withdrawn. Callbacks run on the event loop's
thread (uvicorn calls `shutdown` there) and must not block.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

_listeners: dict[int, Callable[[], None]] = {}
_stopping = False


def announce() -> None:
    """The worker is stopping: tell every listener, once."""
    global _stopping
    if _stopping:
        return
    _stopping = True
    for listener in list(_listeners.values()):
        listener()


def stopping() -> bool:
    return _stopping


def listen(listener: Callable[[], None]) -> Callable[[], None]:
    """Call `listener` when the worker stops (at once if it is stopping); returns what removes it."""
    key = id(listener)
    _listeners[key] = listener
    if _stopping:
        listener()

    def forget() -> None:
        _listeners.pop(key, None)

    return forget


async def sleep(seconds: float) -> None:
    """`asyncio.sleep(seconds)`, ended early when the worker stops."""
    if _stopping:
        return
    woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not woken.done():
            woken.set_result(None)

    forget = listen(wake)
    try:
        await asyncio.wait_for(woken, seconds)
    except TimeoutError:
        pass
    finally:
        forget()
