"""Per-request cost of the guard path on the SQLite key store, in one process:
`authenticate_caller` + `apply_limits` (serve/auth.py) with the in-process limiter, and the access
log line (serve/access_log.py) written to a stream.

    python -m tests.bench.auth_bench [--calls 20000]

Each call builds a fresh request scope (as uvicorn would) for `/v1/me` with a real key in a
temporary SQLite store, authenticated as the app does (access/cache.py: the change counter
read from the store, the key and its account from the identity cache), and counts one hit. The
guards are coroutines; over these embedded backends they never wait, so each call runs one to its
end without an event loop. Prints the median and p90 of each part in microseconds.
"""

from __future__ import annotations

import argparse
import io
import logging
import statistics
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from litestar import Litestar, Request, get
from litestar.datastructures import State

from access import ADMIN_CEILING, RateLimit, open_store
from access.cache import CountedCache
from core.settings import Settings
from serve.access_log import access_record, log_access
from serve.app import default_authenticator
from serve.auth import Services, apply_limits, authenticate_caller
from serve.limits import MemoryLimiter

WARM_UP_CALLS = 500


class Discard(io.TextIOBase):
    """A stream that drops what is written (the cost measured is producing the line)."""

    def write(self, text: str) -> int:
        return len(text)


@get("/v1/me", opt={"endpoint": "meta.me"}, sync_to_thread=False)
def me_stand_in() -> None:
    """Only the route's registry id matters to the guards."""


def guard_app(keystore_url: str) -> tuple[Litestar, str]:
    """A bare app whose state carries the services the guards read, and a token of a fresh key."""
    store = open_store(keystore_url)
    account = store.create_account("bench@example.com", role="admin")
    unlimited = RateLimit(per_second=10**9, per_minute=10**9, per_day=10**9, monthly_requests=None)
    _, token = store.create_key(account.user_id, "bench", grants=ADMIN_CEILING, rate_limit=unlimited)
    services = Services(
        settings=Settings(keystore_url=keystore_url),
        reader=None,  # type: ignore[arg-type]  # the guards never read the lake
        authenticate=default_authenticator(CountedCache(store)),
        registry_version="r-bench",
        analytics_doc={},
        metrics_doc={},
        limiter=MemoryLimiter(),
        store=store,
    )
    app = Litestar(route_handlers=[me_stand_in], state=State({"services": services}), logging_config=None)
    return app, token


def request_scope(app: Litestar, token: str) -> dict[str, Any]:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/v1/me",
        "raw_path": b"/v1/me",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"authorization", f"Bearer {token}".encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "app": app,
        "litestar_app": app,
        "route_handler": me_stand_in,
        "state": {},
    }


def run_now(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run a coroutine that never suspends (the guards over embedded backends) to its end."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    raise RuntimeError("the guards waited on I/O: the backends are not embedded")


def timed(calls: int, run: Callable[[], None], cpu: list[float], wall: list[float]) -> None:
    """Append the microseconds of `calls` calls of `run`: CPU time of this thread, and wall time.

    The CPU time is the figure reported: on a shared machine the wall time also counts the
    moments another process held the core.
    """
    cpu_clock, wall_clock = time.thread_time_ns, time.perf_counter_ns
    for _ in range(calls):
        cpu_started, wall_started = cpu_clock(), wall_clock()
        run()
        wall.append((wall_clock() - wall_started) / 1000)
        cpu.append((cpu_clock() - cpu_started) / 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000, help="Timed calls per case (default 20000).")
    parser.add_argument("--rounds", type=int, default=10, help="Cases take turns this many times.")
    args = parser.parse_args()

    access = logging.getLogger("serve.access")
    access.handlers[:] = [logging.StreamHandler(Discard())]
    access.setLevel(logging.INFO)
    access.propagate = False

    with tempfile.TemporaryDirectory() as folder:
        app, token = guard_app(f"sqlite:///{Path(folder) / 'keys.sqlite3'}")

        def guards() -> None:
            request: Request[Any, Any, Any] = Request(request_scope(app, token))
            run_now(authenticate_caller(request, me_stand_in))
            run_now(apply_limits(request, me_stand_in))

        answered = request_scope(app, token)
        guards_on: Request[Any, Any, Any] = Request(answered)
        run_now(authenticate_caller(guards_on, me_stand_in))
        run_now(apply_limits(guards_on, me_stand_in))
        assert access_record(answered, 200, 1.0)["key_id"], "the access line names the key"

        def access_line() -> None:
            log_access(answered, 200, 1.234)

        def whole() -> None:
            guards()
            access_line()

        cases: dict[str, tuple[Callable[[], None], list[float], list[float]]] = {
            "authentication + limits + access log line": (whole, [], []),
            "authentication + limits (the two guards)": (guards, [], []),
            "access log line alone": (access_line, [], []),
        }
        for run, _, _ in cases.values():
            for _ in range(WARM_UP_CALLS):
                run()
        # The cases take turns, so a burst of other work on the machine touches each alike.
        per_round = max(1, args.calls // args.rounds)
        for _ in range(args.rounds):
            for run, cpu, wall in cases.values():
                timed(per_round, run, cpu, wall)
    calls = per_round * args.rounds
    print(f"{calls} calls per case, SQLite key store, in-process limiter (microseconds per request)")
    print(f"{'case':<44} {'CPU median':>10} {'CPU p90':>8} {'wall median':>11}")
    for name, (_, cpu, wall) in cases.items():
        p90 = statistics.quantiles(cpu, n=10)[-1]
        print(f"{name:<44} {statistics.median(cpu):>10.1f} {p90:>8.1f} {statistics.median(wall):>11.1f}")


if __name__ == "__main__":
    main()
