"""The soak's deployment: a moto S3 server, a private Redis, a PostgreSQL database of its own, the
demo corpus built into an S3 lake, the keys, and `alpha-results serve --workers 2` over all of it.

Every process is started through `tests.bench.harness.Children` (its own session, ended on the
way out); the PostgreSQL database is created and dropped by `tests.bench.load_bench.private_postgres`.
Nothing here touches the shared Redis.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from access import DEFAULT_RATE_LIMIT, Grants, KeyStore, RateLimit, open_store
from access.tokens import assemble_token
from core.context import AllowList
from tests.bench.harness import (
    BenchError,
    Children,
    Server,
    bench_env,
    cli,
    create_admin_key,
    free_port,
    run_checked,
    start_api,
    start_server,
    worker_pids,
)
from tests.ops.keys import DATA_GRANTS, ROOMY

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "alpha-results-soak",
    "AWS_SECRET_ACCESS_KEY": "alpha-results-soak-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
}
REPUBLISHED = "Test_planted_factor"
"""The alpha published again and again during the soak (two versions, from two demo seeds)."""
SECOND_SEED = 8
"""The demo seed of the republished alpha's second version (the corpus itself uses seed 7)."""

WORKERS = 2
"""Worker processes of the soak's server (the per-worker limits during an outage scale with it)."""


# -- S3 (moto) ---------------------------------------------------------------------------------


def start_moto(children: Children, work: Path) -> dict[str, str]:
    """A moto S3 server on a free loopback port; the AWS environment that reaches it."""
    port = free_port()
    argv = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    start_server(children, "moto S3", argv, env=bench_env(), port=port, ready_path="/", log=work / "moto.log")
    return {**S3_ENV, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}


