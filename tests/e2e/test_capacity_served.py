"""`/analytics/capacity` through the real `alpha-results serve` process: a grid written in scientific
notation on the URL is read as the capitals it names, the answer's `data` is byte for byte what a
notebook's `Figures.capacity` computes over the same lake, a capital out of bounds is a 400 naming
`capital` in the error envelope, and a seal without exposures answers not measurable."""

from __future__ import annotations

import datetime as dt
import http.client
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from analytics.figures import Figures
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e


class Answer(msgspec.Struct):
    data: msgspec.Raw


def get(server: SharedServer, token: str, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def test_capacity_through_the_real_server(shared_server: SharedServer, demo_lake: Path) -> None:
    token = shared_server.key().token
    alpha = "Test_planted_factor"
    status, body = get(
        shared_server,
        token,
        f"/v1/alphas/{alpha}/analytics/capacity?book=long_only&capital=5e7&grid=1e7,3.5E8,2e9&from=2021-03-01",
    )
    assert status == 200, body
    data: dict[str, Any] = json.loads(body)["data"]
    assert [p["capital"] for p in data["grid"]] == [1e7, 3.5e8, 2e9] and data["capital"] == 5e7
    assert data["capacity"]["status"] == "available" and data["capacity"]["value"] > 5e7
    local = Figures.open(str(demo_lake)).capacity(
        alpha, book="long_only", capital=5e7, grid=(1e7, 3.5e8, 2e9), start=dt.date(2021, 3, 1)
    )
    assert bytes(msgspec.json.decode(body, type=Answer).data) == msgspec.json.encode(local)

    status, body = get(shared_server, token, f"/v1/alphas/{alpha}/analytics/capacity?capital=0")
    assert status == 400, body
    error = json.loads(body)["error"]
    assert error["code"] == "bad_request"
    assert [p["name"] for p in error["details"]["parameters"]] == ["capital"]

    status, body = get(shared_server, token, "/v1/alphas/value_composite_legacy/analytics/capacity")
    assert status == 200, body
    capacity = json.loads(body)["data"]["capacity"]
    assert capacity["value"] is None and "no exposures" in capacity["withheld_reason"]
