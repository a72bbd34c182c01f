"""Every figure a dashboard page shows, held against the vocabulary and the route's answer: the
marks the page carries (`COLLECT`), how a value is written in its unit, the answers of the routes
the page asked, and what is wrong with the marks and the unmarked number cells of one page."""

from __future__ import annotations

import math
from typing import Any

import httpx

from schemas.conventions import BOOK_CURRENCY
from schemas.vocabulary import VOCABULARY
from tests.e2e.dashboard_site import Site

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
    (
        "cross-section",
        "Dir.",
    ): "a name's direction that week, the sign of its score (1, 0, -1): a side of the book, not a figure",
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
  // The header cells over a cell's column, nearest first: a head of several rows names a group of
  // columns once (the monthly returns' "Monthly return" over the months' names), spans counted.
  const headers = (cell) => {
    const table = cell.closest("table");
    if (!table || !table.tHead || cell.cellIndex === undefined) return [];
    let column = 0;
    for (const before of cell.parentElement.cells) {
      if (before === cell) break;
      column += before.colSpan;
    }
    const grid = [];
    [...table.tHead.rows].forEach((tr, r) => {
      grid[r] = grid[r] || [];
      let c = 0;
      for (const th of tr.cells) {
        while (grid[r][c]) c++;
        for (let i = 0; i < th.rowSpan; i++)
          for (let j = 0; j < th.colSpan; j++) (grid[r + i] = grid[r + i] || [])[c + j] = th;
        c += th.colSpan;
      }
    });
    return [...new Set(grid.map((row) => row[column]).filter(Boolean))].reverse();
  };
  const header = (cell) => headers(cell)[0] || null;
  // The element naming a value: its row's or its column's, the one of its own term first (a row
  // names the figure, a column the part of it: an interval's bound, its observations).
  const labelOf = (el) => {
    const row = el.closest("tr");
    const candidates = [
      ...(row ? row.querySelectorAll("[data-term]:not([data-value])") : []),
      ...headers(el).flatMap((th) => (th.matches("[data-term]") ? [th] : [...th.querySelectorAll("[data-term]")])),
    ];
    return candidates.find((c) => c.dataset.term === el.dataset.term) || candidates[0] || null;
  };
  // A figure written in a sentence (the decision summary's, a panel's: stat_entry.js `figureSpan`)
  // is named by its title: the words around it are prose.
  const named = (el) => (el.matches("span.figure") && el.title ? { term: el.dataset.term, text: el.title } : null);
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
        for count in (
            "trials",
            "blocks",
            "combinations",
            "alphas",
            "resamples",
            "checks",
            "members",
            "values",
            "hypotheses",
            "months",
            "simulations",
            "draws",
        )
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
    "probability": "probability, 0 to 1",
    "multiple": "× the modelled cost",
    "equity": "× starting equity",
    "sessions": "sessions",
    "observations": "observations",
    "weeks": "weeks",
    "names": "names",
    "members": "members",
    "values": "values",
    "hypotheses": "hypotheses",
    "months": "months",
    "simulations": "simulations",
    "draws": "draws",
    # The currency every book is in, written beside an amount (docs/dashboard.md "The book's currency").
    "base_currency": BOOK_CURRENCY,
    "years": "years",
    "per_year": "per year",
    "per_session": "per session",
    "per_week": "per week",
}
DASH = "—"


# Terms shown to other decimals than their unit's (labels.js FIGURES `digits`), each with why.
SHOWN_BY_TERM = {
    # The grid of the monthly returns sets twelve months side by side: a month to one decimal (its
    # year and SPY's year to the two of their unit).
    "monthly_return": lambda v: f"{fixed(v * 100, 1)}%",
}


def shown_in(value: float | None, unit: str, term: str | None = None) -> str:
    if value is None or not math.isfinite(value):
        return DASH
    return SHOWN_BY_TERM.get(term or "", SHOW.get(unit, num))(value)


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
        if label is None:
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
        if mark["shown"] != shown_in(value, unit, term.name):
            out.append(
                f"{at}: the value {mark['value']!r} in {unit!r} reads {shown_in(value, unit, term.name)!r}"
            )
        served = [v for _, answer in answers for v in served_under(answer, mark["key"])]
        if value not in served and not (value is None and not served):  # a dash for a field not served
            out.append(
                f"{at}: the value {mark['value']!r} is not what the page's routes serve under it ({served[:6]})"
            )
    return out


def unmarked_problems(unmarked: list[dict[str, Any]]) -> list[str]:
    """Numbers in figure cells without a mark, but in the display-only columns."""
    return [
        f"{cell['where']} table.{cell['table']}: {cell['row']!r} / {cell['column']!r} shows {cell['shown']!r} without a mark"
        for cell in unmarked
        if (cell["where"], cell["column"]) not in DISPLAY_ONLY
    ]


def settled_alpha_page(page: Any) -> None:
    """Every panel of the alpha page drew (none still says "Loading…")."""
    page.wait_for_selector("#metrics table.metrics-core")
    page.wait_for_function(
        "() => [...document.querySelectorAll('section.panel .panel-body')]"
        ".every((b) => !/^Loading…/.test(b.textContent.trim()))"
    )
    # Two panels draw a part after their body has left "Loading…" (the performance panel's monthly
    # grid after its charts, the cross-section's table after the week index): read only once drawn,
    # or their numbers would not be there to check.
    page.wait_for_selector("#performance table.returns")
    page.wait_for_selector("#cross-section table.cross-section")
