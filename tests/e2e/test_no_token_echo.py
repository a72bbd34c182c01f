"""A token pasted anywhere in a request is never echoed in a body or written to the access log,
through the real `alpha-results serve` process (its stdout is the access log)."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from tests.health_wait import wait_until
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e


def get(port: int, path: str, token: str | None) -> tuple[int, dict[str, Any], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, json.loads(text), text


def test_a_token_in_a_url_is_refused_or_redacted_never_echoed(shared_server: SharedServer) -> None:
    key = shared_server.key()
    secret = key.token.partition(".")[2]
    port, mark = shared_server.port, len(shared_server.output)
    cases = {
        f"/v1/alphas?{key.token}": (401, "missing_api_key"),  # the token as a parameter name
        f"/v1/alphas?{key.token}=1": (401, "missing_api_key"),
        f"/v1/alphas?q={key.token}": (401, "missing_api_key"),
        f"/v1/health?{key.token}": (400, "bad_request"),  # health reads no key: unknown parameter
        f"/v1/{key.token}": (404, "not_found"),  # a token in a path segment
        f"/v1/alphas/{key.token}/books": (404, "run_not_found"),
    }
    request_ids = []
    for path, (status, code) in cases.items():
        for auth in (None, key.token):
            got, body, text = get(port, path, auth)
            if auth is None and code == "run_not_found":  # a keyed route asks for the key first
                status_expected, code_expected = 401, "missing_api_key"
            else:
                status_expected, code_expected = status, code
            assert (got, body["error"]["code"]) == (status_expected, code_expected), (path, body)
            assert secret not in text and key.token not in text, (path, text)
            request_ids.append(body["error"]["request_id"])
    # The access line of every one of these requests (written once it was answered), and nothing
    # this server wrote meanwhile, holds the token.
    wait_until(
        lambda: all(any(rid in line for line in shared_server.lines_from(mark)) for rid in request_ids),
        "an access line for each request",
    )
    log = "\n".join(shared_server.lines_from(mark))
    assert "[redacted token]" in log
    assert secret not in log
