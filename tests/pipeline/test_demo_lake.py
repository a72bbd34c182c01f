"""The small demo corpus built into a lake: identities read back with DuckDB, every corpus state,
the weekly series against scipy. A build's rows are read from the open tables at the versions its
generation names (`tests.support.build_tables`): pipeline 2.12.0 writes no Parquet of them into the
build folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats

from tests.support.build_tables import build_table, has_table

TOL = 1e-9


def build_dir(lake: Path, alpha_id: str) -> Path:
    """Exactly as docs/lake.md says: read the pointer, then stay inside that build."""
    pointer = json.loads((lake / "alphas" / alpha_id / "_current.json").read_text())
    return lake / "alphas" / alpha_id / "builds" / pointer["build_id"]


def alpha_json(lake: Path, alpha_id: str) -> dict:
    return json.loads((build_dir(lake, alpha_id) / "alpha.json").read_text())


def connect(build: Path, names: tuple[str, ...]) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection on which each table of `names` is a view of the build's rows (a book
    table's every book, with its `book` column)."""
    con = duckdb.connect()
    for name in names:
        con.register(name, build_table(build, name).to_arrow())
    return con


ALPHAS_WITH_BOOKS = ["momentum_12_1", "Test_planted_factor", "Test_ledger_only", "value_composite_legacy"]


@pytest.mark.parametrize("alpha_id", ALPHAS_WITH_BOOKS)
def test_ledger_and_pnl_identities_hold_in_the_lake(demo_lake: Path, alpha_id: str) -> None:
    build = build_dir(demo_lake, alpha_id)
    con = connect(build, ("portfolio", "pnl", "positions"))
    portfolio, pnl, positions = "portfolio", "pnl", "positions"
    checks = {
        "ending identity": f"""SELECT count(*) FROM {portfolio} WHERE abs(ending_equity - (starting_equity + market_pnl
            + execution_cost + borrow_cashflow + cash_carry + rounding_adjustment)) > {TOL}""",
        "cash plus positions": f"SELECT count(*) FROM {portfolio} WHERE abs(cash_end + position_value_end - ending_equity) > {TOL}",
        "starting chain": f"""SELECT count(*) FROM (SELECT starting_equity, lag(ending_equity, 1, 1.0)
            OVER (PARTITION BY book ORDER BY date) AS prev FROM {portfolio}) WHERE abs(starting_equity - prev) > {TOL}""",
        "pnl sums": f"""SELECT count(*) FROM {portfolio} p LEFT JOIN (SELECT book, date, sum(market_pnl) m,
            sum(execution_cost) c, sum(borrow_cashflow) b, sum(net_pnl) n FROM {pnl} GROUP BY ALL) s USING (book, date)
            WHERE abs(coalesce(m, 0) - p.market_pnl) > {TOL} OR abs(coalesce(c, 0) - p.execution_cost) > {TOL}
               OR abs(coalesce(b, 0) - p.borrow_cashflow) > {TOL}
               OR abs(coalesce(n, 0) + p.cash_carry + p.rounding_adjustment - (p.ending_equity - p.starting_equity)) > {TOL}""",
        "net_pnl is a sum": f"SELECT count(*) FROM {pnl} WHERE abs(net_pnl - (market_pnl + execution_cost + borrow_cashflow)) > {TOL}",
        "weight": f"""SELECT count(*) FROM {positions} x JOIN {portfolio} p USING (book, date)
            WHERE abs(x.weight - x.quantity * x.mark_price / p.ending_equity) > {TOL}""",
    }
    for name, sql in checks.items():
        assert con.execute(sql).fetchone() == (0,), name
    assert con.execute(f"SELECT count(*) FROM {portfolio}").fetchone()[0] > 0  # type: ignore[index]


