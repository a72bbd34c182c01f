"""`/mcp` as an OAuth 2.1 protected resource with the built-in authorization server (issue 80),
through the real `alpha-results serve`: the official MCP SDK's client connects with no key
configured (protected resource metadata, authorization server metadata, Dynamic Client
Registration, PKCE, consent, a token bound to this server) and its tool calls are the account's;
every refusal of the authorization server and of the resource is asked of the running server.

The server signs with a key the test wrote (`oauth_signing_key_file`), so the test can make the
tokens an attacker would try: for another audience, expired, of another issuer, tampered.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
import httpx
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from access import Grants, open_store
from access.oauth import ADMIN_SCOPE, READ_SCOPE, account_credential_id
from core.context import AllowList
from tests.ops.keys import IssuedKey, issue_key
from tests.support.ports import free_port
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

REDIRECT = "http://127.0.0.1:9/callback"  # never reached: the test reads the redirect's Location
NARROW_ENDPOINTS = ("meta.me", "catalog.alphas.list", "performance.metrics")


@dataclass
class OAuthServer:
    port: int
    output: list[str]
    keystore_url: str
    signing_key: rsa.RSAPrivateKey

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def resource(self) -> str:
        return self.url + "/mcp"

    def key(self, role: str = "member", grants: Grants | None = None) -> IssuedKey:
        store = open_store(self.keystore_url)
        try:
            return issue_key(store, role=role, **({"grants": grants} if grants else {}))
        finally:
            store.close()

    def narrow_account(self, alpha: str) -> IssuedKey:
        """A member whose ceiling opens three endpoints and one alpha, with a key of `mode: all`."""
        store = open_store(self.keystore_url)
        try:
            issued = issue_key(store, grants=Grants(AllowList.all(), AllowList.all(), AllowList.all(), False))
            ceiling = Grants(
                AllowList.of_ids(list(NARROW_ENDPOINTS)),
                AllowList.of_ids([alpha]),
                AllowList.of_ids([alpha]),
                expose_raw_book=False,
            )
            store.set_account_ceiling(issued.user_id, ceiling)
            return issued
        finally:
            store.close()

    def token(self, user_id: str, key: rsa.RSAPrivateKey | None = None, **changes: Any) -> str:
        """An access token as the built-in server makes them, with `changes` to its claims."""
        now = int(time.time())
        claims = {
            "iss": self.url,
            "aud": self.resource,
            "sub": user_id,
            "scope": READ_SCOPE,
            "client_id": "test",
            "iat": now,
            "exp": now + 300,
        }
        claims.update(changes)
        claims = {k: v for k, v in claims.items() if v is not None}
        return jwt.encode(claims, key or self.signing_key, algorithm="RS256")


@pytest.fixture(scope="module")
def oauth_server(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthServer]:
    folder = tmp_path_factory.mktemp("oauth_server")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (folder / "oauth.pem").write_bytes(pem)
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    open_store(keystore_url).close()
    port = free_port()
    env = {
        "ALPHA_RESULTS_PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ALPHA_RESULTS_OAUTH_ISSUER": "builtin",
        "ALPHA_RESULTS_OAUTH_SIGNING_KEY_FILE": str(folder / "oauth.pem"),
        "ALPHA_RESULTS_OAUTH_CLIENT_METADATA_DOCUMENTS": "true",
        "ALPHA_RESULTS_OAUTH_CLIENT_METADATA_ALLOW_PRIVATE": "true",
    }
    with serving(demo_lake, keystore_url, workers=1, env=env, port=port) as (port, output):
        yield OAuthServer(port, output, keystore_url, key)


# -- the manual flow (what a client does, step by step) -------------------------------------------


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def register(server: OAuthServer, redirect: str = REDIRECT) -> dict[str, Any]:
    answer = httpx.post(
        server.url + "/register",
        json={"redirect_uris": [redirect], "client_name": "flow test", "token_endpoint_auth_method": "none"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    client: dict[str, Any] = answer.json()
    return client


def authorize(server: OAuthServer, params: dict[str, str]) -> httpx.Response:
    return httpx.get(server.url + "/authorize", params=params, timeout=30)


def authorization_params(client_id: str, challenge: str, **changes: str | None) -> dict[str, str]:
    """An authorization request's parameters: a code with an S256 PKCE challenge to `REDIRECT`,
    state `s`; `changes` replace or add parameters (None leaves one out)."""
    params: dict[str, str | None] = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "s",
        **changes,
    }
    return {name: value for name, value in params.items() if value is not None}


def consent(server: OAuthServer, consent_url: str, key: IssuedKey, decision: str = "allow") -> httpx.Response:
    """The person's answer on the consent page: the page read, its form sent with their key."""
    page = httpx.get(consent_url, timeout=30)
    assert page.status_code == 200, page.text
    assert page.headers["x-frame-options"] == "DENY"
    request = re.search(r'name=request value="([^"]+)"', page.text)
    assert request is not None
    return httpx.post(
        consent_url,
        data={"request": request.group(1), "api_key": key.token, "decision": decision},
        timeout=30,
    )


