"""`GET /metrics` through the real `alpha-results serve --workers 2` (issue 37, docs/operations.md
"Monitoring"): every worker's figures merged in one scrape, the endpoint outside the limits and
behind its own token, and the limiter's gauge following a Redis this module kills.

One server for the module (a private Redis, a token file, the demo lake); the tests run in file
order and the last one kills the Redis.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from access import RateLimit, open_store
from cli.main import main
from records.store import open_records
from records.webhooks import Lease, Tried
from tests.health_wait import wait_until
from tests.ops.keys import IssuedKey, issue_key
from tests.private_redis import PrivateRedis
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

TOKEN = "scrape-token-0123456789"
TINY = RateLimit(per_second=10, per_minute=10, per_day=2, monthly_requests=2)
"""A key that may make two requests a day: what /metrics would exhaust if it were metered."""


@dataclass
class Server:
    port: int
    output: list[str]
    redis: PrivateRedis
    keystore_url: str
    roomy: IssuedKey
    tiny: IssuedKey
    stale: Path


@pytest.fixture(scope="module")
def server(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    import shutil

    if shutil.which("redis-server") is None:
        from tests.conftest import backend_unavailable

        backend_unavailable("redis-server is not installed; the outage test starts its own")
    folder = tmp_path_factory.mktemp("prometheus")
    redis = PrivateRedis(folder)
    redis.start()
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(keystore_url)
    roomy, tiny = issue_key(store), issue_key(store, rate_limit=TINY)
    store.close()
    (folder / "token").write_text(TOKEN + "\n")
    # The folder a server killed earlier left behind: its process is gone (waited for here).
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    stale = Path(tempfile.gettempdir()) / f"alpha-results-metrics-{gone.pid}-left"
    stale.mkdir()
    (stale / "counter_1.db").write_bytes(b"")
    env = {
        "ALPHA_RESULTS_PROMETHEUS": "true",
        "ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE": str(folder / "token"),
        "ALPHA_RESULTS_LIMITER_URL": redis.url,
    }
    try:
        with serving(demo_lake, keystore_url, workers=2, env=env) as (port, output):
            yield Server(port, output, redis, keystore_url, roomy, tiny, stale)
    finally:
        redis.stop()


def get(port: int, path: str, token: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request on a connection of its own, so the kernel hands requests to either worker."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
    response = connection.getresponse()
    answer = response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    connection.close()
    return answer


def scrape(server: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of one scrape, by (sample name, sorted labels)."""
    status, headers, body = get(server.port, "/metrics", TOKEN)
    assert status == 200, body
    assert headers["content-type"].startswith("text/plain"), headers
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    }


