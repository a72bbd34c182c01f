"""The real `alpha-results serve` process: two workers answer keep-alive requests without a
Nagle stall, and health answers from its monitor while the key store file is missing."""

from __future__ import annotations

import ctypes
import http.client
import os
import socket
from pathlib import Path

import pytest

from tests.health_wait import READY_LINE, wait_until
from tests.shared_servers import SharedServer
from tests.support.serve_stack import serving

pytestmark = pytest.mark.e2e


SYS_PIDFD_GETFD = 438
"""pidfd_getfd(2): the same number on every Linux architecture (5.6 and later)."""


def server_side_nodelay(pids: set[int], client_ports: set[int]) -> dict[int, tuple[int, int]]:
    """client port -> (worker pid, TCP_NODELAY) of each worker's socket connected to one of
    `client_ports`, read from a copy of the worker's descriptor (pidfd_getfd: the workers are
    this process's descendants, which it may inspect)."""
    libc = ctypes.CDLL(None, use_errno=True)
    found: dict[int, tuple[int, int]] = {}
    for pid in pids:
        pidfd = os.pidfd_open(pid)
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if not os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                        continue
                except FileNotFoundError:
                    continue  # closed meanwhile
                copy = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(fd), 0)
                if copy < 0:
                    raise OSError(ctypes.get_errno(), f"pidfd_getfd of fd {fd} of worker {pid}")
                with socket.socket(fileno=copy) as sock:
                    if sock.family != socket.AF_INET or sock.type != socket.SOCK_STREAM:
                        continue
                    try:
                        peer_port = sock.getpeername()[1]
                    except OSError:
                        continue  # the listening socket
                    if peer_port in client_ports:
                        found[peer_port] = (pid, sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        finally:
            os.close(pidfd)
    return found


def test_two_workers_answer_keep_alive_requests_without_a_nagle_stall(two_workers: SharedServer) -> None:
    """The Nagle fault, checked where it lives instead of timed: a response leaves as two writes,
    and without TCP_NODELAY on the accepted socket the body waited for the client's delayed ACK of
    the head (~40 ms per keep-alive request, serve/http_protocol.py). Every connection each of the
    two workers accepted has TCP_NODELAY, and keeps answering on one connection."""
    port, output = two_workers.port, two_workers.output
    workers = {int(match.group(1)) for line in output if (match := READY_LINE.search(line))}
    assert len(workers) == 2, output
    connections: list[http.client.HTTPConnection] = []

    def both_workers_hold_one() -> dict[int, tuple[int, int]]:
        """Another keep-alive connection (held open, so the next may go to the other worker),
        answered several times; the sockets found once both workers hold one of them."""
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connections.append(connection)
        for _ in range(5):
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            response.read()
            assert response.status == 200
        found = server_side_nodelay(workers, {c.sock.getsockname()[1] for c in connections})
        return found if {pid for pid, _ in found.values()} == workers else {}

    held = wait_until(both_workers_hold_one, "a connection held by each of the two workers")
    ports = {connection.sock.getsockname()[1] for connection in connections}
    for connection in connections:
        connection.close()
    assert set(held) == ports, (held, ports)  # every connection found at its worker
    assert {nodelay for _, nodelay in held.values()} == {1}, held


def test_health_stays_up_while_the_sqlite_key_store_file_is_missing(demo_lake: Path, tmp_path: Path) -> None:
    missing = tmp_path / "keys.sqlite3"
    with serving(demo_lake, f"sqlite:///{missing}", workers=1) as (port, output):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        for _ in range(50):
            connection.request("GET", "/v1/health")
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200
            assert b'"status":"degraded"' in body and b'"down":["keystore"]' in body
        connection.close()
    assert not missing.exists()
    # Logged once when the monitor first saw it, not once per call, and without a traceback.
    assert sum("health: keystore is down" in line for line in output) == 1, output
    assert not any("Traceback" in line for line in output), output


def test_the_server_lines_are_logged_under_serve_at_their_own_level(shared_server: SharedServer) -> None:
    output = list(shared_server.output)  # its start-up lines, then access lines
    lines = [line for line in output if " serve.server " in line]
    assert any(" INFO serve.server [" in line and "Started server process" in line for line in lines), output
    assert any(" INFO serve.server [" in line and "Application startup complete" in line for line in lines)
    assert not [line for line in output if "uvicorn" in line.split("]")[0]], output
