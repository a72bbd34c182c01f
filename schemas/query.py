"""Query parameters as the contract declares them: one msgspec Struct per endpoint.

A Struct's fields, in order, are the endpoint's parameters in documentation order: the wire name
(`msgspec.field(name=...)` where Python needs another), the type, the default (none: required)
and the constraints and description as `msgspec.Meta`. Each endpoint's handler names its Struct in
its signature (`ctx: Ctx[WeekQuery]`, serve/routes/declare.py); the server parses a query string into it (`serve.params.parse`), and the OpenAPI
document and docs/reference.md read the same fields through `params_of`.

A parameter's place in the Struct is its place in the 400's "accepts" list and in the documents.
A Struct inherits its base's fields first (a field it declares again keeps the base's place), so
the bases hold only leading groups: `WindowParams` (`from`, `to`) and `BookWindow` (`book`, `from`,
`to`); the trailing page (`limit`, `offset`, `format`, `as_of`) is listed by each Struct, since a
base holding it would put it first.

What a Struct's types cannot say is in `Meta.extra`:
- `enum`: the accepted values of a string, in documentation order (matched case-insensitively);
- `read`: `tickers` for a symbol list, `list` for a comma-separated list of free-text items (a
  string with `max_length` is free text checked against it), `numbers` for a comma-separated list
  of plain decimals; each is a string on the wire (its `pattern` and `max_length` are the text's)
  and a tuple in the Struct (`tuple[str, ...]`, `tuple[float, ...]`): the parser checks the text
  and splits it once, so no handler splits a parameter. `moment` (`as_of`): a string on the wire
  and in the Struct, checked by `as_of_moment` (a real moment, not only its form);
- `repeat`: the parameter may be given more than once; its values are joined by commas (a `list`);
- `note`: a remark added to the `enum` rule's message;
- `missing`: the rule a missing required parameter breaks, when "is required" is not enough;
- `in`: `path` for a parameter of the route's path (`{date}`), typed here like any other and read
  from the path with the query string (its problem named first in the same 400); `params_of`
  lists the query string's, `path_params_of` the path's.
"""

from __future__ import annotations

import datetime as dt
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Optional, Union

import msgspec
from msgspec import Meta

from alpha_results_seal.identifiers import FAMILY_PATTERN
from alpha_results_seal.identifiers import TICKER as TICKER
from schemas import choices, wire
from schemas.bodies import attribution
from schemas.bodies.capacity import CAPITAL_DEFAULT, CAPITAL_MAX, CAPITAL_MIN, GRID_MAX
from schemas.bodies.drawdown_odds import DEFAULT_DEPTHS, DEFAULT_HORIZON_WEEKS, DEPTHS_MAX, HORIZON_MAX_WEEKS
from schemas.bodies.events import EVENT_TYPES
from schemas.bodies.formats import DOC
from schemas.bodies.promotions import STANDINGS
from schemas.bodies.quantiles import DEFAULT_QUANTILES, QUANTILE_SCORES, QUANTILES_MAX, QUANTILES_MIN
from schemas.bodies.rows import ScreenRow
from schemas.checks import CHECKS
from schemas.conventions import weeks_of_sessions

LIMIT_MIN = 1
LIMIT_MAX = 5000
# Far beyond any collection the lake holds, and inside DuckDB's BIGINT, so an absurd offset is a
# 400 naming the parameter instead of a conversion failure in the query.
OFFSET_MAX = 1_000_000_000
DEFAULT_LIMIT = 100
SERIES_DEFAULT_LIMIT = 500  # equity curve and benchmark series
MAX_SYMBOLS = 1000
SYMBOL_LIST = rf"[ \t]*{TICKER}[ \t]*(?:,[ \t]*{TICKER}[ \t]*){{0,{MAX_SYMBOLS - 1}}}"
"""A `symbol` value: one ticker or a comma-separated list of at most MAX_SYMBOLS (ASCII letters of
either case, matched upper-cased), spaces or tabs around each. Anchored, it is the OpenAPI
`pattern` of the parameter, so what the document admits is what is served."""
TEXT_MAX_LENGTH = 200
CONTROL = r"\x00-\x08\x0a-\x1f\x7f"  # control characters but the tab
ITEM = rf"[ \t]*[^, \t{CONTROL}][^,{CONTROL}]*"
ITEM_LIST = rf"{ITEM}(?:,{ITEM})*"
"""A free-text list value (`tag`): items separated by commas, each with something besides spaces
and tabs (which are dropped around it), no control character (a tag never holds one). Anchored,
it is the parameter's declared `pattern`."""
"""Longest free-text value (`search`), in characters; declared as the parameter's `maxLength`."""
BOOK_REQUIRED = "is required on this endpoint; pass one of the books in error.details.available"
"""The rule a missing `book` breaks where one is required (`/trades`, the trades export)."""
GRANULARITIES = ("overall", "yearly", "monthly")
TRIALS_MAX = 1_000_000  # `trials` on /analytics/significance
SR_BENCHMARK_MAX = 100.0
"""Largest |sr_benchmark| (annualised) on /analytics/significance. The 2025 variance is taken at the
hypothesis's Sharpe ratio, a quadratic in it: far out (beyond about 10^150) it overflows float64,
and the PSR read 0.5 where it is 0 or 1. No strategy's true Sharpe ratio is near 100 a year, so a
benchmark beyond it is a typing error, refused naming the parameter."""


class Query(msgspec.Struct, frozen=True, kw_only=True):
    """The parsed query string of one endpoint."""

    refused: ClassVar[Mapping[str, str]] = {}
    """Parameters this endpoint refuses with a rule of their own rather than "unknown parameter"
    (a parameter its siblings take)."""


# -- the shared parameters ------------------------------------------------------------------------

