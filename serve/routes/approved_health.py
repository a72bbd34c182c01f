"""`/v1/analytics/approved_health`: is every approved alpha still working? (docs/analytics.md,
"The approved book's health"). Computed over the approved alphas the key may read, never another,
not even their count (`Reading.approved_health`; a notebook's `Figures.approved_health`); each
figure of a row is its own route's answer in the key's scope, null with the reason when the key
may not call that route.
"""

from __future__ import annotations

from litestar import Response

from analytics.reading import Reading
from schemas.bodies.approved_health import ApprovedHealth
from schemas.bodies.envelope import Single
from schemas.query import ApprovedHealthQuery
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "analytics.approved_health",
    "/v1/analytics/approved_health",
    "Is every approved alpha still working? Live track against expectation, CUSUM, false discovery",
    documented=(
        "Every approved alpha in force the key may read, alarms first: its live information ratio (/analytics/live "
        "at its approval, measured from 63 sessions) against /analytics/decay's expected live information ratio and "
        "the 90% interval an alpha performing as expected shows over as many sessions, with its percentile; the "
        "CUSUM of /analytics/monitoring (state of both charts, statistic, last alarm) with the operator's chart and "
        "its false-alarm rate; the posterior probability that its approval was a false discovery (López de Prado, "
        "Lipton and Zoonekynd 2025), the prior estimated from this deployment's decisions and live outcomes or the "
        "paper's below 10 of them; and /analytics/mmc's mmc_mean and correlation_to_combined_mean over the whole "
        "history. Needs portfolio.ledger; mmc figures signals.scores or signals.rebalances.get"
    ),
)
async def get_approved_health(ctx: Ctx[ApprovedHealthQuery]) -> Response[Single[ApprovedHealth]]:
    return await ctx.over_catalogue("approved_health", Reading.approved_health)


ROUTES = [get_approved_health]
