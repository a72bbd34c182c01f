"""`meta`, the envelope's description of an answer, as a Struct: every key any route echoes, each
with its meaning on the field. A route's `meta` holds the keys every answer carries (`SHARED`),
`summary` on the two series, and the keys its declaration lists (`@route(..., meta=...)`);
serve/openapi/bodies.py writes each route's `meta` schema from those fields, and
tests/api/test_bodies.py decodes every recorded `meta` with it (an undeclared key fails).

`summary` is typed by the route's own Struct: `EnvelopeMeta[EquitySummary]`, in the `Series` its
handler returns.

The answer itself is declared as the handler's return type (`serve.routes.declare`):
`Response[Single[Risk]]` (`{data, meta}`), `Response[Collection[DecisionRow]]` (`{data: [...],
pagination, meta}`) or `Response[Series[EquityRow, EquitySummary]]` (a collection whose `meta` has
a summary); a body outside the envelope (the health probe) is its own Struct.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Generic, Literal, TypeVar

from msgspec import UNSET, Meta, UnsetType

from schemas import choices, units
from schemas.bodies.base import Body, Window
from schemas.bodies.decisions import BookFigures, CombinationFit, CombinationShrinkage, CombinationWeight
from schemas.bodies.formats import SEAL_TEXT, TEXT, Timestamp, doc, one_of
from schemas.bodies.service import Pagination, Warning

COMBINE_ONLY = "On `/analytics/combine` only."


class BenchmarkEcho(Body, kw_only=True, frozen=True):
    """SPY and its return basis, as a combination used it."""

    symbol: Annotated[str, doc("The benchmark (SPY).")]
    basis: Annotated[str, doc("Its return basis: adjusted_close when every session has one, else close.")]


class CorrelationMatrix(Body, kw_only=True, frozen=True):
    """The correlation of every pair of the combined alphas' daily returns."""

    alphas: Annotated[list[str], doc("The rows and columns of `matrix`, in order.")]
    matrix: Annotated[
        list[list[float | None]],
        doc(
            "Pearson correlation of each pair's daily returns over the common sessions; null where a "
            "side is constant.",
            unit=units.RATIO,
            formula="matrix[i][j] = corr(r_i, r_j), Pearson",
        ),
    ]


Item = TypeVar("Item", bound=Body)
Summary = TypeVar("Summary", bound=Body)


