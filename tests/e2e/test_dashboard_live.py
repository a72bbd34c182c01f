"""Live against backtest and the activity page in the dashboard (issue 35, items 2 and 5;
docs/dashboard.md "Live against backtest" and "Activity"), in Chromium against the real
`alpha-results serve` over the demo lake, with keys made by the operator CLI and a decision recorded
by `alpha-results promote`, as tests/e2e/test_dashboard.py drives the rest of the dashboard.

What a user sees is compared with the API's answer to the same request, fetched by the test over
HTTP: the live panel's figures (each value exactly, as the cell carries it, and as shown), the split
and its origin, the consistency test and the promotion standing; the out-of-sample shading of every
time chart, found in the canvas's pixels where the split falls on the chart's own scale; the access
message of a key without `analytics.live`. The activity page lists the events written to the records
database as the pipeline writes them (`records.store.open_records(url).events.append`), in the
feed's order, filtered, paged by cursor and watched for new ones; a key shown nothing about an alpha
it may not read; hostile text in an event's data shown as text. Screenshots go to the test's tmp
folder, and to `$ALPHA_RESULTS_ARTEFACTS/dashboard/` when that is set.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

import tests.support.serve_stack as serve_stack
from cli.main import main as run_cli
from datasets import clock
from records.store import open_records
from serve.endpoints import endpoints
from tests.conftest import linked_copy
from tests.decided import noon
from tests.e2e.browser import chromium_or_skip
from tests.e2e.dashboard_site import (
    ROOMY,
    Site,
    check_clean,
    cli,
    error_box,
    keep_artefact,
    keep_screenshot,
    make_keys,
    open_dashboard,
)
from tests.knowledge import approval_recorded_at, known_split

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"  # its seal's research_cutoff splits it (2021-12-14)
APPROVED = "Test_planted_factor"  # approved by the module's fixture, recorded on APPROVED_ON's clock
APPROVED_ON = "2021-12-06"
"""The approval's day (its as_of): the demo lake then held the alpha's sessions up to 2021-12-03 (its
second run); its live part is the sessions first published after (the split: `LiveSite.split`)."""
AFTER_THE_DATA = "Test_short_term_reversal"  # no research_cutoff: split at its first publication's end
HOSTILE = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 1</script>'
DECIDED_BY = f"head of research {HOSTILE}"
TIME_CHARTS = ("cumulative-return", "drawdown", "ic-weekly", "rolling-ic", "rolling-ir")
PART_FIGURES = (
    "information_ratio",
    "excess_sharpe",
    "rebuilt_mean_ic",
    "rebuilt_icir",
    "rebuilt_hit_rate",
    "max_drawdown_pct",
    "turnover",
)


@dataclass
class LiveSite(Site):
    no_live: str = ""  # every endpoint but analytics.live and catalog.alphas.promotions; every alpha
    admin: str = ""  # an administrator's key: sees build.refused too
    records_url: str = ""  # the key store's database, where the records (promotions, events) are
    split: str = ""  # APPROVED's live split, recomputed from the lake's files (tests/knowledge.py)


def granted_key(keystore: str, email: str, name: str, without: set[str]) -> str:
    """A roomy key of `email`'s account for every alpha and every member endpoint but `without`."""
    key = cli(keystore, "keys", "create", "--user", email, "--name", name, "--json")
    allowed = ",".join(e.id for e in endpoints().values() if not e.admin and e.id not in without)
    cli(keystore, "keys", "grant", key["key_id"], "--endpoints", allowed, "--alphas", "all", "--runs", "all")
    cli(keystore, "keys", "set-limits", key["key_id"], *ROOMY)
    token: str = key["token"]
    return token


