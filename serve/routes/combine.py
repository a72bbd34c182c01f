"""`/v1/analytics/combine` (a weighted book of alphas) and
`/v1/alphas/{alpha}/analytics/contribution` (what adding the alpha does to a reference set),
docs/analytics.md "Combination" and "Marginal contribution".

Both read the set's daily long_short returns from the catalogue's returns matrix (one row per
alpha, one column per session: a set of 50 among 10,000 alphas is 50 rows of a memory-mapped
file), never opening a build. The set's rules are one (`serve.analytics.sets`): the list, then
authorisation of every id before any lookup, then lookup, then data. The returns are the ledger's,
so a key that may not read the ledger gets 403 naming the route it needs, as every collection
built from it.

Combine is JSON only (its Struct has no `format`): its meta holds the weights, the figures and
the correlation matrix, which a columnar page could only carry in headers.
"""

from __future__ import annotations

import datetime as dt
import math
from functools import partial

import pyarrow.compute as pc
from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics import sets
from analytics.access import require_readable
from analytics.combination import NotCombinable
from analytics.combined import Combined, Weighting, combined, production_of, set_returns, turnover_of
from analytics.contribution import contribution, reference_book, weighted_book
from analytics.entries import Warnings, window_echo
from datasets.catalogue_snapshot import CatalogueSnapshot
from datasets.faults import CatalogueIncomplete
from datasets.queries import Page, Window
from datasets.series import BenchmarkSeries, benchmark_series
from datasets.served import Catalogue
from schemas import choices
from schemas.bodies.analytics import SET_SESSIONS
from schemas.bodies.decisions import Contribution
from schemas.bodies.envelope import BenchmarkEcho, Collection, Single
from schemas.bodies.rows import CombinedRow
from schemas.query import MAX_REFERENCES, MAX_SET, MAX_WEIGHT, CombineQuery, ContributionQuery
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK
from serve import errors
from serve.envelope import single, with_warnings
from serve.params import NUMBER_PATTERN
from serve.readable import catalogue_tag, readable_ids, readable_mask, whole_catalogue
from serve.routes.base import Context, Ctx
from serve.routes.declare import route

BOOK = choices.DEFAULT_BOOK


def _weights(text: str, count: int, name: str) -> tuple[tuple[float, ...] | None, str | None]:
    """`weights=`: one plain decimal per alpha of the set `name`, finite, each |w| <= MAX_WEIGHT,
    not all zero (sum |w| > 0); or the rule it breaks."""
    # The number rule of every numeric parameter (ASCII digits: `\d` would take any Unicode digit).
    items = text.split(",")
    if any(not NUMBER_PATTERN.fullmatch(item) for item in items):
        return None, "comma-separated plain decimals, one per alpha (no nan, inf or empty item)"
    values = tuple(float(item) for item in items)
    if not all(math.isfinite(v) for v in values):
        return None, "every weight must be finite"
    if len(values) != count:
        return None, f"needs one weight per alpha of `{name}` ({count}), got {len(values)}"
    if any(abs(v) > MAX_WEIGHT for v in values):
        return (
            None,
            f"each weight must lie in [-{MAX_WEIGHT:g}, {MAX_WEIGHT:g}] (a fraction of the book's capital)",
        )
    if not any(values):
        return None, "the weights are all zero (sum |w| must be above 0): the book would hold nothing"
    return values, None


def weighting_of(
    args: CombineQuery | ContributionQuery,
    method: str | None,
    ids: tuple[str, ...] | None,
    name: str,
    problems: dict[str, str],
) -> Weighting | None:
    """The weighting of the set `name` (`alphas` of combine, `reference` of contribution) from the
    `weighting` (`method`), `weights`, `shrinkage` and `fit_to` parameters, one rule for both
    routes; each broken one is added to `problems`. `ids`: the set, None when its list is broken
    (the weights are then not counted). None: no weighting asked (a contribution's book as it
    grew)."""
    weights, shrinkage, fit_to = args.weights, args.shrinkage, args.fit_to
    shown = "absent" if method is None else method
    given = None
    if weights is not None:
        if method != "given":
            problems["weights"] = f"only with weighting=given (weighting is {shown})"
        elif ids is not None:
            given, rule = _weights(weights, len(ids), name)
            if rule is not None:
                problems["weights"] = rule
    elif method == "given":
        problems["weights"] = f"required with weighting=given: one weight per alpha, in the order of `{name}`"
    if shrinkage is not None and method != "max_ir":
        problems["shrinkage"] = f"only with weighting=max_ir (weighting is {shown})"
    if fit_to is not None:
        rule = _fit_to_rule(fit_to, method, shown, args.start, args.end)
        if rule is not None:
            problems["fit_to"] = rule
    return None if method is None else Weighting(method, given, shrinkage, fit_to)


