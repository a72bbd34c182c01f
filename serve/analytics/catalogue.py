"""Figures over the whole published catalogue, cached by the set of builds that went into them.

- `Trials`: the number of alphas tried and the variance of their per-session Sharpe ratios (for
  the Deflated Sharpe Ratio), and the family of nwt.ic p-values (for Holm and Benjamini-Hochberg).
  Only aggregates leave this module: no route serves another alpha's identity or value from it.
- the pairing of two builds on one basis (their common dates, or each common week's rank
  correlation), cached per pair of build ids; a request's window is a slice of it.

A catalogue figure is exact or absent: a published build that cannot be read makes it a 503, never
a figure over fewer alphas than the catalogue holds.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from analytics import correlation, significance
from datasets.faults import LakeUnavailable
from datasets.queries import Window
from datasets.reader import AlphaBuild, BuildView, LakeReader
from serve import errors
from serve.analytics import inputs
from serve.analytics.entries import day_bounds
from serve.metrics import Access, metrics_inputs
from serve.metrics.blocks import nwt_ic_block
from serve.metrics.stats import Warnings

log = logging.getLogger(__name__)
FULL_ACCESS = Access(cross_sections=True, ledger=True)
PAIR_CACHE_SIZE = 4096  # pairings kept per worker: every basis of a catalogue of ~52 alphas (~13 KiB each)
BuildSet = frozenset[tuple[str, str]]


@dataclass(frozen=True)
class Trials:
    builds: BuildSet
    sharpes: dict[str, float]  # alpha -> per-session Sharpe of its whole long_short history
    p_values: dict[str, float]  # alpha -> nwt.ic p-value, where measurable

    @property
    def count(self) -> int:
        return len(self.sharpes)

    def family(self, readable: Callable[[str], bool]) -> dict[str, float]:
        """The nwt.ic p-values of the alphas `readable` admits."""
        return {alpha: p for alpha, p in self.p_values.items() if readable(alpha)}

    @property
    def sharpe_variance(self) -> float:
        values = np.fromiter(self.sharpes.values(), float)
        return float(np.var(values, ddof=1)) if values.size >= 2 else math.nan


def build_set(builds: dict[str, AlphaBuild]) -> BuildSet:
    return frozenset((alpha, build.build_id) for alpha, build in builds.items())


def _sharpe(view: BuildView) -> float | None:
    book = inputs.ledger(view, "long_short")
    found = None if book is None else significance.moments(book.returns)
    return None if found is None else found.sharpe


def _nwt_ic_p_value(view: BuildView) -> float | None:
    def compute() -> float | None:
        try:
            block = nwt_ic_block(metrics_inputs(view), FULL_ACCESS, Warnings())
        except Exception as exc:  # one broken build must not become a 500 on every alpha's answer
            log.exception("nwt.ic of build %s of %s failed", view.build_id, view.alpha_id)
            raise _unavailable() from exc
        value = None if block is None else block.get("p_value")
        return None if value is None or not math.isfinite(value) else float(value)

    return view.memo("analytics:nwt_ic_p_value", compute)


class CatalogueFigures:
    """One per worker; thread-safe (routes compute in worker threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trials: Trials | None = None
        self._pairs: OrderedDict[tuple[str, str, str], correlation.Pairing] = OrderedDict()

    def trials(self, reader: LakeReader) -> Trials:
        builds = reader.alphas()
        key = build_set(builds)
        cached = self._trials
        if cached is not None and cached.builds == key:
            return cached
        sharpes: dict[str, float] = {}
        p_values: dict[str, float] = {}
        for alpha, build in sorted(builds.items()):
            view = _view(reader, build)
            sharpe = view.memo("analytics:sharpe", partial(_sharpe, view))
            if sharpe is not None:
                sharpes[alpha] = sharpe
            p_value = _nwt_ic_p_value(view)
            if p_value is not None:
                p_values[alpha] = p_value
        found = Trials(key, sharpes, p_values)
        with self._lock:
            self._trials = found
        return found

    def pair(self, basis: str, a: BuildView, b: BuildView, window: Window) -> correlation.Correlation:
        """The correlation of two builds over a window, from their pairing (kept per unordered
        pair: the correlations are symmetric)."""
        first, second = sorted((a, b), key=lambda view: view.build_id)
        key = (basis, first.build_id, second.build_id)
        with self._lock:
            found = self._pairs.get(key)
            if found is not None:
                self._pairs.move_to_end(key)
        if found is None:
            found = _pairing(basis, first, second)
            with self._lock:
                self._pairs[key] = found
                while len(self._pairs) > PAIR_CACHE_SIZE:
                    self._pairs.popitem(last=False)
        return found.correlate(*day_bounds(window))


def _unavailable() -> errors.ApiError:
    # Never name the other alpha: the caller may not be allowed to know it exists.
    return errors.UpstreamUnavailable(
        "A published build of the catalogue cannot be read, so the catalogue-wide figures are "
        "unavailable; retry with backoff."
    )


def _view(reader: LakeReader, build: AlphaBuild) -> BuildView:
    try:
        return reader.view(build)
    except LakeUnavailable as exc:
        raise _unavailable() from exc


def open_builds(reader: LakeReader, builds: list[AlphaBuild]) -> list[BuildView]:
    return [_view(reader, build) for build in builds]


def _pairing(basis: str, a: BuildView, b: BuildView) -> correlation.Pairing:
    empty = correlation.Pairing(basis, np.empty(0, np.int32), np.empty(0), np.empty(0))
    if basis == "returns":
        left, right = inputs.ledger(a, "long_short"), inputs.ledger(b, "long_short")
        if left is None or right is None:
            return empty
        return correlation.align_series(basis, left.days, left.returns, right.days, right.returns)
    if basis == "ic":
        ic_a, ic_b = inputs.weekly_ic(a), inputs.weekly_ic(b)
        if ic_a is None or ic_b is None:
            return empty
        return correlation.align_series(basis, ic_a.days, ic_a.values, ic_b.days, ic_b.values)
    scores_a, scores_b = inputs.scores(a), inputs.scores(b)
    if scores_a is None or scores_b is None:
        return empty
    return correlation.weekly_score_spearman(scores_a, scores_b)
