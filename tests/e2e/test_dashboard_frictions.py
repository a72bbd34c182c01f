"""The page frictions a head of research met on the alpha page and its printed tear sheet (issue 65,
item 5), in Chromium against the real `alpha-results serve` over the demo lake, with the fixtures
of tests/e2e/test_dashboard.py:

1. the cost curve places each served cost level at its cost on a linear x scale, and no label of
   the chart overlaps another, at the dashboard's width and printed;
2. the uncertainty panel's whiskers of figures served in one unit and basis share one scale (the
   same value at the same x), 0 is marked where it is in range, and each scale's ends are labelled;
3. the decision summary's Figure column writes every figure with its unit (the served unit, as the
   vocabulary names it), never a bare number;
4. capacity names the book's currency the service declares (`schemas.conventions.BOOK_CURRENCY`,
   served as `currency`) on the page, in the tear sheet and in the vocabulary's unit text.

Screenshots go to the test's tmp folder, and to `$ALPHA_RESULTS_ARTEFACTS/dashboard/` when that is
set.
"""

from __future__ import annotations

import re
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import pytest

from schemas.conventions import BOOK_CURRENCY
from tests.e2e.dashboard_site import ALPHA, Site, check_clean, keep_artefact, open_dashboard
from tests.support.tearsheet import PRINTABLE_WIDTH_PX, summary_of

pytestmark = pytest.mark.e2e

# The bounding boxes of every text of a chart that is drawn (an empty text takes no room).
TEXT_BOXES = """svg => [...svg.querySelectorAll("text")].filter(t => t.textContent.trim()).map(t => {
  const b = t.getBoundingClientRect();
  return { text: t.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom };
})"""


def keep_element(page: Any, selector: str, folder: Path, name: str) -> None:
    """A screenshot of one element (kept before the assertions, so a failure shows what was seen)."""
    page.locator(selector).first.screenshot(path=str(folder / name))
    keep_artefact(folder / name)


