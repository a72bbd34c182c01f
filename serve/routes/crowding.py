"""`/v1/alphas/{alpha}/analytics/mmc` (what the alpha's scores add to the approved alphas'
combined scores: Numerai's meta-model contribution) and `/v1/analytics/crowding` (how alike the
approved books are), docs/analytics.md "Meta-model contribution and crowding".

Both are computed over the approved alphas the key may read, never another (`Reading.mmc`,
`.crowding`; a notebook's `Figures.mmc`, `.crowding`): their scores and target weights are the
rebalance cross-sections, so a key that may not read them gets 403 naming the route it needs.
"""

from __future__ import annotations

from litestar import Response

from analytics.reading import Reading
from schemas.bodies.envelope import Single
from schemas.bodies.mmc import OVERLAP_RULE, Crowding
from schemas.query import WindowQuery
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "analytics.crowding",
    "/v1/analytics/crowding",
    "How alike the approved books are: name and weight overlap, shared factor loadings",
    documented=OVERLAP_RULE,
)
async def get_crowding(ctx: Ctx[WindowQuery]) -> Response[Single[Crowding]]:
    return await ctx.over_catalogue("crowding", Reading.crowding)


ROUTES = [get_crowding]
