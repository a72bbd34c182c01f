"""The cost of Litestar injecting the request context into a handler (`ctx: Ctx[Query]`) against
the handler building the same object itself: a bare app, in process, interleaved batches
(docs/benchmarks.md, "The handler as the endpoint's declaration").

`python -m tests.bench.di_bench` prints the median microseconds per request of each.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.di import Provide
from litestar.params import SkipValidation

BATCHES, REQUESTS = 20, 2000


class Context:
    def __init__(self, request: Request[Any, Any, Any]) -> None:
        self.request = request


def context_of(request: Request[Any, Any, Any]) -> Context:
    return Context(request)


@get("/built/{alpha:str}", sync_to_thread=False)
def built(request: Request[Any, Any, Any], alpha: str) -> Response[bytes]:
    context_of(request)
    return Response(b"x")


@get(
    "/injected/{alpha:str}",
    sync_to_thread=False,
    dependencies={"ctx": Provide(context_of, sync_to_thread=False)},
)
def injected(ctx: SkipValidation[Context], alpha: str) -> Response[bytes]:
    return Response(b"x")


APP = Litestar([built, injected], openapi_config=None)


async def _call(path: str) -> None:
    scope: dict[str, Any] = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [],
        "http_version": "1.1",
        "scheme": "http",
        "server": ("bench", 80),
        "client": ("bench", 1),
        "root_path": "",
        "state": {},
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    await APP(scope, receive, send)  # type: ignore[arg-type]


async def _measure() -> dict[str, float]:
    names = ("built", "injected")
    for _ in range(500):  # warm-up
        for name in names:
            await _call(f"/{name}/a")
    times: dict[str, list[float]] = {name: [] for name in names}
    for batch in range(BATCHES):
        for name in names if batch % 2 else names[::-1]:
            started = time.perf_counter()
            for _ in range(REQUESTS):
                await _call(f"/{name}/a")
            times[name].append((time.perf_counter() - started) / REQUESTS * 1e6)
    return {name: round(statistics.median(values), 1) for name, values in times.items()}


if __name__ == "__main__":
    print(asyncio.run(_measure()))
