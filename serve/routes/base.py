"""What every route shares: declared query parameters per endpoint, the request context, meta.

The parameter declarations are the single source for validation (unknown names are rejected) and
for the OpenAPI document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import Request, Response

from datasets.reader import BuildView, LakeReader
from schemas import wire
from serve import params as p
from serve import resolve
from serve.auth import current_caller, endpoint_of, services_of
from serve.conditional import entity_tag, set_entity_tag
from serve.context import Caller
from serve.envelope import collection as collection_envelope
from serve.envelope import now_iso, page_links, request_id_of


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # integer, number, string, boolean, date
    description: str
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[str, ...] | None = None
    required: bool = False
    pattern: str | None = None  # the whole value matches it (the OpenAPI `pattern`, anchored)
    max_length: int | None = None


def _limit(default: int) -> Param:
    return Param("limit", "integer", "Page size.", default, p.LIMIT_MIN, p.LIMIT_MAX)


OFFSET = Param("offset", "integer", "Rows to skip.", 0, 0, p.OFFSET_MAX)
FROM = Param("from", "date", "First trading day, inclusive (YYYY-MM-DD); default: the window start.")
TO = Param("to", "date", "Last trading day, inclusive (YYYY-MM-DD); default: the window end.")
SYMBOL = Param(
    "symbol",
    "string",
    "One ticker or a comma-separated list (matched upper-cased).",
    pattern=p.SYMBOL_LIST,
)
BOOK = Param(
    "book",
    "string",
    "Book to serve (see /books); unknown or invisible books are 400 unknown_book.",
    "long_short",
)
PAGE = (_limit(p.DEFAULT_LIMIT), OFFSET)
SERIES_PAGE = (_limit(p.SERIES_DEFAULT_LIMIT), OFFSET)

ENDPOINT_PARAMS: dict[str, tuple[Param, ...]] = {
    "meta.health": (),
    "meta.me": (),
    "meta.keys": PAGE,
    "catalog.alphas.list": (
        Param(
            "search",
            "string",
            "Case-insensitive substring over alpha_id, name and tldr.",
            max_length=p.TEXT_MAX_LENGTH,
        ),
        Param("complete_only", "boolean", "Omit alphas still missing required kinds.", False),
        *PAGE,
    ),
    "catalog.alphas.get": (),
    "signals.rebalances.list": (FROM, TO, *PAGE),
    "signals.rebalances.get": (
        SYMBOL,
        Param(
            "direction",
            "string",
            "Keep one side (case-insensitive; neutral is a synonym of flat).",
            enum=tuple(wire.DIRECTIONS),
        ),
        Param(
            "min_abs_weight",
            "number",
            "Drop names whose absolute target weight (column chosen by book) is below it.",
            minimum=0,
        ),
        Param(
            "book",
            "string",
            "Target-weight column for min_abs_weight and sort=weight.",
            "long_short",
            enum=tuple(wire.WEIGHT_BOOKS),
        ),
        Param(
            "sort",
            "string",
            "Sort key (rank sorts on average_rank, weight on the book column).",
            "score",
            enum=tuple(wire.REBALANCE_SORTS),
        ),
        Param(
            "order",
            "string",
            "desc for score and weight, asc for rank and symbol; ticker tiebreak.",
            enum=wire.ORDERS,
        ),
        *PAGE,
    ),
    "signals.scores": (
        FROM,
        TO,
        SYMBOL,
        Param("fields", "string", "Column set: core or all.", "core", enum=wire.SCORE_FIELDS_CHOICES),
        *PAGE,
    ),
    "portfolio.books": PAGE,
    "portfolio.ledger": (BOOK, FROM, TO, *PAGE),
    "portfolio.positions": (BOOK, FROM, TO, SYMBOL, *PAGE),
    "portfolio.pnl": (BOOK, FROM, TO, SYMBOL, *PAGE),
    "portfolio.trades": (
        Param("book", "string", "Book to serve (required; see /books).", required=True),
        FROM,
        TO,
        SYMBOL,
        *PAGE,
    ),
    "portfolio.equity_curve": (BOOK, FROM, TO, *SERIES_PAGE),
    "benchmarks.daily": (FROM, TO, *SERIES_PAGE),
    "performance.metrics": (
        FROM,
        TO,
        Param(
            "granularity",
            "string",
            "overall, or yearly/monthly to add periods.",
            "overall",
            enum=("overall", "yearly", "monthly"),
        ),
        Param("doc", "boolean", "Embed the documentation block under data.doc.", False),
        Param("panel", "boolean", "Add the weekly panel block (data.panel).", False),
    ),
    "performance.metrics.doc": (),
    "catalog.alphas.source.download": (),
    "exports.list": PAGE,
    "exports.download": (
        Param(
            "book",
            "string",
            "Book of a book dataset (portfolio, positions, pnl, trades, equity-curve; see /books): "
            "default long_short, required for trades; not accepted by the other datasets.",
        ),
    ),
    "admin.alphas.readiness": (),
    "admin.keys.usage": (),
    "admin.builds.list": PAGE,
}


@dataclass
class Context:
    """One request as a handler sees it: who calls, the lake, the parsed query."""

    request: Request[Any, Any, Any]
    caller: Caller
    reader: LakeReader
    query: p.QueryParams
    request_id: str

    async def open_run(self, alpha: str) -> BuildView:
        """The build behind a run-scoped data route, authorised first; its answer is validated by it."""
        build = await resolve.open_run(self.caller, self.reader, alpha)
        self.validate_with(build.build_id)
        return build

    async def open_alpha(self, alpha: str) -> BuildView:
        build = await resolve.open_alpha(self.caller, self.reader, alpha)
        self.validate_with(build.build_id)
        return build

    def validate_with(self, version: str) -> None:
        """This answer's data is fixed by `version` (a build id): it gets an ETag and may be a 304."""
        scope = self.request.scope
        tag = entity_tag(version, scope["path"], scope.get("query_string", b""), self.caller.field_policy)
        set_entity_tag(scope, tag)

    def collection(
        self, rows: list[dict[str, Any]], total: int, limit: int, offset: int, meta: dict[str, Any]
    ) -> Response[bytes]:
        """The collection envelope, with a `Link` header to the next and previous pages."""
        response = collection_envelope(rows, total, limit, offset, meta)
        link = page_links(self.request.scope, limit, offset, len(rows), total)
        if link:
            response.headers["Link"] = link
        return response

    def meta(self, **extra: Any) -> dict[str, Any]:
        return {**extra, "request_id": self.request_id, "generated_at": now_iso()}

    def run_meta(self, build: BuildView, table: str, **extra: Any) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "run": build.alpha_id,
            "alpha_id": build.alpha_id,
        }
        source_alpha_id = build.entry.get("source_alpha_id")
        if source_alpha_id is not None:
            meta["source_alpha_id"] = source_alpha_id
        meta.update(extra)
        meta.update(self.meta(source=f"lake:{table}@{build.build_id}"))
        return meta


def context(request: Request[Any, Any, Any], public: bool = False) -> Context:
    endpoint = endpoint_of(request.route_handler)
    accepted = [param.name for param in ENDPOINT_PARAMS.get(endpoint or "", ())]
    services = services_of(request)
    caller = None if public else current_caller(request)
    return Context(
        request=request,
        caller=caller,  # type: ignore[arg-type]
        reader=services.reader,
        query=p.QueryParams(request.scope.get("query_string", b""), accepted),
        request_id=request_id_of(request.scope),
    )
