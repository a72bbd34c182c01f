"""Collections that page for you.

A collection method returns a `Collection` at once, without a request. Iterating it reads pages
lazily (`page_size` rows per request, the server's maximum by default) and yields typed rows;
`to_polars()`, `to_pandas()` and `to_arrow()` read it whole. A whole-dataset read goes through
the dataset's Parquet export when the key may use it (exports.py) and through JSON pages
otherwise; both give the same frame.

Pages are read by offset from one build: if the alpha is republished between two pages, the
next page would come from the new build, so iteration raises `InconsistentPagesError`, and the
`to_*` readers start over (a few times) rather than mix builds.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, Self, TypeVar

import msgspec

from alpha_results_client import frames
from alpha_results_client._generated import Meta, Pagination, ResponseWarning
from alpha_results_client.exceptions import InconsistentPagesError
from alpha_results_client.exports import ExportFile, ExportReader, ExportTarget
from alpha_results_client.progress import progress_for
from alpha_results_client.transport import Transport

log = logging.getLogger("alpha_results_client")

RowT = TypeVar("RowT")
SummaryT = TypeVar("SummaryT")
WHOLE_READ_ATTEMPTS = 3


class Page(Protocol[RowT]):
    @property
    def data(self) -> list[RowT]: ...
    @property
    def pagination(self) -> Pagination: ...
    @property
    def meta(self) -> Any: ...


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

    def __repr__(self) -> str:
        limits = f", offset={self._offset}" if self._offset else ""
        limits += f", max_rows={self._max_rows}" if self._max_rows is not None else ""
        return f"<Collection {self._query.label}{limits}>"

    # -- narrowing (each returns a new collection) --------------------------------------------------

    def _copy(self) -> Self:
        other = copy.copy(self)
        other._first = None
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
            self._first = self._fetch(self._offset, self._limit(0))
        return self._first

    @property
    def total(self) -> int:
        """Rows matching the query on the server, before `skip`/`head`."""
        return self.first_page().pagination.total

    @property
    def meta(self) -> Meta:
        meta: Meta = self.first_page().meta
        return meta

    @property
    def warnings(self) -> list[ResponseWarning]:
        """`meta.warnings` (e.g. `kind_missing` when the run never wrote the dataset)."""
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

    def pages(self, *, progress: bool | None = None) -> Iterator[Page[RowT]]:
        """The pages, lazily; raises `InconsistentPagesError` if the build changes between two."""
        bar = progress_for(self._progress if progress is None else progress, self._query.label)
        read = 0
        build: object = None
        try:
            page = self.first_page()
            while True:
                source = getattr(page.meta, "source", None)
                if read == 0:
                    build = source
                    bar.set_total(self._expected(page.pagination.total))
                elif source != build:
                    raise InconsistentPagesError(
                        f"{self._query.label}: the pages came from {build} and then from {source}"
                    )
                if self._max_rows is not None and read + len(page.data) > self._max_rows:
                    page = _truncated(page, self._max_rows - read)
                read += len(page.data)
                bar.advance(len(page.data))
                yield page
                done = self._max_rows is not None and read >= self._max_rows
                if done or not page.pagination.has_more or not page.data:
                    return
                page = self._fetch(self._offset + read, self._limit(read))
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
        attempts_left = WHOLE_READ_ATTEMPTS
        while True:
            try:
                return [row for page in self.pages(progress=progress) for row in page.data]
            except InconsistentPagesError:
                attempts_left -= 1
                if attempts_left == 0:
                    raise
                log.info("%s: republished while reading; reading again", self._query.label)
                self._first = None

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
        self, use_exports: bool | None, progress: bool | None, reader: str, of_rows: Any, of_file: Any
    ) -> Any:
        exported = self._export_file(use_exports, progress, reader)
        row_type = self._query.row_type
        if exported is not None:
            columns = frames.file_columns(row_type, exported.download.columns, self._query.field_set)
            return of_file(exported.data, columns)
        rows = self.to_list(progress=progress)
        return of_rows(rows, frames.served_columns(row_type, rows, self._query.field_set))

    def to_polars(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        """A `polars.DataFrame` of the rows (needs the `polars` extra)."""
        frames.require("polars")
        return self._frame(use_exports, progress, "polars", frames.rows_to_polars, frames.parquet_to_polars)

    def to_arrow(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        """A `pyarrow.Table` of the rows (needs the `parquet` extra)."""
        frames.require("pyarrow")
        return self._frame(use_exports, progress, "pyarrow", frames.rows_to_arrow, frames.parquet_to_arrow)

    def to_pandas(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        """A `pandas.DataFrame` of the rows (needs the `pandas` extra)."""
        frames.require("pandas")
        return self._frame(use_exports, progress, "pyarrow", frames.rows_to_pandas, frames.parquet_to_pandas)


class Series(Collection[RowT], Generic[RowT, SummaryT]):
    """A dated series (equity curve, benchmark) with its `meta.summary` of the whole window."""

    @property
    def summary(self) -> SummaryT:
        summary: SummaryT = self.first_page().meta.summary
        return summary


def _truncated(page: Page[RowT], count: int) -> Page[RowT]:
    truncated: Page[RowT] = msgspec.structs.replace(page, data=page.data[:count])  # type: ignore[type-var]
    return truncated
