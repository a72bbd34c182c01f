"""Collections that page for you.

A collection method returns a `Collection` at once, without a request. Iterating it reads pages
lazily (`page_size` rows per request, the server's maximum by default) and yields typed rows;
`to_polars()`, `to_pandas()` and `to_arrow()` read it whole. A whole-dataset read goes through
the dataset's Parquet export when the key may use it (exports.py); any other read of a frame
pages Arrow IPC streams when pyarrow is installed (no row is decoded in Python), else JSON. Every
path gives the same frame (frames.py).

Pages are read by offset from one build: if the alpha is republished between two pages, the
next page would come from the new build, so iteration raises `InconsistentPagesError`, and the
`to_*` readers start over (a few times) rather than mix builds.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, Self, TypeVar

import msgspec

from alpha_results_client import frames
from alpha_results_client._envelope import Meta, Pagination, ResponseWarning
from alpha_results_client.exceptions import InconsistentPagesError, KindMissingWarning, warn_caller
from alpha_results_client.exports import ExportFile, ExportReader, ExportTarget
from alpha_results_client.progress import progress_for
from alpha_results_client.transport import ArrowNotServed, ArrowPage, Transport

log = logging.getLogger("alpha_results_client")

RowT = TypeVar("RowT")
SummaryT = TypeVar("SummaryT")
T = TypeVar("T")
WHOLE_READ_ATTEMPTS = 3


class Envelope(Protocol):
    """What every page has beside its rows."""

    @property
    def pagination(self) -> Pagination: ...
    @property
    def meta(self) -> Any: ...


class Page(Envelope, Protocol[RowT]):
    @property
    def data(self) -> list[RowT]: ...


PageT = TypeVar("PageT", bound=Envelope)


def reads_arrow_pages() -> bool:
    """Whether a frame that no export holds is read from Arrow pages (else JSON pages): the one
    place that chooses."""
    return frames.available("pyarrow")


@dataclass(frozen=True)
class Query:
    """One collection request: where, with which parameters (wire names, as strings), decoded as what."""

    path: str
    params: dict[str, str]
    page_type: type[Any]
    row_type: type[Any]
    label: str
    field_set: frozenset[str] | None = None  # the columns a column-set parameter (`fields=`) serves
    export: ExportTarget | None = None  # the Parquet export equal to the whole collection, if any
    alpha: str | None = None  # the alpha of an alpha's collection
    warn_kind_missing: bool = True  # raise the page's `kind_missing` warnings as KindMissingWarning
    arrow_pages: bool = True  # the route answers pages as Arrow (`format`); else JSON pages only


class Collection(Generic[RowT]):
    """The rows of one query: iterate them, or read them whole into a frame."""

    def __init__(
        self,
        transport: Transport,
        exports: ExportReader,
        query: Query,
        *,
        page_size: int,
        progress: bool = False,
        use_exports: bool = True,
    ) -> None:
        self._transport = transport
        self._exports = exports
        self._query = query
        self._page_size = page_size
        self._progress = progress
        self._use_exports = use_exports
        self._offset = 0
        self._max_rows: int | None = None
        self._first: Page[RowT] | None = None
        self._head: Envelope | None = None  # the first page's envelope, from JSON or Arrow

    def __repr__(self) -> str:
        limits = f", offset={self._offset}" if self._offset else ""
        limits += f", max_rows={self._max_rows}" if self._max_rows is not None else ""
        return f"<{type(self).__name__} {self._query.label}{limits}>"

    # -- narrowing (each returns a new collection) --------------------------------------------------

    def _copy(self) -> Self:
        other = copy.copy(self)
        other._first = other._head = None
        return other

    def head(self, count: int) -> Self:
        """At most `count` rows (requests only the pages they need)."""
        other = self._copy()
        other._max_rows = count if self._max_rows is None else min(count, self._max_rows)
        return other

    def skip(self, count: int) -> Self:
        """Start `count` rows in (the server's `offset`)."""
        other = self._copy()
        other._offset = self._offset + count
        if other._max_rows is not None:
            other._max_rows = max(0, other._max_rows - count)
        return other

    # -- the first page: totals and meta without reading everything -------------------------------

    def first_page(self) -> Page[RowT]:
        if self._first is None:
            self._first = self._head = self._fetch(self._offset, self._limit(0))
            self._warn_kind_missing(self._first)
        return self._first

    def _envelope(self) -> Envelope:
        """The first page's pagination and meta: of the last read, else of the JSON first page."""
        return self._head if self._head is not None else self.first_page()

    def _warn_kind_missing(self, page: Envelope) -> None:
        """Each `kind_missing` warning of the page as a `KindMissingWarning`, at the user's call."""
        if not self._query.warn_kind_missing:
            return
        found = getattr(page.meta, "warnings", None)
        for warning in found if isinstance(found, list) else []:
            if warning.code != "kind_missing":
                continue
            alpha_id = getattr(page.meta, "alpha_id", msgspec.UNSET)
            alpha = alpha_id if isinstance(alpha_id, str) else self._query.alpha
            kind = warning.kind if isinstance(warning.kind, str) else "?"
            endpoint = self._query.label.split(" ", 1)[0]
            message = (
                f"{alpha}: the run did not write the {kind} dataset, so what {endpoint} reads from it "
                "is empty (the server's kind_missing warning, also in the collection's .warnings)"
            )
            warn_caller(KindMissingWarning(message, alpha, kind, endpoint))

    @property
    def total(self) -> int:
        """Rows matching the query on the server, before `skip`/`head`."""
        return self._envelope().pagination.total

    @property
    def meta(self) -> Meta:
        meta: Meta = self._envelope().meta
        return meta

    @property
    def warnings(self) -> list[ResponseWarning]:
        """`meta.warnings` (e.g. `kind_missing` when the run never wrote the dataset: reading the
        first page also emits it as a `KindMissingWarning`)."""
        warnings = self.meta.warnings
        return warnings if isinstance(warnings, list) else []

    # -- reading -------------------------------------------------------------------------------------

    def _limit(self, read: int) -> int:
        if self._max_rows is None:
            return self._page_size
        return max(1, min(self._page_size, self._max_rows - read))

    def _fetch(self, offset: int, limit: int) -> Page[RowT]:
        params = {**self._query.params, "limit": str(limit), "offset": str(offset)}
        page: Page[RowT] = self._transport.get_json(self._query.path, params, self._query.page_type)
        return page

    def _fetch_arrow(self, offset: int, limit: int) -> ArrowPage:
        params = {**self._query.params, "limit": str(limit), "offset": str(offset)}
        return self._transport.get_arrow(self._query.path, params, self._query.page_type)

    def _first_arrow(self) -> ArrowPage:
        page = self._fetch_arrow(self._offset, self._limit(0))
        if self._head is None:  # warned once per first page, whichever read fetched it
            self._warn_kind_missing(page)
        self._head = page
        return page

    def pages(self, *, progress: bool | None = None) -> Iterator[Page[RowT]]:
        """The pages, lazily; raises `InconsistentPagesError` if the build changes between two."""
        return self._walk(self.first_page, self._fetch, progress)

    def _walk(
        self, first: Callable[[], PageT], fetch: Callable[[int, int], PageT], progress: bool | None
    ) -> Iterator[PageT]:
        """The pages `first` and `fetch` read (JSON or Arrow), from one build, within `head`."""
        bar = progress_for(self._progress if progress is None else progress, self._query.label)
        read = 0
        build: object = None
        try:
            page = first()
            while True:
                source = getattr(page.meta, "source", None)
                if read == 0:
                    build = source
                    bar.set_total(self._expected(page.pagination.total))
                elif source != build:
                    raise InconsistentPagesError(
                        f"{self._query.label}: the pages came from {build} and then from {source}"
                    )
                if self._max_rows is not None and read + _count(page) > self._max_rows:
                    page = _truncated(page, self._max_rows - read)
                count = _count(page)
                read += count
                bar.advance(count)
                yield page
                done = self._max_rows is not None and read >= self._max_rows
                if done or not page.pagination.has_more or count == 0:
                    return
                page = fetch(self._offset + read, self._limit(read))
        finally:
            bar.close()

    def _expected(self, total: int) -> int:
        remaining = max(0, total - self._offset)
        return remaining if self._max_rows is None else min(remaining, self._max_rows)

    def __iter__(self) -> Iterator[RowT]:
        for page in self.pages():
            yield from page.data

    def to_list(self, *, progress: bool | None = None) -> list[RowT]:
        """Every row, read from one build (retried from the start if a republish interleaves)."""
        return self._whole(lambda: [row for page in self.pages(progress=progress) for row in page.data])

    def _arrow_table(self, progress: bool | None) -> Any:
        """Every row as one `pyarrow.Table` of Arrow pages, read from one build (as `to_list`)."""
        pa = frames.require("pyarrow")

        def read() -> Any:
            tables = [page.table for page in self._walk(self._first_arrow, self._fetch_arrow, progress)]
            # "permissive": a page whose nested column is all null has it typed null
            return pa.concat_tables(tables, promote_options="permissive")

        return self._whole(read)

    def _whole(self, read: Callable[[], T]) -> T:
        attempts_left = WHOLE_READ_ATTEMPTS
        while True:
            try:
                return read()
            except InconsistentPagesError:
                attempts_left -= 1
                if attempts_left == 0:
                    raise
                log.info("%s: republished while reading; reading again", self._query.label)
                self._first = self._head = None

    # -- frames --------------------------------------------------------------------------------------

    def _export_file(self, use_exports: bool | None, progress: bool | None, reader: str) -> ExportFile | None:
        """The export of the whole collection, when this read may and can use it; else None."""
        target = self._query.export
        wanted = self._use_exports if use_exports is None else use_exports
        whole = self._offset == 0 and self._max_rows is None
        if target is None or not wanted or not whole or not frames.available(reader):
            return None
        shown = self._progress if progress is None else progress
        return self._exports.read(target, f"{self._query.label} (Parquet export)" if shown else None)

    def _frame(
        self,
        use_exports: bool | None,
        progress: bool | None,
        reader: str,
        of_rows: Any,
        of_file: Any,
        of_table: Any,
    ) -> Any:
        """The frame of the export file, else of Arrow pages (`reads_arrow_pages`), else of JSON rows."""
        exported = self._export_file(use_exports, progress, reader)
        row_type, field_set = self._query.row_type, self._query.field_set
        if exported is not None:
            return of_file(exported.data, frames.file_columns(row_type, exported.download.columns, field_set))
        if self._query.arrow_pages and reads_arrow_pages() and self._transport.serves_arrow is not False:
            try:
                table = self._arrow_table(progress)
            except ArrowNotServed:  # a server older than the representations: JSON pages
                log.info("the server answers pages as JSON only; reading JSON pages")
            else:
                return of_table(table, frames.arrow_columns(row_type, table, field_set))
        rows = self.to_list(progress=progress)
        return of_rows(rows, frames.served_columns(row_type, rows, field_set))

    def to_polars(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        """A `polars.DataFrame` of the rows (needs the `polars` extra)."""
        frames.require("polars")
        return self._frame(
            use_exports,
            progress,
            "polars",
            frames.rows_to_polars,
            frames.parquet_to_polars,
            frames.arrow_to_polars,
        )

    def to_arrow(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        """A `pyarrow.Table` of the rows (needs the `parquet` extra)."""
        frames.require("pyarrow")
        return self._frame(
            use_exports,
            progress,
            "pyarrow",
            frames.rows_to_arrow,
            frames.parquet_to_arrow,
            frames.arrow_to_arrow,
        )

    def to_pandas(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        """A `pandas.DataFrame` of the rows (needs the `pandas` extra)."""
        frames.require("pandas")
        return self._frame(
            use_exports,
            progress,
            "pyarrow",
            frames.rows_to_pandas,
            frames.parquet_to_pandas,
            frames.arrow_to_pandas,
        )


class Series(Collection[RowT], Generic[RowT, SummaryT]):
    """A dated series (equity curve, benchmark) with its `meta.summary` of the whole window."""

    @property
    def summary(self) -> SummaryT:
        summary: SummaryT = self._envelope().meta.summary
        return summary


def _count(page: Envelope) -> int:
    return page.table.num_rows if isinstance(page, ArrowPage) else len(page.data)  # type: ignore[attr-defined]


def _truncated(page: PageT, count: int) -> PageT:
    if isinstance(page, ArrowPage):
        return dataclasses.replace(page, table=page.table.slice(0, count))
    truncated: PageT = msgspec.structs.replace(page, data=page.data[:count])  # type: ignore[type-var, attr-defined]
    return truncated
