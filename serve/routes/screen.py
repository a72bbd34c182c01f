"""`/v1/analytics/screen`: the alphas the key may read, filtered on the catalogue index's headline
figures and classification, sorted and paged (docs/analytics.md "Screener").

Not about one alpha, so not under `/v1/alphas/{alpha}`; and not under `/v1/alphas/...` at all,
where its segment would be read as an alpha id. Like the other routes outside the alphas
(`/v1/benchmarks/...`, `/v1/admin/...`), its path starts with its group.

The rows are the `/metrics` headline figures of each alpha, so a key also needs
`performance.metrics`, the route that serves them (else 403 naming it, as a collection built from
data the key may not read). The candidates are the alphas both allow-lists of the key admit; the
statement (`datasets.screener`) sees nothing else, so the total, the rows and the errors
never name or count another alpha.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from anyio import to_thread
from litestar import Response

from analytics.access import Access, require_readable, withheld
from analytics.correlation import BASES, within_correlation
from analytics.entries import Warnings
from datasets.catalogue_snapshot import CatalogueSnapshot
from datasets.screener import CandidateFilter, Page, Screen, Screener
from schemas import choices, wire
from schemas.bodies.envelope import Collection
from schemas.bodies.rows import ScreenRow
from schemas.query import MAX_REFERENCES, ScreenQuery
from serve import errors
from serve.envelope import with_warnings
from serve.readable import catalogue_tag, readable_ids, readable_mask
from serve.resolve import resolve_run
from serve.routes.base import Context, Ctx
from serve.routes.declare import route

FIGURES_ENDPOINT = "performance.metrics"
"""The route that serves the figures the screener filters on and returns."""
CORRELATION_ENDPOINT = "analytics.correlation"
"""The route that serves the correlations `max_correlation` bounds."""


def candidate_filters(
    ctx: Context, args: ScreenQuery, snapshot: CatalogueSnapshot, readable: np.ndarray
) -> tuple[CandidateFilter, ...]:
    """The request's filters over candidate ids (`datasets.screener.CandidateFilter`), for
    parameters the index's columns cannot answer: `max_correlation`, which reads the catalogue's
    matrices, so the key needs `analytics.correlation` and the data of the basis. `readable`: the
    request's readable mask (`readable_mask`)."""
    bound = args.max_correlation
    if bound is None:
        if args.correlated_to is not None:
            raise errors.bad_parameters({"correlated_to": "needs max_correlation, the bound it applies"})
        return ()
    caller = ctx.caller
    if not caller.may_call(CORRELATION_ENDPOINT):
        raise errors.EndpointNotAllowed(
            f"max_correlation is a correlation figure; it needs {CORRELATION_ENDPOINT}.",
            details={"endpoint": CORRELATION_ENDPOINT},
        )
    require_readable(ctx.access, BASES[args.correlation_basis].data)
    if args.correlated_to is not None:
        references = [resolve_run(caller, ctx.reader, args.correlated_to).alpha_id]
    else:
        catalogue = snapshot.catalogue
        index = catalogue.index
        assert index is not None  # the route checked it
        produced = index.filter(pc.fill_null(index.column("production"), False)).column("alpha_id")
        allowed = readable_ids(catalogue, readable)
        references = produced.filter(pc.is_in(produced, value_set=allowed)).to_pylist()
        if len(references) > MAX_REFERENCES:
            raise errors.bad_parameters(
                {
                    "correlated_to": f"required here: the production set you may read holds {len(references):,} "
                    f"alphas, above the {MAX_REFERENCES:,} max_correlation compares with"
                }
            )
    basis = args.correlation_basis

    def within(candidates: list[str]) -> list[str]:
        # Called in the worker thread the statement runs in: mapping the matrix may read files.
        return within_correlation(candidates, snapshot.matrix(basis), references, bound)

    return (within,)


def narrowed(candidates: list[str], filters: tuple[CandidateFilter, ...]) -> list[str]:
    for keep in filters:
        candidates = keep(candidates)
    return candidates


