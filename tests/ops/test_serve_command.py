"""`alpha-results serve` as a person runs it (`./dev serve`, or `just serve`).

- Ctrl-C stops the server quietly: the terminal's SIGINT reaches the server alone (it serves as
  the terminal's foreground process group), so `just`, which reports any SIGINT it receives as an
  error (exit 130), never sees it, and the server exits 0 after its graceful shutdown. Checked on
  a real pseudo-terminal, with a stand-in for `just` (a parent in the same process group that
  records whether it received SIGINT) and with `just` itself when it is installed.
- Without a terminal (an IDE, a supervisor), SIGINT reaches the whole process group of
  `./dev serve`: the server runs there in `./dev`'s place, not under `just`, and exits 0.
- A first `serve --init-demo` plays the small demo's history, then answers from it.
- A second `serve --init-demo` names the commands that make another key, and they work.
"""

from __future__ import annotations

import json
import os
import queue
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest

from access import authenticate, open_store
from cli.main import main as cli
from cli.serve import init_demo
from core.settings import Settings
from tests.health_wait import HANG_LIMIT

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
CTRL_C = b"\x03"

# What `just` does, in the terminal's foreground process group: run the recipe's command as a
# child, record a SIGINT instead of dying of it, and say how it ended.
PARENT = """
import signal, subprocess, sys
caught = []
signal.signal(signal.SIGINT, lambda *_: caught.append(1))
code = subprocess.call(sys.argv[1:])
print(f"parent: SIGINT received={bool(caught)} server exit={code}", flush=True)
sys.exit(130 if caught else code)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_env(lake: Path, tmp_path: Path, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "ALPHA_RESULTS_LAKE": str(lake),
        "ALPHA_RESULTS_PORT": str(port),
        "ALPHA_RESULTS_HOST": "127.0.0.1",
        "ALPHA_RESULTS_KEYSTORE_URL": f"sqlite:///{tmp_path}/keys.sqlite3",
        "ALPHA_RESULTS_SIGNING_KEY_FILE": str(tmp_path / "signing.key"),
    }


def ctrl_c_on_a_terminal(argv: list[str], env: dict[str, str], cwd: Path, port: int) -> tuple[int, str]:
    """Run `argv` with a new pseudo-terminal as its controlling terminal (a shell's foreground job),
    type Ctrl-C once the server answers; (exit status, everything the terminal showed)."""
    pid, master = os.forkpty()
    if pid == 0:  # the child: never return into pytest
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    shown = bytearray()
    status: int | None = None

    def read(seconds: float) -> None:
        nonlocal status
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and status is None:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    shown.extend(os.read(master, 65536))
                except OSError:  # the terminal's last process ended
                    pass
            done, found = os.waitpid(pid, os.WNOHANG)
            if done:
                status = found

    try:
        deadline = time.monotonic() + HANG_LIMIT
        while status is None:
            read(0.2)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, shown.decode(errors="replace")
        assert status is None, f"ended before it served: {shown.decode(errors='replace')}"
        os.write(master, CTRL_C)
        read(HANG_LIMIT)  # returns as soon as the process ended
        assert status is not None, (
            f"still running {HANG_LIMIT:g} s after Ctrl-C: {shown.decode(errors='replace')}"
        )
        if select.select([master], [], [], 0.2)[0]:
            try:
                shown.extend(os.read(master, 65536))
            except OSError:
                pass
    finally:
        if status is None:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(master)
    code = os.waitstatus_to_exitcode(status)
    return code, shown.decode(errors="replace").replace("\r", "")


@pytest.mark.skipif(not hasattr(os, "forkpty"), reason="needs a POSIX pseudo-terminal")
def test_ctrl_c_in_a_terminal_reaches_the_server_alone_and_it_exits_0(
    demo_lake: Path, tmp_path: Path
) -> None:
    port = free_port()
    server = [sys.executable, "-m", "cli.main", "serve"]
    code, shown = ctrl_c_on_a_terminal(
        [sys.executable, "-c", PARENT, *server], serve_env(demo_lake, tmp_path, port), REPO, port
    )
    assert "parent: SIGINT received=False server exit=0" in shown, shown
    assert code == 0, shown
    assert "Finished server process" in shown and "Traceback" not in shown


@pytest.mark.skipif(not hasattr(os, "forkpty"), reason="needs a POSIX pseudo-terminal")
def test_ctrl_c_on_just_serve_ends_quietly_with_status_0(demo_lake: Path, tmp_path: Path) -> None:
    """`just serve`: the real recipe, on a terminal."""
    just = shutil.which("just", path=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if just is None:
        pytest.skip("just is not installed (./dev serve installs it)")
    port = free_port()
    argv = [just, "--justfile", str(REPO / "justfile"), "--working-directory", str(tmp_path), "serve"]
    code, shown = ctrl_c_on_a_terminal(argv, serve_env(demo_lake, tmp_path, port), tmp_path, port)
    assert code == 0, shown
    assert "error" not in shown.split("Finished server process", 1)[-1], shown
    assert "Demo API keys" in shown  # the recipe's --init-demo ran (a fresh key store)


def test_sigint_to_dev_serve_without_a_terminal_ends_quietly_with_status_0(
    demo_lake: Path, tmp_path: Path
) -> None:
    """`./dev serve` started without a terminal and stopped by a SIGINT to its process group (what
    a terminal's Ctrl-C does, an IDE's stop button, `kill -INT -PGID`): under `just` it ended in
    `error: recipe `serve` was terminated ... by signal 2` (issue 33)."""
    if not (REPO / ".uv" / "bin" / "uv").exists():
        pytest.skip("./dev has not fetched uv into .uv/ here (any ./dev run does)")
    port = free_port()
    server = subprocess.Popen(
        [str(REPO / "dev"), "serve", "--port", str(port)],
        env=serve_env(demo_lake, tmp_path, port),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # no controlling terminal; its own process group, as a job's
    )
    try:
        deadline = time.monotonic() + HANG_LIMIT
        while True:
            assert server.poll() is None, server.communicate()[0]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "./dev serve did not answer /v1/health"
            time.sleep(0.2)
        os.killpg(server.pid, signal.SIGINT)
        shown, _ = server.communicate(timeout=HANG_LIMIT)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    assert server.returncode == 0, shown
    assert "Finished server process" in shown, shown
    after = shown.split("Finished server process", 1)[-1]
    assert "error" not in after and "Traceback" not in shown, shown


def test_ctrl_c_while_the_first_serve_builds_the_demo_lake_says_interrupted_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during the first `./dev serve`'s play of the demo history (pipeline/demo_history.py):
    one line and status 130 (the lake holds no alpha), not a traceback."""
    import uvicorn

    from pipeline import demo_history
    from pipeline.lake_upkeep import holds_alphas

    publishing: list[str] = []

    def interrupted(seal: str, lake: str, *args: object, **kwargs: object) -> object:
        publishing.append(seal)
        raise KeyboardInterrupt

    def started(**options: object) -> None:  # never serve in-process: fail instead of hanging
        raise AssertionError(
            f"the server started: the history's first publish was not interrupted {publishing}"
        )

    monkeypatch.setattr(demo_history, "publish_seal", interrupted)
    monkeypatch.setattr(uvicorn, "run", started)
    port = free_port()
    # Given here, so that what `serve` exports for its workers is undone after the test.
    for name, value in serve_env(tmp_path / "lake", tmp_path, port).items():
        if name.startswith("ALPHA_RESULTS_"):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("ALPHA_RESULTS_WORKERS", "1")
    monkeypatch.setenv("ALPHA_RESULTS_PUBLIC_BASE_URL", f"http://127.0.0.1:{port}")
    code = cli(["serve", "--init-demo"])
    said = capsys.readouterr()
    assert len(publishing) == 1, publishing  # interrupted while publishing the history's first run
    assert code == 130
    assert said.err == "alpha-results serve: interrupted\n"
    assert "holds no alpha: playing the small demo's history into it" in said.out
    assert "Traceback" not in said.out + said.err
    assert not holds_alphas(str(tmp_path / "lake"))


def test_the_workers_open_the_key_store_serve_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --init-demo --demo full` resolves var/keys-full.sqlite3 when no key store is set; the
    workers re-create the app from the environment, so the store travels through it as the lake
    does. Before, only the lake did: the workers opened the default var/keys.sqlite3, absent, and
    answered every key 503 upstream_unavailable."""
    from dataclasses import replace

    from cli.serve import FULL_DEMO_KEYSTORE
    from serve.startup import prepare

    for name in ("LAKE", "KEYSTORE_URL", "HOST", "PORT", "WORKERS", "PUBLIC_BASE_URL"):
        monkeypatch.setenv(f"ALPHA_RESULTS_{name}", "")  # restored after the test, as prepare sets them
        monkeypatch.delenv(f"ALPHA_RESULTS_{name}")
    settings = replace(Settings.from_env(lake=str(tmp_path / "lake")), keystore_url=FULL_DEMO_KEYSTORE)
    prepare(settings)
    assert Settings.from_env().keystore_url == FULL_DEMO_KEYSTORE
    assert Settings.from_env().lake == settings.lake


def test_a_second_init_demo_names_the_commands_that_make_another_key(
    demo_lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    keystore = f"sqlite:///{tmp_path}/keys.sqlite3"
    monkeypatch.setenv("ALPHA_RESULTS_KEYSTORE_URL", keystore)  # as serve and the CLI both read it
    settings = Settings(lake=str(demo_lake), keystore_url=keystore, signing_key_file=str(tmp_path / "key"))
    init_demo(settings)
    capsys.readouterr()
    init_demo(settings)
    said = capsys.readouterr().out
    assert "Demo keys already exist" in said and "Create your own key" in said
    commands = [
        shlex.split(line.split("#")[0])
        for line in said.splitlines()
        if line.strip().startswith("alpha-results keys ")
    ]
    assert [c[:3] for c in commands] == [
        ["alpha-results", "keys", "create"],
        ["alpha-results", "keys", "grant"],
        ["alpha-results", "keys", "set-raw-book"],
        ["alpha-results", "keys", "set-limits"],
    ]
    # Run them as printed: the first prints the token and the key_id the others name.
    assert cli(commands[0][1:]) == 0
    created = json.loads(capsys.readouterr().out)
    for command in commands[1:]:
        argv = [created["key_id"] if arg == "KEY_ID" else arg for arg in command[1:]]
        assert cli(argv) == 0, argv
    capsys.readouterr()
    store = open_store(keystore)
    try:
        caller = authenticate(store, f"Bearer {created['token']}", "127.0.0.1", datetime.now(UTC))
    finally:
        store.close()
    assert caller.may_call("signals.scores") and caller.may_read_alpha("momentum_12_1")
    assert caller.may_read_run("momentum_12_1") and caller.expose_raw_book


def test_a_first_serve_plays_the_small_demo_history_and_answers_from_its_newest_builds(
    tmp_path: Path,
) -> None:
    """The first `serve --init-demo` on an empty lake plays the small demo's history (each run
    published at its time, the decisions recorded at theirs: docs/events.md "The demo"), reports each
    step, and then answers from the builds it published last."""
    port = free_port()
    env = serve_env(tmp_path / "lake", tmp_path, port)
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--init-demo"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines = lines_of(server)
    try:
        shown = read_until(lines, "Uvicorn running on")
        assert "holds no alpha: playing the small demo's history into it" in shown, shown
        assert re.search(r"\d+ runs published, [1-9]\d* decisions recorded", shown), shown
        assert "decision   momentum_12_1 approved" in shown, shown
        # The build the history published last for momentum_12_1, as its report line names it.
        builds = re.findall(r"(?:published|republished)\s+momentum_12_1\s+build (\S+)", shown)
        assert builds, shown
        token = next(word for word in shown.split() if word.startswith("ar_live_"))  # the admin's, first
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/alphas/momentum_12_1/rebalances?limit=1",
            headers={"Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=HANG_LIMIT) as answer:
            body = json.load(answer)
        assert int(body["pagination"]["total"]) > 0, body
        assert f"@{builds[-1]}" in json.dumps(body["meta"]), (builds, body["meta"])
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=HANG_LIMIT)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert server.returncode == 0


def lines_of(process: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """What `process` prints, line by line (None at its end), read by a thread of its own: a wait for
    a line is bounded, and a pipe nobody reads never fills and blocks the process."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


def read_until(lines: queue.Queue[str | None], marker: str) -> str:
    """What was printed, up to and including the line holding `marker`; fails at the end of the output
    or when no line came for `HANG_LIMIT` seconds (the demo history reports each step as it goes)."""
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=HANG_LIMIT)
        except queue.Empty:
            raise AssertionError(f"nothing printed for {HANG_LIMIT:g} s: {''.join(seen)}") from None
        if line is None:
            raise AssertionError(f"ended before {marker!r}: {''.join(seen)}")
        seen.append(line)
        if marker in line:
            return "".join(seen)
