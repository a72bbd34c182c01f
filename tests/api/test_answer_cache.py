"""Answers made once (issue 49, item 2; serve/answer_cache.py): a run's collection page kept per
worker is answered again byte for byte as the route makes it, but for the request id and the time
in every representation and coding, and never across builds or scopes: another build (a
republish), another scope (a narrowed grant, raw fields on and off), a key no longer valid."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from core.context import AllowList, Caller
from core.settings import Settings
from datasets.reader import LakeReader
from serve.app import create_app
from serve.front import Front
from tests.callers import authenticator_for, make_caller
from tests.conftest import linked_copy
from tests.support.lake_refresh import REFRESH, publish_elsewhere, resealed

ALPHA = "Test_planted_factor"
WEEKS = f"/v1/alphas/{ALPHA}/rebalances"
PER_REQUEST = ("x-request-id", "date", "ratelimit", "ratelimit-policy")


def week_page(client: TestClient[Any], token: str = "raw") -> str:
    first = client.get(WEEKS, headers={"Authorization": f"Bearer {token}"}).json()["data"][3]
    return f"{WEEKS}/{first['date']}"


class Site:
    """An app over its own copy of the demo lake, whose callers a test may change, and one without
    the cache beside it over the same lake: what the route answers. Each reads the lake through a
    reader the test refreshes itself (as its thread would)."""

    def __init__(self, lake: Path) -> None:
        self.lake = lake
        self.callers: dict[str, Caller] = {
            "raw": make_caller(expose_raw_book=True),
            "plain": make_caller(),
            "narrow": make_caller(alphas=AllowList.of_ids(["Test_small_universe"])),
        }
        authenticate = authenticator_for(self.callers)
        self.readers = [LakeReader(str(lake), refresh_seconds=REFRESH) for _ in range(2)]
        self.app = create_app(
            Settings(lake=str(lake), environment="test"),
            authenticate=authenticate,
            limiter=None,
            reader=self.readers[0],
        )
        self.bare = create_app(
            Settings(lake=str(lake), environment="test", answer_cache_bytes=0),
            authenticate=authenticate,
            limiter=None,
            reader=self.readers[1],
        )

    @property
    def front(self) -> Front:
        front = self.app.asgi_handler
        assert isinstance(front, Front)
        return front


@pytest.fixture(scope="module")
def site(
    demo_lake: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Site, TestClient[Any], TestClient[Any]]]:
    lake = linked_copy(demo_lake, tmp_path_factory.mktemp("cache") / "lake")
    site = Site(lake)
    with TestClient(app=site.app) as cached, TestClient(app=site.bare) as bare:
        yield site, cached, bare


def answered_from_kept(site: Site, ask: Any, data: Any) -> None:
    """`ask()` answered `data` from the kept bytes (an answer is kept the second time it is asked)."""
    answers = site.front.answers
    assert answers is not None
    for _ in range(3):
        hits = answers.hits
        assert ask().json()["data"] == data
    assert answers.hits == hits + 1


def fetch(client: TestClient[Any], path: str, token: str = "raw", **headers: str) -> Any:
    return client.get(path, headers={"Authorization": f"Bearer {token}", **headers})


def same_but_the_request(one: Any, other: Any) -> None:
    """Status, headers and body equal once each response's own request id and time are set aside."""
    assert one.status_code == other.status_code
    heads = [
        {
            k: v
            for k, v in r.headers.items()
            if k not in PER_REQUEST
            and not k.startswith("x-ratelimit")
            # a compressed body's length follows its request id's bytes
            and not (k == "content-length" and "content-encoding" in r.headers)
        }
        for r in (one, other)
    ]
    for head, response in zip(heads, (one, other), strict=True):
        if "x-meta" in head:
            head["x-meta"] = _without_request(json.loads(head["x-meta"]), response)
    assert heads[0] == heads[1]
    assert _body_without_request(one) == _body_without_request(other)


def _without_request(meta: dict[str, Any], response: Any) -> dict[str, Any]:
    assert meta.pop("request_id") == response.headers["x-request-id"]
    meta.pop("generated_at")
    return meta


