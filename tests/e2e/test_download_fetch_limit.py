"""The fetch cap of a signed download URL through the real `alpha-results serve` process with two
workers and a SQLite key store: the URL's fetches alternate between the two worker processes, it
answers `ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT` of them with the file and refuses the next, and the
refusal outlives a restart of the server.

Both tests use one server of the module (its start, three processes importing the app, was most of
each test's time), each with keys of its own; the restart is a second server process started over
the same key store and signing key, which knows nothing of the first one's memory."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from access import open_store
from tests.health_wait import health_answers, wait_for_start, wait_until, workers_ready
from tests.ops.keys import IssuedKey, issue_key
from tests.support.ports import free_port

pytestmark = pytest.mark.e2e

FETCH_LIMIT = 3


class Server:
    """A running `alpha-results serve`, whose access log (stdout) is read as it is written, so
    the worker process that answered a request is known from its request id."""

    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.port = port
        self.lines: list[str] = []
        self.pid_of_request: dict[str, int] = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and "request_id" in record:
                self.pid_of_request[record["request_id"]] = record["pid"]

    def pid_answering(self, request_id: str) -> int:
        # The access line is written once the response is sent: waited for, not assumed.
        wait_until(lambda: request_id in self.pid_of_request, f"the access line of {request_id}")
        return self.pid_of_request[request_id]


@contextmanager
def serving(lake: Path, keystore_url: str, signing_key: Path, workers: int = 2) -> Iterator[Server]:
    port = free_port()
    env = {
        **os.environ,
        "ALPHA_RESULTS_KEYSTORE_URL": keystore_url,
        "ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key),
        "ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT": str(FETCH_LIMIT),
        "ALPHA_RESULTS_ENVIRONMENT": "e2e",
    }
    env.pop("ALPHA_RESULTS_PUBLIC_BASE_URL", None)  # signed URLs then point at this server
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--lake", str(lake)]
    command += ["--workers", str(workers)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    server = Server(process, port)
    try:
        # Every worker up (each logs its ready line), not only the first: a second worker took
        # 20 s to start beside one busy loop, and the test needs both.
        try:
            wait_for_start(
                process,
                lambda: workers_ready(server.lines, workers) and health_answers(port),
                lambda: "".join(server.lines),
                f"alpha-results serve --workers {workers}",
            )
        except AssertionError as failed:
            process.kill()
            process.wait(timeout=10)
            pytest.fail(str(failed))
        yield server
    finally:
        process.terminate()
        process.wait(timeout=15)


@dataclass
class Deployment:
    """The module's server, its key store and signing key, and the keys of each test."""

    server: Server
    lake: Path
    keystore_url: str
    signing_key: Path
    fetcher: IssuedKey
    """Test 1: exhausts one URL across both workers."""
    pair: tuple[IssuedKey, IssuedKey]
    """Test 2: two keys of two accounts."""


@pytest.fixture(scope="module")
def deployment(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("download_fetch_limit")
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore_url)
    fetcher, first, second = (issue_key(store) for _ in range(3))  # each of an account of its own
    store.close()
    signing_key = folder / "signing.key"
    signing_key.write_bytes(os.urandom(32))
    with serving(demo_lake, keystore_url, signing_key) as server:
        yield Deployment(server, demo_lake, keystore_url, signing_key, fetcher, (first, second))


def get(
    server: Server,
    path: str,
    headers: dict[str, str] | None = None,
    connection: http.client.HTTPConnection | None = None,
) -> tuple[int, bytes, str]:
    """(status, body, request id), on `connection` (kept open) or a new one."""
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("x-request-id") or ""
    finally:
        if own:
            connection.close()


