"""`alpha-results serve`: run the API under uvicorn (optionally building the demo lake first)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import Any

from cli.main import console_script
from core.settings import Settings

FULL_DEMO_LAKE = "var/lake-full"
FULL_DEMO_KEYSTORE = "sqlite:///var/keys-full.sqlite3"
"""Where `serve --init-demo --demo full` plays the full demo's history (and keeps its demo keys and
records) unless `--lake` or the settings name others: beside the small demo, never over it (a full
run published over a small one would restate every session it had published)."""
HTTP_PROTOCOL = "serve.http_protocol:ServiceHttpProtocol"
"""uvicorn's httptools protocol with bounded request heads and connections, refusals in the error
envelope and TCP_NODELAY on each accepted socket (serve/http_protocol.py)."""
EVENT_LOOP = "uvloop"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve")
    parser.add_argument(
        "--host", default=None, help="Bind address (default 127.0.0.1 or ALPHA_RESULTS_HOST)."
    )
    parser.add_argument("--port", type=int, default=None, help="Port (default 8000 or ALPHA_RESULTS_PORT).")
    parser.add_argument("--workers", type=int, default=None, help="Worker processes (default 1).")
    parser.add_argument("--lake", default=None, help="Lake root (default var/lake or ALPHA_RESULTS_LAKE).")
    parser.add_argument(
        "--init-demo",
        action="store_true",
        help="If the lake holds no alpha, play the demo's history into it (seals published run by run on a "
        "simulated clock, decisions recorded: docs/events.md 'The demo'); create the demo keys and print them.",
    )
    parser.add_argument(
        "--demo",
        choices=("small", "full"),
        default="small",
        help="With --init-demo: the small demo (about a minute the first time) or the full one (a year and more "
        f"of live weeks; several minutes; in {FULL_DEMO_LAKE} with its own keys in {FULL_DEMO_KEYSTORE} unless "
        "--lake or the settings say otherwise)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from serve.start_gc import started, while_starting

    # Before the imports below: this process imports much of the server (and, with one worker, is
    # the worker), so the collector's full passes wait until it is ready (serve/start_gc.py).
    while_starting()
    lake, keystore = args.lake, None
    if args.init_demo and args.demo == "full":
        lake = lake or os.environ.get("ALPHA_RESULTS_LAKE") or FULL_DEMO_LAKE
        keystore = os.environ.get("ALPHA_RESULTS_KEYSTORE_URL") or FULL_DEMO_KEYSTORE
    settings = Settings.from_env(host=args.host, port=args.port, workers=args.workers, lake=lake)
    if keystore is not None:
        settings = replace(settings, keystore_url=keystore)
    from serve.startup import StartRefused, metrics_folder, prepare

    try:
        prepare(settings)
    except StartRefused as exc:
        print(f"alpha-results serve: {exc}", file=sys.stderr)
        return 2
    # Before anything imports prometheus-client: with one worker this process is the worker.
    with metrics_folder(settings):
        if args.init_demo:
            started()  # the demo's pipeline (minutes, large tables) runs with the collector as always
            init_demo(settings, args.demo)
            while_starting()
        import uvicorn

        if settings.workers > 1:
            started()  # this process only supervises: each worker sets its own (serve.worker)
        with terminal_foreground():
            uvicorn.run(**uvicorn_options(settings))  # returns after a graceful SIGINT/SIGTERM shutdown
    return 0


@contextmanager
def terminal_foreground() -> Iterator[None]:
    """Serve as the terminal's foreground process group, so that Ctrl-C reaches the server (and its
    workers) alone: it shuts down gracefully and `serve` exits 0, quietly.

    A terminal sends Ctrl-C's SIGINT to its whole foreground group. Under `./dev serve` that group
    also holds `just` and the recipe's `sh`: `sh` dies of the signal while the server is still
    shutting down (`error: recipe 'serve' was terminated ... by signal 2`), and `just` reports any
    SIGINT it received (`error: interrupted by SIGINT`, exit 130) even when the recipe exits 0. So
    the server takes a process group of its own and makes it the foreground group, and hands the
    terminal back to the group it came from when it stops.

    Only when this process is in the foreground of a controlling terminal: without one (a service,
    CI, a pipe) or in the background (`./dev serve &`) nothing changes. While the server holds the
    terminal, Ctrl-Z (SIGTSTP) is ignored: a server stopped in a group of its own would leave
    `just` waiting and the shell without its prompt.
    """
    try:
        tty = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # no controlling terminal
        yield
        return
    home = os.getpgrp()
    previous_ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # tcsetpgrp from a background group
    previous_tstp = signal.getsignal(signal.SIGTSTP)
    moved = False
    try:
        if os.tcgetpgrp(tty) == home:
            os.setpgid(0, 0)
            moved = True
            os.tcsetpgrp(tty, os.getpgrp())
            signal.signal(signal.SIGTSTP, signal.SIG_IGN)
    except OSError:  # e.g. a session leader may not change its group: serve as we are
        if moved:
            with suppress(OSError):
                os.setpgid(0, home)
            moved = False
    try:
        yield
    finally:
        if moved:
            with suppress(OSError):
                os.tcsetpgrp(tty, home)
            signal.signal(signal.SIGTSTP, previous_tstp)
        signal.signal(signal.SIGTTOU, previous_ttou)
        os.close(tty)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of `uvicorn.run` for `settings`: the one description of the server stack.

    `run` uses it, and so does the benchmarks' floor app, so a floor is measured on the same stack.
    - `http`: uvicorn's httptools protocol with the limits of a connection (request head size and
      time, connections per worker, from the settings) and TCP_NODELAY on every accepted
      connection (serve/http_protocol.py says why: without it `--workers 2` waited ~44 ms per
      keep-alive request); `loop`: uvloop. docs/benchmarks.md has the figures that chose them.
    - one structured JSON line per request comes from `serve.access`; uvicorn's own line is off.
    - `proxy_headers` off: uvicorn would otherwise take the client address from X-Forwarded-For
      when the peer is 127.0.0.1, so any local caller could choose its address. The caller's
      address comes from `ALPHA_RESULTS_TRUSTED_PROXY_HOPS` alone (serve.auth.client_ip).
    """
    from serve.access_log import log_config

    return {
        "app": "serve.worker:create_app",
        "factory": True,
        "host": settings.host,
        "port": settings.port,
        "workers": settings.workers,
        "http": HTTP_PROTOCOL,
        "loop": EVENT_LOOP,
        "log_level": settings.log_level,
        "log_config": log_config(settings.log_level),
        "access_log": False,
        "proxy_headers": False,
    }