Limit = Annotated[int, Meta(ge=LIMIT_MIN, le=LIMIT_MAX, description="Page size.")]
Offset = Annotated[int, Meta(ge=0, le=OFFSET_MAX, description="Rows to skip.")]
From = Annotated[
    dt.date | None, Meta(description="First trading day, inclusive (YYYY-MM-DD); default: the window start.")
]
To = Annotated[
    dt.date | None, Meta(description="Last trading day, inclusive (YYYY-MM-DD); default: the window end.")
]
Symbols = Union[  # noqa: UP007 (a `|` cannot join an Annotated alias and None at runtime)
    Annotated[
        tuple[str, ...],
        Meta(
            pattern=f"^(?:{SYMBOL_LIST})$",
            description="One ticker or a comma-separated list (matched upper-cased).",
            extra={"read": "tickers"},
        ),
    ],
    None,
]


def tickers(text: str) -> tuple[str, ...]:
    """The tickers of a checked `symbol` value (`Symbols`), upper-cased, first occurrence first."""
    return tuple(dict.fromkeys(t.strip(" \t").upper() for t in text.split(",")))


def numbers(text: str) -> tuple[float, ...]:
    """The decimals of a checked `numbers` value, in the order given."""
    return tuple(float(item) for item in text.split(","))


def items(text: str) -> tuple[str, ...]:
    """The items of a checked `list` value (spaces and tabs around each dropped), in the order
    given, repeats kept (a set parameter names the alpha it repeats)."""
    return tuple(item.strip(" \t") for item in text.split(","))


Book = Annotated[
    str, Meta(description="Book to serve (see /books); unknown or invisible books are 400 unknown_book.")
]
Format = Union[  # noqa: UP007 (a `|` cannot join an Annotated alias and None at runtime)
    Annotated[
        str,
        Meta(
            description="Representation of the page: "
            + ", ".join(f"{name} ({media})" for name, media in choices.REPRESENTATIONS.items())
            + "; overrides Accept (for browsers). Default: chosen by Accept, else json.",
            extra={"enum": tuple(choices.REPRESENTATIONS), "note": "case-insensitive"},
        ),
    ],
    None,
]
AS_OF_FORM = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})$"
)
"""An `as_of` value's form: RFC 3339's date-time with ASCII digits only (`\\d` would take every
Unicode digit, "١"), seconds required, at most microseconds, the offset `Z` or `+HH:MM`."""
AS_OF_MAX_OFFSET = dt.timedelta(hours=18)
"""The largest offset an `as_of` may carry: ISO 8601's and every time zone's range (-12:00 to
+14:00 in use), as java.time and PostgreSQL bound it; RFC 3339's grammar alone would take +23:59."""
_AS_OF = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})T(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r"(?:\.(?P<fraction>[0-9]{1,6}))?(?:(?P<utc>Z)|(?P<sign>[+-])(?P<oh>[0-9]{2}):(?P<om>[0-9]{2}))"
)


def as_of_moment(text: str) -> dt.datetime:
    """An `as_of` value as the real moment it names, in UTC: the one rule of the parameter on every
    route and MCP tool (`serve.params`, `serve.routes.base.context_of`). ValueError naming the
    broken rule when the text is not one: not the form (`AS_OF_FORM`), no calendar date
    (2021-11-31, month 13, year 0000), no time of day (hour 24, second 60), an offset beyond
    +-18:00 or minutes past 59, or a moment whose UTC time falls outside years 0001-9999."""
    found = _AS_OF.fullmatch(text)
    if found is None:
        raise ValueError(
            "must be a moment YYYY-MM-DDTHH:MM:SS[.ffffff] with its offset (Z or +HH:MM), ASCII digits; "
            f"got {text!r}"
        )
    try:
        day = dt.date.fromisoformat(found["date"])
    except ValueError:
        raise ValueError(f"names no calendar date: {found['date']}") from None
    hour, minute, second = int(found["hour"]), int(found["minute"]), int(found["second"])
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(
            f"names no time of day: {found['hour']}:{found['minute']}:{found['second']} "
            "(hours 00-23, minutes and seconds 00-59)"
        )
    offset = dt.timedelta(0)
    if found["utc"] is None:
        offset_hours, offset_minutes = int(found["oh"]), int(found["om"])
        offset = dt.timedelta(hours=offset_hours, minutes=offset_minutes)
        if offset_minutes > 59 or offset > AS_OF_MAX_OFFSET:
            raise ValueError(
                f"has offset {found['sign']}{found['oh']}:{found['om']}: offsets run from -18:00 to +18:00"
            )
        offset = -offset if found["sign"] == "-" else offset
    local = dt.datetime.combine(
        day, dt.time(hour, minute, second, int((found["fraction"] or "0").ljust(6, "0")))
    )
    try:
        return (local - offset).replace(tzinfo=dt.UTC)
    except OverflowError:
        raise ValueError(f"falls outside years 0001-9999 once converted to UTC: {text}") from None


AsOf = Union[  # noqa: UP007 (a `|` cannot join an Annotated alias and None at runtime)
    Annotated[
        str,
        Meta(
            max_length=40,
            pattern=AS_OF_FORM,
            description="Answer as of this moment (RFC 3339 with its offset, e.g. 2026-11-27T16:00:00.123456Z; a real "
            "calendar date and time, ASCII digits, offset within +-18:00): the catalogue generation and builds the API "
            "served then and the decisions recorded by then, so an answer seen then (a decision's snapshot: its "
            "read.at) is given again. Absent: now. 410 as_of_gone past the history the lake keeps "
            "(ALPHA_RESULTS_BUILD_HISTORY_DAYS) unless a decision pinned it.",
            extra={"read": "moment"},
        ),
    ],
    None,
]
START = msgspec.field(default=None, name="from")
END = msgspec.field(default=None, name="to")


# -- one Struct per endpoint ----------------------------------------------------------------------


