"""What every route shares: the request context with its endpoint's declaration, and meta.

A handler takes the context as `ctx: Ctx[WeekQuery]` (Litestar injects it): the Struct named there
is the endpoint's query declaration (`schemas.query`), which `Context.args` parses and the OpenAPI
document, the reference and the client read (`serve.endpoints`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from anyio import from_thread, to_thread
from litestar import Request
from litestar.params import SkipValidation
from msgspec import UNSET

from access.authenticate import CHALLENGE
from analytics.access import Access
from analytics.answer import Answer
from analytics.policy import Policy
from analytics.reading import Reading
from analytics.restatements import restated_warning
from analytics.standings import NO_DECISIONS, Standings
from core import errors
from core.context import Caller
from datasets import answers, clock
from datasets.answers import RunPage
from datasets.faults import HistoryGone
from datasets.queries import Paged, TablePage
from datasets.reader import BuildView, LakeReader
from records.nominations import Nomination
from records.promotions import Promotion
from schemas import wire
from schemas.bodies.envelope import EnvelopeMeta
from schemas.query import NoQuery, Query, params_of
from serve import params as p
from serve import representation
from serve.auth import Services
from serve.conditional import entity_tag, set_entity_tag
from serve.declaration import Handled
from serve.dependencies import KeyBackends
from serve.envelope import (
    Encoded,
    json_response,
    now_iso,
    page_links,
    pagination,
    single,
    with_warnings,
)
from serve.envelope import collection as collection_envelope
from serve.exchange import exchange_of
from serve.records import RecordsSource
from serve.scope import resolve
from serve.scope.readable import scope_of
from serve.signing.archives import ArchiveSigner, signer_of

Q = TypeVar("Q", bound=Query)


@dataclass
class Context(Generic[Q]):
    """One request as a handler sees it: who calls, the lake, the query string. Made from the ASGI
    scope alone (`context_of`), so the one-pass layer makes it for the routes it answers itself
    (serve/direct.py) as Litestar's injection makes it for the others."""

    scope: Any
    """The request's ASGI scope: its path, path parameters, headers, route handler and app."""
    caller: Caller
    reader: LakeReader
    query: p.QueryParams
    request_id: str
    declared: type[Q]
    representation: str | None
    """The collection's representation (`serve.representation`): by `format=` when given, else
    by `Accept`; None when Accept offers none (a 406 once the parameters are read)."""
    services: Services
    """The app's services, read through the typed properties below (`ctx.keys`, `ctx.policy`...)."""
    parsed: Any = None
    """The query as `args` parsed it: the window a run answer's `restated` warning is about."""
    as_of: dt.datetime | None = None
    """The request's `as_of`: `reader` is then the lake as the API served it at that moment
    (`LakeReader.at`) and `standings` the decisions recorded by then."""

    # The services a handler asks for, typed. On the one injected `ctx`, not as dependencies of
    # their own: Litestar resolves two or more dependencies of a handler concurrently in an anyio
    # task group, which cost /v1/me 100 µs a request (docs/benchmarks.md, issue 34).
    @property
    def keys(self) -> KeyBackends:
        return KeyBackends(self.services.store, self.services.limiter)

    @property
    def policy(self) -> Policy:
        return self.services.checks_policy

    async def standings(self) -> Standings:
        """Where every alpha stands (`RecordsSource.standings`): none decided when the app keeps no
        records; 503 when the records cannot be read."""
        source: RecordsSource | None = self.services.records
        if source is None:
            return NO_DECISIONS
        return await (source.standings() if self.as_of is None else source.standings_at(self.as_of))

    def reading(self) -> Reading:
        """The lake as this key reads it now (`analytics.reading`): its scope, its standings and the
        policy, for an answer over the catalogue, which the handler runs in a worker thread. Asked
        after the alpha is authorised and found. The standings are read from the records only if
        the answer needs them (503 when they cannot be read), back on the event loop."""
        return Reading(
            self.reader, scope_of(self.caller), partial(from_thread.run, self.standings), self.policy
        )

    async def promotions(self, alpha: str) -> list[Promotion]:
        """Every decision about the alpha, oldest first (none when the app keeps no records); 503
        when the records cannot be read."""
        source: RecordsSource | None = self.services.records
        if source is None:
            return []
        return await source.read(lambda records: records.promotions.history(alpha))

    async def nominations(self, alpha: str) -> list[Nomination]:
        """Every nomination of the alpha, oldest first (none without records); 503 when the records
        cannot be read."""
        source: RecordsSource | None = self.services.records
        if source is None:
            return []
        return await source.read(lambda records: records.nominations.history(alpha))

    @property
    def signer(self) -> ArchiveSigner | None:
        return signer_of(self.scope["app"].state, self.services.settings)

    @property
    def registry_version(self) -> str:
        return self.services.registry_version

    @property
    def analytics_doc(self) -> Mapping[str, Any]:
        return self.services.analytics_doc

    @property
    def metrics_doc(self) -> Mapping[str, Any]:
        return self.services.metrics_doc

    def args(self, problems: Mapping[str, str] | None = None, details: Mapping[str, Any] | None = None) -> Q:
        """The query parameters as the Struct the handler's signature declares, or one 400 naming
        every problem (the path parameters the Struct types included; `problems` found in the path
        that no declaration states; see `QueryParams.parse`). Read when the handler asks, not
        before: a 401, 403 or 404 comes first."""
        args = self.query.parse(self.declared, problems, details, self.scope["path_params"])
        if self.representation is None:
            raise representation.not_acceptable(self.header(b"accept") or "")
        self.parsed = args
        return args

    def header(self, name: bytes) -> str | None:
        """The request's first header `name` (lower case), as Litestar's `Headers.get` reads it."""
        return header_of(self.scope, name)

    @property
    def handler(self) -> Any:
        """The route handler this request was routed to (its declaration in `opt`)."""
        return self.scope["route_handler"]

    async def open_run(self, alpha: str) -> BuildView:
        """The build behind a run-scoped data route, authorised first; its answer is validated by it."""
        build = await resolve.open_run(self.caller, self.reader, alpha)
        self.validate_with(build.build_id)
        return build

    async def open_alpha(self, alpha: str) -> BuildView:
        build = await resolve.open_alpha(self.caller, self.reader, alpha)
        self.validate_with(build.build_id)
        return build

    async def open_benchmark(self, symbol: str) -> BuildView:
        """The served build of benchmark `symbol`, the one way every route reads a benchmark;
        `BenchmarkMissing` (503 benchmark_not_configured or benchmark_unavailable) otherwise."""
        view = self.reader.benchmark_view(symbol, ready_only=True)
        if view is None:
            view = await to_thread.run_sync(self.reader.benchmark_view, symbol)
        assert view is not None  # opened, or BenchmarkMissing raised
        return view

    def validate_with(self, version: str) -> None:
        """This answer's data is fixed by `version` (a build id): it gets an ETag and may be a 304."""
        scope = self.scope
        tag = entity_tag(
            version,
            scope["path"],
            exchange_of(scope).query,
            self.caller.field_policy,
            self.representation or representation.DEFAULT,
        )
        set_entity_tag(scope, tag)

    def collection(self, page: Paged, limit: int, offset: int, meta: EnvelopeMeta[Any]) -> Encoded:
        """The page in the negotiated representation (the JSON envelope by default), with a `Link`
        header to the next and previous pages."""
        name = self.representation or representation.DEFAULT
        # The page's rows, which the key's egress counts (serve/limits/egress.py).
        returned = page.returned if isinstance(page, TablePage) else len(page.rows)
        exchange_of(self.scope).egress_rows = returned
        if name == representation.JSON:
            rows = page.envelope_rows if isinstance(page, TablePage) else page.rows
            response = collection_envelope(rows, page.total, limit, offset, meta)
            link = page_links(self.scope, limit, offset, len(rows), page.total)
            if link:
                response.headers["Link"] = link
            return response
        # A page cut from a serving table hands over its Arrow columns; other pages their rows.
        table = page.table if isinstance(page, TablePage) else None
        returned = table.num_rows if table is not None else len(page.rows)
        paging = pagination(limit, offset, returned, page.total)
        # The declared columns name the header of a page with neither a table nor rows.
        fields = (
            None if table is not None or page.rows else getattr(page, "fields", None) or self.row_fields()
        )
        body = representation.Body(page, table, fields, paging, meta)
        link = page_links(self.scope, limit, offset, returned, page.total)
        return representation.columnar_response(name, body, link)

    async def over_catalogue(self, name: str, ask: Callable[[Reading, Q], Answer[Any]]) -> Encoded:
        """The answer of a route over the catalogue index and no alpha (`/v1/analytics/crowding`,
        `/approved_health`): `ask` in the key's scope in a worker thread, its ETag and `meta.source`
        the catalogue generation it read."""
        args = self.args()
        answer = await to_thread.run_sync(ask, self.reading(), args)
        self.validate_with(f"{name}:{answer.version}")
        meta = self.meta(source=f"lake:catalogue_index@{answer.version}")
        return single(answer.data, with_warnings(meta, answer.warnings))

    def answer(self, build: BuildView, answer: RunPage) -> Encoded:
        """A run's collection answer (`datasets.answers`), with the run's identity and source in meta:
        a function of the build, the query, the representation and the caller's field policy alone,
        so the layer may keep its bytes (serve/answer_cache.py)."""
        exchange_of(self.scope).made_once = True
        meta = with_warnings(self.run_meta(build, answer.table, **answer.meta), answer.warnings)
        return self.collection(answer.page, answer.limit, answer.offset, meta)

    @property
    def access(self) -> Access:
        """What the caller may read besides this route: the data figures are built from."""
        return Access.of(self.caller.may_call)

    @property
    def raw(self) -> bool:
        """May the caller see raw books and raw-only fields (what `datasets.answers` is told)."""
        return self.caller.expose_raw_book

    def readable_books(self, build: BuildView, kind: str) -> list[str]:
        return answers.readable_books(build, kind, self.raw)

    def book(self, build: BuildView, kind: str, book: str) -> str:
        """`book`, when the caller may read it for `kind`; else 400 unknown_book (after every
        parameter's 400)."""
        return answers.checked_book(build, kind, book, self.raw)

    def books_if_missing(self, build: BuildView, kind: str) -> dict[str, Any] | None:
        """The `error.details` a missing required `book` adds to the 400: the books it may name
        (read only then, not on every request)."""
        return None if "book" in self.query.values else {"available": self.readable_books(build, kind)}

    def row_fields(self) -> tuple[str, ...] | None:
        """The endpoint's declared row fields, as the caller may see them (the columns of a
        columnar page without rows)."""
        fields = _handled(self.scope).row_fields
        if fields is None or self.caller is None:
            return fields
        return wire.visible_fields(fields, self.raw)

    def meta(self, **extra: Any) -> EnvelopeMeta[Any]:
        """This answer's `meta`: the keys given (each an `EnvelopeMeta` field), with the request's
        id and time."""
        if self.as_of is not None:
            extra = {
                **extra,
                "as_of": _wire_moment(self.as_of),
                "generation": getattr(self.reader, "generation", UNSET),
            }
        return EnvelopeMeta(**extra, request_id=self.request_id, generated_at=now_iso())

    def run_meta(self, build: BuildView, table: str, **extra: Any) -> EnvelopeMeta[Any]:
        """The `meta` of an answer about one run: its identity, and `source` the build's `table`
        (unless `extra` names another)."""
        source_alpha_id = build.entry.get("source_alpha_id")
        restated = restated_warning(build, self.parsed, self.access, self.raw)
        return self.meta(
            run=build.alpha_id,
            alpha_id=build.alpha_id,
            source_alpha_id=UNSET if source_alpha_id is None else source_alpha_id,
            **{"source": f"lake:{table}@{build.build_id}", **extra},
            **({"warnings": [restated]} if restated is not None else {}),
        )


