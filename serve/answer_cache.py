"""Answers made once (issue 49, item 2): a bounded per-worker cache of the encoded bytes of a run's
collection pages, answered by the one-pass layer (serve/front.py) without routing a second time
through Litestar's handler, its dependencies or a `Response` object.

What may be kept: an answer whose handler said it is a function of its inputs alone
(`Context.answer`, a run's collection page: `datasets.answers`), and only its 200. Its inputs, the
key of an entry: the route and its path, the query (normalised as the entity tag's), the `Accept`
lines (the representation), the caller's field policy (`Caller.field_policy`: its endpoint, alpha
and run allow-lists and raw-book flag, everything about a key that shapes an answer), the
catalogue's generation and the alpha's served build. So an entry is never served across builds
(a republish is another build and another generation), across scopes (a narrowed grant or raw
fields on or off is another field policy), or to a key that is no longer valid (the layer
authenticates, checks the endpoint and counts the request before it looks, as for every request).

What differs per request is put in on the way out: the request id and `generated_at` (same
lengths, so `Content-Length`, the Arrow stream's and the Parquet footer's offsets hold), the
standard headers, the limiter's headers, the entity tag's 304 (the request's `Cycle`), and the
content coding (the answer is kept uncompressed and compressed per request as the route does).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

Key = tuple[Any, ...]

_GENERATED_AT = b'"generated_at":"'
PARQUET = b"parquet"


@dataclass(frozen=True, slots=True)
class Entry:
    """One answer as the route sent it, uncompressed: its status line's headers and its body, with
    the request id and the `generated_at` it was made with (replaced on the way out)."""

    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    request_id: bytes
    generated_at: bytes | None
    entity_tag: str | None
    rows: int = 0
    """The page's rows: a key's egress (serve/limits/egress.py) counts them when it is sent again."""

    @property
    def size(self) -> int:
        return len(self.body) + sum(len(name) + len(value) for name, value in self.headers) + 256

    def made_for(self, request_id: str, generated_at: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
        """The headers and body of this answer for another request: its id and the time now."""
        pairs = [(self.request_id, request_id.encode("latin-1"))]
        if self.generated_at is not None:
            now = generated_at.encode("latin-1")
            if now != self.generated_at:
                pairs.append((_GENERATED_AT + self.generated_at + b'"', _GENERATED_AT + now + b'"'))
        return [(name, _replaced(value, pairs)) for name, value in self.headers], _replaced(self.body, pairs)


def _replaced(text: bytes, pairs: list[tuple[bytes, bytes]]) -> bytes:
    for old, new in pairs:
        if old in text:
            text = text.replace(old, new)
    return text


def entry_of(
    headers: list[tuple[bytes, bytes]],
    body: bytes,
    request_id: str,
    generated_at: str,
    entity_tag: str | None,
    rows: int = 0,
) -> Entry | None:
    """The entry of an answer made for `request_id` at `generated_at`, or None when the time it
    states is not the one given (made across a second's turn: kept next time) or when it is a
    Parquet file: Parquet stores its meta a second time inside the Arrow schema it keeps
    (`ARROW:schema`, base64), which no replacement of the request id reaches."""
    if any(name.lower() == b"content-type" and PARQUET in value for name, value in headers):
        return None
    stamp = generated_at.encode("latin-1")
    stated = _GENERATED_AT + stamp + b'"'
    for text in (body, *(value for _, value in headers)):
        if stated in text:
            break
        if _GENERATED_AT in text:
            return None  # made in the second before: kept next time
    return Entry(tuple(headers), body, request_id.encode("latin-1"), stamp, entity_tag, rows)


class AnswerCache:
    """At most `limit` bytes of entries, least recently used first out; an entry above a
    sixteenth of the limit is not kept (one large page must not empty the cache). An answer is kept
    the second time its key is asked (`wanted`: the keys asked once are remembered by their hash,
    up to `SEEN`, then forgotten together): pages asked once, as most of a random scan is, cost no
    copy kept and none dropped later (measured: docs/benchmarks.md "Answers made once")."""

    SEEN = 1 << 16

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.largest = limit // 16
        self.used = 0
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[Key, Entry] = OrderedDict()
        self._seen: set[int] = set()

    def wanted(self, key: Key) -> bool:
        """Whether an answer of `key` is worth keeping: its key was asked before."""
        digest = hash(key)
        if digest in self._seen:
            return True
        if len(self._seen) >= self.SEEN:
            self._seen.clear()
        self._seen.add(digest)
        return False

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Key) -> Entry | None:
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry

    def put(self, key: Key, entry: Entry) -> None:
        size = entry.size
        if size > self.largest:
            return
        previous = self._entries.pop(key, None)
        if previous is not None:
            self.used -= previous.size
        self._entries[key] = entry
        self.used += size
        while self.used > self.limit:
            _, dropped = self._entries.popitem(last=False)
            self.used -= dropped.size
