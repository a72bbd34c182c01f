"""Routes answered below the framework (issue 61, item 3; serve/direct.py): the one-pass layer calls
a route whose answer is one body itself, without Litestar's `Request`, dependencies or
`ASGIResponse`, and the client sees what Litestar sent.

Checked: which routes are answered so is read from the declarations (every enveloped `ctx` route,
not the event stream, the health probe or the downloads); a page answered so makes no Litestar
`Request` (counted, and counted when the layer leaves them to Litestar, so the count can fail);
every such route asked with the direct path on and off answers the same status, headers and bytes:
its pages in every representation, compressed, its 304, and its 400, 401, 403, 404 and 406, with
the request id and the clock held still so the bytes can be compared whole; the answer cache keeps
direct answers as it kept Litestar's.
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar, Response
from litestar.connection import Request
from litestar.routes import HTTPRoute
from litestar.testing import TestClient

from core.settings import Settings
from schemas.choices import REPRESENTATIONS
from schemas.registry import ALL_IDS, META_IDS
from serve import envelope, exchange
from serve.app import create_app
from serve.declaration import Handled
from serve.direct import direct_of
from serve.front import Front
from serve.routes import ROUTE_HANDLERS
from tests.api.conftest import CALLERS
from tests.callers import authenticator_for, make_caller

PARITY_CALLERS = {
    **CALLERS,
    "admin": make_caller(is_admin=True, expose_raw_book=True, endpoints=frozenset(ALL_IDS)),
}
"""The test callers, and a platform administrator's key for the administrative routes."""

ALPHA = "momentum_12_1"
WEEK = f"/v1/alphas/{ALPHA}/rebalances"


def handlers(client: TestClient[Any]) -> dict[str, Any]:
    """The app's registered `@route` handlers by registry id."""
    found = {}
    for route in client.app.routes:
        if isinstance(route, HTTPRoute):
            for handler in route.route_handlers:
                if isinstance(handler.opt.get("declared"), Handled):
                    found[handler.opt["endpoint"]] = handler
    return found


def front(client: TestClient[Any]) -> Front:
    layer = client.app.asgi_handler
    assert isinstance(layer, Front)
    return layer


@pytest.fixture
def requests_made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths of the Litestar `Request`s made while a test ran (Litestar's route makes one per
    request before calling its handler)."""
    made: list[str] = []
    original = Request.__init__

    def counted(self: Request[Any, Any, Any], *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(self.scope["path"])

    monkeypatch.setattr(Request, "__init__", counted)
    yield made


@pytest.fixture
def still(monkeypatch: pytest.MonkeyPatch) -> None:
    """One request id and one second for every answer, so two answers' bytes can be compared."""
    monkeypatch.setattr(exchange, "request_id", lambda: "req_parity")
    monkeypatch.setattr(envelope, "time", types.SimpleNamespace(time=lambda: 1_800_000_000.0))


def test_the_routes_answered_below_the_framework_are_read_from_the_declarations(
    client: TestClient[Any],
) -> None:
    declared = handlers(client)
    direct = {endpoint for endpoint, handler in declared.items() if direct_of(handler) is not None}
    for endpoint, handler in declared.items():
        handled: Handled = handler.opt["declared"]
        path_names = set(re.findall(r"\{(\w+):str\}", handled.path))
        function = getattr(handler.fn, "func", handler.fn)  # a sync handler Litestar runs in a thread
        taken = set(inspect.signature(function).parameters)
        expected = handled.enveloped and "ctx" in taken and taken - {"ctx"} <= path_names
        assert (endpoint in direct) == expected, endpoint
    assert {"signals.rebalances.get", "portfolio.positions", "portfolio.equity_curve", "meta.me"} <= direct
    assert {"events.stream", "meta.health"}.isdisjoint(direct)  # a stream, a body outside the envelope
    assert len(direct) >= 50


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        (f"{WEEK}/{{week}}", {}),
        (f"{WEEK}/{{week}}?limit=100&offset=37&sort=score&order=desc", {"Accept": "text/csv"}),
        (f"{WEEK}/{{week}}?format=ndjson", {}),
        (f"{WEEK}/{{week}}", {"Accept-Encoding": "gzip"}),
        (f"/v1/alphas/{ALPHA}/positions?book=long_short&limit=100&offset=50", {}),
        (f"/v1/alphas/{ALPHA}/equity-curve?book=long_short", {"Accept-Encoding": "zstd"}),
        (f"/v1/alphas/{ALPHA}/metrics", {}),
        ("/v1/alphas", {}),
    ],
)
def test_a_route_answered_below_the_framework_makes_no_request(
    parity_client: TestClient[Any], requests_made: list[str], path: str, headers: dict[str, str]
) -> None:
    """Each page and its 304, asked without the answer cache: no `Request` below the framework, one
    each when Litestar answers."""
    client = parity_client
    week = client.get(WEEK, headers={"Authorization": "Bearer raw"}).json()["data"][3]["date"]
    asked = {"Authorization": "Bearer raw", **headers}
    path = path.format(week=week)
    layer = front(client)
    try:
        for direct in (True, False):
            layer.direct = direct
            before = len(requests_made)
            response = client.get(path, headers=asked)
            assert response.status_code == 200, response.text
            tagged = client.get(path, headers={**asked, "If-None-Match": response.headers["etag"]})
            assert tagged.status_code == 304
            made = len(requests_made) - before
            if direct:
                assert made == 0, f"{path}: answered below the framework, yet {made} Request(s) made"
            else:  # the count sees Litestar's requests when Litestar answers
                assert made == 2, path
    finally:
        layer.direct = True


