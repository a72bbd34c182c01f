"""A whole decision set into pandas: Delta Sharing's `load_as_pandas` against the typed client's
export path, same server, same run (`just bench-delta-sharing`, issue 38).

    python -m tests.bench.delta_sharing_bench [--lake var/lake] [--alpha momentum_12_1] [--runs 5] [--out FILE]

Starts `alpha-results serve` (one worker, an admin key of the operator CLI with raw-book access,
a private key store and signing key, a fetch cap high enough for the runs) over the lake, then
times, end to end from a Python client on loopback:

- client: `Client(...).scores(alpha, fields="all").to_pandas()` of the typed client
  (client/src/alpha_results_client/exports.py: the export's signed URL, one GET, verified, read);
- sharing: `delta_sharing.load_as_pandas("<profile>#alpha_results.<alpha>.decisions")`, the
  protocol's official client (metadata, query, then pyarrow over fsspec's HTTP file system on the
  signed URL, by byte ranges).

Each path runs once to warm up, then `--runs` times alternately; the report gives the median, min
and max per path and the ratio of the medians (target: sharing within 2x the client's). Both frames
must hold the same rows and columns, else the run fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import delta_sharing
import pandas as pd

from tests.bench.harness import (
    BenchError,
    BenchKey,
    Server,
    export_bench_main,
)

TARGET_RATIO = 2.0
SHARE = "alpha_results"


def timed(read: Callable[[], pd.DataFrame]) -> tuple[float, pd.DataFrame]:
    start = time.perf_counter()
    frame = read()
    return time.perf_counter() - start, frame


def same_rows(client: pd.DataFrame, sharing: pd.DataFrame) -> None:
    """The two frames hold the same rows and columns (values compared as the JSON spells them:
    the typed client and pyarrow may pick different pandas dtypes for one column)."""
    if list(client.columns) != list(sharing.columns) or len(client) != len(sharing):
        raise BenchError(
            f"the frames differ: client {client.shape} {list(client.columns)[:4]}..., sharing {sharing.shape}"
        )
    for column in ("symbol", "score", "date"):
        left = client[column].astype(str).tolist()
        right = sharing[column].astype(str).tolist()
        if left != right:
            raise BenchError(f"column {column} differs between the two frames")


def measure(base_url: str, token: str, profile: str, alpha: str, runs: int) -> list[str]:
    from alpha_results_client import Client

    paths: dict[str, Callable[[], pd.DataFrame]] = {}
    client = Client(base_url, token=token)
    paths["client"] = lambda: client.scores(alpha, fields="all").to_pandas()
    paths["sharing"] = lambda: delta_sharing.load_as_pandas(f"{profile}#{SHARE}.{alpha}.decisions")
    times: dict[str, list[float]] = {name: [] for name in paths}
    frames: dict[str, pd.DataFrame] = {}
    try:
        cold = {name: timed(read)[0] for name, read in paths.items()}
        for run in range(runs):
            for name, read in paths.items():
                seconds, frames[name] = timed(read)
                times[name].append(seconds)
                print(f"run {run + 1}/{runs}  {name:<8} {seconds:7.3f} s", flush=True)
    finally:
        client.close()
    same_rows(frames["client"], frames["sharing"])
    if "raw_score" not in frames["sharing"].columns:
        raise BenchError("the bench key has no raw-book access: the shared decisions lack raw_score")
    labels = {
        "client": 'typed client `scores(fields="all").to_pandas()` (export path)',
        "sharing": "`delta_sharing.load_as_pandas` (metadata, query, ranged reads)",
    }
    lines = ["| path | median | min | max | first (cold) |", "|---|---|---|---|---|"]
    for name, values in times.items():
        lines.append(
            f"| {labels[name]} | {statistics.median(values):.3f} s | {min(values):.3f} s | "
            f"{max(values):.3f} s | {cold[name]:.3f} s |"
        )
    ratio = statistics.median(times["sharing"]) / statistics.median(times["client"])
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    frame = frames["sharing"]
    lines += [
        "",
        f"{len(frame):,} rows x {frame.shape[1]} columns either way. Delta Sharing / typed client: "
        f"{ratio:.2f}x (target: within {TARGET_RATIO:g}x): {verdict}.",
    ]
    return lines


def measured(server: Server, key: BenchKey, work: Path, args: argparse.Namespace) -> list[str]:
    profile = work / "bench.share"
    document = {
        "shareCredentialsVersion": 1,
        "endpoint": f"{server.base_url}/delta-sharing",
        "bearerToken": key.token,
    }
    profile.write_text(json.dumps(document))
    return measure(server.base_url, key.token, str(profile), args.alpha, args.runs)


def main(argv: list[str] | None = None) -> int:
    urls = "HMAC-signed export URL on the server's `/downloads/...` route"
    return export_bench_main(argv, __doc__ or "", "tests.bench.delta_sharing_bench", measured, urls)


if __name__ == "__main__":
    sys.exit(main())
