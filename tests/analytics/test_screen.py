"""/v1/analytics/screen against an independent recomputation from the catalogue index's Parquet
file (polars and Python, never DuckDB) on seeded random filter combinations, for keys with
different allow-lists; what a key may not read (never named, never counted), 403s, 400s naming
the parameter and its rule, paging, ETag/304, a new catalogue version, a lake without an index;
and the DuckDB engine itself on a larger synthetic index (nulls, ties, non-ASCII text, random
candidate sets, concurrent versions)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import threading
from collections.abc import Callable, Collection, Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from alpha_results_seal.storage import Storage
from core.context import AllowList, Caller
from datasets import catalogue_index
from datasets.reader import LakeReader
from datasets.screener import KEEP_VERSIONS, Screen, Screener, statement
from schemas import choices, lake, wire
from schemas.query import ScreenQuery
from tests.analytics import reference as ref
from tests.analytics.conftest import CALLERS, PRODUCTION, Api, endpoints_only, serving
from tests.analytics.helpers import close as ref_close
from tests.callers import DATA_IDS, authenticator_for, make_caller
from tests.support.families import NOISE, PLANTED, families_lake  # noqa: F401 (a fixture)

PATH = "/v1/analytics/screen"
INTEGER_RANGES = ("sessions", "live_sessions")
"""The screened counts: their bounds are integers."""
LISTED = ("momentum_12_1", "Test_planted_factor", "Test_ledger_only", "Test_small_universe")
SCREEN_CALLERS: dict[str, Caller] = {
    **CALLERS,
    # Both allow-lists bind: the alpha list names a production alpha the run prefix refuses.
    "listed": make_caller(alphas=AllowList.of_ids(LISTED), runs=AllowList.of_prefixes(["Test_"])),
    "no_metrics": endpoints_only(frozenset(i for i in DATA_IDS if i != "performance.metrics")),
    "nothing": make_caller(alphas=AllowList.of_ids(["Prod_never_published"])),
}
RESIDUAL = ("residual_information_ratio", "residual_t_statistic")
READABLE: dict[str, Callable[[str], bool]] = {
    "raw": lambda a: True,
    "testonly": lambda a: a.startswith("Test_"),
    "listed": lambda a: a in LISTED and a.startswith("Test_"),
    "nothing": lambda a: False,
}


@pytest.fixture(scope="module")
def screen_api(demo_lake: Path, demo_records: Path) -> Iterator[Api]:
    """An app over the demo lake and its records (the seal's approvals of its production alphas)."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource

    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=authenticator_for(SCREEN_CALLERS),
        limiter=None,
        records=RecordsSource(f"sqlite:///{demo_records}"),
    )
    with TestClient(app=app) as client:
        yield Api(client)


def newest_index(root: Path) -> pa.Table:
    """The newest generation's index, its delta's rows merged in (the demo's history publishes run
    by run: its newest generation is a delta over a base; docs/lake.md "Delta generations")."""
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index

    storage = Storage(str(root))
    generation = catalogue_index.newest(storage, str(root))
    assert generation is not None
    return catalogue_index.read_index(storage, str(root), generation)


def as_screened(index: pa.Table) -> pl.DataFrame:
    """An index as the screener serves it: each column under the name the screener serves it by
    (the index's `ic`, /metrics `core.ic`, is the screener's `ic`)."""
    frame = pl.from_arrow(index)
    assert isinstance(frame, pl.DataFrame)
    return frame


@pytest.fixture(scope="module")
def index(demo_lake: Path, demo_records: Path) -> pl.DataFrame:
    """The demo's index as the screener serves it, with where each alpha stands read from the
    records directly (`standing`, `approved_since`: the demo's history approved momentum_12_1 and
    value_composite_legacy, retired Test_planted_factor, and Test_short_term_reversal waits
    nominated)."""
    from records.store import open_records

    records = open_records(f"sqlite:///{demo_records}", create=False)
    try:
        decided = records.promotions.standing()
        nominated = records.nominations.latest()
    finally:
        records.close()
    frame = as_screened(newest_index(demo_lake).drop_columns(["entry"]))
    standing = {a: p.action for a, p in decided.items()}
    standing |= {
        a: "nominated"
        for a, n in nominated.items()
        if a not in decided or decided[a].recorded_at < n.recorded_at
    }
    since = {a: p.as_of.isoformat() for a, p in decided.items() if p.action == "approved"}
    assert sorted(a for a, s in standing.items() if s == "approved") == [
        "momentum_12_1",
        "value_composite_legacy",
    ]
    return frame.with_columns(
        pl.Series("standing", [standing.get(a, "never") for a in frame["alpha_id"]], dtype=pl.String),
        pl.Series("approved_since", [since.get(a) for a in frame["alpha_id"]], dtype=pl.String),
    )


# -- the independent recomputation ------------------------------------------------------------------


def fold(value: str | None) -> str | None:
    return None if value is None else value.casefold()


def tags_of(params: dict[str, Any]) -> list[str]:
    value = params.get("tag")
    if value is None:
        return []
    texts = value if isinstance(value, list) else [value]
    return [item.strip() for text in texts for item in text.split(",")]


def expected_rows(
    frame: pl.DataFrame, readable: Callable[[str], bool], params: dict[str, Any]
) -> list[dict[str, Any]]:
    """Every row the screen should answer, in order, from the index read with polars."""
    df = frame.filter(pl.col("unreadable").is_null())
    df = df.filter(pl.Series([readable(a) for a in df["alpha_id"]], dtype=pl.Boolean))
    needle = fold(params.get("search")) or None
    if needle is not None:
        texts = zip(df["alpha_id"], df["name"], df["tldr"], strict=True)
        hits = [any(needle in (fold(f) or "") for f in (a, n or a, t)) for a, n, t in texts]
        df = df.filter(pl.Series(hits, dtype=pl.Boolean))
    wanted = {t.casefold() for t in tags_of(params)}
    if wanted:
        has = [t is not None and wanted <= {x.casefold() for x in t} for t in df["tags"].to_list()]
        df = df.filter(pl.Series(has, dtype=pl.Boolean))
    for column in ("structure", "method"):
        if column in params:
            same = [fold(v) == params[column].casefold() for v in df[column]]
            df = df.filter(pl.Series(same, dtype=pl.Boolean))
    if "family" in params:  # a slug, matched exactly; an alpha of no family is in none
        df = df.filter(pl.Series([v == params["family"] for v in df["family"]], dtype=pl.Boolean))
    if params.get("complete_only") == "true":
        df = df.filter(pl.col("complete"))
    if "production" in params:  # production: standing approved (an index alone: none is)
        approved = pl.col("standing") == "approved" if "standing" in df.columns else pl.lit(False)
        df = df.filter(approved == (params["production"] == "true"))
    if "ic_reproduces" in params:  # a null flag matches neither value
        df = df.filter(pl.col("ic_reproduces") == (params["ic_reproduces"] == "true"))
    for column in choices.SCREEN_RANGES:
        if f"min_{column}" in params:
            df = df.filter(pl.col(column) >= float(params[f"min_{column}"]))
        if f"max_{column}" in params:
            df = df.filter(pl.col(column) <= float(params[f"max_{column}"]))
    sort = params.get("sort")
    if sort is not None:
        column = sort.removeprefix("-")
        df = df.sort([column, "alpha_id"], descending=[sort.startswith("-"), False], nulls_last=True)
    # Where each alpha stands, from the records (`index`); an index alone: every alpha never decided.
    record_fields = [f for f in wire.SCREEN_RECORD_FIELDS if f in df.columns]
    rows = [
        wire.SCREEN_RECORD_FIELDS | row
        for row in df.select([*wire.SCREEN_INDEX_FIELDS, *record_fields]).to_dicts()
    ]
    for row in rows:
        for key in ("first_date", "last_date", "live_split"):
            row[key] = None if row[key] is None else row[key].isoformat()
    return rows


