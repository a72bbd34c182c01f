"""Issue 65, item 3: every figure the alpha page and its tear sheet show is named, united, based and
valued as the vocabulary (schemas/vocabulary.py) and the route's answer say, in Chromium against
the real `alpha-results serve` over the demo lake (the fixtures of tests/e2e/test_dashboard.py).

The page marks what it draws (serve/static/ui/labels.js `valueMark`, `labelMark`, `unitMark`;
docs/dashboard.md "Every figure is marked"): the element showing a value carries its term, the key
it is served under, the number as served and the unit it is served in; the element naming it, and
the one writing its unit, carry the term. For every mark, on the alpha page and on the tear sheet of
each alpha below:

- the term is the registry's, and the unit the answer serves it in is the term's;
- the shown label is the term's label, and says its basis where the term has one;
- a written unit is the term's unit as the page writes it;
- the number is the one the route answers under that key (the route asked again, with the same key,
  here with httpx), formatted in the term's unit as this file formats it (its own code: the unit
  table of docs/dashboard.md "Names, units and colours");
- no two terms share a label;
- no number in a figure cell (`td.number`) is left without a mark, but for the display-only
  columns declared once below, with why, and the panels not yet marked (`NOT_YET_MARKED`, which
  must shrink: a listed panel found fully marked fails, so the list is taken off as it is done).
"""

from __future__ import annotations

import math
import re
from typing import Any

import httpx
import pytest

import tests.e2e.test_dashboard as shared
from schemas.conventions import BOOK_CURRENCY
from schemas.vocabulary import TERMS, VOCABULARY
from tests.e2e.test_dashboard import Site, check_clean, open_dashboard

site = shared.site
tab = shared.tab

pytestmark = pytest.mark.e2e

# An approved alpha (the full-size demo alpha, every panel with data), the one whose approval was
# withdrawn (retired: the demo records hold no rejection, and it is the alpha a head of research
# turned down after approving it), and a nominated one with a shorter history (151 sessions). The
# demo seals name no trial family (tests/e2e/test_dashboard_decisions.py: each family figure shows
# its reason), so the family figures are checked as the not-measurable entries they are served as.
ALPHAS = ("momentum_12_1", "Test_planted_factor", "Test_short_term_reversal")

# How the basis a term declares is said in a label (labels.js BASIS_TEXT): an annualised figure
# says "annualised" or "per year", a figure of the sessions "daily". A count of the basis's own
# periods (sessions per session, weeks per week) says it in its name.
BASIS_SAID = {
    "per year": ("annualised", "per year"),
    "per week": ("per week", "weekly"),
    "per month": ("per month", "monthly"),
    "per session": ("per session", "daily"),
}

# Number cells that are not a figure of the vocabulary, by the panel (an alpha page's panel id, a
# tear sheet page's topic) and the column's header: the one declared place. Each says why.
DISPLAY_ONLY: dict[tuple[str, str], str] = {
    ("metrics", "Weeks"): "a period's tenure in weeks: a count of what the period covers, beside its figures",
    (
        "downloads",
        "Rows",
    ): "an export file's rows: what the file holds (the route's listing), not a figure of the alpha",
    (
        "downloads",
        "Size",
    ): "an export file's size in bytes: what the download weighs, not a figure of the alpha",
}

# Panels whose figure cells are not marked yet (issue 65, item 3's follow-up): each is the panel's
# own drawing code, not the shared helpers. A listed panel with every number marked fails, so the
# list only shrinks.
NOT_YET_MARKED: dict[str, str] = {
    "metrics table.nwt": "the Newey-West tests: their lag and n have no term of their own (the registry's "
    "newey_west_lag counts sessions, a weekly test's lag weeks)",
    "performance": "the monthly returns grid (a month's return to one decimal, the year's and SPY's)",
    "signal": "the weekly IC, the IC term structure and the deciles: series, each value a week's or a horizon's",
    "cross-section": "a week's cross-section: a row a name (score, weight, return)",
}

