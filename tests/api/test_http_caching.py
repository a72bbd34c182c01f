"""Conditional requests and paging links, as a client sees them (docs/api.md "Caching").

Every 200 of a data route carries a strong ETag; sending it back in `If-None-Match` answers 304
with no body. Keys that may see different fields never share a tag; a request that would be a 400
is never a 304. Collections link to their next and previous pages.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest
from litestar.datastructures import MutableScopeHeaders

from serve.conditional import DATA_CACHE_CONTROL, DATA_VARY, conditional_response
from serve.envelope import page_links
from serve.exchange import exchange_of
from tests.api.conftest import Api
from tests.support.data_paths import DATA_PATHS

DATA_ROUTES = {
    **DATA_PATHS,
    "performance.metrics": "/v1/alphas/Test_planted_factor/metrics",
}
TAG = re.compile(r'^"[0-9a-f]{32}(-gzip|-zstd)?"$')


def conditional(api: Api, path: str, token: str, tag: str) -> Any:
    return api.client.get(path, headers={"Authorization": f"Bearer {token}", "If-None-Match": tag})


@pytest.mark.parametrize("endpoint", sorted(DATA_ROUTES))
@pytest.mark.parametrize("token", ["raw", "plain"])
def test_a_current_tag_answers_304_without_a_body(api: Api, endpoint: str, token: str) -> None:
    path = DATA_ROUTES[endpoint]
    first = api.get(path, token)
    assert first.status_code == 200
    tag = first.headers["etag"]
    assert TAG.match(tag), tag
    assert first.headers["cache-control"] == "private, no-cache"
    assert first.headers["vary"] == "Authorization, Accept, Accept-Encoding"
    again = conditional(api, path, token, tag)
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == tag
    assert again.headers["cache-control"] == "private, no-cache"
    assert "content-type" not in again.headers and "content-encoding" not in again.headers
    # Weak comparison, a list of tags, and `*` all match; another tag does not.
    assert conditional(api, path, token, f'"0000", W/{tag}').status_code == 304
    assert conditional(api, path, token, "*").status_code == 304
    stale = conditional(api, path, token, '"00000000000000000000000000000000"')
    assert stale.status_code == 200 and stale.content


@pytest.mark.parametrize("endpoint", sorted(DATA_ROUTES))
def test_keys_with_different_field_policies_never_share_a_tag(api: Api, endpoint: str) -> None:
    path = DATA_ROUTES[endpoint]
    raw, plain = (api.get(path, token) for token in ("raw", "plain"))
    assert raw.headers["etag"] != plain.headers["etag"]
    assert conditional(api, path, "plain", raw.headers["etag"]).status_code == 200


def test_the_tag_follows_the_query_not_its_spelling(api: Api) -> None:
    base = "/v1/alphas/Test_planted_factor/positions"
    one = api.get(f"{base}?limit=5&from=2022-01-03").headers["etag"]
    same = api.get(f"{base}?from=2022-01-03&limit=5").headers["etag"]
    other = api.get(f"{base}?limit=6&from=2022-01-03").headers["etag"]
    assert one == same != other


def test_a_request_that_is_a_400_is_never_a_304(api: Api) -> None:
    path = "/v1/alphas/Test_planted_factor/positions?limit=0"
    response = conditional(api, path, "raw", "*")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"
    assert "etag" not in response.headers


def test_routes_that_are_not_data_carry_no_tag(api: Api) -> None:
    assert "etag" not in api.get("/v1/me").headers
    doc = api.get("/v1/alphas/Test_planted_factor/metrics/_doc")
    assert doc.headers["cache-control"] == "public, max-age=86400, immutable"
    assert "etag" not in doc.headers


def link_targets(response: Any) -> dict[str, str]:
    links = {}
    for part in response.headers.get("link", "").split(", "):
        if part:
            target, rel = part.split("; ")
            links[rel.removeprefix('rel="').removesuffix('"')] = target.strip("<>")
    return links


def test_links_walk_a_collection_page_by_page(api: Api) -> None:
    path = "/v1/alphas/Test_planted_factor/positions?from=2021-02-01&to=2021-03-31&limit=70"
    expected = api.all_pages(path.split("?")[0], 100, **{"from": "2021-02-01", "to": "2021-03-31"})
    rows, pages = [], 0
    url: str | None = path
    first_links = link_targets(api.get(path))
    assert "prev" not in first_links
    while url:
        response = api.get(url)
        body = response.json()
        rows += body["data"]
        pages += 1
        links = link_targets(response)
        if body["pagination"]["offset"] > 0:
            prev = parse_qs(urlsplit(links["prev"]).query)
            assert prev["offset"] == [str(max(0, body["pagination"]["offset"] - 70))]
        url = links.get("next")
        if url is not None:
            query = parse_qs(urlsplit(url).query)
            assert query["from"] == ["2021-02-01"] and query["limit"] == ["70"]
            assert body["pagination"]["has_more"] is True
        else:
            assert body["pagination"]["has_more"] is False
    assert rows == expected and len(rows) > 70 and pages == -(-len(rows) // 70)


@pytest.mark.parametrize(
    "query",
    [
        b"",
        b"limit=5",
        b"from=2021-02-01&to=2021-03-31&limit=70&offset=140",
        b"symbol=A%26B&symbol=%C3%A9+x&sort=-score&offset=3",
        b"q=a%2Bb%3Dc&fields=all&limit=2&empty=",
    ],
)
def test_the_links_encode_the_query_as_urlencode_of_every_pair(query: bytes) -> None:
    """`page_links` encodes the other parameters once for both links: the same text as
    `urlencode` of every pair with the applied `limit` and the new `offset` (its first definition)."""
    scope: dict[str, Any] = {"type": "http", "path": "/v1/alphas/a b/positions", "query_string": query}
    for limit, offset, returned, total in ((2, 0, 2, 10), (2, 4, 2, 10), (5, 3, 5, 8), (70, 140, 10, 150)):
        pairs = [(k, v) for k, v in exchange_of(scope).query if k not in ("limit", "offset")]
        expected = []
        if offset + returned < total:
            expected.append((offset + returned, "next"))
        if offset > 0:
            expected.append((max(0, offset - limit), "prev"))
        made = ", ".join(
            f'<{quote(scope["path"])}?{urlencode([*pairs, ("limit", limit), ("offset", at)])}>; rel="{rel}"'
            for at, rel in expected
        )
        assert page_links(scope, limit, offset, returned, total) == made


def _as_litestar_set_them(message: dict[str, Any], digest: str, matches: bool) -> None:
    """The validators as `conditional_response` set them through Litestar's `MutableScopeHeaders`
    before it wrote the raw header list itself (the oracle of the test below)."""
    headers = MutableScopeHeaders.from_message(message)  # type: ignore[arg-type]
    coding = headers.get("content-encoding")
    headers["ETag"] = f'"{digest}-{coding}"' if coding else f'"{digest}"'
    headers["Cache-Control"] = DATA_CACHE_CONTROL
    headers["Vary"] = DATA_VARY
    if matches:
        message["status"] = 304
        for name in ("content-length", "content-encoding", "content-type"):
            if name in headers:
                del headers[name]


@pytest.mark.parametrize("seed", range(40))
def test_the_validators_are_set_as_litestar_set_them(seed: int) -> None:
    """Random 200 start messages (the lines a route sends, a validator already there or twice, a
    coding or none), each with a matching tag or not: the same status and header list, in order.
    (Three lines of one validator, which no route sends, Litestar left two of.)"""
    rng = random.Random(seed)
    pool = [
        (b"content-type", b"application/json"),
        (b"content-length", b"1234"),
        (b"content-encoding", rng.choice([b"gzip", b"zstd"])),
        (b"link", b'</v1/x?offset=100>; rel="next"'),
        (b"ETag", b'"stale"'),
        (b"vary", b"Accept-Encoding"),
        (b"cache-control", b"public"),
        (b"x-request-id", b"req_x"),
    ]
    headers = rng.sample(pool, rng.randint(0, len(pool)))
    if headers and rng.random() < 0.5:  # a line twice (as a route never sends a validator)
        headers.insert(rng.randint(0, len(headers)), rng.choice(headers))
    digest = "ab" * 16
    matches = rng.random() < 0.5
    scope: dict[str, Any] = {
        "headers": [(b"if-none-match", f'"{digest}"'.encode())] if matches else [],
        "query_string": b"",
    }
    exchange_of(scope).entity_tag = digest
    ours: dict[str, Any] = {"type": "http.response.start", "status": 200, "headers": list(headers)}
    theirs: dict[str, Any] = {"type": "http.response.start", "status": 200, "headers": list(headers)}
    asyncio.run(conditional_response(ours, scope))  # type: ignore[arg-type]
    _as_litestar_set_them(theirs, digest, matches)
    assert ours == theirs, headers
