"""Seals and lakes shared by the pipeline tests: built once per session, copied when mutated."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from pipeline.build import build_many
from tests.pipeline.factory import write_benchmark_seal, write_factory_seal


@pytest.fixture(scope="session")
def factory_seal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_factory_seal(tmp_path_factory.mktemp("factory") / "Test_factory")


@pytest.fixture(scope="session")
def benchmark_seal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_benchmark_seal(tmp_path_factory.mktemp("benchmark") / "benchmark_SPY")


@pytest.fixture(scope="session")
def factory_lake(tmp_path_factory: pytest.TempPathFactory, factory_seal: Path, benchmark_seal: Path) -> Path:
    lake = tmp_path_factory.mktemp("factory_lake")
    outcomes = build_many([str(factory_seal), str(benchmark_seal)], str(lake), jobs=1)
    assert [o.status for o in outcomes] == ["published", "published"]
    return lake


def copy_seal(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


CLI = str(Path(sys.executable).with_name("alpha-results"))
"""The `alpha-results` command of this environment: seals built by it run as an operator's do."""


def build_command(seals: Sequence[Path], lake: Path, jobs: int | str = 1) -> list[str]:
    return [CLI, "build", *map(str, seals), "--lake", str(lake), "--jobs", str(jobs)]


def cli_build(
    seals: Sequence[Path], lake: Path, jobs: int | str = 1, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`alpha-results build SEALS --lake LAKE --jobs N` in a child process, its output captured."""
    return subprocess.run(build_command(seals, lake, jobs), capture_output=True, text=True, timeout=timeout)
