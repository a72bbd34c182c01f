"""What docs/lake.md tells an analyst to run or to expect of the lake holds on the demo lake (issue 65,
item 7): the documented DuckDB statement gives each book's equity curve as the API serves it (its
export, which tests/api/test_exports.py holds equal to the JSON pages), every stored metric the page
maps to a `/metrics` path is served there, the catalogue index names its figures as the vocabulary
does and stores its instants as instants, an index written by an older pipeline reads as a new one,
and the benchmark's `adjusted_close` is null only where the demo's source recorded none.

The statement and the mapping are read from docs/lake.md itself, so the page cannot drift from
what these tests run."""

from __future__ import annotations

import io
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from alpha_results_seal.demo.market import UNADJUSTED_BENCHMARK_SESSIONS
from alpha_results_seal.storage import Storage
from analytics.figures import Figures
from datasets import catalogue_index
from schemas import lake
from schemas.vocabulary import VOCABULARY
from tests.support.build_tables import build_table, has_table, open_table_rows
from tests.support.exports import made_exports

DOC = Path(__file__).resolve().parents[2] / "docs" / "lake.md"
EQUITY_COLUMNS = ("period_return", "cumulative_return", "peak_equity", "drawdown", "drawdown_pct")


def section(heading: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}")
    return text[start : text.index("\n## ", start + 1)]


def documented_statement() -> str:
    """The DuckDB statement of "A book's daily return and drawdown", as written."""
    found = re.search(r"```sql\n(.*?)```", section("A book's daily return and drawdown"), re.S)
    assert found is not None
    return found.group(1)


def current_builds(root: Path) -> dict[str, Path]:
    """alpha -> its current build's folder (the pointer's)."""
    found = {}
    for pointer in sorted(root.glob("alphas/*/_current.json")):
        build = json.loads(pointer.read_text())["build_id"]
        found[pointer.parent.name] = pointer.parent / "builds" / build
    return found


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


LEDGER_SOURCE = "from book_ledger"
"""Where the documented statement reads one book's ledger: `book_ledger`, the book's rows of the
open tables (as the page says to register it), here each current build's book in turn."""


def test_the_documented_duckdb_statement_is_each_books_equity_curve(demo_lake: Path) -> None:
    statement = documented_statement()
    assert LEDGER_SOURCE in statement
    checked = 0
    for build in current_builds(demo_lake).values():
        made = made_exports(build)
        for relative in sorted(r for r in made if r.startswith("exports/equity-curve.")):
            book = relative.removeprefix("exports/equity-curve.").removesuffix(".parquet")
            con = duckdb.connect()
            con.register("book_ledger", build_table(build, "portfolio", book).to_arrow())
            mine = con.sql(statement).to_arrow_table()  # the page's statement, as written
            served = pq.read_table(io.BytesIO(made[relative]))
            assert mine.column("date").to_pylist() == served.column("date").to_pylist(), (build, book)
            for name in EQUITY_COLUMNS:
                ours, theirs = mine.column(name).to_pylist(), served.column(name).to_pylist()
                if name == "cumulative_return":
                    # Compared as the growth 1 + r: a product over hundreds of sessions rounds in
                    # the last bits of the growth, which a return near 0 magnifies (1e-12 relative
                    # of 4e-4 is 4e-16, below one rounding of the growth).
                    ours, theirs = ([None if v is None else 1 + v for v in vs] for vs in (ours, theirs))
                bad = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if not close(a, b)]
                assert not bad, (build.name, book, name, bad[:3], [(ours[i], theirs[i]) for i in bad[:3]])
            checked += 1
    assert checked >= 8  # every ledger book of every current demo build


def documented_metric_paths() -> list[tuple[tuple[str, ...], tuple[str, ...], str]]:
    """(sealed names, /metrics paths, how served) of "The stored metrics and the names ..."."""
    rows = []
    for line in section("The stored metrics and the names").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        names = tuple(re.findall(r"`([^`]+)`", cells[0]))
        paths = tuple(re.findall(r"`([^`]+)`", cells[1]))
        rows.append((names, paths, cells[2]))
    return rows


def at(document: Any, path: str) -> Any:
    for part in path.split("."):
        document = document[part]
    return document["value"] if isinstance(document, dict) and "value" in document else document


