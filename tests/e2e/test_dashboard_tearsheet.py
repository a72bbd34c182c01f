"""The tear sheet and the comparison report as a head of research prints them for a memo
(docs/dashboard.md "Tear sheet" and "Comparison report"), in Chromium against the real
`alpha-results serve` over the demo lake, with the fixtures of tests/e2e/test_dashboard.py.

- Every topic is a page of its own, every chart has axes, units and a legend, and the figures drawn
  are the routes' answers to the same requests (the monthly heatmap and the rolling beta recomputed
  here with pandas and numpy from the served series; the beta over the whole history is the risk
  route's).
- Printed by Chromium on A4 and on Letter: one PDF page per topic, none blank, nothing cut off, and
  on every page the provenance (alpha, build, data as of, checks policy) and "page n of m", which is
  Chromium's own count of the pages.
- Seal text (names, theses) with markup is shown as text.

PDFs and screenshots go to the test's tmp folder, and to `$ALPHA_RESULTS_ARTEFACTS/dashboard/`
when that is set.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sqlite3
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest

from tests.conftest import backend_unavailable
from tests.e2e.dashboard_site import ALPHA, Site, check_clean, keep_artefact, keep_screenshot, open_dashboard
from tests.knowledge import demo_split
from tests.support.dashboard_decisions import assert_cost_curves, assert_decay, assert_mmc, assert_regimes
from tests.support.dashboard_vocabulary import num
from tests.support.tearsheet import nothing_cut_off, pdf_pages, summary_of

pytestmark = pytest.mark.e2e

TOPICS = [
    "summary",
    "overview",
    "drawdowns",
    "monthly",
    "rolling",
    "attribution",
    "sectors",
    "fragility",
    "factors",
    "factor-exposures",
    "quantiles",
    "signal",
    "sub-universe",
    "sector-ic",
    "live",
    "decay",
    "ic-decay",
    "risk",
    "regimes",
    "residual",
    "mmc",
    "crowding",
    "checks",
    "significance",
    "significance-tests",
    "catalogue-bound",
    "uncertainty",
    "overfitting",
    "family-tests",
    "family-parameters",
    "costs",
    "cost-curve",
    "cost-capital",
    "capacity",
    "capacity-grid",
]
REPORTED = (
    ALPHA,
    "Test_planted_factor",
    "Test_short_term_reversal",
)  # the last trades on 151 of 296 sessions
REPORT_TOPICS = ["summary", "figures", "risk", "curves", "correlation"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
BETA_WINDOW, BETA_LEAST = 126, 63
HOSTILE = '<img src=x onerror="window.__pwned=1">Momentum & <b>co</b>'


def rows_of(site: Site, path: str, token: str, **params: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every row of a collection, page by page, and the first page's meta."""
    rows: list[dict[str, Any]] = []
    meta: dict[str, Any] = {}
    offset = 0
    while True:
        page = site.api(path, token, **params, limit=500, offset=offset).json()
        meta = meta or page["meta"]
        rows += page["data"]
        offset += page["pagination"]["returned"]
        if not page["pagination"]["has_more"]:
            return rows, meta


def build_of(answer: dict[str, Any]) -> str:
    source: str = answer["meta"]["source"]
    return source.rsplit("@", 1)[1]


def close(a: float | None, b: float | None, rel: float = 1e-12) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def all_close(shown: list[float | None], served: list[float | None], rel: float = 1e-12) -> None:
    assert len(shown) == len(served)
    bad = [(i, a, b) for i, (a, b) in enumerate(zip(shown, served, strict=True)) if not close(a, b, rel)]
    assert not bad, bad[:5]


def path_values(page: Any, chart: str, series: str | None = None) -> list[float | None]:
    """The values a chart's series was drawn from (its path's `data-values`)."""
    selector = f"svg[data-chart='{chart}'] path[data-series]"
    found: list[list[Any]] = page.eval_on_selector_all(
        selector, "ps => ps.map(p => [p.dataset.series, JSON.parse(p.dataset.values)])"
    )
    matches = [values for name, values in found if series is None or name == series]
    assert len(matches) == 1, (chart, series, [name for name, _ in found])
    return matches[0]


def heatmap(page: Any, chart: str) -> dict[tuple[str, str], float | None]:
    """(row, column) -> the value of each cell of a heatmap."""
    cells: list[list[str]] = page.eval_on_selector_all(
        f"svg[data-chart='{chart}'] rect.cell",
        "rs => rs.map(r => [r.dataset.row, r.dataset.column, r.dataset.value])",
    )
    return {(row, column): float(value) if value else None for row, column, value in cells}


def assert_charts_read(page: Any, scope: str) -> None:
    """Every chart has both axes titled (the value axis with its unit) and a legend naming each series."""
    charts: list[dict[str, Any]] = page.eval_on_selector_all(
        f"{scope} svg.svg-chart",
        """svgs => svgs.map(svg => ({
          name: svg.dataset.chart,
          kind: ["svg-heatmap", "svg-bars", "svg-hbars"].find(k => svg.classList.contains(k)) || "lines",
          x: svg.querySelector(".x-title")?.textContent || "",
          y: svg.querySelector(".y-title")?.textContent || "",
          series: [...svg.querySelectorAll("path[data-series]")].map(p => p.dataset.series),
          legend: (() => { let l = svg.previousElementSibling;
            return l && l.classList.contains("svg-legend") ? [...l.querySelectorAll("text")].map(t => t.textContent) : []; })(),
          key: [...svg.querySelectorAll(".key-text")].map(t => t.textContent),
          ticks: svg.querySelectorAll(".x-tick, .column-label").length,
        }))""",
    )
    assert charts
    for chart in charts:
        assert chart["x"] and chart["y"], chart
        assert chart["ticks"] >= 2, chart
        if chart["kind"] == "lines":
            assert "(" in chart["y"] and chart["y"].endswith(")"), chart  # "Cumulative return (%)"
            assert chart["series"] and set(chart["series"]) <= set(chart["legend"]), chart
            continue
        assert len(chart["key"]) >= 2, chart  # what the colours mean, printed beneath
        value_axis = {"svg-heatmap": chart["x"], "svg-bars": chart["y"], "svg-hbars": chart["x"]}[
            chart["kind"]
        ]
        assert "(" in value_axis or chart["name"] == "report-correlation", chart  # the unit of the values


def keep_pdf(tmp_path: Path, name: str, pdf: bytes) -> Path:
    """The PDF, and its first page as a PNG where pdftoppm is installed, kept as artefacts."""
    path = tmp_path / name
    path.write_bytes(pdf)
    keep_artefact(path)
    if shutil.which("pdftoppm"):
        stem = tmp_path / path.stem
        subprocess.run(
            ["pdftoppm", "-r", "60", "-f", "1", "-l", "2", "-png", str(path), str(stem)], check=True
        )
        for png in sorted(tmp_path.glob(f"{path.stem}-*.png")):
            keep_artefact(png)
    return path


def assert_printed(
    page: Any, topics: list[str], titles: list[str], provenance: list[str], tmp_path: Path, name: str
) -> None:
    """Printed on A4 and Letter: a page per topic, each with its title, the provenance and its number,
    and Chromium's own page count (its footer template) agrees."""
    for paper in ("A4", "Letter"):
        texts = pdf_pages(page.pdf(format=paper))
        assert len(texts) == len(topics), (paper, len(texts))
        for number, (flat, title) in enumerate(zip(texts, titles, strict=True), start=1):
            assert f"page {number} of {len(topics)}" in flat, (paper, number, flat[-300:])
            assert title in flat, (paper, number, title)  # the page's own topic: no page of only a footer
            for part in provenance:
                assert part in flat, (paper, number, part)
    counted = page.pdf(
        format="A4",
        display_header_footer=True,
        header_template="<span></span>",
        footer_template='<div style="font-size:7px;width:100%;text-align:center">'
        'chromium page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
        margin={"top": "12mm", "bottom": "12mm", "left": "12mm", "right": "12mm"},
    )
    for number, flat in enumerate(pdf_pages(counted), start=1):
        assert (
            f"chromium page {number} of {len(topics)}" in flat and f"page {number} of {len(topics)}" in flat
        )
    keep_pdf(tmp_path, name, page.pdf(format="A4"))


