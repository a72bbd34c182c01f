"""Rate limits and quotas as a client sees them over HTTP: every 429 code with `Retry-After` and the
`X-RateLimit-*` headers, headers on admitted responses, and which requests count."""

from __future__ import annotations

import math
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import TestClient

from serve.limits import Limits, open_limiter
from tests.ops.conftest import CALLERS, AppFactory, assert_error, bearer

HEADERS = (
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-used",
    "x-ratelimit-reset",
    "x-ratelimit-window",
)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def limiter(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield open_limiter("memory://")
        return
    from tests.limits.conftest import COUNTING_TIMEOUT_SECONDS, delete_prefix, redis_or_skip

    prefix = f"ar:rltest:{uuid.uuid4().hex}"
    opened = open_limiter(redis_or_skip(), key_prefix=prefix, timeout_seconds=COUNTING_TIMEOUT_SECONDS)
    yield opened
    opened.close()
    delete_prefix(prefix)


def caller_token(**rate: int | None) -> str:
    """Registers a caller with its own key id and envelope; returns its token."""
    token = f"limited-{uuid.uuid4().hex[:8]}"
    envelope = {
        "per_second": 1000,
        "per_minute": 100000,
        "per_day": 1000000,
        "monthly_requests": None,
        **rate,
    }
    CALLERS[token] = replace(CALLERS["member"], key_id=uuid.uuid4().hex[:16], rate_limit=envelope)
    return token


def clear_of_boundary(unit: str, margin: float = 2.0) -> None:
    """Wait until the current `unit` window has at least `margin` seconds left."""
    now = datetime.now(UTC)
    if unit == "minute":
        left = 60 - now.second - now.microsecond / 1e6
    elif unit == "day":
        left = 86400 - (now - now.replace(hour=0, minute=0, second=0, microsecond=0)).total_seconds()
    else:
        left = 10.0
    if left < margin:
        time.sleep(left + 0.05)


@pytest.fixture
def client(make_client: AppFactory, lake_copy, limiter: Any) -> TestClient[Any]:
    return make_client(lake=str(lake_copy), limiter=limiter)


def next_month_start(now: datetime) -> datetime:
    first = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return (first + timedelta(days=32)).replace(day=1)


@pytest.mark.parametrize(
    ("window", "code", "rate"),
    [
        ("minute", "rate_limit_minute", {"per_minute": 3}),
        ("day", "rate_limit_day", {"per_day": 3}),
        ("month", "quota_exceeded", {"monthly_requests": 3}),
    ],
)
def test_each_window_refuses_with_its_code(
    client: TestClient[Any], window: str, code: str, rate: dict[str, int]
) -> None:
    token = caller_token(**rate)
    clear_of_boundary(window)
    for used in range(1, 4):
        ok = client.get("/v1/alphas", headers=bearer(token))
        assert ok.status_code == 200
        assert {h: ok.headers[h] for h in HEADERS} == {
            "x-ratelimit-limit": "3",
            "x-ratelimit-remaining": str(3 - used),
            "x-ratelimit-used": str(used),
            "x-ratelimit-reset": ok.headers["x-ratelimit-reset"],
            "x-ratelimit-window": window,
        }
        assert "retry-after" not in ok.headers
    refused = client.get("/v1/alphas", headers=bearer(token))
    error = assert_error(refused, 429, code)
    now = datetime.now(UTC)
    assert error["details"]["window"] == window
    assert refused.headers["x-ratelimit-window"] == window
    assert (refused.headers["x-ratelimit-remaining"], refused.headers["x-ratelimit-used"]) == ("0", "3")
    retry_after = int(refused.headers["retry-after"])
    reset = int(refused.headers["x-ratelimit-reset"])
    if window == "month":
        expected_reset = next_month_start(now)
    elif window == "day":
        expected_reset = now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    else:
        expected_reset = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
    assert reset == int(expected_reset.timestamp())
    assert abs(retry_after - math.ceil((expected_reset - now).total_seconds())) <= 2
    # The IETF draft's fields say the same: the policies, and the binding one's remaining and reset.
    assert refused.headers["ratelimit"] == f'"{window}";r=0;t={retry_after}'
    assert f'"{window}";q=3;w=' in refused.headers["ratelimit-policy"]
    # A refusal consumes nothing: the same answer again, counts unchanged.
    again = client.get("/v1/alphas", headers=bearer(token))
    assert again.status_code == 429 and again.headers["x-ratelimit-used"] == "3"


def test_ietf_rate_limit_fields_describe_every_window(client: TestClient[Any]) -> None:
    """`RateLimit-Policy` lists each limited window (quota q, length w in seconds; the month's is
    the current calendar month's); `RateLimit` names the binding one with r remaining, t to reset."""
    token = caller_token(per_second=1000, per_minute=100000, per_day=1000000, monthly_requests=50)
    response = client.get("/v1/alphas", headers=bearer(token))
    now = datetime.now(UTC)
    month_start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    month_seconds = int((next_month_start(now) - month_start).total_seconds())
    assert response.headers["ratelimit-policy"] == (
        f'"second";q=1000;w=1, "minute";q=100000;w=60, "day";q=1000000;w=86400, "month";q=50;w={month_seconds}'
    )
    binding = re.fullmatch(r'"month";r=49;t=(\d+)', response.headers["ratelimit"])
    assert binding is not None
    assert abs(int(binding.group(1)) - (next_month_start(now) - now).total_seconds()) <= 2
    unlimited = caller_token(per_second=5)  # no monthly quota: no month policy
    assert '"month"' not in client.get("/v1/alphas", headers=bearer(unlimited)).headers["ratelimit-policy"]


def test_second_window_refuses_and_recovers(client: TestClient[Any]) -> None:
    token = caller_token(per_second=2)
    for _attempt in range(5):
        now = time.time()
        time.sleep(math.ceil(now) - now + 0.02)  # start of a fresh second
        answers = [client.get("/v1/alphas", headers=bearer(token)) for _ in range(3)]
        if len({a.headers["x-ratelimit-reset"] for a in answers}) == 1:  # all in one second
            break
    assert [a.status_code for a in answers] == [200, 200, 429]
    refused = answers[2]
    assert_error(refused, 429, "rate_limit_second")
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["x-ratelimit-window"] == "second" and refused.headers["x-ratelimit-limit"] == "2"
    time.sleep(1.05)
    assert client.get("/v1/alphas", headers=bearer(token)).status_code == 200


def test_which_requests_count(client: TestClient[Any], limiter: Any) -> None:
    token = caller_token()
    key_id = CALLERS[token].key_id
    limits = Limits(per_second=1000, per_minute=100000, per_day=1000000, monthly_requests=None)
    clear_of_boundary("day")

    def day_count() -> int:
        return int(limiter.usage(key_id, limits, datetime.now(UTC))["day"])

    for _ in range(3):
        health = client.get("/v1/health", headers=bearer(token))
        assert health.status_code == 200 and "x-ratelimit-limit" not in health.headers
    client.get("/v1/nothing-here", headers=bearer(token))  # router 404, before any key is read
    client.post("/v1/alphas", headers=bearer(token))  # method_not_allowed, before any key is read
    assert day_count() == 0
    # Issue 60, finding 4: a call outside the key's grant is counted like any other (it was free:
    # 1,946 refused tool calls in 10 s on a 5/s key), with the window's headers on its 403.
    CALLERS[token + "-narrow"] = replace(CALLERS[token], endpoints=frozenset({"meta.health"}))
    forbidden = client.get("/v1/alphas", headers=bearer(token + "-narrow"))  # the same key id
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "endpoint_not_allowed"
    assert forbidden.headers["x-ratelimit-used"] == "1"
    assert day_count() == 1
    assert (
        client.get("/v1/alphas/no_such/books", headers=bearer(token)).status_code == 404
    )  # admitted, then 404
    assert client.get("/v1/alphas", headers=bearer(token)).status_code == 200
    assert day_count() == 3


def test_calls_outside_the_grant_meet_the_limits(client: TestClient[Any]) -> None:
    """A key at its limit calling a route it may not call gets the window's 429, not a free 403."""
    token = caller_token(per_day=2)
    clear_of_boundary("day")
    CALLERS[token] = replace(CALLERS[token], endpoints=frozenset({"meta.health"}))
    statuses = [client.get("/v1/alphas", headers=bearer(token)).status_code for _ in range(4)]
    assert statuses == [403, 403, 429, 429]


def test_unlimited_month_is_never_binding(client: TestClient[Any]) -> None:
    token = caller_token(per_second=1000, per_minute=100000, per_day=1000000, monthly_requests=None)
    response = client.get("/v1/alphas", headers=bearer(token))
    assert response.headers["x-ratelimit-window"] == "second"