def _body_without_request(response: Any) -> Any:
    kind = response.headers["content-type"]
    if kind.startswith("application/json"):
        body = response.json()
        _without_request(body["meta"], response)
        return body
    if "arrow" in kind:
        table = ipc.open_stream(io.BytesIO(response.content)).read_all()
        meta = json.loads(table.schema.metadata[b"meta"])
        _without_request(meta, response)
        return table.replace_schema_metadata(None), meta
    if "parquet" in kind:
        table = pq.read_table(io.BytesIO(response.content))
        meta = json.loads(table.schema.metadata[b"meta"])
        _without_request(meta, response)
        return table.replace_schema_metadata(None), meta
    return response.content


@pytest.mark.parametrize("representation", ["json", "csv", "ndjson", "arrow", "parquet"])
@pytest.mark.parametrize("coding", [None, "gzip", "zstd"])
def test_a_kept_page_is_the_routes_answer_for_each_request(
    site: tuple[Site, TestClient[Any], TestClient[Any]], representation: str, coding: str | None
) -> None:
    front, cached, bare = site[0].front, site[1], site[2]
    path = f"{week_page(bare)}?limit=37&offset=5&format={representation}"
    headers = {"Accept-Encoding": coding} if coding else {"Accept-Encoding": "identity"}
    answers = [fetch(cached, path, **headers) for _ in range(3)]
    hits = front.answers.hits if front.answers else 0
    again = fetch(cached, path, **headers)
    # Answered from the kept bytes; a Parquet page is made per request (serve/answer_cache.py).
    assert front.answers is not None and front.answers.hits == hits + (representation != "parquet")
    routed = fetch(bare, path, **headers)
    assert routed.status_code == 200
    ids = {r.headers["x-request-id"] for r in [*answers, again]}
    assert len(ids) == 4  # each answer its own request's id
    for answer in [*answers, again]:
        same_but_the_request(answer, routed)
        if coding:
            assert answer.headers.get("content-encoding") == routed.headers.get("content-encoding")
    # Conditional: the kept answer's entity tag is the route's, and its 304 the route's.
    tag = again.headers["etag"]
    assert tag == routed.headers["etag"]
    assert fetch(cached, path, **{**headers, "If-None-Match": tag}).status_code == 304


def test_never_across_scopes(site: tuple[Site, TestClient[Any], TestClient[Any]]) -> None:
    lake_site, cached, bare = site
    path = week_page(bare)
    raw = fetch(cached, path, "raw")
    answered_from_kept(lake_site, lambda: fetch(cached, path, "raw"), raw.json()["data"])
    # Raw fields off: another field policy, the route's own answer (no raw-only field).
    plain = fetch(cached, path, "plain")
    assert plain.json()["data"] == fetch(bare, path, "plain").json()["data"] != raw.json()["data"]
    # A grant narrowed since: refused, though the same path was kept for it before.
    assert fetch(cached, path, "narrow").status_code == 403
    before = fetch(cached, path, "narrow")
    lake_site.callers["narrow"] = make_caller(alphas=AllowList.of_ids([ALPHA]))
    widened = fetch(cached, path, "narrow")
    assert (before.status_code, widened.status_code) == (403, 200)
    lake_site.callers["narrow"] = make_caller(alphas=AllowList.of_ids(["Test_small_universe"]))
    assert fetch(cached, path, "narrow").status_code == 403
    # A key no longer valid: refused before anything kept is looked at.
    del lake_site.callers["narrow"]
    gone = fetch(cached, path, "narrow")
    assert gone.status_code == 401 and ALPHA not in gone.text


def test_never_across_builds(
    site: tuple[Site, TestClient[Any], TestClient[Any]], demo_seals: Path, tmp_path: Path
) -> None:
    """A republish (a new build of the alpha) is answered from the new build, not the kept page."""
    lake_site, cached, bare = site
    path = f"{week_page(bare)}?limit=5"
    first = fetch(cached, path).json()
    answered_from_kept(lake_site, lambda: fetch(cached, path), first["data"])
    publish_elsewhere(
        [resealed(demo_seals / ALPHA, tmp_path / "again", "Sealed again.")], str(lake_site.lake)
    )
    for reader in lake_site.readers:
        reader.refresh()
    after = fetch(cached, path).json()
    assert after["meta"]["source"] != first["meta"]["source"]
    assert after["meta"]["source"] == fetch(bare, path).json()["meta"]["source"]
