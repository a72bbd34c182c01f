"""`/analytics/live`: in-sample against out-of-sample, every figure recomputed independently from
the lake's files (pandas and scipy, nothing from `analytics/`) on random split dates within 1e-9;
where the split comes from (the request, an approval recorded by `alpha-results promote`, the
seal's research_cutoff, the first publish date); too short an out-of-sample part; what a key that
may not read the ledger or the cross-sections sees."""

from __future__ import annotations

import datetime as dt
import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from access.records import RESTRICTED
from cli.main import main as cli
from tests.analytics.conftest import ALPHAS, Api
from tests.analytics.reference import Lake

TOLERANCE = 1e-9
MIN_OOS = 63
PATH = "/v1/alphas/{}/analytics/live"


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def ratio(x: np.ndarray, scale: float) -> float | None:
    x = x[np.isfinite(x)]
    if x.size < 2:
        return None
    sd = float(np.std(x, ddof=1))
    return float(np.mean(x)) / sd * scale if sd > 0 else None


def drawdown_pct(r: np.ndarray) -> float | None:
    if r.size == 0:
        return None
    level = np.concatenate([[1.0], np.cumprod(1.0 + r)])
    return float(np.max(1.0 - level / np.maximum.accumulate(level))) * 100.0


def part_of(ledger: pd.DataFrame | None, ic: pd.Series | None) -> dict[str, Any]:
    """The figures of one part, from its ledger rows and its weekly ICs (finite)."""
    out: dict[str, Any] = {}
    if ledger is not None:
        r = ledger["ending_equity"].to_numpy(float) / ledger["starting_equity"].to_numpy(float) - 1.0
        rf = ledger["risk_free_return"].to_numpy(float)
        turnover = ledger["turnover"].to_numpy(float)
        turnover = turnover[np.isfinite(turnover)]
        out |= {
            "sessions": len(ledger),
            "first_session": ledger["date"].iloc[0] if len(ledger) else None,
            "last_session": ledger["date"].iloc[-1] if len(ledger) else None,
            "information_ratio": ratio(r, math.sqrt(252)),
            "excess_sharpe": ratio(r - rf, math.sqrt(252)),
            "max_drawdown_pct": drawdown_pct(r),
            "turnover": float(turnover.mean()) * 252 if turnover.size else None,
        }
    if ic is not None:
        values = ic.to_numpy(float)
        out |= {
            "weeks": int(values.size),
            "rebuilt_mean_ic": float(values.mean()) if values.size else None,
            "rebuilt_icir": ratio(values, math.sqrt(52)),
            "rebuilt_hit_rate": float((values > 0).sum()) / values.size if values.size else None,
        }
    return out


def psr(oos: np.ndarray, ins: np.ndarray) -> float | None:
    """Bailey and Lopez de Prado's PSR of the out-of-sample returns against the in-sample
    per-session Sharpe ratio."""
    if oos.size < 3 or ins.size < 3:
        return None
    sr_star = float(np.mean(ins)) / float(np.std(ins, ddof=1))
    sr = float(np.mean(oos)) / float(np.std(oos, ddof=1))
    skew = float(stats.skew(oos))
    kurt = float(stats.kurtosis(oos, fisher=False))
    d = 1.0 - skew * sr + (kurt - 1.0) / 4.0 * sr**2
    return float(stats.norm.cdf((sr - sr_star) * math.sqrt(oos.size - 1) / math.sqrt(d))) if d > 0 else None


def expected(lake: Lake, alpha: str, book: str, split: str) -> dict[str, Any]:
    ledger = lake.ledger(alpha, book)
    signal = lake.weekly_signal(alpha)
    ics: list[pd.Series | None] = [None, None]
    if signal is not None:
        days = pd.to_datetime(signal["date"])
        realised = days.shift(-1).fillna(days.iloc[-1] + pd.Timedelta(days=7))
        inside = realised <= pd.Timestamp(split)
        finite = np.isfinite(signal["ic"].to_numpy(float))
        ics = [signal["ic"][inside & finite], signal["ic"][~inside & finite]]
    parts: list[pd.DataFrame | None] = [None, None]
    if ledger is not None:
        parts = [ledger[ledger["date"] <= split], ledger[ledger["date"] > split]]
    ins, oos = part_of(parts[0], ics[0]), part_of(parts[1], ics[1])
    decay = consistency = None
    if ledger is not None and oos["sessions"] >= MIN_OOS:
        if ins["information_ratio"] and ins["information_ratio"] > 0 and oos["information_ratio"] is not None:
            decay = oos["information_ratio"] / ins["information_ratio"]
        r = [p["ending_equity"].to_numpy(float) / p["starting_equity"].to_numpy(float) - 1.0 for p in parts]  # type: ignore[union-attr]
        consistency = psr(r[1], r[0])
    return {"in_sample": ins, "out_of_sample": oos, "decay_ratio": decay, "probability": consistency}


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
    # The part's own figures are still shown: ten sessions have an information ratio.
    assert data["out_of_sample"]["information_ratio"]["status"] == "available"