def code_for(
    server: OAuthServer, client: dict[str, Any], key: IssuedKey, challenge: str, **extra: str
) -> str:
    answer = authorize(
        server,
        authorization_params(client["client_id"], challenge, state="s1", resource=server.resource, **extra),
    )
    assert answer.status_code == 302, answer.text
    allowed = consent(server, answer.headers["location"], key)
    assert allowed.status_code == 303, allowed.text
    query = parse_qs(urlparse(allowed.headers["location"]).query)
    assert query["state"] == ["s1"] and query["iss"] == [server.url]
    return query["code"][0]


def exchange(server: OAuthServer, client: dict[str, Any], code: str, verifier: str) -> httpx.Response:
    return httpx.post(
        server.url + "/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "client_id": client["client_id"],
            "code_verifier": verifier,
            "resource": server.resource,
        },
        timeout=30,
    )


def mcp_post(server: OAuthServer, token: str | None, message: dict[str, Any]) -> httpx.Response:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return httpx.post(server.resource, json=message, headers=headers, timeout=60)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


# -- discovery -------------------------------------------------------------------------------------


def test_mcp_without_credentials_is_a_401_naming_the_resource_metadata(oauth_server: OAuthServer) -> None:
    answer = mcp_post(oauth_server, None, INITIALIZE)
    assert answer.status_code == 401
    challenge = answer.headers["www-authenticate"]
    metadata_url = f"{oauth_server.url}/.well-known/oauth-protected-resource/mcp"
    assert challenge.startswith("Bearer ") and f'resource_metadata="{metadata_url}"' in challenge
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        metadata = httpx.get(oauth_server.url + path, timeout=30).json()
        assert metadata["resource"] == oauth_server.resource
        assert metadata["authorization_servers"] == [oauth_server.url]
        assert metadata["scopes_supported"] == [READ_SCOPE, ADMIN_SCOPE]
    server = httpx.get(oauth_server.url + "/.well-known/oauth-authorization-server", timeout=30).json()
    assert server["issuer"] == oauth_server.url
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["registration_endpoint"] == oauth_server.url + "/register"
    assert server["client_id_metadata_document_supported"] is True
    keys = httpx.get(server["jwks_uri"], timeout=30).json()
    public = oauth_server.signing_key.public_key().public_numbers()
    assert jwt.PyJWKSet.from_dict(keys).keys[0].key.public_numbers() == public


def test_an_api_key_keeps_working_on_mcp(oauth_server: OAuthServer) -> None:
    key = oauth_server.key()
    answer = mcp_post(oauth_server, key.token, INITIALIZE)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["serverInfo"]["name"] == "alpha-results"


# -- the SDK's client, the whole flow ----------------------------------------------------------------


