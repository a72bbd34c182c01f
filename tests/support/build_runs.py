"""A build run through the command line (`alpha-results build`, another process) and the events it
recorded, read back from the records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from records.event_log import Event, EventScope, Reader, Wanted
from records.store import open_records

REPO = Path(__file__).resolve().parents[2]


def build(
    *seals: Path,
    lake: Path,
    records: str | None,
    env: dict[str, str] | None = None,
    extra: tuple[str, ...] = (),
) -> str:
    command = [
        sys.executable,
        "-m",
        "cli.main",
        "build",
        *map(str, seals),
        "--lake",
        str(lake),
        "--jobs",
        "1",
    ]
    command += extra
    if records is not None:
        command += ["--keystore", records]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env, check=False)
    return done.stdout + done.stderr


EVERY_READER = Reader(scopes=(EventScope(everything=True),), admin=True)


def events_of(url: str) -> list[Event]:
    records = open_records(url)
    try:
        return records.events.page(EVERY_READER, Wanted(limit=1000)).events
    finally:
        records.close()