def test_the_answer_cache_keeps_direct_answers(client: TestClient[Any], requests_made: list[str]) -> None:
    """Asked three times, a week page is made, kept, then served from the cache, all without a
    `Request`, each answer the same page with its own request id."""
    week = client.get(WEEK, headers={"Authorization": "Bearer raw"}).json()["data"][5]["date"]
    path = f"{WEEK}/{week}?limit=17&offset=3"
    cache = front(client).answers
    assert cache is not None
    before, kept_before = len(requests_made), len(cache)
    answers = [client.get(path, headers={"Authorization": "Bearer plain"}) for _ in range(3)]
    assert len(requests_made) == before
    assert len(cache) == kept_before + 1
    ids = [response.headers["x-request-id"] for response in answers]
    assert len(set(ids)) == 3
    bodies = [response.content.replace(i.encode(), b"ID") for response, i in zip(answers, ids, strict=True)]
    assert bodies[0] == bodies[1] == bodies[2]
    assert len({response.headers["etag"] for response in answers}) == 1


# -- parity: every route answered below the framework, asked both ways ----------------------------


@pytest.fixture(scope="module")
def parity_client(demo_lake: Path) -> Iterator[TestClient[Any]]:
    """An app without the answer cache, so each of the two asks is answered by its own path."""
    settings = Settings(lake=str(demo_lake), environment="test", answer_cache_bytes=0)
    app = create_app(settings, authenticate=authenticator_for(PARITY_CALLERS), limiter=None)
    with TestClient(app=app) as test_client:
        yield test_client


def _direct_routes() -> list[str]:
    """The ids of the routes answered below the framework, read from an app of the route handlers."""
    app = Litestar(route_handlers=[*ROUTE_HANDLERS], openapi_config=None, logging_config=None)
    return sorted(
        handler.opt["endpoint"]
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if isinstance(handler.opt.get("declared"), Handled) and direct_of(handler) is not None
    )


@pytest.fixture(scope="module")
def path_values(parity_client: TestClient[Any]) -> dict[str, str]:
    """A value for each path parameter the routes name, from the demo lake."""
    key = {"Authorization": "Bearer raw"}
    week = parity_client.get(WEEK, headers=key).json()["data"][2]["date"]
    exports = parity_client.get(f"/v1/alphas/{ALPHA}/exports", headers=key).json()["data"]
    return {
        "alpha": ALPHA,
        "date": week,
        "symbol": "SPY",
        "dataset": exports[0]["dataset"] if exports else "decisions",
        "key_id": "k_parity",
    }


