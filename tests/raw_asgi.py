"""One HTTP exchange with an ASGI app, its header lines exactly as given: the test client merges
repeated header lines into one, and some tests are about the lines themselves (a forged
X-Forwarded-For line before the proxy's, a protocol version sent twice)."""

from __future__ import annotations

from typing import Any

import anyio


async def exchange(
    app: Any,
    method: str,
    path: str,
    headers: list[tuple[bytes, bytes]],
    body: bytes = b"",
    client: tuple[str, int] = ("127.0.0.1", 5555),
    query: bytes = b"",
) -> tuple[int, dict[bytes, bytes], bytes]:
    """`method path?query` with `headers` and `body` through `app`: the status, the headers (the
    last of each name) and the body of its answer. (The benches that time a route in process ask
    through it too.)"""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": headers,
        "client": client,
        "server": ("testserver", 80),
        "state": {},
    }
    sent: list[Any] = []
    delivered = False

    async def receive() -> Any:
        nonlocal delivered
        if delivered:  # nothing more comes: the client waits for its answer
            await anyio.sleep_forever()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return int(start["status"]), dict(start["headers"]), answer
