"""The retry and pacing rules on scripted answers (httpx.MockTransport), where every wait can be
read exactly: the end-to-end tests show the same rules against the real server."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import httpx
import pytest

from alpha_results_client import (
    ApiError,
    InternalError,
    RateLimitedError,
    RateLimitSecondError,
    RetryPolicy,
    ServerError,
    Timeouts,
    UnavailableError,
    UpstreamUnavailableError,
)
from alpha_results_client._generated import HealthLake
from alpha_results_client.ratelimit import Pacer, RateLimitStatus
from alpha_results_client.transport import Transport

BASE = "http://api.test"


def error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} happened", "details": {}, "request_id": "req_1"}}
    return httpx.Response(status, content=json.dumps(body).encode(), headers=headers or {})


def ok(body: Any = None) -> httpx.Response:
    return httpx.Response(200, content=json.dumps(body or {"degraded_alphas": {}}).encode())


class Script:
    """Answers requests from a list, and records the sleeps the transport asked for."""

    def __init__(self, answers: Iterable[httpx.Response | Exception], policy: RetryPolicy) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.sleeps: list[float] = []
        self.transport = Transport(
            BASE,
            "ar_live_AAAAAAAAAAAAAAAA." + "s" * 43,
            timeouts=Timeouts(),
            retry=policy,
            http_transport=httpx.MockTransport(self.answer),
            sleep=self.sleeps.append,
            jitter=lambda: 1.0,  # the top of every jitter range, so the ceilings are visible
        )

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def get(self) -> HealthLake:
        return self.transport.get_json("/v1/x", {}, HealthLake)


def test_a_transient_503_backs_off_exponentially_under_the_cap() -> None:
    policy = RetryPolicy(max_attempts=6, backoff_initial=0.5, backoff_max=3.0)
    script = Script([*(error(503, "upstream_unavailable") for _ in range(5)), ok()], policy)
    assert script.get() == HealthLake(degraded_alphas={})
    assert script.sleeps == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_backoff_gives_up_after_max_attempts() -> None:
    script = Script([error(503, "benchmark_unavailable")] * 3, RetryPolicy(max_attempts=3))
    with pytest.raises(UnavailableError) as info:
        script.get()
    assert info.value.code == "benchmark_unavailable" and len(script.requests) == 3


def test_a_server_retry_after_on_a_503_wins_over_the_backoff() -> None:
    script = Script([error(503, "source_download_unavailable", {"Retry-After": "7"}), ok()], RetryPolicy())
    script.get()
    assert script.sleeps == [7.0]


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (503, "benchmark_not_configured"),
        (503, "exports_not_built"),
        (503, "export_download_not_configured"),
        (500, "internal_error"),
        (400, "bad_request"),
        (404, "source_not_ready"),
    ],
)
def test_permanent_codes_are_raised_at_the_first_answer(status: int, code: str) -> None:
    script = Script([error(status, code), ok()], RetryPolicy())
    with pytest.raises(ApiError) as info:
        script.get()
    assert (info.value.code, info.value.status, info.value.retryable) == (code, status, False)
    assert len(script.requests) == 1 and script.sleeps == []


def test_a_429_waits_retry_after_and_does_not_use_up_attempts() -> None:
    refused = error(429, "rate_limit_second", {"Retry-After": "1"})
    script = Script([refused, refused, refused, ok()], RetryPolicy(max_attempts=1, max_rate_limit_waits=3))
    script.get()
    # Retry-After plus at most a quarter second of jitter (the pacer reads the real clock)
    assert script.sleeps == pytest.approx([1.25, 1.25, 1.25], abs=0.05)


def test_a_429_is_raised_once_the_waits_are_used_up() -> None:
    refused = error(429, "rate_limit_minute", {"Retry-After": "2"})
    script = Script([refused, refused, refused], RetryPolicy(max_rate_limit_waits=2))
    with pytest.raises(RateLimitedError):
        script.get()
    assert len(script.requests) == 3


def test_a_429_longer_than_the_policy_allows_is_raised() -> None:
    script = Script([error(429, "rate_limit_second", {"Retry-After": "600"})], RetryPolicy())
    with pytest.raises(RateLimitSecondError) as info:
        script.get()
    assert info.value.retry_after == 600.0 and script.sleeps == []


def test_transport_failures_and_proxy_pages_are_transient() -> None:
    proxy_page = httpx.Response(502, content=b"<html>Bad Gateway</html>")
    answers: list[httpx.Response | Exception] = [
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        proxy_page,
        ok(),
    ]
    script = Script(answers, RetryPolicy(max_attempts=4, backoff_initial=0.1))
    script.get()
    assert script.sleeps == [0.1, 0.2, 0.4]


def test_unknown_codes_raise_the_class_of_their_status() -> None:
    script = Script([error(500, "brand_new_failure")], RetryPolicy())
    with pytest.raises(ServerError) as info:
        script.get()
    assert not isinstance(info.value, InternalError) and info.value.code == "brand_new_failure"
    assert info.value.request_id == "req_1"


def test_the_token_goes_to_the_api_origin_only() -> None:
    script = Script([ok(), ok(), ok()], RetryPolicy())
    script.get()
    script.transport.fetch_signed(
        f"{BASE}/downloads/alphas/a/builds/b/exports/f.parquet?expires=1&signature=x"
    )
    script.transport.fetch_signed("https://bucket.s3.example/a.zip?X-Amz-Signature=y")
    authorizations = [request.headers.get("authorization") for request in script.requests]
    assert authorizations[0] is not None and authorizations[0].startswith("Bearer ar_live_")
    assert authorizations[1:] == [None, None]


def test_the_pacer_holds_requests_while_a_short_window_is_spent() -> None:
    now = [100.0]
    slept: list[float] = []
    pacer = Pacer(clock=lambda: now[0], sleep=slept.append)
    spent = httpx.Headers(
        {"X-RateLimit-Window": "second", "X-RateLimit-Remaining": "0", "RateLimit": '"second";r=0;t=1'}
    )
    pacer.observe(spent)
    assert pacer.wait() == 1.0 and slept == [1.0]
    now[0] = 101.5
    assert pacer.wait() == 0.0
    day = httpx.Headers(
        {"X-RateLimit-Window": "day", "X-RateLimit-Remaining": "0", "RateLimit": '"day";r=0;t=3600'}
    )
    pacer.observe(day)
    assert pacer.wait() == 0.0  # a spent day surfaces as a 429, not as an hour of silence
    assert pacer.status == RateLimitStatus(window="day", remaining=0, reset_after=3600.0)


def test_upstream_unavailable_is_retryable_by_declaration() -> None:
    assert UpstreamUnavailableError.retryable and UpstreamUnavailableError.status == 503
