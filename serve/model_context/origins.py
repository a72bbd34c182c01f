"""DNS rebinding protection for `/mcp` (issue 48; MCP's Streamable HTTP transport: a server MUST
validate the Origin header, and answer 403 when it is present and not allowed).

A page on `attacker.example` whose name the attacker re-points at this server's address makes the
visitor's browser send it requests that the same-origin policy lets the page read: their `Host` is
`attacker.example` (the name the browser resolved), their `Origin` the page's. So before anything
else (the key included), a request to `/mcp` must name this server in its `Host`, and, when it has
an `Origin` (a browser's request), an origin allowed to call it:

- the server's own hosts: the public base URL's host (with its port, and without it when the port is
  the scheme's default), the bound host and port unless it is a wildcard address, and the loopback
  names (`127.0.0.1`, `localhost`, `[::1]`), at the bound port or with none, which reach this
  process from its own machine only (`alpha-results mcp` at its default URL, a health check);
- the server's own origins: the public base URL's origin and `http://` + each bound or loopback host
  at the bound port;
- what the operator adds (`ALPHA_RESULTS_MCP_ALLOWED_HOSTS`, `ALPHA_RESULTS_MCP_ALLOWED_ORIGINS`):
  another name a proxy forwards, a trusted web client's origin.

Names are compared without case. The SDK's own check (`TransportSecuritySettings`) is not used: it
answers in plain text and 421 for a Host, where every answer of `/mcp` is JSON-RPC.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from core.settings import Settings

DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_HOSTS = ("", "0.0.0.0", "::", "[::]")


def _bracketed(host: str) -> str:
    """An IPv6 address as a Host header writes it (`[::1]`); any other name as it is."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _authorities(host: str, port: int, scheme: str) -> list[str]:
    """`host:port`, and `host` alone when the port is the scheme's default (a browser leaves it out)."""
    named = _bracketed(host.lower())
    return [f"{named}:{port}", *([named] if DEFAULT_PORTS.get(scheme) == port else [])]


def _listed(text: str) -> list[str]:
    return [item.strip().lower().rstrip("/") for item in text.split(",") if item.strip()]


@dataclass(frozen=True)
class Allowed:
    """The `Host` and `Origin` values `/mcp` answers."""

    hosts: frozenset[str]
    origins: frozenset[str]

    @classmethod
    def of(cls, settings: Settings) -> Allowed:
        public = urlsplit(settings.public_base_url)
        scheme = public.scheme.lower() or "http"
        hosts: list[str] = []
        origins: list[str] = []
        if public.hostname:
            port = public.port or DEFAULT_PORTS.get(scheme, 80)
            public_hosts = _authorities(public.hostname, port, scheme)
            hosts += public_hosts
            origins.append(f"{scheme}://{public_hosts[-1]}")  # as a browser writes it: no default port
        bound = [] if settings.host.lower() in WILDCARD_HOSTS else [settings.host]
        for host in (*bound, *LOOPBACK_HOSTS):
            local = _authorities(host.strip("[]"), settings.port, "http")
            hosts += local
            origins.append(f"http://{local[-1]}")
        # A loopback name without a port too (clients written for port 80 send it): no page can make
        # a browser send it but one served on this machine, whose Origin is then judged.
        hosts += LOOPBACK_HOSTS
        hosts += _listed(settings.mcp_allowed_hosts)
        origins += _listed(settings.mcp_allowed_origins)
        return cls(frozenset(hosts), frozenset(origins))

    def refusal(self, headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
        """The 403's JSON-RPC error for a request whose `Host` is not this server's (missing or
        given twice included) or whose `Origin` is present and not allowed; None to answer it. The
        refused value is not echoed: it is the attacker's text."""
        hosts = [value for name, value in headers if name == b"host"]
        origins = [value for name, value in headers if name == b"origin"]
        if len(hosts) != 1 or hosts[0].decode("latin-1").lower() not in self.hosts:
            return forbidden("Host", "the Host header does not name this server")
        if len(origins) > 1 or (origins and origins[0].decode("latin-1").lower() not in self.origins):
            return forbidden("Origin", "the Origin header names no origin allowed to call this server")
        return None


def forbidden(header: str, why: str) -> bytes:
    error = {
        "code": -32600,
        "message": f"Forbidden: {why} (DNS rebinding protection; docs/integrations.md)",
        "data": {"header": header},
    }
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
