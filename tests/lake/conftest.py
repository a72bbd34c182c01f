"""Fixtures of the lake fault tests (issue 9): versions of one alpha, the real server, keys, S3.

The tests publish the hand-built seal of `tests/pipeline/factory.py` (8 weeks x 30 names, two
books; a publish takes a fraction of a second) under one alpha id, in versions built from
different generator seeds: every data table differs between versions, so the answer of one build
can never pass for another build's answer.
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from alpha_results_seal.seal import open_seal
from alpha_results_seal.storage import Storage
from core.settings import Settings
from pipeline.publish import content_id_for, publish_seal
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.health_wait import wait_for_start
from tests.ops.keys import issue_key
from tests.pipeline.factory import write_factory_seal

REPO = Path(__file__).resolve().parents[2]
SOAK = os.environ.get("ALPHA_RESULTS_LAKE_SOAK") == "1"
"""Set by `just soak-lake`: the publish storm and the kill tests run every round they were written
with, the open-files test its 300 alphas; the suite runs a representative few (issue 33, item 15:
`.ci/run` within its time)."""


def soak_rounds(suite: int, soak: int) -> int:
    """How many rounds a storm or kill test runs (how many alphas the open-files test serves):
    `soak` under `just soak-lake`, else `suite`."""
    return soak if SOAK else suite


ALPHA = "Test_factory"
OTHER = "Test_other"
SEEDS = (3, 4, 5)
BASE = f"/v1/alphas/{ALPHA}"
REQUESTS = (
    f"{BASE}/rebalances/2023-01-13?limit=10",  # a week page in the default order
    f"{BASE}/rebalances/2023-02-03?sort=symbol&direction=1&limit=7",  # filtered and sorted
    f"{BASE}/scores?limit=40&offset=100",
    f"{BASE}/positions?book=long_only&from=2023-01-20&limit=25",
    f"{BASE}/equity-curve?from=2023-01-16&to=2023-02-10&limit=8",
    f"{BASE}/metrics?panel=1",
    f"{BASE}/books",
)
"""Valid requests across the endpoints of one alpha."""
FULL_REQUESTS = (
    f"{BASE}/scores?limit=1000",  # every decision row
    f"{BASE}/positions?book=long_short&limit=1000",  # every row of one book
    f"{BASE}/rebalances/2023-02-03?limit=100",
    f"{BASE}/equity-curve?limit=100",
    f"{BASE}/metrics",
    f"{BASE}/books",
)
"""Requests whose answers hold every row of a table, to see "fewer rows" at once."""
ANSWERED = tuple(dict.fromkeys(REQUESTS + FULL_REQUESTS))
VOLATILE_META = ("request_id", "generated_at", "source")


# -- seals and builds -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def versions(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three valid seals of ALPHA whose data differ everywhere (v1, v2, v3)."""
    root = tmp_path_factory.mktemp("lake_versions")
    return [write_factory_seal(root / f"v{n}", alpha_id=ALPHA, seed=seed) for n, seed in enumerate(SEEDS, 1)]


