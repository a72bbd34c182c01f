"""Whole reads that no export holds page Arrow IPC streams, and give the frame JSON pages give.

A frame of a window, a symbol filter, a route without export or `use_exports=False` is read from
pages of `Accept: application/vnd.apache.arrow.stream` when pyarrow is installed. Each case reads
the same collection twice through the real server, in several pages: once by JSON pages (the
path the client takes without pyarrow, chosen here through `paging.reads_arrow_pages`) and once
by Arrow pages; the polars, pandas and Arrow frames must be equal, columns, order and types
included. Without pyarrow the client still pages JSON.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal as assert_polars_equal

from alpha_results_client import Client, Collection, InconsistentPagesError, KindMissingWarning, paging
from alpha_results_client.frames import MissingDependencyError
from tests.client.conftest import Api, Key, Recorder

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"
ARROW = "application/vnd.apache.arrow.stream"
JSON = "application/json"
CASES = [
    # (client method, positional arguments, keyword arguments, raw key)
    ("scores", (ALPHA, "2021-03-01", "2021-09-30"), {"fields": "all"}, False),
    ("scores", (ALPHA, "2021-03-01", "2021-09-30"), {"fields": "all"}, True),
    ("positions", (ALPHA, "long_only"), {"symbol": "FWC,NJHF,AAPL"}, False),
    ("equity_curve", (ALPHA,), {"book": "long_only"}, False),
    ("trades", (ALPHA, "long_short", "2021-06-01"), {}, True),
    ("screen", (), {"sort": "-information_ratio"}, False),
    ("benchmark", ("SPY", "2021-03-01", "2021-12-31"), {}, False),
    ("cross_section", (ALPHA, "2021-06-04"), {"sort": "symbol"}, True),
]


def read(client: Client, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Collection[Any]:
    collection: Collection[Any] = getattr(client, method)(*args, **kwargs)
    return collection


def frames_of(collection: Collection[Any]) -> tuple[Any, Any, Any]:
    # use_exports=False: the equity curve is a whole dataset, which would come from its export
    return (
        collection.to_polars(use_exports=False),
        collection.to_pandas(use_exports=False),
        collection.to_arrow(use_exports=False),
    )


def assert_same_frames(by_json: tuple[Any, Any, Any], by_arrow: tuple[Any, Any, Any]) -> None:
    (polars_json, pandas_json, arrow_json), (polars_arrow, pandas_arrow, arrow_arrow) = by_json, by_arrow
    assert polars_arrow.schema == polars_json.schema  # names, order and dtypes
    assert_polars_equal(polars_arrow, polars_json)
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(pandas_arrow, pandas_json)
    assert pandas_arrow.attrs == pandas_json.attrs  # a benchmark's return_basis
    assert arrow_arrow.schema.equals(arrow_json.schema, check_metadata=True)
    assert_polars_equal(pl.from_arrow(arrow_arrow), pl.from_arrow(arrow_json))  # type: ignore[arg-type]


@contextlib.contextmanager
def json_pages() -> Iterator[None]:
    """Reads as the client without pyarrow reads them (JSON pages), pyarrow still there to compare."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(paging, "reads_arrow_pages", lambda: False)
        yield


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "raw"), CASES, ids=[f"{c[0]}-{'raw' if c[3] else 'plain'}" for c in CASES]
)
def test_frames_of_arrow_pages_equal_frames_of_json_pages(
    api: Api,
    plain_key: Key,
    raw_key: Key,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    raw: bool,
) -> None:
    key = raw_key if raw else plain_key
    with api.client(key) as probe:
        total = read(probe, method, args, kwargs).total
    assert total >= 3
    page_size = total // 3 + 1  # three pages, the last one partial
    recorder = Recorder()
    with api.client(key, page_size=page_size, http_transport=recorder.transport()) as client:
        with json_pages():
            by_json = frames_of(read(client, method, args, kwargs))
        json_accepts = list(recorder.accepts)
        recorder.accepts.clear()
        by_arrow = frames_of(read(client, method, args, kwargs))

    assert_same_frames(by_json, by_arrow)
    assert by_arrow[0].height == total
    # Each read paged as it claims: JSON pages only, then three Arrow pages per frame and nothing
    # else (not even a JSON first page for the meta a Series or a benchmark reads).
    assert {accept for _, accept in json_accepts} == {JSON} and len(json_accepts) >= 3, json_accepts
    assert [accept for _, accept in recorder.accepts] == [ARROW] * 9, recorder.accepts
    if raw and method in ("scores", "cross_section"):
        assert any(name.startswith("raw_") for name in by_arrow[0].columns)


