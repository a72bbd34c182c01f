"""The app's services as typed values (`KeyBackends`: the key store and the limiter), and Litestar
dependencies (`Provide`, as litestar-fullstack's controllers do) for the handlers that have no
`ctx`: `/v1/health` (before any key) and the signed downloads (the URL is the credential). A
handler with `ctx` gets the same services on it, typed (`ctx.keys`, `ctx.policy`, `ctx.signer`,
serve/routes/base.py): one injected dependency, because Litestar resolves two or more
dependencies of a handler concurrently in an anyio task group, which cost /v1/me 100 µs a request
(docs/benchmarks.md, issue 34). No route module reads the app's state itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from litestar import Request
from litestar.di import Provide

from access import KeyRecord
from core import errors
from core.settings import Settings
from datasets.reader import LakeReader
from serve.auth import call_backends, services_of
from serve.limits import WINDOW_NAMES, Limits
from serve.signing.archives import ArchiveSigner, signer_of

T = TypeVar("T")


@dataclass(frozen=True)
class KeyBackends:
    """The key store and the limiter, as the routes that read keys and usage see them."""

    store: Any | None  # access key store; None only in a test app with its own authenticator
    limiter: Any | None  # serve.limits.Limiter; None: nothing is metered

    def required_store(self) -> Any:
        if self.store is None:
            raise errors.UpstreamUnavailable("This deployment has no key store to read keys from.")
        return self.store

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the event loop when both answer in-process, else in a worker thread
        (`serve.auth.call_backends`)."""
        return await call_backends(self.store, self.limiter, fn, *args)

    async def key_record(self, key_id: str) -> KeyRecord | None:
        """The key as the store holds it: from the identity cache when it holds it (no I/O),
        else read (in a worker thread when the store is PostgreSQL)."""
        found: KeyRecord | None = await self.required_store().get_key_async(key_id)
        return found

    def usage(self, key_id: str, limits: Limits, now: datetime) -> dict[str, int | None]:
        """The key's counters in the windows containing `now`, read from the enforcing limiter.

        Without a limiter nothing is metered, so every window reads 0 and `remaining_*` the
        envelope. During a Redis outage the limiter answers from what it enforces meanwhile (local
        second and minute counts, the key store's day and month counts).
        """
        if self.limiter is None:
            usage: dict[str, int | None] = {name: 0 for name in WINDOW_NAMES}
            for name, limit in zip(WINDOW_NAMES, limits.as_tuple(), strict=True):
                usage[f"remaining_{name}"] = limit
            return usage
        counted: dict[str, int | None] = self.limiter.usage(key_id, limits, now)
        return counted


def _settings(request: Request[Any, Any, Any]) -> Settings:
    return services_of(request).settings


def _registry_version(request: Request[Any, Any, Any]) -> str:
    return services_of(request).registry_version


def _reader(request: Request[Any, Any, Any]) -> LakeReader:
    return services_of(request).reader


def _keys(request: Request[Any, Any, Any]) -> KeyBackends:
    services = services_of(request)
    return KeyBackends(services.store, services.limiter)


def _signer(request: Request[Any, Any, Any]) -> ArchiveSigner | None:
    return signer_of(request.app.state, services_of(request).settings)


DEPENDENCIES: dict[str, Provide] = {
    "settings": Provide(_settings, sync_to_thread=False),
    "registry_version": Provide(_registry_version, sync_to_thread=False),
    "reader": Provide(_reader, sync_to_thread=False),
    "keys": Provide(_keys, sync_to_thread=False),
    "signer": Provide(_signer, sync_to_thread=False),
}
"""The services a handler may name in its signature, by name."""
