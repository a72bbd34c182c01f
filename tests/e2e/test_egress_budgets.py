"""Egress budgets (issue 60, item 6; serve/limits/egress.py): a key harvesting an alpha's history
stops at its day's budget of rows or bytes on every surface, through the real `alpha-results serve`:
collection pages, exports (the signed download of the Parquet file), Delta Sharing (its query and
file) and MCP (a tool's pages). Before, a key capped at 5,000 requests a day could take a whole
alpha's history through any of them. Each surface is harvested by a key of its own; an
administrator's key has no budget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from access import open_store
from tests.ops.keys import DATA_GRANTS, ROOMY, IssuedKey, issue_key
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"
ROWS = 120
BYTES = 300_000
ACCOUNT_ROWS = 200  # the pooled rows budget of an account: more than one key's, less than two keys' together
PAGE = 50
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


@dataclass
class Budgeted:
    base: str
    keystore_url: str

    def key(self, role: str = "member") -> IssuedKey:
        store = open_store(self.keystore_url)
        try:
            return issue_key(store, role=role)
        finally:
            store.close()

    def another_key(self, of: IssuedKey) -> IssuedKey:
        """A second key of the account of `of`."""
        store = open_store(self.keystore_url)
        try:
            key, token = store.create_key(of.user_id, "second key", grants=DATA_GRANTS, rate_limit=ROOMY)
            return IssuedKey(key.key_id, token, of.user_id)
        finally:
            store.close()

    def get(self, key: IssuedKey, path: str, **params: Any) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", params=params, headers=key.headers, timeout=60)


@pytest.fixture(scope="module")
def budgeted(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Budgeted]:
    folder = tmp_path_factory.mktemp("egress")
    signing_key = folder / "signing.key"
    signing_key.write_bytes(b"e" * 32)
    keystore_url = f"sqlite:///{folder}/keys.sqlite3"
    open_store(keystore_url).close()
    env = {
        "ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key),
        "ALPHA_RESULTS_EGRESS_ROWS_PER_DAY": str(ROWS),
        "ALPHA_RESULTS_EGRESS_BYTES_PER_DAY": str(BYTES),
        "ALPHA_RESULTS_EGRESS_ACCOUNT_ROWS_PER_DAY": str(ACCOUNT_ROWS),
    }
    with serving(demo_lake, keystore_url, workers=1, env=env) as (port, _):
        yield Budgeted(f"http://127.0.0.1:{port}", keystore_url)


def assert_budget_refusal(answer: httpx.Response | dict[str, Any], budget: str) -> None:
    error = answer["error"] if isinstance(answer, dict) else answer.json()["error"]
    assert error["code"] == "egress_budget_exceeded", error
    assert error["details"]["budget"] == budget and error["details"]["retry_after"] > 0
    if not isinstance(answer, dict):
        assert answer.status_code == 429 and int(answer.headers["retry-after"]) > 0


def test_pages_stop_at_the_rows_budget(budgeted: Budgeted) -> None:
    key = budgeted.key()
    taken = 0
    for page in range(20):
        answer = budgeted.get(
            key, f"/v1/alphas/{ALPHA}/portfolio", book="long_short", limit=PAGE, offset=page * PAGE
        )
        if answer.status_code != 200:
            break
        taken += len(answer.json()["data"])
    else:
        raise AssertionError(f"20 pages of {PAGE} answered past a budget of {ROWS} rows ({taken} rows)")
    assert_budget_refusal(answer, "rows")
    assert ROWS <= taken < ROWS + PAGE  # one page may pass it, no more
    # Another representation and another route are the same key's budget.
    assert (
        budgeted.get(key, f"/v1/alphas/{ALPHA}/portfolio", book="long_short", format="csv").status_code == 429
    )
    # An administrator's key has none.
    admin = budgeted.key("admin")
    for page in range(5):
        answer = budgeted.get(
            admin, f"/v1/alphas/{ALPHA}/portfolio", book="long_short", limit=PAGE, offset=page * PAGE
        )
        assert answer.status_code == 200, answer.text


def test_an_accounts_keys_stop_at_its_pooled_rows_budget(budgeted: Budgeted) -> None:
    """Issue 80, item 3: two keys of one account share its pooled budget. The first key stops at
    its own (the key's refusal); the second, with its own budget nearly whole, stops at the
    account's (`details.envelope` `account`)."""
    first = budgeted.key()
    second = budgeted.another_key(first)
    path = f"/v1/alphas/{ALPHA}/portfolio"

    def harvest(key: IssuedKey) -> tuple[int, httpx.Response]:
        taken = 0
        for page in range(20):
            answer = budgeted.get(key, path, book="long_short", limit=PAGE, offset=page * PAGE)
            if answer.status_code != 200:
                return taken, answer
            taken += len(answer.json()["data"])
        raise AssertionError(f"20 pages of {PAGE} answered past a budget ({taken} rows)")

    by_first, refusal = harvest(first)
    assert_budget_refusal(refusal, "rows")
    assert "envelope" not in refusal.json()["error"]["details"]  # the key's own budget
    by_second, refusal = harvest(second)
    assert_budget_refusal(refusal, "rows")
    error = refusal.json()["error"]
    assert error["details"]["envelope"] == "account" and error["details"]["limit"] == ACCOUNT_ROWS
    assert by_second < ROWS  # the second key's own budget was not what stopped it
    assert ACCOUNT_ROWS <= by_first + by_second < ACCOUNT_ROWS + PAGE


def test_exports_stop_at_the_bytes_budget(budgeted: Budgeted) -> None:
    key = budgeted.key()
    sent = 0
    for _ in range(50):
        signed = budgeted.get(key, f"/v1/alphas/{ALPHA}/exports/decisions")
        if signed.status_code != 200:
            assert_budget_refusal(signed, "bytes")
            break
        sent += len(signed.content)
        download = httpx.get(signed.json()["data"]["url"], timeout=60)
        if download.status_code != 200:
            # Refused before a byte of the file is sent: it would pass the budget.
            assert_budget_refusal(download, "bytes")
            assert sent + signed.json()["data"]["size_bytes"] > BYTES
            break
        sent += len(download.content)
    else:
        raise AssertionError("50 downloads of the file passed a budget of {BYTES} bytes")
    assert sent <= BYTES + 10_000  # the files sent fitted; the small signed-URL answers may pass it


def test_delta_sharing_stops_at_the_bytes_budget(budgeted: Budgeted) -> None:
    key = budgeted.key()
    path = f"/delta-sharing/shares/alpha_results/schemas/{ALPHA}/tables/decisions/query"
    for _ in range(50):
        query = httpx.post(f"{budgeted.base}{path}", json={}, headers=key.headers, timeout=60)
        if query.status_code != 200:
            assert query.status_code == 429
            assert query.json()["errorCode"] == "EGRESS_BUDGET_EXCEEDED"
            break
        url = json.loads(query.text.splitlines()[2])["file"]["url"]
        fetched = httpx.get(url, timeout=60)
        if fetched.status_code != 200:
            assert_budget_refusal(fetched, "bytes")
            break
    else:
        raise AssertionError(f"50 Delta Sharing reads of the table passed a budget of {BYTES} bytes")


def test_mcp_tool_calls_stop_at_the_budget(budgeted: Budgeted) -> None:
    key = budgeted.key()
    headers = {**key.headers, **MCP_HEADERS, "Content-Type": "application/json"}
    taken = 0
    for page in range(20):
        call = {
            "jsonrpc": "2.0",
            "id": page,
            "method": "tools/call",
            "params": {
                "name": "signals.scores",
                "arguments": {"alpha": ALPHA, "limit": PAGE, "offset": page * PAGE},
            },
        }
        answer = httpx.post(f"{budgeted.base}/mcp", json=call, headers=headers, timeout=60)
        assert answer.status_code == 200, answer.text
        result = answer.json()["result"]
        if result.get("isError"):
            assert_budget_refusal(result["structuredContent"], "rows")
            break
        taken += len(result["structuredContent"]["data"])
    else:
        raise AssertionError(f"20 tool pages of {PAGE} passed a budget of {ROWS} rows")
    assert ROWS <= taken < ROWS + PAGE


def test_every_byte_an_mcp_answer_sends_counts_once(budgeted: Budgeted) -> None:
    """Issue 81, item 8 (b): an MCP answer holds the route's JSON twice (`structuredContent` and the
    text copy the spec asks for), about 2.4 times the route's bytes, and only the route's were
    counted: a key took 2.4 times its bytes budget through MCP. Each byte sent counts now, once.
    A tool answering no rows (`performance.metrics`), so that the bytes budget is the one reached."""
    key = budgeted.key()
    headers = {**key.headers, **MCP_HEADERS, "Content-Type": "application/json"}
    sent, sizes = 0, []
    call = {"name": "performance.metrics", "arguments": {"alpha": ALPHA, "doc": True, "panel": True}}
    for n in range(200):
        message = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call}
        answer = httpx.post(f"{budgeted.base}/mcp", json=message, headers=headers, timeout=60)
        assert answer.status_code == 200, answer.text
        result = answer.json()["result"]
        if result.get("isError"):
            assert_budget_refusal(result["structuredContent"], "bytes")
            break
        route = len(json.dumps(result["structuredContent"], separators=(",", ":")))
        assert len(answer.content) > 2 * route  # the JSON twice, as the spec asks: no more copies
        assert len(answer.content) < 3 * route
        sent += len(answer.content)
        sizes.append(len(answer.content))
    else:
        raise AssertionError(f"200 MCP answers passed a budget of {BYTES} bytes")
    # What was sent before the refusal fits the budget, but for the one answer that passed it.
    assert BYTES <= sent <= BYTES + max(sizes), (sent, sizes[:3])