class NoQuery(Query, frozen=True):
    """An endpoint without query parameters: any parameter is a 400."""


class PageQuery(Query, frozen=True):
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None


class AsOfQuery(Query, frozen=True):
    """A read route whose one parameter is `as_of` (an alpha's description, its decisions, the
    review queue)."""

    as_of: AsOf = None


class BuildPageQuery(PageQuery, frozen=True):
    """A page of what one build holds (its books, its exports), as of a moment."""

    as_of: AsOf = None


Search = Union[  # noqa: UP007 (a `|` cannot join an Annotated alias and None at runtime)
    Annotated[
        str,
        Meta(
            max_length=TEXT_MAX_LENGTH, description="Case-insensitive substring over alpha_id, name and tldr."
        ),
    ],
    None,
]
CompleteOnly = Annotated[bool, Meta(description="Omit alphas still missing required kinds.")]


class CatalogueQuery(Query, frozen=True):
    search: Search = None
    complete_only: CompleteOnly = False
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


FAMILY_SLUG = f"^(?:{FAMILY_PATTERN.pattern})$"
"""A trial family's slug as a parameter names it: the seal kit's rule (a value outside it names no
family, so it is a 400 naming the parameter, not an empty page)."""


class FamiliesQuery(Query, frozen=True):
    family: (
        Annotated[
            str,
            Meta(
                pattern=FAMILY_SLUG,
                description="Only this trial family's members (its slug).",
            ),
        ]
        | None
    ) = None
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    as_of: AsOf = None


class WindowParams(Query, frozen=True):
    """The leading `from` and `to` of a window's Structs."""

    start: From = START
    end: To = END


class BookWindow(Query, frozen=True):
    """The leading `book`, `from` and `to` of one book's window's Structs."""

    book: Book = choices.DEFAULT_BOOK
    start: From = START
    end: To = END


class BookWindowPageQuery(BookWindow, frozen=True):
    """A paged collection of one book over a window (drawdown episodes)."""

    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class WindowPageQuery(WindowParams, frozen=True):
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class WeekQuery(Query, frozen=True):
    date: Annotated[
        dt.date,
        Meta(description="The rebalance week: a date of the rebalance index.", extra={"in": "path"}),
    ]
    symbol: Symbols = None
    direction: (
        Annotated[
            str,
            Meta(
                description="Keep one side (case-insensitive; neutral is a synonym of flat).",
                extra={"enum": tuple(choices.DIRECTIONS), "note": "case-insensitive"},
            ),
        ]
        | None
    ) = None
    min_abs_weight: (
        Annotated[
            float,
            Meta(
                ge=0,
                description="Drop names whose absolute target weight (column chosen by book) is below it.",
            ),
        ]
        | None
    ) = None
    book: Annotated[
        str,
        Meta(
            description="Target-weight column for min_abs_weight and sort=weight.",
            extra={"enum": tuple(choices.WEIGHT_BOOKS)},
        ),
    ] = choices.DEFAULT_BOOK
    sort: Annotated[
        str,
        Meta(
            description="Sort key (rank sorts on average_rank, weight on the book column).",
            extra={"enum": tuple(choices.REBALANCE_SORTS)},
        ),
    ] = "score"
    order: (
        Annotated[
            str,
            Meta(
                description="desc for score and weight, asc for rank and symbol; ticker tiebreak.",
                extra={"enum": choices.ORDERS},
            ),
        ]
        | None
    ) = None
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class ScoresQuery(WindowParams, frozen=True):
    symbol: Symbols = None
    fields: Annotated[
        str, Meta(description="Column set: core or all.", extra={"enum": choices.SCORE_FIELDS_CHOICES})
    ] = "core"
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class LedgerQuery(BookWindowPageQuery, frozen=True):
    refused: ClassVar[Mapping[str, str]] = {
        "symbol": "is not accepted on /portfolio (one ledger row per book per session); "
        "drop it or use /positions or /pnl"
    }


class BookQuery(BookWindow, frozen=True):
    symbol: Symbols = None
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class TradesQuery(BookQuery, frozen=True):
    """`BookQuery` with its `book` required (in its place, first)."""

    book: Annotated[
        str,
        Meta(
            description="Book to serve (required; see /books).",
            extra={"missing": BOOK_REQUIRED},
        ),
    ]


class SeriesQuery(BookWindowPageQuery, frozen=True):
    """A book's series over a window (the equity curve), its page longer by default."""

    limit: Limit = SERIES_DEFAULT_LIMIT


class MetricsQuery(WindowParams, frozen=True):
    granularity: Annotated[
        str, Meta(description="overall, or yearly/monthly to add periods.", extra={"enum": GRANULARITIES})
    ] = "overall"
    doc: Annotated[bool, Meta(description="Embed the documentation block under data.doc.")] = False
    panel: Annotated[bool, Meta(description="Add the weekly panel block (data.panel).")] = False
    as_of: AsOf = None


class BenchmarkQuery(Query, frozen=True):
    symbol: Annotated[
        str,
        Meta(description="A served benchmark.", extra={"in": "path", "enum": wire.BENCHMARK_SYMBOLS}),
    ]
    start: From = START
    end: To = END
    limit: Limit = SERIES_DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class ExportQuery(Query, frozen=True):
    book: (
        Annotated[
            str,
            Meta(
                description="Book of a book dataset (portfolio, positions, pnl, trades, equity-curve; see "
                "/books): default long_short, required for trades; not accepted by the other datasets."
            ),
        ]
        | None
    ) = None


class SignificanceQuery(WindowParams, frozen=True):
    sr_benchmark: Annotated[
        float,
        Meta(
            ge=-SR_BENCHMARK_MAX,
            le=SR_BENCHMARK_MAX,
            description="Annualised Sharpe ratio the PSR and MinTRL test against (per session: / sqrt(252)).",
        ),
    ] = 0.0
    trials: (
        Annotated[
            int,
            Meta(
                ge=2,
                le=TRIALS_MAX,
                description="Number of trials for the Deflated Sharpe Ratio; default: the published catalogue's.",
            ),
        ]
        | None
    ) = None
    as_of: AsOf = None


