"""The seal kit as a research team installs it: ALONE, in a fresh virtual environment (uv venv +
uv pip install of sealkit/, with its pandas extra, and separately with its polars extra), no server
package in it, and in the pandas one no polars either: the rules are pyarrow.compute, polars is
an extra only for handing the builders polars frames. The team's engine (tests/sealkit/team_engine.py, run by that environment's Python
from outside the checkout) writes a seal from its frames with the builders, the kit's own command
checks it (exit 0; a seal with two mistakes is refused with both in one run, exit 1), and the
server's `alpha-results build` publishes it: the week page read back from the lake carries the
frames' scores, their ranks and cohort sizes, computed here with pandas.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from alpha_results_seal.demo.corpus import write_corpus
from cli.main import main
from datasets import answers
from datasets.reader import LakeReader
from schemas.query import WeekQuery
from tests.sealkit.frames import team_frames

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SEALKIT = REPO / "sealkit"
SERVER_PACKAGES = (
    "litestar",
    "uvicorn",
    "duckdb",
    "psycopg",
    "redis",
    "scipy",
    "serve",
    "pipeline",
    "datasets",
)
DEMO_ALPHA = "momentum_12_1"


def uv() -> str | None:
    """uv as ./dev fetched it (.uv/ of this checkout, as in CI, or of the main checkout of a git
    worktree), else $ALPHA_RESULTS_UV or uv on the path; None: the venv is made by `python -m venv`
    and pip instead (slower, same result)."""
    common = subprocess.run(
        ["git", "rev-parse", "--git-common-dir"], cwd=REPO, capture_output=True, text=True
    )
    main_checkout = (REPO / common.stdout.strip()).resolve().parent if common.returncode == 0 else REPO
    for candidate in (
        str(REPO / ".uv" / "bin" / "uv"),
        str(main_checkout / ".uv" / "bin" / "uv"),
        os.environ.get("ALPHA_RESULTS_UV"),
        shutil.which("uv"),
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def run(*argv: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["UV_PYTHON_DOWNLOADS"] = "never"
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fresh virtual environment per frame library, each holding the kit alone."""
    made = {}
    for library in ("pandas", "polars"):
        folder = tmp_path_factory.mktemp(f"venv-{library}")
        venv, tool = folder / "venv", uv()
        python = venv / "bin" / "python"
        if tool is not None:
            created = run(tool, "venv", "--python", sys.executable, venv, cwd=folder)
            install = [tool, "pip", "install", "--python", python]
        else:
            created = run(sys.executable, "-m", "venv", venv, cwd=folder)
            install = [python, "-m", "pip", "install", "--quiet"]
        assert created.returncode == 0, created.stderr
        installed = run(*install, f"{SEALKIT}[{library}]", cwd=folder)
        assert installed.returncode == 0, installed.stderr
        made[library] = venv
    return made


@pytest.fixture(scope="module")
def demo_seal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("demo"), size="small", seed=7, only=[DEMO_ALPHA])[0]


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_installed_alone_the_kit_writes_a_seal_the_server_publishes(
    library: str, venvs: dict[str, Path], demo_seal: Path, tmp_path: Path
) -> None:
    venv = venvs[library]
    python = venv / "bin" / "python"
    probe = "import importlib.util as u, sys; print(' '.join(m for m in sys.argv[1:] if u.find_spec(m)))"
    found = run(python, "-c", probe, *SERVER_PACKAGES, "pandas", "polars", "alpha_results_seal", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    # no server package; the frame library asked for and not the other: [pandas] brings no polars
    expected = {"pandas": "pandas alpha_results_seal", "polars": "polars alpha_results_seal"}
    assert found.stdout.split() == expected[library].split()

    alpha_id = f"Test_kit_{library}"
    frames = team_frames(demo_seal, tmp_path / "frames", alpha_id)
    engine = shutil.copy(Path(__file__).with_name("team_engine.py"), tmp_path / "team_engine.py")
    seal = tmp_path / "seals" / alpha_id
    written = run(python, engine, frames, seal, library, cwd=tmp_path)
    assert written.returncode == 0, written.stdout + written.stderr
    assert written.stdout.startswith(f"OK         {alpha_id}")

    checked = run(venv / "bin" / "alpha-results-seal", "check", seal, "--json", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    document = json.loads(checked.stdout)
    assert (
        document["ok"] and document["seals"][0]["broken"] == [] and document["seals"][0]["target"] == alpha_id
    )

    lake = tmp_path / "lake"
    assert main(["build", str(seal), "--lake", str(lake)]) == 0
    reader = LakeReader(str(lake), 60.0)
    build = reader.alpha(alpha_id)
    assert build is not None
    view = reader.view(build)
    decisions = pd.read_parquet(frames / "decisions.parquet")
    for day in sorted(decisions["date"].unique())[::20]:
        week = decisions[decisions["date"] == day]
        scored = week.dropna(subset=["score"])
        rank = scored["score"].rank(method="average", ascending=False)
        expected_rows = dict(zip(scored["symbol"], zip(scored["score"], rank, strict=True), strict=True))
        page = answers.week(view, WeekQuery(date=day, limit=1000), raw=False).page.rows
        served = {row["symbol"]: row for row in map(msgspec.to_builtins, page)}
        assert set(served) == set(week["symbol"])
        for symbol, (score, average_rank) in expected_rows.items():
            row = served[symbol]
            assert row["score"] == pytest.approx(score, rel=1e-12)
            assert row["average_rank"] == average_rank
            assert row["cohort_size"] == len(scored)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_two_mistakes_are_reported_in_one_run_of_the_kit_command(
    library: str, venvs: dict[str, Path], demo_seal: Path, tmp_path: Path
) -> None:
    venv = venvs[library]
    frames = team_frames(demo_seal, tmp_path / "frames", "Test_kit_broken")
    engine = shutil.copy(Path(__file__).with_name("team_engine.py"), tmp_path / "team_engine.py")
    seal = tmp_path / "Test_kit_broken"
    assert run(venv / "bin" / "python", engine, frames, seal, library, cwd=tmp_path).returncode == 0
    # mistake 1: a rebalance date twice; mistake 2: a symbol that is not a ticker
    rebalances = pq.read_table(seal / "rebalances.parquet")
    pq.write_table(pa.concat_tables([rebalances, rebalances.slice(0, 1)]), seal / "rebalances.parquet")
    positions = pq.read_table(seal / "positions" / "long_short.parquet")
    symbols = positions.column("symbol").to_pylist()
    symbols[0] = "NOT A TICKER"
    positions = positions.set_column(1, "symbol", pa.array(symbols, pa.string()))
    pq.write_table(positions, seal / "positions" / "long_short.parquet")

    checked = run(venv / "bin" / "alpha-results-seal", "check", seal, "--json", cwd=tmp_path)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    broken = json.loads(checked.stdout)["seals"][0]["broken"]
    assert [b["rule"] for b in broken] == ["symbols.ticker_pattern", "rebalances.unique_dates"]
    assert broken[0]["sample_rows"][0]["symbol"] == "NOT A TICKER"
    readable = run(venv / "bin" / "alpha-results-seal", "check", seal, cwd=tmp_path)
    assert readable.returncode == 1
    assert "symbols.ticker_pattern" in readable.stdout and "rebalances.unique_dates" in readable.stdout
    assert readable.stdout.rstrip().endswith("1 seal: 0 OK, 1 refused")
