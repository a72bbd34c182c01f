"""The answer to each run-scoped collection route, made in one call: its page (rows and total),
the route's own `meta` keys and its warnings. What a caller without raw-book access may see, a
kind the run never sealed (an empty page with a `kind_missing` warning) and the default order are
applied here, once, so a handler only reads its parameters and sends the answer.

Visibility is the one fact about the caller the lake is told (`raw`: may it see raw books and
raw-only fields); who the caller is stays in serve/. A request the build cannot answer (a date that
is not a rebalance, a book the caller cannot see) raises a `LookupError` subclass here, which
serve/ turns into its 4xx.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

import msgspec

from datasets import layout, queries
from datasets.build_view import BuildView
from datasets.faults import BuildDamaged
from datasets.queries import Page, Paged
from schemas import choices, wire
from schemas.bodies.description import AlphaDescription
from schemas.bodies.service import Warning
from schemas.query import (
    BookQuery,
    LedgerQuery,
    PageQuery,
    ScoresQuery,
    TradesQuery,
    WeekQuery,
    WindowPageQuery,
)

BUILT_EMPTY = "what is built from it is empty or null"
"""The consequence an analytics body's `kind_missing` states (its figures are empty or null)."""


def missing_kinds(
    build: BuildView, kinds: tuple[str, ...], consequence: str = "the page is empty", about: str = ""
) -> list[Warning]:
    """A `kind_missing` warning for each of `kinds` the run never sealed, in that order: every
    route's one rule for a kind it reads and the run lacks (`about` leads each message: the other
    run of a comparison)."""
    return [
        msgspec.structs.replace(entry, message=about + entry.message)
        for entry in (
            wire.kind_missing(kind, consequence) for kind in kinds if kind not in build.kinds_present
        )
    ]


def description(build: BuildView) -> AlphaDescription | None:
    """The run's written description as `/v1/alphas/{alpha}` serves it (the pipeline wrote it with
    every key, `alpha_results_seal.description`), or None when the run sealed none. A file that is not that
    shape is a damaged build (503), never a 500 or a partial answer."""

    def read() -> AlphaDescription | None:
        document = build.json(layout.DESCRIPTION_JSON)
        if document is None:
            return None
        try:
            return msgspec.convert(
                {**document, "algo_id": build.alpha_id, "alpha_id": build.alpha_id}, AlphaDescription
            )
        except msgspec.ValidationError as exc:
            raise BuildDamaged(
                "corrupt_file", f"{layout.DESCRIPTION_JSON} of {build.build_id}: {exc}"
            ) from None

    return build.memo("answers:description", read)


@dataclass(frozen=True)
class RunPage:
    """A collection answer: `meta` holds the route's own keys, in the order they are served (the
    run's identity, the request id and the source are added by serve/)."""

    page: Paged
    table: str
    """The lake table `meta.source` names."""
    limit: int
    offset: int
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[Warning] = field(default_factory=list)


class NotARebalance(LookupError):
    """The date is not in the run's rebalance index; `neighbours` names the dates around it
    (None where the run has no index or no such date)."""

    def __init__(self, day: date, neighbours: dict[str, date | None]) -> None:
        super().__init__(day)
        self.day, self.neighbours = day, neighbours


class NoSuchBook(LookupError):
    """The book is not one the caller may read for the kind; `available` lists those it may."""

    def __init__(self, book: str, kind: str, available: list[str]) -> None:
        super().__init__(f"no book {book!r}: {', '.join(available)}")
        self.book, self.kind, self.available = book, kind, available


class Paging(Protocol):
    """The page a request asks for (every collection's query declares both)."""

    @property
    def limit(self) -> int: ...

    @property
    def offset(self) -> int: ...


def page_answer(
    page: Paged | None, table: str, args: Paging, columns: tuple[str, ...], **meta: Any
) -> RunPage:
    """The page; or, when the run never sealed `table`, an empty page of `columns` that says so."""
    if page is not None:
        return RunPage(page, table, args.limit, args.offset, meta)
    return RunPage(Page([], 0, columns), table, args.limit, args.offset, meta, [wire.kind_missing(table)])


# -- signals --------------------------------------------------------------------------------------


def rebalances(build: BuildView, args: WindowPageQuery) -> RunPage:
    page = (
        queries.rebalance_index(
            build, (args.start, args.end), wire.REBALANCE_INDEX_FIELDS, args.limit, args.offset
        )
        if "rebalances" in build.kinds_present
        else None
    )
    return page_answer(page, "rebalances", args, wire.REBALANCE_INDEX_FIELDS)


