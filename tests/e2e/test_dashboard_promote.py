"""The alpha page's "Promote preview" (issue 47, item 2; docs/dashboard.md "Promote preview"), in
Chromium against the real server, with the fixtures of tests/e2e/test_dashboard.py: the verdict, the
failed checks, what the decision changes for the other alphas and the command an operator runs, each
as `/analytics/promotion_preview` answers the same key; read-only (no control that writes); a key
that reads a few alphas sees no other alpha's name. Screenshots go to the test's tmp folder, and to
`$ALPHA_RESULTS_ARTEFACTS/dashboard/` when that is set."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.support.serve_stack as serve_stack
from tests.conftest import linked_copy
from tests.e2e.browser import chromium_or_skip
from tests.e2e.dashboard_site import (
    ALPHA,
    Site,
    check_clean,
    cli,
    keep_artefact,
    keep_screenshot,
    make_keys,
    open_dashboard,
)

pytestmark = pytest.mark.e2e

LIMITED_ALPHA = "Test_planted_factor"
APPROVED = "value_composite_legacy"  # approved by the module's fixture: the live book the previews compare


@pytest.fixture(scope="module")
def site(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The real server over a copy of the demo lake (a decision records its index row again), with
    the CLI's keys and one approval recorded by `alpha-results promote` before it starts (today: a
    decision is dated when it is recorded)."""
    executable, sync_playwright = chromium_or_skip()
    folder = tmp_path_factory.mktemp("dashboard_promote")
    lake = linked_copy(demo_lake, folder / "lake")
    keystore = f"sqlite:///{folder / 'keys.sqlite3'}"
    keys = make_keys(keystore)
    cli(
        keystore,
        "promote",
        APPROVED,
        "--by",
        "head of research",
        "--note",
        "the live book a preview compares with",
        "--override",
        "approved in a test whatever its checks",
        "--lake",
        str(lake),
        "--keystore",
        keystore,
    )
    with serve_stack.serving(lake, keystore, workers=1) as (port, _), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            yield Site(f"http://127.0.0.1:{port}", browser, keys)
        finally:
            browser.close()


def shown_preview(page: Any) -> dict[str, Any]:
    page.wait_for_selector("#promote-preview #promote-command")
    return {
        "verdict": page.get_attribute("#promote-verdict", "data-verdict"),
        "action": page.get_attribute("#promote-verdict", "data-action"),
        "badge": page.inner_text("#promote-verdict .badge"),
        "failed": page.eval_on_selector_all("#promote-failed li", "lis => lis.map(li => li.dataset.check)"),
        "before": page.inner_text("#promote-set [data-set='before']"),
        "after": page.inner_text("#promote-set [data-set='after']"),
        "others": page.eval_on_selector_all(
            "#promote-others tbody tr",
            "trs => trs.map(tr => [tr.dataset.alpha, tr.dataset.check || null, tr.dataset.flips || null])",
        ),
        "command": page.inner_text("#promote-command"),
        "text": page.inner_text("#promote-preview"),
        "controls": page.eval_on_selector_all(
            "#promote-preview button, #promote-preview form, #promote-preview input", "els => els.length"
        ),
    }


def expected_others(data: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for other in data["others"]:
        if not other["changes"]:
            rows.append([other["alpha_id"], None, None])
        rows += [[other["alpha_id"], c["check"], str(c["flips"]).lower()] for c in other["changes"]]
    return rows


def test_the_promote_preview_draws_the_served_answer(site: Site, tab: Any, tmp_path: Path) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    shown = shown_preview(page)
    data = site.api(f"/v1/alphas/{ALPHA}/analytics/promotion_preview", site.keys.full).json()["data"]
    assert (shown["verdict"], shown["action"]) == (data["verdict"], data["action"])
    assert shown["failed"] == [c["id"] for c in data["checks"] if c["verdict"] == "fail"]
    assert shown["before"] == (", ".join(data["approved_before"]) or "none")
    assert shown["after"] == (", ".join(data["approved_after"]) or "none")
    assert shown["others"] == expected_others(data) and shown["others"]
    assert shown["command"] == data["command"] and shown["command"].startswith(
        f"alpha-results promote {ALPHA}"
    )
    assert shown["controls"] == 0  # read-only: nothing to press
    page.locator("#promote-preview").scroll_into_view_if_needed()
    keep_screenshot(page, tmp_path, f"promote-preview-{ALPHA}.png")
    panel = tmp_path / f"promote-preview-panel-{ALPHA}.png"
    page.locator("#promote-preview").screenshot(path=str(panel))
    keep_artefact(panel)
    check_clean(site, visit)


def test_a_key_of_a_few_alphas_sees_no_other_name(site: Site, tab: Any, tmp_path: Path) -> None:
    visit = open_dashboard(site, tab, site.keys.limited, f"#/alphas/{LIMITED_ALPHA}")
    page = visit.page
    shown = shown_preview(page)
    data = site.api(f"/v1/alphas/{LIMITED_ALPHA}/analytics/promotion_preview", site.keys.limited).json()[
        "data"
    ]
    everything = site.api(f"/v1/alphas/{LIMITED_ALPHA}/analytics/promotion_preview", site.keys.full).json()[
        "data"
    ]
    hidden = [o["alpha_id"] for o in everything["others"] if not o["alpha_id"].startswith("Test_")]
    assert APPROVED in hidden and APPROVED in everything["approved_before"]
    assert hidden and "others_not_shown" not in data  # neither named nor counted (issue 60)
    assert [o["alpha_id"] for o in data["others"] if not o["alpha_id"].startswith("Test_")] == []
    assert [name for name in hidden if name in shown["text"]] == []
    assert page.locator("#promote-not-shown").count() == 0
    page.locator("#promote-preview").scroll_into_view_if_needed()
    keep_screenshot(page, tmp_path, f"promote-preview-limited-{LIMITED_ALPHA}.png")
    panel = tmp_path / f"promote-preview-panel-limited-{LIMITED_ALPHA}.png"
    page.locator("#promote-preview").screenshot(path=str(panel))
    keep_artefact(panel)
    check_clean(site, visit, allowed_statuses=(403,))
