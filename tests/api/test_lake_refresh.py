"""A running server follows the lake: new builds and new alphas are served without a restart, a
lake outage is answered 503 without touching the lake per request, and lake failures never
become a 500. The reader's background thread refreshes every `refresh_seconds`; these tests use a
long interval and run `reader.refresh()` themselves, as the thread would."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from datasets import catalog, queries
from datasets import catalogue_index as catalogue_index_reader
from datasets.reader import LakeReader, LakeUnavailable
from pipeline import index_rows
from pipeline.publish import publish_seal
from tests.conftest import linked_copy, own_file
from tests.support.lake_refresh import (
    RAW,
    REFRESH,
    app_client,
    check_new_build_and_new_alpha_are_served,
    publish_elsewhere,
    resealed,
    served,
)


def test_new_build_and_new_alpha_are_served_without_restart(
    demo_seals: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="datasets.reader"):
        check_new_build_and_new_alpha_are_served(str(tmp_path / "lake"), demo_seals, tmp_path)
    served_lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("serving build ")]
    # One line per alpha whose served build changed: the alpha, the new and the old build id.
    root = str(tmp_path / "lake")
    planted = catalog.current_build(root, "Test_planted_factor")
    ledger = catalog.current_build(root, "Test_ledger_only")
    assert planted is not None and ledger is not None
    assert len(served_lines) == 2, served_lines
    assert any(
        line.startswith(f"serving build {planted.build_id} of Test_planted_factor (was ")
        for line in served_lines
    ), served_lines
    assert f"serving build {ledger.build_id} of Test_ledger_only (was not served)" in served_lines


@pytest.fixture
def lake(demo_lake: Path, tmp_path: Path) -> Path:
    """A linked copy of the demo lake (`tests.conftest.linked_copy`): the tests write pointers,
    manifests and the index, which the copy holds as its own; a test that overwrites a linked data
    file makes it its own first (`own_file`)."""
    return linked_copy(demo_lake, tmp_path / "lake")


def error_code(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    code: str = response.json()["error"]["code"]
    return code


def test_corrupt_pointer_is_upstream_unavailable_not_a_missing_alpha(lake: Path) -> None:
    (lake / "alphas" / "momentum_12_1" / "_current.json").write_text('{"build_id": "abc"')  # truncated
    index_rows.rebuild(str(lake))  # `alpha-results lake index` (or the next publish) finds it
    client, _ = app_client(str(lake))
    with client:
        response = client.get("/v1/alphas/momentum_12_1/books", headers=RAW)
        assert error_code(response, 503) == "upstream_unavailable"


def unreadable_logged(caplog: pytest.LogCaptureFixture, alpha: str) -> int:
    return sum(
        r.name == "datasets.reader" and r.levelno == logging.ERROR and alpha in r.getMessage()
        for r in caplog.records
    )


CORRUPTIONS = {
    "truncated pointer": ("_current.json", '{"build_id": "abc"'),
    "pointer without a build": ("_current.json", '{"alpha_id": "Test_planted_factor"}'),
    "unparsable alpha.json": ("alpha.json", "not json"),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_one_unreadable_alpha_leaves_every_other_alpha_served(
    lake: Path, corruption: str, caplog: pytest.LogCaptureFixture
) -> None:
    alpha = "Test_planted_factor"
    name, text = CORRUPTIONS[corruption]
    build = catalog.current_build(str(lake), alpha)
    assert build is not None
    target = lake / "alphas" / alpha / name if name == "_current.json" else Path(build.build_dir) / name
    good = target.read_bytes()
    target.write_text(text)
    index_rows.rebuild(str(lake))  # `alpha-results lake index` (or the next publish) finds it
    client, reader = app_client(str(lake))
    with caplog.at_level(logging.ERROR, logger="datasets.reader"), client:
        listed = served(client)
        assert alpha not in listed and "momentum_12_1" in listed and len(listed) == 6
        assert client.get("/v1/alphas/momentum_12_1/books", headers=RAW).status_code == 200
        # The unreadable alpha still exists: its own routes are an outage, never a 404.
        for path in (f"/v1/alphas/{alpha}", f"/v1/alphas/{alpha}/books", f"/v1/alphas/{alpha}/rebalances"):
            error = error_code(client.get(path, headers=RAW), 503)
            assert error == "upstream_unavailable", path
        assert unreadable_logged(caplog, alpha) == 1  # once per catalogue generation read

        reader.refresh()
        served(client)
        assert unreadable_logged(caplog, alpha) == 1  # not per request, not per refresh

        target.write_bytes(good)  # repaired and indexed again: served again at the next refresh
        index_rows.rebuild(str(lake))
        reader.refresh()
        assert alpha in served(client)
        assert client.get(f"/v1/alphas/{alpha}/books", headers=RAW).status_code == 200


def test_a_programming_error_is_a_500_not_a_lake_outage(lake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> list[str]:
        raise KeyError("a bug, not the lake")

    monkeypatch.setattr(catalogue_index_reader, "read_index", broken)
    client, _ = app_client(str(lake))
    with client:
        assert error_code(client.get("/v1/alphas", headers=RAW), 500) == "internal_error"


def test_metrics_answer_503_when_a_table_it_reads_is_unreadable(lake: Path) -> None:
    build = catalog.current_build(str(lake), "momentum_12_1")
    assert build is not None
    own_file(Path(build.build_dir) / "serving" / "weekly_term.arrow").write_bytes(b"not arrow")
    client, _ = app_client(str(lake))
    with client:
        response = client.get("/v1/alphas/momentum_12_1/metrics", headers=RAW)
        assert error_code(response, 503) == "upstream_unavailable"


def test_an_outage_costs_the_lake_one_read_per_refresh_not_one_per_request(
    lake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = LakeReader(str(lake), refresh_seconds=REFRESH)
    assert "momentum_12_1" in reader.alphas()
    probes = {"n": 0}
    real_is_dir = reader.storage.is_dir

    def counted(path: str) -> bool:
        probes["n"] += 1
        return real_is_dir(path)

    monkeypatch.setattr(reader.storage, "is_dir", counted)
    hidden = lake.with_name("moved")
    lake.rename(hidden)
    reader.refresh()
    for _ in range(5):
        with pytest.raises(LakeUnavailable):
            reader.alphas()
    assert probes["n"] == 1  # the refresh read the lake; the requests did not

    hidden.rename(lake)
    reader.refresh()
    assert "momentum_12_1" in reader.alphas()  # recovered at the next refresh
    assert probes["n"] == 2
    reader.close()


def portfolio_rows(view: Any) -> list[Any]:
    page = queries.book_page(
        view, "portfolio", "long_short", (None, None), None, ("date", "ending_equity"), 5000, 0
    )
    assert page is not None
    return page.rows


def test_a_request_keeps_its_build_while_a_new_one_is_published(demo_seals: Path, tmp_path: Path) -> None:
    root = str(tmp_path / "lake")
    publish_seal(str(demo_seals / "Test_planted_factor"), root)
    reader = LakeReader(root, refresh_seconds=REFRESH)
    first = reader.alpha("Test_planted_factor")
    assert first is not None
    view = reader.view(first)  # what a request holds from its start
    before = portfolio_rows(view)
    publish_elsewhere([resealed(demo_seals / "Test_planted_factor", tmp_path / "v2", "Second.")], root)
    reader.refresh()
    second = reader.alpha("Test_planted_factor")
    assert second is not None and second.build_id != first.build_id
    assert reader.view(second).build_id == second.build_id
    assert portfolio_rows(view) == before and view.build_id == first.build_id
    reader.close()


def test_a_slow_first_open_does_not_block_other_alphas(lake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = LakeReader(str(lake), refresh_seconds=REFRESH)
    slow_build, other = reader.alpha("momentum_12_1"), reader.alpha("Test_planted_factor")
    assert slow_build is not None and other is not None
    release = threading.Event()
    real_sizes = reader._sizes

    def slow_sizes(build_dir: str, files: dict[str, Any]) -> dict[str, int]:
        if build_dir == slow_build.build_dir:
            release.wait(10)  # an object store answering slowly
        return real_sizes(build_dir, files)

    monkeypatch.setattr(reader, "_sizes", slow_sizes)
    slow = threading.Thread(target=reader.view, args=(slow_build,))
    slow.start()
    try:
        done = threading.Event()

        def other_work() -> None:
            reader.alphas()
            reader.view(other).table("books")
            done.set()

        threading.Thread(target=other_work, daemon=True).start()
        assert done.wait(5), "another alpha's open waited for the slow one"
    finally:
        release.set()
        slow.join(10)
        reader.close()
