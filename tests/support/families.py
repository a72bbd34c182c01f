"""Two small trial families (8 variants of the demo's planted family, 10 of its noise family) in a
lake built once per run (`families_lake`, a fixture), and a family's daily returns."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.analytics import reference as ref
from tests.conftest import built_once

PLANTED = [f"Test_family_planted_{i:02d}" for i in range(1, 9)]
NOISE = [f"Test_family_noise_{i:02d}" for i in range(1, 11)]


def family_returns(lake: ref.Lake, members: list[str]) -> pd.DataFrame:
    """The members' daily long_short returns on the sessions every one of them has, by date."""
    frame = pd.DataFrame({alpha: lake.returns(alpha, "long_short", (None, None)) for alpha in members})
    return frame.dropna().sort_index()


@pytest.fixture(scope="session")
def families_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from alpha_results_seal.demo.corpus import write_corpus
    from pipeline.build import build_many

    def build(lake: Path) -> None:
        seals = lake / "seals"  # inside the kept folder: rebuilt with it, never left half-written beside it
        write_corpus(seals, size="small", seed=7, only=[*PLANTED, *NOISE, "benchmark_SPY"])
        outcomes = build_many(sorted(str(p) for p in seals.iterdir()), str(lake / "lake"), jobs=2)
        assert [o.status for o in outcomes] == ["published"] * len(PLANTED + NOISE + ["SPY"]), outcomes

    return built_once(tmp_path_factory, "families_lake_8_10", build) / "lake"  # the name says which variants
