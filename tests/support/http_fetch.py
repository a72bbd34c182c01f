"""One GET over a raw HTTP/1.1 connection: the status, the headers (each sent once) and the body
as sent."""

from __future__ import annotations

import http.client


def fetch(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    names = [name.lower() for name, _ in response.getheaders()]
    assert len(names) == len(set(names)), f"a header sent twice: {response.getheaders()}"
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body
