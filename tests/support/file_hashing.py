"""`hashing`: the files under a lake that the reader hashes from now on (`integrity.sha256_of`
counted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from datasets import integrity


def hashing(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """The files under `root` hashed from now on. Only those: a reader another test of this worker
    left behind may still be hashing its own lake in the background."""
    hashed: list[str] = []
    real = integrity.sha256_of
    prefix = str(root)

    def counted(path: str) -> str:
        if str(path).startswith(prefix):
            hashed.append(path)
        return real(path)

    monkeypatch.setattr(integrity, "sha256_of", counted)
    return hashed
