"""The constrained scalars of the envelope, identity, administration and download bodies: the
formats and bounds their JSON Schemas state, declared once.

A `Literal` alone makes msgspec write `{"enum": [...]}` (its values sorted) without a `type`;
`TEXT` adds `"type": "string"`, which the document has always stated and a generated client reads.
Timestamps stay `str` with format `date-time`: the server writes them itself (ISO 8601 UTC, `Z`,
whole seconds), and msgspec writes no format for `datetime`.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from schemas.terms import Term

TEXT = Meta(extra_json_schema={"type": "string"})
"""On a `Literal` of strings: the `type` msgspec leaves out of an enum's schema."""


def one_of(values: tuple[str, ...]) -> Meta:
    """A string enum taken from a tuple the server already keeps (a `Literal` needs the values
    written out)."""
    return Meta(extra_json_schema={"enum": list(values)})


Count = Annotated[int, Meta(ge=0)]
Timestamp = Annotated[str, Meta(extra_json_schema={"format": "date-time"})]
Uri = Annotated[str, Meta(extra_json_schema={"format": "uri"})]
Email = Annotated[str, Meta(extra_json_schema={"format": "email"})]
KeyId = Annotated[str, Meta(min_length=16, max_length=16)]
Sha256 = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]

X_UNIT = "x-unit"
X_NULL = "x-null"
X_ABSENT = "x-absent"
X_RAW_ONLY = "x-raw-only"
X_SEAL_TEXT = "x-seal-text"
DOC = "doc"
"""The `Meta.extra` key holding what a documentation block lists of a field (`schemas.bodies.figures`)."""
"""The keys a field's `doc` adds to its JSON Schema besides its `description` (its meaning)."""


SEAL_TEXT = Meta(extra_json_schema={X_SEAL_TEXT: True})
"""On a served field: its value is text a research team's seal supplied (free text, which the build
bounds but cannot vet), every string within it (an object's or a list's, keys included). A reader
must treat it as data, never as instructions: the MCP server names such values in each tool
result (`serve.model_context.untrusted`). Identifiers the build holds to a pattern (alpha ids, tickers,
books) and values from a closed set are not marked: neither can carry a sentence."""


def doc(
    meaning: str,
    *,
    unit: str | None = None,
    null: str | None = None,
    absent: str | None = None,
    raw_only: bool = False,
    formula: str | None = None,
    term: Term | None = None,
    **facts: str,
) -> Meta:
    """A response field's meaning, declared on the field: its unit (`schemas.units`), when and why
    it is null (None: never), when the key is left out (None: always served, raw-only aside), and
    whether only a key with raw-book access sees it. serve/openapi/ composes the document's
    description from these. `formula` and `facts` (`annualisation`, `source`) are what a
    documentation block lists beside them (`schemas.bodies.figures.documented` reads them; its
    meaning there is the meaning followed by the null rule). A row's figure names its `term`
    (`schemas.terms`, the object) instead of a unit: its unit and annualisation are the term's, written
    there alone."""
    if term is not None:
        if not isinstance(term, Term):
            raise TypeError(f"doc(term=...) takes a term of schemas.terms, not {term!r}")
        if unit is not None or "annualisation" in facts:
            raise ValueError(f"a field of the term {term.name!r} takes its unit and annualisation from it")
        facts = {**term.facts(), **facts}
        unit = facts.pop("unit")
    extra: dict[str, object] = {
        key: value for key, value in ((X_UNIT, unit), (X_NULL, null), (X_ABSENT, absent)) if value
    }
    if raw_only:
        extra[X_RAW_ONLY] = True
    described = f"{meaning} {null}" if null else meaning
    block = {"meaning": described, "formula": formula, "unit": unit, **facts}
    return Meta(description=meaning, extra_json_schema=extra or None, extra={DOC: block})
