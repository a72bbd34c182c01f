"""`/analytics/factors` through the real `alpha-results serve` (two workers): concurrent first
requests on a fresh server (each worker reads the build's factor tables and makes the rows of its
whole history once, in a worker thread, while other requests arrive) all answer the bytes a
notebook computes in-process (`Figures.factors`), over the whole history and a window, with and
without exposures."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgspec
import pytest

from access import open_store
from analytics.figures import Figures
from tests.lake.conftest import Http, Served, serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

CASES = [
    ("Test_planted_factor", "long_short", None, None),
    ("Test_planted_factor", "raw_long_only", "2021-03-01", "2021-12-31"),
    ("momentum_12_1", "long_only", "2021-06-01", None),
    ("value_composite_legacy", "long_short", None, None),
]


@pytest.fixture(scope="module")
def server(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("factors_served")
    url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(url)
    admin = issue_key(store, role="admin")
    store.close()
    with serving(str(demo_lake), (url, admin.headers), folder, workers=2) as served:
        yield served


def path_of(alpha: str, book: str, start: str | None, end: str | None) -> str:
    query = f"book={book}" + (f"&from={start}" if start else "") + (f"&to={end}" if end else "")
    return f"/v1/alphas/{alpha}/analytics/factors?{query}"


def data_of(served: Served, path: str) -> bytes:
    client = Http(served.port, served.headers)  # a new connection: either worker
    try:
        status, body = client.get(path)
    finally:
        client.close()
    assert status == 200, body[:500]
    return bytes(msgspec.json.decode(body, type=dict[str, msgspec.Raw])["data"])


def test_concurrent_first_answers_are_the_notebooks_bytes(server: Served, demo_lake: Path) -> None:
    figures = Figures.open(str(demo_lake))
    try:
        expected = {
            path_of(*case): msgspec.json.encode(
                figures.factors(
                    case[0],
                    book=case[1],
                    start=None if case[2] is None else dt.date.fromisoformat(case[2]),
                    end=None if case[3] is None else dt.date.fromisoformat(case[3]),
                )
            )
            for case in CASES
        }
    finally:
        figures.reader.close()
    paths = [path for path in expected for _ in range(4)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda path: (path, data_of(server, path)), paths))
    for path, data in answers:
        assert data == expected[path], path
    planted = json.loads(expected[path_of(*CASES[0])])
    assert planted["weeks"] > 0 and planted["exposures"]
    legacy = json.loads(expected[path_of(*CASES[-1])])
    assert legacy["sum_of_weekly_specific_returns"]["withheld_reason"].startswith("missing_kind: ")
