"""The headless Chromium the browser tests drive (Debian's package, through Playwright)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import backend_unavailable

CHROMIUM = "/usr/bin/chromium"


def chromium_or_skip() -> tuple[str, Any]:
    """Chromium's executable and Playwright's `sync_playwright`; a missing backend otherwise (a
    failure where backends are required, as in CI, else a skip)."""
    executable = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if executable is None:
        backend_unavailable("chromium is not installed (apt-get install chromium; .ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        backend_unavailable("playwright is not installed (the project's dev extra)")
    assert executable is not None
    return executable, sync_playwright
