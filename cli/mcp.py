"""`alpha-results mcp`: the server's MCP tools over stdio for a local agent (serve/model_context/bridge.py).

The key comes from the environment only (never an argument, which other users of the machine can
read in the process list), under the typed client's names (alpha_results_client.config).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

TOKEN_VARIABLE = "ALPHA_RESULTS_TOKEN"
URL_VARIABLE = "ALPHA_RESULTS_URL"
DEFAULT_URL = "http://127.0.0.1:8000"


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "mcp",
        help="serve the server's MCP tools over stdio for a local agent",
        description=f"Serve the MCP tools of an alpha-results server over stdio (for Claude Desktop and "
        f"other local agents). The key is read from {TOKEN_VARIABLE}; the server from --url, else "
        f"{URL_VARIABLE}, else {DEFAULT_URL}.",
    )
    parser.add_argument(
        "--url", default=None, help=f"the server's base URL (default: ${URL_VARIABLE}, else {DEFAULT_URL})"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    token = (os.environ.get(TOKEN_VARIABLE) or "").strip()
    if not token:
        print(f"alpha-results mcp: set {TOKEN_VARIABLE} to an API key", file=sys.stderr)
        return 2
    if not token.isascii() or not token.isprintable():
        # An HTTP header cannot carry it, and no key the server issues looks like it.
        print(f"alpha-results mcp: {TOKEN_VARIABLE} is not an API key (ASCII, printable)", file=sys.stderr)
        return 2
    url = args.url or os.environ.get(URL_VARIABLE) or DEFAULT_URL
    # Start-up time (cli/__init__.py): the MCP SDK is imported when the command runs.
    import anyio

    from serve.model_context.bridge import Unreachable, serve_stdio

    try:
        anyio.run(serve_stdio, url, token)
    except Unreachable as failed:
        print(f"alpha-results mcp: {failed}", file=sys.stderr)
        return 1
    return 0
