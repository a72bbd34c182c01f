"""Every representation of every recorded collection request equals its recorded JSON rows
(issue 23 item 3): the answers of `recorded.jsonl.gz` that are collection pages (200), asked again
with `Accept` naming Arrow, CSV, NDJSON or Parquet, hold the recorded rows in the recorded order,
and their `X-Pagination` header is the recorded `pagination`.

`./dev test` asks each page in one columnar representation, in turn (2,004 pages: every
representation about 500 times); `ALPHA_RESULTS_EQUALITY_REPRESENTATIONS=all` asks every page in
all four (`just equality-representations`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from schemas.choices import REPRESENTATIONS
from serve.endpoints import endpoints
from tests.equality.record import client_for, normalise
from tests.equality.requests import endpoint_of
from tests.representation_rows import filled, rows_of
from tests.support.equality import differences, recorded_lines

COLUMNAR = ("arrow", "csv", "ndjson", "parquet")
MIN_PAGES = 1000


def test_every_representation_of_every_recorded_page_equals_its_json_rows(demo_lake: Path) -> None:
    every = os.environ.get("ALPHA_RESULTS_EQUALITY_REPRESENTATIONS") == "all"
    pages = [
        r
        for r in recorded_lines()
        if r["status"] == 200 and (e := endpoint_of(r["path"])) is not None and endpoints()[e].collection
    ]
    assert len(pages) >= MIN_PAGES
    diffs: list[str] = []
    asked = dict.fromkeys(COLUMNAR, 0)
    with client_for(demo_lake) as client:
        for index, record in enumerate(pages):
            for name in COLUMNAR if every else (COLUMNAR[index % len(COLUMNAR)],):
                headers = {"Accept": REPRESENTATIONS[name]}
                if record["token"] is not None:
                    headers["Authorization"] = f"Bearer {record['token']}"
                response = client.get(record["path"], headers=headers)
                asked[name] += 1
                where = f"[{record['token']}] {name} GET {record['path']}"
                if response.status_code != 200:
                    diffs.append(f"{where}: status {response.status_code}")
                    continue
                expected = record["body"]["data"]
                rows = normalise(rows_of(name, response.content, expected))  # build ids masked
                if name != "ndjson":
                    columns = list(rows[0]) if rows else []
                    # A field of the JSON rows missing from the columns would vanish in `filled`.
                    dropped = {k for row in expected for k in row} - set(columns)
                    if dropped:
                        diffs.append(f"{where}: columns lack {sorted(dropped)}")
                    expected = filled(expected, columns)
                found: list[str] = []
                differences(expected, rows, "$.data", found)
                differences(
                    record["body"]["pagination"], json.loads(response.headers["x-pagination"]), "$.p", found
                )
                diffs.extend(f"{where} :: {d}" for d in found[:3])
            if len(diffs) > 20:
                break
    assert not diffs, "\n".join(diffs[:20])
    assert min(asked.values()) >= MIN_PAGES // 4 * (4 if every else 1)
