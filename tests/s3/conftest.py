"""The app over the S3 demo lake, for the tests that read exports and shares from the object store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.settings import Settings
from serve.app import create_app
from tests.callers import authenticator_for
from tests.support.exports import TEST_CALLERS


@pytest.fixture
def s3_client(s3_demo_lake: str, tmp_path: Path) -> Iterator[TestClient[Any]]:
    settings = Settings(lake=s3_demo_lake, environment="test", serving_cache_dir=str(tmp_path / "cache"))
    app = create_app(settings, authenticate=authenticator_for(TEST_CALLERS), limiter=None)
    with TestClient(app=app) as client:
        yield client