@pytest.fixture(scope="module")
def demo_lake(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shared demo lake: a decision records its alpha's catalogue index row again."""
    return linked_copy(demo_lake, tmp_path_factory.mktemp("lake") / "lake")


@pytest.fixture(scope="module")
def site(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveSite]:
    executable, sync_playwright = chromium_or_skip()
    folder = tmp_path_factory.mktemp("dashboard_live")
    keystore = f"sqlite:///{folder / 'keys.sqlite3'}"
    keys = make_keys(keystore)
    no_live = granted_key(
        keystore, "researcher@example.com", "no-live", {"analytics.live", "catalog.alphas.promotions"}
    )
    cli(keystore, "accounts", "create", "--email", "ops@example.com", "--role", "admin")
    cli(
        keystore,
        "accounts",
        "set-ceiling",
        "ops@example.com",
        "--endpoints",
        "all",
        "--alphas",
        "all",
        "--runs",
        "all",
    )
    admin = granted_key(keystore, "ops@example.com", "ops", set())
    # The decision as an operator records it (its alpha.approved event with it), before the server
    # starts, on APPROVED_ON's clock (a decision is dated when it is recorded).
    with clock.simulated(noon(APPROVED_ON)):
        promote = ["promote", APPROVED, "--by", DECIDED_BY, "--note", f"diversifier {HOSTILE}"]
        promote += ["--override", "approved in a test whatever its checks"]
        assert run_cli([*promote, "--lake", str(demo_lake), "--keystore", keystore]) == 0
    split = known_split(demo_lake, APPROVED, approval_recorded_at(folder / "keys.sqlite3", APPROVED))
    assert split.isoformat() < APPROVED_ON
    with (
        serve_stack.serving(demo_lake, keystore, workers=1) as (port, _),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            yield LiveSite(
                f"http://127.0.0.1:{port}", browser, keys, no_live, admin, keystore, split.isoformat()
            )
        finally:
            browser.close()


@pytest.fixture
def tab(site: LiveSite) -> Iterator[Any]:
    """A fresh browser context (its own sessionStorage); closed after the test."""
    context = site.browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield context
    finally:
        context.close()


# ---------------------------------------------------------------------------------------------
# Live against backtest
# ---------------------------------------------------------------------------------------------


def shown_number(text: str) -> float:
    """The number a cell shows, its unit after it ("%", "per year") and thousands commas stripped."""
    matched = re.match(r"-?[\d,]*\.?\d+(?:e[-+]?\d+)?", text.strip())
    assert matched, text
    return float(matched[0].replace(",", ""))


def four_digits(value: float) -> str:
    """A number as format.js `num` writes it: four significant digits, an exponent (JavaScript's
    `toExponential(3)`: `5.906e-4`) outside [1e-3, 1e6)."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e6:
        return repr(float(f"{value:.4g}")).removesuffix(".0")
    mantissa, exponent = f"{value:.3e}".split("e")
    return f"{mantissa}e{int(exponent):+d}"


def as_shown(value: float, unit: str) -> str:
    """How the page writes a value of `unit` (labels.js UNITS), recomputed here."""
    if unit == "percentage_points":
        return f"{value:.2f}%".replace("-0.00%", "0.00%")
    if unit == "per_year":
        return f"{four_digits(value)} per year"
    return four_digits(value)


LIVE_ROWS = (
    "trs => trs.map(tr => ({figure: tr.dataset.figure, header: tr.querySelector('th').innerText.trim(),"
    " cells: [...tr.querySelectorAll('td')].map(td => ({text: td.innerText.trim(), value: td.dataset.value ?? null}))}))"
)


def assert_live_table(page: Any, data: dict[str, Any]) -> None:
    """The panel's table is the answer: each part's counts and entries, exactly and as shown."""
    page.wait_for_selector("#live-table")
    rows = {row["figure"]: row for row in page.eval_on_selector_all("#live-table tbody tr", LIVE_ROWS)}
    inside, outside = data["in_sample"], data["out_of_sample"]
    period = [c["text"] for c in rows["period"]["cells"][:2]]
    assert period == [
        f"{part['first_session']} to {part['last_session']}" if part["first_session"] else "—"
        for part in (inside, outside)
    ]
    for count in ("sessions", "weeks"):
        cells = rows[count]["cells"]
        for cell, part in zip(cells[:2], (inside, outside), strict=True):
            assert cell["value"] == ("" if part[count] is None else str(part[count])), (count, cell)
            assert cell["text"] == ("—" if part[count] is None else f"{part[count]:,}"), (count, cell)
        assert cells[2]["text"] == count  # the unit
    for name in PART_FIGURES:
        cells = rows[name]["cells"]
        for cell, part in zip(cells[:2], (inside, outside), strict=True):
            entry = part[name]
            shown = cell["text"].split("\n")[0]
            if entry["value"] is None:
                assert cell["value"] == "" and shown == "—", (name, cell)
                assert entry["withheld_reason"] in cell["text"], (name, cell)
            else:
                assert float(cell["value"]) == entry["value"], (name, cell, entry)  # the served number itself
                assert shown == as_shown(entry["value"], entry["unit"]), (name, shown, entry)
        unit = cells[2]["text"]
        expected_unit = {"ratio": "ratio", "percentage_points": "% of peak", "per_year": "per year"}
        assert unit.startswith(expected_unit[inside[name]["unit"]]), (name, unit)
        assert ("annualised" in unit) == (
            inside[name]["annualisation"] == "annualised" and name != "turnover"
        )
    # The names the API's docs use, one per figure (labels.js).
    assert rows["information_ratio"]["header"].startswith("Information ratio")
    assert rows["excess_sharpe"]["header"].startswith("Excess Sharpe ratio")
    assert rows["rebuilt_mean_ic"]["header"].startswith("Rebuilt mean IC")
    assert rows["rebuilt_icir"]["header"].startswith("Rebuilt ICIR (annualised)")
    assert rows["max_drawdown_pct"]["header"].startswith("Max drawdown")


def assert_verdicts(page: Any, data: dict[str, Any]) -> None:
    decay = data["decay_ratio"]
    shown = page.eval_on_selector("#live-decay > span", "s => [s.dataset.value, s.innerText]")
    if decay["value"] is None:
        assert shown == ["", f"not measurable: {decay['withheld_reason']}"], shown
    else:
        assert float(shown[0]) == decay["value"] and shown[1].startswith(as_shown(decay["value"], "ratio"))
    consistency = data["consistency"]
    badge = page.eval_on_selector("#live-verdict", "b => [b.dataset.verdict, b.innerText]")
    words = {"consistent": "CONSISTENT", "inconsistent": "INCONSISTENT", "not_measurable": "NOT MEASURABLE"}
    assert badge == [consistency["verdict"], words[consistency["verdict"]]]
    psr = page.eval_on_selector("#live-psr", "s => [s.dataset.value, s.innerText]")
    probability = consistency["probability"]
    if probability["value"] is None:
        assert psr[0] == "" and f"not measurable: {probability['withheld_reason']}" in psr[1]
    else:
        assert float(psr[0]) == probability["value"]
        assert f"PSR {as_shown(probability['value'], 'probability')}" in psr[1]
        assert f"over {consistency['sessions']} out-of-sample sessions" in psr[1]
    assert float(page.get_attribute("#live-level", "data-value")) == consistency["level"]
    assert "probabilistic_sharpe_ratio" in page.inner_text("#live-consistency")


SHADING = """
(name) => {
  const figure = document.querySelector(`[data-chart="${name}"]`);
  const canvas = figure.querySelector("canvas");
  const { data, width } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
  const d = figure.dataset;
  const [left, top, plotWidth, height] = [d.plotLeft, d.plotTop, d.plotWidth, d.plotHeight].map(Number);
  // Per column of the plot area: the share of its pixels painted with the live ground's grey (the
  // lines and bars cross a column in a few pixels; the ground fills it).
  const grey = (i) => data[i + 3] > 0 && Math.abs(data[i] - 96) < 30 && Math.abs(data[i + 1] - 108) < 30 && Math.abs(data[i + 2] - 122) < 30;
  const share = [];
  for (let x = Math.ceil(left); x < left + plotWidth; x += 1) {
    let count = 0;
    for (let y = Math.ceil(top); y < top + height; y += 1) if (grey((y * width + x) * 4)) count += 1;
    share.push([x, count / height]);
  }
  return { left, plotWidth, xMin: Number(d.xMin), xMax: Number(d.xMax), share, after: d.liveAfter ?? null,
           caption: figure.querySelector("figcaption").innerText };
}
"""


def split_seconds(date: str) -> float:
    """A date as the charts' x scale has it: seconds since the epoch at UTC midnight."""
    return dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), tzinfo=dt.UTC).timestamp()


