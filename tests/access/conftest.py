"""The app over real key stores (a SQLite file and PostgreSQL) with real keys, called over HTTP.

`World` holds one store, one app and a named set of keys, one per key situation of the access
matrix. `world` is built once per module and backend and must not be changed by tests; tests that
change keys or accounts build their own with `make_world`. The store is wrapped in
`CountingStore`, so tests can prove when the store was (not) read.
"""

from __future__ import annotations

import os
import re
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from litestar import Litestar
from litestar.testing import TestClient

import serve.auth
import serve.routes.meta
from access import Grants, RateLimit, open_store
from access.store import SqlKeyStore
from core.context import AllowList
from core.settings import Settings
from schemas.registry import META_IDS
from serve.app import create_app
from serve.declaration import Endpoint
from serve.endpoints import endpoints
from serve.limits import MemoryLimiter
from tests.conftest import backend_unavailable

POSTGRES_TEST_URL = os.environ.get(
    "ALPHA_RESULTS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]

ALPHA = "Test_planted_factor"  # a testing alpha every matrix key may read
PRODUCTION_ALPHA = "momentum_12_1"  # exists, not under Test_
MISSING_ALPHA = "Prod_never_published"  # does not exist, not under Test_
REBALANCE_DATE = "2021-01-15"
CLIENT_IP = "198.51.100.7"  # the socket peer every test request comes from
ROOMY = RateLimit(per_second=100_000, per_minute=1_000_000, per_day=10_000_000, monthly_requests=None)
EVERYTHING = Grants(AllowList.all(), AllowList.all(), AllowList.all(), expose_raw_book=True)

EXTRA_QUERY = {
    "portfolio.trades": {"book": "long_short"},
    "analytics.compare": {"with": "Test_short_term_reversal"},
    "analytics.combine": {"alphas": "Test_planted_factor,Test_small_universe"},
    # This world keeps no records, so no alpha is approved and the default reference set is empty.
    "analytics.contribution": {"reference": "Test_small_universe"},
}
"""Parameters an endpoint requires to answer 200 (so a granted key sees a success)."""


@dataclass
class CountingStore:
    """A key store that counts every call by method name before delegating it, except the health
    monitor's `ping`: it probes from its own thread every second, whatever the requests do."""

    inner: SqlKeyStore
    calls: Counter[str] = field(default_factory=Counter)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        if not callable(attribute):
            return attribute

        if name == "ping":
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return attribute(*args, **kwargs)

        return counted


class ClientAddress:
    """ASGI wrapper that presents every request as coming from `host` (the TestClient says
    `testclient`, which is not an address an IP allow-list can match)."""

    def __init__(self, app: Litestar, host: str) -> None:
        self.app, self.host = app, host

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope = {**scope, "client": (self.host, 50000)}
        await self.app(scope, receive, send)


def concrete_path(endpoint: Endpoint, alpha: str = ALPHA, key_id: str = "0" * 16) -> str:
    values = {
        "alpha": alpha,
        "date": REBALANCE_DATE,
        "symbol": "SPY",
        "key_id": key_id,
        "dataset": "decisions",
    }
    return re.sub(r"\{(\w+):\w+\}", lambda m: values[m.group(1)], endpoint.path)


def mounted_ids(app: Litestar) -> list[str]:
    """Registry ids of the routes the app serves (so new routes join the matrix by themselves)."""
    ids = set()
    for route in app.routes:
        for handler in getattr(route, "route_handlers", []):
            endpoint = handler.opt.get("endpoint")
            if isinstance(endpoint, str):
                ids.add(endpoint)
    assert ids <= set(endpoints()), ids - set(endpoints())
    return sorted(ids)


@dataclass
class World:
    store_url: str
    store: CountingStore
    limiter: MemoryLimiter
    app: Litestar
    client: TestClient[Any]
    tokens: dict[str, str] = field(default_factory=dict)
    key_ids: dict[str, str] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)

    def get(
        self, path: str, token: str | None, headers: dict[str, str] | None = None, /, **params: Any
    ) -> Any:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {self.tokens.get(token, token)}"
        return self.client.get(path, params=params or None, headers=sent)

    def account(self, name: str, role: str = "member", ceiling: Grants | None = None) -> str:
        account = self.store.create_account(f"{name}@example.com", role=role)
        if ceiling is not None:
            self.store.set_account_ceiling(account.user_id, ceiling)
        self.users[name] = account.user_id
        return account.user_id

    def key(self, name: str, owner: str, grants: Grants | None = None, **options: Any) -> str:
        options.setdefault("rate_limit", ROOMY)
        record, token = self.store.create_key(self.users[owner], name, grants=grants, **options)
        self.tokens[name], self.key_ids[name] = token, record.key_id
        return token


def endpoint_path(world: World, endpoint_id: str, alpha: str = ALPHA) -> tuple[str, dict[str, str]]:
    return concrete_path(endpoints()[endpoint_id], alpha, world.key_ids.get("admin", "0" * 16)), dict(
        EXTRA_QUERY.get(endpoint_id, {})
    )


