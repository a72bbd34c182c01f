"""Wire size and added server time of compression (`just bench-compression`), on 100- and 5,000-row
`/scores` pages of the full-size alpha, against a running server.

    ALPHA_RESULTS_BENCH_URL    base URL (default http://127.0.0.1:8000)
    ALPHA_RESULTS_BENCH_TOKEN  a key that may read the alpha (created in the server's key store when unset)
    ALPHA_RESULTS_BENCH_ALPHA  alpha to read (default momentum_12_1)
    ALPHA_RESULTS_BENCH_N      rounds per page size (default 60)

Each round asks one random page (a random offset: nothing is cached) in each coding, interleaved
over one keep-alive connection, so the three codings see the same machine load. The time is the
client's, request to last byte over loopback; the added server time of a coding is its median
minus identity's. The codec's own time on the same bodies is reported too (in process, quieter).
"""

from __future__ import annotations

import gzip
import http.client
import os
import random
import statistics
import time
from urllib.parse import urlsplit

import zstandard

from serve.compression import GZIP_LEVEL, ZSTD_LEVEL
from tests.bench.api_bench import bench_token

CODINGS = ("identity", "gzip", "zstd")


def fetch(connection: http.client.HTTPConnection, path: str, token: str, coding: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}", "Accept-Encoding": coding})
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    if response.status != 200 or (coding != "identity" and len(body) > 1024) != bool(
        response.getheader("content-encoding")
    ):
        raise RuntimeError(f"{path} {coding}: {response.status} {response.getheader('content-encoding')}")
    return elapsed, body


def main() -> int:
    base = urlsplit(os.environ.get("ALPHA_RESULTS_BENCH_URL", "http://127.0.0.1:8000"))
    token = os.environ.get("ALPHA_RESULTS_BENCH_TOKEN") or bench_token()
    alpha = os.environ.get("ALPHA_RESULTS_BENCH_ALPHA", "momentum_12_1")
    rounds = int(os.environ.get("ALPHA_RESULTS_BENCH_N", "60"))
    connection = http.client.HTTPConnection(base.hostname or "127.0.0.1", base.port or 80, timeout=30)
    rng = random.Random(11)
    print(
        f"compression bench: {alpha}, {rounds} rounds per page size, gzip level {GZIP_LEVEL}, zstd level {ZSTD_LEVEL}"
    )
    print(
        "| rows | coding | wire bytes (median) | ratio | client time ms (median) | added ms | codec ms (in process) |"
    )
    print("|---|---|---|---|---|---|---|")
    for rows in (100, 5000):
        times: dict[str, list[float]] = {c: [] for c in CODINGS}
        sizes: dict[str, list[int]] = {c: [] for c in CODINGS}
        plain_bodies = []
        for _ in range(rounds + 3):
            path = f"/v1/alphas/{alpha}/scores?fields=all&limit={rows}&offset={rng.randrange(0, 140_000)}"
            for coding in rng.sample(CODINGS, len(CODINGS)):
                elapsed, body = fetch(connection, path, token, coding)
                times[coding].append(elapsed * 1000)
                sizes[coding].append(len(body))
                if coding == "identity":
                    plain_bodies.append(body)
        codec = {
            "identity": 0.0,
            "gzip": _codec_ms(lambda b: gzip.compress(b, GZIP_LEVEL), plain_bodies),
            "zstd": _codec_ms(zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress, plain_bodies),
        }
        base_time = statistics.median(times["identity"][3:])
        base_size = statistics.median(sizes["identity"])
        for coding in CODINGS:
            median_time = statistics.median(times[coding][3:])  # the first rounds warm the build
            size = statistics.median(sizes[coding])
            print(
                f"| {rows} | {coding} | {size:,.0f} | {size / base_size:.3f} | {median_time:.2f} | "
                f"{median_time - base_time:+.2f} | {codec[coding]:.2f} |"
            )
    connection.close()
    return 0


def _codec_ms(compress: object, bodies: list[bytes]) -> float:
    started = time.perf_counter()
    for body in bodies:
        compress(body)  # type: ignore[operator]
    return (time.perf_counter() - started) * 1000 / len(bodies)


if __name__ == "__main__":
    raise SystemExit(main())
