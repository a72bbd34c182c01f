"""Hostile seal text in the columnar representations (issue 33, audit items 17, 20 and 21), over
the lake of tests/hostile_lake.py: one alpha built with formula text in its free text, one a lake
of an older build holding formula symbols and decision reasons and a 600 KB `source_alpha_id`.

- CSV: every text cell a spreadsheet would run (starting with `=`, `+`, `-`, `@`, a tab or a
  carriage return) is written with a `'` before it, on the catalogue, the screener, week pages,
  scores, positions, P&L and trades; numbers, negative ones included, stay numbers. Before, the
  cells went out as the seal wrote them (`=HYPERLINK(...)` ran when the file was opened).
- Headers: X-Meta and X-Warnings stay within 8 KB whatever the lake holds (before, the 600 KB
  `source_alpha_id` went into X-Meta of every columnar page, which no client could read); the
  page's meta is whole in the JSON answer and in the Arrow schema metadata.
- NDJSON: U+2028 and U+2029 are escaped, so a reader splitting on every line break keeps one
  record per line (before, the record was cut in two).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from litestar.testing import TestClient

from core.settings import Settings
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.hostile_lake import (
    DECISION_REASON,
    HOSTILE,
    HYPERLINK,
    METHOD,
    OLD_BUILD,
    SOURCE_ALPHA_ID,
    STRUCTURE,
    SYMBOLS,
    TLDR,
    build_hostile_lake,
    neutralised,
)

RAW = {"Authorization": "Bearer raw"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    lake = build_hostile_lake(tmp_path_factory.mktemp("hostile"))
    app = create_app(
        Settings(lake=str(lake), environment="test"), authenticate=fake_authenticate, limiter=None
    )
    with TestClient(app=app) as test_client:
        yield test_client


def get(client: TestClient[Any], path: str, **params: Any) -> Any:
    response = client.get(path, params=params, headers=RAW)
    assert response.status_code == 200, response.text
    return response


def csv_rows(
    client: TestClient[Any], path: str, **params: Any
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The JSON rows of a page and the same page's CSV rows, as a spreadsheet would read them."""
    expected = get(client, path, **params).json()["data"]
    text = get(client, path, format="csv", **params).text
    return expected, list(csv.DictReader(io.StringIO(text, newline="")))


def assert_cells(expected: list[dict[str, Any]], rows: list[dict[str, str]]) -> int:
    """Each text cell neutralised when it starts like a formula and as it is otherwise; each
    number the JSON's number, never quoted. Returns how many cells were neutralised."""
    assert len(rows) == len(expected)
    quoted = 0
    for want, got in zip(expected, rows, strict=True):
        for field, value in want.items():
            cell = got[field]
            if isinstance(value, str):
                assert cell == neutralised(value), (field, value, cell)
                quoted += cell != value
            elif isinstance(value, bool):
                assert cell == str(value).lower()
            elif isinstance(value, int | float):
                assert not cell.startswith("'") and float(cell) == value, (field, value, cell)
    return quoted


def test_catalogue_and_screener_csv_neutralise_formula_text(client: TestClient[Any]) -> None:
    expected, rows = csv_rows(client, "/v1/alphas")
    hostile = next(row for row in rows if row["alpha_id"] == HOSTILE)
    assert hostile["name"] == "'" + HYPERLINK and hostile["tldr"] == "'" + TLDR
    assert assert_cells(expected, rows) == 2

    expected, rows = csv_rows(client, "/v1/analytics/screen")
    hostile = next(row for row in rows if row["alpha_id"] == HOSTILE)
    assert (hostile["structure"], hostile["method"]) == ("'" + STRUCTURE, "'" + METHOD)
    assert assert_cells(expected, rows) == 4  # name, tldr, structure, method


def test_week_pages_and_scores_csv_neutralise_symbols_and_reasons(client: TestClient[Any]) -> None:
    alpha = f"/v1/alphas/{OLD_BUILD}"
    weeks = get(client, f"{alpha}/rebalances").json()["data"]
    expected, rows = csv_rows(client, f"{alpha}/rebalances/{weeks[2]['date']}", limit=100)
    by_symbol = {row["symbol"]: row for row in rows}
    assert by_symbol["'" + HYPERLINK]["decision_reason"] == "'" + DECISION_REASON
    assert {row["symbol"] for row in rows} >= {neutralised(s) for s in SYMBOLS.values()}
    assert assert_cells(expected, rows) >= 2 * len(SYMBOLS)

    expected, rows = csv_rows(client, f"{alpha}/scores", limit=5000, fields="all")
    assert any(float(row["score"]) < 0 for row in rows)  # negative numbers, written as numbers
    assert assert_cells(expected, rows) >= len(SYMBOLS) * len(weeks)


