"""Parquet exports (group `exports`): the files a key may export, and a signed URL to one of them.

- `GET /v1/alphas/{alpha}/exports` (`exports.list`): a page of the datasets this key may export
  from the served build, with rows, bytes, SHA-256, columns and the build id of each file;
- `GET /v1/alphas/{alpha}/exports/{dataset}` (`exports.download`, `book=` on book datasets):
  `{url, expires_in, filename, size_bytes, sha256, rows, columns, build}`, the URL freshly signed
  like `/source/download`'s (HMAC on a local lake, presigned on S3; serve.signing.export_urls).

Both authorise the run first (403 `run_not_allowed` / 404 `run_not_found`, serve.scope.resolve), as
every alpha route. The responses stay JSON; the bytes come from the signed URL, never through
`/v1`. The benchmark dataset is the market benchmark's series (`schemas.wire.MARKET_BENCHMARK`) of
its own build (`build` names that build).
"""

from __future__ import annotations

from typing import Any

from anyio import to_thread
from litestar import Response
from litestar.params import FromPath
from msgspec import UNSET

from core import errors
from datasets.faults import BenchmarkMissing
from datasets.queries import page_of
from datasets.reader import BuildView
from schemas import choices, exports, wire
from schemas.bodies.downloads import ExportDownload, ExportRow
from schemas.bodies.envelope import Collection, Single
from schemas.query import BOOK_REQUIRED, BuildPageQuery, ExportQuery
from serve.envelope import single
from serve.routes.base import Context, Ctx
from serve.routes.declare import route
from serve.scope.resolve import open_run
from serve.signing.export_urls import EXPORT_ENDPOINT, ExportFile, alpha_exports, benchmark_exports, sign

BENCHMARK_SYMBOL = wire.MARKET_BENCHMARK


async def _benchmark_files(ctx: Context) -> list[ExportFile]:
    """The benchmark's exports, or none when the deployment has no readable benchmark with
    exports (`/exports/benchmark` names which)."""
    try:
        return benchmark_exports(await ctx.open_benchmark(BENCHMARK_SYMBOL))
    except (BenchmarkMissing, errors.ExportsNotBuilt):
        return []


@route(
    "exports.list",
    "/v1/alphas/{alpha:str}/exports",
    "Parquet exports of the alpha's datasets",
)
async def list_exports(ctx: Ctx[BuildPageQuery], alpha: FromPath[str]) -> Response[Collection[ExportRow]]:
    build = await ctx.open_run(alpha)
    args = ctx.args()
    limit, offset = args.limit, args.offset
    files = alpha_exports(build)
    if ctx.caller.may_call(exports.BY_NAME[exports.BENCHMARK_DATASET].endpoint):
        files = files + await _benchmark_files(ctx)
    visible = sorted((f for f in files if f.visible_to(ctx.caller)), key=ExportFile.sort_key)
    # The listing is fixed by the builds it names and by which routes the key may call (its ETag,
    # serve/conditional.py, adds the path, the query and the field policy).
    builds = sorted({f.build for f in visible} | {build.build_id})
    callable_datasets = sorted(d.name for d in exports.DATASETS if ctx.caller.may_call(d.endpoint))
    ctx.validate_with("|".join([*builds, *callable_datasets]))
    page = page_of([f.listing() for f in visible], limit, offset)
    return ctx.collection(page, limit, offset, ctx.run_meta(build, "exports"))


def _book(ctx: Context, build: BuildView, dataset: exports.ExportDataset) -> str | None:
    """The `book` of a book dataset, checked as the JSON route checks it (required for trades;
    400 `unknown_book` with the books this key may read); `book` on any other dataset is a 400
    naming it."""
    given = "book" in ctx.query.values
    problems: dict[str, str] = {}
    details: dict[str, Any] | None = None
    if not dataset.books and given:
        books = ", ".join(exports.BOOK_DATASETS)
        problems["book"] = f"is not accepted for dataset {dataset.name}; only {books} take a book"
    elif dataset.book_required and not given:
        assert dataset.kind is not None
        problems["book"] = BOOK_REQUIRED
        details = ctx.books_if_missing(build, dataset.kind)
    args = ctx.args(problems=problems, details=details)
    if not dataset.books:
        return None
    assert dataset.kind is not None
    return ctx.book(build, dataset.kind, args.book or choices.DEFAULT_BOOK)


@route(
    EXPORT_ENDPOINT,
    "/v1/alphas/{alpha:str}/exports/{dataset:str}",
    "Signed download URL of one dataset as a Parquet file",
)
async def get_export(
    ctx: Ctx[ExportQuery], alpha: FromPath[str], dataset: FromPath[str]
) -> Response[Single[ExportDownload]]:
    # Not `ctx.open_run`: the answer is a freshly signed URL, never a 304 (no ETag, as /source/download).
    build = await open_run(ctx.caller, ctx.reader, alpha)
    spec = exports.BY_NAME.get(dataset)
    if spec is None:
        raise errors.ExportNotFound(
            f"No dataset {dataset!r} is exported; see error.details.available.",
            details={"dataset": dataset, "available": list(exports.DATASET_NAMES)},
        )
    if not ctx.caller.may_call(spec.endpoint):
        raise errors.EndpointNotAllowed(
            f"Exporting {dataset} needs {spec.endpoint}, the route that serves the same rows.",
            details={"endpoint": spec.endpoint},
        )
    book = _book(ctx, build, spec)
    if spec.kind is None:
        bench = await ctx.open_benchmark(BENCHMARK_SYMBOL)
        files = benchmark_exports(bench)
    else:
        files = alpha_exports(build)
    chosen = [f for f in files if f.dataset == dataset and f.book == book and f.visible_to(ctx.caller)]
    if not chosen:
        available = sorted({f.dataset for f in alpha_exports(build) if f.visible_to(ctx.caller)})
        details: dict[str, Any] = {"dataset": dataset, "available": available}
        if book is not None:
            details["book"] = book
        raise errors.ExportNotFound(
            f"The run did not write the {dataset} dataset{f' of book {book}' if book else ''}; "
            "nothing to export (its JSON route answers an empty page).",
            details=details,
        )
    export = chosen[0]
    url = await to_thread.run_sync(sign, ctx.signer, export, ctx.caller.key_id, ctx.reader)
    source = None if spec.kind is not None else f"lake:benchmarks/{BENCHMARK_SYMBOL}/exports@{export.build}"
    meta = ctx.run_meta(
        build,
        "exports",
        book=UNSET if book is None else book,
        **({} if source is None else {"source": source}),
    )
    return single(export.download(url), meta)


ROUTES = [list_exports, get_export]
