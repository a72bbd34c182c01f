"""`/analytics/screen`: the alphas a caller may read, filtered on the catalogue index's headline
figures and classification, sorted and paged (docs/analytics.md "Screener").

The statement (`datasets.screener`) answers what the index's columns can; a filter they cannot
express is a candidate filter run on what the statement's own filters kept (`max_correlation`,
over the catalogue's matrices), so the total stays exact; fields built from data the caller may
not read are null on every row, and a filter or sort on one is refused. The candidates are the
alphas the caller may read (a readable mask), so rows, totals and errors never name or count
another alpha.
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics import sets
from analytics.access import Access, require_readable, withheld
from analytics.correlation import within_correlation_rows
from analytics.entries import Warnings
from analytics.errors import BadParameters, DataNotReadable
from analytics.standings import NO_DECISIONS, Standings
from datasets.catalogue_snapshot import CatalogueSnapshot
from datasets.faults import CatalogueIncomplete
from datasets.screener import CandidateFilter, Page, Screen
from datasets.served import Catalogue
from schemas import choices, wire
from schemas.bodies.promotions import STANDINGS
from schemas.lake import RESIDUAL_COLUMNS
from schemas.query import MAX_REFERENCES, ScreenQuery
from schemas.wire import BENCHMARK_ENDPOINT

FIGURES_ENDPOINT = "performance.metrics"
"""The route that serves the figures the screener filters on and returns: a reader needs it."""
CORRELATION_ENDPOINT = "analytics.correlation"
"""The route that serves the correlations `max_correlation` bounds."""


def require_index(catalogue: Catalogue) -> pa.Table:
    """The catalogue index the screener queries; 503 when the lake has none."""
    if catalogue.index is None:
        raise CatalogueIncomplete(
            "The lake has no catalogue index, which the screener queries; an operator writes it with "
            "`alpha-results lake index`."
        )
    return catalogue.index


def withheld_fields(args: ScreenQuery, access: Access, warnings: Warnings) -> dict[str, None]:
    """The fields built from data the caller may not read (`wire.SCREEN_WITHHELD_FIELDS`), each
    null on every row and warned of; a filter or sort on one is 403 naming the route that serves
    its data (its answer would reveal them)."""
    hidden: dict[str, None] = {}
    for data, fields in wire.SCREEN_WITHHELD_FIELDS.items():
        if not access.may_read(data):
            filtered = any(
                getattr(args, name, None) is not None
                for field in fields
                for name in (field, f"min_{field}", f"max_{field}")
            )
            if filtered or (args.sort is not None and args.sort.removeprefix("-") in fields):
                require_readable(access, data)
            withheld(data, ", ".join(fields), warnings)
            hidden |= dict.fromkeys(fields)
    return hidden


RESIDUAL_FIELDS = RESIDUAL_COLUMNS
"""The screener's residual figures: the catalogue index's, computed against the default reference
set of a key that reads every alpha (`pipeline.catalogue_residual`)."""


def residual_withheld(
    args: ScreenQuery,
    catalogue: Catalogue,
    readable: np.ndarray,
    approved: Collection[str],
    market: bool,
    warnings: Warnings,
) -> dict[str, None]:
    """The residual figures when they are not this caller's (each null on every row, and warned
    of): without SPY's series (`market`: the key may call benchmarks.daily; a filter or sort on
    them is then 403 naming it, as for the ledger's fields), or when the default reference set
    this caller's `/analytics/residual` uses is not the one the index computed them against (a
    filter or sort on them is then a 400 naming it). The index's set is the `approved` alphas it
    records, each row's alpha excepted; the caller's is the records' `approved` alphas it may read
    (`readable`, `sets.default_reference`). They are the same for every row when the approved
    alphas it may read are the index's. So a key never reads a figure built from an alpha it may
    not read."""
    asked = [name for name in _asked(args) if name in RESIDUAL_FIELDS]
    if not market:
        if asked:
            raise DataNotReadable(
                f"The residual figures are regressions on SPY's daily returns; they need {BENCHMARK_ENDPOINT}.",
                BENCHMARK_ENDPOINT,
            )
        why = f"built from SPY's daily series, which this key may not read ({BENCHMARK_ENDPOINT})"
    else:
        index = require_index(catalogue)
        recorded: list[str] = []
        if "approved" in index.column_names:
            flags = index.column("approved").fill_null(False)
            recorded = pc.filter(index.column("alpha_id"), flags).to_pylist()  # not every column
        theirs = sets.set_mask(catalogue, recorded)
        mine = readable & sets.set_mask(catalogue, tuple(approved))
        if np.array_equal(mine, theirs):
            return {}
        if asked:
            raise BadParameters(
                {
                    name: "cannot filter or sort on the residual figures here: they are measured against a default "
                    "reference set other than the one /analytics/residual uses for this key (an alpha of it this key "
                    "may not read, or other approved alphas than the index last heard of); ask "
                    "/v1/alphas/{alpha}/analytics/residual"
                    for name in _parameters(args, RESIDUAL_FIELDS)
                }
            )
        why = (
            "measured against a default reference set other than the one /analytics/residual uses for this key (an "
            "alpha of it this key may not read, or other approved alphas than the catalogue index last heard of)"
        )
    block = ", ".join(RESIDUAL_FIELDS)
    warnings.add("access_limited", f"{block} are {why}.", block=block)
    return dict.fromkeys(RESIDUAL_FIELDS)


def _asked(args: ScreenQuery) -> list[str]:
    """The screened fields the request filters or sorts on."""
    fields = [
        field
        for field in wire.SCREEN_FIELDS
        if getattr(args, f"min_{field}", None) is not None or getattr(args, f"max_{field}", None) is not None
    ]
    if args.sort is not None:
        fields.append(args.sort.removeprefix("-"))
    return fields


def _parameters(args: ScreenQuery, fields: tuple[str, ...]) -> list[str]:
    """The request's parameters that filter or sort on `fields`."""
    named = [
        f"{side}_{field}"
        for field in fields
        for side in ("min", "max")
        if getattr(args, f"{side}_{field}") is not None
    ]
    if args.sort is not None and args.sort.removeprefix("-") in fields:
        named.append("sort")
    return named


