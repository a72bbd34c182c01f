"""The bearer token `GET /metrics` asks for, read from `ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE`.

Kept apart from serve/prometheus.py: `alpha-results serve` checks the file before uvicorn starts,
and that process must not import prometheus-client before the workers' shared folder is named
(serve/startup.py).
"""

from __future__ import annotations

import hmac
import re

TOKEN_SHAPE = re.compile(r"[\x21-\x7e]+")
"""Visible ASCII without spaces: what an `Authorization: Bearer` header can carry as it is."""


class TokenFileRefused(ValueError):
    """The token file cannot be read or holds no usable token; the message says which."""


def read_scrape_token(path: str) -> bytes:
    """The token in `path`, without surrounding whitespace (a trailing newline is usual)."""
    try:
        with open(path, "rb") as handle:
            text = handle.read().strip()
    except OSError as exc:
        raise TokenFileRefused(
            f"ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE {path} cannot be read ({exc.strerror})"
        ) from exc
    if not TOKEN_SHAPE.fullmatch(text.decode("ascii", "replace")):
        raise TokenFileRefused(
            f"ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE {path} must hold one token of visible ASCII "
            "characters without spaces"
        )
    return text


def presented(authorization: str | None) -> bytes | None:
    """The token of an `Authorization: Bearer <token>` header (the scheme in any case), else None."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token.encode("latin-1")  # header values arrive decoded as Latin-1


def matches(given: bytes | None, token: bytes) -> bool:
    """Whether the presented token is `token`, compared in constant time (the time taken tells
    nothing of how much of it matched)."""
    return given is not None and hmac.compare_digest(given, token)
