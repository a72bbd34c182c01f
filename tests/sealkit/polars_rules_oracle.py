"""The seal rules that read tables as they were before the port to pyarrow.compute: polars
expressions, copied unchanged from sealkit/src/alpha_results_seal/validate.py (and `differs` /
`fail_if_any` from rules.py) at commit e96ceab. Kept as the pre-port reference to prove the port:
the differential test (tests/sealkit/test_rules_port.py) holds the port's findings equal to these,
rule by rule. The rules that read no table (manifest, text, files, schemas, description, source
archive) were not ported: they are imported from the kit, the same code on both sides, and
`check_alpha` is copied only so that it calls this module's table rules. Nothing of the kit
imports it; it needs polars, which the kit no longer does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.identifiers import TICKER
from alpha_results_seal.manifest import TABLE_FIELDS
from alpha_results_seal.rules import (
    LOCATING_COLUMNS,
    MAX_SAMPLE_ROWS,
    RELATIVE_TOLERANCE,
    Findings,
    SealRejected,
    _jsonable,
)
from alpha_results_seal.seal import (
    BENCHMARK_DAILY,
    MANIFEST,
    Seal,
    table_files,
)
from alpha_results_seal.validate import (  # the rules that read no table: not ported, the kit's own
    DECISION_RULES,
    EXPOSURE_RULES,
    LEDGER_RULES,
    ON_REBALANCES,
    PNL_RULES,
    REBALANCE_RULES,
    SNAKE_CASE,
    TABLE_RULES,
    TRADE_RULES,
    Key,
    check_description_file,
    check_kinds_present,
    check_schemas,
    check_source_archive,
    readable_tables,
)


def differs(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """True where a and b disagree beyond the tolerance (null on either side counts as disagreeing)."""
    scale = pl.max_horizontal(pl.lit(1.0), a.abs(), b.abs())
    return ((a - b).abs() > RELATIVE_TOLERANCE * scale).fill_null(True)


def fail_if_any(
    found: Findings,
    rule: str,
    kind: str,
    frame: pl.DataFrame,
    bad: pl.Expr | pl.Series,
    what: str,
    columns: Sequence[str],
) -> None:
    """Records `rule` as broken when any row of `frame` is flagged, quoting counts and sample
    rows: each holds the columns that locate it (`LOCATING_COLUMNS`) and `columns`, the ones
    the rule is about, and no other."""
    flagged = frame.filter(bad)
    if flagged.height:
        shown = [c for c in LOCATING_COLUMNS if c in frame.columns and c not in columns] + list(columns)
        found.add(
            SealRejected(
                rule,
                kind,
                f"{flagged.height:,} of {frame.height:,} rows: {what}",
                samples=[_jsonable(row) for row in flagged.head(MAX_SAMPLE_ROWS).select(shown).to_dicts()],
            )
        )


# --- the seal, in the order its rules are checked -------------------------------------------------


def check_alpha(seal: Seal, found: Findings, broken_fields: set[str]) -> None:
    """Every rule after the manifest's over an alpha seal, its contents loaded (`load_contents`);
    `broken_fields`: the manifest's fields that break `manifest.fields`."""
    if readable_tables(seal, broken_fields):
        check_tables(seal, found)
    else:
        fields = ", ".join(sorted(broken_fields & set(TABLE_FIELDS)))
        found.skip(
            TABLE_RULES,
            f"manifest.json's {fields} break manifest.fields: which files the seal holds is unknown",
        )
    check_description_file(seal, found, broken_fields)
    if "source_archive" in broken_fields:
        found.skip(["source.sha256_matches"], "manifest.json's source_archive breaks manifest.fields")
    else:
        found.attempt(lambda: check_source_archive(seal))