def compared_set(
    snapshot: CatalogueSnapshot,
    args: ScreenQuery,
    correlated: str | None,
    readable: np.ndarray,
    approved: Collection[str] = (),
) -> sets.DefaultReference | None:
    """The set `max_correlation` compares with when no `correlated_to` is named (`correlated`: the
    alpha it names, authorised and found by the caller): the default reference set
    (`sets.default_reference`: the `approved` alphas `readable`, the caller's readable mask,
    admits: empty, with its reason, when none is), at most MAX_REFERENCES of them; None when the
    request compares with no such set."""
    if args.max_correlation is None or correlated is not None:
        return None
    found = sets.default_reference(snapshot.catalogue, readable, approved)
    if len(found.alphas) > MAX_REFERENCES:
        raise BadParameters(
            {
                "correlated_to": f"required here: the {found.origin} set you may read holds {len(found.alphas):,} "
                f"alphas, above the {MAX_REFERENCES:,} max_correlation compares with"
            }
        )
    return found


def candidate_filters(
    snapshot: CatalogueSnapshot,
    args: ScreenQuery,
    correlated: str | None,
    compared: sets.DefaultReference | None,
) -> tuple[CandidateFilter, ...]:
    """The request's filters over candidate ids (`datasets.screener.CandidateFilter`), for
    parameters the index's columns cannot answer: `max_correlation`, against `correlated` (the
    alpha `correlated_to` names, authorised and found by the caller) or else the set `compared`
    (`compared_set`)."""
    bound = args.max_correlation
    if bound is None:
        if args.correlated_to is not None:
            raise BadParameters({"correlated_to": "needs max_correlation, the bound it applies"})
        return ()
    if correlated is not None:
        references = [correlated]
    else:
        assert compared is not None
        references = compared.alphas
    basis = args.correlation_basis

    def within(candidates: np.ndarray) -> np.ndarray:
        # Called in the worker thread the statement runs in: mapping the matrix may read files.
        # The candidates are rows of the catalogue index, the matrix's rows (one generation).
        return within_correlation_rows(candidates, snapshot.matrix(basis), references, bound)

    return (within,)


