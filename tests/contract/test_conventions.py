"""How many sessions and weeks a year has is written once, in schemas/conventions.py (issue 58,
item 2): a 252 or a 52 written as a number anywhere else in the service's code fails here (text
that states a formula, `sqrt(252)`, is prose; the seal kit, installed alone, keeps its own)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "analytics",
    "datasets",
    "pipeline",
    "serve",
    "records",
    "delivery",
    "access",
    "core",
    "cli",
    "schemas",
)
HOME = ROOT / "schemas" / "conventions.py"


def test_sessions_and_weeks_a_year_are_written_once() -> None:
    written = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == HOME:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Constant)
                    and type(node.value) in (int, float)
                    and node.value in (252, 52)
                ):
                    written.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not written, f"write schemas.conventions.SESSIONS_PER_YEAR / WEEKS_PER_YEAR instead: {written}"


def test_the_conventions_are_the_runs_defaults() -> None:
    from analytics.entries import Conventions
    from schemas.conventions import SESSIONS_PER_YEAR, WEEKS_PER_YEAR, weeks_of_sessions

    assert (Conventions().sessions_per_year, Conventions().weeks_per_year) == (
        SESSIONS_PER_YEAR,
        WEEKS_PER_YEAR,
    )
    assert [weeks_of_sessions(s) for s in (21, 63, 126, SESSIONS_PER_YEAR)] == [4, 13, 26, WEEKS_PER_YEAR]
