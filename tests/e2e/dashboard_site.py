"""The dashboard's site for the browser tests, with what the tests use to open and check its
pages (registered for tests/e2e by its conftest.py):

- `dashboard_server`: the real `alpha-results serve` over the session's demo lake with keys made
  by the operator CLI, started once per xdist worker. Tests read it: they change no key, lake or
  record of it.
- `site`: that server and headless Chromium, launched per test module. Playwright's sync API runs
  an asyncio loop in the thread while it is open, so a browser kept open past its module would
  make every later `asyncio.run` of the worker fail ("cannot be called from a running event loop").

A file whose tests need another site (their own lake, records or settings) defines its own `site`
fixture, which pytest prefers over this one in that file (tests/e2e/test_dashboard_live.py;
`serving_dashboard` starts the server of one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

import tests.support.serve_stack as serve_stack
from serve.endpoints import endpoints
from tests.e2e.browser import chromium_or_skip

TIMEOUT_MS = 120_000  # a limit that only catches a hang, on a busy machine too (tests/health_wait.py)
ALPHA = "momentum_12_1"  # the demo lake's full-size alpha: every chart has data
SCREEN = "/v1/analytics/screen"
ROOMY = ("--per-second", "1000", "--per-minute", "100000", "--per-day", "1000000", "--monthly", "unlimited")


@dataclass(frozen=True)
class Keys:
    full: str  # every endpoint, alpha and run; roomy limits
    paced: str  # the same reach with a new key's default limits (5 a second, 60 a minute)
    limited: str  # Test_ alphas only, and every data endpoint but performance.metrics
    self_service: str  # a new account's first key with the defaults: meta endpoints, Test_ alphas, 5/s
    no_screen: str  # every alpha and data endpoint but analytics.screen; roomy limits


@dataclass
class Site:
    base: str
    browser: Any
    keys: Keys

    def api(self, path: str, token: str, **params: Any) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", params=params, headers={"Authorization": f"Bearer {token}"})


@dataclass
class Visit:
    """One tab: its page, what it requested, what answered, and what its console reported."""

    page: Any
    requests: list[str] = field(default_factory=list)
    responses: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def response_to(self, path: str) -> Any:
        matches = [r for r in self.responses if httpx.URL(r.url).path == path]
        assert matches, (path, [r.url for r in self.responses])
        return matches[-1]


def cli(keystore: str, *args: str) -> Any:
    """`alpha-results <args>` on the test's key store; its JSON output."""
    env = {**os.environ, "ALPHA_RESULTS_KEYSTORE_URL": keystore}
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def make_keys(keystore: str) -> Keys:
    cli(keystore, "accounts", "create", "--email", "researcher@example.com")
    cli(
        keystore, "accounts", "set-ceiling", "researcher@example.com", "--endpoints", "all", "--alphas", "all"
    )
    cli(keystore, "accounts", "set-ceiling", "researcher@example.com", "--runs", "all")
    tokens = []
    for name in ("dashboard", "paced", "no-screen"):
        key = cli(keystore, "keys", "create", "--user", "researcher@example.com", "--name", name, "--json")
        endpoints = (
            "all" if name != "no-screen" else ",".join(e.id for e in data_endpoints("analytics.screen"))
        )
        cli(
            keystore,
            "keys",
            "grant",
            key["key_id"],
            "--endpoints",
            endpoints,
            "--alphas",
            "all",
            "--runs",
            "all",
        )
        if name != "paced":
            cli(keystore, "keys", "set-limits", key["key_id"], *ROOMY)
        tokens.append(key["token"])
    cli(keystore, "accounts", "create", "--email", "tester@example.com")
    cli(keystore, "accounts", "set-ceiling", "tester@example.com", "--endpoints", "all")  # alphas: Test_
    limited = cli(
        keystore, "keys", "create", "--user", "tester@example.com", "--name", "no-metrics", "--json"
    )
    without_metrics = ",".join(e.id for e in data_endpoints("performance.metrics"))
    cli(keystore, "keys", "grant", limited["key_id"], "--endpoints", without_metrics)
    cli(keystore, "keys", "set-limits", limited["key_id"], *ROOMY)
    cli(keystore, "accounts", "create", "--email", "newcomer@example.com")  # the self-service ceiling
    newcomer = cli(keystore, "keys", "create", "--user", "newcomer@example.com", "--name", "first", "--json")
    return Keys(
        full=tokens[0],
        paced=tokens[1],
        limited=limited["token"],
        self_service=newcomer["token"],
        no_screen=tokens[2],
    )


def data_endpoints(but: str) -> list[Any]:
    """Every endpoint a member may be granted, `but` one."""
    return [e for e in endpoints().values() if not e.admin and e.id != but]


@dataclass(frozen=True)
class Server:
    base: str
    keys: Keys