# Digits the decision summary writes that are no figure of the vocabulary, by its row (`data-summary`),
# each a pattern of the words holding them and why. A day (YYYY-MM-DD) is a date wherever it stands.
SUMMARY_WORDING: dict[str, list[tuple[str, str]]] = {
    "standing": [
        (
            r".*",
            "the standing, its days, who decided, the decision's build and the count of the decisions "
            "listed; the restatements sentence is held against its route by test_dashboard_tearsheet.py",
        ),
    ],
    "capacity": [
        (r"K0", "the reference capital's name"),
        (
            r"95th-percentile fill takes 10% of",
            "the definition of the participation capacity (its term's label)",
        ),
    ],
    "fragility": [
        (
            r"without the \d+ best (days|names)",
            "the route's drop, echoed as the number of best days and names "
            "left out (a parameter of the figures, fixed at 5: the fragility check's)",
        ),
        (
            r"best [15]% of days|best 5%",
            "the definitions of top_1pct_days_share and top_5pct_days_share (their labels)",
        ),
    ],
    "intervals": [
        (
            r"\d+% block-bootstrap",
            "the intervals' level as a percentage, the served confidence (a probability)",
        ),
    ],
    "expectation": [
        (r"\d+% interval", "the interval's level as a percentage, the served credible_level (a probability)"),
    ],
}
DAY = r"\d{4}-\d{2}-\d{2}"
# Rows of the decision summary whose numbers are not marked yet: drawn by another panel's code.
# Shown only when it applies (the monitoring row on an alarm), so not held to shrinking here.
SUMMARY_NOT_YET_MARKED = {
    "monitoring": "the CUSUM's alarm line (monitoring_panel.js monitoringLine, the monitoring panel's own drawing)",
}

COLLECT = """
() => {
  const where = (el) => {
    const s = el.closest("section.sheet-page, section.panel");
    return s ? s.dataset.topic || s.id : "";
  };
  // A label's words: without the key beside it, a badge, or the unit it writes (checked apart).
  const text = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll("code, .badge, [data-unit-of]").forEach((c) => c.remove());
    return copy.textContent.replace(/\\s+/g, " ").replace(", )", ")").replace(" ()", "").trim();
  };
  // What a value cell shows of its value: its text without a withheld reason or a badge beside it.
  const shownValue = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll(".why, .badge").forEach((c) => c.remove());
    return copy.textContent.trim();
  };
  const header = (cell) => {
    const table = cell.closest("table");
    if (!table || !table.tHead || cell.cellIndex === undefined) return null;
    const rows = table.tHead.rows;
    return rows.length ? rows[rows.length - 1].cells[cell.cellIndex] || null : null;
  };
  // The element naming a value: its row's or its column's, the one of its own term first (a row
  // names the figure, a column the part of it: an interval's bound, its observations).
  const labelOf = (el) => {
    const row = el.closest("tr");
    const th = header(el);
    const candidates = [
      ...(row ? row.querySelectorAll("[data-term]:not([data-value])") : []),
      ...(th ? (th.matches("[data-term]") ? [th] : th.querySelectorAll("[data-term]")) : []),
    ];
    return candidates.find((c) => c.dataset.term === el.dataset.term) || candidates[0] || null;
  };
  // A figure written in a sentence of the decision summary is named by its title (stat_entry.js
  // `figureSpan`): the words around it are prose.
  const named = (el) => (el.closest("#decision-summary") && el.title ? { term: el.dataset.term, text: el.title } : null);
  const marks = [...document.querySelectorAll("[data-term][data-value]")].map((el) => {
    const title = named(el);
    const label = title ? null : labelOf(el);
    const row = el.closest("tr");
    const unit = (row && row.querySelector("[data-unit-of]")) || (label && label.querySelector("[data-unit-of]"));
    return {
      where: where(el),
      term: el.dataset.term,
      key: el.dataset.key,
      value: el.dataset.value,
      unit: el.dataset.unit,
      shown: shownValue(el),
      label: title || (label ? { term: label.dataset.term, text: text(label) } : null),
      written_unit: unit ? { term: unit.dataset.unitOf, text: unit.textContent.trim() } : null,
    };
  });
  const unmarked = [...document.querySelectorAll("td.number:not([data-term])")]
    .filter((td) => /[0-9]/.test(td.textContent))
    .map((td) => {
      const th = header(td);
      const row = td.closest("tr");
      const first = row ? row.querySelector("th") : null;
      const table = td.closest("table");
      const kind = table ? [...table.classList].filter((c) => c !== "data" && c !== "compact" && c !== "entries")[0] || "" : "";
      return { where: where(td), table: kind, column: th ? text(th) : "", row: first ? text(first) : "", shown: td.textContent.trim() };
    });
  // The decision summary's rows (page 1, the alpha page's "Decision summary"): what each shows
  // besides its marked figures, their written units, its topic, a check's name (its term's label),
  // the route's words (names, reasons) and badges; any digit left there is a number without a mark.
  const summary = [...document.querySelectorAll("#decision-summary tbody tr[data-summary]")].map((tr) => {
    const copy = tr.cloneNode(true);
    copy.querySelectorAll("th, [data-term][data-value], [data-label-of], [data-unit-of], .words, .why, .badge, code").forEach((c) => c.remove());
    return { where: where(tr), row: tr.dataset.summary, text: copy.textContent.replace(/\\s+/g, " ").trim() };
  });
  return { marks, unmarked, summary };
}
"""


