"""Delta generations (issue 51, items 3 and 5): a publish commits the rows it changes over the
newest generation's base, and every answer a worker serves from that delta generation equals the
answer served after a whole `lake index` rebuild of the same lake; the trials' exact sums kept by
the publishes equal the rebuild's, and the variance they give equals numpy's pass within 1e-12.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from litestar.testing import TestClient

from alpha_results_seal.storage import Storage
from analytics import significance
from core.settings import Settings
from datasets import catalogue_index, layout
from datasets.trial_sums import TrialSums, of_column
from pipeline import index_rows as rows
from pipeline.publish import publish_seal
from serve.app import create_app
from tests.api.conftest import fake_authenticate
from tests.conftest import linked_copy
from tests.pipeline.factory import write_factory_seal
from tests.support.catalogue_generations import newest, stripped

VOLATILE = ("built_at", "indexed_at", "replaced_at", "score_neighbours", "previous_build_id")
"""Index columns that say when a row was written and which list file it names (the lists' rows
are compared), not what is served."""
MATRICES = ("returns", "returns_days", "ic", "ic_days", "risk_free", "risk_free_days")


def renamed(seals: Path, alpha: str, folder: Path) -> Path:
    """A copy of `alpha`'s demo seal under another name: a new build of the same data."""
    seal = folder / alpha
    shutil.copytree(seals / alpha, seal)
    manifest = seal / "manifest.json"
    document = json.loads(manifest.read_text())
    document["name"] = f"{document['name']} (again)"
    manifest.write_text(json.dumps(document))
    return seal


def served(root: str, alphas: list[str]) -> dict[str, Any]:
    """Every catalogue-wide answer a worker serves over the lake's newest generation."""
    app = create_app(Settings(lake=root, environment="test"), authenticate=fake_authenticate, limiter=None)
    paths = [
        "/v1/alphas?limit=100",
        "/v1/alphas?limit=100&search=Test",
        "/v1/analytics/screen?limit=100",
        "/v1/analytics/screen?limit=100&sort=-information_ratio&min_sessions=10",
    ]
    for alpha in alphas:
        base = f"/v1/alphas/{alpha}/analytics"
        paths += [
            f"{base}/correlation?basis=returns",
            f"{base}/correlation?basis=ic",
            f"{base}/correlation?basis=scores",
            f"{base}/significance",
            f"{base}/catalogue_bound",
            f"{base}/residual",
            f"/v1/analytics/screen?limit=100&max_correlation=0.5&correlated_to={alpha}",
        ]
    found = {}
    with TestClient(app=app) as client:
        for path in paths:
            response = client.get(path, headers={"Authorization": "Bearer raw"})
            body = (
                response.json()
                if response.headers.get("content-type", "").startswith("application/json")
                else response.text
            )
            found[path] = (response.status_code, stripped(body))
    return found