def number_text(value: float | int) -> str:
    return str(value) if isinstance(value, int) else repr(value)


def random_params(rng: random.Random, frame: pl.DataFrame, excluded: Collection[str] = ()) -> dict[str, Any]:
    """A random mix of filters whose values come from the index (so they select something, and
    bounds equal to a value test inclusiveness), a sort and a page; none on the `excluded` columns."""
    params: dict[str, Any] = {}
    texts = [t for t in (*frame["alpha_id"], *frame["name"], *frame["tldr"]) if t]
    if rng.random() < 0.3:
        text = rng.choice(texts)
        start = rng.randrange(len(text))
        needle = text[start : start + rng.randint(1, 8)]
        params["search"] = rng.choice([needle, needle.upper(), needle.swapcase(), "zz-no-such"])
    vocabulary = sorted({t for tags in frame["tags"].to_list() if tags for t in tags})
    if rng.random() < 0.35:
        picked = rng.sample(vocabulary, rng.randint(1, 2))
        if rng.random() < 0.1:
            picked.append("no_such_tag")
        picked = [t.upper() if rng.random() < 0.3 else t for t in picked]
        params["tag"] = ", ".join(picked) if rng.random() < 0.5 else picked  # list: repeated
    for column in ("structure", "method"):
        values = [v for v in frame[column] if v is not None]
        if rng.random() < 0.2:
            params[column] = rng.choice([*values, "No_Such_Value"]).swapcase()
    families = sorted({v for v in frame["family"] if v is not None})
    if families and rng.random() < 0.2:  # the small demo seals none (tests/support/families.py does)
        params["family"] = rng.choice([*families, "no_such_family"])
    if rng.random() < 0.2:
        params["complete_only"] = rng.choice(["true", "false"])
    if rng.random() < 0.3:
        params["production"] = rng.choice(["true", "false"])
    if rng.random() < 0.2:
        params["ic_reproduces"] = rng.choice(["true", "false"])
    for column in choices.SCREEN_RANGES:
        if rng.random() >= 1.75 / len(choices.SCREEN_RANGES):  # 1.75 bounds a request on average
            continue
        values = sorted(v for v in frame[column] if v is not None)
        if not values or column in excluded:
            continue
        low, high = rng.choice(values), rng.choice(values)
        if column not in INTEGER_RANGES and rng.random() < 0.3:
            low -= rng.random()
        low, high = min(low, high), max(low, high)
        side = rng.random()
        if side < 0.7:
            params[f"min_{column}"] = number_text(low)
        if side > 0.3:
            params[f"max_{column}"] = number_text(high)
    if rng.random() < 0.7:
        params["sort"] = rng.choice(
            [c for c in choices.SCREEN_SORT_CHOICES if c.removeprefix("-") not in excluded]
        )
    params["limit"] = rng.choice([1, 2, 3, 5, 100])
    params["offset"] = rng.choice([0, 0, 1, 2, 5])
    return params


# -- the declaration ----------------------------------------------------------------------------------


def test_the_query_bounds_exactly_the_whitelisted_figures() -> None:
    names = [f.encode_name for f in msgspec.structs.fields(ScreenQuery)]
    # max_correlation bounds a correlation the matrices compute, not a column of the index.
    bounds = [n for n in names if n.startswith(("min_", "max_")) and n != "max_correlation"]
    assert bounds == [f"{side}_{c}" for c in choices.SCREEN_RANGES for side in ("min", "max")]
    index_columns = set(lake.CATALOGUE_INDEX.names)
    assert set(choices.SCREEN_RANGES) <= set(wire.SCREEN_FIELDS)
    assert set(wire.SCREEN_INDEX_FIELDS) <= index_columns  # each read from the column of its name
    assert set(choices.SCREEN_SORTS) <= set(wire.SCREEN_FIELDS)


# -- answers against the recomputation ----------------------------------------------------------------


@pytest.mark.parametrize("token", ["raw", "testonly", "listed"])
def test_random_filters_reproduce_from_the_index_parquet(
    screen_api: Api, index: pl.DataFrame, token: str
) -> None:
    rng = random.Random(f"screen:{token}")
    selected = 0
    # A key reading only Test_ alphas has no production alpha in its default reference set: the
    # residual figures, computed against the index's, are withheld from it (tests/analytics/test_residual.py).
    withheld = RESIDUAL if token != "raw" else ()
    for _ in range(150):
        params = random_params(rng, index, withheld)
        expected = [row | dict.fromkeys(withheld) for row in expected_rows(index, READABLE[token], params)]
        body = screen_api.ok(PATH, token, **params)
        limit, offset = params["limit"], params["offset"]
        assert body["data"] == expected[offset : offset + limit], params
        page = body["pagination"]
        assert page["total"] == len(expected), params
        assert page["returned"] == len(body["data"])
        assert page["has_more"] == (offset + page["returned"] < len(expected))
        assert re.fullmatch(r"lake:catalogue_index@[0-9a-f]{24}", body["meta"]["source"])  # the key's rows
        selected += 0 < len(expected) < len(index)
    assert selected >= 30  # the filters were not trivially all or nothing