def _fit_to_rule(
    fit_to: dt.date, method: str | None, shown: str, start: dt.date | None, end: dt.date | None
) -> str | None:
    """The rule `fit_to` breaks before any data is read (None: none): only a fitted weighting has
    weights to fit, and the date must leave the window sessions on both sides (the counts are
    checked on the set's sessions, `combined.split_at_fit`)."""
    if method not in choices.FITTED_WEIGHTINGS:
        fitted = " or ".join(choices.FITTED_WEIGHTINGS)
        return f"only with weighting={fitted} (weighting is {shown}): equal and given weights are not fitted"
    if start is not None and fit_to < start:
        return f"must lie in the window: on or after from ({start.isoformat()}); the weights are fitted on the window's sessions up to it"
    if end is not None and fit_to >= end:
        return f"must lie in the window: before to ({end.isoformat()}); the sessions after it are the ones judged"
    return None


def _combine_parameters(args: CombineQuery) -> tuple[tuple[str, ...], Weighting]:
    """The set and the weighting, or one 400 naming every broken parameter."""
    ids, problem = sets.listed(args.alphas, "alphas", 2, MAX_SET)
    problems = {} if problem is None else {"alphas": problem}
    weighting = weighting_of(args, args.weighting, ids if problem is None else None, "alphas", problems)
    if problems:
        raise errors.bad_parameters(problems)
    assert weighting is not None  # combine's weighting has a default
    return ids, weighting


def _combination(
    snapshot: CatalogueSnapshot,
    ids: tuple[str, ...],
    window: Window,
    weighting: Weighting,
    benchmark: BenchmarkSeries | None,
    warnings: Warnings,
) -> Combined:
    """Runs in a worker thread: the matrix is mapped and sliced there."""
    catalogue = snapshot.catalogue
    rows = sets.matrix_rows(snapshot.matrix("returns"), ids, "alphas")
    found = set_returns(snapshot, rows, ids, window, "alphas")
    try:
        return combined(
            found, weighting, turnover_of(catalogue, ids), benchmark, production_of(catalogue, ids), warnings
        )
    except NotCombinable as exc:
        raise errors.bad_parameters({"alphas": f"cannot be combined by {weighting.method}: {exc}"}) from exc


@route(
    "analytics.combine",
    "/v1/analytics/combine",
    "A weighted combination of alphas: its daily series, figures, weights and correlations",
    meta=(
        "window",
        "benchmark",
        "alphas",
        "weighting",
        "shrinkage",
        "weights",
        "fit",
        "sessions",
        "session_rule",
        "figures",
        "correlation",
    ),
    documented="One row per session of the combined long_short book, " + SET_SESSIONS,
)
async def combine_alphas(ctx: Ctx[CombineQuery]) -> Response[Collection[CombinedRow]]:
    args = ctx.args()
    ids, weighting = _combine_parameters(args)
    require_readable(ctx.access, "ledger")
    snapshot = ctx.reader.snapshot()
    catalogue = snapshot.catalogue
    sets.admitted(ctx.caller.may_read, catalogue, ids, "alphas")
    warnings = Warnings()
    spy = None
    if ctx.caller.may_call(BENCHMARK_ENDPOINT):
        spy = benchmark_series(await ctx.open_benchmark(MARKET_BENCHMARK), MARKET_BENCHMARK)
    else:
        withheld_benchmark(warnings)
    window: Window = (args.start, args.end)
    # The answer depends on the set's builds (their index rows and matrix rows), the benchmark's build and
    # the parameters: never on another alpha.
    version = catalogue_tag(
        catalogue,
        sets.set_mask(catalogue, ids),
        "combine",
        ",".join(ids),
        weighting.method,
        repr(weighting.given),
        repr(weighting.shrinkage),
        repr(weighting.fit_to),
        repr(window),
        "spy:" + ("withheld" if spy is None else spy.build_id),
        repr(sorted(catalogue.generation.matrices) if catalogue.generation else None),
    )
    ctx.validate_with("combine:" + version)
    found = await to_thread.run_sync(partial(_combination, snapshot, ids, window, weighting, spy, warnings))
    meta = ctx.meta(
        source=f"lake:catalogue_index@{version}",
        book=BOOK,
        window=window_echo(window),
        benchmark=None if spy is None else BenchmarkEcho(symbol=spy.symbol, basis=spy.basis),
        **found.meta,
    )
    page = Page(found.rows(args.limit, args.offset), int(found.days.size))
    return ctx.collection(page, args.limit, args.offset, with_warnings(meta, list(warnings.entries)))


def withheld_benchmark(warnings: Warnings) -> None:
    """The warning of a combination whose key may not read the benchmark's series."""
    warnings.add(
        "access_limited",
        f"benchmark_cumulative_return is built from {MARKET_BENCHMARK}'s daily series, which this key may not "
        f"read ({BENCHMARK_ENDPOINT}): it is null on every row.",
        block="benchmark_cumulative_return",
    )


# -- contribution ---------------------------------------------------------------------------------