DOC_CACHE_CONTROL = "public, max-age=86400, immutable"


def documentation_block(ctx: Context[NoQuery], alpha: str, block: Mapping[str, Any]) -> Encoded:
    """A documentation route (`/metrics/_doc`, `/analytics/_doc`): the same bytes for every call
    and alpha, as an immutable cache entry must be; the request id travels in `X-Request-ID`
    only. The alpha is still authorised and looked up, as on every run-scoped route."""
    resolve.resolve_run(ctx.caller, ctx.reader, alpha)
    ctx.args()
    return json_response({"data": block, "meta": {}}, headers={"Cache-Control": DOC_CACHE_CONTROL})


Ctx = SkipValidation[Context[Q]]
"""A handler's `ctx` parameter: `ctx: Ctx[WeekQuery]` declares the endpoint's query parameters."""


def _handled(scope: Any) -> Handled:
    handled: Handled = scope["route_handler"].opt["declared"]
    return handled


def header_of(scope: Any, name: bytes) -> str | None:
    """The scope's first header `name` (lower case), decoded as Litestar's `Headers.get` decodes it."""
    for key, value in scope["headers"]:
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


async def injected_context(request: Request[Any, Any, Any]) -> Context[Any]:
    """The `ctx` Litestar injects into a handler it answers (`context_of` of its scope)."""
    return await context_of(request.scope)


