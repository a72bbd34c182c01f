"""Real servers shared by the tests that only read them, one of each per xdist worker (issue 33,
item 15); registered for every folder by tests/conftest.py.

Each `alpha-results serve` costs its worker processes' start (about 10 s of imports each on a quiet
machine, several times that on a busy one), so tests that need nothing of their own (no lake or key
store they change, no output but their own requests' lines) share one:

- `shared_server`: the demo lake, one worker, the default settings, a SQLite key store that each
  test adds its keys to (the server reads the store on every request);
- `short_head_server`: an empty lake, a 1.5 s request head timeout (the connection tests);
- `two_workers`: the demo lake, `--workers 2`, a malloc arena cap of 3 (what each worker does).

Tests of a setting, a fault or a restart start their own (`tests.support.serve_stack.serving`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.ops.keys import IssuedKey


@dataclass
class SharedServer:
    port: int
    output: list[str]
    """Every line the server wrote so far (start-up lines, then an access line per request)."""
    keystore_url: str

    def key(self) -> IssuedKey:
        """A new member key (an account of its own) in the server's key store."""
        from access import open_store
        from tests.ops.keys import issue_key

        store = open_store(self.keystore_url)
        try:
            return issue_key(store)
        finally:
            store.close()

    def lines_from(self, mark: int) -> list[str]:
        """The lines written since `mark` (a `len(output)` taken before a test's requests)."""
        return list(self.output[mark:])


HEAD_TIMEOUT = 1.5
"""The head timeout of `short_head_server` (seconds): short, so the tests of it are quick."""


@pytest.fixture(scope="session")
def short_head_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """A server over an empty lake (health answers `degraded`, which is 200) with the default
    connection limits but a `HEAD_TIMEOUT` head timeout: the connection tests that need nothing
    else of it share it (tests/e2e/test_connection_limits.py, test_refusal_contract.py)."""
    from tests.support.serve_stack import serving

    folder = tmp_path_factory.mktemp("short_head_server")
    (folder / "lake").mkdir()
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    env = {"ALPHA_RESULTS_REQUEST_HEAD_TIMEOUT_SECONDS": str(HEAD_TIMEOUT)}
    with serving(folder / "lake", keystore_url, workers=1, env=env) as (port, output):
        yield SharedServer(port, output, keystore_url)


@pytest.fixture(scope="session")
def shared_server(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    from access import open_store
    from tests.support.serve_stack import serving

    keystore_url = f"sqlite:///{tmp_path_factory.mktemp('shared_server')}/keys.sqlite3"
    open_store(keystore_url).close()  # there from the start: health ok, keys found at once
    with serving(demo_lake, keystore_url, workers=1) as (port, output):
        yield SharedServer(port, output, keystore_url)


@pytest.fixture(scope="session")
def two_workers(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """`--workers 2` over the demo lake with a malloc arena cap of 3 (not the default 2, so a test
    sees the setting read): the tests of what each worker process does share it."""
    from access import open_store
    from tests.support.serve_stack import serving

    keystore_url = f"sqlite:///{tmp_path_factory.mktemp('two_workers')}/keys.sqlite3"
    open_store(keystore_url).close()
    env = {"ALPHA_RESULTS_MALLOC_ARENAS": "3"}
    with serving(demo_lake, keystore_url, workers=2, env=env) as (port, output):
        yield SharedServer(port, output, keystore_url)
