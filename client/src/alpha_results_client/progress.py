"""A progress line for long reads: off by default, on with `progress=True`.

With tqdm installed it draws a tqdm bar; otherwise it rewrites one plain line on stderr, at most
a few times a second, so a notebook or a log stays readable.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

REDRAW_SECONDS = 0.2


class Progress:
    def __init__(self, label: str, unit: str = "rows", stream: TextIO | None = None) -> None:
        self.label = label
        self.unit = unit
        self.done = 0
        self.total: int | None = None
        self._stream = stream or sys.stderr
        self._drawn_at = 0.0
        self._bar: Any = None
        try:
            from tqdm.auto import tqdm  # optional: only when installed
        except ImportError:
            return
        self._bar = tqdm(desc=label, unit=f" {unit}", file=self._stream, leave=True)

    def set_total(self, total: int | None) -> None:
        self.total = total
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def advance(self, count: int) -> None:
        self.done += count
        if self._bar is not None:
            self._bar.update(count)
            return
        now = time.monotonic()
        if now - self._drawn_at >= REDRAW_SECONDS:
            self._drawn_at = now
            self._draw()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            return
        self._draw()
        self._stream.write("\n")
        self._stream.flush()

    def _draw(self) -> None:
        of = f"/{self.total:,}" if self.total is not None else ""
        self._stream.write(f"\r{self.label}: {self.done:,}{of} {self.unit}")
        self._stream.flush()


class NoProgress(Progress):
    def __init__(self) -> None:
        self.done = 0
        self.total = None

    def set_total(self, total: int | None) -> None:
        self.total = total

    def advance(self, count: int) -> None:
        self.done += count

    def close(self) -> None:
        pass


def progress_for(enabled: bool, label: str, unit: str = "rows") -> Progress:
    return Progress(label, unit) if enabled else NoProgress()
