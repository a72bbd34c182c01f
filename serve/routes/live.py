"""`/analytics/live`: one book's in-sample and out-of-sample parts side by side (docs/analytics.md,
"Live against backtest").

Authorised and resolved first, as every run-scoped route; then the parameters and the book; then
the alpha's latest approval from the records (its `as_of` is the split unless the request names
one), so the answer's `ETag` depends on the build and on that approval.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics import inputs
from analytics.entries import Warnings
from analytics.live import live_payload, split_of
from datasets import answers
from schemas.bodies.envelope import Single
from schemas.bodies.live import LIVE_MIN_SESSIONS, Live
from schemas.query import LiveQuery
from serve.envelope import single, with_warnings
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "analytics.live",
    "/v1/alphas/{alpha:str}/analytics/live",
    "In-sample against out-of-sample of a book (live against backtest)",
    documented=(
        "The book's in-sample and out-of-sample parts side by side: sessions on or before the split date are "
        "in-sample, after it out-of-sample. The split is the request's `split`, else the alpha's latest "
        "approval (`as_of`), else its seal's research_cutoff, else the date the catalogue first published it "
        "(split_origin). Each part's information ratio, excess Sharpe ratio, mean IC, annualised ICIR, hit rate, "
        "max drawdown and turnover; the decay ratio (out-of-sample IR over in-sample IR) and the probabilistic "
        "Sharpe ratio of the out-of-sample part against the in-sample Sharpe ratio, both not measurable below "
        f"{LIVE_MIN_SESSIONS} out-of-sample sessions. Ledger figures need portfolio.ledger, IC figures "
        "signals.rebalances.get or signals.scores"
    ),
)
async def get_live(ctx: Ctx[LiveQuery], alpha: FromPath[str]) -> Response[Single[Live]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    inputs.require_built(build)
    book = ctx.book(build, "portfolio", args.book)
    approval = await ctx.approval(build.alpha_id)
    if approval is not None:
        # The answer depends on the build and on the approval (replaces the tag open_run set).
        ctx.validate_with(f"{build.build_id}+approval-{approval.id}")
    split = split_of(build, None if approval is None else approval.as_of, args.split)
    warnings = Warnings()
    compute = partial(live_payload, build, book, split, ctx.access, warnings)
    data = await to_thread.run_sync(compute)
    entries = [*warnings.entries, *answers.missing_kinds(build, ("portfolio",), answers.BUILT_EMPTY)]
    return single(data, with_warnings(ctx.run_meta(build, "portfolio", book=book), entries))


ROUTES: list[Any] = [get_live]
