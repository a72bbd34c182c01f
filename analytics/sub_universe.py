"""Robust to where it trades (`/analytics/sub_universe`, issue 62 item 6; docs/analytics.md
"Sub-universe test").

Once per build, in the pipeline (`sub_universe_frame`): each rebalance week's names with a finite
conditioned score and a finite forward return (the names the weekly IC ranks) are split

- by the sealed average daily volume (`exposures.adv`): the liquid half is the names whose adv is
  at or above the week's median adv over those names that have one (finite and > 0), the illiquid
  half the rest of them; names without an adv are in neither half (counted as `without_adv`);
- at random, DRAWS times: each draw a random ceil(n / 2) of the week's n names (with or without an
  adv), drawn with numpy's default generator seeded with (SEED, the week's day number), so a
  week's draws do not depend on the build's other weeks;

and each part's weekly IC is the one rank rule of the weekly IC (`analytics.ranks.spearman_by`:
Spearman with average ranks, null below 3 pairs or when a side is constant), the rule that makes
`weekly_signal.ic`. A request aggregates a window of those weeks: per part the mean IC and the
ICIR (mean / std(ddof=1), annualised by `analytics.ic.annualised_icir`), against the full
cross-section's (`weekly_signal.ic`), and WorldQuant's sub-universe test: a part passes when its
ICIR >= RATIO x sqrt(n_sub / n) x the full ICIR, n_sub and n its and the full cross-section's mean
names per week. The "Sharpe" of the test is the IC's information ratio: the per-week figure a
cross-section of scores has without a book traded on each half.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import numpy as np
import polars as pl
import pyarrow as pa

from analytics import ic as ic_basis
from analytics.access import Access, withheld
from analytics.entries import Warnings, conventions, number, window_echo
from analytics.errors import AnalyticsNotBuilt
from analytics.ranks import spearman_by
from analytics.variance import measurable_std
from datasets.queries import Window, window_bounds
from datasets.reader import BuildView
from datasets.rows import floats
from schemas.bodies.sub_universe import (
    DRAWS,
    RATIO,
    SEED,
    SPLIT,
    RandomHalves,
    SubUniverse,
    SubUniverseHalf,
)

TABLE = "analytics_sub_universe"
WITHOUT_ADV, LIQUID, ILLIQUID = -1, 0, 1
"""The `part` codes of the table: names without an adv (counted, no IC), the liquid and the
illiquid half; a random draw r (0..DRAWS-1) is part 2 + r."""
FIRST_DRAW = 2


# -- the weekly table (pipeline) --------------------------------------------------------------------


def liquid_mask(adv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(liquid, illiquid) masks of one week's names by their adv: liquid when adv >= the median of
    the finite, positive advs; a name without one is in neither."""
    has = np.isfinite(adv) & (adv > 0)
    if not has.any():
        return np.zeros(adv.size, bool), np.zeros(adv.size, bool)
    median = float(np.median(adv[has]))
    liquid = has & (adv >= median)
    return liquid, has & ~liquid


