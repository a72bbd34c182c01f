"""The end-to-end tests share the API tests' small demo lake."""

from tests.api.conftest import demo_lake  # noqa: F401 - re-exported fixture
