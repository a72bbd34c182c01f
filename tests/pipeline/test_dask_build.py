"""`alpha-results build --executor dask://...` on a real `dask.distributed.LocalCluster` of two
worker processes: the small demo corpus, seals and lake on a local folder and on S3 (moto), gives
the local executor's lake (same content ids, same bytes in every file); a refused seal gives the
local executor's report while the others publish; a worker SIGKILLed while it writes a build
costs a retry, not a second build; the catalogue-wide steps run once, after a refused seal too.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import distributed
import fsspec
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from alpha_results_seal import seal as seal_module
from alpha_results_seal.seal_limits import SealLimits
from alpha_results_seal.storage import Storage
from cli.lake import executor_of
from cli.main import main
from datasets import catalog, layout, retention
from pipeline import dask_build
from pipeline.build import Failure, SealResult
from pipeline.catalogue_steps import CatalogueStep, run_catalogue_steps
from pipeline.dask_build import (
    BuildProgress,
    SchedulerAddressError,
    build_on_dask,
    build_seal_task,
    dashboard_link,
    scheduler_address,
)
from tests.health_wait import HANG_LIMIT
from tests.pipeline.conftest import copy_seal
from tests.pipeline.factory import write_factory_seal
from tests.s3_server import free_port
from tests.support.build_tables import build_derived

DEMO_ALPHAS = 7  # and the SPY benchmark


# -- the cluster ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(s3_endpoint: str) -> Iterator[Any]:
    """Two worker processes, one thread each. Started after the moto server, so the workers (and
    the ones the nannies restart) inherit its AWS environment, as deployed workers get theirs."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", scheduler_port=0
    ) as local_cluster:
        yield local_cluster


@pytest.fixture
def dask_url(cluster: Any) -> str:
    return "dask://" + cluster.scheduler_address.removeprefix("tcp://")


@pytest.fixture
def client(cluster: Any) -> Iterator[Any]:
    with distributed.Client(cluster, set_as_default=False) as dask_client:
        dask_client.wait_for_workers(2, timeout=HANG_LIMIT)
        yield dask_client


# -- comparing lakes ------------------------------------------------------------------------------


def published(root: str) -> dict[str, dict[str, Any]]:
    """Every current build: target -> content id, build id and its files' manifest."""
    found = {}
    for entry in catalog.list_alphas(root):
        found[entry["alpha_id"]] = {
            "content_id": content_id(entry["build_id"]),
            "build_id": entry["build_id"],
            "build_dir": layout.alpha_build_dir(root, entry["alpha_id"], entry["build_id"]),
            "files": entry["files"],
        }
    for info in catalog.list_benchmarks(root):
        found[f"benchmark:{info['symbol']}"] = {
            "content_id": content_id(info["build_id"]),
            "build_id": info["build_id"],
            "build_dir": layout.benchmark_build_dir(root, info["symbol"], info["build_id"]),
            "files": info["files"],
        }
    return found


def content_id(build_id: str) -> str:
    return build_id.rsplit("-", 1)[0]


KNOWN_SESSIONS = ("serving/known_sessions.arrow",)
"""The serving copy of what the lake knew when (`pipeline.knowledge`; its rows are the open
tables' `known_sessions`): when each session was first published and by which build, so their
bytes are those of the publish, not of the seal alone."""