def overlapping(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The pairs of texts whose boxes intersect (touching edges do not)."""
    return [
        (a["text"], b["text"])
        for a, b in combinations(boxes, 2)
        if a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    ]


def assert_linear(points: list[tuple[float, float]]) -> None:
    """Each x (drawn) is a + b * cost (served), b > 0: the points sit at their cost levels."""
    (c0, x0), (c1, x1) = points[0], points[-1]
    slope = (x1 - x0) / (c1 - c0)
    assert slope > 0, points
    for cost, x in points:
        assert abs(x - (x0 + slope * (cost - c0))) < 0.05, (cost, x, points)


def assert_cost_curve_laid_out(page: Any, scope: str, levels: list[dict[str, Any]]) -> None:
    svg = f"{scope} svg[data-chart='cost-curve']"
    page.wait_for_selector(svg)
    drawn: list[list[Any]] = page.eval_on_selector_all(
        f"{svg} circle.point",
        "cs => cs.map(c => [Number(c.dataset.cost), c.dataset.level, Number(c.dataset.value), Number(c.getAttribute('cx'))])",
    )
    measured = [row for row in levels if row["net_information_ratio_at_cost"]["value"] is not None]
    assert [(cost, level) for cost, level, _, _ in drawn] == [
        (row["cost_bps"], row["level"]) for row in measured
    ]
    assert [value for _, _, value, _ in drawn] == [
        row["net_information_ratio_at_cost"]["value"] for row in measured
    ]
    assert_linear([(cost, x) for cost, _, _, x in drawn])
    boxes = page.eval_on_selector(svg, TEXT_BOXES)
    assert len(boxes) >= 6, boxes
    assert not overlapping(boxes), overlapping(boxes)


def test_the_cost_curve_places_each_level_at_its_cost_and_no_label_overlaps(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    levels = site.api(f"/v1/alphas/{ALPHA}/analytics/costs", site.keys.full).json()["data"]["net_ir_by_cost"]
    costs = [row["cost_bps"] for row in levels]
    # The demo's levels are unequally spaced (the modelled and break-even levels among the grid's):
    # an equal spacing would not pass as linear.
    assert len({round(b - a, 6) for a, b in pairwise(costs)}) > 1, costs
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    page.wait_for_selector("#costs svg[data-chart='cost-curve']")
    keep_element(page, "#costs svg[data-chart='cost-curve']", tmp_path, "frictions-cost-curve-page.png")
    assert_cost_curve_laid_out(page, "#costs", levels)
    check_clean(site, visit)

    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    page.set_viewport_size({"width": PRINTABLE_WIDTH_PX, "height": 1000})
    page.emulate_media(media="print")
    keep_element(page, "#page-cost-curve", tmp_path, "frictions-cost-curve-print.png")
    assert_cost_curve_laid_out(page, "#page-cost-curve", levels)
    check_clean(site, visit)


def whisker_rows(page: Any, scope: str) -> list[dict[str, Any]]:
    """Each row's whisker: the figure, its scale's group, and where its lower and upper ends and its
    estimate are drawn (x in the svg's own units), with the values they stand for."""
    found: list[dict[str, Any]] = page.eval_on_selector_all(
        f"{scope} table.uncertainty tbody tr:has(th[data-figure])",
        """trs => trs.map(tr => {
          const svg = tr.querySelector("svg.interval");
          const at = (cls) => { const l = svg.querySelector(`.${cls}`); return l ? Number(l.getAttribute("x1") ?? l.getAttribute("cx")) : null; };
          return { figure: tr.querySelector("th[data-figure]").dataset.figure, scale: svg.dataset.scale, width: Number(svg.getAttribute("width")),
                   lower: at("lower-end"), upper: at("upper-end"), estimate: at("estimate"), zero: at("zero-line") };
        })""",
    )
    return found


def test_whiskers_of_one_unit_share_one_scale_with_zero_marked_and_ends_labelled(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    data = site.api(f"/v1/alphas/{ALPHA}/analytics/uncertainty", site.keys.full).json()["data"]
    for fragment, scope in (
        (f"#/alphas/{ALPHA}", "#uncertainty"),
        (f"#/alphas/{ALPHA}/tearsheet", "#page-uncertainty"),
    ):
        visit = open_dashboard(site, tab, site.keys.full, fragment)
        page = visit.page
        page.wait_for_selector(f"{scope} table.uncertainty svg.interval")
        keep_element(
            page, f"{scope} table.uncertainty", tmp_path, f"frictions-uncertainty-{scope.strip('#')}.png"
        )
        rows = whisker_rows(page, scope)
        assert rows
        groups: dict[str, list[tuple[float, float]]] = {}
        for row in rows:
            entry = data[row["figure"]]
            if entry["lower"] is None:
                continue
            # One scale per unit and basis, as served (the entry's unit and annualisation).
            assert row["scale"] == f"{entry['unit']} {entry['annualisation']}", row
            groups.setdefault(row["scale"], []).extend(
                [
                    (entry["lower"], row["lower"]),
                    (entry["upper"], row["upper"]),
                    (entry["value"], row["estimate"]),
                ]
            )
        shared_units = [points for points in groups.values() if len({v for v, _ in points}) > 3]
        assert shared_units, groups  # the demo's information ratio, excess Sharpe and ICIR share one
        for scale, points in groups.items():
            ordered = sorted(points)
            assert_linear(ordered)
            axis = page.eval_on_selector_all(
                f"{scope} svg.interval-axis[data-scale='{scale}']",
                """ss => ss.map(s => ({ ends: [...s.querySelectorAll("text.scale-end")].map(t => t.textContent),
                     min: Number(s.dataset.min), max: Number(s.dataset.max),
                     zero: s.querySelector(".zero-line") ? Number(s.querySelector(".zero-line").getAttribute("x1")) : null }))""",
            )
            assert len(axis) == 1, (scale, axis)
            assert len(axis[0]["ends"]) == 2 and all(axis[0]["ends"]), axis
            low, high = axis[0]["min"], axis[0]["max"]
            assert low <= min(v for v, _ in points) and max(v for v, _ in points) <= high
            in_rows = [row for row in rows if row["scale"] == scale]
            if low < 0 < high:
                (v0, x0), (v1, x1) = ordered[0], ordered[-1]
                at_zero = x0 + (x1 - x0) * (0 - v0) / (v1 - v0)
                assert axis[0]["zero"] is not None and abs(axis[0]["zero"] - at_zero) < 0.05, (scale, axis)
                assert all(
                    row["zero"] is not None and abs(row["zero"] - at_zero) < 0.05 for row in in_rows
                ), in_rows
            else:
                assert all(row["zero"] is None for row in in_rows), in_rows
        check_clean(site, visit)


BARE_NUMBER = re.compile(r"^[−\-+]?[\d,.]+$")


def test_every_figure_of_the_decision_summary_is_written_with_its_unit(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    got = summary_of(site, ALPHA, site.keys.full)
    checks = {c["id"]: c for c in got["checks"]["checks"]}
    served = {
        "live": got["live"]["out_of_sample"]["information_ratio"]["unit"],
        "capacity": got["capacity"]["net_information_ratio"]["unit"],
        "fragility": got["attribution"]["fragility"]["best_days_kept"]["unit"],
        "costs": got["costs"]["break_even_multiple"]["unit"],
        "intervals": got["uncertainty"]["information_ratio"]["unit"],
        "overfitting": got["overfitting"]["pbo"]["unit"],
        "specific": got["factors"]["specific_information_ratio"]["unit"],
        "contribution": got["mmc"]["mmc_mean"]["unit"],
        "correlation": checks["production_correlation"]["unit"],
    }
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    keep_element(page, "#page-summary", tmp_path, "frictions-summary.png")
    cells: list[dict[str, str]] = page.eval_on_selector_all(
        "#decision-summary tbody tr",
        """trs => trs.map(tr => { const td = tr.querySelector("td.summary-figure");
          return { row: tr.dataset.summary, value: td.dataset.value, unit: td.dataset.unit ?? "",
                   unitText: td.querySelector(".figure-unit")?.textContent ?? "", text: td.innerText.trim() }; })""",
    )
    figures = [cell for cell in cells if cell["value"]]
    assert len(figures) >= 9, cells
    for cell in figures:
        assert not BARE_NUMBER.match(cell["text"]), cell
        assert cell["unitText"].strip() and not BARE_NUMBER.match(cell["unitText"].strip()), cell
        if cell["row"] in served:
            assert cell["unit"] == served[cell["row"]], (cell, served[cell["row"]])
    check_clean(site, visit)


def test_capacity_names_the_books_currency_on_the_page_and_the_tear_sheet(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    capacity = site.api(f"/v1/alphas/{ALPHA}/analytics/capacity", site.keys.full).json()["data"]
    costs = site.api(f"/v1/alphas/{ALPHA}/analytics/costs", site.keys.full).json()["data"]
    # The demo's seals state no currency: the service's declaration, served with each capital.
    assert capacity["currency"] == costs["currency"] == BOOK_CURRENCY == "USD"
    currency = capacity["currency"]
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    page.wait_for_selector("#capacity table.capacity")
    page.wait_for_selector("#costs table.costs")
    keep_element(page, "#capacity", tmp_path, "frictions-capacity-page.png")
    for scope in ("#capacity", "#costs"):
        assert "the book's currency" not in page.inner_text(scope)
    assert f"K0 = 100 m {currency}" in page.inner_text("#capacity-summary")
    units = page.eval_on_selector_all(
        "#capacity table.capacity tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[2].textContent])",
    )
    for figure, unit in units:
        if figure in ("capacity", "participation_capacity"):
            assert currency in unit, (figure, unit)
    for chart in ("capacity-grid", "cost-capital"):
        title = page.text_content(f"svg[data-chart='{chart}'] .x-title") or ""
        assert currency in title, (chart, title)
    check_clean(site, visit)

    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#tearsheet .page-footer .page-number")
    keep_element(page, "#page-capacity", tmp_path, "frictions-capacity-print.png")
    says = page.inner_text("#decision-summary tr[data-summary='capacity'] td.summary-says")
    assert f"K0 = 100 m {currency}" in says, says
    for topic in ("capacity", "capacity-grid", "cost-capital"):
        text = page.inner_text(f"#page-{topic}")
        assert "the book's currency" not in text and currency in text, (topic, text[:400])
    check_clean(site, visit)
