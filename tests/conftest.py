"""Fixtures shared by every test folder: the small demo corpus, its lake, and backend gating."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import inspect
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.private_redis import private_redis  # noqa: F401 - outage tests never touch the shared Redis
from tests.s3_server import s3_bucket, s3_demo_lake, s3_endpoint  # noqa: F401 - one moto per session
from tests.schedule import slowest_first
from tests.shared_servers import (  # noqa: F401 - one server of each per worker, for every folder
    shared_server,
    short_head_server,
    two_workers,
)
from tests.tiers import mark_tiers

REQUIRE_BACKENDS = os.environ.get("ALPHA_RESULTS_REQUIRE_BACKENDS") == "1"

# No property test has a deadline or a "too slow" check: those are assertions on a duration, and a
# busy machine (CI's two cores shared with the suite's servers) failed one that took 260 ms once and
# 32 ms when asked again. A test's own `@settings` still chooses its examples.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def pytest_configure(config: pytest.Config) -> None:
    """Bytecode is written and reused during the run, whatever the environment says: the suite
    starts hundreds of Python processes (servers and their workers, CLI commands, build pools, Dask
    workers, moto), and with PYTHONDONTWRITEBYTECODE=1 (set in the development image) over a
    venv installed without .pyc files, each of them compiled numpy, scipy, polars, Litestar and this
    project from source: `import serve.app` took 5-7 s instead of 2.3 s, the suite ~40% longer
    (docs/history.md, "Suite time under the CI limit"). Set before xdist starts its workers, so
    that they and every process a test starts inherit it. (`__pycache__/` is git-ignored.)"""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


def backend_unavailable(reason: str) -> None:
    """Skip a test whose backend is absent; on CI (ALPHA_RESULTS_REQUIRE_BACKENDS=1) fail instead."""
    if REQUIRE_BACKENDS:
        pytest.fail(f"{reason} [ALPHA_RESULTS_REQUIRE_BACKENDS=1 makes this a failure]")
    pytest.skip(reason)


SOURCES = (
    "access",
    "analytics",
    "cli",
    "core",
    "datasets",
    "delivery",
    "pipeline",
    "records",
    "schemas",
    "serve",
    "sealkit/src",
)
"""The folders whose code writes what `built_once` keeps (the demo corpus, the lakes the pipeline
writes from it): with pyproject.toml and uv.lock, their files' bytes name the cache's folder."""

CACHE_DAYS = 7
"""A cached folder not used for this many days is deleted by the next run that builds one."""


@functools.cache
def sources_digest(builder_file: str) -> str:
    """A digest of every byte that decides what `built_once` builds: the project's code (`SOURCES`,
    every file but bytecode), pyproject.toml, uv.lock (the libraries' versions), the Python
    version and the file that defines the build (a test module's own builder)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(sys.version.encode())
    files = [root / "pyproject.toml", root / "uv.lock", Path(builder_file)]
    for folder in SOURCES:
        files += sorted(p for p in (root / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(root) if path.is_relative_to(root) else path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path | None:
    """Where `built_once` keeps its folders between runs: `ALPHA_RESULTS_TEST_CACHE`, by default
    ~/.cache/alpha-results/tests; `off`: nowhere (every run builds them again)."""
    chosen = os.environ.get("ALPHA_RESULTS_TEST_CACHE", "")
    if chosen == "off":
        return None
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(chosen or Path(home) / "alpha-results" / "tests")


def forget_unused(root: Path, keep: Path) -> None:
    """Delete the cache's folders (other digests) not used for `CACHE_DAYS`: the cache stays
    bounded however often the code changes. A folder's use is marked when a run first enters it,
    before anything is built there (`built_once`), so a folder another process is building (a
    worker of another run, another checkout) is never taken for unused: the fourteenth session
    found a families lake cut in half while it was built, kept as if whole."""
    cutoff = time.time() - CACHE_DAYS * 86400
    for other in root.iterdir():
        if other == keep or not other.is_dir():
            continue
        used = other / "used"
        last = (used if used.exists() else other).stat().st_mtime
        if last < cutoff:
            shutil.rmtree(other, ignore_errors=True)


def run_id() -> str:
    """This run's id, the same in every xdist worker: what `built_once` writes when it has checked
    a kept folder, so that the run checks (and, when changed, rebuilds) a folder once, before any
    of its tests read it, never while another worker's test reads it."""
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A folder `build` fills once, shared by the xdist workers and kept between runs in a cache
    named by what builds it (`sources_digest`): the first to ask builds it (holding a lock), the
    others wait for it and read it; a later run of the same code reads it at once. Only for what
    tests never change; a folder whose files changed since it was built is built again.

    The demo lake took a worker about two minutes to play while the other waited for it; each
    worker building its own cost the suite about a minute of one core's time more."""
    root = cache_root()
    if root is None:
        base = tmp_path_factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's folder
    else:
        shared = root / sources_digest(inspect.getfile(build))
        shared.mkdir(parents=True, exist_ok=True)
        (shared / "used").touch()  # before building: `forget_unused` of another process spares it
    folder = shared / f"shared-{name}"
    with (shared / f"shared-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if `build` fails
        done = shared / f"shared-{name}.built"  # beside the folder: tests list what is in it
        kept = json.loads(done.read_text()) if done.exists() else {}
        if kept.get("run") == run_id():
            return folder  # checked (or built) by this run already: another worker's tests read it
        if kept.get("files") != fingerprint(folder, suffixes=None):
            done.unlink(missing_ok=True)
            if folder.exists():
                shutil.rmtree(folder)  # a build that failed half-way, or a kept folder changed
            if root is not None:
                forget_unused(root, shared)
            folder.mkdir()
            build(folder)
        done.write_text(json.dumps({"run": run_id(), "files": fingerprint(folder, suffixes=None)}))
    return folder


@pytest.fixture(scope="session")
def demo_seals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo engine's small corpus: every state the spec names, written once per run."""
    from alpha_results_seal.demo.corpus import write_corpus

    return built_once(tmp_path_factory, "demo_seals", lambda out: write_corpus(out, size="small", seed=7))


@pytest.fixture(scope="session")
def full_demo_seals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo engine's full-size corpus (seed 7, 83 MB), written once per run for the tests that
    only read it: three tests wrote three, eight and one of its alphas for themselves (an alpha's
    seal does not depend on which others are written)."""
    from alpha_results_seal.demo.corpus import write_corpus

    return built_once(tmp_path_factory, "full_demo_seals", lambda out: write_corpus(out, size="full", seed=7))


IMMUTABLE_SUFFIXES = (".parquet", ".arrow", ".npy")
"""A lake's files that are never written again once written: the pipeline writes each new file
whole under a new name (a build's folder, a generation's matrices) and renames it into place; no
code opens an existing one for writing (only `O_EXCL` creations)."""


def linked_copy(source: Path, target: Path) -> Path:
    """A private copy of the lake `source` at `target` for a test that publishes into it, records
    decisions against it or deletes from it: its `IMMUTABLE_SUFFIXES` files are hard links to the
    original's (about 0.2 s against about 2 s for a copy of the demo lake's 287 MB, which some fifty
    tests make), every other file (pointers, manifests, indexes) a copy of its own. Never for a
    test that changes a lake file in place (truncates it, writes it again with `np.save` or
    `pq.write_table` onto its path, changes its mode): the change would reach every other test's
    lake (two did, and seven tests of other files failed after them); those copy with
    `shutil.copytree`."""

    def link_or_copy(src: str, dst: str) -> object:
        if src.endswith(IMMUTABLE_SUFFIXES):
            os.link(src, dst)
            return dst
        return shutil.copy2(src, dst)

    return Path(shutil.copytree(source, target, copy_function=link_or_copy))


def own_file(path: Path) -> Path:
    """Make `path`, a file of a `linked_copy`, the copy's own before a test writes over it in place:
    the link is replaced by a file of the same bytes, so the damage stays in the copy. (Writing
    through the link, `path.write_bytes(...)` onto a linked Parquet file, would damage the original
    and every other copy: `demo_lake_unchanged` fails the run if that happens.)"""
    data = path.read_bytes()
    path.unlink()
    path.write_bytes(data)
    return path


def fingerprint(lake: Path, suffixes: tuple[str, ...] | None = IMMUTABLE_SUFFIXES) -> dict[str, list[int]]:
    """[size, mtime in ns] of each of a folder's files with one of `suffixes` (None: every file):
    what a write through a hard link changes in every copy at once, and what a test writing into a
    kept `built_once` folder changes (the next run then builds it again instead of reading the damage)."""
    return {
        str(path.relative_to(lake)): [stat.st_size, stat.st_mtime_ns]
        for path in sorted(lake.rglob("*"))
        if path.is_file() and (suffixes is None or path.suffix in suffixes) and (stat := path.stat())
    }


DEMO_LAKES_READ: list[tuple[Path, dict[str, tuple[int, int]]]] = []
"""The demo lake this worker's tests read, with its fingerprint when they first asked for it."""


@pytest.fixture(scope="session", autouse=True)
def demo_lake_unchanged() -> Iterator[None]:
    """After the worker's last test: the demo lake every test reads (and `linked_copy` links) still
    has the bytes it was built with. A test that wrote over a linked file in place (instead of
    `own_file` first, or a copy of its own) changed it for every test after it: that test, not
    theirs, is the defect, and this error says so instead of leaving later tests to fail at random."""
    yield
    for lake, before in DEMO_LAKES_READ:
        after = fingerprint(lake)
        changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
        assert not changed, (
            f"the shared demo lake {lake} was changed by a test of this worker (written through a link?): "
            f"{changed[:10]}"
        )


def records_of(lake: Path) -> Path:
    """The SQLite records (promotions, events) kept beside a demo lake built by `demo_lake`."""
    return lake.with_name(f"{lake.name}.records.sqlite3")


@pytest.fixture(scope="session")
def demo_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small demo's history played into a local lake, once per run (tests copy it before
    changing it), with its records beside it (`demo_records`): as `alpha-results demo --lake` and
    `serve --init-demo` play it (`pipeline.demo_history`): each run published at its time on the
    demo's simulated clock, the decisions recorded at theirs (value_composite_legacy approved and
    decaying (its factor reversed), Test_planted_factor approved then retired, momentum_12_1 approved with a restated run,
    Test_short_term_reversal nominated and waiting)."""
    from pipeline.demo_history import play

    def build(lake: Path) -> None:
        records_of(lake).unlink(missing_ok=True)  # a build that failed half-way
        play(str(lake), f"sqlite:///{records_of(lake)}", "small")

    lake = built_once(tmp_path_factory, "demo_lake", build)
    DEMO_LAKES_READ.append((lake, fingerprint(lake)))
    return lake


@pytest.fixture(scope="session")
def demo_records(demo_lake: Path) -> Path:
    """The demo lake's records (a SQLite file): read them, or copy them before writing."""
    return records_of(demo_lake)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test's tier (tests/tiers.py); the slowest files first, so that xdist's two workers
    finish together (tests/schedule.py)."""
    mark_tiers(items)
    slowest_first(items)
