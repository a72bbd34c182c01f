"""The research dashboard at `/ui` (serve/routes/dashboard.py, docs/dashboard.md).

Two halves:

- The page and its assets over HTTP, in-process, as tests/api/test_developer_surface.py asserts of
  `/` and `/docs`: public (no key read, not metered), outside the registry and the OpenAPI
  document, a strict Content-Security-Policy, `no-cache` page, immutable assets under a versioned
  path, the app's path rules, and the vendored chart library with its licence.
- The dashboard in headless Chromium (Debian's, through Playwright, as tests/e2e/test_docs_ui.py)
  against the real `alpha-results serve` process over the session's demo lake, with keys made by
  the operator CLI: sign in, the catalogue, an alpha's page (every chart drew: its canvas holds
  pixels of its series' colours), paging through the series, the cross-section browser, the
  downloads, and keys whose allow-lists refuse the alpha or an endpoint. Every test checks that
  nothing was requested from another origin and that the console logged no error. Screenshots go
  to the test's tmp folder, and to `$ALPHA_RESULTS_ARTEFACTS/dashboard/` when that is set.

Without chromium (or Playwright) the browser tests skip, and fail under
ALPHA_RESULTS_REQUIRE_BACKENDS=1.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from core.settings import Settings
from serve.app import create_app, openapi_document
from serve.auth import is_public
from serve.endpoints import endpoints
from serve.envelope import json_bytes
from serve.routes import dashboard
from tests.e2e.dashboard_site import (
    ALPHA,
    SCREEN,
    Site,
    Visit,
    assert_drawn,
    cell_texts,
    check_clean,
    error_box,
    keep_screenshot,
    open_dashboard,
)
from tests.support.pages import NeverCalled, parsed

CHARTS = (
    "cumulative-return",
    "drawdown",
    "ic-weekly",
    "ic-deciles",
    "ic-term-structure",
    "rank-autocorrelation",
)
SMALL_PAGE = 100  # the series are read in pages of this many rows in the paging test (296 sessions: 3 pages)

# ---------------------------------------------------------------------------------------------
# The page and its assets over HTTP
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    lake = tmp_path_factory.mktemp("empty_lake")  # the page reads no lake
    never = NeverCalled()
    app = create_app(Settings(lake=str(lake), environment="test"), authenticate=never, limiter=never)
    with TestClient(app=app) as test_client:
        yield test_client


def page_urls(client: TestClient[Any]) -> list[str]:
    return [url for _, url in parsed(client.get(dashboard.DASHBOARD_PATH).text).urls]


def test_the_page_is_served_with_a_strict_policy_and_no_cache(client: TestClient[Any]) -> None:
    response = client.get("/ui")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    csp = response.headers["content-security-policy"]
    assert csp == dashboard.DASHBOARD_CSP
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["connect-src"] == "'self'"  # the API calls go to this origin only
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert "unsafe" not in csp  # no inline script or style, no eval
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in response.text and "style=" not in response.text  # nothing inline
    assert "://" not in response.text  # nothing from another origin
    urls = page_urls(client)
    assert sorted(urls) == sorted(
        [
            "data:,",
            f"{dashboard.ASSET_URL}/vendor/uplot/uPlot.min.css",
            f"{dashboard.ASSET_URL}/dashboard.css",
            f"{dashboard.ASSET_URL}/app.js",
            "#/",
            "/docs",  # in <noscript>
            "/docs",
            "/",
        ]
    )


def test_the_assets_are_the_files_with_a_year_long_immutable_cache(client: TestClient[Any]) -> None:
    assert {"app.js", "dashboard.css", "vendor/uplot/uPlot.esm.js", "vendor/uplot/uPlot.min.css"} <= set(
        dashboard.ASSETS
    )
    for name in dashboard.ASSETS:
        response = client.get(f"{dashboard.ASSET_URL}/{name}")
        assert response.status_code == 200, name
        assert response.headers["cache-control"] == "max-age=31536000, public, immutable"
        made = dashboard.GENERATED.get(name)
        expected_bytes = made.encode() if made is not None else (dashboard.UI_DIR / name).read_bytes()
        assert response.content == expected_bytes, name
        expected = "text/javascript" if name.endswith(".js") else "text/css"
        assert response.headers["content-type"].startswith(expected), name
        assert response.headers["x-content-type-options"] == "nosniff"


def test_every_module_import_is_a_served_asset_of_this_origin() -> None:
    """ES modules without a build step: each import names a sibling file the app serves."""
    imported = re.compile(r"""^import\s[^;]*?from\s+"([^"]+)";""", re.M)
    ours = {name: asset for name, asset in dashboard.ASSETS.items() if not name.startswith("vendor/")}
    for name, asset in ours.items():
        text = asset.body.decode()
        if name.endswith(".js"):
            for target in imported.findall(text):
                assert target.startswith("./"), (name, target)
                resolved = (Path(name).parent / target).as_posix()
                assert resolved in dashboard.ASSETS, (name, target)
        assert "http://" not in text and "https://" not in text, name  # no other origin named
        # The key stays in the tab: no script writes to localStorage or a cookie.
        assert not re.search(r"\blocalStorage\s*[.\[]|document\.cookie", text), name


def test_the_asset_version_changes_with_any_byte_of_any_asset() -> None:
    assets = dict(dashboard.ASSETS)
    assert dashboard.version_of(assets) == dashboard.ASSET_VERSION
    changed = {**assets, "app.js": dashboard.Asset(assets["app.js"].body + b"\n", "text/javascript")}
    assert dashboard.version_of(changed) != dashboard.ASSET_VERSION
    assert dashboard.page("<a href='{{assets}}/x.js'>", "/ui/assets/v1") == b"<a href='/ui/assets/v1/x.js'>"


