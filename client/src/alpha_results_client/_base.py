"""What every endpoint method of `Client` shares: the connection, and turning Python arguments
into one request of a declared endpoint (`_generated.ENDPOINTS`): `_answer`, which every
generated method (`_generated.GeneratedMethods`) calls."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any, TypeVar

import httpx
import msgspec

from alpha_results_client._generated import COLUMN_SETS, ENDPOINTS, Endpoint
from alpha_results_client.config import MAX_PAGE_SIZE, RetryPolicy, Timeouts, resolve_base_url, resolve_token
from alpha_results_client.exports import ExportReader, ExportTarget
from alpha_results_client.paging import Collection, Query, Series
from alpha_results_client.ratelimit import RateLimitStatus
from alpha_results_client.transport import Transport

T = TypeVar("T")
PAGING = frozenset({"limit", "offset"})
UNNARROWING = frozenset({"book", "fields"})
"""Parameters that pick what a whole-dataset read is of (a book, a column set), never which rows:
any other value sent (a window, a symbol filter) makes the read not equal to an export."""
EXPORTED = {
    "signals.rebalances.list": "rebalances",
    "signals.scores": "decisions",
    "portfolio.ledger": "portfolio",
    "portfolio.positions": "positions",
    "portfolio.pnl": "pnl",
    "portfolio.trades": "trades",
    "portfolio.equity_curve": "equity-curve",
}
"""The Parquet export (docs/api.md "Parquet exports") equal, row for row, to the whole collection
of a route (of the book served): a whole read of it (`to_polars()`, ...) reads the file instead of
paging. The served document does not link a route to its export, so the client keeps it here; a
route without one pages, as every new route does until it is added."""
DateLike = dt.date | str
Symbols = str | Iterable[str]


def wire_value(value: Any) -> str:
    """A parameter value as the query string carries it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):  # a trading day is wanted: its date, never a time of day
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Iterable):
        return ",".join(str(item) for item in value)  # a ticker list
    raise TypeError(f"cannot send {value!r} as a query parameter")


