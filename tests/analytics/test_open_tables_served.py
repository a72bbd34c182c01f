"""docs/lake.md's open-tables notebook blocks, run as written over the demo's history (issue 78,
item 6): every alpha's current long_short ledger, and the same as of a decision's recorded time,
read from the Delta tables through the generations (polars, pandas, DuckDB, and plain polars
without the project), equal what `/v1/alphas/{alpha}/portfolio` serves, now and with `as_of`, row
for row and field for field."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.analytics.conftest import Api
from tests.support.as_of_approval import approval

REPO = Path(__file__).resolve().parents[2]
HEADING = "### Reading them: every alpha's ledger, now and as of a moment"
AS_OF_LINE = "as_of = dt.datetime(2024, 6, 3, 12, tzinfo=dt.UTC)  # e.g. a decision's recorded time"


def blocks() -> list[str]:
    text = (REPO / "docs" / "lake.md").read_text()
    section = text[text.index(HEADING) :]
    section = section[: section.index("\n## ")]
    found = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(found) == 2, "docs/lake.md lost its open-tables notebook blocks"
    return found


def run_blocks(lake: Path, as_of: dt.datetime) -> dict[str, Any]:
    first, second = blocks()
    assert 'lake = "var/lake"' in first and AS_OF_LINE in first
    code = first.replace('lake = "var/lake"', f"lake = {str(lake)!r}").replace(
        AS_OF_LINE, f"as_of = dt.datetime.fromisoformat({as_of.isoformat()!r})"
    )
    scope: dict[str, Any] = {}
    exec(code, scope)  # the docs' own code, as written
    exec(second, scope)
    return scope


def served(api: Api, alpha: str, **params: Any) -> list[dict[str, Any]] | None:
    """The alpha's long_short ledger as the API serves it (None: it has no such book)."""
    body = api.get(f"/v1/alphas/{alpha}/portfolio", book="long_short", limit=5000, **params)
    if body.status_code == 400:
        return None
    assert body.status_code == 200, body.text
    found = body.json()
    assert not found["pagination"]["has_more"]
    return list(found["data"])


def assert_equal_ledgers(api: Api, ledger: pl.DataFrame, **params: Any) -> int:
    """Every alpha the catalogue lists (at `as_of` when given): its rows in `ledger` are the API's."""
    alphas = [row["alpha_id"] for row in api.all_rows("/v1/alphas", **params)]
    # No alpha the catalogue does not list (then: not yet published) reaches the ledger.
    assert set(ledger["alpha"].unique()) <= set(alphas), sorted(set(ledger["alpha"].unique()) - set(alphas))
    compared = 0
    for alpha in alphas:
        rows = served(api, alpha, **params)
        mine = ledger.filter(pl.col("alpha") == alpha).sort("date")
        if rows is None:
            assert mine.height == 0, alpha
            continue
        assert mine.height == len(rows) and mine.height > 0, (alpha, mine.height, len(rows))
        assert [r["date"] for r in rows] == [d.isoformat() for d in mine["date"]], alpha
        fields = [f for f in rows[0] if f in mine.columns and mine.schema[f].is_numeric()]
        assert "ending_equity" in fields and len(fields) >= 10, fields
        for field in fields:
            assert [r[field] for r in rows] == mine[field].to_list(), (alpha, field)
        compared += 1
    return compared


def test_the_docs_open_tables_block_reads_what_the_api_serves_now_and_as_of_a_decision(
    api: Api, demo_lake: Path, demo_records: Path
) -> None:
    decided = approval(demo_records)
    as_of = dt.datetime.fromisoformat(decided["recorded_at"].replace("Z", "+00:00"))
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=dt.UTC)
    scope = run_blocks(demo_lake, as_of)
    now, then = scope["ledger_now"], scope["ledger_then"]
    assert isinstance(now, pl.DataFrame) and isinstance(then, pl.DataFrame)

    assert assert_equal_ledgers(api, now) >= 3
    assert assert_equal_ledgers(api, then, as_of=as_of.isoformat().replace("+00:00", "Z")) >= 1
    # Weekly runs were published after the decision: the two differ.
    assert (
        now.filter(pl.col("alpha") == "momentum_12_1").height
        > then.filter(pl.col("alpha") == "momentum_12_1").height
    )

    # pandas, DuckDB and the plain-polars recipe read the same rows.
    assert scope["pandas_then"]["ending_equity"].tolist() == then["ending_equity"].to_list()
    assert scope["duckdb_then"] == list(then.select("alpha", "date", "ending_equity").iter_rows())
    plain = scope["plain_then"].sort("alpha", "date")
    assert plain.select(then.columns).equals(then)


def test_a_moment_before_any_publish_reads_no_rows(demo_lake: Path) -> None:
    from datasets import tables

    assert tables.ledger(str(demo_lake), as_of=dt.datetime(2000, 1, 1, tzinfo=dt.UTC)).height == 0
    with pytest.raises(ValueError, match="aware"):
        tables.versions(str(demo_lake), as_of=dt.datetime(2000, 1, 1))
