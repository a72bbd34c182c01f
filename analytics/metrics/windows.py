"""The `/metrics` figures a `from`/`to` window narrows, from prefix sums made once per build
(issue 61, item 2; `analytics.windows` has the sums and their error bound).

Each part is made the first time a request needs it and kept in the build's inputs
(`MetricsInputs.derived`, which lives as long as the opened build), each under its own key so that
a table that cannot be read fails only the block built on it (its `block_error`), as before. A
request then answers every windowed figure with two binary searches on the dates and O(1) array
reads: the same work for a year as for twenty.

Why here and not at publish: the sums are made from the serving tables the reader already maps
(weekly_signal, weekly_deciles, weekly_term, weekly_autocorr, the long_short ledger) in about a
millisecond per build, less than reading them back from a stored file would cost, and with no new
pipeline version, no lake growth and nothing that could disagree with the tables they sum.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from analytics.entries import DateWindow
from analytics.metrics.inputs import DECILE_MEANS, Columns, MetricsInputs
from analytics.windows import PrefixSums, WindowSeries, prefix_counts

BUCKET_COUNT = 10
_AVERAGED = ("n_symbols", *DECILE_MEANS)

T = TypeVar("T")


_ABSENT = object()


def kept(inputs: MetricsInputs, key: str, make: Callable[[], T]) -> T:
    """`make()` once per build's inputs (a race makes it twice, and both are the same)."""
    found = inputs.derived.get(key, _ABSENT)
    if found is _ABSENT:
        found = make()
        inputs.derived[key] = found
    return found


@dataclass(frozen=True)
class DecileSums:
    """Per bucket, the prefix sums over the weekly index (weekly_signal's rows) of the decile rows
    of the weeks ic_deciles uses: eligible and with forward returns."""

    weeks: np.ndarray  # weekly_signal's dates
    used: np.ndarray  # prefix counts of the used weeks
    ineligible: np.ndarray  # prefix counts of the weeks not decile_eligible
    rows: np.ndarray  # (W + 1, BUCKET_COUNT) prefix counts of the used decile rows
    finite: np.ndarray  # (W + 1, len(_AVERAGED) * BUCKET_COUNT) prefix counts of finite values
    sums: PrefixSums  # the same columns' sums (non-finite as 0)
    return_obs: PrefixSums  # (W + 1, BUCKET_COUNT) n_return_obs (null as 0)

    def window(self, window: DateWindow) -> DecileWindow:
        part = window.mask_sorted(self.weeks)
        a, b = part.start, part.stop
        counts = (self.finite[b] - self.finite[a]).reshape(len(_AVERAGED), BUCKET_COUNT)
        sums = self.sums.between(a, b).reshape(len(_AVERAGED), BUCKET_COUNT)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        return DecileWindow(
            used_weeks=int(self.used[b] - self.used[a]),
            weeks_skipped=int(self.ineligible[b] - self.ineligible[a]),
            weeks_per_bucket=self.rows[b] - self.rows[a],
            means=dict(zip(_AVERAGED, means, strict=True)),
            return_obs=self.return_obs.between(a, b),
        )


@dataclass(frozen=True)
class DecileWindow:
    used_weeks: int
    weeks_skipped: int
    weeks_per_bucket: np.ndarray
    means: dict[str, np.ndarray]  # name -> the mean per bucket (NaN: no finite value)
    return_obs: np.ndarray


