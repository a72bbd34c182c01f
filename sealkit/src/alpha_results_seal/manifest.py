"""manifest.json declared once: its fields as Structs, their JSON Schema, and rule `manifest.fields`
checked against that schema.

The Structs are never decoded into. A manifest is checked as the JSON it is, against the schema
msgspec generates from them (docs/schemas/manifest.schema.json, `pipeline.seal_schemas`), by
jsonschema, which reports every problem where a decoder stops at the first; each problem names
the field it is about, so that the rules reading a field (which files the seal holds, the archive
record, the tldr) can say they were not checked because of it.

Bounds come from sealkit/src/alpha_results_seal/arrow_schemas.py: each text's `maxLength` and each list's `maxItems` are in the
schema for the teams that check their manifest before sealing, but the check leaves them to
`manifest.text_bounds` (`alpha_results_seal.validate.check_text`), which bounds every text, key and list of
the file, nested ones included, and reports them all.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Annotated, Any, NamedTuple, TypeGuard

import msgspec
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators
from msgspec import Meta, Struct

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.identifiers import ALPHA_ID_PATTERN, BENCHMARK_SYMBOL_PATTERN, FAMILY_PATTERN

# Matched whole (`fullmatch`; in the schema, anchored): `re.match` with `$` lets a trailing newline through.
BOOK_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
SHA256_HEX = re.compile(r"[0-9a-f]{64}")
PARAMETER_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
PARAMETER_TEXT = re.compile(r"[A-Za-z0-9_.:+-]{1,64}")
"""A text parameter's value: short, printable, no spaces (it is shown in tables and CSV cells)."""
PARAMETERS_MAX = 32
"""Parameters a seal may name: a variant's settings, not its configuration file."""

SCHEMA_ID = "https://alpha-results.invalid/schemas/manifest.schema.json"
BOUND_KEYWORDS = ("maxLength", "maxItems")
"""Schema keywords whose breaches `manifest.text_bounds` reports, not `manifest.fields`."""


def anchored(pattern: re.Pattern[str]) -> str:
    """A declared pattern (matched whole with `fullmatch`) as a JSON Schema `pattern`, which
    searches: anchored at both ends (as serve.openapi.downloads.anchored, which the pipeline may
    not import)."""
    return f"^(?:{pattern.pattern})$"


def _bound(path: str) -> int:
    """The length bound of a text of manifest.json (sealkit/src/alpha_results_seal/arrow_schemas.py `TEXT_MAX_CHARS`, else the
    manifest's)."""
    return S.TEXT_MAX_CHARS.get(path, S.MANIFEST_TEXT_MAX_CHARS)


SealFormat = Annotated[str, Meta(extra_json_schema={"enum": [S.SEAL_FORMAT_VERSION]})]
Kind = Annotated[str, Meta(extra_json_schema={"enum": list(S.ALL_KINDS)})]
Kinds = Annotated[list[Kind], Meta(max_length=S.DEFAULT_LIST_MAX_ITEMS)]
Book = Annotated[str, Meta(pattern=anchored(BOOK_NAME))]
Timestamp = Annotated[str, Meta(extra_json_schema={"format": "date-time"})]
"""An ISO 8601 instant, as Python's `datetime.fromisoformat` reads it (`Z` taken for +00:00)."""
Day = Annotated[str, Meta(extra_json_schema={"format": "date"})]
"""A calendar date written YYYY-MM-DD (no time, no week or ordinal forms)."""
Name = Annotated[str, Meta(max_length=_bound("name"))]
Family = Annotated[str, Meta(pattern=anchored(FAMILY_PATTERN))]
ParameterName = Annotated[str, Meta(pattern=anchored(PARAMETER_NAME))]
ParameterText = Annotated[str, Meta(pattern=anchored(PARAMETER_TEXT))]
Parameters = Annotated[dict[ParameterName, int | float | ParameterText], Meta(max_length=PARAMETERS_MAX)]
"""A flat mapping of a variant's parameter names to numbers or short texts."""


