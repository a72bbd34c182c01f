"""The rows of every collection typed from the lake, and the `meta.summary` of the two series, as
Structs: each field's name, order, type and meaning declared once, on the field (`doc`: meaning,
unit, when null, when absent, raw-only). serve/openapi/ writes the document's row components
from them; docs/reference.md and the generated client follow; tests/api/test_bodies.py decodes
every recorded row with them, so a served key they do not declare fails.

The server builds rows from the serving tables (`schemas.wire` keeps their column order), not
through these Structs: a key it leaves out (raw-only fields for a key without raw access, the
`fields=all` columns of `/scores`) is `| UnsetType = UNSET`; every other key is always served,
null where the type allows it.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, UnsetType

from schemas import terms, units
from schemas.bodies import libraries
from schemas.bodies.analytics import BOOK_LEDGER
from schemas.bodies.base import Body
from schemas.bodies.formats import SEAL_TEXT, X_ABSENT, Timestamp, doc
from schemas.bodies.promotions import Standing
from schemas.conventions import WEEKS_PER_YEAR

RAW_MIRROR = "Unconditioned counterpart of `{}` (before smoothing); no other field is mirrored."
UNSCORED = "Null for a name without a valid score that week (a data gap)."
EMPTY_WINDOW = "Null when the window holds no session."
OMITTED_UNSEALED = "Omitted where the run did not seal it."
SCORES_ALL_ONLY = "Only with `fields=all`."
NOT_MEASURED = "Null where `/metrics` serves it not_measurable."
OLD_INDEX = "and in an index written before the live columns (until `alpha-results lake index`)"
LIVE_NOT_MEASURED = (
    "Null where `/analytics/live` serves it not_measurable at the alpha's split (fewer than 2 sessions with "
    f"variance in the part, no split, no ledger), {OLD_INDEX}."
)
RESIDUAL_NOT_MEASURED = (
    "Null where `/analytics/residual` serves it not_measurable (too few sessions, a set larger than the sessions "
    "allow, no SPY series), in an index written before the residual columns, and for a key whose default "
    "reference set is not the one the column was computed against (it may not read an alpha of that set, or "
    "the records approve other alphas than the index last heard of; an access_limited warning says so)."
)
BELOW_HALF = (
    "Null when fewer than half the window's weeks carry a value (the standard deviation also needs 2)."
)
UNRECOVERED = "Null while the episode has not recovered by the window's last session."
NO_CORRELATION = "Null below 3 common observations or when either side is constant."


def scores_all_only(meta: Meta) -> Meta:
    """A decision-record field as `/scores` serves it: only with `fields=all`."""
    extra = dict(meta.extra_json_schema or {})
    extra[X_ABSENT] = f"{extra[X_ABSENT]} {SCORES_ALL_ONLY}" if X_ABSENT in extra else SCORES_ALL_ONLY
    return Meta(description=meta.description, extra_json_schema=extra)


# -- meanings shared by the rows of several routes ------------------------------------------------

ALPHA_ID = doc("Identifier used in every `/v1/alphas/{alpha}/...` path.")
NAME = doc("Readable title; falls back to `alpha_id`.")
TLDR = doc("One-line thesis.", null="Null when none was recorded.")
STANDING = doc(
    "Where the alpha stands after the operator's decisions (`alpha-results promote`, `retire`; "
    "`/v1/alphas/{alpha}/promotions` serves them): approved (its latest decision approved it into the live "
    "book), retired (its latest retired it), or never (no decision recorded, or a deployment that keeps no "
    "records).",
)
APPROVED_SINCE = doc(
    "The date the approval in force takes effect (its `as_of`; where the alpha's live part starts).",
    unit=units.DATE,
    null="Null unless `standing` is approved.",
)
SESSION_INSTANT = doc("UTC instant of the session.", unit=units.TIMESTAMP)
WINDOW_FIRST_DATE = doc("First session of the window.", unit=units.DATE, null=EMPTY_WINDOW)
WINDOW_LAST_DATE = doc("Last session of the window.", unit=units.DATE, null=EMPTY_WINDOW)
WINDOW_SESSIONS = doc("Sessions in the window (rows across all pages).", unit=units.SESSIONS)
WINDOW_MAX_DRAWDOWN_PCT = doc(
    "Largest `drawdown_pct` of the window.", unit=units.PERCENTAGE_POINTS, null=EMPTY_WINDOW
)
WINDOW_MAX_DRAWDOWN_DATE = doc(
    "Earliest date of the largest `drawdown_pct`.",
    unit=units.DATE,
    null="Null when the window never drew down.",
)

AVERAGE_RANK = doc(
    "Rank in the week's cohort, 1 to `cohort_size`; may be non-integer when component ranks are averaged.",
    term=terms.AVERAGE_RANK,
    null=UNSCORED,
)
BOOK = doc("The book the row belongs to (the `book` requested).")
CASH_CARRY = doc("Interest credited on cash.", unit=units.EQUITY)
CASH_END = doc("Closing cash.", unit=units.EQUITY)
CASH_START = doc("Opening cash.", unit=units.EQUITY)
CLOSE = doc("Unadjusted close, as stored.", unit=units.BENCHMARK_PRICE)
COHORT_SIZE = doc("Names with a valid score that week; can be below `n_symbols`.", unit=units.NAMES)
CONFIDENCE = doc(
    "`abs(score)`, not a probability; `score = direction x confidence`.",
    unit=units.SCORE_UNITS,
    null=UNSCORED,
)
DECISION_AT = doc("Rebalance date that caused the trade; joins to `/rebalances/{date}`.", unit=units.DATE)
DECISION_REASON = doc(
    "Decision-layer note, for example `entered_selection`, `exited_below_threshold`, `carried_by_smoothing`, `gated_untradeable`.",
    null="Null for a routine hold.",
)
DIRECTION = doc("Sign of `score` (1, 0 or -1); 0 only for an exact zero score.", null=UNSCORED)
ENTRY_AT = doc("Next open at which the book acts.", unit=units.TIMESTAMP, absent=OMITTED_UNSEALED)
EQUITY_BASIS = doc(
    "1.0 for a normalised ledger; divide a notional column by it for a ratio.",
    unit="base currency per unit of normalised equity",
)
EXIT_REASON = doc("`signal_exit` or `risk_exit` on a closing fill.", null="Null for non-closing phases.")
FEE = doc("Per-share commission charged on the fill.", unit=units.BASE_CURRENCY)
FILL_AT = doc(
    "Execution time of the implementing fill.",
    unit=units.TIMESTAMP,
    null="Null when pending, when no trade occurred, or when untradeable.",
)
FILL_PRICE = doc("Achieved price including modelled impact.", unit=units.PRICE)
FIRST_CLOSE = doc(
    "Unadjusted close of the window's first row.",
    unit=units.BENCHMARK_PRICE,
    null=EMPTY_WINDOW,
)
FORWARD_RETURN = doc(
    "Return from the open of the first bar strictly after this decision to the open of the first bar strictly after the next decision.",
    term=terms.FORWARD_RETURN,
    null="Null on pending weeks and unsealed holding periods; such weeks are dropped from IC and decile figures, never imputed.",
)
GROSS_NOTIONAL = doc("Sum of absolute position values.", unit=units.BASE_CURRENCY)
LARGEST_ABS_WEIGHT = doc("Largest absolute position weight that day.", unit=units.FRACTION)
LAST_CLOSE = doc(
    "Unadjusted close of the window's last row.",
    unit=units.BENCHMARK_PRICE,
    null=EMPTY_WINDOW,
)
LONG_ONLY_TARGET_WEIGHT = doc(
    "Fraction of equity in the long-only book (>= 0); held names sum to 1; 0 when not held.",
    term=terms.LONG_ONLY_TARGET_WEIGHT,
)
LONG_SHORT_TARGET_WEIGHT = doc(
    "Fraction of book equity in the dollar-neutral book; positive long, negative short; 0 outside the selection tails or when untradeable.",
    term=terms.LONG_SHORT_TARGET_WEIGHT,
)
MARK_PRICE = doc("Official close of the primary exchange.", unit=units.PRICE)
MATURITY_AT = doc("One rebalance period after `entry_at`.", unit=units.TIMESTAMP, absent=OMITTED_UNSEALED)
MID_PRICE = doc("Reference mid at decision time.", unit=units.PRICE)
N_SYMBOLS = doc("Scored names in that week's cross-section.", unit=units.NAMES)
NET_NOTIONAL = doc("Sum of signed position values.", unit=units.BASE_CURRENCY)
NET_PNL = doc(
    "`market_pnl + execution_cost + borrow_cashflow` (a sum; never subtract the cost columns).",
    unit=units.BASE_CURRENCY,
)
NEXT_OPEN_TRADEABLE = doc(
    "False when halted, suspended, failing the liquidity screen, without borrow, or with a price-data gap; false forces both target weights to 0 and sets `unavailability_reason`."
)
PHASE = doc("`open` (entering the book), `rebalance` (weekly re-target) or `close` (leaving the book).")
POSITION_VALUE_END = doc(
    "Closing value of the positions: `cash_end + position_value_end = ending_equity`.", unit=units.EQUITY
)
QUANTITY = doc(
    "Signed share count: positions positive long, negative short; fills positive buy, negative sell.",
    unit=units.SHARES,
)
RAW_AVERAGE_RANK = doc(RAW_MIRROR.format("average_rank"), unit=units.RANK, null=UNSCORED, raw_only=True)
RAW_CONFIDENCE = doc(RAW_MIRROR.format("confidence"), unit=units.SCORE_UNITS, null=UNSCORED, raw_only=True)
RAW_DECISION_REASON = doc(
    RAW_MIRROR.format("decision_reason"), null="Null for a routine hold.", raw_only=True
)
RAW_DIRECTION = doc(RAW_MIRROR.format("direction"), null=UNSCORED, raw_only=True)
RAW_FILL_AT = doc(
    RAW_MIRROR.format("fill_at"),
    unit=units.TIMESTAMP,
    null="Null when pending, when no trade occurred, or when untradeable.",
    raw_only=True,
)
RAW_LONG_ONLY_TARGET_WEIGHT = doc(
    RAW_MIRROR.format("long_only_target_weight"), unit=units.FRACTION, raw_only=True
)
RAW_LONG_SHORT_TARGET_WEIGHT = doc(
    RAW_MIRROR.format("long_short_target_weight"), unit=units.FRACTION, raw_only=True
)
RAW_SCORE = doc(
    "Unconditioned signal before smoothing; equals `raw_direction x raw_confidence`.",
    unit=units.SCORE_UNITS,
    null=UNSCORED,
    raw_only=True,
)
RAW_SCORE_Z = doc(
    RAW_MIRROR.format("score_z"),
    unit=units.STANDARD_DEVIATIONS,
    null="Null for an unscored name, and for every name in a week whose scores do not vary.",
    raw_only=True,
)
REBALANCE_ADJUSTMENT_REASON = doc(
    "One of `entry`, `weight_increase`, `weight_decrease`, `exit`.",
    null="Null when the engine recorded no reason for the fill.",
)
RISK_FREE_RETURN = doc("Session rate at which carry accrued.", unit="fraction (0.01 = 1%) per session")
ROUNDING_ADJUSTMENT = doc("Residual closing the ledger identity.", unit=units.EQUITY)
SCORE = doc(
    "Conditioned (smoothed) signal used for ranking and books; identical on `/rebalances/{date}` and `/scores`.",
    term=terms.SCORE,
    null=UNSCORED,
)
SCORE_Z = doc(
    "`(score - mean_week) / stdev_week` over the week's cohort.",
    term=terms.SCORE_Z,
    null="Null for an unscored name, and for every name in a week whose scores do not vary.",
)
SIGNED_NOTIONAL = doc("`quantity x mark_price`.", unit=units.BASE_CURRENCY)
SYMBOL = doc("Ticker.")
TURNOVER_NOTIONAL = doc("Sum of absolute traded notional over the day's fills.", unit=units.BASE_CURRENCY)
UNAVAILABILITY_REASON = doc(
    "One of `halted`, `suspended`, `no_borrow`, `illiquid`, `data_gap`; set whenever `next_open_tradeable` is false.",
    null="Null when the name is tradeable.",
)
WEEK_STATUS = doc(
    "`traded`, `pending`, or a snake_case skip reason passed through from the engine unchanged."
)
WEIGHT = doc(
    "`signed_notional / ending_equity` of the same day (signed); comparable to target weights.",
    unit=units.FRACTION,
)


class AlphaListRow(Body, kw_only=True, frozen=True):
    """A row of `catalog.alphas.list`."""

    alpha_id: Annotated[str, ALPHA_ID]
    name: Annotated[str, SEAL_TEXT, NAME]
    tldr: Annotated[str | None, SEAL_TEXT, TLDR]
    standing: Annotated[Standing, STANDING]
    approved_since: Annotated[dt.date | None, APPROVED_SINCE]


class RebalanceIndexRow(Body, kw_only=True, frozen=True):
    """A row of `signals.rebalances.list`."""

    date: Annotated[dt.date | None, doc("Weekly decision date.", unit=units.DATE)]
    week_status: Annotated[str | None, WEEK_STATUS]
    n_symbols: Annotated[int | None, N_SYMBOLS]


class DecisionRow(Body, kw_only=True, frozen=True):
    """A row of `signals.rebalances.get`."""

    symbol: Annotated[str | None, SYMBOL]
    direction: Annotated[int | None, DIRECTION]
    confidence: Annotated[float | None, CONFIDENCE]
    score: Annotated[float | None, SCORE]
    raw_score: Annotated[float | None, RAW_SCORE] | UnsetType = UNSET
    score_z: Annotated[float | None, SCORE_Z]
    average_rank: Annotated[float | None, AVERAGE_RANK]
    cohort_size: Annotated[int | None, COHORT_SIZE]
    long_short_target_weight: Annotated[float | None, LONG_SHORT_TARGET_WEIGHT]
    long_only_target_weight: Annotated[float | None, LONG_ONLY_TARGET_WEIGHT]
    next_open_tradeable: Annotated[bool | None, NEXT_OPEN_TRADEABLE]
    fill_at: Annotated[Timestamp | None, FILL_AT]
    entry_at: Annotated[Timestamp | None, ENTRY_AT] | UnsetType = UNSET
    maturity_at: Annotated[Timestamp | None, MATURITY_AT] | UnsetType = UNSET
    forward_return: Annotated[float | None, FORWARD_RETURN]
    unavailability_reason: Annotated[str | None, UNAVAILABILITY_REASON]
    decision_reason: Annotated[str | None, DECISION_REASON]
    raw_direction: Annotated[int | None, RAW_DIRECTION] | UnsetType = UNSET
    raw_confidence: Annotated[float | None, RAW_CONFIDENCE] | UnsetType = UNSET
    raw_score_z: Annotated[float | None, RAW_SCORE_Z] | UnsetType = UNSET
    raw_average_rank: Annotated[float | None, RAW_AVERAGE_RANK] | UnsetType = UNSET
    raw_long_short_target_weight: Annotated[float | None, RAW_LONG_SHORT_TARGET_WEIGHT] | UnsetType = UNSET
    raw_long_only_target_weight: Annotated[float | None, RAW_LONG_ONLY_TARGET_WEIGHT] | UnsetType = UNSET
    raw_fill_at: Annotated[Timestamp | None, RAW_FILL_AT] | UnsetType = UNSET
    raw_decision_reason: Annotated[str | None, RAW_DECISION_REASON] | UnsetType = UNSET


class ScoreRow(Body, kw_only=True, frozen=True):
    """A row of `signals.scores`."""

    date: Annotated[dt.date | None, doc("Weekly decision date of the row.", unit=units.DATE)]
    symbol: Annotated[str | None, SYMBOL]
    direction: Annotated[int | None, DIRECTION]
    confidence: Annotated[float | None, scores_all_only(CONFIDENCE)] | UnsetType = UNSET
    score: Annotated[float | None, SCORE]
    raw_score: Annotated[float | None, RAW_SCORE] | UnsetType = UNSET
    score_z: Annotated[float | None, SCORE_Z]
    average_rank: Annotated[float | None, AVERAGE_RANK]
    cohort_size: Annotated[int | None, scores_all_only(COHORT_SIZE)] | UnsetType = UNSET
    long_short_target_weight: Annotated[float | None, LONG_SHORT_TARGET_WEIGHT]
    long_only_target_weight: Annotated[float | None, LONG_ONLY_TARGET_WEIGHT]
    next_open_tradeable: Annotated[bool | None, scores_all_only(NEXT_OPEN_TRADEABLE)] | UnsetType = UNSET
    fill_at: Annotated[Timestamp | None, scores_all_only(FILL_AT)] | UnsetType = UNSET
    entry_at: Annotated[Timestamp | None, scores_all_only(ENTRY_AT)] | UnsetType = UNSET
    maturity_at: Annotated[Timestamp | None, scores_all_only(MATURITY_AT)] | UnsetType = UNSET
    forward_return: Annotated[float | None, FORWARD_RETURN]
    unavailability_reason: Annotated[str | None, scores_all_only(UNAVAILABILITY_REASON)] | UnsetType = UNSET
    decision_reason: Annotated[str | None, scores_all_only(DECISION_REASON)] | UnsetType = UNSET
    raw_direction: Annotated[int | None, scores_all_only(RAW_DIRECTION)] | UnsetType = UNSET
    raw_confidence: Annotated[float | None, scores_all_only(RAW_CONFIDENCE)] | UnsetType = UNSET
    raw_score_z: Annotated[float | None, scores_all_only(RAW_SCORE_Z)] | UnsetType = UNSET
    raw_average_rank: Annotated[float | None, scores_all_only(RAW_AVERAGE_RANK)] | UnsetType = UNSET
    raw_long_short_target_weight: (
        Annotated[float | None, scores_all_only(RAW_LONG_SHORT_TARGET_WEIGHT)] | UnsetType
    ) = UNSET
    raw_long_only_target_weight: (
        Annotated[float | None, scores_all_only(RAW_LONG_ONLY_TARGET_WEIGHT)] | UnsetType
    ) = UNSET
    raw_fill_at: Annotated[Timestamp | None, scores_all_only(RAW_FILL_AT)] | UnsetType = UNSET
    raw_decision_reason: Annotated[str | None, scores_all_only(RAW_DECISION_REASON)] | UnsetType = UNSET


class BookRow(Body, kw_only=True, frozen=True):
    """A row of `portfolio.books`."""

    book: Annotated[str | None, doc("Book name: the value to pass as `book=` elsewhere.")]
    kind: Annotated[str | None, doc("Dataset summarised: `portfolio`, `positions`, `pnl` or `trades`.")]
    raw: Annotated[
        bool | None,
        doc(
            "True when the book name starts with `raw_` (such rows are listed only to keys with raw-book access)."
        ),
    ]
    sessions: Annotated[
        int | None,
        doc(
            "Count of dated items: every trading day for portfolio, positions, pnl; only traded days for trades.",
            unit=units.SESSIONS,
        ),
    ]
    rows: Annotated[
        int | None,
        doc(
            "Leaf rows: per-symbol rows for positions, pnl, trades; one per session for portfolio.",
            unit=units.ROWS,
        ),
    ]
    from_: Annotated[
        dt.date | None,
        doc("First business date with a row.", unit=units.DATE, null="Null when the dataset has no row."),
    ] = msgspec.field(name="from")
    to: Annotated[
        dt.date | None,
        doc("Last business date with a row.", unit=units.DATE, null="Null when the dataset has no row."),
    ]


class LedgerRow(Body, kw_only=True, frozen=True):
    """A row of `portfolio.ledger`."""

    book: Annotated[str | None, BOOK]
    date: Annotated[dt.date | None, doc("Trading session of the row.", unit=units.DATE)]
    timestamp: Annotated[Timestamp | None, SESSION_INSTANT]
    starting_equity: Annotated[
        float | None,
        doc("Previous `ending_equity`; 1.0 at inception (normalised growth multiple).", unit=units.EQUITY),
    ]
    ending_equity: Annotated[
        float | None,
        doc(
            "`starting_equity + market_pnl + execution_cost + borrow_cashflow + cash_carry + rounding_adjustment`.",
            unit=units.EQUITY,
        ),
    ]
    cash_start: Annotated[float | None, CASH_START]
    cash_end: Annotated[float | None, CASH_END]
    position_value_end: Annotated[float | None, POSITION_VALUE_END]
    market_pnl: Annotated[
        float | None, doc("Sum over positions of `quantity x (close - previous close)`.", unit=units.EQUITY)
    ]
    execution_cost: Annotated[
        float | None, doc("Fees and modelled impact of the day's fills (<= 0).", unit=units.EQUITY)
    ]
    borrow_cashflow: Annotated[
        float | None, doc("Borrow rate x short notional, accrued daily (<= 0).", unit=units.EQUITY)
    ]
    cash_carry: Annotated[float | None, CASH_CARRY]
    risk_free_return: Annotated[float | None, RISK_FREE_RETURN]
    rounding_adjustment: Annotated[float | None, ROUNDING_ADJUSTMENT]
    equity_basis: Annotated[float | None, EQUITY_BASIS]
    gross_notional: Annotated[float | None, GROSS_NOTIONAL]
    net_notional: Annotated[float | None, NET_NOTIONAL]
    gross_exposure: Annotated[
        float | None,
        doc(
            "Sum of absolute weights (about 2.0 for a fully invested dollar-neutral book).",
            unit=units.FRACTION,
        ),
    ]
    net_exposure: Annotated[
        float | None, doc("Sum of weights (about 0 when dollar-neutral).", unit=units.FRACTION)
    ]
    largest_abs_weight: Annotated[float | None, LARGEST_ABS_WEIGHT]
    turnover_notional: Annotated[float | None, TURNOVER_NOTIONAL]
    turnover: Annotated[
        float | None,
        doc(
            "One-sided traded fraction of this session: half the sum of absolute weight changes (not annualised: "
            "the checks' `turnover` per year is the mean of these times 252).",
            term=terms.SESSION_TURNOVER,
        ),
    ]


class PositionRow(Body, kw_only=True, frozen=True):
    """A row of `portfolio.positions`."""

    book: Annotated[str | None, BOOK]
    date: Annotated[
        dt.date | None,
        doc(
            "Trading session; one row per held name per session (names not held are absent).", unit=units.DATE
        ),
    ]
    symbol: Annotated[str | None, SYMBOL]
    quantity: Annotated[float | None, QUANTITY]
    mark_price: Annotated[float | None, MARK_PRICE]
    signed_notional: Annotated[float | None, SIGNED_NOTIONAL]
    weight: Annotated[float | None, WEIGHT]


class PnlRow(Body, kw_only=True, frozen=True):
    """A row of `portfolio.pnl`."""

    book: Annotated[str | None, BOOK]
    date: Annotated[
        dt.date | None,
        doc("Trading session; one row per name with a position or fill that day.", unit=units.DATE),
    ]
    symbol: Annotated[str | None, SYMBOL]
    market_pnl: Annotated[
        float | None, doc("`quantity x (close - previous close)`.", unit=units.BASE_CURRENCY)
    ]
    execution_cost: Annotated[
        float | None,
        doc(
            "Execution cost of the name's fills that day; already negative (<= 0).", unit=units.BASE_CURRENCY
        ),
    ]
    borrow_cashflow: Annotated[
        float | None,
        doc(
            "Borrow cost of a short position; 0 for longs; already negative (<= 0).", unit=units.BASE_CURRENCY
        ),
    ]
    net_pnl: Annotated[float | None, NET_PNL]


class TradeRow(Body, kw_only=True, frozen=True):
    """A row of `portfolio.trades`."""

    book: Annotated[str | None, BOOK]
    timestamp: Annotated[
        Timestamp | None,
        doc(
            "Fill time; fills execute at the next session open after the decision date.", unit=units.TIMESTAMP
        ),
    ]
    decision_at: Annotated[dt.date, DECISION_AT]
    symbol: Annotated[str | None, SYMBOL]
    phase: Annotated[str | None, PHASE]
    quantity: Annotated[float | None, QUANTITY]
    mid_price: Annotated[float | None, MID_PRICE]
    fill_price: Annotated[float | None, FILL_PRICE]
    fee: Annotated[float | None, FEE]
    execution_cost: Annotated[
        float | None,
        doc("Fee plus market impact of the fill, served as a cost (<= 0).", unit=units.BASE_CURRENCY),
    ]
    rebalance_adjustment_reason: Annotated[str | None, REBALANCE_ADJUSTMENT_REASON]
    exit_reason: Annotated[str | None, EXIT_REASON]


class EquityRow(Body, kw_only=True, frozen=True):
    """A row of `portfolio.equity_curve`."""

    date: Annotated[
        dt.date, doc("Trading session; one row per session in the window, ascending.", unit=units.DATE)
    ]
    timestamp: Annotated[Timestamp | None, SESSION_INSTANT]
    starting_equity: Annotated[float | None, doc("Ledger equity at the session's open.", unit=units.EQUITY)]
    ending_equity: Annotated[float | None, doc("Ledger equity at the session's close.", unit=units.EQUITY)]
    period_return: Annotated[
        float | None,
        doc(
            "`(ending - starting) / starting`.",
            unit=units.FRACTION,
            null="Null when starting equity is missing or zero.",
        ),
    ]
    cumulative_return: Annotated[
        float | None,
        doc(
            "Running product of `(1 + period_return)` minus 1 within the window; its base (0) is the window's opening equity.",
            term=terms.CUMULATIVE_RETURN,
            null="Null until the window's first known `period_return`.",
        ),
    ]
    peak_equity: Annotated[
        float | None,
        doc(
            "Running maximum of starting and ending equity within the window (opening equity counts).",
            unit=units.EQUITY,
        ),
    ]
    drawdown: Annotated[float | None, doc("`peak_equity - ending_equity` (>= 0).", unit=units.EQUITY)]
    drawdown_pct: Annotated[
        float | None,
        doc(
            "Drawdown as a percentage of the peak: `drawdown / peak_equity x 100`.",
            unit=units.PERCENTAGE_POINTS,
            null="Null where the peak is not positive.",
        ),
    ]
    gross_exposure: Annotated[
        float | None,
        doc("Sum of absolute weights, carried from the same day's ledger row.", unit=units.FRACTION),
    ]
    net_exposure: Annotated[
        float | None, doc("Sum of weights, carried from the same day's ledger row.", unit=units.FRACTION)
    ]
    turnover: Annotated[
        float | None,
        doc(
            "One-sided traded fraction of this session, carried from the same day's ledger row (not annualised).",
            term=terms.SESSION_TURNOVER,
        ),
    ]


class EquitySummary(Body, kw_only=True, frozen=True):
    """The `meta.summary` of `portfolio.equity_curve`: figures over the whole window, before paging."""

    book: Annotated[str, doc("The book the curve belongs to.")]
    first_date: Annotated[dt.date | None, WINDOW_FIRST_DATE]
    last_date: Annotated[dt.date | None, WINDOW_LAST_DATE]
    sessions: Annotated[int | None, WINDOW_SESSIONS]
    starting_equity: Annotated[
        float | None,
        doc("`starting_equity` of the window's first row.", unit=units.EQUITY, null=EMPTY_WINDOW),
    ]
    ending_equity: Annotated[
        float | None, doc("`ending_equity` of the window's last row.", unit=units.EQUITY, null=EMPTY_WINDOW)
    ]
    peak_equity: Annotated[
        float | None, doc("Highest `peak_equity` of the window.", unit=units.EQUITY, null=EMPTY_WINDOW)
    ]
    total_return: Annotated[
        float | None,
        doc(
            "Last `cumulative_return` of the window.",
            unit=units.FRACTION,
            null="Null when the window has no known return.",
        ),
    ]
    cumulative_return_pct: Annotated[
        float | None,
        doc(
            "`100 x total_return`.",
            unit=units.PERCENTAGE_POINTS,
            null="Null when the window has no known return.",
        ),
    ]
    max_drawdown: Annotated[
        float | None, doc("Largest `drawdown` of the window.", unit=units.EQUITY, null=EMPTY_WINDOW)
    ]
    max_drawdown_pct: Annotated[
        float | None,
        WINDOW_MAX_DRAWDOWN_PCT,
    ]
    max_drawdown_date: Annotated[
        dt.date | None,
        WINDOW_MAX_DRAWDOWN_DATE,
    ]


class BenchmarkRow(Body, kw_only=True, frozen=True):
    """A row of `benchmarks.daily`."""

    date: Annotated[
        dt.date, doc("Every session the market-data service holds in the window, ascending.", unit=units.DATE)
    ]
    close: Annotated[float | None, CLOSE]
    period_return: Annotated[
        float | None,
        doc(
            "`(close - previous close) / previous close`, on the summary's `return_basis` price.",
            unit=units.FRACTION,
            null="Null on the first row of the window.",
        ),
    ]
    cumulative_return: Annotated[
        float | None,
        doc(
            "Running product of `(1 + period_return)` from the first row, minus 1; first row is 0.0; same name and units as the equity curve, so the two join on `date`.",
            term=terms.CUMULATIVE_RETURN,
        ),
    ]
    drawdown_pct: Annotated[
        float | None,
        doc(
            "`(peak - close) / peak x 100`, peak measured inside the window.",
            unit=units.PERCENTAGE_POINTS,
            null="Null where the peak is not positive.",
        ),
    ]


class BenchmarkSummary(Body, kw_only=True, frozen=True):
    """The `meta.summary` of `benchmarks.daily`: figures over the whole window, before paging."""

    symbol: Annotated[str, doc("The benchmark symbol (echo of the path `{symbol}`).")]
    name: Annotated[str | None, SEAL_TEXT, doc("Display name of the benchmark.")]
    return_basis: Annotated[
        str | None,
        doc(
            "`adjusted_close` only when an adjusted price exists for every row of the window (never mixed), otherwise `close` (a price return excluding dividends)."
        ),
    ]
    first_date: Annotated[dt.date | None, WINDOW_FIRST_DATE]
    last_date: Annotated[dt.date | None, WINDOW_LAST_DATE]
    sessions: Annotated[int | None, WINDOW_SESSIONS]
    first_close: Annotated[float | None, FIRST_CLOSE]
    last_close: Annotated[float | None, LAST_CLOSE]
    total_return: Annotated[
        float | None, doc("Last `cumulative_return` of the window.", unit=units.FRACTION, null=EMPTY_WINDOW)
    ]
    cumulative_return_pct: Annotated[
        float | None, doc("`100 x total_return`.", unit=units.PERCENTAGE_POINTS, null=EMPTY_WINDOW)
    ]
    max_drawdown_pct: Annotated[
        float | None,
        WINDOW_MAX_DRAWDOWN_PCT,
    ]
    max_drawdown_date: Annotated[
        dt.date | None,
        WINDOW_MAX_DRAWDOWN_DATE,
    ]


class CorrelationRow(Body, kw_only=True, frozen=True):
    """A row of `analytics.correlation`."""

    alpha: Annotated[str | None, doc("The other alpha (one the key may read).")]
    correlation: Annotated[
        float | None,
        doc(
            "The sort key: `pearson` for basis returns and ic, `spearman` for scores.",
            term=terms.CORRELATION,
            null=NO_CORRELATION,
        ),
    ]
    pearson: Annotated[
        float | None,
        doc(
            "Pearson correlation over common dates.",
            formula="corr(x, y)",
            unit=units.RATIO,
            null="Null below 3 common observations or when either side is constant. Always null for scores.",
        ),
    ]
    spearman: Annotated[
        float | None,
        doc(
            "Spearman correlation (average ranks); for scores, the mean weekly cross-sectional Spearman over common names.",
            unit=units.RATIO,
            null=NO_CORRELATION,
        ),
    ]
    overlap: Annotated[
        int | None,
        doc("Common observations behind the correlation, in `overlap_unit`.", unit="sessions or weeks"),
    ]
    overlap_unit: Annotated[str | None, doc("`sessions` (returns) or `weeks` (ic, scores).")]
    common_names: Annotated[
        float | None,
        doc(
            "Mean common scored names per counted week.",
            unit=units.NAMES,
            null="Null unless basis is scores.",
        ),
    ]


class DrawdownRow(Body, kw_only=True, frozen=True):
    """A row of `analytics.drawdowns`."""

    peak_date: Annotated[
        dt.date | None,
        doc(
            "Session of the episode's peak; the window's opening equity is dated with its first session.",
            unit=units.DATE,
            source=BOOK_LEDGER,
        ),
    ]
    trough_date: Annotated[
        dt.date | None,
        doc(
            "Session of the lowest ending equity before recovery (the first on a tie).",
            unit=units.DATE,
            source=BOOK_LEDGER,
        ),
    ]
    recovery_date: Annotated[
        dt.date | None,
        doc(
            "First session whose ending equity is at or above the peak.",
            unit=units.DATE,
            null=UNRECOVERED,
            source=BOOK_LEDGER,
        ),
    ]
    depth_pct: Annotated[
        float | None,
        doc(
            "Depth of the episode: `(peak_equity - trough_equity) / peak_equity x 100`.",
            formula="(peak_equity - trough_equity) / peak_equity * 100",
            term=terms.DEPTH_PCT,
            source=BOOK_LEDGER,
        ),
    ]
    sessions_to_trough: Annotated[
        int | None,
        doc("Sessions from the peak to the trough.", term=terms.SESSIONS_TO_TROUGH, source=BOOK_LEDGER),
    ]
    sessions_to_recovery: Annotated[
        int | None,
        doc(
            "Sessions from the peak to the recovery.",
            term=terms.SESSIONS_TO_RECOVERY,
            null=UNRECOVERED,
            source=BOOK_LEDGER,
        ),
    ]
    peak_equity: Annotated[float | None, doc("Equity at the peak.", unit=units.EQUITY, source=BOOK_LEDGER)]
    trough_equity: Annotated[
        float | None, doc("Equity at the trough.", unit=units.EQUITY, source=BOOK_LEDGER)
    ]


class RollingRow(Body, kw_only=True, frozen=True):
    """A row of `analytics.rolling`."""

    date: Annotated[dt.date | None, doc("Rebalance week that ends the trailing window.", unit=units.DATE)]
    n_ic_weeks: Annotated[
        int | None,
        doc("Weeks of the trailing window with a weekly IC.", unit=units.WEEKS, source="weekly_signal"),
    ]
    rebuilt_mean_ic: Annotated[
        float | None,
        doc(
            "Mean weekly IC over the trailing window, rebuilt from the rebalance cross-sections: conditioned "
            "(weekly_signal.ic) on base books, raw (raw_ic) on raw_ books (the family in `meta.signal`). "
            "`/metrics` `panel.rebuilt_mean_ic` and `/analytics/live`'s over the row's weeks; not the sealed "
            "`core.ic`, nor the IC term structure's `mean_ic` (the raw score at a horizon of h weeks). Served "
            "as `mean_ic` before issue 65 (item 3).",
            formula="mean of the weekly IC",
            term=terms.REBUILT_MEAN_IC,
            null=BELOW_HALF,
            source="weekly_signal",
        ),
    ]
    icir: Annotated[
        float | None,
        doc(
            "Mean / standard deviation (ddof 1) of the weekly IC over the trailing window, annualised with the run's weeks_per_year (times sqrt(52)), as the row's information ratio is: the basis of every `icir`, `/metrics` `core.icir` included. The lake's analytics_rolling stores it per week, as icir_per_week.",
            formula="mean / std(ddof=1) of weekly IC, times sqrt(weeks_per_year)",
            term=terms.ICIR,
            null=BELOW_HALF,
            source="weekly_signal",
        ),
    ]
    n_return_weeks: Annotated[
        int | None,
        doc("Weeks of the trailing window with a book return.", unit=units.WEEKS, source=BOOK_LEDGER),
    ]
    annualised_return: Annotated[
        float | None,
        doc(
            f"Mean weekly book return, annualised (times 52): {libraries.ANNUALISED_RETURN}.",
            formula="mean(R) * 52, R_k = E(date_k) / E(date_k-1) - 1, E(d) the ending equity of the last session "
            "on or before d",
            term=terms.ANNUALISED_RETURN,
            null=BELOW_HALF,
            source=BOOK_LEDGER,
        ),
    ]
    volatility: Annotated[
        float | None,
        doc(
            "Standard deviation (ddof 1) of weekly book returns, annualised (times sqrt(52)).",
            formula="std(R, ddof=1) * sqrt(52)",
            term=terms.VOLATILITY,
            null=BELOW_HALF,
            source=BOOK_LEDGER,
        ),
    ]
    information_ratio: Annotated[
        float | None,
        doc(
            "Information ratio of weekly book returns, weekly times sqrt(52) (`/metrics` "
            "`core.information_ratio` and significance's are daily times sqrt(252)): "
            f"{libraries.information_ratio(WEEKS_PER_YEAR)}.",
            formula="mean(R) / std(R, ddof=1) * sqrt(52)",
            term=terms.INFORMATION_RATIO,
            null=BELOW_HALF,
            source=BOOK_LEDGER,
        ),
    ]
    return_hit_rate: Annotated[
        float | None,
        doc(
            "Share of the trailing window's weeks with a positive book return (the lake's analytics_rolling "
            "column of the same name; not /metrics' hit_rate, the share of weeks with a positive IC).",
            formula="count(R > 0) / count(R)",
            term=terms.RETURN_HIT_RATE,
            null=BELOW_HALF,
            source=BOOK_LEDGER,
        ),
    ]


class ScreenRow(Body, kw_only=True, frozen=True):
    """A row of `analytics.screen`."""

    alpha_id: Annotated[str, ALPHA_ID]
    name: Annotated[str, SEAL_TEXT, NAME]
    tldr: Annotated[str | None, SEAL_TEXT, TLDR]
    complete: Annotated[bool, doc("Every required kind was sealed (else the run is incomplete).")]
    structure: Annotated[
        str | None,
        SEAL_TEXT,
        doc("Classification structure of the written description.", null="Null when none was recorded."),
    ]
    method: Annotated[
        str | None,
        SEAL_TEXT,
        doc("Classification method of the written description.", null="Null when none was recorded."),
    ]
    tags: Annotated[
        list[str] | None,
        SEAL_TEXT,
        doc(
            "Classification tags of the written description, as recorded.",
            null="Null when none were recorded.",
        ),
    ]
    family: Annotated[
        str | None,
        doc(
            "The trial family the alpha's seal names (its slug, as `/v1/families` groups the members and "
            '`/analytics/overfitting` measures them; docs/seal.md "Trial families").',
            null="Null when the seal names none, and in an index written before the trial families (until "
            "`alpha-results lake index`).",
        ),
    ]
    information_ratio: Annotated[
        float | None,
        doc(
            "Annualised information ratio of the long_short book (daily returns after costs, not in excess of the risk-free rate, times sqrt(252)), as `/metrics` serves `core.information_ratio` (overall, the whole history): "
            f"{libraries.INFORMATION_RATIO}.",
            term=terms.INFORMATION_RATIO,
            null=NOT_MEASURED,
        ),
    ]
    excess_sharpe: Annotated[
        float | None,
        doc(
            "Annualised Sharpe ratio in excess of the risk-free rate, as `/metrics` serves `core.excess_sharpe` (overall, the whole history): "
            f"{libraries.EXCESS_SHARPE}.",
            term=terms.EXCESS_SHARPE,
            null=NOT_MEASURED,
        ),
    ]
    ic: Annotated[
        float | None,
        doc(
            "Mean weekly IC of the conditioned score, as `/metrics` serves `core.ic` (overall, the whole history) and the catalogue index stores it (`ic`): the run's sealed figure, per week; `ic_reproduces` says whether its cross-sections bear it out. Served as `mean_ic` before issue 65 (item 3), the name of the IC term structure's horizon figure.",
            term=terms.IC,
            null=NOT_MEASURED,
        ),
    ]
    icir: Annotated[
        float | None,
        doc(
            "Mean / standard deviation (ddof 1) of the weekly IC of the conditioned score, annualised for every alpha: `/metrics` `core.icir` (overall, the whole history) as served, the sealed value where the run sealed it annualised, else that per-week ratio times sqrt(`weeks_per_year`) of the run's conventions (52). One basis, so alphas rank and bound alike.",
            term=terms.ICIR,
            null=NOT_MEASURED,
            formula="/metrics core.icir (the sealed icir, times sqrt(weeks_per_year) where sealed per week)",
        ),
    ]
    ic_reproduces: Annotated[
        bool | None,
        doc(
            "Whether the weekly IC rebuilt from the run's rebalance cross-sections reproduces its sealed mean IC (within 1e-6, the `/metrics` rule that warns `ic_reproduction_mismatch`). `false` flags an `ic` (and the `icir` sealed with it) that the run's own cross-sections do not bear out; filter with `ic_reproduces=true` to keep only alphas whose IC was checked and holds.",
            null="Null when there is nothing to check (no sealed mean IC, or no cross-sections to rebuild it from), and for a key that may not read the cross-sections (signals.rebalances.get or signals.scores).",
        ),
    ]
    max_drawdown_pct: Annotated[
        float | None,
        doc(
            "Deepest drawdown of the long_short book, as `/metrics` serves `core.max_drawdown_pct` (overall, the whole history).",
            term=terms.MAX_DRAWDOWN_PCT,
            null=NOT_MEASURED,
        ),
    ]
    turnover: Annotated[
        float | None,
        doc(
            "Turnover, as `/metrics` serves `core.turnover` (overall, the whole history), in `turnover_unit`: the run's sealed turnover (the term `sealed_turnover`, as `core.turnover` declares it), not the checks' traded turnover per year of a window (`turnover`).",
            term=terms.SEALED_TURNOVER,
            null=NOT_MEASURED,
        ),
    ]
    turnover_unit: Annotated[
        str | None,
        doc(
            "Unit of `turnover`: per_year, ratio, per_session or period_sum, the first the run sealed.",
            null="Null when the run sealed no turnover.",
        ),
    ]
    sessions: Annotated[int, doc("Sessions of the long_short ledger.", term=terms.SESSIONS)]
    weeks: Annotated[int, doc("Rebalance weeks of the rebalance index.", term=terms.WEEKS)]
    first_date: Annotated[
        dt.date | None,
        doc(
            "First ledger session (the first rebalance week without a ledger).",
            unit=units.DATE,
            null="Null when the run sealed neither.",
        ),
    ]
    last_date: Annotated[
        dt.date | None,
        doc(
            "Last ledger session (the last rebalance week without a ledger).",
            unit=units.DATE,
            null="Null when the run sealed neither.",
        ),
    ]
    live_split: Annotated[
        dt.date | None,
        doc(
            "The split of the long_short book's live against backtest (`/analytics/live` split_date): the as_of "
            "of the alpha's latest approval when the index row was computed after it (`alpha-results promote` and "
            "`retire` record the row again), else its seal's research_cutoff, else the date the catalogue first "
            "published it. Sessions on or before it are in-sample (the backtest), those after it live.",
            unit=units.DATE,
            null=f"Null when the alpha has no split (no research_cutoff, no first publish date recorded), {OLD_INDEX}.",
        ),
    ]
    live_split_origin: Annotated[
        str | None,
        doc(
            "Where `live_split` comes from: approval, research_cutoff or first_published (`/analytics/live` "
            "split_origin).",
            null="Null with `live_split`.",
        ),
    ]
    live_information_ratio: Annotated[
        float | None,
        doc(
            "Annualised information ratio of the long_short book's sessions after `live_split` (`/analytics/live` "
            "`out_of_sample.information_ratio`): daily returns after costs, not in excess of the risk-free rate, "
            "times sqrt(252), as `information_ratio`.",
            term=terms.LIVE_INFORMATION_RATIO,
            null=LIVE_NOT_MEASURED,
            formula="mean(r) / std(r, ddof=1) * sqrt(252) over the sessions after live_split",
        ),
    ]
    backtest_information_ratio: Annotated[
        float | None,
        doc(
            "Annualised information ratio of the long_short book's sessions on or before `live_split` "
            "(`/analytics/live` `in_sample.information_ratio`), as `live_information_ratio`.",
            term=terms.BACKTEST_INFORMATION_RATIO,
            null=LIVE_NOT_MEASURED,
            formula="mean(r) / std(r, ddof=1) * sqrt(252) over the sessions up to live_split",
        ),
    ]
    decay_ratio: Annotated[
        float | None,
        doc(
            "`live_information_ratio / backtest_information_ratio` (`/analytics/live` `decay_ratio`): 1 held up, "
            "0 nothing left, below 0 reversed.",
            term=terms.DECAY_RATIO,
            null="Null while fewer than 63 sessions follow `live_split` or the backtest information ratio is not "
            f"positive (`/analytics/live` serves it not_measurable then), {OLD_INDEX}.",
            formula="live_information_ratio / backtest_information_ratio",
        ),
    ]
    live_sessions: Annotated[
        int | None,
        doc(
            "Sessions of the long_short ledger after `live_split` (`/analytics/live` `out_of_sample.sessions`).",
            unit=units.SESSIONS,
            null=f"Null when the alpha has no split or no ledger, {OLD_INDEX}.",
        ),
    ]
    residual_information_ratio: Annotated[
        float | None,
        doc(
            "Annualised information ratio of what the default reference set and SPY leave of the alpha's whole-history "
            "long_short daily returns, the OLS intercept plus the residual (`/analytics/residual` "
            "`information_ratio` with no parameter, for a key that reads every alpha): the default set is the "
            "approved alphas, the alpha excepted (SPY alone when none is).",
            term=terms.RESIDUAL_INFORMATION_RATIO,
            null=RESIDUAL_NOT_MEASURED,
            formula="mean(a + e) / std(a + e, ddof=1) * sqrt(252), r_t = a + b_SPY m_t + sum_i b_i r_i,t + e_t",
        ),
    ]
    residual_t_statistic: Annotated[
        float | None,
        doc(
            "Newey-West t-statistic of the same regression's intercept (`/analytics/residual` `intercept_t_statistic` "
            "with no parameter), which says whether the return beyond the set and SPY is distinguishable from 0.",
            unit=units.T_STATISTIC,
            null=RESIDUAL_NOT_MEASURED,
            formula="a / se_NW(a), Bartlett kernel, lag floor(4 (n/100)^(2/9)), no small-sample correction",
            annualisation="not_annualisable",
        ),
    ]
    standing: Annotated[Standing, STANDING]
    approved_since: Annotated[dt.date | None, APPROVED_SINCE]


class CombinedRow(Body, kw_only=True, frozen=True):
    """A row of `analytics.combine`."""

    date: Annotated[
        dt.date | None,
        doc(
            "A session on which every alpha of the set has a long_short return (the window's common sessions).",
            unit=units.DATE,
        ),
    ]
    period_return: Annotated[
        float | None,
        doc(
            "The combined book's return: `sum_i w_i r_i` of the alphas' daily long_short returns, with the weights of `meta.weights`.",
            formula="sum_i w_i r_i",
            unit=units.FRACTION,
            source="catalogue:returns",
        ),
    ]
    cumulative_return: Annotated[
        float | None,
        doc(
            "`prod (1 + period_return) - 1`, compounded from 1.0 before the window's first common session.",
            formula="prod(1 + period_return) - 1",
            term=terms.CUMULATIVE_RETURN,
        ),
    ]
    drawdown_pct: Annotated[
        float | None,
        doc(
            "`(peak - level) / peak x 100` of the compounded equity `level = 1 + cumulative_return` below its running peak (the opening 1.0 counts), as the equity curve's: 0 at a peak, positive below.",
            formula="(peak - level) / peak * 100, level = 1 + cumulative_return",
            unit=units.PERCENTAGE_POINTS,
        ),
    ]
    benchmark_cumulative_return: Annotated[
        float | None,
        doc(
            "SPY's daily total returns on the same sessions, compounded from 1.0 before the window's first common session.",
            formula="prod(1 + spy_return) - 1",
            unit=units.FRACTION,
            source="benchmark:SPY",
            null="Null on every row for a key that may not call `benchmarks.daily` (an `access_limited` warning says so), and before SPY's first known return.",
        ),
    ]


DECLARED: tuple[type[Body], ...] = (
    AlphaListRow,
    RebalanceIndexRow,
    DecisionRow,
    ScoreRow,
    BookRow,
    LedgerRow,
    PositionRow,
    PnlRow,
    TradeRow,
    EquityRow,
    BenchmarkRow,
    CorrelationRow,
    DrawdownRow,
    RollingRow,
    ScreenRow,
    CombinedRow,
    EquitySummary,
    BenchmarkSummary,
)
"""The rows typed from the lake and the `meta.summary` objects: each field declares its meaning,
unit and rules (`doc`). A route names its own in its handler's return type
(`Response[Collection[DecisionRow]]`, `Response[Series[EquityRow, EquitySummary]]`)."""
