from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.demo.corpus import write_corpus


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("seals_small")
    write_corpus(out, size="small", seed=7)
    return out