def make_bucket(aws: dict[str, str], bucket: str) -> None:
    import boto3

    client = boto3.client(
        "s3",
        endpoint_url=aws["AWS_ENDPOINT_URL"],
        aws_access_key_id=aws["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=aws["AWS_SECRET_ACCESS_KEY"],
        region_name=aws["AWS_DEFAULT_REGION"],
    )
    client.create_bucket(Bucket=bucket)


# -- a private Redis -----------------------------------------------------------------------------


class PrivateRedis:
    """`redis-server` on a free loopback port, without persistence (a restart starts empty)."""

    def __init__(self, children: Children, work: Path) -> None:
        self.children = children
        self.work = work
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        argv += ["--appendonly", "no", "--daemonize", "no", "--dir", str(self.work)]
        self.proc = self.children.start(argv, log=self.work / "redis.log")
        self.starts += 1
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError(
                    f"redis-server did not start on port {self.port} (see {self.work}/redis.log)"
                )
            time.sleep(0.05)

    def answers(self) -> bool:
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL (no shutdown, nothing saved), then reaped."""
        if self.proc is None:
            return
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.children.stop(self.proc)
        self.proc = None


# -- seals, the lake and publishing ----------------------------------------------------------------


@dataclass(frozen=True)
class Seals:
    corpus: list[Path]  # every seal of the small demo corpus (seed 7)
    first: Path  # the republished alpha, version A (in the corpus)
    second: Path  # the republished alpha, version B (seed 8)


def write_seals(work: Path, env: dict[str, str]) -> Seals:
    corpus_dir, second_dir = work / "seals", work / "seals-b"
    run_checked([*cli(), "demo", "--size", "small", "--out", str(corpus_dir)], env=env, timeout=300)
    run_checked(
        [*cli(), "demo", "--size", "small", "--seed", str(SECOND_SEED), "--only", REPUBLISHED]
        + ["--out", str(second_dir)],
        env=env,
        timeout=300,
    )
    corpus = sorted(p for p in corpus_dir.iterdir() if (p / "manifest.json").exists())
    return Seals(corpus, corpus_dir / REPUBLISHED, second_dir / REPUBLISHED)


def build(seals: list[Path], lake: str, env: dict[str, str], jobs: int = 2) -> str:
    """`alpha-results build SEAL... --lake LAKE`: its output."""
    argv = [*cli(), "build", *(str(s) for s in seals), "--lake", lake, "--jobs", str(jobs)]
    return run_checked(argv, env=env, timeout=600)


def current_build(lake: str, alpha: str, env: dict[str, str]) -> str:
    """The build id the alpha's pointer names (read as an analyst would)."""
    import fsspec

    options = {"client_kwargs": {"endpoint_url": env["AWS_ENDPOINT_URL"]}, "skip_instance_cache": True}
    options |= {"key": env["AWS_ACCESS_KEY_ID"], "secret": env["AWS_SECRET_ACCESS_KEY"]}
    fs, path = fsspec.core.url_to_fs(f"{lake}/alphas/{alpha}/_current.json", **options)
    return str(json.loads(fs.cat_file(path))["build_id"])


def content_of(build_id: str) -> str:
    """Build ids are `<20 hex content id>-<8 hex suffix>` (docs/lake.md "Build ids")."""
    return build_id.rsplit("-", 1)[0]


# -- keys ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    label: str
    key_id: str
    token: str

    @property
    def authorization(self) -> str:
        return f"Bearer {self.token}"


@dataclass
class Keys:
    by_label: dict[str, Key] = field(default_factory=dict)
    tight_limits: RateLimit = DEFAULT_RATE_LIMIT

    def __getitem__(self, label: str) -> Key:
        return self.by_label[label]

    def add(self, label: str, key_id: str, token: str) -> Key:
        key = Key(label, key_id, token)
        self.by_label[label] = key
        return key


SELF_SERVICE = "selfservice"
TIGHT = "tight"


def create_keys(keystore_url: str, env: dict[str, str], tight: RateLimit) -> Keys:
    """Every key of the soak, in the PostgreSQL store.

    - `admin`: made with the operator CLI (`accounts create --role admin`, `keys create`, `keys
      grant ... all`, `keys set-limits` unthrottled), as an operator would.
    - `selfservice`: a new self-service account and key with the defaults (meta endpoints, 5/s,
      60/min); `metatwin` the same but unthrottled, to record its expected answers.
    - `plain`, `testonly`, `alphaonly`: members with every data endpoint, on every alpha, on the
      `Test_` alphas, and on every alpha but no run (unthrottled).
    - `tight`: a member like `plain` with the tight envelope (the answers of `plain` are its
      expectations).
    - `revoked`, `suspended`, `expired`, `iponly` (IP allow-list 10.0.0.0/8): refused keys.
    - `forged`: a well-formed token (valid checksum) with the key id prefix of `plain` and a
      secret nobody was given.
    """
    keys = Keys(tight_limits=tight)
    admin = create_admin_key(keystore_url, env)
    keys.add("admin", admin.key_id, admin.token)
    store: KeyStore = open_store(keystore_url)
    try:

        def account(role_ceiling: Grants | None) -> str:
            created = store.create_account(f"soak-{uuid.uuid4().hex[:10]}@example.com")
            if role_ceiling is not None:
                store.set_account_ceiling(created.user_id, role_ceiling)
            return created.user_id

        def key(label: str, user: str, grants: Grants | None, limits: RateLimit | None) -> Key:
            record, token = store.create_key(user, f"soak {label}", grants=grants, rate_limit=limits)
            return keys.add(label, record.key_id, token)

        self_service = account(None)
        key(SELF_SERVICE, self_service, None, None)
        key("metatwin", account(None), None, ROOMY)
        member = account(DATA_GRANTS)
        key("plain", member, DATA_GRANTS, ROOMY)
        key(TIGHT, account(DATA_GRANTS), DATA_GRANTS, tight)
        test_only = Grants(
            AllowList.all(), AllowList.of_prefixes(["Test_"]), AllowList.of_prefixes(["Test_"]), False
        )
        key("testonly", account(DATA_GRANTS), test_only, ROOMY)
        alpha_only = Grants(AllowList.all(), AllowList.all(), AllowList.of_ids(["nothing"]), False)
        key("alphaonly", account(DATA_GRANTS), alpha_only, ROOMY)
        revoked = key("revoked", member, DATA_GRANTS, ROOMY)
        store.revoke_key(revoked.key_id)
        suspended = key("suspended", member, DATA_GRANTS, ROOMY)
        store.set_key_status(suspended.key_id, "suspended")
        expired = key("expired", member, DATA_GRANTS, ROOMY)
        store.set_key_expiry(expired.key_id, datetime.now(UTC) - timedelta(days=1))
        record, token = store.create_key(
            member, "soak iponly", grants=DATA_GRANTS, rate_limit=ROOMY, ip_allow=["10.0.0.0/8"]
        )
        keys.add("iponly", record.key_id, token)
        plain = keys["plain"]
        forged = assemble_token("live", plain.key_id[:12], "A" * 43)
        keys.add("forged", forged.split("_", 2)[2].split(".", 1)[0], forged)
    finally:
        store.close()
    return keys


# -- the server ------------------------------------------------------------------------------------


@dataclass
class Deployment:
    server: Server
    lake: str
    env: dict[str, str]
    redis: PrivateRedis
    keystore_url: str

    def workers(self) -> list[int]:
        return [pid for pid in worker_pids(self.server.proc.pid) if pid != self.server.proc.pid]


def serve(
    children: Children, work: Path, *, lake: str, keystore_url: str, redis: PrivateRedis, aws: dict[str, str]
) -> Deployment:
    env = bench_env()
    env.update(aws)
    env.update(
        ALPHA_RESULTS_LAKE=lake,
        ALPHA_RESULTS_KEYSTORE_URL=keystore_url,
        ALPHA_RESULTS_LIMITER_URL=redis.url,
        ALPHA_RESULTS_SERVING_CACHE_DIR=str(work / "serving-cache"),
        ALPHA_RESULTS_ENVIRONMENT="soak",
        ALPHA_RESULTS_LOG_LEVEL="info",
    )
    server = start_api(
        children, f"api ({WORKERS} workers)", env=env, workers=WORKERS, log=work / "server.log"
    )
    deployment = Deployment(server, lake, env, redis, keystore_url)
    deadline = time.monotonic() + 60
    while True:
        try:
            health = httpx.get(f"{server.base_url}/v1/health", timeout=5).json()
            if health.get("status") == "ok" and len(deployment.workers()) == WORKERS:
                return deployment
        except (httpx.HTTPError, ValueError):
            pass
        if time.monotonic() > deadline:
            raise BenchError(f"the server is not healthy with two workers:\n{server.log_tail()}")
        time.sleep(0.3)
