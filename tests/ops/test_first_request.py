"""A worker is ready when it says so (issue 52): no request of any route family imports a module
after the worker reported ready, through the real `alpha-results serve` process.

The server logs a warning naming the modules a request imported after its startup
(`serve.warm.ImportWatch`); before the warm-up, the first significance imported scipy.stats (2 to
4 s on the request's path). The timings are measured by `just bench-first-request`, not here.
"""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path

import httpx
import pytest

from access import open_store
from serve.warm import ImportWatch
from tests.bench.first_request_bench import families
from tests.ops.keys import issue_key
from tests.support.serve_stack import serving

IMPORTED = "after the worker was ready"


def test_no_request_of_any_route_family_imports_a_module(demo_lake: Path, tmp_path: Path) -> None:
    # A server of its own: every route family's first request after the start is this test's (a
    # shared server's earlier requests, by other tests, would have made them already).
    keystore_url = f"sqlite:///{tmp_path}/keys.sqlite3"
    store = open_store(keystore_url)
    try:
        admin = issue_key(store, role="admin")
    finally:
        store.close()
    alphas = sorted(p.name for p in (demo_lake / "alphas").iterdir() if (p / "_current.json").exists())
    asked = {}
    with serving(demo_lake, keystore_url, workers=1) as (port, output):
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=admin.headers, timeout=60) as c:
            # Each alpha in turn (the warm-up computed one of them): a figure's first use on any build.
            for alpha, other in zip(alphas, alphas[1:] + alphas[:1], strict=True):
                for family, path in families(alpha, other).items():
                    response = c.get(path)
                    asked[f"{family} {alpha}"] = response.status_code
        answered = {k: status for k, status in asked.items() if status == 200}
        # Nearly every family answers 200 on the demo lake (a few refuse an alpha without analytics
        # tables or a ledger with a 4xx, which exercises their refusal path instead).
        assert len(answered) >= 0.8 * len(asked), {k: s for k, s in asked.items() if s != 200}
        warned = [line for line in output if IMPORTED in line]
        assert warned == [], "\n".join(warned)
        # The watch is live: the server said it warmed, with the figures of one of the lake's alphas.
        warmed = [line for line in output if "serve.warm" in line and "warmed in" in line]
        assert warmed and any(alpha in warmed[0] for alpha in alphas), output[:20]


def test_the_watch_names_a_module_a_request_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "imported_by_a_request.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    watch = ImportWatch()
    watch.check("analytics.significance")
    assert caplog.records == []
    importlib.import_module("imported_by_a_request")
    with caplog.at_level(logging.WARNING, logger="serve.warm"):
        watch.check("analytics.significance")
        watch.check("analytics.significance")  # named once
    assert [r.getMessage() for r in caplog.records] == [
        "a request (analytics.significance) imported 1 module(s) after the worker was ready: "
        "imported_by_a_request"
    ]
    monkeypatch.delitem(sys.modules, "imported_by_a_request")
