"""Bring a factor (sealkit/src/alpha_results_seal/factor.py): the demo's own scores and prices reproduce the demo
engine's books, and every seal the factor path writes passes the pipeline's seal check."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from alpha_results_seal import factor
from alpha_results_seal.check import check_seal
from alpha_results_seal.demo.alphas import ALPHAS, AlphaSpec
from alpha_results_seal.demo.market import Market, simulate_market
from alpha_results_seal.factor import seal_from_factor
from alpha_results_seal.frames import BuildError
from alpha_results_seal.rules import differs

BOOK_KINDS = ("portfolio", "positions", "pnl", "trades")
# Rows are matched on these (the factor path's universe is in symbol order, the demo's in its
# own order, so rows of one session come in another order).
KEYS = ("date", "timestamp", "symbol", "phase")
WITH_DECISIONS = [spec for spec in ALPHAS if "decisions" in spec.kinds_sealed]


@pytest.fixture(scope="module")
def market() -> Market:
    return simulate_market("small", 7)  # as write_corpus(size="small", seed=7) does


def _demo_prices(market: Market, symbols: list[str]) -> pa.Table:
    """The demo market's prices of `symbols` as a researcher's daily frame."""
    idx = np.flatnonzero(np.isin(market.symbols, symbols))
    sessions = len(market.dates)
    return pa.table(
        {
            "date": pa.array(np.repeat(market.dates, len(idx)), pa.date32()),
            "symbol": np.tile(market.symbols[idx], sessions),
            "open": market.open[:, idx].ravel(),
            "close": market.close[:, idx].ravel(),
            "adv_dollars": market.adv_dollars[:, idx].ravel(),
            "borrow_rate": np.tile(market.borrow_rate[idx], sessions),
            **{
                f: getattr(market, f)[:, idx].ravel()
                for f in ("halted", "suspended", "no_borrow", "price_missing")
            },
        }
    )


def _sorted(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame.sort([k for k in KEYS if k in frame.columns], maintain_order=True)


@pytest.mark.parametrize("spec", WITH_DECISIONS, ids=lambda s: s.alpha_id)
def test_the_demo_scores_and_prices_reproduce_every_book(
    spec: AlphaSpec, market: Market, demo_seals: Path, tmp_path: Path
) -> None:
    demo = demo_seals / spec.alpha_id
    scores = pq.read_table(demo / "decisions.parquet", columns=["date", "symbol", "pre_smoothing_score"])
    scores = scores.rename_columns(["date", "symbol", "score"])
    symbols = sorted(set(scores.column("symbol").to_pylist()))
    risk_free = pa.table({"date": pa.array(market.dates, pa.date32()), "rate": market.risk_free_annual})
    out = seal_from_factor(
        scores,
        _demo_prices(market, symbols),
        tmp_path,
        alpha_id=spec.alpha_id,
        name=spec.name,
        tldr=spec.tldr,
        half_life_weeks=spec.half_life_weeks,
        risk_free=risk_free,
    )
    assert check_seal(str(out)).ok
    compared = 0
    for path in sorted(demo.rglob("*.parquet")):
        relative = path.relative_to(demo)
        if relative.parts[0] not in BOOK_KINDS:
            continue
        want, got = _sorted(pq.read_table(path)), _sorted(pq.read_table(out / relative))
        assert got.height == want.height, relative
        for column in want.columns:
            pair = pl.DataFrame({"want": want.get_column(column), "got": got.get_column(column)})
            if want.schema[column] == pl.Float64:
                want_values, got_values = (
                    want.get_column(column).to_arrow(),
                    got.get_column(column).to_arrow(),
                )
                both_null = pl.Series(want_values.is_null().to_pylist()) & pl.Series(
                    got_values.is_null().to_pylist()
                )
                off = pl.Series(differs(want_values, got_values).to_pylist()) & ~both_null
                assert not off.any(), (relative, column, pair.filter(off).head(3))
            else:
                assert pair["got"].to_list() == pair["want"].to_list(), (relative, column)
        compared += 1
    # Every book of every kind the demo sealed (trades with their two variants).
    kinds = [k for k in BOOK_KINDS if k in spec.kinds_sealed]
    assert compared == 4 * len(kinds) + (8 if "trades" in kinds else 0)


def _panel(
    seed: int, n_names: int, n_weeks: int, missing: float, flagged: float, optional: str
) -> tuple[pa.Table, pa.Table]:
    """Random scores and prices: `missing` share of scores absent, `flagged` share of flags set."""
    rng = np.random.default_rng(seed)
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(7 * n_weeks + 3)]
    days = [d for d in days if d.weekday() < 5]
    symbols = [f"N{i:02d}" for i in range(n_names)]
    fridays = [d for d in days if d.weekday() == 4]
    score = rng.standard_normal((len(fridays), n_names))
    score[rng.random(score.shape) < missing] = np.nan
    scores = pa.table(
        {
            "date": pa.array(np.repeat(fridays, n_names), pa.date32()),
            "symbol": symbols * len(fridays),
            "score": pa.array(score.ravel(), mask=np.isnan(score.ravel())),
        }
    )
    shape = (len(days), n_names)
    close = 20 * np.exp(np.cumsum(0.02 * rng.standard_normal(shape), axis=0))
    columns = {
        "date": pa.array(np.repeat(days, n_names), pa.date32()),
        "symbol": symbols * len(days),
        "open": (close * np.exp(0.005 * rng.standard_normal(shape))).ravel(),
        "close": close.ravel(),
        **{
            f: (rng.random(shape) < flagged).ravel()
            for f in ("halted", "suspended", "no_borrow", "price_missing")
        },
    }
    if optional == "volume":
        columns["volume"] = rng.uniform(1e4, 1e6, shape).ravel()
    elif optional == "adv":
        columns["adv_dollars"] = rng.uniform(1e6, 1e8, shape).ravel()
        columns["borrow_rate"] = rng.uniform(0.0, 0.2, shape).ravel()
    return scores, pa.table(columns)


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n_names=st.integers(1, 24),
    n_weeks=st.integers(1, 5),
    missing=st.sampled_from([0.0, 0.3, 1.0]),
    flagged=st.sampled_from([0.0, 0.05, 0.5]),
    optional=st.sampled_from(["none", "volume", "adv"]),
    half_life=st.sampled_from([None, 2.0]),
)
# A single name; a name never tradeable (every flag set); no score at all: every week skipped.
@example(seed=1, n_names=1, n_weeks=3, missing=0.0, flagged=0.0, optional="none", half_life=2.0)
@example(seed=2, n_names=12, n_weeks=3, missing=0.0, flagged=1.0, optional="volume", half_life=None)
@example(seed=3, n_names=12, n_weeks=3, missing=1.0, flagged=0.0, optional="adv", half_life=2.0)
def test_every_factor_seal_passes_the_seal_check(
    tmp_path: Path,
    seed: int,
    n_names: int,
    n_weeks: int,
    missing: float,
    flagged: float,
    optional: str,
    half_life: float | None,
) -> None:
    scores, prices = _panel(seed, n_names, n_weeks, missing, flagged, optional)
    out = seal_from_factor(
        scores,
        prices,
        tmp_path,
        alpha_id="Test_factor",
        name="Factor",
        tldr=None,
        half_life_weeks=half_life,
        risk_free=0.04,
    )
    report = check_seal(str(out))
    assert report.ok, report


def test_pandas_and_polars_frames_give_the_same_seal(tmp_path: Path) -> None:
    scores, prices = _panel(3, 20, 4, 0.1, 0.02, "volume")
    # pandas as a researcher has it: dates as datetime64 (a timestamp column once in Arrow).
    scores_pd, prices_pd = scores.to_pandas(), prices.to_pandas()
    for frame in (scores_pd, prices_pd):
        frame["date"] = pd.to_datetime(frame["date"])
    from_pandas = seal_from_factor(
        scores_pd, prices_pd, tmp_path / "pandas", alpha_id="Test_factor", name=None, tldr=None
    )
    from_polars = seal_from_factor(
        pl.from_arrow(scores),
        pl.from_arrow(prices),
        tmp_path / "polars",
        alpha_id="Test_factor",
        name=None,
        tldr=None,
    )
    statuses = pq.read_table(from_pandas / "rebalances.parquet").column("week_status").to_pylist()
    assert "traded" in statuses
    for kind in ("decisions.parquet", "trades/long_short.parquet", "portfolio/raw_long_only.parquet"):
        assert pq.read_table(from_pandas / kind).equals(pq.read_table(from_polars / kind)), kind


def test_a_score_date_without_prices_is_refused_by_name(tmp_path: Path) -> None:
    scores, prices = _panel(1, 12, 2, 0.0, 0.0, "none")
    late = pa.table({"date": pa.array([dt.date(2030, 1, 4)], pa.date32()), "symbol": ["N00"], "score": [1.0]})
    with pytest.raises(ValueError, match="2030-01-04 has no prices"):
        seal_from_factor(
            pa.concat_tables([scores, late]), prices, tmp_path, alpha_id="Test_factor", name=None, tldr=None
        )


def test_started_at_and_research_cutoff_are_typed_and_another_type_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cutoff is stated in the manifest as its ISO day, and the seal passes the check; text or
    a datetime (a moment, a day only in some time zone) is refused naming the argument."""
    scores, prices = _panel(2, 12, 4, 0.0, 0.0, "none")
    cutoff = scores.column("date").to_pylist()[len(scores) // 2]

    def sealed(folder: str, **facts: Any) -> Path:
        return seal_from_factor(
            scores, prices, tmp_path / folder, alpha_id="Test_factor", name=None, tldr=None, **facts
        )

    out = sealed("ok", research_cutoff=cutoff)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["research_cutoff"] == cutoff.isoformat()
    assert dt.datetime.fromisoformat(manifest["started_at"]).tzinfo is not None  # the call's time, UTC
    assert check_seal(str(out)).ok
    dated = json.loads((sealed("dated", started_at=dt.date(2024, 1, 2)) / "manifest.json").read_text())
    assert dated["started_at"] == "2024-01-02T00:00:00+00:00"
    refused = [
        ({"started_at": "2024-01-02"}, "started_at must be a datetime or a date, got str"),
        ({"research_cutoff": cutoff.isoformat()}, "research_cutoff must be a date, got str"),
        ({"research_cutoff": dt.datetime(2024, 1, 2, 12)}, "research_cutoff must be a date, got datetime"),
    ]
    for facts, message in refused:
        # Refused by the factor path's own check, before the market is simulated (anchored: the
        # manifest's later check says `Facts.research_cutoff`).
        with monkeypatch.context() as patch:
            patch.setattr(factor, "factor_market", lambda *a: pytest.fail("simulated before the check"))
            with pytest.raises(BuildError, match=f"^{message}$"):
                sealed("bad", **facts)
        assert not (tmp_path / "bad").exists()


def test_a_variant_states_its_family_and_parameters_and_a_bad_one_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 65, item 4: a team sealing 16 variants of one idea names the family and each variant's
    parameters in the call (before, 5 of 42 lines were a hand edit of manifest.json); the manifest
    states them and the seal passes the check. A family or parameters the manifest's check would
    refuse are refused the same way, before anything is simulated or written."""
    scores, prices = _panel(2, 12, 4, 0.0, 0.0, "none")

    def sealed(folder: str, **facts: Any) -> Path:
        return seal_from_factor(
            scores, prices, tmp_path / folder, alpha_id="Test_factor_v3", name=None, tldr=None, **facts
        )

    parameters = {"lookback_weeks": 12, "skip": 0.5, "universe": "top_1000"}
    out = sealed("ok", family="momentum_lookbacks", parameters=parameters)
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["family"], manifest["parameters"]) == ("momentum_lookbacks", parameters)
    assert check_seal(str(out)).ok
    plain = json.loads((sealed("plain") / "manifest.json").read_text())
    assert "family" not in plain and "parameters" not in plain
    for facts, field in [
        ({"family": "two words"}, "family"),
        ({"family": "x" * 500}, "family"),
        ({"parameters": {"lookback": float("nan")}}, "parameters.lookback must be a finite number"),
        ({"parameters": {"bad name!": 1}}, "parameters"),
        ({"parameters": {"nested": [1, 2]}}, "parameters"),
    ]:
        with monkeypatch.context() as patch:
            patch.setattr(factor, "factor_market", lambda *a: pytest.fail("simulated before the check"))
            with pytest.raises(BuildError, match=field):
                sealed("bad", **facts)
        assert not (tmp_path / "bad").exists()


def test_the_lead_example_of_seal_md_writes_a_seal_that_passes_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/seal.md opens with the ten lines from frames to a seal: run as written, over a
    panel saved where it reads it, the seal it writes passes `alpha-results seal check`."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "seal.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    lead = next(block for block in blocks if "seal_from_factor" in block)
    scores, prices = _panel(5, 20, 5, 0.05, 0.0, "volume")
    monkeypatch.chdir(tmp_path)
    pq.write_table(scores, "scores.parquet")
    pq.write_table(prices, "prices.parquet")
    exec(compile(lead, "docs/seal.md", "exec"), {})
    report = check_seal(str(tmp_path / "seals" / "Test_my_factor"))
    assert report.ok, report.lines()


@pytest.mark.parametrize("alpha_id", ["", ".", "..", "../outside", "a/b", "x" * 129])
def test_an_alpha_id_that_is_not_one_is_refused_before_anything_is_replaced(
    tmp_path: Path, alpha_id: str
) -> None:
    """The seal goes into `out_dir/alpha_id`, replaced: "" or ".." would name `out_dir` itself or
    its parent, whose content is never touched."""
    scores, prices = _panel(4, 12, 3, 0.0, 0.0, "none")
    out = tmp_path / "seals"
    kept = out / "kept.txt"
    out.mkdir()
    kept.write_text("mine")
    with pytest.raises(ValueError, match="alpha_id"):
        seal_from_factor(scores, prices, out, alpha_id=alpha_id, name=None, tldr=None)
    assert kept.read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["seals"]
