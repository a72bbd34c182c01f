"""`/equity-curve` pages without a Python object per row (issue 61, item 1): the pipeline writes each
ledger row's equity JSON around the values that restart at the window's first session
(`serving/equity_curve_json.arrow`, `analytics.series.EQUITY_ROWS`), and a page writes only the
window's values of its rows and joins. A benchmark's daily series from its first session is its
whole rows (`serving/daily_json.arrow`); its other windows are made from the rows, as before.

Checked through the API: pages of every book, windows with and without `from`/`to`, offsets and
limits, a key with and without raw books, JSON and NDJSON, made from the row bytes make no row
(`RowShape.from_columns`, where every row Struct is made, is not called) and are the bytes of the
same requests with the row bytes switched off (the rows made as before). The numbers are msgspec's
own (`json_values` against msgspec value by value, over random floats of every magnitude, the edge
values and every float of the demo ledgers); CSV and Arrow pages from the page's columns are those
made from its rows.
"""

from __future__ import annotations

import io
import random
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from analytics import series
from core.settings import Settings
from datasets.queries import Page
from datasets.reader import LakeReader
from datasets.rows import RowShape, shape_of
from datasets.windowed_rows import WindowedShape, json_values
from schemas.bodies.envelope import EnvelopeMeta
from schemas.bodies.service import Pagination
from serve import representation
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.api.lakedata import table

ALPHA = "momentum_12_1"
HEADERS = {"Authorization": "Bearer raw"}
BOOKS = {
    "plain": ("long_short", "long_only"),
    "raw": ("long_short", "long_only", "raw_long_short", "raw_long_only"),
}


@pytest.fixture(scope="module")
def uncached(demo_lake: Path) -> Iterator[TestClient[Any]]:
    """The app over the demo lake without the answer cache: every request runs its handler."""
    settings = Settings(lake=str(demo_lake), environment="test", answer_cache_bytes=0)
    app = create_app(settings, authenticate=fake_authenticate, limiter=None)
    with TestClient(app=app) as client:
        yield client


