"""The small demo lake, an app over it with the analytics test callers, and the lake's Parquet
files read directly for the independent recomputation (tests/analytics/reference.py).

Tokens: `raw` (every data endpoint, raw books), `plain` (every data endpoint, no raw books),
`testonly` (Test_ alphas and runs only), `no_analytics` (every data endpoint but analytics.*),
`no_portfolio` (every data endpoint but portfolio.*: no ledger), `no_signals` (every data endpoint
but signals.*: no rebalance cross-sections).
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.context import AllowList, Caller
from tests.analytics.reference import Lake
from tests.callers import DATA_IDS, authenticator_for, make_caller
from tests.conftest import built_once, linked_copy, records_of

NO_ANALYTICS_IDS = frozenset(i for i in DATA_IDS if not i.startswith("analytics."))
NO_PORTFOLIO_IDS = frozenset(i for i in DATA_IDS if not i.startswith("portfolio."))
NO_SIGNALS_IDS = frozenset(i for i in DATA_IDS if not i.startswith("signals."))
NO_POSITIONS_IDS = frozenset(i for i in DATA_IDS if i != "portfolio.positions")


def endpoints_only(ids: frozenset[str]) -> Caller:
    """A key that may call exactly `ids` (every alpha, no raw books)."""
    return make_caller(endpoints=ids, endpoint_allow=AllowList.of_ids(tuple(sorted(ids))))


CALLERS: dict[str, Caller] = {
    "raw": make_caller(expose_raw_book=True),
    "plain": make_caller(),
    "testonly": make_caller(alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])),
    "no_analytics": endpoints_only(NO_ANALYTICS_IDS),
    "no_portfolio": endpoints_only(NO_PORTFOLIO_IDS),
    "no_signals": endpoints_only(NO_SIGNALS_IDS),
    "no_positions": endpoints_only(NO_POSITIONS_IDS),
    # One alpha: every data route on momentum_12_1 alone; and its decisions alone (issue 46, item 2).
    "momentum_only": make_caller(
        alphas=AllowList.of_ids(["momentum_12_1"]), runs=AllowList.of_ids(["momentum_12_1"])
    ),
    "momentum_promotions": make_caller(
        endpoints=frozenset({"catalog.alphas.promotions", "catalog.alphas.get"}),
        endpoint_allow=AllowList.of_ids(["catalog.alphas.get", "catalog.alphas.promotions"]),
        alphas=AllowList.of_ids(["momentum_12_1"]),
        runs=AllowList.of_ids(["momentum_12_1"]),
    ),
}

PRODUCTION = ("momentum_12_1", "value_composite_legacy")
BOOKS = ("long_short", "long_only", "raw_long_short", "raw_long_only")
ALPHAS = [
    "momentum_12_1",
    "value_composite_legacy",
    "Test_planted_factor",
    "Test_short_term_reversal",
    "Test_small_universe",
    "Test_low_vol_incomplete",
    "Test_ledger_only",
]
"""Every alpha of the small demo corpus."""

Window = tuple[str | None, str | None]


class Api:
    def __init__(self, client: TestClient[Any]) -> None:
        self.client = client

    def get(self, path: str, token: str = "raw", headers: dict[str, str] | None = None, **params: Any) -> Any:
        params = {k: v for k, v in params.items() if v is not None}
        return self.client.get(
            path, params=params or None, headers={"Authorization": f"Bearer {token}", **(headers or {})}
        )

    def ok(self, path: str, token: str = "raw", **params: Any) -> dict[str, Any]:
        response = self.get(path, token, **params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def all_rows(self, path: str, token: str = "raw", **params: Any) -> list[dict[str, Any]]:
        """Every row of a paged collection, fetched in small pages to exercise offsets."""
        rows: list[dict[str, Any]] = []
        total = None
        while True:
            body = self.ok(path, token, limit=7, offset=len(rows), **params)
            page = body["pagination"]
            total = page["total"] if total is None else total
            assert page["total"] == total and page["returned"] == len(body["data"])
            rows.extend(body["data"])
            if not page["has_more"]:
                assert len(rows) == total, (len(rows), total)
                return rows


def window_params(window: Window) -> dict[str, str | None]:
    return {"from": window[0], "to": window[1]}


def random_windows(seed: str, count: int = 3) -> list[Window]:
    """The whole history, then `count` random windows (calendar dates, weekends included) inside
    or overlapping the demo's history (2021-01-08 .. 2022-03-11), one of them open on one side."""
    rng = random.Random(seed)
    first, last = date(2020, 12, 20), date(2022, 3, 25)
    span = (last - first).days
    out: list[Window] = [(None, None)]
    for i in range(count):
        a = rng.randrange(span)
        b = min(span, a + rng.randrange(60, 300))
        start, end = (first + timedelta(days=a)).isoformat(), (first + timedelta(days=b)).isoformat()
        if i == count - 1:
            start = None if rng.random() < 0.5 else start
            end = None if start is not None else end
        out.append((start, end))
    return out


