"""`/analytics/contribution`: a reference set's equally weighted book before and after adding
the alpha at weight w (docs/analytics.md, "Marginal contribution").

The reference book is the book as it grew: on each session it holds the reference alphas that
have a return that session, equally weighted (an alpha enters when its history starts), so a
short or empty history among hundreds of production alphas neither shrinks the answer to its
sessions nor refuses it. before_t = mean of r_i,t over the members with a return on t;
after_t = (1 - w) before_t + w a_t, over the window's sessions on which the alpha has a return and
at least one reference alpha does. The risk-free return of each book is the same mix of the
alphas' own. Everything is a masked operation over the matrix rows: a default set of 1,000
alphas is one pass, never a loop over members.

With a `weighting`, the reference book is instead the set combined as /analytics/combine
combines it (`weighted_book`): the same rules of the set, the same weights from its common
sessions of the window, and the same figures (turnover and diversification ratio included), over
those of its sessions on which the alpha has a return; so `before` is the combination's figures
whenever the alpha trades on all of them.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

import numpy as np
from msgspec import UNSET

from analytics import sets
from analytics.combination import MIN_SESSIONS, NotCombinable, optimal_weight, pearson
from analytics.combined import (
    AFTER_FIT,
    Turnover,
    Weighting,
    book_entries,
    change_entries,
    combination_weights,
    combined_figures,
    production_of,
    risk_free_rows,
    set_returns,
    turnover_of,
    weight_warnings,
    weighted,
    weighting_of,
)
from analytics.correlation import MIN_OVERLAP, pearson_between
from analytics.entries import Warnings, day_bounds, declared_stat, window_echo
from analytics.errors import BadParameters
from analytics.returns import book_figures
from datasets.catalogue_snapshot import CatalogueSnapshot
from datasets.faults import CatalogueIncomplete
from datasets.queries import Window
from datasets.served import Catalogue
from schemas.bodies.analytics import AnalyticsStat
from schemas.bodies.decisions import (
    CONTRIBUTION_MAX_LISTED,
    CombinationFit,
    CombinationShrinkage,
    Contribution,
    ContributionAbsent,
    ContributionCombination,
    ContributionReference,
    ContributionWeight,
)
from schemas.choices import DEFAULT_BOOK as BOOK
from schemas.conventions import SESSIONS_PER_YEAR
from schemas.query import MAX_REFERENCES, MAX_SET

MAX_LISTED = CONTRIBUTION_MAX_LISTED
"""Reference alphas without a return that `reference.without_returns.alphas` names (all are counted)."""
SESSION_RULE = (
    "the window's sessions on which the alpha has a long_short return and at least one reference alpha does; "
    "on each, the reference book holds the reference alphas with a return that session, equally weighted "
    "(the book as it grew: an alpha enters when its history starts)"
)
WEIGHTED_SESSION_RULE = (
    "the window's sessions on which every reference alpha and the alpha have a long_short return; the reference "
    "book is the set combined as /analytics/combine combines it, at the weights of reference.combination (from the "
    "set's common sessions of the window), so over the same sessions its figures are the combination's"
)
NO_CORRELATION = "a side has no variance over the sessions"
NO_MEMBER_CORRELATION = (
    f"no reference alpha has a correlation with the alpha (each needs {MIN_OVERLAP} sessions in common with it "
    "and variance on both sides)"
)
NO_RISK_FREE_OF_MEMBER = (
    "the catalogue index holds no risk-free return of some alpha on a session it has a return (indexed before "
    "they were); an operator writes them with `alpha-results lake index`"
)


@dataclass(frozen=True)
class ReferenceBook:
    """The alpha and the reference book over the sessions counted (SESSION_RULE)."""

    reference: tuple[str, ...]  # the reference alphas, in the request's order
    days: np.ndarray  # the sessions counted, days since 1970
    alpha: np.ndarray  # the alpha's return on each session
    before: np.ndarray  # the reference book's: the mean over the members with a return that session
    alpha_risk_free: np.ndarray | None  # None when not measurable (`risk_free_reason`)
    before_risk_free: np.ndarray | None  # the mean over the same members
    risk_free_reason: str
    to_members: np.ndarray  # Pearson of the alpha with each member over the sessions both have, or NaN
    shared: np.ndarray  # how many of the sessions counted each member has a return on
    combination: Combination | None = None  # with a weighting: the set combined (`weighted_book`)


@dataclass(frozen=True)
class Combination:
    """The reference set combined as /analytics/combine combines it."""

    method: str
    weights: np.ndarray  # in the reference's order
    shrinkage: CombinationShrinkage | None
    fit: CombinationFit | None  # the sessions the weights are fitted on: combine's meta.fit
    set_sessions: int  # the set's common sessions of the window judged: combine's meta.sessions
    members: np.ndarray  # the members' returns, sessions counted x reference alphas
    turnover: Turnover  # of the reference alphas and then the alpha

    def echo(self, reference: tuple[str, ...]) -> ContributionCombination:
        return ContributionCombination(
            weighting=self.method,
            shrinkage=self.shrinkage,
            weights=combination_weights(reference, self.weights),
            fit=self.fit,
            sessions=self.set_sessions,
        )


# -- the reference set ----------------------------------------------------------------------------


def contribution_parameters(
    reference: tuple[str, ...] | None,
    method: str | None,
    weights: tuple[float, ...] | None,
    shrinkage: float | None,
    fit_to: date | None,
    window: Window,
) -> Weighting | None:
    """The weighting of the reference set (`reference`: the ids named, 1 to MAX_SET of them; None:
    the production default), None for the book as it grew; or one BadParameters naming every
    broken parameter (`weighting_of`)."""
    problems: dict[str, str] = {}
    if reference is not None:
        problem = sets.listed(reference, 1, MAX_SET)
        if problem is not None:
            problems["reference"] = problem
    elif method is not None:
        problems["reference"] = (
            "required with weighting: the reference set to combine as /analytics/combine combines it"
        )
    weighting = weighting_of(
        method,
        weights,
        shrinkage,
        fit_to,
        window,
        None if problems else reference,
        "reference",
        problems,
    )
    if problems:
        raise BadParameters(problems)
    return weighting


@dataclass(frozen=True)
class Reference:
    """The reference set of one contribution: its alphas (the alpha itself never among them), where
    they come from (`origin`: given, or the default set's, approved), and whether the
    alpha was left out of them. With given weights that name the alpha (`own_weight`), the book
    after is the set at exactly those weights: the alpha at its own, the others at theirs, which
    are `rest_weights` (theirs over 1 - w, so that after = (1 - w) before + w a)."""

    alphas: tuple[str, ...]
    origin: str
    excluded: bool
    own_weight: float | None = None
    rest_weights: tuple[float, ...] | None = None
    empty_reason: str | None = None  # why a default set is empty (`sets.NO_APPROVED`)

    @property
    def source(self) -> str:
        """given or production (the default set: the production alphas are the approved ones, as
        `origin` says): the answer's `reference.source`."""
        return "given" if self.origin == "given" else "production"


def given_reference(alpha: str, given: tuple[str, ...], weighting: Weighting | None) -> Reference:
    """The set a request names (admitted: `sets.admitted`), the alpha left out; 400 naming
    `reference` when nothing else is left.

    With weighting=given a set naming the alpha is a combination that holds it, at the weights
    given: its `weights` entry is the alpha's weight w after, and the others' book before is theirs
    scaled by 1 / (1 - w), so that the book after, (1 - w) before + w a, is the set at exactly the
    weights given ("what does this alpha add to this combination?" asked of the combination as
    shown). 400 naming `weights` when w is not below 1 or the others have no weight."""
    reference = tuple(a for a in given if a != alpha)
    excluded = len(reference) < len(given)
    if not reference:
        raise BadParameters({"reference": "names only the alpha itself; name at least one other alpha"})
    if not (excluded and weighting is not None and weighting.method == "given" and weighting.given):
        return Reference(reference, "given", excluded)
    at = given.index(alpha)
    own = weighting.given[at]
    others = weighting.given[:at] + weighting.given[at + 1 :]
    if not own < 1.0:
        raise BadParameters(
            {
                "weights": f"gives the alpha {alpha} the weight {own:g}; named in `reference` with weighting=given, "
                "its weight is its weight after, which must be below 1 (after = (1 - w) before + w a)"
            }
        )
    if not any(others):
        raise BadParameters(
            {
                "weights": f"gives every alpha of `reference` but {alpha} a zero weight: there is no book before"
            }
        )
    scale = 1.0 - own
    return Reference(reference, "given", True, own, tuple(w / scale for w in others))


def default_reference(
    catalogue: Catalogue, readable: np.ndarray, alpha: str, approved: Collection[str] = ()
) -> Reference:
    """The default reference set (`sets.default_reference`: the `approved` alphas `readable`, the
    caller's readable mask, admits), the alpha excepted; 400 asking for `reference` beyond
    MAX_REFERENCES or when there is none (saying why it is empty)."""
    if catalogue.index is None:
        raise CatalogueIncomplete(
            "The lake has no catalogue index, which the contribution is read from; an operator writes it with "
            "`alpha-results lake index`."
        )
    found = sets.default_reference(catalogue, readable, approved, alpha)
    if len(found.alphas) > MAX_REFERENCES:
        raise BadParameters(
            {
                "reference": f"required here: the {found.origin} set you may read holds {len(found.alphas):,} "
                f"alphas, above the {MAX_REFERENCES:,} a contribution compares with by default"
            }
        )
    if not found.alphas:
        raise BadParameters(
            {"reference": f"required here: the default reference set is empty: {found.empty_reason}"}
        )
    return Reference(tuple(found.alphas), found.origin, found.excluded)


def contribution_of(
    snapshot: CatalogueSnapshot,
    alpha: str,
    reference: Reference,
    window: Window,
    weighting: Weighting | None,
    weight: float | None,
    warnings: Warnings,
) -> Contribution:
    """/analytics/contribution. Without a weighting the reference book grows as its alphas'
    histories start (not the intersection a combination uses: its weights are fixed per alpha, a
    production book's are not); with one it is the set combined as /analytics/combine combines it.
    Maps the returns matrix, so the server runs it in a worker thread."""
    alphas = reference.alphas
    if reference.own_weight is not None and weighting is not None:
        # Given weights naming the alpha: its own is the weight after, the others' make the book before.
        if weight is not None:
            raise BadParameters(
                {
                    "weight": f"not with weighting=given and a `reference` naming {alpha}: its weight after is "
                    "its own in `weights`"
                }
            )
        weighting = replace(weighting, given=reference.rest_weights)
        weight = reference.own_weight
    if weighting is None:
        found = reference_book(snapshot, alpha, alphas, window)
    else:
        found = weighted_book(snapshot, alpha, alphas, window, weighting, warnings)
    return contribution(alpha, reference, window, found, weight)


# -- the books ------------------------------------------------------------------------------------


def reference_book(
    snapshot: CatalogueSnapshot, alpha: str, reference: tuple[str, ...], window: Window
) -> ReferenceBook:
    """The reference book and the alpha over the sessions counted; 400 naming `alpha` when the
    alpha has no return at all, and below MIN_SESSIONS sessions naming from/to when the whole
    histories would have enough, else `reference`. A reference alpha without returns is a member
    that never trades, not an error.

    Everything is reduced over the window's columns of the members' rows and only then narrowed
    to the sessions counted (the members' block is never copied again)."""
    matrix = snapshot.matrix("returns")
    own = int(sets.matrix_rows(matrix, (alpha,), "alpha")[0])
    rows = sets.held_rows(matrix, reference)
    low, high = day_bounds(window)
    first, last = np.searchsorted(matrix.days, low, "left"), np.searchsorted(matrix.days, high, "right")
    mine = np.asarray(matrix.values[own, first:last])
    theirs = np.asarray(matrix.values[rows, first:last])
    traded = np.isfinite(theirs)
    holding = traded.sum(axis=0)  # members with a return on each session of the window
    keep = np.isfinite(mine) & (holding > 0)
    count = int(np.count_nonzero(keep))
    if count < MIN_SESSIONS:
        raise _too_few(matrix.values, own, rows, window, count)
    window_days = np.asarray(matrix.days[first:last])
    before = np.sum(theirs, axis=0, where=traded)[keep] / holding[keep]
    alpha_rf, before_rf, reason = _risk_free(
        snapshot, (alpha, *reference), window_days, traded, holding, keep
    )
    # Days the alpha has no return pair with no member: the window's columns give each member's
    # correlation over the sessions it shares with the alpha, all of them counted sessions.
    to_members, shared = pearson_between(theirs, mine[None, :])
    return ReferenceBook(
        reference,
        window_days[keep],
        mine[keep],
        before,
        alpha_rf,
        before_rf,
        reason,
        to_members[:, 0],
        shared[:, 0],
    )


def _too_few(
    values: np.ndarray, own: int, rows: np.ndarray, window: Window, count: int, every: bool = False
) -> Exception:
    """400 below MIN_SESSIONS: naming from/to when the whole histories hold enough, else `reference`.
    `every`: the sessions need every reference alpha (a weighting), not at least one."""
    members = "every reference alpha" if every else "at least one reference alpha"
    rule = (
        f"holds {count} session{'' if count == 1 else 's'} on which the alpha and {members} have "
        f"a long_short return; at least {MIN_SESSIONS} are needed"
    )
    finite = np.isfinite(np.asarray(values[rows]))
    whole = int(
        np.count_nonzero(np.isfinite(values[own]) & (finite.all(axis=0) if every else finite.any(axis=0)))
    )
    if whole >= MIN_SESSIONS and (window[0] is not None or window[1] is not None):
        return BadParameters(
            {side: f"the window {rule}" for side, bound in zip(("from", "to"), window, strict=True) if bound}
        )
    verb = "have" if every else "has"
    return BadParameters(
        {
            "reference": f"the alpha's history holds {whole} sessions on which {members} {verb} a "
            f"long_short return; at least {MIN_SESSIONS} are needed"
        }
    )


def weighted_book(
    snapshot: CatalogueSnapshot,
    alpha: str,
    reference: tuple[str, ...],
    window: Window,
    weighting: Weighting,
    warnings: Warnings,
) -> ReferenceBook:
    """The reference set combined as /analytics/combine combines it (its rules: every member needs
    returns, 400 naming `reference`; its common sessions of the window, its weights fitted on them
    or on those up to fit_to, and its warnings), and the alpha, over those sessions judged on which
    the alpha has a return."""
    catalogue = snapshot.catalogue
    matrix = snapshot.matrix("returns")
    own = int(sets.matrix_rows(matrix, (alpha,), "alpha")[0])
    rows = sets.matrix_rows(matrix, reference, "reference")
    found = set_returns(snapshot, rows, reference, window, "reference")
    try:
        book = weighted(found, weighting, "reference")
    except NotCombinable as exc:
        raise BadParameters({"reference": f"cannot be combined by {weighting.method}: {exc}"}) from exc
    weight_warnings(
        book, weighting, production_of(catalogue, reference), "reference.combination.weights", warnings
    )
    found = book.judged
    mine = np.asarray(matrix.values[own, np.searchsorted(matrix.days, found.days)])
    keep = np.isfinite(mine)
    count = int(np.count_nonzero(keep))
    if count < MIN_SESSIONS:
        raise _too_few(matrix.values, own, rows, window, count, every=True)
    days, members = found.days[keep], found.returns[keep]
    alpha_rf, before_rf, reason = None, None, found.risk_free_reason
    if book.risk_free is not None:
        own_rf, reason = risk_free_rows(snapshot, (alpha,), days)
        if own_rf is not None and np.isfinite(own_rf[0]).all():
            alpha_rf, before_rf = own_rf[0], book.risk_free[keep]
        elif own_rf is not None:
            reason = NO_RISK_FREE_OF_MEMBER
    to_members, _ = pearson_between(members.T, mine[keep][None, :])
    combined = Combination(
        weighting.method,
        book.weights,
        book.shrinkage,
        book.fit,
        int(found.days.size),
        members,
        turnover_of(catalogue, (*reference, alpha)),
    )
    shared = np.full(len(reference), count)
    return ReferenceBook(
        reference,
        days,
        mine[keep],
        book.period[keep],
        alpha_rf,
        before_rf,
        reason,
        to_members[:, 0],
        shared,
        combined,
    )


def _risk_free(
    snapshot: CatalogueSnapshot,
    ids: tuple[str, ...],
    window_days: np.ndarray,
    traded: np.ndarray,
    holding: np.ndarray,
    keep: np.ndarray,
) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """The alpha's risk-free returns and the mean of the members' with a return, on the sessions
    counted; or None and why: each alpha needs one on every session it has a return."""
    found, reason = risk_free_rows(snapshot, ids, window_days)
    if found is None:
        return None, None, reason
    alpha_rf = found[0][keep]
    # A member's missing risk-free return on a session it traded makes that session's sum NaN.
    sums = np.sum(found[1:], axis=0, where=traded)[keep]
    if not (np.isfinite(alpha_rf).all() and np.isfinite(sums).all()):
        return None, None, NO_RISK_FREE_OF_MEMBER
    return alpha_rf, sums / holding[keep], ""


def contribution(
    alpha: str,
    reference: Reference,
    window: Window,
    found: ReferenceBook,
    weight: float | None,
) -> Contribution:
    """The contribution of `alpha` to the reference book `found` at `weight` (None: the optimal
    weight, 400 naming `weight` when there is none)."""
    alpha_r, before, to_members = found.alpha, found.before, found.to_members
    chosen = "given"
    if weight is None:
        chosen = "optimal"
        weight = optimal_weight(before, alpha_r)
        if not math.isfinite(weight):
            raise BadParameters(
                {
                    "weight": "required here: no weight in [0, 1] gives the book a measurable information ratio "
                    "(its returns have no variance over the sessions)"
                }
            )
    after = (1.0 - weight) * before + weight * alpha_r
    rf_after = None
    if found.alpha_risk_free is not None and found.before_risk_free is not None:
        rf_after = (1.0 - weight) * found.before_risk_free + weight * found.alpha_risk_free
    reason, mix = found.risk_free_reason, found.combination
    if mix is None:
        before_entries = book_entries(book_figures(before, found.before_risk_free, SESSIONS_PER_YEAR), reason)
        after_entries = book_entries(book_figures(after, rf_after, SESSIONS_PER_YEAR), reason)
    else:
        # The combination's figures, turnover and diversification ratio included; after holds the
        # alpha as one more member at w, the set's weights scaled by 1 - w.
        turnover = mix.turnover
        own = Turnover(turnover.values[:-1], turnover.units[:-1])
        before_entries = combined_figures(
            mix.members, mix.weights, before, found.before_risk_free, reason, own
        )
        after_entries = combined_figures(
            np.column_stack([mix.members, alpha_r]),
            np.append((1.0 - weight) * mix.weights, weight),
            after,
            rf_after,
            reason,
            turnover,
        )
    known = np.isfinite(to_members)
    nearest = int(np.argmax(np.where(known, np.abs(to_members), -1.0))) if known.any() else None
    present = found.shared > 0
    absent = [a for a, ok in zip(found.reference, present, strict=True) if not ok]
    return Contribution(
        alpha=alpha,
        book=BOOK,
        reference=ContributionReference(
            source=reference.source,
            origin=reference.origin,
            alphas=list(reference.alphas),
            count=len(reference.alphas),
            alpha_excluded=reference.excluded,
            members_in_window=int(np.count_nonzero(present)),
            without_returns=ContributionAbsent(count=len(absent), alphas=absent[:MAX_LISTED]),
            combination=UNSET if mix is None else mix.echo(found.reference),
        ),
        window=window_echo(window),
        weight=ContributionWeight(value=weight, chosen=chosen),
        sessions=int(found.days.size),
        session_rule=_session_rule(mix),
        before=before_entries,
        after=after_entries,
        change=change_entries(before_entries, after_entries),
        correlation_to_set=_correlation("correlation_to_set", pearson(alpha_r, before), NO_CORRELATION),
        max_correlation_to_member=_correlation(
            "max_correlation_to_member",
            math.nan if nearest is None else float(to_members[nearest]),
            NO_MEMBER_CORRELATION,
            alpha=None if nearest is None else found.reference[nearest],
        ),
        mean_correlation_to_member=_correlation(
            "mean_correlation_to_member",
            float(np.mean(to_members[known])) if known.any() else math.nan,
            NO_MEMBER_CORRELATION,
            members=int(np.count_nonzero(known)),
        ),
    )


def _session_rule(mix: Combination | None) -> str:
    if mix is None:
        return SESSION_RULE
    fitted = mix.fit is not None and mix.fit.fit_to is not None
    return WEIGHTED_SESSION_RULE + (AFTER_FIT if fitted else "")


def _correlation(name: str, value: float, reason: str, **extra: Any) -> AnalyticsStat:
    return declared_stat(Contribution, name, value, reason, **extra)
