"""A signed URL's signature never reaches a log line through httpx's request logging."""

from __future__ import annotations

import logging

import httpx
import pytest

import alpha_results_client  # noqa: F401 - installs the filter

SIGNED = "http://127.0.0.1:1/downloads/alphas/a/builds/b/exports/x.parquet?expires=1&signature=abcdef0123"
PRESIGNED = "https://bucket.s3.amazonaws.com/x.parquet?X-Amz-Credential=AKIA123&X-Amz-Signature=deadbeef"


def test_httpx_request_lines_mask_signatures(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="httpx")

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"x")

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        http.get(SIGNED)
        http.get(PRESIGNED)
    lines = [record.getMessage() for record in caplog.records if record.name == "httpx"]
    assert len(lines) == 2, lines
    assert not any(secret in line for line in lines for secret in ("abcdef0123", "deadbeef", "AKIA123"))
    assert "signature=***" in lines[0] and "expires=1" in lines[0]
