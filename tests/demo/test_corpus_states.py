"""The small corpus carries every seal state the spec names (read back from the written files)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from alpha_results_seal import arrow_schemas as seal
from alpha_results_seal.demo.alphas import ALPHA_IDS, FAMILIES, FAMILY_VARIANTS

DESCRIPTION_KEYS = {
    "algo_id",
    "alpha_id",
    "name",
    "tldr",
    "copyright",
    "classification",
    "thesis",
    "signal",
    "parameters",
    "data_requirements",
    "source_papers",
}


def manifest(corpus: Path, alpha_id: str) -> dict[str, Any]:
    return json.loads((corpus / alpha_id / "manifest.json").read_text())


def test_every_seal_is_written_with_the_seal_schemas(demo_seals: Path) -> None:
    assert sorted(p.name for p in demo_seals.iterdir()) == sorted([*ALPHA_IDS, "benchmark_SPY"])
    for alpha_id in ALPHA_IDS:
        m = manifest(demo_seals, alpha_id)
        assert m["alpha_id"] == alpha_id and m["type"] == "alpha" and m["seal_format"] == "1"
        for kind in m["kinds_sealed"]:
            books = m["trade_books"] if kind == "trades" else m["books"]
            paths = (
                [seal.kind_path(kind, b) for b in books]
                if kind in seal.BOOK_KINDS
                else [seal.kind_path(kind)]
            )
            for rel in paths:
                schema = pl.read_parquet_schema(demo_seals / alpha_id / rel)
                assert list(schema) == seal.KIND_SCHEMAS[kind].names, rel
        for kind in set(seal.ALL_KINDS) - set(m["kinds_sealed"]):
            assert not (demo_seals / alpha_id / f"{kind}.parquet").exists()
            assert not (demo_seals / alpha_id / kind).exists()
    started = [manifest(demo_seals, a)["started_at"] for a in ALPHA_IDS]
    assert len(set(started)) == len(started)


def test_testing_and_production_alphas(demo_seals: Path) -> None:
    assert {a for a in ALPHA_IDS if not a.startswith("Test_")} == {"momentum_12_1", "value_composite_legacy"}


def test_full_size_alpha_states(demo_seals: Path) -> None:
    rebalances = pl.read_parquet(demo_seals / "momentum_12_1" / "rebalances.parquet")
    statuses = rebalances["week_status"].to_list()
    assert statuses[-1] == "pending" and statuses.count("pending") == 1
    assert {"constant_scores", "insufficient_scored_tradeable_names", "traded"} <= set(statuses)
    assert "skipped" not in statuses
    decisions = pl.read_parquet(demo_seals / "momentum_12_1" / "decisions.parquet")
    assert set(decisions["unavailability_reason"].drop_nulls().to_list()) == set(seal.UNAVAILABILITY_REASONS)
    assert set(decisions["decision_reason"].drop_nulls().to_list()) == set(seal.DECISION_REASONS)
    trades = pl.read_parquet(demo_seals / "momentum_12_1" / "trades" / "long_short.parquet")
    assert set(trades["exit_reason"].drop_nulls().to_list()) == set(seal.EXIT_REASONS)
    assert set(trades["phase"].to_list()) == set(seal.TRADE_PHASES)
    assert manifest(demo_seals, "momentum_12_1")["universe_size"] == decisions["symbol"].n_unique()
    # A data gap at the decision leaves a name without score, so the cohort is below n_symbols.
    per_week = decisions.group_by("date").agg(pl.len().alias("n"), pl.col("score").count().alias("cohort"))
    assert (per_week["cohort"] < per_week["n"]).any()


def test_thin_weeks_on_the_small_universe(demo_seals: Path) -> None:
    decisions = pl.read_parquet(demo_seals / "Test_small_universe" / "decisions.parquet")
    rebalances = pl.read_parquet(demo_seals / "Test_small_universe" / "rebalances.parquet")
    scored = (
        decisions.group_by("date").agg(pl.col("score").count().alias("scored")).join(rebalances, on="date")
    )
    thin = scored.filter(pl.col("scored") < 20)
    assert thin.height >= 3
    assert thin.filter(pl.col("week_status") == "traded").height >= 1
    assert thin.filter(pl.col("week_status") == "insufficient_scored_tradeable_names").height >= 1
    assert not (demo_seals / "Test_small_universe" / "description.json").exists()


def test_incomplete_and_ledger_only(demo_seals: Path) -> None:
    m = manifest(demo_seals, "Test_low_vol_incomplete")
    assert {"pnl", "trades"} <= set(m["required_kinds"]) - set(m["kinds_sealed"])
    assert m["source_archive"] is None
    m = manifest(demo_seals, "Test_ledger_only")
    assert not {"rebalances", "decisions"} & (set(m["kinds_sealed"]) | set(m["required_kinds"]))
    assert set(m["required_kinds"]) <= set(m["kinds_sealed"])
    metrics = pl.read_parquet(demo_seals / "Test_ledger_only" / "metrics.parquet")
    assert not metrics.filter(pl.col("metric").str.contains("ic")).height
    assert {"information_ratio", "pnl", "max_drawdown"} <= set(metrics["metric"].to_list())


def _archive(corpus: Path, alpha_id: str) -> tuple[dict[str, Any] | None, Path]:
    return manifest(corpus, alpha_id)["source_archive"], corpus / alpha_id / "source.zip"


def test_source_archive_states(demo_seals: Path) -> None:
    for alpha_id in ("momentum_12_1", "Test_planted_factor"):
        record, path = _archive(demo_seals, alpha_id)
        assert record is not None and record["status"] == "ready"
        data = path.read_bytes()
        assert record["size_bytes"] == len(data)
        assert record["sha256"] == hashlib.sha256(data).hexdigest()
        assert record["filename"] == f"{alpha_id}.zip"
    record, path = _archive(demo_seals, "Test_short_term_reversal")
    assert record is not None and record["status"] == "packaging" and not path.exists()
    record, path = _archive(demo_seals, "value_composite_legacy")
    assert record is not None and record["status"] == "ready" and record["sha256"] and not path.exists()


@pytest.mark.parametrize("alpha_id", ["momentum_12_1", "Test_planted_factor", "Test_short_term_reversal"])
def test_descriptions(demo_seals: Path, alpha_id: str) -> None:
    d = json.loads((demo_seals / alpha_id / "description.json").read_text())
    assert set(d) == DESCRIPTION_KEYS
    assert d["algo_id"] == d["alpha_id"] == alpha_id
    assert [p["role"] for p in d["source_papers"]].count("seed") == 1
    req = d["data_requirements"]
    counts = req["lookback_bars"] is not None and req["warmup_bars"] is not None
    assert counts != (req["history_requirement"] is not None)
    assert all(isinstance(p["selected_value_by_test_year"], dict) for p in d["parameters"])
    assert set(d["classification"]["frequency"]) <= {"intraday", "daily", "weekly"}
    if alpha_id == "Test_short_term_reversal":
        assert d["signal"] is None and d["copyright"] is None
        assert any(v is None for p in d["parameters"] for v in p["selected_value_by_test_year"].values())
    else:
        assert d["signal"] is not None and d["copyright"]


def test_a_null_tldr_exists(demo_seals: Path) -> None:
    assert any(manifest(demo_seals, a)["tldr"] is None for a in ALPHA_IDS)


def test_benchmark_seal(demo_seals: Path) -> None:
    m = json.loads((demo_seals / "benchmark_SPY" / "manifest.json").read_text())
    assert m == {**m, "type": "benchmark", "symbol": "SPY", "seal_format": "1"}
    daily = pl.read_parquet(demo_seals / "benchmark_SPY" / "daily.parquet")
    momentum = pl.read_parquet(demo_seals / "momentum_12_1" / "portfolio" / "long_short.parquet")
    assert daily["date"].is_sorted() and daily["date"].n_unique() == daily.height
    assert daily["date"][-1] == momentum["date"][-1] and daily["date"][0] <= momentum["date"][0]
    adjusted = daily["adjusted_close"]
    first_recorded = adjusted.is_not_null().arg_max()
    assert first_recorded is not None and 40 <= first_recorded <= 80
    assert adjusted[first_recorded:].null_count() == 0
    assert adjusted[-1] == pytest.approx(daily["close"][-1])
    # Dividends: the total-return series outgrows the price series by about 1.5% a year.
    tail = daily[first_recorded:]
    years = (tail["date"][-1] - tail["date"][0]).days / 365.25
    excess = (tail["adjusted_close"][-1] / tail["adjusted_close"][0]) / (tail["close"][-1] / tail["close"][0])
    assert excess ** (1 / years) - 1 == pytest.approx(0.015, abs=0.004)


def test_the_readme_names_every_demo_alpha_and_family() -> None:
    """README.md's table of the demo corpus has a row per alpha of the engine (`ALPHA_IDS`) and
    one per trial family of the full corpus (`FAMILIES`: its slug, first and last member), and says
    how many alphas the families add: read from the engine's declarations, so a demo alpha or
    family added there fails here until the README names it."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    corpus = text.split("## The demo corpus", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in corpus.splitlines() if line.startswith("| `")]
    families: dict[str, list[str]] = {}
    for spec in FAMILIES:
        families.setdefault(str(spec.family), []).append(spec.alpha_id)
    named = [row.split("`")[1] for row in rows]
    assert sorted(named) == sorted([*ALPHA_IDS, *(members[0] for members in families.values())])
    for family, members in families.items():
        (row,) = [row for row in rows if row.startswith(f"| `{members[0]}`")]
        assert f"| `{members[0]}` to `{members[-1]}` |" in row and f"family `{family}`" in row, row
        assert len(members) == FAMILY_VARIANTS
    prose = " ".join(corpus.split())
    assert re.search(
        rf"{len(families)} trial families of {FAMILY_VARIANTS} variants each \({len(FAMILIES)} alphas more",
        prose,
    ), "README.md no longer says how many alphas the trial families add"


def test_parameters_selected_only_for_years_the_research_saw(demo_seals: Path) -> None:
    """A parameter is selected for a test year before that year trades (walk-forward), so a seal's
    "selected by test year" names no year that began after its research cutoff (issue 65, item 4:
    the demo's ran past it)."""
    checked = 0
    for manifest in sorted(demo_seals.glob("*/manifest.json")):
        cutoff = json.loads(manifest.read_text()).get("research_cutoff")
        described = manifest.parent / "description.json"
        if cutoff is None or not described.exists():
            continue
        for p in json.loads(described.read_text())["parameters"]:
            years = p["selected_value_by_test_year"] or {}
            assert all(int(year) <= int(cutoff[:4]) for year in years), (
                manifest.parent.name,
                p["name"],
                cutoff,
            )
            checked += len(years)
    assert checked > 0
