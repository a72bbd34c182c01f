"""Seal text in tool results, named as untrusted data (issue 48: a prompt-injection sentence in a
seal's tldr came back in a tool result with nothing to tell it from the server's own words).

A research team writes much of what the routes serve: an alpha's name and tldr, its whole written
description, its sectors, its run's source id and engine version. The build bounds that text but
cannot vet it, and an agent's model reads tool results in the same context as its instructions.
So each result names the values a seal supplied: `_meta["alpha-results/untrusted"]` lists the
JSON Pointers (RFC 6901) into `structuredContent` of every such value present (the first text
block, the same JSON, is flagged too), and a host can quote, fence or drop them before its model
reads them. Seal text goes nowhere else: the tools' descriptions, the server's instructions and
the prompts are written from the declarations and the prompts' own text.

Which values are seal text is declared once, on the response bodies (`SEAL_TEXT`, `x-seal-text` in
the OpenAPI document): here each tool's answer type is walked for the paths of the marked fields,
once, and each answer for the values at them. A marked value that is an object or a list is named
whole: every string within it (keys included) is the seal's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schemas.bodies.formats import X_SEAL_TEXT
from serve.model_context.summary import EACH, Path, each, escaped, walk_type


def seal_text_paths(answer_type: msgspec.inspect.Type) -> tuple[Path, ...]:
    """The paths of the fields marked `SEAL_TEXT` in `answer_type` (an endpoint's declared answer,
    `Single[Body]`, `Collection[Row]`, ..., as `msgspec.inspect` sees it: the caller inspects
    every answer in one `multi_type_info` call, which resolves each Struct they share once), in
    declaration order."""
    found: dict[Path, None] = {}

    def visit(kind: msgspec.inspect.Type, path: Path) -> bool:
        if isinstance(kind, msgspec.inspect.Metadata) and (kind.extra_json_schema or {}).get(X_SEAL_TEXT):
            found[path] = None
            return False  # named whole: every string within it is the seal's
        return True

    walk_type(answer_type, visit)
    return tuple(found)


def untrusted_pointers(paths: tuple[Path, ...], answer: Any) -> list[str]:
    """The JSON Pointer of every value at `paths` in `answer` that holds text (null and absent
    values hold none)."""
    pointers: list[str] = []

    def collect(value: Any, path: Path, pointer: str) -> None:
        if not path:
            if value is not None and not isinstance(value, bool | int | float):
                pointers.append(pointer)
            return
        step, rest = path[0], path[1:]
        if step == EACH:
            # A list's items, or those a summarised list keeps (serve.model_context.summary), or an object's values.
            for steps, item in each(value):
                collect(item, rest, f"{pointer}/{steps}")
        elif isinstance(value, dict) and step in value:
            collect(value[step], rest, f"{pointer}/{escaped(step)}")

    for path in paths:
        collect(answer, path, "")
    return pointers
