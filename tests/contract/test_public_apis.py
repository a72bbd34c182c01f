"""The service uses Litestar through its public API alone (issue 79, item 4): no module imports a
private one (`litestar._asgi`, `litestar._openapi`, `litestar.middleware._internal`), whose names and
behaviour may change in any release. The one-pass layer answers its refusals through the app's own
exception handler (`serve.failures.answering_failures`) and checks a Host header itself."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _packages() -> list[Path]:
    """The service's packages, import-linter's root packages (the seal kit and the client are
    workspace members, under `*/src`)."""
    names = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    return [ROOT / name if (ROOT / name).is_dir() else next(ROOT.glob(f"*/src/{name}")) for name in names]


def _private(module: str) -> bool:
    return module.split(".")[0] == "litestar" and any(part.startswith("_") for part in module.split(".")[1:])


def _imported(node: ast.AST) -> list[str]:
    """What an import statement names: its modules, and for `from m import n` each `m.n` (a module
    imported by name, `from litestar import _asgi`)."""
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return []


def test_no_module_imports_a_private_litestar_module() -> None:
    paths = sorted(path for package in _packages() for path in package.rglob("*.py"))
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} {name}"
        for path in paths
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for name in _imported(node)
        if _private(name)
    ]
    assert not found, f"imports of Litestar's private modules: {found}"
    assert len(paths) > 300 and any(path.match("serve/front.py") for path in paths)
    assert _private("litestar._asgi.utils") and _private("litestar.middleware._internal.exceptions")
    assert _imported(ast.parse("from litestar import _asgi").body[0]) == ["litestar", "litestar._asgi"]
    assert not _private("litestar.exceptions")
