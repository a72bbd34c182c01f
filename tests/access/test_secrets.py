"""No secret, and no hash of one, is ever returned, sent in a header, logged or printed by the CLI
(except the token itself, printed once by `keys create`)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from access.tokens import hash_secret, parse_token
from cli.main import main
from tests.access.conftest import World, endpoint_path, mounted_ids
from tests.support.tokens import checksum_typo

CLIENT_LOGGERS = ("httpx", "httpcore")


def secrets_of(world: World) -> list[str]:
    """Every token's secret and the SHA-256 of it (the token contains the secret)."""
    found = []
    for token in world.tokens.values():
        secret = parse_token(token).secret
        found += [secret, hash_secret(secret)]
    return found


def leaks(text: str, secrets: list[str]) -> list[str]:
    return [s[:6] + "…" for s in secrets if s in text]


def test_no_secret_in_any_response_header_or_log(make_world: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    world = make_world()
    token = world.tokens["full_raw"]
    situations: list[tuple[str | None, dict[str, str]]] = [
        (name, {})
        for name in sorted(world.tokens)  # every key: success and every refusal
    ]
    situations += [
        (None, {}),
        ("not-a-token", {}),
        (checksum_typo(token), {}),
        (token[:-1], {}),
        ("full_raw", {"api_key": token}),  # a key in the query string
        ("full_raw", {"limit": "0", "bogus": token}),
    ]
    requests = [endpoint_path(world, i) for i in mounted_ids(world.app)]
    requests += [
        ("/v1/nothing", {}),
        ("/v1/alphas/Test_planted_factor/portfolio", {"book": "raw_long_short"}),
    ]
    texts = []
    for who, extra in situations:
        for path, params in requests:
            response = world.get(path, who, **params, **extra)
            headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
            texts.append(f"{path} {who}\n{headers}\n{response.text}")
    posted = world.client.post("/v1/me", headers={"Authorization": f"Bearer {token}"})
    texts.append(posted.text + str(dict(posted.headers)))

    secrets = secrets_of(world)
    for text in texts:
        assert not leaks(text, secrets), text[:200]
    # The test's own HTTP client logs the URLs it requests (some carry a token by design); every
    # record of the service itself is checked, with its arguments and any attached traceback.
    service = [r for r in caplog.records if not r.name.startswith(CLIENT_LOGGERS)]
    assert service, "logging was not captured"
    for record in service:
        text = " ".join([record.getMessage(), str(record.args), record.exc_text or "", str(vars(record))])
        assert not leaks(text, secrets), text[:300]


def test_cli_prints_the_token_once_and_never_a_hash(make_world: Any, capsys: Any, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    world = make_world(populated=False)

    def cli(*argv: str) -> str:
        group, *rest = argv
        assert main([group, "--keystore", world.store_url, *rest]) == 0
        captured = capsys.readouterr()
        return str(captured.out + captured.err)

    cli("accounts", "create", "--email", "ops@example.com")
    created_json = cli("keys", "create", "--user", "ops@example.com", "--name", "one", "--json")
    created_text = cli("keys", "create", "--user", "ops@example.com", "--name", "two")
    first = json.loads(created_json.splitlines()[0])  # stdout's one line; stderr follows it
    second_token = next(w for w in created_text.split() if w.startswith("ar_live_"))
    world.tokens.update(one=first["token"], two=second_token)
    secrets = secrets_of(world)
    # The token appears in its own create output; the hash never does.
    assert parse_token(first["token"]).secret in created_json
    assert not leaks(created_json, [hash_secret(parse_token(first["token"]).secret), *secrets[2:]])
    assert not leaks(created_text, [*secrets[:2], hash_secret(parse_token(second_token).secret)])

    key_id = first["key_id"]
    outputs = [
        cli("keys", "list", "--user", "ops@example.com", "--all"),
        cli("keys", "show", key_id),
        cli("keys", "suspend", key_id),
        cli("keys", "reactivate", key_id),
        cli("keys", "set-expiry", key_id, "2040-01-01"),
        cli("keys", "grant", key_id, "--endpoints", "all", "--alphas", "all"),
        cli("keys", "set-raw-book", key_id, "on"),
        cli("keys", "set-limits", key_id, "--per-second", "9"),
        cli("keys", "set-ips", key_id, "10.0.0.0/8"),
        cli("accounts", "show", "ops@example.com"),
        cli("keys", "revoke", key_id),
        cli("keys", "list", "--user", "ops@example.com", "--all"),
    ]
    for output in outputs:
        assert not leaks(output, secrets), output[:200]
    assert not leaks(caplog.text, secrets)
