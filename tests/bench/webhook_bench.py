"""Webhook deliveries per second (issue 35): the real `alpha-results deliver` process against a
local receiver that answers 204 at once, so what is measured is the worker's own cost per event
(its reads of the webhook, the key and the event, the signature, the POST, the fenced record).

    python -m tests.bench.webhook_bench [--events 2000] [--webhooks 1,8] [--keystore URL]

For each number of webhooks, `--events` events are appended first (each webhook receives all of
them), then `deliver --once` is timed from its start to its exit, and again without delivering
anything (the process's start-up and one idle look), which is subtracted. Prints deliveries per
second, overall and per webhook. Default store: a fresh SQLite file; `--keystore postgresql://...`
a database to create a fresh schema in.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

from records.store import open_records
from serve.identity import open_store
from serve.webhooks import open_registry, register
from tests.bench.harness import REPO
from tests.ops.keys import issue_key


class Quick(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    count = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        Quick.count += 1
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def store_url(base: str | None, folder: Path) -> str:
    if base is None:
        return f"sqlite:///{folder}/keys.sqlite3"
    import psycopg

    schema = f"ar_webhook_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    return f"{base}{'&' if '?' in base else '?'}options={quote(f'-csearch_path={schema}')}"


def timed_once(url: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "cli.main", "deliver", "--once", "--keystore", url],
        cwd=REPO,
        env={**os.environ, "ALPHA_RESULTS_WEBHOOK_ALLOW_PRIVATE": "true"},
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def run(events: int, webhooks: int, base: str | None, port: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        url = store_url(base, Path(folder))
        store = open_store(url)
        key = issue_key(store)
        store.close()
        registry = open_registry(url)
        for _ in range(webhooks):
            register(
                registry, key.key_id, f"http://127.0.0.1:{port}/hook", created_by="bench", allow_private=True
            )
        registry.close()
        records = open_records(url)
        idle = timed_once(url)
        for n in range(events):
            records.events.append("alpha.published", {"n": n}, alpha_id="Test_bench")
        records.close()
        before = Quick.count
        elapsed = timed_once(url)
        assert Quick.count - before == events * webhooks, (Quick.count - before, events * webhooks)
        if base is not None:
            import psycopg

            schema = url.rsplit("search_path%3D", 1)[1]
            with psycopg.connect(base, autocommit=True) as admin:
                admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        return elapsed, idle


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--webhooks", default="1,8")
    parser.add_argument("--keystore", default=None, help="postgresql://... (default: a SQLite file)")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Quick)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(
        f"store: {'PostgreSQL' if args.keystore else 'SQLite'}; {args.events} events; load {os.getloadavg()}"
    )
    for webhooks in (int(n) for n in args.webhooks.split(",")):
        elapsed, idle = run(args.events, webhooks, args.keystore, server.server_port)
        deliveries = args.events * webhooks
        rate = deliveries / max(elapsed - idle, 1e-9)
        print(
            f"{webhooks} webhook(s): {deliveries} deliveries in {elapsed:.2f} s (start-up and an idle look "
            f"{idle:.2f} s): {rate:.0f} deliveries/s, {rate / webhooks:.0f} per webhook"
        )
    server.shutdown()


if __name__ == "__main__":
    main()