def test_each_stored_metric_is_served_at_its_documented_path(demo_lake: Path) -> None:
    rows = documented_metric_paths()
    assert len(rows) >= 10 and (("ic_hit_rate",), ("rank_ic.conditioned.hit_rate",), "as sealed") in rows
    figures = Figures.open(str(demo_lake))
    seen = 0
    for alpha, build in current_builds(demo_lake).items():
        if not has_table(build, "metrics_stored"):
            continue
        stored = build_table(build, "metrics_stored").to_dicts()
        overall = {r["metric"]: r["value"] for r in stored if r["scope"] == "overall" and not r["period"]}
        served = msgspec.to_builtins(figures.metrics(alpha))
        weeks_per_year = 52
        for names, paths, how in rows:
            sealed = [overall[n] for n in names if overall.get(n) is not None]
            if not sealed:
                continue
            values = [at(served, p) for p in paths]
            if how == "as sealed" or how.startswith("the first sealed"):
                assert values == [sealed[0]], (alpha, names, paths, values, sealed)
            else:  # an ICIR: served annualised (or per week) from the sealed value, one basis or the other
                factor = math.sqrt(weeks_per_year)
                assert any(
                    close(v, s) for v in values for s in (sealed[0], sealed[0] * factor, sealed[0] / factor)
                ), (alpha, names, values, sealed)
            seen += 1
    assert seen >= 20


def test_the_index_names_its_figures_as_the_vocabulary_and_stores_instants(demo_lake: Path) -> None:
    """The newest generation's file itself, as an analyst reads it with DuckDB, not through the reader."""
    storage = Storage(str(demo_lake))
    generation = catalogue_index.newest(storage, str(demo_lake))
    assert generation is not None
    schema = pq.read_schema(demo_lake / "catalogue" / generation.index)
    for column in (term.name for term in lake.FIGURE_TERMS["CATALOGUE_INDEX"]):
        assert column in schema.names and column in VOCABULARY, column
    assert not {"mean_ic", "icir_annualised"} & set(schema.names)
    for name in ("started_at", "built_at", "indexed_at", "replaced_at", "live_approved_at"):
        assert schema.field(name).type == pa.timestamp("us", tz="UTC"), name
    index = catalogue_index.read_index(storage, str(demo_lake), generation)
    figures = Figures.open(str(demo_lake))
    for row in index.to_pylist():
        if row["unreadable"] is not None:
            continue
        core = msgspec.to_builtins(figures.metrics(row["alpha_id"]))["core"]
        assert row["ic"] == core["ic"]["value"] and row["icir"] == core["icir"]["value"], row["alpha_id"]
        entry = json.loads(row["entry"])
        assert row["built_at"] == datetime.fromisoformat(entry["built_at"])
        assert row["started_at"] == datetime.fromisoformat(entry["started_at"]).astimezone(UTC)


def test_an_index_written_before_reads_as_one_written_now() -> None:
    """A 2.5 file (old names, text and coarser instants) and an older one (its `icir` as sealed)."""
    now = pa.table(
        {
            "alpha_id": ["a", "b", "c"],
            "started_at": pa.array(
                [datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC), datetime(2023, 1, 2, 1, 4, 5, tzinfo=UTC), None],
                lake.UTC_TS,
            ),
            "built_at": pa.array([datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)] * 3, lake.UTC_TS),
            "ic": [0.01, None, 0.03],
            "icir": [1.5, 2.0, None],
            "indexed_at": pa.array([datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)] * 3, lake.UTC_TS),
            "replaced_at": pa.array([None, datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC), None], lake.UTC_TS),
        }
    )
    before = pa.table(
        {
            "alpha_id": ["a", "b", "c"],
            # as sealed: another offset, and a time without one (UTC); null stays null
            "started_at": ["2023-01-02T04:04:05+01:00", "2023-01-02T01:04:05", None],
            "built_at": ["2024-05-06T07:08:09+00:00"] * 3,
            "mean_ic": [0.01, None, 0.03],
            "icir_annualised": [1.5, 2.0, None],
            "indexed_at": now.column("indexed_at").cast(pa.timestamp("ms", tz="UTC")),
            "replaced_at": now.column("replaced_at").cast(pa.timestamp("s", tz="UTC")),
        }
    )
    assert catalogue_index.upgraded(before).equals(now)
    assert catalogue_index.upgraded(now).equals(now)  # a current file passes unchanged
    older = before.drop_columns(["icir_annualised"]).append_column("icir", pa.array([0.2, 0.3, 0.4]))
    upgraded = catalogue_index.upgraded(older)
    assert "icir" not in upgraded.column_names  # the sealed-basis ICIR is never read as the annualised one
    assert catalogue_index.conformed(older).column("icir").null_count == 3
    # Unreadable text is null, as the catalogue order already treated it (last).
    bad = catalogue_index.upgraded(before.set_column(1, "started_at", pa.array(["soon", None, "x"])))
    assert bad.column("started_at").null_count == 3


