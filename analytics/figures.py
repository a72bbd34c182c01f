"""The API's figures in a notebook: open a lake (a local folder or `s3://...`) and ask for any
route's figure of an alpha, a set or a window, as the same Struct the API serves
(docs/analytics.md, "In a notebook").

    from analytics.figures import Figures

    figures = Figures.open("var/lake")
    risk = figures.risk("momentum_12_1", start=date(2022, 1, 1))   # schemas.bodies.risk.Risk
    page = figures.correlation("momentum_12_1", basis="ic", limit=10)
    book = figures.combine(("momentum_12_1", "Test_planted_factor"), weighting="max_ir")
    risk.sortino.value, risk.sortino.unit
    msgspec.json.encode(risk)   # byte for byte the `data` of /v1/alphas/momentum_12_1/analytics/risk

Each method takes the route's query parameters as keywords, with the route's defaults and names
(its `schemas.query` Struct: `from`/`to` are `start`/`end`, `with` is `other`); a list the API
takes comma-separated is a sequence here (`alphas`, `reference`, `tag`), and `weights` a sequence
in the set's order or a mapping from alpha to weight. A notebook reads as a key that may read
everything: every alpha and book, raw books included, and every dataset a figure is built from;
`checks` judges against the policy it is given (a `Policy` or a policy file, as the server's
`checks_policy_file`; by default the built-in one). The computation is the server's own (the same
functions, the same builds): the served `data` of a route and the Struct (or the page's rows)
returned here encode to the same bytes (tests/analytics/test_in_process.py). Warnings the API
would put in `meta.warnings` are collected in `warnings` when one is given. A bad argument raises
the domain error the API answers 400 for (`analytics.errors.BadParameters`); an unknown alpha or
book raises `LookupError`; a lake that cannot answer raises the lake's fault
(`datasets.faults.CatalogueIncomplete`, `BenchmarkMissing`).

The answers of one alpha asked as (build, query) (`metrics`, `risk`, `costs`, `correlation`, ...:
`ASKED`) are declared here in one line each, `risk = Asked(Reading.risk)`, so mypy and an editor
see them and what they return; the method is derived from its declaration on `Reading`
(`analytics.build_answers`), named as it, taking its query Struct's fields as keywords (its
signature and `help()` say which). Importing this module fails, naming the line to add, when a
served answer is not declared. Those with more than a query (the live split's approval, a policy,
another alpha, a set, weights) are written below (`live`, `decay`, ...).
"""

from __future__ import annotations

import datetime as dt
import inspect
import os
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from analytics import (
    comparison,
    significance,
)
from analytics.access import EVERYTHING
from analytics.answer import Answer
from analytics.combined import Combined
from analytics.entries import Warnings
from analytics.errors import BadParameters
from analytics.policy import Policy, default_policy, load_policy
from analytics.reading import Reading
from analytics.restatements import restated_warning
from analytics.standings import NO_DECISIONS, Standings
from datasets.queries import Page
from datasets.reader import AlphaBuild, BuildView, LakeReader
from schemas import choices
from schemas.bodies.approved_health import ApprovedHealth
from schemas.bodies.comparison import Comparison
from schemas.bodies.decay import Decay
from schemas.bodies.decisions import Checks, Contribution
from schemas.bodies.live import Live
from schemas.bodies.mmc import Crowding
from schemas.bodies.promotions import DecisionAction, PromotionPreview
from schemas.bodies.residual import Residual
from schemas.bodies.review import ReviewQueue
from schemas.bodies.service import Warning
from schemas.query import (
    ApprovedHealthQuery,
    ChecksQuery,
    CombineQuery,
    CompareQuery,
    ContributionQuery,
    LiveQuery,
    PromotionPreviewQuery,
    Query,
    ResidualQuery,
    ScreenQuery,
    WindowQuery,
)

Weights = Mapping[str, float] | Sequence[float]
"""Given weights (`weighting="given"`): one per alpha of the set, in its order, or by alpha."""
Date = dt.date | None
T = TypeVar("T")


