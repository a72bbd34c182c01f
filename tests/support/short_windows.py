"""The returns each figure's formula needs (`NEEDS`; why: tests/analytics/test_short_windows.py)
and the window lengths walked (`LENGTHS`)."""

from __future__ import annotations

NEEDS: dict[str, int] = {
    # a standard deviation (ddof 1) needs 2 returns
    "sharpe": 2,
    "information_ratio": 2,
    "excess_sharpe": 2,
    "tracking_error": 2,
    "net_information_ratio": 2,
    "net_information_ratio_at_cost": 2,
    "serial_correlation": 4,
    "kurtosis": 4,
    "skewness": 3,
    "sharpe_standard_error": 4,
    "psr": 4,
    "min_track_record": 4,
    "critical_sharpe": 4,
    "power": 4,
    "dsr": 4,
    "dsr_family": 4,
    "clustered_dsr": 4,
    "effective_dsr": 4,
    "sharpe_t_statistic": 4,
    "deflated_sharpe": 4,
}
"""Returns each figure (by its field name, or its check's id) needs for its formula
(tests/analytics/test_short_windows.py's docstring says why)."""


LENGTHS = range(0, 11)
