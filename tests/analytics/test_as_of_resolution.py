"""How a request's `as_of` is resolved (issue 81, item 3): in a worker thread, never on the event
loop (before, `LakeReader.at` listed and read the lake's generation files on it, and a key sending
distinct moments at 25 a second raised a bystander's /v1/health p50 from 1.9 to 47 ms), and a past
catalogue is read once and kept by generation number, so distinct moments within one generation
read its index once. The bystander's latency is measured by `just bench-as-of` (docs/benchmarks.md)."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from tests.analytics.conftest import CALLERS, serving
from tests.support.as_of_approval import ALPHA, approval


def test_a_past_generation_is_resolved_off_the_event_loop_and_read_once(
    demo_lake: Path, demo_records: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = approval(demo_records)["snapshot"]["read"]
    then = dt.datetime.fromisoformat(read["at"].replace("Z", "+00:00"))
    with serving(demo_lake, CALLERS) as api:
        lake = api.client.app.state["services"].reader
        on_loop: list[bool] = []
        catalogues: list[int] = []
        resolve, read_catalogue = lake.at, lake._catalogue_of

        def at(moment: dt.datetime) -> Any:
            try:
                asyncio.get_running_loop()
                on_loop.append(True)
            except RuntimeError:
                on_loop.append(False)
            return resolve(moment)

        def catalogue_of(generation: Any, known: Any) -> Any:
            catalogues.append(generation.number)
            return read_catalogue(generation, known)

        monkeypatch.setattr(lake, "at", at)
        monkeypatch.setattr(lake, "_catalogue_of", catalogue_of)
        answers = [
            api.ok(f"/v1/alphas/{ALPHA}/portfolio", book="long_short", limit=5, as_of=moment)
            for moment in (
                read["at"],
                (then + dt.timedelta(microseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                read["at"],
            )
        ]
    assert on_loop == [False, False, False]
    assert {a["meta"]["generation"] for a in answers} == {read["generation"]}
    assert catalogues == [read["generation"]]  # read once, then kept
