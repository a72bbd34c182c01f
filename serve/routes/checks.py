"""`/analytics/checks`: pass/fail checks of one alpha and book against the operator's policy
(docs/analytics.md "Checks"; the battery in `analytics.checks`, the policy in
`analytics.policy`).

Authorised and resolved first, as every run-scoped route; then the parameters (a bound looser than
the policy is a 400); then the build and the catalogue figures the battery reads: the DSR's trials
(`Seen`, as significance) and the production alphas the key may read (as correlation, never
counting or naming another), which the residual information ratio is regressed on with SPY; and
the alpha's latest approval, where the live checks' part starts (as `/analytics/live`'s split).
"""

from __future__ import annotations

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics import inputs, residual, significance
from analytics.checks import (
    CORRELATION_ENDPOINT,
    POSITIONS_ENDPOINT,
    RESIDUAL_ENDPOINT,
    Production,
    checks_payload,
    positions_refused,
    production_references,
    production_refused,
    residual_refused,
)
from analytics.entries import Warnings
from analytics.residual import Basis
from datasets import answers
from datasets.faults import BenchmarkMissing
from datasets.series import benchmark_series
from schemas.bodies.analytics import WINDOW
from schemas.bodies.decisions import Checks
from schemas.bodies.envelope import Single
from schemas.query import ChecksQuery
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK
from serve.envelope import single, with_warnings
from serve.readable import catalogue_tag, readable_mask, whole_catalogue
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
    policy = ctx.policy
    thresholds = policy.tightened(args)
    inputs.require_built(build)
    book = ctx.book(build, "portfolio", args.book)
    access = ctx.access
    snapshot = ctx.reader.snapshot()
    catalogue = snapshot.catalogue
    whole_catalogue(ctx.caller, catalogue)
    trials = await to_thread.run_sync(snapshot.trials)
    readable = readable_mask(ctx.caller, catalogue)
    seen = significance.seen(trials, readable, build.alpha_id)
    standings = await ctx.standings()
    reference = production_references(catalogue, readable, build.alpha_id, standings.approved)
    warnings = Warnings()
    refused = production_refused(access, ctx.caller.may_call(CORRELATION_ENDPOINT), warnings)
    positions = positions_refused(ctx.caller.may_call(POSITIONS_ENDPOINT), warnings)
    approval = await ctx.approval(build.alpha_id)
    approved = None if approval is None else approval.as_of
    market_readable = ctx.caller.may_call(BENCHMARK_ENDPOINT)
    residual_why = residual_refused(access, ctx.caller.may_call(RESIDUAL_ENDPOINT), market_readable, warnings)
    market = None
    if residual_why is None:
        try:
            market = benchmark_series(await ctx.open_benchmark(MARKET_BENCHMARK), MARKET_BENCHMARK)
        except BenchmarkMissing as exc:  # one check without SPY, not the battery
            residual_why = residual.market_missing(exc)
    # The answer depends on the build, the policy, the trials it is given, the builds of the
    # production alphas the key may read, the approval (the live checks' split), and what the key
    # may read; nothing else.
    ctx.validate_with(
        "+".join(
            (
                build.build_id,
                policy.tag(),
                seen.tag(),
                catalogue_tag(catalogue, reference.mask, "checks.production", reference.origin, "returns"),
                "approval-none" if approval is None else f"approval-{approval.id}",
                "market-none" if market is None else f"market-{market.build_id}",
                f"{int(access.ledger)}{int(access.cross_sections)}{int(refused is None)}{int(positions is None)}"
                f"{int(residual_why is None)}",
            )
        )
    )

    def compute() -> Checks:
        # In the worker thread: mapping the catalogue's matrix may read files.
        needed = refused is None or residual_why is None
        matrix = snapshot.matrix("returns") if needed else None
        production = Production(None if refused else matrix, reference.alphas, refused, reference.origin)
        basis = Basis(matrix, residual.as_reference(reference), market, residual_why)
        return checks_payload(
            build,
            book,
            (args.start, args.end),
            thresholds,
            policy,
            seen,
            production,
            access,
            positions,
            warnings,
            approved,
            basis,
        )

    data = await to_thread.run_sync(compute)
    missing = answers.missing_kinds(
        build, ("portfolio", "positions", "decisions"), "what is built from it is null"
    )
    meta = with_warnings(ctx.run_meta(build, "portfolio"), [*warnings.entries, *missing])
    return single(data, meta)


ROUTES = [get_checks]
