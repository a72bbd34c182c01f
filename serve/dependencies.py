"""What a handler receives besides `ctx`, by Litestar's dependency injection (`Provide`, as
litestar-fullstack's controllers do): each a typed service built once with the app
(`serve.auth.Services`), given to the handlers whose signature names it (`policy: Policy`,
`keys: KeyBackends`, ...). Every route is declared with these (serve/routes/declare.py), so no
route module reads the app's state itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from litestar import Request
from litestar.di import Provide

from analytics.policy import Policy
from datasets.reader import LakeReader
from serve import errors
from serve.archives import ArchiveSigner, signer_of
from serve.auth import call_backends, services_of
from serve.limits import WINDOW_NAMES, Limits
from serve.settings import Settings

T = TypeVar("T")


@dataclass(frozen=True)
class KeyBackends:
    """The key store and the limiter, as the routes that read keys and usage see them."""

    store: Any | None  # serve.identity key store; None only in a test app with its own authenticator
    limiter: Any | None  # serve.limits.Limiter; None: nothing is metered

    def required_store(self) -> Any:
        if self.store is None:
            raise errors.UpstreamUnavailable("This deployment has no key store to read keys from.")
        return self.store

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the event loop when both answer in-process, else in a worker thread
        (`serve.auth.call_backends`)."""
        return await call_backends(self.store, self.limiter, fn, *args)

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


def _policy(request: Request[Any, Any, Any]) -> Policy:
    return services_of(request).checks_policy


def _analytics_doc(request: Request[Any, Any, Any]) -> Mapping[str, Any]:
    return services_of(request).analytics_doc


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
    return signer_of(request)


DEPENDENCIES: dict[str, Provide] = {
    "policy": Provide(_policy, sync_to_thread=False),
    "analytics_doc": Provide(_analytics_doc, sync_to_thread=False),
    "settings": Provide(_settings, sync_to_thread=False),
    "registry_version": Provide(_registry_version, sync_to_thread=False),
    "reader": Provide(_reader, sync_to_thread=False),
    "keys": Provide(_keys, sync_to_thread=False),
    "signer": Provide(_signer, sync_to_thread=False),
}
"""The services a handler may name in its signature, by name."""
