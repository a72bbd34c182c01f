"""`oidc_provider`: a real, certified OpenID provider (npm `oidc-provider`, tests/oidc_provider/)
on a free port, its clients standing for the people given."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.health_wait import wait_until
from tests.support.ports import free_port

PROVIDER_DIR = Path(__file__).resolve().parents[1] / "oidc_provider"


@contextmanager
def oidc_provider(people: dict[str, str] | Path, dashboard_redirect: str | None = None) -> Iterator[str]:
    """`node provider.mjs` on a free port (its packages installed by `npm ci` when absent); yields
    its issuer URL. `people`: {client id: e-mail}, or a JSON file of it that the provider reads again
    at each token. `dashboard_redirect`: the dashboard's callback, for its sign-in client."""
    if shutil.which("node") is None:
        pytest.fail("node is not installed (.ci/run installs it): the OpenID provider cannot run")
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PROVIDER_DIR, check=True, timeout=600)
    port = free_port()
    process = subprocess.Popen(
        [
            "node",
            "provider.mjs",
            str(port),
            f"@{people}" if isinstance(people, Path) else json.dumps(people),
            *([dashboard_redirect] if dashboard_redirect else []),
        ],
        cwd=PROVIDER_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    issuer = f"http://127.0.0.1:{port}"
    try:

        def answers() -> bool:
            try:
                return httpx.get(issuer + "/.well-known/openid-configuration", timeout=5).status_code == 200
            except httpx.HTTPError:
                return process.poll() is not None  # exited: fail below with its output

        wait_until(answers, "the OpenID provider answering its discovery")
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        yield issuer
    finally:
        process.terminate()
        process.wait(timeout=15)