class SourceArchive(Struct, kw_only=True, tag_field="status"):
    """The engine's record of the run's source archive (docs/seal.md "source_archive")."""

    filename: Annotated[str, Meta(max_length=_bound("source_archive.filename"))]


class ReadyArchive(SourceArchive, tag="ready"):
    """Packaged and delivered: `source.zip` is expected in the seal, with this size and SHA-256."""

    size_bytes: int
    sha256: Annotated[str, Meta(pattern=anchored(SHA256_HEX))]


class PackagingArchive(SourceArchive, tag="packaging"):
    """Not packaged yet."""


class FailedArchive(SourceArchive, tag="failed"):
    """Packaging failed."""


class AlphaManifest(Struct, kw_only=True, tag_field="type", tag="alpha"):
    """manifest.json of an alpha seal (docs/seal.md "manifest.json"). Every text, key and list
    of the file is bounded (docs/seal.md "Text"), and none may hold a bidirectional control."""

    seal_format: SealFormat
    alpha_id: Annotated[str, Meta(pattern=anchored(ALPHA_ID_PATTERN))]
    source_alpha_id: Annotated[str, Meta(max_length=_bound("source_alpha_id"))]
    name: Name | None = None
    tldr: Annotated[str, Meta(max_length=_bound("tldr"))] | None = None
    started_at: Timestamp
    sealed_at: Timestamp
    engine_version: Annotated[str, Meta(max_length=_bound("engine_version"))]
    kinds_sealed: Kinds
    required_kinds: Kinds
    books: Annotated[list[Book], Meta(max_length=S.DEFAULT_LIST_MAX_ITEMS)]
    # Each one of `books` or its _adjustments/_settlements variant (`trade_book_problems`).
    trade_books: Annotated[list[str], Meta(max_length=S.DEFAULT_LIST_MAX_ITEMS)]
    signal_processing: dict[str, Any]
    metric_conventions: dict[str, Any]
    universe_size: Annotated[int, Meta(gt=0)]
    research_cutoff: Day | None = None
    # One Struct per status of sealkit/src/alpha_results_seal/arrow_schemas.py SOURCE_ARCHIVE_STATUSES (a test holds them equal).
    source_archive: ReadyArchive | PackagingArchive | FailedArchive | None = None
    # The trial family the run is one variant of, and that variant's parameters (optional; docs/seal.md
    # "Trial families"): the probability of backtest overfitting is computed over a family's members.
    family: Family | None = None
    parameters: Parameters | None = None
    # Asks for the alpha to be reviewed (docs/seal.md "Nomination"): the build run that publishes it
    # puts it in the review queue. It approves nothing: only a decision does.
    nominate: bool = False
    nomination_note: Annotated[str, Meta(max_length=_bound("nomination_note"))] | None = None


class BenchmarkManifest(Struct, kw_only=True, tag_field="type", tag="benchmark"):
    """manifest.json of a benchmark seal (docs/seal.md "Benchmark seal")."""

    seal_format: SealFormat
    symbol: Annotated[str, Meta(pattern=anchored(BENCHMARK_SYMBOL_PATTERN))]
    name: Name
    currency: Annotated[str, Meta(max_length=_bound("currency"))]


TABLE_FIELDS = ("kinds_sealed", "books", "trade_books")
"""The fields that say which files an alpha seal holds: its tables are read only when they hold."""