def assert_same_lake(root: str, reference: str, targets: set[str] | None = None) -> None:
    """The same targets (all the reference's, or `targets`), content ids and file manifests (size
    and SHA-256 of every file, the exports' index among them), the same bytes in every Parquet file of
    every build (a benchmark's export and `daily.parquet`), and the same rows of every table in the open tables at each
    alpha build's generation; but for `known_sessions`, which holds the same sessions, each first
    published by the build that holds it (the lakes published them at different times)."""
    built, expected = published(root), published(reference)
    if targets is not None:
        expected = {t: b for t, b in expected.items() if t in targets}
    else:
        assert len(built) == DEMO_ALPHAS + 1
    assert {t: b["content_id"] for t, b in built.items()} == {t: b["content_id"] for t, b in expected.items()}
    for target, build in built.items():
        other = expected[target]
        assert without_knowledge(build["files"]) == without_knowledge(other["files"]), target
        ours, theirs = parquet_md5(root, build["build_dir"]), parquet_md5(reference, other["build_dir"])
        assert without_knowledge(ours) == without_knowledge(theirs), target
        # An alpha build stores no Parquet (pipeline 2.13.0): its exports' sizes and SHA-256 are in
        # `exports/index.json`, whose own SHA-256 the manifests compared above hold.
        assert bool(ours) == target.startswith("benchmark:"), target
        if not target.startswith("benchmark:"):
            assert_same_rows(build, other, target)
        for name in KNOWN_SESSIONS:
            assert (name in build["files"]) == (name in other["files"]), (target, name)
            if name in build["files"]:
                mine, reference_known = (
                    known_sessions(root, build, name),
                    known_sessions(reference, other, name),
                )
                assert mine.column("first_build_id").to_pylist() == [build["build_id"]] * mine.num_rows
                keys = ["dataset", "book", "date"]
                assert mine.num_rows > 0 and mine.select(keys).equals(reference_known.select(keys)), target


def table_frames(build_dir: str) -> dict[str, pl.DataFrame]:
    """Every table's rows of an alpha build in the open tables (a book table's by `table/book`)."""
    derived = build_derived(build_dir)
    frames = dict(derived.single)
    frames.update({f"{name}/{book}": f for name, books in derived.books.items() for book, f in books.items()})
    if derived.decisions is not None:
        frames["decisions"] = derived.decisions
    return frames


def assert_same_rows(build: dict[str, Any], other: dict[str, Any], target: str) -> None:
    """The same rows of every table; `known_sessions`' the same sessions, each first published by
    the build that holds it."""
    mine, theirs = table_frames(build["build_dir"]), table_frames(other["build_dir"])
    assert sorted(mine) == sorted(theirs) and "known_sessions" in mine, target
    for name, frame in mine.items():
        if name == "known_sessions":
            keys = ["dataset", "book", "date"]
            assert frame["first_build_id"].to_list() == [build["build_id"]] * frame.height, target
            assert frame.height > 0 and frame.select(keys).equals(theirs[name].select(keys)), target
        else:
            assert frame.equals(theirs[name]), (target, name)


def without_knowledge(files: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in files.items() if name not in KNOWN_SESSIONS}


def known_sessions(root: str, build: dict[str, Any], name: str) -> pa.Table:
    payload = Storage(root).read_bytes(layout.join(build["build_dir"], name))
    if name.endswith(".parquet"):
        return pq.read_table(io.BytesIO(payload))
    return pa.ipc.open_file(pa.BufferReader(payload)).read_all()


def parquet_md5(root: str, build_dir: str) -> dict[str, str]:
    """MD5 of the bytes of every Parquet file of a build, by path within it. On S3, the ETag the
    store computed from the bytes it holds (a single-part upload's ETag is their MD5), all from
    one listing, instead of a GET per file."""
    storage = Storage(root)
    base = storage.fs._strip_protocol(build_dir).rstrip("/")
    found = {}
    for path, info in storage.fs.find(build_dir, detail=True).items():
        if path.endswith(".parquet"):
            relative = path[len(base) + 1 :]
            if storage.is_local:
                found[relative] = hashlib.md5(Path(path).read_bytes()).hexdigest()
            else:
                found[relative] = str(info["ETag"]).strip('"')
    return found


def pointers(root: str) -> dict[str, dict[str, Any]]:
    storage = Storage(root)
    found = {}
    for alpha_id in storage.list_names(layout.alphas_dir(root)):
        pointer = catalog.read_json(storage, layout.alpha_pointer(root, alpha_id))
        if pointer is not None:
            found[alpha_id] = pointer
    return found


