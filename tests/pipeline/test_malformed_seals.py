"""Malformed seals are refused with a report; they never end the run (issue 22, item 6); `seal
check` reports the same rules (issue 37).

A `description.json` of `[1,2,3]` (AttributeError), deeply nested JSON (RecursionError), a
manifest that is a folder (IsADirectoryError): tracebacks instead of refusal reports. With
`--jobs 1` the seals after the bad one were never built; with `--jobs 2` a good seal was
published but no summary was printed. Every malformed seal now gets a refusal report, a build
that raises anyway (or whose process dies) is that seal's `failed` line, and the summary is
always printed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from alpha_results_seal.check import check_seal
from alpha_results_seal.rules import RULES
from cli.main import main
from pipeline import build
from pipeline.build import Failure, build_many
from pipeline.publish import Outcome
from tests.pipeline.conftest import cli_build, copy_seal
from tests.pipeline.factory import write_factory_seal
from tests.support.build_tables import open_table_sizes

DEEP = "[" * 100_000 + "]" * 100_000


def damaged(seal: Path, relative: str, content: bytes) -> None:
    (seal / relative).write_bytes(content)


def manifest_folder(seal: Path) -> None:
    (seal / "manifest.json").unlink()
    (seal / "manifest.json").mkdir()


def linked_book_folder(seal: Path) -> None:
    shutil.rmtree(seal / "pnl")
    (seal / "pnl").symlink_to(seal / "positions", target_is_directory=True)


MALFORMED: list[tuple[str, Any, str]] = [
    ("description_a_list", lambda s: damaged(s, "description.json", b"[1, 2, 3]"), "description.json_object"),
    ("description_deep", lambda s: damaged(s, "description.json", DEEP.encode()), "seal.size_limits"),
    ("manifest_deep", lambda s: damaged(s, "manifest.json", DEEP.encode()), "seal.size_limits"),
    ("manifest_a_folder", manifest_folder, "manifest.fields"),
    (
        "description_not_utf8",
        lambda s: damaged(s, "description.json", b'{"name": "\xff"}'),
        "description.json_object",
    ),
    (
        "description_huge_int",
        lambda s: damaged(s, "description.json", b'{"n": ' + b"9" * 5000 + b"}"),
        "description.json_object",
    ),
    ("description_nan", lambda s: damaged(s, "description.json", b'{"n": NaN}'), "description.json_object"),
    ("linked_book_folder", linked_book_folder, "seal.regular_files"),
]


@pytest.mark.parametrize(("name", "mutate", "rule"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_seal_gets_a_refusal_report(
    name: str, mutate: Any, rule: str, factory_seal: Path, tmp_path: Path
) -> None:
    seal = copy_seal(factory_seal, tmp_path / "Test_factory")
    mutate(seal)
    [result] = build_many([str(seal)], str(tmp_path / "lake"), jobs=1)
    assert isinstance(result, Outcome) and result.status == "refused", result
    assert result.rejection is not None and result.rejection["rule"] == rule, result.rejection
    # `alpha-results seal check` says what the build says: the same rules, in the same order.
    refused = [rule, *(other["rule"] for other in result.rejection.get("more", []))]
    assert [broken.rule for broken in check_seal(str(seal)).broken] == refused


# -- the batch goes on, through the real command -------------------------------------------------


@pytest.fixture(scope="module")
def three_seals(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two good seals around one whose description is `[1, 2, 3]`."""
    root = tmp_path_factory.mktemp("three")
    seals = [
        write_factory_seal(root / name, alpha_id=name, seed=i)
        for i, name in enumerate(("Test_a", "Test_b", "Test_c"))
    ]
    (seals[1] / "description.json").write_text("[1, 2, 3]")
    return seals


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_build_command_refuses_the_bad_seal_builds_the_others_and_prints_the_summary(
    jobs: str, three_seals: list[Path], tmp_path: Path
) -> None:
    lake = tmp_path / "lake"
    done = cli_build(three_seals, lake, jobs)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, (done.stdout, done.stderr)  # docs/operations.md: 1 when a seal was refused
    lines = done.stdout.splitlines()
    assert lines[0].startswith("published  Test_a  build ")
    assert lines[1] == f"refused    Test_b  ({three_seals[1]})"
    assert lines[2] == (
        "  refused by rule description.json_object (kind description): "
        "description.json is not a JSON object (it holds list)"
    )
    assert lines[3].startswith("published  Test_c  build ")
    assert lines[4] == f"3 seals: 2 built, 1 refused  (lake {lake})"
    assert sorted(p.parent.name for p in (lake / "alphas").glob("*/_current.json")) == ["Test_a", "Test_c"]


