"""`/mcp` behind an organisation's identity provider (issue 80): a real, certified OpenID provider
(npm `oidc-provider`, tests/oidc_provider/) issues the access tokens, the real `alpha-results serve`
reads its discovery document and key set and maps each token to an account: the one linked to its
(issuer, subject), linked at its first token by its verified e-mail (`oauth_account_rule` `subject`).

The provider's clients use the client-credentials grant, each standing for one person (its tokens
carry that person's verified e-mail): a token is asked without a browser, by the token endpoint
and the resource indicator a connector would send.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from access import open_store
from access.oauth import ADMIN_SCOPE, READ_SCOPE, account_credential_id
from tests.ops.keys import IssuedKey, issue_key
from tests.support.oidc import oidc_provider
from tests.support.ports import free_port
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

PEOPLE = {
    "agent-member": "member@example.org",
    "agent-admin": "admin@example.org",
    "agent-stranger": "nobody@example.org",
    # One person whose address changes at the provider, and another subject given the same address.
    "agent-mover": "mover@example.org",
    "agent-claimant": "mover@example.org",
}


@dataclass
class World:
    port: int
    output: list[str]
    issuer: str
    other_issuer: str
    member: IssuedKey
    admin: IssuedKey
    mover: IssuedKey
    people_file: Path
    keystore_url: str

    @property
    def resource(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@pytest.fixture(scope="module")
def world(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("oauth_provider")
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore_url)
    try:
        member = issue_key(store, email=PEOPLE["agent-member"])
        admin = issue_key(store, role="admin", email=PEOPLE["agent-admin"])
        mover = issue_key(store, email=PEOPLE["agent-mover"])
    finally:
        store.close()
    people_file = folder / "people.json"
    people_file.write_text(json.dumps(PEOPLE))
    port = free_port()
    with oidc_provider(people_file) as issuer, oidc_provider(PEOPLE) as other_issuer:
        env = {
            "ALPHA_RESULTS_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ALPHA_RESULTS_OAUTH_ISSUER": issuer,
        }
        with serving(demo_lake, keystore_url, workers=1, env=env, port=port) as (port, output):
            yield World(port, output, issuer, other_issuer, member, admin, mover, people_file, keystore_url)


def provider_token(issuer: str, client: str, resource: str, scope: str = READ_SCOPE) -> str:
    """An access token of the provider for `client`'s person, for `resource`."""
    answer = httpx.post(
        issuer + "/token",
        auth=(client, f"{client}-secret"),
        data={"grant_type": "client_credentials", "resource": resource, "scope": scope},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["access_token"]
    return token


def mcp(world: World, token: str, message: dict[str, Any]) -> httpx.Response:
    headers = {
        "authorization": f"Bearer {token}",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    return httpx.post(world.resource, json=message, headers=headers, timeout=60)


def tools_of(world: World, token: str) -> set[str]:
    answer = mcp(world, token, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    assert answer.status_code == 200, answer.text
    return {t["name"] for t in answer.json()["result"]["tools"]}


def test_the_metadata_names_the_organisations_provider(world: World) -> None:
    metadata = httpx.get(
        f"http://127.0.0.1:{world.port}/.well-known/oauth-protected-resource/mcp", timeout=30
    )
    assert metadata.json()["authorization_servers"] == [world.issuer]
    # No built-in server beside it.
    assert httpx.get(f"http://127.0.0.1:{world.port}/authorize", timeout=30).status_code == 404


def test_a_providers_token_reads_as_the_account_of_its_verified_email(world: World) -> None:
    token = provider_token(world.issuer, "agent-member", world.resource)
    mark = len(world.output)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "catalog.alphas.list", "arguments": {"limit": 1}},
    }
    answer = mcp(world, token, call)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"].get("isError") is not True, answer.text
    assert len(json.loads(answer.json()["result"]["content"][0]["text"])["data"]) == 1
    # Metered as the member's account (the access lines name its token credential).
    credential = account_credential_id(world.member.user_id)
    assert any(credential in line and "/v1/alphas" in line for line in world.output[mark:])
    key_tools = {
        t["name"]
        for t in httpx.post(
            world.resource,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={**world.member.headers, "accept": "application/json, text/event-stream"},
            timeout=60,
        ).json()["result"]["tools"]
    }
    assert tools_of(world, token) == key_tools


def test_the_admin_scope_opens_admin_tools_to_an_admin_account_only(world: World) -> None:
    both = f"{READ_SCOPE} {ADMIN_SCOPE}"
    assert "admin.builds.list" in tools_of(
        world, provider_token(world.issuer, "agent-admin", world.resource, both)
    )
    assert "admin.builds.list" not in tools_of(
        world, provider_token(world.issuer, "agent-admin", world.resource)
    )
    assert not any(
        name.startswith("admin.")
        for name in tools_of(world, provider_token(world.issuer, "agent-member", world.resource, both))
    )


def refusal(world: World, token: str) -> dict[str, Any]:
    answer = mcp(world, token, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    assert answer.status_code == 401, answer.text
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    body: dict[str, Any] = answer.json()["error"]
    return body


def test_a_providers_token_for_another_audience_is_refused(world: World) -> None:
    token = provider_token(world.issuer, "agent-member", "https://other.example/mcp")
    assert refusal(world, token)["details"]["token_rule"] == "audience"


def test_a_token_of_another_provider_is_refused(world: World) -> None:
    # The other provider signs with the same development keys: only the issuer tells them apart.
    token = provider_token(world.other_issuer, "agent-member", world.resource)
    assert refusal(world, token)["details"]["token_rule"] == "issuer"


def test_a_person_without_an_account_is_refused(world: World) -> None:
    token = provider_token(world.issuer, "agent-stranger", world.resource)
    assert refusal(world, token)["details"]["token_rule"] == "account"


def me_of(world: World, token: str) -> dict[str, Any]:
    """`meta.me` with `token`."""
    answer = mcp(
        world,
        token,
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "meta.me", "arguments": {}}},
    )
    assert answer.status_code == 200, answer.text
    me: dict[str, Any] = json.loads(answer.json()["result"]["content"][0]["text"])["data"]
    return me


def test_a_person_is_their_subject_once_linked_by_verified_email(world: World) -> None:
    """`oauth_account_rule` `subject` (the default): the first token links (issuer, sub) to the
    account its verified e-mail names; then a second subject with that address is refused, and
    the person keeps their account when their address changes at the provider."""
    first = me_of(world, provider_token(world.issuer, "agent-mover", world.resource))
    assert (first["user_id"], first["credential"]) == (world.mover.user_id, "oauth")
    store = open_store(world.keystore_url)
    try:
        assert [(x.issuer, x.subject, x.linked_by) for x in store.links_of_account(world.mover.user_id)] == [
            (world.issuer, "agent-mover", "email")
        ]
    finally:
        store.close()
    # Another subject of the provider presenting the same verified address takes nothing over.
    claimant = provider_token(world.issuer, "agent-claimant", world.resource)
    assert refusal(world, claimant)["details"]["token_rule"] == "account"
    # The person's address changes at the provider, even to another account's: still their account.
    try:
        for address in ("mover.renamed@example.org", PEOPLE["agent-member"]):
            world.people_file.write_text(json.dumps({**PEOPLE, "agent-mover": address}))
            token = provider_token(world.issuer, "agent-mover", world.resource)
            assert jwt.decode(token, options={"verify_signature": False})["email"] == address
            assert me_of(world, token)["user_id"] == world.mover.user_id
    finally:
        world.people_file.write_text(json.dumps(PEOPLE))
