"""A single-object body's documentation, declared on its fields and read back by path.

`figure(meaning, formula, horizon=..., ...)` is a field's `msgspec.Meta`: its meaning is the field's
`description` (what the OpenAPI document and the generated client say), and the facts a
documentation block lists (`/metrics/_doc`: horizon, granularity, source, signal, availability)
ride in `Meta.extra`. Its unit and annualisation are those of the term it names (`term=terms.X`,
`schemas.terms`; never one found by its served name), read here when the field is read
(`field_facts`, `documented`) and written as the OpenAPI `x-unit` by `term_units`. `documented(Body, block)` walks the Struct and its
Structs and returns the block's `fields`: one entry per dotted path (`core.ic`, `periods[].core.ic`,
array elements written `name[]`), so the block is derived from the declaration, never written
beside it.

Facts a block names as inherited (`Block.inherited`) hold for every field a field contains unless
that field states its own: `core` says the stored statistics describe the run's full window, and
each statistic under it says so without repeating it. A field left out of a body where it does not
apply (`T | UnsetType`) without a `figure` is documented only where its parent names it in
`keys` (a Newey-West test's `frequency` exists on `nwt.ir` only); a plain `Meta` description on such
a field is what the OpenAPI document says of it wherever it appears.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

import msgspec
from msgspec import Meta

from schemas.bodies.base import field_names, struct_info
from schemas.bodies.formats import DOC
from schemas.terms import Term
from schemas.vocabulary import term_named

FIGURE = "figure"
"""Set in the facts `_facts` reads from a `figure` (not from a plain `Meta` description)."""
BY_FIGURE = "by_figure"
"""Set in the facts of a `figure` (not of a row's `doc`, which states its own unit): it has a term."""


def figure(meaning: str, formula: str | None = None, *, term: Term | None = None, **facts: Any) -> Meta:
    """A field's meaning, formula and facts. `keys` maps child names to `figure`s that document
    them at this path only; `what` fills `{what}` in the meanings of the fields it contains;
    `where` maps a path prefix (`periods[]`) to the facts that differ under it; `lead` is written
    before the meanings of the fields it holds directly (a difference of each figure: "after - before: ");
    `leaf=True` documents the field but not what it contains; `term` is the field's term
    (`schemas.terms`), the object itself: every field that holds a figure names it, since nothing
    finds a term by a served name. A fact given as None is stated as none (a contained field does
    not inherit it). Its unit and annualisation are its term's, never written here."""
    if term is not None:
        if not isinstance(term, Term) or term_named(term.name) is not term:
            raise TypeError(f"figure(term=...) takes a term of schemas.terms, not {term!r}")
        facts["term"] = term.name
    availability = facts.get("availability")
    described = meaning.replace("{what}", facts.get("what", "the series tested"))
    return Meta(
        description=f"{described} (availability: {availability})" if availability else described,
        extra={DOC: {"meaning": meaning, "formula": formula, **facts, BY_FIGURE: True}},
    )


def _holds_figure(held: msgspec.inspect.Type) -> bool:
    """Whether a field holding `held` is a figure: a number, or a stat entry (a Struct with a value
    and its unit)."""
    if isinstance(held, (msgspec.inspect.IntType, msgspec.inspect.FloatType)):
        return True
    if isinstance(held, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType)):
        return _holds_figure(_facts(held.item_type)[1])
    if isinstance(held, msgspec.inspect.StructType):
        return {"value", "unit"} <= set(field_names(held.cls))
    return False


def with_term(facts: Mapping[str, Any]) -> dict[str, Any]:
    """A `figure`'s facts with those of the term it names: its unit and annualisation; a row's `doc`
    states its own and is returned as it is."""
    if not facts.get(BY_FIGURE):
        return dict(facts)
    term = term_named(facts.get("term"))
    return dict(facts) if term is None else {**term.facts(), **facts}


def term_units(cls: type[msgspec.Struct]) -> dict[str, str]:
    """The unit of each field of `cls` that has a term, by served name: its OpenAPI `x-unit`."""
    info = struct_info(cls)
    out = {}
    for declared in info.fields:
        facts, _ = _facts(declared.type)
        unit = with_term(facts).get("unit")
        if unit:
            out[declared.encode_name] = unit
    return out


