"""docs/lake.md's notebook block, run as written over a lake whose newest generation is a delta
(issue 64, finding 10): the catalogue it reads is the one the server serves (the merged index, not
the base's file), its current builds are the pointers' builds, and the ledger it reads from them is
each current build's, row for row (the build's rows read from the open tables at the versions its
generation names, apart from DuckDB's reading)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import polars as pl

from alpha_results_seal.storage import Storage
from datasets import catalogue_index
from tests.conftest import linked_copy
from tests.support.build_tables import build_table, has_table

REPO = Path(__file__).resolve().parents[2]
HEADING = "### In a notebook: the current builds and the catalogue, right after any publish"


def notebook_block() -> str:
    text = (REPO / "docs" / "lake.md").read_text()
    section = text[text.index(HEADING) :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "docs/lake.md lost its notebook block"
    return found.group(1)


def run_block(lake: Path) -> dict[str, Any]:
    code = notebook_block()
    assert 'lake = "var/lake"' in code
    scope: dict[str, Any] = {}
    exec(code.replace('lake = "var/lake"', f"lake = {str(lake)!r}"), scope)  # the docs' own code, as written
    return scope


def test_the_docs_notebook_reads_the_served_catalogue_and_the_current_builds(
    demo_lake: Path, tmp_path: Path
) -> None:
    lake = linked_copy(demo_lake, tmp_path / "lake")
    storage = Storage(str(lake))
    generation = catalogue_index.newest(storage, str(lake))
    assert generation is not None and generation.delta is not None, "the demo's history ends on a delta"
    served = catalogue_index.read_index(storage, str(lake), generation)
    scope = run_block(lake)
    con = scope["con"]

    # The catalogue: every served row, no other, with the served values.
    rows = con.execute(
        "select alpha_id, build_id, information_ratio from catalogue order by alpha_id"
    ).fetchall()
    expected = sorted(
        zip(
            served.column("alpha_id").to_pylist(),
            served.column("build_id").to_pylist(),
            served.column("information_ratio").to_pylist(),
            strict=True,
        )
    )
    assert rows == expected
    # The base file alone is stale: the delta replaced some of its rows.
    base = pl.read_parquet(lake / "catalogue" / generation.index)
    assert set(zip(base["alpha_id"], base["build_id"], strict=True)) != {(a, b) for a, b, _ in rows}

    # The current builds are the pointers' builds (what a publish switched), each folder complete.
    current = dict(con.execute("select alpha_id, build_id from current_builds").fetchall())
    for alpha, build in current.items():
        pointer = json.loads((lake / "alphas" / alpha / "_current.json").read_text())
        assert pointer["build_id"] == build, alpha
        assert (lake / "alphas" / alpha / "builds" / build / "alpha.json").exists(), alpha

    # The ledger read through them: each current build's long_short ledger, row for row.
    ledger = pl.DataFrame(
        scope["ledger"], schema=["alpha_id", "build_id", "date", "ending_equity"], orient="row"
    )
    for alpha, build in current.items():
        folder = lake / "alphas" / alpha / "builds" / build
        mine = ledger.filter(pl.col("alpha_id") == alpha).sort("date")
        if not has_table(folder, "portfolio", "long_short"):
            assert mine.height == 0, alpha
            continue
        files = build_table(folder, "portfolio", "long_short").sort("date")
        assert set(mine["build_id"]) == {build}, alpha
        assert mine["date"].to_list() == files["date"].to_list(), alpha
        assert mine["ending_equity"].to_list() == files["ending_equity"].to_list(), alpha

    # And the screen is the served catalogue's, filtered and ordered as it says.
    screened = (
        pl.from_arrow(served.select(["alpha_id", "complete", "information_ratio"]))
        .filter(pl.col("complete") & (pl.col("information_ratio") > 0.5))
        .sort("information_ratio", descending=True)
    )
    assert [r[0] for r in scope["top"]] == screened["alpha_id"].to_list()
