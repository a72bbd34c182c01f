"""A worker is ready when it says so (issue 52): before it takes its first request, a worker imports
everything a route can need and runs every figure once, so the first answer of each route costs
what the next ones do; afterwards, a request that imports a module is logged.

Why: the command line loads modules lazily (`--help` in 0.06 s) and `analytics/` imports scipy
inside the functions that need it (docs/history.md, "Again after issue 36"): a build process or
a CLI command that never computes a p-value does not pay for it. A server worker does, once, here:
uvicorn accepts no connection of a worker before its startup hooks have run, so `/v1/health`
answering means every route answers at its steady cost.

What is warmed:
- the lazily imported modules (`analytics.LAZY_MODULES`, where the functions importing them live);
- one alpha's figures through `analytics.figures.Figures`, the routes' own computation over the
  worker's own reader: every first-use cost (numpy's and polars' kernels, the catalogue snapshot's
  trials and matrices, the screener's DuckDB tables, the market benchmark's series) is paid here;
- what the significance answer computes once per worker whatever the alpha, which the chosen
  alpha's own answer may skip (`Figures.significance_first_use`: the Harvey-Liu haircut's panel
  for the catalogue's M, asked only for a positive Sharpe ratio, and the bootstrap's kept streams
  in full, grown by a longer history than the chosen alpha's; issue 81, item 10).

A figure that cannot be computed for the chosen alpha (a lake without a benchmark, an alpha without
analytics tables) is skipped with a debug line: warming never stops a start, and an empty lake
warms the imports only. `ImportWatch` names any module imported after the worker was ready (a
warning per request that imported one), which the suite asserts never happens
(tests/ops/test_first_request.py).
"""

from __future__ import annotations

import importlib
import logging
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from litestar.types import ASGIApp, Receive, Scope, Send

from analytics import LAZY_MODULES
from analytics.errors import AnalyticsNotBuilt
from analytics.figures import ASKED, Asked, Figures
from analytics.inputs import require_built
from datasets.reader import LakeReader, LakeUnavailable
from serve.access_log import route_of

log = logging.getLogger("serve.warm")

SERVER_MODULES = ("encodings.idna",)
"""Imported by the server itself after the startup hooks (uvicorn's `create_server` encodes the
host name with IDNA), imported here so that no request is blamed for them."""


def warm(reader: LakeReader) -> None:
    """Everything a route can need, imported and run once (see the module's docstring)."""
    started = time.perf_counter()
    for name in (*LAZY_MODULES, *SERVER_MODULES):
        importlib.import_module(name)
    try:
        alpha = warm_alpha(reader)
    except Exception as exc:  # a reader that fails: its requests say so (500 or 503), not the start
        log.warning("warm-up: the lake could not be read (%s): imports only", type(exc).__name__)
        alpha = None
    if alpha is not None:
        for name, figure in figures_of(Figures(reader), alpha).items():
            try:
                figure()
            except Exception as exc:  # a figure the alpha cannot give is skipped, not a failed start
                log.debug("warm-up: %s of %s skipped: %s", name, alpha, exc)
    log.info(
        "warmed in %.2f s (%s)",
        time.perf_counter() - started,
        f"the figures of {alpha}" if alpha is not None else "imports only: no alpha with analytics tables",
    )


def warm_alpha(reader: LakeReader) -> str | None:
    """The first alpha, by id, whose served build has its analytics tables; None when none has (or
    the lake cannot be read now)."""
    try:
        alphas = reader.alphas()
    except LakeUnavailable:
        return None
    for alpha_id in sorted(alphas):
        try:
            require_built(reader.view(alphas[alpha_id]))
        except (AnalyticsNotBuilt, LakeUnavailable, OSError):
            continue
        return alpha_id
    return None


def figures_of(figures: Figures, alpha: str) -> dict[str, Callable[[], Any]]:
    """Every figure `Figures` answers (each an analytics route or `/metrics`), for `alpha`; the set
    figures with `alpha` and one other published alpha when there is one."""
    others = sorted(a for a in figures.reader.alphas() if a != alpha)
    pair = (alpha, others[0]) if others else (alpha,)
    asked: dict[str, Callable[[], Any]] = {
        name: partial(getattr(figures, name), alpha)
        for name in ASKED
        if isinstance(vars(Figures)[name], Asked)
    }
    return asked | {
        "significance_first_use": lambda: figures.significance_first_use(alpha),
        "live": lambda: figures.live(alpha),
        "checks": lambda: figures.checks(alpha),
        "residual": lambda: figures.residual(alpha),
        "contribution": lambda: figures.contribution(alpha),
        "promotion_preview": lambda: figures.promotion_preview(alpha),
        "screen": lambda: figures.screen(),
        "crowding": lambda: figures.crowding(),
        "combine": lambda: figures.combine(pair),
        "compare": lambda: figures.compare(alpha, pair[-1]) if len(pair) > 1 else None,
    }


class ImportWatch:
    """Names the modules a request imported after the worker was ready: a module count compared
    after each request (one `len`), the names worked out only when it changed. `ready` (the last
    startup hook) takes the modules then imported as known."""

    def __init__(self) -> None:
        self.ready()

    def ready(self) -> None:
        self._known = set(sys.modules)
        self._count = len(self._known)

    def watching(self, app: ASGIApp) -> ASGIApp:
        """`app`, each HTTP request checked once it is answered."""

        async def watched(scope: Scope, receive: Receive, send: Send) -> None:
            try:
                await app(scope, receive, send)
            finally:
                if scope["type"] == "http":
                    self.check(route_of(scope))

        return watched

    def changed(self) -> bool:
        """Whether a module was imported since the last check (one `len`)."""
        return len(sys.modules) != self._count

    def check_scope(self, scope: Scope) -> None:
        """`check` for the request of `scope` (the one-pass layer, serve/front.py)."""
        self.check(route_of(scope))

    def check(self, route: str | None) -> None:
        if len(sys.modules) == self._count:
            return
        current = set(sys.modules)
        new = sorted(current - self._known)
        self._known, self._count = current, len(current)
        if new:
            shown = ", ".join(new[:12]) + (f" and {len(new) - 12} more" if len(new) > 12 else "")
            log.warning(
                "a request (%s) imported %d module(s) after the worker was ready: %s",
                route or "no route",
                len(new),
                shown,
            )
