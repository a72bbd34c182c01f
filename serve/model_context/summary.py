"""Agent-sized answers (issue 65: "`analytics.mmc` answers 83 KB to an agent"): an analytics tool
answers in summary form unless called with `detail="full"`.

An analytics answer is one object whose scalars (every figure and stat entry) are small and whose
series (weekly values, a cone, running sums, per-week exposures) grow with the history; an agent's
context pays for every byte of a tool result, and a series read week by week is rarely what it
needs to answer. So in summary form each series of the answer longer than `LONGEST` items is
replaced by a `Summarised` object: its first and last `KEPT` items, how many there are, and how to
have them all (`detail="full"` on the tool, or the route over HTTP, whose answer never changes).
Everything else is the route's answer unchanged.

Which fields are series is read off the declarations, never kept by hand: the body Struct's
list-typed fields at any depth whose items are not named entries (`list_paths`, `named`). A list of
named entries (the checks, the factors' figures, the sectors) is kept whole: each entry holds
figures, and the summary keeps every figure. Which tools take `detail` is derived the same way:
every `analytics` tool answering one object (`Single`) that declares a series. Collections are
already paged (`limit`/`offset`), and the other groups' single objects are short.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from serve.declaration import Endpoint

Path = tuple[str, ...]
"""Keys from an answer's root to a field; `*` stands for every item of a list (the items a
`Summarised` list keeps, in summary form) or every value of an object."""

EACH = "*"

DETAIL = "detail"
"""The argument choosing the form of an answer (not a query parameter of the route: never sent to it)."""
SUMMARY = "summary"
FULL = "full"
FORMS = (SUMMARY, FULL)

KEPT = 3
"""Items of a summarised list kept at each end: a series' start and its latest weeks."""
LONGEST = 12
"""The most items a series keeps whole in summary form (a quarter of weeks, a year of months); a
longer one is summarised."""

GROUP = "analytics"


def detail_schema() -> dict[str, Any]:
    """The `detail` property of a summarising tool's input schema."""
    return {
        "type": "string",
        "enum": list(FORMS),
        "default": SUMMARY,
        "description": (
            f"`{SUMMARY}` (the default): every figure of the answer, with each series (a list of dates, "
            f"numbers or dated rows) longer than {LONGEST} items cut to its first and last {KEPT} (an "
            f"object saying how many there are); `{FULL}`: the route's whole answer."
        ),
    }


def walk_type(answer_type: msgspec.inspect.Type, visit: Callable[[msgspec.inspect.Type, Path], bool]) -> None:
    """Call `visit(kind, path)` on every node of `answer_type` (an endpoint's declared answer, as
    `msgspec.inspect` sees it), parent before child, `*` in the path standing for each item of a
    list or value of an object; a node's children are walked when `visit` returns True. A Struct
    met again inside itself is not walked again on that path. The one walk of a declared answer:
    the series a summary cuts (`list_paths`) and the seal's text (`serve.model_context.untrusted`)."""

    def walk(kind: msgspec.inspect.Type, path: Path, within: frozenset[type]) -> None:
        if not visit(kind, path):
            return
        if isinstance(kind, msgspec.inspect.Metadata):
            walk(kind.type, path, within)
        elif isinstance(kind, msgspec.inspect.UnionType):
            for arm in kind.types:
                walk(arm, path, within)
        elif isinstance(
            kind, msgspec.inspect.ListType | msgspec.inspect.SetType | msgspec.inspect.VarTupleType
        ):
            walk(kind.item_type, (*path, EACH), within)
        elif isinstance(kind, msgspec.inspect.DictType):
            walk(kind.value_type, (*path, EACH), within)
        elif isinstance(kind, msgspec.inspect.StructType) and kind.cls not in within:
            for field in kind.fields:
                walk(field.type, (*path, field.encode_name), within | {kind.cls})

    walk(answer_type, (), frozenset())


def list_paths(answer_type: msgspec.inspect.Type) -> tuple[Path, ...]:
    """The paths of the series of `answer_type` (its list-typed fields whose items are not
    `named`), outermost first: a list within another's items is then cut in the items the outer one
    keeps, and named where it stands in the answer served."""
    found: dict[Path, None] = {}

    def visit(kind: msgspec.inspect.Type, path: Path) -> bool:
        if isinstance(kind, msgspec.inspect.ListType | msgspec.inspect.VarTupleType) and not named(
            kind.item_type
        ):
            found[path] = None
        return True

    walk_type(answer_type, visit)
    return tuple(sorted(found, key=len))