def sample(samples: dict[Any, float], name: str, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def worker_pids(output: list[str], mark: int, path: str) -> set[int]:
    """The workers whose access lines since `mark` answered `path`."""
    lines = (json.loads(line) for line in output[mark:] if line.startswith("{"))
    return {line["pid"] for line in lines if line.get("path") == path}


def test_requests_of_both_workers_are_counted_once_each(server: Server) -> None:
    mark = len(server.output)
    made = 0

    def both_answered() -> bool:
        # Another request until both workers have answered one: on a busy machine one worker may
        # accept many connections in a row (the kernel hands each to whichever accepts first), so
        # no fixed number of requests is enough; the access lines arrive after the answers.
        nonlocal made
        if len(worker_pids(server.output, mark, "/v1/me")) == 2:
            return True
        assert get(server.port, "/v1/me", server.roomy.token)[0] == 200
        made += 1
        return False

    wait_until(both_answered, "both workers answered /v1/me")
    assert get(server.port, "/v1/me", "ar_live_not.a-key")[0] == 401
    for _ in range(3):
        assert get(server.port, "/v1/no/such/path", server.roomy.token)[0] == 404

    expected = {
        ("alpha_results_http_requests_total", (("route", "meta.me"), ("status", "200"))): made,
        ("alpha_results_http_requests_total", (("route", "meta.me"), ("status", "401"))): 1,
        ("alpha_results_http_requests_total", (("route", "unmatched"), ("status", "404"))): 3,
        ("alpha_results_http_request_duration_seconds_count", (("route", "meta.me"),)): made + 1,
        ("alpha_results_http_request_duration_seconds_count", (("route", "unmatched"),)): 3,
    }

    def counted() -> dict[Any, float | None]:
        samples = scrape(server)
        return {key: samples.get(key) for key in expected}

    # A worker records a request after its last byte is sent: the scrape may come first.
    last = wait_until(lambda: (found := counted()) == expected and found, "every request counted")
    assert last == expected
    samples = scrape(server)
    assert (
        sample(samples, "alpha_results_http_request_duration_seconds_bucket", route="meta.me", le="+Inf")
        == made + 1
    )
    # The raw path is never a label: one series for every unknown path.
    assert not any("no/such" in value for _, labels in samples for _, value in labels)


def test_the_workers_record_into_a_folder_of_the_server_alone(server: Server) -> None:
    assert not server.stale.exists()  # removed by the start: its server is gone
    parent = next(
        int(m.group(1))
        for line in server.output
        if (m := re.search(r"Started parent process \[(\d+)\]", line))
    )
    [folder] = Path(tempfile.gettempdir()).glob(f"alpha-results-metrics-{parent}-*")
    workers = {int(name.stem.rpartition("_")[2]) for name in folder.glob("counter_*.db")}
    assert len(workers) == 2 and parent not in workers, workers


def test_the_endpoint_is_neither_limited_nor_metered(server: Server) -> None:
    assert get(server.port, "/v1/me", server.tiny.token)[0] == 200
    scrapes = [get(server.port, "/metrics", TOKEN) for _ in range(TINY.per_second + 2)]
    assert [status for status, _, _ in scrapes] == [200] * len(scrapes)
    assert not any(name.startswith("x-ratelimit") for _, headers, _ in scrapes for name in headers)
    # The key that made one request has one left of its day: no scrape was counted against it.
    status, _, body = get(server.port, "/v1/me", server.tiny.token)
    assert status == 200, body
    assert get(server.port, "/v1/me", server.tiny.token)[0] == 429  # the limit is live


def test_the_token_is_required(server: Server) -> None:
    status, headers, body = get(server.port, "/metrics")
    assert (status, json.loads(body)["error"]["code"]) == (401, "missing_api_key")
    assert headers["www-authenticate"] == "Bearer"
    status, _, body = get(server.port, "/metrics", TOKEN + "x")
    assert (status, json.loads(body)["error"]["code"]) == (401, "invalid_api_key")
    assert TOKEN not in body.decode()


def test_the_workers_report_their_backends(server: Server) -> None:
    status, _, body = get(server.port, "/v1/alphas", server.roomy.token)
    alpha = json.loads(body)["data"][0]["alpha_id"]
    assert get(server.port, f"/v1/alphas/{alpha}/equity-curve?limit=5", server.roomy.token)[0] == 200
    samples = wait_until(
        lambda: (found := scrape(server)) and sample(found, "alpha_results_lake_builds_open") and found,
        "the build the request opened counted",
    )
    for name in ("lake_up", "keystore_up", "limiter_backend_up", "identity_cache_live"):
        assert sample(samples, f"alpha_results_{name}") == 1, name
    assert sample(samples, "alpha_results_lake_damaged_builds") == 0
    assert sample(samples, "alpha_results_lake_integrity_checks_total") >= 1  # each build opened is checked
    # Answers made once: one page asked ten times over two workers, so one worker asks it at least
    # five times: kept on its second ask, answered kept from its third.
    page = f"/v1/alphas/{alpha}/rebalances?limit=7"
    for _ in range(10):
        assert get(server.port, page, server.roomy.token)[0] == 200
    kept = wait_until(
        lambda: (
            (found := scrape(server))
            and (sample(found, "alpha_results_answer_cache_hits_total") or 0) >= 1
            and found
        ),
        "a kept answer counted",
    )
    assert sample(kept, "alpha_results_answer_cache_misses_total") >= 2
    assert sample(kept, "alpha_results_answer_cache_bytes") > 0
    # One series per gauge, whatever the number of workers: a gauge says how workers merge.
    assert not any(label == "pid" for _, labels in samples for label, _ in labels)


def test_the_webhooks_backlog_is_read_from_the_records(server: Server) -> None:
    assert sample(scrape(server), "alpha_results_webhook_oldest_undelivered_age_seconds") == 0
    records = open_records(server.keystore_url, create=False)
    now = dt.datetime.now(dt.UTC)
    try:
        hook = records.webhooks.register(
            server.roomy.key_id, "https://example.com/h", "s", (), (), "", "tests"
        )
        event = records.events.append(
            "key.note", {}, audience="key", key_id=server.roomy.key_id, now=now - dt.timedelta(minutes=10)
        )
        # What the delivery worker records when the receiver fails (records/webhooks.py).
        lease = Lease("tests", 30.0)
        assert records.webhooks.take_lease(lease, now)
        failed = Tried(hook.id, event.id, 1, now, "failed", next_attempt_at=now + dt.timedelta(minutes=1))
        assert records.webhooks.retry_later(lease, failed, now)
    finally:
        records.close()
    samples = scrape(server)
    assert sample(samples, "alpha_results_events_appended_total") == event.id
    assert sample(samples, "alpha_results_webhooks", state="active") == 1
    assert sample(samples, "alpha_results_webhooks_failing") == 1
    assert sample(samples, "alpha_results_webhook_attempts_last_hour", outcome="failed") == 1
    assert sample(samples, "alpha_results_webhook_oldest_undelivered_age_seconds") >= 600


def test_the_pending_catalogue_follow_ups_are_counted(server: Server) -> None:
    """A decision's catalogue follow-up not done yet (records.followups) is counted per scrape, and
    no longer once done."""
    assert sample(scrape(server), "alpha_results_catalogue_followups_pending") == 0
    records = open_records(server.keystore_url, create=False)
    try:
        records.database.transaction([records.followups.statement("momentum_12_1", "alpha.approved")])
        [pending] = records.followups.pending()
        assert sample(scrape(server), "alpha_results_catalogue_followups_pending") == 1
        records.followups.done([pending.id])
    finally:
        records.close()
    assert sample(scrape(server), "alpha_results_catalogue_followups_pending") == 0


def test_a_redis_outage_flips_the_limiter_gauge(server: Server) -> None:
    assert sample(scrape(server), "alpha_results_limiter_outages_total") == 0
    server.redis.kill()
    wait_until(lambda: sample(scrape(server), "alpha_results_limiter_backend_up") == 0, "limiter gauge at 0")
    # A keyed request finds Redis gone and counts locally: an outage entered, limits still served.
    assert get(server.port, "/v1/me", server.roomy.token)[0] == 200
    wait_until(
        lambda: (sample(scrape(server), "alpha_results_limiter_outages_total") or 0) >= 1, "an outage counted"
    )


def test_off_by_default_and_in_process_with_a_registry_of_its_own(make_client: Any, tmp_path: Path) -> None:
    answer = make_client(lake=str(tmp_path)).get("/metrics")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"
    # An app made outside `serve` (no shared folder) counts in its own registry.
    client = make_client(lake=str(tmp_path), prometheus=True)
    assert client.get("/v1/health").status_code == 200
    found = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(client.get("/metrics").text)
        for sample in family.samples
    }
    assert sample(found, "alpha_results_http_requests_total", route="meta.health", status="200") == 1
    assert "/metrics" not in client.get("/openapi.json").json()["paths"]


def test_a_token_file_without_a_token_stops_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    token = tmp_path / "token"
    monkeypatch.setenv("ALPHA_RESULTS_PROMETHEUS", "true")
    monkeypatch.setenv("ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE", str(token))
    for content in (None, "two words\n", "\n"):
        if content is not None:
            token.write_text(content)
        assert main(["serve", "--lake", str(tmp_path / "lake")]) == 2  # before uvicorn starts
        refusal = capsys.readouterr().err
        assert refusal.startswith("alpha-results serve: ALPHA_RESULTS_PROMETHEUS_TOKEN_FILE"), refusal
