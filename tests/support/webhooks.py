"""Webhooks end to end: `World` (the records, the key store, the CLI and the real
`alpha-results deliver` workers of one test), its fixture `world`, and the ids a receiver got."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from access import Grants, open_store
from access.store import SqlKeyStore
from cli.main import main as cli
from records.event_log import Event
from records.store import Records, open_records
from tests.ops.keys import IssuedKey, issue_key
from tests.ops.webhook_receiver import Receiver

REPO = Path(__file__).resolve().parents[2]
DEADLINE = 60.0
FAST = ("--poll", "0.05", "--lease", "30", "--settle", "1", "--retry-first", "0.2", "--retry-max", "0.4")
"""A worker for tests: looks often, retries within a second. Its lease outlasts any stall of a busy
machine: a lease that lapses mid-attempt fences the attempt's record, and the event is sent again
(at least once, by design), which the tests' exact counts of sends would read as a defect. The
tests of a takeover set a short lease themselves."""


@dataclass
class World:
    url: str
    folder: Path
    records: Records
    store: SqlKeyStore
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def key(self, role: str = "member", grants: Grants | None = None) -> IssuedKey:
        return issue_key(self.store, role=role, grants=grants)

    def cli(self, *args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli([*args, "--keystore", self.url])
        return code, out.getvalue(), err.getvalue()

    def add(self, key_id: str, url: str, *options: str) -> dict[str, Any]:
        code, out, err = self.cli("webhooks", "add", key_id, url, *options)
        assert code == 0, err
        added: dict[str, Any] = json.loads(out)
        return added

    def webhook(self, webhook_id: str) -> dict[str, Any]:
        code, out, err = self.cli("webhooks", "list", "--all")
        assert code == 0, err
        return next(w for w in json.loads(out) if w["id"] == webhook_id)

    def attempts(self, webhook_id: str) -> list[dict[str, Any]]:
        code, out, err = self.cli("webhooks", "attempts", webhook_id, "--limit", "1000")
        assert code == 0, err
        attempts: list[dict[str, Any]] = json.loads(out)
        return attempts

    def append(self, type: str, alpha: str | None = None, **more: Any) -> Event:
        audience = more.pop("audience", "readers")
        key_id = more.pop("key_id", None)
        return self.records.events.append(
            type,
            {"seq": self.records.events.last_id() + 1, **more},
            alpha_id=alpha,
            audience=audience,
            key_id=key_id,
        )

    def start(self, *args: str, name: str = "worker") -> subprocess.Popen[bytes]:
        log = open(self.folder / f"{name}-{len(self.workers)}.log", "wb")
        worker = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "deliver", "--keystore", self.url, *FAST, *args],
            cwd=REPO,
            env={**os.environ, "ALPHA_RESULTS_WEBHOOK_ALLOW_PRIVATE": "true"},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        self.workers.append(worker)
        return worker

    def stop(self, worker: subprocess.Popen[bytes]) -> int:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
        try:
            return worker.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            worker.kill()
            raise

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(self.folder.glob("*.log")))

    def wait_until(self, condition: Any, what: str) -> None:
        """Poll the records until `condition()` holds (a worker is another process)."""
        deadline = dt.datetime.now() + dt.timedelta(seconds=DEADLINE)
        done = threading.Event()
        while not condition():
            if dt.datetime.now() > deadline:
                raise AssertionError(f"timed out waiting for {what}\n{self.logs()}")
            done.wait(0.05)


@pytest.fixture
def world(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    monkeypatch.setenv("ALPHA_RESULTS_WEBHOOK_ALLOW_PRIVATE", "true")
    records, store = open_records(store_url), open_store(store_url)
    opened = World(store_url, tmp_path, records, store)
    try:
        yield opened
    finally:
        for worker in opened.workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
        records.close()
        store.close()


def delivered_ids(receiver: Receiver, path: str = "/hook") -> list[str]:
    return [r.event_id for r in receiver.on(path)]
