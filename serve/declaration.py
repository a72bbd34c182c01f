"""What a handler declares about its endpoint (`Handled`), and an endpoint as the registry completes
it (`Endpoint`): the value every reader of the declarations (the OpenAPI document, the reference,
`/analytics/_doc`, the request context) works from.

A handler is the endpoint's declaration (`serve.routes.declare.route`): its decorator states the
path, the summary and its `meta` keys; its signature states the query parameters (`ctx:
Ctx[WeekQuery]`, a `schemas.query.Query` Struct), the path parameters and the answer, as its
return type (`Response[Collection[DecisionRow]]`: `schemas.bodies.envelope`). The registry
(`schemas.registry`) keeps only what no handler carries: the id, the group and the flags, which
key allow-lists name without loading the server. `serve.endpoints` collects them all.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field, fields
from typing import Any

from schemas.bodies.base import Body, field_names
from schemas.bodies.envelope import Collection, Series, Single
from schemas.query import NoQuery, Param, Query, params_of
from schemas.registry import Endpoint as Entry

ENVELOPES = (Single, Collection, Series)

PATH_PARAMETER = re.compile(r"\{(\w+)(?::(\w+))?\}")
"""A parameter of a Litestar path template (`{alpha:str}`, `{alpha}`): its name, and its type when
the template states one. The one reading of a template's parameters (the OpenAPI path, the MCP
tools' arguments, which routes the layer answers itself)."""


@dataclass(frozen=True)
class Handled:
    """What a handler declares about its endpoint (everything but the registry's id, group, flags)."""

    path: str  # Litestar path template
    summary: str
    answer: Any  # the handler's return type: Single[B], Collection[R], Series[R, S] or a bare body
    query: type[Query] = NoQuery
    meta: tuple[str, ...] = ()  # `meta` keys it echoes besides the shared ones (bodies.envelope)
    documented: str | None = None  # its entry in its group's documentation block (`/analytics/_doc`)
    # Read from `answer`:
    body: type[Body] | None = field(init=False, default=None)  # a single object's (its `data`)
    rows: type[Body] | None = field(init=False, default=None)  # a collection's row Struct
    meta_summary: type[Body] | None = field(init=False, default=None)  # a series' `meta.summary`

    def __post_init__(self) -> None:
        origin, arguments = typing.get_origin(self.answer), typing.get_args(self.answer)
        bare = (
            isinstance(self.answer, type) and issubclass(self.answer, Body) and self.answer.outside_envelope
        )
        structs = arguments if origin in ENVELOPES else (self.answer,) if bare else ()
        if not structs or not all(isinstance(s, type) and issubclass(s, Body) for s in structs):
            raise TypeError(
                f"{self.path}: the answer must be Single[Body], Collection[Row], Series[Row, Summary] "
                f"or a body declared outside the envelope (Health); got {self.answer!r}"
            )
        if self.meta and not self.enveloped:
            raise TypeError(f"{self.path}: a body outside the envelope has no meta")
        if origin in (Collection, Series):
            object.__setattr__(self, "rows", arguments[0])
            object.__setattr__(self, "meta_summary", arguments[1] if origin is Series else None)
        else:
            object.__setattr__(self, "body", structs[0])

    @property
    def row_fields(self) -> tuple[str, ...] | None:
        """The row fields, in wire order (the row Struct's; `field_names` is cached, as a columnar
        page asks on every request)."""
        return None if self.rows is None else field_names(self.rows)

    @property
    def enveloped(self) -> bool:
        """Whether the answer is `{data, meta}` (every route but the health probe)."""
        return typing.get_origin(self.answer) in ENVELOPES

    @property
    def params(self) -> tuple[Param, ...]:
        """The query parameters, in documentation order."""
        return params_of(self.query)

    @property
    def collection(self) -> bool:
        """A collection answers pages in every representation: its query declares `format`."""
        return any(param.name == "format" for param in self.params)

    @property
    def openapi_path(self) -> str:
        """The path as the OpenAPI document writes it (`{alpha}`, without Litestar's types)."""
        return PATH_PARAMETER.sub(r"{\1}", self.path)

    @property
    def path_parameters(self) -> dict[str, str]:
        """Each path parameter's name and its declared type ("" when the template states none)."""
        return dict(PATH_PARAMETER.findall(self.path))


@dataclass(frozen=True, kw_only=True)
class Endpoint(Handled):
    """One endpoint: its handler's declaration with its registry entry's id, group and flags."""

    id: str
    group: str
    public: bool = False  # no key needed (only /v1/health)
    admin: bool = False  # effective only on a platform administrator's key

    @classmethod
    def of(cls, entry: Entry, handled: Handled) -> Endpoint:
        declared = {f.name: getattr(handled, f.name) for f in fields(Handled) if f.init}
        return cls(**declared, id=entry.id, group=entry.group, public=entry.public, admin=entry.admin)
