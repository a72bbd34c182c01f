"""The rules of `alpha_results_seal.rules.RULES` over a read seal. Each check records what it finds in a
`Findings` and the next one runs: one pass finds every broken rule (`alpha_results_seal.check` runs
them in order, for `alpha-results seal check` and the publish path alike).

Checks are vectorised over whole tables (pyarrow.compute, NaN and null handled as
`arrow_logic` says); a broken rule records the rule id, the kind, the
count of offending rows and up to five of them, each holding the columns that locate it and those
the rule is about. A rule that would read what another rule refused (a table whose columns are
wrong, a manifest field that does not say which files the seal holds) is recorded as not checked,
with the reason, never run on it.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.arrow_logic import (
    any_of,
    greater,
    group_sums,
    is_duplicated,
    is_in,
    semi_join_rows,
    shift_down,
    sort_by_date,
)
from alpha_results_seal.bounded_read import check_columns
from alpha_results_seal.identifiers import TICKER
from alpha_results_seal.manifest import TABLE_FIELDS, manifest_problems
from alpha_results_seal.rules import RULES, TABLE_RULE_GROUPS, Findings, SealRejected, differs, fail_if_any
from alpha_results_seal.seal import (
    BENCHMARK_DAILY,
    DESCRIPTION,
    MANIFEST,
    SOURCE_ZIP,
    Seal,
    expected_files,
    table_files,
)

# Matched whole (in pyarrow, anchored): `re.match` with `$` lets a trailing newline through.
SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")

Key = tuple[str, str | None]
"""A table of the seal: its kind and book (`Seal.tables`)."""


def rules_of(*groups: str) -> tuple[str, ...]:
    """The rules whose ids start with one of `groups` (`decisions` -> `decisions.*`)."""
    return tuple(rule for rule in RULES if rule.split(".")[0] in groups)


REBALANCE_RULES = ("rebalances.unique_dates", "rebalances.week_status_values")
DECISION_RULES = (*rules_of("decisions"), "rebalances.decisions_join")
ON_REBALANCES = ("rebalances.decisions_join", "decisions.pending_week_has_no_fill_or_forward_return")
"""The decision rules that read the rebalance index too."""
EXPOSURE_RULES = rules_of("exposures")
LEDGER_RULES = rules_of("ledger")
PNL_RULES = rules_of("pnl")
TRADE_RULES = rules_of("trades")
DESCRIPTION_RULES = tuple(r for r in rules_of("description") if r != "description.json_object")
"""The rules reading description.json once it is read as an object."""
TABLE_RULES = ("manifest.kinds_present", *rules_of(*TABLE_RULE_GROUPS))


# --- the seal, in the order its rules are checked -------------------------------------------------


def check_manifest(manifest: dict[str, Any], found: Findings) -> set[str]:
    """`manifest.fields` (its schema, `alpha_results_seal.manifest`), `manifest.text_bounds` and
    `manifest.no_bidi_controls`; returns the top-level fields that break `manifest.fields`."""
    problems = manifest_problems(manifest)
    if problems:
        found.add(SealRejected("manifest.fields", "manifest", "; ".join(p.message for p in problems)))
    check_text(manifest, "manifest", found)
    return {p.field for p in problems}


def readable_tables(seal: Seal, broken_fields: set[str]) -> bool:
    """Whether the manifest says which tables the seal holds: a benchmark's always does."""
    return seal.is_benchmark or not broken_fields & set(TABLE_FIELDS)


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

    frames: dict[Key, pa.Table]
    refused: dict[Key, str]

    def get(self, key: Key, found: Findings, rules: Sequence[str]) -> pa.Table | None:
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
        found.skip(["schema.not_null", "schema.date_range", "schema.finite_numbers"], why)
    refused |= check_schemas(seal, found)
    tables = Tables({k: t for k, t in seal.tables.items() if k not in refused}, refused)
    check_finite_numbers(tables.frames, found)
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
            check_ledger(found, sort_by_date(ledger), book)
    for book in tables.books("pnl"):
        pnl = tables.get(("pnl", book), found, PNL_RULES)
        ledger = tables.get(("portfolio", book), found, PNL_RULES)
        if pnl is not None and ledger is not None:
            check_pnl(found, pnl, sort_by_date(ledger), book)
    trades = {}
    for book in tables.books("trades"):
        frame = tables.get(("trades", book), found, TRADE_RULES)
        if frame is not None:
            trades[book] = frame
    if trades:
        on_rebalances = tables.get(rebalances_key, found, ["trades.decision_at_joins_rebalance"])
        unread = {b: why for (k, b), why in refused.items() if k == "trades" and b is not None}
        check_trades(found, trades, on_rebalances, unread)


