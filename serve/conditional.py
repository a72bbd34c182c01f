"""Conditional requests on data routes: a strong `ETag`, 304 for a current `If-None-Match`.

A data route (one that answers from an alpha's build or the benchmark's) names the build it read
(`Context.validate_with`). The tag is a digest of that build id, the request path, the normalised
query string (parameters sorted by name; repeated names keep their order), the caller's field
policy (`Caller.field_policy`) and the representation (`serve.representation`: `Accept` or
`format=`), so it changes whenever the data of the answer can, two keys that may see different
fields never share one, and the CSV and the Arrow of one page never share one. `meta.request_id` and `meta.generated_at` differ on
every answer and are not part of what the tag identifies.

The tag names the content coding (`"<digest>-zstd"`, `"<digest>-gzip"`, `"<digest>"`), since the
bytes differ; `If-None-Match` matches any coding of the same digest. The check runs on the way out,
after the handler answered 200, so a 304 is given exactly where a 200 would have been (never for
a request that is a 400), and it saves the transfer, not the server's work. A 304 is metered like
the 200 it replaces (docs/api.md "Caching and conditional requests").
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from urllib.parse import urlencode

from litestar.types import Message, Scope

from serve.exchange import exchange_of

DATA_CACHE_CONTROL = "private, no-cache"
DATA_VARY = "Authorization, Accept, Accept-Encoding"


_CACHE_CONTROL = DATA_CACHE_CONTROL.encode("latin-1")
_VARY = DATA_VARY.encode("latin-1")
_NOT_MODIFIED = frozenset({b"content-length", b"content-encoding", b"content-type"})
"""What a 304 drops of the 200 it stands for: it has no body."""


def _set(headers: list[tuple[bytes, bytes]], name: bytes, value: bytes) -> None:
    """`headers[name] = value` on a response's raw header list (as Litestar's `MutableScopeHeaders`
    sets one, without decoding every name): the first line of `name` takes the value, any other
    goes; appended when there is none."""
    found = [at for at, (key, _) in enumerate(headers) if key.lower() == name]
    if not found:
        headers.append((name, value))
        return
    for at in reversed(found[1:]):
        del headers[at]
    headers[found[0]] = (name, value)


def normalised_query(pairs: Iterable[tuple[str, str]]) -> str:
    return urlencode(sorted(pairs, key=lambda pair: pair[0]))


def entity_tag(
    build_id: str, path: str, query: Iterable[tuple[str, str]], field_policy: str, representation: str
) -> str:
    material = "\n".join((build_id, path, normalised_query(query), field_policy))
    if representation != "json":  # JSON tags stay those issued before the other representations
        material += f"\n{representation}"
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def set_entity_tag(scope: Scope, tag: str) -> None:
    exchange_of(scope).entity_tag = tag


def _client_tags(scope: Scope) -> list[str]:
    """The opaque tags of every `If-None-Match` line, without `W/` and quotes (`*` kept)."""
    tags = []
    for name, value in scope.get("headers", ()):
        if name.lower() == b"if-none-match":
            for item in value.decode("latin-1").split(","):
                item = item.strip()
                item = item[2:] if item.startswith("W/") else item
                tags.append(item.strip('"'))
    return tags


def _matches(digest: str, client_tags: list[str]) -> bool:
    return any(tag == "*" or tag.split("-", 1)[0] == digest for tag in client_tags)


async def conditional_response(message: Message, scope: Scope) -> None:
    """A `before_send` hook: validators and caching headers on a data route's 200, or its 304."""
    exchange = exchange_of(scope)
    digest = exchange.entity_tag
    if digest is None:
        return
    if message["type"] == "http.response.start":
        if message["status"] != 200:
            return
        headers = message["headers"]
        if not isinstance(headers, list):
            headers = message["headers"] = list(headers)
        coding = next((value for name, value in headers if name.lower() == b"content-encoding"), None)
        tag = f'"{digest}-{coding.decode("latin-1")}"' if coding else f'"{digest}"'
        _set(headers, b"etag", tag.encode("latin-1"))
        _set(headers, b"cache-control", _CACHE_CONTROL)
        _set(headers, b"vary", _VARY)
        if _matches(digest, _client_tags(scope)):
            message["status"] = 304
            headers[:] = [(name, value) for name, value in headers if name.lower() not in _NOT_MODIFIED]
            exchange.not_modified = True
    elif message["type"] == "http.response.body" and exchange.not_modified:
        message["body"] = b""
