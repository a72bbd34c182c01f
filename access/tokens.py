"""API key tokens: `ar_<env>_<key_id>.<secret>`, with a checksum inside the key_id.

- `ar` is the fixed service prefix, `<env>` is `live` or `test`.
- `<key_id>` is 16 base62 characters: 12 random ones, then a 4-character checksum.
- `<secret>` is 43 characters: 32 random bytes, URL-safe base64 without padding.

The checksum is CRC-32 of the whole token with the checksum left out
(`ar_<env>_<random12>.<secret>`), reduced modulo 62**4 and written in base62. It lets the service
(and secret scanners) refuse a mistyped or truncated token before any store lookup. It is not a
security measure: anyone can compute it, and the secret is what authenticates.

Only the SHA-256 of the secret is stored; `secret_matches` compares digests in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import zlib
from dataclasses import dataclass, field

from core import errors

TOKEN_PREFIX = "ar"
ENVIRONMENTS = ("live", "test")
KEY_ID_RANDOM_LENGTH = 12
CHECKSUM_LENGTH = 4
KEY_ID_LENGTH = KEY_ID_RANDOM_LENGTH + CHECKSUM_LENGTH
SECRET_BYTES = 32
SECRET_LENGTH = 43
DISPLAY_KEY_ID_CHARS = 4

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

_TOKEN_SHAPE = re.compile(
    rf"{TOKEN_PREFIX}_(?P<env>{'|'.join(ENVIRONMENTS)})_"
    rf"(?P<key_id>[0-9A-Za-z]{{{KEY_ID_LENGTH}}})\.(?P<secret>[A-Za-z0-9_-]{{{SECRET_LENGTH}}})"
)


@dataclass(frozen=True)
class ParsedToken:
    env: str
    key_id: str
    secret: str = field(repr=False)


@dataclass(frozen=True)
class IssuedToken:
    """A freshly generated token; the only moment the secret exists in clear."""

    env: str
    key_id: str
    token: str = field(repr=False)
    secret_sha256: str = field(repr=False)


def _base62(value: int, width: int) -> str:
    digits = []
    for _ in range(width):
        value, digit = divmod(value, 62)
        digits.append(BASE62[digit])
    return "".join(reversed(digits))


def checksum(env: str, key_id_random: str, secret: str) -> str:
    body = f"{TOKEN_PREFIX}_{env}_{key_id_random}.{secret}"
    return _base62(zlib.crc32(body.encode("ascii")) % 62**CHECKSUM_LENGTH, CHECKSUM_LENGTH)


def assemble_token(env: str, key_id_random: str, secret: str) -> str:
    key_id = key_id_random + checksum(env, key_id_random, secret)
    return f"{TOKEN_PREFIX}_{env}_{key_id}.{secret}"


TOKEN_LIKE = re.compile(rf"{TOKEN_PREFIX}_(?:live|test)_[0-9A-Za-z]{{16}}\.[A-Za-z0-9_-]*")
"""A token as it may turn up in request input: prefix, environment, key_id, dot, secret (or part)."""
REDACTED_TOKEN = "[redacted token]"


def redact_tokens(text: str) -> str:
    """`text` with every token-shaped substring replaced: what any echo or log of request input
    goes through, so a key pasted into a URL or a parameter never leaves in a body or a log."""
    return TOKEN_LIKE.sub(REDACTED_TOKEN, text) if TOKEN_PREFIX in text else text


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def generate_token(env: str = "live") -> IssuedToken:
    if env not in ENVIRONMENTS:
        raise ValueError(f"environment must be one of {', '.join(ENVIRONMENTS)}; got {env!r}")
    key_id_random = "".join(secrets.choice(BASE62) for _ in range(KEY_ID_RANDOM_LENGTH))
    secret = base64.urlsafe_b64encode(secrets.token_bytes(SECRET_BYTES)).rstrip(b"=").decode("ascii")
    token = assemble_token(env, key_id_random, secret)
    parsed = parse_token(token)
    return IssuedToken(env=env, key_id=parsed.key_id, token=token, secret_sha256=hash_secret(secret))


def parse_token(token: str) -> ParsedToken:
    """Shape and checksum; raises `MalformedApiKey` (no store is touched)."""
    match = _TOKEN_SHAPE.fullmatch(token)
    if match is None:
        raise errors.MalformedApiKey()
    env, key_id, secret = match.group("env"), match.group("key_id"), match.group("secret")
    random_part, given_checksum = key_id[:KEY_ID_RANDOM_LENGTH], key_id[KEY_ID_RANDOM_LENGTH:]
    if not hmac.compare_digest(given_checksum, checksum(env, random_part, secret)):
        raise errors.MalformedApiKey("The API key failed its checksum; check for a typing or copying error.")
    return ParsedToken(env=env, key_id=key_id, secret=secret)


def secret_matches(secret: str, stored_sha256: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_sha256)


def display_prefix(env: str, key_id: str) -> str:
    """The masked token shown in inventories, e.g. `ar_live_k7Qp…`."""
    return f"{TOKEN_PREFIX}_{env}_{key_id[:DISPLAY_KEY_ID_CHARS]}…"