@pytest.fixture(scope="session")
def other_seal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second alpha, to see that one damaged build costs only its own alpha."""
    return write_factory_seal(tmp_path_factory.mktemp("lake_other") / "other", alpha_id=OTHER, seed=9)


@pytest.fixture(scope="session")
def complete_answers(
    versions: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, dict[str, Any]]]:
    """content id -> request -> the answer of a lake that holds only that version."""
    answers = {}
    for seal in versions:
        lake = tmp_path_factory.mktemp("only_" + seal.name)
        publish_seal(str(seal), str(lake))
        settings = Settings(lake=str(lake), environment="test")
        app = create_app(settings, authenticate=fake_authenticate, limiter=None)
        with TestClient(app=app) as client:
            by_path = {}
            for path in ANSWERED:
                response = client.get(path, headers={"Authorization": "Bearer plain"})
                assert response.status_code == 200, response.text
                by_path[path] = comparable(response.json())
        answers[content_id_of(seal)] = by_path
    # The versions differ in every data answer, so one build's answer never passes for another's.
    for path in ANSWERED:
        if "/books" not in path:
            assert len({json.dumps(a[path], sort_keys=True) for a in answers.values()}) == len(versions), path
    return answers


def content_id_of(seal: Path) -> str:
    return content_id_for(open_seal(str(seal), Storage(str(seal))))


def content_of_build(build_id: str) -> str:
    """Build ids are `<content id>-<random suffix>`."""
    return build_id.rsplit("-", 1)[0]


def comparable(body: dict[str, Any]) -> dict[str, Any]:
    """A body without what differs between two answers of one build (and the build's id)."""
    body = copy.deepcopy(body)
    meta = body.get("meta")
    if isinstance(meta, dict):
        for name in VOLATILE_META:
            meta.pop(name, None)
    return body


def without_restated(body: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """`comparable(body)` without its `restated` warning, and that warning's message (None when it
    has none). A lake that held one version before it holds another has restated every value (the
    versions differ everywhere: docs/lake.md, "Restatements"), so each answer of the later build
    carries the warning, which a lake holding that version alone never gives."""
    body = comparable(body)
    meta = body.get("meta")
    if not isinstance(meta, dict) or "warnings" not in meta:
        return body, None
    restated = [w for w in meta["warnings"] if w.get("code") == "restated"]
    meta["warnings"] = [w for w in meta["warnings"] if w.get("code") != "restated"]
    if not meta["warnings"]:
        del meta["warnings"]
    assert len(restated) <= 1, restated
    return body, (str(restated[0]["message"]) if restated else None)


def restated_answer_problem(message: str | None, restated: bool) -> str | None:
    """Why an answer's `restated` warning (its message, or None) is not what the lake's history
    says (`restated`: a different version was published before the answer's build), or None."""
    if not restated:
        return None if message is None else f"a restated warning on a build that restates nothing: {message}"
    if message is None:
        return "no restated warning on a build published over another version"
    if f"/v1/alphas/{ALPHA}/restatements" not in message:
        return f"the restated warning does not name the restatements: {message}"
    return None


def build_of(body: dict[str, Any]) -> str:
    """The build an answer says it was read from (`meta.source` is `lake:<table>@<build_id>`)."""
    source: str = body["meta"]["source"]
    return source.rsplit("@", 1)[1]


def pointer(root: Path, alpha: str = ALPHA) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((root / "alphas" / alpha / "_current.json").read_text())
    return document


# -- the real server ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Http:
    """One keep-alive connection, as a client library keeps it."""

    def __init__(self, port: int, headers: dict[str, str] | None = None, timeout: float = 60) -> None:
        self.port = port
        self.headers = headers or {}
        self.timeout = timeout
        self.connection: http.client.HTTPConnection | None = None

    def get(self, path: str) -> tuple[int, bytes]:
        reused = self.connection is not None
        try:
            return self._get(path)
        except (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected):
            if not reused:
                raise
            # The server closed the idle connection (its keep-alive timeout) as this request was
            # sent: a client starved past the timeout on a busy machine meets this race. A client
            # library (urllib3, httpx) sends a GET again on a new connection then, and so does this.
            return self._get(path)

    def _get(self, path: str) -> tuple[int, bytes]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            self.connection.request("GET", path, headers=self.headers)
            response = self.connection.getresponse()
            return response.status, response.read()
        except BaseException:
            self.close()
            raise

    def json(self, path: str) -> tuple[int, dict[str, Any]]:
        status, body = self.get(path)
        return status, json.loads(body)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


@dataclass
class Served:
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    headers: dict[str, str]

    def client(self) -> Http:
        return Http(self.port, self.headers)

    def get(self, path: str) -> tuple[int, dict[str, Any]]:
        """One request on a new connection (so, with two workers, on either of them)."""
        client = self.client()
        try:
            return client.json(path)
        finally:
            client.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def api_key(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """A SQLite key store holding one member key: (keystore URL, request headers)."""
    from access import open_store

    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    return url, issue_key(open_store(url)).headers


@contextmanager
def serving(
    lake: str,
    key: tuple[str, dict[str, str]],
    folder: Path,
    *,
    workers: int = 1,
    refresh_seconds: float = 0.5,
    nofile: int | None = None,
    env_extra: dict[str, str] | None = None,
) -> Iterator[Served]:
    """`alpha-results serve --workers N` over `lake` on a free port, its output in a file;
    `nofile`: its open-files limit, soft and hard (as a container or systemd unit may set it)."""
    keystore_url, headers = key
    port = free_port()
    env = {
        **os.environ,
        "ALPHA_RESULTS_KEYSTORE_URL": keystore_url,
        "ALPHA_RESULTS_ENVIRONMENT": "lake-test",
        "ALPHA_RESULTS_LAKE_REFRESH_SECONDS": str(refresh_seconds),
        "ALPHA_RESULTS_SERVING_CACHE_DIR": str(folder / "serving-cache"),
        "ALPHA_RESULTS_LOG_LEVEL": "warning",
        **(env_extra or {}),
    }
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--lake", lake]
    command += ["--workers", str(workers)]
    log = folder / f"server-{port}.log"
    with log.open("wb") as sink:
        # A session of its own: the uvicorn workers can be stopped with their supervisor.
        process = subprocess.Popen(
            command,
            env=env,
            cwd=REPO,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=None if nofile is None else partial(limit_open_files, nofile),
        )
    served = Served(port, process, log, headers)

    def answers() -> bool:
        try:
            return served.get("/v1/health")[0] == 200
        except OSError:
            return False

    try:
        # Health answering (the log is at WARNING: no ready lines to count): a worker still
        # starting leaves connections in the shared backlog for one that is up.
        wait_for_start(process, answers, served.output, f"alpha-results serve --workers {workers}")
        yield served
    finally:
        stop(process)


def limit_open_files(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def stop(process: subprocess.Popen[Any]) -> None:
    """SIGTERM to the server; its session (the supervisor and its workers) is killed if it hangs."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # not reaped yet: the group is still this server's
        process.wait(timeout=10)


@pytest.fixture(autouse=True)
def history_at_its_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lake's retention tests measure the floor every deployment keeps (the two newest
    predecessors, and what a worker may still serve: `layout.BUILD_RETENTION_SECONDS`): the
    operator's history in days is set to 0 here; tests/lake/test_history_days.py tests the days."""
    monkeypatch.setenv("ALPHA_RESULTS_BUILD_HISTORY_DAYS", "0")