async def context_of(scope: Any) -> Context[Any]:
    """The one way a request's `ctx` is made, from its scope once routed and the caller
    authenticated (serve/front.py): injected by Litestar (`injected_context`), or made by the
    one-pass layer for a route it answers itself (serve/direct.py). The public /v1/health takes no
    `ctx`.

    An `as_of` is read once, by its one rule (`QueryParams.moment_of`; a value that is not a real
    moment is the endpoint's one 400, naming every problem of its query), counted by the key's
    `as_of` budget (serve/limits/as_of.py), and resolved into the lake as served then in a worker
    thread (`LakeReader.at` reads files): never on the event loop."""
    declared = _handled(scope).query
    params = params_of(declared)
    accepted = [param.name for param in params]
    repeatable = [param.name for param in params if param.repeat]
    services: Services = scope["app"].state["services"]
    exchange = exchange_of(scope)
    query = p.QueryParams(exchange.query, accepted, declared.refused, repeatable)
    caller = exchange.caller
    if caller is None:  # a keyed route is always admitted first (serve/front.py)
        raise errors.MissingApiKey(headers=dict(CHALLENGE))
    text = query.values.get("as_of") if "as_of" in accepted else None
    reader: Any = services.reader
    as_of = None
    if text is not None:
        try:
            as_of = query.moment_of("as_of")
        except ValueError:
            query.parse(declared, path=scope["path_params"])  # the 400, with as_of's rule among its problems
            raise
        if as_of > clock.now() + AS_OF_SLACK:
            raise errors.bad_parameters({"as_of": "is in the future: the lake knows nothing after now"})
        if services.as_of_budget is not None:
            services.as_of_budget.admit(caller, as_of)
        try:
            reader = await to_thread.run_sync(reader.at, as_of)
        except HistoryGone as exc:
            raise errors.AsOfGone(details={"as_of": _wire_moment(as_of), "reason": str(exc)}) from None
    return Context(
        scope=scope,
        caller=caller,
        reader=reader,
        as_of=as_of,
        query=query,
        request_id=exchange.request_id,
        declared=declared,
        representation=representation.chosen(
            header_of(scope, b"accept"), query.values.get("format"), "format" in accepted
        ),
        services=services,
    )


AS_OF_SLACK = dt.timedelta(seconds=5)
"""How far past the server's clock an `as_of` may be (two clocks' drift) before it is a 400."""


def _wire_moment(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
