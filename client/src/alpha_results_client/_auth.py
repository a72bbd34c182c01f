"""The API token: sent only as `Authorization: Bearer`, only to the API's own origin, and never shown.

The token is kept out of the httpx client's default headers (which a debugger or a log of the
client would show) and attached per request by an `httpx.Auth`, which also refuses to send it to
any other origin: the signed download URLs point at an object store or at `/downloads/...`,
where the URL itself is the credential and a bearer token has no business travelling.
"""

from __future__ import annotations

from collections.abc import Generator

import httpx

REDACTED = "[redacted token]"


class BearerToken(httpx.Auth):
    def __init__(self, token: str, base_url: str) -> None:
        self._token = token
        self._origin = httpx.URL(base_url)

    def __repr__(self) -> str:
        return f"BearerToken({REDACTED})"

    __str__ = __repr__

    def _same_origin(self, url: httpx.URL) -> bool:
        return (url.scheme, url.host, url.port) == (self._origin.scheme, self._origin.host, self._origin.port)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self._same_origin(request.url) and not request.url.path.startswith("/downloads/"):
            request.headers["Authorization"] = f"Bearer {self._token}"
        yield request

    def redact(self, text: str) -> str:
        """`text` without the token or its secret part (after the dot)."""
        secret = self._token.partition(".")[2]
        text = text.replace(self._token, REDACTED)
        return text.replace(secret, REDACTED) if len(secret) >= 8 else text


def redact(text: str, auth: BearerToken | None) -> str:
    return auth.redact(text) if auth is not None else text