def _production_reference(ctx: Context, catalogue: Catalogue, alpha: str) -> tuple[str, ...]:
    """Every production alpha the key may read, the alpha excepted; 400 asking for `reference`
    beyond MAX_REFERENCES or when there is none."""
    whole_catalogue(ctx.caller, catalogue)  # a production alpha it may read could be missing
    index = catalogue.index
    if index is None:
        raise CatalogueIncomplete(
            "The lake has no catalogue index, which the contribution is read from; an operator writes it with "
            "`alpha-results lake index`."
        )
    produced = index.filter(pc.fill_null(index.column("production"), False)).column("alpha_id")
    allowed = readable_ids(catalogue, readable_mask(ctx.caller, catalogue))
    found = tuple(a for a in produced.filter(pc.is_in(produced, value_set=allowed)).to_pylist() if a != alpha)
    if len(found) > MAX_REFERENCES:
        raise errors.bad_parameters(
            {
                "reference": f"required here: the production set you may read holds {len(found):,} alphas, above "
                f"the {MAX_REFERENCES:,} a contribution compares with by default"
            }
        )
    if not found:
        raise errors.bad_parameters(
            {"reference": "required here: you may read no production alpha besides this one"}
        )
    return found


def _contribution_parameters(
    args: ContributionQuery,
) -> tuple[tuple[str, ...] | None, Weighting | None]:
    """The reference set named (None: the production default) and its weighting (None: the book
    as it grew), or one 400 naming every broken parameter."""
    problems: dict[str, str] = {}
    given: tuple[str, ...] | None = None
    if args.reference is not None:
        given, problem = sets.listed(args.reference, "reference", 1, MAX_SET)
        if problem is not None:
            problems["reference"] = problem
    elif args.weighting is not None:
        problems["reference"] = (
            "required with weighting: the reference set to combine as /analytics/combine combines it"
        )
    weighting = weighting_of(args, args.weighting, None if problems else given, "reference", problems)
    if problems:
        raise errors.bad_parameters(problems)
    return given, weighting


def _contribution(
    snapshot: CatalogueSnapshot,
    alpha: str,
    reference: tuple[str, ...],
    source: str,
    excluded: bool,
    window: Window,
    weighting: Weighting | None,
    weight: float | None,
    warnings: Warnings,
) -> Contribution:
    """Runs in a worker thread. Without a weighting the reference book grows as its alphas'
    histories start (not the intersection a combination uses: its weights are fixed per alpha, a
    production book's are not); with one it is the set combined as /analytics/combine combines it."""
    if weighting is None:
        found = reference_book(snapshot, alpha, reference, window)
    else:
        found = weighted_book(snapshot, alpha, reference, window, weighting, warnings)
    return contribution(alpha, reference, source, excluded, window, found, weight)


@route(
    "analytics.contribution",
    "/v1/alphas/{alpha:str}/analytics/contribution",
    "What adding the alpha does to a reference set's figures",
    documented=(
        "A reference set's equally weighted long_short book before and after adding the alpha at weight w, "
        "over the window's sessions on which the alpha has a return and at least one reference alpha does; on "
        "each, the reference book holds the reference alphas with a return that session (the book as it grew). "
        "With a weighting, the reference book is instead the set combined as /analytics/combine combines it"
    ),
)
async def get_contribution(
    ctx: Ctx[ContributionQuery], alpha: FromPath[str]
) -> Response[Single[Contribution]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    given, weighting = _contribution_parameters(args)
    require_readable(ctx.access, "ledger")
    snapshot = ctx.reader.snapshot()
    catalogue = snapshot.catalogue
    alpha = build.alpha_id
    if given is not None:
        sets.admitted(ctx.caller.may_read, catalogue, given, "reference")
        reference = tuple(a for a in given if a != alpha)
        excluded = len(reference) < len(given)
        if not reference:
            raise errors.bad_parameters(
                {"reference": "names only the alpha itself; name at least one other alpha"}
            )
        if excluded and weighting is not None and weighting.method == "given":
            raise errors.bad_parameters(
                {
                    "reference": "names the alpha itself, which weighting=given cannot leave out (the weights "
                    "would no longer be the set's); name the set without it, and its weights"
                }
            )
        source = "given"
    else:
        reference = _production_reference(ctx, catalogue, alpha)
        index = catalogue.index
        assert index is not None
        own = index.filter(pc.equal(index.column("alpha_id"), alpha)).column("production").to_pylist()
        excluded = bool(own and own[0])
        source = "production"
    window: Window = (args.start, args.end)
    version = catalogue_tag(
        catalogue,
        sets.set_mask(catalogue, (alpha, *reference)),
        "contribution",
        alpha,
        source,
        ",".join(reference),
        repr(args.weight),
        repr(window),
        repr(sorted(catalogue.generation.matrices) if catalogue.generation else None),
        *(
            ()
            if weighting is None
            else (weighting.method, repr(weighting.given), repr(weighting.shrinkage), repr(weighting.fit_to))
        ),
    )
    ctx.validate_with("contribution:" + version)
    warnings = Warnings()
    compute = partial(
        _contribution, snapshot, alpha, reference, source, excluded, window, weighting, args.weight, warnings
    )
    data = await to_thread.run_sync(compute)
    meta = ctx.run_meta(build, "catalogue_index")
    meta["source"] = f"lake:catalogue_index@{version}"
    return single(data, with_warnings(meta, list(warnings.entries)))


ROUTES = [combine_alphas, get_contribution]