SHADED = 0.05
"""A column of the plot area holds the live ground when more than this share of its pixels is its
grey. Elsewhere a column has at most a pixel or two of grey-looking blend (two lines' antialiased
edges crossing); on the ground, a vertical grid line, a series' fill (the drawdown's) or the deepest
drawdown can cover a column, so most columns, not all, count."""


# The part after a split as the pages name it: live only after an approval (issue 47, item 7).
AFTER_SPLIT = {
    "approval": "live (out of sample) after {}",
    "research_cutoff": "out of sample after the research cutoff ({})",
    "first_published": "out of sample after the first publish ({})",
    "request": "out of sample after the what-if split ({})",
}


def assert_shaded_after(page: Any, name: str, split: str, origin: str) -> None:
    """The chart's plot area is grey from where the split falls on its own x scale to its right edge,
    and nowhere before it; its caption names the part after it by the split's origin."""
    page.wait_for_selector(f"[data-chart='{name}'][data-drawn][data-live-after='{split}'][data-live-x]")
    found = page.evaluate(SHADING, name)
    span = found["xMax"] - found["xMin"]
    at = found["left"] + (split_seconds(split) - found["xMin"]) / span * found["plotWidth"]
    start = max(at, found["left"])  # a split before the chart's first point shades all of it
    right = found["left"] + found["plotWidth"]
    shaded = [x for x, share in found["share"] if share > SHADED]
    assert shaded, (name, found["caption"])
    assert abs(shaded[0] - start) <= 2, (name, shaded[0], start)  # begins where the split is
    assert shaded[-1] >= right - 3, (name, shaded[-1], right)  # and runs to the right edge
    assert len(shaded) >= 0.8 * (right - start), (name, len(shaded), right - start)
    assert all(share <= SHADED for x, share in found["share"] if x < start - 2), name  # nothing before it
    assert AFTER_SPLIT[origin].format(split) in found["caption"], found["caption"]
    if origin != "approval":
        assert "live" not in found["caption"].lower(), found["caption"]


def assert_not_shaded(page: Any, name: str) -> None:
    page.wait_for_selector(f"[data-chart='{name}'][data-drawn][data-plot-width]")
    found = page.evaluate(SHADING, name)
    assert found["after"] is None and "out of sample" not in found["caption"], found["caption"]
    assert all(share <= SHADED for _, share in found["share"]), name


