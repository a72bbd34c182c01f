"""`/v1/alphas` (the catalogue) and `/v1/alphas/{alpha}` (the written description)."""

from __future__ import annotations

from functools import partial

import pyarrow as pa
from anyio import to_thread
from litestar import Response
from litestar.params import FromPath

from analytics.reading import catalogue_tag
from core import errors
from datasets import answers
from datasets.queries import Page, page_of
from delivery.event_answers import Viewer, shown_snapshot
from records.answers import promotions_of
from schemas.bodies.description import AlphaDescription
from schemas.bodies.envelope import Collection, Single
from schemas.bodies.overfitting import FamilyMemberRow
from schemas.bodies.promotions import Promotions
from schemas.bodies.restatements import RestatementRow
from schemas.bodies.review import ReviewQueue
from schemas.bodies.rows import AlphaListRow
from schemas.query import AsOfQuery, CatalogueQuery, FamiliesQuery, WindowPageQuery
from serve.envelope import single
from serve.routes.base import Ctx
from serve.routes.declare import route
from serve.scope.readable import admitted_mask


@route("catalog.alphas.list", "/v1/alphas", "List of alphas")
async def list_alphas(ctx: Ctx[CatalogueQuery]) -> Response[Collection[AlphaListRow]]:
    args = ctx.args()
    complete_only, limit, offset = args.complete_only, args.limit, args.offset

    needle = args.search.casefold() if args.search else None
    catalogue = ctx.reader.catalogue()
    listing = catalogue.listing
    assert listing is not None  # every catalogue read from the lake has one
    # Each row says where its alpha stands (the records: 503 when they cannot be read).
    standings = await ctx.standings()
    # Only alphas the key may read are listed: the catalogue reveals nothing the key cannot open,
    # and its tag moves with those alphas' builds and standings alone.
    mask = admitted_mask(catalogue, ctx.caller.alphas)
    ctx.validate_with(f"catalog:{catalogue_tag(catalogue, mask)}:{standings.tag(catalogue, mask)}")

    def rows_of() -> tuple[Page, list[dict[str, object]]]:
        # In a worker thread: a page of 5,000 rows took the event loop 50 ms (issue 60).
        positions = listing.select(None if mask.all() else pa.array(mask), complete_only, needle)
        page = page_of(positions, limit, offset)
        return page, [row | standings.columns(row["alpha_id"]) for row in listing.rows(page.rows)]

    page, rows = await to_thread.run_sync(rows_of)
    meta = ctx.meta(source="lake:catalog")
    return ctx.collection(Page(rows, page.total), limit, offset, meta)


@route(
    "catalog.families.list",
    "/v1/families",
    "Trial families and their members the key may read",
    documented=(
        'The catalogue grouped by the trial family each seal names (docs/seal.md "Trial families"): one row per '
        "member the key may read, by family slug, then in catalogue order, with its parameters; paged, and "
        "`family` keeps one family's members. A member the key may not read is neither named nor counted; "
        "/analytics/overfitting computes a family's probability of backtest overfitting over the same members"
    ),
)
async def list_families(ctx: Ctx[FamiliesQuery]) -> Response[Collection[FamilyMemberRow]]:
    args = ctx.args()
    answer = await to_thread.run_sync(ctx.reading().families, args)
    ctx.validate_with(answer.version)
    return ctx.collection(answer.data, args.limit, args.offset, ctx.meta(source="lake:catalogue_index"))


@route(
    "catalog.alphas.get",
    "/v1/alphas/{alpha:str}",
    "Written description of one alpha",
)
async def get_alpha(ctx: Ctx[AsOfQuery], alpha: FromPath[str]) -> Response[Single[AlphaDescription]]:
    build = await ctx.open_alpha(alpha)
    ctx.args()
    description = answers.description(build)
    if description is None:
        raise errors.AlphaDescriptionNotFound(
            f"The run {alpha!r} sealed no written description; its data endpoints still answer.",
            details={"alpha": alpha},
        )
    return single(description, ctx.run_meta(build, "description"))


@route(
    "catalog.alphas.promotions",
    "/v1/alphas/{alpha:str}/promotions",
    "The operator's decisions about one alpha",
    documented=(
        "Every decision recorded about the alpha (alpha-results promote, retire), oldest first, each with what "
        "its checks said up to its date against the policy of that day; standing says where the alpha is now"
    ),
)
async def get_promotions(ctx: Ctx[AsOfQuery], alpha: FromPath[str]) -> Response[Single[Promotions]]:
    build = await ctx.open_alpha(alpha)
    ctx.args()
    history = await ctx.promotions(build.alpha_id)
    nominations = await ctx.nominations(build.alpha_id)
    if ctx.as_of is not None:  # what was recorded by then, and the build served then
        history = [p for p in history if p.recorded_at <= ctx.as_of]
        nominations = [n for n in nominations if n.recorded_at <= ctx.as_of]
    viewer = Viewer.of(ctx.caller)
    # The answer is the records' and which build is served: its tag is the alpha's last decision and
    # nomination, the served build, and what of the snapshots' figures the key sees.
    last = f"{history[-1].id if history else 0}.{nominations[-1].id if nominations else 0}"
    ctx.validate_with(f"promotions:{last}:{build.build_id}:{viewer.tag()}")
    shown = partial(shown_snapshot, viewer=viewer)
    return single(
        promotions_of(build.alpha_id, history, shown, nominations, build.build_id),
        ctx.meta(alpha_id=build.alpha_id, source="records:promotions"),
    )


@route(
    "catalog.alphas.restatements",
    "/v1/alphas/{alpha:str}/restatements",
    "Published values later runs changed, with both values",
    documented=(
        "Every value a later run changed after the lake had first published it (a ledger session's return, a "
        "week's scores, a stored metric of a closed period), dated inside from/to, newest restatement first "
        "(a run's own by dataset, book, date, field, period and symbol, each descending), "
        "with the build that restated it, the value before and after (withheld for data the key may not read). "
        'An answer whose window holds one carries a `restated` warning (docs/lake.md, "Restatements")'
    ),
)
async def list_restatements(
    ctx: Ctx[WindowPageQuery], alpha: FromPath[str]
) -> Response[Collection[RestatementRow]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    answer = ctx.reading().restatements(build, args)
    return ctx.collection(answer.data, args.limit, args.offset, ctx.run_meta(build, "restatements"))


@route(
    "catalog.review",
    "/v1/review",
    "The review queue: nominated alphas and their verdicts",
    documented=(
        "The alphas standing nominated (their seal asked for review, or an operator nominated them) that the key "
        "may read, oldest nomination first, each with who nominated it and why, the build, and the verdict of its "
        "long_short checks now (needs analytics.checks); and the operator's written approval policy. A nomination "
        "approves nothing: a decision follows it (alpha-results promote, retire, or the policy)"
    ),
)
async def get_review(ctx: Ctx[AsOfQuery]) -> Response[Single[ReviewQueue]]:
    ctx.args()
    reading = ctx.reading()
    answer = await to_thread.run_sync(reading.review)
    ctx.validate_with(f"review:{answer.version}")
    return single(answer.data, ctx.meta(source="records:nominations"))


ROUTES = [list_alphas, list_families, get_alpha, get_promotions, list_restatements, get_review]