def _asking(name: str, query: type[Query]) -> Callable[..., Any]:
    """`Figures.<name>(alpha, warnings=None, **params)`: `Reading.<name>` of the alpha's build with
    `query(**params)` (a sequence given for a tuple field made one), its warnings collected."""
    answer = typing.get_type_hints(getattr(Reading, name))["return"]

    def ask(self: Figures, alpha: str, warnings: Warnings | None = None, **params: Any) -> Any:
        q = query(**{k: tuple(v) if isinstance(v, list) else v for k, v in params.items()})
        view = self.build(alpha)
        return _collected(getattr(self.reading(), name)(view, q), warnings, view, q)

    fields = msgspec.structs.fields(query)
    keywords = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None if f.default is msgspec.NODEFAULT else f.default,
            annotation=f.type,
        )
        for f in fields
    ]
    ask.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("alpha", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
            inspect.Parameter(
                "warnings", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=Warnings | None
            ),
            *keywords,
        ],
        return_annotation=typing.get_args(answer)[0] if typing.get_args(answer) else Any,
    )
    ask.__name__ = ask.__qualname__ = name
    ask.__doc__ = (
        f"The `{name}` answer of `alpha` (`Reading.{name}`), as its route serves it to a key that "
        f"reads everything; keywords: `{query.__name__}`'s fields "
        f"({', '.join(f.name for f in fields)}).\n\n{inspect.getdoc(getattr(Reading, name)) or ''}"
    ).strip()
    return ask


B = TypeVar("B")


class Asked(Generic[B]):
    """`Figures.<name>(alpha, warnings=None, **query)`: the served answer `Reading.<name>` of the
    alpha's build, its query Struct's fields as keywords, declared once in `Figures` as
    `name = Asked(Reading.name)` so that mypy and an editor see the method and what it returns (its
    body Struct); the method is made from the declaration on `Reading` (`_asking`), nothing else."""

    def __init__(self, method: Callable[[Reading, BuildView, Any], Answer[B]]) -> None:
        self.method = method
        self.function: Callable[..., Any] | None = None

    def __set_name__(self, owner: type, name: str) -> None:
        if name != self.method.__name__:
            raise TypeError(
                f"Figures.{name} = Asked(Reading.{self.method.__name__}): the names must be the same"
            )
        self.function = _asking(name, typing.get_type_hints(self.method)["q"])

    def __get__(self, figures: Figures | None, owner: type | None = None) -> Callable[..., B]:
        """The method bound to `figures`; on the class, the function (as a method's would be)."""
        assert self.function is not None  # made when the class was
        return self.function if figures is None else types.MethodType(self.function, figures)


