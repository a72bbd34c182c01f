"""`just bench-mcp`: what an MCP tool call costs against the route it wraps, and the tool listing
(issue 38).

    python -m tests.bench.mcp_bench [--lake DIR] [--rounds 6] [--calls 200]

One `alpha-results serve` (one worker) over `--lake` (default var/lake; when it holds nothing, the
small demo corpus is built into var/bench-mcp/lake once and reused), an admin key that reads every
alpha and is never throttled. On one keep-alive connection, interleaved call by call so that the
machine's drift falls on both alike, `--rounds` rounds of `--calls` each:

- `performance.metrics` of one alpha: `GET /v1/alphas/{a}/metrics` against `tools/call` of the tool
  (a JSON-RPC POST to `/mcp`, as an MCP client sends it after its handshake);
- a week page (`signals.rebalances.get`, 100 rows) likewise;
- `analytics.risk` of the alpha (a route doing more work, a quarter of the calls), for scale;
- each tool call also as a 2026-07-28 client sends it (no handshake; the SDK's single-exchange path);
- `tools/list` for that key (every endpoint) and `ping` (what the SDK costs a message that does
  nothing), against `/v1/me`.

Prints each round's p50 per request and its ratio to the route in the same round, and the medians (target: a tool call at most 1.5x its
route, p50; the listing under 20 ms), and, the same way, what the official SDK client
(`ClientSession.call_tool` over `streamable_http_client`) adds on the caller's side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.bench.harness import (
    REPO,
    Children,
    cli,
    create_admin_key,
    git_revision,
    run_checked,
    server_env,
    start_api,
)

PROTOCOL = "2025-11-25"  # a handshake-era version, what clients such as Claude Desktop send
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": PROTOCOL,
}


MODERN = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", default=str(REPO / "var" / "lake"))
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=200)
    return parser.parse_args(argv)


def lake_of(requested: str) -> str:
    """`requested` when it holds a lake, else the small demo corpus built once into var/bench-mcp."""
    if (Path(requested) / "catalog").exists() or any(Path(requested).glob("*/alphas")):
        return requested
    lake = REPO / "var" / "bench-mcp" / "lake"
    if not lake.exists():
        seals = REPO / "var" / "bench-mcp" / "seals"
        env = server_env(str(lake), "sqlite:///:memory:")
        run_checked([*cli(), "demo", "--size", "small", "--out", str(seals)], env=env, timeout=1800)
        found = sorted(str(p) for p in seals.iterdir() if (p / "manifest.json").exists())
        run_checked([*cli(), "build", *found, "--lake", str(lake)], env=env, timeout=3600)
    return str(lake)


class Caller:
    """One keep-alive connection with the key; each request's wall time."""

    def __init__(self, base_url: str, token: str) -> None:
        self.http = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        self.ids = 0

    def route(self, path: str, params: dict[str, Any] | None = None) -> float:
        started = time.perf_counter()
        answer = self.http.get(path, params=params)
        elapsed = time.perf_counter() - started
        if answer.status_code != 200:
            raise SystemExit(f"{path}: HTTP {answer.status_code} {answer.text[:300]}")
        return elapsed

    def mcp(self, method: str, params: dict[str, Any] | None = None, modern: bool = False) -> float:
        """One message; `modern`: as a 2026-07-28 client sends it (self-contained: the version and
        the client in `_meta`, the method and tool name in headers; no handshake)."""
        self.ids += 1
        headers = MCP_HEADERS
        if modern:
            params = {**(params or {}), "_meta": MODERN_META}
            headers = {**MCP_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
            if "name" in params:
                headers["Mcp-Name"] = params["name"]
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, **({"params": params} if params else {})}
        started = time.perf_counter()
        answer = self.http.post("/mcp", content=json.dumps(body), headers=headers)
        elapsed = time.perf_counter() - started
        reply = answer.json() if answer.status_code == 200 else {}
        result = reply.get("result") or {}
        if answer.status_code != 200 or "error" in reply or result.get("isError"):
            raise SystemExit(f"{method}: HTTP {answer.status_code} {answer.text[:300]}")
        return elapsed


