"""`Client`: one typed method per `/v1` endpoint.

The methods are generated from the served OpenAPI document (`_generated.GeneratedMethods`, written
by client/scripts/generate.py): a new route has its method once the module is regenerated, and
this file is not edited. Collections (`alphas`, `scores`, `trades`, ...) return a `Collection`
that pages lazily; single objects (`alpha`, `metrics`, `me`, ...) return the typed 200 body,
`data` and `meta`. Parameters keep the API's names, except `from`/`to`, which are `start`/`end`
in Python; None means "not sent" (the server's default applies).

What is written here is only what the document cannot say: the registry-version warning of
`health`, the downloads behind a signed URL, the listing of the books that warns of nothing, the
benchmark's price basis, and the events' cursor feed and stream.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from alpha_results_client._base import ClientBase, DateLike
from alpha_results_client._generated import (
    REGISTRY_VERSION,
    BenchmarkRow,
    BenchmarkSummary,
    BookRow,
    GeneratedMethods,
    Health,
)
from alpha_results_client.events import (
    FEED_PAGE_SIZE,
    STREAM_READ_TIMEOUT,
    EventFeed,
    EventStream,
    verify_webhook_signature,
)
from alpha_results_client.paging import Collection, Series

log = logging.getLogger("alpha_results_client")


# Here, not in paging.py: its row and summary are a route's types (`_generated.py`), which
# paging.py does not import (`_generated.py` imports it).
class BenchmarkSeries(Series[BenchmarkRow, BenchmarkSummary]):
    """The benchmark series (`client.benchmark`), with the price basis of its returns.

    `return_basis` is `"adjusted_close"` when every session of the window has an adjusted close,
    else `"close"` (a price return, without dividends; docs/api.md "Benchmark"): it applies to
    `period_return`, `cumulative_return`, `drawdown_pct` and the summary's returns and drawdowns.
    `to_pandas()` carries it in `frame.attrs["return_basis"]`, `to_arrow()` in the schema's
    metadata (`b"return_basis"`); a polars frame has nowhere to keep it.
    """

    def __repr__(self) -> str:
        text = super().__repr__()
        if self._head is None:  # a repr sends no request
            return text
        return f"{text[:-1]}, return_basis={self.return_basis!r}>"

    @property
    def return_basis(self) -> str | None:
        """`adjusted_close` or `close` (`summary.return_basis`); None when the window holds no session."""
        return self.summary.return_basis

    def to_arrow(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        table = super().to_arrow(use_exports=use_exports, progress=progress)
        if self.return_basis is None:
            return table
        metadata = {**(table.schema.metadata or {}), b"return_basis": self.return_basis.encode()}
        return table.replace_schema_metadata(metadata)

    def to_pandas(self, *, use_exports: bool | None = None, progress: bool | None = None) -> Any:
        frame = super().to_pandas(use_exports=use_exports, progress=progress)
        frame.attrs["return_basis"] = self.return_basis
        return frame


class Client(ClientBase, GeneratedMethods):
    """A client of the alpha-results API.

    >>> client = Client("https://api.example.com", token=None)  # token: else $ALPHA_RESULTS_TOKEN
    >>> client.alphas(search="momentum").to_polars()
    >>> curve = client.equity_curve("momentum_12_1")
    >>> curve.summary.max_drawdown_pct, curve.to_polars()

    `timeouts` and `retry` (config.py) tune each request; `page_size` is the rows per request of
    a collection (the server's maximum, 5000, by default); `progress=True` draws a progress line
    on long reads; `use_exports=False` keeps whole reads on JSON pages. The last two are the
    defaults of every read; one read overrides them: `collection.to_polars(use_exports=False,
    progress=True)` (also `to_pandas`, `to_arrow`; `progress=` on `to_list` and `pages`).

    Every route's method is generated (`GeneratedMethods`); the few below override or add to one
    where the client does more than the route's declaration says.
    """

    def health(self) -> Health:
        """`/v1/health` (no key needed, never metered). Logs a warning when the server's endpoint
        registry is not the one this client was generated from (see docs/client.md)."""
        # Written by hand: the comparison with the registry this client was generated from.
        health = super().health()
        if health.registry_version != REGISTRY_VERSION:
            log.warning(
                "the server's endpoint registry is %s, this client was generated from %s",
                health.registry_version,
                REGISTRY_VERSION,
            )
        return health

    def download_source(self, alpha: str) -> bytes:
        """The alpha's source archive (a zip), fetched from a signed URL and checked against its SHA-256."""
        # Written by hand: no route of its own, the download behind `source_download`'s signed URL.
        return self._exports.fetch(self.source_download(alpha).data)

    def books(self, alpha: str, *, as_of: str | None = None) -> Collection[BookRow]:
        """The (book, kind) pairs the run wrote, with their sessions, rows and dates; `.warnings`
        has a `kind_missing` per book kind the run never wrote (no `KindMissingWarning`: this
        listing is how to find out)."""
        # Written by hand: the one collection whose `kind_missing` warnings are its answer, not a warning.
        return self._collection("portfolio.books", {"alpha": alpha}, warn_kind_missing=False, as_of=as_of)

    def benchmark(
        self,
        symbol: str = "SPY",
        start: DateLike | None = None,
        end: DateLike | None = None,
        *,
        as_of: str | None = None,
    ) -> BenchmarkSeries:
        """A daily market index series (returns and drawdowns in the window), with `.summary`.

        The rows are every session the lake holds for `symbol` from `start` to `end`, both
        inclusive. Without them the window is the benchmark's whole stored series, not an alpha's:
        it starts at the series' first session, which is usually before an alpha's first date (in
        the demo lakes SPY starts on 2021-01-04, four sessions before the alphas' first rebalance
        on 2021-01-08). `cumulative_return` and `drawdown_pct` are measured from the window's
        first session (0 there, `period_return` None), so to compare with an alpha pass the
        window of its equity curve; both series then start at 0 on the same date and join on
        `date`:

            curve = client.equity_curve("momentum_12_1")
            spy = client.benchmark("SPY", curve.summary.first_date, curve.summary.last_date)

        The returns are on `adjusted_close` only when every session of the window has one, else
        on `close` (a price return, without dividends): see docs/client.md "Benchmarks"."""
        # Written by hand: SPY by default, and a `BenchmarkSeries` (`.return_basis` on every reading).
        return self._collection(
            "benchmarks.daily", {"symbol": symbol}, kind=BenchmarkSeries, start=start, end=end, as_of=as_of
        )

    def download_export(self, alpha: str, dataset: str, book: str | None = None) -> bytes:
        """The Parquet file of one dataset, checked against its announced size and SHA-256."""
        # Written by hand: no route of its own, the download behind `export`'s signed URL.
        return self._exports.fetch(self.export(alpha, dataset, book).data)

    # -- events ---------------------------------------------------------------------------------------

    # Written by hand: the feed pages by cursor and the stream is Server-Sent Events that
    # reconnect, which the routes' declarations (a page, a message) do not describe.
    def events(  # type: ignore[override]
        self,
        after: str | None = None,
        *,
        type: str | Iterable[str] | None = None,
        alpha: str | Iterable[str] | None = None,
        page_size: int = FEED_PAGE_SIZE,
    ) -> EventFeed:
        """Every event this key may see after the cursor `after` (from the oldest kept when None),
        oldest first, read page by page as it is iterated, up to the newest; `type` and `alpha` (one
        or several) narrow it. `.cursor` is where to resume: keep it, and pass it as `after` later
        (or as `last_event_id` to `stream_events`)."""
        return EventFeed(self._transport, after, type, alpha, page_size)

    def stream_events(  # type: ignore[override]
        self,
        last_event_id: str | None = None,
        *,
        after: str | None = None,
        type: str | Iterable[str] | None = None,
        alpha: str | Iterable[str] | None = None,
        read_timeout: float = STREAM_READ_TIMEOUT,
        max_failures: int | None = None,
    ) -> EventStream:
        """The events this key may see as they are recorded (Server-Sent Events), after
        `last_event_id` (or `after`; neither: from now on), for as long as it is iterated. It
        reconnects by itself with the last id it saw: no event is missed or repeated. `.close()`
        ends it; `.last_event_id` is where to resume."""
        return EventStream(
            self._transport,
            last_event_id,
            after,
            type,
            alpha,
            read_timeout=read_timeout,
            max_failures=max_failures,
        )

    verify_webhook_signature = staticmethod(verify_webhook_signature)
    """`alpha_results_client.verify_webhook_signature`: check a webhook delivery (no request made)."""
