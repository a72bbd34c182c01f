"""`/analytics/attribution` through the real `alpha-results serve` (issue 36, item 1): the served
`data` is byte for byte what a notebook computes over the same lake (`Figures.attribution`); the
answer is conditional (its ETag, a 304 on If-None-Match) and stays JSON whatever `Accept` asks (a
single object); bad input is a 400 in the error envelope naming the parameter; a key without the
raw flag is refused a raw book."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx
import msgspec
import pytest

from analytics.figures import Figures
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e

PATH = "/v1/alphas/Test_planted_factor/analytics/attribution"


@pytest.fixture(scope="module")
def client(shared_server: SharedServer) -> Iterator[httpx.Client]:
    key = shared_server.key()
    with httpx.Client(
        base_url=f"http://127.0.0.1:{shared_server.port}", headers=key.headers, timeout=60
    ) as c:
        yield c


@pytest.fixture(scope="module")
def figures(demo_lake: Path) -> Iterator[Figures]:
    found = Figures.open(str(demo_lake))
    yield found
    found.reader.close()


def test_the_served_answer_is_the_notebooks(client: httpx.Client, figures: Figures) -> None:
    params = {"book": "long_only", "from": "2021-03-01", "to": "2021-12-31", "top": "4", "drop": "3"}
    response = client.get(PATH, params=params)
    assert response.status_code == 200, response.text
    served = msgspec.json.decode(response.content, type=dict[str, msgspec.Raw])["data"]
    local = figures.attribution(
        "Test_planted_factor", book="long_only", start=date(2021, 3, 1), end=date(2021, 12, 31), top=4, drop=3
    )
    assert bytes(served) == msgspec.json.encode(local)
    meta = response.json()["meta"]
    assert meta["book"] == "long_only"


def test_the_answer_is_conditional_and_json(client: httpx.Client) -> None:
    first = client.get(PATH, headers={"Accept": "text/csv"})
    assert first.status_code == 200 and first.headers["content-type"].startswith("application/json")
    tag = first.headers["etag"]
    again = client.get(PATH, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""


@pytest.mark.parametrize(
    ("query", "name"),
    [("top=0", "top"), ("top=51", "top"), ("drop=21", "drop"), ("from=2021-06-01&to=2021-06-01", "from")],
)
def test_bad_input_is_a_400_naming_it(client: httpx.Client, query: str, name: str) -> None:
    response = client.get(f"{PATH}?{query}")
    assert response.status_code == 400, response.text
    error = json.loads(response.content)["error"]
    assert error["code"] == "bad_request" and name in {p["name"] for p in error["details"]["parameters"]}


def test_a_raw_book_needs_the_raw_flag(client: httpx.Client) -> None:
    response = client.get(PATH, params={"book": "raw_long_short"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_book", response.text
