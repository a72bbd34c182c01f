"""The floor of `just bench-load`: one constant-JSON Litestar route under uvicorn, run with the
same uvicorn options as `alpha-results serve`, so a route's ratio to it measures our work alone.

    python -m tests.bench.floor_app --port 8001 [--workers 2]

The options come from `cli.serve.uvicorn_options(settings)` (the one place they live) when
that exists; otherwise from a copy of the arguments `cli.serve.run` passes to `uvicorn.run`
today. Both this launcher and the benchmark print which one was used. Whatever the options say
about the app, this launcher serves its own app (`create_app`, a factory).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from litestar import Litestar, get

FLOOR_PATH = "/floor"
APP = "tests.bench.floor_app:create_app"
# About the size of a small envelope; constant, so the route does no work of its own.
FLOOR_BODY = {"data": {"status": "ok", "service": "floor"}, "meta": {"request_id": "constant"}}


@get(FLOOR_PATH, sync_to_thread=False)
def floor() -> dict[str, Any]:
    return FLOOR_BODY


def create_app() -> Litestar:
    return Litestar(route_handlers=[floor], openapi_config=None, logging_config=None, debug=False)


def uvicorn_run_options(host: str, port: int, workers: int) -> tuple[dict[str, Any], str]:
    """The keyword arguments `alpha-results serve` hands to `uvicorn.run`, and where they came from."""
    from cli import serve as commands
    from core.settings import Settings

    settings = Settings.from_env(host=host, port=port, workers=workers)
    shared = getattr(commands, "uvicorn_options", None)
    if callable(shared):
        options = dict(shared(settings))
        source = "cli.serve.uvicorn_options(settings)"
    else:
        from serve.access_log import log_config

        # The arguments of `uvicorn.run` in cli/serve.py before uvicorn_options existed.
        options = {
            "factory": True,
            "host": settings.host,
            "port": settings.port,
            "workers": settings.workers,
            "log_level": settings.log_level,
            "log_config": log_config(settings.log_level),
            "access_log": False,
        }
        source = "fallback: the uvicorn.run arguments of cli/serve.py (no uvicorn_options there)"
    # The app is ours; where it listens and how many workers run are the benchmark's choice.
    options.pop("app", None)
    options.update(factory=True, host=host, port=port, workers=workers)
    return options, source


def describe(options: dict[str, Any]) -> str:
    shown = {k: ("{...}" if k == "log_config" else v) for k, v in sorted(options.items())}
    return ", ".join(f"{k}={v!r}" for k, v in shown.items())


def main() -> int:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    options, source = uvicorn_run_options(args.host, args.port, args.workers)
    print(f"floor uvicorn options from {source}: {describe(options)}", flush=True)
    uvicorn.run(APP, **options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
