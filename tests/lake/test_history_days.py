"""The operator's history retention in days (issue 64, finding 10): a superseded build stays named
by its alpha's pointer, so kept, while it was superseded less than ALPHA_RESULTS_BUILD_HISTORY_DAYS
ago; a bad value is refused by the build command before anything is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from datasets import layout, retention

REPO = Path(__file__).resolve().parents[2]
DAY = 86_400.0
NOW = 1_800_000_000.0


def history_after(previous: dict[str, object]) -> list[str]:
    found = retention.next_history(previous, "new", NOW)["previous_builds"]
    assert isinstance(found, list)
    return found


def pointer(ages_in_days: dict[str, float]) -> dict[str, object]:
    """A pointer naming `current` and predecessors superseded that many days before NOW."""
    from datetime import UTC, datetime

    iso = {
        b: datetime.fromtimestamp(NOW - d * DAY, UTC).isoformat(timespec="seconds")
        for b, d in ages_in_days.items()
    }
    return {"build_id": "current", "previous_builds": list(ages_in_days), "superseded_at": iso}


@pytest.mark.parametrize(
    ("days", "kept"),
    [
        ("", ["current", "b1", "b2", "b3"]),  # the default, 7 days: all four are younger
        ("7", ["current", "b1", "b2", "b3"]),
        ("2.5", ["current", "b1", "b2"]),  # b3 (3 days) goes; b1, b2 inside 2.5 days
        ("0", ["current", "b1"]),  # only the newest two, whatever their age
    ],
)
def test_superseded_builds_are_kept_for_the_days_the_operator_sets(
    days: str, kept: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(layout.HISTORY_ENV, days)
    assert history_after(pointer({"b1": 1.0, "b2": 2.0, "b3": 3.0})) == kept


@pytest.mark.parametrize("bad", ["a week", "-1", "nan", "1e9"])
def test_a_bad_history_retention_is_refused_before_a_build_is_written(bad: str, tmp_path: Path) -> None:
    env = dict(os.environ, **{layout.HISTORY_ENV: bad})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "build",
            str(tmp_path / "no-seal"),
            "--lake",
            str(tmp_path / "lake"),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert layout.HISTORY_ENV in done.stderr and repr(bad) in done.stderr
    assert not (tmp_path / "lake").exists()