def p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def interleaved(rounds: int, calls: int, pair: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    """Each round's p50 (ms) of each callable, calls alternating A, B, A, B... (the first swapped
    each round)."""
    names = list(pair)
    for name in names:  # warm: the build opened, the figures cached, the connection up
        for _ in range(20):
            pair[name]()
    out: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        order = names if round_ % 2 == 0 else names[::-1]
        samples: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(calls):
            for name in order:
                samples[name].append(pair[name]())
        for name in names:
            out[name].append(p50_ms(samples[name]))
    return out


def table(title: str, figures: dict[str, list[float]], base: str) -> dict[str, float]:
    """Each round's p50s and each column's ratio to `base` in that round (paired: the same round's
    load on both); the medians; returns each column's median ratio."""
    others = [name for name in figures if name != base]
    print(f"\n{title}")
    print(f"| round | {base} p50 ms | " + " | ".join(f"{o} p50 ms | ratio" for o in others) + " |")
    print("|---|---|" + "---|---|" * len(others))
    ratios: dict[str, list[float]] = {o: [] for o in others}
    for index, a in enumerate(figures[base]):
        cells = []
        for other in others:
            b = figures[other][index]
            ratios[other].append(b / a)
            cells.append(f"{b:.2f} | {b / a:.2f}")
        print(f"| {index + 1} | {a:.2f} | " + " | ".join(cells) + " |")
    medians = {o: statistics.median(ratios[o]) for o in others}
    cells = [f"{statistics.median(figures[o]):.2f} | {medians[o]:.2f}" for o in others]
    print(f"| median | {statistics.median(figures[base]):.2f} | " + " | ".join(cells) + " |")
    return medians


async def sdk_calls(
    base_url: str,
    token: str,
    path: str,
    params: dict[str, Any],
    tool: dict[str, Any],
    rounds: int,
    calls: int,
) -> dict[str, list[float]]:
    """The official client's `call_tool` of `tool` against its route (`path`, `params`) fetched with
    httpx2, interleaved, on one connection each."""
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    out: dict[str, list[float]] = {"route": [], "sdk call_tool": []}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for round_ in range(rounds + 1):
            samples: dict[str, list[float]] = {"route": [], "sdk call_tool": []}
            for _ in range(calls):
                started = time.perf_counter()
                answer = await http.get(f"{base_url}{path}", params=params)
                samples["route"].append(time.perf_counter() - started)
                assert answer.status_code == 200
                started = time.perf_counter()
                result = await session.call_tool(tool["name"], tool["arguments"])
                samples["sdk call_tool"].append(time.perf_counter() - started)
                assert not result.is_error
            if round_:  # the first round warms
                for name, values in samples.items():
                    out[name].append(p50_ms(values))
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    lake = lake_of(args.lake)
    with Children() as children, tempfile.TemporaryDirectory(prefix="mcp-bench-") as folder:
        work = Path(folder)
        keystore = f"sqlite:///{work}/keys.sqlite3"
        env = server_env(lake, keystore)
        key = create_admin_key(keystore, env)
        server = start_api(children, "api", env=env, workers=1, log=work / "api.log")
        caller = Caller(server.base_url, key.token)
        alpha = caller.http.get("/v1/alphas").json()["data"][0]["alpha_id"]
        week = caller.http.get(f"/v1/alphas/{alpha}/rebalances").json()["data"][-1]["date"]
        listed = caller.http.post(
            "/mcp",
            content=json.dumps({"jsonrpc": "2.0", "id": 0, "method": "tools/list"}),
            headers=MCP_HEADERS,
        ).json()["result"]["tools"]
        print(
            f"mcp-bench: {git_revision()}, lake {lake}, one worker, alpha {alpha}, week {week}, "
            f"{len(listed)} tools listed for the key, {args.rounds} rounds of {args.calls} interleaved calls"
        )
        metrics_call = {"name": "performance.metrics", "arguments": {"alpha": alpha}}
        week_call = {
            "name": "signals.rebalances.get",
            "arguments": {"alpha": alpha, "date": week, "limit": 100},
        }
        metrics = interleaved(
            args.rounds,
            args.calls,
            {
                "route": lambda: caller.route(f"/v1/alphas/{alpha}/metrics"),
                "tool": lambda: caller.mcp("tools/call", metrics_call),
                "tool (2026-07-28)": lambda: caller.mcp("tools/call", metrics_call, modern=True),
            },
        )
        ratio_metrics = table("performance.metrics of one alpha", metrics, "route")["tool"]
        weeks = interleaved(
            args.rounds,
            args.calls,
            {
                "route": lambda: caller.route(f"/v1/alphas/{alpha}/rebalances/{week}", {"limit": 100}),
                "tool": lambda: caller.mcp("tools/call", week_call),
                "tool (2026-07-28)": lambda: caller.mcp("tools/call", week_call, modern=True),
            },
        )
        ratio_week = table("A week page (signals.rebalances.get, 100 rows)", weeks, "route")["tool"]
        risk_call = {"name": "analytics.risk", "arguments": {"alpha": alpha}}
        risk = interleaved(
            args.rounds,
            max(20, args.calls // 4),
            {
                "route": lambda: caller.route(f"/v1/alphas/{alpha}/analytics/risk"),
                "tool": lambda: caller.mcp("tools/call", risk_call),
            },
        )
        table("A heavier route for scale (analytics.risk of one alpha)", risk, "route")
        listing = interleaved(
            args.rounds,
            args.calls,
            {
                "/v1/me": lambda: caller.route("/v1/me"),
                "tools/list": lambda: caller.mcp("tools/list"),
                "ping": lambda: caller.mcp("ping"),
            },
        )
        title = f"tools/list ({len(listed)} tools) and ping (the SDK's floor per message) beside /v1/me"
        table(title, listing, "/v1/me")
        sdk_rounds = (args.rounds, max(20, args.calls // 4))
        metrics_path = f"/v1/alphas/{alpha}/metrics"
        sdk = asyncio.run(sdk_calls(server.base_url, key.token, metrics_path, {}, metrics_call, *sdk_rounds))
        title = "performance.metrics through the official SDK client (caller's side)"
        ratio_sdk = table(title, sdk, "route")["sdk call_tool"]
        week_path = f"/v1/alphas/{alpha}/rebalances/{week}"
        sdk = asyncio.run(
            sdk_calls(server.base_url, key.token, week_path, {"limit": 100}, week_call, *sdk_rounds)
        )
        ratio_sdk_week = table("The week page through the official SDK client", sdk, "route")["sdk call_tool"]
        list_ms = statistics.median(listing["tools/list"])
        print(
            f"\nTargets: tool/route p50 {ratio_metrics:.2f} (metrics), {ratio_week:.2f} (week page), "
            f"at most 1.5: {'met' if max(ratio_metrics, ratio_week) <= 1.5 else 'MISSED'}; "
            f"tools/list p50 {list_ms:.2f} ms, under 20 ms: {'met' if list_ms < 20 else 'MISSED'}; "
            f"SDK client {ratio_sdk:.2f} (metrics), {ratio_sdk_week:.2f} (week page)."
        )
        children.stop(server.proc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
