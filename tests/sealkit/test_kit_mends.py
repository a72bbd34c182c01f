"""The seal kit's review mends: a book name cannot leave the seal, one home for the trade variants'
phases and a fill's session, hostile frames refused by name (`BuildError`), non-finite figures
refused, and the check's command line naming an unreadable seal with exit 2."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alpha_results_seal import builders
from alpha_results_seal.builders import (
    Book,
    BuildError,
    Facts,
    SealTables,
    trades_table,
    write_seal,
    write_tables,
)

FACTS = Facts("Test_x", "1.0", dt.datetime(2024, 1, 2, tzinfo=dt.UTC))


@pytest.mark.parametrize("book", ["../../../escaped", "a/b", "..", "", "Long", "x" * 65, "/abs"])
def test_a_book_name_outside_the_manifests_rule_is_refused_before_anything_is_written(
    tmp_path: Path, book: str
) -> None:
    dest = tmp_path / "trav" / "sub" / "seal"
    with pytest.raises(BuildError, match="book name") as refused:
        write_seal(str(dest), FACTS, None, {book: Book(None, None)})
    assert repr(book) in str(refused.value)
    assert list(tmp_path.rglob("*")) == []


def test_a_hand_assembled_seal_with_a_path_outside_it_is_refused(tmp_path: Path) -> None:
    built = SealTables({"portfolio/../../escaped.parquet": pa.table({"a": [1]})}, {"books": []})
    with pytest.raises(BuildError, match="escaped"):
        write_tables(built, str(tmp_path / "seal"))
    assert list(tmp_path.rglob("*")) == []


def _check(seal: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "alpha-results-seal"), "check", seal],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.s3
def test_a_seal_in_a_missing_bucket_is_one_line_and_exit_2(s3_endpoint: str) -> None:
    seal = f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/seal"
    done = _check(seal, dict(os.environ))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and seal in done.stderr
    assert done.stdout == ""


@pytest.mark.s3
def test_a_seal_on_s3_without_credentials_is_one_line_naming_the_cause_and_exit_2(
    s3_endpoint: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    missing = str(tmp_path / "none")
    env |= {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_SHARED_CREDENTIALS_FILE": missing,
        "AWS_CONFIG_FILE": missing,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    done = _check("s3://any-bucket/seal", env)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "alpha-results-seal check: s3://any-bucket/seal could not be read: "
        "NoCredentialsError: Unable to locate credentials\n"
    )


def test_a_seal_behind_an_endpoint_that_does_not_answer_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from tests.s3_server import S3_ENV, free_port

    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env |= S3_ENV | {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}  # nothing listens
    done = _check("s3://a-bucket/seal", env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        "alpha-results-seal check: s3://a-bucket/seal could not be read: EndpointConnectionError: "
    )
    assert done.stderr.count("\n") == 1


def _trades(phases: list[str], instants: list[dt.datetime]) -> pa.Table:
    n = len(phases)
    return pa.table(
        {
            "timestamp": pa.array(instants, pa.timestamp("us", tz="UTC")),
            "decision_at": pa.array([dt.date(2024, 3, 8)] * n, pa.date32()),
            "symbol": [f"S{i}" for i in range(n)],
            "phase": phases,
            "quantity": [1.0] * n,
            "mid_price": [10.0] * n,
            "fill_price": [10.0] * n,
            "fee": [0.0] * n,
        }
    )


def test_the_trade_variants_are_declared_once_and_each_reader_derives_them() -> None:
    """The variants the builders write are those `trades.variants_are_subsets` accepts, for every
    phase the schema knows, and the rule's message names the declared phases."""
    from alpha_results_seal import arrow_schemas as S
    from alpha_results_seal import trading

    at = dt.datetime(2024, 3, 11, 14, tzinfo=dt.UTC)
    table = trades_table(_trades(list(S.TRADE_PHASES) * 2, [at] * 6), "long_short")
    variants = builders.trade_variants(table)
    assert builders.trade_variants is trading.trade_variants
    assert set(variants) == set(S.TRADE_VARIANT_SUFFIXES)
    held = {suffix: set(v.column("phase").to_pylist()) for suffix, v in variants.items()}
    assert held == {suffix: set(phases) for suffix, phases in S.TRADE_VARIANT_PHASES.items()}
    # every phase is in exactly one variant: the two partition the book's fills
    assert sum(v.num_rows for v in variants.values()) == table.num_rows


def test_the_demo_engines_variants_are_the_kits(tmp_path: Path) -> None:
    """The demo engine writes `<book>_adjustments` / `_settlements` by the kit's rule: each file is
    `trading.trade_variants` of the book's trades, row for row."""
    import pyarrow.parquet as pq

    from alpha_results_seal import trading
    from alpha_results_seal.demo.corpus import write_corpus

    seal = write_corpus(tmp_path, size="small", seed=7, only=["momentum_12_1"])[0]
    for book in ("long_short", "long_only"):
        trades = pq.read_table(seal / "trades" / f"{book}.parquet")
        for suffix, variant in trading.trade_variants(trades).items():
            assert pq.read_table(seal / "trades" / f"{book}{suffix}.parquet").equals(variant)