def test_head_and_skip_read_only_their_arrow_pages(api: Api, plain_key: Key) -> None:
    recorder = Recorder()
    with api.client(plain_key, page_size=40, http_transport=recorder.transport()) as client:
        with json_pages():
            expected = client.scores(ALPHA).head(200).to_polars()[55:125]
        recorder.queries.clear()
        recorder.accepts.clear()
        window = client.scores(ALPHA).skip(55).head(70).to_polars()
    assert_polars_equal(window, expected)
    assert [(q["offset"], q["limit"]) for _, q in recorder.queries] == [("55", "40"), ("95", "30")]
    assert {accept for _, accept in recorder.accepts} == {ARROW}


def test_a_whole_read_is_arrow_pages_of_the_servers_maximum(api: Api, plain_key: Key) -> None:
    """The default page size is the server's maximum: the window's 1,800-odd rows are one page."""
    recorder = Recorder()
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        scores = client.scores(ALPHA, start="2021-03-01", end="2021-09-30", fields="all")
        frame = scores.to_polars()
        assert scores.total == frame.height > 1000  # the first page's total, without another request
    assert recorder.accepts == [(f"/v1/alphas/{ALPHA}/scores", ARROW)]
    assert [q["limit"] for _, q in recorder.queries] == ["5000"]


def test_arrow_pages_warn_kind_missing_as_json_pages_do(api: Api, plain_key: Key) -> None:
    recorder = Recorder()
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        scores = client.scores("Test_ledger_only", start="2021-01-01")
        with pytest.warns(KindMissingWarning) as caught:
            frame = scores.to_polars()
        assert [(w.filename, w.message.kind) for w in caught] == [(__file__, "decisions")]  # type: ignore[union-attr]
        assert frame.height == 0 and frame.schema["date"] == pl.Date and "score" in frame.columns
        with warnings.catch_warnings():
            warnings.simplefilter("error", KindMissingWarning)
            assert [(w.code, w.kind) for w in scores.warnings] == [("kind_missing", "decisions")]
            assert scores.to_polars().height == 0  # the same first page: warned once, as JSON reads do
    assert {accept for _, accept in recorder.accepts} == {ARROW}


