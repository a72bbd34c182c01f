"""`/analytics/live`: in-sample against out-of-sample, every figure recomputed independently from
the lake's files (pandas and scipy, nothing from `analytics/`) on random split dates within 1e-9;
where the split comes from (the request, an approval recorded by `alpha-results promote`: the
last session first published before it was recorded, the seal's research_cutoff, the last session
of the first publication); too short an out-of-sample part; what a key that
may not read the ledger or the cross-sections sees."""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import sqlite3
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from cli.main import main as cli
from datasets import clock
from tests.analytics.conftest import ALPHAS, Api
from tests.analytics.reference import Lake
from tests.decided import noon
from tests.knowledge import current_build, demo_split, known_split, recorded_at
from tests.support.build_tables import build_table
from tests.support.live_figures import MIN_OOS, expected

TOLERANCE = 1e-9
PATH = "/v1/alphas/{}/analytics/live"


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def assert_reproduces(data: dict[str, Any], want: dict[str, Any], where: Any) -> None:
    for side in ("in_sample", "out_of_sample"):
        got = data[side]
        for name, value in want[side].items():
            served = got[name]
            if isinstance(served, dict):
                assert served["status"] == ("available" if value is not None else "not_measurable"), (
                    where,
                    side,
                    name,
                )
                assert close(served["value"], value), (where, side, name, served["value"], value)
            else:
                assert served == value, (where, side, name, served, value)
    assert close(data["decay_ratio"]["value"], want["decay_ratio"]), (
        where,
        data["decay_ratio"],
        want["decay_ratio"],
    )
    probability = data["consistency"]["probability"]["value"]
    assert close(probability, want["probability"]), (where, probability, want["probability"])
    verdict = data["consistency"]["verdict"]
    if probability is None:
        assert verdict == "not_measurable", where
    else:
        assert verdict == ("consistent" if probability >= 0.05 else "inconsistent"), where


def random_splits(lake: Lake, alpha: str, count: int) -> list[str]:
    ledger = lake.ledger(alpha, "long_short")
    draw = random.Random(f"live:{alpha}")
    if ledger is None:
        return ["2021-06-30", "2021-12-31"][:count]
    dates = ledger["date"].tolist()
    # Mostly inside the history (both parts measurable), one near its end (too short a live part).
    return sorted(draw.sample(dates[5:-MIN_OOS], count - 1)) + [dates[-10]]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_figure_reproduces_on_random_splits(api: Api, lake: Lake, alpha: str) -> None:
    books = [
        book for book in ("long_short", "long_only", "raw_long_short") if lake.ledger(alpha, book) is not None
    ]
    for split in random_splits(lake, alpha, 4):
        for book in books or ["long_short"]:
            body = api.get(PATH.format(alpha), split=split, book=book)
            assert body.status_code == 200, body.text
            data = body.json()["data"]
            assert data["split_date"] == split and data["split_origin"] == "request"
            assert_reproduces(data, expected(lake, alpha, book, split), (alpha, book, split))


def test_a_short_live_part_is_not_measurable_and_says_why(api: Api, lake: Lake) -> None:
    ledger = lake.ledger("Test_planted_factor", "long_short")
    assert ledger is not None
    split = ledger["date"].iloc[-11]
    data = api.ok(PATH.format("Test_planted_factor"), split=split)["data"]
    assert data["out_of_sample"]["sessions"] == 10
    assert data["decay_ratio"]["status"] == "not_measurable"
    assert data["decay_ratio"]["withheld_reason"] == (
        f"the out-of-sample part holds 10 sessions; at least {MIN_OOS} are needed"
    )
    assert data["consistency"]["verdict"] == "not_measurable"
    assert data["consistency"]["test"] == "probabilistic_sharpe_ratio"
    # The live information ratio follows the same rule (issue 81, item 9: the live check's, the
    # health page's); the part's other figures are still shown.
    ir = data["out_of_sample"]["information_ratio"]
    assert (ir["status"], ir["withheld_reason"]) == ("not_measurable", data["decay_ratio"]["withheld_reason"])
    assert data["out_of_sample"]["max_drawdown_pct"]["status"] == "available"


def first_publication_split(lake: Path, alpha: str) -> str:
    """The last session of the alpha's first publication (polars over its `known_sessions`)."""
    known = build_table(current_build(lake, alpha), "known_sessions").filter(pl.col("dataset") == "portfolio")
    first = known.filter(pl.col("first_published_at") == known["first_published_at"].min())
    found = first["date"].max()
    assert isinstance(found, dt.date)
    return found.isoformat()