# How the page writes a value in a unit: docs/dashboard.md "Names, units and colours", written
# again here (not read from labels.js), so a change of the page's formatting shows as a failure.
def _unsigned_zero(text: str) -> str:
    return (
        text[1:] if text.startswith("-") and not any(c in "123456789" for c in text.split("e")[0]) else text
    )


def _js_number(value: float) -> str:
    """JavaScript's String(number) for the magnitudes `num` leaves without an exponent."""
    return str(int(value)) if value == int(value) else repr(value)


def num(value: float) -> str:
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e6:
        return _js_number(float(f"{value:.4g}"))
    mantissa, exponent = f"{value:.3e}".split("e")
    return f"{mantissa}e{int(exponent):+d}"


def fixed(value: float, digits: int) -> str:
    return _unsigned_zero(f"{value:.{digits}f}")


def money(value: float) -> str:
    for scale, word in ((1e12, "tn"), (1e9, "bn"), (1e6, "m"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{num(value / scale)} {word}"
    return num(value)


SHOW = {
    "fraction": lambda v: f"{fixed(v * 100, 2)}%",
    "return": lambda v: f"{fixed(v * 100, 2)}%",
    "percentage_points": lambda v: f"{fixed(v, 2)}%",
    "bps": lambda v: f"{num(v)} bps",
    "t_statistic": lambda v: fixed(v, 2),
    "sessions": lambda v: _unsigned_zero(f"{round(v):,}"),
    "observations": lambda v: f"{int(v):,}" if v == int(v) else num(v),
    **{
        count: lambda v: _unsigned_zero(f"{round(v):,}")
        for count in ("trials", "blocks", "combinations", "alphas", "resamples", "checks")
    },
    "base_currency": money,
    "per_year": lambda v: f"{num(v)} per year",
    "per_session": lambda v: f"{num(v)} per session",
    "per_week": lambda v: f"{num(v)} per week",
}
WRITTEN = {
    "fraction": "%",
    "return": "%",
    "percentage_points": "% of peak",
    "bps": "bps",
    "ratio": "ratio",
    "correlation": "correlation",
    "t_statistic": "t-statistic",
    "probability": "probability (0 to 1)",
    "multiple": "× the modelled cost",
    "equity": "× starting equity",
    "sessions": "sessions",
    "observations": "observations",
    "weeks": "weeks",
    "names": "names",
    # The currency every book is in, written beside an amount (docs/dashboard.md "The book's currency").
    "base_currency": BOOK_CURRENCY,
    "years": "years",
    "per_year": "per year",
    "per_session": "per session",
    "per_week": "per week",
}
DASH = "—"


def shown_in(value: float | None, unit: str) -> str:
    if value is None or not math.isfinite(value):
        return DASH
    return SHOW.get(unit, num)(value)


def written(unit: str) -> str:
    return WRITTEN.get(unit, unit.replace("_", " "))


def figure_value(node: Any) -> list[Any]:
    """A stat entry's value (None when not measurable), a number or None; nothing else."""
    if isinstance(node, dict) and "value" in node and "status" in node:
        return [None if node["status"] == "not_measurable" else node["value"]]
    if node is None or isinstance(node, (int, float)) and not isinstance(node, bool):
        return [node]
    return []


def served_at(answer: Any, key: str) -> list[Any]:
    """The value at `key` from the answer's data, a list's item picked by a field (`checks[id=x].value`)."""
    node = answer.get("data")
    for part in key.split("."):
        name, _, pick = part.partition("[")
        node = node.get(name) if isinstance(node, dict) else None
        if pick and isinstance(node, list):
            field, _, wanted = pick.rstrip("]").partition("=")
            node = next((item for item in node if str(item.get(field)) == wanted), None)
    return figure_value(node)


def served_under(answer: Any, key: str) -> list[Any]:
    """Every value `answer` serves under `key` (its dotted names, list positions passed through, or
    a path picking a list's item, `served_at`): a stat entry's value (None when not measurable), a
    number, or None."""
    if "[" in key:
        return served_at(answer, key)
    names = key.split(".")
    found: list[Any] = []

    def walk(node: Any, trail: tuple[str, ...]) -> None:
        if trail[-len(names) :] == tuple(names):
            found.extend(figure_value(node))
        if isinstance(node, dict):
            for name, child in node.items():
                walk(child, (*trail, name))
        elif isinstance(node, list):
            for child in node:
                walk(child, trail)

    walk(answer.get("data"), ())
    return found


class Answers:
    """The answers of the routes a page asked, asked again here with the same key."""

    def __init__(self, site: Site, token: str) -> None:
        self.site, self.token = site, token
        self.by_url: dict[str, Any] = {}

    def of(self, urls: list[str]) -> list[tuple[str, Any]]:
        out = []
        for url in dict.fromkeys(urls):
            parsed = httpx.URL(url)
            if not parsed.path.startswith("/v1/") or not url.startswith(self.site.base):
                continue
            if url not in self.by_url:
                got = httpx.get(url, headers={"Authorization": f"Bearer {self.token}"})
                self.by_url[url] = got.json() if got.status_code == 200 else None
            if self.by_url[url] is not None:
                out.append((url, self.by_url[url]))
        return out


def without_basis(label: str, basis: str | None) -> str:
    """The label without the basis it says after the name ("Mean IC (as sealed, per week)" → "Mean
    IC (as sealed)"), so what is left starts with the term's label."""
    for said in BASIS_SAID.get(basis or "", ()):
        label = label.replace(f" ({said})", "").replace(f", {said})", ")")
    return label


def problems_of(marks: list[dict[str, Any]], answers: list[tuple[str, Any]]) -> list[str]:
    """What is wrong with the marked figures of one page: one line each."""
    out = []
    for mark in marks:
        at = f"{mark['where']}: {mark['key']} shown {mark['shown']!r}"
        term = VOCABULARY.get(mark["term"])
        if term is None:
            out.append(f"{at}: its term {mark['term']!r} is not the vocabulary's")
            continue
        if mark["unit"] and term.unit != "see unit on the entry" and mark["unit"] != term.unit:
            out.append(f"{at}: served in {mark['unit']!r}, the term {term.name!r} is in {term.unit!r}")
        label = mark["label"]
        if label is None and mark["where"] in NOT_YET_MARKED:
            pass  # its panel names its figures in its own code still: the value is checked below
        elif label is None:
            out.append(f"{at}: no label names it")
        elif label["term"] != term.name:
            out.append(f"{at}: labelled as the term {label['term']!r}, shown as {term.name!r}")
        else:
            if not any(
                text.startswith(term.label)
                for text in (label["text"], without_basis(label["text"], term.basis))
            ):
                out.append(f"{at}: labelled {label['text']!r}, the vocabulary's label is {term.label!r}")
            counts_its_basis = (term.basis, term.unit) in (("per session", "sessions"), ("per week", "weeks"))
            if (
                term.basis
                and not counts_its_basis
                and not any(said in label["text"] for said in BASIS_SAID[term.basis])
            ):
                out.append(f"{at}: labelled {label['text']!r}, which does not say its basis ({term.basis})")
        unit = mark["unit"] or term.unit
        if mark["written_unit"] is not None and mark["written_unit"]["term"] == term.name:
            if mark["written_unit"]["text"] != written(unit):
                out.append(f"{at}: its unit written {mark['written_unit']['text']!r}, not {written(unit)!r}")
        value = float(mark["value"]) if mark["value"] else None
        if mark["shown"] != shown_in(value, unit):
            out.append(f"{at}: the value {mark['value']!r} in {unit!r} reads {shown_in(value, unit)!r}")
        served = [v for _, answer in answers for v in served_under(answer, mark["key"])]
        if value not in served and not (value is None and not served):  # a dash for a field not served
            out.append(
                f"{at}: the value {mark['value']!r} is not what the page's routes serve under it ({served[:6]})"
            )
    return out


def summary_problems(rows: list[dict[str, Any]]) -> list[str]:
    """The decision summary's numbers without a mark: digits its rows write outside a marked figure,
    neither a day nor in the declared wording of their row (`SUMMARY_WORDING`)."""
    out = []
    for row in rows:
        if row["row"] in SUMMARY_NOT_YET_MARKED:
            continue
        text = re.sub(DAY, "", row["text"])
        for pattern, _why in SUMMARY_WORDING.get(row["row"], []):
            text = re.sub(pattern, "", text)
        if re.search(r"[0-9]", text):
            out.append(
                f"{row['where']}: the decision summary's {row['row']!r} row writes a number without a mark: {row['text']!r}"
            )
    return out


def not_yet_marked(cell: dict[str, Any]) -> bool:
    return cell["where"] in NOT_YET_MARKED or f"{cell['where']} table.{cell['table']}" in NOT_YET_MARKED


def unmarked_problems(unmarked: list[dict[str, Any]]) -> tuple[list[str], set[str]]:
    """Numbers in figure cells without a mark (neither display-only nor in a panel not yet marked),
    and the panels (and `panel table.kind`s) that had any."""
    out, panels = [], set()
    for cell in unmarked:
        panels |= {cell["where"], f"{cell['where']} table.{cell['table']}"}
        if (cell["where"], cell["column"]) in DISPLAY_ONLY or not_yet_marked(cell):
            continue
        out.append(
            f"{cell['where']} table.{cell['table']}: {cell['row']!r} / {cell['column']!r} shows {cell['shown']!r} without a mark"
        )
    return out, panels


def settled_alpha_page(page: Any) -> None:
    """Every panel of the alpha page drew (none still says "Loading…")."""
    page.wait_for_selector("#metrics table.metrics-core")
    page.wait_for_function(
        "() => [...document.querySelectorAll('section.panel .panel-body')]"
        ".every((b) => !/^Loading…/.test(b.textContent.trim()))"
    )
    # Two panels draw a part after their body has left "Loading…" (the performance panel's monthly
    # grid after its charts, the cross-section's table after the week index): read only once drawn,
    # or a panel not yet marked would read as marked because its numbers were not there yet.
    page.wait_for_selector("#performance table.returns")
    page.wait_for_selector("#cross-section table.cross-section")


def test_no_two_terms_share_a_label() -> None:
    seen: dict[str, list[str]] = {}
    for term in TERMS:
        seen.setdefault(term.label, []).append(term.name)
    assert {label: names for label, names in seen.items() if len(names) > 1} == {}


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_figure_of_the_alpha_page_and_its_tear_sheet_is_the_vocabularys(
    site: Site, tab: Any, alpha: str
) -> None:
    answers = Answers(site, site.keys.full)
    problems: list[str] = []
    with_unmarked: set[str] = set()
    for fragment, settled in (
        (f"#/alphas/{alpha}", settled_alpha_page),
        (
            f"#/alphas/{alpha}/tearsheet",
            lambda p: p.wait_for_selector("#tearsheet .page-footer .page-number"),
        ),
    ):
        visit = open_dashboard(site, tab, site.keys.full, fragment)
        settled(visit.page)
        got = visit.page.evaluate(COLLECT)
        check_clean(site, visit, allowed_statuses=(404, 422))
        assert got["marks"], f"{fragment}: no figure is marked"
        problems += problems_of(got["marks"], answers.of(visit.requests))
        found, panels = unmarked_problems(got["unmarked"])
        problems += found + summary_problems(got["summary"])
        assert got["summary"], f"{fragment}: no decision summary read"
        with_unmarked |= panels | {m["where"] for m in got["marks"] if m["label"] is None}
        visit.page.close()
    assert problems == []
    done = sorted(set(NOT_YET_MARKED) - with_unmarked)
    # Judged on the full-size alpha, where every panel has data.
    assert not done or alpha != ALPHAS[0], f"every figure of {done} is marked: take them off NOT_YET_MARKED"


def test_the_check_finds_a_wrong_label_unit_basis_or_value_and_an_unmarked_number() -> None:
    """The checks above against marks made by hand: the right one passes, each wrong one is found."""
    answer = {
        "data": {
            "core": {
                "information_ratio": {"value": 0.5542476487546928, "unit": "ratio", "status": "available"}
            }
        }
    }
    good = {
        "where": "metrics",
        "term": "information_ratio",
        "key": "core.information_ratio",
        "value": "0.5542476487546928",
        "unit": "ratio",
        "shown": "0.5542",
        "label": {"term": "information_ratio", "text": "Information ratio (annualised)"},
        "written_unit": {"term": "information_ratio", "text": "ratio"},
    }
    answers = [("/v1/alphas/a/metrics", answer)]
    assert problems_of([good], answers) == []
    wrong = [
        {**good, "label": {"term": "information_ratio", "text": "Sharpe (annualised)"}},
        {**good, "label": {"term": "information_ratio", "text": "Information ratio"}},
        {**good, "unit": "fraction", "shown": "55.42%"},
        {**good, "written_unit": {"term": "information_ratio", "text": "%"}},
        {**good, "value": "0.6", "shown": "0.6"},
        {**good, "shown": "0.55"},
        {**good, "label": None},
        {**good, "term": "sharpe_ratio"},
    ]
    assert [i for i, mark in enumerate(wrong) if not problems_of([mark], answers)] == []
    cell = {"where": "risk", "table": "risk", "column": "Value", "row": "CAGR", "shown": "9.41%"}
    assert len(unmarked_problems([cell])[0]) == 1
    assert unmarked_problems([{**cell, "where": "cross-section"}])[0] == []
