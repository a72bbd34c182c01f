"""The MCP server through the official `mcp` SDK's client: a world of the shared server and its
keys, a key of a few endpoints, a session, and the arguments a tool is called with."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from access import Grants, RateLimit
from core.context import AllowList
from tests.ops.keys import IssuedKey, issue_key
from tests.shared_servers import SharedServer

NARROW = ("meta.me", "catalog.alphas.list", "performance.metrics")


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


@asynccontextmanager
async def session(
    world: World, key: IssuedKey | None, extra: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    headers = {**(key.headers if key is not None else {}), **(extra or {})}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http,
        streamable_http_client(f"{world.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def export_arguments(world: World, alpha: str) -> dict[str, Any]:
    """The first export the key may fetch, with its book where the dataset is per book."""
    [row, *_] = world.get(world.admin, f"/v1/alphas/{alpha}/exports").json()["data"]
    return {"dataset": row["dataset"], **({"book": row["book"]} if row.get("book") else {})}


def tool_arguments(world: World, tool: types.Tool, demo: dict[str, Any]) -> dict[str, Any]:
    required = tool.input_schema.get("required", [])
    arguments = {name: demo[name] for name in required if name != "dataset"}
    if "dataset" in required:
        arguments.update(export_arguments(world, demo["alpha"]))
    if tool.name == "analytics.contribution":  # this server keeps no records: nothing is approved,
        arguments["reference"] = demo["with"]  # so the default reference set is empty (a 400)
    return arguments