@pytest.mark.parametrize("alpha_id", ["momentum_12_1", "Test_planted_factor", "value_composite_legacy"])
def test_signal_identities_hold_in_the_lake(demo_lake: Path, alpha_id: str) -> None:
    build = build_dir(demo_lake, alpha_id)
    con = connect(build, ("decisions", "trades", "rebalances"))
    decisions, trades, rebalances = "decisions", "trades", "rebalances"
    zero = {
        "trades join rebalances": f"SELECT count(*) FROM {trades} WHERE decision_at NOT IN (SELECT date FROM {rebalances})",
        "long-only sums": f"""SELECT count(*) FROM (SELECT date, sum(long_only_target_weight) s, sum(raw_long_only_target_weight) r
            FROM {decisions} GROUP BY date) WHERE (s > 0 AND abs(s - 1) > {TOL}) OR (r > 0 AND abs(r - 1) > {TOL})""",
        "score product": f"SELECT count(*) FROM {decisions} WHERE abs(score - direction * confidence) > {TOL}",
        "raw product": f"SELECT count(*) FROM {decisions} WHERE abs(raw_score - raw_direction * raw_confidence) > {TOL}",
        "pending": f"""SELECT count(*) FROM {decisions} d JOIN {rebalances} r USING (date)
            WHERE r.week_status = 'pending' AND (d.fill_at IS NOT NULL OR d.forward_return IS NOT NULL)""",
        "n_symbols": f"""SELECT count(*) FROM {rebalances} r LEFT JOIN (SELECT date, count(*) n FROM {decisions} GROUP BY date)
            USING (date) WHERE r.n_symbols <> coalesce(n, 0)""",
    }
    for name, sql in zero.items():
        assert con.execute(sql).fetchone() == (0,), name
    columns = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {decisions}").fetchall()]
    assert "raw_score" in columns and "pre_smoothing_score" not in columns


def test_corpus_covers_every_state(demo_lake: Path) -> None:
    ids = sorted(p.name for p in (demo_lake / "alphas").iterdir())
    entries = {a: alpha_json(demo_lake, a) for a in ids}
    assert any(a.startswith("Test_") for a in ids) and any(not a.startswith("Test_") for a in ids)
    assert entries["Test_low_vol_incomplete"]["complete"] is False
    assert set(entries["Test_low_vol_incomplete"]["missing_kinds"]) == {"pnl", "trades"}
    assert "rebalances" not in entries["Test_ledger_only"]["kinds_present"]
    assert "decisions" not in entries["Test_ledger_only"]["kinds_present"]
    assert entries["Test_small_universe"]["has_description"] is False
    assert not (build_dir(demo_lake, "Test_small_universe") / "description.json").exists()
    partial = json.loads((build_dir(demo_lake, "Test_short_term_reversal") / "description.json").read_text())
    assert (
        any(v is None for v in partial["signal"].values())
        and partial["algo_id"] == "Test_short_term_reversal"
    )
    sources = {
        a: json.loads(p.read_text()) for a in ids if (p := build_dir(demo_lake, a) / "source.json").exists()
    }
    assert sources["Test_short_term_reversal"]["status"] == "packaging"
    assert (
        sources["value_composite_legacy"]["status"] == "ready"
        and not sources["value_composite_legacy"]["delivered"]
    )
    assert (
        sources["momentum_12_1"]["delivered"]
        and (demo_lake / sources["momentum_12_1"]["object_path"]).exists()
    )

    statuses = (
        pl.concat(
            [
                build_table(build_dir(demo_lake, a), "rebalances").select("week_status")
                for a in ids
                if has_table(build_dir(demo_lake, a), "rebalances")
            ]
        )["week_status"]
        .unique()
        .to_list()
    )
    assert {"traded", "pending", "constant_scores", "insufficient_scored_tradeable_names"} <= set(statuses)
    assert "skipped" not in statuses
    reasons = (
        build_table(build_dir(demo_lake, "momentum_12_1"), "decisions")["unavailability_reason"]
        .unique()
        .drop_nulls()
        .to_list()
    )
    assert set(reasons) == {"halted", "suspended", "no_borrow", "illiquid", "data_gap"}
    thin = build_table(build_dir(demo_lake, "Test_small_universe"), "weekly_signal")
    assert (~thin["decile_eligible"]).sum() > 0
    assert (demo_lake / "benchmarks" / "SPY" / "_current.json").exists()


def test_books_table_counts_rows_and_sessions(demo_lake: Path) -> None:
    build = build_dir(demo_lake, "momentum_12_1")
    books = build_table(build, "books")
    assert books.filter(~pl.col("raw")).height == 12 and books.height == 24
    for row in books.iter_rows(named=True):
        part = build_table(build, row["kind"], row["book"])
        assert row["rows"] == part.height and row["sessions"] == part["date"].n_unique()
        assert (row["from"], row["to"]) == (part["date"].min(), part["date"].max())


