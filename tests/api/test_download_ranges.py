"""Byte ranges and HEAD on a signed export URL (issue 38: readers of Parquet over HTTP, the Delta
Sharing clients among them, read a file's footer, then its column chunks): one range is 206 with
`Content-Range` and exactly those bytes of the file; HEAD gives the size and counts nothing; a
range counts its share of a fetch, so a URL serves at most the fetch limit times its file's bytes."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.support.exports import ALPHA, _client, _signed, local, ok


def test_one_range_is_those_bytes_and_head_the_size(demo_lake: Path, tmp_path: Path) -> None:
    with _client(demo_lake, tmp_path) as client:
        data = ok(client, f"/v1/alphas/{ALPHA}/exports/decisions", "plain")["data"]
        url, size = local(data["url"]), data["size_bytes"]
        head = client.head(url)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-length"] == str(size) and head.headers["accept-ranges"] == "bytes"
        whole = client.get(url).content
        assert len(whole) == size and hashlib.sha256(whole).hexdigest() == data["sha256"]
        for header, start, stop in (
            ("bytes=0-99", 0, 100),
            ("bytes=-8", size - 8, size),
            ("bytes=100-", 100, size),
        ):
            part = client.get(url, headers={"Range": header})
            assert part.status_code == 206, header
            assert part.headers["content-range"] == f"bytes {start}-{stop - 1}/{size}"
            assert part.content == whole[start:stop]
        past = client.get(url, headers={"Range": f"bytes={size}-"})
        assert past.status_code == 416 and past.headers["content-range"] == f"bytes */{size}"
        # A tampered URL is refused before any range is read.
        assert (
            client.get(url.replace("signature=", "signature=0"), headers={"Range": "bytes=0-9"}).status_code
            == 403
        )


def test_ranges_count_their_share_and_head_nothing(demo_lake: Path, tmp_path: Path) -> None:
    with _client(demo_lake, tmp_path, download_fetch_limit=1) as capped:
        url = local(_signed(capped, "decisions"))
        size = int(capped.head(url).headers["content-length"])
        assert all(capped.head(url).status_code == 200 for _ in range(5))  # HEAD counts nothing
        quarter = size // 4
        # Three quarters of the file fit in one whole fetch (each a quarter of it, rounded up)...
        for n in range(3):
            ranged = capped.get(url, headers={"Range": f"bytes={n * quarter}-{(n + 1) * quarter - 1}"})
            assert ranged.status_code == 206
        # ...a half more does not; the refusal consumes nothing, so a last byte still does.
        refused = capped.get(url, headers={"Range": f"bytes=0-{2 * quarter - 1}"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "download_url_expired"
        assert capped.get(url, headers={"Range": "bytes=0-0"}).status_code == 206
        assert refused.json()["error"]["details"] == {"fetch_limit": 1}
