"""Rate limits and outages through the real server: the client waits `Retry-After` on a 429 and
completes, paces itself inside a spent window, backs off on a transient 503 until the backend is
back, and never retries a permanent error."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from alpha_results_client import (
    BenchmarkUnavailableError,
    Client,
    RateLimitDayError,
    RetryPolicy,
    SourceDownloadNotConfiguredError,
    UpstreamUnavailableError,
)
from tests.client.conftest import Api, Recorder, api_over
from tests.conftest import linked_copy
from tests.health_wait import returns, wait_until

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def limits(per_second: int = 1000, per_minute: int = 100_000, per_day: int = 1_000_000) -> tuple[str, ...]:
    return ("--per-second", str(per_second), "--per-minute", str(per_minute), "--per-day", str(per_day))


def test_concurrent_callers_over_a_small_per_second_limit_all_complete(
    api: Api, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    key = api.key("two-per-second", limits=limits(per_second=2))
    caplog.set_level(logging.INFO, logger="alpha_results_client")
    with api.client(key, http_transport=recorder.transport()) as client:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda _: [r.alpha_id for r in client.alphas()], range(8)))
    assert all(len(ids) == 7 for ids in results)
    statuses = recorder.statuses()
    assert statuses.count(200) == 8 and 429 in statuses  # 8 at once against 2/s: refused, waited, served
    waits = [r.getMessage() for r in caplog.records if "as Retry-After asks" in r.getMessage()]
    assert len(waits) == statuses.count(429)
    assert all(1.0 <= float(re.search(r"waiting ([0-9.]+) s", w).group(1)) <= 1.25 for w in waits)  # type: ignore[union-attr]


class Sleeps:
    """The client's sleeps (its pacer's and its retries'), recorded, then slept for real."""

    def __init__(self, client: Client) -> None:
        self.pacer: list[float] = []
        self.retries: list[float] = []
        transport = client._transport
        transport.pacer._sleep = self._recorder(self.pacer)
        transport._sleep = self._recorder(self.retries)

    @staticmethod
    def _recorder(into: list[float]) -> Any:
        def sleep(seconds: float) -> None:
            into.append(seconds)
            time.sleep(seconds)

        return sleep


def test_a_spent_window_is_waited_out_before_the_next_request(api: Api, recorder: Recorder) -> None:
    key = api.key("paced", limits=limits(per_second=2))
    with api.client(key, page_size=1, http_transport=recorder.transport()) as client:
        sleeps = Sleeps(client)
        ids = [row.alpha_id for row in client.alphas()]  # seven pages of one row
        assert client.rate_limit is not None and client.rate_limit.window == "second"
    assert len(ids) == 7 and recorder.statuses() == [200] * 7  # no 429: the pacer held the requests
    assert sleeps.pacer and all(0 < s <= 1.0 for s in sleeps.pacer), sleeps.pacer  # till the next second
    assert sleeps.retries == []


def test_a_day_limit_raises_at_once_instead_of_sleeping_until_tomorrow(api: Api, recorder: Recorder) -> None:
    key = api.key("three-a-day", limits=limits(per_day=3))
    policy = RetryPolicy(max_rate_limit_wait=5.0)
    with api.client(key, retry=policy, http_transport=recorder.transport()) as client:
        for _ in range(3):
            client.me()
        sleeps = Sleeps(client)
        with pytest.raises(RateLimitDayError) as info:
            client.me()
    assert sleeps.pacer == [] and sleeps.retries == []  # raised at once: no sleep at all
    assert info.value.status == 429 and info.value.retry_after is not None and info.value.retry_after > 5
    assert recorder.statuses() == [200, 200, 200, 429]


# -- a lake that goes away and comes back ------------------------------------------------------------


@pytest.fixture
def breakable(demo_lake: Path, tmp_path: Path) -> Iterator[Api]:
    """A server of its own over a copy of the lake (which the test moves away and back), without
    a signing key (so source downloads are permanently not configured)."""
    lake = tmp_path / "lake"
    linked_copy(demo_lake, lake)
    environment = {
        "ALPHA_RESULTS_LAKE_REFRESH_SECONDS": "0.5",
        "ALPHA_RESULTS_SIGNING_KEY_FILE": str(tmp_path / "absent.key"),
    }
    with api_over(lake, tmp_path, **environment) as running:
        yield running