def test_each_filter_alone(screen_api: Api, index: pl.DataFrame) -> None:
    cases: list[dict[str, Any]] = [
        {},
        {"tag": "momentum"},
        {"tag": "MOMENTUM,price"},
        {"tag": ["momentum", "price"]},
        {"tag": "momentum,no_such_tag"},
        {"structure": "Cross_Sectional_Long_Short"},
        {"method": "price_momentum"},
        {"family": "pure_noise"},  # the small demo seals no family: nothing is of one
        {"complete_only": "true"},
        {"production": "true"},
        {"production": "false"},
        {"ic_reproduces": "true"},
        {"ic_reproduces": "false"},
        {"search": "MOMENTUM"},
        {"search": "reversal"},
        {"min_information_ratio": "0.5"},
        {"max_max_drawdown_pct": "20"},
        {"min_ic": "0"},  # Test_ledger_only has no IC: a null fails a bound
        {"min_sessions": "296", "max_sessions": "296"},
        {"min_turnover": "10", "max_turnover": "12", "sort": "-turnover"},
        *({"sort": s} for s in choices.SCREEN_SORT_CHOICES),
    ]
    for params in cases:
        expected = expected_rows(index, READABLE["raw"], params)
        body = screen_api.ok(PATH, **params, limit=100)
        assert body["data"] == expected, params
        assert body["pagination"]["total"] == len(expected)
    # The demo exercises what these rules are about.
    assert [r["alpha_id"] for r in screen_api.ok(PATH, tag="momentum,price")["data"]] == ["momentum_12_1"]
    # production=true is the approved set: the demo's production alphas, approved by the head of research.
    approved = screen_api.ok(PATH, production="true", limit=100)["data"]
    assert sorted((r["alpha_id"], r["standing"]) for r in approved) == [
        ("momentum_12_1", "approved"),
        ("value_composite_legacy", "approved"),
    ]
    assert all(r["approved_since"] is not None for r in approved)
    others = screen_api.ok(PATH, production="false", limit=100)["data"]
    assert {r["standing"] for r in others} == {"never", "nominated", "retired"} and len(others) == len(
        index
    ) - 2
    nulls = screen_api.ok(PATH, sort="-ic")["data"]
    assert nulls[-1]["ic"] is None and nulls[0]["ic"] is not None
    ties = screen_api.ok(PATH, sort="-sessions")["data"]
    tied = [r["alpha_id"] for r in ties if r["sessions"] == 296]
    assert len(tied) > 2 and tied == sorted(tied)


def test_search_selects_what_the_catalogue_listing_selects(screen_api: Api, index: pl.DataFrame) -> None:
    rng = random.Random("screen:search")
    texts = [t for t in (*index["alpha_id"], *index["name"], *index["tldr"]) if t]
    for _ in range(40):
        text = rng.choice(texts)
        start = rng.randrange(len(text))
        needle = text[start : start + rng.randint(1, 6)].swapcase()
        for token in ("raw", "testonly"):
            listed = screen_api.ok("/v1/alphas", token, search=needle, limit=100)["data"]
            screened = screen_api.ok(PATH, token, search=needle, limit=100)["data"]
            assert [r["alpha_id"] for r in screened] == [r["alpha_id"] for r in listed], needle
            assert [(r["name"], r["tldr"]) for r in screened] == [(r["name"], r["tldr"]) for r in listed]


def test_the_family_column_and_filter_are_the_families_listing(families_lake: Path) -> None:  # noqa: F811
    """Each row names its seal's trial family, and `family=` keeps that family's members: for every
    key, the members `/v1/families` lists for it, in the same (catalogue) order, and never one it
    may not read (a key reading three members of pure_noise learns of those three alone)."""
    three = NOISE[:3]
    callers = {
        **CALLERS,
        "three": make_caller(alphas=AllowList.of_ids(three), runs=AllowList.of_ids(three)),
    }
    with serving(families_lake, callers) as api:
        rows = api.ok(PATH, limit=100)["data"]
        assert {r["alpha_id"]: r["family"] for r in rows if r["family"] is not None} == {
            **dict.fromkeys(PLANTED, "planted_latent"),
            **dict.fromkeys(NOISE, "pure_noise"),
        }
        for token in ("raw", "three"):
            for family in ("planted_latent", "pure_noise", "no_such_family"):
                listed = [m["alpha_id"] for m in api.all_rows("/v1/families", token, family=family)]
                body = api.ok(PATH, token, family=family, limit=100)
                assert [r["alpha_id"] for r in body["data"]] == listed, (token, family)
                assert body["pagination"]["total"] == len(listed)
                assert {r["family"] for r in body["data"]} <= {family}
        assert [r["alpha_id"] for r in api.ok(PATH, "three", family="pure_noise")["data"]] == sorted(
            three, reverse=True
        )
        assert api.ok(PATH, "three", family="planted_latent")["pagination"]["total"] == 0
        screened = api.ok(PATH, "three", family="pure_noise", sort="-information_ratio", limit=1)
        assert screened["pagination"]["total"] == 3 and screened["data"][0]["alpha_id"] in three


# -- what a key may not read ----------------------------------------------------------------------------


def test_a_test_only_key_never_learns_of_production_alphas(screen_api: Api, index: pl.DataFrame) -> None:
    rng = random.Random("screen:leak")
    requests: list[dict[str, Any]] = [
        {"production": "true"},
        {"search": "momentum_12_1"},
        {"search": "value"},
        {"tag": "value"},
        {"method": "fundamental_value"},
        {"sort": "-information_ratio", "limit": 1},
        {"offset": 3, "limit": 1},
        {"min_information_ratio": "0.9"},  # only value_composite_legacy reaches it
        {"min_icir": "2", "max_icir": "1"},  # a 400 names nothing else
        {"sort": "production"},
        *(random_params(rng, index) for _ in range(60)),
    ]
    statuses = set()
    for params in requests:
        for token in ("testonly", "listed"):
            response = screen_api.get(PATH, token, **params)
            statuses.add(response.status_code)
            # Every header but Link, which only echoes the request's own query string.
            headers = " ".join(f"{k}: {v}" for k, v in response.headers.items() if k != "link")
            text = response.text + headers
            for alpha in index["alpha_id"]:
                if not READABLE[token](alpha):
                    assert alpha not in text, (token, params, text[:300])
            if response.status_code == 200:
                expected = expected_rows(index, READABLE[token], params)
                assert response.json()["pagination"]["total"] == len(expected), params
    assert statuses == {200, 400}
    everything = screen_api.ok(PATH, "testonly", limit=100)
    assert everything["pagination"]["total"] == sum(1 for a in index["alpha_id"] if a.startswith("Test_"))
    assert screen_api.ok(PATH, "testonly", production="true")["pagination"]["total"] == 0
    # Both allow-lists bind: momentum_12_1 is on the alpha list of `listed`, not on its run list.
    listed = screen_api.ok(PATH, "listed", limit=100)["data"]
    assert [r["alpha_id"] for r in listed] == [a for a in index["alpha_id"] if READABLE["listed"](a)]
    assert len(listed) == 3


def test_a_key_reading_no_alpha_gets_an_empty_page(screen_api: Api) -> None:
    body = screen_api.ok(PATH, "nothing", sort="-icir")
    assert body["data"] == [] and body["pagination"]["total"] == 0
    assert not any(a in json.dumps(body) for a in PRODUCTION)


def test_a_key_without_the_endpoint_is_refused(screen_api: Api) -> None:
    response = screen_api.get(PATH, "no_analytics", sort="-icir")
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error["code"] == "endpoint_not_allowed"
    assert error["details"] == {"endpoint": "analytics.screen"}
    assert response.headers.get("etag") is None


def test_a_key_that_may_not_read_the_figures_is_refused(screen_api: Api) -> None:
    """The rows are /metrics figures: a key without performance.metrics is told which route it needs."""
    response = screen_api.get(PATH, "no_metrics")
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("endpoint_not_allowed", {"endpoint": "performance.metrics"})
    assert response.headers.get("etag") is None