def test_progress_of_arrow_pages_counts_rows_as_json_pages_do(
    plain: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    def last_line() -> str:
        return capsys.readouterr().err.rstrip().rsplit("\r", 1)[-1]

    frame = plain.scores(ALPHA, start="2021-03-01").to_polars(progress=True)
    line = last_line()
    with json_pages():
        plain.scores(ALPHA, start="2021-03-01").to_polars(progress=True)
    assert line == last_line() == f"signals.scores {ALPHA}: {frame.height:,}/{frame.height:,} rows"


def test_without_pyarrow_whole_reads_page_json(
    api: Api, plain_key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = Recorder()
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        by_arrow = client.positions(ALPHA, start="2021-06-01", symbol="FWC,NJHF").to_polars()
        assert {accept for _, accept in recorder.accepts} == {ARROW}
        recorder.accepts.clear()
        monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` now fails
        by_json = client.positions(ALPHA, start="2021-06-01", symbol="FWC,NJHF").to_polars()
        with pytest.raises(MissingDependencyError, match=r"alpha-results-client\[parquet\]"):
            client.positions(ALPHA, start="2021-06-01").to_arrow()
    assert_polars_equal(by_json, by_arrow)
    assert by_json.height > 0 and {accept for _, accept in recorder.accepts} == {JSON}


def test_a_server_without_representations_is_read_through_json_pages(api: Api, plain_key: Key) -> None:
    """A server older than the representations answers an Arrow `Accept` with JSON: the read
    falls back to JSON pages, and later reads of the client go there at once."""
    import httpx

    recorder = Recorder()

    class OldServer(httpx.BaseTransport):  # forgets the Accept header, as an older server ignored it
        def __init__(self) -> None:
            self.inner = recorder.transport()

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            request.headers["Accept"] = JSON
            return self.inner.handle_request(request)

    with api.client(plain_key) as client:
        expected = client.positions(ALPHA, start="2021-06-01", symbol="FWC,NJHF").to_polars()
    with api.client(plain_key, http_transport=OldServer()) as client:
        first = client.positions(ALPHA, start="2021-06-01", symbol="FWC,NJHF").to_polars()
        asked = len(recorder.exchanges)
        second = client.positions(ALPHA, start="2021-06-01", symbol="FWC,NJHF").to_polars()
    assert_polars_equal(first, expected)
    assert_polars_equal(second, expected)
    assert len(recorder.exchanges) - asked < asked  # the second read did not ask for Arrow first


# -- a republish between two pages, simulated ------------------------------------------------------


def test_a_republish_between_arrow_pages_starts_over() -> None:
    from alpha_results_client._generated import AlphaListRow, AlphaListRowPage, Meta, Pagination
    from alpha_results_client.paging import Query
    from alpha_results_client.transport import ArrowPage

    def page(offset: int, build: int) -> ArrowPage:
        columns = {"alpha_id": [f"{build}-{offset}"], "name": ["x"], "tldr": [None], "standing": ["never"]}
        table = pa.table(columns | {"approved_since": pa.array([None], pa.date32())})
        pagination = Pagination(limit=1, offset=offset, returned=1, total=3, has_more=offset < 2)
        return ArrowPage(table, pagination, Meta(source=f"lake:catalog@build{build}"))

    # build 1 for the first page, then build 2 (a republish): the read starts over, on build 2
    served = iter([page(0, 1), page(1, 2), page(0, 2), page(1, 2), page(2, 2)])
    asked: list[dict[str, str]] = []

    class ArrowTransport:
        serves_arrow = None

        def get_arrow(self, path: str, params: dict[str, str], page_type: Any) -> ArrowPage:
            assert page_type is AlphaListRowPage
            asked.append(params)
            return next(served)

    query = Query("/v1/alphas", {}, AlphaListRowPage, AlphaListRow, "catalogue")
    collection: Collection[Any] = Collection(ArrowTransport(), None, query, page_size=1)  # type: ignore[arg-type]
    frame = collection.to_polars()
    assert frame["alpha_id"].to_list() == ["2-0", "2-1", "2-2"]
    assert frame.schema == pl.Schema(
        {
            "alpha_id": pl.String,
            "name": pl.String,
            "tldr": pl.String,
            "standing": pl.String,
            "approved_since": pl.Date,
        }
    )
    assert [p["offset"] for p in asked] == ["0", "1", "0", "1", "2"]
    assert collection.meta.source == "lake:catalog@build2"

    # a build that changes at every read: three attempts, then the error
    served = iter([page(0, 1), page(1, 2), page(0, 2), page(1, 3), page(0, 3), page(1, 4)])
    with pytest.raises(InconsistentPagesError, match="build3 and then from lake:catalog@build4"):
        Collection(ArrowTransport(), None, query, page_size=1).to_arrow()  # type: ignore[arg-type]