def wait_for_status(api: Api, token: str, path: str, status: int) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    wait_until(
        lambda: httpx.get(f"{api.base_url}{path}", headers=headers, timeout=60).status_code == status,
        f"{path} answering {status}",
    )


def retry_delays(caplog: pytest.LogCaptureFixture) -> list[tuple[float, int]]:
    """(delay, attempt about to be made) of each logged retry."""
    found = []
    for record in caplog.records:
        match = re.search(r"retrying in ([0-9.]+) s \(attempt ([0-9]+) of", record.getMessage())
        if match:
            found.append((float(match.group(1)), int(match.group(2))))
    return found


def test_a_503_is_retried_with_backoff_until_the_lake_is_back(
    breakable: Api, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    key = breakable.key("outage")
    # Attempts enough for a server on a busy machine to notice the lake back; the test ends with
    # the first 200 whatever the number.
    policy = RetryPolicy(max_attempts=60, backoff_initial=0.2, backoff_max=1.0)
    caplog.set_level(logging.INFO, logger="alpha_results_client")
    lake, away = breakable.lake, breakable.lake.with_name("lake.away")
    with breakable.client(key, retry=policy, http_transport=recorder.transport()) as client:
        before = [row.book for row in client.books(ALPHA)]
        lake.rename(away)
        wait_for_status(breakable, key.token, f"/v1/alphas/{ALPHA}/books", 503)
        recorder.exchanges.clear()
        results: dict[str, Any] = {}

        def read() -> None:
            results["books"] = [row.book for row in client.books(ALPHA)]
            results["spy"] = client.benchmark().to_list()

        reader = threading.Thread(target=read)
        reader.start()
        # The lake comes back once the client has retried twice (what the test shows), not after
        # a fixed time.
        wait_until(lambda: recorder.statuses("/books").count(503) >= 2, "the client retrying twice")
        away.rename(lake)
        returns(reader.join, "the reader")
    assert results["books"] == before and len(results["spy"]) > 0
    books = recorder.statuses("/books")
    assert books[-1] == 200 and books.count(503) >= 2 and set(books) == {200, 503}
    delays = retry_delays(caplog)
    assert len(delays) == books.count(503) + recorder.statuses("/benchmarks").count(503)
    # Full jitter under a capped exponential ceiling: 0.2, 0.4, 0.8, then 1.0 s for every later wait.
    assert all(0 <= delay <= policy.backoff_ceiling(attempt - 1) for delay, attempt in delays)


def test_retries_give_up_after_max_attempts_and_permanent_errors_never_retry(
    breakable: Api, recorder: Recorder
) -> None:
    key = breakable.key("give-up")
    policy = RetryPolicy(max_attempts=3, backoff_initial=0.05, backoff_max=0.1)
    with breakable.client(key, retry=policy, http_transport=recorder.transport()) as client:
        with pytest.raises(SourceDownloadNotConfiguredError) as info:
            client.source_download(ALPHA)  # a 503, but permanent: no signing key
        assert info.value.status == 503 and not info.value.retryable
        assert recorder.statuses() == [503]

        breakable.lake.rename(breakable.lake.with_name("lake.away"))
        wait_for_status(breakable, key.token, f"/v1/alphas/{ALPHA}/books", 503)
        recorder.exchanges.clear()
        with pytest.raises(UpstreamUnavailableError) as outage:
            client.books(ALPHA).to_list()
        assert outage.value.retryable and recorder.statuses() == [503, 503, 503]
        # The benchmark's view may be open already (the worker's warm-up reads it): the reader says
        # the lake is gone at its next pass.
        wait_for_status(breakable, key.token, "/v1/benchmarks/SPY/daily", 503)
        recorder.exchanges.clear()
        with pytest.raises(BenchmarkUnavailableError):
            client.benchmark().to_list()
        assert recorder.statuses() == [503, 503, 503]


def test_an_unreachable_server_is_a_transport_error_after_the_retries(recorder: Recorder) -> None:
    from alpha_results_client import TransportError
    from tests.support.ports import free_port

    policy = RetryPolicy(max_attempts=2, backoff_initial=0.01)
    with Client(f"http://127.0.0.1:{free_port()}", token=None, retry=policy) as client:
        with pytest.raises(TransportError, match="after 2 attempt"):
            client.health()