def check_description_file(seal: Seal, found: Findings, broken_fields: set[str]) -> None:
    """The rules of description.json, when sealed (`description.json_object` is
    `load_contents`'s: a file it could not read as an object leaves these not checked)."""
    if DESCRIPTION in seal.unread:
        not_an_object = any(b.rule == "description.json_object" for b in found.broken)
        unread = DESCRIPTION_RULES if not_an_object else ("description.json_object", *DESCRIPTION_RULES)
        found.skip(unread, seal.unread[DESCRIPTION])
        return
    description = seal.description
    if description is None:
        return
    check_text(description, "description", found)
    found.attempt(lambda: check_description(description))
    if "tldr" in broken_fields:
        found.skip(["description.tldr_matches_manifest"], "manifest.json's tldr breaks manifest.fields")
    else:
        found.attempt(lambda: check_description_tldr(description, seal.manifest))


# --- text of manifest.json and description.json ------------------------------------------------

BIDI_CONTROL = re.compile(f"[{S.BIDI_CONTROLS}]")


def _texts(value: Any, path: str = "") -> Iterator[tuple[str, str, bool]]:
    """Every text of a JSON document as (path, text, is_key): `classification.tags[]` for a
    tag, the key itself for an object's key."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            yield inner, str(key), True
            yield from _texts(item, inner)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item, f"{path}[]")


def _lists(value: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every list of a JSON document as (path, number of items)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _lists(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        yield path, len(value)
        for item in value:
            yield from _lists(item, f"{path}[]")


def _integers(value: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every integer of a JSON document as (path, value) (a boolean is not one)."""
    if isinstance(value, int) and not isinstance(value, bool):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _integers(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for item in value:
            yield from _integers(item, f"{path}[]")


def _digits(number: int) -> int:
    """The decimal digits of `number` > 0, without writing it out (it may be thousands of digits):
    from the lower bound its bits give, up to the exact count."""
    digits = int((number.bit_length() - 1) * math.log10(2)) + 1
    while 10**digits <= number:
        digits += 1
    return digits


def check_text(document: dict[str, Any], kind: str, found: Findings) -> None:
    """`<kind>.text_bounds` and `<kind>.no_bidi_controls` over every text, key, list and integer of
    manifest.json or description.json (`kind`), bounds from sealkit/src/alpha_results_seal/arrow_schemas.py."""
    default = S.MANIFEST_TEXT_MAX_CHARS if kind == "manifest" else S.DESCRIPTION_TEXT_MAX_CHARS
    over: list[dict[str, Any]] = []
    bidi: list[dict[str, Any]] = []
    for path, text, is_key in _texts(document):
        bound = S.KEY_MAX_CHARS if is_key else S.TEXT_MAX_CHARS.get(path, default)
        if len(text) > bound:
            over.append(
                {"path": path, "key" if is_key else "text": text[:60], "chars": len(text), "limit": bound}
            )
        control = BIDI_CONTROL.search(text)
        if control is not None:
            bidi.append({"path": path, "character": f"U+{ord(control[0]):04X}", "at": control.start()})
    for path, items in _lists(document):
        bound = S.LIST_MAX_ITEMS.get(path, S.DEFAULT_LIST_MAX_ITEMS)
        if items > bound:
            over.append({"path": path, "items": items, "limit": bound})
    for path, number in _integers(document):
        if abs(number) > S.INTEGER_MAX_ABS:
            over.append({"path": path, "digits": _digits(abs(number)), "limit": S.INTEGER_MAX_ABS})
    if over:
        first = over[0]
        if "items" in first:
            what, limit = f"{first['items']:,} items", f"{first['limit']:,}"
        elif "digits" in first:
            what, limit = f"an integer of {first['digits']:,} digits", f"±{first['limit']:,}"
        else:
            what, limit = f"{first['chars']:,} characters", f"{first['limit']:,}"
        found.add(
            SealRejected(
                f"{kind}.text_bounds",
                kind,
                f"{len(over)} value(s) over their bound; {first['path']} has {what}, at most {limit} "
                '(docs/seal.md "Text")',
                samples=over,
            )
        )
    if bidi:
        found.add(
            SealRejected(
                f"{kind}.no_bidi_controls",
                kind,
                f"{len(bidi)} text(s) hold a bidirectional control character, which would reorder the "
                f"text shown beside them; {bidi[0]['path']} holds {bidi[0]['character']}",
                samples=bidi,
            )
        )


# --- files and schemas ----------------------------------------------------------------------------


def check_kinds_present(seal: Seal) -> None:
    declared = expected_files(seal.manifest)
    present = {f for f in seal.files if f.endswith(".parquet")}
    missing = sorted(declared - present)
    undeclared = sorted(present - declared)
    extra = sorted(set(seal.files) - present - {MANIFEST, DESCRIPTION, SOURCE_ZIP})
    if missing or undeclared or extra:
        parts = []
        if missing:
            parts.append(f"declared but absent: {', '.join(missing)}")
        if undeclared:
            parts.append(f"present but not declared: {', '.join(undeclared)}")
        if extra:
            parts.append(f"unknown files: {', '.join(extra)}")
        kind = (missing or undeclared or extra)[0].split("/")[0].removesuffix(".parquet")
        raise SealRejected("manifest.kinds_present", kind, "; ".join(parts))


def check_schemas(seal: Seal, found: Findings) -> dict[Key, str]:
    """`schema.columns`, `schema.not_null` and `schema.date_range` over every table read;
    returns the tables that break one, and why (no other rule reads them: a date far out of
    range cannot even be read back)."""
    refused: dict[Key, str] = {}
    for (kind, book), table in sorted(seal.tables.items(), key=lambda item: str(item[0])):
        benchmark = kind == "daily"  # a benchmark's daily.parquet, named kind `benchmark` in reports
        expected = S.BENCHMARK_DAILY if benchmark else S.KIND_SCHEMAS[kind]
        named = "benchmark" if benchmark else kind
        before = len(found.broken)
        _check_schema(found, table, expected, named, f"{named}/{book}" if book else named)
        if len(found.broken) > before:
            name = BENCHMARK_DAILY if benchmark else S.kind_path(kind, book)
            refused[(kind, book)] = f"{name} breaks {found.broken[before].rule}"
    return refused


def _check_schema(found: Findings, table: pa.Table, expected: pa.Schema, kind: str, where: str) -> None:
    if not found.attempt(lambda: check_columns(table.schema, expected, kind, where)):
        return
    for field in expected:
        count = table.column(field.name).null_count
        if not field.nullable and count:
            found.add(
                SealRejected(
                    "schema.not_null",
                    kind,
                    f"{where}: {count:,} of {table.num_rows:,} rows have a null {field.name}",
                )
            )
        found.attempt(functools.partial(_check_dates, table.column(field.name), field, kind, where))


FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2199, 12, 31)
"""The days a seal's dates and instants may fall on. Outside them a value is damage, and one past
year 9999 cannot even be read back as a date (Python's dates end there)."""


