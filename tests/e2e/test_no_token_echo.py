"""A token pasted anywhere in a request is never echoed in a body or written to the access log,
through the real `alpha-results serve` process (its stdout is the access log)."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest

from serve.identity import open_store
from tests.e2e.test_serve_stack import serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e


def get(port: int, path: str, token: str | None) -> tuple[int, dict[str, Any], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, json.loads(text), text


def test_a_token_in_a_url_is_refused_or_redacted_never_echoed(demo_lake: Path, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    key = issue_key(open_store(url))
    secret = key.token.partition(".")[2]
    with serving(demo_lake, url, workers=1) as (port, output):
        cases = {
            f"/v1/alphas?{key.token}": (401, "missing_api_key"),  # the token as a parameter name
            f"/v1/alphas?{key.token}=1": (401, "missing_api_key"),
            f"/v1/alphas?q={key.token}": (401, "missing_api_key"),
            f"/v1/health?{key.token}": (400, "bad_request"),  # health reads no key: unknown parameter
            f"/v1/{key.token}": (404, "not_found"),  # a token in a path segment
            f"/v1/alphas/{key.token}/books": (404, "run_not_found"),
        }
        for path, (status, code) in cases.items():
            for auth in (None, key.token):
                got, body, text = get(port, path, auth)
                if auth is None and code == "run_not_found":  # a keyed route asks for the key first
                    status_expected, code_expected = 401, "missing_api_key"
                else:
                    status_expected, code_expected = status, code
                assert (got, body["error"]["code"]) == (status_expected, code_expected), (path, body)
                assert secret not in text and key.token not in text, (path, text)
    log = "\n".join(output)
    assert "[redacted token]" in log
    assert secret not in log
