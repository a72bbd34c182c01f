"""Pages from bytes made once (issue 61, item 1): each worker derives each decision and book row's
JSON for each served field set (`<table>_json.arrow`, `datasets.queries.ROW_JSON`) from the build's
serving table when a page first asks (`datasets.derived`; the pipeline wrote them into the lake
before 2.11.0), and a page at any offset, order or filter is a slice or a take of them, with no
row made.

Checked: the written bytes against the build's rows in the open tables (polars, not the serving code); through
the API, pages of every table and of `/scores` (both field sets, joined after each row's date from
the decision rows and the row parts, `datasets.queries.ROW_PARTS`) with the row bytes and with them
switched off (the rows made as before) are the same bytes, JSON and NDJSON alike, and the first
make no row; a build without the row parts (pipeline 2.9) answers the same bytes.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from datasets import catalog, layout, queries
from datasets.reader import LakeReader
from datasets.rows import RowShape
from tests.api.conftest import Api
from tests.api.lakedata import build_dir, table
from tests.health_wait import HANG_LIMIT

ALPHA = "momentum_12_1"
BOOK_TABLES = ("portfolio", "positions", "pnl", "trades")


def row_bytes(lake: Path, alpha: str, name: str, cache: Path) -> pa.Table:
    """The row bytes of `name` a worker derives from the build (`datasets.derived`), read back from
    the file it wrote."""
    reader = LakeReader(str(lake), 60.0, cache_dir=str(cache))
    try:
        found = reader.alpha(alpha)
        assert found is not None
        view = reader.view(found)
        assert view.table(queries.row_json_table(name)) is None  # not in the lake: derived now
        reader.derived.wait()
        path = reader.derived.path(view, queries.row_json_table(name))
        assert path is not None and path.startswith(str(cache))
        with pa.memory_map(path) as source:
            return pa.ipc.open_file(source).read_all()
    finally:
        reader.close()


@pytest.fixture
def derived(api: Api) -> None:
    """Every table's row bytes derived by the app's worker: a page of each asks for them, and the
    worker derives them in the background (`datasets.derived`); this waits until it has."""
    scores = [(f"/v1/alphas/{ALPHA}/scores", {"fields": f, "limit": 3, "offset": 1}) for f in ("core", "all")]
    books = [
        (f"/v1/alphas/{ALPHA}/{name}", {"book": "long_short", "limit": 3, "offset": 1})
        for name in BOOK_TABLES
    ]
    reader = api.client.app.state["services"].reader
    deadline = time.monotonic() + HANG_LIMIT
    while True:
        for path, query in scores + books:
            api.ok(path, "raw", **query)
        reader.derived.wait()
        found = reader.alpha(ALPHA)
        assert found is not None
        view = reader.view(found)
        if all(view.table(queries.row_json_table(name)) is not None for name in queries.ROW_JSON):
            return
        assert time.monotonic() < deadline, "the row bytes were not derived"
        time.sleep(0.05)


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


def test_every_decision_row_is_written_in_the_served_order(demo_lake: Path, tmp_path: Path) -> None:
    """One value per decision row, in `/scores` order (date, then ticker), each one row's JSON and
    a comma; the raw field set holds the raw fields, the plain one none of them."""
    written = row_bytes(demo_lake, ALPHA, "decisions", tmp_path)
    decisions = table(demo_lake, ALPHA, "decisions").sort(["date", "symbol"])
    assert written.num_rows == decisions.height
    plain, raw = (written.column(name).to_pylist() for name in ("plain", "raw"))
    assert all(value.endswith(b",") for value in plain + raw)
    expected = decisions.select("symbol", "score").iter_rows(named=True)
    for index, (want, mine, with_raw) in enumerate(zip(expected, plain, raw, strict=True)):
        row, raw_row = json.loads(mine[:-1]), json.loads(with_raw[:-1])
        assert row["symbol"] == want["symbol"] and raw_row["symbol"] == want["symbol"], index
        assert row.get("score") == want["score"] or (row.get("score") is None and want["score"] is None)
        assert not any(name.startswith("raw_") for name in row)
        assert {k: v for k, v in raw_row.items() if not k.startswith("raw_")} == row


def test_every_decision_row_is_written_as_the_members_of_its_scores_row(
    demo_lake: Path, tmp_path: Path
) -> None:
    """The row parts: each decision row's `/scores` core members after its date (a comma before
    them, no braces), and for a raw key the one member more, `raw_score`, from the Parquet."""
    written = row_bytes(demo_lake, ALPHA, "decisions", tmp_path)
    decisions = table(demo_lake, ALPHA, "decisions").sort(["date", "symbol"])
    core, raw_only = (written.column(name).to_pylist() for name in ("core", "core_raw_only"))
    expected = decisions.select("symbol", "score", "forward_return", "raw_score").iter_rows(named=True)
    served = ["symbol", "score", "score_z", "average_rank", "direction", "long_short_target_weight"]
    served += ["long_only_target_weight", "forward_return"]  # docs/api.md, `/scores` `fields=core`
    for index, (want, members, extra) in enumerate(zip(expected, core, raw_only, strict=True)):
        assert members.startswith(b',"') and extra.startswith(b',"'), index
        row, raw_row = json.loads(b"{" + members[1:] + b"}"), json.loads(b"{" + extra[1:] + b"}")
        assert list(row) == served and list(raw_row) == ["raw_score"], index
        for name in ("symbol", "score", "forward_return"):
            assert served_as(row[name], want[name]), (index, name)
        assert served_as(raw_row["raw_score"], want["raw_score"]), index


def served_as(served: Any, stored: Any) -> bool:
    """A value as a JSON row holds it: null for a null (or NaN) of the Parquet, else the value."""
    return served is None if stored is None or stored != stored else bool(served == stored)


@pytest.mark.parametrize("name", BOOK_TABLES)
def test_every_book_row_is_written(demo_lake: Path, name: str, tmp_path: Path) -> None:
    written = row_bytes(demo_lake, ALPHA, name, tmp_path)
    books = table(demo_lake, ALPHA, name)
    assert written.num_rows == books.height
    rows = [json.loads(value[:-1]) for value in written.column("rows").to_pylist()]
    # Each book's rows in the serving file's order: as many per book as the Parquet holds.
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["book"]] = counts.get(row["book"], 0) + 1
    assert counts == dict(books.group_by("book").len().iter_rows())


def test_the_lake_holds_no_row_bytes(demo_lake: Path) -> None:
    """Derived by each worker (pipeline 2.11.0): the build lists and holds no row bytes file, and
    holds every serving table they are derived from."""
    build = catalog.current_build(str(demo_lake), ALPHA)
    assert build is not None
    files = catalog.read_alpha(str(demo_lake), build)["files"]
    for name in queries.ROW_JSON:
        relative = layout.serving_path("", queries.row_json_table(name)).lstrip("/")
        assert relative not in files and not (build_dir(demo_lake, ALPHA) / relative).exists(), relative
        assert files[layout.serving_path("", name).lstrip("/")]["sha256"], name


def _week_requests(api: Api, rng: random.Random) -> list[tuple[str, str, dict[str, Any]]]:
    weeks = [row["date"] for row in api.ok(f"/v1/alphas/{ALPHA}/rebalances", "plain", limit=500)["data"]]
    asked = []
    for _ in range(6):
        path = f"/v1/alphas/{ALPHA}/rebalances/{rng.choice(weeks)}"
        query: dict[str, Any] = {"limit": rng.choice([7, 41, 100, 333]), "offset": rng.randrange(0, 60)}
        if rng.random() < 0.5:
            query |= {
                "sort": rng.choice(["score", "rank", "symbol", "weight"]),
                "order": rng.choice(["asc", "desc"]),
            }
        if rng.random() < 0.3:
            query["direction"] = rng.choice(["long", "short"])
        asked.append((path, rng.choice(["plain", "raw"]), query))
    return asked


def _book_requests(api: Api, rng: random.Random) -> list[tuple[str, str, dict[str, Any]]]:
    asked = []
    for name in BOOK_TABLES:
        query: dict[str, Any] = {
            "book": "long_short",
            "limit": rng.choice([9, 100, 250]),
            "offset": rng.randrange(0, 400),
        }
        if rng.random() < 0.5:
            query |= {"from": f"2021-{rng.randint(1, 9):02d}-0{rng.randint(1, 9)}"}
        asked.append((f"/v1/alphas/{ALPHA}/{name}", "raw", query))
    positions = api.ok(f"/v1/alphas/{ALPHA}/positions", "raw", book="long_short", limit=50)["data"]
    symbols = sorted({row["symbol"] for row in positions})[:3]
    asked.append(
        (
            f"/v1/alphas/{ALPHA}/positions",
            "raw",
            {"book": "long_only", "symbol": ",".join(symbols), "offset": 5},
        )
    )
    return asked


def _scores_requests(api: Api, rng: random.Random) -> list[tuple[str, str, dict[str, Any]]]:
    """`/scores` pages of both field sets for a key with and without raw fields: windows, offsets
    (one past the window's end), symbol filters, and a window the decisions do not reach. Each
    drawn, so no request repeats one of another test (the layer keeps an answer asked twice)."""
    weeks = [row["date"] for row in api.ok(f"/v1/alphas/{ALPHA}/rebalances", "plain", limit=500)["data"]]
    symbols = sorted(
        {row["symbol"] for row in api.ok(f"/v1/alphas/{ALPHA}/scores", "plain", limit=200)["data"]}
    )
    path = f"/v1/alphas/{ALPHA}/scores"
    asked = []
    for fields in ("core", "all"):
        for key in ("plain", "raw"):
            start = rng.randrange(0, len(weeks) - 3)
            asked += [
                (
                    path,
                    key,
                    {"fields": fields, "limit": rng.choice([7, 100, 333]), "offset": rng.randrange(0, 900)},
                ),
                (path, key, {"fields": fields, "from": weeks[start], "to": weeks[start + 2], "offset": 11}),
                (path, key, {"fields": fields, "symbol": ",".join(rng.sample(symbols, 3)), "offset": 3}),
                (path, key, {"fields": fields, "from": weeks[-1], "offset": 10_000 + rng.randrange(10**6)}),
            ]
    asked.append((path, "raw", {"from": "1999-01-01", "to": f"1999-12-{rng.randint(10, 31)}"}))
    return asked


def _served_rows(api: Api, accept: str, path: str, key: str, query: dict[str, Any]) -> bytes:
    """The page's rows as served: the envelope's `data` and `pagination` (its `meta` names the
    request), or the NDJSON body whole."""
    headers = {"Authorization": f"Bearer {key}", "Accept": accept}
    response = api.client.get(path, params=query, headers=headers)
    assert response.status_code == 200, (path, query, response.text)
    if accept == "application/x-ndjson":
        return response.content
    return response.content[: response.content.index(b',"meta":')]


@pytest.mark.parametrize("accept", ["application/json", "application/x-ndjson"])
def test_pages_from_row_bytes_are_the_pages_made_from_rows(
    api: Api, derived: None, monkeypatch: pytest.MonkeyPatch, rows_made: list[int], accept: str
) -> None:
    """Pages at random offsets, orders and filters of a week, of every book table and of
    `/scores`: the bytes made once, then the same request with the row bytes switched off, byte
    for byte."""
    rng = random.Random(f"row-bytes:{accept}")
    asked = _week_requests(api, rng) + _book_requests(api, rng) + _scores_requests(api, rng)
    made_once = []
    for path, key, query in asked:
        before = len(rows_made)
        made_once.append(_served_rows(api, accept, path, key, query))
        assert len(rows_made) == before, f"{path} {query}: a page of row bytes makes no row"
    monkeypatch.setattr(queries, "ROW_JSON", {})
    monkeypatch.setattr(queries, "ROW_PARTS", {})
    for (path, key, query), body in zip(asked, made_once, strict=True):
        before = len(rows_made)
        assert _served_rows(api, accept, path, key, query) == body, (path, query)
        assert len(rows_made) > before, "switched off, the rows are made"
    assert sum(len(body) > 1000 for body in made_once) >= len(asked) // 2, "most pages hold rows"


def test_scores_of_a_build_without_row_parts_are_the_same_bytes(
    api: Api, derived: None, monkeypatch: pytest.MonkeyPatch, rows_made: list[int]
) -> None:
    """A build written before the row parts (pipeline 2.9: its row bytes file has no such column):
    its `core` pages are made from the rows, its `all` pages still joined from the row bytes, and
    both answer what a build with them does."""
    rng = random.Random("row-parts-absent")
    asked = _scores_requests(api, rng)
    with_parts = [_served_rows(api, "application/json", *request) for request in asked]
    absent = {
        table: {f"{name}_not_written": fields for name, fields in parts.items()}
        for table, parts in queries.ROW_PARTS.items()
    }
    monkeypatch.setattr(queries, "ROW_PARTS", absent)
    for (path, key, query), body in zip(asked, with_parts, strict=True):
        before = len(rows_made)
        assert _served_rows(api, "application/json", path, key, query) == body, (path, query)
        assert (len(rows_made) > before) == (query.get("fields", "core") == "core"), query


def test_csv_of_scores_is_written_from_the_arrow_columns(api: Api, rows_made: list[int]) -> None:
    """A `/scores` CSV page (a window, a symbol filter) makes no row either: Arrow's CSV writer
    writes it from the page's columns."""
    rng = random.Random("scores-csv")
    for path, key, query in _scores_requests(api, rng)[:3]:
        response = api.client.get(
            path, params=query, headers={"Authorization": f"Bearer {key}", "Accept": "text/csv"}
        )
        assert response.status_code == 200, response.text
        assert response.content.startswith(b'"date","symbol"'), response.content[:80]
    assert rows_made == []
