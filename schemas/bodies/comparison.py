"""`/analytics/compare`: two alphas side by side, declared for the contract (schemas/bodies/base.py
says how a body is declared)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, UnsetType

from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.base import Body, Window
from schemas.bodies.decisions import DRAWDOWN_PCT


class DifferenceTest(Body, kw_only=True, frozen=True):
    """The paired test of a difference (docs/analytics.md, Comparison)."""

    name: Annotated[
        str,
        Meta(
            description="The test, in words: a paired t-test (mean daily return, mean weekly IC) or the "
            "Jobson-Korkie test with Memmel's correction (information ratio)."
        ),
    ]
    statistic: float | None
    p_value: Annotated[float | None, Meta(description="Two-sided.")]
    significant: bool | None
    level: float
    withheld_reason: str | UnsetType = UNSET


class ComparedFigure(Body, kw_only=True, frozen=True):
    """One headline figure of both alphas over their common sessions (or weeks)."""

    alpha: AnalyticsStat
    with_: AnalyticsStat = msgspec.field(name="with")
    difference: Annotated[
        float | None, Meta(description="alpha - with; null where either side is not measurable.")
    ]
    test: Annotated[
        DifferenceTest | None,
        Meta(description="Null for volatility, max_drawdown_pct and icir (no test is stated for them)."),
    ]


class ComparedFigures(Body, kw_only=True, frozen=True):
    """`figures` of the comparison object."""

    information_ratio: Annotated[
        ComparedFigure, Meta(description="Tested by Jobson-Korkie with Memmel's correction.")
    ]
    annualised_return: Annotated[
        ComparedFigure, Meta(description="Tested by a paired t-test on the daily returns.")
    ]
    volatility: ComparedFigure
    max_drawdown_pct: Annotated[ComparedFigure, Meta(description=DRAWDOWN_PCT)]
    mean_ic: Annotated[ComparedFigure, Meta(description="Tested by a paired t-test on the weekly IC.")]
    icir: ComparedFigure


class CompareEquityRow(Body, kw_only=True, frozen=True):
    """An entry of `equity` of the comparison object."""

    date: dt.date
    cumulative_return_alpha: float | None
    cumulative_return_with: float | None
    difference: float | None


class RollingCorrelationRow(Body, kw_only=True, frozen=True):
    """An entry of `rolling_return_correlation` or `rolling_ic_correlation`."""

    date: dt.date
    correlation: Annotated[
        float | None,
        Meta(description="Null until the trailing window is full, or where a side is constant over it."),
    ]


class RollingWindow(Body, kw_only=True, frozen=True):
    """`rolling_window` of the comparison object: the trailing windows of the rolling series."""

    sessions: int
    weeks: int


class Comparison(Body, kw_only=True, frozen=True):
    """Two alphas side by side over their common sessions (`/analytics/compare`)."""

    alpha: str
    with_: str = msgspec.field(name="with")
    book: str
    window: Window
    rolling_window: RollingWindow
    sessions: int | None
    weeks: int | None
    equity: list[CompareEquityRow] | None
    rolling_return_correlation: list[RollingCorrelationRow] | None
    rolling_ic_correlation: list[RollingCorrelationRow] | None
    return_correlation: AnalyticsStat
    ic_correlation: AnalyticsStat
    figures: ComparedFigures