def test_the_split_is_the_seals_research_cutoff_else_the_first_publish(api: Api, demo_lake: Path) -> None:
    for alpha in ALPHAS:
        build = json.loads((demo_lake / "alphas" / alpha / "_current.json").read_text())["build_id"]
        entry = json.loads((demo_lake / "alphas" / alpha / "builds" / build / "alpha.json").read_text())
        data = api.ok(PATH.format(alpha))["data"]
        sealed = entry.get("research_cutoff") or entry["first_published_at"][:10]
        if alpha in RESTRICTED:  # approved by its seal at its first publish, as of that date
            assert (data["split_origin"], data["split_date"]) == ("approval", sealed)
        elif entry.get("research_cutoff"):
            assert (data["split_origin"], data["split_date"]) == ("research_cutoff", entry["research_cutoff"])
        else:
            assert data["split_origin"] == "first_published"
            assert data["split_date"] == entry["first_published_at"][:10]
    # The demo seals a cutoff for two alphas; the others were first published when the lake was built.
    cut = api.ok(PATH.format("Test_planted_factor"))["data"]
    assert cut["split_origin"] == "research_cutoff"
    assert cut["out_of_sample"]["sessions"] > 0 and cut["in_sample"]["sessions"] > 0


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


def test_an_approval_recorded_by_the_cli_becomes_the_split(
    with_records: tuple[Api, str, Path], lake: Lake, capsys: pytest.CaptureFixture[str]
) -> None:
    api, url, copy = with_records

    def split_of_other() -> tuple[str, str]:
        other = api.ok(PATH.format("momentum_12_1"))["data"]
        return other["split_origin"], other["split_date"]

    ledger = lake.ledger("Test_planted_factor", "long_short")
    assert ledger is not None
    as_of = ledger["date"].iloc[len(ledger) // 2]
    # No approval of it yet (the records hold the seal's of the restricted alphas): its cutoff.
    assert api.ok(PATH.format("Test_planted_factor"))["data"]["split_origin"] == "research_cutoff"
    args = ["--lake", str(copy), "--keystore", url, "--by", "head of research", "--note", "n"]
    assert (
        cli(
            [
                "promote",
                "Test_planted_factor",
                "--as-of",
                as_of,
                *args,
                "--override",
                "approved in a test whatever its checks",
            ]
        )
        == 0
    )
    first = api.get(PATH.format("Test_planted_factor"))
    data = first.json()["data"]
    assert (data["split_origin"], data["split_date"]) == ("approval", as_of)
    other_before = split_of_other()
    assert other_before[0] == "approval"
    assert_reproduces(data, expected(lake, "Test_planted_factor", "long_short", as_of), as_of)
    # Retired since: the latest approval still starts the live part.
    retired = ledger["date"].iloc[len(ledger) // 2 + 10]
    assert cli(["retire", "Test_planted_factor", "--as-of", retired, *args]) == 0
    assert api.ok(PATH.format("Test_planted_factor"))["data"]["split_date"] == as_of
    # The approval is part of the answer's ETag: approving again (a later date) changes it.
    later = ledger["date"].iloc[len(ledger) // 2 + 20]
    assert (
        cli(
            [
                "promote",
                "Test_planted_factor",
                "--as-of",
                later,
                *args,
                "--override",
                "approved in a test whatever its checks",
            ]
        )
        == 0
    )
    second = api.get(PATH.format("Test_planted_factor"))
    assert second.json()["data"]["split_date"] == later
    assert second.headers["etag"] != first.headers["etag"]
    # Another alpha keeps its own split (momentum_12_1: its seal's approval at its research cutoff).
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
