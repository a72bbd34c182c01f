"""How a delivery is signed (docs/events.md, "Verifying a delivery"): to the Standard Webhooks
specification, checked here by its reference library (`standardwebhooks`) for the `v1` HMAC
signatures and by `cryptography` for the `v1a` Ed25519 one, as the documentation's samples do; a
secret made before the standard headers still verifies; the deprecated `Alpha-Results-Signature`
is still sent, one release."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import re
import time
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks import Webhook as StandardWebhook
from standardwebhooks import WebhookVerificationError

from delivery.webhooks import (
    new_private_key,
    new_secret,
    public_key,
    secret_key,
    signature_headers,
)
from records.webhooks import SigningKey
from tests.ops.webhook_receiver import ed25519_valid, signature_valid

DOCS = Path(__file__).resolve().parents[2] / "docs" / "events.md"
BODY = b'{"id":"5b0f3c1e9a7d24c6e1f08a3b77c2d915","type":"alpha.published","alpha":"Test_a","data":{}}'
MESSAGE_ID = "5b0f3c1e9a7d24c6e1f08a3b77c2d915"


def hmac_key(secret: str) -> SigningKey:
    return SigningKey("v1", secret, None)


def ed25519_key(private_key: str) -> SigningKey:
    return SigningKey("v1a", private_key, None)


def test_a_secret_is_a_standard_webhooks_secret_of_32_random_bytes() -> None:
    secret = new_secret()
    assert secret.startswith("whsec_") and secret != new_secret()
    assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 32
    assert secret_key(secret) == base64.b64decode(secret.removeprefix("whsec_"))
    private = new_private_key()
    assert private.startswith("whsk_") and len(base64.b64decode(private[5:], validate=True)) == 32
    assert public_key(private).startswith("whpk_") and public_key(private) != public_key(new_private_key())


def test_the_reference_library_verifies_a_delivery_and_refuses_a_forgery() -> None:
    secret, now = new_secret(), int(time.time())
    headers = signature_headers([hmac_key(secret)], MESSAGE_ID, now, BODY)
    assert (headers["webhook-id"], headers["webhook-timestamp"]) == (MESSAGE_ID, str(now))
    assert re.fullmatch(r"v1,[A-Za-z0-9+/]{43}=", headers["webhook-signature"])
    assert StandardWebhook(secret).verify(BODY, headers)["type"] == "alpha.published"
    # The deprecated header, as before: keyed by the secret's text, over "<t>." + body.
    legacy = hmac.new(secret.encode(), f"{now}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert headers["Alpha-Results-Signature"] == f"t={now},v1={legacy}"
    for forged_body, forged_headers in (
        (BODY + b" ", headers),  # another body
        (BODY, {**headers, "webhook-id": "another"}),  # the id is signed
        (BODY, {**headers, "webhook-timestamp": str(now + 1)}),  # the timestamp is signed
    ):
        with pytest.raises(WebhookVerificationError):
            StandardWebhook(secret).verify(forged_body, forged_headers)
    with pytest.raises(WebhookVerificationError):
        StandardWebhook(new_secret()).verify(BODY, headers)  # another secret
    old = signature_headers([hmac_key(secret)], MESSAGE_ID, now - 600, BODY)
    with pytest.raises(WebhookVerificationError, match="too old"):  # replayed ten minutes later
        StandardWebhook(secret).verify(BODY, old)


def test_several_signatures_at_once_each_verifies_with_its_own_key() -> None:
    """While a secret rotates, a delivery carries a signature by each key that signs: the receiver
    holding either secret accepts it, and one holding the public key accepts the v1a one."""
    current, retiring, private = new_secret(), new_secret(), new_private_key()
    retires_at = dt.datetime.now(dt.UTC) + dt.timedelta(hours=24)
    keys = [hmac_key(current), SigningKey("v1", retiring, retires_at), ed25519_key(private)]
    headers = signature_headers(keys, MESSAGE_ID, int(time.time()), BODY)
    assert [entry.split(",")[0] for entry in headers["webhook-signature"].split(" ")] == ["v1", "v1", "v1a"]
    for secret in (current, retiring):
        StandardWebhook(secret).verify(BODY, headers)
        assert signature_valid(secret, headers["Alpha-Results-Signature"], BODY)  # the deprecated header
    with pytest.raises(WebhookVerificationError):
        StandardWebhook(new_secret()).verify(BODY, headers)
    assert ed25519_valid(public_key(private), headers, BODY)
    assert not ed25519_valid(public_key(new_private_key()), headers, BODY)
    assert not ed25519_valid(public_key(private), headers, BODY.replace(b"Test_a", b"Test_b"))


def test_a_secret_made_before_the_standard_headers_keeps_working() -> None:
    """Such a secret is 32 random bytes in base64's URL-safe alphabet, unpadded (the old
    `new_secret`): the deprecated header is keyed by its text as before, and the standard one by
    its bytes, which the reference library reads once it is written in the standard alphabet (the
    conversion docs/events.md gives)."""
    raw = bytes([0xFB, 0xFF, 0xBF, *range(29)])  # 32 bytes, the first written "-_-_" in that alphabet
    old = "whsec_" + base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert len(old) == 6 + 43 and old.startswith("whsec_-_-_") and secret_key(old) == raw
    headers = signature_headers([hmac_key(old)], MESSAGE_ID, int(time.time()), BODY)
    assert signature_valid(old, headers["Alpha-Results-Signature"], BODY)
    standard = documented("standard_secret")(old)
    assert standard == "whsec_" + base64.b64encode(secret_key(old)).decode()
    StandardWebhook(standard).verify(BODY, headers)
    assert documented("standard_secret")(standard) == standard  # a new secret is left as it is


def documented(name: str) -> Any:
    """A function of the Python samples of docs/events.md's "Verifying a delivery", run as printed."""
    section = DOCS.read_text().split("### Verifying a delivery", 1)[1].split("\n### ", 1)[0]
    namespace: dict[str, Any] = {}
    for code in re.findall(r"```python\n(.*?)```", section, re.DOTALL):
        exec(compile(code, "docs/events.md", "exec"), namespace)
    return namespace[name]


def test_the_documented_verification_accepts_a_delivery_and_refuses_a_forgery() -> None:
    verify, verify_ed25519 = documented("verify"), documented("verify_ed25519")
    secret, private, now = new_secret(), new_private_key(), int(time.time())
    headers = signature_headers([hmac_key(secret), ed25519_key(private)], MESSAGE_ID, now, BODY)
    # Header names as a web framework hands them over (any case).
    received = {name.title(): value for name, value in headers.items()}
    assert verify(secret, received, BODY)["id"] == MESSAGE_ID
    assert verify_ed25519(public_key(private), received, BODY)
    for forged in (BODY + b" ", BODY.replace(b"Test_a", b"Test_b")):
        with pytest.raises(WebhookVerificationError):
            verify(secret, received, forged)
        assert not verify_ed25519(public_key(private), received, forged)
    with pytest.raises(WebhookVerificationError):
        verify(new_secret(), received, BODY)
    assert not verify_ed25519(public_key(new_private_key()), received, BODY)
    replayed = signature_headers([hmac_key(secret), ed25519_key(private)], MESSAGE_ID, now - 600, BODY)
    with pytest.raises(WebhookVerificationError):
        verify(secret, replayed, BODY)
    assert not verify_ed25519(public_key(private), replayed, BODY)
    assert not verify_ed25519(public_key(private), {**headers, "webhook-signature": "v1a,!!"}, BODY)