def test_a_key_that_may_not_read_the_ledger_gets_no_ledger_field(screen_api: Api) -> None:
    """`sessions` and the first and last dates are read off the ledger: as on /metrics, a key
    without portfolio.ledger gets them null with `access_limited`, and may not filter or sort on
    them (403 naming the route that serves them)."""
    full = {r["alpha_id"]: r for r in screen_api.ok(PATH, "plain", limit=100)["data"]}
    body = screen_api.ok(PATH, "no_portfolio", limit=100)
    assert [r["alpha_id"] for r in body["data"]] == list(full)
    ledger_fields = wire.SCREEN_WITHHELD_FIELDS["ledger"]
    for row in body["data"]:
        assert [row[f] for f in ledger_fields] == [None] * len(ledger_fields), row
        assert {k: v for k, v in row.items() if k not in ledger_fields} == {
            k: v for k, v in full[row["alpha_id"]].items() if k not in ledger_fields
        }
    assert any(full[a]["sessions"] for a in full)  # the full key does see them
    [warning] = body["meta"]["warnings"]
    assert warning["code"] == "access_limited" and "portfolio.ledger" in warning["message"]
    for params in (
        {"min_sessions": 10},
        {"max_sessions": 1000},
        {"sort": "-sessions"},
        {"sort": "first_date"},
    ):
        response = screen_api.get(PATH, "no_portfolio", **params)
        assert response.status_code == 403, (params, response.text)
        error = response.json()["error"]
        assert (error["code"], error["details"]) == ("endpoint_not_allowed", {"endpoint": "portfolio.ledger"})
    assert screen_api.get(PATH, "no_portfolio", sort="-weeks").status_code == 200  # from the rebalances


# -- one ICIR basis, and a sealed IC the cross-sections do not reproduce --------------------------------


def sealed_overall(seals: Path, alpha: str) -> tuple[dict[str, float], dict[str, Any]]:
    """The run's own overall metrics and metric conventions, read from its seal (not the lake)."""
    frame = pl.read_parquet(seals / alpha / "metrics.parquet").filter(pl.col("scope") == "overall")
    metrics = {m: v for m, v in zip(frame["metric"], frame["value"], strict=True) if v is not None}
    conventions = json.loads((seals / alpha / "manifest.json").read_text())["metric_conventions"]
    return metrics, conventions


def test_icir_is_annualised_for_every_alpha_and_ranks_on_that_basis(
    screen_api: Api, demo_seals: Path
) -> None:
    """A run that sealed its ICIR per week (value_composite_legacy) is served times sqrt(weeks_per_year),
    so `sort=-icir` and the bounds compare one basis (docs/analytics.md, "Screener")."""
    rows = {r["alpha_id"]: r for r in screen_api.ok(PATH, limit=100)["data"]}
    expected: dict[str, float | None] = {}
    per_week = []
    for alpha in rows:
        metrics, conventions = sealed_overall(demo_seals, alpha)
        sealed = metrics.get("icir")
        if not conventions["icir_annualised"]:
            per_week.append(alpha)
        if sealed is None:
            expected[alpha] = None
        elif conventions["icir_annualised"]:
            expected[alpha] = sealed
        else:
            expected[alpha] = sealed * conventions["weeks_per_year"] ** 0.5
    assert per_week == ["value_composite_legacy"] and len(expected) == 7  # both kinds of seal
    for alpha, row in rows.items():
        assert ref_close(row["icir"], expected[alpha]), (alpha, row["icir"], expected[alpha])
    legacy, _ = sealed_overall(demo_seals, "value_composite_legacy")
    assert abs(rows["value_composite_legacy"]["icir"]) > 7 * abs(legacy["icir"])  # x sqrt(52), not as sealed
    ranked = [r["alpha_id"] for r in screen_api.ok(PATH, sort="-icir", limit=100)["data"]]
    measured = sorted(
        (a for a in expected if expected[a] is not None), key=lambda a: (-(expected[a] or 0.0), a)
    )
    assert ranked == measured + sorted(a for a in expected if expected[a] is None)
    # A bound compares the same basis: on the sealed per-week value the legacy alpha would pass neither.
    below = [r["alpha_id"] for r in screen_api.ok(PATH, max_icir="-1", limit=100)["data"]]
    assert below == [a for a in rows if (expected[a] or 0.0) <= -1] == ["value_composite_legacy"]


def test_a_sealed_ic_that_does_not_reproduce_is_flagged_and_filterable(
    screen_api: Api, demo_seals: Path, lake: ref.Lake
) -> None:
    """`ic_reproduces` is the `/metrics` rule, recomputed here from the seal's mean IC and the lake's
    weekly IC (rebuilt from the cross-sections by the pipeline): null with nothing to check."""
    rows = {r["alpha_id"]: r for r in screen_api.ok(PATH, limit=100)["data"]}
    expected: dict[str, bool | None] = {}
    for alpha in rows:
        sealed = sealed_overall(demo_seals, alpha)[0].get("mean_ic")
        weekly = lake.weekly_signal(alpha)
        if sealed is None or weekly is None:
            expected[alpha] = None
            continue
        ic = weekly["ic"].to_numpy(float)
        expected[alpha] = bool(abs(ic[ic == ic].mean() - sealed) <= 1e-6)
    assert {a: r["ic_reproduces"] for a, r in rows.items()} == expected
    assert expected["value_composite_legacy"] is False and expected["Test_ledger_only"] is None
    assert sum(v is True for v in expected.values()) == 5
    warned = screen_api.ok("/v1/alphas/value_composite_legacy/metrics")["meta"]["warnings"]
    assert "ic_reproduction_mismatch" in {w["code"] for w in warned}  # the alpha's own page says so too
    for value in (True, False):
        kept = screen_api.ok(PATH, ic_reproduces=str(value).lower(), limit=100)["data"]
        assert [r["alpha_id"] for r in kept] == [a for a in rows if expected[a] is value]
    flagged = screen_api.ok(PATH, ic_reproduces="false", sort="-ic")["data"]
    assert [r["alpha_id"] for r in flagged] == ["value_composite_legacy"]
    # Rebuilt from the cross-sections: withheld from a key that may not read them, as on /metrics.
    body = screen_api.ok(PATH, "no_signals", limit=100)
    assert [r["alpha_id"] for r in body["data"]] == list(rows)
    assert all(r["ic_reproduces"] is None for r in body["data"])
    assert [r["ic"] for r in body["data"]] == [r["ic"] for r in rows.values()]
    [warning] = body["meta"]["warnings"]
    assert warning["code"] == "access_limited" and "ic_reproduces" in warning["message"]
    assert "signals.scores" in warning["message"]
    response = screen_api.get(PATH, "no_signals", ic_reproduces="true")
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("endpoint_not_allowed", {"endpoint": "signals.scores"})
    refused = screen_api.get(PATH, ic_reproduces="maybe")
    assert refused.status_code == 400 and "ic_reproduces" in refused.text


# -- max_correlation ---------------------------------------------------------------------------------


