"""An answer as every surface receives it (issue 46), and how an answer of one alpha is served
(issue 58).

`Answer`: its Struct (or page), the warnings the API puts in `meta.warnings`, and its version, the
material of its ETag (what it depends on: the builds it read, and for an answer over the catalogue
only those of the alphas its reader may read).

`served`: the one declaration of an answer of one alpha's build. A `Reading` method
`name(self, view, q: SomeQuery) -> Answer[Body]` marked `@served(summary, documented, ...)` is the
route `GET /v1/alphas/{alpha}/analytics/<name>` (registry id `analytics.<name>`): its query
parameters are `SomeQuery`'s fields, its `data` is `Body` (or, with `rows=`, a collection of those
rows), and the server derives its handler (`serve.routes.analytics`), from which the OpenAPI
document, the client's method, the reference, the MCP tool and the tests' lists of routes follow.
`Figures.<name>` is derived from the same method (`analytics.figures`). Nothing else is written
for a new figure of one alpha but its computation, its body, its terms and the registry's line
(docs/development.md, "Adding a figure").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from schemas.bodies.service import Warning

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Answer(Generic[T]):
    """An answer: its Struct (or page), the warnings of `meta.warnings`, and its version."""

    data: T
    warnings: list[Warning]
    version: str


def _no_meta(_: Any) -> Mapping[str, Any]:
    return {}


@dataclass(frozen=True)
class Served:
    """How an answer of one alpha's build is served (see the module's docstring)."""

    name: str
    """The `Reading` method's name: the route's last path segment and `analytics.<name>`."""
    summary: str
    documented: str
    """Its entry in `/analytics/_doc` and the reference: what it computes, over what, what it needs."""
    table: str | Callable[[Any], str] = "portfolio"
    """The build's table `meta.source` names (or a function of the query that names it)."""
    kinds: tuple[str, ...] | Callable[[Any], tuple[str, ...]] = ("portfolio",)
    """The sealed kinds it is built from: each one the run never sealed is a `kind_missing` warning."""
    meta: Callable[[Any], Mapping[str, Any]] = _no_meta
    """`meta` keys of its own, from the query (`book`, `basis`...)."""
    meta_keys: tuple[str, ...] = ()
    """The keys `meta` adds that no other route's meta has (declared in the OpenAPI document)."""
    rows: type | None = None
    """A collection's row Struct: the answer's data is a page of them, cut by `limit` and `offset`."""
    over_catalogue: bool = False
    """Built from the catalogue index of one generation (the PBO, the residual, MMC): `meta.source`
    names that index at the answer's version instead of a table of the alpha's build."""
    on_loop: bool | Callable[[Any], bool] = False
    """Answered on the event loop (or for the queries a function of the query says): under a
    millisecond of numpy over precomputed tables, where a worker thread's hop would cost as much as
    the work (the rest run in a worker thread)."""

    @property
    def endpoint(self) -> str:
        return f"analytics.{self.name}"


SERVED: dict[str, Served] = {}
"""Every served answer of one alpha, by its `Reading` method's name, in declaration order: filled
as `analytics.reading` is imported, so read it from there (`from analytics.reading import SERVED`)."""


def served(summary: str, documented: str, **how: Any) -> Callable[[F], F]:
    """Declares the method it decorates a served answer of one alpha (`Served`'s fields)."""

    def mark(method: F) -> F:
        name = method.__name__
        if name in SERVED:
            raise RuntimeError(f"{name} is served twice")
        SERVED[name] = Served(name, summary, documented, **how)
        return method

    return mark


def book_meta(q: Any) -> Mapping[str, Any]:
    """`meta.book`: the book the answer is of."""
    return {"book": q.book}
