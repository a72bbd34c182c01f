"""`client.benchmark`: which sessions come back, and how to line them up with an alpha."""

from __future__ import annotations

from datetime import date

import pytest

from alpha_results_client import Client

pytestmark = pytest.mark.e2e

ALPHA = "momentum_12_1"


def test_the_default_window_is_the_whole_series_and_an_alpha_window_aligns(plain: Client) -> None:
    curve = plain.equity_curve(ALPHA)
    curve_rows = curve.to_list()
    first, last = curve.summary.first_date, curve.summary.last_date
    assert (first, last) == (curve_rows[0].date, curve_rows[-1].date) == (date(2021, 1, 8), date(2022, 3, 11))

    # No window: the benchmark's whole series, which starts four sessions before the alpha.
    whole = plain.benchmark()
    rows = whole.to_list()
    assert whole.summary.first_date == rows[0].date == date(2021, 1, 4)
    assert whole.summary.last_date == rows[-1].date == last
    assert whole.summary.sessions == len(rows)
    before = [row.date for row in rows if row.date < first]
    assert before == [date(2021, 1, day) for day in (4, 5, 6, 7)]
    assert rows[0].cumulative_return == 0.0 and rows[0].period_return is None
    on_first = next(row for row in rows if row.date == first)
    assert on_first.cumulative_return != 0.0  # measured from 2021-01-04, not from the alpha's start

    # The documented alignment: the curve's window. Same sessions, both based on the same day.
    spy = plain.benchmark("SPY", first, last)
    aligned = spy.to_list()
    assert [row.date for row in aligned] == [row.date for row in curve_rows]
    assert aligned[0].cumulative_return == 0.0 and aligned[0].period_return is None
    assert spy.summary.first_date == first and spy.summary.sessions == len(curve_rows)
    # Rebased, not re-measured: the aligned series is the whole one divided by its value on `first`.
    growth = {row.date: 1 + row.cumulative_return for row in rows if row.cumulative_return is not None}
    for row in aligned[1:]:
        assert row.cumulative_return == pytest.approx(growth[row.date] / growth[first] - 1, abs=1e-12)

    joined = curve.to_polars().join(spy.to_polars(), on="date", suffix="_spy")
    assert joined.height == len(curve_rows) and joined["cumulative_return_spy"][0] == 0.0


def test_the_price_basis_is_shown_beside_the_returns(plain: Client) -> None:
    unread = plain.benchmark()
    assert repr(unread) == "<BenchmarkSeries benchmarks.daily SPY>"  # a repr sends no request

    # The whole series starts without adjusted prices (until 2021-04-05): on close, a price return.
    whole = plain.benchmark()
    rows = whole.to_list()
    assert whole.return_basis == whole.summary.return_basis == "close"
    assert repr(whole) == "<BenchmarkSeries benchmarks.daily SPY, return_basis='close'>"
    assert "return_basis='close'" in repr(whole.summary)
    base = rows[0].close
    assert base is not None
    for row in rows[1:]:
        assert row.close is not None and row.cumulative_return == pytest.approx(row.close / base - 1)
    assert plain.benchmark(start="2021-04-05").return_basis == "close"  # one session without one

    # From the first adjusted session: adjusted_close, which `close` (unadjusted) no longer explains.
    adjusted = plain.benchmark("SPY", start="2021-04-06")
    assert adjusted.return_basis == "adjusted_close"
    assert "return_basis='adjusted_close'" in repr(adjusted.summary)
    last = adjusted.to_list()[-1]
    first_close, last_close = adjusted.summary.first_close, adjusted.summary.last_close
    assert first_close is not None and last_close is not None and last.cumulative_return is not None
    assert last.cumulative_return > last_close / first_close - 1  # dividends counted

    pandas = adjusted.to_pandas()
    assert pandas.attrs["return_basis"] == "adjusted_close"
    arrow = plain.benchmark("SPY", end="2021-06-30").to_arrow()
    assert arrow.schema.metadata[b"return_basis"] == b"close"