@pytest.mark.parametrize(
    "instant",
    [
        dt.datetime(2024, 3, 10, 3, 30),  # Saturday 22:30 EST
        dt.datetime(2024, 3, 11, 3, 59),  # Sunday 23:59 EDT (after the spring change)
        dt.datetime(2024, 11, 3, 4, 30),  # 00:30 EDT, hours before the autumn change
        dt.datetime(2024, 11, 4, 4, 30),  # Sunday 23:30 EST
        dt.datetime(2024, 6, 3, 20, 0),  # the 16:00 close
    ],
)
def test_a_fills_session_is_its_new_york_date_in_the_kit_and_the_pipeline(instant: dt.datetime) -> None:
    """One rule for a fill's session, the kit's, read by the pipeline's derive_trades and by the
    builders (the P&L's execution_cost by session): held to zoneinfo's New York date."""
    from zoneinfo import ZoneInfo

    import polars as pl

    from alpha_results_seal import trading
    from pipeline.derive import derive_trades

    utc = instant.replace(tzinfo=dt.UTC)
    expected = utc.astimezone(ZoneInfo("America/New_York")).date()
    assert trading.fill_session_dates(pa.array([utc], pa.timestamp("us", tz="UTC"))).to_pylist() == [expected]
    frame = pl.from_arrow(_trades(["open"], [utc]))
    assert isinstance(frame, pl.DataFrame)
    assert derive_trades(frame)["date"].to_list() == [expected]


# -- hostile frames: a builder succeeds or raises a BuildError naming the frame and column ----------


def _baseline() -> dict[str, Any]:
    import pandas as pd

    days = [dt.date(2024, 3, 4), dt.date(2024, 3, 5)]
    fill = dt.datetime(2024, 3, 4, 14, 30, tzinfo=dt.UTC)
    return {
        "decisions": pd.DataFrame(
            {
                "date": [days[0], days[0]],
                "symbol": ["AA", "BB"],
                "score": [0.5, -0.25],
                "long_short_target_weight": [0.5, -0.5],
                "long_only_target_weight": [1.0, 0.0],
            }
        ),
        "positions": pd.DataFrame(
            {"date": days, "symbol": ["AA", "AA"], "quantity": [1.0, 1.0], "mark_price": [10.0, 11.0]}
        ),
        "pnl": pd.DataFrame({"date": days, "symbol": ["AA", "AA"], "market_pnl": [0.0, 1.0]}),
        "trades": pd.DataFrame(
            {
                "timestamp": [fill],
                "decision_at": [days[0]],
                "symbol": ["AA"],
                "phase": ["open"],
                "quantity": [1.0],
                "mid_price": [10.0],
                "fill_price": [10.01],
                "fee": [0.001],
            }
        ),
        "sessions": pd.DataFrame({"date": days, "risk_free_return": [0.0, 0.0001]}),
    }


HOSTILE_VALUES = [None, float("nan"), float("inf"), float("-inf"), "text", 3, dt.date(2024, 3, 4), b"\x00"]
MUTATIONS = ("cell", "column_type", "empty", "duplicate", "mixed")


def _mutate(frame: Any, mutation: str, column: str, value: Any) -> Any:
    import pandas as pd

    frame = frame.copy()
    if mutation == "cell":
        values = frame[column].astype(object)
        values.iloc[0] = value
        frame[column] = values
    elif mutation == "column_type":
        frame[column] = [value] * len(frame)
    elif mutation == "empty":
        frame = frame.iloc[0:0]
    elif mutation == "duplicate":
        frame = pd.concat([frame, frame[[column]]], axis=1)
    elif mutation == "mixed":  # an object column mixing numbers and text
        frame[column] = pd.Series([1.5, "x"] * len(frame), dtype=object)[: len(frame)].to_numpy()
    return frame


@settings(max_examples=150)
@given(
    target=st.sampled_from(["decisions", "positions", "pnl", "trades", "sessions"]),
    mutation=st.sampled_from(MUTATIONS),
    pick=st.integers(0, 7),
    value=st.sampled_from(HOSTILE_VALUES),
)
def test_a_hostile_frame_is_built_or_refused_by_name(
    target: str, mutation: str, pick: int, value: Any
) -> None:
    frames = _baseline()
    column = list(frames[target].columns)[pick % len(frames[target].columns)]
    frames[target] = _mutate(frames[target], mutation, column, value)
    frame_name = target if target == "decisions" else f"long_short.{target}"
    try:
        if target == "decisions":
            builders.decisions_table(frames[target])
        elif target == "trades":
            trades_table(frames[target], "long_short")
        builders.book_tables(
            Book(frames["positions"], frames["pnl"], frames["trades"], frames["sessions"]), "long_short"
        )
    except BuildError as refused:
        message = str(refused)
        if mutation != "empty":
            assert frame_name.split(".")[-1] in message or "long_short" in message, message
        if mutation != "empty":
            assert column in message, message
    except Exception as error:
        pytest.fail(f"{target} {mutation} {column}={value!r}: {type(error).__name__}: {error}")


