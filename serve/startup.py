"""What `alpha-results serve` prepares before uvicorn starts the workers (cli/serve.py parses the
arguments, calls `prepare`, then runs uvicorn with `cli.serve.uvicorn_options`)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analytics.policy import PolicyError, load_policy
from core.settings import Settings
from serve.scrape_token import TokenFileRefused, read_scrape_token

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""Where prometheus-client's multiprocess mode keeps each worker's values (serve/prometheus.py)."""


class StartRefused(Exception):
    """A setting the server cannot start with; the message says which and why."""


def prepare(settings: Settings) -> None:
    """Checks the settings, hands them to the workers and makes the local lake's folder.

    - The checks policy file is read once here: each worker reads it again (`serve.app`), but a bad
      file is refused here first, with its message alone (StartRefused), not a worker's traceback.
    - Workers re-create the app from the environment, so the resolved settings (lake, key store,
      host, port, workers) travel through it; without an explicit public URL, signed download URLs
      point at the address being served.
    - A local lake's folder is created; the key store's is not: a mistyped path must be an
      unavailable store, not a new empty one (`--init-demo` and the `accounts`/`keys` commands
      create it).
    - The metrics' token file, when named, is read here first for the same reason as the policy.
    - What one worker keeps in its memory cannot serve several (docs/access.md): the built-in
      authorization server, and dashboard sessions sealed by a key made at start.
    """
    if settings.workers > 1 and settings.oauth_issuer == "builtin":
        raise StartRefused(
            "ALPHA_RESULTS_OAUTH_ISSUER=builtin keeps its clients, codes and refresh tokens in one "
            "worker's memory: serve it with --workers 1, or name your identity provider's issuer"
        )
    if settings.workers > 1 and settings.oidc_issuer and not settings.oidc_session_key_file:
        raise StartRefused(
            "dashboard sign-in with several workers needs ALPHA_RESULTS_OIDC_SESSION_KEY_FILE (the "
            "secret every worker seals and reads sessions with)"
        )
    try:
        load_policy(settings.checks_policy_file)
    except PolicyError as exc:
        raise StartRefused(str(exc)) from exc
    if settings.prometheus and settings.prometheus_token_file:
        try:
            read_scrape_token(settings.prometheus_token_file)
        except TokenFileRefused as exc:
            raise StartRefused(str(exc)) from exc
    os.environ["ALPHA_RESULTS_LAKE"] = settings.lake
    # `serve --init-demo --demo full` resolves its own key store (var/keys-full.sqlite3): without it
    # here, the workers opened the default store, absent, and answered every key 503.
    os.environ["ALPHA_RESULTS_KEYSTORE_URL"] = settings.keystore_url
    os.environ["ALPHA_RESULTS_HOST"] = settings.host
    os.environ["ALPHA_RESULTS_PORT"] = str(settings.port)
    os.environ["ALPHA_RESULTS_WORKERS"] = str(settings.workers)
    if "ALPHA_RESULTS_PUBLIC_BASE_URL" not in os.environ:
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        os.environ["ALPHA_RESULTS_PUBLIC_BASE_URL"] = f"http://{host}:{settings.port}"
    if "://" not in settings.lake:
        Path(settings.lake).mkdir(parents=True, exist_ok=True)


METRICS_FOLDER_PREFIX = "alpha-results-metrics-"


@contextmanager
def metrics_folder(settings: Settings) -> Iterator[None]:
    """With the metrics on, the folder the server's workers record into, for as long as it runs.

    A fresh folder of its own under the system's temporary folder (`TMPDIR`), named after this
    process (`alpha-results-metrics-<pid>-<random>`) and handed to the workers through
    `PROMETHEUS_MULTIPROC_DIR` before any of them starts (and before this process imports
    prometheus-client, which reads the variable once): no figure of an earlier server, or of
    another server on the machine, is ever merged into this one's. It is removed when the server
    stops; a server that could not remove it (killed, or one worker stopped by SIGTERM, which
    uvicorn re-raises once it has shut down) leaves it to the next start on the machine, which
    removes every such folder whose process is gone. With the metrics off, nothing is made and the
    variable is left as it is.
    """
    if not settings.prometheus:
        yield
        return
    remove_stale_metrics_folders()
    folder = tempfile.mkdtemp(prefix=f"{METRICS_FOLDER_PREFIX}{os.getpid()}-")
    previous = os.environ.get(MULTIPROC_ENV)
    os.environ[MULTIPROC_ENV] = folder
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(MULTIPROC_ENV, None)
        else:
            os.environ[MULTIPROC_ENV] = previous
        shutil.rmtree(folder, ignore_errors=True)


def remove_stale_metrics_folders() -> None:
    """Remove the metrics folders of servers that are no longer running (their pid is gone)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{METRICS_FOLDER_PREFIX}*"):
        owner = folder.name.removeprefix(METRICS_FOLDER_PREFIX).partition("-")[0]
        if not owner.isdigit():
            continue
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            continue  # alive, another user's
