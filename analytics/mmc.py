"""Meta-model contribution (`/analytics/mmc`) and crowding of the approved books
(`/analytics/crowding`); docs/analytics.md, "Meta-model contribution and crowding".

MMC is Numerai's: `numerai_tools.scoring.correlation_contribution(predictions, meta_model,
live_targets)` (numerai-tools 0.7.2, no top_bottom), with our meta-model and our target. Each week t
(a decision date):

1. every approved alpha m the reader may read (the alpha itself never among them) has its scores
   rank-gaussianised over the names it scored: g = Phi^-1((rank - 0.5) / n), average ranks;
2. the meta-model is the combined score of a name: the mean of the g of the approved alphas that
   scored it (equally weighted);
3. the names of the week are those the alpha scored (a finite score), the combined score holds and
   with a finite decisions.forward_return (the target); over those n names alone (Numerai ranks
   after matching the three), p = Phi^-1((rank(score) - 0.5) / n) and m = Phi^-1((rank(c) - 0.5) / n),
   average ranks (numerai-tools' tie_kept_rank then gaussian);
4. the neutral score is p orthogonalised to m, p - m (p.m) / (m.m) (numerai-tools' orthogonalize:
   a projection with no intercept), and mmc_t = (r - mean(r)) . neutral / n with r the forward
   return: a covariance of a unit-variance score with the return, in the return's units.

A week has an mmc with at least MIN_PAIRS names and a combined score not constant over them (m = 0
there, and numerai-tools divides 0 by 0). Two departures from numerai-tools' function, both about
its inputs rather than the formula: it refuses inputs whose names overlap by less than 80%
(filter_sort_index), a check of a tournament submission; here the week is the names the three
share, however many the alpha scored. And when every target lies in [0, 1] it multiplies the target
by 4, reading it as Numerai's own [0, 1] target to put it in buckets of -2..2; a forward return is
not that encoding (a week in which every name rose by at most 100% would be multiplied by 4), so the
return is taken as it is. tests/analytics/test_mmc.py holds the figure to correlation_contribution
to 1e-9.

Over the window's weeks with an mmc_t: mmc_mean and its t-stat mean / (std(ddof=1) / sqrt(n)).

Crowding: each week, for the approved books the reader may read, each book's long_short target
weights normalised to unit gross (w / sum |w|): the weight overlap of two books sum_s min(|w_i,s|,
|w_j,s|) (0: no name in common, 1: the same book up to signs) and the Jaccard of their held names
(non-zero weight), each averaged over the pairs of books that week; and the factor exposures of
the books (the pipeline's `analytics_factor_exposures` of long_short): per factor, the mean across
books (the equally weighted combined book's exposure) and the cross-book standard deviation.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from analytics.entries import day_bounds, declared_stat, window_echo
from analytics.ranks import MIN_PAIRS
from datasets.queries import Window
from datasets.reader import BuildView
from datasets.rows import EPOCH
from schemas.bodies.mmc import (
    MMC_METHOD,
    ApprovedSet,
    Crowding,
    Mmc,
    MmcWeek,
    OverlapWeek,
    SharedFactor,
)

MIN_WEEKS = 2
"""Weeks with an mmc_t the t-stat needs (a standard deviation with ddof=1)."""
DECISIONS = "decisions"
CROWDING_BOOK = "long_short"
WEIGHT = "long_short_target_weight"
EXPOSURES_TABLE = "analytics_factor_exposures"

NO_APPROVED = "no approved alpha the key may read (the alpha itself excepted): there is no combined score"
NO_WEEKS = "no week of the window has an mmc (a week needs 3 names scored by the alpha and an approved alpha with a forward return, the combined score not constant over them)"
NO_DECISIONS = (
    "the alpha has no decisions (a ledger-only seal): no scores to neutralise and no target weights"
)
NO_OVERLAP = "no week of the window on which the books compared both hold names"
NO_APPROVED_BOOKS = "no approved alpha the key may read"
FEW_BOOKS = "one approved alpha the key may read: crowding needs two books"
FEW_WEEKS = f"fewer than {MIN_WEEKS} weeks with an mmc, or no variance across them"


def _ndtri(u: np.ndarray) -> np.ndarray:
    from scipy.special import ndtri  # when used: scipy is slow to import (development.md)

    return ndtri(u)


def gaussianised(frame: pl.DataFrame) -> pl.DataFrame:
    """(date, symbol, g): the finite scores of (date, symbol, score) rank-gaussianised per date."""
    kept = frame.filter(pl.col("score").is_not_null() & pl.col("score").is_finite())
    u = kept.select(
        ((pl.col("score").rank("average").over("date") - 0.5) / pl.len().over("date")).alias("u")
    )["u"].to_numpy()
    return kept.select("date", "symbol").with_columns(g=pl.Series(_ndtri(u)))


def member_scores(view: BuildView) -> pl.DataFrame:
    """A build's gaussianised scores, made once per build."""

    def read() -> pl.DataFrame:
        table = view.table(DECISIONS)
        if table is None:
            return pl.DataFrame(schema={"date": pl.Date, "symbol": pl.String, "g": pl.Float64})
        frame = pl.from_arrow(table.select(["date", "symbol", "score"]))
        assert isinstance(frame, pl.DataFrame)
        return gaussianised(frame.with_columns(pl.col("symbol").cast(pl.String)))

    return view.memo("analytics:mmc:gaussianised", read)