@dataclass(frozen=True)
class Block:
    """How a documentation block writes an entry."""

    keys: tuple[str, ...]
    """An entry's keys, in order."""
    defaults: Mapping[str, Any]
    inherited: frozenset[str]
    omitted_when_none: frozenset[str] = frozenset()
    stat: Callable[[str, dict[str, Any]], dict[str, dict[str, Any]]] | None = None
    """For a field whose type is `stat_type`: its entries below it, from its path's entry."""
    stat_type: type | None = None

    def entry(self, facts: Mapping[str, Any]) -> dict[str, Any]:
        out = {key: facts.get(key, self.defaults.get(key)) for key in self.keys}
        return {k: v for k, v in out.items() if v is not None or k not in self.omitted_when_none}


def _facts(field_type: msgspec.inspect.Type) -> tuple[dict[str, Any], msgspec.inspect.Type]:
    """The facts declared on a field (its `figure`, or the meaning of a plain `Meta`) and the
    type it holds, with `Annotated`, null and unset taken off."""
    facts: dict[str, Any] = {}
    held: list[msgspec.inspect.Type] = []

    def visit(t: msgspec.inspect.Type) -> None:
        if isinstance(t, msgspec.inspect.Metadata):
            if t.extra and DOC in t.extra:
                facts.update(t.extra[DOC])
                facts[FIGURE] = True
            elif t.extra_json_schema and "description" in t.extra_json_schema and "meaning" not in facts:
                facts["meaning"] = t.extra_json_schema["description"]
            visit(t.type)
        elif isinstance(t, msgspec.inspect.UnionType):
            for arm in t.types:
                visit(arm)
        elif not isinstance(t, msgspec.inspect.NoneType):  # msgspec drops UnsetType itself
            held.append(t)

    visit(field_type)
    return facts, held[0] if held else msgspec.inspect.AnyType()


@dataclass(frozen=True)
class DeclaredField:
    """A field as declared: where, the name it is served under, and the term it names."""

    where: str
    """`module.Struct.name`; a child a `figure`'s `keys` documents is `...name{key}`."""
    name: str
    """The served name."""
    term: str | None
    """The name of the term the field names (`figure(..., term=...)`, a row's `doc(..., term=...)`)."""
    by_figure: bool
    """Declared with `figure` (a row column's `doc` otherwise)."""
    holds_figure: bool
    """It holds a number or a stat entry."""


def declared_fields(structs: Iterable[type[msgspec.Struct]]) -> list[DeclaredField]:
    """Every field of `structs` declared with a `figure` (with the children its `keys` documents) or
    with a `doc` that names a term: what tests/contract/test_vocabulary.py holds to one name, one
    meaning (`schemas.vocabulary.two_meanings`)."""
    out: list[DeclaredField] = []

    def keyed(where: str, facts: Mapping[str, Any]) -> None:
        for key, meta in facts.get("keys", {}).items():
            child = meta.extra[DOC]
            out.append(DeclaredField(f"{where}{{{key}}}", key, child.get("term"), True, True))
            keyed(f"{where}{{{key}}}", child)
        for prefix, differing in facts.get("where", {}).items():  # the keys documented under a path
            keyed(f"{where}[{prefix}]", differing)

    for cls in structs:
        for declared in struct_info(cls).fields:
            facts, held = _facts(declared.type)
            where = f"{cls.__module__}.{cls.__qualname__}.{declared.encode_name}"
            if facts.get(BY_FIGURE):
                out.append(
                    DeclaredField(where, declared.encode_name, facts.get("term"), True, _holds_figure(held))
                )
                keyed(where, facts)
            elif facts.get("term"):
                out.append(
                    DeclaredField(where, declared.encode_name, facts["term"], False, _holds_figure(held))
                )
    return out


