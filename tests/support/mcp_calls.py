"""A `tools/call` through an app's own `/mcp`, at a protocol version."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.analytics.conftest import Api


def post(
    api: Api,
    name: str,
    arguments: dict[str, Any],
    version: str | None,
    token: str = "raw",
    envelope: bool = True,
    **extra: Any,
) -> Any:
    """A `tools/call` at `version`; at 2026-07-28 with its envelope (`_meta`) and routing headers, as
    the official client sends it, unless `envelope` is False."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    modern = {}
    if version in MODERN_PROTOCOL_VERSIONS and envelope:
        params["_meta"] = {
            PROTOCOL_VERSION_META_KEY: version,
            CLIENT_CAPABILITIES_META_KEY: {},
            CLIENT_INFO_META_KEY: {"name": "tests", "version": "1"},
        }
        modern = {"Mcp-Method": "tools/call", "Mcp-Name": name}
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Host": "localhost",  # a name of the server (serve/model_context/origins.py)
        **({"MCP-Protocol-Version": version} if version else {}),
        **modern,
        **extra,
    }
    return api.client.post("/mcp", content=json.dumps(message), headers=headers)
