"""Where a webhook may point (docs/events.md, "Webhooks", the URL rules) and what one POST does:
https and public addresses only unless `webhook_allow_private`, checked again after resolution at
each delivery (DNS rebinding), no credentials, no redirects followed, a bounded answer and time."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from delivery.deliveries import Schedule, post
from delivery.webhooks import UrlRefused, check_url

PUBLIC = "93.184.215.14"


def resolving(*addresses: str) -> Any:
    def resolver(host: str, port: int) -> Sequence[str]:
        return addresses

    return resolver


@pytest.mark.parametrize(
    ("url", "addresses", "says"),
    [
        ("http://hooks.example.com/x", (PUBLIC,), "must start with https://"),
        ("ftp://hooks.example.com/x", (PUBLIC,), "must start with https://"),
        ("https://127.0.0.1/x", (), "is a loopback address"),
        ("https://[::1]/x", (), "is a loopback address"),
        ("https://[::ffff:127.0.0.1]/x", (), "loopback"),
        ("https://10.1.2.3/x", (), "is a private address"),
        ("https://192.168.0.10:8443/x", (), "is a private address"),
        ("https://169.254.169.254/latest/meta-data", (), "link-local"),
        ("https://0.0.0.0/x", (), "unspecified"),
        ("https://224.0.0.1/x", (), "multicast"),
        ("https://100.64.0.1/x", (), "not public"),
        ("https://localhost/x", ("127.0.0.1",), "resolves to 127.0.0.1, which is a loopback address"),
        ("https://hooks.example.com/x", (PUBLIC, "10.0.0.5"), "resolves to 10.0.0.5"),
        ("https://user:pw@hooks.example.com/x", (PUBLIC,), "may not carry credentials"),
        ("https://token@hooks.example.com/x", (PUBLIC,), "may not carry credentials"),
        ("https://hooks.example.com/x#frag", (PUBLIC,), "no #fragment"),
        ("https://hooks.example.com/a b", (PUBLIC,), "without spaces or control characters"),
        ("https://hooks.example.com/x\r\nX-Injected: 1", (PUBLIC,), "without spaces or control characters"),
        ("https://hööks.example.com/x", (PUBLIC,), "xn-- form"),
        ("https:///x", (PUBLIC,), "names a host"),
        ("https://hooks.example.com:99999/x", (PUBLIC,), "not a URL"),
        ("https://hooks.example.com/" + "a" * 2100, (PUBLIC,), "at most 2048 characters"),
        ("https://nowhere.invalid/x", (), "does not resolve"),
    ],
)
def test_refused_destinations(url: str, addresses: tuple[str, ...], says: str) -> None:
    with pytest.raises(UrlRefused, match=says):
        check_url(url, allow_private=False, resolver=resolving(*addresses))


@pytest.mark.parametrize(
    ("address", "says"),
    [
        # 6to4 (2002::/16): the IPv4 address of bits 16 to 48, reached through a 6to4 relay.
        ("2002:7f00:1::1", "a 6to4 address embedding 127.0.0.1, a loopback address"),
        ("2002:a9fe:a9fe::1", "a 6to4 address embedding 169.254.169.254, a link-local address"),
        ("2002:a00:1::1", "a 6to4 address embedding 10.0.0.1, a private address"),
        # Teredo (2001::/32): the server's address, and the client's (its bits inverted).
        ("2001:0:7f00:1::", "a Teredo address embedding 127.0.0.1, a loopback address"),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "a Teredo address embedding 10.0.0.1, a private address"),
        # NAT64: the well-known prefix carries the host in its last 32 bits; the local-use prefix
        # translates into the deployment's own network, whatever it carries.
        ("64:ff9b::7f00:1", "a NAT64 address embedding 127.0.0.1, a loopback address"),
        ("64:ff9b::a9fe:a9fe", "a NAT64 address embedding 169.254.169.254, a link-local address"),
        (
            "64:ff9b:1::5db8:d70e",
            "a local-use NAT64 address (64:ff9b:1::/48: the deployment's own translator)",
        ),
        ("::7f00:1", "an IPv4-compatible address embedding 127.0.0.1, a loopback address"),
        ("::ffff:0:a00:1", "an IPv4-translated address embedding 10.0.0.1, a private address"),
        ("::ffff:a9fe:a9fe", "an IPv4-mapped address embedding 169.254.169.254, a link-local address"),
        # ISATAP: any /64, the interface identifier [02]00:5efe:a.b.c.d.
        ("2606:4700::5efe:a9fe:a9fe", "an ISATAP address embedding 169.254.169.254, a link-local address"),
        ("2606:4700::200:5efe:7f00:1", "an ISATAP address embedding 127.0.0.1, a loopback address"),
        ("fec0::1", "a site-local address"),  # deprecated (RFC 3879), routed like a private one
    ],
)
def test_an_ipv6_address_is_judged_by_the_ipv4_address_it_embeds(address: str, says: str) -> None:
    """Python's `is_global` calls 2002:7f00:1::1, 64:ff9b::7f00:1 and fec0::1 public (issue 48,
    item 6): each form that carries an IPv4 address is refused by that address, as a URL's host and
    as an address a name resolves to."""
    with pytest.raises(UrlRefused) as literal:
        check_url(f"https://[{address}]/hook", allow_private=False, resolver=resolving())
    assert f"the host {address} is {says}; webhooks go to public addresses only" in str(literal.value)
    with pytest.raises(UrlRefused) as resolved:
        check_url("https://hooks.example.com/hook", False, resolving(PUBLIC, address))
    assert f"resolves to {address}, which is {says}" in str(resolved.value)


def test_an_ipv6_address_embedding_a_public_ipv4_address_is_judged_as_ipv6() -> None:
    # A 6to4 site and an IPv4 host through NAT64 (the same host, spelt in IPv6) are public.
    for address in ("2002:5db8:d70e::1", "64:ff9b::5db8:d70e", "::ffff:5db8:d70e"):
        assert check_url(f"https://[{address}]/hook", False).addresses == (address,)
    # A Teredo address is refused anyway (2001::/23 is IETF protocol space), as is ::a.b.c.d.
    for address, says in (("2001:0:4136:e378:8000:63bf:a247:2af1", "private"), ("::5db8:d70e", "reserved")):
        with pytest.raises(UrlRefused, match=f"is a {says} address"):
            check_url(f"https://[{address}]/hook", False)


def test_public_https_is_admitted_with_the_addresses_it_resolved_to() -> None:
    target = check_url("https://hooks.example.com/in?team=a", False, resolving(PUBLIC, "2606:2800:220:1::"))
    assert (target.scheme, target.host, target.port, target.target) == (
        "https",
        "hooks.example.com",
        443,
        "/in?team=a",
    )
    assert target.addresses == (PUBLIC, "2606:2800:220:1::")
    assert check_url(f"https://{PUBLIC}:8443", False).target == "/"


def test_the_setting_allows_private_addresses_and_http_but_never_credentials() -> None:
    for url in ("http://127.0.0.1:9000/hook", "https://10.1.2.3/x", "http://localhost/x", "http://[::1]:80/"):
        check_url(url, allow_private=True, resolver=resolving("127.0.0.1"))
    with pytest.raises(UrlRefused, match="credentials"):
        check_url("http://u:p@127.0.0.1/x", allow_private=True)
    with pytest.raises(UrlRefused, match="https://"):
        check_url("ftp://127.0.0.1/x", allow_private=True)


def test_the_operators_doubling_schedule_doubles_to_its_longest() -> None:
    """`deliver --retry-first 30 --retry-max 3600` (the schedule before issue 60's): the steps
    double to the hour; the default is the Standard Webhooks one (tests/ops/test_webhook_standard.py)."""
    schedule = Schedule.doubling(30, 3600, 86400, jitter=0.0)
    waits = [schedule.delay(n) for n in range(1, 12)]
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600, 3600]


class _Answers(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_POST(self) -> None:
        _Answers.hits.append(self.path)
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/huge":
            self.send_response(500)
            self.send_header("Content-Length", str(50_000_000))
            self.end_headers()
            try:
                self.wfile.write(b"\x1b[31mdown\x07 " + b"x" * 1_000_000)
            except OSError:
                pass
        elif self.path in ("/slow-headers", "/cut-head"):
            # The status line on the wire (send_response would buffer it), then a head never
            # finished: a header dripped a byte at a time (each read of the sender's gets one, so
            # only its deadline ends the wait) until the sender closes, or cut short by closing now.
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Drip: ")
            try:
                while self.path == "/slow-headers":
                    threading.Event().wait(0.05)
                    self.wfile.write(b"a")
            except OSError:
                pass  # the sender closed
        else:
            self.send_response(204)
            self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def answering() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Answers.hits = []
    yield server.server_port
    server.shutdown()
    server.server_close()


HEADERS = {"Content-Type": "application/json"}


def test_a_post_is_pinned_to_the_checked_address_and_refused_when_the_name_rebinds(answering: int) -> None:
    # The name resolves to the receiver at the first delivery: sent there, Host naming the host.
    sent = post(f"http://hooks.test:{answering}/ok", b"{}", HEADERS, True, 5.0, resolving("127.0.0.1"))
    assert (sent.status, sent.error, sent.delivered) == (204, None, True)
    # Without the setting, the same name now resolving to a loopback address is refused before any
    # connection is made (DNS rebinding).
    refused = post(f"https://hooks.test:{answering}/ok", b"{}", HEADERS, False, 5.0, resolving("127.0.0.1"))
    assert refused.status is None and refused.error is not None
    assert refused.error.startswith("refused: the host hooks.test resolves to 127.0.0.1")
    assert _Answers.hits == ["/ok"]


def test_redirects_are_not_followed_and_an_answer_is_read_bounded(answering: int) -> None:
    moved = post(f"http://127.0.0.1:{answering}/moved", b"{}", HEADERS, True, 5.0)
    assert (moved.status, moved.error, moved.delivered) == (
        302,
        "HTTP 302 (redirects are not followed)",
        False,
    )
    huge = post(f"http://127.0.0.1:{answering}/huge", b"{}", HEADERS, True, 5.0)
    assert huge.status == 500 and huge.error is not None
    # At most 200 printable characters of what the receiver said are kept (no terminal escapes).
    assert huge.error.startswith("HTTP 500: [31mdown xxx") and len(huge.error) <= len("HTTP 500: ") + 200
    assert _Answers.hits == ["/moved", "/huge"]


def test_a_receiver_too_slow_or_absent_fails_the_attempt(answering: int) -> None:
    # Its status line, then nothing: the whole head must arrive within the timeout (http.client
    # read the socket the deadline shut as the end of the headers: a 200, the event lost).
    slow = post(f"http://127.0.0.1:{answering}/slow-headers", b"{}", HEADERS, True, 0.5)
    assert (slow.status, slow.error) == (None, "answer: timed out after 0.5 s")
    cut = post(f"http://127.0.0.1:{answering}/cut-head", b"{}", HEADERS, True, 5.0)
    assert (cut.status, cut.error) == (None, "answer: the head ended before its empty line")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    port = server.server_port
    server.server_close()  # nothing listens there now
    absent = post(f"http://127.0.0.1:{port}/x", b"{}", HEADERS, True, 5.0)
    assert absent.status is None and absent.error is not None and absent.error.startswith("connect: ")
