"""Window boundaries against numpy's calendar truncation, for any instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from serve.limits.windows import WINDOW_NAMES, current_windows

instants = st.datetimes(
    min_value=datetime(1971, 1, 1), max_value=datetime(2999, 12, 31), timezones=st.just(UTC)
)


NumpyUnit = Literal["s", "m", "D", "M"]


def numpy_bounds(moment: datetime, unit: NumpyUnit) -> tuple[int, int]:
    stamp = np.datetime64(moment.replace(tzinfo=None), "us")
    start = stamp.astype(f"datetime64[{unit}]")
    end = start + np.timedelta64(1, unit)
    return int(start.astype("datetime64[s]").astype("int64")), int(
        end.astype("datetime64[s]").astype("int64")
    )


@given(instants)
def test_windows_match_numpy_truncation(moment: datetime) -> None:
    windows = current_windows(moment)
    assert tuple(w.name for w in windows) == WINDOW_NAMES
    units: tuple[NumpyUnit, ...] = ("s", "m", "D", "M")
    for window, unit in zip(windows, units, strict=True):
        assert (window.start_epoch, window.reset_epoch) == numpy_bounds(moment, unit)
        assert window.start <= moment < window.reset


@given(instants)
def test_seconds_until_reset_is_rounded_up_and_positive(moment: datetime) -> None:
    for window in current_windows(moment):
        wait = window.seconds_until_reset(moment)
        assert wait >= 1
        assert moment + timedelta(seconds=wait) >= window.reset
        assert moment + timedelta(seconds=wait - 1) < window.reset or wait == 1
