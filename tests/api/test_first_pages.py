"""A week's first page as the pipeline writes it (issue 49, item 2): `serving/first_pages.arrow`
holds, for every week of every demo alpha, the JSON of its first page of default fields, which the
route puts into the envelope without making a row.

Checked against the analysts' Parquet (polars, not the serving code): the rows, their order
(score descending, nulls last, ticker tiebreak) and their fields; through the API: the body's
`data` is the file's bytes exactly, no row is made for it, the same page asked another way (raw
fields, `limit=99`, a build without the file) is made from the rows and agrees.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from datasets import catalog, layout, queries
from datasets.rows import RowShape
from schemas import wire
from tests.api.conftest import Api
from tests.api.lakedata import build_dir, table

ALPHAS = ("momentum_12_1", "Test_planted_factor", "value_composite_legacy")


def first_pages(lake: Path, alpha: str) -> pa.Table:
    path = layout.serving_path(str(build_dir(lake, alpha)), queries.FIRST_PAGES)
    with pa.memory_map(path) as source:
        return pa.ipc.open_file(source).read_all()


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_week_is_written_as_its_first_page(demo_lake: Path, alpha: str) -> None:
    pages = first_pages(demo_lake, alpha)
    decisions = table(demo_lake, alpha, "decisions")
    weeks = table(demo_lake, alpha, "rebalances").sort("date")["date"].to_list()
    assert pages.column("date").to_pylist() == weeks
    fields = [name for name in wire.DECISION_FIELDS if not name.startswith("raw_")]
    for day, data in zip(weeks, pages.column("data").to_pylist(), strict=True):
        week = decisions.filter(decisions["date"] == day)
        if week.height == 0:
            assert data is None
            continue
        # Independently: score descending, nulls last, then ticker; the first 100.
        expected = week.sort(["score", "symbol"], descending=[True, False], nulls_last=True).head(100)
        served = json.loads(data)
        assert [row["symbol"] for row in served] == expected["symbol"].to_list()
        for row, want in zip(served, expected.iter_rows(named=True), strict=True):
            assert set(row) <= set(fields)
            for name in ("score", "direction", "average_rank", "forward_return", "long_short_target_weight"):
                if name in row:
                    assert same(row[name], want[name]) or (row[name] is None and want[name] is None), name


@pytest.fixture
def rows_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many pages' rows were made from the Arrow columns while a test ran."""
    made: list[int] = []
    original = RowShape.rows

    def counted(self: RowShape, *args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RowShape, "rows", counted)
    yield made


@pytest.mark.parametrize("alpha", ALPHAS)
def test_the_route_serves_the_written_bytes(
    api: Api, demo_lake: Path, alpha: str, rows_made: list[int]
) -> None:
    pages = first_pages(demo_lake, alpha)
    for position in (0, pages.num_rows // 2, pages.num_rows - 1):
        day = pages.column("date")[position].as_py().isoformat()
        data = pages.column("data")[position].as_py()
        if data is None:
            continue
        path = f"/v1/alphas/{alpha}/rebalances/{day}"
        for query in (
            {},
            {"limit": "100", "offset": "0", "sort": "score", "order": "desc", "book": "long_only"},
        ):
            before = len(rows_made)
            response = api.get(path, "plain", **query)
            assert response.status_code == 200, response.text
            assert response.content.startswith(b'{"data":' + data + b',"pagination":')
            assert len(rows_made) == before, "a written first page makes no row"
        body = response.json()
        # The same rows made from the Arrow columns: two half pages, and the raw key's page.
        halves = [api.ok(path, "plain", limit=50, offset=offset)["data"] for offset in (0, 50)]
        assert halves[0] + halves[1] == body["data"]
        assert len(rows_made) > before
        raw = api.ok(path, "raw")["data"]
        assert [{k: v for k, v in row.items() if not k.startswith("raw_")} for row in raw] == body["data"]
        assert body["pagination"]["returned"] == len(body["data"]) == min(100, body["pagination"]["total"])


def test_a_build_without_the_file_answers_the_same(
    api: Api, monkeypatch: pytest.MonkeyPatch, rows_made: list[int]
) -> None:
    """A build written before the pipeline wrote first pages (no such serving table) makes the rows,
    and the answer is the same."""
    # Queries of this test alone: an answer kept by the worker (serve/answer_cache.py) from other
    # tests' requests would make no row either.
    path = "/v1/alphas/Test_planted_factor/rebalances/" + first_pages_dates(api)[1]
    before = len(rows_made)
    written = api.get(path, "plain", book="long_only", order="desc")
    assert len(rows_made) == before
    monkeypatch.setattr(queries, "FIRST_PAGES", "no_such_table")
    made = api.get(path, "plain", book="long_only", sort="score", order="desc")
    assert len(rows_made) > before
    assert made.status_code == written.status_code == 200
    assert made.json()["data"] == written.json()["data"]
    assert made.json()["pagination"] == written.json()["pagination"]


def first_pages_dates(api: Api) -> list[str]:
    return [
        row["date"] for row in api.ok("/v1/alphas/Test_planted_factor/rebalances", "plain", limit=5)["data"]
    ]


def test_the_file_is_a_recorded_file_of_the_build(demo_lake: Path) -> None:
    """Its size and hash are in the build's manifest, so damage to it fails loud as any file's
    (tests/lake/test_missing_file.py)."""
    build = catalog.current_build(str(demo_lake), "momentum_12_1")
    assert build is not None
    relative = layout.serving_path("", queries.FIRST_PAGES).lstrip("/")
    files = catalog.read_alpha(str(demo_lake), build)["files"]
    assert relative in files and files[relative]["sha256"]
