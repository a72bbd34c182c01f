"""Named validation rules, the refusal report, and the numeric tolerance every identity uses.

Tolerance: two numbers agree when |a - b| <= 1e-9 * max(1, |a|, |b|), an absolute bound of 1e-9
for ratio-sized values (equity is normalised to 1.0 at inception) that grows with the magnitude.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

RELATIVE_TOLERANCE = 1e-9
MAX_SAMPLE_ROWS = 5

# Every rule the pipeline checks, in the order a report lists them (and a refusal names the first):
# the order they are checked in, but for the reading of the files. docs/seal.md lists the same ids
# in the same order (tests/pipeline/test_seal_check.py).
RULES: dict[str, str] = {
    "seal.regular_files": "every entry of the seal is a regular file or folder of its own: no symlink, hard link, device, fifo or socket, no path leaving the seal",
    "seal.size_limits": "every table within its kind's rows and decoded bytes, every JSON file within its size and nesting depth, checked before it is decoded (sealkit/src/alpha_results_seal/seal_limits.py)",
    "manifest.fields": "manifest.json has every required field with the right type",
    "manifest.text_bounds": "every text of manifest.json within its length, every key within 128 characters, every list within its count, every integer within ±(2^53 - 1) (sealkit/src/alpha_results_seal/arrow_schemas.py)",
    "manifest.no_bidi_controls": "no text or key of manifest.json holds a bidirectional control character",
    "manifest.kinds_present": "every declared kind and book has its file, and every file is declared",
    "schema.columns": "each file has exactly the columns and types of sealkit/src/alpha_results_seal/arrow_schemas.py",
    "schema.not_null": "columns the seal schema marks non-nullable hold no nulls",
    "schema.date_range": "every date and instant falls between 1900-01-01 and 2199-12-31",
    "schema.finite_numbers": "no number of a table is infinite, nor NaN in a column that takes no null (a NaN is allowed only where a number may be missing; exposures have their own rule)",
    "symbols.ticker_pattern": "every symbol is a ticker as the API's symbol= takes it (ASCII letters, digits, . _ -; at most 24 characters)",
    "rebalances.unique_dates": "one row per rebalance date",
    "rebalances.week_status_values": "week_status is traded, pending or a snake_case skip reason (never `skipped`)",
    "decisions.unique_date_symbol": "one row per (date, symbol)",
    "rebalances.decisions_join": "every decision date is in the rebalance index",
    "decisions.score_is_direction_times_confidence": "score = direction x confidence",
    "decisions.raw_score_is_raw_direction_times_raw_confidence": "pre_smoothing_score = raw_direction x raw_confidence",
    "decisions.direction_is_sign_of_score": "direction = sign(score), raw_direction = sign(pre_smoothing_score)",
    "decisions.reason_values": "decision_reason and raw_decision_reason are known reasons or null",
    "decisions.untradeable_has_zero_weights_and_reason": "untradeable: four target weights 0 and a known unavailability_reason; tradeable: reason null",
    "decisions.long_only_weights_sum_to_one": "per week with holdings the long-only target weights (and the raw ones) sum to 1",
    "decisions.pending_week_has_no_fill_or_forward_return": "pending weeks have null fill_at, raw_fill_at and forward_return",
    "exposures.unique_date_symbol": "one row per (date, symbol)",
    "exposures.rebalance_dates": "every exposures date is a rebalance date (of the rebalance index, else of the decisions)",
    "exposures.sector_text": "a sector is plain text: a letter, then letters, digits, spaces and & , . _ -; at most 64 characters",
    "exposures.finite_values": "style loadings and adv are finite numbers or null (never NaN or infinite)",
    "exposures.adv_positive": "adv, when sealed, is greater than 0",
    "ledger.ending_equity_identity": "ending = starting + market_pnl + execution_cost + borrow_cashflow + cash_carry + rounding_adjustment",
    "ledger.cash_plus_positions_is_equity": "cash_end + position_value_end = ending_equity",
    "ledger.starting_equity_chain": "starting_equity = previous ending_equity, and 1.0 at inception",
    "pnl.net_pnl_sums_to_equity_change": "sum(net_pnl) + cash_carry + rounding_adjustment = ending - starting, per session",
    "pnl.sums_to_ledger": "per session, the names' market_pnl, execution_cost, borrow_cashflow sum to the ledger row",
    "trades.decision_at_joins_rebalance": "every trade's decision_at is a rebalance date",
    "trades.enums": "phase, rebalance_adjustment_reason and exit_reason take known values",
    "trades.variants_are_subsets": "<book>_adjustments and <book>_settlements rows are rows of <book>",
    "description.json_object": "description.json, when sealed, is UTF-8 JSON holding an object",
    "description.text_bounds": "every text of description.json within its length, every key within 128 characters, every list within its count, every integer within ±(2^53 - 1) (sealkit/src/alpha_results_seal/arrow_schemas.py)",
    "description.no_bidi_controls": "no text or key of description.json holds a bidirectional control character",
    "description.exactly_one_seed": "source_papers, when any, have known roles and exactly one `seed`",
    "description.tldr_matches_manifest": "a tldr in description.json equals the manifest's tldr",
    "source.sha256_matches": "a delivered source.zip has the recorded size and SHA-256",
    "family.owner": "a seal naming a trial family is published by the team that owns it (the first to publish into it), never by a build that declares no team, checked at publish and by seal check --lake",
    "family.members": "a trial family holds at most ALPHA_RESULTS_SEAL_FAMILY_MEMBERS members (1,000), checked at publish and by seal check --lake",
    "benchmark.dates_ascending_positive_close": "benchmark dates strictly ascending, close > 0",
}


# The rules a benchmark seal is checked by (its manifest, its one table); an alpha seal is checked
# by every other rule.
BENCHMARK_RULES = (
    "seal.regular_files",
    "seal.size_limits",
    "manifest.fields",
    "manifest.text_bounds",
    "manifest.no_bidi_controls",
    "manifest.kinds_present",
    "schema.columns",
    "schema.not_null",
    "schema.date_range",
    "schema.finite_numbers",
    "benchmark.dates_ascending_positive_close",
)
ALPHA_RULES = tuple(rule for rule in RULES if not rule.startswith("benchmark."))
TABLE_RULE_GROUPS = ("schema", "symbols", "rebalances", "decisions", "exposures", "ledger", "pnl", "trades")
"""The rules over the seal's tables: none can be checked while the manifest does not say which
files the seal holds."""

LOCATING_COLUMNS = ("file", "book", "date", "symbol", "row")
"""Columns that say where a flagged row is: a sample row holds those of its frame, then the
columns its rule is about, and no other (a trade, which has no date, is located by the
`timestamp` its rules name first)."""


class SealRejected(Exception):
    """A seal broke a named rule; carries what a person needs to find the rows. Raised by the
    publish path with the first broken rule, every other one it broke in `more` (their
    `as_dict()`, in the order of `RULES`)."""

    def __init__(
        self,
        rule: str,
        kind: str,
        message: str,
        samples: list[dict[str, Any]] | None = None,
        more: list[dict[str, Any]] | None = None,
    ) -> None:
        self.rule = rule
        self.kind = kind
        self.message = message
        self.samples = (samples or [])[:MAX_SAMPLE_ROWS]
        self.more = more or []
        super().__init__(f"[{rule}] {kind}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (SealRejected, (self.rule, self.kind, self.message, self.samples, self.more))

    def lines(self) -> list[str]:
        """This rule's lines, then those of every other broken rule: a list, as a message may
        hold a seal's newline (printed escaped, `alpha_results_seal.printable`, on its line)."""
        lines = [f"refused by rule {self.rule} (kind {self.kind}): {self.message}"]
        lines += [f"  sample: {row}" for row in self.samples]
        for other in self.more:
            lines += SealRejected(**other).lines()
        return lines

    def report(self) -> str:
        """`lines()` as one text (an assertion's message)."""
        return "\n".join(self.lines())

    def as_dict(self) -> dict[str, Any]:
        found = {"rule": self.rule, "kind": self.kind, "message": self.message, "samples": self.samples}
        return found | ({"more": self.more} if self.more else {})


