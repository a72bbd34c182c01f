"""A hostile seal cannot forge the report of the commands that read it, nor flood the events
(issue 48, item 4).

Its alpha id, a file name and its folder's name held an escape sequence, a carriage return and a
newline: `alpha-results-seal check`, `alpha-results seal check` and `alpha-results build` printed
them raw, and a terminal showed a forged "1 seal: 1 OK, 0 refused" over the real summary. A 900 KB
alpha id made one `build.refused` event 901 KB in the administrators' feed and every webhook. Each
command is run here as an operator runs it, on such a seal; every line it prints must be one line
of the report, its control characters escaped (`alpha_results_seal.printable`), and the event
bounded.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from alpha_results_seal.cli import main as kit_main
from alpha_results_seal.printable import CONTROLS, bounded, printable
from alpha_results_seal.seal import TARGET_MAX_CHARS
from cli.main import main as server_main
from pipeline.build_events import SEAL_TEXT_MAX_CHARS, refused_events
from pipeline.dask_build import PrintedProgress
from pipeline.publish import Outcome
from records.event_log import EventScope, Reader, Wanted
from records.store import open_records
from tests.pipeline.conftest import CLI, copy_seal
from tests.support.seal_edits import edit_manifest

FORGED = "1 seal: 1 OK, 0 refused"
# Clears the line, returns to its start and prints the forged summary; then starts a line of its
# own, and reverses what follows (a right-to-left override).
HOSTILE = f"x\x1b[2K\r{FORGED}\n\u202eabc\x85\u2028\x9b31m"
HUGE_ID = "A" * 900_000

EVERY_CONTROL = (
    [chr(c) for c in range(0x20)]
    + ["\x7f"]
    + [chr(c) for c in range(0x80, 0xA0)]
    + list("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")
)


@pytest.fixture(scope="module")
def hostile(factory_seal: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The factory seal under a folder named with controls, its alpha id forging the summary and
    a file whose name does too."""
    seal = copy_seal(factory_seal, tmp_path_factory.mktemp("hostile") / f"seal\x1b[1A\r{FORGED}\n")
    edit_manifest(lambda m: m.update(alpha_id=HOSTILE))(seal)
    (seal / f"x\r\x1b[2K{FORGED}\n.parquet").write_bytes(b"PAR1")
    return seal