@contextmanager
def serving_dashboard(lake: Path, records: Path, folder: Path) -> Iterator[Server]:
    """`alpha-results serve` over `lake`, its records and keys in one database (a copy of
    `records`, as `serve --init-demo` keeps them), with the dashboard tests' keys and a signing key."""
    shutil.copyfile(records, folder / "keys.sqlite3")
    keystore = f"sqlite:///{folder / 'keys.sqlite3'}"
    keys = make_keys(keystore)
    signing_key = folder / "signing.key"
    signing_key.write_bytes(os.urandom(32))
    # `serve` points signed download URLs at the address it serves (its default public base URL).
    env = {"ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key)}
    with serve_stack.serving(lake, keystore, workers=1, env=env) as (port, _):
        yield Server(f"http://127.0.0.1:{port}", keys)


@pytest.fixture(scope="session")
def dashboard_server(
    demo_lake: Path, demo_records: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """The demo's dashboard server, one per worker: its records are the demo's events and the
    seal's approvals of momentum_12_1 and value_composite_legacy (the approved set: the default
    reference set, the screener's production filter)."""
    with serving_dashboard(demo_lake, demo_records, tmp_path_factory.mktemp("dashboard")) as server:
        yield server


@contextmanager
def browsing(server: Server) -> Iterator[Site]:
    """Headless Chromium over `server`, closed on leaving (see the module's docstring)."""
    executable, sync_playwright = chromium_or_skip()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable)
        try:
            yield Site(server.base, browser, server.keys)
        finally:
            browser.close()


@pytest.fixture(scope="module")
def site(dashboard_server: Server) -> Iterator[Site]:
    with browsing(dashboard_server) as site:
        yield site


@pytest.fixture
def tab(site: Site) -> Iterator[Any]:
    """A fresh browser context (its own sessionStorage); closed after the test."""
    context = site.browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    try:
        yield context
    finally:
        context.close()


def open_dashboard(site: Site, context: Any, token: str | None, fragment: str = "") -> Visit:
    """Open `/ui<fragment>` in a new tab of `context` and sign in with `token` (when given)."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    visit = Visit(page)
    page.on("request", lambda request: visit.requests.append(request.url))
    page.on("response", lambda response: visit.responses.append(response))

    def console(message: Any) -> None:
        if message.type == "error":
            # A failed load names its URL (the console's text does not): the answers that failed.
            failing = [f"{r.status} {r.url}" for r in visit.responses if r.status >= 400]
            visit.problems.append(
                f"{message.text} {failing}" if "Failed to load" in message.text else message.text
            )

    page.on("console", console)
    page.on("pageerror", lambda error: visit.problems.append(str(error)))

    def failed(request: Any) -> None:
        # The dashboard aborts the requests of a page the user leaves (api.js, AbortController): on
        # a slow machine a click can come before a page finished loading. Any other failure counts.
        if "ERR_ABORTED" not in str(request.failure):
            visit.problems.append(f"{request.url}: {request.failure}")

    page.on("requestfailed", failed)
    page.goto(f"{site.base}/ui{fragment}", wait_until="load")
    if token is not None:
        page.fill("#api-key", token)
        page.click("#sign-in button[type=submit]")
    return visit


def check_clean(site: Site, visit: Visit, allowed_statuses: tuple[int, ...] = ()) -> None:
    """Everything came from this server, and the console reported nothing but refusals expected."""
    foreign = [url for url in visit.requests if not url.startswith(f"{site.base}/")]
    assert not foreign, foreign
    expected = [f"the server responded with a status of {status}" for status in allowed_statuses]
    problems = [p for p in visit.problems if not any(e in p for e in expected)]
    assert not problems, problems


def keep_screenshot(page: Any, folder: Path, name: str) -> Path:
    path = folder / name
    page.screenshot(path=str(path), full_page=True)
    return keep_artefact(path)


def keep_artefact(path: Path) -> Path:
    """Copy a screenshot or a printed page to `$ALPHA_RESULTS_ARTEFACTS/dashboard/` when set (CI)."""
    artefacts = os.environ.get("ALPHA_RESULTS_ARTEFACTS")
    if artefacts:
        target = Path(artefacts) / "dashboard"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / path.name)
    return path


PAINTED = """
(name) => {
  const figure = document.querySelector(`[data-chart="${name}"]`);
  const canvas = figure.querySelector("canvas");
  const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
  const colours = figure.dataset.seriesColors.split(",").map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));
  const counts = colours.map(() => 0);
  let painted = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 0) continue;
    painted += 1;
    colours.forEach((c, k) => {
      const near = Math.abs(data[i] - c[0]) < 40 && Math.abs(data[i + 1] - c[1]) < 40 && Math.abs(data[i + 2] - c[2]) < 40;
      if (data[i + 3] > 200 && near) counts[k] += 1;
    });
  }
  return { width: canvas.width, height: canvas.height, painted, counts, colours: figure.dataset.seriesColors };
}
"""


def assert_drawn(page: Any, name: str) -> dict[str, Any]:
    """The chart's canvas holds at least a line's worth of pixels of each of its series' colours."""
    page.wait_for_selector(f"[data-chart='{name}'][data-drawn] canvas")
    pixels: dict[str, Any] = page.evaluate(PAINTED, name)
    assert pixels["width"] > 200 and pixels["height"] > 100, (name, pixels)
    assert all(count >= 80 for count in pixels["counts"]), (name, pixels)  # each series drew
    return pixels


def error_box(page: Any, selector: str) -> dict[str, str]:
    box = page.wait_for_selector(selector)
    return {
        "code": box.get_attribute("data-error-code"),
        "text": box.inner_text(),
        "request_id": box.query_selector(".request-id").inner_text(),
    }


def cell_texts(page: Any, selector: str) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(selector, "nodes => nodes.map(n => n.innerText.trim())")
    return texts