def keys_exist_message() -> str:
    """What a later `serve --init-demo` says: the demo tokens are not shown again, and the commands
    that make another key (README.md, "Create your own key")."""
    from access.demo import DEMO_ADMIN_EMAIL

    cli = console_script()
    return "\n".join(
        (
            "Demo keys already exist; their tokens were printed once, when they were created. Another key "
            "for the demo administrator (same key store, same working folder):",
            f"  {cli} keys create --user {DEMO_ADMIN_EMAIL} --name laptop --json   # prints its token once",
            f"  {cli} keys grant KEY_ID --endpoints all --alphas all --runs all   # KEY_ID: key_id printed above",
            f"  {cli} keys set-raw-book KEY_ID on   # raw_ books and raw fields",
            f"  {cli} keys set-limits KEY_ID --per-second 50 --per-minute 3000 --per-day 200000 --monthly unlimited"
            "   # a new key's default: 5/s",
            'An account of your own and its ceiling: README.md, "Create your own key".',
        )
    )


def index_if_absent(lake: str) -> None:
    """A lake published before the catalogue index gets one (`alpha-results lake index`)."""
    from pipeline.lake_upkeep import has_catalogue_index

    if not has_catalogue_index(lake):
        from pipeline.index_rows import rebuild

        print(f"The lake {lake} has no catalogue index (published before it): writing it ...", flush=True)
        print(f"  catalogue index generation {rebuild(lake)}", flush=True)


def init_demo(settings: Settings, size: str = "small") -> None:
    from pipeline.lake_upkeep import holds_alphas
    from serve.signing.archives import ensure_signing_key

    if "://" not in settings.lake and ensure_signing_key(settings.signing_key_file):
        print(f"Created the source-download signing key {settings.signing_key_file} (mode 0600).", flush=True)

    if not holds_alphas(settings.lake):
        from pipeline.demo_history import play

        print(
            f"The lake {settings.lake} holds no alpha: playing the {size} demo's history into it (each run "
            "published at its time on a simulated clock, the decisions recorded at theirs) ...",
            flush=True,
        )
        played = play(
            settings.lake,
            settings.keystore_url,
            size,
            report=lambda line: print(f"  {line}", flush=True),
            policy_file=settings.checks_policy_file,
        )
        print(f"  {len(played.outcomes)} runs published, {played.decisions} decisions recorded", flush=True)
    else:
        index_if_absent(settings.lake)
    from access import ensure_demo_identities, open_store
    from access.demo import DEMO_IDENTITIES, limits_text
    from cli.access import KeyAccess

    store = open_store(settings.keystore_url)
    try:
        created = ensure_demo_identities(store)
        if not created:
            print(keys_exist_message(), flush=True)
            return
        print("\nDemo API keys (shown once; keep them):", flush=True)
        for demo in DEMO_IDENTITIES:
            if demo.label not in created:
                continue
            identity = created[demo.label]
            key, account = store.get_key(identity["key_id"]), store.get_account(identity["user_id"])
            assert key is not None and account is not None  # created just now
            access = KeyAccess.of(key, account, console_script())
            print(f"  {demo.label:<7} {identity['email']:<26} {identity['token']}", flush=True)
            print(f"          can:    {demo.can}", flush=True)
            print(f"          cannot: {demo.cannot}", flush=True)
            print(f"          limits: {limits_text(demo.rate_limit)}", flush=True)
            print(f"          reads:  {'; '.join(access.reads)}", flush=True)
            for line in [*([access.note] if access.note else []), *(f"  {c}" for c in access.widen)]:
                print(f"          {line}", flush=True)
    finally:
        store.close()
    base = f"http://{settings.host}:{settings.port}"
    token = next(iter(created.values()))["token"]
    print("\nTry:", flush=True)
    print(f"  curl {base}/v1/health", flush=True)
    print(f"  curl -H 'Authorization: Bearer {token}' {base}/v1/alphas", flush=True)
    print(
        f"  curl -H 'Authorization: Bearer {token}' '{base}/v1/alphas/Test_planted_factor/equity-curve?limit=5'",
        flush=True,
    )
    print(f"  Dashboard: {base}/ui  (paste a key)", flush=True)
    print(f"  API reference: {base}/docs  (OpenAPI document: {base}/openapi.json)", flush=True)
    print("  Your own key: see README.md, 'Create your own key'.\n", flush=True)