def expected_within(
    lake: ref.Lake, candidates: list[str], references: list[str], basis: str, bound: float
) -> list[str] | None:
    """The candidates whose largest |Pearson| over the whole history to the references (itself
    excepted), recomputed pair by pair from the lake's Parquet, is defined and at most `bound`;
    None when a figure lies within rounding of the bound (the case says nothing then)."""
    kept = []
    for alpha in candidates:
        found = [
            ref.correlation(lake, alpha, r, basis, (None, None)).pearson for r in references if r != alpha
        ]
        magnitudes = [abs(v) for v in found if v is not None]
        if magnitudes and abs(max(magnitudes) - bound) < 1e-9:
            return None
        if magnitudes and max(magnitudes) <= bound:
            kept.append(alpha)
    return kept


@pytest.mark.parametrize("basis", choices.SCREEN_CORRELATION_BASES)
@pytest.mark.parametrize("key", ["raw", "testonly", "listed"])
def test_max_correlation_reproduces_pair_by_pair(
    screen_api: Api, lake: ref.Lake, index: pl.DataFrame, basis: str, key: str
) -> None:
    """To a named alpha and to the production (approved) set the key may read, at bounds spread
    over [0, 1]."""
    listed = [r["alpha_id"] for r in expected_rows(index, READABLE[key], {})]
    production = [r["alpha_id"] for r in expected_rows(index, READABLE[key], {"production": "true"})]
    named = [a for a in ("Test_planted_factor", "Test_small_universe", "momentum_12_1") if a in listed]
    checked = 0
    for reference in [None, *named]:
        references = production if reference is None else [reference]
        for bound in (0.05, 0.2, 0.5, 0.9, 1.0):
            expected = expected_within(lake, listed, references, basis, bound)
            if expected is None:
                continue
            params = {"max_correlation": str(bound), "correlation_basis": basis, "correlated_to": reference}
            rows = screen_api.all_rows(PATH, key, **params)
            assert [r["alpha_id"] for r in rows] == expected, (key, reference, bound)
            assert reference not in expected
            checked += 1
    assert checked >= 10


def test_max_correlation_combines_with_the_other_filters(
    screen_api: Api, lake: ref.Lake, index: pl.DataFrame
) -> None:
    params = {"production": "false", "sort": "-information_ratio", "max_correlation": "0.5"}
    rows = screen_api.all_rows(PATH, **params)
    readable = [r["alpha_id"] for r in expected_rows(index, READABLE["raw"], {})]
    production = [r["alpha_id"] for r in expected_rows(index, READABLE["raw"], {"production": "true"})]
    within = set(expected_within(lake, readable, production, "returns", 0.5) or [])
    sorted_rows = expected_rows(index, READABLE["raw"], {"production": "false", "sort": "-information_ratio"})
    assert [r["alpha_id"] for r in rows] == [r["alpha_id"] for r in sorted_rows if r["alpha_id"] in within]
    assert rows, "the case selects something"


def test_max_correlation_needs_the_correlation_route_and_the_data(demo_lake: Path) -> None:
    from core.settings import Settings
    from serve.app import create_app

    callers = {
        "no_correlation": endpoints_only(frozenset(i for i in DATA_IDS if i != "analytics.correlation")),
        "no_signals": CALLERS["no_signals"],
        "testonly": CALLERS["testonly"],
    }
    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=authenticator_for(callers),
        limiter=None,
    )
    with TestClient(app=app) as client:
        api = Api(client)
        response = api.get(PATH, "no_correlation", max_correlation="0.5")
        assert response.status_code == 403, response.text
        assert response.json()["error"]["details"] == {"endpoint": "analytics.correlation"}
        assert api.get(PATH, "no_correlation").status_code == 200  # without the filter, no need
        if "performance.metrics" in callers["no_signals"].endpoints:
            response = api.get(PATH, "no_signals", max_correlation="0.5", correlation_basis="ic")
            assert response.status_code == 403, response.text
        # A named alpha the key may not read is refused as its own routes refuse it (never counted).
        response = api.get(PATH, "testonly", max_correlation="0.5", correlated_to="momentum_12_1")
        assert (response.status_code, response.json()["error"]["code"]) == (403, "run_not_allowed")
        response = api.get(PATH, "testonly", max_correlation="0.5", correlated_to="Test_no_such_alpha")
        assert (response.status_code, response.json()["error"]["code"]) == (404, "run_not_found")
        # The production set a test-only key may read is empty: nothing is within a bound of it.
        body = api.ok(PATH, "testonly", max_correlation="1")
        assert (body["data"], body["pagination"]["total"]) == ([], 0)


# -- bad parameters -------------------------------------------------------------------------------------

RANGE_CASES = [
    ({f"min_{c}": "3", f"max_{c}": "2"}, {f"min_{c}": "must not be above", f"max_{c}": "must not be below"})
    for c in choices.SCREEN_RANGES
]