class Memory:
    """The SDK's `TokenStorage`, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def sdk_session_tools(server: OAuthServer, person: IssuedKey, call: tuple[str, dict[str, Any]]) -> Any:
    """The MCP SDK's client with `OAuthClientProvider` and no key: the person consents with
    their key in the 'browser' (the redirect handler); returns (tool names, the call's result, storage)."""
    redirected: dict[str, str] = {}
    storage = Memory()

    async def redirect_handler(url: str) -> None:
        def walk() -> None:
            authorize_answer = httpx.get(url, timeout=30)
            assert authorize_answer.status_code == 302, authorize_answer.text
            allowed = consent(server, authorize_answer.headers["location"], person)
            assert allowed.status_code == 303, allowed.text
            redirected["location"] = allowed.headers["location"]

        await anyio.to_thread.run_sync(walk)

    async def callback_handler() -> AuthorizationCodeResult:
        query = parse_qs(urlparse(redirected["location"]).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0], iss=query["iss"][0])

    provider = OAuthClientProvider(
        server_url=server.resource,
        client_metadata=OAuthClientMetadata(
            client_name="sdk test client",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    async def run() -> Any:
        async with (
            httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(60)) as http,
            streamable_http_client(server.resource, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            result = await session.call_tool(*call)
            return tools, result, storage

    return anyio.run(run)


def listed_with_key(server: OAuthServer, key: IssuedKey) -> set[str]:
    answer = mcp_post(server, key.token, {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})
    assert answer.status_code == 200, answer.text
    return {t["name"] for t in answer.json()["result"]["tools"]}


def test_the_sdk_client_connects_by_oauth_and_its_calls_are_the_accounts(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    mark = len(oauth_server.output)
    tools, result, storage = sdk_session_tools(oauth_server, person, ("catalog.alphas.list", {"limit": 2}))
    assert result.is_error is not True, result
    rows = json.loads(result.content[0].text)["data"]
    assert len(rows) == 2
    # The token the SDK holds: bound to this server, for the person's account, with the read scope.
    claims = jwt.decode(storage.tokens.access_token, options={"verify_signature": False})
    assert claims["aud"] == oauth_server.resource and claims["iss"] == oauth_server.url
    assert claims["sub"] == person.user_id and claims["scope"] == READ_SCOPE
    # The same tools as the account's own key of every grant (the read scope of a member account).
    assert tools == listed_with_key(oauth_server, person)
    # Metered to the account: the call's access line names the account's token credential.
    credential = account_credential_id(person.user_id)
    lines = oauth_server.output[mark:]
    assert any(credential in line and "/v1/alphas" in line for line in lines), lines[-5:]


def test_me_says_which_credential_a_request_used(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    by_token = mcp_post(oauth_server, oauth_server.token(person.user_id), tool_call("meta.me", {}))
    assert by_token.status_code == 200, by_token.text
    me = json.loads(by_token.json()["result"]["content"][0]["text"])
    assert me["data"]["credential"] == "oauth" and me["data"]["user_id"] == person.user_id
    assert me["data"]["key_id"] == me["meta"]["key_id"] == account_credential_id(person.user_id)
    assert me["data"]["usage"]["day"] >= 1
    by_key = mcp_post(oauth_server, person.token, tool_call("meta.me", {}))
    me = json.loads(by_key.json()["result"]["content"][0]["text"])
    assert me["data"]["credential"] == "key" and me["data"]["key_id"] == person.key_id
    over_http = httpx.get(oauth_server.url + "/v1/me", headers=person.headers, timeout=30).json()
    assert over_http["data"]["credential"] == "key"
    # An access token is for `/mcp` alone: the API's routes over HTTP take keys.
    refused = httpx.get(
        oauth_server.url + "/v1/me",
        headers={"authorization": f"Bearer {oauth_server.token(person.user_id)}"},
        timeout=30,
    )
    assert refused.status_code == 401


def test_a_token_never_reads_more_than_its_account(oauth_server: OAuthServer) -> None:
    alphas = httpx.get(
        oauth_server.url + "/v1/alphas", headers=oauth_server.key().headers, params={"limit": 2}, timeout=30
    ).json()["data"]
    allowed, other = alphas[0]["alpha_id"], alphas[1]["alpha_id"]
    person = oauth_server.narrow_account(allowed)
    token = oauth_server.token(person.user_id)
    listed = mcp_post(oauth_server, token, {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})
    assert {t["name"] for t in listed.json()["result"]["tools"]} == set(NARROW_ENDPOINTS) | {"meta.health"}
    answer = mcp_post(oauth_server, token, tool_call("catalog.alphas.list", {}))
    ids = {row["alpha_id"] for row in json.loads(answer.json()["result"]["content"][0]["text"])["data"]}
    assert ids == {allowed}
    refused = mcp_post(oauth_server, token, tool_call("performance.metrics", {"alpha_id": other}))
    assert refused.json()["result"]["isError"] is True


def test_a_tool_the_scopes_leave_out_is_403_insufficient_scope(oauth_server: OAuthServer) -> None:
    admin = oauth_server.key(role="admin")
    read_only = oauth_server.token(admin.user_id, scope=READ_SCOPE)
    answer = mcp_post(oauth_server, read_only, tool_call("admin.builds.list", {}))
    assert answer.status_code == 403, answer.text
    challenge = answer.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge and ADMIN_SCOPE in challenge
    full = oauth_server.token(admin.user_id, scope=f"{READ_SCOPE} {ADMIN_SCOPE}")
    assert mcp_post(oauth_server, full, tool_call("admin.builds.list", {})).status_code == 200
    # A member's token asking the admin scope still opens no administrative tool.
    member = oauth_server.key()
    asked = oauth_server.token(member.user_id, scope=f"{READ_SCOPE} {ADMIN_SCOPE}")
    listed = mcp_post(oauth_server, asked, {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})
    assert not any(t["name"].startswith("admin.") for t in listed.json()["result"]["tools"])


# -- refusals of the resource ------------------------------------------------------------------------


def refused_rule(server: OAuthServer, token: str) -> str:
    answer = mcp_post(server, token, INITIALIZE)
    assert answer.status_code == 401, answer.text
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]
    assert "resource_metadata=" in answer.headers["www-authenticate"]
    rule: str = answer.json()["error"]["details"]["token_rule"]
    return rule


def test_a_token_for_another_audience_is_refused(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    assert mcp_post(oauth_server, oauth_server.token(person.user_id), INITIALIZE).status_code == 200
    token = oauth_server.token(person.user_id, aud="https://other.example/mcp")
    assert refused_rule(oauth_server, token) == "audience"


def test_an_expired_token_is_refused(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    token = oauth_server.token(person.user_id, iat=int(time.time()) - 4000, exp=int(time.time()) - 3600)
    assert refused_rule(oauth_server, token) == "expiry"


def test_a_tampered_token_is_refused(oauth_server: OAuthServer) -> None:
    person, admin = oauth_server.key(), oauth_server.key(role="admin")
    header, payload, signature = oauth_server.token(person.user_id).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = admin.user_id
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    assert refused_rule(oauth_server, f"{header}.{forged}.{signature}") == "signature"
    unsigned = jwt.encode(
        {
            "iss": oauth_server.url,
            "aud": oauth_server.resource,
            "sub": admin.user_id,
            "exp": time.time() + 60,
        },
        None,
        algorithm="none",
    )
    assert refused_rule(oauth_server, unsigned) == "signature"


def test_a_token_of_another_issuer_is_refused(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert refused_rule(oauth_server, oauth_server.token(person.user_id, key=other_key)) == "signature"
    assert (
        refused_rule(oauth_server, oauth_server.token(person.user_id, iss="https://idp.example")) == "issuer"
    )


def test_a_token_of_a_deactivated_account_is_refused(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    token = oauth_server.token(person.user_id)
    store = open_store(oauth_server.keystore_url)
    try:
        store.set_account_status(person.user_id, "deactivated")
    finally:
        store.close()
    answer = mcp_post(oauth_server, token, INITIALIZE)
    assert answer.json()["error"]["code"] == "account_inactive"


# -- refusals of the authorization server -------------------------------------------------------------


def test_a_replayed_authorization_code_is_refused(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    client = register(oauth_server)
    verifier, challenge = pkce()
    code = code_for(oauth_server, client, person, challenge)
    first = exchange(oauth_server, client, code, verifier)
    assert first.status_code == 200, first.text
    token = first.json()
    assert mcp_post(oauth_server, token["access_token"], INITIALIZE).status_code == 200
    again = exchange(oauth_server, client, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    # What the code made is revoked: its refresh token no longer works.
    refreshed = httpx.post(
        oauth_server.url + "/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": token["refresh_token"],
            "client_id": client["client_id"],
        },
        timeout=30,
    )
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"


def test_a_redirect_uri_not_registered_is_refused(oauth_server: OAuthServer) -> None:
    client = register(oauth_server)
    _, challenge = pkce()
    answer = authorize(
        oauth_server,
        authorization_params(
            client["client_id"], challenge, redirect_uri="https://attacker.example/callback"
        ),
    )
    # Never a redirect to the unregistered address: an error answered here.
    assert answer.status_code == 400 and "location" not in answer.headers
    assert answer.json()["error"] == "invalid_request"


def test_pkce_is_required_and_checked(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    client = register(oauth_server)
    base = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": REDIRECT, "state": "s"}
    missing = authorize(oauth_server, base)
    assert "error=invalid_request" in missing.headers.get("location", "") or missing.status_code == 400
    plain = authorize(oauth_server, {**base, "code_challenge": "x" * 43, "code_challenge_method": "plain"})
    assert "error=invalid_request" in plain.headers.get("location", "") or plain.status_code == 400
    verifier, challenge = pkce()
    code = code_for(oauth_server, client, person, challenge)
    wrong = exchange(oauth_server, client, code, pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert exchange(oauth_server, client, code, verifier).status_code == 200


def test_a_token_for_another_resource_is_not_issued(oauth_server: OAuthServer) -> None:
    client = register(oauth_server)
    _, challenge = pkce()
    answer = authorize(
        oauth_server,
        authorization_params(client["client_id"], challenge, resource="https://other.example/mcp"),
    )
    assert answer.status_code == 302 and "error=invalid_target" in answer.headers["location"]


def test_a_denied_consent_issues_no_code(oauth_server: OAuthServer) -> None:
    person = oauth_server.key()
    client = register(oauth_server)
    _, challenge = pkce()
    answer = authorize(oauth_server, authorization_params(client["client_id"], challenge))
    denied = consent(oauth_server, answer.headers["location"], person, decision="deny")
    query = parse_qs(urlparse(denied.headers["location"]).query)
    assert query["error"] == ["access_denied"] and "code" not in query
    # The consent request is single-use.
    assert httpx.get(answer.headers["location"], timeout=30).status_code == 400


# -- Client ID Metadata Documents ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def client_document() -> Iterator[str]:
    """A loopback web server publishing one Client ID Metadata Document; yields its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/oauth/client.json"
    document = json.dumps(
        {
            "client_id": url,
            "client_name": "Document Client",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
        }
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/oauth/client.json" else 404)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(document)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()


def test_a_client_named_by_its_metadata_document_gets_a_token(
    oauth_server: OAuthServer, client_document: str
) -> None:
    person = oauth_server.key()
    client = {"client_id": client_document}
    verifier, challenge = pkce()
    answer = authorize(
        oauth_server,
        authorization_params(client_document, challenge, state="s1", resource=oauth_server.resource),
    )
    assert answer.status_code == 302, answer.text
    assert "Document Client" in httpx.get(answer.headers["location"], timeout=30).text
    code = code_for(oauth_server, client, person, challenge)
    token = exchange(oauth_server, client, code, verifier)
    assert token.status_code == 200, token.text
    assert (
        jwt.decode(token.json()["access_token"], options={"verify_signature": False})["client_id"]
        == client_document
    )
    # A document whose redirect URIs do not name the one asked: refused as any unregistered one.
    other = authorize(
        oauth_server,
        authorization_params(
            client_document, challenge, redirect_uri="http://127.0.0.1:9/elsewhere", state=None
        ),
    )
    assert other.status_code == 400