def test_a_delta_generation_serves_what_a_rebuild_serves(
    demo_lake: Path, demo_seals: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each publish chooses its score-neighbour candidates with the correlation index (no pass over
    # every alpha's series), and the lists still equal the rebuild's (below).
    by_index: list[str] = []
    chosen = rows._chosen

    def counted(*args: Any) -> dict[str, list[int]]:
        found = chosen(*args)
        by_index.extend(found)
        return found

    monkeypatch.setattr(rows, "_chosen", counted)
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    first = newest(root)
    seals = [
        write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_delta_{n}", seed=60 + n, weeks=10)
        for n in range(3)
    ]
    for seal in seals:  # new alphas (their own dates: the delta's matrices extend the days)
        assert publish_seal(str(seal), root).status == "published"
    # A republish of a published alpha that is not approved (a delta), then another new alpha.
    again = renamed(demo_seals, "Test_planted_factor", tmp_path / "again")
    assert publish_seal(str(again), root).status == "published"
    incremental = newest(root)
    assert incremental.delta is not None, "publishes commit deltas"
    assert sorted(by_index) == sorted([*(f"Test_delta_{n}" for n in range(3)), "Test_planted_factor"])
    assert incremental.base <= first.number + 1 < incremental.number
    index = catalogue_index.read_index(storage, root, incremental)
    alphas = index.column("alpha_id").to_pylist()
    assert len(alphas) == len(set(alphas)) == catalogue_index.read_index(storage, root, first).num_rows + 3
    before = served(root, alphas)
    matrices = {
        name: np.asarray(catalogue_index.read_matrix(storage, root, incremental, name)) for name in MATRICES
    }
    lists = {
        a: _list(storage, root, p)
        for a, p in zip(alphas, index.column("score_neighbours").to_pylist(), strict=True)
    }
    sums = TrialSums.parse(incremental.trials)

    rows.rebuild(root)
    rebuilt = newest(root)
    assert rebuilt.delta is None
    rebuilt_index = catalogue_index.read_index(storage, root, rebuilt)
    assert index.drop(list(VOLATILE)).equals(rebuilt_index.drop(list(VOLATILE)))
    for name in MATRICES:
        np.testing.assert_array_equal(
            matrices[name], np.asarray(catalogue_index.read_matrix(storage, root, rebuilt, name))
        )
    assert lists == {
        a: _list(storage, root, p)
        for a, p in zip(alphas, rebuilt_index.column("score_neighbours").to_pylist(), strict=True)
    }
    # The trials' sums, kept publish by publish, are the rebuild's exactly (integers).
    assert sums is not None and sums == TrialSums.parse(rebuilt.trials)
    column = np.asarray(
        pa.array(rebuilt_index.column("sharpe_per_session").to_pylist(), pa.float64()).to_numpy(
            zero_copy_only=False
        )
    )
    assert sums == of_column(np.where(np.isnan(column), np.nan, column))
    after = served(root, alphas)
    # The Rademacher anti-serum too (issue 81, item 7): its complexity is computed over the readable
    # rows when asked, not the delta generation's stored upper bound, so the delta serves it exactly
    assert [path for path in before if path.endswith("/catalogue_bound")]
    differing = [path for path in before if before[path] != after[path]]
    if differing:
        import difflib

        for path in differing[:3]:
            a = json.dumps(before[path], indent=1, sort_keys=True).splitlines()
            b = json.dumps(after[path], indent=1, sort_keys=True).splitlines()
            print(path, "\n".join(list(difflib.unified_diff(a, b, lineterm=""))[:40]))
    assert not differing, differing[:5]
    assert sum(status == 200 for status, _ in before.values()) >= len(before) - len(
        alphas
    )  # answers, not refusals


def _list(storage: Storage, root: str, path: str | None) -> list[dict[str, Any]] | None:
    if path is None:
        return None
    from schemas.lake import SCORE_NEIGHBOURS

    return catalogue_index.read_table(storage, root, path, SCORE_NEIGHBOURS).to_pylist()


def test_compaction_folds_the_delta_into_the_same_catalogue(demo_lake: Path, tmp_path: Path) -> None:
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    for n in range(2):
        seal = write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_compact_{n}", seed=70 + n)
        publish_seal(str(seal), root)
    delta = newest(root)
    assert delta.delta is not None
    assert rows.compact(root) is None  # below COMPACT_AFTER
    number = rows.compact(root, force=True)
    whole = newest(root)
    assert number == whole.number and whole.delta is None and whole.base == whole.number
    assert catalogue_index.read_index(storage, root, delta).equals(
        catalogue_index.read_index(storage, root, whole)
    )
    for name in (*MATRICES, "returns_z", "ic_z", "returns_span", "ic_span"):
        np.testing.assert_array_equal(
            np.asarray(catalogue_index.read_matrix(storage, root, delta, name)),
            np.asarray(catalogue_index.read_matrix(storage, root, whole, name)),
        )
    assert whole.trials is not None and delta.trials is not None
    # The trials' sums and links carried; the Rademacher anti-serum's complexity computed over every
    # row again, no more than the delta's base + its rows (an upper bound: pipeline/catalogue_bound.py)
    assert {k: v for k, v in whole.trials.items() if k != "ras"} == {
        k: v for k, v in delta.trials.items() if k != "ras"
    }
    for basis in ("returns", "ic"):
        exact, kept = whole.trials["ras"][basis], delta.trials["ras"][basis]
        assert exact["delta"] == [0.0, 0.0, 0]
        assert exact["base"][0] <= kept["base"][0] + kept["delta"][0] + 1e-9
        assert exact["base"][2] <= kept["base"][2] + kept["delta"][2]


def test_the_served_trials_from_the_sums_equal_the_pass(
    demo_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key reading every alpha is answered V from the generation's sums (from INCREMENTAL_FROM
    alphas; here from any): the DSR and its trials figures equal the pass over the column's within
    1e-12, for a key that may not read every alpha the pass is served as before."""
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    seal = write_factory_seal(tmp_path / "seals" / "f", alpha_id="Test_trials_0", seed=80)
    publish_seal(str(seal), root)
    assert newest(root).trials is not None
    app = create_app(Settings(lake=root, environment="test"), authenticate=fake_authenticate, limiter=None)
    path = "/v1/alphas/momentum_12_1/analytics/significance"
    with TestClient(app=app) as client:
        by_pass = client.get(path, headers={"Authorization": "Bearer raw"}).json()["data"]
        monkeypatch.setattr(significance, "INCREMENTAL_FROM", 0)
        by_sums = client.get(path, headers={"Authorization": "Bearer raw"}).json()["data"]
    dsr_pass, dsr_sums = by_pass["dsr"], by_sums["dsr"]
    assert dsr_sums["trials"]["count"] == dsr_pass["trials"]["count"]
    assert dsr_sums["trials"]["sharpe_variance_alphas"] == dsr_pass["trials"]["sharpe_variance_alphas"]
    for figure in ("sharpe_variance", "expected_max_sharpe"):
        a, b = dsr_pass["trials"].get(figure), dsr_sums["trials"].get(figure)
        if isinstance(a, dict):
            a, b = a.get("value"), b.get("value")
        assert a is not None and math.isclose(a, b, rel_tol=0, abs_tol=1e-12), figure
    assert math.isclose(dsr_pass["value"], dsr_sums["value"], rel_tol=0, abs_tol=1e-12)


def test_collection_keeps_the_base_the_kept_deltas_name(
    demo_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Old generations go with their delta files, never the base a kept generation still names, nor
    a generation a decision's pin names (`datasets.pins`: the demo's decisions pinned theirs)."""
    monkeypatch.setattr(catalogue_index, "RETENTION_SECONDS", 0)
    monkeypatch.setattr(catalogue_index, "KEEP_GENERATIONS", 1)
    # Every generation older than the operator's history retention too (a read's as_of keeps them for it).
    monkeypatch.setattr(layout, "history_seconds", lambda: 0.0)
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    for n in range(4):
        seal = write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_collect_{n}", seed=90 + n)
        publish_seal(str(seal), root)
    last = newest(root)
    assert last.delta is not None and last.base < last.number - 1
    index_files = storage.list_names(f"{root}/catalogue/index")
    assert any(name.startswith(f"{last.base:012d}-") and ".delta" not in name for name in index_files)
    deltas = sorted(name for name in index_files if ".delta" in name)
    pinned = {json.loads(p.read_text())["generation"] for p in (Path(root) / "pins").glob("*.json")}
    assert pinned - {None}, "the demo's decisions pinned no generation"
    older = {int(name[:12]) for name in deltas if int(name[:12]) < last.number - 1}
    assert older <= pinned, (deltas, sorted(pinned - {None}))  # older deltas collected, but the pinned
    for number in pinned - {None}:  # a pinned generation is still read whole
        generation = catalogue_index.read_generation(storage, root, number)
        assert generation is not None, number
        assert catalogue_index.read_index(storage, root, generation).num_rows > 0, number
    read = catalogue_index.read_index(storage, root, last)
    assert {f"Test_collect_{n}" for n in range(4)} <= set(read.column("alpha_id").to_pylist())
    assert catalogue_index.read_matrix(storage, root, last, "returns") is not None


def _without_columns_file(root: str) -> catalogue_index.Generation:
    """The lake's newest generation as one written before `PUBLISH_COLUMNS` files (issue 63, item
    3): its document without `columns`, the file gone (rewritten, not edited: the copy's files are
    hard links to the shared demo lake's)."""
    generation = newest(root)
    assert generation.columns is not None, "a whole generation writes its columns file"
    (Path(root) / "catalogue" / generation.columns).unlink()
    path = Path(catalogue_index.generation_path(root, generation.number))
    document = json.loads(path.read_text())
    del document["columns"]
    path.unlink()
    path.write_text(json.dumps(document))
    return newest(root)


def test_the_first_publish_onto_an_older_base_writes_its_columns_file(
    demo_lake: Path, tmp_path: Path
) -> None:
    """A base without a columns file (an older lake) gets one from its first publish, under the base's
    number, named by every delta over it; what a publish reads from it (mapped) equals the columns
    decoded from the Parquet index, merged with the delta as before."""
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    old = _without_columns_file(root)
    assert old.columns is None
    columns = list(catalogue_index.PUBLISH_COLUMNS)
    decoded = catalogue_index.base_columns(storage, root, old, columns)  # from Parquet
    for n in range(2):
        seal = write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_columns_{n}", seed=40 + n)
        assert publish_seal(str(seal), root).status == "published"
        following = newest(root)
        assert following.delta is not None and following.delta.base == old.base
        assert following.columns is not None and following.columns.startswith(f"index/{old.base:012d}-")
        if n == 0:
            written = following.columns
        assert following.columns == written  # written once, by the first publish
    mapped = catalogue_index.base_columns(storage, root, following, columns)
    assert mapped.equals(decoded.select(mapped.column_names))
    assert mapped.column_names == columns
    # The merged columns, mapped, equal those decoded from the Parquet index (the same generation
    # without its file), and the whole merged index's.
    from dataclasses import replace

    parquet_only = replace(following, columns=None)
    merged = catalogue_index.read_index(storage, root, following, columns)
    assert merged.equals(catalogue_index.read_index(storage, root, parquet_only, columns))
    assert merged.equals(catalogue_index.read_index(storage, root, following).select(columns))
    assert {"Test_columns_0", "Test_columns_1"} <= set(merged.column("alpha_id").to_pylist())


def test_a_whole_generations_columns_file_holds_its_index_columns(demo_lake: Path) -> None:
    root = str(demo_lake)
    storage = Storage(root)
    generation = catalogue_index.read_generation(storage, root, newest(root).base)
    assert generation is not None and generation.delta is None and generation.columns is not None
    columns = list(catalogue_index.PUBLISH_COLUMNS)
    mapped = catalogue_index.read_index(storage, root, generation, columns)
    whole = catalogue_index.read_index(storage, root, generation)
    assert mapped.column_names == columns and mapped.equals(whole.select(columns))


def test_the_merge_order_equals_the_sorted_order() -> None:
    """`_merge_order` inserts the delta's rows among the kept base rows (no sort of N): the order a
    sort by (position, delta first, stored order) gives, for random deltas of random bases."""
    rng = np.random.default_rng(63)
    for _ in range(200):
        size = int(rng.integers(0, 40))
        ids = [f"a{n:03d}" for n in range(size)]
        replaced = [a for a in ids if rng.random() < 0.2]
        removed = [a for a in ids if a not in replaced and rng.random() < 0.1]
        new = [f"b{n:03d}" for n in range(int(rng.integers(0, 6)))]
        changed_ids = [*replaced, *new]
        positions = np.sort(rng.integers(0, size + 1, len(changed_ids)))
        changed = pa.table(
            {
                "alpha_id": pa.array(changed_ids, pa.string()),
                catalogue_index.POSITION: pa.array(positions, pa.int64()),
            }
        )
        delta = catalogue_index.Delta(base=1, index="x", removed=removed)
        keep, order = catalogue_index._merge_order(
            pa.chunked_array([pa.array(ids, pa.string())]), changed, delta
        )
        kept = np.flatnonzero(keep)
        assert set(np.asarray(ids, dtype=object)[kept].tolist()) == set(ids) - set(replaced) - set(removed)
        sorted_order = np.lexsort(
            (
                np.concatenate([np.zeros(kept.size, np.int64), np.arange(positions.size)]),
                np.concatenate([np.ones(kept.size, np.int8), np.zeros(positions.size, np.int8)]),
                np.concatenate([kept, positions]),
            )
        )
        np.testing.assert_array_equal(order, sorted_order)


def test_the_column_sums_equal_each_value_added() -> None:
    """`of_column` (vectorised) equals adding each value as an exact integer (`TrialSums.plus`), over
    normal, subnormal, huge, negative, zero and non-finite values."""
    rng = np.random.default_rng(51)
    cases = [
        rng.standard_normal(3_000) * 0.05,
        np.array(
            [5e-324, -5e-324, 1e-310, -2.5e-308, 1e300, -1e300, 0.0, -0.0, np.nan, np.inf, -np.inf, 3.0]
        ),
        rng.standard_normal(2_000) * 10.0 ** rng.integers(-320, 300, 2_000),
        np.array([]),
    ]
    for values in cases:
        assert of_column(values) == TrialSums(0, 0, 0).plus(values[np.isfinite(values)].tolist())


def test_a_publish_pairs_over_its_candidates_as_over_every_listed_alpha(
    demo_lake: Path, demo_seals: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the correlation index chose a publish's candidates, the update turns only them (and the
    approved alphas) into rows and looks up the alphas the lists it reads name as it reads them
    (issue 63, item 3): the lists, rows and matrices it commits equal those of the update over every
    alpha with a list. Few candidates and neighbours, so the index leaves rows out and the lists
    name alphas beyond the candidates."""
    from pipeline import catalogue_neighbours

    monkeypatch.setattr(catalogue_neighbours, "CANDIDATES", 4)
    monkeypatch.setattr(catalogue_neighbours, "NEIGHBOURS", 5)
    resolved: list[int] = []
    listed_rows = rows._listed_rows

    def counted(*args: Any) -> list[tuple[str, str, str]]:
        found = listed_rows(*args)
        resolved.append(len(found))
        return found

    monkeypatch.setattr(rows, "_listed_rows", counted)
    seals = [
        write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_subset_{n}", seed=20 + n, weeks=10)
        for n in range(2)
    ]
    again = renamed(demo_seals, "Test_planted_factor", tmp_path / "again")
    found = {}
    for way in ("candidates", "every_listed"):
        if way == "every_listed":
            monkeypatch.setattr(
                rows, "_turned", lambda slim, approved, has_list, open_rows: approved | has_list
            )
        root = str(tmp_path / way / "lake")
        linked_copy(demo_lake, root)
        for seal in [*seals, again]:
            assert publish_seal(str(seal), root).status == "published"
        generation = newest(root)
        assert generation.delta is not None
        storage = Storage(root)
        index = catalogue_index.read_index(storage, root, generation)
        alphas = index.column("alpha_id").to_pylist()
        builds = dict(zip(alphas, index.column("build_id").to_pylist(), strict=True))

        def current(
            entries: list[dict[str, Any]] | None, builds: dict[str, str] = builds
        ) -> list[dict[str, Any]] | None:
            """A list's entries, each build said as current or not (a publish's build ids differ
            from copy to copy)."""
            if entries is None:
                return None
            return [
                {**e, "neighbour_build": e["neighbour_build"] == builds.get(e["neighbour_id"])}
                for e in entries
            ]

        found[way] = (
            index.drop([*VOLATILE, "build_id", "entry"]),
            {
                a: current(_list(storage, root, p))
                for a, p in zip(alphas, index.column("score_neighbours").to_pylist(), strict=True)
            },
            {n: np.asarray(catalogue_index.read_matrix(storage, root, generation, n)) for n in MATRICES},
            [c["alpha_id"] for c in generation.changes],
        )
        if way == "candidates":
            assert resolved and sum(resolved) > 0, "the lists named alphas beyond the candidates"
    (index_a, lists_a, matrices_a, changes_a), (index_b, lists_b, matrices_b, changes_b) = found.values()
    assert index_a.equals(index_b)
    assert lists_a == lists_b
    assert changes_a == changes_b
    for name in MATRICES:
        np.testing.assert_array_equal(matrices_a[name], matrices_b[name])


def _gap_lists_of(storage: Storage, root: str, generation: catalogue_index.Generation, basis: str) -> Any:
    """(the generation's stored gap lists as read (`read_gaps`, `stored_gaps`), those `gap_lists`
    makes from its merged z rows); the first None without stored lists."""
    from analytics import nearest

    z = catalogue_index.read_matrix(storage, root, generation, f"{basis}_z")
    span = catalogue_index.read_matrix(storage, root, generation, f"{basis}_span")
    days = catalogue_index.read_matrix(storage, root, generation, f"{basis}_days")
    assert z is not None and span is not None and days is not None
    spans = nearest.spans(span, days)
    stored = catalogue_index.read_gaps(storage, root, generation, basis)
    read = None if stored is None else nearest.stored_gaps(stored[0], stored[1], z, spans)
    return read, nearest.gap_lists(z, spans)


def _assert_same_gaps(found: Any, expected: Any) -> None:
    for name in ("start", "count", "columns", "listed"):
        assert np.array_equal(getattr(found, name), getattr(expected, name)), name


def _without_gap_lists(root: str) -> catalogue_index.Generation:
    """The newest generation as one written before the stored gap lists (issue 63, item 3): its
    document (rewritten, not edited: hard links) naming none, its delta's neither."""
    generation = newest(root)
    path = Path(catalogue_index.generation_path(root, generation.number))
    document = json.loads(path.read_text())
    gap = ("_gapcount", "_gaps")
    document["matrices"] = {k: v for k, v in document["matrices"].items() if not k.endswith(gap)}
    if "delta" in document:
        matrices = document["delta"]["matrices"]
        document["delta"]["matrices"] = {k: v for k, v in matrices.items() if not k.endswith(gap)}
    path.unlink()
    path.write_text(json.dumps(document))
    return newest(root)


def test_stored_gap_lists_equal_those_made_from_the_z_rows(
    demo_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every generation stores its correlation index's gap lists (`nearest.gap_matrices`, issue 63
    item 3): read, they equal `gap_lists` of its z rows, for a whole generation and through the
    merge of each delta after it (new alphas on their own dates, a republish); a publish's
    candidate pass reads each part's (`_index_parts`), equal to `gap_lists` of the part's rows."""
    from analytics import nearest
    from pipeline import catalogue_neighbours

    monkeypatch.setattr(catalogue_neighbours, "CANDIDATES", 4)  # the candidate pass runs
    parts_read: list[int] = []
    index_parts = rows._index_parts

    def checked(*args: Any) -> Any:
        found = index_parts(*args)
        for z, spans, _, _, gaps in found or []:
            _assert_same_gaps(gaps, nearest.gap_lists(z, spans))
            parts_read.append(z.shape[0])
        return found

    monkeypatch.setattr(rows, "_index_parts", checked)
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    seals = [
        write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_gaps_{n}", seed=70 + n, weeks=10)
        for n in range(2)
    ]
    base = catalogue_index.read_generation(storage, root, newest(root).base)
    generations = [base, newest(root)]
    for seal in seals:
        assert publish_seal(str(seal), root).status == "published"
        generations.append(newest(root))
    assert base is not None and base.delta is None
    assert all(g is not None and g.delta is not None for g in generations[2:])
    assert parts_read, "the candidate pass read the index"
    listed = 0
    for generation in generations:
        assert generation is not None
        for basis in nearest.INDEXED_BASES:
            assert f"{basis}_gapcount" in generation.matrices
            if generation.delta is not None:
                assert f"{basis}_gapcount" in generation.delta.matrices
            read, made = _gap_lists_of(storage, root, generation, basis)
            assert read is not None
            _assert_same_gaps(read, made)
            listed += int(made.count.sum())
    assert listed > 0, "the demo's rows have gaps"


def test_an_older_generation_without_gap_lists_answers_the_same(
    demo_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generation written before the stored gap lists (its document naming none) is read as
    before: its readers make the lists from the z rows, equal to those stored; every catalogue-wide
    answer (the correlation index used from one row) equals the one served with the lists. Its
    first publish whose candidate pass made the base's stores them under the base's number, named by
    the deltas after it, equal to `gap_lists`."""
    from analytics import correlation, nearest
    from pipeline import catalogue_neighbours

    monkeypatch.setattr(nearest, "APPROXIMATE_FROM", 1)
    monkeypatch.setattr(correlation, "EXACT_ROWS", 0)
    monkeypatch.setattr(catalogue_neighbours, "CANDIDATES", 4)
    alphas = ["momentum_12_1", "Test_planted_factor"]
    root = str(tmp_path / "lake")
    linked_copy(demo_lake, root)
    storage = Storage(root)
    seal = write_factory_seal(tmp_path / "seals" / "f0", alpha_id="Test_older_0", seed=80, weeks=10)
    assert publish_seal(str(seal), root).status == "published"
    stored = served(root, [*alphas, "Test_older_0"])
    older = _without_gap_lists(root)
    catalogue_index._MERGED.clear()  # the same generation's number, read again as written before
    for basis in nearest.INDEXED_BASES:
        assert catalogue_index.read_gaps(storage, root, older, basis) is None
    assert served(root, [*alphas, "Test_older_0"]) == stored
    # The first publish onto the older base stores the base's lists (its candidate pass made them).
    seal = write_factory_seal(tmp_path / "seals" / "f1", alpha_id="Test_older_1", seed=81, weeks=10)
    assert publish_seal(str(seal), root).status == "published"
    following = newest(root)
    assert following.delta is not None and following.delta.base == older.base
    for basis in nearest.INDEXED_BASES:
        named = following.matrices[f"{basis}_gapcount"]
        assert named.startswith(f"matrices/{older.base:012d}-") and ".delta" not in named
        base = catalogue_index.read_generation(storage, root, older.base)
        assert base is not None
        whole = replace(base, matrices=following.matrices)
        read, made = _gap_lists_of(storage, root, whole, basis)
        assert read is not None
        _assert_same_gaps(read, made)
        read, made = _gap_lists_of(storage, root, following, basis)
        assert read is not None
        _assert_same_gaps(read, made)


def test_a_delta_committing_several_listed_alphas_looks_them_up_the_same(
    demo_lake: Path, demo_seals: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delta that commits several listed alphas at once asks `_listed_rows` twice per alpha
    (issue 63, item 3): after SCANS_BEFORE_SORT lookups by a pass over the ids each, the ids are
    sorted once and searched. Searched from the first lookup or scanned every time, the lists,
    rows and matrices committed are the same. Three alphas published first (more lists), then five
    committed in one delta (three new, two republished)."""
    from pipeline import catalogue_neighbours

    monkeypatch.setattr(catalogue_neighbours, "CANDIDATES", 2)
    monkeypatch.setattr(catalogue_neighbours, "NEIGHBOURS", 5)
    sorted_lookups: list[int] = []
    original = rows._ListedRows.__call__

    def counted(self: Any, alphas: Any) -> Any:
        found = original(self, alphas)
        if self.order is not None:
            sorted_lookups.append(len(found))
        return found

    monkeypatch.setattr(rows._ListedRows, "__call__", counted)
    seals = [
        write_factory_seal(tmp_path / "seals" / f"f{n}", alpha_id=f"Test_several_{n}", seed=90 + n, weeks=10)
        for n in range(6)
    ]
    again = [
        renamed(demo_seals, a, tmp_path / "again")
        for a in ("Test_planted_factor", "Test_short_term_reversal")
    ]
    committed = [
        "Test_several_3",
        "Test_several_4",
        "Test_several_5",
        "Test_planted_factor",
        "Test_short_term_reversal",
    ]
    found = {}
    for way, scans in (("sorted", 0), ("scanned", 10**6)):
        monkeypatch.setattr(rows, "SCANS_BEFORE_SORT", scans)
        root = str(tmp_path / way / "lake")
        linked_copy(demo_lake, root)
        for seal in seals[:3]:
            assert publish_seal(str(seal), root).status == "published"
        for seal in [*seals[3:], *again]:
            assert publish_seal(str(seal), root, indexed=False).status == "published"
        rows.record(root, committed)
        generation = newest(root)
        assert generation.delta is not None
        assert {c["alpha_id"] for c in generation.changes} == set(committed)
        storage = Storage(root)
        index = catalogue_index.read_index(storage, root, generation)
        alphas = index.column("alpha_id").to_pylist()
        builds = dict(zip(alphas, index.column("build_id").to_pylist(), strict=True))
        lists = {}
        for alpha, path in zip(alphas, index.column("score_neighbours").to_pylist(), strict=True):
            entries = _list(storage, root, path)
            lists[alpha] = (
                None
                if entries is None
                else [
                    {**e, "neighbour_build": e["neighbour_build"] == builds.get(e["neighbour_id"])}
                    for e in entries
                ]
            )
        found[way] = (
            index.drop([*VOLATILE, "build_id", "entry"]),
            lists,
            {n: np.asarray(catalogue_index.read_matrix(storage, root, generation, n)) for n in MATRICES},
        )
        if way == "sorted":
            assert sorted_lookups and sum(sorted_lookups) > 0, "the sorted lookups found listed alphas"
    (index_a, lists_a, matrices_a), (index_b, lists_b, matrices_b) = found.values()
    assert index_a.equals(index_b)
    assert lists_a == lists_b
    for name in MATRICES:
        np.testing.assert_array_equal(matrices_a[name], matrices_b[name])


def test_the_sorted_lookup_equals_the_scan() -> None:
    """`_ListedRows` searching the sorted ids finds the rows `_listed_rows` finds, in its order."""
    rng = np.random.default_rng(4)
    ids = [f"a{n:05d}" for n in rng.permutation(3000)]
    listed = rng.random(3000) < 0.6
    slim = pa.table(
        {
            "alpha_id": pa.chunked_array([ids[:1000], ids[1000:]]),
            "build_id": [f"b{n}" for n in range(3000)],
            "score_neighbours": [f"p{n}" if ok else None for n, ok in enumerate(listed)],
        }
    )
    lookup = rows._ListedRows(slim, listed)
    lookup.asked = rows.SCANS_BEFORE_SORT  # every lookup below searches
    for size in (0, 1, 5, 200, 3000):
        alphas = {*rng.choice(ids, size, replace=False).tolist(), "missing", "a99999"}
        assert lookup(alphas) == rows._listed_rows(slim, listed, alphas)
    assert lookup.order is not None
