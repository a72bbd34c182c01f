"""`/analytics/risk`: benchmark-relative and tail figures of one book against the market benchmark
(docs/analytics.md, "Risk").

Authorised and resolved first, as every run-scoped route; then the parameters (a 400 before a 503
about the build's age) and the book. The benchmark's series is read only for a key that may call
`benchmarks.daily` (the figures built from it are withheld otherwise), and the answer's `ETag` then
depends on both builds.
"""

from __future__ import annotations

from typing import Any

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from datasets import answers
from schemas.bodies.analytics import WINDOW
from schemas.bodies.decisions import RISK_MIN_SESSIONS, RISK_MIN_TAIL_SESSIONS, Risk
from schemas.bodies.envelope import Single
from schemas.query import RiskQuery
from schemas.wire import MARKET_BENCHMARK
from serve.envelope import single, with_warnings
from serve.routes.base import Ctx
from serve.routes.declare import route


@route(
    "analytics.risk",
    "/v1/alphas/{alpha:str}/analytics/risk",
    "Benchmark-relative and tail figures of a book against " + MARKET_BENCHMARK,
    documented=(
        f"Benchmark-relative (against {MARKET_BENCHMARK}) and tail figures of the book's daily returns over "
        + WINDOW
        + "; r = ending_equity / starting_equity - 1 of the book's sessions in the window. Annualised "
        f"figures need {RISK_MIN_SESSIONS} sessions, tail figures {RISK_MIN_TAIL_SESSIONS}; a window holding "
        f"fewer than {RISK_MIN_SESSIONS} sessions of the book (none included) is a 400 naming from and/or to "
        "when the whole history holds more. Every figure needs portfolio.ledger, the benchmark block also "
        "benchmarks.daily"
    ),
)
async def get_risk(ctx: Ctx[RiskQuery], alpha: FromPath[str]) -> Response[Single[Risk]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    # About 2.5 ms of numpy over ten years of sessions (measured on a loaded machine): in a worker
    # thread, as significance, not on the event loop.
    answer = await to_thread.run_sync(ctx.reading().risk, build, args)
    # The answer depends on the run's build and, for a key that may read it, the benchmark's.
    ctx.validate_with(answer.version)
    entries = [*answer.warnings, *answers.missing_kinds(build, ("portfolio",), answers.BUILT_EMPTY)]
    return single(answer.data, with_warnings(ctx.run_meta(build, "portfolio", book=args.book), entries))


ROUTES: list[Any] = [get_risk]
