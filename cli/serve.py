"""`alpha-results serve`: run the API under uvicorn (optionally building the demo lake first)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.main import console_script
from core.settings import Settings

if TYPE_CHECKING:
    from pipeline.build import SealResult

DEMO_SEALS = "var/seals"
"""Where the full demo corpus is written (and built from, in the background: `FullDemo`)."""
FIRST_DEMO_SEALS = "var/seals-first"
"""Where the small demo corpus a first `serve --init-demo` answers from is written."""
FULL_DEMO_PENDING = "var/demo-full.pending"
"""Present while the full demo corpus has not been published over the small one: each `serve
--init-demo` starts its build in the background until one finishes."""
FULL_DEMO_LOG = "var/demo-full.log"
BACKGROUND_NICENESS = 10
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
        help="If the lake holds no alpha, generate and build the demo corpus; create the demo keys and print them.",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env(host=args.host, port=args.port, workers=args.workers, lake=args.lake)
    from serve.startup import StartRefused, metrics_folder, prepare

    try:
        prepare(settings)
    except StartRefused as exc:
        print(f"alpha-results serve: {exc}", file=sys.stderr)
        return 2
    # Before anything imports prometheus-client: with one worker this process is the worker.
    with metrics_folder(settings):
        full = None
        if args.init_demo:
            init_demo(settings)
            full = FullDemo.start_if_pending(settings.lake)
        import uvicorn

        try:
            with terminal_foreground():
                uvicorn.run(**uvicorn_options(settings))  # returns after a graceful SIGINT/SIGTERM shutdown
        finally:
            if full is not None:
                full.stop()
    return 0


class FullDemo:
    """The full demo corpus (80 MB of seals, a minute of building on a quiet machine), written and
    published over the small one by `alpha-results demo --size full --lake LAKE` in a process of its
    own while the server answers (issue 47: the first `./dev serve` answered after 158 to 205 s on a
    loaded machine, most of it this build). Each alpha's full build replaces its small one as it is
    published; the server serves each new build as its reader sees it. Its output goes to
    `FULL_DEMO_LOG`; when it succeeds it removes `FULL_DEMO_PENDING`. A server that stops first stops
    it: the next `serve --init-demo` starts it again."""

    def __init__(self, process: Any) -> None:
        self.process = process

    @classmethod
    def start_if_pending(cls, lake: str) -> FullDemo | None:
        import subprocess
        import threading

        if not Path(FULL_DEMO_PENDING).exists():
            return None
        log = open(FULL_DEMO_LOG, "w")
        argv = [
            sys.executable,
            "-m",
            "cli.main",
            "demo",
            "--size",
            "full",
            "--out",
            DEMO_SEALS,
            "--lake",
            lake,
        ]
        # A session of its own: a Ctrl-C meant for the server does not reach the build, which the
        # server stops itself (`stop`) after its graceful shutdown. At a lower priority: the
        # server's start and its requests come first.
        process = subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: os.nice(BACKGROUND_NICENESS),
        )
        print(
            f"The full demo corpus is being written and built in the background (pid {process.pid}, "
            f"output in {FULL_DEMO_LOG}): each alpha's full build replaces its small one as it is published.",
            flush=True,
        )

        def finished() -> None:
            if process.wait() == 0:
                Path(FULL_DEMO_PENDING).unlink(missing_ok=True)
            log.close()

        threading.Thread(target=finished, name="full-demo", daemon=True).start()
        return cls(process)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            with suppress(Exception):
                self.process.wait(timeout=10)


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
        "app": "serve.app:create_app",
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
        from pipeline.catalogue_index import rebuild

        print(f"The lake {lake} has no catalogue index (published before it): writing it ...", flush=True)
        print(f"  catalogue index generation {rebuild(lake)}", flush=True)


def record_demo_events(settings: Settings, outcomes: Sequence[SealResult], create: bool) -> None:
    """The demo build's events into the deployment's records (`pipeline.events`), the seal's
    approvals of its production alphas first (`pipeline.seal_approvals`): so the demo's
    momentum_12_1 and value_composite_legacy stand approved, with a history. `create`: the records
    database is created when absent (else a lake without one records nothing)."""
    from pipeline.events import events_step

    alphas = list(dict.fromkeys(o.target for o in outcomes if not o.target.startswith("benchmark:")))
    report = events_step(
        settings.keystore_url,
        create,
        settings.lake,
        alphas,
        outcomes,
        settings.checks_policy_file,
        settings.events_retention_days,
    )
    for line in [*report.lines, *([] if report.error is None else [f"events not recorded: {report.error}"])]:
        print(f"  {line}", flush=True)


def init_demo(settings: Settings) -> None:
    from pipeline.lake_upkeep import holds_alphas
    from serve.archives import ensure_signing_key

    if "://" not in settings.lake and ensure_signing_key(settings.signing_key_file):
        print(f"Created the source-download signing key {settings.signing_key_file} (mode 0600).", flush=True)

    if not holds_alphas(settings.lake):
        from alpha_results_seal.demo.corpus import write_corpus
        from pipeline.build import build_many

        # The small corpus first (seconds): the server answers on it while the full one is built
        # in the background (`FullDemo`).
        print(
            f"The lake {settings.lake} holds no alpha: writing the small demo corpus into {FIRST_DEMO_SEALS} "
            "(the full one follows in the background) ...",
            flush=True,
        )
        seals = write_corpus(Path(FIRST_DEMO_SEALS), size="small")
        print(f"Building {len(seals)} seals into {settings.lake} ...", flush=True)
        outcomes = build_many([str(s) for s in seals], settings.lake)
        for outcome in outcomes:
            print(f"  {outcome.line()}", flush=True)
        record_demo_events(settings, outcomes, create=True)
        Path(FULL_DEMO_PENDING).parent.mkdir(parents=True, exist_ok=True)
        Path(FULL_DEMO_PENDING).touch()
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