# -- seals ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def refused_seal(tmp_path_factory: pytest.TempPathFactory, demo_seals: Path) -> Path:
    """A seal of its own alpha that breaks `manifest.kinds_present` (a declared book's file is gone)."""
    seal = copy_seal(demo_seals / "Test_planted_factor", tmp_path_factory.mktemp("refused") / "Test_refused")
    manifest = json.loads((seal / "manifest.json").read_text())
    manifest["alpha_id"] = "Test_refused"
    (seal / "manifest.json").write_text(json.dumps(manifest))
    (seal / "pnl" / "long_only.parquet").unlink()
    return seal


@pytest.fixture(scope="module")
def local_demo_lake(tmp_path_factory: pytest.TempPathFactory, demo_seals: Path) -> Path:
    """The small demo corpus published by the local executor, one seal after the other: what the
    cluster's lakes are compared with (the demo lake is the demo's history, played run by run)."""
    from pipeline.build import build_many

    lake = tmp_path_factory.mktemp("local_demo") / "lake"
    seals = sorted(str(p) for p in demo_seals.iterdir() if (p / "manifest.json").exists())
    results = build_many(seals, str(lake), jobs=1)
    assert [r.status for r in results] == ["published"] * len(seals), [r.line() for r in results]
    return lake


def plant_old_garbage(lake: Path, alpha: str = "Test_refused") -> Path:
    """A build folder no pointer names, written long ago under `alpha`: garbage for the gc step of
    a run whose seals target `alpha` (here the refused seal's: no publish collects it first), and
    for `lake gc` whatever the alpha."""
    folder = lake / "alphas" / alpha / "builds" / "0123456789abcdef0123-deadbeef"
    folder.mkdir(parents=True)
    (folder / layout.ALPHA_JSON).write_text("{}")
    old = time.time() - layout.BUILD_RETENTION_SECONDS - 60
    os.utime(folder / layout.ALPHA_JSON, (old, old))
    return folder


