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
  here with httpx), formatted in the term's unit as tests/support/dashboard_vocabulary.py formats
  it (its own code: the unit table of docs/dashboard.md "Names, units and colours");
- no two terms share a label;
- no number in a figure cell (`td.number`) is left without a mark, but for the display-only
  columns declared once (`DISPLAY_ONLY`, tests/support/dashboard_vocabulary.py), with why: every
  panel is marked (no list of panels not yet marked is kept any more, so a new panel is marked from
  the start);
- no digit of the decision summary's rows is left outside a mark, the CUSUM's alarm row included (an
  alarm the demo serves under a what-if split, drawn as the summary draws it).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from schemas.terms import TERMS
from tests.e2e.dashboard_site import Site, check_clean, open_dashboard
from tests.support.dashboard_vocabulary import (
    COLLECT,
    Answers,
    problems_of,
    settled_alpha_page,
    unmarked_problems,
)

pytestmark = pytest.mark.e2e

# An approved alpha (the full-size demo alpha, every panel with data), the one whose approval was
# withdrawn (retired: the demo records hold no rejection, and it is the alpha a head of research
# turned down after approving it), and a nominated one with a shorter history (151 sessions). The
# demo seals name no trial family (tests/e2e/test_dashboard_decisions.py: each family figure shows
# its reason), so the family figures are checked as the not-measurable entries they are served as.
ALPHAS = ("momentum_12_1", "Test_planted_factor", "Test_short_term_reversal")


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


def summary_problems(rows: list[dict[str, Any]]) -> list[str]:
    """The decision summary's numbers without a mark: digits its rows write outside a marked figure,
    neither a day nor in the declared wording of their row (`SUMMARY_WORDING`)."""
    out = []
    for row in rows:
        text = re.sub(DAY, "", row["text"])
        for pattern, _why in SUMMARY_WORDING.get(row["row"], []):
            text = re.sub(pattern, "", text)
        if re.search(r"[0-9]", text):
            out.append(
                f"{row['where']}: the decision summary's {row['row']!r} row writes a number without a mark: {row['text']!r}"
            )
    return out


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
        problems += unmarked_problems(got["unmarked"]) + summary_problems(got["summary"])
        assert got["summary"], f"{fragment}: no decision summary read"
        visit.page.close()
    assert problems == []


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
    assert len(unmarked_problems([cell])) == 1
    assert unmarked_problems([{**cell, "where": "downloads", "column": "Rows"}]) == []
    row = {
        "where": "summary",
        "row": "monitoring",
        "text": "CUSUM since 2021-03-05: Book return: ALARM (statistic",
    }
    assert summary_problems([row]) == []
    assert len(summary_problems([{**row, "text": row["text"] + " 1.8 of 13.91"}])) == 1


def test_a_week_with_forward_returns_is_marked_as_served(site: Site, tab: Any) -> None:
    """The cross-section opens on the latest traded week, whose forward returns are not sealed yet
    (a dash each): a week in the middle of the run has them, each marked as served."""
    alpha = ALPHAS[0]
    index = site.api(f"/v1/alphas/{alpha}/rebalances", site.keys.full, limit=5000).json()["data"]
    traded = [w["date"] for w in index if w["week_status"] == "traded"]
    week = traded[len(traded) // 2]
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{alpha}")
    page = visit.page
    page.wait_for_selector("#cs-results table.cross-section")
    page.select_option("#cs-week", week)
    page.wait_for_function(
        "(week) => document.querySelector('#cs-status strong')?.innerText === week"
        " && document.querySelector('#cs-results table.cross-section')",
        arg=week,
    )
    got = page.evaluate(COLLECT)
    marks = [m for m in got["marks"] if m["where"] == "cross-section"]
    assert any(m["term"] == "forward_return" and m["value"] for m in marks), week
    assert problems_of(marks, Answers(site, site.keys.full).of(visit.requests)) == []
    assert unmarked_problems([c for c in got["unmarked"] if c["where"] == "cross-section"]) == []
    check_clean(site, visit)


# The demo's alpha whose factor reverses, under a what-if split early enough that the CUSUM of its
# book's return alarms: the demo's own splits raise no alarm, so the decision summary's monitoring row
# (shown on an alarm only) is drawn here from this served answer, as the alpha page and the tear
# sheet's first page draw it (decision_summary.js `decisionSummary`, monitoring_panel.js
# `monitoringLine`), and read as theirs is.
ALARMED = ("value_composite_legacy", "2021-03-05")

DRAW_ALARM = """
async ([alpha, answer]) => {
  const assets = document.querySelector("script[type=module]").src.replace(/app\\.js$/, "");
  const { decisionSummary } = await import(`${assets}decision_summary.js`);
  const section = document.createElement("section");
  section.className = "panel";
  section.id = "alarm";
  section.append(decisionSummary(alpha, { monitoring: { status: "fulfilled", value: answer } }));
  document.querySelector("main").append(section);
}
"""


def test_the_summary_s_alarm_row_marks_every_figure(site: Site, tab: Any) -> None:
    alpha, split = ALARMED
    url = f"{site.base}/v1/alphas/{alpha}/analytics/monitoring?book=long_short&split={split}"
    answers = Answers(site, site.keys.full).of([url])
    [(_, answer)] = answers
    assert any(c["state"] == "alarm" for c in answer["data"]["charts"]), (
        f"{alpha} raises no alarm after {split}"
    )
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{alpha}")
    visit.page.wait_for_selector("#decision-summary")
    visit.page.evaluate(DRAW_ALARM, [alpha, answer])
    row = visit.page.wait_for_selector('#alarm tr[data-summary="monitoring"]')
    assert "ALARM" in row.inner_text()
    got = visit.page.evaluate(COLLECT)
    marks = [m for m in got["marks"] if m["where"] == "alarm"]
    # The row's figures: each chart's statistic and live weeks, the threshold, the in-control run
    # length and the yearly false-alarm probability.
    assert {m["term"] for m in marks} >= {
        "cusum_statistic",
        "cusum_threshold",
        "live_weeks",
        "arl0_weeks",
        "false_alarm_probability_per_year",
    }
    assert problems_of(marks, answers) == []
    rows = [r for r in got["summary"] if r["where"] == "alarm" and r["row"] == "monitoring"]
    assert len(rows) == 1 and summary_problems(rows) == []
    check_clean(site, visit)