@pytest.mark.parametrize(
    ("params", "rules"),
    [
        *RANGE_CASES,
        (
            {"min_icir": "0.50", "max_icir": "-1e-1"},
            {"min_icir": "(0.50 > -1e-1)", "max_icir": "(-1e-1 < 0.50)"},
        ),
        ({"sort": "bogus"}, {"sort": "must be one of alpha_id, -alpha_id"}),
        ({"sort": "-"}, {"sort": "a column, - first for descending"}),
        ({"sort": "tags"}, {"sort": "got 'tags'"}),
        ({"sort": "alpha_id; DROP TABLE x"}, {"sort": "must be one of"}),
        ({"min_sessions": "1.5"}, {"min_sessions": "must be an integer"}),
        ({"max_sessions": "10000000000000000000000"}, {"max_sessions": "at most 18 digits"}),
        ({"min_icir": "abc"}, {"min_icir": "must be a decimal number"}),
        ({"max_turnover": "nan"}, {"max_turnover": "must be a decimal number"}),
        ({"min_ic": "inf"}, {"min_ic": "must be a decimal number"}),
        ({"tag": ""}, {"tag": "non-empty values"}),
        ({"tag": "momentum,,price"}, {"tag": "non-empty values"}),
        ({"tag": ["momentum", " "]}, {"tag": "non-empty values"}),
        ({"tag": "x" * 201}, {"tag": "at most 200 characters"}),
        ({"search": "x" * 201}, {"search": "at most 200 characters"}),
        ({"structure": "x" * 201}, {"structure": "at most 200 characters"}),
        ({"family": "Pure_Noise"}, {"family": "must match"}),
        ({"family": "pure noise"}, {"family": "must match"}),
        ({"family": "x" * 65}, {"family": "must match"}),
        ({"family": ["pure_noise", "planted_latent"]}, {"family": "given more than once"}),
        ({"production": "maybe"}, {"production": "must be a boolean"}),
        ({"complete_only": "2"}, {"complete_only": "must be a boolean"}),
        ({"limit": "0"}, {"limit": "between 1 and 5000"}),
        ({"offset": "-1"}, {"offset": "between 0 and 1000000000"}),
        ({"sort": ["icir", "ic"]}, {"sort": "given more than once"}),
        ({"max_correlation": "1.5"}, {"max_correlation": "between 0 and 1"}),
        ({"max_correlation": "-0.1"}, {"max_correlation": "between 0 and 1"}),
        (
            {"max_correlation": "0.5", "correlation_basis": "scores"},
            {"correlation_basis": "one of returns, ic"},
        ),
        ({"correlated_to": "momentum_12_1"}, {"correlated_to": "needs max_correlation"}),
        ({"alpha": "momentum_12_1"}, {"alpha": "unknown parameter"}),
        (
            {"min_icir": "2", "max_icir": "1", "sort": "x", "limit": "0"},
            {"min_icir": "above", "max_icir": "below", "sort": "one of", "limit": "between"},
        ),
    ],
)
def test_bad_parameters_are_one_400_naming_each(
    screen_api: Api, params: dict[str, Any], rules: dict[str, str]
) -> None:
    response = screen_api.get(PATH, **params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_request"
    found = {p["name"]: p["rule"] for p in error["details"]["parameters"]}
    assert set(found) == set(rules), found
    for name, fragment in rules.items():
        assert fragment in found[name], (name, found[name])
        assert name in error["message"]
    assert response.headers.get("etag") is None


def test_equal_bounds_and_a_lone_bound_are_accepted(screen_api: Api, index: pl.DataFrame) -> None:
    value = index.filter(pl.col("alpha_id") == "Test_planted_factor")["icir"][0]
    body = screen_api.ok(PATH, min_icir=repr(value), max_icir=repr(value))
    assert [r["alpha_id"] for r in body["data"]] == ["Test_planted_factor"]
    assert screen_api.ok(PATH, max_icir="-1e9")["pagination"]["total"] == 0


# -- paging, conditional requests -----------------------------------------------------------------------


@pytest.mark.parametrize("sort", [None, "-information_ratio", "name", "-last_date", "ic"])
def test_pages_concatenate_to_the_whole_answer(screen_api: Api, sort: str | None) -> None:
    whole = screen_api.ok(PATH, sort=sort, limit=5000)
    for limit in (1, 2, 3, 4):
        rows: list[dict[str, Any]] = []
        while True:
            response = screen_api.get(PATH, sort=sort, limit=limit, offset=len(rows))
            body = response.json()
            rows += body["data"]
            link = response.headers.get("link", "")
            assert ('rel="next"' in link) == body["pagination"]["has_more"]
            assert ('rel="prev"' in link) == (len(rows) > limit)
            if not body["pagination"]["has_more"]:
                break
        assert rows == whole["data"]
    past = screen_api.ok(PATH, sort=sort, offset=50, limit=3)
    assert past["data"] == [] and past["pagination"]["total"] == whole["pagination"]["total"] == 7


@pytest.mark.parametrize(
    "params", [{}, {"sort": "-icir", "tag": "momentum"}, {"production": "false", "limit": 2}]
)
def test_etag_and_304(screen_api: Api, params: dict[str, Any]) -> None:
    first = screen_api.get(PATH, **params)
    assert first.status_code == 200
    tag = first.headers["etag"]
    again = screen_api.get(PATH, headers={"If-None-Match": tag}, **params)
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    assert screen_api.get(PATH, headers={"If-None-Match": '"0000"'}, **params).status_code == 200
    other = screen_api.get(PATH, headers={"If-None-Match": tag}, **{**params, "offset": 1})
    assert other.status_code == 200 and other.headers["etag"] != tag
    # Another key sees other alphas: its answer has another tag, never a 304 on this one.
    restricted = screen_api.get(PATH, "testonly", headers={"If-None-Match": tag}, **params)
    assert restricted.status_code == 200 and restricted.headers["etag"] != tag


def symlinked_lake(source: Path, target: Path, copy_catalogue: bool) -> Path:
    """A lake serving `source`'s builds (symlinked) with a copy of its catalogue, or none."""
    target.mkdir()
    for entry in source.iterdir():
        if entry.name == catalogue_index.CATALOGUE_DIR:
            if copy_catalogue:
                shutil.copytree(entry, target / entry.name)
        else:
            os.symlink(entry, target / entry.name)
    return target


def test_a_new_catalogue_version_is_screened_at_once(demo_lake: Path, tmp_path: Path) -> None:
    from core.settings import Settings
    from serve.app import create_app

    root = str(symlinked_lake(demo_lake, tmp_path / "lake", copy_catalogue=True))
    reader = LakeReader(root, refresh_seconds=60.0)
    app = create_app(
        Settings(lake=root, environment="test"),
        authenticate=authenticator_for(SCREEN_CALLERS),
        limiter=None,
        reader=reader,
    )
    with TestClient(app=app) as client:
        api = Api(client)
        before = api.get(PATH, min_information_ratio="9")
        assert before.json()["pagination"]["total"] == 0
        tag = before.headers["etag"]

        def lift(current: catalogue_index.Generation | None, table: pa.Table | None) -> catalogue_index.Next:
            assert current is not None and table is not None
            ratios = [
                9.5 if a == "Test_planted_factor" else r
                for a, r in zip(
                    table["alpha_id"].to_pylist(), table["information_ratio"].to_pylist(), strict=True
                )
            ]
            column = table.schema.get_field_index("information_ratio")
            lifted = table.set_column(column, "information_ratio", pa.array(ratios, pa.float64()))
            # as `lake index` recomputing the figures: every row indexed anew
            stamp = pa.array([datetime.now(UTC)] * table.num_rows, lifted.schema.field("indexed_at").type)
            lifted = lifted.set_column(lifted.schema.get_field_index("indexed_at"), "indexed_at", stamp)
            return catalogue_index.Next(lifted, current.benchmarks, [])

        catalogue_index.commit(Storage(root), root, lift)
        reader.refresh()
        after = api.get(PATH, headers={"If-None-Match": tag}, min_information_ratio="9")
        assert after.status_code == 200 and after.headers["etag"] != tag
        rows = after.json()["data"]
        assert [(r["alpha_id"], r["information_ratio"]) for r in rows] == [("Test_planted_factor", 9.5)]
        assert (
            api.ok(PATH, "testonly", sort="-information_ratio")["data"][0]["alpha_id"]
            == "Test_planted_factor"
        )
        screener = app.state["services"].reader.snapshot().screener
        assert len(screener.tables()) == 2  # one table per version screened


def test_an_index_written_before_the_one_icir_basis_serves_no_icir(demo_lake: Path, tmp_path: Path) -> None:
    """A generation written before `icir_annualised` held `icir` as each run sealed it (per week or
    annualised) beside `mean_ic`: the server reads no such column as the annualised one. Its ICIR
    and flag are null (not measurable) until `lake index` rewrites the rows; every other figure is
    served."""
    from core.settings import Settings
    from serve.app import create_app

    root = str(symlinked_lake(demo_lake, tmp_path / "lake", copy_catalogue=True))

    def as_before(current: catalogue_index.Generation | None, table: pa.Table | None) -> catalogue_index.Next:
        assert current is not None and table is not None
        sealed = pa.array(
            [-0.39 if a == "value_composite_legacy" else 1.5 for a in table["alpha_id"].to_pylist()]
        )
        old = table.drop_columns(["icir", "ic_reproduces"]).append_column("icir", sealed)
        old = old.rename_columns(["mean_ic" if n == "ic" else n for n in old.column_names])
        return catalogue_index.Next(old, current.benchmarks, [])

    catalogue_index.commit(Storage(root), root, as_before)
    app = create_app(
        Settings(lake=root, environment="test"), authenticate=authenticator_for(SCREEN_CALLERS), limiter=None
    )
    with TestClient(app=app) as client:
        api = Api(client)
        rows = api.ok(PATH, sort="-icir", limit=100)["data"]
        assert [r["alpha_id"] for r in rows] == sorted(r["alpha_id"] for r in rows)  # all null: by alpha_id
        assert all(r["icir"] is None and r["ic_reproduces"] is None for r in rows)
        assert any(r["information_ratio"] is not None for r in rows)
        assert api.ok(PATH, max_icir="0")["pagination"]["total"] == 0  # a null fails a bound
        assert api.ok(PATH, ic_reproduces="false")["pagination"]["total"] == 0


def test_a_lake_without_an_index_answers_503(demo_lake: Path, tmp_path: Path) -> None:
    from core.settings import Settings
    from serve.app import create_app

    root = str(symlinked_lake(demo_lake, tmp_path / "lake", copy_catalogue=False))
    app = create_app(
        Settings(lake=root, environment="test"), authenticate=authenticator_for(SCREEN_CALLERS), limiter=None
    )
    with TestClient(app=app) as client:
        api = Api(client)
        assert api.ok("/v1/alphas")["pagination"]["total"] == 7  # the lake is served, by its pointers
        response = api.get(PATH, sort="-icir")
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "upstream_unavailable"
        assert "alpha-results lake index" in error["message"]
        # Parameters are still checked first, and a key without the route is refused first.
        assert api.get(PATH, sort="nope").status_code == 400
        assert api.get(PATH, "no_analytics").status_code == 403


# -- the engine on a larger synthetic index ----------------------------------------------------------

WORDS = ["Ärger", "straße", "STRASSE", "momentum", "Value", "ΣIGMA", "carry", "quality", "x_y"]


def synthetic_index(seed: int, size: int = 400) -> pa.Table:
    """A catalogue index of `size` alphas with nulls, ties and non-ASCII text in every screened
    column, a few rows unreadable, in a shuffled (but fixed) catalogue order."""
    rng = random.Random(seed)

    def maybe(value: Any, share: float = 0.15) -> Any:
        return None if rng.random() < share else value

    rows = []
    for i in range(size):
        alpha = f"{'Test_' if rng.random() < 0.4 else ''}{rng.choice(WORDS)}_{i:04d}"
        words = rng.sample(WORDS, 2)
        first = date(2020, 1, 1) + timedelta(days=rng.randrange(400))
        row = {
            "alpha_id": alpha,
            "build_id": f"b{i}",
            "name": maybe(" ".join(words)),
            "tldr": maybe(f"{rng.choice(WORDS)} tilt on {rng.choice(WORDS).lower()}"),
            "complete": rng.random() < 0.8,
            "structure": maybe(rng.choice(["cross_sectional", "Time_Series", "pairs"])),
            "method": maybe(rng.choice(["momentum", "Straße", "value"])),
            "tags": maybe(rng.sample(WORDS, rng.randint(0, 3)), 0.2),
            "family": maybe(rng.choice(["planted_latent", "pure_noise", "carry_grid"]), 0.4),
            "information_ratio": maybe(round(rng.gauss(0, 1), rng.choice([1, 6]))),
            "excess_sharpe": maybe(rng.gauss(0, 1)),
            "mean_ic": maybe(rng.choice([0.0, -0.0, 0.01, rng.gauss(0, 0.05)])),
            "icir_annualised": maybe(rng.gauss(0, 1)),
            "ic_reproduces": maybe(rng.random() < 0.8),
            "max_drawdown_pct": maybe(rng.uniform(0, 60)),
            "turnover": maybe(rng.choice([5.0, rng.uniform(0, 50)])),
            "turnover_unit": "per_year",
            "sessions": rng.choice([0, 100, 296, rng.randrange(1000)]),
            "weeks": rng.choice([0, 62, rng.randrange(200)]),
            "first_date": maybe(first),
            "last_date": maybe(first + timedelta(days=rng.randrange(900))),
            "live_split": maybe(first + timedelta(days=rng.randrange(400))),
            "live_split_origin": maybe(rng.choice(["approval", "research_cutoff", "first_published"])),
            "live_information_ratio": maybe(rng.gauss(0, 1)),
            "backtest_information_ratio": maybe(rng.choice([1.0, rng.gauss(1, 1)])),
            "decay_ratio": maybe(rng.gauss(0.5, 1), 0.3),
            "live_sessions": maybe(rng.choice([0, 63, rng.randrange(300)])),
            "residual_information_ratio": maybe(rng.gauss(0, 1)),
            "residual_t_statistic": maybe(rng.choice([0.0, rng.gauss(0, 2)])),
            "unreadable": None,
        }
        if rng.random() < 0.03:
            row = {"alpha_id": alpha, "unreadable": "corrupt pointer"}
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=lake.CATALOGUE_INDEX)