def _decile_sums(weekly: Columns, deciles: Columns) -> DecileSums:
    weeks = weekly["date"]
    eligible = weekly["decile_eligible"].astype(bool)
    used = eligible & (np.nan_to_num(weekly["n_forward_returns"]) > 0)
    at = np.searchsorted(weeks, deciles["date"])
    found = at < weeks.size
    found[found] = weeks[at[found]] == deciles["date"][found]
    bucket = deciles["bucket"].astype(np.int64) - 1
    keep = found & (bucket >= 0) & (bucket < BUCKET_COUNT)
    keep[keep] = used[at[keep]]
    week, bucket = at[keep], bucket[keep]
    rows = np.zeros((weeks.size, BUCKET_COUNT), dtype=np.int64)
    np.add.at(rows, (week, bucket), 1)
    finite = np.zeros((weeks.size, len(_AVERAGED) * BUCKET_COUNT), dtype=np.int64)
    sums = np.zeros(finite.shape)
    for i, name in enumerate(_AVERAGED):
        values = deciles[name][keep]
        ok = np.isfinite(values)
        np.add.at(finite, (week[ok], i * BUCKET_COUNT + bucket[ok]), 1)
        np.add.at(sums, (week[ok], i * BUCKET_COUNT + bucket[ok]), values[ok])
    return_obs = np.zeros((weeks.size, BUCKET_COUNT))
    np.add.at(return_obs, (week, bucket), np.nan_to_num(deciles["n_return_obs"][keep]))
    return DecileSums(
        weeks=weeks,
        used=prefix_counts(used),
        ineligible=prefix_counts(~eligible),
        rows=np.vstack([np.zeros((1, BUCKET_COUNT), dtype=np.int64), np.cumsum(rows, axis=0)]),
        finite=np.vstack([np.zeros((1, finite.shape[1]), dtype=np.int64), np.cumsum(finite, axis=0)]),
        sums=PrefixSums.of(sums),
        return_obs=PrefixSums.of(return_obs),
    )


def decile_sums(inputs: MetricsInputs) -> DecileSums:
    weekly, deciles = inputs.weekly_signal, inputs.weekly_deciles
    assert weekly is not None and deciles is not None
    return kept(inputs, "windows.deciles", lambda: _decile_sums(weekly, deciles))


@dataclass(frozen=True)
class TradedWeeks:
    """The rebalance index's dates and the prefix counts of its traded weeks."""

    dates: np.ndarray
    traded: np.ndarray

    def window(self, window: DateWindow) -> tuple[slice, int]:
        part = window.mask_sorted(self.dates)
        return part, int(self.traded[part.stop] - self.traded[part.start])


def traded_weeks(inputs: MetricsInputs) -> TradedWeeks:
    rebalances = inputs.rebalances
    assert rebalances is not None
    return kept(
        inputs,
        "windows.traded",
        lambda: TradedWeeks(rebalances["date"], prefix_counts(rebalances["week_status"] == "traded")),
    )


def raw_ic_series(inputs: MetricsInputs) -> WindowSeries:
    """The weekly raw-score IC (nwt.ic_score_panel's series)."""
    weekly = inputs.weekly_signal
    assert weekly is not None
    return kept(inputs, "windows.raw_ic", lambda: WindowSeries.of(weekly["date"], weekly["raw_ic"]))


def ledger_returns(ledger: Columns) -> tuple[np.ndarray, np.ndarray]:
    """The long_short book's daily returns (NaN where a session's equity is missing or zero)."""
    starting, ending = ledger["starting_equity"], ledger["ending_equity"]
    ok = np.isfinite(starting) & np.isfinite(ending) & (starting != 0)
    returns = np.full(starting.shape, np.nan)
    returns[ok] = ending[ok] / starting[ok] - 1.0
    return ledger["date"], returns


def daily_return_series(inputs: MetricsInputs) -> WindowSeries:
    """The long_short book's daily returns (nwt.ir's series)."""
    ledger = inputs.ledger
    assert ledger is not None
    return kept(inputs, "windows.ir", lambda: WindowSeries.of(*ledger_returns(ledger)))


def level_series(
    inputs: MetricsInputs, table: str, level_column: str, level: int, value_column: str, min_lag: int | None
) -> WindowSeries | None:
    """One level (a horizon, a lag) of a per-week-and-level table (weekly_term, weekly_autocorr);
    `min_lag` as `WindowSeries.of` takes it (None: its mean only)."""
    columns: Columns | None = getattr(inputs, table)
    if columns is None:
        return None

    def make() -> WindowSeries:
        rows = columns[level_column] == level
        return WindowSeries.of(columns["date"][rows], columns[value_column][rows], min_lag)

    return kept(inputs, f"windows.{table}.{level}", make)
