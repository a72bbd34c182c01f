"""`Cli`: the operator CLI, run in-process through `cli.main.main` on one key store."""

from __future__ import annotations

import json

import pytest

from cli.main import main


class Cli:
    def __init__(self, store_url: str, capsys: pytest.CaptureFixture[str]) -> None:
        self.store_url, self.capsys = store_url, capsys
        self.outputs: list[str] = []

    def run(self, *argv: str, expect: int = 0) -> str:
        group, *rest = argv
        code = main([group, "--keystore", self.store_url, *rest])
        captured = self.capsys.readouterr()
        assert code == expect, captured.err
        self.outputs += [captured.out, captured.err]
        return captured.out

    def json(self, *argv: str) -> object:
        return json.loads(self.run(*argv))