@pytest.fixture(scope="module")
def huge(factory_seal: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    seal = copy_seal(factory_seal, tmp_path_factory.mktemp("huge") / "huge")
    edit_manifest(lambda m: m.update(alpha_id=HUGE_ID))(seal)
    return seal


def assert_one_report(output: str, summary: str) -> list[str]:
    """No control character reaches the terminal, and the report's lines are the only lines
    (`splitlines` breaks at every line boundary Python knows, CR, NEL and U+2028 among them)."""
    assert not CONTROLS.search(output.replace("\n", "")), output
    lines = output.splitlines()
    assert lines == output.split("\n")[:-1], output
    assert summary in lines and not any(line.startswith(FORGED) for line in lines), output
    assert printable(HOSTILE) in output  # the alpha id is shown, escaped
    return lines


def test_printable_escapes_every_control_and_keeps_text() -> None:
    for control in EVERY_CONTROL:
        shown = printable(f"a{control}b")
        assert not CONTROLS.search(shown) and shown.isascii() and shown.startswith("a\\"), repr(control)
        assert shown.encode("ascii").decode("unicode_escape") == f"a{control}b"
    text = "Test_factory é 中文 ('a', 1) \\x1b"
    assert printable(text) == text
    assert printable(printable(HOSTILE)) == printable(HOSTILE)


def test_bounded_cuts_with_the_whole_length() -> None:
    assert bounded("abc", 3) == "abc"
    assert bounded(HUGE_ID, 10) == "AAAAAAAAAA... [cut: 900,000 characters in all]"


@pytest.mark.parametrize("command", ["kit", "server"])
def test_the_seal_check_report_cannot_be_forged(
    command: str, hostile: Path, factory_seal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main = kit_main if command == "kit" else server_main
    prefix = [] if command == "kit" else ["seal"]
    assert main([*prefix, "check", str(factory_seal), str(hostile)]) == 1
    lines = assert_one_report(capsys.readouterr().out, "2 seals: 1 OK, 1 refused")
    assert lines[-1] == "2 seals: 1 OK, 1 refused"
    assert f"refused    {printable(HOSTILE)}  ({printable(str(hostile))})" in lines
    assert "manifest.kinds_present" in "\n".join(lines)  # the file named with controls is reported


@pytest.mark.parametrize("command", ["kit", "server"])
def test_a_usage_error_naming_a_hostile_path_cannot_be_forged(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main = kit_main if command == "kit" else server_main
    prefix = [] if command == "kit" else ["seal"]
    absent = tmp_path / f"no\r{FORGED}\n"
    assert main([*prefix, "check", str(absent)]) == 2
    error = capsys.readouterr().err
    assert not CONTROLS.search(error.replace("\n", "")) and len(error.splitlines()) == 1, error


def test_a_huge_alpha_id_is_a_bounded_label(huge: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert kit_main(["check", str(huge)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"refused    {bounded(HUGE_ID, TARGET_MAX_CHARS)}  ({huge})"


def test_the_build_report_and_its_events_cannot_be_forged_or_flooded(
    hostile: Path, huge: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    command = [CLI, "build", str(hostile), str(huge), "--lake", str(tmp_path / "lake"), "--jobs", "1"]
    done = subprocess.run([*command, "--keystore", url], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    summary = f"2 seals: 0 built, 2 refused  (lake {tmp_path / 'lake'})"
    assert_one_report(done.stdout, summary)
    assert not CONTROLS.search(done.stderr.replace("\n", "")), done.stderr
    records = open_records(url)
    try:
        admin = Reader(scopes=(EventScope(everything=True),), admin=True)
        events = records.events.page(admin, Wanted(limit=10)).events
    finally:
        records.close()
    assert [e.type for e in events] == ["build.refused", "build.refused"]
    by_seal = {e.data["seal"]: e.data for e in events}
    assert by_seal[str(hostile)]["target"] == HOSTILE  # short: kept whole (JSON escapes it)
    big = by_seal[str(huge)]
    assert big["target"] == bounded(HUGE_ID, TARGET_MAX_CHARS)
    assert len(json.dumps(big)) < 2_000, len(json.dumps(big))


def test_every_text_of_a_refused_event_is_bounded() -> None:
    long = "m\n" * 600_000
    rejection = {"rule": "manifest.text_bounds", "kind": "k" * 5_000, "message": long}
    outcome = Outcome("s" * 3_000, "t" * 3_000, "refused", rejection=rejection)
    [(kind, data)] = refused_events([outcome])
    assert kind == "build.refused" and data["rule"] == "manifest.text_bounds"
    for name in ("seal", "target", "kind", "message"):
        assert len(data[name]) < SEAL_TEXT_MAX_CHARS + 50, name
        assert data[name].endswith(" characters in all]"), name
    assert data["message"] == bounded(long, SEAL_TEXT_MAX_CHARS)
    no_message = Outcome("s", "t", "refused", rejection={"rule": "r", "kind": "k"})
    assert refused_events([no_message])[0][1]["message"] is None


def test_the_dask_progress_cannot_be_forged() -> None:
    stream = io.StringIO()
    progress = PrintedProgress(stream)
    progress.queued(0, f"seal\r{FORGED}\n", HOSTILE)
    progress.running(0, "tcp://worker\x1b[2K", 1, 1)
    shown = stream.getvalue()
    assert len(shown.splitlines()) == 2 and not CONTROLS.search(shown.replace("\n", "")), shown