def test_the_page_reads_no_key_and_is_not_metered(client: TestClient[Any]) -> None:
    # The app's authenticator and limiter fail the test if called (NeverCalled).
    for path in ("/ui", f"{dashboard.ASSET_URL}/app.js"):
        for headers in ({}, {"Authorization": "Bearer not-a-key"}):
            response = client.get(path, headers=headers)
            assert response.status_code == 200, (path, headers)
            assert not any(name.lower().startswith("x-ratelimit") for name in response.headers)
    assert client.get("/ui", params={"api_key": "x"}).status_code == 200  # a query string is ignored
    handlers = [h for r in client.app.routes if r.path in dashboard.PATHS for h in r.route_handlers]
    assert {"dashboard_html", "dashboard_asset"} <= {h.name for h in handlers}
    assert all(is_public(h) and "endpoint" not in h.opt for h in handlers)


@pytest.mark.parametrize(
    "path",
    [
        "/ui/",
        "/ui//",
        "/ui/index.html",
        "/ui.html",
        "/%75i",  # an encoded unreserved character: a second spelling of /ui
        "/ui/assets",
        "/ui/assets/",
        f"{dashboard.ASSET_URL}",
        f"{dashboard.ASSET_URL}/",
        f"{dashboard.ASSET_URL}//app.js",
        f"{dashboard.ASSET_URL}/app.js/",
        f"{dashboard.ASSET_URL}/missing.js",
        f"{dashboard.ASSET_URL}/dashboard.html",  # the page template is not an asset
        f"{dashboard.ASSET_URL}/vendor/README.md",
        f"{dashboard.ASSET_URL}/vendor/uplot/LICENSE",
        f"{dashboard.ASSET_URL}/vendor/uplot/package.json",
        f"{dashboard.ASSET_URL}/../dashboard.py",
        f"{dashboard.ASSET_URL}/%2e%2e/app.js",
        f"{dashboard.ASSET_PREFIX}/0000000000000000/app.js",  # another version: not this deployment's
        f"{dashboard.ASSET_PREFIX}/{dashboard.ASSET_VERSION.upper()}/app.js",
    ],
)
def test_other_spellings_are_not_found(client: TestClient[Any], path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404, (path, response.text[:200])
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("path", ["/ui", f"{dashboard.ASSET_URL}/app.js"])
@pytest.mark.parametrize("method", ["HEAD", "POST", "PUT", "OPTIONS"])
def test_only_get_is_served(client: TestClient[Any], path: str, method: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 404
    if method != "HEAD":
        assert response.json()["error"]["code"] == "method_not_allowed"


def test_the_page_is_outside_the_registry_and_the_document(client: TestClient[Any]) -> None:
    response = client.get("/openapi.json", headers={"Accept-Encoding": "identity"})
    assert response.content == json_bytes(openapi_document())  # the dashboard adds nothing to it
    assert not any(p == "/ui" or p.startswith("/ui/") for p in response.json()["paths"])
    assert not {e.path for e in endpoints().values()} & set(dashboard.PATHS)


def test_the_access_log_names_the_page_and_its_assets(
    client: TestClient[Any], caplog: pytest.LogCaptureFixture
) -> None:
    asset = f"{dashboard.ASSET_URL}/app.js"
    with caplog.at_level(logging.INFO, logger="serve.access"):
        client.get("/ui")
        client.get(asset)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "serve.access"]
    assert [(line["path"], line["route"], line["status"], line["key_id"]) for line in lines] == [
        ("/ui", "dashboard_html", 200, None),
        (asset, "dashboard_asset", 200, None),
    ]


def test_the_landing_page_links_the_dashboard(client: TestClient[Any]) -> None:
    anchors = [url for tag, url in parsed(client.get("/").text).urls if tag == "a"]
    assert dashboard.DASHBOARD_PATH in anchors


def test_the_vendored_chart_library_carries_its_licence_and_version() -> None:
    folder = dashboard.UI_DIR / "vendor" / "uplot"
    package = json.loads((folder / "package.json").read_text())
    assert package["name"] == "uplot" and package["license"] == "MIT"
    assert "The MIT License" in (folder / "LICENSE").read_text()
    notes = (dashboard.UI_DIR / "vendor" / "README.md").read_text()
    assert f"| Version | {package['version']} " in notes
    assert "npm pack uplot@X.Y.Z" in notes
    assert sorted(p.name for p in folder.iterdir()) == [
        "LICENSE",
        "package.json",
        "uPlot.esm.js",
        "uPlot.min.css",
    ]


# ---------------------------------------------------------------------------------------------
# The dashboard in Chromium against the real server
# ---------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_sign_in_keeps_the_key_in_the_tab_and_the_catalogue_searches(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    # A key that is not one is refused with the server's message and request id, and not kept.
    visit = open_dashboard(site, tab, "ar_live_notakey")
    refused = error_box(visit.page, "#sign-in .error")
    assert refused["code"] == "malformed_api_key" and refused["request_id"].startswith("req_")
    assert refused["request_id"] == visit.response_to("/v1/me").headers["x-request-id"]
    assert visit.page.evaluate("sessionStorage.length") == 0
    visit.page.fill("#api-key", site.keys.full)
    visit.page.click("#sign-in button[type=submit]")
    visit.page.wait_for_selector("#catalogue table")
    me = site.api("/v1/me", site.keys.full).json()["data"]
    assert visit.page.inner_text("#key-id") == me["key_id"]
    # The key lives in sessionStorage only: not in localStorage, a cookie or the URL.
    assert visit.page.evaluate("Object.values(sessionStorage)") == [site.keys.full]
    assert visit.page.evaluate("localStorage.length") == 0 and tab.cookies() == []
    assert all(site.keys.full not in url for url in visit.requests)
    # The key may call the screener: its rows, in catalogue order (that of /v1/alphas) by default.
    every = [r["alpha_id"] for r in site.api(SCREEN, site.keys.full).json()["data"]]
    assert every == [r["alpha_id"] for r in site.api("/v1/alphas", site.keys.full).json()["data"]]
    visit.page.wait_for_selector("#catalogue table.screen")
    assert cell_texts(visit.page, "#catalogue-results a.alpha-link") == every
    keep_screenshot(visit.page, tmp_path, "catalogue.png")

    def shown_after(change: Any, **query: Any) -> list[str]:
        expected = [r["alpha_id"] for r in site.api(SCREEN, site.keys.full, **query).json()["data"]]
        change()
        visit.page.wait_for_function(
            "ids => JSON.stringify([...document.querySelectorAll('#catalogue-results a.alpha-link')]"
            ".map(a => a.innerText)) === JSON.stringify(ids)",
            arg=expected,
        )
        return expected

    def search(text: str) -> None:
        visit.page.fill("#catalogue-search", text)
        visit.page.click("#catalogue-form button[type=submit]")

    found = shown_after(lambda: search("momentum"), search="momentum")
    assert ALPHA in found and len(found) < len(every)
    complete = shown_after(
        lambda: visit.page.check("#catalogue-complete-only"), search="momentum", complete_only="true"
    )
    assert complete and set(complete) <= set(found)
    search("")
    shown_after(lambda: None, complete_only="true")
    assert "Test_low_vol_incomplete" not in cell_texts(visit.page, "#catalogue-results a.alpha-link")
    # Opening an alpha from the catalogue, then signing out, forgets the key.
    visit.page.click(f"a.alpha-link[href='#/alphas/{ALPHA}']")
    visit.page.wait_for_selector("#description .facts")
    for panel in (
        "#cs-results table",
        "#exports table",
        "#metrics table.periods",
        "[data-chart='drawdown'][data-drawn]",
    ):
        visit.page.wait_for_selector(panel)  # every answer is in: signing out aborts nothing
    visit.page.click("#sign-out")
    visit.page.wait_for_selector("#sign-in")
    assert visit.page.evaluate("sessionStorage.length") == 0
    check_clean(site, visit, allowed_statuses=(401,))


def shown_ids(page: Any) -> list[str]:
    return cell_texts(page, "#catalogue-results a.alpha-link")


def wait_for_ids(page: Any, ids: list[str]) -> None:
    page.wait_for_function(
        "ids => JSON.stringify([...document.querySelectorAll('#catalogue-results a.alpha-link')]"
        ".map(a => a.innerText)) === JSON.stringify(ids)",
        arg=ids,
    )


def screen_requests(visit: Visit) -> list[dict[str, str]]:
    """The query of every screener request the page sent, in order."""
    urls = [httpx.URL(url) for url in visit.requests]
    return [dict(url.params) for url in urls if url.path == SCREEN]


@pytest.mark.e2e
def test_the_catalogue_sorts_filters_and_pages_with_the_screener(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    def small_pages(route: Any) -> None:
        # The demo catalogue fits one page of 25: asked 3 at a time, the pager has pages to turn.
        route.continue_(url=re.sub(r"\blimit=\d+", "limit=3", route.request.url))

    tab.route(re.compile(r".*/v1/analytics/screen\?.*"), small_pages)
    visit = open_dashboard(site, tab, site.keys.full)
    page = visit.page
    page.wait_for_selector("#catalogue table.screen")

    def screened(**query: Any) -> dict[str, Any]:
        answer: dict[str, Any] = site.api(SCREEN, site.keys.full, limit=3, **query).json()
        return answer

    # Each figure's header is the label, with its basis, of the term the screener row declares for
    # the field (serve.routes.dashboard.screen_terms): `ic` is the sealed mean IC, `turnover` the
    # sealed turnover.
    headers = cell_texts(page, "#catalogue table.screen thead th")
    for label in (
        "Information ratio (annualised)",
        "Excess Sharpe ratio (annualised)",
        "Mean IC (as sealed, per week)",
        "ICIR (annualised)",
        "Max drawdown",
        "Turnover (as sealed)",
        "Sessions",
    ):
        assert label in headers, headers
    first = screened(offset=0)
    assert shown_ids(page) == [r["alpha_id"] for r in first["data"]]
    assert first["pagination"]["total"] > 6  # three pages at least

    # A click on a figure's header sorts by it, highest first; a second click reverses it.
    page.click("button.sort[data-sort='information_ratio']")
    by_ir = screened(sort="-information_ratio", offset=0)
    wait_for_ids(page, [r["alpha_id"] for r in by_ir["data"]])
    assert page.get_attribute("th[aria-sort]", "aria-sort") == "descending"
    cells = cell_texts(page, "#catalogue-results tbody tr td:nth-child(4)")  # after Compare, Alpha, Name
    shown_ir = [float(t) for t in cells if t != "—"]  # a null is a dash, and sorts last
    assert cells[: len(shown_ir)] == [t for t in cells if t != "—"]
    assert shown_ir and shown_ir == sorted(shown_ir, reverse=True)  # highest first, to the digit shown
    served = [r["information_ratio"] for r in by_ir["data"]]
    assert shown_ir == [float(f"{v:.4g}") for v in served if v is not None]  # four significant digits
    page.click("#catalogue-results button.next")
    wait_for_ids(page, [r["alpha_id"] for r in screened(sort="-information_ratio", offset=3)["data"]])
    assert page.inner_text("#catalogue-results .range") == f"rows 4–6 of {by_ir['pagination']['total']}"
    page.click("button.sort[data-sort='information_ratio']")  # back to the first page, ascending
    wait_for_ids(page, [r["alpha_id"] for r in screened(sort="information_ratio", offset=0)["data"]])
    assert page.get_attribute("th[aria-sort]", "aria-sort") == "ascending"
    page.click("button.sort[data-sort='max_drawdown_pct']")
    wait_for_ids(page, [r["alpha_id"] for r in screened(sort="-max_drawdown_pct", offset=0)["data"]])

    # Filters: a tag and a lower bound on the information ratio narrow the rows to what the API
    # answers for the same parameters (the sort still applies).
    tagged = site.api(SCREEN, site.keys.full, tag="momentum", limit=100).json()["data"]
    ratios = sorted(r["information_ratio"] for r in tagged if r["information_ratio"] is not None)
    assert len(ratios) >= 2, tagged
    bound = f"{(ratios[0] + ratios[-1]) / 2:.4f}"  # between the lowest and the highest
    page.fill("#catalogue-tag", "momentum")
    page.fill("#catalogue-min-information_ratio", bound)
    page.click("#catalogue-form button[type=submit]")
    query = {"tag": "momentum", "min_information_ratio": bound, "sort": "-max_drawdown_pct"}
    narrowed = screened(offset=0, **query)
    wait_for_ids(page, [r["alpha_id"] for r in narrowed["data"]])
    assert 0 < narrowed["pagination"]["total"] < len(tagged)
    assert all(float(bound) <= r["information_ratio"] for r in narrowed["data"])
    assert screen_requests(visit)[-1] == {
        **query,
        "limit": "25",
        "offset": "0",
    }  # as sent, before the rewrite
    # Search and complete runs only go to the screener too.
    page.fill("#catalogue-tag", "")
    page.fill("#catalogue-min-information_ratio", "")
    page.fill("#catalogue-search", "Test_")
    page.check("#catalogue-complete-only")
    wait_for_ids(
        page,
        [
            r["alpha_id"]
            for r in screened(search="Test_", complete_only="true", sort="-max_drawdown_pct", offset=0)[
                "data"
            ]
        ],
    )
    keep_screenshot(page, tmp_path, "catalogue-screen.png")
    # A bound the server refuses (min above max) shows its 400 and request id.
    page.fill("#catalogue-min-information_ratio", "2")
    page.fill("#catalogue-max-information_ratio", "1")
    page.click("#catalogue-form button[type=submit]")
    refused = error_box(page, "#catalogue-results .error")
    assert refused["code"] == "bad_request" and "min_information_ratio" in refused["text"]
    assert page.is_visible("#catalogue-max-information_ratio")  # still there to mend
    check_clean(site, visit, allowed_statuses=(400,))


ROW_CELLS = (
    "trs => trs.map(tr => ({alpha: tr.querySelector('a.alpha-link').innerText,"
    " cells: [...tr.children].map(td => ({text: td.innerText.trim(), classes: td.className}))}))"
)
COLUMN_OF = (
    "field => [...document.querySelectorAll('#catalogue table.screen thead th')]"
    ".findIndex(th => th.querySelector(`[data-sort='${field}']`))"
)


@pytest.mark.e2e
def test_the_catalogue_shows_one_icir_basis_and_flags_an_ic_that_does_not_reproduce(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """The ICIR column says its basis and shows the screener's annualised figure for every alpha
    (value_composite_legacy's sealed per-week ICIR times sqrt(52)); a mean IC the alpha's
    cross-sections do not reproduce carries a badge and no gain colour, and the filter finds it.
    Its own page flags core.ic and core.icir, and labels the ICIR as sealed: per week."""
    visit = open_dashboard(site, tab, site.keys.full)
    page = visit.page
    page.wait_for_selector("#catalogue table.screen")
    headers = cell_texts(page, "#catalogue table.screen thead th")
    assert "ICIR (annualised)" in headers and "Mean IC (as sealed, per week)" in headers, headers
    served = {r["alpha_id"]: r for r in site.api(SCREEN, site.keys.full, limit=100).json()["data"]}
    ic_at, icir_at = page.evaluate(COLUMN_OF, "ic"), page.evaluate(COLUMN_OF, "icir")
    assert min(ic_at, icir_at) >= 0
    shown = page.eval_on_selector_all("#catalogue-results tbody tr", ROW_CELLS)
    assert {row["alpha"] for row in shown} == set(served)
    flagged = []
    for row in shown:
        screened = served[row["alpha"]]
        ic, icir = row["cells"][ic_at], row["cells"][icir_at]
        if screened["icir"] is not None:
            assert float(icir["text"].split()[0]) == float(f"{screened['icir']:.4g}"), (row, screened)
        if screened["ic_reproduces"] is False:
            flagged.append(row["alpha"])
            for cell in (ic, icir):
                assert "not reproduced" in cell["text"] and "ic-unreproduced" in cell["classes"], row
                assert "positive" not in cell["classes"] and "negative" not in cell["classes"], row
        else:
            assert "not reproduced" not in ic["text"] + icir["text"], row
    assert flagged == ["value_composite_legacy"]
    legacy_row = next(r for r in shown if r["alpha"] == "value_composite_legacy")
    legacy = float(legacy_row["cells"][icir_at]["text"].split()[0])
    core = site.api("/v1/alphas/value_composite_legacy/metrics", site.keys.full).json()["data"]["core"]
    # sealed per week: /metrics serves it annualised too (icir_per_week the sealed ratio), one basis
    assert core["icir"]["annualisation"] == "annualised" and core["icir"]["source_kind"] == "derived"
    assert legacy == float(f"{core['icir']['value']:.4g}")
    assert legacy == float(f"{core['icir_per_week']['value'] * 52**0.5:.4g}")

    page.select_option("#catalogue-ic-reproduces", "false")
    page.click("#catalogue-form button[type=submit]")
    wait_for_ids(page, ["value_composite_legacy"])
    assert screen_requests(visit)[-1]["ic_reproduces"] == "false"
    page.select_option("#catalogue-ic-reproduces", "true")
    page.click("#catalogue-form button[type=submit]")
    wait_for_ids(page, [a for a, r in served.items() if r["ic_reproduces"] is True])
    keep_screenshot(page, tmp_path, "catalogue-ic-flag.png")

    # The alpha's own metrics table: the sealed figures flagged, the ICIR annualised.
    page.evaluate("location.hash = '#/alphas/value_composite_legacy'")
    page.wait_for_selector("#metrics table.metrics-core")
    core_rows = page.eval_on_selector_all(
        "#metrics table.metrics-core tbody tr",
        "trs => trs.map(tr => ({path: tr.querySelector('code').innerText, label: tr.children[0].innerText,"
        " flag: tr.querySelector('.badge.ic-unreproduced')?.title ?? null}))",
    )
    metrics = site.api("/v1/alphas/value_composite_legacy/metrics", site.keys.full).json()
    [mismatch] = [
        w["message"] for w in metrics["meta"]["warnings"] if w["code"] == "ic_reproduction_mismatch"
    ]
    assert {row["path"]: row["flag"] for row in core_rows if row["flag"]} == {
        "core.ic": mismatch,
        "core.icir": mismatch,
        "core.icir_per_week": mismatch,
    }
    [icir_row] = [row for row in core_rows if row["path"] == "core.icir"]
    assert icir_row["label"].startswith("ICIR (annualised)"), icir_row
    check_clean(site, visit)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("key", "endpoint"),
    [("no_screen", "analytics.screen"), ("limited", "performance.metrics")],  # the screener needs both
)
def test_a_key_the_screener_refuses_sees_the_plain_catalogue(
    site: Site, tab: Any, tmp_path: Path, key: str, endpoint: str
) -> None:
    token = getattr(site.keys, key)
    refusal = site.api(SCREEN, token).json()["error"]
    assert refusal["code"] == "endpoint_not_allowed" and endpoint in refusal["message"]
    visit = open_dashboard(site, tab, token)
    page = visit.page
    page.wait_for_selector("#catalogue table.catalogue")
    assert not page.query_selector("table.screen") and not page.is_visible("#catalogue-screen-filters")
    assert cell_texts(page, "#catalogue table.catalogue thead th") == ["Alpha", "Name", "Thesis"]
    assert shown_ids(page) == [r["alpha_id"] for r in site.api("/v1/alphas", token).json()["data"]]
    reason = page.inner_text("#catalogue-plain-reason")
    assert "403 endpoint_not_allowed" in reason and refusal["message"] in reason
    # Search and complete runs only still ask /v1/alphas, and the screener is not asked again.
    asked = len(screen_requests(visit))
    page.fill("#catalogue-search", "Test_")
    page.check("#catalogue-complete-only")
    wait_for_ids(
        page,
        [
            r["alpha_id"]
            for r in site.api("/v1/alphas", token, search="Test_", complete_only="true").json()["data"]
        ],
    )
    assert len(screen_requests(visit)) == asked == 1
    keep_screenshot(page, tmp_path, f"catalogue-plain-{key}.png")
    check_clean(site, visit, allowed_statuses=(403,))


@pytest.mark.e2e
def test_an_alpha_page_draws_every_chart_from_every_page_of_its_series(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    paged: list[str] = []

    def smaller_pages(route: Any) -> None:
        # The demo series fit one default page (500 rows); asked in pages of 100, the dashboard
        # must follow `has_more` to draw the whole of them.
        url = re.sub(r"\blimit=\d+", f"limit={SMALL_PAGE}", route.request.url)
        paged.append(url)
        route.continue_(url=url)

    tab.route(re.compile(r".*/v1/(alphas/[^/]+/equity-curve|benchmarks/SPY/daily)\?.*"), smaller_pages)
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    for chart in CHARTS:
        assert_drawn(page, chart)
    page.wait_for_selector("#metrics table.periods")
    keep_screenshot(page, tmp_path, f"alpha-{ALPHA}.png")

    equity = site.api(f"/v1/alphas/{ALPHA}/equity-curve", site.keys.full, limit=5000).json()
    first, last = equity["data"][0]["date"], equity["data"][-1]["date"]
    spy = site.api(
        "/v1/benchmarks/SPY/daily", site.keys.full, limit=5000, **{"from": first, "to": last}
    ).json()
    pages = -(-len(equity["data"]) // SMALL_PAGE)
    assert pages > 1
    offsets = sorted(
        int(m) for url in paged if "equity-curve" in url for m in re.findall(r"offset=(\d+)", url)
    )
    assert offsets == [SMALL_PAGE * i for i in range(pages)]
    assert sum("benchmarks/SPY" in url for url in paged) == -(-len(spy["data"]) // SMALL_PAGE)
    assert all(f"from={first}" in url and f"to={last}" in url for url in paged if "benchmarks" in url)

    # The returns table is /analytics/returns as served, to the digit shown; that answer is the
    # equity curve's daily returns compounded by month and year: every month of every page is there.
    served = site.api(f"/v1/alphas/{ALPHA}/analytics/returns", site.keys.full).json()["data"]
    served_months = {m["month"]: m["book_return"] for m in served["months"]}
    growth: dict[str, float] = {}
    for row in equity["data"]:
        if row["period_return"] is not None:
            growth[row["date"][:7]] = growth.get(row["date"][:7], 1.0) * (1 + row["period_return"])
    rows = page.eval_on_selector_all(
        "table.returns tbody tr", "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))"
    )
    years = sorted({month[:4] for month in growth})
    assert [row[0] for row in rows] == years
    for row in rows:
        for index, text in enumerate(row[1:13]):
            month = f"{row[0]}-{index + 1:02d}"
            assert text == (f"{(growth[month] - 1) * 100:.1f}%" if month in growth else "—"), (month, text)
            assert text == (f"{served_months[month] * 100:.1f}%" if month in served_months else "—"), (
                month,
                text,
            )
        year = next(y for y in served["years"] if str(y["year"]) == row[0])
        assert row[13] == f"{year['book_return'] * 100:.2f}%", (row[0], row[13])
    total = equity["meta"]["summary"]["total_return"]
    assert f"{total * 100:.2f}%" in page.inner_text("#equity-summary")

    # The metrics table shows the Newey-West t-stats with their lags, as the server computed them.
    metrics = site.api(f"/v1/alphas/{ALPHA}/metrics", site.keys.full, panel="true").json()["data"]
    nwt_rows = page.eval_on_selector_all(
        "table.nwt tbody tr", "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))"
    )
    for (name, block), row in zip(metrics["nwt"].items(), nwt_rows, strict=True):
        assert f"nwt.{name}" in row[0]
        assert row[3] == f"{block['t_statistic']:.2f}" and row[5] == str(block["lag"]), (name, row)
    # The deciles are the ten buckets; the term structure and autocorrelation their horizons and lags.
    assert len(metrics["ic_deciles"]["buckets"]) == 10
    term_rows = cell_texts(
        page, "#signal table.compact tbody tr th, #signal table.compact tbody tr td:first-child"
    )
    assert [f"{t['horizon_weeks']} w" for t in metrics["panel"]["ic_term_structure"]] == term_rows
    # Switching the book redraws the curve of that book.
    long_only = site.api(f"/v1/alphas/{ALPHA}/equity-curve", site.keys.full, book="long_only", limit=1).json()
    page.select_option("#equity-book", "long_only")
    expected = f"long_only: {long_only['meta']['summary']['total_return'] * 100:.2f}%"
    page.wait_for_function(
        "(text) => document.querySelector('#equity-summary')?.innerText.startsWith(text)", arg=expected
    )
    assert_drawn(page, "cumulative-return")
    # Switching the granularity asks the server for the monthly periods.
    page.select_option("#metrics-granularity", "monthly")
    page.wait_for_function("() => document.querySelectorAll('#metrics-periods tbody tr').length > 2")
    monthly = site.api(f"/v1/alphas/{ALPHA}/metrics", site.keys.full, granularity="monthly").json()["data"]
    assert cell_texts(page, "#metrics-periods tbody th") == [p["period"] for p in monthly["periods"]]
    check_clean(site, visit)


IC_CAPTION = re.compile(r"^Mean of the ([\d,]+) weekly ICs shown: (\S+)\.$")


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("alpha", "mismatch"),
    [
        # Its weekly IC rebuilt from the cross-sections does not reproduce the sealed core.ic: the
        # caption is the bars' mean, and the server's warning stands beside the chart.
        ("value_composite_legacy", True),
        ("momentum_12_1", False),
    ],
)
def test_the_weekly_ic_caption_is_the_mean_of_the_bars_shown(
    site: Site, tab: Any, tmp_path: Path, alpha: str, mismatch: bool
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{alpha}")
    page = visit.page
    assert_drawn(page, "ic-weekly")
    caption = page.inner_text("#ic-weekly-caption").strip()
    # The bars the page drew are the panel of the /metrics answer it fetched.
    fetched = visit.response_to(f"/v1/alphas/{alpha}/metrics").json()
    bars = [row["ic"] for row in fetched["data"]["panel"]["ic_weekly"] if row["ic"] is not None]
    mean = sum(bars) / len(bars)
    assert math.isclose(fetched["data"]["panel"]["rebuilt_mean_ic"], mean, rel_tol=1e-12)  # served, drawn
    matched = IC_CAPTION.match(caption)
    assert matched, caption
    assert int(matched[1].replace(",", "")) == len(bars)
    assert float(matched[2]) == float(f"{mean:.4g}"), (caption, mean)  # four significant digits
    warnings = [w for w in fetched["meta"].get("warnings", []) if w["code"] == "ic_reproduction_mismatch"]
    core_ic = fetched["data"]["core"]["ic"]["value"]
    if mismatch:
        # Not the stored core.ic (in the full demo lake `./dev serve` builds: 291 bars of mean
        # 0.0121 under a sealed core.ic of 0.02381).
        assert abs(mean - core_ic) > 1e-6 and f"{core_ic:.4g}" not in caption
        assert len(warnings) == 1
        warning = page.locator("#ic-weekly-warning")
        assert warning.is_visible()
        shown = warning.inner_text()
        assert "ic_reproduction_mismatch" in shown and warnings[0]["message"] in shown
        # It stands with the chart, in the signal panel.
        assert (
            page.locator("#signal .chart-cell", has=page.locator("[data-chart='ic-weekly']"))
            .locator("#ic-weekly-warning")
            .is_visible()
        )
    else:
        assert not warnings and abs(mean - core_ic) <= 1e-6  # the bars reproduce core.ic
        assert page.locator("#ic-weekly-warning").count() == 0
        assert "ic_reproduction_mismatch" not in page.inner_text("#signal")
    keep_screenshot(page, tmp_path, f"ic-weekly-{alpha}.png")
    check_clean(site, visit)


BASIS_LABELS = {"adjusted_close": "adjusted close", "close": "close"}


@pytest.mark.e2e
def test_the_benchmark_shows_the_price_basis_of_its_window(site: Site, tab: Any, tmp_path: Path) -> None:
    """SPY's returns are on its adjusted close only when every session of the window has one
    (docs/api.md): momentum_12_1's window starts before the first adjusted close (close), the
    reversal alpha's first week is later (adjusted close). The page says which, wherever SPY is."""
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    bases = set()
    for alpha in (ALPHA, "Test_short_term_reversal"):
        if alpha != ALPHA:
            page.evaluate("(alpha) => { location.hash = `#/alphas/${alpha}`; }", alpha)
        equity = site.api(f"/v1/alphas/{alpha}/equity-curve", site.keys.full, limit=5000).json()["data"]
        window = {"from": equity[0]["date"], "to": equity[-1]["date"]}
        spy = site.api("/v1/benchmarks/SPY/daily", site.keys.full, limit=1, **window).json()
        basis = spy["meta"]["summary"]["return_basis"]
        bases.add(basis)
        label = f"SPY ({BASIS_LABELS[basis]})"
        # The page of `alpha` is on screen (the previous one's elements are gone with it).
        page.wait_for_function(
            "(alpha) => document.querySelector('p.subtitle code')?.innerText === alpha", arg=alpha
        )
        page.wait_for_selector("#benchmark-basis")
        assert_drawn(page, "cumulative-return")
        shown = page.inner_text("#benchmark-basis")
        assert shown.startswith(f"SPY price basis: {BASIS_LABELS[basis]} ("), shown
        assert ("without dividends" in shown) == (basis == "close"), shown
        summary = page.inner_text("#equity-summary")
        assert f"{spy['meta']['summary']['total_return'] * 100:.2f}% on its {BASIS_LABELS[basis]}," in summary
        for chart, series in (("cumulative-return", label), ("drawdown", f"{label} drawdown")):
            legend = cell_texts(page, f"[data-chart='{chart}'] .u-legend .u-series .u-label")
            assert series in legend, (chart, legend)
        # The returns table's SPY year is /analytics/returns', on the basis that answer states.
        served = site.api(f"/v1/alphas/{alpha}/analytics/returns", site.keys.full).json()["data"]
        assert (
            cell_texts(page, "table.returns thead tr:first-child th")[-1]
            == f"SPY's return ({BASIS_LABELS[served['return_basis']]}, %)"
        )
    assert bases == {"close", "adjusted_close"}
    keep_screenshot(page, tmp_path, "benchmark-basis.png")
    check_clean(site, visit)


@pytest.mark.e2e
def test_the_cross_section_browser_picks_a_week_filters_sorts_and_pages(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    page.wait_for_selector("#cs-results table.cross-section")
    index = site.api(f"/v1/alphas/{ALPHA}/rebalances", site.keys.full, limit=5000).json()["data"]
    traded = [w for w in index if w["week_status"] == "traded"]
    assert cell_texts(page, "#cs-week option") == [
        f"{w['date']} · {w['week_status']} · {w['n_symbols']} names" for w in index
    ]
    assert page.input_value("#cs-week") == traded[-1]["date"]  # the latest traded week first

    def shows(week: str, **query: Any) -> dict[str, Any]:
        answer: dict[str, Any] = site.api(
            f"/v1/alphas/{ALPHA}/rebalances/{week}", site.keys.full, **query
        ).json()
        symbols = [r["symbol"] for r in answer["data"]]
        page.wait_for_function(
            "([week, symbols]) => document.querySelector('#cs-status strong')?.innerText === week && "
            "JSON.stringify([...document.querySelectorAll('#cs-results tbody th')].map(n => n.innerText))"
            " === JSON.stringify(symbols)",
            arg=[week, symbols],
        )
        return answer

    week = traded[len(traded) // 2]["date"]
    page.select_option("#cs-week", week)
    shows(week, limit=25, offset=0)
    page.select_option("#cs-direction", "long")
    page.select_option("#cs-sort", "rank")
    page.select_option("#cs-order", "desc")
    query = {"direction": "long", "sort": "rank", "order": "desc", "book": "long_short"}
    first = shows(week, limit=25, offset=0, **query)
    assert first["pagination"]["total"] > 0
    page.select_option("#cs-limit", "50")
    page.select_option("#cs-sort", "weight")
    page.select_option("#cs-book", "long_only")
    query.update(sort="weight", book="long_only")
    page.select_option("#cs-direction", label="all")
    del query["direction"]
    whole = shows(week, limit=50, offset=0, **query)
    assert whole["pagination"]["has_more"]
    assert page.inner_text("#cs-results .range") == f"rows 1–50 of {whole['pagination']['total']}"
    page.click("#cs-results button.next")
    second = shows(week, limit=50, offset=50, **query)
    assert page.inner_text("#cs-results .range") == (
        f"rows 51–{50 + second['pagination']['returned']} of {second['pagination']['total']}"
    )
    page.click("#cs-results button.previous")
    shows(week, limit=50, offset=0, **query)
    status = page.inner_text("#cs-status")
    assert (
        f"status {whole['meta']['week_status']}" in status and f"{whole['meta']['n_symbols']} names" in status
    )
    # A week the engine skipped shows its status as sealed.
    skipped = next(w for w in index if w["week_status"] not in ("traded", "pending"))
    page.select_option("#cs-week", skipped["date"])
    shown = shows(skipped["date"], limit=50, offset=0, **query)
    assert (
        page.inner_text("#cs-status .week-status-value")
        == shown["meta"]["week_status"]
        == skipped["week_status"]
    )
    keep_screenshot(page, tmp_path, "cross-section.png")
    check_clean(site, visit)


@pytest.mark.e2e
def test_the_download_buttons_fetch_the_signed_source_archive_and_exports(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    page.wait_for_selector("#exports table.exports")
    listing = site.api(f"/v1/alphas/{ALPHA}/exports", site.keys.full).json()["data"]
    assert cell_texts(page, "#exports table.exports tbody code") == [row["filename"] for row in listing]

    with page.expect_download() as source:
        page.click("button.download-source")
    archive = source.value
    assert archive.suggested_filename == f"{ALPHA}.zip"
    shown_sha = page.inner_text("#source-outcome .sha code")
    assert hashlib.sha256(Path(archive.path()).read_bytes()).hexdigest() == shown_sha

    export = next(row for row in listing if row["dataset"] == "rebalances")
    row = page.locator("#exports table.exports tbody tr", has_text=export["filename"])
    with page.expect_download() as parquet:
        row.locator("button.download-export").click()
    assert parquet.value.suggested_filename == export["filename"]
    assert hashlib.sha256(Path(parquet.value.path()).read_bytes()).hexdigest() == export["sha256"]
    book_export = next(row for row in listing if row["dataset"] == "trades" and row["book"] == "long_only")
    row = page.locator("#exports table.exports tbody tr", has_text=book_export["filename"])
    with page.expect_download() as trades:
        row.locator("button.download-export").click()
    assert hashlib.sha256(Path(trades.value.path()).read_bytes()).hexdigest() == book_export["sha256"]
    keep_screenshot(page, tmp_path, "downloads.png")
    # The signed URLs name this server (its public base URL), so the files came from this origin.
    for download in (archive, parquet.value, trades.value):
        assert download.url.startswith(f"{site.base}/downloads/"), download.url
    check_clean(site, visit)


@pytest.mark.e2e
def test_a_key_refused_the_alpha_sees_the_refusal_and_its_request_id(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.limited, f"#/alphas/{ALPHA}")  # alphas: Test_ only
    shown = error_box(visit.page, "main > .error")
    expected = site.api(f"/v1/alphas/{ALPHA}", site.keys.limited).json()["error"]
    assert shown["code"] == expected["code"] == "alpha_not_allowed"
    assert expected["message"] in shown["text"] and "403" in shown["text"]
    assert shown["request_id"] == visit.response_to(f"/v1/alphas/{ALPHA}").headers["x-request-id"]
    assert not visit.page.query_selector("[data-chart]")  # nothing else was asked for
    assert not [url for url in visit.requests if f"/v1/alphas/{ALPHA}/" in url]
    keep_screenshot(visit.page, tmp_path, "refused-alpha.png")
    check_clean(site, visit, allowed_statuses=(403,))


@pytest.mark.e2e
def test_a_self_service_key_signs_in_and_meets_endpoint_not_allowed(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """A new account's key may call the meta endpoints only (docs/access.md "Defaults"): it signs in
    (`/v1/me`), and the catalogue and an alpha's page show `403 endpoint_not_allowed`, not
    `alpha_not_allowed`, even for a `Test_` alpha its alpha allow-list admits."""
    visit = open_dashboard(site, tab, site.keys.self_service)
    page = visit.page
    # The server's answers are read as the dashboard received them: a request of the test's own
    # with this key would take a request of the key's 5 a second (its 403s count, issue 60) from
    # under the dashboard's pacing, and the dashboard would meet a 429 it cannot foresee.
    page.wait_for_selector("#key-id")
    me = visit.response_to("/v1/me").json()["data"]
    assert all(e.startswith("meta.") for e in me["callable_endpoints"])
    assert page.inner_text("#key-id") == me["key_id"]
    shown = error_box(page, "#catalogue-results .error")
    answer = visit.response_to("/v1/alphas")
    assert answer.status == 403 and shown["code"] == answer.json()["error"]["code"] == "endpoint_not_allowed"
    alpha = "Test_planted_factor"
    page.evaluate("(alpha) => { location.hash = `#/alphas/${alpha}`; }", alpha)
    shown = error_box(page, "#description .error")
    answer = visit.response_to(f"/v1/alphas/{alpha}")
    assert answer.status == 403 and shown["code"] == answer.json()["error"]["code"] == "endpoint_not_allowed"
    assert shown["request_id"] == answer.headers["x-request-id"]
    keep_screenshot(page, tmp_path, "self-service.png")
    check_clean(site, visit, allowed_statuses=(403,))


@pytest.mark.e2e
def test_a_key_refused_an_endpoint_sees_the_refusal_in_that_panel_only(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    alpha = "Test_planted_factor"
    visit = open_dashboard(site, tab, site.keys.limited, f"#/alphas/{alpha}")
    page = visit.page
    shown = error_box(page, "#metrics .error")
    expected = site.api(f"/v1/alphas/{alpha}/metrics", site.keys.limited).json()["error"]
    assert shown["code"] == expected["code"] == "endpoint_not_allowed"
    assert expected["message"] in shown["text"] and "performance.metrics" in shown["text"]
    assert shown["request_id"] == visit.response_to(f"/v1/alphas/{alpha}/metrics").headers["x-request-id"]
    assert error_box(page, "#signal .error")["request_id"] == shown["request_id"]
    # The panels the key may read still draw.
    assert_drawn(page, "cumulative-return")
    assert_drawn(page, "drawdown")
    page.wait_for_selector("#cs-results table.cross-section")
    page.wait_for_selector("#exports table.exports")
    assert len(page.query_selector_all(".error")) == 2
    keep_screenshot(page, tmp_path, "refused-endpoint.png")
    check_clean(site, visit, allowed_statuses=(403,))


@pytest.mark.e2e
def test_a_self_service_key_is_paced_by_its_rate_limit_headers(site: Site, tab: Any, tmp_path: Path) -> None:
    """A new key's default envelope (5 a second) is less than an alpha's page asks for at once: the
    dashboard waits for the window the `RateLimit` header names instead of meeting a 429."""
    visit = open_dashboard(site, tab, site.keys.paced, f"#/alphas/{ALPHA}")
    page = visit.page
    for chart in CHARTS:
        assert_drawn(page, chart)
    page.wait_for_selector("#cs-results table.cross-section")
    page.wait_for_selector("#exports table.exports")
    assert not page.query_selector_all(".error")
    api_calls = [r for r in visit.responses if "/v1/" in r.url]
    assert len(api_calls) > 5 and not [r.url for r in api_calls if r.status == 429]
    keep_screenshot(page, tmp_path, "paced.png")
    check_clean(site, visit)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("alpha", "said"),
    [
        # No cross-sections: the signal panels and the browser say so, in the server's words.
        ("Test_ledger_only", ["The run sealed no rebalance cross-sections; panel is null."]),
        # No written description: 404 in the description panel; the data still draws.
        ("Test_small_universe", ["alpha_description_not_found"]),
    ],
)
def test_an_alpha_with_missing_parts_shows_what_the_server_says(
    site: Site, tab: Any, tmp_path: Path, alpha: str, said: list[str]
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{alpha}")
    page = visit.page
    assert_drawn(page, "cumulative-return")
    page.wait_for_selector("#metrics table.nwt")
    page.wait_for_selector("#cs-results, #cross-section .panel-body > p")
    text = page.inner_text("main")
    for words in said:
        assert words in text, words
    if alpha == "Test_ledger_only":
        assert not page.query_selector("[data-chart='ic-weekly']")
        page.wait_for_function(
            "document.querySelector('#cross-section').innerText.includes('no rebalance weeks')"
        )
    else:
        shown = error_box(page, "#description .error")
        assert shown["request_id"] == visit.response_to(f"/v1/alphas/{alpha}").headers["x-request-id"]
    keep_screenshot(page, tmp_path, f"alpha-{alpha}.png")
    check_clean(site, visit, allowed_statuses=(404,))