def _check_dates(column: pa.ChunkedArray, field: pa.Field, kind: str, where: str) -> None:
    """Compared as the stored integers (days, or the timestamp's unit since the epoch), never
    converted to dates before they are known to be in range."""
    if pa.types.is_date32(field.type):
        low, high = (pa.scalar(d, pa.date32()).cast(pa.int32()).as_py() for d in (FIRST_DAY, LAST_DAY))
        values = column.cast(pa.int32())
    elif pa.types.is_timestamp(field.type):
        unit = pa.timestamp(field.type.unit)
        ends = (datetime(1900, 1, 1), datetime(2200, 1, 1))
        low, high = (pa.scalar(moment, unit).cast(pa.int64()).as_py() for moment in ends)
        values = column.cast(pa.int64())
    else:
        return
    bounds = pc.min_max(values).as_py()
    if bounds["min"] is not None and (bounds["min"] < low or bounds["max"] > high):
        raise SealRejected(
            "schema.date_range",
            kind,
            f"{where}: {field.name} has a value outside {FIRST_DAY.isoformat()}..{LAST_DAY.isoformat()}",
        )


FINITE_EXEMPT_KINDS = ("exposures",)
"""Kinds whose numbers another rule holds finite (`exposures.finite_values`): one rule each."""


FINITE_LOCATING = {"trades": ["timestamp"], "metrics": ["scope", "period", "metric"]}
"""What locates a row of a kind without a date (besides `LOCATING_COLUMNS`)."""