def populate(world: World) -> None:
    """One key per situation of the access matrix; every one would succeed but for its situation."""
    now = datetime.now(UTC)
    world.account("root", role="admin")
    world.key("admin", "root", EVERYTHING)
    world.account("member", ceiling=EVERYTHING)
    world.key("full_raw", "member", EVERYTHING)
    world.key("full_plain", "member", Grants(AllowList.all(), AllowList.all(), AllowList.all(), False))
    world.key("suspended", "member", EVERYTHING)
    world.store.set_key_status(world.key_ids["suspended"], "suspended")
    world.key("revoked", "member", EVERYTHING)
    world.store.revoke_key(world.key_ids["revoked"])
    world.key("expired", "member", EVERYTHING, expires_at=now - timedelta(minutes=1))
    world.key("wrong_ip", "member", EVERYTHING, ip_allow=["10.0.0.0/8"])
    world.key("meta_only", "member", replace(EVERYTHING, endpoints=AllowList.of_ids(META_IDS)))
    only_list = AllowList.of_ids(["catalog.alphas.list"])
    world.key("alphas_list_only", "member", replace(EVERYTHING, endpoints=only_list))
    test_prefix = AllowList.of_prefixes(["Test_"])
    world.key("test_only", "member", replace(EVERYTHING, alphas=test_prefix, runs=test_prefix))
    # The key allows raw books; the account ceiling does not, so the clamped flag is off.
    world.account("no_raw_ceiling", ceiling=Grants(AllowList.all(), AllowList.all(), AllowList.all(), False))
    world.key("raw_clamped", "no_raw_ceiling", EVERYTHING)
    for status in ("deactivated", "deleted"):
        world.account(status, ceiling=EVERYTHING)
        world.key(status, status, EVERYTHING)
        world.store.set_account_status(world.users[status], status)


def _postgres_schema_url() -> Iterator[str]:
    try:
        psycopg.connect(POSTGRES_TEST_URL, connect_timeout=2).close()
    except psycopg.OperationalError as error:
        backend_unavailable(f"PostgreSQL not reachable at {POSTGRES_TEST_URL} ({str(error).strip()})")
    schema = f"ar_access_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_TEST_URL, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')  # schema name built here, never from input
    separator = "&" if "?" in POSTGRES_TEST_URL else "?"
    try:
        yield f"{POSTGRES_TEST_URL}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(POSTGRES_TEST_URL, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _store_urls(backend: str, folder: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{folder}/keys.sqlite3"
    else:
        yield from _postgres_schema_url()


WorldFactory = Callable[..., World]


def _world_factory(backend: str, folder: Path, lake: Path) -> Iterator[WorldFactory]:
    opened: list[tuple[World, Iterator[str]]] = []

    def make(trusted_proxy_hops: int = 0, client_ip: str = CLIENT_IP, populated: bool = True) -> World:
        urls = _store_urls(backend, folder / uuid.uuid4().hex[:8])
        store_url = next(urls)
        store = CountingStore(open_store(store_url))
        limiter = MemoryLimiter()
        settings = Settings(lake=str(lake), environment="test", trusted_proxy_hops=trusted_proxy_hops)
        app = create_app(settings, store=store, limiter=limiter)
        client = TestClient(app=ClientAddress(app, client_ip))
        client.__enter__()
        world = World(store_url, store, limiter, app, client)
        opened.append((world, urls))
        if populated:
            populate(world)
        store.calls.clear()
        return world

    yield make
    for world, urls in opened:
        world.client.__exit__(None, None, None)
        world.store.inner.close()
        for _ in urls:  # runs the generator's cleanup (drops the PostgreSQL schema)
            pass


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def module_worlds(
    backend: str,
    tmp_path_factory: pytest.TempPathFactory,
    demo_lake: Path,
) -> Iterator[WorldFactory]:
    yield from _world_factory(backend, tmp_path_factory.mktemp(f"keys_{backend}"), demo_lake)


@pytest.fixture(scope="module")
def world(module_worlds: WorldFactory) -> World:
    """Read-only: the matrix world, shared by the tests of one module and backend."""
    return module_worlds()


@pytest.fixture
def make_world(backend: str, tmp_path: Path, demo_lake: Path) -> Iterator[WorldFactory]:
    """Fresh worlds for tests that change keys, accounts or counters."""
    yield from _world_factory(backend, tmp_path, demo_lake)


FROZEN = datetime(2031, 3, 14, 15, 9, 26, 500_000, tzinfo=UTC)


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """One instant for the limiter's windows in the guard and in the handler: no second or minute
    window rolls over between two requests of a test, however slow the machine."""

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return FROZEN

    monkeypatch.setattr(serve.auth, "datetime", Frozen)
    monkeypatch.setattr(serve.routes.meta, "datetime", Frozen)
    return FROZEN
