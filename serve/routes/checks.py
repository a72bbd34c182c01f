"""`/analytics/checks`: pass/fail checks of one alpha and book against the operator's policy
(docs/analytics.md "Checks"; the battery in `analytics.checks`, the policy in
`analytics.policy`); `/analytics/promotion_preview`: what the alpha's next decision would record
and change (`analytics.promotion`, the computation `alpha-results promote --dry-run` prints).

Authorised and resolved first, as every run-scoped route; then the parameters; then the answer,
`analytics.reading.Reading.checks` in the key's scope (a bound looser than the policy is a 400; the
DSR's trials, the approved alphas the key may read, SPY's series), given the alpha's latest
approval, where the live checks' part starts (as `/analytics/live`'s split).
"""

from __future__ import annotations

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics.promotion import next_action
from datasets import answers
from schemas.bodies.analytics import WINDOW
from schemas.bodies.decisions import Checks
from schemas.bodies.envelope import Single
from schemas.bodies.promotions import PromotionPreview
from schemas.query import ChecksQuery, PromotionPreviewQuery
from serve.envelope import single, with_warnings
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "analytics.checks",
    "/v1/alphas/{alpha:str}/analytics/checks",
    "Pass/fail checks of a book against the operator's policy",
    documented=(
        "Pass/fail checks of the alpha and book against the operator's policy (modelled on WorldQuant BRAIN's "
        "submission checks), over "
        + WINDOW
        + "; the request's min_/max_ parameters may only tighten the policy"
    ),
)
async def get_checks(ctx: Ctx[ChecksQuery], alpha: FromPath[str]) -> Response[Single[Checks]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    answer = await to_thread.run_sync(ctx.reading().checks, build, args)
    ctx.validate_with(answer.version)
    missing = answers.missing_kinds(
        build, ("portfolio", "positions", "decisions"), "what is built from it is null"
    )
    meta = with_warnings(ctx.run_meta(build, "portfolio"), [*answer.warnings, *missing])
    return single(answer.data, meta)


@route(
    "analytics.promotion_preview",
    "/v1/alphas/{alpha:str}/analytics/promotion_preview",
    "What approving (or retiring) the alpha would record and change, read-only",
    documented=(
        "What the alpha's next decision (alpha-results promote, or retire when it stands approved) would "
        "record and change, before anything is recorded: dated today (a decision is dated when it is "
        "recorded; `effective` previews an import of one taken elsewhere on an earlier day), the verdict of "
        "its long_short checks, each check and why, the approved set every other alpha's default reference "
        "set is drawn from, before and after, each reference-set check of the live book that moves, and "
        "every other alpha whose reference-set verdict flips; in the key's scope (an alpha it may not read is "
        "neither named nor counted). Read-only: the decision is recorded by the command it names"
    ),
)
async def get_promotion_preview(
    ctx: Ctx[PromotionPreviewQuery], alpha: FromPath[str]
) -> Response[Single[PromotionPreview]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    reading = ctx.reading()
    history = await ctx.promotions(build.alpha_id)
    latest = history[-1] if history else None
    answer = await to_thread.run_sync(
        reading.promotion_preview, build, args, next_action(latest), None if latest is None else latest.as_of
    )
    ctx.validate_with(answer.version)
    missing = answers.missing_kinds(
        build, ("portfolio", "positions", "decisions"), "what is built from it is null"
    )
    meta = with_warnings(ctx.run_meta(build, "portfolio"), [*answer.warnings, *missing])
    return single(answer.data, meta)


ROUTES = [get_checks, get_promotion_preview]
