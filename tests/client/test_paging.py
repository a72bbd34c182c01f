"""Paging through the real server gives the lake's rows, row for row.

The reference is the export file the lake holds for the build each alpha serves, read from disk
with polars (docs/api.md: each file equals its JSON route paged from start to end). The client
reads the same dataset twice: through JSON pages of an odd size (many pages), and through its
bulk path (the signed export URL, downloaded and verified). Both must equal the file.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import polars as pl
import pytest

from alpha_results_client import Client, Collection, InconsistentPagesError
from tests.client.conftest import Api, Key, LakeFile, Recorder

pytestmark = pytest.mark.e2e

PAGE_SIZE = 997  # several pages of the decision record, the last one partial
ALPHA = "momentum_12_1"


def rows_of(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.to_dicts()


def lake_rows(path: Any, columns: list[str] | None = None) -> list[dict[str, Any]]:
    frame = pl.read_parquet(path)
    return rows_of(frame.select(columns) if columns is not None else frame)


CASES = [
    # (client method, arguments, export file: dataset, book, raw variant)
    ("scores", {"fields": "all"}, ("decisions", None, False)),
    ("rebalances", {}, ("rebalances", None, False)),
    ("portfolio", {"book": "long_short"}, ("portfolio", "long_short", False)),
    ("positions", {"book": "long_only"}, ("positions", "long_only", False)),
    ("pnl", {}, ("pnl", "long_short", False)),
    ("trades", {"book": "long_short"}, ("trades", "long_short", False)),
    ("trades", {"book": "long_only_settlements"}, ("trades", "long_only_settlements", False)),
    ("equity_curve", {"book": "long_only"}, ("equity-curve", "long_only", False)),
]


@pytest.mark.parametrize(("method", "arguments", "file"), CASES, ids=[f"{c[0]}-{c[2][1]}" for c in CASES])
def test_json_pages_and_the_export_path_equal_the_lake(
    api: Api,
    plain_key: Key,
    lake_export: LakeFile,
    method: str,
    arguments: dict[str, Any],
    file: tuple[Any, ...],
) -> None:
    expected = lake_rows(lake_export(ALPHA, *file))
    page_size = len(expected) // 4 + 1  # four pages, the last one partial
    recorder = Recorder()
    with api.client(plain_key, page_size=page_size, http_transport=recorder.transport()) as client:
        collection: Collection[Any] = getattr(client, method)(ALPHA, **arguments)
        assert rows_of(collection.to_polars(use_exports=False)) == expected
        json_pages = list(recorder.exchanges)
        recorder.exchanges.clear()
        assert rows_of(collection.to_polars()) == expected
        # Each path was the one it claims: JSON pages only, then one export file and no JSON page.
        assert not any(path.startswith("/downloads/") for path, _ in json_pages) and len(json_pages) >= 4
        downloads = [path for path, _ in recorder.exchanges if path.startswith("/downloads/")]
        assert len(downloads) == 1 and downloads[0].endswith(".parquet"), recorder.exchanges
        data_path = json_pages[0][0]
        assert not any(path == data_path for path, _ in recorder.exchanges), recorder.exchanges
        assert collection.total == len(expected)
        assert sum(1 for _ in collection) == len(expected)


def test_raw_key_pages_equal_the_raw_export_files(api: Api, raw_key: Key, lake_export: LakeFile) -> None:
    with api.client(raw_key, page_size=PAGE_SIZE) as client:
        decisions = lake_rows(lake_export(ALPHA, "decisions", raw=True))
        assert rows_of(client.scores(ALPHA, fields="all").to_polars(use_exports=False)) == decisions
        trades = lake_rows(lake_export(ALPHA, "trades", "raw_long_short"))
        assert rows_of(client.trades(ALPHA, "raw_long_short").to_polars(use_exports=False)) == trades
        assert rows_of(client.trades(ALPHA, "raw_long_short").to_polars()) == trades


def test_the_score_panel_is_the_core_columns_of_the_decision_record(
    plain: Client, lake_export: LakeFile
) -> None:
    from schemas.wire import SCORE_CORE_FIELDS

    scores = plain.scores("Test_planted_factor")
    frame = scores.to_polars(use_exports=False)
    assert set(frame.columns) == set(SCORE_CORE_FIELDS) - {"raw_score"}  # a key without raw access
    expected = lake_rows(lake_export("Test_planted_factor", "decisions"), frame.columns)
    assert rows_of(frame) == expected
    assert rows_of(scores.to_polars()) == expected  # from the export, the same columns
    pandas = scores.to_pandas()
    assert list(pandas.columns) == frame.columns and len(pandas) == len(expected)
    numbers = ["score", "score_z", "forward_return"]  # pandas holds a null float as NaN
    assert pl.from_pandas(pandas[numbers]).to_dicts() == frame.select(numbers).to_dicts()


def test_the_json_only_key_reads_whole_datasets_by_pages(
    api: Api, json_only_key: Key, lake_export: LakeFile, recorder: Any
) -> None:
    expected = lake_rows(lake_export(ALPHA, "decisions"))
    with api.client(json_only_key, http_transport=recorder.transport()) as client:
        assert rows_of(client.scores(ALPHA, fields="all").to_polars()) == expected
    # It asked for the listing once, was refused, and paged: 3720 rows in one 5000-row page.
    assert recorder.statuses("/exports") == [403]
    assert not any(path.startswith("/downloads/") for path, _ in recorder.exchanges)
    assert recorder.statuses("/scores") == [200]


def test_a_window_or_a_filter_is_read_by_pages_not_from_the_export(
    api: Api, plain_key: Key, lake_export: LakeFile, recorder: Any
) -> None:
    everything = pl.read_parquet(lake_export(ALPHA, "positions", "long_short"))
    start, end = date(2021, 6, 1), date(2021, 9, 30)
    with api.client(plain_key, page_size=250, http_transport=recorder.transport()) as client:
        window = client.positions(ALPHA, start=start, end=end, symbol="fwc,NJHF").to_polars()
    expected = everything.filter(
        pl.col("date").is_between(start, end) & pl.col("symbol").is_in(["FWC", "NJHF"])
    )
    assert rows_of(window) == rows_of(expected)
    assert not any("/exports" in path for path, _ in recorder.exchanges)


def test_head_and_skip_read_only_what_they_need(api: Api, plain_key: Key, recorder: Any) -> None:
    with api.client(plain_key, page_size=40, http_transport=recorder.transport()) as client:
        everything = client.scores(ALPHA).head(200).to_list()
        recorder.queries.clear()
        window = client.scores(ALPHA).skip(55).head(70)
        rows = list(window)
        assert rows == everything[55:125]
        # a 40-row page at offset 55, then only the 30 rows left: nothing read beyond the window
        assert [(q["offset"], q["limit"]) for _, q in recorder.queries] == [("55", "40"), ("95", "30")]
        assert window.total == 3720


def test_every_page_of_the_catalogue_is_read_once(api: Api, plain_key: Key, recorder: Any) -> None:
    with api.client(plain_key, page_size=2, http_transport=recorder.transport()) as client:
        ids = [row.alpha_id for row in client.alphas()]
        matches = client.alphas(search="MOMENTUM")
        assert matches.total == len(matches.to_list()) >= 1
    assert len(ids) == len(set(ids)) == 7
    assert recorder.statuses("/v1/alphas")[:4] == [200, 200, 200, 200]
    listing = [q for path, q in recorder.queries if path == "/v1/alphas" and "search" not in q]
    assert [(q["offset"], q["limit"]) for q in listing] == [("0", "2"), ("2", "2"), ("4", "2"), ("6", "2")]


def test_a_cross_section_applies_every_filter_like_the_lake(plain: Client, lake_export: LakeFile) -> None:
    week = date(2021, 6, 4)
    decisions = pl.read_parquet(lake_export(ALPHA, "decisions")).filter(pl.col("date") == week)

    def symbols(collection: Collection[Any]) -> list[str]:
        return [row.symbol for row in collection]

    default = plain.cross_section(ALPHA, week)
    assert default.meta.date == week and default.meta.n_symbols == decisions.height  # type: ignore[attr-defined]
    at_noon = plain.cross_section(ALPHA, datetime(2021, 6, 4, 12, 0))  # a datetime names its trading day
    assert at_noon.meta.date == week  # type: ignore[attr-defined]
    by_score = decisions.sort(["score", "symbol"], descending=[True, False], nulls_last=True)
    assert symbols(default) == by_score["symbol"].to_list()

    longs = plain.cross_section(ALPHA, week, direction="long", sort="rank")
    expected = decisions.filter(pl.col("direction") == 1).sort(["average_rank", "symbol"], nulls_last=True)
    assert symbols(longs) == expected["symbol"].to_list()

    heavy = plain.cross_section(
        ALPHA, week, book="long_only", min_abs_weight=0.05, sort="weight", order="asc"
    )
    expected = decisions.filter(pl.col("long_only_target_weight").abs() >= 0.05).sort(
        ["long_only_target_weight", "symbol"], nulls_last=True
    )
    assert symbols(heavy) == expected["symbol"].to_list() and len(expected) > 0

    some = decisions["symbol"].to_list()[:3]
    picked = plain.cross_section(ALPHA, week, symbol=[s.lower() for s in some], sort="symbol")
    assert symbols(picked) == sorted(some)
    shorts = plain.cross_section(ALPHA, date(2021, 6, 4), direction=-1, sort="weight", order="desc")
    assert all(row.direction == -1 for row in shorts)


def test_a_series_carries_the_summary_of_its_whole_window(plain: Client) -> None:
    curve = plain.equity_curve(ALPHA, start="2021-03-01", end="2021-12-31")
    rows = curve.to_list()
    summary = curve.summary
    assert summary.sessions == len(rows) and summary.first_date == rows[0].date
    assert summary.total_return == pytest.approx(rows[-1].cumulative_return)
    spy = plain.benchmark("SPY", start="2021-03-01", end="2021-12-31")
    frame = spy.to_polars()
    assert spy.summary.symbol == "SPY" and spy.summary.sessions == frame.height
    assert frame["cumulative_return"][0] == 0.0


def test_progress_writes_one_line_to_stderr(plain: Client, capsys: pytest.CaptureFixture[str]) -> None:
    plain.scores(ALPHA).head(300).to_list(progress=True)
    assert capsys.readouterr().err.rstrip().endswith("signals.scores momentum_12_1: 300/300 rows")
    plain.scores(ALPHA).head(10).to_list()
    assert capsys.readouterr().err == ""  # off by default
    frame = plain.scores(ALPHA, fields="all").to_polars(progress=True)  # one Parquet file, in bytes
    line = capsys.readouterr().err.rstrip().rsplit("\r", 1)[-1]
    assert line.startswith("signals.scores momentum_12_1 (Parquet export): ") and line.endswith(" bytes")
    done, total = line.split(": ")[1].removesuffix(" bytes").split("/")
    assert done == total and frame.height == 3720


def test_pages_from_two_builds_are_never_mixed() -> None:
    from alpha_results_client._generated import AlphaListRow, AlphaListRowPage, Meta, Pagination
    from alpha_results_client.paging import Query

    pages = iter(
        [
            AlphaListRowPage(
                data=[
                    AlphaListRow(alpha_id=f"a{i}", name="x", tldr=None, standing="never", approved_since=None)
                ],
                pagination=Pagination(limit=1, offset=i, returned=1, total=3, has_more=True),
                meta=Meta(source=f"lake:catalog@build{1 if i == 0 else 2}"),
            )
            for i in range(3)
        ]
    )

    class Pages:
        def get_json(self, path: str, params: Any, response_type: Any) -> Any:
            return next(pages)

    query = Query("/v1/alphas", {}, AlphaListRowPage, AlphaListRow, "catalogue")
    collection: Collection[Any] = Collection(Pages(), None, query, page_size=1)  # type: ignore[arg-type]
    with pytest.raises(InconsistentPagesError, match="build1 and then from lake:catalog@build2"):
        list(collection)