class OverfittingQuery(Query, frozen=True):
    """`/analytics/overfitting`: the probability of backtest overfitting of the alpha's trial family."""

    splits: Annotated[
        int,
        Meta(
            ge=4,
            le=16,
            description="S: the blocks (even, 4 to 16) the family's common sessions are cut into; "
            "C(S, S/2) cross-validations (12,870 at 16).",
        ),
    ] = 16
    as_of: AsOf = None


class FamilyTestsQuery(Query, frozen=True):
    """`/analytics/family_tests`: SPA, StepM, the model confidence set and the parameter stability of
    the alpha's trial family (no parameter beyond the snapshot: the tests' level and resamples are
    fixed, analytics/family_tests.py)."""

    as_of: AsOf = None


class CorrelationQuery(Query, frozen=True):
    basis: Annotated[
        str,
        Meta(
            description="returns (daily long_short), ic (weekly IC) or scores (weekly cross-sections).",
            extra={"enum": choices.CORRELATION_BASES},
        ),
    ] = choices.CORRELATION_BASES[0]
    start: From = START
    end: To = END
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


def _bound(side: str, figure: str, unit: str) -> str:
    """The description of the screener's `min_<figure>` or `max_<figure>`."""
    limit = "at least" if side == "min" else "at most"
    return f"Keep alphas whose {figure} is {limit} this ({unit}, inclusive); a null {figure} fails it."


class _ScreenFilters(Query, frozen=True):
    """`/analytics/screen`'s parameters but its ranges (`_screen_ranges`)."""

    search: Search = None
    tag: (
        Annotated[
            tuple[str, ...],
            Meta(
                max_length=TEXT_MAX_LENGTH,
                pattern=f"^(?:{ITEM_LIST})$",
                description="Keep alphas carrying every tag listed: comma-separated, or the parameter "
                "repeated (case-insensitive, whole tags).",
                extra={"read": "list", "repeat": True},
            ),
        ]
        | None
    ) = None
    structure: (
        Annotated[
            str,
            Meta(
                max_length=TEXT_MAX_LENGTH,
                description="Keep alphas of this classification structure (case-insensitive, whole value).",
            ),
        ]
        | None
    ) = None
    method: (
        Annotated[
            str,
            Meta(
                max_length=TEXT_MAX_LENGTH,
                description="Keep alphas of this classification method (case-insensitive, whole value).",
            ),
        ]
        | None
    ) = None
    family: (
        Annotated[
            str,
            Meta(
                pattern=FAMILY_SLUG,
                description="Keep the members of this trial family (its slug, exactly: the `family` column, as "
                "`/v1/families` names it); an alpha whose seal names no family is in none.",
            ),
        ]
        | None
    ) = None
    complete_only: CompleteOnly = False
    production: (
        Annotated[
            bool,
            Meta(
                description="true: production alphas only, those standing approved (the `standing` column: "
                "approved by a recorded decision: alpha-results promote or the approval policy); false: the others "
                "(never approved, or retired); absent: both."
            ),
        ]
        | None
    ) = None
    standing: (
        Annotated[
            tuple[str, ...],
            Meta(
                max_length=TEXT_MAX_LENGTH,
                pattern=f"^(?:{ITEM_LIST})$",
                description="Keep alphas standing as one of these after the operator's decisions (the `standing` "
                f"column): {', '.join(STANDINGS)}; comma-separated, or the parameter repeated. Absent: every "
                "alpha.",
                extra={"read": "list", "repeat": True},
            ),
        ]
        | None
    ) = None
    ic_reproduces: (
        Annotated[
            bool,
            Meta(
                description="true: alphas whose sealed mean IC the weekly IC rebuilt from their cross-sections "
                "reproduces; false: those whose does not (the `ic_reproduces` flag); absent: both. An alpha with "
                "nothing to check (`ic_reproduces` null) passes neither. Needs the cross-sections "
                "(signals.rebalances.get or signals.scores)."
            ),
        ]
        | None
    ) = None
    max_correlation: (
        Annotated[
            float,
            Meta(
                ge=0,
                le=1,
                description="Keep alphas whose absolute Pearson correlation, over the whole history, "
                "to `correlated_to` (default: the approved alphas the key may read, the alpha itself excepted; "
                "`meta.reference` says which, and why when there is none) is at most this (inclusive); an "
                "alpha with no defined correlation to any of them fails it.",
            ),
        ]
        | None
    ) = None
    correlated_to: (
        Annotated[
            str,
            Meta(
                max_length=TEXT_MAX_LENGTH,
                description="The alpha `max_correlation` compares with (absent: the default reference set); "
                "it is never in the answer.",
            ),
        ]
        | None
    ) = None
    correlation_basis: Annotated[
        str,
        Meta(
            description="The series `max_correlation` correlates: returns (daily long_short) or ic "
            "(weekly IC).",
            extra={"enum": choices.SCREEN_CORRELATION_BASES},
        ),
    ] = choices.SCREEN_CORRELATION_BASES[0]
    sort: (
        Annotated[
            str,
            Meta(
                description="Sort column, - first for descending; nulls last, ties by alpha_id; "
                "default: catalogue order.",
                extra={"enum": choices.SCREEN_SORT_CHOICES, "note": "a column, - first for descending"},
            ),
        ]
        | None
    ) = None
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


