"""Token shape, checksum and hashing."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from access.tokens import (
    BASE62,
    assemble_token,
    display_prefix,
    generate_token,
    hash_secret,
    parse_token,
    secret_matches,
)
from core import errors

FIXED_RANDOM = "k7QpZ3mN8xYb"
FIXED_SECRET = "Qm9ndXNTZWNyZXRGb3JUZXN0c09ubHlfXzEyMzQ1Njc"  # 43 chars
FIXED_TOKEN = assemble_token("live", FIXED_RANDOM, FIXED_SECRET)


def test_generated_token_has_the_documented_shape_and_parses_back() -> None:
    issued = generate_token("test")
    assert re.fullmatch(r"ar_test_[0-9A-Za-z]{16}\.[A-Za-z0-9_-]{43}", issued.token)
    parsed = parse_token(issued.token)
    assert (parsed.env, parsed.key_id) == ("test", issued.key_id)
    assert issued.token.split("_", 2)[2].split(".")[0] == issued.key_id
    # The secret is 32 random bytes, URL-safe base64 without padding.
    assert len(base64.urlsafe_b64decode(parsed.secret + "=")) == 32
    assert issued.secret_sha256 == hashlib.sha256(parsed.secret.encode()).hexdigest()


def test_tokens_are_unique_and_secrets_never_in_repr() -> None:
    issued = [generate_token() for _ in range(200)]
    assert len({i.key_id for i in issued}) == 200
    assert issued[0].token not in repr(issued[0])
    assert parse_token(issued[0].token).secret not in repr(parse_token(issued[0].token))


def test_unknown_environment_is_refused_at_issuance() -> None:
    with pytest.raises(ValueError):
        generate_token("prod")


@pytest.mark.parametrize(
    "token",
    [
        "",
        "ar_live_",
        FIXED_TOKEN.replace("ar_", "xx_", 1),
        FIXED_TOKEN.replace("_live_", "_prod_", 1),
        FIXED_TOKEN + "A",  # secret of 44 characters
        FIXED_TOKEN[:-1],  # secret of 42 characters
        FIXED_TOKEN.replace(".", "", 1),
        FIXED_TOKEN.replace(".", "_", 1),
        " " + FIXED_TOKEN,
        FIXED_TOKEN[:8] + "-" + FIXED_TOKEN[9:],  # non-base62 key_id character
        "ar_live_" + FIXED_TOKEN[8:23] + "." + FIXED_SECRET,  # key_id of 15 characters
        FIXED_TOKEN[:-1] + "+",  # standard-base64 character in the secret
    ],
)
def test_malformed_shapes_are_refused(token: str) -> None:
    with pytest.raises(errors.MalformedApiKey):
        parse_token(token)


def test_fixed_token_is_well_formed() -> None:
    assert parse_token(FIXED_TOKEN).key_id.startswith(FIXED_RANDOM)


def test_every_single_character_typo_fails_the_checksum() -> None:
    key_id_start = len("ar_live_")
    secret_start = FIXED_TOKEN.index(".") + 1
    positions = [*range(key_id_start, key_id_start + 16), *range(secret_start, len(FIXED_TOKEN))]
    assert len(positions) == 16 + 43
    for position in positions:
        char = FIXED_TOKEN[position]
        # Another base62 character keeps the shape valid, so only the checksum can catch it.
        replacement = BASE62[(BASE62.index(char) + 1) % 62] if char in BASE62 else "A"
        typo = FIXED_TOKEN[:position] + replacement + FIXED_TOKEN[position + 1 :]
        with pytest.raises(errors.MalformedApiKey) as caught:
            parse_token(typo)
        assert "checksum" in caught.value.message


def test_transposed_characters_fail_the_checksum() -> None:
    secret_start = FIXED_TOKEN.index(".") + 1
    for i in range(secret_start, len(FIXED_TOKEN) - 1):
        if FIXED_TOKEN[i] == FIXED_TOKEN[i + 1]:
            continue
        swapped = FIXED_TOKEN[:i] + FIXED_TOKEN[i + 1] + FIXED_TOKEN[i] + FIXED_TOKEN[i + 2 :]
        with pytest.raises(errors.MalformedApiKey):
            parse_token(swapped)


def test_secret_comparison_uses_the_hash() -> None:
    stored = hash_secret(FIXED_SECRET)
    assert stored != FIXED_SECRET and len(stored) == 64
    assert secret_matches(FIXED_SECRET, stored)
    assert not secret_matches(FIXED_SECRET[:-1] + "A", stored)


def test_display_prefix_masks_all_but_four_key_id_characters() -> None:
    key_id = parse_token(FIXED_TOKEN).key_id
    assert display_prefix("live", key_id) == "ar_live_k7Qp…"
