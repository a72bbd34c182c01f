"""A research team's own engine writing its seal with the kit: run in a virtual environment that
holds the seal kit alone (tests/sealkit/test_fresh_venv.py), never imported by the suite.

    python team_engine.py FRAMES SEAL pandas|polars

FRAMES holds what the team's engine has, as Parquet: `decisions.parquet` (no derived column),
`week_status.parquet` (the weeks not traded), per book `<book>.positions`, `.pnl` (no
execution_cost), `.trades` (no execution_cost), `.sessions` (date, risk_free_return,
rounding_adjustment), and `facts.json`. The frames are read with the library named, the seal
written with the builders and checked; the report is printed, the exit code is the check's.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from alpha_results_seal.builders import Book, Facts, write_seal

frames, dest, library = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
if library == "pandas":
    import pandas

    read = pandas.read_parquet
else:
    import polars

    read = polars.read_parquet
facts = json.loads((frames / "facts.json").read_text())
books = {
    name: Book(
        positions=read(frames / f"{name}.positions.parquet"),
        pnl=read(frames / f"{name}.pnl.parquet"),
        trades=read(frames / f"{name}.trades.parquet"),
        sessions=read(frames / f"{name}.sessions.parquet"),
    )
    for name in facts.pop("books")
}
report = write_seal(
    dest,
    Facts(**{**facts, "started_at": dt.datetime.fromisoformat(facts["started_at"])}),
    read(frames / "decisions.parquet"),
    books,
    week_status=read(frames / "week_status.parquet"),
    metrics=read(frames / "metrics.parquet"),
)
print("\n".join(report.lines()))
sys.exit(0 if report.ok else 1)
