"""`/docs` and `/` in headless Chromium, served by the real `alpha-results serve` process.

Playwright drives Debian's `chromium` (.ci/run installs it; Playwright's own browser download is
never used). The rendered reference must list every operation of `/openapi.json` (its path and
summary in the page's text), answer "Try it out" on `/v1/health` from this server, fetch nothing
from another origin and log no error; a screenshot of the whole page is saved in the test's tmp
folder. Without chromium (or Playwright) the tests skip,
and fail under ALPHA_RESULTS_REQUIRE_BACKENDS=1.
"""

from __future__ import annotations

import json
import struct
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser import chromium_or_skip
from tests.shared_servers import SharedServer

pytestmark = pytest.mark.e2e

RENDER_TIMEOUT_MS = 120_000  # a limit that only catches a hang, on a busy machine too (tests/health_wait.py)
ZERO_WIDTH_SPACE = "\u200b"  # Swagger UI puts one after each `/` of a path, to let it wrap


@dataclass
class Browser:
    base: str
    browser: Any
    shots: Path


@dataclass
class Visit:
    """One page load: its text, every URL it requested, and what its console reported."""

    text: str
    requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def chromium(shared_server: SharedServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    executable, sync_playwright = chromium_or_skip()
    with sync_playwright() as playwright:  # the pages read no lake: the shared server's will do
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            yield Browser(
                f"http://127.0.0.1:{shared_server.port}", browser, tmp_path_factory.mktemp("screenshots")
            )
        finally:
            browser.close()


def visit(chromium: Browser, path: str, ready: str, screenshot: str) -> tuple[Visit, Any]:
    page = chromium.browser.new_page(viewport={"width": 1280, "height": 900})
    seen = Visit(text="")
    page.on("request", lambda request: seen.requests.append(request.url))
    page.on("console", lambda message: message.type == "error" and seen.problems.append(message.text))
    page.on("pageerror", lambda error: seen.problems.append(str(error)))
    page.goto(f"{chromium.base}{path}", wait_until="load")
    page.wait_for_selector(ready, timeout=RENDER_TIMEOUT_MS)
    seen.text = page.inner_text("body").replace(ZERO_WIDTH_SPACE, "")
    page.screenshot(path=str(chromium.shots / screenshot), full_page=True)
    return seen, page


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def test_docs_renders_every_operation_of_the_served_document(chromium: Browser) -> None:
    with urllib.request.urlopen(f"{chromium.base}/openapi.json", timeout=60) as response:
        document = json.load(response)
    operations = [(path, op) for path, item in document["paths"].items() for op in item.values()]
    seen, page = visit(chromium, "/docs", ".opblock", "docs.png")
    try:
        page.wait_for_function(
            f"document.querySelectorAll('.opblock').length >= {len(operations)}", timeout=RENDER_TIMEOUT_MS
        )
        rendered_paths = page.eval_on_selector_all(
            ".opblock-summary-path", "nodes => nodes.map(n => n.getAttribute('data-path'))"
        )
        # Interactive: "Try it out" on the public health route calls this server from the page.
        health = page.locator(".opblock", has=page.locator("[data-path='/v1/health']"))
        health.locator(".opblock-summary").click()
        health.locator("button.try-out__btn").click()
        health.locator("button.execute").click()
        answer = health.locator(".live-responses-table tbody .response-col_status").first
        answer.wait_for(timeout=RENDER_TIMEOUT_MS)
        tried = (answer.inner_text().strip(), health.locator(".live-responses-table").inner_text())
    finally:
        page.close()
    assert tried[0] == "200" and '"registry_version"' in tried[1], tried
    assert sorted(rendered_paths) == sorted(path for path, _ in operations)
    missing = [
        (path, op["summary"])
        for path, op in operations
        if path not in seen.text or op["summary"] not in seen.text
    ]
    assert not missing, f"not in the rendered reference: {missing}"
    assert document["info"]["title"] in seen.text
    # Offline: every request went to this server, and nothing failed or was refused on the way.
    assert seen.requests and all(url.startswith(f"{chromium.base}/") for url in seen.requests), seen.requests
    assert not seen.problems, seen.problems
    width, height = png_size(chromium.shots / "docs.png")
    assert width == 1280 and height > 900  # the whole page: every operation, below the fold too


@pytest.mark.parametrize("path", ["/docs", "/schema"])
def test_the_reference_runs_without_inline_scripts(chromium: Browser, path: str) -> None:
    """The policy allows scripts and styles of this origin only; the page still renders, and the
    browser reports nothing it refused (a refused inline script or style is a console error)."""
    with urllib.request.urlopen(f"{chromium.base}{path}", timeout=60) as response:
        policy = response.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == directives["style-src"] == "'self'", policy
    seen, page = visit(chromium, path, ".opblock", f"{path.strip('/')}-policy.png")
    try:
        assert page.locator(".opblock").count() > 10
    finally:
        page.close()
    assert all(url.startswith(f"{chromium.base}/") for url in seen.requests), seen.requests
    assert not seen.problems, seen.problems


def test_landing_page_renders_and_its_links_answer(chromium: Browser) -> None:
    seen, page = visit(chromium, "/", "a[href='/docs']", "landing.png")
    try:
        links = page.eval_on_selector_all("a", "nodes => nodes.map(n => n.getAttribute('href'))")
    finally:
        page.close()
    assert links == ["/docs", "/openapi.json", "/v1/health", "/ui"]
    for link in links:
        with urllib.request.urlopen(f"{chromium.base}{link}", timeout=60) as response:
            assert response.status == 200, link
    assert "Dashboard" in seen.text
    assert all(url.startswith(f"{chromium.base}/") for url in seen.requests), seen.requests
    assert not seen.problems, seen.problems
    assert png_size(chromium.shots / "landing.png")[0] == 1280