def _screen_ranges() -> list[tuple[str, Any, None]]:
    """`/analytics/screen`'s `min_<column>` and `max_<column>`, for each column of
    `choices.SCREEN_RANGES`, typed and in the unit its screener row field states
    (`schemas.bodies.rows.ScreenRow`, from its term): derived, never declared again."""
    hints = typing.get_type_hints(ScreenRow, include_extras=True)
    ranges: list[tuple[str, Any, None]] = []
    for column in choices.SCREEN_RANGES:
        served, meta = typing.get_args(hints[column])[:2]
        number = int if served is int or int in typing.get_args(served) else float
        block = meta.extra[DOC]
        unit = block["unit"] + (", annualised" if block.get("annualisation") == "annualised" else "")
        for side in ("min", "max"):
            described = Meta(description=_bound(side, column, unit))
            ranges.append((f"{side}_{column}", Optional[Annotated[number, described]], None))  # noqa: UP045
    return ranges


if TYPE_CHECKING:
    ScreenQuery = _ScreenFilters
else:
    ScreenQuery = msgspec.defstruct(
        "ScreenQuery", _screen_ranges(), bases=(_ScreenFilters,), frozen=True, kw_only=True, module=__name__
    )
    ScreenQuery.__doc__ = """`/analytics/screen`: filters over the catalogue index; its `min_`/`max_` pairs
    are one per column of `choices.SCREEN_RANGES`, each in its screener column's unit."""


class RollingQuery(Query, frozen=True):
    book: Book = choices.DEFAULT_BOOK
    window: Annotated[
        str,
        Meta(description="Trailing window in weeks.", extra={"enum": choices.ROLLING_WINDOWS}),
    ] = choices.DEFAULT_ROLLING_WINDOW
    start: From = START
    end: To = END
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0
    format: Format = None
    as_of: AsOf = None


class BookWindowQuery(BookWindow, frozen=True):
    """One book over a window (costs)."""

    as_of: AsOf = None


class WindowQuery(WindowParams, frozen=True):
    """A window of weeks (`/analytics/mmc`, `/analytics/crowding`: over the approved alphas' long_short books)."""

    as_of: AsOf = None


Regime = Annotated[
    str | None,
    Meta(
        description="Keep only the sessions (and weekly ICs) of one regime of SPY, dimension:label "
        '(docs/analytics.md "Regimes"); absent: every session.',
        extra={"enum": choices.REGIMES},
    ),
]


class RegimeWindowQuery(BookWindow, frozen=True):
    """One book over a window, optionally over one regime's sessions (costs, regimes)."""

    regime: Regime = None
    as_of: AsOf = None


MAX_SET = 50
"""Most alphas a combination (`alphas`) or a contribution's `reference` list may name."""
MAX_REFERENCES = 1_000
"""The most alphas `max_correlation` compares each candidate with (the approved set a key may
read): its cost is one block of matrix products, candidates x references x dates."""
MIN_SET_SESSIONS = 20
"""Common sessions a combination needs (its covariance has n(n+1)/2 entries to estimate), and each
side of its `fit_to`: the sessions fitting the weights and those judging them."""
MAX_WEIGHT = 10.0
"""Largest |weight| a given combination (`weights`) may put on one alpha: ten times the book's
capital, beyond any leverage a book of these alphas would run."""


def _alpha_set(description: str) -> Meta:
    return Meta(
        max_length=MAX_SET * 130,
        pattern=f"^(?:{ITEM_LIST})$",
        description=description,
        extra={"read": "list", "repeat": True},
    )


def _check_bounds() -> list[tuple[str, Any, None]]:
    """`/analytics/checks`' bounds: one per side of each check of the battery (`schemas.checks
    .CHECKS`: its parameter, the values its figure can take, its unit from its term), derived here,
    never declared again."""
    bounds: list[tuple[str, Any, None]] = []
    for check in CHECKS:
        for side, parameter in check.parameters.items():
            word = "at least" if side == "min" else "at most"
            lead = (
                f"Bound the optional `{check.id}` check (off unless the operator's policy bounds it): pass only"
                if check.optional
                else f"Tighten the `{check.id}` check: pass only"
            )
            low, high = check.values
            meta = Meta(
                ge=low,
                le=high,
                description=f"{lead} {word} this ({check.unit.replace('_', ' ')}); it may not be looser than "
                "the operator's policy (400).",
            )
            bounds.append((parameter, Optional[Annotated[float, meta]], None))  # noqa: UP045 (at run time)
    return bounds


Weighting = Annotated[
    str,
    Meta(description="How the weights are chosen (docs/analytics.md).", extra={"enum": choices.WEIGHTINGS}),
]
"""`weighting`, `weights` and `shrinkage`: how /analytics/combine weights its set, and how
/analytics/contribution weights its reference set when asked to (one declaration, one rule:
`analytics.combined.weighting_of`)."""
Weights = Annotated[
    tuple[float, ...],
    Meta(
        max_length=MAX_SET * 32,
        extra={"read": "numbers"},
        description="With weighting=given: one weight per alpha, in the order of `alphas`, "
        "comma-separated decimals (fractions of the book's capital, used as given), each in "
        f"[-{MAX_WEIGHT:g}, {MAX_WEIGHT:g}] and not all zero (sum |w| > 0). Weights under which the "
        "combined book loses all its equity on a session (a daily return <= -100%) are refused.",
    ),
]
Shrinkage = Annotated[
    float,
    Meta(
        ge=0,
        le=1,
        description="With weighting=max_ir: the weight of the diagonal target in the shrunk "
        "covariance; absent: the Ledoit-Wolf estimate.",
    ),
]

FitTo = Annotated[
    dt.date | None,
    Meta(
        description="With weighting=inverse_volatility or max_ir: fit the weights on the set's common sessions "
        "of the window up to and including this date (YYYY-MM-DD), and judge them (rows, figures, "
        f"correlations) on those after it; each side needs at least {MIN_SET_SESSIONS} sessions, and it "
        "must lie in the window (on or after `from`, before `to`). Absent: the weights are fitted on the "
        "sessions they are judged on (in-sample, warned as `in_sample_weights`).",
    ),
]


