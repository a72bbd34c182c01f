"""Fixtures shared by every test folder: the small demo corpus, its lake, and backend gating."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.private_redis import private_redis  # noqa: F401 - outage tests never touch the shared Redis
from tests.s3_server import s3_bucket, s3_demo_lake, s3_endpoint  # noqa: F401 - one moto per session

REQUIRE_BACKENDS = os.environ.get("ALPHA_RESULTS_REQUIRE_BACKENDS") == "1"


def backend_unavailable(reason: str) -> None:
    """Skip a test whose backend is absent; on CI (ALPHA_RESULTS_REQUIRE_BACKENDS=1) fail instead."""
    if REQUIRE_BACKENDS:
        pytest.fail(f"{reason} [ALPHA_RESULTS_REQUIRE_BACKENDS=1 makes this a failure]")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def demo_seals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo engine's small corpus: every state the spec names, written once per session."""
    from pipeline.demo.corpus import write_corpus

    out = tmp_path_factory.mktemp("demo_seals")
    write_corpus(out, size="small", seed=7)
    return out


@pytest.fixture(scope="session")
def demo_lake(tmp_path_factory: pytest.TempPathFactory, demo_seals: Path) -> Path:
    """The small corpus built into a local lake."""
    from pipeline.build import build_many

    lake = tmp_path_factory.mktemp("demo_lake")
    seals = sorted(str(p) for p in demo_seals.iterdir() if (p / "manifest.json").exists())
    outcomes = build_many(seals, str(lake), jobs=2)
    refused = [o for o in outcomes if o.status == "refused"]
    assert not refused, refused
    return lake