def standings_wanted(args: ScreenQuery) -> tuple[str, ...] | None:
    """The standings the `standing` filter keeps (each once), None without the filter; 400 naming
    `standing` for a value that is none of STANDINGS."""
    if args.standing is None:
        return None
    wanted = tuple(dict.fromkeys(value.casefold() for value in args.standing))
    unknown = [value for value in wanted if value not in STANDINGS]
    if unknown:
        raise BadParameters(
            {
                "standing": f"must list values among {', '.join(STANDINGS)}; got {', '.join(map(repr, unknown))}"
            }
        )
    return wanted


def screen_page(
    snapshot: CatalogueSnapshot,
    index: pa.Table,
    args: ScreenQuery,
    readable: np.ndarray,
    filters: tuple[CandidateFilter, ...],
    hidden: dict[str, None],
    standings: Standings = NO_DECISIONS,
) -> Page:
    """The page asked for (`index`: `require_index`), over the
    alphas `readable` admits, the `hidden` fields null. With candidate filters, the statement's own filters run first (every
    matching id, in order), the candidate filters on what they kept, then the page is selected: a
    costly filter sees the fewest alphas, and the total stays exact. Each row says where its alpha
    stands (`standings`), and the `standing` filter keeps the candidates standing as it names (so
    the statement's total counts them alone). Runs the statement, so the server runs it in a worker
    thread."""
    catalogue = snapshot.catalogue
    screener, version = snapshot.screener, catalogue.version
    wanted = standings_wanted(args)
    if wanted is not None:
        readable = readable & standings.mask(catalogue, wanted)
    if args.production is not None:  # production: approved (the `standing` column), one standing
        approved = standings.mask(catalogue, ("approved",))
        readable = readable & (approved if args.production else ~approved)
    # Every alpha of the index for a caller that reads them all: the statement needs no candidates.
    candidates = None if readable.all() else sets.readable_ids(catalogue, readable)
    if not filters:
        page = screener.page(version, index, _screen(args, candidates))
    else:
        # Rows of the index end to end (issue 51): DuckDB's positions as one numpy array, each
        # filter keeping some in order, the page's rows read by position.
        kept = screener.matching(version, index, _screen(args, candidates))
        for keep in filters:
            kept = keep(kept)
        chosen = kept[args.offset : args.offset + args.limit]
        page = Page(screener.rows_at(version, index, chosen), len(kept))
    rows = [msgspec.structs.replace(row, **hidden, **standings.columns(row.alpha_id)) for row in page.rows]
    return Page(rows, page.total)


def _screen(args: ScreenQuery, candidates: pa.Array | list[str] | None) -> Screen:
    sort = args.sort
    ranges = tuple(
        (column, getattr(args, f"min_{column}"), getattr(args, f"max_{column}"))
        for column in choices.SCREEN_RANGES
    )
    return Screen(
        candidates=candidates,
        search=args.search or None,
        tags=tuple(dict.fromkeys(args.tag or ())),  # a tag named twice filters once
        structure=args.structure,
        method=args.method,
        family=args.family,
        complete_only=args.complete_only,
        ic_reproduces=args.ic_reproduces,
        ranges=tuple(r for r in ranges if r[1] is not None or r[2] is not None),
        sort=None if sort is None else sort.removeprefix("-"),
        descending=sort is not None and sort.startswith("-"),
        limit=args.limit,
        offset=args.offset,
    )
