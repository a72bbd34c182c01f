"""What test modules share lives in tests/support/ (issue 79, item 7): no test module imports
another, whose fixtures and tests would then be collected twice or in the wrong module, and whose
helpers a reader could not tell from its tests."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _test_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "tests" and parts[-1].startswith("test_")


def test_no_test_module_imports_another() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found += [
                f"{path.relative_to(TESTS)}:{node.lineno} {name}" for name in names if _test_module(name)
            ]
    assert not found, f"test modules imported as libraries (move what they share to tests/support/): {found}"
    assert _test_module("tests.e2e.test_serve_stack") and not _test_module("tests.support.serve_stack")