def manifest_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of manifest.json: an alpha's or a benchmark's, by `type`."""
    generated = msgspec.json.schema(AlphaManifest | BenchmarkManifest)
    for definition in generated["$defs"].values():  # a docstring's lines, as one line
        definition["description"] = " ".join(definition["description"].split())
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "manifest.json of a seal",
        "description": "Generated from sealkit/src/alpha_results_seal/manifest.py by `alpha-results reference`; docs/seal.md "
        "explains every field. `format` names what the check reads: date-time an ISO 8601 instant "
        "(Python's datetime.fromisoformat, Z for +00:00), date YYYY-MM-DD.",
        **generated,
    }


class Problem(NamedTuple):
    field: str  # the manifest's top-level key it is about
    message: str


@functools.cache
def _validators() -> dict[str, Any]:
    schema = manifest_schema()
    return {
        str(struct.__struct_config__.tag): Validator(
            {"$ref": f"#/$defs/{struct.__name__}", "$defs": schema["$defs"]}, format_checker=FORMATS
        )
        for struct in (AlphaManifest, BenchmarkManifest)
    }


def manifest_problems(manifest: dict[str, Any]) -> list[Problem]:
    """Every way `manifest` breaks its schema (a benchmark's when its `type` says so, else an
    alpha's), in the file's order, bounds left out (`BOUND_KEYWORDS`)."""
    validator = _validators()["benchmark" if manifest.get("type") == "benchmark" else "alpha"]
    problems: dict[str, Problem] = {}  # one per path: a value of the wrong type breaks its enum too
    for error in sorted(validator.iter_errors(manifest), key=lambda e: _order(manifest, e)):
        for leaf in _leaves(error):
            for where, problem in _described(leaf):
                problems.setdefault(where, problem)
    found = list(problems.values())
    if not any(p.field in ("books", "trade_books") for p in found):
        found += trade_book_problems(manifest)
    if not any(p.field == "parameters" for p in found):
        found += parameter_problems(manifest)
    return found


def variant_problems(family: object, parameters: object) -> list[Problem]:
    """What the manifest's check would say of a variant's `family` and `parameters` (each left out
    when None): the seal kit refuses them before it simulates anything."""
    given = {k: v for k, v in (("family", family), ("parameters", parameters)) if v is not None}
    return [p for p in manifest_problems(given) if p.field in given]


def parameter_problems(manifest: dict[str, Any]) -> list[Problem]:
    """`parameters`' numbers must be finite: JSON has no NaN or infinity, but Python's reader
    takes `NaN` and `Infinity`, and the schema's `number` lets them through."""
    parameters = manifest.get("parameters")
    if not isinstance(parameters, dict):
        return []
    bad = [k for k, v in parameters.items() if isinstance(v, float) and not math.isfinite(v)]
    return [
        Problem("parameters", f"parameters.{k} must be a finite number, got {parameters[k]!r}") for k in bad
    ]


def trade_book_problems(manifest: dict[str, Any]) -> list[Problem]:
    """`trade_books`, the one field a schema cannot check alone: each a book or its variant."""
    if manifest.get("type") == "benchmark":
        return []
    books, trade_books = manifest.get("books"), manifest.get("trade_books")
    if not (_strings(books) and _strings(trade_books)):
        return []  # missing or mistyped: the schema's problems name it (`{}` lacks both)
    allowed = {b + suffix for b in books for suffix in ("", *S.TRADE_VARIANT_SUFFIXES)}
    unknown = [b for b in trade_books if b not in allowed]
    if not unknown:
        return []
    return [
        Problem(
            "trade_books",
            f"trade_books must be books and their _adjustments/_settlements variants, got {_shown(unknown)}",
        )
    ]


def _strings(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# --- from jsonschema's errors to problems ---------------------------------------------------------


def _whole_pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """`pattern` as JSON Schema means it: an ECMA-262 expression, whose `$` is the end of the
    text. jsonschema searches with Python's `re`, whose `$` also matches before a final newline,
    which would let `"Test_nl\n"` through `alpha_id`'s pattern; each pattern of this schema is a
    declared one, anchored, and is matched whole with it (`fullmatch`), as everywhere else."""
    if validator.is_type(instance, "string") and not DECLARED[pattern].fullmatch(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


DECLARED = {
    anchored(pattern): pattern
    for pattern in (
        ALPHA_ID_PATTERN,
        BENCHMARK_SYMBOL_PATTERN,
        BOOK_NAME,
        SHA256_HEX,
        FAMILY_PATTERN,
        PARAMETER_NAME,
        PARAMETER_TEXT,
    )
}
"""The patterns the manifest's fields are matched with, by their text in the schema."""
Validator = validators.extend(Draft202012Validator, {"pattern": _whole_pattern})
FORMATS = FormatChecker(formats=())


@FORMATS.checks("date-time")
def _is_timestamp(value: Any) -> bool:
    if not isinstance(value, str):
        return True  # a format says nothing of another type
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


@FORMATS.checks("date")
def _is_date(value: Any) -> bool:
    if not isinstance(value, str):
        return True
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _order(manifest: dict[str, Any], error: ValidationError) -> int:
    """Where the field an error is about stands in the file (a missing field last)."""
    keys = list(manifest)
    field = _field(error)
    return keys.index(field) if field in keys else len(keys)


def _field(error: ValidationError) -> str:
    if error.absolute_path:
        return str(error.absolute_path[0])
    if error.validator == "required":
        return next((p for p in error.validator_value if p not in error.instance), "")
    return ""


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    """The errors that say what is wrong. An `anyOf` (a nullable field, the archive's statuses)
    is followed into the branch the value was meant for: the one its `status` names, or the one
    that is not null."""
    if error.validator != "anyOf" or not error.context:
        yield error
        return
    branch = _meant(error)
    if branch is None:
        yield error
        return
    for inner in error.context:
        if inner.relative_schema_path[0] == branch:
            yield from _leaves(inner)


def _meant(error: ValidationError) -> int | None:
    options: list[dict[str, Any]] = error.validator_value
    discriminator = error.schema.get("discriminator")
    if discriminator is not None:
        if not isinstance(error.instance, dict):
            return None
        target = discriminator["mapping"].get(error.instance.get(discriminator["propertyName"]))
        return next((i for i, o in enumerate(options) if o.get("$ref") == target), None)
    not_null = [i for i, o in enumerate(options) if o.get("type") != "null"]
    return not_null[0] if len(not_null) == 1 else None


def _described(error: ValidationError) -> list[tuple[str, Problem]]:
    """The error as the report says it: the path, what it must be, what it is (quoted short)."""
    if error.validator in BOUND_KEYWORDS:
        return []
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    field, expected, got = _field(error), error.validator_value, _shown(error.instance)
    match error.validator:
        case "required":
            missing = [p for p in expected if p not in error.instance]
            paths = [".".join(filter(None, (where, p))) for p in missing]
            return [
                (path, Problem(field or p, f"{path} is required"))
                for p, path in zip(missing, paths, strict=True)
            ]
        case "type":
            text = f"must be of type {expected}, got {got}"
        case "enum":
            text = f"must be one of {expected}, got {got}"
        case "pattern":
            text = f"must match {expected}, got {got}"
        case "format":
            text = (
                f"must be {'an ISO timestamp' if expected == 'date-time' else 'a date YYYY-MM-DD'}, got {got}"
            )
        case "exclusiveMinimum":
            text = f"must be greater than {expected}, got {got}"
        case "anyOf" if "discriminator" in error.schema and isinstance(error.instance, dict):
            tag = error.schema["discriminator"]["propertyName"]
            statuses = list(error.schema["discriminator"]["mapping"])
            text = f"must be one of {statuses}, got {_shown(error.instance.get(tag))}"
            where = ".".join(filter(None, (where, tag)))
        case "anyOf" if "discriminator" in error.schema:
            text = f"must be an object, got {got}"
        case "anyOf" if field == "parameters":
            text = f"must be a number or a text matching {anchored(PARAMETER_TEXT)}, got {got}"
        case "maxProperties":
            text = f"must name at most {expected} entries, got {len(error.instance)}"
        case _:
            text = _shown(error.message, 200)
    return [(where, Problem(field, f"{where or 'the manifest'} {text}"))]


def _shown(value: Any, limit: int = 60) -> str:
    """A value quoted in a report: its repr, cut at `limit` characters (a 600 KB id is not echoed)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
