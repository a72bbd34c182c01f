"""What `alpha-results serve` prepares before uvicorn starts the workers (cli/serve.py parses the
arguments, calls `prepare`, then runs uvicorn with `cli.serve.uvicorn_options`)."""

from __future__ import annotations

import os
from pathlib import Path

from analytics.policy import PolicyError, load_policy
from serve.settings import Settings


class StartRefused(Exception):
    """A setting the server cannot start with; the message says which and why."""


def prepare(settings: Settings) -> None:
    """Checks the settings, hands them to the workers and makes the local lake's folder.

    - The checks policy file is read once here: each worker reads it again (`serve.app`), but a bad
      file is refused here first, with its message alone (StartRefused), not a worker's traceback.
    - Workers re-create the app from the environment, so the resolved settings (lake, host, port,
      workers) travel through it; without an explicit public URL, signed download URLs point at
      the address being served.
    - A local lake's folder is created; the key store's is not: a mistyped path must be an
      unavailable store, not a new empty one (`--init-demo` and the `accounts`/`keys` commands
      create it).
    """
    try:
        load_policy(settings.checks_policy_file)
    except PolicyError as exc:
        raise StartRefused(str(exc)) from exc
    os.environ["ALPHA_RESULTS_LAKE"] = settings.lake
    os.environ["ALPHA_RESULTS_HOST"] = settings.host
    os.environ["ALPHA_RESULTS_PORT"] = str(settings.port)
    os.environ["ALPHA_RESULTS_WORKERS"] = str(settings.workers)
    if "ALPHA_RESULTS_PUBLIC_BASE_URL" not in os.environ:
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        os.environ["ALPHA_RESULTS_PUBLIC_BASE_URL"] = f"http://{host}:{settings.port}"
    if "://" not in settings.lake:
        Path(settings.lake).mkdir(parents=True, exist_ok=True)
