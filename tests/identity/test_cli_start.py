"""`alpha-results --help`, every command's and sub-command's `--help` and the operator commands
import only what they use.

Not a timed test (the machine is shared): it checks the cause of a slow start instead, that the
numerical and columnar stacks (numpy, scipy, pandas, pyarrow, duckdb, polars) and the server
(litestar, uvicorn) are not imported. Their import alone took 3-5 s (13 s for `build --help` on a
loaded machine); the measured start is in docs/benchmarks.md ("CLI start").
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import COMMANDS, build_parser

HEAVY = (
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "duckdb",
    "polars",
    "litestar",
    "uvicorn",
    "alpha_results_seal.demo.engine",
)
PROBE = """
import json, sys
from cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps(code or 0), file=sys.stderr)
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def imported_by(argv: list[str], tmp_path: Path) -> set[str]:
    env = {"ALPHA_RESULTS_KEYSTORE_URL": f"sqlite:///{tmp_path}/keys.sqlite3", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, timeout=60
    )
    *_, code, modules = result.stderr.strip().splitlines()
    assert json.loads(code) == 0, result.stderr  # the command did its work, not an error path
    return set(json.loads(modules))


def a_key(tmp_path: Path) -> str:
    """An account `a@example.com` with one key in the test's store; the key's id."""
    from cli.main import main

    store = ["--keystore", f"sqlite:///{tmp_path}/keys.sqlite3"]
    assert main(["accounts", *store, "create", "--email", "a@example.com"]) == 0
    created = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "keys",
            *store,
            "create",
            "--user",
            "a@example.com",
            "--name",
            "k",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    key_id: str = json.loads(created.stdout)["key_id"]
    return key_id


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["keys", "--help"],
        ["accounts", "show", "a@example.com"],
        ["keys", "list", "--user", "a@example.com"],
        ["keys", "create", "--user", "a@example.com", "--name", "second"],
        ["keys", "grant", "{key_id}", "--alphas", "all"],
        ["keys", "set-limits", "{key_id}", "--per-second", "50"],
    ],
)
def test_the_operator_commands_import_no_heavy_stack(argv: list[str], tmp_path: Path) -> None:
    key_id = a_key(tmp_path)
    modules = imported_by([arg.format(key_id=key_id) for arg in argv], tmp_path)
    assert not {m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY}


def every_help() -> list[list[str]]:
    """`--help` of the script, of every command and of every sub-command, read from the parser."""

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> list[list[str]]:
        found = [[*path, "--help"]]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found += walk(sub, [*path, name])
        return found

    found = [["--help"]]
    for command in COMMANDS:
        found += next(
            walk(action.choices[command], [command])
            for action in build_parser(command)._actions
            if isinstance(action, argparse._SubParsersAction)
        )
    return found


HELPS = every_help()


def test_every_command_and_sub_command_is_probed() -> None:
    probed = {" ".join(argv) for argv in HELPS}
    assert {"demo --help", "build --help", "lake show --help", "lake index --help", "serve --help"} <= probed
    assert {"keys create --help", "accounts set-ceiling --help", "reference --help"} <= probed


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_every_help_imports_no_heavy_stack(argv: list[str], tmp_path: Path) -> None:
    modules = imported_by(argv, tmp_path)
    assert not {m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY}


def test_a_build_imports_no_lazily_imported_module() -> None:
    """A build or publish process (`alpha-results build`, the demo's history) computes no p-value
    and fits no decay: it never imports `analytics.LAZY_MODULES` (scipy's stats and optimisers,
    about a second), which only a server worker imports, before it is ready (serve/warm.py).
    `analytics.decay` once imported scipy.optimize at its top, and every build recording its
    events paid for it."""
    from analytics import LAZY_MODULES

    probe = (
        "import json, sys\n"
        "import pipeline.build, pipeline.build_events, pipeline.publish, pipeline.demo_history\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    modules = set(json.loads(result.stdout.strip().splitlines()[-1]))
    assert "pipeline.build_events" in modules and "analytics.decay" in modules  # the probe reached them
    assert not modules & set(LAZY_MODULES)
