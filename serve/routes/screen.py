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

from functools import partial
from typing import Any

from anyio import to_thread
from litestar import Response
from msgspec import UNSET

from datasets.queries import TablePage
from schemas.bodies.envelope import Collection
from schemas.bodies.rows import ScreenRow
from schemas.query import ScreenQuery
from serve import representation
from serve.envelope import with_warnings
from serve.routes.base import Context, Ctx
from serve.routes.declare import route
from serve.scope.resolve import resolve_run


@route(
    "analytics.screen",
    "/v1/analytics/screen",
    "Alphas the key may read, filtered and sorted on their headline figures and classification",
    meta=("reference",),
)
async def screen_alphas(ctx: Ctx[ScreenQuery]) -> Response[Collection[ScreenRow]]:
    args = ctx.args()
    reading = ctx.reading()
    # The alpha `correlated_to` names is authorised and found as on its own routes (403, 404).
    resolve = partial(_resolved, ctx)

    def screened() -> Any:
        found = reading.screen(args, resolve)
        page = found.data.page
        if isinstance(page, TablePage) and ctx.representation in (None, representation.JSON):
            page.rows  # noqa: B018 (made here, in the thread: 5,000 rows took the event loop 50 ms and more)
        return found

    answer = await to_thread.run_sync(screened)
    ctx.validate_with(f"screen:{answer.version}")
    compared = answer.data.compared
    meta = ctx.meta(
        source=f"lake:catalogue_index@{answer.data.builds}",
        reference=UNSET if compared is None else compared.origin,
    )
    return ctx.collection(answer.data.page, args.limit, args.offset, with_warnings(meta, answer.warnings))


def _resolved(ctx: Context, alpha: str) -> str:
    return resolve_run(ctx.caller, ctx.reader, alpha).alpha_id


ROUTES = [screen_alphas]
