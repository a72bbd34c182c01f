"""The suite's tiers (tests/tiers.py): every `ops` entry names a file or folder that exists (a renamed
or moved test would otherwise fall silently into `fast`, where a kill or an outage test runs beside
the quick ones), each test gets exactly one tier, and a JUnit report's tiers are summed per tier."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import tiers

REPO = Path(__file__).resolve().parents[1]


def test_every_ops_entry_names_a_test_file_or_folder_that_exists() -> None:
    for entry in tiers.OPS:
        path = REPO / entry
        if entry.endswith("/"):
            assert path.is_dir(), entry
        else:
            assert path.is_file() and path.name.startswith("test_"), entry


def item(nodeid: str, fixtures: tuple[str, ...] = (), e2e: bool = False) -> pytest.Item:
    """A stand-in for a collected test: its id, fixtures and `e2e` marker are all `tier_of` reads."""
    found = SimpleNamespace(
        nodeid=nodeid,
        fixturenames=fixtures,
        get_closest_marker=lambda name: object() if (name == "e2e" and e2e) else None,
    )
    return found  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("nodeid", "fixtures", "e2e", "tier"),
    [
        ("tests/lake/test_kill.py::test_x", (), False, "ops"),
        ("tests/s3/test_s3_open_tables.py::test_x", ("shared_server",), True, "ops"),  # ops first
        ("tests/e2e/test_dashboard.py::test_x", (), True, "served"),
        ("tests/api/test_anything.py::test_x", ("shared_server",), False, "served"),
        ("tests/lake/test_lake_convert.py::test_x", ("tmp_path",), False, "fast"),
        ("tests/lake/test_kill_other.py::test_x", (), False, "fast"),  # a prefix of a file is not the file
    ],
)
def test_each_test_gets_one_tier(nodeid: str, fixtures: tuple[str, ...], e2e: bool, tier: str) -> None:
    assert tiers.tier_of(item(nodeid, fixtures, e2e)) == tier


def test_a_reports_tiers_are_counted_and_summed(tmp_path: Path) -> None:
    report = tmp_path / "run.xml"
    report.write_text(
        "<testsuites><testsuite>"
        '<testcase name="a" time="1.5"><properties><property name="tier" value="fast"/></properties></testcase>'
        '<testcase name="b" time="2.0"><properties><property name="tier" value="fast"/></properties></testcase>'
        '<testcase name="c" time="4.25"><properties><property name="tier" value="ops"/></properties></testcase>'
        '<testcase name="d" time="1"/>'
        "</testsuite></testsuites>"
    )
    assert tiers.times(str(report)) == {"fast": (2, 3.5), "ops": (1, 4.25), "unmarked": (1, 1.0)}