class CombineQuery(Query, frozen=True):
    """`/analytics/combine`: a weighted book of alphas, paged over its daily series."""

    alphas: Annotated[
        tuple[str, ...],
        _alpha_set(
            f"The alphas to combine: 2 to {MAX_SET} ids, comma-separated or the parameter repeated, "
            "each one the key may read; no id twice."
        ),
    ]
    book: Annotated[
        str,
        Meta(
            description="The book of each alpha combined. The catalogue index holds every alpha's "
            "long_short daily returns, so only long_short can be combined.",
            extra={"enum": (choices.DEFAULT_BOOK,)},
        ),
    ] = choices.DEFAULT_BOOK
    weighting: Weighting = choices.WEIGHTINGS[0]
    weights: Weights | None = None
    shrinkage: Shrinkage | None = None
    fit_to: FitTo = None
    start: From = START
    end: To = END
    limit: Limit = SERIES_DEFAULT_LIMIT
    offset: Offset = 0
    as_of: AsOf = None


class ContributionQuery(Query, frozen=True):
    """`/analytics/contribution`: a reference set before and after adding the alpha."""

    reference: (
        Annotated[
            tuple[str, ...],
            _alpha_set(
                f"The reference set: up to {MAX_SET} ids the key may read (the alpha itself is left "
                "out; with weighting=given its entry of `weights` is its weight after, the others' book "
                "before theirs over 1 - w); absent: every approved alpha the key may read (a 400 when none is)."
            ),
        ]
        | None
    ) = None
    weighting: (
        Annotated[
            Weighting,
            Meta(
                description="How the reference set is weighted, as /analytics/combine weights its `alphas` (needs "
                "`reference`): `before` is then that combination, at its weights. Absent: the equally weighted "
                "book as it grew (docs/analytics.md)."
            ),
        ]
        | None
    ) = None
    weights: (
        Annotated[
            Weights,
            Meta(
                description="With weighting=given: one weight per alpha of `reference`, in its order, as "
                "/analytics/combine's `weights` (comma-separated decimals, fractions of the book's capital used "
                f"as given, each in [-{MAX_WEIGHT:g}, {MAX_WEIGHT:g}], not all zero; a book that loses all its "
                "equity on a session is refused)."
            ),
        ]
        | None
    ) = None
    shrinkage: Shrinkage | None = None
    fit_to: FitTo = None
    weight: (
        Annotated[
            float,
            Meta(
                ge=0,
                le=1,
                description="The alpha's weight in the book after (the set keeps the rest, equally "
                "weighted); absent: the weight that maximises the information ratio after, or with "
                "weighting=given and `reference` naming the alpha its entry of `weights` (then not with it).",
            ),
        ]
        | None
    ) = None
    start: From = START
    end: To = END
    as_of: AsOf = None


if TYPE_CHECKING:
    ChecksQuery = BookWindowQuery
else:
    ChecksQuery = msgspec.defstruct(
        "ChecksQuery", _check_bounds(), bases=(BookWindowQuery,), frozen=True, kw_only=True, module=__name__
    )
    ChecksQuery.__doc__ = """`/analytics/checks`: the pass/fail battery of one alpha and book; each bound
    (`min_<check>`, `max_<check>`, one per side of each check of the battery) tightens the operator's
    policy (docs/analytics.md)."""


COMPARE_WEEKS = ", ".join(f"{s} -> {weeks_of_sessions(int(s))}" for s in choices.COMPARE_WINDOWS)
"""The weekly IC's rolling window of each of compare's windows in sessions (the same span)."""


class CompareQuery(Query, frozen=True):
    """`/analytics/compare`: this alpha against another, over one book and window."""

    other: Annotated[
        str,
        Meta(
            max_length=128,
            description="The alpha to compare with (one the key may read, not this one).",
        ),
    ] = msgspec.field(name="with")
    book: Book = choices.DEFAULT_BOOK
    window: Annotated[
        str,
        Meta(
            description="Trailing sessions of the rolling return correlation (the weekly IC's is the "
            f"same span in weeks: {COMPARE_WEEKS}).",
            extra={"enum": choices.COMPARE_WINDOWS},
        ),
    ] = choices.DEFAULT_COMPARE_WINDOW
    start: From = START
    end: To = END
    as_of: AsOf = None


class RiskQuery(BookWindow, frozen=True):
    """`/analytics/risk`: benchmark-relative and tail figures of one book against SPY."""

    as_of: AsOf = None


class LiveQuery(Query, frozen=True):
    """`/analytics/live`: one book's in-sample and out-of-sample parts."""

    book: Book = choices.DEFAULT_BOOK
    split: (
        Annotated[
            dt.date,
            Meta(
                description="The last in-sample date (YYYY-MM-DD), a what-if: sessions after it are out-of-sample. "
                "Absent: the alpha's own split, its approval's as_of, else its seal's research_cutoff, else the "
                "date the catalogue first published it (the answer's split_origin says which).",
            ),
        ]
        | None
    ) = None
    as_of: AsOf = None


class DrawdownOddsQuery(Query, frozen=True):
    """`/analytics/drawdown_odds`: the odds of a drawdown within a horizon, and the live path's place in
    the forward cone (`analytics.drawdown_odds` checks each depth's range: `depths_of`)."""

    book: Book = choices.DEFAULT_BOOK
    split: (
        Annotated[
            dt.date,
            Meta(
                description="The last backtest date (YYYY-MM-DD), a what-if: the backtest resampled ends there and "
                "the live path starts after it. Absent: the alpha's own split, as /analytics/live's.",
            ),
        ]
        | None
    ) = None
    horizon_weeks: Annotated[
        int,
        Meta(
            ge=1,
            le=HORIZON_MAX_WEEKS,
            description="h: the weeks after the split the drawdown odds and the cone cover. "
            f"Default {DEFAULT_HORIZON_WEEKS} (a year).",
        ),
    ] = DEFAULT_HORIZON_WEEKS
    depths: (
        Annotated[
            tuple[float, ...],
            Meta(
                max_length=DEPTHS_MAX * 32,
                extra={"read": "numbers"},
                description=f"The drawdown depths x to give the odds of, as fractions of the peak: comma-separated "
                f"decimals, at most {DEPTHS_MAX}, each in (0, 1) (0.1: a fall of 10%). Default: "
                + ",".join(f"{x:g}" for x in DEFAULT_DEPTHS)
                + ".",
            ),
        ]
        | None
    ) = None
    as_of: AsOf = None


