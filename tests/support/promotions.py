"""`alpha-results promote` run in-process (an approval on a given day's clock, whatever its
checks), and the demo history's decisions about an alpha."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cli.main import main
from datasets import clock
from tests.decided import noon


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


OVERRIDE = ("--override", "approved in a test whatever its checks")


def approve(capsys: pytest.CaptureFixture[str], alpha: str, day: str, *where: str) -> tuple[int, str, str]:
    """`promote` of an alpha whatever its checks (the standings a test needs), recorded on `day`'s
    clock (a decision is dated when it is recorded)."""
    with clock.simulated(noon(day)):
        return run(capsys, "promote", alpha, *where, *OVERRIDE)


def demo_promotions(records: Path, alpha: str) -> list[tuple[str, str, str]]:
    """The demo history's decisions about `alpha` (action, as_of, decided_by), oldest first, read
    from its records with sqlite3."""
    with sqlite3.connect(records) as db:
        rows = db.execute(
            "SELECT action, as_of, decided_by FROM promotions WHERE alpha_id = ? ORDER BY id", (alpha,)
        ).fetchall()
    return [(str(a), str(d), str(b)) for a, d, b in rows]
