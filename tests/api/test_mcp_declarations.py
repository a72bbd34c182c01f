"""The MCP tools and prompts as declared (serve/model_context/), without a server: each tool is its route's
declaration, the prompts name tools and arguments that exist, and `alpha-results mcp` reads the
typed client's environment variables. (The server's answers: tests/e2e/test_mcp_served.py.)"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from alpha_results_client import config
from cli import mcp as command
from core import errors
from schemas.query import params_of
from schemas.registry import ALL_IDS
from serve.endpoints import endpoints
from serve.model_context import prompts
from serve.model_context.calls import result_of
from serve.model_context.mount import MAX_BODY_BYTES, Gone, bounded_body
from serve.model_context.summary import DETAIL
from serve.model_context.tools import MAX_NAMED, UNSERVED, WITHOUT, path_names, route_tools


def test_one_tool_per_registry_id_but_the_stream() -> None:
    assert list(route_tools()) == [e for e in ALL_IDS if e not in UNSERVED]
    assert set(UNSERVED) == {"events.stream"}


@pytest.mark.parametrize("endpoint_id", [e for e in ALL_IDS if e not in UNSERVED])
def test_a_tools_arguments_are_its_routes_parameters(endpoint_id: str) -> None:
    endpoint = endpoints()[endpoint_id]
    route_tool = route_tools()[endpoint_id]
    tool = route_tool.tool
    properties = tool.input_schema["properties"]
    declared = [p.name for p in params_of(endpoint.query) if p.name not in WITHOUT]
    # ... and `detail` last on a tool answering in summary form (tests/api/test_mcp_summary.py).
    own = [DETAIL] if route_tool.summarises else []
    assert list(properties) == [*path_names(endpoint), *declared, *own]
    assert all(properties[name]["description"] for name in properties)
    assert tool.input_schema.get("required", []) == [
        *path_names(endpoint),
        *(p.name for p in params_of(endpoint.query) if p.required),
    ]
    assert endpoint.summary in (tool.description or "")


LIMIT = 8 << 10  # the HTTP server's default max_request_target_bytes


def refused(result: object) -> tuple[int, str, dict[str, object]]:
    assert isinstance(result, errors.ApiError), result
    return result.status, result.code, result.details


def test_a_path_becomes_the_routes_path_and_a_hostile_value_stays_one_segment() -> None:
    tool = route_tools()["signals.rebalances.get"]
    path, raw, query = tool.target(  # type: ignore[misc]
        {"alpha": "a/../b c", "date": "2024-01-05", "limit": 7, "symbol": None}, LIMIT
    )
    assert raw == b"/v1/alphas/a%2F..%2Fb%20c/rebalances/2024-01-05"
    assert path == "/v1/alphas/a/../b c/rebalances/2024-01-05"
    assert query == b"limit=7"
    assert refused(tool.target({"date": "2024-01-05"}, LIMIT)) == (
        400,
        "bad_request",
        {"parameters": [{"name": "alpha", "rule": "is required"}]},
    )
    booleans = route_tools()["catalog.alphas.list"].target({"complete_only": True, "search": "x&y=1"}, LIMIT)
    assert booleans == ("/v1/alphas", b"/v1/alphas", b"complete_only=true&search=x%26y%3D1")


def test_arguments_are_checked_against_the_published_input_schema() -> None:
    tool = route_tools()["catalog.alphas.list"]
    for given, rule in (
        ({"search": {"q": "mom"}}, "must be a JSON string"),
        ({"search": []}, "must be a JSON string"),
        ({"complete_only": "yes"}, "must be a JSON boolean"),
        ({"limit": 0}, "must be at least 1"),
        ({"limit": 2.5}, "must be an integer"),
        ({"search": "m" * 201}, "must be at most 200 characters"),
    ):
        [name] = given
        assert refused(tool.target(given, LIMIT)) == (
            400,
            "bad_request",
            {"parameters": [{"name": name, "rule": rule}]},
        ), given
    # JSON Schema's integer is any integral number: 5.0 is the route's `limit=5`.
    assert tool.target({"limit": 5.0}, LIMIT) == ("/v1/alphas", b"/v1/alphas", b"limit=5")
    # The schema the check uses is the one tools/list publishes.
    assert tool.validator.schema is tool.tool.input_schema


def test_a_name_the_tool_does_not_take_is_one_bounded_400_before_any_value_is_read() -> None:
    tool = route_tools()["catalog.alphas.list"]
    status, code, details = refused(tool.target({"format": "arrow"}, LIMIT))
    assert (status, code) == (400, "bad_request")
    assert details["parameters"] == [
        {"name": "format", "rule": "is not taken by a tool: a tool answers JSON"}
    ]
    many = {f"x{i}": i for i in range(200_000)}
    status, code, details = refused(tool.target(many, LIMIT))
    assert (status, code, details["count"]) == (400, "bad_request", 200_000)
    assert [p["name"] for p in details["parameters"]] == sorted(f"x{i}" for i in range(MAX_NAMED))  # type: ignore[union-attr]


def test_a_target_over_the_servers_cap_is_its_414() -> None:
    tool = route_tools()["performance.metrics"]
    status, code, details = refused(tool.target({"alpha": "a" * LIMIT}, LIMIT))
    assert (status, code, details) == (414, "request_target_too_long", {"limit_bytes": LIMIT})
    # Counted as the request line is: path, `?` and query string, each byte as sent (encoded).
    alpha = "é" * 100  # 600 bytes once percent-encoded
    path, raw, query = tool.target({"alpha": alpha}, LIMIT)  # type: ignore[misc]
    assert len(raw) == len("/v1/alphas//metrics") + 600
    assert isinstance(tool.target({"alpha": alpha}, len(raw)), tuple)
    assert refused(tool.target({"alpha": alpha}, len(raw) - 1))[0] == 414


def test_the_prompts_name_tools_and_arguments_that_exist() -> None:
    prompts.check_tools()
    rendered = prompts.rendered(prompts.BY_NAME["compare_alphas"], {"alpha": 'a"b', "other": "c"})
    assert not isinstance(rendered, dict)
    text = rendered.messages[0].content.text  # type: ignore[union-attr]
    assert '`analytics.compare` with {"alpha": "a\\"b", "with": "c"}' in text
    assert prompts.rendered(prompts.BY_NAME["review_alpha"], {}) == {"alpha": "is required"}


def test_the_review_prompt_names_every_decision_tool() -> None:
    """`review_alpha` is built from `prompts.DECISION_TOOLS`: every decision tool, in its order,
    after what the alpha is; a tool added to the list is in the prompt's text with no other edit."""
    review = prompts.BY_NAME["review_alpha"]
    decision = [tool for tool, _ in prompts.DECISION_TOOLS]
    assert [step.tool for step in review.steps] == ["catalog.alphas.get", *decision]
    assert len(decision) > 4 and len(set(decision)) == len(decision)
    assert set(decision) <= set(route_tools())
    rendered = prompts.rendered(review, {"alpha": "momentum_12_1"})
    assert not isinstance(rendered, dict)
    text = rendered.messages[0].content.text  # type: ignore[union-attr]
    for tool in decision:
        assert f'`{tool}` with {{"alpha": "momentum_12_1"}}' in text
    added = prompts.review_steps((*prompts.DECISION_TOOLS, ("analytics.uncertainty", "the intervals.")))
    assert [step.tool for step in added][-1] == "analytics.uncertainty"


