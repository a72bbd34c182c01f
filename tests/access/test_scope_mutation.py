"""Scope to the last count (issue 60, item 4): for a key whose allow-lists name one alpha, no answer
depends on an alpha it may not read. The audit's probe, in the suite: every route the equality
suite asks (its requests for a full-access caller, a few per endpoint, re-asked by the narrow key)
is answered, then every other alpha's data is replaced (their seals rebuilt from another seed of
the demo engine, with their events) and their records changed (approvals and a retirement), and
every answer's status, bytes (ids and times of the request aside) and ETag must be what they were.
Before, the promotion preview's `others_not_shown` followed unreadable approvals (1 -> 2 -> 1).
"""

from __future__ import annotations

import json
import random
import shutil
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from cli.main import main as cli
from core.context import AllowList
from core.settings import Settings
from serve.app import create_app
from serve.records import RecordsSource
from tests.callers import authenticator_for, make_caller
from tests.conftest import linked_copy, records_of
from tests.equality.record import normalise
from tests.equality.requests import endpoint_of, generate

ALPHA = "momentum_12_1"
NARROW = "narrow"
CALLERS = {NARROW: make_caller(alphas=AllowList.of_ids([ALPHA]), runs=AllowList.of_ids([ALPHA]))}
PER_ENDPOINT = 4
"""Requests asked of each endpoint (the first and a seeded draw of the rest): every route, lean."""


@contextmanager
def app_over(lake: Path, records_url: str) -> Iterator[TestClient[Any]]:
    """A fresh app (nothing kept from an earlier one) over the lake and the records."""
    settings = Settings(lake=str(lake), environment="test")
    app = create_app(
        settings, authenticate=authenticator_for(CALLERS), limiter=None, records=RecordsSource(records_url)
    )
    with TestClient(app=app) as client:
        yield client


def asked(client: TestClient[Any], paths: list[str]) -> dict[str, tuple[int, Any, str | None]]:
    seen = {}
    for path in paths:
        response = client.get(path, headers={"Authorization": f"Bearer {NARROW}"})
        try:
            body: Any = normalise(response.json())
        except json.JSONDecodeError:
            body = response.content  # a CSV or Arrow page: its bytes
        seen[path] = (response.status_code, body, response.headers.get("etag"))
    return seen


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two answers differ (the assertion's message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in dict.fromkeys([*a, *b]) for d in diff(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in diff(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {str(a)[:80]} -> {str(b)[:80]}"]


def alpha_of(path: str) -> str | None:
    """The alpha a `/v1/alphas/{alpha}/...` path is about, None for any other."""
    parts = path.split("?", 1)[0].split("/")
    return parts[3] if len(parts) > 3 and parts[1:3] == ["v1", "alphas"] else None


def sampled_paths(lake: Path) -> list[str]:
    """The equality suite's requests of its full-access caller, at most `PER_ENDPOINT` of each
    endpoint: paths about the key's alpha, about others (a 403 that must not move either) and
    over the catalogue."""
    by_endpoint: dict[str | None, list[str]] = defaultdict(list)
    for request in generate(lake):
        if request.token == "plain":
            by_endpoint[endpoint_of(request.path)].append(request.path)
    rng = random.Random(60)
    paths: list[str] = []
    for endpoint in sorted(by_endpoint, key=str):
        asked_here = by_endpoint[endpoint]
        about = [alpha_of(p) for p in asked_here]
        mine = [p for p, alpha in zip(asked_here, about, strict=True) if alpha in (None, ALPHA)]
        others = [p for p, alpha in zip(asked_here, about, strict=True) if alpha not in (None, ALPHA)]
        if not mine:  # the suite asks this route of other alphas only: asked of the key's alpha here
            mine = [p.replace(f"/v1/alphas/{alpha_of(p)}", f"/v1/alphas/{ALPHA}", 1) for p in others]
        paths += mine[:1] + rng.sample(mine[1:], min(len(mine) - 1, PER_ENDPOINT - 1)) + others[:1]
    return paths


def test_no_answer_moves_when_every_unreadable_alpha_changes(
    demo_lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from alpha_results_seal.demo.corpus import write_corpus
    from pipeline.build import build_many
    from pipeline.build_events import events_step

    lake = linked_copy(demo_lake, tmp_path / "lake")
    shutil.copyfile(records_of(demo_lake), tmp_path / "records.sqlite3")
    records_url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    paths = sampled_paths(lake)
    assert len({endpoint_of(p) for p in paths}) > 40  # every route of the suite, about
    with app_over(lake, records_url) as client:
        before = asked(client, paths)
    assert sum(status == 200 for status, _, _ in before.values()) > 60

    # Every other alpha's data replaced: the demo engine's seals of another seed, built with events
    # (not the benchmark's: SPY is every key's, and the figures against it move with it).
    seals = write_corpus(tmp_path / "seals", size="small", seed=8)
    others = sorted(
        str(p)
        for p in seals
        if p.name != ALPHA and json.loads((p / "manifest.json").read_text()).get("type") != "benchmark"
    )
    outcomes = build_many(others, str(lake), jobs=2)
    published = [o.target for o in outcomes if o.status == "published"]
    assert len(published) >= 5 and not [t for t in published if t.startswith("benchmark:")], outcomes
    report = events_step(records_url, True, str(lake), [o.target for o in outcomes], outcomes, "", 3650)
    assert report.error is None, report.error
    # And their records: another alpha approved (asked then), then retired (the 1 -> 2 -> 1).
    where = ("--lake", str(lake), "--keystore", records_url, "--by", "ops", "--note", "probe", "--policy", "")
    candidates = [t for t in published if t.startswith("Test_")]
    approved = next(
        alpha
        for alpha in candidates
        if cli(["promote", alpha, *where, "--override", "issue 60 probe"]) == 0  # dated today
    )
    capsys.readouterr()
    with app_over(lake, records_url) as client:
        approving = asked(client, paths)
    assert cli(["retire", approved, *where]) == 0, capsys.readouterr().err
    capsys.readouterr()
    with app_over(lake, records_url) as client:
        after = asked(client, paths)
    # The Rademacher anti-serum too (issue 81, item 7): its complexity is over the alphas the key
    # reads, so it is asked and must not move either
    assert any(endpoint_of(path) == "analytics.catalogue_bound" for path in paths)
    for then in (approving, after):
        moved = [path for path in paths if then[path] != before[path]]
        assert moved == [], [(path, diff(before[path][1], then[path][1])[:3]) for path in moved[:5]]