def random_screen(rng: random.Random, frame: pl.DataFrame) -> tuple[list[str], dict[str, Any]]:
    """Random candidates (the key's readable alphas, as the route passes them) and parameters."""
    readable = frame.filter(pl.col("unreadable").is_null())["alpha_id"].to_list()
    candidates = [a for a in readable if rng.random() < rng.choice([0.2, 0.7, 1.0])]
    params = random_params(rng, frame.filter(pl.col("unreadable").is_null()))
    params.pop("production", None)  # a standing: the route narrows the candidates by it, not the engine
    return candidates, params


def screen_from(params: dict[str, Any], candidates: list[str]) -> Screen:
    """What the route makes of `params` (the route's own `screen_of` is exercised over HTTP)."""
    sort = params.get("sort")
    ranges = []
    for column in choices.SCREEN_RANGES:
        low, high = params.get(f"min_{column}"), params.get(f"max_{column}")
        if low is not None or high is not None:
            cast = int if column in INTEGER_RANGES else float
            ranges.append((column, None if low is None else cast(low), None if high is None else cast(high)))
    return Screen(
        candidates=candidates,
        search=params.get("search"),
        tags=tuple(tags_of(params)),
        structure=params.get("structure"),
        method=params.get("method"),
        family=params.get("family"),
        complete_only=params.get("complete_only") == "true",
        ic_reproduces=None if "ic_reproduces" not in params else params["ic_reproduces"] == "true",
        ranges=tuple(ranges),
        sort=None if sort is None else sort.removeprefix("-"),
        descending=sort is not None and sort.startswith("-"),
        limit=params["limit"],
        offset=params["offset"],
    )