def refusal_block(stdout: str) -> list[str]:
    """The refused seal's line and its indented report."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("refused"))
    end = start + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return lines[start:end]


# -- on a local folder ----------------------------------------------------------------------------


@pytest.mark.slow
def test_cluster_builds_the_local_executors_lake_and_reports_a_refusal_as_it_does(
    dask_url: str,
    demo_seals: Path,
    local_demo_lake: Path,
    refused_seal: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In a folder of the test's own: the default records database (`var/keys.sqlite3`, relative) is
    # absent whatever a developer's checkout holds, and no event is written to theirs.
    monkeypatch.chdir(tmp_path)
    local_lake = tmp_path / "local"
    assert main(["build", str(refused_seal), "--lake", str(local_lake), "--executor", "local"]) == 1
    local_report = refusal_block(capsys.readouterr().out)
    assert local_report[1].startswith("  refused by rule manifest.kinds_present (kind pnl)")

    lake = tmp_path / "lake"
    garbage = plant_old_garbage(lake)
    elsewhere = plant_old_garbage(lake, "Test_retired")  # an alpha this run does not build
    argv = [
        "build",
        "--from",
        str(demo_seals),
        str(refused_seal),
        "--lake",
        str(lake),
        "--executor",
        dask_url,
    ]
    assert main(argv) == 1
    out, err = capsys.readouterr()

    assert refusal_block(out) == local_report
    lines = out.splitlines()
    assert sorted(line.split()[1] for line in lines if line.startswith("published")) == sorted(
        published(str(local_demo_lake))
    )
    assert f"{DEMO_ALPHAS + 2} seals: {DEMO_ALPHAS + 1} built, 1 refused  (lake {lake})" in lines
    # The catalogue-wide steps ran once, after every seal, the refused one included; then the
    # run's events (no records database beside this lake: said, not created).
    assert lines[-2:] == [
        f"collected  {garbage}",
        "events     not recorded: no records database at sqlite:///var/keys.sqlite3",
    ]
    assert not garbage.exists()
    assert elsewhere.exists()  # swept by `alpha-results lake gc --apply`, not by every build run
    assert_same_lake(str(lake), str(local_demo_lake))

    # Progress on stderr: every seal queued, ran on a worker process, and ended.
    assert f"dask       scheduler {executor_of(dask_url)}, 2 workers" in err
    for target in [*published(str(local_demo_lake)), "Test_refused"]:
        assert re.search(rf"^queued     {re.escape(target)}  \(", err, re.M), target
        assert re.search(rf"^running    {re.escape(target)}  on tcp://\S+ \(pid \d+\)", err, re.M), target
    assert re.search(r"^refused    Test_refused  in [\d.]+ s  \[\d+/9 done", err, re.M)
    assert "catalogue  running the catalogue-wide steps on tcp://" in err

    # Idempotent: the same seals again publish nothing and leave every pointer as it was.
    before = pointers(str(lake))
    assert main(argv) == 1
    again = capsys.readouterr().out
    assert refusal_block(again) == local_report
    assert sum(line.startswith("unchanged") for line in again.splitlines()) == DEMO_ALPHAS + 1
    assert pointers(str(lake)) == before


@pytest.mark.slow
def test_seals_of_one_alpha_are_built_in_the_order_given(
    cluster: Any, demo_seals: Path, tmp_path: Path
) -> None:
    first = str(demo_seals / "Test_planted_factor")
    second = copy_seal(demo_seals / "Test_planted_factor", tmp_path / "resealed" / "Test_planted_factor")
    manifest = json.loads((second / "manifest.json").read_text())
    manifest["tldr"] = "A second sealing of the same run."
    (second / "manifest.json").write_text(json.dumps(manifest))
    description = json.loads((second / "description.json").read_text())
    description["tldr"] = manifest["tldr"]  # one text in both files (description.tldr_matches_manifest)
    (second / "description.json").write_text(json.dumps(description))
    lake = tmp_path / "lake"
    run = build_on_dask([first, str(second)], str(lake), cluster.scheduler_address)
    assert [r.status for r in run.results] == ["published", "published"]
    builds = [r.build_id for r in run.results if not isinstance(r, Failure)]
    pointer = pointers(str(lake))["Test_planted_factor"]
    assert pointer["build_id"] == builds[1] and pointer["previous_builds"] == [builds[0]]


# -- on S3 ----------------------------------------------------------------------------------------


@pytest.mark.s3
@pytest.mark.slow
def test_cluster_builds_seals_from_an_s3_prefix_into_an_s3_lake(
    dask_url: str, demo_seals: Path, local_demo_lake: Path, s3_bucket: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two alphas and the benchmark under an S3 prefix (the whole corpus goes through the same
    cluster into a local lake above; here what S3 changes: the prefix, the reads, the lake)."""
    fs, _ = fsspec.core.url_to_fs(f"s3://{s3_bucket}", skip_instance_cache=True)
    names = ("Test_short_term_reversal", "Test_low_vol_incomplete", "benchmark_SPY")
    for name in names:
        fs.put(str(demo_seals / name), f"{s3_bucket}/seals/{name}", recursive=True)
    root = f"s3://{s3_bucket}/lake"

    argv = ["build", "--from", f"s3://{s3_bucket}/seals/", "--lake", root, "--executor", dask_url]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"3 seals: 3 built, 0 refused  (lake {root})" in out
    assert_same_lake(
        root, str(local_demo_lake), {"Test_short_term_reversal", "Test_low_vol_incomplete", "benchmark:SPY"}
    )


# -- a worker lost mid-build ----------------------------------------------------------------------

KILLED_ALPHA = "momentum_12_1"


def slow_down_writes(alpha_id: str, seconds: float) -> None:
    """Run on the workers: each serving file of `alpha_id` takes `seconds` longer to write, so a
    kill lands while the build is being written (a restarted worker runs at full speed)."""
    from datasets.writer import BuildWriter

    write = BuildWriter.write_arrow

    def slow_write(self: BuildWriter, path: str, *args: Any) -> Any:
        if f"/alphas/{alpha_id}/" in path:
            time.sleep(seconds)
        return write(self, path, *args)

    BuildWriter.write_arrow = slow_write  # type: ignore[method-assign,assignment]