def test_the_reviews_crashes_are_build_errors_naming_frame_and_column() -> None:
    frames = _baseline()
    for part in ("positions", "pnl", "sessions"):
        hostile = dict(frames)
        hostile[part] = _mutate(frames[part], "cell", "date", None)
        with pytest.raises(BuildError, match=rf"long_short\.{part}\.date holds 1 nulls"):
            builders.book_tables(
                Book(hostile["positions"], hostile["pnl"], hostile["trades"], hostile["sessions"]),
                "long_short",
            )
    with pytest.raises(BuildError, match=r"long_short\.trades\.timestamp holds 1 nulls"):
        trades_table(_mutate(frames["trades"], "cell", "timestamp", None), "long_short")
    with pytest.raises(BuildError, match=r"decisions\.score does not convert"):
        builders.decisions_table(_mutate(frames["decisions"], "mixed", "score", None))
    with pytest.raises(BuildError, match=r"decisions has the column 'score' more than once"):
        builders.decisions_table(_mutate(frames["decisions"], "duplicate", "score", None))


def test_a_research_cutoff_is_its_iso_day_and_another_type_is_refused_by_name() -> None:
    frames = _baseline()
    books = {"long_short": Book(frames["positions"], frames["pnl"])}
    facts = Facts("Test_x", "1.0", dt.date(2024, 1, 2), research_cutoff=dt.date(2024, 3, 1))
    assert builders.build_seal(facts, frames["decisions"], books).manifest["research_cutoff"] == "2024-03-01"
    for wrong, name in (("2024-03-01", "str"), (dt.datetime(2024, 3, 1, 12), "datetime")):
        with pytest.raises(BuildError, match=f"Facts.research_cutoff must be a date, got {name}"):
            builders.build_seal(
                Facts("Test_x", "1.0", dt.date(2024, 1, 2), research_cutoff=wrong),  # type: ignore[arg-type]
                frames["decisions"],
                books,
            )


def test_a_started_at_date_is_its_midnight_utc_and_another_type_is_refused_by_name() -> None:
    frames = _baseline()
    built = builders.build_seal(
        Facts("Test_x", "1.0", dt.date(2024, 1, 2)),
        frames["decisions"],
        {"long_short": Book(frames["positions"], frames["pnl"])},
    )
    assert built.manifest["started_at"] == "2024-01-02T00:00:00+00:00"
    with pytest.raises(BuildError, match="Facts.started_at must be a datetime or a date, got str"):
        builders.build_seal(
            Facts("Test_x", "1.0", "2024-01-02"),  # type: ignore[arg-type]
            frames["decisions"],
            {"long_short": Book(frames["positions"], frames["pnl"])},
        )


# -- non-finite figures ---------------------------------------------------------------------------


def _damaged_factory_seal(tmp_path: Path, relative: str, column: str, row: int, value: float) -> Path:
    import pyarrow.parquet as pq

    from tests.pipeline.factory import write_factory_seal

    seal = write_factory_seal(tmp_path / "Test_factory")
    table = pq.read_table(seal / relative)
    values = table.column(column).to_pylist()
    values[row] = value
    index = table.schema.get_field_index(column)
    pq.write_table(
        table.set_column(index, table.schema.field(index), pa.array(values, pa.float64())), seal / relative
    )
    return seal


def test_an_infinite_ledger_value_is_refused_by_its_own_rule_naming_table_and_column(tmp_path: Path) -> None:
    from alpha_results_seal.check import check_seal

    seal = _damaged_factory_seal(tmp_path, "portfolio/long_short.parquet", "cash_end", 3, float("inf"))
    report = check_seal(str(seal))
    assert [b.rule for b in report.broken] == ["schema.finite_numbers"]
    broken = report.broken[0]
    assert broken.kind == "portfolio"
    assert broken.message.startswith("1 of 35 rows: portfolio/long_short: cash_end not finite")
    assert len(broken.samples) == 1
    assert list(broken.samples[0]) == ["book", "date", "cash_end"]
    assert broken.samples[0]["cash_end"] == "inf"


def test_a_long_only_week_whose_weights_sum_to_infinity_is_refused(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from alpha_results_seal.check import check_seal

    seal = _damaged_factory_seal(tmp_path, "decisions.parquet", "long_only_target_weight", 0, float("inf"))
    decisions = pq.read_table(seal / "decisions.parquet")
    report = check_seal(str(seal))
    rules = [b.rule for b in report.broken]
    assert "schema.finite_numbers" in rules, rules
    broken = next(b for b in report.broken if b.rule == "schema.finite_numbers")
    assert broken.message.startswith(
        f"1 of {decisions.num_rows} rows: decisions: long_only_target_weight not finite"
    )
    assert list(broken.samples[0]) == ["date", "symbol", "long_only_target_weight"]
