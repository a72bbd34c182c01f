"""The command-line interface is its own package, cli/: the console script and every command's
module live there, it imports `serve`, `pipeline`, the packages that own keys (`access`), webhooks
(`delivery`) and the settings (`core`), and the seal kit (`alpha_results_seal`, whose own command
`seal check` is and whose demo engine `demo` runs) only of the project's packages (never
`analytics`, `records`, `datasets` or `schemas` directly), and no package of the service imports it
(cli/__init__.py, docs/development.md "Layers")."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from cli.main import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
SERVICE_PACKAGES = tuple(
    package
    for package in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]["root_packages"]
    if package != "cli"
)
"""The project's packages besides cli/, as import-linter knows them."""
CLI_MAY_IMPORT = ("serve", "pipeline", "delivery", "access", "core", "alpha_results_seal")


def imported_modules(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_console_script_and_every_command_live_in_cli() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["alpha-results"] == "cli.main:main"
    modules = {module for module, _ in COMMANDS.values()}
    assert {"cli.demo", "cli.lake", "cli.serve", "cli.admin", "cli.reference"} <= modules
    assert all(
        module.startswith("cli.") and (ROOT / f"{module.replace('.', '/')}.py").exists() for module in modules
    )


def test_no_service_package_imports_cli() -> None:
    offending = [
        (str(path.relative_to(ROOT)), name)
        for package in SERVICE_PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for name in imported_modules(path)
        if name == "cli" or name.startswith("cli.")
    ]
    assert offending == []


def test_cli_imports_serve_and_pipeline_only() -> None:
    """Every import of a command module, those deferred into a handler included: a command parses
    its arguments and calls the package that owns the work, never reaching past it."""
    offending = [
        (str(path.relative_to(ROOT)), name)
        for path in sorted((ROOT / "cli").rglob("*.py"))
        for name in imported_modules(path)
        if name.split(".")[0] in SERVICE_PACKAGES and name.split(".")[0] not in CLI_MAY_IMPORT
    ]
    assert offending == []


def test_lint_imports_forbids_cli_the_lower_layers() -> None:
    """`just lint` holds the rule too: a `forbidden` contract beside the layers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = project["tool"]["importlinter"]["contracts"]
    assert any(
        contract["type"] == "forbidden"
        and contract["source_modules"] == ["cli"]
        and set(contract["forbidden_modules"]) == set(SERVICE_PACKAGES) - set(CLI_MAY_IMPORT)
        for contract in contracts
    )