class RecordedProgress(BuildProgress):
    def __init__(self) -> None:
        self.pids: dict[int, list[int]] = {}
        self.targets: dict[int, str] = {}
        self.results: dict[int, SealResult] = {}

    def queued(self, index: int, seal: str, target: str) -> None:
        self.targets[index] = target

    def running(self, index: int, worker: str, pid: int, attempt: int) -> None:
        self.pids.setdefault(index, []).append(pid)

    def finished(self, index: int, result: SealResult) -> None:
        self.results[index] = result


def kill_while_writing(lake: Path, progress: RecordedProgress, index: int, killed: list[int]) -> None:
    """SIGKILLs the worker process that runs seal `index` once its build has its first file (the
    publish lease is taken before)."""
    builds = lake / "alphas" / KILLED_ALPHA / "builds"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if index in progress.pids and builds.is_dir() and any(p.is_file() for p in builds.rglob("*")):
            pid = progress.pids[index][0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return
        time.sleep(0.005)


@pytest.mark.slow
def test_a_worker_killed_while_it_writes_a_build_costs_a_retry_not_a_second_build(
    cluster: Any, client: Any, demo_seals: Path, local_demo_lake: Path, tmp_path: Path
) -> None:
    seals = sorted(str(p) for p in demo_seals.iterdir() if (p / "manifest.json").exists())
    index = next(i for i, seal in enumerate(seals) if seal.endswith(KILLED_ALPHA))
    lake = tmp_path / "lake"
    client.run(slow_down_writes, KILLED_ALPHA, 0.1)
    progress = RecordedProgress()
    killed: list[int] = []
    killer = threading.Thread(target=kill_while_writing, args=(lake, progress, index, killed), daemon=True)
    killer.start()

    run = build_on_dask(seals, str(lake), cluster.scheduler_address, progress=progress)
    killer.join(timeout=5)

    assert killed, "the worker was not killed"
    # The scheduler ran the task again on another worker process.
    assert len(progress.pids[index]) == 2 and progress.pids[index][1] != killed[0]
    statuses = [r.status for r in run.results]
    assert statuses[:index] + statuses[index + 1 :] == ["published"] * (len(seals) - 1), statuses
    builds = lake / "alphas" / KILLED_ALPHA / "builds"
    intent = lake / "publishing" / f"{KILLED_ALPHA}.json"
    if statuses[index] == "lost_race":
        # The killed attempt's publish lock (`datasets.publish_lock`) was still live when the retry
        # ran: the retry wrote nothing and said so (the command exits 3: run it again).
        assert KILLED_ALPHA not in pointers(str(lake))
        assert len(list(builds.iterdir())) == 1  # the killed attempt's folder alone
        assert json.loads(intent.read_text())["state"] == "writing"
        # Once the lock expired (its expiry set into the past here, instead of waiting), running
        # the seal again publishes it.
        intent.write_text(json.dumps({**json.loads(intent.read_text()), "expires_at": time.time() - 1}))
        again = build_on_dask([seals[index]], str(lake), cluster.scheduler_address)
        assert [r.status for r in again.results] == ["published"], [r.line() for r in again.results]
    else:  # the retry came after the killed attempt's lock had expired: it published
        assert statuses[index] == "published", statuses
    assert not intent.exists()
    assert_same_lake(str(lake), str(local_demo_lake))
    # Published once: no pointer has a previous build, and the current builds are whole.
    current = pointers(str(lake))
    assert all(pointer["previous_builds"] == [] for pointer in current.values())
    # The killed attempt left its half-written folder under its lease; once the lease expired
    # (its expiry set into the past here, instead of waiting), the lake gc takes it and nothing else.
    leftovers = {p.name for p in builds.iterdir()} - {current[KILLED_ALPHA]["build_id"]}
    assert len(leftovers) == 1 and content_id(leftovers.pop()) == content_id(
        current[KILLED_ALPHA]["build_id"]
    )
    for lease in (lake / "alphas" / KILLED_ALPHA / "leases").glob("*.json"):
        lease.write_text(json.dumps({**json.loads(lease.read_text()), "expires_at": time.time() - 1}))
    collected = retention.collect_lake(str(lake))
    assert [g.path.rsplit("/", 3)[-3] for g in collected] == [KILLED_ALPHA]
    assert {p.name for p in builds.iterdir()} == {current[KILLED_ALPHA]["build_id"]}
    assert_same_lake(str(lake), str(local_demo_lake))


# -- without a cluster ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("dask://scheduler.internal:8786", "tcp://scheduler.internal:8786"),
        ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
        ("tls://scheduler:8786", "tls://scheduler:8786"),
        ("scheduler:8786", "tcp://scheduler:8786"),
    ],
)
def test_scheduler_addresses(value: str, address: str) -> None:
    assert scheduler_address(value) == address