def random_halves(day: int, n: int, draws: int = DRAWS) -> np.ndarray:
    """(draws, ceil(n/2)) positions among a week's n names (in symbol order): each row a random
    half, from numpy's default generator seeded with (SEED, day)."""
    rng = np.random.default_rng([SEED, day])
    return np.argsort(rng.random((draws, n)), axis=1)[:, : (n + 1) // 2]


def sub_universe_frame(decisions: pl.DataFrame, exposures: pl.DataFrame, draws: int = DRAWS) -> pl.DataFrame:
    """The rows of `analytics_sub_universe` (schemas.lake): per week and part, its IC and names."""
    named = (
        decisions.select("date", "symbol", "score", "forward_return")
        .filter(
            pl.col("score").is_not_null()
            & pl.col("forward_return").is_not_null()
            & pl.col("score").is_finite()
            & pl.col("forward_return").is_finite()
        )
        .join(exposures.select("date", "symbol", "adv"), on=["date", "symbol"], how="left")
        .sort("date", "symbol")
    )
    days = named["date"].cast(pl.Int32).to_numpy()
    adv = named["adv"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    starts = np.flatnonzero(np.r_[True, days[1:] != days[:-1]]) if days.size else np.empty(0, np.int64)
    stops = np.r_[starts[1:], days.size].astype(np.int64)
    rows: list[np.ndarray] = []
    parts: list[np.ndarray] = []
    counts: list[tuple[int, int]] = []
    for a, b in zip(starts.tolist(), stops.tolist(), strict=True):
        liquid, illiquid = liquid_mask(adv[a:b])
        counts.append((int(days[a]), int(np.count_nonzero(~(liquid | illiquid)))))
        picked = random_halves(int(days[a]), b - a, draws)
        rows += [np.flatnonzero(liquid) + a, np.flatnonzero(illiquid) + a, picked.ravel() + a]
        parts += [
            np.full(int(liquid.sum()), LIQUID, np.int16),
            np.full(int(illiquid.sum()), ILLIQUID, np.int16),
            np.repeat(np.arange(FIRST_DRAW, FIRST_DRAW + draws, dtype=np.int16), picked.shape[1]),
        ]
    index = np.concatenate(rows) if rows else np.empty(0, np.int64)
    long = named.select("date", "score", "forward_return")[index].with_columns(
        part=pl.Series(np.concatenate(parts) if parts else np.empty(0, np.int16))
    )
    ics = spearman_by(long, ["date", "part"], "score", "forward_return").select(
        "date", pl.col("part").cast(pl.Int16), ic="rho", names="n"
    )
    without = pl.DataFrame(
        {
            "date": pl.Series([d for d, _ in counts], dtype=pl.Int32).cast(pl.Date),
            "part": pl.Series([WITHOUT_ADV] * len(counts), dtype=pl.Int16),
            "ic": pl.Series([None] * len(counts), dtype=pl.Float64),
            "names": pl.Series([c for _, c in counts], dtype=pl.Int32),
        }
    )
    return pl.concat([ics.with_columns(pl.col("date").cast(pl.Date)), without]).sort("date", "part")


# -- a request --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Weeks:
    """The build's table as (weeks x parts) arrays, parts in the order WITHOUT_ADV, LIQUID,
    ILLIQUID, the draws; `ic` NaN where not measurable (or the part held no name)."""

    days: np.ndarray
    ic: np.ndarray
    names: np.ndarray


def weeks_of(table: pa.Table) -> _Weeks:
    """`analytics_sub_universe` rows as (weeks x parts) arrays."""
    days = table.column("date").cast(pa.int32()).to_numpy()
    part = table.column("part").to_numpy().astype(np.int64) - WITHOUT_ADV
    weeks, row = np.unique(days, return_inverse=True)
    width = int(part.max()) + 1 if part.size else FIRST_DRAW - WITHOUT_ADV
    ic = np.full((weeks.size, width), np.nan)
    names = np.zeros((weeks.size, width), np.int64)
    ic[row, part] = floats(table.column("ic"))
    names[row, part] = table.column("names").to_numpy()
    return _Weeks(weeks, ic, names)


def _weeks(view: BuildView) -> _Weeks | None:
    def read() -> _Weeks | None:
        table = view.table(TABLE)
        return None if table is None else weeks_of(table)

    return view.memo("analytics:sub_universe", read)


def icir_of(ic: np.ndarray, weeks_per_year: int) -> float:
    """mean / std(ddof=1) of the finite weekly ICs, annualised (`analytics.ic.annualised_icir`);
    NaN below 2 weeks or without a measurable std (`analytics.variance.measurable_std`)."""
    finite = ic[np.isfinite(ic)]
    sd = measurable_std(finite)
    if not math.isfinite(sd):
        return math.nan
    return ic_basis.annualised_icir(float(np.mean(finite)) / sd, weeks_per_year)


def _mean(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(np.mean(finite)) if finite.size else math.nan


def required_icir(full_icir: float, sub_names: float, full_names: float) -> float:
    """RATIO x sqrt(n_sub / n) x the full ICIR: what a part's ICIR must reach (NaN unless the full
    ICIR is positive and both name counts are)."""
    if not (full_icir > 0 and sub_names > 0 and full_names > 0):
        return math.nan
    return RATIO * math.sqrt(sub_names / full_names) * full_icir


def sub_universe_ratio(sub_icir: float, full_icir: float, sub_names: float, full_names: float) -> float:
    """sub ICIR / (sqrt(n_sub / n) x full ICIR): the part passes when it is >= RATIO (NaN unless the
    full ICIR is positive)."""
    if not (full_icir > 0 and sub_names > 0 and full_names > 0 and math.isfinite(sub_icir)):
        return math.nan
    return sub_icir / (math.sqrt(sub_names / full_names) * full_icir)


def _half(
    half: Literal["liquid", "illiquid"],
    ic: np.ndarray,
    names: np.ndarray,
    full_icir: float,
    full_names: float,
    wpy: int,
) -> SubUniverseHalf:
    measured = np.isfinite(ic)
    mean_names = float(np.mean(names[measured])) if measured.any() else math.nan
    icir = icir_of(ic, wpy)
    ratio = sub_universe_ratio(icir, full_icir, mean_names, full_names)
    return SubUniverseHalf(
        half=half,
        weeks=int(measured.sum()),
        half_mean_names=number(mean_names),
        half_mean_ic=number(_mean(ic)),
        half_icir=number(icir),
        required_icir=number(required_icir(full_icir, mean_names, full_names)),
        sub_universe=number(ratio),
        passes=None if not math.isfinite(ratio) else bool(ratio >= RATIO),
    )


def _random(ic: np.ndarray, names: np.ndarray, full_icir: float, full_names: float, wpy: int) -> RandomHalves:
    """The draws' figures (`ic`, `names`: weeks x draws): the mean and the 5-95% range over draws of
    each draw's mean IC and ICIR, and the share of draws that pass."""
    means = np.array([_mean(ic[:, r]) for r in range(ic.shape[1])])
    icirs = np.array([icir_of(ic[:, r], wpy) for r in range(ic.shape[1])])
    ratios = np.array(
        [
            sub_universe_ratio(
                icirs[r],
                full_icir,
                float(np.mean(names[np.isfinite(ic[:, r]), r])) if np.isfinite(ic[:, r]).any() else math.nan,
                full_names,
            )
            for r in range(ic.shape[1])
        ]
    )

    def spread(values: np.ndarray) -> tuple[float, float, float]:
        finite = values[np.isfinite(values)]
        if not finite.size:
            return math.nan, math.nan, math.nan
        low, high = np.percentile(finite, [5, 95])
        return float(np.mean(finite)), float(low), float(high)

    mean_ic, ic_low, ic_high = spread(means)
    mean_icir, icir_low, icir_high = spread(icirs)
    judged = ratios[np.isfinite(ratios)]
    return RandomHalves(
        draws=int(ic.shape[1]),
        seed=SEED,
        random_mean_ic=number(mean_ic),
        random_mean_ic_p05=number(ic_low),
        random_mean_ic_p95=number(ic_high),
        random_icir=number(mean_icir),
        random_icir_p05=number(icir_low),
        random_icir_p95=number(icir_high),
        random_pass_share=number(float(np.mean(judged >= RATIO)) if judged.size else math.nan),
    )


def _not_built(view: BuildView) -> AnalyticsNotBuilt:
    return AnalyticsNotBuilt(
        f"The served build {view.build_id} of {view.alpha_id} was published before the {TABLE} table; an "
        "operator rebuilds it with `alpha-results build`.",
        details={"build": view.build_id, "pipeline_version": view.entry.get("pipeline_version")},
    )


def _full(view: BuildView) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    def read() -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        table = view.table("weekly_signal")
        if table is None:
            return None
        return (
            table.column("date").cast(pa.int32()).to_numpy(),
            floats(table.column("ic")),
            table.column("n_ic_obs").to_numpy(zero_copy_only=False).astype(np.float64),
        )

    return view.memo("analytics:sub_universe_full", read)


def sub_universe_payload(view: BuildView, window: Window, access: Access, warnings: Warnings) -> SubUniverse:
    """The conditioned score's weekly IC and ICIR on the liquid and illiquid halves by adv and on
    random halves over the window's weeks, against the full cross-section's, with the sub-universe
    test (docs/analytics.md, "Sub-universe test")."""
    reason = ""
    if not access.cross_sections:
        reason = withheld("cross_sections", "sub_universe", warnings)
    elif "decisions" not in view.kinds_present:
        reason = "missing_kind: the run sealed no decisions (no cross-sections to split)"
    elif "exposures" not in view.kinds_present:
        reason = "missing_kind: the run sealed no exposures, so its names have no adv to split by"
    found = None if reason else _weeks(view)
    full = None if reason else _full(view)
    if not reason and (found is None or full is None):
        raise _not_built(view)
    measured: dict[str, Any] = (
        dict.fromkeys(NOT_MEASURED)
        if reason or found is None or full is None
        else measure(found, full, window, conventions(view).weeks_per_year, warnings)
    )
    return SubUniverse(
        alpha=view.alpha_id,
        score_field="score",
        split=SPLIT,
        pass_ratio=RATIO,
        window=window_echo(window),
        status="not_measurable" if reason else "available",
        withheld_reason=reason or msgspec.UNSET,
        **measured,
    )


NOT_MEASURED = (
    "weeks",
    "universe_mean_names",
    "universe_mean_ic",
    "universe_icir",
    "without_adv_mean_names",
    "halves",
    "random",
    "passes",
)
"""The measured fields (`measure`'s keys), all null when the answer is not measurable."""


def measure(
    found: _Weeks,
    full: tuple[np.ndarray, np.ndarray, np.ndarray],
    window: Window,
    weeks_per_year: int,
    warnings: Warnings,
) -> dict[str, Any]:
    """The figures of the window's weeks: `found` the weekly table's, `full` (days, weekly IC,
    names) the full cross-section's (`weekly_signal` ic and n_ic_obs)."""
    wpy = weeks_per_year
    a, b = window_bounds(full[0], window)
    full_ic, full_n = full[1][a:b], full[2][a:b]
    measured = np.isfinite(full_ic)
    full_names = float(np.mean(full_n[measured])) if measured.any() else math.nan
    full_icir = icir_of(full_ic, wpy)
    c, d = window_bounds(found.days, window)
    ic, names = found.ic[c:d], found.names[c:d]
    at = -WITHOUT_ADV
    if d > c and not (names[:, at + LIQUID] > 0).any():
        warnings.add(
            "insufficient_data",
            "No name of the window's weeks has a sealed adv: the liquid and illiquid halves are empty",
            block="sub_universe",
        )
    halves = [
        _half("liquid", ic[:, at + LIQUID], names[:, at + LIQUID], full_icir, full_names, wpy),
        _half("illiquid", ic[:, at + ILLIQUID], names[:, at + ILLIQUID], full_icir, full_names, wpy),
    ]
    return {
        "weeks": int(measured.sum()),
        "universe_mean_names": number(full_names),
        "universe_mean_ic": number(_mean(full_ic)),
        "universe_icir": number(full_icir),
        "without_adv_mean_names": number(float(np.mean(names[:, at + WITHOUT_ADV])) if d > c else math.nan),
        "halves": halves,
        "random": _random(ic[:, at + FIRST_DRAW :], names[:, at + FIRST_DRAW :], full_icir, full_names, wpy),
        "passes": halves[0].passes,
    }