def test_the_engine_reproduces_on_a_synthetic_index() -> None:
    table = synthetic_index(11)
    frame = as_screened(table)
    screener = Screener()
    rng = random.Random("screen:engine")
    for _ in range(300):
        candidates, params = random_screen(rng, frame)
        chosen = set(candidates)
        expected = expected_rows(frame, chosen.__contains__, params)
        page = screener.page("g1", table, screen_from(params, candidates))
        served = json.loads(msgspec.json.encode(page.rows))
        limit, offset = params["limit"], params["offset"]
        assert served == expected[offset : offset + limit], params
        assert page.total == len(expected), params
    assert screener.tables() == ["g1"]


def test_the_engine_never_lets_a_column_name_through() -> None:
    table = synthetic_index(3, 20)
    for screen in (
        Screen(candidates=["a"], sort="alpha_id; DROP TABLE screen_1"),
        Screen(candidates=["a"], sort="entry"),
        Screen(candidates=["a"], ranges=(("sharpe_per_session", 0.0, None),)),
        Screen(candidates=["a"], ranges=(('icir" OR 1=1 --', 0.0, None),)),
    ):
        with pytest.raises(ValueError, match="not a"):
            statement("screen_1", screen)
    # Values are parameters: a quote or a statement in one is only text to match.
    screener = Screener()
    ids = table["alpha_id"].to_pylist()
    for text in ("'; DROP TABLE screen_1; --", '" OR 1=1 --', "\x00"):
        hostile = Screen(candidates=ids, search=text, structure=text, tags=(text,))
        assert screener.page("g1", table, hostile).total == 0
    assert screener.page("g1", table, Screen(candidates=ids)).total == len(
        [r for r in table["unreadable"].to_pylist() if r is None]
    )


def test_versions_are_installed_once_and_old_ones_dropped() -> None:
    tables = {f"g{n}": synthetic_index(n, 30) for n in range(1, KEEP_VERSIONS + 3)}
    screener = Screener()
    for version, table in tables.items():
        ids = table["alpha_id"].to_pylist()
        page = screener.page(version, table, Screen(candidates=ids, limit=5000))
        assert [r.alpha_id for r in page.rows] == [
            a for a, u in zip(ids, table["unreadable"].to_pylist(), strict=True) if u is None
        ]
    assert screener.tables() == list(tables)[-KEEP_VERSIONS:]
    # A version whose table was dropped is installed again when a request still holds it.
    oldest = "g1"
    ids = tables[oldest]["alpha_id"].to_pylist()
    again = screener.page(oldest, tables[oldest], Screen(candidates=ids, sort="icir", limit=3))
    assert len(again.rows) == 3 and screener.tables()[-1] == oldest


def test_concurrent_requests_on_changing_versions_each_see_their_own() -> None:
    """Threads screen alternating versions (each installing and evicting the others' tables) and
    every answer is its own version's."""
    tables = {f"g{n}": synthetic_index(100 + n, 120) for n in range(KEEP_VERSIONS + 4)}
    frames = {v: as_screened(t) for v, t in tables.items()}
    screener = Screener()
    failures: list[Any] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            version = rng.choice(list(tables))
            frame = frames[version]
            assert isinstance(frame, pl.DataFrame)
            candidates, params = random_screen(rng, frame)
            expected = expected_rows(frame, set(candidates).__contains__, params)
            try:
                page = screener.page(version, tables[version], screen_from(params, candidates))
                served = json.loads(msgspec.json.encode(page.rows))
                if page.total != len(expected) or served != expected[params["offset"] :][: params["limit"]]:
                    failures.append((version, params))
            except Exception as exc:  # any failure in a thread is a failure of the test
                failures.append((version, params, repr(exc)))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(screener.tables()) <= KEEP_VERSIONS


def test_rows_by_position_are_the_statements_rows() -> None:
    """Issue 51: the screener's rows travel as positions (rows of the catalogue index) from DuckDB
    to the candidate filters and back; the rows read by position from the table's Arrow copy are
    the rows DuckDB selects, field for field, and `matching` is the page's order."""
    table = synthetic_index(12)
    frame = as_screened(table)
    screener = Screener()
    rng = random.Random("screen:positions")
    for _ in range(60):
        candidates, params = random_screen(rng, frame)
        screen = screen_from(params, candidates)
        whole = screener.page("g1", table, replace(screen, limit=10_000, offset=0))
        positions = screener.matching("g1", table, screen)
        assert positions.dtype == np.int64 and len(positions) == whole.total
        by_position = screener.rows_at("g1", table, positions)
        assert msgspec.json.encode(by_position) == msgspec.json.encode(whole.rows)
        ids = table.column("alpha_id").to_pylist()
        assert [ids[p] for p in positions.tolist()] == [row.alpha_id for row in whole.rows]


def test_an_index_of_pipeline_2_5_is_screened_as_one_written_now(demo_lake: Path, tmp_path: Path) -> None:
    """An index written before issue 65 (item 7): `mean_ic` and `icir_annualised` where it now
    writes `ic` and `icir`, `started_at` and `built_at` as text, `indexed_at` in milliseconds,
    `replaced_at` in seconds. The server reads it as the current one: every screened row, in the
    catalogue's order, is the row it serves from the index written now."""
    from core.settings import Settings
    from serve.app import create_app

    def screened(root: str) -> list[dict[str, object]]:
        app = create_app(
            Settings(lake=root, environment="test"),
            authenticate=authenticator_for(SCREEN_CALLERS),
            limiter=None,
        )
        with TestClient(app=app) as client:
            return list(Api(client).ok(PATH, limit=100)["data"])

    root = str(symlinked_lake(demo_lake, tmp_path / "lake", copy_catalogue=True))
    now = screened(root)

    def as_2_5(current: catalogue_index.Generation | None, table: pa.Table | None) -> catalogue_index.Next:
        assert current is not None and table is not None
        old = table.rename_columns(
            [{"ic": "mean_ic", "icir": "icir_annualised"}.get(n, n) for n in table.column_names]
        )
        for name, kind in (
            ("indexed_at", pa.timestamp("ms", tz="UTC")),
            ("replaced_at", pa.timestamp("s", tz="UTC")),
        ):
            at = old.schema.get_field_index(name)
            old = old.set_column(at, name, old.column(at).cast(kind, safe=False))
        for name in ("started_at", "built_at"):
            at = old.schema.get_field_index(name)
            text = [None if t is None else t.isoformat() for t in old.column(at).to_pylist()]
            old = old.set_column(at, name, pa.array(text, pa.string()))
        return catalogue_index.Next(old, current.benchmarks, [])

    catalogue_index.commit(Storage(root), root, as_2_5)
    storage = Storage(root)
    generation = catalogue_index.newest(storage, root)
    assert generation is not None
    written = pq.read_schema(Path(root) / "catalogue" / generation.index)
    assert "mean_ic" in written.names and written.field("built_at").type == pa.string()
    assert screened(root) == now and any(r["ic"] is not None and r["icir"] is not None for r in now)
