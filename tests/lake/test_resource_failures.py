"""A worker out of descriptors or memory is the worker's problem, never a build's damage (issue 21).

EMFILE (and ENOMEM from a failed `mmap`) is injected while a build is being opened: that request
answers 503 `upstream_unavailable`, no build is reported damaged, the lake is not `down`, health
says `degraded` with the worker's reason, one ERROR names the figure that ran out, and the next
request is answered in full once the resource is back. The reader's open builds stay within
`max_open_builds`, whatever the number of alphas touched.
"""

from __future__ import annotations

import errno
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from litestar.testing import TestClient

from core.settings import Settings
from datasets import build_view
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.lake.conftest import ALPHA, FULL_REQUESTS, OTHER, comparable
from tests.support.missing_files import lake_copy
from tests.support.missing_files import template_lake as template_lake  # a fixture

HEADERS = {"Authorization": "Bearer plain"}


@pytest.fixture
def app_client(template_lake: Path, tmp_path: Path) -> Iterator[tuple[TestClient[Any], Any]]:
    lake = lake_copy(template_lake, tmp_path / "lake")
    settings = Settings(lake=str(lake), environment="test", lake_refresh_seconds=60, max_open_builds=1)
    app = create_app(settings, authenticate=fake_authenticate, limiter=None)
    with TestClient(app=app) as client:
        yield client, app.state["services"].reader


class Exhausted:
    """Makes opening a serving file fail with `code` while `on` (descriptors or maps)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
        self.on = False
        self.code = code
        real_open, real_map = os.open, pa.memory_map

        def failing_open(path: Any, *args: Any, **kwargs: Any) -> int:
            if self.on and code in (errno.EMFILE, errno.ENFILE):
                raise OSError(code, os.strerror(code), str(path))
            return real_open(path, *args, **kwargs)

        def failing_map(*args: Any, **kwargs: Any) -> Any:
            if self.on and code == errno.ENOMEM:  # mmap(2) failed: out of memory or maps
                raise OSError(code, f"Memory map failed: {os.strerror(code)}")
            return real_map(*args, **kwargs)

        monkeypatch.setattr(build_view.os, "open", failing_open)
        monkeypatch.setattr(build_view.pa, "memory_map", failing_map)


def health(client: TestClient[Any], reader: Any) -> dict[str, Any]:
    reader.refresh()
    client.app.state["health_monitor"].refresh()
    body: dict[str, Any] = client.get("/v1/health").json()
    return body


@pytest.mark.parametrize("code", [errno.EMFILE, errno.ENOMEM], ids=["EMFILE", "ENOMEM"])
def test_a_resource_failure_is_a_503_for_that_request_never_damage(
    app_client: tuple[TestClient[Any], Any],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    code: int,
) -> None:
    client, reader = app_client
    path = FULL_REQUESTS[0]  # every decision row: maps decisions.arrow
    before = client.get(path, headers=HEADERS)
    assert before.status_code == 200
    client.get(f"/v1/alphas/{OTHER}/books", headers=HEADERS)  # evicts ALPHA (max_open_builds=1)

    exhausted = Exhausted(monkeypatch, code)
    exhausted.on = True
    with caplog.at_level(logging.ERROR, logger="datasets.reader"):
        failed = [client.get(path, headers=HEADERS) for _ in range(3)]
    assert [r.status_code for r in failed] == [503] * 3
    assert {r.json()["error"]["code"] for r in failed} == {"upstream_unavailable"}
    errors = [r.getMessage() for r in caplog.records if r.name == "datasets.reader"]
    assert len(errors) == 1, errors  # once per episode, not per request
    assert "worker out of" in errors[0] and "builds open" in errors[0], errors[0]
    # The figure that ran out: descriptors against their limit, or maps against vm.max_map_count.
    figure = "open files" if code == errno.EMFILE else "memory maps"
    assert re.search(rf"\(\d+ of \d+ {figure}", errors[0]), errors[0]

    body = health(client, reader)
    assert body["status"] == "degraded"
    assert "lake" not in body and body.get("down") == [], body  # no build damaged, the lake not down
    assert body["worker"].startswith("ran out of "), body

    exhausted.on = False
    after = client.get(path, headers=HEADERS)
    assert after.status_code == 200
    assert comparable(after.json()) == comparable(before.json())  # every row, as before
    assert reader.health().alphas == {}


def test_open_builds_stay_within_the_setting(app_client: tuple[TestClient[Any], Any]) -> None:
    client, reader = app_client
    for alpha in (ALPHA, OTHER, ALPHA, OTHER):
        assert client.get(f"/v1/alphas/{alpha}/scores?limit=5", headers=HEADERS).status_code == 200
        assert len(reader._views) <= 1
    assert reader.health().alphas == {}


def test_an_opened_build_holds_no_file_descriptor(template_lake: Path, tmp_path: Path) -> None:
    lake = lake_copy(template_lake, tmp_path / "lake")
    settings = Settings(lake=str(lake), environment="test", lake_refresh_seconds=60)
    app = create_app(settings, authenticate=fake_authenticate, limiter=None)
    with TestClient(app=app) as client:
        client.get(f"/v1/alphas/{ALPHA}/books", headers=HEADERS)
        before = set(os.listdir("/proc/self/fd"))
        for path in FULL_REQUESTS:  # maps every serving table the routes read
            assert client.get(path, headers=HEADERS).status_code == 200
        opened = {
            os.readlink(f"/proc/self/fd/{fd}")
            for fd in set(os.listdir("/proc/self/fd")) - before
            if os.path.exists(f"/proc/self/fd/{fd}")
        }
        assert not {target for target in opened if target.startswith(str(lake))}, opened


def test_a_resource_failure_in_the_refresh_pass_keeps_the_catalogue_served(
    app_client: tuple[TestClient[Any], Any], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """EMFILE while the refresh thread reads the catalogue's next generation: the pass keeps what
    it served, the lake is not `down`, one ERROR says what ran out."""
    from alpha_results_seal import storage

    client, reader = app_client
    path = FULL_REQUESTS[0]
    before = client.get(path, headers=HEADERS)
    real = storage.Storage.read_bytes

    def failing(self: Any, path: str) -> bytes:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), path)

    monkeypatch.setattr(storage.Storage, "read_bytes", failing)
    with caplog.at_level(logging.ERROR, logger="datasets.reader"):
        body = health(client, reader)
    monkeypatch.setattr(storage.Storage, "read_bytes", real)
    assert body["status"] == "degraded" and body.get("down") == [], body
    assert body["worker"] == "ran out of open files of the process; closed the least recently used builds"
    assert [r.getMessage() for r in caplog.records if "worker out of" in r.getMessage()], caplog.text
    again = client.get(path, headers=HEADERS)
    assert again.status_code == 200 and comparable(again.json()) == comparable(before.json())


def test_a_resource_failure_reading_a_builds_json_is_a_503_never_damage(
    app_client: tuple[TestClient[Any], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, reader = app_client
    real_open = open

    def failing_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).endswith("description.json"):
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(build_view, "open", failing_open, raising=False)
    response = client.get(f"/v1/alphas/{ALPHA}", headers=HEADERS)
    assert response.status_code == 503 and response.json()["error"]["code"] == "upstream_unavailable"
    monkeypatch.undo()
    assert client.get(f"/v1/alphas/{ALPHA}", headers=HEADERS).status_code == 200
    assert reader.health().alphas == {}  # no build reported damaged