def check_finite_numbers(frames: Mapping[Key, pa.Table], found: Findings) -> None:
    """`schema.finite_numbers` over every table read: an infinity in any number column, a NaN in
    one the schema marks non-nullable (where a number is never missing). An infinite figure
    passes every identity (the tolerance scales with it), so without this rule a ledger or a
    week's weights could publish an infinity. One finding per table, its sample rows the locating
    columns and the number columns holding a non-finite value."""
    for (kind, book), table in sorted(frames.items(), key=lambda item: str(item[0])):
        if kind in FINITE_EXEMPT_KINDS:
            continue
        named = "benchmark" if kind == "daily" else kind  # a benchmark's daily.parquet
        numbers = [f for f in table.schema if pa.types.is_floating(f.type)]
        flags = {
            f.name: pc.or_kleene(pc.is_inf(table.column(f.name)), pc.is_nan(table.column(f.name)))
            if not f.nullable
            else pc.is_inf(table.column(f.name))
            for f in numbers
        }
        broken = [name for name, flag in flags.items() if pc.any(pc.fill_null(flag, False)).as_py()]
        if not broken:
            continue
        where = f"{named}/{book}" if book else named
        frame = table if book is None else _with_book(table, book)
        fail_if_any(
            found,
            "schema.finite_numbers",
            named,
            frame,
            any_of([flags[name] for name in broken]),
            f"{where}: {', '.join(broken)} not finite (an infinity, or NaN where no number may be missing)",
            columns=[*FINITE_LOCATING.get(kind, []), *broken],
        )


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
        symbols = frame.column("symbol")
        fail_if_any(
            found,
            "symbols.ticker_pattern",
            kind,
            pa.table({"symbol": symbols, "file": pa.repeat(pa.scalar(where, pa.string()), frame.num_rows)}),
            # Anchored by hand, as week_status is: RE2's `$` is the end of the text, never before a
            # final newline.
            pc.invert(_matches(symbols, TICKER)),
            f"{where}: symbol is not a ticker (ASCII letters, digits, `.`, `_`, `-`; starting with a "
            "letter or digit; at most 24 characters)",
            columns=["symbol"],
        )


def _matches(text: pa.ChunkedArray, pattern: str) -> Any:
    """Whether each text matches `pattern` whole (null for a null text). Each distinct text is
    matched once (a seal repeats its few hundred symbols on every row)."""
    encoded = pc.dictionary_encode(text.combine_chunks())
    matched = pc.match_substring_regex(encoded.dictionary, f"^(?:{pattern})$")
    return pc.take(matched, encoded.indices)


def _float(values: pa.ChunkedArray) -> Any:
    return pc.cast(values, pa.float64())


# --- signals ------------------------------------------------------------------------------------


def check_rebalances(found: Findings, rebalances: pa.Table) -> None:
    fail_if_any(
        found,
        "rebalances.unique_dates",
        "rebalances",
        rebalances,
        is_duplicated(rebalances, ["date"]),
        "the date appears more than once",
        columns=["date"],
    )
    status = rebalances.column("week_status")
    valid = any_of(
        [
            pc.equal(status, "traded"),
            pc.equal(status, "pending"),
            pc.and_kleene(_matches(status, SNAKE_CASE.pattern), pc.not_equal(status, "skipped")),
        ]
    )
    fail_if_any(
        found,
        "rebalances.week_status_values",
        "rebalances",
        rebalances,
        pc.invert(valid),
        "week_status is not traded, pending or a snake_case skip reason (`skipped` is never sealed)",
        columns=["week_status"],
    )


def _is_sign_of(direction: pa.ChunkedArray, score: pa.ChunkedArray) -> Any:
    """Whether a present score's direction is its sign: a null direction, or a NaN score (which
    has no sign), is not."""
    same = pc.equal(_float(direction), pc.sign(score))  # NaN's sign is NaN: never equal
    return pc.and_kleene(pc.is_valid(score), pc.fill_null(pc.invert(same), True))


