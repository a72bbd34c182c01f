"""Every records test runs on both backends: a SQLite file and PostgreSQL (its own schema per test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from records.store import Records, open_records
from tests.identity.conftest import postgres_schema_url, store_url

__all__ = ["postgres_schema_url", "store_url"]


@pytest.fixture
def records(store_url: str) -> Iterator[Records]:
    opened = open_records(store_url)
    yield opened
    opened.close()