def one_connection_per_worker(server: Server) -> list[http.client.HTTPConnection]:
    """Keep-alive connections, each served by one worker process, until two processes answer."""
    by_pid: dict[int, http.client.HTTPConnection] = {}
    opened: list[http.client.HTTPConnection] = []
    # Both workers logged their ready line (`serving`), but which accepts a connection is the
    # kernel's choice: keep opening connections until each worker has answered one (a pause
    # between tries, so that a worker that lost the race gets the CPU).

    def both_answered() -> bool:
        nonlocal opened
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        opened.append(connection)  # held open, so the next connection may go to the other worker
        _, _, request_id = get(server, "/v1/health", connection=connection)
        by_pid.setdefault(server.pid_answering(request_id), connection)
        if len(opened) % 50 == 0:  # let go of the surplus
            for held in opened:
                if held not in by_pid.values():
                    held.close()
            opened = list(by_pid.values())
        return len(by_pid) == 2

    wait_until(both_answered, "each worker process answering a connection of its own")
    for connection in opened:
        if connection not in by_pid.values():
            connection.close()
    return list(by_pid.values())


def test_a_signed_url_is_fetched_its_limit_across_both_workers_then_refused_even_after_a_restart(
    deployment: Deployment,
) -> None:
    server, key = deployment.server, deployment.fetcher
    workers = one_connection_per_worker(server)
    status, body, _ = get(server, "/v1/alphas/Test_planted_factor/source/download", key.headers)
    assert status == 200, body
    archive = json.loads(body)["data"]
    url = urlsplit(archive["url"])
    assert url.port == server.port
    path = f"{url.path}?{url.query}"
    signature = url.query.rpartition("signature=")[2]

    answered_by = []
    for fetch in range(FETCH_LIMIT):
        status, content, request_id = get(server, path, connection=workers[fetch % 2])
        assert status == 200, content
        assert hashlib.sha256(content).hexdigest() == archive["sha256"]
        answered_by.append(server.pid_answering(request_id))
    status, refusal, request_id = get(server, path, connection=workers[FETCH_LIMIT % 2])
    answered_by.append(server.pid_answering(request_id))
    assert len(set(answered_by)) == 2, answered_by  # both worker processes took part
    for connection in workers:
        connection.close()
    assert status == 403, refusal
    error = json.loads(refusal)["error"]
    assert (error["code"], error["details"]) == ("download_url_expired", {"fetch_limit": FETCH_LIMIT})
    assert signature.encode() not in refusal

    # A server started afresh (one worker is enough for one request) knows the URL only from the
    # key store: the refusal outlives the processes that counted the fetches.
    with serving(deployment.lake, deployment.keystore_url, deployment.signing_key, workers=1) as restarted:
        status, again, _ = get(restarted, path)
    assert status == 403 and json.loads(again)["error"]["code"] == "download_url_expired", again


def test_two_keys_asking_in_the_same_second_get_urls_and_fetch_counts_of_their_own(
    deployment: Deployment,
) -> None:
    """Issue 22, item 9: a URL is bound to the key it was signed for. Two keys of two accounts asking
    for the same export in the same second get two URLs, and one exhausting its fetches leaves the
    other's whole."""
    server, keys = deployment.server, deployment.pair
    export = "/v1/alphas/Test_planted_factor/exports/rebalances"
    for _ in range(20):  # until both answers were signed in one second
        answers = []
        for key in keys:
            status, body, _ = get(server, export, key.headers)
            assert status == 200, body
            answers.append(json.loads(body)["data"])
        urls = [urlsplit(answer["url"]) for answer in answers]
        if len({parse_qs(url.query)["expires"][0] for url in urls}) == 1:
            break
    else:
        pytest.fail("no two answers signed within the same second in 20 tries")
    first, second = (f"{url.path}?{url.query}" for url in urls)
    assert first != second
    for _ in range(FETCH_LIMIT):
        status, content, _ = get(server, first)
        assert status == 200 and hashlib.sha256(content).hexdigest() == answers[0]["sha256"]
    status, refusal, _ = get(server, first)
    assert (status, json.loads(refusal)["error"]["code"]) == (403, "download_url_expired"), refusal
    status, content, _ = get(server, second)  # the other key's URL still has all its fetches
    assert status == 200 and hashlib.sha256(content).hexdigest() == answers[1]["sha256"]
    signing_secret = deployment.signing_key.read_bytes().hex()
    assert all(signing_secret not in url.geturl() for url in urls)