class ClientBase:
    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        page_size: int = MAX_PAGE_SIZE,
        progress: bool = False,
        use_exports: bool = True,
        http_transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be 1 to {MAX_PAGE_SIZE}")
        self.base_url = resolve_base_url(base_url)
        self.page_size = page_size
        self.progress = progress
        self.use_exports = use_exports
        self._transport = Transport(
            self.base_url,
            resolve_token(token),
            timeouts=timeouts or Timeouts(),
            retry=retry or RetryPolicy(),
            http_transport=http_transport,
        )
        self._exports = ExportReader(
            self._transport, ENDPOINTS["exports.list"], ENDPOINTS["exports.download"]
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"  # never the token

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._transport.close()

    @property
    def rate_limit(self) -> RateLimitStatus | None:
        """The rate-limit headers of the last metered response, or None before the first."""
        return self._transport.pacer.status

    # -- requests ------------------------------------------------------------------------------------

    @staticmethod
    def _query(endpoint: Endpoint, values: dict[str, Any]) -> dict[str, str]:
        """The query string of `values` (Python names, None for "not sent")."""
        known = {param.attr: param for param in endpoint.params if param.name not in PAGING}
        unknown = set(values) - set(known)
        if unknown:
            raise TypeError(f"{endpoint.id} takes no parameter {', '.join(sorted(unknown))}")
        return {known[attr].name: wire_value(value) for attr, value in values.items() if value is not None}

    def call(self, endpoint_id: str, /, **values: Any) -> Any:
        """Any endpoint of the API by its registry id, from what the served document declares:
        `client.call("analytics.risk", alpha="momentum_12_1", book="long_only")`. Path parameters
        and query parameters are keywords alike (Python names: `start`/`end` for `from`/`to`); a
        collection comes back as a lazy `Collection` of its typed rows, a single object as its typed
        200 body. The named methods (`risk`, `scores`, ...) are this plus positional parameters,
        a whole-dataset export where one matches, and a series' summary."""
        endpoint = ENDPOINTS.get(endpoint_id)
        if endpoint is None:
            raise ValueError(f"no endpoint {endpoint_id!r}; the API declares {', '.join(ENDPOINTS)}")
        _refuse_stream(endpoint)
        names = endpoint.path_names()
        missing = [name for name in names if values.get(name) is None]
        if missing:
            raise TypeError(f"{endpoint_id} needs the path parameter(s) {', '.join(missing)}")
        path_values = {name: wire_value(values.pop(name)) for name in names}
        if endpoint.collection:
            return self._collection(endpoint_id, path_values, **values)
        return self._single(endpoint_id, path_values, **values)

    def _answer(self, endpoint_id: str, path_values: dict[str, Any], values: dict[str, Any]) -> Any:
        """The answer of a generated method: `path_values` fill the path, `values` (Python names)
        are the query, a value equal to the served default or None is not sent (the server applies
        its default: the request is the one a call without it makes). A collection is lazy, with
        the export of `EXPORTED` for whole reads, a `Series` when its meta has the window's summary."""
        endpoint = ENDPOINTS[endpoint_id]
        _refuse_stream(endpoint)
        defaults = {param.attr: param.default for param in endpoint.params}
        sent = {
            attr: value
            for attr, value in values.items()
            if value is not None and not _is_default(value, defaults.get(attr))
        }
        filled = {name: wire_value(value) for name, value in path_values.items()}
        if not endpoint.collection:
            return self._single(endpoint_id, filled, **sent)
        kind: type[Collection[Any]] = Series if endpoint.series else Collection
        return self._collection(endpoint_id, filled, export=EXPORTED.get(endpoint_id), kind=kind, **sent)

    def _single(self, endpoint_id: str, path_values: dict[str, str], **values: Any) -> Any:
        endpoint = ENDPOINTS[endpoint_id]
        path = endpoint.url_path(**path_values)
        return self._transport.get_json(path, self._query(endpoint, values), endpoint.response)

    def _collection(
        self,
        endpoint_id: str,
        path_values: dict[str, str],
        *,
        export: str | None = None,
        kind: type[Collection[Any]] = Collection,
        warn_kind_missing: bool = True,
        **values: Any,
    ) -> Any:
        """A lazy collection of `endpoint_id`, of class `kind` (a `Series` for a dated series with
        its summary); `export` names the Parquet dataset equal to the whole collection (of the book
        served), used only when no other value narrows the read; `warn_kind_missing=False` keeps
        the page's `kind_missing` warnings in `.warnings` only."""
        endpoint = ENDPOINTS[endpoint_id]
        page_type = endpoint.response
        served = {param.attr: param.default for param in endpoint.params}
        served.update((attr, value) for attr, value in values.items() if value is not None)
        column_set = COLUMN_SETS.get(endpoint_id, {}).get(served.get("fields") or "")
        narrowed = any(value is not None for attr, value in values.items() if attr not in UNNARROWING)
        target = None
        if export is not None and not narrowed:
            target = ExportTarget(path_values["alpha"], export, served.get("book"))
        query = Query(
            path=endpoint.url_path(**path_values),
            params=self._query(endpoint, values),
            page_type=page_type,
            row_type=_row_type_of(page_type),
            label=f"{endpoint_id} {' '.join(path_values.values())}".strip(),
            field_set=frozenset(column_set) if column_set else None,
            export=target,
            alpha=path_values.get("alpha"),
            warn_kind_missing=warn_kind_missing,
            # A route answers pages in other representations when it declares `format`.
            arrow_pages=any(param.name == "format" for param in endpoint.params),
        )
        return kind(
            self._transport,
            self._exports,
            query,
            page_size=self.page_size,
            progress=self.progress,
            use_exports=self.use_exports,
        )


def _is_default(value: Any, default: Any) -> bool:
    """Whether `value` is sent as the served default is (`26` and `"26"` alike)."""
    if default is None:
        return False
    try:
        return wire_value(value) == wire_value(default)
    except TypeError:
        return False


def _refuse_stream(endpoint: Endpoint) -> None:
    if endpoint.stream:
        raise TypeError(f"{endpoint.id} is a stream of Server-Sent Events: read it with Client.stream_events")


def _row_type_of(page_type: type[Any]) -> type[Any]:
    """`XRow` of a page type whose `data` is `list[XRow]`."""
    info = msgspec.inspect.type_info(page_type)
    assert isinstance(info, msgspec.inspect.StructType), page_type
    data = next(field for field in info.fields if field.name == "data")
    assert isinstance(data.type, msgspec.inspect.ListType), page_type
    item = data.type.item_type
    assert isinstance(item, msgspec.inspect.StructType), page_type
    return item.cls
