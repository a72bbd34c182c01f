"""The review queue page (#/review; issue 64, item 3), in Chromium against the real server over the
demo's history and its records, with the fixtures of tests/e2e/test_dashboard.py: every nominated
alpha `/v1/review` answers the key, with who nominated it and why, the build, the verdict now and
every failed check, and links to its page and tear sheet; read-only; a key that may not read the
nominated alpha sees an empty queue, its name nowhere. Screenshots as the other dashboard tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.support.serve_stack as serve_stack
from tests.conftest import linked_copy
from tests.e2e.browser import chromium_or_skip
from tests.e2e.dashboard_site import (
    ROOMY,
    Site,
    check_clean,
    cli,
    keep_artefact,
    keep_screenshot,
    make_keys,
    open_dashboard,
)
from tests.support.dashboard_vocabulary import num

pytestmark = pytest.mark.e2e

NOMINATED = "Test_short_term_reversal"  # the demo's seal asks for review; no decision follows
ONE_ALPHA: dict[str, str] = {}  # the token of a key that reads momentum_12_1 alone


@pytest.fixture(scope="module")
def site(demo_lake: Path, demo_records: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The real server over a copy of the demo lake and its records (the nominations), with the
    dashboard tests' keys created in them."""
    executable, sync_playwright = chromium_or_skip()
    folder = tmp_path_factory.mktemp("dashboard_review")
    lake = linked_copy(demo_lake, folder / "lake")
    records = Path(shutil.copy(demo_records, folder / "records.sqlite3"))
    keystore = f"sqlite:///{records}"
    keys = make_keys(keystore)
    key = cli(keystore, "keys", "create", "--user", "researcher@example.com", "--name", "one-alpha", "--json")
    cli(keystore, "keys", "grant", key["key_id"], "--endpoints", "all", "--alphas", "list:momentum_12_1")
    cli(keystore, "keys", "set-limits", key["key_id"], *ROOMY)
    ONE_ALPHA["token"] = key["token"]
    with serve_stack.serving(lake, keystore, workers=1) as (port, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            yield Site(f"http://127.0.0.1:{port}", browser, keys)
        finally:
            browser.close()


def shown_queue(page: Any) -> dict[str, Any]:
    page.click("#nav-review")
    page.wait_for_function(
        "() => { const s = document.querySelector('#review-status'); return s && !s.textContent.startsWith('Loading'); }"
    )
    return {
        "status": page.inner_text("#review-status"),
        "policy": page.get_attribute("#review-policy", "data-policy"),
        "rows": page.eval_on_selector_all(
            "tr.review-entry", "trs => trs.map(tr => [tr.dataset.alpha, tr.dataset.verdict])"
        ),
        "text": page.inner_text("main"),
        "controls": page.eval_on_selector_all(
            "#review button, #review form, #review input", "els => els.length"
        ),
        "links": page.eval_on_selector_all("tr.review-entry a", "as => as.map(a => a.getAttribute('href'))"),
    }


def test_the_queue_shows_what_the_route_answers(site: Site, tab: Any, tmp_path: Path) -> None:
    visit = open_dashboard(site, tab, site.keys.full, "#/")
    shown = shown_queue(visit.page)
    data = site.api("/v1/review", site.keys.full).json()["data"]
    assert [e["alpha"] for e in data["entries"]] == [NOMINATED]
    assert shown["rows"] == [[e["alpha"], e["verdict"] or ""] for e in data["entries"]]
    assert shown["policy"] == data["approval_policy"] == "never"
    [entry] = data["entries"]
    for text in (entry["note"], entry["nominated_by"], entry["nominated_build_id"], *entry["failed"]):
        assert text in shown["text"], text
    assert shown["links"] == [
        f"#/alphas/{NOMINATED}",
        f"#/alphas/{NOMINATED}",
        f"#/alphas/{NOMINATED}/tearsheet",
    ]
    assert f"alpha-results promote {NOMINATED} --dry-run" in shown["text"]
    assert shown["status"] == "1 alpha waiting for a decision."
    assert shown["controls"] == 0  # read-only: a decision is recorded by the command line
    keep_screenshot(visit.page, tmp_path, "review-queue.png")
    check_clean(site, visit)


def test_a_key_without_the_alpha_sees_no_name(site: Site, tab: Any, tmp_path: Path) -> None:
    visit = open_dashboard(site, tab, ONE_ALPHA["token"], "#/")
    shown = shown_queue(visit.page)
    assert shown["rows"] == [] and NOMINATED not in shown["text"]
    assert shown["status"] == "No alpha this key may read is waiting for a decision."
    keep_screenshot(visit.page, tmp_path, "review-queue-empty.png")
    check_clean(site, visit)


def shown_health(page: Any) -> dict[str, Any]:
    page.click("#nav-health")
    page.wait_for_function(
        "() => { const s = document.querySelector('#health-status'); return s && !s.textContent.startsWith('Loading'); }"
    )
    return {
        "status": page.inner_text("#health-status"),
        "rows": page.eval_on_selector_all(
            "tr.health-alpha", "trs => trs.map(tr => [tr.dataset.alpha, tr.dataset.state])"
        ),
        "text": page.inner_text("main"),
    }


def test_the_health_page_shows_what_the_route_answers(site: Site, tab: Any, tmp_path: Path) -> None:
    """#/health (issue 59, item 4): every approved alpha /v1/analytics/approved_health answers, in
    its order, with its live figures and the chart's false-alarm rate as served."""
    visit = open_dashboard(site, tab, site.keys.full, "#/")
    shown = shown_health(visit.page)
    data = site.api("/v1/analytics/approved_health", site.keys.full).json()["data"]
    assert data["alphas"], "the demo's history approves alphas"
    expected_rows = []
    for row in data["alphas"]:
        alarmed = "alarm" in (row["cusum_state"], row["ic_cusum_state"])
        expected_rows.append([row["alpha"], "alarm" if alarmed else row["cusum_state"]])
        assert f"{row['live_weeks']:,} live weeks" in shown["text"]
        if row["live_information_ratio"] is not None:
            assert f"{row['live_information_ratio']:.2f}" in shown["text"]
    assert shown["rows"] == expected_rows
    assert f"{data['expected_false_alarms_per_year']:.2f} false alarms a year" in shown["text"]
    assert shown["status"].startswith(f"{data['approved_count']} approved alpha")
    keep_screenshot(visit.page, tmp_path, "health.png")
    check_clean(site, visit)
    # A key of one alpha (its runs not granted: it reads no approved alpha) sees what the route
    # answers it, and no other approved alpha's name.
    visit = open_dashboard(site, tab, ONE_ALPHA["token"], "#/")
    narrowed = shown_health(visit.page)
    mine = site.api("/v1/analytics/approved_health", ONE_ALPHA["token"]).json()["data"]
    assert [alpha for alpha, _ in narrowed["rows"]] == [row["alpha"] for row in mine["alphas"]]
    assert all(other["alpha"] not in narrowed["text"] for other in data["alphas"])
    check_clean(site, visit)


def test_the_alpha_page_and_the_tear_sheet_say_whether_it_still_works(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """The monitoring panel of an approved alpha's page and the tear sheet summary's row (issue 59,
    item 1) say what /analytics/monitoring answers: each chart's state, statistic and threshold,
    and how often the chart would be wrong."""
    alpha = "value_composite_legacy"  # approved, then its factor reverses
    data = site.api(f"/v1/alphas/{alpha}/analytics/monitoring", site.keys.full, book="long_short").json()[
        "data"
    ]
    states = ",".join(c["state"] for c in data["charts"])
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{alpha}")
    page = visit.page
    page.wait_for_selector("#monitoring #monitoring-line", timeout=60_000)
    line = page.inner_text("#monitoring #monitoring-line")
    assert page.get_attribute("#monitoring #monitoring-line", "data-states") == states
    for c in data["charts"]:
        if c["state"] != "not_measurable":
            assert f"statistic {num(c['cusum_statistic'])} of {num(data['cusum_threshold'])}" in line
            assert f"after {c['live_weeks']} live weeks" in line
    assert f"one false alarm every {num(data['arl0_weeks'])} weeks" in line
    shot = tmp_path / "alpha-monitoring.png"
    page.locator("#monitoring").screenshot(path=str(shot))
    keep_artefact(shot)
    check_clean(site, visit)
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{alpha}/tearsheet")
    page = visit.page
    page.wait_for_selector("#page-decay #monitoring-line", timeout=120_000)
    assert page.get_attribute("#page-decay #monitoring-line", "data-states") == states
    assert f"of {num(data['cusum_threshold'])}" in page.inner_text("#page-decay #monitoring-line")
    # The summary gets its row with an alarm only: the small demo has none.
    alarmed = "alarm" in states
    assert bool(page.query_selector('tr[data-summary="monitoring"]')) is alarmed
    shot = tmp_path / "tearsheet-monitoring.png"
    page.locator("#page-decay").screenshot(path=str(shot))
    keep_artefact(shot)
    check_clean(site, visit)


# -- issue 81: one answer per question, on every page ------------------------------------------------

EXPECTED_MARKS = """
() => [...document.querySelectorAll('[data-term="expected_live_information_ratio"][data-key]')].map((e) => ({
    alpha: (e.closest('[data-alpha]') || {dataset: {}}).dataset.alpha || null,
    value: e.dataset.value,
}))
"""
LABELS = """
() => [...document.querySelectorAll('[data-term="haircut_information_ratio"][data-label-of]')].map((e) => e.textContent)
"""


def expected_live_ir(site: Site, alpha: str) -> float | None:
    series = site.api(f"/v1/alphas/{alpha}/analytics/expectation", site.keys.full).json()["data"]["series"]
    value: float | None = next(s for s in series if s["series"] == "information_ratio")["expected_live"]
    return value


def test_one_expected_live_information_ratio_per_alpha_on_every_page(site: Site, tab: Any) -> None:
    """Issue 81, item 4: every figure an alpha's page, its tear sheet and the health page mark as the
    expected live information ratio is one number per alpha, /analytics/expectation's; decay's
    backtest-times-retention is drawn under its own name."""
    from tests.support.dashboard_vocabulary import settled_alpha_page

    health = site.api("/v1/analytics/approved_health", site.keys.full).json()["data"]["alphas"]
    approved = [row["alpha"] for row in health]
    assert approved, "the demo's history approves alphas"
    shown: dict[str, set[str]] = {}
    for alpha in approved:
        for fragment, settle in (
            (f"#/alphas/{alpha}", settled_alpha_page),
            (
                f"#/alphas/{alpha}/tearsheet",
                lambda p: p.wait_for_selector("#tearsheet .page-footer .page-number"),
            ),
        ):
            visit = open_dashboard(site, tab, site.keys.full, fragment)
            settle(visit.page)
            visit.page.wait_for_selector("#monitoring-line")
            marks = visit.page.evaluate(EXPECTED_MARKS)
            assert marks, f"{fragment}: no expected live information ratio drawn"
            shown.setdefault(alpha, set()).update(m["value"] for m in marks)
            labels = visit.page.evaluate(LABELS)
            assert labels and all("Expected live" not in label for label in labels), labels
            check_clean(site, visit, allowed_statuses=(404, 422))
            visit.page.close()
    visit = open_dashboard(site, tab, site.keys.full, "#/")
    shown_health(visit.page)
    for mark in visit.page.evaluate(EXPECTED_MARKS):
        assert mark["alpha"] in approved
        shown[mark["alpha"]].add(mark["value"])
    check_clean(site, visit)
    for alpha in approved:
        one = expected_live_ir(site, alpha)
        assert one is not None
        assert shown[alpha] == {str(one)} or {float(v) for v in shown[alpha]} == {one}, (
            alpha,
            shown[alpha],
            one,
        )


def test_the_health_page_gives_one_verdict_from_every_signal(site: Site, tab: Any, tmp_path: Path) -> None:
    """Issue 81, item 5: value_composite_legacy, whose live checks fail, is failing on the health page,
    never "in control"; each row's verdict and signals are the route's; the detection delay is said."""
    data = site.api("/v1/analytics/approved_health", site.keys.full).json()["data"]
    visit = open_dashboard(site, tab, site.keys.full, "#/")
    shown = shown_health(visit.page)
    verdicts = visit.page.eval_on_selector_all(
        "tr.health-alpha", "trs => trs.map(tr => [tr.dataset.alpha, tr.dataset.verdict])"
    )
    assert verdicts == [[row["alpha"], row["verdict"]] for row in data["alphas"]]
    legacy = dict(verdicts)["value_composite_legacy"]
    assert legacy == "failing"
    cell = visit.page.inner_text("tr[data-alpha='value_composite_legacy'] td.health-verdict")
    assert cell.startswith("FAILING") and "in control" not in cell.split("\n")[0]
    signals = visit.page.eval_on_selector_all(
        "tr[data-alpha='value_composite_legacy'] li[data-signal]",
        "lis => lis.map(li => [li.dataset.signal, li.dataset.state])",
    )
    row = next(r for r in data["alphas"] if r["alpha"] == "value_composite_legacy")
    assert signals == [[s["signal"], s["state"]] for s in row["signals"]]
    assert ["live_information_ratio", "fail"] in signals
    assert f"it takes {data['arl1_weeks']:.0f} weeks on average to see that fall" in shown["text"]
    assert f"{data['failing_count']} failing" in shown["status"]
    keep_screenshot(visit.page, tmp_path, "health-verdict.png")
    check_clean(site, visit)


def test_a_retired_alpha_keeps_its_decision_history(site: Site, tab: Any, tmp_path: Path) -> None:
    """Issue 81, item 6: a retired alpha's page and its tear sheet's first page show every decision,
    oldest first: the approval with its date, when it was recorded and its override, then the
    retirement, which ends the live part (what was published between the two)."""
    alpha = "Test_planted_factor"  # approved, then retired in the demo's history
    data = site.api(f"/v1/alphas/{alpha}/promotions", site.keys.full).json()["data"]
    decisions = data["decisions"]
    assert data["standing"] == "retired" and [d["action"] for d in decisions][-2:] == ["approved", "retired"]
    approval, retirement = decisions[-2], decisions[-1]
    for fragment, where in (
        (f"#/alphas/{alpha}", "#live-standing-line"),
        (f"#/alphas/{alpha}/tearsheet", "#decision-summary tr[data-summary='standing']"),
    ):
        visit = open_dashboard(site, tab, site.keys.full, fragment)
        visit.page.wait_for_selector(f"{where} .decision-history")
        entries = visit.page.eval_on_selector_all(
            f"{where} .decision-entry", "es => es.map(e => [e.dataset.action, e.dataset.asOf, e.textContent])"
        )
        assert [(a, d) for a, d, _ in entries] == [(d["action"], d["as_of"]) for d in decisions]
        approved_text, retired_text = entries[-2][2], entries[-1][2]
        assert f"Approved on {approval['as_of']} by {approval['decided_by']}" in approved_text
        assert (
            f"Recorded {approval['recorded_at']} (the live part starts with what was published after)."
            in (approved_text)
        )
        override = approval["snapshot"].get("override")
        if override:
            assert f"the override given: “{override}”" in approved_text
        assert f"Retired on {retirement['as_of']} by {retirement['decided_by']}" in retired_text
        assert "the live part starts" not in retired_text
        assert (
            f"Recorded {retirement['recorded_at']}: the live part ends here (it is what was published after "
            f"the approval was recorded, {approval['recorded_at']}, up to this retirement)."
        ) in retired_text
        keep_screenshot(
            visit.page, tmp_path, f"retired-history-{'sheet' if 'tearsheet' in fragment else 'page'}.png"
        )
        check_clean(site, visit, allowed_statuses=(404, 422))
        visit.page.close()


def test_a_never_approved_alpha_s_cusum_counts_weeks_after_its_split_not_live_weeks(
    site: Site, tab: Any
) -> None:
    """Issue 81, item 9: the CUSUM panel of an alpha never approved says "weeks after the split"."""
    data = site.api(f"/v1/alphas/{NOMINATED}/analytics/monitoring", site.keys.full, book="long_short").json()[
        "data"
    ]
    assert data["live"] is False
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{NOMINATED}")
    visit.page.wait_for_selector("#monitoring #monitoring-line", timeout=60_000)
    line = visit.page.inner_text("#monitoring #monitoring-line")
    assert "live weeks" not in line
    if any(c["state"] != "not_measurable" for c in data["charts"]):
        assert "weeks after the split" in line
    check_clean(site, visit, allowed_statuses=(404, 422))