@dataclass
class Figures:
    """One lake, read in-process (see the module's docstring)."""

    reader: LakeReader
    standings: Standings = NO_DECISIONS
    """Where each alpha stands after the operator's decisions, which the server reads from its
    records: none decided by default. It feeds the screener's `standing` columns and filter and the
    default reference set of `checks` (production_correlation) and `contribution`: the approved
    alphas (the production ones: `analytics.sets.default_reference`), empty when none is."""

    # The served answers of one alpha asked with a query alone (`Asked`): `Figures.<name>(alpha,
    # warnings=None, **query)`; a new one is one line here (the module says which when it is missing).
    attribution = Asked(Reading.attribution)
    capacity = Asked(Reading.capacity)
    correlation = Asked(Reading.correlation)
    costs = Asked(Reading.costs)
    drawdown_odds = Asked(Reading.drawdown_odds)
    drawdowns = Asked(Reading.drawdowns)
    expectation = Asked(Reading.expectation)
    factors = Asked(Reading.factors)
    family_tests = Asked(Reading.family_tests)
    metrics = Asked(Reading.metrics)
    mmc = Asked(Reading.mmc)
    monitoring = Asked(Reading.monitoring)
    catalogue_bound = Asked(Reading.catalogue_bound)
    overfitting = Asked(Reading.overfitting)
    quantiles = Asked(Reading.quantiles)
    regimes = Asked(Reading.regimes)
    restatements = Asked(Reading.restatements)
    returns = Asked(Reading.returns)
    risk = Asked(Reading.risk)
    sub_universe = Asked(Reading.sub_universe)
    rolling = Asked(Reading.rolling)
    significance = Asked(Reading.significance)
    uncertainty = Asked(Reading.uncertainty)

    @classmethod
    def open(cls, root: str, standings: Standings = NO_DECISIONS) -> Figures:
        """The lake at `root` (a folder or `s3://bucket/prefix`), as the server reads it;
        `standings` as the server's records hold them (`Standings.of(open_records(url).promotions
        .standing())`) or a notebook's own (`Standings.approving(["momentum_12_1"])`)."""
        reader = LakeReader(root)
        reader.refresh()
        return cls(reader, standings)

    def build(self, alpha: str) -> BuildView:
        """The served build of `alpha`; `LookupError` when the lake publishes none."""
        return self.reader.view(self._published(alpha))

    def _published(self, alpha: str) -> AlphaBuild:
        found = self.reader.alpha(alpha)
        if found is None:
            raise LookupError(f"no alpha {alpha!r} in {self.reader.root}")
        return found

    def live(self, alpha: str, warnings: Warnings | None = None, **params: Any) -> Live:
        """`/analytics/live` of one book (`LiveQuery`), split at the alpha's tenure in `standings`
        (as the server answers it: `analytics.tenure`), else at the request's split, the seal's
        research_cutoff or the alpha's first publication."""
        q = LiveQuery(**params)
        view = self.build(alpha)
        return _collected(self.reading().live(view, q), warnings, view, q)

    def decay(self, alpha: str, warnings: Warnings | None = None, **params: Any) -> Decay:
        """`/analytics/decay` of one book (`LiveQuery`: `book`, `split`): the IC's half-life by
        horizon and the expected live information ratio, the haircut calibrated on the alphas the
        catalogue index holds approved (their live columns: the sessions first published after the
        approval was recorded, which `alpha-results promote` records); split as `live`."""
        q = LiveQuery(**params)
        view = self.build(alpha)
        return _collected(self.reading().decay(view, q), warnings, view, q)

    def compare(self, alpha: str, other: str, warnings: Warnings | None = None, **params: Any) -> Comparison:
        """`/analytics/compare` of `alpha` with `other` (the route's `with`) over one book
        (`CompareQuery`: `book`, `window` in sessions, `start`, `end`)."""
        q = CompareQuery(other=other, **params)
        a = self.build(alpha)
        comparison.require_other(a.alpha_id, q.other)
        return _collected(self.reading().compare(a, self.build(q.other), q), warnings, a, q)

    def checks(
        self,
        alpha: str,
        policy: Policy | str | os.PathLike[str] | None = None,
        warnings: Warnings | None = None,
        **params: Any,
    ) -> Checks:
        """`/analytics/checks` of one book (`ChecksQuery`: `book`, `start`, `end` and the
        `min_`/`max_` bounds, which may only tighten the policy) against `policy`: a `Policy`, the
        path of a policy file (what the server's `checks_policy_file` names, read by the same
        `analytics.policy.load_policy`), or None, the built-in defaults. The live checks
        (live_information_ratio, decay_ratio) measure the alpha's tenure in `standings`, as `live`;
        without one they are not_measurable (not_applicable)."""
        q = ChecksQuery(**params)
        view = self.build(alpha)
        judged = policy if isinstance(policy, Policy) else load_policy(os.fspath(policy or ""))
        return _collected(self.reading(judged).checks(view, q), warnings, view, q)

    def promotion_preview(
        self,
        alpha: str,
        policy: Policy | str | os.PathLike[str] | None = None,
        warnings: Warnings | None = None,
        *,
        action: DecisionAction | None = None,
        last_decided: dt.date | None = None,
        **params: Any,
    ) -> PromotionPreview:
        """`/analytics/promotion_preview` (`PromotionPreviewQuery`: `effective`) with these
        standings: what approving the alpha (retiring it, when the standings hold it approved; or
        `action`) would record and change, its checks judged against `policy` (as `checks`).
        `last_decided`: the as_of of its latest decision, which the decision may not precede.
        `alpha-results promote --dry-run` prints this answer."""
        q = PromotionPreviewQuery(**params)
        view = self.build(alpha)
        judged = policy if isinstance(policy, Policy) else load_policy(os.fspath(policy or ""))
        if action is None:
            action = "retired" if alpha in self.standings.approved else "approved"
        answer = self.reading(judged).promotion_preview(view, q, action, last_decided)
        return _collected(answer, warnings, view, q)

    def review(self, policy: Policy | str | os.PathLike[str] | None = None) -> ReviewQueue:
        """`/v1/review` with these standings: the nominated alphas, oldest nomination first, each
        with the verdict of its checks against `policy` (as `checks`)."""
        judged = policy if isinstance(policy, Policy) else load_policy(os.fspath(policy or ""))
        return self.reading(judged).review().data

    def combine(
        self,
        alphas: Sequence[str],
        weights: Weights | None = None,
        warnings: Warnings | None = None,
        *,
        weighting: str = choices.WEIGHTINGS[0],
        shrinkage: float | None = None,
        fit_to: Date = None,
        start: Date = None,
        end: Date = None,
    ) -> Combined:
        """`/v1/analytics/combine` of the set `alphas` (long_short books, from the catalogue's
        matrices). The answer's pages are `rows(limit, offset)` (the `data` of the route's pages,
        `CombinedRow`s), its `meta` keys as attributes (`weights`, `figures`, `correlation`...), its
        series `days`, `period`, `cumulative`, `drawdown_pct` and `benchmark` (the market benchmark's cumulative
        return) as arrays."""
        ids = tuple(alphas)
        q = CombineQuery(
            alphas=ids,
            weights=_weights(weights, ids),
            weighting=weighting,
            shrinkage=shrinkage,
            fit_to=fit_to,
            start=start,
            end=end,
        )
        return _collected(self.reading().combine(q), warnings)

    def contribution(
        self,
        alpha: str,
        reference: Sequence[str] | None = None,
        weights: Weights | None = None,
        warnings: Warnings | None = None,
        *,
        weighting: str | None = None,
        shrinkage: float | None = None,
        fit_to: Date = None,
        weight: float | None = None,
        start: Date = None,
        end: Date = None,
    ) -> Contribution:
        """`/analytics/contribution`: what adding `alpha` at `weight` (None: the optimal weight)
        does to the `reference` set (None: the default set, the approved alphas of `standings` but
        the alpha: a 400 when there is none), equally weighted as it grew, or
        combined by `weighting` as `combine` combines it."""
        given = None if reference is None else tuple(reference)
        q = ContributionQuery(
            reference=given,
            weights=_weights(weights, given or ()),
            weighting=weighting,
            shrinkage=shrinkage,
            fit_to=fit_to,
            weight=weight,
            start=start,
            end=end,
        )
        view = self.build(alpha)
        return _collected(self.reading().contribution(view, q), warnings, view, q)

    def crowding(self, start: Date = None, end: Date = None) -> Crowding:
        """`/v1/analytics/crowding`: how alike the books of the approved alphas of `standings` are
        (weekly name and weight overlap, shared factor loadings; `analytics.mmc`)."""
        return self.reading().crowding(WindowQuery(start=start, end=end)).data

    def approved_health(self, book: str = "long_short", policy: Policy | None = None) -> ApprovedHealth:
        """`/v1/analytics/approved_health`: every approved alpha of `standings`, its live track
        against its expectation, its CUSUM (the chart of `policy`), the probability its approval was
        a false discovery and what it adds (`analytics.approved_health`)."""
        return self.reading(policy).approved_health(ApprovedHealthQuery(book=book)).data

    def residual(self, alpha: str, reference: Sequence[str] | None = None, **params: Any) -> Residual:
        """`/analytics/residual` of one book (`ResidualQuery`: `book`, `start`, `end`): its daily
        returns regressed on the `reference` set's long_short returns and SPY's (None: the default
        set, the approved alphas of `standings` but the alpha: SPY alone when there is none)."""
        q = ResidualQuery(reference=None if reference is None else tuple(reference), **params)
        return self.reading().residual(self.build(alpha), q).data

    def screen(
        self,
        tag: Sequence[str] = (),
        standing: str | Sequence[str] = (),
        warnings: Warnings | None = None,
        **params: Any,
    ) -> Page:
        """`/v1/analytics/screen` (`ScreenQuery`; `tag` the tags every alpha kept carries, `standing`
        the standings kept): the alphas of the catalogue index, filtered, sorted and paged, each
        row with its alpha's standing (`standings`)."""
        kept = (standing,) if isinstance(standing, str) else tuple(standing)
        q = ScreenQuery(tag=tuple(tag) or None, standing=kept or None, **params)
        answer = self.reading().screen(q, lambda alpha: self._published(alpha).alpha_id)
        _collect(warnings, answer.warnings)
        return answer.data.page

    def significance_first_use(self, alpha: str) -> None:
        """What `/analytics/significance` computes once per process whatever the alpha
        (`significance.first_use`), for the trials as a reader of everything sees them beside
        `alpha`: a server worker's warm-up (serve/warm.py)."""
        significance.first_use(self.reading().seen(alpha))

    def reading(self, policy: Policy | None = None) -> Reading:
        """The lake as a reader of everything reads it now, with these standings (`analytics.reading`):
        the one inputs object every answer over the catalogue is computed from."""
        return Reading(self.reader, EVERYTHING, lambda: self.standings, policy or default_policy())