def test_the_live_panel_shows_the_api_answer_and_every_chart_is_shaded_after_the_split(
    site: LiveSite, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    page.wait_for_selector("#live-table")
    answer = site.api(f"/v1/alphas/{ALPHA}/analytics/live", site.keys.full).json()["data"]
    assert answer["split_origin"] == "research_cutoff" and answer["out_of_sample"]["sessions"] > 0
    split = answer["split_date"]
    assert page.get_attribute("#live-split", "data-origin") == "research_cutoff"
    assert page.inner_text("#live-split-date") == split
    assert page.inner_text("#live-split-origin") == "research_cutoff"
    assert "the seal's research_cutoff" in page.inner_text("#live-split")
    # Never approved: the panel is not called live (issue 47).
    assert page.inner_text("#live > h2") == "Out of sample after the research cutoff, against backtest"
    assert_live_table(page, answer)
    assert_verdicts(page, answer)
    # Never approved: the standing says so.
    page.wait_for_selector("#live-standing-line[data-standing='never']")
    assert "Never approved" in page.inner_text("#live-standing-line")
    # The panel has its link in the section bar, after the performance.
    links = page.eval_on_selector_all("#section-nav a", "as => as.map(a => a.dataset.section)")
    assert links.index("live") == links.index("performance") + 1
    for chart in TIME_CHARTS:
        assert_shaded_after(page, chart, split, "research_cutoff")
    # Never approved: the parts' table does not call the part after the cutoff live either.
    assert "Out of sample (after the research cutoff)" in page.inner_text("#live-table thead")
    keep_screenshot(page, tmp_path, "alpha-live.png")
    page.locator("#live").screenshot(path=str(tmp_path / "live-panel.png"))
    check_clean(site, visit)

    # A what-if split: the panel shows the answer to `split=`, and every chart moves its shading.
    what_if = "2021-06-30"
    page.fill("#live-split-input", what_if)
    page.click("#live-split-ask")
    page.wait_for_selector(f"#live-split[data-origin='request'][data-split='{what_if}']")
    asked = site.api(f"/v1/alphas/{ALPHA}/analytics/live", site.keys.full, split=what_if).json()["data"]
    assert_live_table(page, asked)
    assert_verdicts(page, asked)
    for chart in TIME_CHARTS:
        assert_shaded_after(page, chart, what_if, "request")
    page.click("#live-split-own")
    page.wait_for_selector(f"#live-split[data-origin='research_cutoff'][data-split='{split}']")
    assert_shaded_after(page, "cumulative-return", split, "research_cutoff")
    # The long_only book: its own figures, the same split.
    page.select_option("#live-book", "long_only")
    long_only = site.api(f"/v1/alphas/{ALPHA}/analytics/live", site.keys.full, book="long_only").json()[
        "data"
    ]
    page.wait_for_function(
        "v => document.querySelector(\"#live-table tr[data-figure='information_ratio'] td\")?.dataset.value === v",
        arg=str(long_only["in_sample"]["information_ratio"]["value"]),
    )
    assert_live_table(page, long_only)

    # The tear sheet's chart is shaded after the same split, and shows the table.
    sheet = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    sheet.page.wait_for_selector("#download-tearsheet:not([disabled])")
    assert sheet.page.get_attribute("svg[data-chart='sheet-equity']", "data-live-after") == split
    assert sheet.page.locator("svg[data-chart='sheet-equity'] rect.live-shade").count() == 1
    legend = sheet.page.eval_on_selector_all(
        "#sheet-equity svg.svg-legend text", "ts => ts.map(t => t.textContent)"
    )
    assert legend[-1] == f"out of sample after the research cutoff ({split})"
    assert_live_table(sheet.page, answer)
    check_clean(site, sheet)


def test_an_approved_alpha_shows_its_standing_and_its_live_part_from_the_approval(
    site: LiveSite, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{APPROVED}")
    page = visit.page
    page.wait_for_selector("#live-split[data-origin='approval']")
    answer = site.api(f"/v1/alphas/{APPROVED}/analytics/live", site.keys.full).json()["data"]
    assert (answer["split_date"], answer["split_origin"]) == (site.split, "approval")
    assert answer["consistency"]["verdict"] != "not_measurable"  # long enough to be judged
    assert page.inner_text("#live-split-date") == site.split
    assert "the approval: the last session the lake had published when it was recorded" in page.inner_text(
        "#live-split"
    )
    assert_live_table(page, answer)
    assert_verdicts(page, answer)
    # The standing, with who decided and why as text (their markup is not parsed).
    standing = site.api(f"/v1/alphas/{APPROVED}/promotions", site.keys.full).json()["data"]
    assert standing["standing"] == "approved"
    line = page.wait_for_selector("#live-standing-line[data-standing='approved']").inner_text()
    assert line.startswith(f"Promotion: Approved into the live book since {APPROVED_ON} by {DECIDED_BY}: ")
    assert f"diversifier {HOSTILE}" in line
    assert page.eval_on_selector_all("#live img, #live script", "nodes => nodes.length") == 0
    assert page.evaluate("window.__pwned") is None
    for chart in TIME_CHARTS:
        assert_shaded_after(page, chart, site.split, "approval")
    assert "Out of sample (live)" in page.inner_text("#live-table thead")
    keep_screenshot(page, tmp_path, "alpha-approved-live.png")
    check_clean(site, visit)

    # Its tear sheet opens with the decision: approved since the approval, by whom (as text), and
    # the part after it called live (issue 47, items 3 and 7).
    sheet = open_dashboard(site, tab, site.keys.full, f"#/alphas/{APPROVED}/tearsheet")
    sheet.page.wait_for_selector("#tearsheet .page-footer .page-number")
    row = "#decision-summary tr[data-summary='{}']"
    figure = sheet.page.locator(row.format("standing") + " td.summary-figure")
    assert (figure.get_attribute("data-standing"), figure.get_attribute("data-since")) == (
        "approved",
        APPROVED_ON,
    )
    said = sheet.page.inner_text(row.format("standing") + " td.summary-says")
    assert said.startswith(f"Approved since {standing['since']} by {DECIDED_BY}: “diversifier {HOSTILE}”."), (
        said
    )
    assert sheet.page.inner_text(row.format("live") + " th") == "Live against backtest"
    live = sheet.page.inner_text(row.format("live") + " td.summary-says")
    assert live.startswith(f"Live (out of sample) ({site.split}: the approval: the last session"), live
    assert sheet.page.inner_text("#page-live > h2") == "Live against backtest"
    legend = sheet.page.eval_on_selector_all(
        "#sheet-equity svg.svg-legend text", "ts => ts.map(t => t.textContent)"
    )
    assert legend[-1] == f"live (out of sample) after {site.split}"
    assert sheet.page.eval_on_selector_all("#tearsheet img, #tearsheet script", "nodes => nodes.length") == 0
    sheet.page.locator("#page-summary").screenshot(path=str(tmp_path / "tearsheet-approved-summary.png"))
    keep_artefact(tmp_path / "tearsheet-approved-summary.png")
    # With an alpha approved, the checks compare the others with the approved set, and say so.
    sheet.page.goto(f"{site.base}/ui#/alphas/{ALPHA}/tearsheet")
    sheet.page.wait_for_selector(f"#tearsheet[data-alpha='{ALPHA}'] .page-footer .page-number")
    checks = site.api(f"/v1/alphas/{ALPHA}/analytics/checks", site.keys.full).json()["data"]["checks"]
    correlation = next(c for c in checks if c["id"] == "production_correlation")
    assert correlation["reference"] == "approved" and correlation["nearest"] == APPROVED
    assert sheet.page.inner_text(row.format("correlation") + " th") == "Correlation to the approved set"
    assert sheet.page.inner_text(row.format("correlation") + " td.summary-says") == correlation["reason"]
    check_clean(site, sheet)


def test_an_alpha_whose_split_is_after_its_last_session_is_not_shaded(
    site: LiveSite, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{AFTER_THE_DATA}")
    page = visit.page
    page.wait_for_selector("#live-table")
    answer = site.api(f"/v1/alphas/{AFTER_THE_DATA}/analytics/live", site.keys.full).json()["data"]
    assert answer["split_origin"] == "first_published" and answer["out_of_sample"]["sessions"] == 0
    assert page.get_attribute("#live-split", "data-origin") == "first_published"
    assert "No session is after the split yet" in page.inner_text("#live-split")
    assert_live_table(page, answer)
    for chart in ("cumulative-return", "drawdown"):
        assert_not_shaded(page, chart)
    check_clean(site, visit)


def test_a_key_without_analytics_live_sees_the_access_message(
    site: LiveSite, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.no_live, f"#/alphas/{ALPHA}")
    page = visit.page
    shown = error_box(page, "#live .error")
    expected = site.api(f"/v1/alphas/{ALPHA}/analytics/live", site.no_live).json()["error"]
    assert shown["code"] == expected["code"] == "endpoint_not_allowed"
    assert expected["message"] in shown["text"] and "analytics.live" in shown["text"]
    path = f"/v1/alphas/{ALPHA}/analytics/live"
    assert shown["request_id"] == visit.response_to(path).headers["x-request-id"]
    standing = page.wait_for_selector("#live-standing [data-error-code='endpoint_not_allowed']").inner_text()
    assert (
        standing.startswith("Promotion standing not shown: 403") and "catalog.alphas.promotions" in standing
    )
    # The charts still draw, without a split to shade after.
    for chart in ("cumulative-return", "drawdown", "ic-weekly"):
        assert_not_shaded(page, chart)
    keep_screenshot(page, tmp_path, "live-refused.png")
    check_clean(site, visit, allowed_statuses=(403,))


# ---------------------------------------------------------------------------------------------
# The activity page
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def events(site: LiveSite) -> list[Any]:
    """Events as the pipeline writes them, beside the approval the fixture's promote recorded."""
    records = open_records(site.records_url)
    try:
        log = records.events
        figures: dict[str, dict[str, Any]] = {
            "information_ratio": {"before": 0.7739, "after": 0.5212, "moved": True},
            "excess_sharpe": {"before": 0.7718, "after": 0.7001, "moved": False},
            "max_drawdown_pct": {"before": 17.37, "after": 19.1, "moved": True},
            "sessions": {"before": 296, "after": 301, "moved": True},
        }
        written = [
            log.append(
                "alpha.republished",
                {
                    "build_id": "b-new",
                    "previous_build_id": "b-old",
                    "headline": {name: figure["after"] for name, figure in figures.items()},
                    "checks": {},
                    "figures": figures,
                    "moved": [name for name, figure in figures.items() if figure["moved"]],
                },
                alpha_id=ALPHA,
            ),
            log.append(
                "alpha.checks_changed",
                {
                    "build_id": "b-new",
                    "previous_build_id": "b-old",
                    "changed": [
                        {
                            "id": "information_ratio",
                            "before": {"value": 0.7739, "unit": "ratio", "verdict": "pass"},
                            "after": {"value": 0.5212, "unit": "ratio", "verdict": "fail"},
                        }
                    ],
                },
                alpha_id=ALPHA,
            ),
            log.append(
                "alpha.decay",
                {
                    "build_id": f"b-{HOSTILE}",
                    "failed": [{"id": "decay_ratio", "value": 0.2, "unit": "ratio", "verdict": "fail"}],
                },
                alpha_id=APPROVED,
            ),
            log.append(
                "build.refused",
                {
                    "seal": "seals/x",
                    "target": "new_alpha",
                    "rule": "R12",
                    "kind": "manifest",
                    "message": HOSTILE,
                },
                audience="admin",
            ),
            log.append(
                "alpha.published",
                {"build_id": "b-1", "headline": {"information_ratio": 0.5}, "checks": {}},
                alpha_id="Test_small_universe",
            ),
        ]
    finally:
        records.database.close()
    return written


EVENT_ROWS = (
    "lis => lis.map(li => ({id: li.dataset.id, type: li.dataset.type, alpha: li.dataset.alpha,"
    " text: li.innerText}))"
)


def served_events(site: LiveSite, token: str, **params: Any) -> list[dict[str, Any]]:
    """Every event the key may see, newest first (`order=newest`), page after page (as the dashboard
    reads them)."""
    out: list[dict[str, Any]] = []
    after = None
    while True:
        cursor = {"after": after} if after else {}
        page = site.api("/v1/events", token, limit=2, order="newest", **params, **cursor).json()
        out += page["data"]
        if not page["pagination"]["has_more"]:
            return out
        after = page["meta"]["next_cursor"]


def wait_for_events(page: Any, ids: list[str]) -> list[dict[str, Any]]:
    page.wait_for_function(
        "ids => JSON.stringify([...document.querySelectorAll('#events li.event')].map(li => li.dataset.id))"
        " === JSON.stringify(ids)",
        arg=ids,
    )
    rows: list[dict[str, Any]] = page.eval_on_selector_all("#events li.event", EVENT_ROWS)
    return rows


def page_through(page: Any, ids: list[str]) -> list[dict[str, Any]]:
    """The list grows two at a time, "Load more" reading each older page, until it is `ids`."""
    for end in range(2, len(ids), 2):
        wait_for_events(page, ids[:end])
        page.click("#events-more")
    return wait_for_events(page, ids)


def small_pages(route: Any) -> None:
    """The demo log fits one page of 50: asked 2 at a time, "Load more" has pages to turn."""
    route.continue_(url=re.sub(r"\blimit=\d+", "limit=2", route.request.url))


def test_the_activity_page_lists_pages_filters_and_watches_the_events(
    site: LiveSite, events: list[Any], tab: Any, tmp_path: Path
) -> None:
    tab.route(re.compile(r".*/v1/events\?.*"), small_pages)
    visit = open_dashboard(site, tab, site.keys.full)
    page = visit.page
    page.wait_for_selector("#catalogue table")
    page.click("#nav-activity")
    served = served_events(site, site.keys.full)
    types = [e["type"] for e in served]
    assert "build.refused" not in types  # for administrators
    # Newest first: the events the fixture wrote, newest on top, then the checks the approval
    # changed (every other alpha's correlation to the approved set, now measurable), then the
    # approval.
    written = ["alpha.published", "alpha.decay", "alpha.checks_changed", "alpha.republished"]
    assert types[:4] == written
    assert types[-1] == "alpha.approved" and served[-1]["alpha"] == APPROVED
    decided = served[4:-1]
    others = {a["alpha_id"] for a in site.api("/v1/alphas", site.keys.full).json()["data"]} - {APPROVED}
    assert sorted(e["alpha"] for e in decided) == sorted(others)
    for event in decided:
        assert event["type"] == "alpha.checks_changed", event
        assert [c["id"] for c in event["data"]["changed"]] == ["production_correlation"], event
    # Two at a time: "Load more" follows the cursor back to the first, and the list is the feed's.
    shown = page_through(page, [e["id"] for e in served])
    page.wait_for_selector("#events-more[hidden]", state="attached")
    asked = [dict(httpx.URL(url).params) for url in visit.requests if httpx.URL(url).path == "/v1/events"]
    first = site.api("/v1/events", site.keys.full, limit=2, order="newest").json()
    assert asked[0] == {"limit": "50", "order": "newest"}  # as sent, before the rewrite
    assert asked[1] == {"limit": "50", "order": "newest", "after": first["meta"]["next_cursor"]}
    # Each event: its type, its alpha (a link to its page), its time, and what its data says.
    by_type = {row["type"]: row for row in reversed(shown)}  # the newest of each type
    for row, event in zip(shown, served, strict=True):
        assert row["alpha"] == (event["alpha"] or "")
        assert f"{event['created_at'][:19].replace('T', ' ')} UTC" in row["text"]
    republished_id = next(e["id"] for e in served if e["type"] == "alpha.republished")
    changed_id = next(
        e["id"] for e in served if e["type"] == "alpha.checks_changed" and e["data"]["build_id"] == "b-new"
    )
    assert page.get_attribute(f"li[data-id='{republished_id}'] a.event-alpha", "href") == f"#/alphas/{ALPHA}"
    republished = by_type["alpha.republished"]["text"]
    assert "New build b-new (was b-old)" in republished
    assert "Moved beyond its tolerance: Information ratio, Max drawdown, Sessions." in republished
    figures = page.eval_on_selector_all(
        f"li[data-id='{republished_id}'] table.event-figures tbody tr",
        "trs => trs.map(tr => [tr.dataset.figure, ...[...tr.children].map(c => c.innerText.trim())])",
    )
    assert [f[0] for f in figures] == ["information_ratio", "excess_sharpe", "max_drawdown_pct", "sessions"]
    assert figures[0][2:] == ["0.7739", "0.5212", "moved"]
    assert figures[1][2:] == ["0.7718", "0.7001", "within tolerance"]
    assert figures[2][2:] == ["17.37%", "19.10%", "moved"]
    assert figures[3][2:] == ["296", "301", "moved"]
    flipped = page.eval_on_selector_all(
        f"li[data-id='{changed_id}'] table.event-checks .badge", "bs => bs.map(b => b.dataset.verdict)"
    )
    assert flipped == ["pass", "fail"]
    approved = by_type["alpha.approved"]["text"]
    assert (
        f"Approved into the live book as of {APPROVED_ON} by {DECIDED_BY}: “diversifier {HOSTILE}”"
        in approved
    )
    assert "Decay ratio decay_ratio: 0.2 FAIL" in by_type["alpha.decay"]["text"]
    keep_screenshot(page, tmp_path, "activity.png")

    # Watched: an event recorded now arrives on top, after the newest shown, without a reload.
    records = open_records(site.records_url)
    try:
        records.events.append(
            "alpha.retired",
            {
                "action": "retired",
                "as_of": "2022-03-01",
                "decided_by": "cio",
                "note": "decayed",
                "build_id": "b-new",
            },
            alpha_id=APPROVED,
        )
    finally:
        records.database.close()
    newest = served_events(site, site.keys.full)[0]
    assert newest["type"] == "alpha.retired"
    rows = wait_for_events(page, [newest["id"]] + [e["id"] for e in served])
    assert "Retired from the live book as of 2022-03-01 by cio: “decayed”" in rows[0]["text"]

    # Filters: by type, then by alpha; each list is what the feed answers for the same filter.
    page.check("#activity-form input[value='alpha.republished']")
    page.check("#activity-form input[value='alpha.checks_changed']")
    page.click("#activity-form button[type=submit]")
    page.wait_for_function("location.hash === '#/activity?type=alpha.republished%2Calpha.checks_changed'")
    typed = served_events(site, site.keys.full, type="alpha.republished,alpha.checks_changed")
    assert {e["type"] for e in typed} == {"alpha.republished", "alpha.checks_changed"}
    page_through(page, [e["id"] for e in typed])
    page.goto(f"{site.base}/ui#/alphas/{APPROVED}")
    page.click("#open-activity")  # an alpha's page links its own events
    only = served_events(site, site.keys.full, alpha=APPROVED)
    assert {e["alpha"] for e in only} == {APPROVED} and len(only) == 3
    wait_for_events(page, [e["id"] for e in only[:2]])  # two a page
    page.click("#events-more")
    wait_for_events(page, [e["id"] for e in only])
    assert page.input_value("#activity-alpha") == APPROVED
    check_clean(site, visit)


def test_the_activity_page_shows_nothing_about_an_alpha_the_key_may_not_read(
    site: LiveSite, events: list[Any], tab: Any, tmp_path: Path
) -> None:
    # The limited key reads Test_ alphas only: nothing about momentum_12_1, not even by name; and
    # the notice of its own webhook's disabling, which no other key sees.
    key_id = site.api("/v1/me", site.keys.limited).json()["data"]["key_id"]
    notice = {
        "webhook_id": "wh_1",
        "url": "https://hooks.example.com/alpha",
        "reason": "no 2xx answer in 86400 s (30 attempts; the last: HTTP 503)",
        "event": "0" * 32,
        "attempts": 30,
        "failing_since": "2026-11-24T18:00:00Z",
    }
    records = open_records(site.records_url)
    try:
        records.events.append("webhook.disabled", notice, audience="key", key_id=key_id)
    finally:
        records.database.close()
    visit = open_dashboard(site, tab, site.keys.limited, "#/activity")
    page = visit.page
    served = served_events(site, site.keys.limited)
    assert served and all((e["alpha"] or "Test_").startswith("Test_") for e in served)
    rows = wait_for_events(page, [e["id"] for e in served])
    assert ALPHA not in page.inner_text("#events") and "new_alpha" not in page.inner_text("#events")
    assert rows[0]["type"] == "webhook.disabled" and rows[0]["alpha"] == ""  # the newest
    assert (
        "The webhook wh_1 to https://hooks.example.com/alpha was disabled after 30 attempts failing since"
        f" 2026-11-24T18:00:00Z, at event {'0' * 32}: {notice['reason']}." in rows[0]["text"]
    )
    assert "webhook.disabled" not in [e["type"] for e in served_events(site, site.keys.full)]
    keep_screenshot(page, tmp_path, "activity-limited.png")
    # Asking for it by name is answered as for an alpha that does not exist: nothing.
    page.fill("#activity-alpha", ALPHA)
    page.click("#activity-form button[type=submit]")
    page.wait_for_selector("#events-status:has-text('No event that this key may see with these filters.')")
    assert page.eval_on_selector_all("#events li.event", "lis => lis.length") == 0
    keep_screenshot(page, tmp_path, "activity-limited-filtered.png")
    check_clean(site, visit)

    # An administrator sees the refused build too, its message as text.
    admin = open_dashboard(site, tab, site.admin, "#/activity?type=build.refused")
    refused = served_events(site, site.admin, type="build.refused")
    assert len(refused) == 1
    rows = wait_for_events(admin.page, [e["id"] for e in refused])
    assert f"The seal seals/x for new_alpha was refused: rule R12 (manifest): {HOSTILE}" in rows[0]["text"]
    assert admin.page.eval_on_selector_all("#events img, #events script", "nodes => nodes.length") == 0
    assert admin.page.evaluate("window.__pwned") is None
    keep_screenshot(admin.page, tmp_path, "activity-admin.png")
    check_clean(site, admin)


def test_hostile_text_in_an_event_is_shown_as_text(site: LiveSite, events: list[Any], tab: Any) -> None:
    """Every string an event carries reaches the page as text: markup stays visible, nothing runs,
    an unknown shape is shown as its JSON."""
    records = open_records(site.records_url)
    try:
        records.events.append(
            "alpha.published",
            {
                "build_id": HOSTILE,
                "headline": {"information_ratio": HOSTILE, HOSTILE: 1},
                "checks": {HOSTILE: {"verdict": HOSTILE}},
            },
            alpha_id="Test_ledger_only",
        )
        records.events.append("alpha.checks_changed", {"changed": HOSTILE}, alpha_id="Test_ledger_only")
    finally:
        records.database.close()
    visit = open_dashboard(site, tab, site.keys.full, "#/activity?alpha=Test_ledger_only")
    page = visit.page
    served = served_events(site, site.keys.full, alpha="Test_ledger_only")
    rows = wait_for_events(page, [e["id"] for e in served])
    # Newest first: the two written here, then the approval's change of its correlation check.
    assert [row["type"] for row in rows] == [
        "alpha.checks_changed",
        "alpha.published",
        "alpha.checks_changed",
    ]
    changed, published = served[0]["id"], served[1]["id"]
    assert f"First published: build {HOSTILE}." in rows[1]["text"]
    page.click(f"li[data-id='{published}'] details summary")
    assert HOSTILE in page.inner_text(f"li[data-id='{published}'] table")
    # A shape the page does not expect (`changed` is not a list) is shown as its JSON, as text.
    assert '"changed": "<img src=x onerror=' in page.inner_text(f"li[data-id='{changed}'] pre.event-data")
    assert page.eval_on_selector_all("#events img, #events script, #events b", "nodes => nodes.length") == 0
    assert page.evaluate("window.__pwned") is None
    check_clean(site, visit)