class EnvelopeMeta(Body, Generic[Summary], kw_only=True, frozen=True):
    """`meta`: what served the answer, the request's echoes, and warnings.

    The value every handler sends (`Context.meta`, `Context.run_meta`), so its keys are written in
    the order declared here: the run's identity, the request's echoes, a combination's figures,
    then this request's id and time, what served it and its warnings."""

    run: (
        Annotated[
            str,
            doc(
                "The resolved alpha_id that served the response; keep it for reproducibility.",
                absent="Present on run-scoped responses.",
            ),
        ]
        | UnsetType
    ) = UNSET
    alpha_id: (
        Annotated[
            str,
            doc(
                "Informational source label (here the collection name); address endpoints with the path "
                "alpha_id or `meta.run`.",
                absent="Present on responses about one alpha.",
            ),
        ]
        | UnsetType
    ) = UNSET
    source_alpha_id: (
        Annotated[
            str,
            SEAL_TEXT,
            doc(
                "The research source id of the run.",
                absent="Present only when the run recorded a research source id.",
            ),
        ]
        | UnsetType
    ) = UNSET
    book: (
        Annotated[
            str,
            doc(
                "The book served; on `/rebalances/{date}` the echo of the `book` parameter (the "
                "target-weight column `min_abs_weight` and `sort=weight` act on).",
                absent="Present on book-scoped responses only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    key_id: (
        Annotated[
            str,
            doc(
                "The key the answer is about: the calling key on `/v1/me` and `/v1/me/keys`, the key "
                "looked up on the administrative usage route.",
                absent="Present on those three routes only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    date: (
        Annotated[
            dt.date,
            doc(
                "Echo of the path date: the rebalance week served.",
                unit=units.DATE,
                absent="Present on `/rebalances/{date}` only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    week_status: (
        Annotated[
            str | None,
            doc(
                "Status of the week, as in the rebalance index: `traded`, `pending`, or a skip reason.",
                absent="Present on `/rebalances/{date}` only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    n_symbols: (
        Annotated[
            int | None,
            doc(
                "Rows in the week's full cross-section before filters; `pagination.total` tracks the "
                "filtered count.",
                unit=units.NAMES,
                absent="Present on `/rebalances/{date}` only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    fields: (
        Annotated[
            str,
            one_of(choices.SCORE_FIELDS_CHOICES),
            doc("Echo of the column set served: `core` or `all`.", absent="Present on `/scores` only."),
        ]
        | UnsetType
    ) = UNSET
    symbol: (
        Annotated[
            str,
            doc("Echo of the path benchmark symbol.", absent="Present on the benchmark route only."),
        ]
        | UnsetType
    ) = UNSET
    basis: (
        Annotated[
            str,
            one_of(choices.CORRELATION_BASES),
            doc("The correlation basis applied: returns, ic or scores."),
        ]
        | UnsetType
    ) = UNSET
    window_weeks: (
        Annotated[
            int,
            Meta(extra_json_schema={"enum": [int(w) for w in choices.ROLLING_WINDOWS]}),
            doc("The trailing window applied, in weeks (13, 26 or 52).", unit=units.WEEKS),
        ]
        | UnsetType
    ) = UNSET
    signal: (
        Annotated[
            Literal["conditioned", "raw"],
            TEXT,
            doc(
                "The IC family of `mean_ic` and `icir`: `conditioned` (score) on base books, `raw` "
                "(raw_score) on raw books."
            ),
        ]
        | UnsetType
    ) = UNSET
    with_source: (
        Annotated[
            str,
            doc(
                "The build of the alpha compared with (`lake:portfolio@<build id>`); `source` names this "
                "alpha's.",
                absent="On `/analytics/compare` only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    reference: (
        Annotated[
            Literal["approved"],
            TEXT,
            doc(
                "The set `max_correlation` compared with, no `correlated_to` being named: approved (the alphas "
                "in force in the live book, the production alphas, that the key may read; none when it may read "
                "none, and then no candidate is compared with anything).",
                absent="On `/analytics/screen` with `max_correlation` and without `correlated_to` only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    summary: (
        Annotated[Summary, doc("Figures over the whole requested window, computed before paging.")]
        | UnsetType
    ) = UNSET
    window: (
        Annotated[Window, doc("The request's window, `from` and `to` (null: open).", absent=COMBINE_ONLY)]
        | UnsetType
    ) = UNSET
    benchmark: (
        Annotated[
            BenchmarkEcho | None,
            doc(
                "SPY and its return basis (`symbol`, `basis`): null when the key may not read SPY.",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    alphas: (
        Annotated[list[str], doc("The alphas combined, in the order of `alphas`.", absent=COMBINE_ONLY)]
        | UnsetType
    ) = UNSET
    weighting: (
        Annotated[
            str,
            one_of(choices.WEIGHTINGS),
            doc(
                "How the weights were chosen: equal, given, inverse_volatility or max_ir.",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    shrinkage: (
        Annotated[
            CombinationShrinkage | None,
            doc(
                "With max_ir: the shrinkage intensity used (`value`) and its `source` (ledoit_wolf or "
                "given); else null.",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    weights: (
        Annotated[
            list[CombinationWeight],
            doc(
                "`{alpha, weight}` per alpha: the weights applied (fractions of the book's capital, "
                "negative for a short).",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    fit: (
        Annotated[
            CombinationFit | None,
            doc(
                "With inverse_volatility or max_ir: the sessions the weights are fitted on (`fit_to` echoed, "
                "`sample` in_sample or out_of_sample, `sessions`, `rule` in words); null for equal and given "
                "weights, which are not fitted.",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    sessions: (
        Annotated[
            int,
            doc(
                "Sessions the rows and figures are over: those of the window on which every alpha has a "
                "return (after `fit_to` when it is given).",
                unit=units.SESSIONS,
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    session_rule: (
        Annotated[str, doc("Which sessions are combined, in words.", absent=COMBINE_ONLY)] | UnsetType
    ) = UNSET
    figures: (
        Annotated[
            BookFigures,
            doc(
                "The combined book's figures as stat entries (information_ratio, excess_sharpe, "
                "max_drawdown_pct, annualised_return, volatility, turnover, diversification_ratio) over "
                "the window's sessions on which every alpha of the set has a long_short return.",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    correlation: (
        Annotated[
            CorrelationMatrix,
            doc(
                "`{alphas, matrix}`: the Pearson correlation of every pair's daily returns over the "
                "common sessions.",
                absent=COMBINE_ONLY,
            ),
        ]
        | UnsetType
    ) = UNSET
    next_cursor: (
        Annotated[
            str,
            doc(
                "Where to resume (`after=`): the cursor of the page's last event; with no event, the `after` "
                "given, or without one the start of the log. Polling with it returns exactly the events not "
                "yet seen.",
                absent="On `/v1/events` only.",
            ),
        ]
        | UnsetType
    ) = UNSET
    as_of: (
        Annotated[
            str,
            doc(
                "The moment the answer is as of (UTC, ISO 8601): the catalogue generation and builds the API "
                "served then, and the decisions recorded by then.",
                absent="Present when the request asked `as_of`.",
            ),
        ]
        | UnsetType
    ) = UNSET
    generation: (
        Annotated[
            int,
            doc(
                "The catalogue generation the answer read (the one served at `as_of`).",
                absent="Present when the request asked `as_of`.",
            ),
        ]
        | UnsetType
    ) = UNSET
    request_id: Annotated[str, doc("Id of this request (also in `X-Request-ID`); quote it to support.")]
    generated_at: Annotated[Timestamp, doc("When the server produced this response.", unit=units.TIMESTAMP)]
    source: (
        Annotated[
            str,
            doc(
                "What served the response: `lake:<table>@<build_id>` (the published build), `lake:catalog` "
                "on `/alphas`, `lake:catalogue_index@<version>` on `/analytics/screen`, `limiter` for usage.",
                absent="Absent on `/v1/me` and `/v1/me/keys`.",
            ),
        ]
        | UnsetType
    ) = UNSET
    warnings: (
        Annotated[
            list[Warning],
            doc(
                "Degradations of this answer, e.g. `kind_missing` naming a dataset the run never wrote.",
                absent="Present only when a block degraded or the data is empty.",
            ),
        ]
        | UnsetType
    ) = UNSET


DATA = doc("The payload: the rows of this page on a collection endpoint, the requested object otherwise.")
"""`data` of every answer; a body may say more of itself (`Body.data_meaning`)."""
PAGINATION = doc("Paging state of this collection page.")
META = doc(
    "Response metadata: what served the answer (run, source, build) and request echoes; "
    "warnings when a block degraded."
)


class Single(Body, Generic[Item], kw_only=True, frozen=True):
    """A single object's answer."""

    data: Annotated[Item, DATA]
    meta: Annotated[EnvelopeMeta[Any], META]


class Collection(Body, Generic[Item], kw_only=True, frozen=True):
    """A page of a collection's rows."""

    data: Annotated[list[Item], DATA]
    pagination: Annotated[Pagination, PAGINATION]
    meta: Annotated[EnvelopeMeta[Any], META]


class Series(Body, Generic[Item, Summary], kw_only=True, frozen=True):
    """A page of a series' rows, with figures over the whole window in `meta.summary`."""

    data: Annotated[list[Item], DATA]
    pagination: Annotated[Pagination, PAGINATION]
    meta: Annotated[EnvelopeMeta[Summary], META]


SHARED = (
    "run",
    "alpha_id",
    "source_alpha_id",
    "book",
    "as_of",
    "generation",
    "request_id",
    "generated_at",
    "source",
    "warnings",
)
"""The keys of every route's `meta` schema, in this order (each present where its rule says)."""
