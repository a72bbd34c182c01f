"""A raw client connection to the real server (`Peer`) that reads whole HTTP/1.1 answers, and what a
refusal in the error envelope must carry."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from typing import Any

from tests.health_wait import HANG_LIMIT

HEALTH = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    error: dict[str, Any] = field(default_factory=dict)


class Peer:
    """One raw client connection that reads whole HTTP/1.1 responses (by `content-length`, or chunked)."""

    def __init__(self, port: int, timeout: float = HANG_LIMIT, source: str = "127.0.0.1") -> None:
        """`source`: the client's address, another one of 127.0.0.0/8 to be another peer."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0))
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        self.buffer += chunk
        return bool(chunk)

    def _take(self, length: int) -> bytes:
        while len(self.buffer) < length:
            assert self._fill(), "the connection closed inside a response body"
        taken, self.buffer = self.buffer[:length], self.buffer[length:]
        return taken

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            assert self._fill(), "the connection closed inside a chunked body"
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line

    def answer(self) -> Answer:
        while b"\r\n\r\n" not in self.buffer:
            assert self._fill(), f"the connection closed before a response: {self.buffer[:200]!r}"
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while chunk := self._take(int(self._line(), 16)):
                body += chunk
                self._line()
            self._line()
        else:
            body = self._take(int(headers["content-length"]))
        answer = Answer(int(lines[0].split(" ")[1]), headers, body)
        if headers.get("content-type") == "application/json" and body.startswith(b'{"error"'):
            answer.error = json.loads(body)["error"]
            assert answer.error["request_id"] == headers["x-request-id"]
        return answer

    def closed_within(self, seconds: float = HANG_LIMIT) -> bool:
        """True when the server closes the connection (EOF or reset) within `seconds` (by default
        the hang limit: a close expected at all), reading and dropping anything else it sends."""
        self.sock.settimeout(seconds)
        try:
            while self._fill():
                pass
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        self.sock.close()


def assert_refused(answer: Answer, status: int, code: str) -> None:
    assert answer.status == status, answer
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["connection"] == "close"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.error["code"] == code, answer.error
