"""The base of every declared response body, and the window echo most of them share.

The bodies here describe the `data` object the server already serves (built as plain dicts by
serve/); they are the contract the OpenAPI document and the generated client are made from, so
they must say exactly what is served, no more and no less. `Body` makes a served key the
declaration lacks an error when a body is decoded (`forbid_unknown_fields`), never a key silently
dropped: tests/api/test_bodies.py decodes every recorded answer with it.

Conventions of every subclass, which msgspec reads from the declaration:
- a key the server may leave out is `T | UnsetType = UNSET` (then it is not encoded), an explicit
  null is `| None`; a key always served has no default;
- fields are declared in the order the server emits the keys, because encoding follows the
  declaration and the equality suite compares key order;
- `kw_only=True, frozen=True` is repeated on every subclass: msgspec applies `kw_only` to the
  fields of the class that states it only (without it a required key could not follow an optional
  one), and type checkers take a subclass that does not state `frozen` for a mutable one.
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from typing import Annotated, ClassVar

import msgspec

from schemas.bodies.formats import doc

_INSPECTED: dict[type, msgspec.inspect.StructType] = {}


def struct_info(cls: type[msgspec.Struct]) -> msgspec.inspect.StructType:
    """`msgspec.inspect.type_info(cls)`, once per Struct: msgspec resolves every type hint of
    `cls` and of each Struct it holds on every call, and the documentation, the OpenAPI document
    and the MCP tools ask about the same few hundred Structs thousands of times when an app is
    made. The Structs met inside `cls` are kept too, so each is resolved once."""
    found = _INSPECTED.get(cls)
    if found is None:
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        for held in structs_within([info]).values():
            _INSPECTED.setdefault(held.cls, held)
        found = info
    return found


def structs_within(types: list[msgspec.inspect.Type]) -> dict[type, msgspec.inspect.StructType]:
    """Every Struct `types` are or hold, at any depth, each once, in the order first met."""
    seen: dict[type, msgspec.inspect.StructType] = {}

    def visit(t: msgspec.inspect.Type) -> None:
        if isinstance(t, msgspec.inspect.StructType):
            if t.cls in seen:
                return
            seen[t.cls] = t
            for field in t.fields:
                visit(field.type)
        elif isinstance(t, msgspec.inspect.Metadata):
            visit(t.type)
        elif isinstance(t, msgspec.inspect.UnionType):
            for arm in t.types:
                visit(arm)
        elif isinstance(t, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType, msgspec.inspect.SetType)):
            visit(t.item_type)
        elif isinstance(t, msgspec.inspect.DictType):
            visit(t.value_type)

    for t in types:
        visit(t)
    return seen


def meanings(cls: type[msgspec.Struct]) -> dict[str, str]:
    """The `Meta` description of each described field of `cls`, by wire name: a documentation
    block that lists the same keys reads them here rather than writing them again."""
    info = struct_info(cls)
    out = {}
    for field in info.fields:
        arms = field.type.types if isinstance(field.type, msgspec.inspect.UnionType) else (field.type,)
        for arm in arms:  # `Annotated[T, Meta] | UnsetType`: the Meta is on an arm
            schema = arm.extra_json_schema if isinstance(arm, msgspec.inspect.Metadata) else None
            if schema and schema.get("description"):
                out[field.encode_name] = schema["description"]
    return out


@cache
def field_names(cls: type[msgspec.Struct]) -> tuple[str, ...]:
    """The wire names of the fields of `cls`, in their declared order (cached: msgspec resolves
    the Struct's type hints on every `fields()` call, too slow for a request's path)."""
    return tuple(field.encode_name for field in struct_info(cls).fields)


def field_schemas(cls: type[msgspec.Struct]) -> dict[str, dict[str, object]]:
    """The JSON Schema msgspec writes for each field of `cls`, by wire name: what its `Meta`
    declares (`description`, and the `x-` keys of `schemas.bodies.formats.doc`) beside its type."""
    _, components = msgspec.json.schema_components([cls])
    properties: dict[str, dict[str, object]] = components[cls.__name__]["properties"]
    return properties


class Body(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """A declared response object: an undeclared served key fails decoding, never vanishes."""

    outside_envelope: ClassVar[bool] = False
    """Served as the whole body, not inside `{data, meta}` (the health probe's only): a handler
    may return it bare (`Response[Health]`); any other body is `Single[...]`'s `data`."""
    data_meaning: ClassVar[str | None] = None
    """The meaning of `data` in the answer holding this body (`Single[...]`), where the body says
    more of itself than `Single.data`'s generic meaning; None: that meaning."""


class Window(Body, kw_only=True, frozen=True):
    """`window`: the request's `from` and `to` echoed, null where open."""

    from_: Annotated[
        dt.date | None, doc("First trading day of the window, inclusive; null: the start of the history.")
    ] = msgspec.field(name="from")
    to: Annotated[
        dt.date | None, doc("Last trading day of the window, inclusive; null: the end of the history.")
    ]