def _asked_answers() -> dict[str, type[Query]]:
    """`Reading`'s answers of one alpha asked as (build, query): name -> its query Struct."""
    found: dict[str, type[Query]] = {}
    for name, member in inspect.getmembers(Reading, inspect.isfunction):
        parameters = list(inspect.signature(member).parameters)
        if name.startswith("_") or parameters != ["self", "view", "q"]:
            continue
        query = typing.get_type_hints(member)["q"]
        if isinstance(query, type) and issubclass(query, Query):
            found[name] = query
    return found


ASKED: dict[str, type[Query]] = _asked_answers()
"""The answers of one alpha `Reading` serves (name -> query Struct): each is a method of `Figures`,
declared `name = Asked(Reading.name)` or written by hand when it takes more than a query."""
_UNDECLARED = sorted(name for name in ASKED if name not in vars(Figures))
assert not _UNDECLARED, (
    f"analytics/figures.py: declare {', '.join(f'{n} = Asked(Reading.{n})' for n in _UNDECLARED)} in Figures"
)


def _collect(warnings: Warnings | None, entries: list[Warning]) -> None:
    if warnings is not None:
        warnings.extend(entries)


def _collected(
    answer: Answer[T], warnings: Warnings | None, view: BuildView | None = None, q: object = None
) -> T:
    """The answer's Struct, its warnings added to `warnings` (when given), as the API's meta holds them:
    an answer about one build's window first says whether a value in it was restated."""
    restated = None if view is None else restated_warning(view, q)
    _collect(warnings, [*([restated] if restated is not None else []), *answer.warnings])
    return answer.data


def _weights(weights: Weights | None, ids: tuple[str, ...]) -> tuple[float, ...] | None:
    """Given weights in the order of the set `ids`; a mapping names each alpha of it once."""
    if weights is None:
        return None
    if isinstance(weights, Mapping):
        if set(weights) != set(ids):
            raise BadParameters({"weights": "a mapping names every alpha of the set, and no other, once"})
        return tuple(float(weights[alpha]) for alpha in ids)
    return tuple(float(w) for w in weights)
