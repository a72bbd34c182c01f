"""The floors of `just bench-load` and `just bench-ab --floor`: one constant-JSON route, so a route's
ratio to it measures our work alone, served three ways (issue 61, item 5):

- `litestar`: a Litestar route under uvicorn with the same options as `alpha-results serve` (the
  floor every earlier ratio in docs/benchmarks.md is against);
- `asgi`: the same bytes from a bare ASGI callable under the same uvicorn (no framework: what the
  server itself costs);
- `granian`: that bare ASGI callable under granian (one worker, its default single-threaded Rust
  runtime): what another server would cost.

    python -m tests.bench.floor_app --port 8001 [--workers 2] [--kind litestar|asgi|granian]

The uvicorn options come from `cli.serve.uvicorn_options(settings)` (the one place they live) when
that exists; otherwise from a copy of the arguments `cli.serve.run` passes to `uvicorn.run`
today. Both this launcher and the benchmark print which one was used. Whatever the options say
about the app, this launcher serves its own app (`create_app`, a factory).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from litestar import Litestar, get

FLOOR_PATH = "/floor"
APP = "tests.bench.floor_app:create_app"
RAW_APP = "tests.bench.floor_app:raw_app"
KINDS = ("litestar", "asgi", "granian")
# About the size of a small envelope; constant, so the route does no work of its own.
FLOOR_BODY = {"data": {"status": "ok", "service": "floor"}, "meta": {"request_id": "constant"}}


@get(FLOOR_PATH, sync_to_thread=False)
def floor() -> dict[str, Any]:
    return FLOOR_BODY


def create_app() -> Litestar:
    return Litestar(route_handlers=[floor], openapi_config=None, logging_config=None, debug=False)


RAW_BODY = json.dumps(FLOOR_BODY, separators=(",", ":")).encode()
RAW_START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(RAW_BODY)).encode())],
}
RAW_NOT_FOUND = {"type": "http.response.start", "status": 404, "headers": [(b"content-length", b"0")]}


async def raw_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The floor's bytes from a bare ASGI callable: the request's body is not read (a GET has none),
    the lifespan protocol is answered so that uvicorn and granian start it alike."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["path"] != FLOOR_PATH:
        await send(RAW_NOT_FOUND)
        await send({"type": "http.response.body", "body": b""})
        return
    await send(RAW_START)
    await send({"type": "http.response.body", "body": RAW_BODY})


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--kind", choices=KINDS, default="litestar")
    args = parser.parse_args()
    if args.kind == "granian":
        from granian.constants import Interfaces
        from granian.server import Server as Granian

        print(f"floor: {RAW_APP} under granian, {args.workers} worker(s), ASGI interface", flush=True)
        Granian(
            RAW_APP, address=args.host, port=args.port, interface=Interfaces.ASGI, workers=args.workers
        ).serve()
        return 0
    import uvicorn

    options, source = uvicorn_run_options(args.host, args.port, args.workers)
    if args.kind == "asgi":
        options["factory"] = False  # `raw_app` is the app itself
    target = RAW_APP if args.kind == "asgi" else APP
    print(f"floor: {target} under uvicorn, options from {source}: {describe(options)}", flush=True)
    uvicorn.run(target, **options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
