"""Heavy figures in a worker: one computation per question at a time, and few at once.

- **Single flight** (`SingleFlight`): while one thread computes the answer to a question (its
  key), the threads asking the same one wait for that answer instead of computing it too (issue
  60: four first asks of one family's CSCV all computed, 1 GB at 500 members).
- **A bound on heavy work** (`heavy`): at most `HEAVY_AT_ONCE` heavy computations (a family's CSCV,
  drawdown odds' 10,000 simulated paths) run at once in a worker; the others wait their turn,
  blocked without holding the interpreter. Each runs in a worker thread, off the event loop, but
  six at once still took the interpreter and both cores from the loop: a bystander's `/v1/health`
  answered in 515 ms (issue 81, item 8). One at a time leaves the loop its share; the requests
  behind it wait longer, which is the cost of asking the heaviest questions together.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

HEAVY_AT_ONCE = 1
"""Heavy computations a worker runs at once (a worker has one event loop; the machine's other
cores are other workers')."""

_HEAVY = threading.BoundedSemaphore(HEAVY_AT_ONCE)


def heavy(compute: Callable[[], V]) -> V:
    """`compute()`, once one of the worker's `HEAVY_AT_ONCE` places for heavy work is free. Never
    nested: a heavy computation asks nothing heavy."""
    with _HEAVY:
        return compute()


class Flight:
    """A computation under way: the threads asking for the same answer wait for it."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.waiting = 0
        self.found: Any = None
        self.error: BaseException | None = None


class SingleFlight(Generic[V]):
    """One computation per key at a time (the module's docstring)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.flying: dict[Hashable, Flight] = {}

    def run(
        self,
        key: Hashable,
        compute: Callable[[], V],
        kept: Callable[[], V | None] = lambda: None,
        keep: Callable[[V], None] = lambda _: None,
    ) -> V:
        """The answer to `key`: `kept()` when not None (asked under the lock), else the one a thread
        already computing it finds, else `compute()`'s, given to `keep` under the lock before the
        flight ends (so that no thread finds neither the flight nor the kept answer)."""
        with self.lock:
            found = kept()
            if found is not None:
                return found
            flight = self.flying.get(key)
            computes = flight is None
            if flight is None:
                flight = self.flying[key] = Flight()
            else:
                flight.waiting += 1
        if not computes:
            flight.done.wait()
            if flight.error is not None:
                raise flight.error
            answer: V = flight.found
            return answer
        try:
            flight.found = compute()
        except BaseException as error:
            flight.error = error
            raise
        finally:
            with self.lock:
                del self.flying[key]
                if flight.error is None:
                    keep(flight.found)
            flight.done.set()
        answer = flight.found
        return answer
