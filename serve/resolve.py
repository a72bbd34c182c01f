"""Resolve the addressed alpha: authorise first, then find it, or raise the named error.

Authorisation runs before lookup, so a key that may not read an alpha learns nothing about
whether it exists. A missing alpha is `alpha_not_found` on the description endpoint and
`run_not_found` on every run-scoped endpoint (each names the resource the endpoint serves).
"""

from __future__ import annotations

from datasets.reader import AlphaBuild, LakeReader
from serve import errors
from serve.context import Caller


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
