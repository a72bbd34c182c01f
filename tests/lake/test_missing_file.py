"""A damaged file of the served build fails loud and heals without a restart (issue 9, "Missing file").

Remove a Parquet file, remove a serving file, truncate a file in place, replace a file with a
shorter (valid) copy: every request for the alpha answers 503 `upstream_unavailable` (before the
refresh notices, an answer may still be 200 but only with exactly the rows it had before, never
fewer), `/v1/health` answers 200 `degraded` and names the alpha (and only it), and once the
original bytes are copied back, the same requests answer 200 with the rows they had before the
fault, within a few refresh intervals. Run through the ASGI app and through the real
`alpha-results serve` process.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from pipeline.publish import publish_seal
from serve.app import create_app
from serve.settings import Settings
from tests.api.conftest import fake_authenticate
from tests.lake.conftest import (
    ALPHA,
    FULL_REQUESTS,
    OTHER,
    Served,
    comparable,
    pointer,
    serving,
    wait_until,
)

REFRESH = 0.5
SETTLE = 10 * REFRESH + 3  # a few refresh intervals plus one health probe, on a loaded machine
OTHER_BOOKS = f"/v1/alphas/{OTHER}/books"
DAMAGE = {"missing_file", "truncated_file", "corrupt_file"}

Get = Callable[[str], tuple[int, dict[str, Any]]]


def shorter_arrow(path: Path) -> bytes:
    table = pa.ipc.open_file(pa.BufferReader(path.read_bytes())).read_all()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table.slice(0, table.num_rows // 2))
    return bytes(sink.getvalue().to_pybytes())


def shorter_parquet(path: Path) -> bytes:
    table = pq.read_table(path)
    sink = pa.BufferOutputStream()
    pq.write_table(table.slice(0, table.num_rows // 2), sink)
    return bytes(sink.getvalue().to_pybytes())


def remove(path: Path) -> None:
    path.unlink()


def truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def replace_with_shorter(path: Path) -> None:
    shorter = shorter_arrow(path) if path.suffix == ".arrow" else shorter_parquet(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(shorter)
    os.replace(temporary, path)  # a new, valid file with half the rows


FAULTS: dict[str, tuple[str, Callable[[Path], None]]] = {
    "remove a Parquet file": ("positions/book=long_short/part-0.parquet", remove),
    "remove a serving file": ("serving/decisions.arrow", remove),
    "truncate a serving file in place": ("serving/positions.arrow", truncate),
    "truncate a Parquet file in place": ("decisions/year=2023/part-0.parquet", truncate),
    "replace a serving file with a shorter copy": ("serving/decisions.arrow", replace_with_shorter),
    "replace a Parquet file with a shorter copy": ("pnl/book=long_only/part-0.parquet", replace_with_shorter),
}


@pytest.fixture(scope="session")
def template_lake(tmp_path_factory: pytest.TempPathFactory, versions: list[Path], other_seal: Path) -> Path:
    lake = tmp_path_factory.mktemp("missing_file_lake")
    for seal in (versions[0], other_seal):
        publish_seal(str(seal), str(lake))
    return lake


def lake_copy(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target


def served_build(lake: Path) -> Path:
    return lake / "alphas" / ALPHA / "builds" / pointer(lake)["build_id"]


def health_of(get: Get) -> dict[str, Any]:
    status, body = get("/v1/health")
    assert status == 200, body
    return body


def degraded_alphas(body: dict[str, Any]) -> dict[str, str]:
    lake: dict[str, Any] = body.get("lake") or {}
    return dict(lake.get("degraded_alphas") or {})


def answers(get: Get, baseline: dict[str, dict[str, Any]], context: str) -> dict[str, int]:
    """Every request once: 200 only with exactly the baseline answer, else 503 upstream_unavailable."""
    statuses = {}
    for path in FULL_REQUESTS:
        status, body = get(path)
        if status == 200:
            assert comparable(body) == baseline[path], f"{context}: 200 with another answer on {path}"
        else:
            assert status == 503, f"{context}: {status} on {path}: {body}"
            assert body["error"]["code"] == "upstream_unavailable", body
        statuses[path] = status
    return statuses


def check_fault_and_recovery(get: Get, lake: Path, fault: str) -> None:
    """The whole scenario on a served lake whose ALPHA build is whole and served when called."""
    baseline = {}
    for path in FULL_REQUESTS:
        status, body = get(path)
        assert status == 200, body
        baseline[path] = comparable(body)
    status, other = get(OTHER_BOOKS)
    assert status == 200
    assert wait_until(lambda: health_of(get)["status"] == "ok", SETTLE, "health ok before the fault")

    relative, damage = FAULTS[fault]
    target = served_build(lake) / relative
    original = target.read_bytes()
    damage(target)

    # Loud: every request 503 (never fewer rows on the way), health degraded and naming the alpha.
    wait_until(
        lambda: set(answers(get, baseline, f"after '{fault}'").values()) == {503},
        SETTLE,
        f"every request answers 503 after '{fault}'",
    )
    body = wait_until(
        lambda: (b := health_of(get))["status"] == "degraded" and ALPHA in degraded_alphas(b) and b,
        SETTLE,
        f"health degraded naming {ALPHA} after '{fault}'",
    )
    assert set(degraded_alphas(body)) == {ALPHA}, body  # the other alpha is not damaged
    assert degraded_alphas(body)[ALPHA] in DAMAGE, body
    assert "lake" not in body.get("down", []), body  # one build is damaged, the lake is up
    status, still = get(OTHER_BOOKS)
    assert status == 200 and comparable(still) == comparable(other)

    # The failure is not healed by itself and not cached as anything else: still 503 a while later.
    time.sleep(3 * REFRESH)
    assert set(answers(get, baseline, f"still after '{fault}'").values()) == {503}

    # Restored: the same answers as before, without a restart.
    target.write_bytes(original)
    wait_until(
        lambda: set(answers(get, baseline, f"after restoring '{fault}'").values()) == {200},
        SETTLE,
        f"every request answers 200 again after restoring '{fault}'",
    )
    wait_until(lambda: health_of(get)["status"] == "ok", SETTLE, f"health ok after restoring '{fault}'")


# -- the ASGI app ---------------------------------------------------------------------------------


@pytest.fixture
def asgi(template_lake: Path, tmp_path: Path) -> Iterator[tuple[Get, Path]]:
    lake = lake_copy(template_lake, tmp_path / "lake")
    settings = Settings(lake=str(lake), environment="test", lake_refresh_seconds=REFRESH)
    app = create_app(settings, authenticate=fake_authenticate, limiter=None)
    headers = {"Authorization": "Bearer plain"}
    with TestClient(app=app) as client:

        def get(path: str) -> tuple[int, dict[str, Any]]:
            response = client.get(path, headers=headers)
            return response.status_code, response.json()

        yield get, lake


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_app_fails_loud_and_recovers(asgi: tuple[Get, Path], fault: str) -> None:
    get, lake = asgi
    check_fault_and_recovery(get, lake, fault)


@pytest.mark.parametrize(
    ("fault", "path"),
    [
        ("remove a serving file", f"/v1/alphas/{ALPHA}/scores?limit=5"),
        ("truncate a serving file in place", f"/v1/alphas/{ALPHA}/positions?limit=5"),
        ("replace a serving file with a shorter copy", f"/v1/alphas/{ALPHA}/rebalances/2023-02-03"),
    ],
)
def test_a_mapped_file_damaged_under_the_worker_answers_503_at_once(
    asgi: tuple[Get, Path], fault: str, path: str
) -> None:
    """A serving file already mapped is checked on every access: no refresh is needed."""
    get, lake = asgi
    assert get(path)[0] == 200  # mapped now
    relative, damage = FAULTS[fault]
    damage(served_build(lake) / relative)
    status, body = get(path)
    assert (status, body["error"]["code"]) == (503, "upstream_unavailable"), body


# -- the real server ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live(template_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    """One `alpha-results serve` (one worker) over a lake copy, shared by the faults in turn."""
    from serve.identity import open_store
    from tests.ops.keys import issue_key

    folder = tmp_path_factory.mktemp("missing_file_server")
    lake = lake_copy(template_lake, folder / "lake")
    url = f"sqlite:///{folder}/keys.sqlite3"
    key = (url, issue_key(open_store(url)).headers)
    with serving(str(lake), key, folder, workers=1, refresh_seconds=REFRESH) as served:
        yield served, lake


@pytest.mark.e2e
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_server_fails_loud_and_recovers_without_a_restart(live: tuple[Served, Path], fault: str) -> None:
    served, lake = live
    client = served.client()  # one keep-alive connection, as a client keeps it
    try:
        check_fault_and_recovery(client.json, lake, fault)
    finally:
        client.close()
    assert served.process.poll() is None, served.output()  # the same process throughout


# -- the S3 cache ---------------------------------------------------------------------------------------


@pytest.mark.s3
@pytest.mark.xfail(
    strict=True,
    reason="BUG: LocalCache.evict removes the folder of a build the worker is serving (recency is "
    "the fetch time, not use); the mapped files then have no link and BuildView reads that as "
    "'missing_file', so the alpha answers 503 until the next refresh re-fetches it (and evicts "
    "another served build)",
)
def test_a_served_build_evicted_from_the_s3_cache_still_answers(
    s3_bucket: str, versions: list[Path], other_seal: Path, tmp_path: Path
) -> None:
    from datasets.reader import LakeReader

    root = f"s3://{s3_bucket}/lake"
    for seal in (versions[0], other_seal):
        publish_seal(str(seal), root)
    # Room for one served build of these alphas, not two: the operator sized the cache too small.
    reader = LakeReader(root, refresh_seconds=REFRESH, cache_dir=str(tmp_path / "cache"), cache_bytes=250_000)
    reader.refresh()
    first = reader.alpha(ALPHA)
    second = reader.alpha(OTHER)
    assert first is not None and second is not None
    rows = reader.view(first).table("decisions")
    assert rows is not None and rows.num_rows == 240
    assert reader.view(second).table("decisions") is not None  # fetched: evicts the first build's folder
    again = reader.view(first).table("decisions")  # BuildDamaged (503) here
    assert again is not None and again.num_rows == 240
