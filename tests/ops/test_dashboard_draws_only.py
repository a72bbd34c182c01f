"""The dashboard and the tear sheet draw figures, they do not compute them (issue 46, item 4: figures
live in analytics/ only).

A static scan of `serve/static/ui/*.js` for arithmetic on figures: the Math functions, exponents,
`reduce(`, running totals (`+=`, `*=`, ...), annualising by 52 or 252 and rescaling by years. Each
use is either display only (a layout module, or a line listed with its reason) or a figure still
computed on the page, listed in `PENDING` with the served field that is to replace it; any other
use fails, and so does an entry that no longer matches (the list keeps to what is there).
"""

from __future__ import annotations

import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "serve" / "static" / "ui"

PATTERNS = {
    "a Math function": re.compile(
        r"\bMath\.(sqrt|pow|exp|expm1|log|log10|log1p|log2|hypot|cbrt|abs|max|min|round|floor|ceil|trunc)\b"
    ),
    "an exponent": re.compile(r"\*\*"),
    "a reduction": re.compile(r"\.reduce(Right)?\("),
    "a running total": re.compile(r"\*=|/=|\+=|-="),
    "annualising": re.compile(r"[*/]\s*(52|252)\b|\b(52|252)\s*[*/]|WEEKS_PER_YEAR|SESSIONS_PER_YEAR"),
    "rescaling by years": re.compile(r"[*/]\s*years\b"),
}

DISPLAY_MODULES = {
    "svg.js": "the SVG charts' geometry: value ranges and ticks, pixel positions, bar sizes, colour tints",
    "charts.js": "the uPlot wrappers: chart width, the zero line and the split's shading in pixels",
    "format.js": "number formats: the magnitude that picks the digits, rounding for display",
    "api.js": "request pacing (requests left in the rate window), retry waits, paging offsets",
    "app.js": "how long a note stays on screen",
}
"""Modules that only lay out or format: every arithmetic in them is display."""

DISPLAY = {
    ("decision_record.js", 'if (decisions[i].action === "approved") return decisions[i];'): (
        "finds which served approval a retirement ended, to name its recorded time: a lookup, no figure"
    ),
    ("catalogue.js", "go(Math.max(0, offset - pageSize))"): "the previous page's offset",
    ("combine_page.js", "Math.min(1, Math.abs(value)) * 0.55"): "a correlation cell's tint",
    ("downloads.js", "Math.round(signed.expires_in / 60)"): "a link's validity in whole minutes",
    ("drawdowns_panel.js", "Math.min(DEEPEST, episodes.length)"): "how many episodes the table shows",
    ("labels.js", "Math.abs(v) >= s"): "the word of an amount (thousands, millions, billions)",
    ("quantiles_panel.js", "Math.max(...months.map((m) => Math.abs(m.rebuilt_mean_ic ?? 0)), 1e-12)"): (
        "the heatmap's colour scale"
    ),
    ("report_page.js", "offset += page.pagination.returned"): "paging through the correlation listing",
    ("report_page.js", "Math.max(...alphas.map((a) => a.length))"): "the label width, from the longest id",
    ("report_page.js", "Math.min(220, 24 + longest * 7)"): "the label width in pixels",
    ("significance_panel.js", "[Math.min(...ends), Math.max(...ends)]"): "the whiskers' shared scale",
    ("tearsheet.js", "Math.min(DEEPEST, answer.data.length)"): "how many episodes the sheet shows",
    ("tearsheet.js", "Math.abs(v) < 10 && v !== Math.round(v)"): "an axis label's decimals",
    ("tearsheet.js", "Math.max(...data.months.map((m) => Math.abs(m.book_return)), 1e-12)"): (
        "the monthly heatmap's colour scale"
    ),
}
"""Display-only lines outside the layout modules, each with its reason."""

PENDING: dict[tuple[str, str], str] = {}
"""Figures still computed on the page, each with the served field that is to replace it."""


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, code) without comment lines and trailing ` // ` comments."""
    lines = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith(("//", "*", "/*")):
            continue
        lines.append((number, re.sub(r"\s//\s.*$", "", line)))
    return lines


def _arithmetic() -> list[tuple[str, int, str, str]]:
    """(file, line, what, code) of every arithmetic use outside the layout modules."""
    found = []
    for path in sorted(UI.glob("*.js")):
        if path.name in DISPLAY_MODULES:
            continue
        for number, code in _code_lines(path):
            for what, pattern in PATTERNS.items():
                if pattern.search(code):
                    found.append((path.name, number, what, code.strip()))
                    break
    return found


def test_the_dashboard_computes_no_figure_beyond_the_listed_display_uses() -> None:
    listed = {**DISPLAY, **PENDING}
    unlisted = [
        f"{name}:{number}: {what}: {code}"
        for name, number, what, code in _arithmetic()
        if not any(file == name and text in code for file, text in listed)
    ]
    assert not unlisted, (
        "Arithmetic on the page: serve the figure (analytics/, a field on the route) and draw it, or "
        "list the line in DISPLAY with why it is display only:\n" + "\n".join(unlisted)
    )


def test_every_listed_use_is_still_there() -> None:
    hits = _arithmetic()
    stale = [
        f"{file}: {text}"
        for file, text in {**DISPLAY, **PENDING}
        if not any(name == file and text in code for name, _, _, code in hits)
    ]
    assert not stale, "Listed but gone (take it off the list):\n" + "\n".join(stale)
    assert all((UI / name).is_file() for name in DISPLAY_MODULES)


def test_the_page_no_longer_compounds_returns_or_fits_betas() -> None:
    """What /analytics/returns and /analytics/combine serve is drawn: no module of the page
    compounds a return series or fits a beta."""
    assert not (UI / "series_figures.js").exists()
    for path in UI.glob("*.js"):
        for _, code in _code_lines(path):
            assert not re.search(r"\b(rollingBeta|monthlyGrowth|yearlyGrowth|alignedCurves)\b", code), (
                path.name
            )