def week(build: BuildView, args: WeekQuery, raw: bool) -> RunPage:
    """One week's cross-section (the path's `date`), by score descending unless the request says
    otherwise."""
    day = args.date
    found = queries.find_week(build, day) if "rebalances" in build.kinds_present else None
    if found is None or not found.found:
        names = ("first_rebalance", "last_rebalance", "previous_rebalance", "next_rebalance")
        raise NotARebalance(
            day, {name: getattr(found, name) if found is not None else None for name in names}
        )
    meta: dict[str, Any] = {
        "book": args.book,
        "date": day,
        "week_status": found.week_status,
        "n_symbols": found.n_symbols,
    }
    weight_column = choices.WEIGHT_BOOKS[args.book]
    query = queries.WeekFilter(
        symbols=args.symbol,
        direction=choices.DIRECTIONS[args.direction] if args.direction is not None else None,
        min_abs_weight=args.min_abs_weight,
        weight_column=weight_column,
        sort_column=choices.REBALANCE_SORTS[args.sort] or weight_column,
        order=args.order or choices.REBALANCE_DEFAULT_ORDER[args.sort],
    )
    columns = wire.visible_fields(wire.DECISION_FIELDS, raw)
    page = (
        queries.week_page(build, found, query, columns, wire.OMIT_WHEN_NULL, args.limit, args.offset)
        if "decisions" in build.kinds_present
        else None
    )
    return page_answer(page, "decisions", args, columns, **meta)


def scores(build: BuildView, args: ScoresQuery, raw: bool) -> RunPage:
    columns = wire.visible_fields(wire.SCORE_FIELD_SETS[args.fields], raw)
    page = (
        queries.scores_page(
            build,
            (args.start, args.end),
            args.symbol,
            columns,
            wire.OMIT_WHEN_NULL,
            args.limit,
            args.offset,
        )
        if "decisions" in build.kinds_present
        else None
    )
    return page_answer(page, "decisions", args, columns, fields=args.fields)


# -- books ----------------------------------------------------------------------------------------


def readable_books(build: BuildView, kind: str, raw: bool) -> list[str]:
    """Books of `kind` the caller may see, in the served order; `raw_` books do not exist for a
    caller without raw access.

    A kind the run never wrote is still addressed by the books the run simulated (its page is empty
    with a `kind_missing` warning), so `book` is checked the same way whether or not data exists.
    """
    books: tuple[str, ...] | list[str] = build.books_of(kind)
    if kind not in build.kinds_present:
        simulated = {b for k in wire.BOOK_KINDS for b in build.books_of(k)}
        books = [b for b in simulated if kind == "trades" or b in wire.BASE_BOOKS] or list(wire.BASE_BOOKS)
    return wire.books_in_order([b for b in books if wire.book_visible(b, raw)])


def checked_book(build: BuildView, kind: str, book: str, raw: bool) -> str:
    """`book`, when the caller may read it for `kind`; else `NoSuchBook`."""
    available = readable_books(build, kind, raw)
    if book not in available:
        raise NoSuchBook(book, kind, available)
    return book


def books(build: BuildView, args: PageQuery, raw: bool) -> RunPage:
    """The run's books and the kinds each has, base books first; a warning per kind never sealed."""
    rows = queries.all_rows(build, "books", wire.BOOK_FIELDS) or []
    visible = [r for r in rows if wire.book_visible(r["book"], raw)]
    visible.sort(key=lambda r: (wire.book_order_key(r["book"]), wire.kind_rank(r["kind"])))
    warnings = missing_kinds(build, wire.BOOK_KINDS)
    return RunPage(
        queries.page_of(visible, args.limit, args.offset), "books", args.limit, args.offset, {}, warnings
    )


BOOK_COLUMNS = {
    "portfolio": wire.PORTFOLIO_FIELDS,
    "positions": wire.POSITION_FIELDS,
    "pnl": wire.PNL_FIELDS,
    "trades": wire.TRADE_FIELDS,
}
"""The row fields of each book kind's page."""


def book(build: BuildView, kind: str, args: BookQuery | LedgerQuery | TradesQuery, raw: bool) -> RunPage:
    """The rows of one book of `kind` (a lake table of the same name) in the window, in the
    table's order: date, then symbol where rows are per name."""
    name = checked_book(build, kind, args.book, raw)
    symbols = None if isinstance(args, LedgerQuery) else args.symbol
    page = (
        queries.book_page(
            build, kind, name, (args.start, args.end), symbols, BOOK_COLUMNS[kind], args.limit, args.offset
        )
        if kind in build.kinds_present
        else None
    )
    return page_answer(page, kind, args, BOOK_COLUMNS[kind], book=name)
