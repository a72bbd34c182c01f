"""`alpha-results --help` and the operator commands import only what they use.

Not a timed test (the machine is shared): it checks the cause of a slow start instead, that the
numerical and columnar stacks (numpy, scipy, pyarrow, duckdb, polars) and the server (litestar,
uvicorn) are not imported. Their import alone took 3-5 s; the measured start is in
docs/benchmarks.md ("CLI start").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numpy", "scipy", "pyarrow", "duckdb", "polars", "litestar", "uvicorn", "pipeline.demo.engine")
PROBE = """
import json, sys
from serve.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def imported_by(argv: list[str], tmp_path: Path) -> set[str]:
    env = {"ALPHA_RESULTS_KEYSTORE_URL": f"sqlite:///{tmp_path}/keys.sqlite3", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env, timeout=60
    )
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["keys", "--help"],
        ["accounts", "create", "--email", "a@example.com"],
        ["keys", "list", "--user", "a@example.com"],
    ],
)
def test_the_operator_commands_import_no_heavy_stack(argv: list[str], tmp_path: Path) -> None:
    modules = imported_by(argv, tmp_path)
    assert not {m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY}
