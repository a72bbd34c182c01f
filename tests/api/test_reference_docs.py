"""docs/reference.md is generated from the declarations and current; the docs stay inside the repo."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.main import main as cli
from serve.app import MOUNTED_ENDPOINTS
from serve.docgen import reference
from serve.endpoints import endpoints

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return reference.current_document()


def sections(text: str) -> dict[str, str]:
    """`GET /path` -> the text of its section."""
    parts = re.split(r"^### `([A-Z]+ [^`]+)`$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_reference_md_is_current(document: dict[str, Any]) -> None:
    expected = reference.reference_markdown(document)
    committed = reference.REFERENCE_PATH.read_text(encoding="utf-8")
    assert committed == expected, "docs/reference.md is stale: run `just reference` and commit it"


def test_reference_lists_every_operation_with_its_id_group_parameters_and_fields(
    document: dict[str, Any],
) -> None:
    by_operation = sections(reference.reference_markdown(document))
    operations = [(p, m, op) for p, item in document["paths"].items() for m, op in item.items()]
    assert sorted(by_operation) == sorted(f"{m.upper()} {p}" for p, m, _ in operations)
    registry_ids = set()
    for path, method, operation in operations:
        section = by_operation[f"{method.upper()} {path}"]
        endpoint_id = operation.get("x-registry-id")
        if endpoint_id is not None:
            registry_ids.add(endpoint_id)
            assert f"| Registry id | `{endpoint_id}` |" in section
            assert f"| Group | `{endpoints()[endpoint_id].group}` |" in section
        for param in operation["parameters"]:
            row = next(line for line in section.splitlines() if line.startswith(f"| `{param['name']}` |"))
            default = param["schema"].get("default")
            if default is not None:
                assert f"`{default}`".lower() in row.lower(), row
            if "maximum" in param["schema"]:
                assert f"{param['schema']['minimum']}..{param['schema']['maximum']}" in row, row
        schema = operation["responses"]["200"]["content"]
        for content in schema.values():
            for field in reference.field_rows(document, content["schema"]):
                assert f"| `{field.path}` |" in section, (endpoint_id, field.path)
    assert registry_ids == set(MOUNTED_ENDPOINTS)


def figure_paths(
    document: dict[str, Any], schema: dict[str, Any], prefix: str = ""
) -> Iterator[tuple[str, str]]:
    """(path, component) of every field of a response that is a figure object, walked from the schema."""
    ref = schema.get("$ref") or next((a["$ref"] for a in schema.get("anyOf", ()) if "$ref" in a), None)
    name = ref.rsplit("/", 1)[-1] if ref else None
    node = document["components"]["schemas"][name] if name else schema
    if name in reference.FIGURE_OBJECTS:
        yield prefix.removesuffix("."), name
        return
    if prefix.count(".") > reference.MAX_DEPTH:
        return
    for key, prop in node.get("properties", {}).items():
        yield from figure_paths(document, prop, f"{prefix}{key}.")
    if "items" in node:
        yield from figure_paths(document, node["items"], prefix.removesuffix(".") + "[].")


def test_a_route_lists_under_each_figure_only_the_keys_any_figure_may_carry(document: dict[str, Any]) -> None:
    """The keys of particular figures (`trials` of the deflated Sharpe ratio, `deprecated` of
    `sharpe`, `sr_benchmark` of the PSR) were listed under every figure of every route, about 4,000
    rows naming keys those answers never hold (issue 65, item 6); they are listed once, in the
    figure objects' section, and each route lists under a figure only what any figure may carry."""
    text = reference.reference_markdown(document)
    routes, figure_objects = text.split('<a id="figure-objects"></a>')
    by_operation = sections(routes)
    schemas = document["components"]["schemas"]
    for component, common in reference.FIGURE_OBJECTS.items():
        assert re.search(rf"^### `{component}`", figure_objects, flags=re.M), component
        particular = set(schemas[component]["properties"]) - set(common)
        assert particular, component
        for key in particular:
            assert re.search(rf"^\| `{key}` \| .* \| particular figures \|", figure_objects, flags=re.M), key
    figures = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            section = by_operation[f"{method.upper()} {path}"]
            for content in operation["responses"]["200"].get("content", {}).values():
                for field, component in figure_paths(document, content["schema"]):
                    figures += 1
                    assert f"| `{field}.value` |" in section, (path, field)
                    for key in set(schemas[component]["properties"]) - set(
                        reference.FIGURE_OBJECTS[component]
                    ):
                        assert f"| `{field}.{key}` |" not in section, (path, field, key)
    assert figures > 200


