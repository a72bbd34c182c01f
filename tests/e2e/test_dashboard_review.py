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

import tests.e2e.test_dashboard as shared
import tests.e2e.test_serve_stack as serve_stack
from tests.conftest import linked_copy
from tests.e2e.browser import chromium_or_skip
from tests.e2e.test_dashboard import (
    ROOMY,
    Site,
    check_clean,
    cli,
    keep_artefact,
    keep_screenshot,
    make_keys,
    open_dashboard,
)
from tests.e2e.test_dashboard_vocabulary import num

tab = shared.tab

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
