"""Cursors that say nothing of the events a reader may not see.

An event's row id only grows, which makes it the cursor, but shown as it is it would tell a key
what it may not read: ids 7 and 11 in a row say that three events about other alphas lie between.
So an id leaves the service only enciphered: a keyed permutation of the 63-bit ids (a four-round
Feistel network over two 32-bit halves, HMAC-SHA256 as its round function, the deployment's secret
as its key), followed by a tag (HMAC-SHA256 of it, 64 bits), written as 32 hex digits. The same id
always reads the same, any worker deciphers what another wrote, and without the secret neither the
order nor the spacing of two cursors can be told. The tag makes a cursor something only the service
writes: a made-up one (to probe where the ids of the events a key sees lie, and so how many it does
not see) is refused. The secret is made once, in the shared database (`record_secrets`), by whichever process
creates the tables first.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from records.sql import Conflict, Database
from schemas.query import CURSOR_PATTERN

ROUNDS = 4
HALF = 32
MASK = (1 << HALF) - 1
CURSOR = CURSOR_PATTERN  # the bounds the routes declare for `after`
"""How a cursor is written: 32 lower-case hex digits."""


class CursorInvalid(ValueError):
    """A text that is not a cursor this deployment wrote."""


def deployment_secret(database: Database, name: str) -> bytes:
    """The secret `name` of the deployment, made on first use and the same for every process."""
    rows, _ = database.execute("SELECT secret FROM record_secrets WHERE name = ?", (name,))
    if not rows:
        try:
            database.execute(
                "INSERT INTO record_secrets (name, secret) VALUES (?, ?)", (name, secrets.token_hex(32))
            )
        except Conflict:
            pass  # another process made it first: read theirs
        rows, _ = database.execute("SELECT secret FROM record_secrets WHERE name = ?", (name,))
    return bytes.fromhex(rows[0][0])


class Cursors:
    """Enciphers event ids into cursors and back, under one secret."""

    def __init__(self, secret: bytes) -> None:
        self._keys = [hmac.new(secret, f"round {r}".encode(), hashlib.sha256).digest() for r in range(ROUNDS)]
        self._tag_key = hmac.new(secret, b"tag", hashlib.sha256).digest()

    def _tag(self, enciphered: int) -> str:
        return hmac.new(self._tag_key, enciphered.to_bytes(8, "big"), hashlib.sha256).hexdigest()[:16]

    def _round(self, r: int, half: int) -> int:
        digest = hmac.new(self._keys[r], half.to_bytes(4, "big"), hashlib.sha256).digest()
        return int.from_bytes(digest[:4], "big")

    def write(self, event_id: int) -> str:
        if not 0 <= event_id < 1 << (2 * HALF - 1):
            raise ValueError(f"event id out of range: {event_id}")
        left, right = event_id >> HALF, event_id & MASK
        for r in range(ROUNDS):
            left, right = right, left ^ self._round(r, right)
        enciphered = (left << HALF) | right
        return f"{enciphered:016x}{self._tag(enciphered)}"

    def read(self, cursor: str) -> int:
        """The event id `cursor` stands for; `CursorInvalid` for any other text."""
        if not CURSOR.fullmatch(cursor):
            raise CursorInvalid("a cursor is 32 lower-case hex digits, as an event's `cursor` gives it")
        value = int(cursor[:16], 16)
        if not hmac.compare_digest(cursor[16:], self._tag(value)):
            raise CursorInvalid("not a cursor of this service")
        left, right = value >> HALF, value & MASK
        for r in reversed(range(ROUNDS)):
            left, right = right ^ self._round(r, left), left
        return (left << HALF) | right
