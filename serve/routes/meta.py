"""`/v1/health` (public, never metered)."""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from litestar import Request, Response, get

from datasets.reader import LakeUnavailable
from schemas.registry import REGISTRY_VERSION
from serve.auth import services_of
from serve.envelope import json_response, now_iso
from serve.routes.base import context

log = logging.getLogger("serve.health")


def build_version() -> str:
    try:
        return version("alpha-results")
    except PackageNotFoundError:
        return "0+unknown"


def _down_parts(request: Request[Any, Any, Any]) -> list[str]:
    """Backends that do not answer; each probe is cheap and never raises."""
    services = services_of(request)
    down = []
    try:
        services.reader.ping()
    except LakeUnavailable:
        down.append("lake")
    for name, backend in (("keystore", services.store), ("limiter", services.limiter)):
        if backend is None:
            continue
        try:
            backend.ping()
        except Exception:  # any failure of a probe means "down"; health itself must answer 200
            log.warning("health probe of %s failed", name, exc_info=True)
            down.append(name)
    return down


@get("/v1/health", opt={"endpoint": "meta.health"}, sync_to_thread=True, operation_id="health")
def health(request: Request[Any, Any, Any]) -> Response[bytes]:
    ctx = context(request, public=True)
    ctx.query.finish()
    settings = services_of(request).settings
    down = _down_parts(request)
    body: dict[str, Any] = {
        "status": "degraded" if down else "ok",
        "service": settings.service_name,
        "environment": settings.environment,
        "version": build_version(),
        "registry_version": REGISTRY_VERSION,
        "time": now_iso(),
    }
    if down:
        body["down"] = down
    return json_response(body)


ROUTES = [health]
