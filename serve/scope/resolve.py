"""Resolve the addressed alpha: authorise first, then find it, or raise the named error.

Authorisation runs before lookup, so a key that may not read an alpha learns nothing about
whether it exists. A missing alpha is `alpha_not_found` on the description endpoint and
`run_not_found` on every run-scoped endpoint (each names the resource the endpoint serves).

`open_alpha` and `open_run` also open the build's view, the one snapshot the request reads from
start to end; a view already open costs a dictionary lookup, and only a first open (mapping
files, or fetching them from S3) leaves the event loop for a worker thread.
"""

from __future__ import annotations

from anyio import to_thread

from core import errors
from core.context import Caller
from datasets.reader import BuildView, LakeReader
from datasets.served import AlphaBuild


def resolve_alpha(caller: Caller, reader: LakeReader, alpha: str) -> AlphaBuild:
    """The alpha of `/v1/alphas/{alpha}` (the description)."""
    if not caller.may_read_alpha(alpha):
        raise errors.AlphaNotAllowed(details={"alpha": alpha})
    build = reader.alpha(alpha)
    if build is None:
        raise errors.AlphaNotFound(f"No alpha {alpha!r}.", details={"alpha": alpha})
    return build


def resolve_run(caller: Caller, reader: LakeReader, alpha: str) -> AlphaBuild:
    """The run behind every `/v1/alphas/{alpha}/...` data endpoint."""
    if not (caller.may_read_alpha(alpha) and caller.may_read_run(alpha)):
        raise errors.RunNotAllowed(details={"alpha": alpha})
    build = reader.alpha(alpha)
    if build is None:
        raise errors.RunNotFound(f"No run {alpha!r}.", details={"alpha": alpha})
    return build


async def open_view(reader: LakeReader, build: AlphaBuild) -> BuildView:
    view = reader.ready_view(build)
    if view is None:
        view = await to_thread.run_sync(reader.view, build)
    return view


async def open_alpha(caller: Caller, reader: LakeReader, alpha: str) -> BuildView:
    return await open_view(reader, resolve_alpha(caller, reader, alpha))


async def open_run(caller: Caller, reader: LakeReader, alpha: str) -> BuildView:
    return await open_view(reader, resolve_run(caller, reader, alpha))