@dataclass
class Tables:
    """The seal's tables the rules may read, as frames, and why each other sealed table may not
    be read (`alpha_results_seal.seal.load_contents` or a schema rule refused it)."""

    frames: dict[Key, pl.DataFrame]
    refused: dict[Key, str]

    def get(self, key: Key, found: Findings, rules: Sequence[str]) -> pl.DataFrame | None:
        """The table `key`; None when it is not sealed, or when it was refused: then `rules`,
        which read it, are recorded as not checked."""
        if key in self.refused:
            found.skip(rules, self.refused[key])
        return self.frames.get(key)

    def sealed(self, key: Key) -> bool:
        return key in self.frames or key in self.refused

    def books(self, kind: str) -> list[str]:
        return sorted({b for k, b in (*self.frames, *self.refused) if k == kind and b is not None})


def check_tables(seal: Seal, found: Findings) -> None:
    """The alpha's files against the manifest, then its tables' rules, each table that a rule
    before refused left out of the rules reading it."""
    found.attempt(lambda: check_kinds_present(seal))
    refused = {f.key: seal.unread[f.name] for f in table_files(seal) if f.name in seal.unread}
    for why in refused.values():
        found.skip(["schema.not_null", "schema.date_range"], why)
    refused |= check_schemas(seal, found)
    tables = Tables({k: pl.DataFrame(t) for k, t in seal.tables.items() if k not in refused}, refused)
    check_symbols(tables, found)
    rebalances_key, decisions_key = ("rebalances", None), ("decisions", None)
    rebalances = tables.get(rebalances_key, found, REBALANCE_RULES)
    if rebalances is not None:
        check_rebalances(found, rebalances)
    decisions = tables.get(decisions_key, found, DECISION_RULES)
    if decisions is not None:
        check_decisions(found, decisions, tables.get(rebalances_key, found, ON_REBALANCES))
    exposures = tables.get(("exposures", None), found, EXPOSURE_RULES)
    if exposures is not None:
        weeks = rebalances_key if tables.sealed(rebalances_key) else decisions_key
        check_exposures(found, exposures, tables.get(weeks, found, ["exposures.rebalance_dates"]))
    for book in tables.books("portfolio"):
        ledger = tables.get(("portfolio", book), found, LEDGER_RULES)
        if ledger is not None:
            check_ledger(found, ledger.sort("date"), book)
    for book in tables.books("pnl"):
        pnl = tables.get(("pnl", book), found, PNL_RULES)
        ledger = tables.get(("portfolio", book), found, PNL_RULES)
        if pnl is not None and ledger is not None:
            check_pnl(found, pnl, ledger.sort("date"), book)
    trades = {}
    for book in tables.books("trades"):
        frame = tables.get(("trades", book), found, TRADE_RULES)
        if frame is not None:
            trades[book] = frame
    if trades:
        on_rebalances = tables.get(rebalances_key, found, ["trades.decision_at_joins_rebalance"])
        unread = {b: why for (k, b), why in refused.items() if k == "trades" and b is not None}
        check_trades(found, trades, on_rebalances, unread)


# --- symbols ------------------------------------------------------------------------------------


def check_symbols(tables: Tables, found: Findings) -> None:
    """Every `symbol` is a ticker as the API's `symbol=` takes it: a text a spreadsheet would run
    (`=HYPERLINK(...)`) or one that reorders its neighbours has no business there."""
    keys = sorted((*tables.frames, *tables.refused), key=str)
    for kind, book in keys:
        if "symbol" not in S.KIND_SCHEMAS.get(kind, S.BENCHMARK_DAILY).names:
            continue
        frame = tables.get((kind, book), found, ["symbols.ticker_pattern"])
        if frame is None:
            continue
        where = f"{kind}/{book}" if book else kind
        fail_if_any(
            found,
            "symbols.ticker_pattern",
            kind,
            frame.select("symbol").with_columns(file=pl.lit(where)),
            # Anchored by hand, as week_status is: Rust's `$` is the end of the text, never before a
            # final newline.
            ~pl.col("symbol").str.contains(f"^(?:{TICKER})$"),
            f"{where}: symbol is not a ticker (ASCII letters, digits, `.`, `_`, `-`; starting with a "
            "letter or digit; at most 24 characters)",
            columns=["symbol"],
        )


