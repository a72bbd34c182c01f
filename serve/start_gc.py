"""The cyclic garbage collector during a worker's start: its full passes made rare until the worker
is ready, then CPython's thresholds as they were.

Why: a worker's start (numpy, scipy, pandas, polars, pyarrow, Litestar, the MCP SDK and this
project imported, the app made, the warm-up run) leaves a few hundred thousand objects that live as
long as the worker. With the default thresholds `(700, 10, 10)` the collector walked that growing
heap whole every ten collections of the middle generation: about 0.5 s of CPU of a start of 3.2 s
(docs/benchmarks.md, "A worker's start (eighth session)"). Only the oldest generation waits longer
(`START_THRESHOLDS`): the young ones are collected as usual, so the start's garbage goes as before
(the same peak RSS), and a request meets the collector it always met, since `started` (the app's
last startup hook but one) puts the thresholds back.

`while_starting` is called first in each worker, before anything heavy is imported: by
`alpha-results serve` (cli/serve.py: the one-worker process and the supervisor) and by
`serve.worker.create_app`, what uvicorn imports in each worker process. An app made elsewhere (a
test's, the documentation's) keeps the collector it has: `started` then changes nothing.
"""

from __future__ import annotations

import gc

START_THRESHOLDS = (700, 10, 100)
"""The young generations' thresholds are the default; the oldest is collected after 100 middle
collections instead of 10 (and, as always, only once the objects waiting for it are a quarter of
those it holds)."""

_before: list[tuple[int, int, int]] = []
"""The thresholds `while_starting` replaced, until `started` puts them back."""


def while_starting() -> None:
    """The start's thresholds (once: a second call keeps the first one's saved thresholds)."""
    if not _before:
        _before.append(gc.get_threshold())
        gc.set_threshold(*START_THRESHOLDS)


def started() -> None:
    """The thresholds `while_starting` replaced, back; nothing when it was not called."""
    if _before:
        gc.set_threshold(*_before.pop())
