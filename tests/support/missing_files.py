"""A lake of two alphas published once per session (`template_lake`, a fixture), and a copy of it
that a test may damage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.publish import publish_seal


@pytest.fixture(scope="session")
def template_lake(tmp_path_factory: pytest.TempPathFactory, versions: list[Path], other_seal: Path) -> Path:
    lake = tmp_path_factory.mktemp("missing_file_lake")
    for seal in (versions[0], other_seal):
        publish_seal(str(seal), str(lake))
    return lake


def lake_copy(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target