SUMMARY_ROWS = [
    "standing",
    "checks",
    "live",
    "capacity",
    "fragility",
    "costs",
    "intervals",
    "overfitting",
    "expectation",
    "regimes",
    "specific",
    "contribution",
    "correlation",
]
"""The summary's rows; an alarm of /analytics/monitoring adds its row after `live` (none in the small demo)."""


def squeezed(text: str) -> str:
    """The text without any white space or hyphen (ligatures spelled out): a printed line may wrap
    anywhere, and pdftotext joins a line that ends in a hyphen to the next without it (a date
    wrapped at "2021-" reads "202107-22")."""
    return "".join(unicodedata.normalize("NFKC", text).split()).replace("-", "")


def printed_page_text(tmp_path: Path, pdf: Path, page_number: int) -> str:
    """One page of a PDF as pdftotext reads it (poppler-utils), and that page as a PNG kept beside it."""
    if not (shutil.which("pdftotext") and shutil.which("pdftoppm")):
        backend_unavailable(
            "pdftotext and pdftoppm are not installed (apt-get install poppler-utils; .ci/run does)"
        )
    page = str(page_number)
    text = subprocess.run(
        ["pdftotext", "-f", page, "-l", page, str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    png = tmp_path / f"{pdf.stem}-page{page}"
    subprocess.run(
        ["pdftoppm", "-r", "90", "-f", page, "-l", page, "-singlefile", "-png", str(pdf), str(png)],
        check=True,
    )
    keep_artefact(png.with_suffix(".png"))
    return text


def served_or_none(text: str | None) -> float | None:
    return float(text) if text else None


def test_the_tear_sheet_opens_with_the_decision_and_its_printed_first_page_says_it(
    site: Site, tab: Any, tmp_path: Path, demo_lake: Path, demo_records: Path
) -> None:
    """Issue 47, items 3 and 7: page 1 is the decision a head of research signs, every figure the
    routes' answer: the standing and since when, the checks' verdict with each failed (and not
    measurable) check and its reason, the part after the split against the backtest, called live
    only after an approval (the demo's head of research approved momentum_12_1 with an override a
    few days after its research run: live is what the lake first published after, issue 64),
    capacity at the reference capital, fragility, the costs and the correlation to the reference
    set. Printed by Chromium, the PDF's first page (read by pdftotext) says the same."""
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    got = summary_of(site, ALPHA, site.keys.full)
    assert page.eval_on_selector("#tearsheet > .sheet-page", "p => p.dataset.topic") == "summary"
    assert page.inner_text("#page-summary > h2") == "Decision summary"
    rows = page.eval_on_selector_all("#decision-summary tbody tr", "trs => trs.map(tr => tr.dataset.summary)")
    assert rows == SUMMARY_ROWS
    assert not page.query_selector("#page-summary .error")

    def row(name: str) -> str:
        return f"#decision-summary tr[data-summary='{name}']"

    def figure(name: str) -> float | None:
        return served_or_none(page.get_attribute(f"{row(name)} td.summary-figure", "data-value"))

    def says(name: str) -> str:
        text: str = page.inner_text(f"{row(name)} td.summary-says")
        return text

    def topic(name: str) -> str:
        text: str = page.inner_text(f"{row(name)} th")
        return text

    # The standing and since when: the demo's one decision, as its records hold it (sqlite3).
    standing = got["promotions"]
    with sqlite3.connect(demo_records) as db:
        recorded = db.execute(
            "SELECT action, decided_by, as_of, note FROM promotions WHERE alpha_id = ? ORDER BY id", (ALPHA,)
        ).fetchall()
    assert [(d["action"], d["decided_by"], d["as_of"], d["note"]) for d in standing["decisions"]] == recorded
    ((_, by, since, note),) = recorded
    assert (standing["standing"], standing["since"]) == ("approved", since)
    decision = standing["decisions"][0]
    cell = f"{row('standing')} td.summary-figure"
    assert (page.get_attribute(cell, "data-standing"), page.get_attribute(cell, "data-since")) == (
        "approved",
        standing["since"],
    )
    assert page.inner_text(cell) == "Approved"
    assert says("standing").startswith(f"Approved since {since} by {by}: “{note}”. 1 decision recorded.")
    assert f"Recorded {decision['recorded_at']} (the live part starts with what was published after)." in (
        says("standing")
    )
    override = decision["snapshot"]["override"]
    assert override and f"Approved with failing checks, the override given: “{override}”." in says("standing")
    assert f"alpha-results retire {ALPHA} --dry-run" in says("standing")

    # The verdict, then every check that did not pass with the route's own reason, in the route's order.
    checks = got["checks"]
    summary = checks["summary"]
    assert summary["verdict"] == "fail" and summary["failed"] >= 3
    assert page.get_attribute(f"{row('checks')} td.summary-figure", "data-verdict") == "fail"
    verdict = page.inner_text(f"{row('checks')} td.summary-figure")
    assert verdict.startswith("FAIL") and (
        f"{summary['passed']} passed, {summary['failed']} failed, {summary['not_measurable']} not measurable"
        in " ".join(verdict.split())
    )
    listed = page.eval_on_selector_all(
        "#decision-summary ul.summary-checks li",
        "lis => lis.map(li => [li.dataset.check, li.dataset.verdict, li.querySelector('.why').textContent,"
        " li.querySelector('.badge').textContent])",
    )
    unpassed = [c for c in checks["checks"] if c["verdict"] != "pass"]
    assert [(i, v, why) for i, v, why, _ in listed] == [
        (c["id"], c["verdict"], c["reason"]) for c in unpassed
    ]
    assert [badge for *_, badge in listed] == [
        {"fail": "FAIL"}.get(c["verdict"], "NOT MEASURABLE") for c in unpassed
    ]
    assert sum(c["verdict"] == "fail" for c in unpassed) == summary["failed"]

    # Approved: the part the lake first published after the approval was recorded is live.
    live = got["live"]
    assert (live["split_origin"], live["split_date"]) == (
        "approval",
        demo_split(demo_lake, demo_records, ALPHA),
    )
    assert live["out_of_sample"]["sessions"] > 0
    assert topic("live") == "Live against backtest"
    assert says("live").startswith(f"Live (out of sample) ({live['split_date']}: the approval"), says("live")
    assert page.get_attribute(f"{row('live')} td.summary-figure", "data-origin") == "approval"
    assert close(figure("live"), live["out_of_sample"]["information_ratio"]["value"])
    assert f"{live['out_of_sample']['sessions']} sessions" in says("live")
    # Is it still working: no alarm in the small demo, so no row; the sheet's page of the expected
    # live information ratio gives each CUSUM's state, statistic and threshold as served.
    watched = got["monitoring"]
    assert not any(chart["state"] == "alarm" for chart in watched["charts"])
    sheet = page.inner_text("#page-decay")
    for chart in watched["charts"]:
        if chart["state"] != "not_measurable":
            assert f"statistic {num(chart['cusum_statistic'])} of {num(watched['cusum_threshold'])}" in sheet
    assert f"one false alarm every {num(watched['arl0_weeks'])} weeks" in sheet
    # The same words on the sheet's own page of it and in its charts' legends.
    assert page.inner_text("#page-live > h2") == "Live against backtest"
    assert "Out of sample (live)" in page.inner_text("#page-live table.live thead")
    legend = page.eval_on_selector_all(
        "#sheet-equity svg.svg-legend text", "ts => ts.map(t => t.textContent)"
    )
    assert legend[-1] == f"live (out of sample) after {live['split_date']}"

    # Capacity at the reference capital, fragility, costs: the served figure, and the sentence names it.
    capacity = got["capacity"]
    assert capacity["capital"] == 1e8
    assert close(figure("capacity"), capacity["net_information_ratio"]["value"])
    assert says("capacity").startswith("At the reference capital K0 = 100 m USD: net information ratio ")
    fragility = got["attribution"]["fragility"]
    assert close(figure("fragility"), fragility["best_days_kept"]["value"])
    assert all(name in says("fragility") for name in fragility["best_names"])
    assert f"without the {fragility['drop']} best days" in says("fragility")
    costs = got["costs"]
    assert close(figure("costs"), costs["break_even_multiple"]["value"])
    assert "× the modelled cost" in page.inner_text(f"{row('costs')} td.summary-figure")

    # Issue 65, item 1: what else a head of research weighs, each figure the route's, with its interval,
    # basis or reason: the headline figures' bootstrap intervals, the family's PBO with its size, the
    # expected live information ratio, the weakest regime, the specific and residual ratios, the
    # contribution to the approved book.
    uncertainty = got["uncertainty"]
    assert close(figure("intervals"), uncertainty["information_ratio"]["value"])
    assert "95% block-bootstrap intervals" in says("intervals")
    assert f"{uncertainty['resamples']:,} resamples" in says("intervals")
    overfitting = got["overfitting"]
    assert figure("overfitting") == overfitting["pbo"]["value"]
    assert page.get_attribute(f"{row('overfitting')} td.summary-figure", "data-family-trials") == str(
        overfitting["family_trials"]
    )
    if overfitting["pbo"]["value"] is None:
        assert says("overfitting") == f"Not measurable: {overfitting['pbo']['withheld_reason']}."
    else:
        assert f"trial family {overfitting['family']} ({overfitting['family_trials']} trials" in says(
            "overfitting"
        )
    expected = next(s for s in got["expectation"]["series"] if s["series"] == "information_ratio")
    assert close(figure("expectation"), expected["expected_live"])
    assert says("expectation").startswith("Backtest ") and "90% interval [" in says("expectation")
    regimes = got["regimes"]
    weakest = next(r for r in regimes["by_regime"] if r["regime"] == regimes["weakest_regime"])
    assert page.get_attribute(f"{row('regimes')} td.summary-figure", "data-regime") == weakest["regime"]
    assert close(figure("regimes"), weakest["information_ratio"]["value"])
    assert f"{weakest['regime_sessions']} sessions" in says("regimes")
    assert close(figure("specific"), got["factors"]["specific_information_ratio"]["value"])
    assert says("specific").startswith("Specific information ratio ")
    assert "; Appraisal ratio (beyond SPY and the reference set) " in says("specific")
    assert close(figure("contribution"), got["mmc"]["mmc_mean"]["value"])
    assert f"over {got['mmc']['mmc_weeks']} weeks" in says("contribution")

    # The correlation to the reference set the checks compare with, and its reason as served.
    correlation = next(c for c in checks["checks"] if c["id"] == "production_correlation")
    assert close(figure("correlation"), correlation["value"])
    assert says("correlation") == correlation["reason"]
    # The set is the approved one (value_composite_legacy; Test_planted_factor retired), the alpha excepted.
    assert correlation["reference"] == "approved" and correlation["nearest"] == "value_composite_legacy"
    assert topic("correlation") == "Correlation to the approved set"
    page.locator("#page-summary").screenshot(path=str(tmp_path / "tearsheet-summary.png"))
    keep_artefact(tmp_path / "tearsheet-summary.png")

    # Printed: the PDF's first page is the summary, read back by pdftotext.
    pdf = keep_pdf(tmp_path, "tearsheet-summary.pdf", page.pdf(format="A4"))
    first = squeezed(printed_page_text(tmp_path, pdf, 1))
    name = site.api(f"/v1/alphas/{ALPHA}", site.keys.full).json()["data"]["name"]
    for part in [
        "Decision summary",
        name,
        f"Approved since {since} by {by}",
        f"page 1 of {len(TOPICS)}",
        f"{summary['passed']} passed, {summary['failed']} failed, {summary['not_measurable']} not measurable",
        f"Live (out of sample) ({live['split_date']}",
        "At the reference capital K0 = 100 m USD",
        "Headline figures with their intervals",
        "Overfitting of the trial family",
        "Expected live information ratio",
        "Weakest regime",
        "Specific and appraisal ratios",
        "Contribution to the approved book",
        correlation["reason"],
        *(c["reason"] for c in unpassed),
    ]:
        assert squeezed(part) in first, part
    assert first.count("FAIL") >= summary["failed"] + 1  # the verdict and each failed check
    assert squeezed("Headline metrics") not in first  # the performance page comes after it
    check_clean(site, visit)


def test_the_alpha_page_opens_with_the_tear_sheets_decision_summary(site: Site, tab: Any) -> None:
    """Issue 65, item 1: the alpha page's summary is the tear sheet's first page, right after the
    description: the same rows, each figure the route's answer."""
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    page.wait_for_selector("#decision #decision-summary tr[data-summary='correlation']")
    panels = page.eval_on_selector_all("main section.panel[id]", "ss => ss.map(s => s.id)")
    assert panels[:3] == ["description", "decision", "performance"]
    rows = page.eval_on_selector_all("#decision-summary tbody tr", "trs => trs.map(tr => tr.dataset.summary)")
    assert rows == SUMMARY_ROWS
    assert not page.query_selector("#decision .error")
    got = summary_of(site, ALPHA, site.keys.full)

    def figure(name: str) -> float | None:
        return served_or_none(
            page.get_attribute(f"#decision-summary tr[data-summary='{name}'] td.summary-figure", "data-value")
        )

    expected = next(s for s in got["expectation"]["series"] if s["series"] == "information_ratio")
    weakest = next(r for r in got["regimes"]["by_regime"] if r["regime"] == got["regimes"]["weakest_regime"])
    for name, served in [
        ("intervals", got["uncertainty"]["information_ratio"]["value"]),
        ("overfitting", got["overfitting"]["pbo"]["value"]),
        ("expectation", expected["expected_live"]),
        ("regimes", weakest["information_ratio"]["value"]),
        ("specific", got["factors"]["specific_information_ratio"]["value"]),
        ("contribution", got["mmc"]["mmc_mean"]["value"]),
        ("capacity", got["capacity"]["net_information_ratio"]["value"]),
    ]:
        shown = figure(name)
        assert (shown is None and served is None) or close(shown, served), (name, shown, served)
    # What later builds restated of what the alpha published, as the route counts it (item 1).
    restated = site.api(f"/v1/alphas/{ALPHA}/restatements", site.keys.full, limit=1).json()
    shown_restated = page.get_attribute(
        "#decision-summary tr[data-summary='standing'] .restatements", "data-restated"
    )
    assert shown_restated == str(restated["pagination"]["total"])
    sentence = page.inner_text("#decision-summary tr[data-summary='standing'] .restatements")
    if restated["data"]:
        first = restated["data"][0]
        assert first["restated_at"][:10] in sentence and first["build_id"] in sentence, sentence
    else:
        assert "No published value has been restated" in sentence
    check_clean(site, visit)


def test_the_report_opens_with_one_summary_row_per_alpha_of_the_lake(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """Issue 47, item 3: the comparison report opens as the tear sheet does, one row an alpha, each
    cell the routes' answer; every alpha of the demo lake on one printed page."""
    token = site.keys.full
    every = [r["alpha_id"] for r in site.api("/v1/alphas", token, limit=100).json()["data"]]
    assert 2 < len(every) <= 10
    visit = open_dashboard(site, tab, token, f"#/report?alphas={','.join(every)}")
    page = visit.page
    page.wait_for_selector("#report .page-footer .page-number")
    assert (
        page.eval_on_selector_all("#report > .sheet-page", "ps => ps.map(p => p.dataset.topic)")
        == REPORT_TOPICS
    )
    assert page.inner_text("#page-summary > h2") == f"Decision summary of {len(every)} alphas"
    shown = page.eval_on_selector_all(
        "#report-summary tbody th[data-alpha]", "ths => ths.map(th => th.dataset.alpha)"
    )
    assert shown == every
    for alpha in every:
        got = summary_of(site, alpha, token)
        line = f"#report-summary tr:has(th[data-alpha='{alpha}'])"

        def cell(name: str, line: str = line) -> str:
            return f"{line} td[data-summary='{name}']"

        def value(name: str, line: str = line) -> float | None:
            return served_or_none(page.get_attribute(f"{line} td[data-summary='{name}']", "data-value"))

        standing = got["promotions"]
        words = {
            "never": "Never approved",
            "nominated": "Nominated",
            "approved": "Approved",
            "retired": "Retired",
        }[standing["standing"]]
        assert page.inner_text(cell("standing")) == words + (
            f" since {standing['since']}" if standing["since"] else ""
        )
        checks = got["checks"]
        text = " ".join(page.inner_text(cell("checks")).split())
        summary = checks["summary"]
        assert text.startswith(
            f"{ {'pass': 'PASS', 'fail': 'FAIL'}.get(summary['verdict'], 'NOT MEASURABLE') } "
            f"{summary['passed']} passed, {summary['failed']} failed, {summary['not_measurable']} n/m"
        ), (alpha, text)
        # Beneath the figures, the table's width: the checks that failed and those not measurable, by name.
        unpassed = [c for c in checks["checks"] if c["verdict"] != "pass"]
        beneath = f"#report-summary tr.summary-unpassed[data-alpha='{alpha}']"
        assert page.locator(beneath).count() == (1 if unpassed else 0)
        if unpassed:
            listed = page.inner_text(f"{beneath} td.summary-failed")
            failed = [c for c in unpassed if c["verdict"] == "fail"]
            assert listed.startswith("Failed: ") == bool(failed), listed
            unmeasured = len(unpassed) - len(failed)
            assert ("Not measurable: " in listed) == bool(unmeasured), listed
            # One name a check, "; " between them.
            assert listed.count("; ") == max(len(failed) - 1, 0) + max(unmeasured - 1, 0), listed
        assert page.get_attribute(cell("checks"), "title") == "\n".join(
            f"{c['id']}: {c['reason']}" for c in unpassed
        )
        live = got["live"]
        said = page.inner_text(cell("live"))
        if live["split_origin"] == "approval":
            assert said.startswith(f"Live (out of sample) ({live['split_date']})"), said
        else:
            assert "live" not in said.lower(), (alpha, said)
            assert said.startswith(
                f"Out of sample after the {live['split_origin'].replace('_', ' ').replace('first published', 'first publish')}"
            ), said
        assert close(value("live"), live["out_of_sample"]["information_ratio"]["value"])
        assert close(value("capacity"), got["capacity"]["net_information_ratio"]["value"])
        assert close(value("fragility"), got["attribution"]["fragility"]["best_days_kept"]["value"])
        assert close(value("costs"), got["costs"]["information_ratio"]["net"]["value"])
        correlation = next(c for c in checks["checks"] if c["id"] == "production_correlation")
        assert close(value("correlation"), correlation["value"])
        if correlation.get("nearest"):
            assert f"with {correlation['nearest']}" in page.inner_text(cell("correlation"))
    assert not page.query_selector("#report-summary .error-inline")
    keep_screenshot(page, tmp_path, "report-summary.png")
    assert nothing_cut_off(page, "#report") == []
    pdf = keep_pdf(tmp_path, "report-summary.pdf", page.pdf(format="A4"))
    first = squeezed(printed_page_text(tmp_path, pdf, 1))
    assert squeezed(f"Decision summary of {len(every)} alphas") in first
    assert all(squeezed(alpha) in first for alpha in every)
    assert squeezed(f"page 1 of {len(REPORT_TOPICS)}") in first
    check_clean(site, visit)


def assert_factors_shown(page: Any, data: dict[str, Any]) -> None:
    """The factor pages hold the route's answer."""
    shown = dict(
        page.eval_on_selector_all(
            "#tearsheet table.factor-summary tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value])",
        )
    )
    for key in (
        "sum_of_weekly_returns",
        "sum_of_weekly_common_returns",
        "sum_of_weekly_specific_returns",
        "specific_information_ratio",
        "variance_explained",
    ):
        entry = data[key]
        assert (shown[key] == "") if entry["value"] is None else close(float(shown[key]), entry["value"]), key
    if not data["weekly"]:
        return
    # The running sums end at the window's sums, as the route sums the weekly parts.
    for series, key in (
        ("book (summed weekly returns)", "sum_of_weekly_returns"),
        ("common: the factors' parts", "sum_of_weekly_common_returns"),
    ):
        values = [v for v in path_values(page, "factor-returns", series) if v is not None]
        assert close(values[-1], data[key]["value"] * 100, 1e-9), key
        # Every point drawn is the route's running sum of that week (running_sums), as served.
        served = [row[key] * 100 for row in data["running_sums"] if row[key] is not None]
        assert len(values) == len(served), key
        assert all(close(a, b, 1e-9) for a, b in zip(values, served, strict=True)), key
    parts = dict(
        page.eval_on_selector_all(
            "svg[data-chart='factor-parts'] rect.bar", "rs => rs.map(r => [r.dataset.label, r.dataset.value])"
        )
    )
    for factor in data["factors"]:
        if factor["part"]["value"] is not None:
            assert close(float(parts[factor["factor"]]), factor["part"]["value"]), factor["factor"]
    # Small multiples: one chart a style factor, each its weekly exposures and, dashed, its mean.
    styles = [f for f in data["factors"] if f["type"] == "style"]
    dates = sorted({e["date"] for e in data["exposures"]})
    at = {(e["date"], e["factor"]): e["exposure"] for e in data["exposures"]}
    assert page.eval_on_selector_all(
        "#tearsheet #factor-exposure-multiples svg.svg-chart", "ss => ss.map(s => s.dataset.chart)"
    ) == [f"factor-exposure-{f['factor']}" for f in styles]
    for style in styles:
        chart = f"factor-exposure-{style['factor']}"
        all_close(
            path_values(page, chart, f"{style['factor']}, weekly"),
            [at.get((d, style["factor"])) for d in dates],
        )
        mean = style["mean_exposure"]["value"]
        lines: list[list[Any]] = page.eval_on_selector_all(
            f"svg[data-chart='{chart}'] path[data-series^='mean ']",
            "ps => ps.map(p => [p.dataset.series, JSON.parse(p.dataset.values)])",
        )
        assert len(lines) == 1 and mean is not None, (chart, lines)
        assert math.isclose(float(lines[0][0].removeprefix("mean ")), mean, abs_tol=6e-4), lines[0][0]
        all_close(lines[0][1], [mean] * len(dates))
    neutral = dict(
        page.eval_on_selector_all(
            "#tearsheet table.neutral-ic tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value])",
        )
    )
    for key in ("attributed_mean_ic", "mean_neutral_ic"):
        entry = data["ic"][key]
        assert (
            (neutral[key] == "") if entry["value"] is None else close(float(neutral[key]), entry["value"])
        ), key


def all_measured(shown: list[float], served: list[float | None]) -> bool:
    """The bars drawn are the served values that are measured, in order (a null has no bar)."""
    measured = [v for v in served if v is not None]
    return len(shown) == len(measured) and all(close(a, b) for a, b in zip(shown, measured, strict=True))


def cell_value(page: Any, selector: str) -> float | None:
    value = page.get_attribute(selector, "data-value")
    return float(value) if value else None


def bar_order(page: Any, chart: str) -> list[tuple[str, str]]:
    """A horizontal bar chart's bars from the top down: (label, value)."""
    bars: list[list[str]] = page.eval_on_selector_all(
        f"svg[data-chart='{chart}'] rect.bar",
        "rs => rs.map(r => [r.dataset.label, r.dataset.value, Number(r.getAttribute('y'))])"
        ".sort((a, b) => a[2] - b[2]).map(r => [r[0], r[1]])",
    )
    return [(label, value) for label, value in bars]


def assert_attribution_shown(page: Any, data: dict[str, Any]) -> None:
    """The attribution pages hold the route's answer: each name's figures, the bars, legs, sectors,
    fragility and concentration; a part not measurable shows its reason."""
    by_name = data["by_name"]
    drawn = bar_order(page, "attribution-names")
    bars = dict(drawn)
    # The bars show the return contribution, so they stand in its order (the tables keep the route's,
    # by P&L): the largest at the top.
    listed = by_name["contributors"] + by_name["detractors"]
    assert [label for label, _ in drawn] == [
        n["symbol"] for n in sorted(listed, key=lambda n: -n["return_contribution"]["value"])
    ]
    assert [float(v) for _, v in drawn] == sorted((float(v) for _, v in drawn), reverse=True)
    for kind in ("contributors", "detractors"):
        shown = page.eval_on_selector_all(
            f"#tearsheet table.attribution-{kind} tbody th", "ths => ths.map(th => th.dataset.symbol)"
        )
        assert shown == [n["symbol"] for n in by_name[kind]], kind
        for row, name in enumerate(by_name[kind], start=1):
            for column, key in ((2, "pnl"), (3, "return_contribution"), (4, "share")):
                selector = (
                    f"#tearsheet table.attribution-{kind} tbody tr:nth-child({row}) td:nth-child({column})"
                )
                assert close(cell_value(page, selector), name[key]["value"]), (kind, name["symbol"], key)
            assert close(float(bars[name["symbol"]]), name["return_contribution"]["value"])
    for leg in ("long", "short", "neither"):
        selector = f"#tearsheet table.attribution-legs th[data-leg='{leg}'] + td"
        assert close(cell_value(page, selector), data["by_leg"][leg]["pnl"]["value"]), leg
    sectors = data["by_sector"]
    if sectors["status"] == "not_measurable":
        assert sectors["withheld_reason"] in page.inner_text("#sheet-attribution-sectors")
    else:
        drawn = bar_order(page, "attribution-sectors")
        values = dict(drawn)
        assert [float(v) for _, v in drawn] == sorted((float(v) for _, v in drawn), reverse=True)
        assert len(drawn) == len(sectors["sectors"])
        for part in sectors["sectors"]:
            label = part["sector"] if part["sector"] is not None else "no sector sealed"
            assert close(float(values[label]), part["return_contribution"]["value"]), label
    fragility = data["fragility"]
    shown = {
        name: value
        for name, value in page.eval_on_selector_all(
            "#tearsheet table.fragility tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value])",
        )
    }
    for key in ("without_best_days", "without_best_names", "top_1pct_days_share", "top_5pct_days_share"):
        entry = fragility[key]
        assert (shown[key] == "") if entry["value"] is None else close(float(shown[key]), entry["value"]), key
    assert close(float(shown["fragility.information_ratio"]), fragility["information_ratio"]["value"])
    largest = data["concentration"]["largest_weight"]
    text = page.inner_text("#attribution-largest-weight")
    assert largest["symbol"] in text and largest["date"] in text and largest["side"] in text, text


def test_the_tear_sheet_has_a_page_per_topic_whose_charts_read_and_agree_with_the_routes(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    token = site.keys.full
    topics = page.eval_on_selector_all("#tearsheet > .sheet-page", "ps => ps.map(p => p.dataset.topic)")
    assert topics == TOPICS
    assert not page.query_selector("#tearsheet .error"), page.inner_text("#tearsheet .error")
    assert_charts_read(page, "#tearsheet")

    equity, equity_meta = rows_of(site, f"/v1/alphas/{ALPHA}/equity-curve", token, book="long_short")
    first, last = equity[0]["date"], equity[-1]["date"]
    spy, spy_meta = rows_of(site, "/v1/benchmarks/SPY/daily", token, **{"from": first, "to": last})
    spy_name = f"SPY ({spy_meta['summary']['return_basis'].replace('_', ' ')})"
    by_date = {r["date"]: r for r in spy}
    # Cumulative return and the underwater curve: the routes' series, the benchmark's over the book's sessions.
    all_close(
        path_values(page, "sheet-equity", f"{ALPHA} (long_short)"),
        [r["cumulative_return"] * 100 for r in equity],
    )
    all_close(
        path_values(page, "sheet-equity", spy_name),
        [by_date[r["date"]]["cumulative_return"] * 100 for r in equity],
        rel=1e-9,
    )
    all_close(
        path_values(page, "sheet-underwater", f"{ALPHA} (long_short)"), [-r["drawdown_pct"] for r in equity]
    )
    all_close(
        path_values(page, "sheet-underwater", spy_name),
        [-by_date[r["date"]]["drawdown_pct"] for r in equity],
        rel=1e-9,
    )

    # The monthly heatmap draws /analytics/returns as served, cell by cell; that answer is each
    # month's daily returns compounded (pandas here).
    served = site.api(f"/v1/alphas/{ALPHA}/analytics/returns", token, book="long_short").json()["data"]
    cells = heatmap(page, "sheet-monthly")
    spy_year = f"SPY ({served['return_basis'].replace('_', ' ')})"
    for m in served["months"]:
        year, month = m["month"].split("-")
        assert cells[(year, MONTHS[int(month) - 1])] == m["book_return"], m
    for y in served["years"]:
        assert cells[(str(y["year"]), "Year")] == y["book_return"], y
        assert cells[(str(y["year"]), spy_year)] == y["benchmark_return"], y
    assert sum(v is not None for (_, column), v in cells.items() if column in MONTHS) == len(served["months"])
    returns = pd.Series({r["date"]: r["period_return"] for r in equity}, dtype=float)
    returns.index = pd.to_datetime(returns.index)
    monthly = (1 + returns).groupby([returns.index.year, returns.index.month]).prod() - 1
    yearly = (1 + returns).groupby(returns.index.year).prod() - 1
    for (year, month), value in monthly.items():
        assert close(cells[(str(year), MONTHS[month - 1])], float(value), 1e-12), (year, month)
    for year, value in yearly.items():
        assert close(cells[(str(year), "Year")], float(value), 1e-12), year
    # The benchmark's year over the book's sessions, its return on each (read from before the first).
    wide, _ = rows_of(site, "/v1/benchmarks/SPY/daily", token, **{"from": "2020-12-01", "to": last})
    spy_returns = pd.Series({r["date"]: r["period_return"] for r in wide}, dtype=float).reindex(
        returns.index.strftime("%Y-%m-%d")
    )
    spy_returns.index = returns.index
    for year, value in (
        (1 + spy_returns.dropna()).groupby(spy_returns.dropna().index.year).prod() - 1
    ).items():
        assert close(cells[(str(year), spy_year)], float(value), 1e-12), year

    # Rolling information ratio and mean IC: /analytics/rolling as served.
    rolling, rolling_meta = rows_of(
        site, f"/v1/alphas/{ALPHA}/analytics/rolling", token, book="long_short", window=26
    )
    assert rolling_meta["window_weeks"] == 26
    all_close(path_values(page, "sheet-rolling-ir"), [r["information_ratio"] for r in rolling])
    all_close(path_values(page, "sheet-rolling-ic"), [r["rebuilt_mean_ic"] for r in rolling])

    # The rolling beta draws /analytics/returns' beta.points as served; those are cov / var over each
    # trailing 126 sessions with both returns (numpy here).
    points = served["beta"]["points"]
    assert [p["date"] for p in points] == [r["date"] for r in equity]
    assert served["beta"]["window_sessions"] == BETA_WINDOW
    assert served["beta"]["min_observations"] == BETA_LEAST
    all_close(path_values(page, "sheet-rolling-beta"), [p["beta"] for p in points], rel=0)
    r = returns.to_numpy()
    b = spy_returns.to_numpy()
    expected: list[float | None] = []
    for end in range(len(r)):
        if end < BETA_WINDOW - 1:
            expected.append(None)
            continue
        x, y = r[end - BETA_WINDOW + 1 : end + 1], b[end - BETA_WINDOW + 1 : end + 1]
        both = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[both], y[both]
        expected.append(
            float(np.cov(x, y, ddof=1)[0, 1] / np.var(y, ddof=1)) if len(x) >= BETA_LEAST else None
        )
    all_close(path_values(page, "sheet-rolling-beta"), expected, rel=1e-9)

    # Quantile returns and IC by month and sector: /analytics/quantiles as served; its IC by month is the
    # mean of each month's weekly ICs of /metrics panel.ic_weekly (pandas here).
    quantiles = site.api(f"/v1/alphas/{ALPHA}/analytics/quantiles", token, quantiles=5).json()["data"]
    bars = dict(
        page.eval_on_selector_all(
            "svg[data-chart='quantile-returns'] rect.bar",
            "rs => rs.map(r => [r.dataset.label, r.dataset.value])",
        )
    )
    for bucket in quantiles["buckets"]:
        assert close(float(bars[bucket["label"]]), bucket["mean_forward_return"]["value"]), bucket["label"]
        all_close(
            path_values(page, "quantile-curves", bucket["label"]),
            [v * 100 for v in bucket["cumulative_return"]],
        )
    metrics = site.api(f"/v1/alphas/{ALPHA}/metrics", token, granularity="overall", panel="true").json()
    weekly = pd.Series(
        {w["date"]: w["ic"] for w in metrics["data"]["panel"]["ic_weekly"]}, dtype=float
    ).dropna()
    weekly.index = pd.to_datetime(weekly.index)
    by_month = weekly.groupby([weekly.index.year, weekly.index.month]).mean()
    ic_cells = heatmap(page, "sheet-ic-monthly")
    # A month whose weeks have no IC is served with a null mean: a dash.
    measured = [m for m in quantiles["ic_by_month"] if m["rebuilt_mean_ic"] is not None]
    assert len([v for v in ic_cells.values() if v is not None]) == len(measured) == len(by_month)
    for served in quantiles["ic_by_month"]:
        year, month = served["month"].split("-")
        shown_ic = ic_cells[(year, MONTHS[int(month) - 1])]
        assert close(shown_ic, served["rebuilt_mean_ic"]), served
        if served["rebuilt_mean_ic"] is not None:
            assert close(shown_ic, float(by_month[(int(year), int(month))]), 1e-12), served
    sector_part = quantiles["ic_by_sector"]
    if sector_part["status"] == "available":
        sector_bars = dict(
            page.eval_on_selector_all(
                "svg[data-chart='ic-sectors'] rect.bar",
                "rs => rs.map(r => [r.dataset.label, r.dataset.value])",
            )
        )
        for sector in sector_part["sectors"]:
            if sector["sector_mean_ic"]["value"] is not None:
                assert close(float(sector_bars[sector["sector"]]), sector["sector_mean_ic"]["value"]), sector
    else:
        assert sector_part["withheld_reason"] in page.inner_text("#sheet-ic-sectors")

    # Every check with the reason of its verdict, as the checks route words it.
    checks = site.api(f"/v1/alphas/{ALPHA}/analytics/checks", token).json()
    reasons = dict(
        page.eval_on_selector_all(
            "#sheet-checks tr.reason-row",
            "rs => rs.map(r => [r.dataset.reasonOf, r.querySelector('.why').textContent])",
        )
    )
    assert reasons == {c["id"]: c["reason"] for c in checks["data"]["checks"]}
    assert any(c["verdict"] == "fail" for c in checks["data"]["checks"])

    # Where the P&L came from: /analytics/attribution's names, legs, fragility and concentration as served.
    attribution = site.api(f"/v1/alphas/{ALPHA}/analytics/attribution", token, top=10, drop=5).json()["data"]
    assert_attribution_shown(page, attribution)

    # Factor attribution: /analytics/factors' figures, parts, the running sums of its weekly parts, exposures.
    factors = site.api(f"/v1/alphas/{ALPHA}/analytics/factors", token).json()["data"]
    assert_factors_shown(page, factors)

    # Capacity: /analytics/capacity's figures and its grid as served.
    capacity = site.api(f"/v1/alphas/{ALPHA}/analytics/capacity", token).json()["data"]
    shown_capacity = dict(
        page.eval_on_selector_all(
            "#tearsheet table.capacity tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value])",
        )
    )
    for key, entry in (
        ("net_information_ratio", capacity["net_information_ratio"]),
        ("capacity", capacity["capacity"]),
        ("participation_capacity", capacity["participation_capacity"]),
        ("participation.p95", capacity["participation"]["p95"]),
    ):
        value = shown_capacity[key]
        assert (value == "") if entry["value"] is None else close(float(value), entry["value"]), key
    largest_fill = capacity["participation"]["largest"]
    if largest_fill:
        assert largest_fill["symbol"] in page.inner_text("#capacity-largest")
    grid_bars = page.eval_on_selector_all(
        "svg[data-chart='capacity-grid'] rect.bar", "rs => rs.map(r => Number(r.dataset.value))"
    )
    assert all_measured(grid_bars, [p["net_information_ratio"]["value"] for p in capacity["grid"]])

    # Costs: the break-even and the curves of the net information ratio as served (issue 50, item 6).
    costs = site.api(f"/v1/alphas/{ALPHA}/analytics/costs", token).json()["data"]
    assert_cost_curves(page, "#tearsheet", costs)

    # By regime of SPY: the table as served (issue 50, item 5).
    assert_regimes(
        page, "#sheet-regimes", site.api(f"/v1/alphas/{ALPHA}/analytics/regimes", token).json()["data"]
    )
    # Decay: the expected live information ratio and the IC's half-life as served (issue 50, item 7).
    decay = site.api(f"/v1/alphas/{ALPHA}/analytics/decay", token).json()["data"]
    assert_decay(page, "#tearsheet", decay)

    # The contribution to the approved book and the crowding of the approved books (issue 50, item 8).
    assert_mmc(
        page,
        "#tearsheet",
        site.api(f"/v1/alphas/{ALPHA}/analytics/mmc", token).json()["data"],
        site.api("/v1/analytics/crowding", token).json()["data"],
    )

    # What is new against the catalogue: /analytics/residual's figures and betas as served.
    residual = site.api(f"/v1/alphas/{ALPHA}/analytics/residual", token).json()["data"]
    shown_residual = dict(
        page.eval_on_selector_all(
            "#tearsheet table.residual tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value])",
        )
    )
    # One name, one meaning on the sheet (issue 46): the residual's information ratio is an
    # appraisal ratio, never labelled as the headline's "Information ratio".
    label = page.inner_text("#tearsheet table.residual th[data-figure='appraisal_ratio']")
    assert label.startswith("Appraisal ratio (beyond SPY and the reference set, annualised)"), label
    for key in ("appraisal_ratio", "intercept", "intercept_t_statistic", "r_squared"):
        entry = residual[key]
        value = shown_residual[key]
        assert (value == "") if entry["value"] is None else close(float(value), entry["value"]), key
    shown_betas = page.eval_on_selector_all(
        "#tearsheet table.residual-betas tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').textContent, tr.children[1].dataset.value])",
    )
    served_betas = [(b["alpha"], b["partial_beta"]) for b in residual["betas"] or []]
    assert [a for a, _ in shown_betas] == [a for a, _ in served_betas]
    for (_, shown), (alpha, value) in zip(shown_betas, served_betas, strict=True):
        assert (shown == "") if value is None else close(float(shown), value), alpha
    summary = page.inner_text("#residual-summary")
    assert f"{residual['reference']['origin']} reference set" in summary, summary

    # The provenance on the first page: the build every answer came from, the data's last session, the policy.
    provenance = dict(
        page.eval_on_selector_all(
            "#tearsheet dd[data-provenance]", "ds => ds.map(d => [d.dataset.provenance, d.textContent])"
        )
    )
    assert provenance["build"] == build_of(checks) == build_of(metrics)
    assert provenance["as-of"] == equity_meta["summary"]["last_date"] == last
    assert provenance["policy"] == checks["data"]["policy"]["origin"] == "defaults"
    keep_screenshot(page, tmp_path, "tearsheet-pages.png")
    check_clean(site, visit)


def test_the_tear_sheet_prints_a_page_per_topic_on_a4_and_letter_each_with_its_provenance(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    token = site.keys.full
    checks = site.api(f"/v1/alphas/{ALPHA}/analytics/checks", token).json()
    _, equity_meta = rows_of(site, f"/v1/alphas/{ALPHA}/equity-curve", token, book="long_short")
    titles = page.eval_on_selector_all("#tearsheet > .sheet-page > h2", "hs => hs.map(h => h.textContent)")
    assert len(titles) == len(TOPICS)
    assert nothing_cut_off(page, "#tearsheet") == []
    assert not page.is_visible(".topbar") and not page.is_visible("#print-tearsheet")
    keep_screenshot(page, tmp_path, "tearsheet-printed-layout.png")
    provenance = [
        ALPHA,
        f"build {build_of(checks)}",
        f"data as of {equity_meta['summary']['last_date']}",
        "checks policy: defaults",
    ]
    assert_printed(page, TOPICS, titles, provenance, tmp_path, "tearsheet-pages.pdf")
    # Every alpha of the demo lake fits: a ledger-only run (every signal figure not measurable, with
    # its reason), an incomplete one, a short one.
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 1280, "height": 900})
    for row in site.api("/v1/alphas", token, limit=100).json()["data"]:
        page.goto(f"{site.base}/ui#/alphas/{row['alpha_id']}/tearsheet")
        page.wait_for_selector(f"#tearsheet[data-alpha='{row['alpha_id']}'] .page-footer .page-number")
        assert nothing_cut_off(page, "#tearsheet") == [], row["alpha_id"]
        assert not page.query_selector("#tearsheet .error"), row["alpha_id"]
        page.emulate_media(media="screen")
        page.set_viewport_size({"width": 1280, "height": 900})
    # A run that sealed no exposures: the figures built on them show the reason the routes serve,
    # never a zero.
    legacy = "value_composite_legacy"
    page.goto(f"{site.base}/ui#/alphas/{legacy}/tearsheet")
    page.wait_for_selector(f"#tearsheet[data-alpha='{legacy}'] .page-footer .page-number")
    served = {
        "By sector": site.api(f"/v1/alphas/{legacy}/analytics/attribution", token).json()["data"][
            "by_sector"
        ],
        "IC by sector": site.api(f"/v1/alphas/{legacy}/analytics/quantiles", token).json()["data"][
            "ic_by_sector"
        ],
    }
    for what, part in served.items():
        assert part["status"] == "not_measurable" and part["withheld_reason"].startswith("missing_kind"), part
        shown = page.inner_text(f"#tearsheet [data-withheld='{what}']")
        assert shown == f"{what}: not measurable: {part['withheld_reason']}.", shown
    grid = site.api(f"/v1/alphas/{legacy}/analytics/capacity", token).json()["data"]["grid"]
    reason = grid[0]["net_information_ratio"]["withheld_reason"]
    assert all(p["net_information_ratio"]["value"] is None for p in grid) and reason
    assert (
        page.inner_text("#tearsheet #capacity-grid-withheld")
        == f"The grid of capitals: not measurable: {reason}."
    )
    assert not page.query_selector("#tearsheet svg[data-chart='capacity-grid']")
    # A run that sealed no description answers 404 alpha_description_not_found: its sheet is titled by
    # its id. No other request of any sheet is refused.
    missing = [httpx.URL(r.url).path for r in visit.responses if r.status == 404]
    assert all(re.fullmatch(r"/v1/alphas/[^/]+", path) for path in missing), missing
    check_clean(site, visit, allowed_statuses=(404,))


def test_the_comparison_report_sets_the_alphas_side_by_side_and_prints_a_page_per_topic(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    # Chosen on the report's own page, from the top bar.
    visit = open_dashboard(site, tab, site.keys.full, "#/")
    page = visit.page
    page.click("#nav-report")
    page.wait_for_selector("#report-form input.report-alpha")
    for alpha in REPORTED:
        page.check(f"#report-form input[value='{alpha}']")
    page.click("#report-form button[type=submit]")
    page.wait_for_selector("#report .page-footer .page-number")
    token = site.keys.full
    shown = page.eval_on_selector_all("#report > .sheet-page", "ps => ps.map(p => p.dataset.topic)")
    assert shown == REPORT_TOPICS
    order = page.evaluate("() => document.querySelector('#report').dataset.alphas.split(',')")
    assert sorted(order) == sorted(REPORTED)
    assert not page.query_selector("#report .error")
    assert_charts_read(page, "#report")

    builds = {}
    for alpha in order:
        metrics = site.api(f"/v1/alphas/{alpha}/metrics", token, granularity="overall").json()
        builds[alpha] = build_of(metrics)
        core = metrics["data"]["core"]
        for key in (
            "information_ratio",
            "excess_sharpe",
            "ic",
            "icir",
            "max_drawdown_pct",
            "annual_turnover",
        ):
            value = page.get_attribute(
                f"#report-headline tr:has(th[data-alpha='{alpha}']) td[data-figure='{key}']", "data-value"
            )
            assert close(float(value), core[key]["value"]) if value else core[key]["value"] is None, (
                alpha,
                key,
            )
        # the sealed mean IC and the ICIR sealed with it flagged where /metrics warns they do not reproduce
        unreproduced = any(
            w["code"] == "ic_reproduction_mismatch" for w in metrics["meta"].get("warnings", [])
        )
        for key in ("ic", "icir"):
            badge = page.query_selector(
                f"#report-headline tr:has(th[data-alpha='{alpha}']) td[data-figure='{key}'] .badge.ic-unreproduced"
            )
            assert (badge is not None) == unreproduced, (alpha, key)
        risk = site.api(f"/v1/alphas/{alpha}/analytics/risk", token).json()["data"]
        for key, entry in (("benchmark.beta", risk["benchmark"]["beta"]), ("cagr", risk["cagr"])):
            value = page.get_attribute(
                f"#report-risk tr:has(th[data-alpha='{alpha}']) td[data-figure='{key}']", "data-value"
            )
            assert close(float(value), entry["value"]), (alpha, key)
        summary = site.api(f"/v1/alphas/{alpha}/analytics/checks", token).json()["data"]["summary"]
        verdict = page.inner_text(f"#report-risk tr:has(th[data-alpha='{alpha}']) td[data-figure='checks']")
        assert verdict.startswith({"pass": "PASS", "fail": "FAIL"}.get(summary["verdict"], "NOT MEASURABLE"))
        assert f"{summary['passed']} passed, {summary['failed']} failed" in verdict

    # The curves: each book compounded over the sessions all three hold (pandas), SPY over the same.
    books = {}
    for alpha in order:
        rows, _ = rows_of(site, f"/v1/alphas/{alpha}/equity-curve", token, book="long_short")
        books[alpha] = pd.Series({r["date"]: r["period_return"] for r in rows}, dtype=float).dropna()
    common = pd.concat(books, axis=1, join="inner").sort_index()
    assert 0 < len(common) < len(books[ALPHA])  # the short alpha narrows the common sessions
    for alpha in order:
        all_close(
            path_values(page, "report-curves", alpha),
            list(((1 + common[alpha]).cumprod() - 1) * 100),
            rel=1e-9,
        )
    assert page.evaluate(
        "() => JSON.parse(document.querySelector(\"svg[data-chart='report-curves']\").dataset.dates)"
    ) == list(common.index)
    # Pairwise correlations: the correlation route's Pearson, each pair over its own common sessions.
    cells = heatmap(page, "report-correlation")
    for i, alpha in enumerate(order):
        listed = {
            r["alpha"]: r
            for r in rows_of(site, f"/v1/alphas/{alpha}/analytics/correlation", token, basis="returns")[0]
        }
        for j, other in enumerate(order):
            shown_value = cells[(alpha, str(j + 1))]
            assert shown_value == 1.0 if i == j else close(shown_value, listed[other]["pearson"]), (
                alpha,
                other,
            )
    keep_screenshot(page, tmp_path, "report.png")

    # Printed: a page per topic, each naming every alpha with its build.
    titles = page.eval_on_selector_all("#report > .sheet-page > h2", "hs => hs.map(h => h.textContent)")
    assert nothing_cut_off(page, "#report") == []
    keep_screenshot(page, tmp_path, "report-printed-layout.png")
    provenance = [f"{alpha} (build {builds[alpha]})" for alpha in order] + [
        "checks policy: defaults",
        "data as of",
    ]
    assert_printed(page, REPORT_TOPICS, titles, provenance, tmp_path, "report-pages.pdf")
    check_clean(site, visit)


def test_a_report_of_two_draws_the_curves_the_compare_route_serves(site: Site, tab: Any) -> None:
    pair = (ALPHA, "Test_short_term_reversal")
    visit = open_dashboard(site, tab, site.keys.full, f"#/report?alphas={','.join(pair)}")
    page = visit.page
    page.wait_for_selector("#report .page-footer .page-number")
    compared = site.api(
        f"/v1/alphas/{pair[0]}/analytics/compare", site.keys.full, **{"with": pair[1]}
    ).json()["data"]
    all_close(
        path_values(page, "report-curves", pair[0]),
        [e["cumulative_return_alpha"] * 100 for e in compared["equity"]],
        rel=1e-9,
    )
    all_close(
        path_values(page, "report-curves", pair[1]),
        [e["cumulative_return_with"] * 100 for e in compared["equity"]],
        rel=1e-9,
    )
    cells = heatmap(page, "report-correlation")
    assert close(cells[(pair[0], "2")], compared["return_correlation"]["value"], 1e-9)
    # More than ten alphas is not a report: the page says so and asks for nothing.
    many = ",".join(f"alpha_{i}" for i in range(11))
    page.goto(f"{site.base}/ui#/report?alphas={many}")
    page.wait_for_selector("#report .error")
    assert "at most 10" in page.inner_text("#report")
    assert not [url for url in visit.requests if "alpha_0" in url]
    check_clean(site, visit)


def test_seal_text_with_markup_is_shown_as_text_on_the_tear_sheet_and_the_report(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """Names and theses reach the pages (and the saved file) as text: the markup is shown, never parsed."""

    def hostile_description(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body["data"]["name"] = HOSTILE
        body["data"]["tldr"] = "<script>window.__pwned = 2</script>thesis"
        route.fulfill(response=answer, body=json.dumps(body))

    def hostile_listing(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        for row in body["data"]:
            row["name"] = HOSTILE
        route.fulfill(response=answer, body=json.dumps(body))

    def hostile_attribution(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body["data"]["by_name"]["contributors"][0]["symbol"] = HOSTILE
        entry = {"value": 0.01, "unit": "fraction", "status": "available", "source": "pnl:long_short"}
        body["data"]["by_sector"] = {
            "status": "available",
            "rule": "as served",
            "sectors": [
                {
                    "sector": HOSTILE,
                    "pnl": {**entry, "unit": "equity"},
                    "return_contribution": entry,
                    "share": {**entry, "unit": "ratio"},
                    "names": 3,
                }
            ],
        }
        route.fulfill(response=answer, body=json.dumps(body))

    def hostile_quantiles(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        ic = {"value": 0.05, "unit": "ratio", "status": "available", "source": "decisions"}
        body["data"]["ic_by_sector"] = {
            "status": "available",
            "sectors": [{"sector": HOSTILE, "weeks": 10, "sector_mean_names": 4.0, "sector_mean_ic": ic}],
        }
        route.fulfill(response=answer, body=json.dumps(body))

    page = tab.new_page()
    page.route(f"**/v1/alphas/{ALPHA}", hostile_description)
    page.route("**/analytics/quantiles?*", hostile_quantiles)
    page.route("**/analytics/attribution?*", hostile_attribution)
    page.route("**/v1/alphas?*", hostile_listing)
    page.goto(f"{site.base}/ui#/alphas/{ALPHA}/tearsheet")
    page.fill("#api-key", site.keys.full)
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    assert page.inner_text("#page-summary h1") == HOSTILE
    assert "<script>window.__pwned = 2</script>thesis" in page.inner_text("#page-summary .subtitle")
    assert page.locator("#tearsheet img, #tearsheet script, #tearsheet b").count() == 0
    # A name and a sector of the seal, in the tables and in the charts' labels.
    assert page.inner_text("#tearsheet table.attribution-contributors tbody th") == HOSTILE
    assert page.inner_text("#tearsheet table.attribution-sectors tbody th") == HOSTILE
    labels = page.eval_on_selector_all(
        "svg[data-chart='attribution-sectors'] text.row-label, svg[data-chart='attribution-names'] text.row-label",
        "ts => ts.map(t => t.textContent)",
    )
    assert labels.count(HOSTILE) == 2
    assert page.inner_text("#tearsheet table.ic-sector-table tbody th") == HOSTILE
    with page.expect_download() as download:
        page.click("#download-tearsheet")
    saved = Path(download.value.path()).read_text()
    assert "&lt;img src=x onerror=" in saved and "<img" not in saved
    page.goto(f"{site.base}/ui#/report?alphas={ALPHA},Test_planted_factor")
    page.wait_for_selector("#report .page-footer .page-number")
    assert HOSTILE in page.inner_text("#report table.report-alphas")
    assert page.locator("#report img, #report b").count() == 0
    assert page.evaluate("() => window.__pwned") is None
    keep_screenshot(page, tmp_path, "report-hostile.png")
    page.close()