def decided(records: Path) -> set[str]:
    """The alphas the records hold an approval of (sqlite3, nothing of `records/`)."""
    with sqlite3.connect(records) as db:
        return {row[0] for row in db.execute("SELECT alpha_id FROM promotions WHERE action = 'approved'")}


def test_the_split_is_the_approval_else_the_seals_research_cutoff_else_the_first_publish(
    api: Api, demo_lake: Path, demo_records: Path
) -> None:
    approved = decided(demo_records)
    # The demo's history: two approved alphas and one approved then retired (docs/events.md).
    assert approved == {"momentum_12_1", "value_composite_legacy", "Test_planted_factor"}
    origins = set()
    for alpha in ALPHAS:
        entry = json.loads((current_build(demo_lake, alpha) / "alpha.json").read_text())
        data = api.ok(PATH.format(alpha))["data"]
        origins.add(data["split_origin"])
        if alpha in approved:  # the last session the lake held when the approval was recorded
            split = demo_split(demo_lake, demo_records, alpha)
            assert (data["split_origin"], data["split_date"]) == ("approval", split), alpha
            # Published after the seal's cutoff and before the decision: backtest, not live.
            assert entry["research_cutoff"] < split, alpha
        elif entry.get("research_cutoff"):
            assert (data["split_origin"], data["split_date"]) == ("research_cutoff", entry["research_cutoff"])
        else:
            assert (data["split_origin"], data["split_date"]) == (
                "first_published",
                first_publication_split(demo_lake, alpha),
            ), alpha
        assert (
            data["out_of_sample"]["first_session"] is None
            or data["out_of_sample"]["first_session"] > (data["split_date"])
        )
    assert origins == {"approval", "first_published"}
    # The approved ones have a live track first seen after their approval.
    for alpha in ("momentum_12_1", "value_composite_legacy"):
        cut = api.ok(PATH.format(alpha))["data"]
        assert cut["out_of_sample"]["sessions"] > 0 and cut["in_sample"]["sessions"] > 0
    # The retired one: its live part ends with the last session known when it was retired.
    with sqlite3.connect(demo_records) as db:
        row = db.execute(
            "SELECT recorded_at FROM promotions WHERE alpha_id = 'Test_planted_factor' AND action = 'retired'"
        ).fetchone()
    retired = known_split(demo_lake, "Test_planted_factor", dt.datetime.fromisoformat(row[0]))
    ended = api.ok(PATH.format("Test_planted_factor"))["data"]["out_of_sample"]
    assert ended["last_session"] == retired.isoformat() and ended["sessions"] > 0


def test_a_key_without_the_ledger_or_the_cross_sections_sees_those_figures_withheld(api: Api) -> None:
    body = api.get(PATH.format("Test_planted_factor"), token="no_portfolio")
    assert body.status_code == 200, body.text
    data, warnings = body.json()["data"], body.json()["meta"]["warnings"]
    for side in ("in_sample", "out_of_sample"):
        assert data[side]["sessions"] is None
        assert data[side]["information_ratio"]["status"] == "not_measurable"
        assert data[side]["information_ratio"]["withheld_reason"].startswith("access_limited")
        assert data[side]["rebuilt_mean_ic"]["status"] == "available"
    assert data["consistency"]["sessions"] is None
    assert any(w["code"] == "access_limited" and w["block"] == "live" for w in warnings)
    no_signals = api.ok(PATH.format("Test_planted_factor"), token="no_signals")["data"]
    assert no_signals["in_sample"]["weeks"] is None
    assert no_signals["in_sample"]["rebuilt_icir"]["withheld_reason"].startswith("access_limited")
    assert no_signals["in_sample"]["information_ratio"]["status"] == "available"


def test_bad_split_is_a_400_naming_it(api: Api) -> None:
    body = api.get(PATH.format("momentum_12_1"), split="2022-13-01")
    assert body.status_code == 400
    named = body.json()["error"]["details"]["parameters"]
    assert [p["name"] for p in named] == ["split"] and "YYYY-MM-DD" in named[0]["rule"]


