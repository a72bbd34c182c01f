"""Hostile seal text through the real `alpha-results serve` process (issue 33, audit items 17, 20
and 21), over the lake of tests/hostile_lake.py with a key from a real key store.

- A 600 KB `source_alpha_id` (a lake of an older build) once went into X-Meta of every columnar
  page: urllib, httpx and http.client all failed on the answer. Now every client reads it, its
  X-Meta within 8 KB.
- CSV over the wire: formula text is neutralised.
- `format=` percent-encoded (`?%66ormat=csv`) is CSV, with a `Link` saying so (before: JSON,
  while the parser accepted it and `Link` said `format=csv`).
- The dashboard, in headless Chromium: a right-to-left override in seal text no longer reverses
  the text shown after it (measured on the rendered page), and the alpha page's title of the old
  build's alpha holds no control.
"""

from __future__ import annotations

import csv
import http.client
import io
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from access import open_store
from schemas.wire import REBALANCE_INDEX_FIELDS
from tests.e2e.browser import chromium_or_skip
from tests.hostile_lake import HOSTILE, HYPERLINK, OLD_BUILD, build_hostile_lake
from tests.lake.conftest import Served, serving
from tests.ops.keys import issue_key

pytestmark = pytest.mark.e2e

SCORES = f"/v1/alphas/{OLD_BUILD}/scores?format=csv&limit=50"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("hostile_e2e")
    lake = build_hostile_lake(folder)
    store_url = f"sqlite:///{folder}/keys.sqlite3"
    key = (store_url, issue_key(open_store(store_url)).headers)
    with serving(str(lake), key, folder) as server:
        yield server


def url(served: Served, path: str) -> str:
    return f"http://127.0.0.1:{served.port}{path}"


def test_every_client_reads_a_page_whose_seal_text_would_overflow_a_header(served: Served) -> None:
    answers = []
    with httpx.Client(headers=served.headers, timeout=30) as client:
        response = client.get(url(served, SCORES))
        answers.append((response.status_code, response.headers["x-meta"], response.text))
    request = urllib.request.Request(url(served, SCORES), headers=served.headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        answers.append((response.status, response.headers["X-Meta"], response.read().decode()))
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        connection.request("GET", SCORES, headers=served.headers)
        response = connection.getresponse()
        answers.append((response.status, response.getheader("X-Meta"), response.read().decode()))
    finally:
        connection.close()
    for status, meta, body in answers:
        assert status == 200
        assert len(meta.encode()) <= 8192 and json.loads(meta)["omitted"] == "too_large"
        symbols = {row["symbol"] for row in csv.DictReader(io.StringIO(body, newline=""))}
        assert "'" + HYPERLINK in symbols and HYPERLINK not in symbols
    assert answers[0][2] == answers[1][2] == answers[2][2]


def test_the_catalogue_csv_neutralises_formula_names(served: Served) -> None:
    with httpx.Client(headers=served.headers, timeout=30) as client:
        body = client.get(url(served, "/v1/alphas?format=csv")).text
    names = {row["alpha_id"]: row["name"] for row in csv.DictReader(io.StringIO(body, newline=""))}
    assert names[HOSTILE] == "'" + HYPERLINK


@pytest.mark.parametrize("query", ["%66ormat=csv", "format=%63sv", "FORMAT=csv"])
def test_a_percent_encoded_format_is_read_as_the_parser_reads_it(served: Served, query: str) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        connection.request("GET", f"/v1/alphas/{HOSTILE}/rebalances?{query}&limit=2", headers=served.headers)
        response = connection.getresponse()
        body = response.read().decode()
    finally:
        connection.close()
    if query.startswith("FORMAT"):  # names are case-sensitive: an unknown parameter, a 400
        assert (
            response.status == 400
            and json.loads(body)["error"]["details"]["parameters"][0]["name"] == "FORMAT"
        )
        return
    assert response.status == 200, body
    assert response.getheader("Content-Type") == "text/csv; charset=utf-8"
    assert body.splitlines()[0] == ",".join(f'"{name}"' for name in REBALANCE_INDEX_FIELDS)
    assert "format=csv&limit=2&offset=2>" in response.getheader("Link")


# -- the dashboard ---------------------------------------------------------------------------------


# Renders "<override>evil" then " 12.5%" as two children of one paragraph with the dashboard's own
# `h`, and reports where "12.5%" stands against "evil": with the override running on, the figure is
# drawn reversed, to the left of the word.
MEASURE = """
async (path) => {
  const { h } = await import(path);
  const p = h("p", { id: "bidi-probe", style: "font: 16px monospace; white-space: pre" }, "\\u202eevil", " 12.5%");
  document.body.append(p);
  const at = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    return range.getBoundingClientRect().left;
  };
  const [word, figure] = [...p.childNodes];
  const shown = figure.textContent.indexOf("1");
  return { word: at(word, word.textContent.indexOf("e"), word.textContent.indexOf("e") + 1),
           figure: at(figure, shown, shown + 1), text: p.textContent };
}
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable, sync_playwright = chromium_or_skip()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable)
        try:
            yield launched
        finally:
            launched.close()


def test_an_override_in_seal_text_does_not_reverse_what_stands_after_it(served: Served, browser: Any) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(url(served, "/ui"), wait_until="load")
        script = page.eval_on_selector("script[type=module]", "s => s.src")
        measured = page.evaluate(MEASURE, script.rsplit("/", 1)[0] + "/dom.js")
        assert "\u202e" not in measured["text"]
        assert measured["figure"] > measured["word"], measured  # the figure stays after the word

        # The old build's alpha: its name's controls do not reach the page.
        page.fill("#api-key", served.headers["Authorization"].removeprefix("Bearer "))
        page.click("#sign-in button[type=submit]")
        page.wait_for_selector("a.alpha-link")
        page.goto(url(served, f"/ui#/alphas/{OLD_BUILD}"))
        page.wait_for_function("() => document.querySelector('main h1').textContent.includes('evil')")
        title = page.eval_on_selector("main h1", "e => e.textContent")
        assert title == "\u2068Old evil build\u2069"
    finally:
        context.close()