# --- signals ------------------------------------------------------------------------------------


def check_rebalances(found: Findings, rebalances: pl.DataFrame) -> None:
    fail_if_any(
        found,
        "rebalances.unique_dates",
        "rebalances",
        rebalances,
        pl.col("date").is_duplicated(),
        "the date appears more than once",
        columns=["date"],
    )
    status = pl.col("week_status")
    valid = (
        (status == "traded")
        | (status == "pending")
        | (status.str.contains(f"^(?:{SNAKE_CASE.pattern})$") & (status != "skipped"))
    )
    fail_if_any(
        found,
        "rebalances.week_status_values",
        "rebalances",
        rebalances,
        ~valid,
        "week_status is not traded, pending or a snake_case skip reason (`skipped` is never sealed)",
        columns=["week_status"],
    )


def check_decisions(found: Findings, decisions: pl.DataFrame, rebalances: pl.DataFrame | None) -> None:
    kind = "decisions"
    fail_if_any(
        found,
        "decisions.unique_date_symbol",
        kind,
        decisions,
        pl.struct("date", "symbol").is_duplicated(),
        "(date, symbol) appears more than once",
        columns=[],
    )
    if rebalances is not None:
        fail_if_any(
            found,
            "rebalances.decisions_join",
            kind,
            decisions,
            ~pl.col("date").is_in(rebalances["date"].implode()),
            "decision date is not in the rebalance index",
            columns=[],
        )
    fail_if_any(
        found,
        "decisions.score_is_direction_times_confidence",
        kind,
        decisions,
        pl.col("score").is_not_null()
        & differs(pl.col("score"), pl.col("direction").cast(pl.Float64) * pl.col("confidence")),
        "score differs from direction x confidence",
        columns=["score", "direction", "confidence"],
    )
    fail_if_any(
        found,
        "decisions.raw_score_is_raw_direction_times_raw_confidence",
        kind,
        decisions,
        pl.col("pre_smoothing_score").is_not_null()
        & differs(
            pl.col("pre_smoothing_score"), pl.col("raw_direction").cast(pl.Float64) * pl.col("raw_confidence")
        ),
        "pre_smoothing_score differs from raw_direction x raw_confidence",
        columns=["pre_smoothing_score", "raw_direction", "raw_confidence"],
    )
    fail_if_any(
        found,
        "decisions.direction_is_sign_of_score",
        kind,
        decisions,
        (
            pl.col("score").is_not_null()
            & (pl.col("direction") != pl.col("score").sign().cast(pl.Int8)).fill_null(True)
        )
        | (
            pl.col("pre_smoothing_score").is_not_null()
            & (pl.col("raw_direction") != pl.col("pre_smoothing_score").sign().cast(pl.Int8)).fill_null(True)
        )
        | (pl.col("confidence") < 0).fill_null(False)
        | (pl.col("raw_confidence") < 0).fill_null(False),
        "direction is not the sign of the score (or a confidence is negative)",
        columns=[
            "score",
            "direction",
            "confidence",
            "pre_smoothing_score",
            "raw_direction",
            "raw_confidence",
        ],
    )
    fail_if_any(
        found,
        "decisions.reason_values",
        kind,
        decisions,
        ~(
            (pl.col("decision_reason").is_in(S.DECISION_REASONS) | pl.col("decision_reason").is_null())
            & (
                pl.col("raw_decision_reason").is_in(S.DECISION_REASONS)
                | pl.col("raw_decision_reason").is_null()
            )
        ),
        f"decision_reason or raw_decision_reason is not one of {', '.join(S.DECISION_REASONS)} (or null)",
        columns=["decision_reason", "raw_decision_reason"],
    )
    weights = [
        "long_short_target_weight",
        "long_only_target_weight",
        "raw_long_short_target_weight",
        "raw_long_only_target_weight",
    ]
    untradeable = ~pl.col("next_open_tradeable")
    reason = pl.col("unavailability_reason")
    nonzero_weight = pl.any_horizontal([pl.col(w) != 0 for w in weights])
    fail_if_any(
        found,
        "decisions.untradeable_has_zero_weights_and_reason",
        kind,
        decisions,
        (untradeable & (nonzero_weight | ~reason.is_in(S.UNAVAILABILITY_REASONS).fill_null(False)))
        | (~untradeable & reason.is_not_null()),
        "an untradeable name needs four zero target weights and a known unavailability_reason; "
        "a tradeable one a null reason",
        columns=["next_open_tradeable", "unavailability_reason", *weights],
    )
    for column in ("long_only_target_weight", "raw_long_only_target_weight"):
        sums = (
            decisions.group_by("date")
            .agg(
                pl.col(column).filter(pl.col(column) > 0).sum().alias("sum_of_held_weights"),
                pl.len().alias("rows"),
            )
            .filter(pl.col("sum_of_held_weights") > 0)
            .sort("date")
        )
        fail_if_any(
            found,
            "decisions.long_only_weights_sum_to_one",
            kind,
            sums,
            differs(pl.col("sum_of_held_weights"), pl.lit(1.0)),
            f"weeks whose held {column} do not sum to 1",
            columns=["sum_of_held_weights", "rows"],
        )
    if rebalances is not None:
        pending = rebalances.filter(pl.col("week_status") == "pending")["date"].implode()
        fail_if_any(
            found,
            "decisions.pending_week_has_no_fill_or_forward_return",
            kind,
            decisions,
            pl.col("date").is_in(pending)
            & (
                pl.col("fill_at").is_not_null()
                | pl.col("raw_fill_at").is_not_null()
                | pl.col("forward_return").is_not_null()
            ),
            "a pending week carries fill_at, raw_fill_at or forward_return",
            columns=["fill_at", "raw_fill_at", "forward_return"],
        )