@cache
def field_facts(body: type[msgspec.Struct], name: str) -> Mapping[str, Any]:
    """The facts declared on `body`'s field `name` (its `figure` or `doc`: meaning, formula, unit,
    annualisation, source, ...): what a computation reads instead of restating them."""
    info = struct_info(body)
    for declared in info.fields:
        if declared.name == name:
            facts, _ = _facts(declared.type)
            return MappingProxyType(with_term(facts))
    raise KeyError(f"{body.__name__} declares no field {name!r}")


def key_facts(body: type[msgspec.Struct], name: str, key: str) -> Mapping[str, Any]:
    """The facts of `key`, a child the field `name` of `body` documents in its `keys`."""
    meta: Meta = field_facts(body, name)["keys"][key]
    assert meta.extra is not None
    return MappingProxyType(with_term(meta.extra[DOC]))


def _contents(held: msgspec.inspect.Type) -> tuple[type | None, bool]:
    """The Struct a field holds, directly or as an array's items, and whether as an array."""
    array = isinstance(held, msgspec.inspect.ListType)
    if array:
        held = _facts(held.item_type)[1]  # type: ignore[attr-defined]
    return (held.cls if isinstance(held, msgspec.inspect.StructType) else None), array


def documented(body: type[msgspec.Struct], block: Block, **facts: Any) -> dict[str, dict[str, Any]]:
    """Every path of `body` with its entry, sorted by path; `facts` hold for every field (`what`,
    where the body is held by something that names it)."""
    out: dict[str, dict[str, Any]] = {}
    _walk(body, "", {**block.defaults, **facts}, {}, block, out, "")
    return dict(sorted(out.items()))


def _walk(
    cls: type[msgspec.Struct],
    prefix: str,
    context: dict[str, Any],
    keys: Mapping[str, Meta],
    block: Block,
    out: dict[str, dict[str, Any]],
    lead: str,
) -> None:
    _check_named(cls, keys)
    info = struct_info(cls)
    for declared in info.fields:
        facts, held = _facts(declared.type)
        named = keys.get(declared.encode_name)
        if named is not None:
            facts = dict(named.extra[DOC])  # type: ignore[index]
        elif not declared.required and FIGURE not in facts:
            continue  # its description, if any, is the OpenAPI document's; the block names it by path
        elif "meaning" not in facts:
            raise ValueError(f"{cls.__name__}.{declared.name} declares no meaning")
        facts = with_term(facts)
        path = prefix + declared.encode_name
        for within, variant in facts.get("where", {}).items():
            if path.startswith(within):
                facts = {**facts, **variant}
        if lead:
            facts = {**facts, "meaning": lead + facts["meaning"]}
        out[path], inner = _entry(facts, context, block)
        contained, array = _contents(held)
        if contained is None or facts.get("leaf"):
            continue
        named_below = facts.get("keys", {})
        if contained is block.stat_type and block.stat is not None:
            _check_named(contained, {name.split(".")[0]: meta for name, meta in named_below.items()})
            out.update(block.stat(path, out[path]))
            for name, meta in named_below.items():
                out[f"{path}.{name}"] = _entry(with_term(meta.extra[DOC]), inner, block)[0]
            continue
        below = f"{path}[]." if array else f"{path}."
        _walk(contained, below, inner, named_below, block, out, facts.get("lead", ""))


def _check_named(cls: type[msgspec.Struct], keys: Mapping[str, Meta]) -> None:
    """A name in `keys` that `cls` does not declare would document a path no answer holds."""
    unknown = sorted(set(keys) - set(field_names(cls)))
    if unknown:
        raise ValueError(f"keys {unknown} name no field of {cls.__name__}")


def _entry(
    facts: Mapping[str, Any], context: dict[str, Any], block: Block
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A field's entry, and the context of the fields it contains (what it states of the inherited
    facts and `what` over its own context)."""
    inner = {**context, **{k: v for k, v in facts.items() if k in block.inherited or k == "what"}}
    meaning = facts["meaning"].replace("{what}", inner.get("what", "{what}"))
    own = {key: facts.get(key) for key in ("formula", "unit")} | {
        key: value for key, value in facts.items() if key in block.keys and key != "meaning"
    }
    return block.entry({**inner, **own, "meaning": meaning}), inner