def test_the_stdio_command_reads_the_typed_clients_variables() -> None:
    assert (command.TOKEN_VARIABLE, command.URL_VARIABLE) == (config.TOKEN_VARIABLE, config.URL_VARIABLE)


def test_an_answer_without_the_apis_json_keeps_the_routes_request_id() -> None:
    tool = route_tools()["meta.me"]
    result = result_of(tool, {}, 502, {"x-request-id": "req_1"}, b"<html>bad gateway</html>")
    assert result.is_error and isinstance(result.structured_content, dict)
    assert result.structured_content["error"]["code"] == "internal_error"
    assert result.structured_content["error"]["request_id"] == "req_1"


def _receive(*messages: dict[str, Any]) -> Any:
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    return receive


def _chunk(body: bytes, more: bool) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


def test_the_mcp_body_is_read_whole_refused_over_the_limit_or_dropped_when_the_client_leaves() -> None:
    def read(headers: list[tuple[bytes, bytes]], *messages: dict[str, Any]) -> Any:
        return anyio.run(bounded_body, {"headers": headers}, _receive(*messages))

    assert read([], _chunk(b"{", True), _chunk(b"}", False)) == b"{}"
    # A part of a message, then the client gone: nothing to run.
    assert isinstance(read([], _chunk(b'{"jsonrpc": "2.0"', True), {"type": "http.disconnect"}), Gone)
    # Over the limit by the declared length (before a byte is read) or as the chunks arrive.
    assert read([(b"content-length", str(MAX_BODY_BYTES + 1).encode())]) is None
    assert read([(b"content-length", b"9" * 5000)]) is None  # no int() of 5,000 digits
    half = b"x" * (MAX_BODY_BYTES // 2 + 1)
    assert read([], _chunk(half, True), _chunk(half, True)) is None
    assert read([(b"content-length", str(MAX_BODY_BYTES).encode())], _chunk(b"x" * MAX_BODY_BYTES, False))


def test_the_hosts_and_origins_mcp_answers_are_the_servers_own_and_the_operators() -> None:
    from core.settings import Settings
    from serve.model_context.origins import Allowed

    allowed = Allowed.of(
        Settings(
            public_base_url="https://Results.example.com",
            host="0.0.0.0",
            port=8000,
            mcp_allowed_hosts=" api.internal:8000 ,",
            mcp_allowed_origins="https://Agent.example/",
        )
    )
    assert allowed.hosts == {
        "results.example.com",
        "results.example.com:443",
        "127.0.0.1:8000",
        "localhost:8000",
        "[::1]:8000",
        "127.0.0.1",
        "localhost",
        "[::1]",
        "api.internal:8000",
    }
    assert allowed.origins == {
        "https://results.example.com",
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://[::1]:8000",
        "https://agent.example",
    }
    bound = Allowed.of(Settings(public_base_url="http://10.0.0.5:9000", host="10.0.0.5", port=9000))
    assert {"10.0.0.5:9000", "localhost:9000"} <= bound.hosts and "http://10.0.0.5:9000" in bound.origins

    def answer(*headers: tuple[bytes, bytes]) -> str | None:
        refused = allowed.refusal([(b"authorization", b"Bearer x"), *headers])
        return None if refused is None else json.loads(refused)["error"]["data"]["header"]

    assert answer((b"host", b"RESULTS.example.com")) is None
    assert answer((b"host", b"localhost:8000"), (b"origin", b"http://localhost:8000")) is None
    assert answer((b"host", b"results.example.com"), (b"origin", b"https://agent.example")) is None
    # A rebound name, no Host, two Hosts; a foreign, `null` or doubled Origin.
    assert answer((b"host", b"attacker.example:8000")) == "Host"
    assert answer() == "Host"
    assert answer((b"host", b"localhost:8000"), (b"host", b"attacker.example")) == "Host"
    for origin in (b"http://attacker.example", b"null", b"https://results.example.com.attacker.example"):
        assert answer((b"host", b"results.example.com"), (b"origin", origin)) == "Origin", origin
    twice = ((b"origin", b"https://results.example.com"), (b"origin", b"http://attacker.example"))
    assert answer((b"host", b"results.example.com"), *twice) == "Origin"


def test_where_each_tools_answers_hold_seal_text_is_read_off_the_declarations() -> None:
    from serve.model_context.untrusted import untrusted_pointers

    tools = route_tools()
    assert ("data", "tldr") in tools["catalog.alphas.get"].seal_text
    assert ("data", "*", "tldr") in tools["catalog.alphas.list"].seal_text
    assert ("data", "*", "data") in tools["events.list"].seal_text  # build.refused quotes the seal
    assert tools["meta.health"].seal_text == ()
    answer = {
        "data": [{"tldr": "a/b~c", "name": "x"}, {"tldr": None, "name": "y"}],
        "meta": {"source_alpha_id": "s"},
    }
    # Present text only (a null holds none), in RFC 6901's spelling.
    assert untrusted_pointers((("data", "*", "tldr"), ("meta", "source_alpha_id")), answer) == [
        "/data/0/tldr",
        "/meta/source_alpha_id",
    ]
    keyed = {"data": {"odd/key~": {"note": "t"}}}
    assert untrusted_pointers((("data", "*"),), keyed) == ["/data/odd~1key~0"]