def named(item: msgspec.inspect.Type) -> bool:
    """Whether a list's items are named entries, which a summary keeps whole (each holds figures an
    agent reads by name: a check by its id, a factor, a sector, an alpha, a symbol), rather than the
    points of a series (dates, numbers, rows keyed by a date, a week or a level): text, or a Struct
    whose first field (its key) is text."""
    kinds = plain(item)
    if any(isinstance(kind, msgspec.inspect.StructType) for kind in kinds):
        return any(
            isinstance(kind, msgspec.inspect.StructType) and bool(kind.fields) and text(kind.fields[0].type)
            for kind in kinds
        )
    return text(item)


def text(kind: msgspec.inspect.Type) -> bool:
    return any(isinstance(arm, msgspec.inspect.StrType | msgspec.inspect.LiteralType) for arm in plain(kind))


def plain(kind: msgspec.inspect.Type) -> list[msgspec.inspect.Type]:
    """The types a value of `kind` may have, without their metadata (the arms of a union)."""
    if isinstance(kind, msgspec.inspect.Metadata):
        return plain(kind.type)
    if isinstance(kind, msgspec.inspect.UnionType):
        return [flat for arm in kind.types for flat in plain(arm)]
    return [kind]


def summarised_lists(endpoint: Endpoint, answer_type: msgspec.inspect.Type) -> tuple[Path, ...]:
    """The series of the endpoint's `data` that its tool's summary form cuts: those of an analytics
    answer of one object; none (the tool takes no `detail`) for any other."""
    if endpoint.group != GROUP or endpoint.body is None or not endpoint.enveloped:
        return ()
    return tuple(path for path in list_paths(answer_type) if path[0] == "data")


class Summarised(msgspec.Struct, kw_only=True, frozen=True):
    """What stands for a list longer than `LONGEST` items in summary form."""

    count: int
    """How many items the list holds."""
    first: list[Any]
    last: list[Any]
    omitted: int
    """Items between `first` and `last`, left out."""
    whole: str
    """How to have them all."""


def summarised(
    answer: Mapping[str, Any], paths: tuple[Path, ...], whole: str
) -> tuple[dict[str, Any], dict[str, int]]:
    """`answer` (the route's decoded JSON) with every list at `paths` longer than `LONGEST` items
    replaced by its `Summarised` form (as JSON; `whole` says how to have all its items), and the
    JSON Pointer of each list cut with its length. `answer` itself is left as it was."""
    out: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(answer))  # a copy to cut
    counts: dict[str, int] = {}

    def cut(holder: Any, path: Path, pointer: str) -> None:
        step, rest = path[0], path[1:]
        if step == EACH:
            for steps, child in each(holder):
                cut(child, rest, f"{pointer}/{steps}")
            return
        if not isinstance(holder, dict) or step not in holder:
            return
        if rest:
            cut(holder[step], rest, f"{pointer}/{escaped(step)}")
            return
        items = holder[step]
        if isinstance(items, list) and len(items) > LONGEST:
            counts[f"{pointer}/{escaped(step)}"] = len(items)
            # The kept items themselves (not copies): a list within them is cut next, in place.
            kept = Summarised(
                count=len(items),
                first=items[:KEPT],
                last=items[-KEPT:],
                omitted=len(items) - 2 * KEPT,
                whole=f"{len(items) - 2 * KEPT} items omitted: {whole}",
            )
            holder[step] = {name: getattr(kept, name) for name in kept.__struct_fields__}

    for path in paths:
        cut(out, path, "")
    return out, counts


def is_summarised(value: Any) -> bool:
    """Whether `value` is a `Summarised` list as an answer holds it (JSON)."""
    return isinstance(value, dict) and set(value) == set(Summarised.__struct_fields__)


def each(value: Any) -> list[tuple[str, Any]]:
    """What `*` steps to in `value`, each with its JSON Pointer step(s) from `value` (RFC 6901): a
    list's items, the items a `Summarised` list keeps (`first/0`, `last/2`), an object's values."""
    if isinstance(value, list):
        return [(str(index), item) for index, item in enumerate(value)]
    if is_summarised(value):
        return [
            (f"{part}/{index}", item) for part in ("first", "last") for index, item in enumerate(value[part])
        ]
    if isinstance(value, dict):
        return [(escaped(key), item) for key, item in value.items()]
    return []


def escaped(key: str) -> str:
    """A key as a JSON Pointer writes it (RFC 6901: `~` as `~0`, `/` as `~1`)."""
    return key.replace("~", "~0").replace("/", "~1")