# --- books --------------------------------------------------------------------------------------


def check_exposures(found: Findings, exposures: pl.DataFrame, weeks: pl.DataFrame | None) -> None:
    """The optional `exposures` kind: one row per name and rebalance week; sectors are text a page,
    a CSV cell and `sector=` carry; loadings and adv are numbers a regression can use."""
    kind = "exposures"
    fail_if_any(
        found,
        "exposures.unique_date_symbol",
        kind,
        exposures,
        pl.struct("date", "symbol").is_duplicated(),
        "(date, symbol) appears more than once",
        columns=[],
    )
    if weeks is not None:
        fail_if_any(
            found,
            "exposures.rebalance_dates",
            kind,
            exposures,
            ~pl.col("date").is_in(weeks["date"].unique().implode()),
            "date is not a rebalance date of this seal",
            columns=[],
        )
    fail_if_any(
        found,
        "exposures.sector_text",
        kind,
        exposures,
        pl.col("sector").is_not_null() & ~pl.col("sector").str.contains(f"^(?:{S.SECTOR_PATTERN.pattern})$"),
        "sector is not plain text (a letter, then letters, digits, spaces and & , . _ -; at most 64 characters)",
        columns=["sector"],
    )
    numbers = [*S.STYLE_FACTORS, "adv"]
    fail_if_any(
        found,
        "exposures.finite_values",
        kind,
        exposures,
        pl.any_horizontal(pl.col(c).is_not_null() & ~pl.col(c).is_finite() for c in numbers),
        "a style loading or adv is NaN or infinite",
        columns=numbers,
    )
    fail_if_any(
        found,
        "exposures.adv_positive",
        kind,
        exposures,
        pl.col("adv") <= 0,
        "adv is not greater than 0",
        columns=["adv"],
    )