@pytest.mark.parametrize("with_records", ["empty"], indirect=True)  # records that never heard of the demo's
def test_an_approval_recorded_by_the_cli_becomes_the_split(
    with_records: tuple[Api, str, Path], lake: Lake, capsys: pytest.CaptureFixture[str]
) -> None:
    api, url, copy = with_records
    records = Path(url.removeprefix("sqlite:///"))
    alpha = "Test_planted_factor"

    def split_of_other() -> tuple[str, str]:
        other = api.ok(PATH.format("momentum_12_1"))["data"]
        return other["split_origin"], other["split_date"]

    def decide(day: str, *argv: str) -> None:
        """`argv` recorded on `day`'s clock (a decision is dated when it is recorded)."""
        with clock.simulated(noon(day)):
            assert (
                cli(
                    [*argv, "--lake", str(copy), "--keystore", url, "--by", "head of research", "--note", "n"]
                )
                == 0
            )

    override = ("--override", "approved in a test whatever its checks")
    # Nominated, not approved yet (records that never heard of the demo's decisions): its cutoff.
    decide("2021-11-15", "review", "--nominate", alpha)
    assert api.ok(PATH.format(alpha))["data"]["split_origin"] == "research_cutoff"
    other_before = split_of_other()
    assert other_before[0] == "research_cutoff"
    # Approved a fortnight after its research run was first published: the live part is what the
    # lake first published after that, never the sessions dated after the approval published before.
    decide("2021-11-20", "promote", alpha, *override)
    split = known_split(copy, alpha, recorded_at(records, alpha, "approved")).isoformat()
    assert split < "2021-11-20"
    first = api.get(PATH.format(alpha))
    data = first.json()["data"]
    assert (data["split_origin"], data["split_date"]) == ("approval", split)
    want = expected(lake, alpha, "long_short", split)
    assert want["out_of_sample"]["sessions"] >= MIN_OOS  # a decay ratio to measure
    assert_reproduces(data, want, split)
    # Retired since: the latest approval still starts the live part, which ends with the last
    # session known when the retirement was recorded.
    decide("2021-12-10", "retire", alpha)
    ended = known_split(copy, alpha, recorded_at(records, alpha, "retired")).isoformat()
    data = api.ok(PATH.format(alpha))["data"]
    assert (data["split_date"], data["out_of_sample"]["last_session"]) == (split, ended)
    assert split < ended < "2021-12-10"
    # The approval is part of the answer's ETag: approving again (later) changes it.
    decide("2022-01-12", "promote", alpha, *override)
    later = known_split(copy, alpha, recorded_at(records, alpha, "approved")).isoformat()
    assert later > ended
    second = api.get(PATH.format(alpha))
    assert second.json()["data"]["split_date"] == later
    assert second.headers["etag"] != first.headers["etag"]
    # Another alpha keeps its own split.
    assert split_of_other() == other_before
    capsys.readouterr()


def test_the_in_process_figure_is_the_served_one(api: Api, demo_lake: Path) -> None:
    import msgspec

    from analytics.figures import Figures

    figures = Figures.open(str(demo_lake))
    try:
        for alpha in ("Test_planted_factor", "momentum_12_1"):
            served = api.get(PATH.format(alpha), split="2021-09-30").json()["data"]
            found = figures.live(alpha, split=dt.date(2021, 9, 30))
            assert json.loads(msgspec.json.encode(found)) == served
    finally:
        figures.reader.close()


def test_without_a_split_everything_is_in_sample(demo_lake: Path) -> None:
    """An alpha with no split (never approved, no research_cutoff, no first publish recorded: a
    build published before it was kept) has an empty live part and says why."""
    from analytics.access import FULL_ACCESS
    from analytics.entries import Warnings
    from analytics.figures import Figures
    from analytics.live import Split, live_payload

    figures = Figures.open(str(demo_lake))
    try:
        view = figures.build("Test_planted_factor")
        data = live_payload(view, "long_short", Split(None, None), FULL_ACCESS, Warnings())
        whole = figures.live("Test_planted_factor", split=dt.date(2100, 1, 1))
    finally:
        figures.reader.close()
    assert (data.split_date, data.split_origin) == (None, None)
    assert data.out_of_sample.sessions == 0 and data.out_of_sample.first_session is None
    assert data.in_sample == whole.in_sample
    assert data.decay_ratio.withheld_reason == (
        "the alpha has no split: never approved, no research_cutoff, no first publish date recorded"
    )
    assert data.consistency.verdict == "not_measurable"