@dataclass(frozen=True)
class NotChecked:
    """A rule that could not be checked because another rule refused what it reads."""

    rule: str
    reason: str


@dataclass
class Findings:
    """Every broken rule of one seal, in the order checked, and the rules that could not be
    checked: a check records what it finds here and goes on, so that one pass reports them all."""

    broken: list[SealRejected] = field(default_factory=list)
    not_checked: list[NotChecked] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.broken

    def add(self, rejection: SealRejected) -> None:
        self.broken.append(rejection)

    def attempt(self, check: Callable[[], None]) -> bool:
        """Runs `check`, recording the rule it raises; True when it held."""
        try:
            check()
        except SealRejected as rejection:
            self.add(rejection)
            return False
        return True

    def skip(self, rules: Iterable[str], reason: str) -> None:
        """Records `rules` as not checked, because of `reason` (what refused what they read: a
        rule may be broken in one file and not checked in another); once per rule and reason."""
        for rule in rules:
            assert rule in RULES, rule
            skipped = NotChecked(rule, reason)
            if skipped not in self.not_checked:
                self.not_checked.append(skipped)

    def in_rule_order(self) -> tuple[list[SealRejected], list[NotChecked]]:
        """The broken rules and those not checked in the order of `RULES` (each rule's in the
        order found: file by file, book by book)."""
        return sorted(self.broken, key=_rank), sorted(self.not_checked, key=_rank)

    def refuse(self) -> None:
        """Raises the first broken rule (in the order of `RULES`), carrying the others, when any
        rule is broken."""
        if self.broken:
            first, *others = self.in_rule_order()[0]
            raise SealRejected(
                first.rule, first.kind, first.message, first.samples, [o.as_dict() for o in others]
            )


