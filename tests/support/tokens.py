"""A token with one secret character changed."""

from __future__ import annotations

from access.tokens import BASE62


def checksum_typo(token: str) -> str:
    """The token with one secret character changed: well-shaped, but the checksum fails."""
    head, secret = token.rsplit(".", 1)
    changed = BASE62[(BASE62.index(secret[5]) + 1) % 62] if secret[5] in BASE62 else "A"
    return f"{head}.{secret[:5]}{changed}{secret[6:]}"