def test_weekly_ic_matches_scipy(demo_lake: Path) -> None:
    build = build_dir(demo_lake, "Test_planted_factor")
    decisions = build_table(build, "decisions")
    weekly = build_table(build, "weekly_signal").filter(pl.col("ic").is_not_null())
    assert weekly.height > 20
    for row in weekly.sample(8, seed=1).iter_rows(named=True):
        week = decisions.filter(pl.col("date") == row["date"])
        for score, column in (("score", "ic"), ("raw_score", "raw_ic")):
            pairs = week.select(score, "forward_return").drop_nulls()
            expected = stats.spearmanr(pairs[score], pairs["forward_return"]).statistic
            assert row[column] == pytest.approx(expected, abs=1e-12)
    z = decisions.filter(pl.col("date") == weekly["date"][0])
    scores = z["score"].drop_nulls().to_numpy()
    assert np.allclose(z["score_z"].drop_nulls().to_numpy(), (scores - scores.mean()) / scores.std(ddof=1))


def test_deciles_term_and_autocorrelation_match_independent_code(demo_lake: Path) -> None:
    build = build_dir(demo_lake, "momentum_12_1")
    decisions = build_table(build, "decisions")
    deciles = build_table(build, "weekly_deciles")
    term = build_table(build, "weekly_term")
    autocorr = build_table(build, "weekly_autocorr")
    dates = sorted(build_table(build, "rebalances")["date"].to_list())
    day = dates[len(dates) // 2]
    week = decisions.filter(pl.col("date") == day, pl.col("raw_score").is_not_null()).sort(
        "raw_score", "symbol"
    )
    n = week.height
    bucket = np.floor(10 * np.arange(n) / n).astype(int) + 1
    got = deciles.filter(pl.col("date") == day).sort("bucket")
    for b in range(1, 11):
        members = week.filter(pl.Series(bucket == b))
        row = got.filter(pl.col("bucket") == b).row(0, named=True)
        assert row["n_symbols"] == members.height
        assert row["mean_forward_return"] == pytest.approx(
            members["forward_return"].drop_nulls().mean(), rel=1e-12
        )

    by_symbol = {
        d: dict(zip(f["symbol"], zip(f["raw_score"], f["forward_return"], strict=True), strict=True))
        for (d,), f in decisions.partition_by("date", as_dict=True).items()
    }
    k = dates.index(day)
    x, y = [], []
    for symbol, (raw, _) in by_symbol[day].items():
        chain = (
            [by_symbol.get(dates[k + j], {}).get(symbol, (None, None))[1] for j in range(4)]
            if k + 4 <= len(dates)
            else [None]
        )
        if raw is not None and all(r is not None for r in chain):
            x.append(raw)
            y.append(np.prod([1 + r for r in chain]) - 1)
    row = term.filter(pl.col("date") == day, pl.col("horizon_weeks") == 4).row(0, named=True)
    assert row["n_obs"] == len(x) and row["ic"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)

    earlier = by_symbol[dates[k - 2]]
    pairs = [
        (raw, earlier[s][0])
        for s, (raw, _) in by_symbol[day].items()
        if s in earlier and raw is not None and earlier[s][0] is not None
    ]
    row = autocorr.filter(pl.col("date") == day, pl.col("lag_weeks") == 2).row(0, named=True)
    assert row["n_obs"] == len(pairs)
    assert row["rho"] == pytest.approx(stats.spearmanr(*zip(*pairs, strict=True)).statistic, abs=1e-12)


def test_cli_builds_seals_in_parallel_and_again_unchanged(demo_seals: Path, tmp_path: Path) -> None:
    """`alpha-results build` over several seals with two jobs: a complete alpha, an incomplete one
    and the benchmark (the whole corpus is built by the same `build_many`, two jobs, for the
    session's demo lake; the CLI's own part is the same for three seals as for eight). Run again,
    every seal is unchanged: the second run takes one job (a publish finds its seal unchanged in
    whichever process runs it; the two build processes of a second pool cost ~5 s of CPU)."""
    seals = [
        str(demo_seals / name)
        for name in ("Test_short_term_reversal", "Test_low_vol_incomplete", "benchmark_SPY")
    ]
    lake = tmp_path / "lake"
    run = [sys.executable, "-m", "cli.main", "build", *seals, "--lake", str(lake), "--jobs"]
    # Run in a folder of the test's own: the default records database (`var/keys.sqlite3`, relative)
    # is then absent whatever a developer's checkout holds, and no event is written to theirs.
    first = subprocess.run([*run, "2"], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.count("published") == len(seals)
    second = subprocess.run([*run, "1"], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert second.returncode == 0 and second.stdout.count("unchanged") == len(seals), second.stdout
    show = subprocess.run(
        [sys.executable, "-m", "cli.main", "lake", "show", "--lake", str(lake)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "lake " in show.stdout and ": 2 alphas" in show.stdout, show.stdout
    assert "Test_short_term_reversal" in show.stdout and "incomplete (missing pnl, trades)" in show.stdout
    assert "SPY" in show.stdout
