"""The MCP tools and prompts as declared (serve/mcp/), without a server: each tool is its route's
declaration, the prompts name tools and arguments that exist, and `alpha-results mcp` reads the
typed client's environment variables. (The server's answers: tests/e2e/test_mcp_served.py.)"""

from __future__ import annotations

import pytest

from alpha_results_client import config
from cli import mcp as command
from schemas.query import params_of
from schemas.registry import ALL_IDS
from serve.endpoints import endpoints
from serve.mcp import prompts
from serve.mcp.tools import UNSERVED, WITHOUT, path_names, route_tools


def test_one_tool_per_registry_id_but_the_stream() -> None:
    assert list(route_tools()) == [e for e in ALL_IDS if e not in UNSERVED]
    assert set(UNSERVED) == {"events.stream"}


@pytest.mark.parametrize("endpoint_id", [e for e in ALL_IDS if e not in UNSERVED])
def test_a_tools_arguments_are_its_routes_parameters(endpoint_id: str) -> None:
    endpoint = endpoints()[endpoint_id]
    tool = route_tools()[endpoint_id].tool
    properties = tool.input_schema["properties"]
    declared = [p.name for p in params_of(endpoint.query) if p.name not in WITHOUT]
    assert list(properties) == [*path_names(endpoint), *declared]
    assert all(properties[name]["description"] for name in properties)
    assert tool.input_schema.get("required", []) == [
        *path_names(endpoint),
        *(p.name for p in params_of(endpoint.query) if p.required),
    ]
    assert endpoint.summary in (tool.description or "")


def test_a_path_becomes_the_routes_path_and_a_hostile_value_stays_one_segment() -> None:
    tool = route_tools()["signals.rebalances.get"]
    path, raw, query = tool.target({"alpha": "a/../b c", "date": "2024-01-05", "limit": 7, "symbol": None})  # type: ignore[misc]
    assert raw == b"/v1/alphas/a%2F..%2Fb%20c/rebalances/2024-01-05"
    assert path == "/v1/alphas/a/../b c/rebalances/2024-01-05"
    assert query == b"limit=7"
    assert tool.target({"date": "2024-01-05"}) == {"alpha": "is required (a path parameter)"}
    booleans = route_tools()["catalog.alphas.list"].target({"complete_only": True, "search": "x&y=1"})
    assert booleans == ("/v1/alphas", b"/v1/alphas", b"complete_only=true&search=x%26y%3D1")


def test_the_prompts_name_tools_and_arguments_that_exist() -> None:
    prompts.check_tools()
    rendered = prompts.rendered(prompts.BY_NAME["compare_alphas"], {"alpha": 'a"b', "other": "c"})
    assert not isinstance(rendered, dict)
    text = rendered.messages[0].content.text  # type: ignore[union-attr]
    assert '`analytics.compare` with {"alpha": "a\\"b", "with": "c"}' in text
    assert prompts.rendered(prompts.BY_NAME["review_alpha"], {}) == {"alpha": "is required"}


def test_the_stdio_command_reads_the_typed_clients_variables() -> None:
    assert (command.TOKEN_VARIABLE, command.URL_VARIABLE) == (config.TOKEN_VARIABLE, config.URL_VARIABLE)