def test_field_rows_carry_type_nullability_and_meaning() -> None:
    document = {
        "components": {"schemas": {"Row": {"type": "object", "properties": {"d": {"type": "string"}}}}},
    }
    schema = {
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {"type": "array", "items": {"$ref": "#/components/schemas/Row"}},
            "when": {"type": ["string", "null"], "format": "date", "description": "Trading day."},
            "side": {"type": "string", "enum": ["long", "short"]},
        },
    }
    assert [tuple(row) for row in reference.field_rows(document, schema)] == [
        ("data", "array of Row", "", "", False, ""),
        ("data[].d", "string", "", "", False, ""),
        ("when", "string (date), nullable", "", "May be absent.", False, "Trading day."),
        ("side", "string", "", "May be absent.", False, "one of `long`, `short`"),
    ]


def test_field_rows_split_a_documented_field_into_its_columns() -> None:
    """A property documented from its field's `doc` shows its unit, null and absence and raw
    flag in their own columns, and its meaning without them."""
    from schemas.bodies.formats import X_ABSENT, X_NULL, X_RAW_ONLY, X_UNIT
    from serve.openapi.annotations import field_description

    prop = {
        "type": ["number", "null"],
        "description": field_description("Unconditioned score.", "points", "Null when unscored.", None, True),
        X_UNIT: "points",
        X_NULL: "Null when unscored.",
        X_RAW_ONLY: True,
    }
    absent = {
        "type": "string",
        "description": field_description("Book served.", None, None, "Book routes only.", False),
        X_ABSENT: "Book routes only.",
    }
    schema = {"type": "object", "properties": {"raw_score": prop, "book": absent}}
    assert [tuple(row) for row in reference.field_rows({}, schema)] == [
        ("raw_score", "number, nullable", "points", "Null when unscored.", True, "Unconditioned score."),
        ("book", "string", "", "Book routes only.", False, "Book served."),
    ]


def test_check_reports_a_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reference.md"
    out.write_text("# stale\n")
    assert cli(["reference", "--out", str(out), "--check"]) == 1
    assert "just reference" in capsys.readouterr().err
    assert cli(["reference", "--out", str(out)]) == 0
    assert cli(["reference", "--out", str(out), "--check"]) == 0


LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|^\[[^\]]+\]:\s*(\S+)", re.M)
CODE_PATH = re.compile(r"`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:md|py|toml|sh|ya?ml|cfg|ini))`")
"""A source or document file named in code style (`serve/app.py`, `docs/lake.md`); not a URL
path (`/openapi.json`) nor a file of the lake (`exports/index.json`, `.parquet`)."""
RUNTIME = "var/"
"""What the commands write at run time (`var/keys.sqlite3`, `var/signing.key`; gitignored)."""


def inside_repo(doc: Path, target: str) -> bool:
    base = ROOT if target.startswith("/") else doc.parent
    path = (base / target.lstrip("/")).resolve()
    return path.is_relative_to(ROOT) and path.exists()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_point_only_inside_the_repository(doc: Path) -> None:
    """Every relative link and every file named in code style exists in this repository: a clone
    is self-contained (no spec file, design note or path on someone's machine it does not hold)."""
    text = doc.read_text(encoding="utf-8")
    outside = []
    for match in LINK.finditer(text):
        target = (match.group(1) or match.group(2)).split("#", 1)[0]
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):  # an anchor, http:, mailto:
            continue
        if not inside_repo(doc, target):
            outside.append(target)
    for match in CODE_PATH.finditer(text):
        name = match.group(1)
        if name.startswith(RUNTIME):
            continue
        if not (inside_repo(doc, name) or (ROOT / name).exists()):
            outside.append(name)
    assert not outside, f"{doc.relative_to(ROOT)} points outside the repository: {outside}"


def test_llms_txt_is_current(document: dict[str, Any]) -> None:
    from serve.doc_blocks.llms import llms_text
    from serve.model_context.tools import tool_hashes

    committed = reference.LLMS_PATH.read_text(encoding="utf-8")
    assert committed == llms_text(document, tool_hashes()), (
        "docs/llms.txt is stale: run `just reference` and commit it"
    )
    for endpoint_id, endpoint in endpoints().items():
        assert f"`{endpoint_id}`" in committed and endpoint.summary in committed


def test_llms_txt_covers_every_surface(document: dict[str, Any]) -> None:
    """Issue 47, item 6: `/llms.txt` named the routes and MCP but not Delta Sharing, the event feed,
    the stream, webhooks or the signed downloads an agent meets."""
    from serve.doc_blocks.llms import llms_text
    from serve.model_context.tools import tool_hashes

    text = llms_text(document, tool_hashes())
    for surface in ("/mcp", "/delta-sharing", "/v1/events/stream", "webhook-signature", "/downloads/", "/ui"):
        assert surface in text, surface