def _asks(handled: Handled, path: str, unknown: str | None) -> list[tuple[str, str, dict[str, str]]]:
    """(name, target, headers) of each request asked of a route: its answer to each key, without a
    key, for an unknown alpha, with a parameter it does not declare, compressed, and for a
    collection each representation, a bad `limit` and an Accept it cannot answer."""
    raw = {"Authorization": "Bearer raw"}
    asks = [
        ("raw", path, raw),
        ("admin", path, {"Authorization": "Bearer admin"}),
        ("plain", path, {"Authorization": "Bearer plain"}),
        ("no key", path, {}),
        ("endpoint refused", path, {"Authorization": "Bearer metaonly"}),
        ("run refused", path, {"Authorization": "Bearer alphaonly"}),
        ("undeclared parameter", f"{path}{'&' if '?' in path else '?'}no_such_parameter=1", raw),
        ("gzip", path, {**raw, "Accept-Encoding": "gzip"}),
        ("zstd", path, {**raw, "Accept-Encoding": "zstd, gzip;q=0.5"}),
    ]
    if unknown is not None:
        asks.append(("unknown alpha", unknown, raw))
    if handled.collection:
        joined = "&" if "?" in path else "?"
        asks += [(name, path, {**raw, "Accept": media}) for name, media in REPRESENTATIONS.items()]
        asks += [
            ("format=csv", f"{path}{joined}format=csv", raw),
            ("bad limit", f"{path}{joined}limit=abc", raw),
            ("page", f"{path}{joined}limit=7&offset=3", raw),
            ("not acceptable", path, {**raw, "Accept": "image/png"}),
        ]
    return asks


def _target(handled: Handled, values: dict[str, str], alpha: str) -> str:
    path = re.sub(r"\{(\w+):\w+\}", lambda m: alpha if m[1] == "alpha" else values[m[1]], handled.path)
    needs_book = any(p.name == "book" and p.required for p in handled.params)
    return f"{path}?book=long_short" if needs_book else path


def _seen(response: Any) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    return response.status_code, list(response.headers.raw), response.content


@pytest.mark.parametrize("endpoint", _direct_routes())
def test_every_direct_route_answers_as_litestar_did(
    parity_client: TestClient[Any], path_values: dict[str, str], still: None, endpoint: str
) -> None:
    handled: Handled = handlers(parity_client)[endpoint].opt["declared"]
    path = _target(handled, path_values, ALPHA)
    unknown = _target(handled, path_values, "No_such_alpha") if "{alpha:" in handled.path else None
    layer = front(parity_client)
    statuses = set()
    try:
        for name, target, headers in _asks(handled, path, unknown):
            layer.direct = True
            direct = _seen(parity_client.get(target, headers=headers))
            layer.direct = False
            framework = _seen(parity_client.get(target, headers=headers))
            assert direct == framework, (endpoint, name, target)
            statuses.add(direct[0])
            etag = dict(direct[1]).get(b"etag")
            if name == "raw" and etag is not None:
                tagged = {**headers, "If-None-Match": etag.decode()}
                layer.direct = True
                direct = _seen(parity_client.get(target, headers=tagged))
                layer.direct = False
                assert direct == _seen(parity_client.get(target, headers=tagged)), (endpoint, "304")
                assert direct[0] == 304, endpoint
    finally:
        layer.direct = True
    assert 401 in statuses and (403 in statuses or endpoint in META_IDS), (endpoint, statuses)


@pytest.mark.parametrize(
    "response",
    [
        Response(content=b'{"data":[]}', media_type="application/json"),
        Response(content=b"a,b\n1,2\n", media_type="text/csv", headers={"Link": '</x?offset=2>; rel="next"'}),
        Response(content=b"x", media_type="text/csv", headers={"Content-Type": "text/plain"}),
        Response(content=b"{}", status_code=404, media_type="application/json"),
        Response(content=b"{}"),  # the handler's media type
        Response(content={"data": [1]}),  # not bytes yet: Litestar's own conversion
        Response(content=b"{}", cookies={"a": "b"}),  # a cookie: Litestar's own conversion
    ],
)
def test_a_response_is_sent_as_litestar_sends_it(client: TestClient[Any], response: Response[Any]) -> None:
    """`Direct.encoded` against `Response.to_asgi_response` with what the handler adds, for the
    responses the routes return and others."""
    handler = handlers(client)["signals.rebalances.get"]
    direct = direct_of(handler)
    assert direct is not None
    message, body = direct.encoded(response)
    start: dict[str, Any] = dict(message)
    made = response.to_asgi_response(
        app=None,
        request=None,  # type: ignore[arg-type]
        media_type=handler.media_type,
        status_code=handler.status_code,
        type_encoders=handler.resolve_type_encoders(),
    )
    assert (start["status"], start["headers"], body) == (made.status_code, made.encode_headers(), made.body)
