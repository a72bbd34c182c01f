"""Every answer of the real `alpha-results serve` process carries `X-Content-Type-Options: nosniff`:
routed answers, errors (a JSON 404 echoes the path), the answers given before routing, the pages
and their assets. The protocol's own refusals: tests/e2e/test_parser_refusals.py and
tests/e2e/test_connection_limits.py."""

from __future__ import annotations

import http.client

import pytest

from serve import pages
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e

ANSWERS = [
    ("GET", "/v1/health", 200),  # answered before routing
    ("GET", "/v1/health?x=1", 400),  # routed
    ("GET", "/v1/alphas", 401),
    ("GET", "/v1/no-such-route", 404),
    ("GET", "/v1/%3Cscript%3Ealert(1)%3C/script%3E", 404),  # the path is echoed in the body
    ("GET", "/v1/me/", 404),  # refused before routing (not canonical)
    ("POST", "/v1/health", 404),  # method_not_allowed
    ("GET", "/", 200),
    ("GET", "/docs", 200),
    ("GET", "/openapi.json", 200),
    ("GET", "/schema", 200),
    ("GET", f"{pages.SWAGGER_UI_URL}/swagger-ui.css", 200),
    ("GET", "/ui", 200),
]


@pytest.fixture
def port(shared_server: SharedServer) -> int:
    return shared_server.port


@pytest.mark.parametrize(("method", "path", "status"), ANSWERS)
def test_every_answer_forbids_content_sniffing(port: int, method: str, path: str, status: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path)
    response = connection.getresponse()
    response.read()
    connection.close()
    assert response.status == status, (method, path)
    assert response.getheader("x-content-type-options") == "nosniff", (method, path, response.getheaders())
    assert len(response.headers.get_all("x-content-type-options") or []) == 1  # set once, not twice
