"""What uvicorn makes in each worker process (`cli.serve.uvicorn_options`): `serve.app`'s app, with
the collector's start thresholds (`serve.start_gc`) set before the worker imports it.

This module imports nothing heavy: `serve.app` (numpy, scipy, Litestar, the MCP SDK, ...) is
imported inside `create_app`, which uvicorn calls while the worker starts, before it takes a
request (so the import watch, `serve.warm.ImportWatch`, knows it as every other start import).
"""

from __future__ import annotations

from typing import Any

from serve.start_gc import while_starting


def create_app() -> Any:
    """`serve.app.create_app()` from the environment's settings; the app's startup puts the
    collector's thresholds back (`serve.start_gc.started`)."""
    while_starting()
    from serve.app import create_app as app_of  # after the thresholds: the start's imports are here

    return app_of()