def check_ledger(found: Findings, ledger: pl.DataFrame, book: str) -> None:
    kind = "portfolio"
    labelled = ledger.with_columns(book=pl.lit(book))
    components = ["market_pnl", "execution_cost", "borrow_cashflow", "cash_carry", "rounding_adjustment"]
    ending = (
        pl.col("starting_equity")
        + pl.col("market_pnl")
        + pl.col("execution_cost")
        + pl.col("borrow_cashflow")
        + pl.col("cash_carry")
        + pl.col("rounding_adjustment")
    )
    fail_if_any(
        found,
        "ledger.ending_equity_identity",
        kind,
        labelled,
        differs(pl.col("ending_equity"), ending),
        f"book {book}: ending_equity differs from starting_equity plus the day's P&L, carry and rounding",
        columns=["ending_equity", "starting_equity", *components],
    )
    fail_if_any(
        found,
        "ledger.cash_plus_positions_is_equity",
        kind,
        labelled,
        differs(pl.col("cash_end") + pl.col("position_value_end"), pl.col("ending_equity")),
        f"book {book}: cash_end + position_value_end differs from ending_equity",
        columns=["cash_end", "position_value_end", "ending_equity"],
    )
    previous = pl.col("ending_equity").shift(1).fill_null(1.0)
    fail_if_any(
        found,
        "ledger.starting_equity_chain",
        kind,
        labelled.with_columns(expected_starting_equity=previous),
        differs(pl.col("starting_equity"), pl.col("expected_starting_equity"))
        | pl.col("date").is_duplicated(),
        f"book {book}: starting_equity is not the previous ending_equity (1.0 at inception), or a date repeats",
        columns=["starting_equity", "expected_starting_equity"],
    )


def check_pnl(found: Findings, pnl: pl.DataFrame, ledger: pl.DataFrame, book: str) -> None:
    kind = "pnl"
    components = ("market_pnl", "execution_cost", "borrow_cashflow")
    per_session = pnl.group_by("date").agg(
        *[pl.col(c).sum().alias(f"sum_{c}") for c in components],
        (pl.col("market_pnl") + pl.col("execution_cost") + pl.col("borrow_cashflow"))
        .sum()
        .alias("sum_net_pnl"),
        pl.len().alias("pnl_rows"),
    )
    joined = (
        ledger.select(
            "date", "starting_equity", "ending_equity", "cash_carry", "rounding_adjustment", *components
        )
        .join(per_session, on="date", how="full", coalesce=True)
        .with_columns(pl.col(f"sum_{c}").fill_null(0.0) for c in (*components, "net_pnl"))
        .with_columns(book=pl.lit(book))
        .sort("date")
    )
    fail_if_any(
        found,
        "pnl.net_pnl_sums_to_equity_change",
        kind,
        joined,
        differs(
            pl.col("sum_net_pnl") + pl.col("cash_carry") + pl.col("rounding_adjustment"),
            pl.col("ending_equity") - pl.col("starting_equity"),
        ),
        f"book {book}: sessions where sum(net_pnl) + cash_carry + rounding_adjustment differs from "
        "ending_equity - starting_equity (or the session has no ledger row)",
        columns=[
            "pnl_rows",
            "sum_net_pnl",
            "cash_carry",
            "rounding_adjustment",
            "starting_equity",
            "ending_equity",
        ],
    )
    fail_if_any(
        found,
        "pnl.sums_to_ledger",
        kind,
        joined,
        pl.any_horizontal([differs(pl.col(f"sum_{c}"), pl.col(c)) for c in components]),
        f"book {book}: sessions whose per-symbol market_pnl, execution_cost or borrow_cashflow do not sum to the ledger row",
        columns=["pnl_rows", *(f"sum_{c}" for c in components), *components],
    )