class ApprovedHealthQuery(Query, frozen=True):
    """`/v1/analytics/approved_health`: every approved alpha's health, of one book (the split is
    each alpha's approval)."""

    book: Book = choices.DEFAULT_BOOK
    as_of: AsOf = None


class ExpectationQuery(Query, frozen=True):
    """`/analytics/expectation`: the long_short book's expected live figures (the one book the
    catalogue's matrices hold for every member of a group, so no `book`)."""

    split: (
        Annotated[
            dt.date,
            Meta(
                description="The last backtest date (YYYY-MM-DD), a what-if: the alpha's backtest ends there and "
                "its live weeks follow. Absent: the alpha's own split, as /analytics/live's.",
            ),
        ]
        | None
    ) = None
    as_of: AsOf = None


class AttributionQuery(BookWindow, frozen=True):
    """`/analytics/attribution`: where one book's P&L came from over a window, its fragility and
    concentration (here rather than beside the handler: `Figures.attribution` builds it too)."""

    top: Annotated[
        int,
        Meta(
            ge=1,
            le=attribution.TOP_MAX,
            description="Contributors and detractors listed, each (names of largest and smallest window P&L).",
        ),
    ] = attribution.TOP_DEFAULT
    drop: Annotated[
        int,
        Meta(
            ge=1,
            le=attribution.DROP_MAX,
            description="N of the fragility figures: the information ratio without the N best days and without "
            "the N best names.",
        ),
    ] = attribution.DROP_DEFAULT
    as_of: AsOf = None


class CapacityQuery(BookWindow, frozen=True):
    """`/analytics/capacity`: one book's participation and net information ratio against capital."""

    capital: Annotated[
        float,
        Meta(
            ge=CAPITAL_MIN,
            le=CAPITAL_MAX,
            description="The reference capital K0: the book's size at inception in its own currency (the seal's "
            "ledger is normalised to 1.0 and states none); the seal's modelled costs are taken as the costs at "
            f"it. Default {CAPITAL_DEFAULT:g}.",
        ),
    ] = CAPITAL_DEFAULT
    grid: (
        Annotated[
            tuple[float, ...],
            Meta(
                max_length=GRID_MAX * 32,
                extra={"read": "numbers"},
                description=f"The capitals to show the book at: comma-separated decimals (1e9 is accepted), at "
                f"most {GRID_MAX}, each in [{CAPITAL_MIN:g}, {CAPITAL_MAX:g}]. Default: 1e6 to 1e10 in "
                "half-decades.",
            ),
        ]
        | None
    ) = None
    as_of: AsOf = None


class QuantilesQuery(Query, frozen=True):
    """`/analytics/quantiles`: quantile returns of one score over a window of rebalance weeks."""

    score: Annotated[
        str,
        Meta(
            description="The score bucketed: score (the conditioned signal) or raw_score (keys with raw-book "
            "access only).",
            extra={"enum": QUANTILE_SCORES},
        ),
    ] = QUANTILE_SCORES[0]
    quantiles: Annotated[
        int,
        Meta(
            ge=QUANTILES_MIN,
            le=QUANTILES_MAX,
            description=f"Number of score quantiles per week ({QUANTILES_MIN}..{QUANTILES_MAX}; alphalens' "
            f"default {DEFAULT_QUANTILES}).",
        ),
    ] = DEFAULT_QUANTILES
    start: From = START
    end: To = END
    as_of: AsOf = None


class ResidualQuery(Query, frozen=True):
    """`/analytics/residual`: one book's daily returns regressed on a reference set's and SPY's."""

    book: Book = choices.DEFAULT_BOOK
    reference: (
        Annotated[
            tuple[str, ...],
            _alpha_set(
                f"The reference set: up to {MAX_SET} ids the key may read (the alpha itself is left out); absent: "
                "the default reference set (the approved alphas the key may read, empty when none is)."
            ),
        ]
        | None
    ) = None
    start: From = START
    end: To = END
    as_of: AsOf = None


EVENT_TYPES_MAX_LENGTH = 1000
EVENT_ALPHAS_MAX_LENGTH = 50 * 130
"""At most about fifty alpha ids (an alpha set's bound, `_alpha_set`)."""

CURSOR_LENGTH = 32
CURSOR_PATTERN = re.compile(rf"[0-9a-f]{{{CURSOR_LENGTH}}}")
"""An event's cursor (its `id`, hex): the bounds of `after` on /v1/events and /v1/events/stream."""