def _rank(found: SealRejected | NotChecked) -> int:
    return RANK[found.rule]


RANK = {rule: rank for rank, rule in enumerate(RULES)}


def differs(a: pa.Array | pa.ChunkedArray, b: pa.Array | pa.ChunkedArray) -> pa.Array:
    """True where a and b disagree beyond the tolerance: |a - b| > tol x max(1, |a|, |b|).

    Null on either side counts as disagreeing. NaN explicitly: a NaN difference (NaN on either
    side, or two equal infinities) disagrees, as NaN ranks above every number, where numpy's
    `abs(a - b) > bound` is False and would let a NaN equity through; the scale ignores a NaN (it
    is 1 for a NaN against 0). An infinity against a finite number does not disagree (the scale
    is infinite too): the rule as it has always been (tests/sealkit/test_rules_port.py)."""
    x = _floats(a)
    y = _floats(b)
    nulls = np.asarray(pc.or_(pc.is_null(a), pc.is_null(b)).to_numpy(zero_copy_only=False), dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        delta = np.abs(x - y)
        scale = np.fmax(1.0, np.fmax(np.abs(x), np.abs(y)))  # fmax: a NaN is passed over
        flagged = (delta > RELATIVE_TOLERANCE * scale) | np.isnan(delta)
    return pa.array(flagged | nulls, pa.bool_())


def _floats(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """float64 values, a null as NaN (the caller masks nulls)."""
    cast = pc.cast(values, pa.float64())
    return np.asarray(pc.fill_null(cast, float("nan")).to_numpy(zero_copy_only=False), dtype=np.float64)


def fail_if_any(
    found: Findings,
    rule: str,
    kind: str,
    frame: pa.Table,
    bad: pa.Array | pa.ChunkedArray,
    what: str,
    columns: Sequence[str],
) -> None:
    """Records `rule` as broken when any row of `frame` is flagged (a null flag is not),
    quoting counts and sample rows: each holds the columns that locate it (`LOCATING_COLUMNS`)
    and `columns`, the ones the rule is about, and no other."""
    flagged = frame.filter(pc.fill_null(bad, False))
    if flagged.num_rows:
        shown = [c for c in LOCATING_COLUMNS if c in frame.column_names and c not in columns] + list(columns)
        found.add(
            SealRejected(
                rule,
                kind,
                f"{flagged.num_rows:,} of {frame.num_rows:,} rows: {what}",
                samples=[
                    _jsonable(row) for row in flagged.slice(0, MAX_SAMPLE_ROWS).select(shown).to_pylist()
                ],
            )
        )


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    """A sample row as JSON carries it: dates and instants as ISO text, NaN and infinities as text."""
    return {k: (v if _plain(v) else str(v)) for k, v in row.items()}


def _plain(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (int, str, bool)) or value is None
