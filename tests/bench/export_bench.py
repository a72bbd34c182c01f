"""The whole decision set into a polars DataFrame: Parquet export vs JSON paging (`just bench-export`).

    python -m tests.bench.export_bench [--lake var/lake] [--alpha momentum_12_1] [--runs 5] [--out FILE]

Starts `alpha-results serve` (one worker, the operator CLI's admin key with raw-book access, a
private key store and signing key, a fetch cap high enough for the runs) over the lake, then
times, end to end from a Python client (httpx, one keep-alive connection, its default
`Accept-Encoding`):

- export: `GET /v1/alphas/{alpha}/exports/decisions` (the signed URL), `GET` the URL, and
  `polars.read_parquet` of the body;
- JSON: `GET /v1/alphas/{alpha}/scores?fields=all&limit=5000&offset=...` until `has_more` is
  false, then `polars.from_dicts` of the rows (what a client does to get the same DataFrame);
- Arrow: the same pages with `Accept: application/vnd.apache.arrow.stream` (`X-Pagination`
  says when to stop), each read with `pyarrow.ipc`, concatenated and handed to polars
  (`polars.from_arrow`, no copy of the columns).

Each path runs once to warm up (the first request of a build maps its files), then `--runs`
times alternately; the report gives the median, min and max per path, the bytes on the wire and
the body size. Both DataFrames must have the same rows and columns, else the run fails.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import polars as pl
import pyarrow as pa

from tests.bench.harness import (
    BenchError,
    BenchKey,
    Server,
    export_bench_main,
)

TARGET_SECONDS = 1.0
ARROW_TARGET_SECONDS = 0.5
JSON_PAGE = 5000


@dataclass(frozen=True)
class Fetched:
    frame: pl.DataFrame
    wire_bytes: int  # bytes received (compressed when the server compressed)
    body_bytes: int  # decoded body bytes
    encoding: str  # Content-Encoding of the data transfer ("identity" when none)


def _received(response: httpx.Response) -> int:
    return int(response.num_bytes_downloaded)


def by_export(client: httpx.Client, files: httpx.Client, alpha: str) -> Fetched:
    export = client.get(f"/v1/alphas/{alpha}/exports/decisions")
    export.raise_for_status()
    url = export.json()["data"]["url"]
    download = files.get(url)  # no API key: the URL is the credential
    download.raise_for_status()
    frame = pl.read_parquet(io.BytesIO(download.content))
    return Fetched(
        frame,
        _received(export) + _received(download),
        len(download.content),
        download.headers.get("content-encoding", "identity"),
    )


def by_json(client: httpx.Client, files: httpx.Client, alpha: str) -> Fetched:
    rows: list[dict[str, object]] = []
    wire = body = 0
    encoding = "identity"
    while True:
        page = client.get(
            f"/v1/alphas/{alpha}/scores", params={"fields": "all", "limit": JSON_PAGE, "offset": len(rows)}
        )
        page.raise_for_status()
        wire += _received(page)
        body += len(page.content)
        encoding = page.headers.get("content-encoding", "identity")
        document = page.json()
        rows += document["data"]
        if not document["pagination"]["has_more"]:
            break
    return Fetched(pl.from_dicts(rows, infer_schema_length=None), wire, body, encoding)


ARROW = "application/vnd.apache.arrow.stream"


def by_arrow(client: httpx.Client, files: httpx.Client, alpha: str) -> Fetched:
    tables: list[pa.Table] = []
    wire = body = offset = 0
    encoding = "identity"
    while True:
        page = client.get(
            f"/v1/alphas/{alpha}/scores",
            params={"fields": "all", "limit": JSON_PAGE, "offset": offset},
            headers={"Accept": ARROW},
        )
        page.raise_for_status()
        wire += _received(page)
        body += len(page.content)
        encoding = page.headers.get("content-encoding", "identity")
        tables.append(pa.ipc.open_stream(page.content).read_all())
        paging = json.loads(page.headers["x-pagination"])
        offset += paging["returned"]
        if not paging["has_more"]:
            break
    frame = pl.from_arrow(pa.concat_tables(tables))
    assert isinstance(frame, pl.DataFrame)
    return Fetched(frame, wire, body, encoding)


Fetch = Callable[[httpx.Client, httpx.Client, str], Fetched]


def timed(fetch: Fetch, clients: tuple[httpx.Client, httpx.Client], alpha: str) -> tuple[float, Fetched]:
    start = time.perf_counter()
    fetched = fetch(*clients, alpha)
    return time.perf_counter() - start, fetched


def measure(base_url: str, token: str, alpha: str, runs: int) -> list[str]:
    times: dict[str, list[float]] = {"export": [], "json": [], "arrow": []}
    fetched: dict[str, Fetched] = {}
    paths: dict[str, Fetch] = {"export": by_export, "json": by_json, "arrow": by_arrow}
    with (
        httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as client,
        httpx.Client(timeout=120) as files,
    ):
        accept = client.headers.get("accept-encoding", "")
        cold = {name: timed(fetch, (client, files), alpha)[0] for name, fetch in paths.items()}
        for run in range(runs):
            for name, fetch in paths.items():
                seconds, fetched[name] = timed(fetch, (client, files), alpha)
                times[name].append(seconds)
                print(f"run {run + 1}/{runs}  {name:<6} {seconds:7.3f} s", flush=True)
    export, json_rows = fetched["export"].frame, fetched["json"].frame
    if export.shape != json_rows.shape or export.columns != [
        c for c in export.columns if c in json_rows.columns
    ]:
        raise BenchError(f"the two DataFrames differ: export {export.shape}, JSON {json_rows.shape}")
    arrow = fetched["arrow"].frame
    if not arrow.equals(export.select(arrow.columns)) or arrow.columns != json_rows.columns:
        raise BenchError("the Arrow pages' DataFrame differs from the export's")
    if "raw_score" not in export.columns:
        raise BenchError("the bench key has no raw-book access: the export lacks raw_score")
    lines = [
        "| path | median | min | max | first (cold) | on the wire | body |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, label in (
        ("export", "export + download + `pl.read_parquet`"),
        ("json", "JSON paging + `pl.from_dicts`"),
        ("arrow", "Arrow paging + `pl.from_arrow`"),
    ):
        values = times[name]
        item = fetched[name]
        lines.append(
            f"| {label} | {statistics.median(values):.3f} s | {min(values):.3f} s | {max(values):.3f} s | "
            f"{cold[name]:.3f} s | {item.wire_bytes / 1e6:.1f} MB ({item.encoding}) | {item.body_bytes / 1e6:.1f} MB |"
        )
    speedup = statistics.median(times["json"]) / statistics.median(times["export"])
    arrow_speedup = statistics.median(times["json"]) / statistics.median(times["arrow"])
    arrow_verdict = "met" if statistics.median(times["arrow"]) < ARROW_TARGET_SECONDS else "NOT met"
    verdict = "met" if statistics.median(times["export"]) < TARGET_SECONDS else "NOT met"
    lines += [
        "",
        f"{export.height:,} rows x {export.width} columns (`fields=all` with raw fields) either way; the "
        f"export path is {speedup:.0f}x faster. Target (under {TARGET_SECONDS:g} s end to end): {verdict}. "
        f"Client `Accept-Encoding: {accept}`; JSON pages of {JSON_PAGE:,} rows.",
        "",
        f"Arrow pages are {arrow_speedup:.1f}x faster than JSON pages (same pages, same rows). Target (Arrow "
        f"pages into polars under {ARROW_TARGET_SECONDS:g} s): {arrow_verdict}.",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    def measured(server: Server, key: BenchKey, work: Path, args: argparse.Namespace) -> list[str]:
        return measure(server.base_url, key.token, args.alpha, args.runs)

    urls = "HMAC-signed URL on the server's `/downloads/...` route"
    return export_bench_main(argv, __doc__ or "", "tests.bench.export_bench", measured, urls)


if __name__ == "__main__":
    sys.exit(main())