def test_a_build_that_raises_is_that_seals_failure_and_the_run_goes_on(
    three_seals: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    publish = build.publish_seal

    def faulty(seal_path: str, *args: Any) -> Outcome:
        if seal_path.endswith("Test_b"):
            raise KeyError("a fault of the pipeline itself")
        return publish(seal_path, *args)

    monkeypatch.setattr(build, "publish_seal", faulty)
    lake = tmp_path / "lake"
    assert main(["build", *map(str, three_seals), "--lake", str(lake), "--jobs", "1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"failed     Test_b  ({three_seals[1]}): KeyError: 'a fault of the pipeline itself'"
    assert lines[2].startswith("published  Test_c  build ")
    assert lines[3] == f"3 seals: 2 built, 0 refused, 1 failed  (lake {lake})"


REAL_BUILD_CHAIN = build.build_chain


def chain_or_die(seal_paths: Sequence[str], *args: Any) -> Any:
    """Runs in a process of the pool: the process dies (as the kernel's OOM killer would end it)
    on the seal named Test_b."""
    if any(path.endswith("Test_b") for path in seal_paths):
        os._exit(9)
    return REAL_BUILD_CHAIN(seal_paths, *args)


def test_a_build_process_that_dies_is_reported_and_the_summary_printed(
    three_seals: list[Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(build, "build_chain", chain_or_die)  # the spawned processes import it by name
    lake = tmp_path / "lake"
    assert main(["build", *map(str, three_seals), "--lake", str(lake), "--jobs", "2"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"failed     Test_b  ({three_seals[1]}): the build process ended abruptly")
    # Which other seals the dying process took with it depends on timing (none, when the other
    # worker had finished both before the pool broke); each has its line, and the counts add up.
    assert [line.split()[1] for line in lines[:3]] == ["Test_a", "Test_b", "Test_c"]
    summary = re.fullmatch(
        rf"3 seals: ([012]) built, 0 refused, ([123]) failed  \(lake {re.escape(str(lake))}\)", lines[3]
    )
    assert summary is not None, lines[3]
    assert int(summary[1]) + int(summary[2]) == 3
    assert int(summary[2]) == sum(line.startswith("failed") for line in lines[:3])


# -- any damage: a refusal or a whole build ------------------------------------------------------

SECRET = b"a file of the build host\n"


def _content(path: Path) -> bytes:
    return path.read_bytes() if path.is_file() and not path.is_symlink() else b""


def _clear(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()  # a file, a link or a fifo


def _replace(path: Path, content: bytes) -> None:
    _clear(path)
    path.write_bytes(content)


def _document(path: Path) -> Any:
    try:
        return json.loads(_content(path))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return {}


@dataclass(frozen=True)
class Truncate:
    keep: float

    def apply(self, path: Path, work: Path) -> None:
        content = _content(path)
        _replace(path, content[: int(len(content) * self.keep)])


@dataclass(frozen=True)
class Overwrite:
    at: float
    data: bytes

    def apply(self, path: Path, work: Path) -> None:
        content = _content(path)
        start = int(len(content) * self.at)
        _replace(path, content[:start] + self.data + content[start + len(self.data) :])


@dataclass(frozen=True)
class RandomBytes:
    data: bytes

    def apply(self, path: Path, work: Path) -> None:
        _replace(path, self.data)


@dataclass(frozen=True)
class WrongJsonType:
    """One value of the document (the whole document at 0) replaced by a value of any type."""

    node: int
    value: Any

    def apply(self, path: Path, work: Path) -> None:
        document = _document(path)
        slots: list[tuple[Any, Any]] = []
        pending = [document] if isinstance(document, dict | list) else []
        while pending:
            container = pending.pop()
            keys = container.keys() if isinstance(container, dict) else range(len(container))
            for key in keys:
                slots.append((container, key))
                if isinstance(container[key], dict | list):
                    pending.append(container[key])
        index = self.node % (len(slots) + 1)
        if index == len(slots):
            document = self.value
        else:
            container, key = slots[index]
            container[key] = self.value
        _replace(path, json.dumps(document).encode())


@dataclass(frozen=True)
class DeepNesting:
    depth: int
    in_lists: bool

    def apply(self, path: Path, work: Path) -> None:
        inner = json.dumps(_document(path))
        opening, closing = ("[", "]") if self.in_lists else ('{"a": ', "}")
        _replace(path, (opening * self.depth + inner + closing * self.depth).encode())


@dataclass(frozen=True)
class Folder:
    holding_a_file: bool

    def apply(self, path: Path, work: Path) -> None:
        _clear(path)
        path.mkdir()
        if self.holding_a_file:
            (path / "part-0.parquet").write_bytes(b"PAR1")


@dataclass(frozen=True)
class Link:
    outside: bool

    def apply(self, path: Path, work: Path) -> None:
        seal = work / "Test_factory"
        target = work / "host.key" if self.outside else seal / "rebalances.parquet"
        _clear(path)
        path.symlink_to(target)


@dataclass(frozen=True)
class Fifo:
    def apply(self, path: Path, work: Path) -> None:
        _clear(path)
        os.mkfifo(path)  # a build that opened it to read would wait for a writer for ever


@dataclass(frozen=True)
class HardLink:
    def apply(self, path: Path, work: Path) -> None:
        _clear(path)
        os.link(work / "host.key", path)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)
DAMAGES = st.one_of(
    st.builds(Truncate, st.floats(0, 1)),
    st.builds(Overwrite, st.floats(0, 1), st.binary(min_size=1, max_size=64)),
    st.builds(RandomBytes, st.binary(max_size=256)),
    st.builds(WrongJsonType, st.integers(0, 1000), JSON_VALUES),
    st.builds(DeepNesting, st.sampled_from([65, 2_000, 100_000]), st.booleans()),
    st.builds(Folder, st.booleans()),
    st.builds(Link, st.booleans()),
    st.builds(Fifo),
    st.builds(HardLink),
)


def assert_whole_or_nothing(lake: Path, published: bool) -> None:
    """A published alpha's pointer names a build holding every file its entry lists, at its
    size, and the open tables hold at its generation's versions the rows, files and bytes its
    entry counts per table (its rows are theirs since pipeline 2.12.0); a refused one left no
    pointer and no build folder."""
    pointers = sorted(lake.rglob("_current.json"))
    if not published:
        assert pointers == [] and not list(lake.glob("*/*/builds/*")), pointers
        return
    [pointer] = pointers
    build_dir = pointer.parent / "builds" / json.loads(pointer.read_text())["build_id"]
    [entry] = [build_dir / name for name in ("alpha.json", "benchmark.json") if (build_dir / name).exists()]
    document = json.loads(entry.read_text())
    files = document["files"]
    assert files and all((build_dir / name).stat().st_size == info["bytes"] for name, info in files.items())
    if entry.name == "alpha.json":
        assert document["tables"] and open_table_sizes(build_dir) == document["tables"]


def _entries(seal: Path) -> list[str]:
    """Every file and folder of the seal, by its path in the seal."""
    return sorted(str(p.relative_to(seal)) for p in seal.rglob("*"))


@settings(max_examples=50)
@given(data=st.data())
def test_any_damage_to_a_seal_is_refused_or_built_whole(
    data: st.DataObject, factory_seal: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    work = tmp_path_factory.mktemp("damaged")
    seal = copy_seal(factory_seal, work / "Test_factory")
    (work / "host.key").write_bytes(SECRET)
    # Any entry of the seal (every book and trade variant, the folders too), not a chosen few.
    damage = data.draw(st.lists(st.tuples(st.sampled_from(_entries(seal)), DAMAGES), min_size=1, max_size=3))
    for target, change in damage:
        if (seal / target).parent.is_dir() and not (seal / target).parent.is_symlink():
            change.apply(seal / target, work)
    [result] = build_many([str(seal)], str(work / "lake"), jobs=1)
    assert not isinstance(result, Failure), result.error
    assert result.status in ("published", "refused"), result
    event(result.status if result.rejection is None else f"refused by {result.rejection['rule']}")
    if result.rejection is not None:
        assert result.rejection["rule"] in RULES and SECRET.decode().strip() not in json.dumps(
            result.rejection
        )
    assert_whole_or_nothing(work / "lake", published=result.status == "published")
    shutil.rmtree(work)
