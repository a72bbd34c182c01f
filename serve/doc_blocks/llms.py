"""`/llms.txt` (the llmstxt.org convention: a Markdown summary for language models), generated from
the OpenAPI document the app serves (itself made from the endpoint declarations) and the registry:
each route with its registry id (also its MCP tool's name), summary, caller and parameters, and
each MCP tool's declaration hash for clients to pin (`serve.model_context.tools.declaration_sha256`).

One generator for both copies: the app serves it from its own document (`serve.routes.developer`),
and `alpha-results reference` writes docs/llms.txt from the same document as docs/reference.md
(tests/api/test_reference_docs.py fails when that copy is stale). Nothing here names the build's
version, so the two are the same text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from schemas.registry import BY_ID, X_REGISTRY_VERSION
from serve.pages import DOCS_PATH, MCP_PATH, OPENAPI_PATH

INTRO = """\
# alpha-results

> The stored research results of trading signals (alphas) as a read-only JSON API: the catalogue,
> each alpha's decisions (rebalances, scores), portfolio books, performance metrics and analytics
> (significance, risk, costs, checks against the promotion policy, live against backtest...).
> Every route but the event stream is also a tool of the MCP server at `{mcp}` (Streamable HTTP),
> named by its registry id; an analytics tool answers with each long series cut to its ends (every
> figure kept) unless called with `detail` = `full`.

- Every `/v1` route but `/v1/health` takes an API key: `Authorization: Bearer <key>` (never in the
  URL). A key reaches the endpoints, alphas and runs of its allow-lists; raw fields only with raw
  access. Requests are rate limited (per second, minute and day) and counted against a monthly quota.
- Errors are `{{"error": {{"code", "message", "details", "request_id"}}}}` with the HTTP status; a bad
  parameter is a 400 naming it and the rule it broke (`details.parameters`); a 429 says the window
  and `retry_after` (seconds).
- Single objects answer `{{"data", "meta"}}`; collections `{{"data": [rows], "pagination", "meta"}}`:
  page with `limit` and `offset` while `pagination.has_more`. `meta.run` names the build that answered.
- Endpoint registry version: `{registry}`.

## Docs

- [API reference]({docs}): every route, its parameters and response fields (interactive)
- [OpenAPI document]({openapi}): the same, machine-readable
- [MCP server]({mcp}): the routes as tools, for agents (Streamable HTTP, the same key)

## Other surfaces

- Delta Sharing at `/delta-sharing` (the open protocol's REST API, the same key as a bearer
  token): each alpha's datasets as shared tables for pandas, Spark, DuckDB and Power BI clients
  (`delta_sharing.load_as_pandas("profile.share#<share>.<schema>.<table>")`); a key sees the
  alphas and datasets its grants reach.
- Events: `GET /v1/events` (the feed, resumed by cursor), `GET /v1/events/stream` (Server-Sent
  Events) and webhooks an operator registers for a key (`alpha-results webhooks add`): each
  delivery a POST signed by the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
  `webhook-signature`), verifiable with the `standardwebhooks` library.
- Downloads: `/v1/alphas/{{alpha}}/source/download` and `/exports/{{dataset}}` answer signed URLs
  under `/downloads/...` (no key: the signature is the grant, for an hour).
- The Python client `alpha_results_client` (one typed method per route) and the dashboard at `/ui`.
"""


def _parameter(param: dict[str, Any]) -> str:
    schema = param.get("schema", {})
    kind = schema.get("format") or schema.get("type", "string")
    facts = [kind, "required" if param.get("required") else None]
    if "default" in schema:
        facts.append(f"default {json.dumps(schema['default'])}")
    if "enum" in schema:
        facts.append("one of " + ", ".join(str(v) for v in schema["enum"]))
    if "minimum" in schema or "maximum" in schema:
        facts.append(f"{schema.get('minimum', '')}..{schema.get('maximum', '')}")
    described = " ".join(str(param.get("description", "")).split())
    facts_text = ", ".join(f for f in facts if f)
    return f"  - `{param['name']}` ({param['in']}, {facts_text})" + (f": {described}" if described else "")


TOOL_HASHES = """\
## MCP tool hashes

The SHA-256 of each MCP tool's declaration as `tools/list` serves it (`name`, `title`,
`description`, `inputSchema`, `annotations`), over its canonical JSON (RFC 8785: keys sorted, no
whitespace, UTF-8; the declarations hold no float, so `json.dumps(tool, sort_keys=True,
separators=(",", ":"), ensure_ascii=False)` writes it). Pin these and refuse a tool whose
declaration no longer hashes to its pin: docs/integrations.md, "Pinning the tools".
"""


def llms_text(document: dict[str, Any], tool_hashes: Mapping[str, str]) -> str:
    """The whole of `/llms.txt` for `document` (the app's OpenAPI document) and the MCP tools'
    declaration hashes (`serve.model_context.tools.tool_hashes`, passed in: this module is the routes', which
    the tools are made from)."""
    info = document.get("info", {})
    lines = [
        INTRO.format(
            mcp=MCP_PATH, docs=DOCS_PATH, openapi=OPENAPI_PATH, registry=info.get(X_REGISTRY_VERSION, "")
        ).rstrip()
    ]
    order = {endpoint_id: index for index, endpoint_id in enumerate(BY_ID)}
    operations = sorted(
        (
            (operation["x-registry-id"], path, operation)
            for path, item in document.get("paths", {}).items()
            for operation in item.values()
            if operation.get("x-registry-id") in BY_ID
        ),
        key=lambda entry: order[entry[0]],
    )
    group = None
    for endpoint_id, path, operation in operations:
        endpoint = BY_ID[endpoint_id]
        if endpoint.group != group:
            group = endpoint.group
            lines += ["", f"## {group}", ""]
        caller = "public" if endpoint.public else "admin keys" if endpoint.admin else "API key"
        summary = " ".join(str(operation.get("summary", "")).split())
        lines.append(
            f"- [GET {path}]({DOCS_PATH}#/{group}/{endpoint_id}): `{endpoint_id}` ({caller}). {summary}."
        )
        lines += [_parameter(param) for param in operation.get("parameters", [])]
    lines += ["", TOOL_HASHES, *(f"- `{name}`: `{digest}`" for name, digest in tool_hashes.items())]
    return "\n".join(lines).rstrip() + "\n"