@pytest.fixture
def rows_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many rows were made as Structs (`RowShape.from_columns`) while a test ran."""
    made: list[int] = []
    original = RowShape.from_columns

    def counted(self: RowShape, columns: list[list[Any]]) -> Any:
        rows = original(self, columns)
        made.append(len(rows))
        return rows

    monkeypatch.setattr(RowShape, "from_columns", counted)
    yield made


def _requests(sessions: list[str], rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    asked: list[tuple[str, dict[str, Any]]] = []
    for key, books in BOOKS.items():
        for book in books:
            asked.append((key, {"book": book}))  # the whole curve, the default page
            asked.append((key, {"book": book, "limit": 500, "offset": rng.randrange(0, 200)}))
            for _ in range(3):
                start, end = sorted(rng.sample(range(len(sessions)), 2))
                query: dict[str, Any] = {
                    "book": book,
                    "from": sessions[start],
                    "limit": rng.choice([1, 7, 100, 500]),
                    "offset": rng.randrange(0, 40),
                }
                if rng.random() < 0.7:
                    query["to"] = sessions[end]
                asked.append((key, query))
    asked.append(("plain", {"book": "long_short", "to": sessions[20]}))  # from the book's start
    asked.append(("plain", {"book": "long_short", "from": sessions[-1], "to": sessions[-1]}))  # one row
    asked.append(("plain", {"book": "long_short", "from": "2031-01-01"}))  # empty
    return asked


@pytest.mark.parametrize("accept", ["application/json", "application/x-ndjson"])
def test_equity_pages_from_row_bytes_make_no_row_and_are_the_rows_pages(
    uncached: TestClient[Any], monkeypatch: pytest.MonkeyPatch, rows_made: list[int], accept: str
) -> None:
    path = f"/v1/alphas/{ALPHA}/equity-curve"
    first = uncached.get(
        path, params={"book": "long_short", "limit": 1000}, headers={"Authorization": "Bearer raw"}
    )
    sessions = [row["date"] for row in first.json()["data"]]
    asked = _requests(sessions, random.Random(f"equity-rows:{accept}"))

    def fetch(key: str, query: dict[str, Any]) -> bytes:
        """The page as served: the envelope up to its `meta` (which names the request), or the
        NDJSON body whole."""
        response = uncached.get(
            path, params=query, headers={"Authorization": f"Bearer {key}", "Accept": accept}
        )
        assert response.status_code == 200, (query, response.text)
        if accept == "application/x-ndjson":
            return response.content
        return response.content[: response.content.index(b',"meta":')]

    made_once = []
    for key, query in asked:
        before = len(rows_made)
        made_once.append(fetch(key, query))
        assert len(rows_made) == before, f"{key} {query}: a page of row bytes makes no row"
    monkeypatch.setattr(series, "EQUITY_ROW_BYTES", "no_such_serving_file")  # a build before 2.10.0
    for (key, query), body in zip(asked, made_once, strict=True):
        before = len(rows_made)
        assert fetch(key, query) == body, (key, query)
        if b"date" in body:
            assert len(rows_made) > before, "switched off, the rows are made"
    assert sum(body.count(b'"date"') >= 100 for body in made_once) >= len(asked) // 3, "pages hold rows"


@pytest.mark.parametrize("accept", ["application/json", "application/x-ndjson"])
def test_benchmark_pages_from_row_bytes_make_no_row_and_are_the_rows_pages(
    uncached: TestClient[Any], monkeypatch: pytest.MonkeyPatch, rows_made: list[int], accept: str
) -> None:
    """`/v1/benchmarks/{symbol}/daily`: a page of the series from its first session makes no row; one of
    another window is made from its rows (cheaper there); both are the bytes of the rows made."""
    path = "/v1/benchmarks/SPY/daily"
    headers = {"Authorization": "Bearer plain", "Accept": accept}
    sessions = [
        row["date"] for row in uncached.get(path, params={"limit": 5000}, headers=HEADERS).json()["data"]
    ]
    rng = random.Random(f"benchmark-rows:{accept}")
    asked: list[dict[str, Any]] = [{}, {"limit": 500, "offset": 300}, {"to": sessions[40], "limit": 7}]
    for _ in range(8):
        start, end = sorted(rng.sample(range(len(sessions)), 2))
        asked.append(
            {
                "from": sessions[start],
                "to": sessions[end],
                "limit": rng.choice([1, 50, 500]),
                "offset": rng.randrange(0, 30),
            }
        )

    def fetch(query: dict[str, Any]) -> bytes:
        response = uncached.get(path, params=query, headers=headers)
        assert response.status_code == 200, (query, response.text)
        if accept == "application/x-ndjson":
            return response.content
        return response.content[: response.content.index(b',"meta":')]

    made_once = []
    for query in asked:
        before = len(rows_made)
        made_once.append(fetch(query))
        whole = query.get("from", sessions[0]) == sessions[0]
        assert (len(rows_made) == before) == whole, f"{query}: only the series from its start is bytes"
    monkeypatch.setattr(series, "BENCHMARK_ROW_BYTES", "no_such_serving_file")  # a build before 2.10.0
    for query, body in zip(asked, made_once, strict=True):
        before = len(rows_made)
        assert fetch(query) == body, query
        assert len(rows_made) > before, "switched off, the rows are made"


EDGES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    1e16,
    1e15,
    9999999999999998.0,
    1e17,
    1e-7,
    1e-6,
    1e-5,
    1e-4,
    1e10,
    1e21,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    123456789012345678.0,
    0.30000000000000004,
    1 / 3,
    2.0**53,
    2.0**53 + 2,
    float("nan"),
    float("inf"),
    float("-inf"),
    -4.691867708363957e-6,
]


def _random_floats(count: int, rng: random.Random) -> list[float]:
    """Floats of every magnitude: random bit patterns (subnormals, huge, NaN payloads), random
    integral floats and decimals of a few digits."""
    values = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(count)]
    values += [float(rng.randrange(-(10**18), 10**18)) for _ in range(count // 4)]
    values += [
        round(rng.uniform(-1, 1) * 10.0 ** rng.randint(-12, 20), rng.randint(0, 8)) for _ in range(count // 4)
    ]
    return values


def test_every_value_is_written_as_msgspec_writes_it(demo_lake: Path) -> None:
    """`json_values` gives, value for value, the text msgspec writes for the float in a row."""
    ledger = table(demo_lake, ALPHA, "portfolio")
    ledgers = [
        value for name, kind in ledger.schema.items() if kind.is_float() for value in ledger[name].to_list()
    ]
    values = EDGES + _random_floats(20_000, random.Random(61)) + [v for v in ledgers if v is not None]
    written = json_values(np.array(values, np.float64)).to_pylist()
    expected = [msgspec.json.encode(value) + b"," for value in values]
    wrong = [(v, w, e) for v, w, e in zip(values, written, expected, strict=True) if w != e]
    assert not wrong, wrong[:5]
    assert len(ledgers) > 1000


@pytest.mark.parametrize("windowed", [("b", "c"), ("a",), ("a", "b", "c"), ("b",)])
def test_a_windowed_page_is_its_rows_json(windowed: tuple[str, ...]) -> None:
    """Heads, values and tails joined are the rows' JSON, whichever run of the fields is windowed
    (first, last, all of them, inside); from the row `settled` on, the windowed values but the
    first are the whole rows'."""
    rng = np.random.default_rng(5)
    columns = {
        "day": pa.array(["2024-01-02", None, "2024-01-04", "2024-01-05", "2024-01-08"]),
        "a": pa.array(rng.normal(size=5)),
        "b": pa.array([1.0, float("nan"), 1e16, -0.0, 3e-6]),
        "c": pa.array(rng.normal(size=5) * 1e-6),
    }
    data = pa.table(columns)
    shape = WindowedShape(tuple(columns), windowed)
    written = shape.written(data)
    encode = msgspec.json.Encoder().encode
    for first, count in [(0, 5), (1, 3), (4, 1), (2, 0)]:
        values = [data.column(name).to_numpy()[first : first + count] * 2 for name in windowed]
        for settled in (None, 0, 1, count):
            page = shape.page(written, first, values, settled)
            expected = data.slice(first, count)
            for index, (name, doubled) in enumerate(zip(windowed, values, strict=True)):
                kept = expected.column(name).to_numpy()
                if index and settled is not None:
                    doubled = np.concatenate([doubled[:settled], kept[settled:]])
                expected = expected.set_column(expected.column_names.index(name), name, pa.array(doubled))
            rows = shape_of(shape.fields).rows(expected)
            assert bytes(page.json) == encode(rows), (windowed, first, count, settled)
        whole = shape.whole(written, first, count)
        assert bytes(whole.json) == encode(shape_of(shape.fields).rows(data.slice(first, count)))


