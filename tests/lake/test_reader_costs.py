"""What a worker pays per build is paid once (issue 21): a build evicted and opened again is not
hashed again, and a build left damaged is re-checked less and less often (each check hashes it
whole), while a build repaired at once is served again at the next pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from datasets import reader as reader_module
from datasets.faults import BuildDamaged
from datasets.reader import LakeReader
from tests.lake.conftest import ALPHA, OTHER
from tests.support.file_hashing import hashing
from tests.support.missing_files import lake_copy
from tests.support.missing_files import template_lake as template_lake  # a fixture


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_build_opened_again_is_not_hashed_again(
    template_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = lake_copy(template_lake, tmp_path / "lake")
    reader = LakeReader(str(lake), refresh_seconds=60, max_open_builds=1)
    reader.refresh()
    hashed = hashing(monkeypatch, tmp_path)
    alpha = reader.alpha(ALPHA)
    assert alpha is not None
    reader.view(alpha).table("decisions")
    reader.refresh()  # hashes the open build in the background
    assert hashed and all(ALPHA in path for path in hashed)
    other = reader.alpha(OTHER)
    assert other is not None
    reader.view(other)  # evicts ALPHA (one build open at most)
    reader.refresh()
    hashed.clear()
    view = reader.view(alpha)  # opened again
    assert view.hashes_verified
    reader.refresh()
    assert not [path for path in hashed if ALPHA in path]


def test_a_damaged_build_is_rechecked_less_and_less(
    template_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = lake_copy(template_lake, tmp_path / "lake")
    clock = Clock()
    monkeypatch.setattr(reader_module.time, "monotonic", clock)
    reader = LakeReader(str(lake), refresh_seconds=60)
    reader.refresh()
    alpha = reader.alpha(ALPHA)
    assert alpha is not None
    served = Path(alpha.build_dir) / "serving" / "decisions.arrow"
    good = served.read_bytes()
    served.write_bytes(good[: len(good) // 2])  # truncated
    with pytest.raises(reader_module.LakeUnavailable):
        reader.view(alpha)
    attempts: list[float] = []
    real_open = reader._open

    def counted(build: Any, verify: bool = False) -> Any:
        if verify:
            attempts.append(clock.now)
        return real_open(build, verify)

    monkeypatch.setattr(reader, "_open", counted)
    for _ in range(120):  # two passes a minute... for an hour
        reader.refresh()
        clock.now += 30
    checks = [t - 1000.0 for t in attempts]
    assert checks[:3] == [0.0, 30.0, 60.0]  # every pass in the first minute
    gaps = [b - a for a, b in zip(checks, checks[1:], strict=False)]
    assert max(gaps) <= 300 + 30 and gaps[-1] > 200  # then less often, at most every five minutes
    assert len(attempts) < 25  # of 120 passes
    served.write_bytes(good)  # repaired
    clock.now += 300
    reader.refresh()
    assert reader.health().alphas == {}
    assert reader.view(alpha).table("decisions") is not None


def test_a_file_written_before_its_first_check_is_hashed_before_it_is_served(
    template_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background check of a newly opened build may be queued behind others; a serving file
    written after it was mapped but before that check must not be served (never a wrong number)."""
    lake = lake_copy(template_lake, tmp_path / "lake")
    reader = LakeReader(str(lake), refresh_seconds=60)  # no refresh runs the background check
    reader.refresh()
    alpha = reader.alpha(ALPHA)
    assert alpha is not None
    view = reader.view(alpha)
    hashed = hashing(monkeypatch, tmp_path)
    before = view.table("positions")
    assert before is not None and before.num_rows > 0 and not hashed  # mapped, not yet checked
    served = Path(alpha.build_dir) / "serving" / "positions.arrow"
    with served.open("r+b") as handle:  # 64 bytes inverted in place: same size, other numbers
        handle.seek(served.stat().st_size // 2)
        middle = handle.read(64)
        handle.seek(-len(middle), 1)
        handle.write(bytes(byte ^ 0xFF for byte in middle))
    with pytest.raises(BuildDamaged) as raised:
        view.table("positions")
    assert raised.value.reason == "corrupt_file" and hashed
    with pytest.raises(BuildDamaged):
        view.table("decisions")  # every table of the damaged build, for good


def flip_middle(path: Path) -> None:
    with path.open("r+b") as handle:  # 64 bytes inverted in place: same size, other numbers
        handle.seek(path.stat().st_size // 2)
        middle = handle.read(64)
        handle.seek(-len(middle), 1)
        handle.write(bytes(byte ^ 0xFF for byte in middle))


def test_a_file_written_after_the_open_is_hashed_before_its_first_map(
    template_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tables are mapped when first read: a file written after the build was opened, before its
    table was first read, is hashed then, not trusted because nothing had mapped it yet."""
    lake = lake_copy(template_lake, tmp_path / "lake")
    reader = LakeReader(str(lake), refresh_seconds=60)
    reader.refresh()
    alpha = reader.alpha(ALPHA)
    assert alpha is not None
    view = reader.view(alpha)
    assert view.table("decisions") is not None
    hashed = hashing(monkeypatch, tmp_path)
    flip_middle(Path(alpha.build_dir) / "serving" / "positions.arrow")
    with pytest.raises(BuildDamaged) as raised:
        view.table("positions")
    assert raised.value.reason == "corrupt_file" and hashed


def test_a_build_reopened_with_files_written_since_its_check_is_checked_before_it_is_served(
    template_lake: Path, tmp_path: Path
) -> None:
    lake = lake_copy(template_lake, tmp_path / "lake")
    reader = LakeReader(str(lake), refresh_seconds=60, max_open_builds=1)
    reader.refresh()
    alpha, other = reader.alpha(ALPHA), reader.alpha(OTHER)
    assert alpha is not None and other is not None
    reader.view(alpha).table("positions")
    reader.refresh()  # hashes the open build in the background: the worker remembers it whole
    reader.view(other)  # evicts ALPHA (one build open at most)
    flip_middle(Path(alpha.build_dir) / "serving" / "positions.arrow")
    with pytest.raises(reader_module.LakeUnavailable):
        reader.view(alpha).table("positions")


def test_a_value_derived_from_a_mapped_file_is_not_used_after_the_file_changed(
    template_lake: Path, tmp_path: Path
) -> None:
    """`memo` keeps arrays over the mapping, not copies: its next use checks the files first."""
    lake = lake_copy(template_lake, tmp_path / "lake")
    reader = LakeReader(str(lake), refresh_seconds=60)
    reader.refresh()
    alpha = reader.alpha(ALPHA)
    assert alpha is not None
    view = reader.view(alpha)

    def equity() -> Any:
        table = view.table("portfolio")
        assert table is not None
        return table.column("ending_equity").to_numpy()

    first = view.memo("equity", equity)
    reader.refresh()  # checked whole in the background
    assert view.hashes_verified and view.memo("equity", equity) is first
    flip_middle(Path(alpha.build_dir) / "serving" / "portfolio.arrow")
    with pytest.raises(BuildDamaged):
        view.memo("equity", equity)
