"""`/v1/analytics/screen`: the alphas the key may read, filtered on the catalogue index's headline
figures and classification, sorted and paged (docs/analytics.md "Screener").

Not about one alpha, so not under `/v1/alphas/{alpha}`; and not under `/v1/alphas/...` at all,
where its segment would be read as an alpha id. Like the other routes outside the alphas
(`/v1/benchmarks/...`, `/v1/admin/...`), its path starts with its group.

The rows are the `/metrics` headline figures of each alpha, so a key also needs
`performance.metrics`, the route that serves them (else 403 naming it, as a collection built from
data the key may not read). The candidates are the alphas both allow-lists of the key admit; the
statement (`datasets.screener`) sees nothing else, so the total, the rows and the errors
never name or count another alpha. The handler parses, authorises and asks: the answer is
`analytics.screen`'s, as a notebook's (`analytics.figures.Figures.screen`).
"""

from __future__ import annotations

from anyio import to_thread
from litestar import Response
from msgspec import UNSET

from analytics import screen
from analytics.access import require_readable
from analytics.correlation import BASES
from analytics.entries import Warnings
from analytics.reading import catalogue_tag
from datasets.screener import Page
from schemas.bodies.envelope import Collection
from schemas.bodies.rows import ScreenRow
from schemas.query import ScreenQuery
from schemas.wire import BENCHMARK_ENDPOINT
from serve import errors
from serve.envelope import with_warnings
from serve.readable import readable_mask
from serve.resolve import resolve_run
from serve.routes.base import Context, Ctx
from serve.routes.declare import route

FIGURES_ENDPOINT = "performance.metrics"
"""The route that serves the figures the screener filters on and returns."""
CORRELATION_ENDPOINT = "analytics.correlation"
"""The route that serves the correlations `max_correlation` bounds."""


def correlated(ctx: Context, args: ScreenQuery) -> str | None:
    """With `max_correlation`, the key needs `analytics.correlation` and the data of the basis
    (else 403 naming the route); the alpha `correlated_to` names is authorised and found as on its
    own routes (403, 404). None: no such alpha named (the production set is compared with)."""
    if args.max_correlation is None:
        return None
    if not ctx.caller.may_call(CORRELATION_ENDPOINT):
        raise errors.EndpointNotAllowed(
            f"max_correlation is a correlation figure; it needs {CORRELATION_ENDPOINT}.",
            details={"endpoint": CORRELATION_ENDPOINT},
        )
    require_readable(ctx.access, BASES[args.correlation_basis].data)
    if args.correlated_to is None:
        return None
    return resolve_run(ctx.caller, ctx.reader, args.correlated_to).alpha_id


@route(
    "analytics.screen",
    "/v1/analytics/screen",
    "Alphas the key may read, filtered and sorted on their headline figures and classification",
    meta=("reference",),
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
    index = screen.require_index(catalogue)
    warnings = Warnings()
    # Fields built from data the key may not read: null, with a warning, and no filter or sort on them.
    hidden = screen.withheld_fields(args, ctx.access, warnings)
    readable = readable_mask(ctx.caller, catalogue)
    screen.standings_wanted(args)  # a bad `standing` is a 400 before the records are read
    standings = await ctx.standings()
    if not set(screen.RESIDUAL_FIELDS) <= hidden.keys():  # not already withheld with the ledger's fields
        hidden |= screen.residual_withheld(
            args, catalogue, readable, standings.approved, ctx.caller.may_call(BENCHMARK_ENDPOINT), warnings
        )
    named = correlated(ctx, args)
    compared = screen.compared_set(snapshot, args, named, readable, standings.approved)
    filters = screen.candidate_filters(snapshot, args, named, compared)
    # Every figure, matrix row and position an answer holds is of a build of an alpha the key
    # reads: the tag and `meta.source` name those builds alone (a 304 stands for the same body);
    # the standings those alphas have are the records' part of it.
    version = catalogue_tag(catalogue, readable)
    ctx.validate_with(f"screen:{version}:{standings.tag(catalogue, readable)}")
    page: Page = await to_thread.run_sync(
        screen.screen_page, snapshot, index, args, readable, filters, hidden, standings
    )
    meta = ctx.meta(
        source=f"lake:catalogue_index@{version}", reference=UNSET if compared is None else compared.origin
    )
    meta = with_warnings(meta, list(warnings.entries))
    return ctx.collection(page, args.limit, args.offset, meta)


ROUTES = [screen_alphas]