def test_the_columnar_pages_are_those_of_the_rows(demo_lake: Path) -> None:
    """CSV (byte for byte) and Arrow (value for value) written from the page's columns are what
    they were when written from its rows."""
    reader = LakeReader(str(demo_lake), 60.0)
    found = reader.alpha(ALPHA)
    assert found is not None
    view = reader.view(found)
    days = table(demo_lake, ALPHA, "portfolio")["date"].unique().sort().to_list()
    for book, window, limit, offset in [
        ("long_short", (days[10], days[200]), 100, 3),
        ("raw_long_only", (None, None), 500, 0),
        ("long_only", (days[-5], None), 10, 0),
    ]:
        result = series.equity_curve(view, book, window, limit, offset)
        assert result is not None
        page = result[0]
        paging = Pagination(
            limit=limit, offset=offset, returned=page.returned, total=page.total, has_more=False
        )
        meta: EnvelopeMeta[Any] = EnvelopeMeta(request_id="r", generated_at="t")
        columns = representation.Body(page, page.table, None, paging, meta)
        rows = representation.Body(Page(page.rows, page.total), None, None, paging, meta)
        assert columns.csv() == rows.csv(), (book, window)
        for name in ("arrow", "parquet"):
            ours, theirs = (body.encode(name)[0] for body in (columns, rows))
            assert _read(name, ours).equals(_read(name, theirs)), (name, book, window)


def _read(representation_name: str, body: bytes) -> pa.Table:
    if representation_name == "arrow":
        return pa.ipc.open_stream(body).read_all()
    return pq.read_table(io.BytesIO(body))
