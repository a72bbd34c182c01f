"""The catalogue index (issue 21): generations, concurrent writers, incremental = rebuilt, O(1) refresh.

Rows and matrices are checked against the lake's open tables read independently (polars' Delta
reader and numpy, not the pipeline's readers), and against what `/metrics` serves for the same alpha.
"""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from litestar.testing import TestClient

from alpha_results_seal.storage import Storage
from core.settings import Settings
from datasets import catalog, catalogue_index, layout
from datasets.reader import LakeReader
from pipeline import index_rows as rows
from pipeline.publish import publish_seal
from schemas.lake import SCORE_NEIGHBOURS
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.pipeline.factory import write_factory_seal
from tests.support.build_tables import open_table_rows

VOLATILE = (
    "built_at",
    "indexed_at",
    "replaced_at",
    "entry",
    "score_neighbours",
)  # differ between two publishes


@pytest.fixture(scope="module")
def seals(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("index_seals")
    return [write_factory_seal(root / f"s{n}", alpha_id=f"Test_index_{n}", seed=40 + n) for n in range(4)]


def newest_index(root: str) -> tuple[catalogue_index.Generation, pa.Table]:
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    return generation, catalogue_index.read_index(storage, root, generation)


def score_lists(root: str, index: pa.Table) -> dict[str, list[dict[str, Any]]]:
    """alpha -> the rows of its score neighbours list, as stored."""
    storage = Storage(root)
    paths = dict(
        zip(index.column("alpha_id").to_pylist(), index.column("score_neighbours").to_pylist(), strict=True)
    )
    return {
        alpha: catalogue_index.read_table(storage, root, path, SCORE_NEIGHBOURS).to_pylist()
        for alpha, path in paths.items()
    }


def ledger_returns(root: str, alpha: str) -> tuple[np.ndarray, np.ndarray]:
    """(days, daily returns) of the long_short book, read from the open table at the version the
    current build's generation names."""
    build = catalog.current_build(root, alpha)
    assert build is not None
    ledger = open_table_rows(Path(build.build_dir), "portfolio").filter(pl.col("book") == "long_short")
    table = ledger.to_arrow().sort_by("date")
    days = table.column("date").cast(pa.int32()).to_numpy()
    start = table.column("starting_equity").to_numpy()
    end = table.column("ending_equity").to_numpy()
    return days, end / start - 1.0


def test_every_publish_commits_a_generation_and_incremental_equals_rebuilt(
    seals: list[Path], tmp_path: Path
) -> None:
    root = str(tmp_path / "lake")
    for number, seal in enumerate(seals, 1):
        publish_seal(str(seal), root)
        generation, index = newest_index(root)
        assert generation.number == number  # one generation per publish, numbered without gaps
        assert generation.changes[-1]["alpha_id"] == f"Test_index_{number - 1}"
        assert index.num_rows == number
    incremental_generation, incremental = newest_index(root)
    storage = Storage(root)
    incremental_returns = catalogue_index.read_matrix(storage, root, incremental_generation, "returns")
    rows.rebuild(root)
    rebuilt_generation, rebuilt = newest_index(root)
    assert rebuilt_generation.number == incremental_generation.number + 1
    assert incremental.drop(list(VOLATILE)).equals(rebuilt.drop(list(VOLATILE)))
    # Every alpha is every other's candidate here: each publish's lists, merged one alpha at a
    # time, equal the lists a whole rebuild makes (the files are new ones, their rows the same).
    assert score_lists(root, incremental) == score_lists(root, rebuilt)
    assert all(len(entries) == 3 for entries in score_lists(root, rebuilt).values())
    for basis in ("returns", "returns_days", "ic", "ic_days"):
        before = catalogue_index.read_matrix(storage, root, incremental_generation, basis)
        after = catalogue_index.read_matrix(storage, root, rebuilt_generation, basis)
        assert before is not None and after is not None
        np.testing.assert_array_equal(np.asarray(before), np.asarray(after))  # same bytes, same process
    assert incremental_returns is not None

    # The matrix rows are each alpha's daily returns, on the union of the sessions.
    days = np.asarray(catalogue_index.read_matrix(storage, root, rebuilt_generation, "returns_days"))
    for row, alpha in enumerate(rebuilt.column("alpha_id").to_pylist()):
        own_days, own = ledger_returns(root, alpha)
        values = np.asarray(incremental_returns)[row]
        placed = np.searchsorted(days, own_days)
        np.testing.assert_allclose(values[placed], own, rtol=1e-12)  # one division, as the pipeline's
        assert np.isnan(np.delete(values, placed)).all()
        mean, sd = own.mean(), own.std(ddof=1)
        found = rebuilt.column("sharpe_per_session")[row].as_py()
        assert found == pytest.approx(mean / sd, rel=1e-9)
        assert rebuilt.column("sessions")[row].as_py() == own.size


def test_index_rows_carry_what_metrics_serves(seals: list[Path], tmp_path: Path) -> None:
    root = str(tmp_path / "lake")
    for seal in seals[:2]:
        publish_seal(str(seal), root)
    _, index = newest_index(root)
    app = create_app(Settings(lake=root, environment="test"), authenticate=fake_authenticate, limiter=None)
    with TestClient(app=app) as client:
        for row in index.to_pylist():
            metrics = client.get(
                f"/v1/alphas/{row['alpha_id']}/metrics", headers={"Authorization": "Bearer raw"}
            ).json()
            core = metrics["data"]["core"]
            for column, stat in (
                ("information_ratio", "information_ratio"),
                ("excess_sharpe", "excess_sharpe"),
                ("ic", "ic"),
                ("max_drawdown_pct", "max_drawdown_pct"),
                ("turnover", "turnover"),
            ):
                assert row[column] == core[stat]["value"], column  # the same function, same bytes
            # The ICIR on one basis: /metrics serves core.icir annualised for every run, and the index
            # holds it as served (not annualised twice); icir_per_week is it over sqrt(52).
            icir = core["icir"]
            assert icir["annualisation"] == "annualised"
            assert row["icir"] == icir["value"]
            if icir["value"] is not None:
                per_week = core["icir_per_week"]
                assert per_week["annualisation"] == "per_period"
                assert icir["value"] == pytest.approx(per_week["value"] * math.sqrt(52), rel=1e-12)
            # The flag is /metrics' rule: false exactly where it warns that the IC does not reproduce.
            codes = {w["code"] for w in metrics["meta"]["warnings"]}
            checked = core["ic"]["value"] is not None and "ic_family_mismatch" not in codes
            assert row["ic_reproduces"] == (("ic_reproduction_mismatch" not in codes) if checked else None)
            entry = json.loads(row["entry"])
            assert entry["alpha_id"] == row["alpha_id"] and entry["build_id"] == row["build_id"]


def test_concurrent_writers_lose_no_row(tmp_path: Path) -> None:
    """Eight writers commit at once; each adds its own row. Generations are created exclusively,
    so a writer that lost a race retries on the winner's index: every row is there."""
    root = str(tmp_path / "lake")
    storage = Storage(root)
    names = [f"Test_writer_{n}" for n in range(8)]

    def writer(name: str) -> None:
        def update(current: Any, index: pa.Table | None) -> catalogue_index.Next:
            known = [] if index is None else index.to_pylist()
            table = pa.Table.from_pylist([*known, {"alpha_id": name}], schema=index.schema if index else None)
            return catalogue_index.Next(table, {}, [{"alpha_id": name}])

        catalogue_index.commit(storage, root, update)

    threads = [threading.Thread(target=writer, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    generation, index = newest_index(root)
    assert generation.number == len(names)
    assert sorted(index.column("alpha_id").to_pylist()) == sorted(names)
    written = [catalogue_index.read_generation(storage, root, n) for n in range(1, len(names) + 1)]
    kept = [path for g in written if g is not None for path in (g.index, g.columns) if path is not None]
    assert sorted(p.name for p in (tmp_path / "lake" / "catalogue" / "index").iterdir()) == sorted(
        Path(path).name for path in kept
    )  # a loser's index file (and its columns file) was deleted
    assert len(kept) == 2 * len(names)


def test_a_writer_slower_than_the_collection_never_forks_the_generations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer reads generation 1 and is slow; meanwhile ten others commit and generations 2 and
    up are collected as they age. Its number (2) is free again, yet it must lose and follow the
    newest generation, never create a second generation 2."""
    monkeypatch.setattr(catalogue_index, "KEEP_GENERATIONS", 1)
    monkeypatch.setattr(catalogue_index, "RETENTION_SECONDS", 0.0)
    # Every generation older than the operator's history retention too (a read's as_of keeps them for it).
    monkeypatch.setattr(layout, "history_seconds", lambda: 0.0)
    root = str(tmp_path / "lake")
    storage = Storage(root)

    def adding(name: str) -> catalogue_index.Update:
        def update(current: Any, index: pa.Table | None) -> catalogue_index.Next:
            known = [] if index is None else index.to_pylist()
            table = pa.Table.from_pylist([*known, {"alpha_id": name}], schema=index.schema if index else None)
            return catalogue_index.Next(table, {}, [{"alpha_id": name}])

        return update

    catalogue_index.commit(storage, root, adding("first"))
    attempts: list[int] = []

    def slow(current: Any, index: pa.Table | None) -> catalogue_index.Next:
        attempts.append(current.number)
        if len(attempts) == 1:  # while it computes, the others commit and age out generation 2
            for n in range(10):
                catalogue_index.commit(storage, root, adding(f"other_{n}"))
            assert catalogue_index.read_generation(storage, root, 2) is None
        return adding("slow")(current, index)

    found = catalogue_index.commit(storage, root, slow)
    assert attempts == [1, 11] and found.number == 12
    generation, index = newest_index(root)
    assert generation.number == 12
    assert sorted(index.column("alpha_id").to_pylist()) == sorted(
        ["first", "slow", *(f"other_{n}" for n in range(10))]
    )


COUNTED = ("cat_file", "exists", "ls", "find", "info", "isdir")


def idle_calls(reader: LakeReader, passes: int) -> list[str]:
    """The storage calls `passes` idle refresh passes make (every build open)."""
    calls: list[str] = []
    fs = reader.storage.fs
    own = {name: fs.__dict__[name] for name in COUNTED if name in fs.__dict__}  # async fs: per instance
    for name in COUNTED:
        real = getattr(fs, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        setattr(fs, name, counted)
    try:
        for _ in range(passes):
            reader.refresh()
    finally:
        for name in COUNTED:
            fs.__dict__.pop(name, None)
        fs.__dict__.update(own)
    return calls


def check_idle_refresh(root: str, seals: list[Path], tmp_path: Path) -> None:
    for seal in seals:
        publish_seal(str(seal), root)
    reader = LakeReader(root, refresh_seconds=60, cache_dir=str(tmp_path / "cache"))
    reader.refresh()
    for build in reader.alphas().values():
        reader.view(build).table("portfolio")  # every build open
    reader.refresh()  # the first pass after opening: hashes checked (from local files)
    calls = idle_calls(reader, 3)
    # Per pass: one request, for the next generation (absent); locally also the root's stat.
    assert calls.count("cat_file") == 3, calls
    assert len([c for c in calls if c != "isdir"]) == 3, calls
    publish_seal(str(write_factory_seal(tmp_path / "new", alpha_id="Test_index_new", seed=99)), root)
    reader.refresh()
    assert "Test_index_new" in reader.alphas()
    reader.close()


def test_an_idle_refresh_reads_one_object(seals: list[Path], tmp_path: Path) -> None:
    check_idle_refresh(str(tmp_path / "lake"), seals, tmp_path)


@pytest.mark.s3
def test_an_idle_refresh_on_s3_makes_one_request(seals: list[Path], tmp_path: Path, s3_bucket: str) -> None:
    check_idle_refresh(f"s3://{s3_bucket}/lake", seals, tmp_path)


def test_gc_keeps_the_build_the_index_serves(seals: list[Path], tmp_path: Path) -> None:
    """A publish killed after its pointer switch leaves the index on the previous build: garbage
    collection keeps that build, whatever the pointer's history says."""
    from datasets import retention

    root = str(tmp_path / "lake")
    first = publish_seal(str(seals[0]), root)
    alpha = first.target
    served = first.build_id
    pointer_path = layout.alpha_pointer(root, alpha)
    # The pointer names a build the index does not (as after a kill between switch and commit).
    (Path(pointer_path)).write_text(json.dumps({"alpha_id": alpha, "build_id": "elsewhere"}))
    builds_dir = layout.alpha_builds_dir(root, alpha)
    garbage = retention.find_garbage(Storage(root), builds_dir, pointer_path, now=math.inf)
    assert served not in {g.build_id for g in garbage}


def test_serve_init_demo_indexes_a_lake_published_before_the_index(
    seals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from cli.serve import index_if_absent

    root = str(tmp_path / "lake")
    for seal in seals[:2]:
        publish_seal(str(seal), root)
    shutil.rmtree(tmp_path / "lake" / "catalogue")  # as published before the index
    reader = LakeReader(root, refresh_seconds=60)
    assert reader.catalogue().index is None and len(reader.alphas()) == 2  # still served, from pointers
    index_if_absent(root)
    assert "has no catalogue index" in capsys.readouterr().out
    generation, index = newest_index(root)
    assert generation.number == 1 and index.num_rows == 2
    index_if_absent(root)  # an indexed lake: nothing to do
    assert newest_index(root)[0].number == 1


def test_only_a_lake_with_published_builds_is_warned_of_a_missing_index(
    seals: list[Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An empty lake has nothing to index: a first `serve --init-demo` said the lake had no
    catalogue index just before building one (issue 33)."""
    import shutil

    root = tmp_path / "lake"
    root.mkdir()
    assert LakeReader(str(root), refresh_seconds=60).alphas() == {}
    assert "catalogue index" not in caplog.text
    publish_seal(str(seals[0]), str(root))
    shutil.rmtree(root / "catalogue")  # as published before the index
    assert list(LakeReader(str(root), refresh_seconds=60).alphas()) == ["Test_index_0"]
    assert f"the lake {root} has no catalogue index" in caplog.text


def test_a_first_init_demo_says_nothing_of_an_index_before_building_the_lake(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cli.serve import init_demo
    from pipeline import demo_history

    class Built(Exception):
        """Stands for the demo history (a minute of work): what came before it is the point."""

    def publish_seal(*args: Any, **kwargs: Any) -> Any:
        raise Built

    monkeypatch.setattr(demo_history, "publish_seal", publish_seal)  # its first run's publish
    (tmp_path / "lake").mkdir()
    settings = Settings(
        lake=str(tmp_path / "lake"),
        keystore_url=f"sqlite:///{tmp_path}/keys.sqlite3",
        signing_key_file=str(tmp_path / "signing.key"),
    )
    with pytest.raises(Built):
        init_demo(settings)
    said = capsys.readouterr()
    assert f"The lake {tmp_path / 'lake'} holds no alpha: playing the small demo's history" in said.out
    assert "catalogue index" not in said.out + said.err + caplog.text


def test_a_deferred_backfill_is_served_once_the_lake_is_indexed(
    seals: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    root = str(tmp_path / "lake")
    publish_seal(str(seals[0]), root)
    reader = LakeReader(root, refresh_seconds=60)
    assert list(reader.alphas()) == ["Test_index_0"]
    assert main(["build", *(str(s) for s in seals[1:]), "--lake", root, "--jobs", "1", "--defer-index"]) == 0
    assert f"`alpha-results lake index --events --lake {root}`" in capsys.readouterr().out
    generation, index = newest_index(root)
    assert generation.number == 1 and index.num_rows == 1  # no generation per publish
    reader.refresh()
    assert list(reader.alphas()) == ["Test_index_0"]  # readers serve what the index names
    assert main(["lake", "index", "--lake", root]) == 0
    reader.refresh()
    assert sorted(reader.alphas()) == [f"Test_index_{n}" for n in range(len(seals))]


def test_a_reader_left_behind_collected_generations_finds_the_newest(
    seals: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = str(tmp_path / "lake")
    for seal in seals[:3]:
        publish_seal(str(seal), root)
    storage = Storage(root)
    first = catalogue_index.read_generation(storage, root, 1)
    assert first is not None
    # A paused worker still at generation 1; generation 2 was collected meanwhile.
    (tmp_path / "lake" / "catalogue" / "generations" / f"{2:012d}.json").unlink()
    assert catalogue_index.newest(storage, root, first) is first  # a young generation: one request
    monkeypatch.setattr(catalogue_index, "RETENTION_SECONDS", 0.0)  # now it is old enough to doubt
    found = catalogue_index.newest(storage, root, first)
    assert found is not None and found.number == 3


def test_a_rebuild_keeps_what_publishes_committed_while_it_ran(seals: list[Path], tmp_path: Path) -> None:
    """`lake index` computes its rows and pairings first; two publishes commit meanwhile (a new
    alpha, and a new build of one it is rebuilding). The rebuild retries on their generation and
    keeps both as they committed them, never the stale build."""
    root = str(tmp_path / "lake")
    for seal in seals[:3]:
        publish_seal(str(seal), root)
    republished = write_factory_seal(tmp_path / "again", alpha_id="Test_index_0", seed=77)

    def pair_then_publish(lake: str, plan: Any) -> Any:
        found = rows.pair_locally(lake, plan)
        publish_seal(str(seals[3]), root)
        publish_seal(str(republished), root)
        return found

    rows.rebuild(root, pair_all=pair_then_publish)
    generation, index = newest_index(root)
    assert generation.changes == [{"rebuilt": 2}]  # Test_index_0's computed row was stale
    by_alpha = {row["alpha_id"]: row for row in index.to_pylist()}
    assert sorted(by_alpha) == [f"Test_index_{n}" for n in range(4)]
    current = catalog.current_build(root, "Test_index_0")
    assert current is not None and by_alpha["Test_index_0"]["build_id"] == current.build_id
    storage = Storage(root)
    returns = catalogue_index.read_matrix(storage, root, generation, "returns")
    assert returns is not None
    for row, alpha in enumerate(index.column("alpha_id").to_pylist()):
        assert np.isfinite(np.asarray(returns)[row]).any(), alpha  # every alpha has its returns
        assert by_alpha[alpha]["score_neighbours"] is not None, alpha
    lists = score_lists(root, index)
    for alpha, entries in lists.items():  # no list pairs a build that is no longer served
        for entry in entries:
            assert by_alpha[entry["neighbour_id"]]["build_id"] == entry["neighbour_build"], (alpha, entry)


def test_gc_keeps_the_build_the_index_replaced_while_workers_may_serve_it(
    seals: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backfill republishes an alpha without indexing it; long after, `lake index` moves the
    index to the new build. The pointer's history no longer keeps the old build, but a worker on
    the previous generation still serves it: garbage collection keeps it for the build retention."""
    from datasets import retention

    root = str(tmp_path / "lake")
    publish_seal(str(seals[0]), root)
    old = catalog.current_build(root, "Test_index_0")
    assert old is not None
    again = write_factory_seal(tmp_path / "again", alpha_id="Test_index_0", seed=200)
    publish_seal(str(again), root, indexed=False)
    builds_dir = layout.alpha_builds_dir(root, "Test_index_0")
    pointer = layout.alpha_pointer(root, "Test_index_0")
    storage = Storage(root)
    # Long after: the pointer's history no longer names the old build (a later publish pruned it).
    document = json.loads(Path(pointer).read_text())
    document["previous_builds"], document["superseded_at"] = [], {}
    Path(pointer).write_text(json.dumps(document))
    assert old.build_id not in retention.history(catalog.read_json(storage, pointer))
    # The newest generation still names it (workers serve it): kept.
    assert old.build_id not in {g.build_id for g in retention.find_garbage(storage, builds_dir, pointer)}
    rows.rebuild(root)  # the index now names the newest build, and the one it replaced
    _, index = newest_index(root)
    assert index.column("previous_build_id").to_pylist() == [old.build_id]
    garbage = {g.build_id for g in retention.find_garbage(storage, builds_dir, pointer)}
    assert old.build_id not in garbage
    monkeypatch.setattr(layout, "BUILD_RETENTION_SECONDS", 0)  # ... for the retention only
    garbage = {g.build_id for g in retention.find_garbage(storage, builds_dir, pointer)}
    assert old.build_id in garbage