After = Annotated[
    str,
    Meta(
        max_length=CURSOR_LENGTH,
        pattern=f"^{CURSOR_PATTERN.pattern}$",
        description="Resume after this event, in the page's order: a cursor the service wrote (an event's `id`, or "
        "`meta.next_cursor` of a page). Absent: from the oldest event kept (order=newest: from the newest). A "
        "cursor older than the retention resumes at the oldest event kept.",
    ),
]
_EVENT_TYPE = "[ \t]*(?:" + "|".join(re.escape(name) for name in EVENT_TYPES) + ")[ \t]*"
EventTypes = Annotated[
    tuple[str, ...],
    Meta(
        max_length=EVENT_TYPES_MAX_LENGTH,
        pattern=f"^(?:{_EVENT_TYPE}(?:,{_EVENT_TYPE})*)$",
        description="Only events of these types: comma-separated or the parameter repeated, each one of "
        + ", ".join(EVENT_TYPES)
        + ". Absent: every type.",
        extra={"read": "list", "repeat": True},
    ),
]
EventAlphas = Annotated[
    tuple[str, ...],
    Meta(
        max_length=EVENT_ALPHAS_MAX_LENGTH,
        pattern=f"^(?:{ITEM_LIST})$",
        description="Only events about these alphas: comma-separated or the parameter repeated. An alpha the key "
        "may not read gives no event, exactly as one that does not exist. Absent: every alpha the key may read "
        "(and the events about no alpha it may see).",
        extra={"read": "list", "repeat": True},
    ),
]


class EventsQuery(Query, frozen=True):
    """`/v1/events`: a page of the events the key may see, oldest first (or newest first), after a
    cursor."""

    after: After | None = None
    order: Annotated[
        str,
        Meta(
            description="oldest: oldest first, each page after the last (the feed's order: new events come "
            "after); newest: newest first, each page older than the last (an activity list, most recent on top).",
            extra={"enum": choices.EVENT_ORDERS},
        ),
    ] = choices.EVENT_ORDERS[0]
    type: EventTypes | None = None
    alpha: EventAlphas | None = None
    limit: Limit = DEFAULT_LIMIT
    format: Format = None


class EventStreamQuery(Query, frozen=True):
    """`/v1/events/stream`: the events the key may see as they are recorded (Server-Sent Events).
    A `Last-Event-ID` header wins over `after` (a browser's EventSource sends it on reconnecting,
    with the URL it first opened)."""

    after: (
        Annotated[
            str,
            Meta(
                max_length=CURSOR_LENGTH,
                pattern=f"^{CURSOR_PATTERN.pattern}$",
                description="Start after this event (a cursor, as on /v1/events); the `Last-Event-ID` header wins "
                "over it. Neither: only events recorded from now on.",
            ),
        ]
        | None
    ) = None
    type: EventTypes | None = None
    alpha: EventAlphas | None = None


# -- the declared parameters, as the parser and the documents read them ---------------------------


@dataclass(frozen=True)
class Param:
    """One query parameter, derived from a field of a `Query` Struct."""

    name: str  # on the wire
    attr: str  # the Struct's field
    type: str  # integer, number, string, boolean, date
    description: str
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[str, ...] | None = None
    required: bool = False
    pattern: str | None = None  # the whole value matches it (anchored)
    max_length: int | None = None
    read: str | None = None  # tickers, list, numbers or moment (see the module's docstring)
    note: str | None = None
    missing: str | None = None
    repeat: bool = False  # may be given more than once (see the module's docstring)
    in_path: bool = False  # a parameter of the route's path (see the module's docstring)


_TYPES: dict[Any, str] = {
    int: "integer",
    float: "number",
    bool: "boolean",
    dt.date: "date",
    str: "string",
    tuple[str, ...]: "string",  # a list (`read`): comma-separated text on the wire
    tuple[float, ...]: "string",  # numbers (`read`): comma-separated decimals on the wire
}


def _unwrap(annotation: Any) -> tuple[Any, list[Meta]]:
    """The base type of an annotation and its `Meta` entries, through `Annotated` and `| None`."""
    metas: list[Meta] = []
    while True:
        if typing.get_origin(annotation) is Annotated:
            base, *extras = typing.get_args(annotation)
            metas += [m for m in extras if isinstance(m, Meta)]
            annotation = base
        elif typing.get_origin(annotation) in (Union, types.UnionType):
            arms = [a for a in typing.get_args(annotation) if a is not type(None)]
            (annotation,) = arms
        else:
            return annotation, metas


@cache
def params_of(query: type[Query]) -> tuple[Param, ...]:
    """The query string's parameters of `query`, in documentation order."""
    return tuple(param for param in _declared(query) if not param.in_path)


@cache
def path_params_of(query: type[Query]) -> tuple[Param, ...]:
    """The path parameters `query` types (`{date}` of a rebalance week)."""
    return tuple(param for param in _declared(query) if param.in_path)


@cache
def _declared(query: type[Query]) -> tuple[Param, ...]:
    hints = typing.get_type_hints(query, include_extras=True)
    params = []
    for field in msgspec.structs.fields(query):
        base, metas = _unwrap(hints[field.name])
        declared: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for meta in metas:
            for attribute in ("description", "ge", "le", "pattern", "max_length"):
                if getattr(meta, attribute) is not None:
                    declared[attribute] = getattr(meta, attribute)
            extra.update(meta.extra or {})
        required = field.required
        params.append(
            Param(
                name=field.encode_name,
                attr=field.name,
                type=_TYPES[base],
                description=declared["description"],
                default=None if required else field.default,
                minimum=declared.get("ge"),
                maximum=declared.get("le"),
                enum=extra.get("enum"),
                required=required,
                pattern=declared.get("pattern"),
                max_length=declared.get("max_length"),
                read=extra.get("read"),
                note=extra.get("note"),
                missing=extra.get("missing"),
                repeat=bool(extra.get("repeat", False)),
                in_path=extra.get("in") == "path",
            )
        )
    return tuple(params)


class PromotionPreviewQuery(Query, frozen=True):
    """`/analytics/promotion_preview`: what the alpha's next decision would record and change."""

    effective: (
        Annotated[
            dt.date,
            Meta(
                description="The date the decision would take effect (YYYY-MM-DD): the checks are measured up to it. "
                "Absent: today (a decision is dated when it is recorded); an earlier day previews an import of a "
                "decision taken elsewhere (alpha-results promote --import), a later one is refused.",
            ),
        ]
        | None
    ) = None
