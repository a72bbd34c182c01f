"""The service uses Litestar through its public API alone (issue 79, item 4): no module imports a
private one (`litestar._asgi`, `litestar._openapi`, `litestar.middleware._internal`), whose names and
behaviour may change in any release. The one-pass layer answers its refusals through the app's own
exception handler (`serve.failures.answering_failures`) and checks a Host header itself."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = {".venv", ".uv", "node_modules", "tests", ".git"}
"""Folders holding no code of the service (the environment, the tests)."""


def _private(module: str) -> bool:
    return module.split(".")[0] == "litestar" and any(part.startswith("_") for part in module.split(".")[1:])


def test_no_module_imports_a_private_litestar_module() -> None:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if OUTSIDE.isdisjoint(path.relative_to(ROOT).parts):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = (
                    [node.module or ""]
                    if isinstance(node, ast.ImportFrom)
                    else [alias.name for alias in node.names]
                    if isinstance(node, ast.Import)
                    else []
                )
                found += [
                    f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names if _private(name)
                ]
    assert not found, f"imports of Litestar's private modules: {found}"
    assert _private("litestar._asgi.utils") and _private("litestar.middleware._internal.exceptions")
    assert not _private("litestar.exceptions")