def screened(
    screener: Screener,
    version: str,
    index: pa.Table,
    args: ScreenQuery,
    candidates: list[str] | None,
    filters: tuple[CandidateFilter, ...],
) -> Page:
    """The page asked for. With candidate filters, the statement's own filters run first (every
    matching id, in order), the candidate filters on what they kept, then the page is selected:
    a costly filter sees the fewest alphas, and the total stays exact."""
    if not filters:
        return screener.page(version, index, screen_of(args, candidates))
    matched = screener.matching(version, index, screen_of(args, candidates))
    kept = set(narrowed(matched, filters))
    ordered = [alpha for alpha in matched if alpha in kept]
    page = ordered[args.offset : args.offset + args.limit]
    rows = screener.page(
        version, index, replace(screen_of(args, page), limit=max(len(page), 1), offset=0)
    ).rows
    return Page(rows, len(ordered))


def screen_of(args: ScreenQuery, candidates: list[str] | None) -> Screen:
    sort = args.sort
    ranges = tuple(
        (column, getattr(args, f"min_{column}"), getattr(args, f"max_{column}"))
        for column in choices.SCREEN_RANGES
    )
    return Screen(
        candidates=candidates,
        search=args.search or None,
        tags=() if args.tag is None else tuple(dict.fromkeys(args.tag)),
        structure=args.structure,
        method=args.method,
        complete_only=args.complete_only,
        production=args.production,
        ic_reproduces=args.ic_reproduces,
        ranges=tuple(r for r in ranges if r[1] is not None or r[2] is not None),
        sort=None if sort is None else sort.removeprefix("-"),
        descending=sort is not None and sort.startswith("-"),
        limit=args.limit,
        offset=args.offset,
    )


@route(
    "analytics.screen",
    "/v1/analytics/screen",
    "Alphas the key may read, filtered and sorted on their headline figures and classification",
)
async def screen_alphas(ctx: Ctx[ScreenQuery]) -> Response[Collection[ScreenRow]]:
    args = ctx.args()
    if not ctx.caller.may_call(FIGURES_ENDPOINT):
        raise errors.EndpointNotAllowed(
            f"These rows are the alphas' headline figures; they need {FIGURES_ENDPOINT}.",
            details={"endpoint": FIGURES_ENDPOINT},
        )
    snapshot = ctx.reader.snapshot()
    catalogue = snapshot.catalogue
    index: pa.Table | None = catalogue.index
    if index is None:
        raise errors.UpstreamUnavailable(
            "The lake has no catalogue index, which the screener queries; an operator writes it with "
            "`alpha-results lake index`."
        )
    warnings = Warnings()
    access = ctx.access
    # Fields built from data the key may not read: null, with a warning, and no filter or sort on them.
    hidden: dict[str, None] = {}
    for data, fields in wire.SCREEN_WITHHELD_FIELDS.items():
        if not access.may_read(data):
            _refuse_filters_on(fields, args, access, data)
            withheld(data, ", ".join(fields), warnings)
            hidden |= dict.fromkeys(fields)
    readable = readable_mask(ctx.caller, catalogue)
    filters = candidate_filters(ctx, args, snapshot, readable)
    # Every alpha of the index a key that reads them all: the statement needs no candidate list.
    candidates = None if readable.all() else readable_ids(catalogue, readable)
    # Every figure, matrix row and position an answer holds is of a build of an alpha the key
    # reads: the tag and `meta.source` name those builds alone (a 304 stands for the same body).
    version = catalogue_tag(catalogue, readable)
    ctx.validate_with("screen:" + version)
    page = await to_thread.run_sync(
        screened, snapshot.screener, catalogue.version, index, args, candidates, filters
    )
    rows = [{**row, **hidden} for row in page.rows] if hidden else page.rows
    meta = with_warnings(ctx.meta(source=f"lake:catalogue_index@{version}"), list(warnings.entries))
    return ctx.collection(Page(rows, page.total), args.limit, args.offset, meta)


def _refuse_filters_on(fields: tuple[str, ...], args: ScreenQuery, access: Access, data: str) -> None:
    """A key that may not read `data` filters or sorts on none of the `fields` built from it (a
    filter's answer would reveal them): 403 naming the route that serves it."""
    filtered = any(
        getattr(args, name, None) is not None
        for field in fields
        for name in (field, f"min_{field}", f"max_{field}")
    )
    if filtered or (args.sort is not None and args.sort.removeprefix("-") in fields):
        require_readable(access, data)


ROUTES = [screen_alphas]
