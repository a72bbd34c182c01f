"""Seals and lakes shared by the pipeline tests: built once per session, copied when mutated."""

from __future__ import annotations

import shutil
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