def check_decisions(found: Findings, decisions: pa.Table, rebalances: pa.Table | None) -> None:
    kind = "decisions"
    col = decisions.column
    fail_if_any(
        found,
        "decisions.unique_date_symbol",
        kind,
        decisions,
        is_duplicated(decisions, ["date", "symbol"]),
        "(date, symbol) appears more than once",
        columns=[],
    )
    if rebalances is not None:
        fail_if_any(
            found,
            "rebalances.decisions_join",
            kind,
            decisions,
            pc.invert(is_in(col("date"), rebalances.column("date"))),
            "decision date is not in the rebalance index",
            columns=[],
        )
    fail_if_any(
        found,
        "decisions.score_is_direction_times_confidence",
        kind,
        decisions,
        pc.and_kleene(
            pc.is_valid(col("score")),
            differs(col("score"), pc.multiply(_float(col("direction")), col("confidence"))),
        ),
        "score differs from direction x confidence",
        columns=["score", "direction", "confidence"],
    )
    fail_if_any(
        found,
        "decisions.raw_score_is_raw_direction_times_raw_confidence",
        kind,
        decisions,
        pc.and_kleene(
            pc.is_valid(col("pre_smoothing_score")),
            differs(
                col("pre_smoothing_score"),
                pc.multiply(_float(col("raw_direction")), col("raw_confidence")),
            ),
        ),
        "pre_smoothing_score differs from raw_direction x raw_confidence",
        columns=["pre_smoothing_score", "raw_direction", "raw_confidence"],
    )
    fail_if_any(
        found,
        "decisions.direction_is_sign_of_score",
        kind,
        decisions,
        any_of(
            [
                _is_sign_of(col("direction"), col("score")),
                _is_sign_of(col("raw_direction"), col("pre_smoothing_score")),
                # a NaN confidence is not below 0 (NaN ranks above every number)
                pc.fill_null(pc.less(col("confidence"), 0.0), False),
                pc.fill_null(pc.less(col("raw_confidence"), 0.0), False),
            ]
        ),
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
    known = [
        pc.or_kleene(is_in(col(c), S.DECISION_REASONS), pc.is_null(col(c)))
        for c in ("decision_reason", "raw_decision_reason")
    ]
    fail_if_any(
        found,
        "decisions.reason_values",
        kind,
        decisions,
        pc.invert(pc.and_kleene(*known)),
        f"decision_reason or raw_decision_reason is not one of {', '.join(S.DECISION_REASONS)} (or null)",
        columns=["decision_reason", "raw_decision_reason"],
    )
    weights = [
        "long_short_target_weight",
        "long_only_target_weight",
        "raw_long_short_target_weight",
        "raw_long_only_target_weight",
    ]
    untradeable = pc.invert(col("next_open_tradeable"))
    reason = col("unavailability_reason")
    nonzero_weight = any_of([pc.not_equal(col(w), 0.0) for w in weights])  # NaN != 0 holds
    fail_if_any(
        found,
        "decisions.untradeable_has_zero_weights_and_reason",
        kind,
        decisions,
        pc.or_kleene(
            pc.and_kleene(
                untradeable,
                pc.or_kleene(
                    nonzero_weight, pc.invert(pc.fill_null(is_in(reason, S.UNAVAILABILITY_REASONS), False))
                ),
            ),
            pc.and_kleene(pc.invert(untradeable), pc.is_valid(reason)),
        ),
        "an untradeable name needs four zero target weights and a known unavailability_reason; "
        "a tradeable one a null reason",
        columns=["next_open_tradeable", "unavailability_reason", *weights],
    )
    for column in ("long_only_target_weight", "raw_long_only_target_weight"):
        weight = col(column)
        # a NaN weight is held (NaN ranks above 0), so its week's sum is NaN and is flagged
        held = pc.if_else(pc.fill_null(greater(weight, 0.0), False), weight, pa.scalar(None, pa.float64()))
        per_week = group_sums(decisions, "date", {"sum_of_held_weights": held}, count="rows")
        sums = sort_by_date(
            per_week.filter(pc.fill_null(greater(per_week.column("sum_of_held_weights"), 0.0), False))
        )
        fail_if_any(
            found,
            "decisions.long_only_weights_sum_to_one",
            kind,
            sums,
            differs(sums.column("sum_of_held_weights"), pa.repeat(pa.scalar(1.0), sums.num_rows)),
            f"weeks whose held {column} do not sum to 1",
            columns=["sum_of_held_weights", "rows"],
        )
    if rebalances is not None:
        status = rebalances.column("week_status")
        pending = rebalances.column("date").filter(pc.fill_null(pc.equal(status, "pending"), False))
        fail_if_any(
            found,
            "decisions.pending_week_has_no_fill_or_forward_return",
            kind,
            decisions,
            pc.and_kleene(
                is_in(col("date"), pending),
                any_of([pc.is_valid(col(c)) for c in ("fill_at", "raw_fill_at", "forward_return")]),
            ),
            "a pending week carries fill_at, raw_fill_at or forward_return",
            columns=["fill_at", "raw_fill_at", "forward_return"],
        )


# --- books --------------------------------------------------------------------------------------


def check_exposures(found: Findings, exposures: pa.Table, weeks: pa.Table | None) -> None:
    """The optional `exposures` kind: one row per name and rebalance week; sectors are text a page,
    a CSV cell and `sector=` carry; loadings and adv are numbers a regression can use."""
    kind = "exposures"
    col = exposures.column
    fail_if_any(
        found,
        "exposures.unique_date_symbol",
        kind,
        exposures,
        is_duplicated(exposures, ["date", "symbol"]),
        "(date, symbol) appears more than once",
        columns=[],
    )
    if weeks is not None:
        fail_if_any(
            found,
            "exposures.rebalance_dates",
            kind,
            exposures,
            pc.invert(is_in(col("date"), weeks.column("date"))),
            "date is not a rebalance date of this seal",
            columns=[],
        )
    fail_if_any(
        found,
        "exposures.sector_text",
        kind,
        exposures,
        pc.and_kleene(
            pc.is_valid(col("sector")), pc.invert(_matches(col("sector"), S.SECTOR_PATTERN.pattern))
        ),
        "sector is not plain text (a letter, then letters, digits, spaces and & , . _ -; at most 64 characters)",
        columns=["sector"],
    )
    numbers = [*S.STYLE_FACTORS, "adv"]
    fail_if_any(
        found,
        "exposures.finite_values",
        kind,
        exposures,
        any_of([pc.and_kleene(pc.is_valid(col(c)), pc.invert(pc.is_finite(col(c)))) for c in numbers]),
        "a style loading or adv is NaN or infinite",
        columns=numbers,
    )
    fail_if_any(
        found,
        "exposures.adv_positive",
        kind,
        exposures,
        pc.less_equal(col("adv"), 0.0),  # a NaN adv is not <= 0 (NaN ranks above every number)
        "adv is not greater than 0",
        columns=["adv"],
    )


def _with_book(table: pa.Table, book: str) -> pa.Table:
    return table.append_column("book", pa.repeat(pa.scalar(book, pa.string()), table.num_rows))


def _total(table: pa.Table, names: Sequence[str]) -> Any:
    """The columns added left to right, row by row (null where any is)."""
    total = table.column(names[0])
    for name in names[1:]:
        total = pc.add(total, table.column(name))
    return total


def check_ledger(found: Findings, ledger: pa.Table, book: str) -> None:
    kind = "portfolio"
    labelled = _with_book(ledger, book)
    col = labelled.column
    components = ["market_pnl", "execution_cost", "borrow_cashflow", "cash_carry", "rounding_adjustment"]
    fail_if_any(
        found,
        "ledger.ending_equity_identity",
        kind,
        labelled,
        differs(col("ending_equity"), _total(labelled, ["starting_equity", *components])),
        f"book {book}: ending_equity differs from starting_equity plus the day's P&L, carry and rounding",
        columns=["ending_equity", "starting_equity", *components],
    )
    fail_if_any(
        found,
        "ledger.cash_plus_positions_is_equity",
        kind,
        labelled,
        differs(pc.add(col("cash_end"), col("position_value_end")), col("ending_equity")),
        f"book {book}: cash_end + position_value_end differs from ending_equity",
        columns=["cash_end", "position_value_end", "ending_equity"],
    )
    # the previous row's ending_equity; 1.0 on the first row (and for a null one)
    previous = pc.fill_null(shift_down(col("ending_equity")), 1.0)
    chained = labelled.append_column("expected_starting_equity", previous)
    fail_if_any(
        found,
        "ledger.starting_equity_chain",
        kind,
        chained,
        pc.or_kleene(differs(col("starting_equity"), previous), is_duplicated(labelled, ["date"])),
        f"book {book}: starting_equity is not the previous ending_equity (1.0 at inception), or a date repeats",
        columns=["starting_equity", "expected_starting_equity"],
    )


def _full_join_on_date(left: pa.Table, right: pa.Table) -> pa.Table:
    """The full join of `left` with `right` on `date`, the two dates coalesced: each row of
    `left` with its row of `right` (whose dates are unique), then the rows of `right` no row of
    `left` matched. A null date matches nothing: its rows stay apart, as polars' join kept them
    (in an order polars left unspecified; a seal's dates are never null, `schema.not_null`)."""
    at = pc.index_in(left.column("date"), value_set=right.column("date").combine_chunks(), skip_nulls=True)
    hit = at.to_numpy(zero_copy_only=False)
    matched = pc.is_valid(at).to_numpy(zero_copy_only=False)
    unmatched = np.setdiff1d(np.arange(right.num_rows), hit[matched].astype(np.int64))
    unmatched = np.union1d(
        unmatched, np.flatnonzero(right.column("date").is_null().to_numpy(zero_copy_only=False))
    )
    rows_of_right = right.drop_columns(["date"])
    joined_right = rows_of_right.take(at)
    columns = [*left.columns, *joined_right.columns]
    names = [*left.column_names, *joined_right.column_names]
    # every column may be null now: a session on one side only has none of the other's
    schema = pa.schema([pa.field(n, c.type) for n, c in zip(names, columns, strict=True)])
    top = pa.Table.from_arrays(columns, schema=schema)
    extra = right.take(pa.array(unmatched, pa.int64()))
    bottom_columns = [
        extra.column(n) if n in extra.column_names else pa.nulls(extra.num_rows, top.schema.field(n).type)
        for n in top.column_names
    ]
    bottom = pa.Table.from_arrays(bottom_columns, schema=top.schema)
    return pa.concat_tables([top, bottom])


def check_pnl(found: Findings, pnl: pa.Table, ledger: pa.Table, book: str) -> None:
    kind = "pnl"
    components = ("market_pnl", "execution_cost", "borrow_cashflow")
    sums = {f"sum_{c}": pnl.column(c) for c in components} | {"sum_net_pnl": _total(pnl, components)}
    per_session = group_sums(pnl, "date", sums, count="pnl_rows")
    ledger_part = ledger.select(
        ["date", "starting_equity", "ending_equity", "cash_carry", "rounding_adjustment", *components]
    )
    joined = _full_join_on_date(ledger_part, per_session)
    for name in sums:
        joined = joined.set_column(
            joined.column_names.index(name), name, pc.fill_null(joined.column(name), 0.0)
        )
    joined = sort_by_date(_with_book(joined, book))
    col = joined.column
    fail_if_any(
        found,
        "pnl.net_pnl_sums_to_equity_change",
        kind,
        joined,
        differs(
            pc.add(pc.add(col("sum_net_pnl"), col("cash_carry")), col("rounding_adjustment")),
            pc.subtract(col("ending_equity"), col("starting_equity")),
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
        any_of([differs(col(f"sum_{c}"), col(c)) for c in components]),
        f"book {book}: sessions whose per-symbol market_pnl, execution_cost or borrow_cashflow do not sum to the ledger row",
        columns=["pnl_rows", *(f"sum_{c}" for c in components), *components],
    )


def check_trades(
    found: Findings,
    trades: dict[str, pa.Table],
    rebalances: pa.Table | None,
    unread: Mapping[str, str],
) -> None:
    """`unread`: the trade books refused before (by a schema rule), and why: a variant of one
    is not compared with it."""
    kind = "trades"
    for book, frame in sorted(trades.items()):
        labelled = _with_book(frame, book)
        col = labelled.column
        if rebalances is not None:
            fail_if_any(
                found,
                "trades.decision_at_joins_rebalance",
                kind,
                labelled,
                pc.invert(is_in(col("decision_at"), rebalances.column("date"))),
                f"book {book}: decision_at is not a rebalance date",
                columns=["timestamp", "decision_at"],
            )
        fail_if_any(
            found,
            "trades.enums",
            kind,
            labelled,
            any_of(
                [
                    pc.invert(is_in(col("phase"), S.TRADE_PHASES)),
                    *(
                        pc.invert(pc.or_kleene(is_in(col(c), allowed), pc.is_null(col(c))))
                        for c, allowed in (
                            ("rebalance_adjustment_reason", S.ADJUSTMENT_REASONS),
                            ("exit_reason", S.EXIT_REASONS),
                        )
                    ),
                ]
            ),
            f"book {book}: phase, rebalance_adjustment_reason or exit_reason outside its enum",
            columns=["timestamp", "phase", "rebalance_adjustment_reason", "exit_reason"],
        )
    for book, frame in sorted(trades.items()):
        for suffix, phases in S.TRADE_VARIANT_PHASES.items():
            if not book.endswith(suffix):
                continue
            parent_book = book.removesuffix(suffix)
            if parent_book in unread:
                found.skip(["trades.variants_are_subsets"], unread[parent_book])
                continue
            parent = trades.get(parent_book)
            # a semi-join on every column, nulls equal (NaN equal to NaN, -0.0 to 0.0)
            known = (
                semi_join_rows(frame, parent, frame.column_names)
                if parent is not None
                else np.zeros(frame.num_rows, dtype=bool)
            )
            indexed = pa.Table.from_arrays(
                [pa.array(np.arange(frame.num_rows), pa.int64()), *frame.columns],
                names=["row", *frame.column_names],
            )
            fail_if_any(
                found,
                "trades.variants_are_subsets",
                kind,
                _with_book(indexed, book),
                pc.or_kleene(pa.array(~known, pa.bool_()), pc.invert(is_in(frame.column("phase"), phases))),
                f"book {book}: rows absent from {parent_book} or with a phase other than {'/'.join(phases)}",
                columns=[c for c in frame.column_names if c != "symbol"],  # a variant's row is compared whole
            )


# --- description, archive, benchmark -------------------------------------------------------------


def check_description(description: dict[str, Any]) -> None:
    papers = description.get("source_papers") or []
    if not isinstance(papers, list) or not all(isinstance(p, dict) for p in papers):
        raise SealRejected(
            "description.exactly_one_seed", "description", "source_papers must be a list of objects"
        )
    if not papers:
        return
    roles = [p.get("role") for p in papers]
    unknown = [r for r in roles if r not in S.CITATION_ROLES]
    seeds = roles.count("seed")
    if unknown or seeds != 1:
        raise SealRejected(
            "description.exactly_one_seed",
            "description",
            f"{seeds} of {len(papers)} citations have role seed (exactly one required)"
            + (f"; unknown roles {unknown}" if unknown else ""),
            samples=[{k: p.get(k) for k in ("title", "role")} for p in papers],
        )


def check_description_tldr(description: dict[str, Any], manifest: dict[str, Any]) -> None:
    """The catalogue (`/v1/alphas`, search) serves the manifest's tldr and the description
    (`/v1/alphas/{alpha}`) description.json's: a seal carrying two different texts would be served
    saying both. A description without a tldr (or a null one) takes the manifest's."""
    written, summary = description.get("tldr"), manifest.get("tldr")
    if written is None or written == summary:
        return
    raise SealRejected(
        "description.tldr_matches_manifest",
        "description",
        f"description.json has tldr {written!r} but manifest.json has {summary!r}; the catalogue "
        "(/v1/alphas) would serve the manifest's and the description (/v1/alphas/{alpha}) "
        "description.json's. Seal one text: the same tldr in both files, or none in description.json "
        "(the description then shows the manifest's)",
        samples=[{"manifest.tldr": summary, "description.tldr": written}],
    )


def check_source_archive(seal: Seal) -> None:
    archive = seal.manifest.get("source_archive")
    if seal.source_zip is None or not archive or archive.get("status") != "ready":
        return
    digest = hashlib.sha256(seal.source_zip).hexdigest()
    if digest != archive["sha256"] or len(seal.source_zip) != archive["size_bytes"]:
        raise SealRejected(
            "source.sha256_matches",
            "source",
            f"source.zip has {len(seal.source_zip):,} bytes and sha256 {digest}; the manifest records "
            f"{archive['size_bytes']:,} bytes and {archive['sha256']}",
        )


BENCHMARK_TABLE_RULES = (
    "schema.not_null",
    "schema.date_range",
    "schema.finite_numbers",
    "benchmark.dates_ascending_positive_close",
)


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
        found.skip(
            ["schema.finite_numbers", "benchmark.dates_ascending_positive_close"], refused[("daily", None)]
        )
        return
    check_finite_numbers({("daily", None): table}, found)
    previous = shift_down(table.column("date"))
    daily = table.append_column("previous_date", previous)
    fail_if_any(
        found,
        "benchmark.dates_ascending_positive_close",
        "benchmark",
        daily,
        any_of(
            [
                pc.fill_null(pc.less_equal(table.column("date"), previous), False),
                pc.less_equal(table.column("close"), 0.0),  # a NaN close is not <= 0
                pc.fill_null(pc.less_equal(table.column("adjusted_close"), 0.0), False),
            ]
        ),
        "dates not strictly ascending, or a close not positive",
        columns=["previous_date", "close", "adjusted_close"],
    )
