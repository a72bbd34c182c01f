"""The client against the real `alpha-results serve` over the small demo lake.

One server per session (a signing key, so the Parquet exports and source archives are served;
the in-process limiter, never the shared Redis) and one SQLite key store whose keys are made
with the operator CLI (`alpha-results accounts ...`, `keys ...`), run in-process because each
CLI process would cost a second of imports. Tests that break a backend start their own server
over their own copy of the lake.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CLIENT_SRC = Path(__file__).resolve().parents[2] / "client" / "src"
try:
    import alpha_results_client  # noqa: F401 - installed with `pip install -e './client[all]'`
except ImportError:  # not installed in this environment: test the sources in place
    sys.path.insert(0, str(CLIENT_SRC))

from alpha_results_client import Client, Timeouts  # noqa: E402
from tests.support.exports import made_exports  # noqa: E402
from tests.support.serve_stack import serving  # noqa: E402

ACCOUNT = "client-tests@example.com"
ROOMY = ("--per-second", "1000", "--per-minute", "100000", "--per-day", "1000000", "--monthly", "unlimited")
EXPORT_IDS = ("exports.list", "exports.download")


def cli(keystore_url: str, *args: str) -> str:
    """`alpha-results <group> --keystore URL <action> ...`, in-process; its standard output."""
    from cli.main import main

    group, *rest = args
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([group, "--keystore", keystore_url, *rest]) == 0
    return out.getvalue()


@dataclass(frozen=True)
class Key:
    key_id: str
    token: str


@dataclass
class Api:
    """A running server and the means to make keys for it."""

    base_url: str
    keystore_url: str
    lake: Path

    def key(
        self,
        name: str,
        *,
        raw: bool = False,
        endpoints: str = "all",
        alphas: str = "all",
        limits: tuple[str, ...] = ROOMY,
    ) -> Key:
        created = json.loads(
            cli(self.keystore_url, "keys", "create", "--user", ACCOUNT, "--name", name, "--json")
        )
        key_id = created["key_id"]
        grant = ("--endpoints", endpoints, "--alphas", alphas, "--runs", alphas)
        cli(self.keystore_url, "keys", "grant", key_id, *grant)
        cli(self.keystore_url, "keys", "set-raw-book", key_id, "on" if raw else "off")
        cli(self.keystore_url, "keys", "set-limits", key_id, *limits)
        return Key(key_id, created["token"])

    def client(self, key: Key, **options: Any) -> Client:
        options.setdefault("timeouts", Timeouts(read=20.0))  # a stuck request fails the test sooner
        return Client(self.base_url, token=key.token, **options)


def make_account(keystore_url: str) -> None:
    cli(keystore_url, "accounts", "create", "--email", ACCOUNT)
    ceiling = ("--endpoints", "all", "--alphas", "all", "--runs", "all", "--raw-book", "on")
    cli(keystore_url, "accounts", "set-ceiling", ACCOUNT, *ceiling)


@contextlib.contextmanager
def api_over(lake: Path, workdir: Path, **environment: str) -> Iterator[Api]:
    """`alpha-results serve` over `lake` with a key store of its own in `workdir`."""
    keystore_url = f"sqlite:///{workdir}/keys.sqlite3"
    make_account(keystore_url)
    with pytest.MonkeyPatch.context() as patch:
        for name in ("ALPHA_RESULTS_LIMITER_URL", "ALPHA_RESULTS_PUBLIC_BASE_URL", "ALPHA_RESULTS_TOKEN"):
            patch.delenv(name, raising=False)  # the in-process limiter; URLs signed for this port
        output: list[str] = []
        try:
            with serving(lake, keystore_url, workers=1, env=environment) as (port, output):
                yield Api(f"http://127.0.0.1:{port}", keystore_url, lake)
        finally:  # the server's log (access lines, warnings), for a failure's post-mortem
            (workdir / "server.log").write_text("\n".join(output))


def signing_key(workdir: Path) -> Path:
    path = workdir / "signing.key"
    path.write_bytes(os.urandom(32))
    return path


@pytest.fixture(scope="session")
def api(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    workdir = tmp_path_factory.mktemp("client_api")
    with api_over(demo_lake, workdir, ALPHA_RESULTS_SIGNING_KEY_FILE=str(signing_key(workdir))) as running:
        yield running


@pytest.fixture(scope="session")
def plain_key(api: Api) -> Key:
    return api.key("plain")


@pytest.fixture(scope="session")
def raw_key(api: Api) -> Key:
    return api.key("raw", raw=True)


@pytest.fixture(scope="session")
def json_only_key(api: Api) -> Key:
    """Every data endpoint but the exports group: whole reads must page JSON."""
    from schemas.registry import ADMIN_IDS, ALL_IDS

    ids = ",".join(i for i in ALL_IDS if i not in ADMIN_IDS and i not in EXPORT_IDS)
    return api.key("json-only", endpoints=ids)


@pytest.fixture
def plain(api: Api, plain_key: Key) -> Iterator[Client]:
    with api.client(plain_key) as client:
        yield client


@pytest.fixture
def raw(api: Api, raw_key: Key) -> Iterator[Client]:
    with api.client(raw_key) as client:
        yield client


class Recorder:
    """Counts what a client sent and got, through an httpx transport wrapped around the real one."""

    def __init__(self) -> None:
        import httpx

        self.inner = httpx.HTTPTransport()
        self.exchanges: list[tuple[str, int]] = []  # (path, status)
        self.queries: list[tuple[str, dict[str, str]]] = []  # (path, query parameters)
        self.accepts: list[tuple[str, str | None]] = []  # (path, Accept header)
        self.authorization: list[str | None] = []

    def transport(self) -> Any:
        import httpx

        recorder = self

        class Recording(httpx.BaseTransport):
            def handle_request(self, request: httpx.Request) -> httpx.Response:
                recorder.authorization.append(request.headers.get("authorization"))
                response = recorder.inner.handle_request(request)
                recorder.exchanges.append((request.url.path, response.status_code))
                recorder.queries.append((request.url.path, dict(request.url.params)))
                recorder.accepts.append((request.url.path, request.headers.get("accept")))
                return response

            def close(self) -> None:
                recorder.inner.close()

        return Recording()

    def statuses(self, path_part: str = "") -> list[int]:
        return [status for path, status in self.exchanges if path_part in path]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


LakeFile = Callable[..., Path]


@pytest.fixture(scope="session")
def lake_export(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> LakeFile:
    """The path of an export file for the build each alpha serves now, made from the build's
    serving files as the server makes it (no build stores one: pipeline 2.13.0) and checked against
    the size and SHA-256 the publish recorded (`tests.support.exports.made_exports`): independent
    of the client and of the server's paging."""
    folder = tmp_path_factory.mktemp("lake-exports")

    def path(alpha: str, dataset: str, book: str | None = None, raw: bool = False) -> Path:
        pointer = json.loads((demo_lake / "alphas" / alpha / "_current.json").read_text())
        name = dataset + (f".{book}" if book else "") + (".raw" if raw else "") + ".parquet"
        found = folder / alpha / name
        if not found.exists():
            made = made_exports(demo_lake / "alphas" / alpha / "builds" / pointer["build_id"])
            found.parent.mkdir(exist_ok=True)
            found.write_bytes(made[f"exports/{name}"])
        return found

    return path