@pytest.mark.parametrize("route", ["positions", "pnl", "trades"])
def test_book_pages_csv_neutralise_symbols(client: TestClient[Any], route: str) -> None:
    expected, rows = csv_rows(client, f"/v1/alphas/{OLD_BUILD}/{route}", book="long_short", limit=5000)
    assert {row["symbol"] for row in rows} & {"'" + HYPERLINK}
    assert assert_cells(expected, rows) > 0


def test_a_meta_over_the_header_bound_is_replaced_and_kept_in_the_body(client: TestClient[Any]) -> None:
    path = f"/v1/alphas/{OLD_BUILD}/scores"
    assert get(client, path).json()["meta"]["source_alpha_id"] == SOURCE_ALPHA_ID
    for name in ("csv", "ndjson", "arrow", "parquet"):
        response = get(client, path, format=name, limit=5)
        header = response.headers["x-meta"]
        assert len(header.encode()) <= 8192
        omitted = json.loads(header)
        assert (set(omitted), omitted["omitted"], omitted["limit"]) == (
            {"omitted", "bytes", "limit"},
            "too_large",
            8192,
        )
        assert omitted["bytes"] > len(SOURCE_ALPHA_ID)  # the size of the meta it stands for
        assert len(response.headers["x-pagination"]) < 200
    arrow = get(client, path, format="arrow", limit=5).content
    meta = json.loads(pa.ipc.open_stream(arrow).schema.metadata[b"meta"])
    assert meta["source_alpha_id"] == SOURCE_ALPHA_ID
    # An alpha whose meta fits keeps its X-Meta whole.
    small = json.loads(get(client, f"/v1/alphas/{HOSTILE}/scores", format="csv", limit=5).headers["x-meta"])
    assert small["alpha_id"] == HOSTILE and small["source_alpha_id"] == f"run-{HOSTILE}"


def test_ndjson_escapes_unicode_line_separators(client: TestClient[Any]) -> None:
    expected = get(client, "/v1/alphas").json()["data"]
    body = get(client, "/v1/alphas", format="ndjson").content
    assert "\u2028".encode() not in body and "\u2029".encode() not in body
    assert b"\\u2028" in body and b"\\u2029" in body
    lines = body.decode().splitlines()  # splits on U+2028 and U+2029 too
    assert [json.loads(line) for line in lines] == expected
    assert next(row for row in expected if row["alpha_id"] == HOSTILE)["tldr"] == TLDR


def test_the_old_builds_lake_is_what_the_tests_claim(tmp_path: Path) -> None:
    """Guard for the fixture: today's build refuses the old build's seal (its symbols), so the
    lake above stands for one no current build writes."""
    from alpha_results_seal.rules import SealRejected
    from pipeline.publish import publish_seal
    from tests.hostile_lake import write_old_build_seal

    seal = write_old_build_seal(tmp_path / OLD_BUILD)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(seal), str(tmp_path / "lake"))
    assert caught.value.rule == "manifest.text_bounds"


def test_a_column_mixing_text_and_numbers_neutralises_only_the_text() -> None:
    """A page made from rows (no serving table) whose column mixes kinds is written as text: the
    cells that were text are neutralised, a negative number among them is not."""
    from datasets.queries import Page
    from serve.representation import Body

    values = ["=1+1", -2.5, "-x", None, "safe"]
    rows = [{"n": n, "value": value} for n, value in enumerate(values)]
    paging = {"limit": 5, "offset": 0, "returned": 5, "total": 5, "has_more": False}
    content, _ = Body(Page(rows, 5), None, None, paging, {}).encode("csv")
    cells = [row["value"] for row in csv.DictReader(io.StringIO(content.decode(), newline=""))]
    assert cells == ["'=1+1", "-2.5", "'-x", "", "safe"]