def own_scores(view: BuildView) -> pl.DataFrame:
    """The alpha's gaussianised scores with its scores and forward returns, made once per build."""

    def read() -> pl.DataFrame:
        table = view.table(DECISIONS)
        if table is None:  # a ledger-only seal: no scores
            return pl.DataFrame(
                schema={
                    "date": pl.Date,
                    "symbol": pl.String,
                    "g": pl.Float64,
                    "score": pl.Float64,
                    "forward_return": pl.Float64,
                }
            )
        frame = pl.from_arrow(table.select(["date", "symbol", "score", "forward_return"]))
        assert isinstance(frame, pl.DataFrame)
        frame = frame.with_columns(pl.col("symbol").cast(pl.String), pl.col("score").cast(pl.Float64))
        g = gaussianised(frame)
        return g.join(
            frame.select("date", "symbol", "score", "forward_return"), on=["date", "symbol"], how="left"
        )

    return view.memo("analytics:mmc:own", read)


def combined_scores(members: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """(date, symbol, c, k): the mean gaussianised score over the k members that scored the name."""
    return pl.concat(members).group_by("date", "symbol").agg(c=pl.col("g").mean(), k=pl.len())


@dataclass(frozen=True)
class MmcWeeks:
    """Per week with an mmc (ascending days since 1970)."""

    days: np.ndarray
    mmc: np.ndarray
    names: np.ndarray  # names in the regression (scored by both, with a forward return)
    members: np.ndarray  # approved alphas scoring at least one of those names
    correlation: np.ndarray  # Pearson of g_a with the combined score over the names

    def window(self, window: Window) -> MmcWeeks:
        """The weeks whose decision date is in the window (each week stands alone: a slice)."""
        low, high = day_bounds(window)
        a, b = np.searchsorted(self.days, low, "left"), np.searchsorted(self.days, high, "right")
        return MmcWeeks(*(x[a:b] for x in (self.days, self.mmc, self.names, self.members, self.correlation)))

    def total(self) -> tuple[float, float, str, str]:
        """(mmc_mean, t-stat, and their reasons when not measurable)."""
        n = self.mmc.size
        if n == 0:
            return math.nan, math.nan, NO_WEEKS, NO_WEEKS
        mean = float(np.mean(self.mmc))
        std = float(np.std(self.mmc, ddof=1)) if n >= MIN_WEEKS else 0.0
        t = mean / (std / math.sqrt(n)) if std > 0 else math.nan
        return mean, t, "", FEW_WEEKS


def mmc_weeks(own: pl.DataFrame, combined: pl.DataFrame) -> MmcWeeks:
    """Steps 3 and 4 of the module's docstring over every decision date at once."""
    joined = own.join(combined, on=["date", "symbol"], how="inner").filter(
        pl.col("forward_return").is_not_null() & pl.col("forward_return").is_finite()
    )
    n = pl.len().over("date")
    # Both ranked over the week's matched names only: numerai-tools ranks after filter_sort_index.
    u = joined.select(
        up=(pl.col("score").rank("average").over("date") - 0.5) / n,
        um=(pl.col("c").rank("average").over("date") - 0.5) / n,
    )
    ranked = joined.with_columns(
        p=pl.Series(_ndtri(u["up"].to_numpy())), m=pl.Series(_ndtri(u["um"].to_numpy()))
    )
    p, m, r = pl.col("p"), pl.col("m"), pl.col("forward_return")
    weekly = (
        ranked.group_by("date")
        .agg(
            n=pl.len(),
            pm=(p * m).sum(),
            mm=(m * m).sum(),
            # (r - mean r) . p and (r - mean r) . m: the week's mmc is their combination below, so
            # the neutral score is never formed row by row.
            rp=((r - r.mean()) * p).sum(),
            rm=((r - r.mean()) * m).sum(),
            members=pl.col("k").max(),
            correlation=pl.when((pl.len() >= 2) & (pl.col("c").std() > 0) & (pl.col("g").std() > 0)).then(
                pl.corr("g", "c")
            ),
        )
        # m = 0 when the combined score is constant over the names: no projection (Numerai's 0 / 0).
        .filter((pl.col("n") >= MIN_PAIRS) & (pl.col("mm") > 0))
        .with_columns(mmc=(pl.col("rp") - pl.col("rm") * pl.col("pm") / pl.col("mm")) / pl.col("n"))
        .sort("date")
    )
    return MmcWeeks(
        weekly["date"].cast(pl.Int32).to_numpy(),
        weekly["mmc"].to_numpy(),
        weekly["n"].to_numpy().astype(np.int64),
        weekly["members"].to_numpy().astype(np.int64),
        weekly["correlation"].cast(pl.Float64).fill_null(math.nan).to_numpy(),
    )


# -- crowding -------------------------------------------------------------------------------------


def book_weights(view: BuildView) -> pl.DataFrame:
    """(date, symbol, w): the build's non-zero long_short target weights at unit gross per date."""

    def read() -> pl.DataFrame:
        table = view.table(DECISIONS)
        if table is None or WEIGHT not in table.column_names:
            return pl.DataFrame(schema={"date": pl.Date, "symbol": pl.String, "w": pl.Float64})
        frame = pl.from_arrow(table.select(["date", "symbol", WEIGHT]))
        assert isinstance(frame, pl.DataFrame)
        held = frame.filter(pl.col(WEIGHT).is_finite() & (pl.col(WEIGHT) != 0)).select(
            "date", pl.col("symbol").cast(pl.String), w=pl.col(WEIGHT).abs()
        )
        return held.with_columns(w=pl.col("w") / pl.col("w").sum().over("date"))

    return view.memo("analytics:mmc:weights", read)


@dataclass(frozen=True)
class OverlapWeeks:
    """Per week with at least one pair of books: mean weight overlap, mean Jaccard, pairs counted."""

    days: np.ndarray
    overlap: np.ndarray
    jaccard: np.ndarray
    pairs: np.ndarray
    books: np.ndarray

    def window(self, window: Window) -> OverlapWeeks:
        low, high = day_bounds(window)
        a, b = np.searchsorted(self.days, low, "left"), np.searchsorted(self.days, high, "right")
        return OverlapWeeks(
            *(x[a:b] for x in (self.days, self.overlap, self.jaccard, self.pairs, self.books))
        )


def overlap_weeks(books: Sequence[pl.DataFrame], others: Sequence[pl.DataFrame] | None) -> OverlapWeeks:
    """Each week's mean pairwise overlap of `books` (others None), or of each book of `books` with
    each of `others` (the alpha's own overlap with the approved books: `books` holds it alone)."""

    def tagged(frames: Sequence[pl.DataFrame], side: str, offset: int) -> pl.DataFrame:
        return pl.concat(
            [f.with_columns(pl.lit(offset + n, pl.Int32).alias(side)) for n, f in enumerate(frames)]
        )

    empty = OverlapWeeks(*(np.array([], dtype=t) for t in (np.int32, float, float, np.int64, np.int64)))
    if not books or (others is not None and not others) or (others is None and len(books) < 2):
        return empty
    left = tagged(books, "i", 0)
    right = tagged(books if others is None else others, "j", 0 if others is None else len(books))
    held = left.group_by("date", "i").agg(h=pl.len())
    held_r = right.group_by("date", "j").agg(hj=pl.len())
    pairs = held.join(held_r, on="date").filter(pl.col("i") < pl.col("j"))
    common = (
        left.join(right, on=["date", "symbol"])
        .filter(pl.col("i") < pl.col("j"))
        .group_by("date", "i", "j")
        .agg(overlap=pl.min_horizontal("w", "w_right").sum(), both=pl.len())
    )
    per_pair = pairs.join(common, on=["date", "i", "j"], how="left").with_columns(
        pl.col("overlap").fill_null(0.0), pl.col("both").fill_null(0)
    )
    weekly = (
        per_pair.with_columns(jaccard=pl.col("both") / (pl.col("h") + pl.col("hj") - pl.col("both")))
        .group_by("date")
        .agg(
            overlap=pl.col("overlap").mean(),
            jaccard=pl.col("jaccard").mean(),
            pairs=pl.len(),
            books=pl.col("i").append(pl.col("j")).n_unique(),
        )
        .sort("date")
    )
    if weekly.height == 0:
        return empty
    return OverlapWeeks(
        weekly["date"].cast(pl.Int32).to_numpy(),
        weekly["overlap"].to_numpy(),
        weekly["jaccard"].to_numpy(),
        weekly["pairs"].to_numpy().astype(np.int64),
        weekly["books"].to_numpy().astype(np.int64),
    )


def book_exposures(view: BuildView) -> pl.DataFrame:
    """(date, factor, exposure) of the build's long_short book, read once per build."""

    def read() -> pl.DataFrame:
        table = view.table(EXPOSURES_TABLE)
        if table is None:
            return pl.DataFrame(schema={"date": pl.Date, "factor": pl.String, "exposure": pl.Float64})
        frame = pl.from_arrow(table.select(["book", "date", "factor", "exposure"]))
        assert isinstance(frame, pl.DataFrame)
        return frame.filter(
            (pl.col("book") == CROWDING_BOOK)
            & pl.col("exposure").is_not_null()
            & pl.col("exposure").is_finite()
        ).select("date", pl.col("factor").cast(pl.String), "exposure")

    return view.memo("analytics:mmc:exposures", read)


def shared_weekly(books: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per week and factor with at least two books exposed: (day, factor, m: the books' mean
    exposure, s: their standard deviation, ddof=0)."""
    if len(books) < 2:
        return pl.DataFrame(schema={"day": pl.Int32, "factor": pl.String, "m": pl.Float64, "s": pl.Float64})
    return (
        pl.concat(books)
        .group_by("date", "factor")
        .agg(m=pl.col("exposure").mean(), s=pl.col("exposure").std(ddof=0), n=pl.len())
        .filter(pl.col("n") >= 2)
        .select(pl.col("date").cast(pl.Int32).alias("day"), "factor", "m", "s")
    )


def shared_loadings(weekly: pl.DataFrame, window: Window) -> list[SharedFactor]:
    """Per factor over the window's weeks of `shared_weekly`, by factor name."""
    low, high = day_bounds(window)
    found = (
        weekly.filter((pl.col("day") >= low) & (pl.col("day") <= high))
        .group_by("factor")
        .agg(m=pl.col("m").mean(), s=pl.col("s").mean(), n=pl.len())
        .sort("factor")
    )
    return [
        SharedFactor(factor=f, combined_exposure=m, exposure_dispersion=d, factor_weeks=n)
        for f, m, d, n in found.iter_rows()
    ]


# -- the answers ----------------------------------------------------------------------------------


def _dated(days: np.ndarray) -> list[dt.date]:
    return [EPOCH + dt.timedelta(days=int(d)) for d in days]


def _nullable(value: float) -> float | None:
    return value if math.isfinite(value) else None


def overlap_rows(found: OverlapWeeks) -> list[OverlapWeek]:
    return [
        OverlapWeek(
            date=d, weight_overlap=float(o), name_jaccard=float(j), book_pairs=int(p), approved_books=int(b)
        )
        for d, o, j, p, b in zip(
            _dated(found.days), found.overlap, found.jaccard, found.pairs, found.books, strict=True
        )
    ]


def _mean(values: np.ndarray, reason: str) -> tuple[float, str]:
    kept = values[np.isfinite(values)]
    return (float(np.mean(kept)), "") if kept.size else (math.nan, reason)


def whole_mmc(own: BuildView, members: Sequence[BuildView]) -> tuple[MmcWeeks, OverlapWeeks]:
    """The alpha's weekly mmc and overlap with `members` over its whole history, made once per
    build and set of member builds (a window is a slice of them)."""
    scores = own_scores(own)
    weights = book_weights(own)
    gaussian = [member_scores(m) for m in members]
    books = [book_weights(m) for m in members]
    key = "analytics:mmc:whole:" + ",".join(f"{m.alpha_id}@{m.build_id}" for m in members)

    def compute() -> tuple[MmcWeeks, OverlapWeeks]:
        return mmc_weeks(scores, combined_scores(gaussian)), overlap_weeks([weights], books)

    return own.memo(key, compute)


def mmc_payload(own: BuildView, members: Sequence[BuildView], excluded: bool, window: Window) -> Mmc:
    """`/analytics/mmc` of `own` against the approved builds `members` (the alpha never among them)."""
    approved = ApprovedSet(
        alphas=[m.alpha_id for m in members], approved_count=len(members), alpha_excluded=excluded
    )
    scored = own.table(DECISIONS) is not None
    if members and scored:
        whole, overlap = whole_mmc(own, members)
        weeks, overlap = whole.window(window), overlap.window(window)
        mean, t, mean_why, t_why = weeks.total()
        corr, corr_why = _mean(weeks.correlation, NO_WEEKS)
        ov, ov_why = _mean(overlap.overlap, NO_OVERLAP)
    else:
        weeks = MmcWeeks(*(np.array([], dtype=t) for t in (np.int32, float, np.int64, np.int64, float)))
        overlap = OverlapWeeks(*(np.array([], dtype=t) for t in (np.int32, float, float, np.int64, np.int64)))
        mean = t = corr = ov = math.nan
        mean_why = t_why = corr_why = ov_why = NO_APPROVED if scored else NO_DECISIONS
    return Mmc(
        alpha=own.alpha_id,
        window=window_echo(window),
        method=MMC_METHOD,
        approved=approved,
        mmc_weeks=int(weeks.days.size),
        mmc_mean=declared_stat(Mmc, "mmc_mean", mean, mean_why),
        mmc_t_stat=declared_stat(Mmc, "mmc_t_stat", t, t_why),
        correlation_to_combined_mean=declared_stat(Mmc, "correlation_to_combined_mean", corr, corr_why),
        weight_overlap_with_approved=declared_stat(Mmc, "weight_overlap_with_approved", ov, ov_why),
        weekly=[
            MmcWeek(
                date=d,
                mmc=float(m),
                mmc_names=int(n),
                approved_scoring=int(k),
                correlation_to_combined=_nullable(float(c)),
            )
            for d, m, n, k, c in zip(
                _dated(weeks.days), weeks.mmc, weeks.names, weeks.members, weeks.correlation, strict=True
            )
        ],
        overlap_weekly=overlap_rows(overlap),
    )


_KEPT: OrderedDict[str, tuple[OverlapWeeks, pl.DataFrame]] = OrderedDict()
_KEPT_LOCK = threading.Lock()
KEPT_SETS = 16
"""Approved sets whose crowding series a process keeps (a set is named by its builds)."""


def whole_crowding(members: Sequence[BuildView]) -> tuple[OverlapWeeks, pl.DataFrame]:
    """The approved books' weekly overlap and shared loadings over their whole histories, made once
    per set of builds in this process."""
    key = ",".join(f"{m.alpha_id}@{m.build_id}" for m in members)
    with _KEPT_LOCK:
        found = _KEPT.get(key)
        if found is not None:
            _KEPT.move_to_end(key)
            return found
    found = (
        overlap_weeks([book_weights(m) for m in members], None),
        shared_weekly([book_exposures(m) for m in members]),
    )
    with _KEPT_LOCK:
        _KEPT[key] = found
        while len(_KEPT) > KEPT_SETS:
            _KEPT.popitem(last=False)
    return found


def crowding_payload(members: Sequence[BuildView], window: Window) -> Crowding:
    """`/analytics/crowding` over the approved builds `members`."""
    approved = ApprovedSet(
        alphas=[m.alpha_id for m in members], approved_count=len(members), alpha_excluded=False
    )
    overlap, weekly = whole_crowding(members)
    overlap = overlap.window(window)
    reason = NO_APPROVED_BOOKS if not members else FEW_BOOKS if len(members) < 2 else NO_OVERLAP
    ov, ov_why = _mean(overlap.overlap, reason)
    jac, jac_why = _mean(overlap.jaccard, reason)
    return Crowding(
        window=window_echo(window),
        approved=approved,
        overlap_weeks=int(overlap.days.size),
        weight_overlap_mean=declared_stat(Crowding, "weight_overlap_mean", ov, ov_why),
        name_jaccard_mean=declared_stat(Crowding, "name_jaccard_mean", jac, jac_why),
        weekly=overlap_rows(overlap),
        factors=shared_loadings(weekly, window),
    )
