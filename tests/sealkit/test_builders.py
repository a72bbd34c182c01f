"""The builders' derived columns against independent computation: ranks by scipy's rankdata,
signs and magnitudes by numpy, the ledger against the demo engine's own books (which computes it
in its simulation loop, not from the names' rows), and a seal written to S3 (moto)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, rankdata, spearmanr

from alpha_results_seal import ranking
from alpha_results_seal.builders import (
    DECISIONS_DERIVED,
    Book,
    BuildError,
    book_tables,
    build_seal,
    decisions_table,
    trades_table,
    write_seal,
)
from alpha_results_seal.check import check_seal
from alpha_results_seal.demo.corpus import write_corpus
from alpha_results_seal.rules import RELATIVE_TOLERANCE
from tests.sealkit.frames import read_team, team_frames

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_seal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("demo"), size="small", seed=7, only=["momentum_12_1"])[0]


scores = st.lists(
    st.one_of(st.none(), st.sampled_from([-1.5, -0.25, 0.0, 0.25, 2.0]), st.floats(-5, 5, allow_nan=False)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60)
@given(st.lists(scores, min_size=1, max_size=4))
def test_direction_confidence_and_ranks_are_numpys_and_scipys(weeks: list[list[float | None]]) -> None:
    rows = [
        (dt.date(2024, 1, 5) + dt.timedelta(weeks=w), f"N{i:02d}", s)
        for w, week in enumerate(weeks)
        for i, s in enumerate(week)
    ]
    frame = pl.DataFrame(
        rows, schema={"date": pl.Date, "symbol": pl.String, "score": pl.Float64}, orient="row"
    )
    frame = frame.with_columns(long_short_target_weight=pl.lit(0.0), long_only_target_weight=pl.lit(0.0))
    built = pl.from_arrow(decisions_table(frame))
    assert isinstance(built, pl.DataFrame)
    for _, week in built.group_by("date"):
        score = week["score"].to_numpy().astype(float)
        known = ~np.isnan(score)
        expected_rank = np.full(len(score), np.nan)
        expected_rank[known] = rankdata(-score[known], method="average")
        np.testing.assert_array_equal(week["average_rank"].to_numpy().astype(float), expected_rank)
        np.testing.assert_array_equal(week["confidence"].to_numpy().astype(float), np.abs(score))
        direction = week["direction"].to_numpy().astype(float)
        np.testing.assert_array_equal(direction, np.sign(score))
        # no smoothing stated: the raw twins are the conditioned columns
        assert week["raw_average_rank"].equals(week["average_rank"], check_names=False)


@settings(max_examples=60)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=3, max_size=40))
def test_the_kits_ranks_and_correlations_are_scipys(pairs: list[tuple[float, float]]) -> None:
    x, y = (np.array(v) for v in zip(*pairs, strict=True))
    np.testing.assert_array_equal(ranking.average_rank(x), rankdata(x, method="average"))
    if np.ptp(x) > 0 and np.ptp(y) > 0:
        assert ranking.pearson(x, y) == pytest.approx(float(pearsonr(x, y)[0]), abs=1e-12)
        assert ranking.spearman(x, y) == pytest.approx(float(spearmanr(x, y)[0]), abs=1e-12)


@pytest.mark.parametrize("book", ["long_short", "long_only", "raw_long_short", "raw_long_only"])
def test_the_ledger_from_the_names_rows_is_the_demo_engines(demo_seal: Path, book: str) -> None:
    """The demo engine keeps its ledger in its simulation loop (cash moved by each fill); the
    builder derives it from the names' positions, P&L and fills: equal within the rules' tolerance."""
    engine = pl.read_parquet(demo_seal / "portfolio" / f"{book}.parquet")
    built = book_tables(
        Book(
            positions=pl.read_parquet(demo_seal / "positions" / f"{book}.parquet"),
            pnl=pl.read_parquet(demo_seal / "pnl" / f"{book}.parquet").drop("execution_cost"),
            trades=pl.read_parquet(demo_seal / "trades" / f"{book}.parquet").drop("execution_cost"),
            sessions=engine.select("date", "risk_free_return", "rounding_adjustment"),
        ),
        book,
    )
    ledger = pl.from_arrow(built["portfolio"])
    assert isinstance(ledger, pl.DataFrame)
    assert ledger["date"].equals(engine["date"]) and ledger["timestamp"].equals(engine["timestamp"])
    for column in engine.columns[2:]:
        a, b = ledger[column].to_numpy(), engine[column].to_numpy()
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        assert (np.abs(a - b) <= RELATIVE_TOLERANCE * scale).all(), column
    for kind, keys in (("pnl", ["date", "symbol"]), ("trades", ["timestamp", "symbol"])):
        sealed = pq.read_table(demo_seal / kind / f"{book}.parquet").sort_by([(k, "ascending") for k in keys])
        assert built[kind].equals(sealed), kind  # execution_cost derived, bit for bit


def test_a_derived_or_unknown_column_and_a_missing_one_are_refused_by_name() -> None:
    frame = pl.DataFrame({"date": [dt.date(2024, 1, 5)], "symbol": ["A"], "score": [1.0]})
    with pytest.raises(BuildError, match="'long_short_target_weight', 'long_only_target_weight'"):
        decisions_table(frame)
    weights = frame.with_columns(long_short_target_weight=pl.lit(0.0), long_only_target_weight=pl.lit(0.0))
    with pytest.raises(BuildError, match=r"decisions\.confidence is derived by the kit"):
        decisions_table(weights.with_columns(confidence=pl.lit(1.0)))
    with pytest.raises(BuildError, match="decisions has a column 'scroe'"):
        decisions_table(weights.with_columns(scroe=pl.lit(1.0)))


def test_a_nan_score_is_refused_by_name() -> None:
    """A NaN score has no sign: the builders refuse it, naming the column (with polars they raised
    polars' own InvalidOperationError from the sign's cast)."""
    frame = pa.table(
        {
            "date": pa.array([dt.date(2024, 1, 5)] * 2, pa.date32()),
            "symbol": ["A", "B"],
            "score": [1.0, float("nan")],
            "long_short_target_weight": [0.0, 0.0],
            "long_only_target_weight": [0.0, 0.0],
        }
    )
    with pytest.raises(BuildError, match=r"decisions\.score holds NaN"):
        decisions_table(frame)
    with_null = frame.set_column(2, "score", pa.array([1.0, None]))
    built = decisions_table(with_null)
    assert built.column("average_rank").to_pylist() == [1.0, None]
    assert built.column("direction").to_pylist() == [1, None]


@pytest.mark.s3
def test_a_seal_written_to_s3_passes_the_check(demo_seal: Path, s3_bucket: str, tmp_path: Path) -> None:
    facts, books, decisions, week_status = read_team(
        team_frames(demo_seal, tmp_path, "Test_kit_s3"), pl.read_parquet
    )
    dest = f"s3://{s3_bucket}/seals/Test_kit_s3"
    report = write_seal(dest, facts, decisions, books, week_status=week_status)
    assert report.ok, report.lines()
    assert check_seal(dest).ok


def test_the_builders_example_of_seal_md_runs_as_written(
    demo_seal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/seal.md opens with the lines from a team's frames to a checked seal: run as written
    over frames saved where it reads them, it writes a seal the check passes."""
    text = (REPO / "docs" / "seal.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    lead = next(block for block in blocks if "write_seal" in block)
    monkeypatch.chdir(tmp_path)
    decisions = pl.read_parquet(demo_seal / "decisions.parquet").drop(*DECISIONS_DERIVED)
    decisions.drop(
        [c for c in decisions.columns if c.startswith("raw_") or c == "pre_smoothing_score"]
    ).write_parquet("decisions.parquet")
    for part in ("positions", "pnl", "trades"):
        pl.read_parquet(demo_seal / part / "long_short.parquet").drop(
            "execution_cost", strict=False
        ).write_parquet(f"{part}.parquet")
    exec(compile(lead, "docs/seal.md", "exec"), {})
    assert check_seal(str(tmp_path / "seals" / "Test_my_engine")).ok


def test_pandas_datetimes_become_dates_and_utc_instants_and_a_wrong_type_is_named() -> None:
    """A pandas frame's dates are usually datetime64 and its instants naive: a date column takes
    the calendar day, a naive instant is read as UTC (docs/seal.md "The seal kit")."""
    import pandas as pd

    frame = pd.DataFrame(
        {
            "date": pd.to_datetime(["2024-01-05", "2024-01-05", "2024-01-12"]),
            "symbol": ["A", "B", "A"],
            "score": [1.0, None, -2.0],
            "long_short_target_weight": 0.0,
            "long_only_target_weight": 0.0,
        }
    )
    built = decisions_table(frame)
    assert built.column("date").to_pylist() == [
        dt.date(2024, 1, 5),
        dt.date(2024, 1, 5),
        dt.date(2024, 1, 12),
    ]
    assert built.column("average_rank").to_pylist() == [1.0, None, 1.0]
    assert built.column("direction").to_pylist() == [1, None, -1]
    fills = pd.DataFrame(
        {
            "timestamp": pd.to_datetime(["2024-01-08 14:30"]),
            "decision_at": [dt.date(2024, 1, 5)],
            "symbol": ["A"],
            "phase": ["open"],
            "quantity": [10.0],
            "mid_price": [100.0],
            "fill_price": [100.1],
            "fee": [0.05],
        }
    )
    trades = trades_table(fills, "long_short")
    assert trades.column("timestamp").to_pylist() == [dt.datetime(2024, 1, 8, 14, 30, tzinfo=dt.UTC)]
    assert trades.column("execution_cost").to_pylist() == [pytest.approx(-(0.05 + 10 * 0.1))]
    with pytest.raises(BuildError, match=r"decisions\.score must be double"):
        decisions_table(frame.assign(score=["x", "y", "z"]))


def test_a_seal_given_no_stored_metrics_gets_them_derived_from_its_own_books(
    demo_seal: Path, tmp_path: Path
) -> None:
    """Issue 47, item 9: a kit-built seal without stored metrics published blank headline figures
    (every core figure not_measurable). The kit now derives them from the seal's own long_short
    ledger and cross-sections by the formulas of docs/seal.md: for a demo seal, the very rows the
    demo engine sealed (its metrics are those formulas), within 1e-9."""
    facts, books, decisions, week_status = read_team(
        team_frames(demo_seal, tmp_path, "momentum_12_1"), pl.read_parquet
    )
    # The demo engine annualises its ICIR (its manifest's metric_conventions say so).
    conventions = json.loads((demo_seal / "manifest.json").read_text())["metric_conventions"]
    facts = dataclasses.replace(facts, icir_annualised=conventions["icir_annualised"])
    built = build_seal(facts, decisions, books, week_status=week_status)
    derived = pl.from_arrow(built.tables["metrics.parquet"])
    sealed = pl.read_parquet(demo_seal / "metrics.parquet")
    assert isinstance(derived, pl.DataFrame)
    keys = ["scope", "period", "metric"]
    assert derived.select(keys).sort(keys).equals(sealed.select(keys).sort(keys))
    both = derived.join(sealed, on=keys, suffix="_sealed")
    differ = [
        (row["scope"], row["period"], row["metric"], row["value"], row["value_sealed"])
        for row in both.iter_rows(named=True)
        if not (
            (row["value"] is None and row["value_sealed"] is None)
            or (
                None not in (row["value"], row["value_sealed"])
                and math.isclose(row["value"], row["value_sealed"], rel_tol=1e-9, abs_tol=1e-12)
            )
        )
    ]
    assert differ == []
    assert "metrics" in built.manifest["kinds_sealed"]


def test_a_family_and_its_parameters_are_written_when_given_and_checked() -> None:
    """`Facts.family` and `Facts.parameters` reach manifest.json only when given (an existing seal's
    manifest is unchanged), and the manifest's schema check names a bad one."""
    from alpha_results_seal.builders import Facts, manifest
    from alpha_results_seal.manifest import manifest_problems

    started = dt.datetime(2026, 1, 5, tzinfo=dt.UTC)

    def written(**given: Any) -> dict[str, Any]:
        facts = Facts(
            alpha_id="Test_kit", engine_version="kit 1", started_at=started, sealed_at=started, **given
        )
        return manifest(facts, {"metrics.parquet": pa.table({"x": [1]})}, ["long_short"], ["long_short"], 10)

    assert "family" not in written() and "parameters" not in written()
    good = written(family="momentum_search", parameters={"lookback_weeks": 12, "universe": "US-large"})
    assert good["family"] == "momentum_search" and good["parameters"] == {
        "lookback_weeks": 12,
        "universe": "US-large",
    }
    assert not [p for p in manifest_problems(good) if p.field in ("family", "parameters")]
    bad = written(family="Momentum Search", parameters={"note": "two words"})
    assert sorted(p.field for p in manifest_problems(bad) if p.field in ("family", "parameters")) == [
        "family",
        "parameters",
    ]
