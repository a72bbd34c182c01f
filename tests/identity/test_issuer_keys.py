"""An issuer's keys rotate: the dashboard's sign-in reads them again as `/mcp` does
(serve/oauth/resource.py `IssuerKeys`, one holder for both). Before, the dashboard read the
provider's key set once per process: after the provider rotated its signing key, every sign-in was
refused ("no active account for you") until the server restarted.

Against a loopback issuer publishing a discovery document, a key set this test swaps, and a token
endpoint answering ID tokens signed by the key it publishes."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from access.sessions import new_session
from core import errors
from core.settings import Settings
from serve.oauth import resource
from serve.oauth.dashboard import SessionSignIn

CLIENT = "dashboard"


class Issuer:
    """A loopback OpenID provider whose signing key `rotate` replaces."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "k0"
        self.nonce = ""
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def rotate(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = f"k{int(self.kid[1:]) + 1}"

    def id_token(self) -> str:
        claims = {
            "iss": self.url,
            "aud": CLIENT,
            "sub": "person-1",
            "exp": int(time.time()) + 300,
            "nonce": self.nonce,
            "email": "a@example.org",
            "email_verified": True,
        }
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.kid})

    def handler(self) -> type[BaseHTTPRequestHandler]:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/.well-known/openid-configuration":
                    self.answer(
                        {
                            "issuer": issuer.url,
                            "authorization_endpoint": issuer.url + "/auth",
                            "token_endpoint": issuer.url + "/token",
                            "jwks_uri": issuer.url + "/jwks",
                        }
                    )
                elif self.path == "/jwks":
                    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(issuer.key.public_key(), as_dict=True)
                    self.answer({"keys": [{**jwk, "kid": issuer.kid, "use": "sig"}]})
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                self.answer({"id_token": issuer.id_token(), "access_token": "opaque", "token_type": "Bearer"})

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    found = Issuer()
    thread = threading.Thread(target=found.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        found.server.shutdown()
        found.server.server_close()


def test_the_dashboard_reads_a_rotated_key_set_again(issuer: Issuer, monkeypatch: pytest.MonkeyPatch) -> None:
    sign_in = SessionSignIn(Settings(oidc_issuer=issuer.url, oidc_client_id=CLIENT), store=None)

    async def signed_in_email() -> str | None:
        flow = new_session("the-nonce", 600)  # the sign-in's flow: its `user_id` is the nonce
        issuer.nonce = flow.user_id
        claims = await sign_in.id_token_claims("a-code", flow)
        email: str | None = claims.email
        return email

    assert asyncio.run(signed_in_email()) == "a@example.org"
    issuer.rotate()
    # Within a minute of the last read, a key not held is refused without reading the set again
    # (a flood of such tokens makes one read a minute)...
    with pytest.raises(errors.InvalidApiKey) as refused:
        asyncio.run(signed_in_email())
    assert refused.value.details["token_rule"] == "signature"
    # ... and once that minute has passed, the rotated set is read and the person signed in.
    monkeypatch.setattr(resource, "KEYS_REFRESH_SECONDS", 0.0)
    assert asyncio.run(signed_in_email()) == "a@example.org"