@pytest.mark.parametrize(
    "value", ["dask://scheduler", "http://scheduler:8786", "dask://:8786", "scheduler:port"]
)
def test_unreadable_scheduler_addresses_are_refused(value: str) -> None:
    with pytest.raises(SchedulerAddressError):
        scheduler_address(value)


def test_the_executor_comes_from_the_flag_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ALPHA_RESULTS_DASK_SCHEDULER", raising=False)
    assert executor_of(None) is None
    assert executor_of("dask://h:1") == "tcp://h:1"
    monkeypatch.setenv("ALPHA_RESULTS_DASK_SCHEDULER", "dask://h:2")
    assert executor_of(None) == "tcp://h:2"
    assert executor_of("local") is None


def test_the_dask_executor_without_its_extra_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`./dev serve` and `pip install -e .` leave Dask out (serving does not need it)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a)
    )
    assert main(["build", str(tmp_path), "--executor", "dask://h:1"]) == 2
    assert main(["lake", "index", "--lake", str(tmp_path), "--executor", "dask://h:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("pip install 'alpha-results[dask]'") == 2 and "Traceback" not in err


def test_a_bad_executor_or_no_seal_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", str(tmp_path), "--executor", "spark://h:1"]) == 2
    assert main(["build", "--from", str(tmp_path), "--lake", str(tmp_path / "lake")]) == 2
    assert main(["build", "--lake", str(tmp_path / "lake")]) == 2
    err = capsys.readouterr().err
    assert "dask://HOST:PORT" in err and f"no seal (a folder with manifest.json) under {tmp_path}" in err


def test_a_worker_of_another_pipeline_version_fails_the_seal_instead_of_publishing(
    demo_seals: Path, tmp_path: Path
) -> None:
    seal = str(demo_seals / "Test_planted_factor")
    result = build_seal_task(0, seal, "Test_planted_factor", str(tmp_path / "lake"), "0.0.1", "topic", True)
    assert isinstance(result, Failure) and "the client 0.0.1" in result.error
    assert result.line().startswith("failed     Test_planted_factor  (")
    assert not (tmp_path / "lake").exists()


def test_a_catalogue_step_that_raises_is_reported_and_the_next_one_still_runs(tmp_path: Path) -> None:
    ran: list[str] = []

    def broken(lake_root: str, results: Any) -> list[str]:
        raise OSError("the object store went away")

    def counting(lake_root: str, results: Any) -> list[str]:
        ran.append(lake_root)
        return [f"counted {len(results)}"]

    reports = run_catalogue_steps(
        str(tmp_path), [], [CatalogueStep("broken", broken), CatalogueStep("count", counting)]
    )
    assert [r.name for r in reports] == ["broken", "count"]
    assert reports[0].error is not None and reports[0].error.startswith("OSError: the object store went away")
    assert reports[1].lines == ["counted 0"] and reports[1].error is None and ran == [str(tmp_path)]


def test_an_unreachable_scheduler_is_reported_with_exit_code_2(
    demo_seals: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(dask_build, "CONNECT_TIMEOUT_SECONDS", 1)
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    argv = ["build", str(demo_seals / "benchmark_SPY"), "--lake", str(tmp_path / "lake")]
    assert main([*argv, "--executor", f"dask://{address}"]) == 2
    assert f"alpha-results build: Dask scheduler tcp://{address}: " in capsys.readouterr().err
    assert not (tmp_path / "lake").exists()


class Board(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/status" else 404)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_the_dashboard_link_is_given_only_when_the_scheduler_serves_a_dashboard() -> None:
    server = HTTPServer(("127.0.0.1", 0), Board)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        served = SimpleNamespace(dashboard_link=f"{base}/status")
        assert dashboard_link(served) == f"{base}/status"
        # the scheduler's HTTP server without bokeh: a 404 where the dashboard would be
        assert dashboard_link(SimpleNamespace(dashboard_link=f"{base}/other")) is None
    finally:
        server.shutdown()
    closed = f"http://127.0.0.1:{free_port()}/status"
    assert dashboard_link(SimpleNamespace(dashboard_link=closed)) == f"{closed} (not reachable from here)"


# -- review of issue 22, finding 11 ---------------------------------------------------------------


def test_the_targets_are_read_within_the_runs_json_limit(factory_seal: Path, tmp_path: Path) -> None:
    """The client names each seal from its manifest as the local executor does: within
    ALPHA_RESULTS_SEAL_MAX_JSON_BYTES (a manifest over it is named by its folder)."""
    seal = copy_seal(factory_seal, tmp_path / "over_the_limit")
    assert dask_build.seal_targets([str(seal)]) == ["Test_factory"]
    assert dask_build.seal_targets([str(seal)], SealLimits(json_bytes=100)) == ["over_the_limit"]


def test_a_fifo_manifest_never_holds_up_the_client(factory_seal: Path, tmp_path: Path) -> None:
    seal = copy_seal(factory_seal, tmp_path / "Test_fifo")
    (seal / "manifest.json").unlink()
    os.mkfifo(seal / "manifest.json")
    found: list[list[str]] = []
    reader = threading.Thread(target=lambda: found.append(dask_build.seal_targets([str(seal)])), daemon=True)
    reader.start()
    reader.join(timeout=HANG_LIMIT)  # blocked on the fifo, it would never return
    if reader.is_alive():  # blocked opening the fifo: a writer that closes at once lets it go
        os.close(os.open(seal / "manifest.json", os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=20)
        pytest.fail("reading the targets waited on a fifo")
    assert found == [["Test_fifo"]]


@pytest.fixture
def two_seals(tmp_path: Path) -> list[Path]:
    return [
        write_factory_seal(tmp_path / name, alpha_id=name, seed=i)
        for i, name in enumerate(("Test_a", "Test_b"))
    ]


def test_any_exception_of_a_seal_is_its_failed_line_and_the_summary_prints(
    two_seals: list[Path],
    dask_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Reading a target raised (not an OSError) on the client, and a task's result was not a
    seal's: each once ended the command in a traceback with no summary."""
    real_read = seal_module.read_manifest

    def read_raising(storage: Any, path: str, *args: Any) -> Any:
        if path.endswith("Test_a"):
            raise RuntimeError("an object store client fault")
        return real_read(storage, path, *args)

    def returns_no_result(index: int, seal_path: str, *args: Any) -> Any:
        if seal_path.endswith("Test_b"):
            return "not a seal's result"
        from pipeline.dask_build import build_seal_task as real_task

        return real_task(index, seal_path, *args)

    monkeypatch.setattr(seal_module, "read_manifest", read_raising)
    monkeypatch.setattr(dask_build, "build_seal_task", returns_no_result)
    lake = tmp_path / "lake"
    assert main(["build", *map(str, two_seals), "--lake", str(lake), "--executor", dask_url]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("published  Test_a  build ")
    assert lines[1] == f"failed     Test_b  ({two_seals[1]}): the task returned str, not a seal's result"
    assert lines[2] == f"2 seals: 1 built, 0 refused, 1 failed  (lake {lake})"
