"""A real S3-compatible server (moto in server mode) on 127.0.0.1, started once per session.

The fixtures are registered once, by tests/conftest.py: a conftest of a subfolder that imported
them would register a second session fixture, hence a second server, and the AWS environment
would then point the tests' clients at one server and the cached filesystems at the other.

The lake, the pipeline and the signer reach it through the standard AWS environment variables
(`AWS_ENDPOINT_URL`, credentials, region), exactly as a deployment configures a real bucket.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import fsspec
import httpx
import pytest

from tests.health_wait import wait_for_start

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "alpha-results-test",
    "AWS_SECRET_ACCESS_KEY": "alpha-results-test-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def answers() -> bool:
            try:
                httpx.get(endpoint, timeout=5)
                return True
            except httpx.HTTPError:
                return False

        try:
            wait_for_start(
                process, answers, lambda: "(its output is not kept)", f"moto S3 server on {endpoint}"
            )
        except AssertionError as failed:
            from tests.conftest import backend_unavailable  # tests/conftest.py imports this module

            backend_unavailable(str(failed))
        saved = {k: os.environ.get(k) for k in [*S3_ENV, "AWS_ENDPOINT_URL"]}
        os.environ.update(S3_ENV, AWS_ENDPOINT_URL=endpoint)
        yield endpoint
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def s3_bucket(s3_endpoint: str) -> str:
    """A fresh, empty bucket per test."""
    bucket = f"lake-{uuid.uuid4().hex[:12]}"
    fs, _ = fsspec.core.url_to_fs(f"s3://{bucket}", skip_instance_cache=True)
    fs.mkdir(bucket)
    return bucket


def put_current_builds(lake: Path, target: str) -> None:
    """Put `lake`'s files into `target` (`bucket/prefix`) but the alphas' earlier builds: what the
    S3 tests read (the earlier builds, 4 in 5 of the small demo's ~5,000 files, are the history the
    local lake's tests read; each object is a moto request). One call: s3fs sends them concurrently."""
    from tests.knowledge import current_build

    current = {current_build(lake, p.parent.name) for p in lake.glob("alphas/*/_current.json")}

    def earlier(parts: tuple[str, ...]) -> bool:  # alphas/<alpha>/builds/<build>/...
        return (
            parts[:1] == ("alphas",)
            and parts[2:3] == ("builds",)
            and lake.joinpath(*parts[:4]) not in current
        )

    files = sorted(p for p in lake.rglob("*") if p.is_file() and not earlier(p.relative_to(lake).parts))
    fs, _ = fsspec.core.url_to_fs(f"s3://{target}", skip_instance_cache=True)
    fs.put([str(p) for p in files], [f"{target}/{p.relative_to(lake).as_posix()}" for p in files])


@pytest.fixture(scope="session")
def s3_demo_lake(s3_endpoint: str, demo_lake: Path) -> str:
    """The small demo lake in an S3 bucket: the session's local demo lake without its earlier
    builds (`put_current_builds`; a lake's files name no root, so the copy is the same lake; building the corpus again into S3
    cost a minute). Publishing into S3 itself is tested in tests/s3/ and tests/pipeline/."""
    bucket = f"demo-{uuid.uuid4().hex[:12]}"
    fs, _ = fsspec.core.url_to_fs(f"s3://{bucket}", skip_instance_cache=True)
    fs.mkdir(bucket)
    put_current_builds(demo_lake, f"{bucket}/lake")
    return f"s3://{bucket}/lake"
