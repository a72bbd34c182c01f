"""Routes answered below the framework (issue 61, item 3; serve/direct.py) through the real
`alpha-results serve` process: a week page, its other representation, its 304, its compressed
answer and its refusals carry on the wire what every answer carries (the request id of the body and
of the access line, `nosniff`, the limiter's headers, the entity tag, the `Link`, an exact
`Content-Length`), and each request has its access line naming the route. The in-process tests
(tests/api/test_direct_routes.py) compare each such route's answers with Litestar's byte for byte."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from tests.health_wait import wait_until
from tests.shared_servers import SharedServer
from tests.support.http_fetch import fetch

pytestmark = pytest.mark.e2e

ALPHA = "Test_planted_factor"


def test_a_week_page_below_the_framework_over_the_wire(shared_server: SharedServer) -> None:
    key, port = shared_server.key(), shared_server.port
    auth = {"Authorization": f"Bearer {key.token}", "Accept-Encoding": "identity"}
    status, _, index = fetch(port, f"/v1/alphas/{ALPHA}/rebalances?limit=5", auth)
    assert status == 200, index
    week = json.loads(index)["data"][2]["date"]
    page = f"/v1/alphas/{ALPHA}/rebalances/{week}?limit=3&offset=1"
    mark = len(shared_server.output)
    asked: list[tuple[int, dict[str, str]]] = []

    def ask(path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        status, got, body = fetch(port, path, headers)
        asked.append((status, got))
        assert got["x-content-type-options"] == "nosniff"
        assert got["x-request-id"].startswith("req_")
        return status, got, body

    status, headers, body = ask(page, auth)
    answer: dict[str, Any] = json.loads(body)
    assert status == 200 and headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(body)
    assert answer["meta"]["request_id"] == headers["x-request-id"]
    assert answer["pagination"] == {
        "limit": 3,
        "offset": 1,
        "returned": 3,
        "total": answer["pagination"]["total"],
        "has_more": True,
    }
    assert 'rel="next"' in headers["link"] and 'rel="prev"' in headers["link"]
    assert {"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} <= set(headers)
    tag = headers["etag"]

    status, headers, csv = ask(page, {**auth, "Accept": "text/csv"})
    assert status == 200 and headers["content-type"] == "text/csv; charset=utf-8"
    assert int(headers["content-length"]) == len(csv) and csv.count(b"\n") >= 4
    assert headers["etag"] != tag

    status, headers, empty = ask(page, {**auth, "If-None-Match": tag})
    assert status == 304 and empty == b"" and headers["etag"] == tag

    big = f"/v1/alphas/{ALPHA}/rebalances/{week}?limit=500"
    status, headers, packed = ask(big, {**auth, "Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert int(headers["content-length"]) == len(packed)
    assert json.loads(gzip.decompress(packed))["meta"]["request_id"] == headers["x-request-id"]

    for path, headers_of, code in [
        (f"/v1/alphas/{ALPHA}/rebalances/{week}?limit=abc", auth, "bad_request"),
        (f"/v1/alphas/No_such_alpha/rebalances/{week}", auth, "run_not_found"),
        (page, {"Accept-Encoding": "identity"}, "missing_api_key"),
    ]:
        status, headers, refused = ask(path, headers_of)
        error = json.loads(refused)["error"]
        assert status in (400, 401, 404) and error["code"] == code, (path, refused)
        assert error["request_id"] == headers["x-request-id"]
        assert int(headers["content-length"]) == len(refused)

    # Each request has its access line, with the route, the key (when one was read) and the status.
    ids = [headers["x-request-id"] for _, headers in asked]

    def logged() -> list[dict[str, Any]]:
        lines = (json.loads(line) for line in shared_server.lines_from(mark) if line.startswith("{"))
        return [line for line in lines if line.get("request_id") in ids]

    wait_until(lambda: len(logged()) == len(ids), "an access line for each request")
    by_id = {line["request_id"]: line for line in logged()}
    for (status, _), request_id in zip(asked, ids, strict=True):
        line = by_id[request_id]
        assert line["route"] == "signals.rebalances.get", line
        # A 304's line says 304, the status the client saw (`serve.front.Cycle.send`), whichever
        # path answered.
        assert line["status"] == status, line
    assert by_id[ids[0]]["key_id"] == key.key_id