def test_a_read_by_column_of_an_older_index_finds_the_renamed_column(tmp_path: Path) -> None:
    """`read_index(..., columns)` of a 2.5 file asks for `ic`, and gets its `mean_ic` as `ic`."""
    folder = tmp_path / "catalogue" / "index"
    folder.mkdir(parents=True)
    old = pa.table({"alpha_id": ["a"], "mean_ic": [0.02], "icir_annualised": [1.1]})
    pq.write_table(old, folder / "old.parquet")
    read = catalogue_index._read_parquet(
        Storage(str(tmp_path)), str(tmp_path), "index/old.parquet", ["ic", "icir"]
    )
    assert read.to_pylist() == [{"ic": 0.02, "icir": 1.1}]


def test_the_benchmarks_adjusted_close_is_null_only_before_its_source_recorded_one(demo_lake: Path) -> None:
    pointer = json.loads((demo_lake / "benchmarks" / "SPY" / "_current.json").read_text())
    daily = pq.read_table(demo_lake / "benchmarks" / "SPY" / "builds" / pointer["build_id"] / "daily.parquet")
    adjusted = daily.column("adjusted_close")
    assert daily.num_rows > UNADJUSTED_BENCHMARK_SESSIONS
    assert adjusted.slice(0, UNADJUSTED_BENCHMARK_SESSIONS).null_count == UNADJUSTED_BENCHMARK_SESSIONS
    rest = adjusted.slice(UNADJUSTED_BENCHMARK_SESSIONS)
    assert rest.null_count == 0 and pc.all(pc.greater(rest, 0)).as_py()


@pytest.mark.parametrize("table", ["analytics_rolling"])
def test_a_builds_figure_columns_are_named_as_the_vocabulary(demo_lake: Path, table: str) -> None:
    checked = 0
    for build in current_builds(demo_lake).values():
        if has_table(build, table):
            names = open_table_rows(build, table).columns  # the columns the open table stores
            checked += 1
            assert {term.name for term in lake.FIGURE_TERMS[table]} <= set(names) and not {
                "icir",
                "hit_rate",
                "mean_ic",
            } & set(names)
    assert checked


class _Build:
    """The little of a build view `/analytics/rolling`'s page reads: a table, the memo, the entry."""

    def __init__(self, table: pa.Table) -> None:
        self.rolling, self.entry = table, {}

    def table(self, name: str) -> pa.Table | None:
        return self.rolling if name == "analytics_rolling" else None

    def memo(self, key: str, make: Any) -> Any:
        return make()


def test_a_rolling_table_written_before_serves_the_same_rows(demo_lake: Path) -> None:
    """A 2.5 build's analytics_rolling (`icir`, `hit_rate`) is served until it is rebuilt: its page
    is the page of the same rows under the new names."""
    from analytics import rolling

    build = next(b for b in current_builds(demo_lake).values() if has_table(b, "analytics_rolling"))
    schema = lake.TABLE_SCHEMAS["analytics_rolling"]
    now = build_table(build, "analytics_rolling").to_arrow().select(schema.names).cast(schema)
    before = now.rename_columns(
        [{"icir_per_week": "icir", "return_hit_rate": "hit_rate"}.get(n, n) for n in now.column_names]
    )
    pages = [
        rolling.rolling_page(_Build(t), "long_short", 26, (None, None), 1000, 0)  # type: ignore[arg-type]
        for t in (now, before)
    ]
    assert pages[0].total > 0 and pages[0] == pages[1]
    served = msgspec.to_builtins(pages[0].rows[0])
    assert {"icir", "return_hit_rate"} <= set(served) and "icir_per_week" not in served