def check_trades(
    found: Findings,
    trades: dict[str, pl.DataFrame],
    rebalances: pl.DataFrame | None,
    unread: Mapping[str, str],
) -> None:
    """`unread`: the trade books refused before (by a schema rule), and why: a variant of one
    is not compared with it."""
    kind = "trades"
    for book, frame in sorted(trades.items()):
        labelled = frame.with_columns(book=pl.lit(book))
        if rebalances is not None:
            fail_if_any(
                found,
                "trades.decision_at_joins_rebalance",
                kind,
                labelled,
                ~pl.col("decision_at").is_in(rebalances["date"].implode()),
                f"book {book}: decision_at is not a rebalance date",
                columns=["timestamp", "decision_at"],
            )
        fail_if_any(
            found,
            "trades.enums",
            kind,
            labelled,
            ~pl.col("phase").is_in(S.TRADE_PHASES)
            | ~(
                pl.col("rebalance_adjustment_reason").is_in(S.ADJUSTMENT_REASONS)
                | pl.col("rebalance_adjustment_reason").is_null()
            )
            | ~(pl.col("exit_reason").is_in(S.EXIT_REASONS) | pl.col("exit_reason").is_null()),
            f"book {book}: phase, rebalance_adjustment_reason or exit_reason outside its enum",
            columns=["timestamp", "phase", "rebalance_adjustment_reason", "exit_reason"],
        )
    for book, frame in sorted(trades.items()):
        for suffix, phases in (("_adjustments", ("rebalance",)), ("_settlements", ("open", "close"))):
            if not book.endswith(suffix):
                continue
            parent_book = book.removesuffix(suffix)
            if parent_book in unread:
                found.skip(["trades.variants_are_subsets"], unread[parent_book])
                continue
            parent = trades.get(parent_book)
            indexed = frame.with_row_index("row")
            known = (
                indexed.join(parent, on=frame.columns, how="semi", nulls_equal=True)["row"]
                if parent is not None
                else pl.Series("row", [], dtype=pl.UInt32)
            )
            fail_if_any(
                found,
                "trades.variants_are_subsets",
                kind,
                indexed.with_columns(book=pl.lit(book)),
                ~pl.col("row").is_in(known.implode()) | ~pl.col("phase").is_in(phases),
                f"book {book}: rows absent from {parent_book} or with a phase other than {'/'.join(phases)}",
                columns=[c for c in frame.columns if c != "symbol"],  # a variant's row is compared whole
            )


# --- description, archive, benchmark -------------------------------------------------------------


BENCHMARK_TABLE_RULES = ("schema.not_null", "schema.date_range", "benchmark.dates_ascending_positive_close")


def check_benchmark(seal: Seal, found: Findings) -> None:
    """Every rule after the manifest's over a benchmark seal, its contents loaded."""
    if set(seal.files) - {MANIFEST} != {BENCHMARK_DAILY}:
        found.add(
            SealRejected(
                "manifest.kinds_present",
                "benchmark",
                f"a benchmark seal holds exactly {BENCHMARK_DAILY}; found {seal.files}",
            )
        )
    if BENCHMARK_DAILY in seal.unread:
        found.skip(BENCHMARK_TABLE_RULES, seal.unread[BENCHMARK_DAILY])
    refused = check_schemas(seal, found)
    table = seal.tables.get(("daily", None))
    if table is None:
        return
    if refused:
        found.skip(["benchmark.dates_ascending_positive_close"], refused[("daily", None)])
        return
    daily = pl.from_arrow(table)
    assert isinstance(daily, pl.DataFrame)
    fail_if_any(
        found,
        "benchmark.dates_ascending_positive_close",
        "benchmark",
        daily.with_columns(previous_date=pl.col("date").shift(1)),
        (pl.col("date") <= pl.col("previous_date")).fill_null(False)
        | (pl.col("close") <= 0)
        | (pl.col("adjusted_close") <= 0).fill_null(False),
        "dates not strictly ascending, or a close not positive",
        columns=["previous_date", "close", "adjusted_close"],
    )