EDGE_WINDOWS: list[Window] = [
    ("2021-01-08", "2021-01-11"),  # two sessions: too few for a Sharpe ratio
    ("2019-01-01", "2019-12-31"),  # before the history: nothing
    ("2022-03-11", None),  # the last session only
]


@pytest.fixture(scope="session")
def lake(demo_lake: Path) -> Lake:
    return Lake(demo_lake)


@contextmanager
def serving(demo_lake: Path, callers: dict[str, Caller], **settings: Any) -> Iterator[Api]:
    """An app over the demo lake answering `callers`' tokens, with `settings` beside the lake; its
    records are the lake's (`tests.conftest.records_of`: the seal's approvals of the demo's
    production alphas) when it has them, else it has none (no alpha stands approved)."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    records = records_of(demo_lake)
    app = create_app(
        Settings(lake=str(demo_lake), environment="test", **settings),
        authenticate=authenticator_for(callers),
        limiter=None,
        records=RecordsSource(f"sqlite:///{records}") if records.exists() else None,
    )
    with TestClient(app=app) as client:
        yield Api(client)


@pytest.fixture(scope="session")
def api(demo_lake: Path) -> Iterator[Api]:
    with serving(demo_lake, CALLERS) as found:
        yield found


@pytest.fixture
def with_records(
    demo_lake: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Api, str, Path]]:
    """An app over a copy of the demo lake keeping its records (promotions, events) in a SQLite
    file of its own, a copy of the lake's (the seal's approvals of momentum_12_1 and
    value_composite_legacy, the build events), or, parametrized indirectly with "empty", none
    until the command line first writes it (records that never heard of the seals); that file's
    URL; and the copy, which a decision writes to (it records the alpha's catalogue index row
    again)."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
    if getattr(request, "param", "seeded") == "seeded":
        shutil.copyfile(records_of(demo_lake), tmp_path / "records.sqlite3")
    lake = linked_copy(demo_lake, tmp_path / "lake")
    app = create_app(
        Settings(lake=str(lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(url),
    )
    with TestClient(app=app) as client:
        yield Api(client), url, lake


@dataclass(frozen=True)
class FamilyRuns:
    """One trial family of the full demo corpus run by the demo engine: its members' daily
    long_short returns (a column per member, by alpha id, indexed by date: the union of their
    sessions) and each member's parameters, in the corpus's order."""

    returns: Any  # pandas.DataFrame
    parameters: list[dict[str, Any]]


@pytest.fixture(scope="session")
def full_family_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FamilyRuns]:
    """Every variant of the full demo corpus's trial families on the full-size market (seed 7), by
    family: the known answers of the overfitting and the family tests read them. Run once per test
    run and shared by the workers (`built_once`): the market and 48 variants are a minute of CPU."""
    import json

    import pandas as pd

    def build(folder: Path) -> None:
        from alpha_results_seal.demo.alphas import FAMILIES
        from alpha_results_seal.demo.engine import run_alpha
        from alpha_results_seal.demo.market import simulate_market

        market = simulate_market("full", 7)
        series: dict[str, dict[str, Any]] = {}
        parameters: dict[str, list[dict[str, Any]]] = {}
        for spec in FAMILIES:
            ledger = run_alpha(spec, market, "full", 7).tables["portfolio/long_short.parquet"].to_pandas()
            returns = ledger["ending_equity"] / ledger["starting_equity"] - 1.0
            series.setdefault(str(spec.family), {})[spec.alpha_id] = pd.Series(
                returns.to_numpy(), index=ledger["date"].to_numpy()
            )
            parameters.setdefault(str(spec.family), []).append(dict(spec.parameters))
        for family, members in series.items():
            pd.DataFrame(members).to_parquet(folder / f"{family}.parquet")
        (folder / "parameters.json").write_text(json.dumps(parameters))

    folder = built_once(tmp_path_factory, "full_family_runs", build)
    parameters = json.loads((folder / "parameters.json").read_text())
    return {
        family: FamilyRuns(pd.read_parquet(folder / f"{family}.parquet"), members)
        for family, members in parameters.items()
    }
