"""The MCP server (issue 38) through the real `alpha-results serve`, with the official `mcp` SDK's
client (`streamable_http_client` + `ClientSession`): each key lists the tools of its allow-list,
every tool answers what its route answers over HTTP, a forbidden alpha and a 429 are tool errors in
the spec's envelope, paging by the result's hint reaches the route's last row, and
`alpha-results mcp` (stdio, the SDK's stdio client) serves the same tools from the same server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from schemas.registry import ADMIN_IDS, ALL_IDS
from serve.context import AllowList
from serve.identity import Grants, RateLimit, open_store
from serve.mcp.tools import UNSERVED
from tests.ops.keys import IssuedKey, issue_key
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e

NARROW = ("meta.me", "catalog.alphas.list", "performance.metrics")
VOLATILE_META = ("request_id", "generated_at")
"""`meta` of every answer: this request's id and time, which two requests never share."""


@dataclass
class World:
    server: SharedServer
    admin: IssuedKey
    member: IssuedKey
    narrow: IssuedKey

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def get(self, key: IssuedKey, path: str, params: dict[str, Any] | None = None) -> httpx.Response:
        return httpx.get(self.url + path, params=params, headers=key.headers, timeout=60)


def keyed(store: Any, endpoints: tuple[str, ...], rate_limit: RateLimit | None = None) -> IssuedKey:
    grants = Grants(
        AllowList.of_ids(list(endpoints)), AllowList.all(), AllowList.all(), expose_raw_book=False
    )
    return issue_key(store, grants=grants, **({"rate_limit": rate_limit} if rate_limit else {}))


@pytest.fixture(scope="module")
def world(shared_server: SharedServer) -> Iterator[World]:
    store = open_store(shared_server.keystore_url)
    try:
        admin = issue_key(store, role="admin")
        member = issue_key(store)
        narrow = keyed(store, NARROW)
    finally:
        store.close()
    yield World(shared_server, admin, member, narrow)


@asynccontextmanager
async def session(world: World, key: IssuedKey | None) -> AsyncIterator[ClientSession]:
    headers = key.headers if key is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
        streamable_http_client(f"{world.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def run(coroutine: Any) -> Any:
    return anyio.run(lambda: coroutine)


async def listed(world: World, key: IssuedKey) -> list[types.Tool]:
    async with session(world, key) as client:
        return (await client.list_tools()).tools


def test_a_key_lists_the_tools_of_its_allow_list(world: World) -> None:
    narrow = anyio.run(listed, world, world.narrow)
    # meta.health is public: every key may call it.
    assert [tool.name for tool in narrow] == ["meta.health", *NARROW]
    member = {tool.name for tool in anyio.run(listed, world, world.member)}
    admin = {tool.name for tool in anyio.run(listed, world, world.admin)}
    callable_ids = set(ALL_IDS) - set(UNSERVED)
    assert admin == callable_ids
    assert member == callable_ids - ADMIN_IDS
    metrics = next(tool for tool in narrow if tool.name == "performance.metrics")
    # The input schema is the route's: its path parameter and its query Struct's fields.
    openapi = httpx.get(world.url + "/openapi.json", timeout=30).json()
    operation = openapi["paths"]["/v1/alphas/{alpha}/metrics"]["get"]
    assert list(metrics.input_schema["properties"]) == [p["name"] for p in operation["parameters"]]
    for param in operation["parameters"]:
        if param["in"] == "query":
            assert metrics.input_schema["properties"][param["name"]] == {
                **param["schema"],
                "description": param["description"],
            }
    assert metrics.input_schema["required"] == ["alpha"]
    assert metrics.annotations is not None and metrics.annotations.read_only_hint


def test_no_valid_key_is_a_401_at_mcp(world: World) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    for given in ({}, {"Authorization": "Bearer ar_live_nope"}):
        answer = httpx.post(world.url + "/mcp", json=body, headers={**headers, **given}, timeout=30)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] in {"missing_api_key", "malformed_api_key", "invalid_api_key"}
