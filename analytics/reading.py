"""One reading of the lake: the inputs every answer over the catalogue is computed from, built in
one place, with the reader's scope in them (issue 46).

An answer over the catalogue (significance, correlation, checks, residual, contribution) reads more
than its alpha's build: the catalogue snapshot of one generation, the trials, the standings and the
reference set they make, the market benchmark's series, and what the reader may read. Each is
assembled here, once, for every surface that asks: a route (the server builds the scope from the
key: `serve.scope.readable.scope_of`), `analytics.figures.Figures` (a notebook, the pipeline's promotion
snapshots and events: the scope that reads everything), MCP through the routes. So the same figure
cannot differ by surface: a surface chooses the scope and the standings, never the reference set or
the trials.

`Reading.<answer>(view, query)` returns an `Answer`: the Struct, the warnings the API puts in
`meta.warnings`, and the answer's version (what it depends on, the ETag's material), which changes
with a build of an alpha the reader may read and never with one it may not.

Figures know no keys: the scope is data (the routes it may call, the alphas it may read as a
predicate and as a mask over a catalogue), made by the server from a key.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from analytics import (
    approved_health,
    checks,
    decay,
    drawdown_odds,
    family_tests,
    inputs,
    live,
    mmc,
    monitoring,
    overfitting,
    promotion,
    rademacher,
    residual,
    screen,
    sets,
    significance,
)
from analytics import expectation as shrinkage
from analytics.access import EVERYTHING, ReaderScope, require_readable, withheld
from analytics.answer import SERVED, Answer, book_meta, served
from analytics.build_answers import BuildAnswers
from analytics.combined import Combined, combination, combine_weighting
from analytics.contribution import (
    contribution_of,
    contribution_parameters,
    default_reference,
    given_reference,
)
from analytics.correlation import BASES, correlation_page
from analytics.entries import Warnings, conventions
from analytics.errors import AnalyticsNotBuilt, BadParameters, DataNotReadable
from analytics.inputs import require_built
from analytics.policy import Policy, default_policy
from analytics.rademacher import Scoped
from analytics.regimes import MarketRegimes, market_regimes
from analytics.series import BenchmarkSeries, benchmark_series
from analytics.significance import Moments
from analytics.standings import NO_DECISIONS, Standings
from analytics.tenure import Tenure
from datasets import answers, clock, screener
from datasets.catalogue_snapshot import CatalogueSnapshot, Matrix
from datasets.faults import BenchmarkMissing, CatalogueIncomplete
from datasets.queries import Page, Window
from datasets.reader import BuildView, LakeReader
from datasets.served import Catalogue
from schemas import choices
from schemas.bodies import approved_health as approved_health_body
from schemas.bodies.analytics import WINDOW
from schemas.bodies.approved_health import (
    CHECKS_ROUTE,
    EXPECTATION_ROUTE,
    FROM_ROUTES,
    LIVE_ROUTE,
    MMC_ROUTE,
    MONITORING_ROUTE,
    ApprovedHealth,
    FalseDiscoveryPrior,
)
from schemas.bodies.catalogue_bound import CatalogueBound
from schemas.bodies.decay import CALIBRATION_MIN_ALPHAS, CALIBRATION_MIN_SESSIONS, LITERATURE_HAIRCUT, Decay
from schemas.bodies.decisions import Checks, Contribution
from schemas.bodies.drawdown_odds import DrawdownOdds
from schemas.bodies.expectation import MIN_GROUP_MEMBERS, Expectation
from schemas.bodies.family_tests import FamilyTests
from schemas.bodies.live import Live
from schemas.bodies.mmc import MMC_METHOD, Crowding, Mmc
from schemas.bodies.monitoring import Monitoring
from schemas.bodies.overfitting import Overfitting
from schemas.bodies.promotions import (
    CheckChange,
    DecisionAction,
    OtherAlpha,
    PromotionPreview,
)
from schemas.bodies.residual import Residual
from schemas.bodies.review import ReviewEntry, ReviewQueue
from schemas.bodies.rows import CorrelationRow
from schemas.bodies.significance import Significance
from schemas.checks import BY_ID, LIVE_CHECKS, LIVE_MIN_SESSIONS
from schemas.conventions import WEEKS_PER_YEAR
from schemas.query import (
    ApprovedHealthQuery,
    ChecksQuery,
    CombineQuery,
    ContributionQuery,
    CorrelationQuery,
    DrawdownOddsQuery,
    ExpectationQuery,
    FamiliesQuery,
    FamilyTestsQuery,
    LiveQuery,
    NoQuery,
    OverfittingQuery,
    PromotionPreviewQuery,
    ResidualQuery,
    ScreenQuery,
    SignificanceQuery,
    WindowQuery,
)
from schemas.wire import BENCHMARK_ENDPOINT, MARKET_BENCHMARK


def catalogue_tag(catalogue: Catalogue, mask: np.ndarray, *parts: str) -> str:
    """A version of an answer built from the builds of the alphas `mask` admits, in catalogue
    order, and `parts`: it changes when one of those changes, never with an alpha the reader may
    not read. The one rule for every answer built from many alphas (the catalogue, the screener,
    correlation, the decision routes)."""
    listing = catalogue.listing
    assert listing is not None
    digest = hashlib.sha256("\x00".join(parts).encode())
    digest.update(listing.digest_of(mask))  # of the admitted fingerprints, kept per mask
    return digest.hexdigest()[:24]


def matrices_tag(catalogue: Catalogue) -> str:
    """The catalogue generation's matrix files: part of the version of an answer read from them."""
    return repr(sorted(catalogue.generation.matrices) if catalogue.generation else None)


__all__ = ["SERVED", "Reading"]
"""`SERVED` is complete once this module (both classes of answers) is imported: read it here."""


@dataclass
class Reading(BuildAnswers):
    """The lake as one reader reads it now: its scope, the operator's standings and policy. The
    snapshot is taken once per reading, so every catalogue figure of an answer is of one
    generation."""

    reader: LakeReader
    scope: ReaderScope = EVERYTHING
    read_standings: Callable[[], Standings] = lambda: NO_DECISIONS
    """Where every alpha stands, read when an answer needs it (the default reference set, the
    screener's columns) and then kept: an answer that needs none works while the records cannot be
    read (the server's reads them from its records, a notebook gives its own)."""
    policy: Policy = field(default_factory=default_policy)

    @cached_property
    def snapshot(self) -> CatalogueSnapshot:
        """The catalogue of one generation, taken when an answer first needs it (an answer of one
        build never does) and kept for every later figure of this reading."""
        return self.reader.snapshot()

    @cached_property
    def standings(self) -> Standings:
        return self.read_standings()

    # -- the inputs, each built here ------------------------------------------------------------

    def readable(self) -> np.ndarray:
        """Which of the snapshot's alphas (catalogue order) the reader may read."""
        return self.scope.readable(self.snapshot.catalogue)

    def whole_catalogue(self) -> None:
        """`CatalogueIncomplete` (503) when an alpha the reader may read is published but cannot be
        read: a figure over the catalogue without it would be short, never said so. An unreadable
        alpha it may not read changes nothing it is answered."""
        if any(self.scope.may_read(alpha) for alpha in self.snapshot.catalogue.unreadable):
            raise CatalogueIncomplete()

    def seen(self, alpha: str) -> significance.Seen:
        """The trials as the reader sees them (the count of the whole catalogue; the variance and
        the p-values of the alphas it may read)."""
        return significance.seen(self.snapshot.trials(), self.readable(), alpha)

    def family_trials(self, alpha: str) -> significance.FamilyTrials | None:
        """The trials of the alpha's own trial family as the reader sees them (its members the
        reader may read); None when its seal names no family, or the lake has no catalogue index."""
        catalogue = self.snapshot.catalogue
        index, listing = catalogue.index, catalogue.listing
        if index is None or listing is None:
            return None
        family = overfitting.family_of(index, alpha)
        if family is None:
            return None
        members = overfitting.family_members(index, listing.ids, self.readable(), family)
        return significance.family_trials(self.snapshot.trials(), family, [a for a, _ in members])

    def market(self) -> BenchmarkSeries:
        """The market benchmark's daily series; `BenchmarkMissing` when the lake has none."""
        view = self.reader.benchmark_view(MARKET_BENCHMARK)
        assert view is not None  # opened, or BenchmarkMissing raised
        return benchmark_series(view, MARKET_BENCHMARK)

    def market_regimes(self) -> MarketRegimes:
        """The market benchmark's regimes; `BenchmarkMissing` when the lake has none, 503 when its
        build predates them."""
        view = self.reader.benchmark_view(MARKET_BENCHMARK)
        assert view is not None  # opened, or BenchmarkMissing raised
        return market_regimes(view, MARKET_BENCHMARK)

    def book(self, view: BuildView, book: str) -> str:
        """`book`, when the reader may read it (raw books only with `scope.raw`); else 400
        unknown_book naming the books it may."""
        return answers.checked_book(view, "portfolio", book, self.scope.raw)

    # -- the answers ----------------------------------------------------------------------------

    @served(
        "Significance of the long_short Sharpe ratio and the IC, corrected for the catalogue's trials",
        "Significance of the long_short Sharpe ratio and of the IC over " + WINDOW,
        kinds=("portfolio", "decisions"),
    )
    def significance(self, view: BuildView, q: SignificanceQuery) -> Answer[Significance]:
        require_built(view)
        self.whole_catalogue()
        seen = self.seen(view.alpha_id)
        family = self.family_trials(view.alpha_id)
        snapshot = self.snapshot
        clusters = significance.clustered(
            snapshot.trials(), self.readable(), lambda: snapshot.matrix("returns")
        )
        warnings = Warnings()
        data = significance.significance_payload(
            view,
            (q.start, q.end),
            q.sr_benchmark,
            q.trials,
            seen,
            self.scope.access,
            warnings,
            family,
            clusters,
        )
        # The build and the catalogue, family and cluster figures it is given, nothing else.
        family_tag = "family-none" if family is None else family.tag()
        clusters_tag = "clusters-none" if clusters is None else clusters.tag()
        return Answer(data, warnings.entries, f"{view.build_id}+{seen.tag()}+{family_tag}+{clusters_tag}")

    @served(
        "A lower bound on the alpha's Sharpe ratio and IC over the alphas the key may read (Rademacher anti-serum)",
        "The Rademacher anti-serum (Paleologo 2024, section 8.3): with probability 0.95, for every alpha the key "
        "may read at once, its per-session Sharpe ratio and mean weekly IC are at least the observed values less "
        "twice the empirical Rademacher complexity of those alphas and an estimation term. The complexity is "
        "computed exactly over the rows of the alphas the key may read, once per catalogue generation and scope "
        "(nothing another team publishes moves it); the alpha's own values from its rows of the catalogue's "
        "matrices, on the dates one of those alphas has a value. from/to do not apply. The Sharpe side needs "
        "portfolio.ledger, the IC side signals.rebalances.get or signals.scores",
        over_catalogue=True,
    )
    def catalogue_bound(self, view: BuildView, q: NoQuery) -> Answer[CatalogueBound]:
        """The Rademacher anti-serum of `view`'s alpha over the alphas the key may read: each side's
        complexity in the key's scope (`rademacher.in_scope`, kept per generation and scope on its
        matrix's memo), the alpha's own rows of the generation's matrices."""
        self.whole_catalogue()
        snapshot = self.snapshot
        catalogue = snapshot.catalogue
        mask = self.readable()
        listing = catalogue.listing
        assert listing is not None
        readable = [str(a) for a in listing.ids.filter(pa.array(mask)).to_pylist()]
        access = self.scope.access
        returns, ic = snapshot.matrix("returns"), snapshot.matrix("ic")
        key = "ras:" + hashlib.sha256(np.packbits(mask).tobytes()).hexdigest()

        def scoped(
            matrix: Matrix, allowed: bool, transform: Callable[[np.ndarray], np.ndarray]
        ) -> Scoped | None:
            if not allowed:
                return None
            found = matrix.memo.get(key)
            if not isinstance(found, Scoped):
                found = rademacher.in_scope(matrix, readable, transform)
                matrix.memo[key] = found
            return found

        warnings = Warnings()
        data = rademacher.catalogue_bound_payload(
            view.alpha_id,
            scoped(returns, access.ledger, rademacher.unit_variance),
            scoped(ic, access.cross_sections, rademacher.clipped),
            returns,
            ic,
            access,
            warnings,
        )
        # Over the alphas the key may read: their builds and the key's data access, nothing else
        version = catalogue_tag(catalogue, mask, "catalogue_bound", view.build_id, repr(access))
        return Answer(data, warnings.entries, version)

    @served(
        "Correlation with every other alpha the key may read",
        "One row per other alpha the key may read (never the alpha itself, never one it may not read)",
        table=lambda q: BASES[q.basis].table,
        kinds=lambda q: (BASES[q.basis].kind,),
        meta=lambda q: {"basis": q.basis},
        meta_keys=("basis",),
        rows=CorrelationRow,
    )
    def correlation(self, view: BuildView, q: CorrelationQuery) -> Answer[Page]:
        require_built(view)
        require_readable(self.scope.access, BASES[q.basis].data)
        self.whole_catalogue()
        # Only alphas the reader may read, and never the alpha itself: nothing else is counted or named.
        mask = self.readable()
        snapshot = self.snapshot
        page = correlation_page(snapshot, view.alpha_id, mask, q.basis, (q.start, q.end), q.limit, q.offset)
        # The rows depend on the builds of the alphas the reader may read and, on the scores basis,
        # on the alpha's neighbour list (rewritten under a new name when it changes).
        listed = snapshot.list_path(view.alpha_id) if q.basis == "scores" else ""
        tag = catalogue_tag(snapshot.catalogue, mask, q.basis, listed or "")
        return Answer(page, [], f"{view.build_id}+{tag}")

    @served(
        "Probability of backtest overfitting of the alpha's trial family",
        "Combinatorially symmetric cross-validation (Bailey, Borwein, López de Prado and Zhu 2015) over the "
        "members of the trial family the alpha's seal names that the key may read (never a member it may not "
        "read): their common sessions of daily long_short returns cut into `splits` blocks, each of the C(S, S/2) "
        "halves taken in sample, the trials ranked by their Sharpe ratio. PBO, the logit distribution, the "
        "performance degradation (slope of out-of-sample on in-sample Sharpe) and the probability of loss out "
        "of sample; not_measurable with a reason without a family, below 6 readable members or without "
        "portfolio.ledger. Whole history: from/to do not apply",
        over_catalogue=True,
    )
    def overfitting(self, view: BuildView, q: OverfittingQuery) -> Answer[Overfitting]:
        """The probability of backtest overfitting of the alpha's trial family, over the members the
        reader may read (never a figure of a member it may not: a key reading 3 of 16 is told it
        reads too few), from the catalogue's returns matrix of one generation."""
        splits = overfitting.splits_checked(q.splits)
        warnings = Warnings()
        catalogue, family, members, reason = self.family_in_scope(view, "overfitting", warnings)
        snapshot = self.snapshot
        computed = None
        if reason is None and len(members) >= overfitting.MIN_TRIALS:
            matrix = snapshot.matrix("returns")
            members = [m for m in members if m[0] in matrix.rows]
            rows = [matrix.rows[alpha] for alpha, _ in members]
            if len(members) >= overfitting.MIN_TRIALS:
                computed = overfitting.kept_cscv(
                    catalogue.version,
                    tuple(alpha for alpha, _ in members),
                    lambda: np.asarray(matrix.values[rows]),
                    splits,
                )
        data = overfitting.overfitting_payload(family, members, computed, splits, reason)
        # The builds of the members the reader may read, the family and S; nothing else.
        tag = catalogue_tag(
            catalogue,
            sets.set_mask(catalogue, [alpha for alpha, _ in members]),
            "overfitting",
            family or "",
            str(splits),
            str(int(self.scope.access.ledger)),
            matrices_tag(catalogue),
        )
        return Answer(data, warnings.entries, f"{view.build_id}+{tag}")

    @served(
        "Which members of the alpha's trial family are indistinguishable from the best, and how stable its Sharpe ratio is across each parameter",
        "Over the members of the trial family the alpha's seal names that the key may read (never a member it may "
        "not read), on their common sessions of daily long_short returns, one stationary-bootstrap draw of 1,000 "
        "resamples shared by every member: Hansen's SPA p-values (benchmark: the family's equal-weighted mean "
        "return), Romano and Wolf's StepM (members superior to it at 0.05) and Hansen, Lunde and Nason's model confidence set "
        "(T_R, loss = -daily return: the members indistinguishable from the best at 0.05); per parameter the "
        "members' Sharpe ratio against its value: Spearman's correlation and the neighbour deviation. "
        "not_measurable with a reason without a family, below 2 readable members, below 20 common sessions or "
        "without portfolio.ledger. Whole history: from/to do not apply",
        over_catalogue=True,
    )
    def family_tests(self, view: BuildView, q: FamilyTestsQuery) -> Answer[FamilyTests]:
        """SPA, StepM, the MCS and the parameter stability of the alpha's trial family, over the
        members the reader may read (never a figure of a member it may not), from the catalogue's
        returns matrix of one generation."""
        warnings = Warnings()
        catalogue, family, members, reason = self.family_in_scope(view, "family_tests", warnings)
        snapshot = self.snapshot
        computed = None
        if reason is None and members:
            matrix = snapshot.matrix("returns")
            members = [m for m in members if m[0] in matrix.rows]
            rows = [matrix.rows[alpha] for alpha, _ in members]
            if members:
                computed = family_tests.kept_tests(
                    catalogue.version,
                    tuple(alpha for alpha, _ in members),
                    lambda: np.asarray(matrix.values[rows]),
                )
        data = family_tests.family_tests_payload(family, members, computed, reason)
        # The builds of the members the reader may read and the family; nothing else.
        tag = catalogue_tag(
            catalogue,
            sets.set_mask(catalogue, [alpha for alpha, _ in members]),
            "family_tests",
            family or "",
            str(int(self.scope.access.ledger)),
            matrices_tag(catalogue),
        )
        return Answer(data, warnings.entries, f"{view.build_id}+{tag}")

    def family_in_scope(
        self, view: BuildView, answer: str, warnings: Warnings
    ) -> tuple[Catalogue, str | None, list[tuple[str, dict[str, object]]], str | None]:
        """The catalogue, the trial family the alpha's seal names, its members the reader may read
        (with their parameters) and why its figures are not measurable (None: they are): the one
        reading of a family that the overfitting and the family tests share."""
        self.whole_catalogue()
        catalogue = self.snapshot.catalogue
        index, listing = catalogue.index, catalogue.listing
        if index is None or listing is None:
            raise CatalogueIncomplete(
                "The lake has no catalogue index, which the trial families are read from; an operator "
                "writes it with `alpha-results lake index`."
            )
        family = overfitting.family_of(index, view.alpha_id)
        reason = None
        if not self.scope.access.ledger:
            reason = withheld("ledger", answer, warnings)
        elif family is None:
            reason = overfitting.NO_FAMILY.format(alpha=view.alpha_id)
        members = (
            [] if family is None else overfitting.family_members(index, listing.ids, self.readable(), family)
        )
        return catalogue, family, members, reason

    def families(self, q: FamiliesQuery) -> Answer[Page]:
        """`/v1/families`: the members of every trial family the reader may read (its scope's mask:
        both allow-lists, as the PBO counts them), family by family; the version names the builds
        of those alphas alone."""
        catalogue = self.snapshot.catalogue
        listing = catalogue.listing
        assert listing is not None  # every catalogue read from the lake has one
        mask = self.readable()
        # The order is made once per generation (issue 60); the caller runs this off the event loop.
        order = overfitting.family_order(catalogue.version, catalogue.index, listing.ids)
        rows, total = overfitting.families_page(order, mask, q.family, q.limit, q.offset)
        return Answer(Page(rows, total), [], f"families:{catalogue_tag(catalogue, mask)}")

    def tenure(self, alpha: str) -> Tenure | None:
        """The alpha's tenure as this reading's standings hold it: the one rule of "which approval,
        which split" for every answer (`analytics.tenure`)."""
        return self.standings.tenure(alpha)

    def checks(self, view: BuildView, q: ChecksQuery, only: frozenset[str] | None = None) -> Answer[Checks]:
        """The battery of `q.book` against the policy tightened by `q`; the live checks measure the
        alpha's tenure (`tenure`); `only`: those checks alone (a decision's consequences)."""
        thresholds = self.policy.tightened(q)
        require_built(view)
        book = self.book(view, q.book)
        self.whole_catalogue()
        access, may_call = self.scope.access, self.scope.may_call
        seen = self.seen(view.alpha_id)
        family = self.family_trials(view.alpha_id)
        catalogue = self.snapshot.catalogue
        reference = checks.production_references(
            catalogue, self.readable(), view.alpha_id, self.standings.approved
        )
        warnings = Warnings()
        refused = checks.production_refused(access, may_call(checks.CORRELATION_ENDPOINT), warnings)
        positions = checks.positions_refused(may_call(checks.POSITIONS_ENDPOINT), warnings)
        residual_why = checks.residual_refused(
            access, may_call(checks.RESIDUAL_ENDPOINT), may_call(BENCHMARK_ENDPOINT), warnings
        )
        market = None
        if residual_why is None:
            try:
                market = self.market()
            except BenchmarkMissing as exc:  # one check without SPY, not the battery
                residual_why = residual.market_missing(exc)
        held = self.tenure(view.alpha_id)
        # The pbo check, on unless the operator's policy turned it off: /analytics/overfitting's, in
        # the reader's scope (the family's size it states is the members the reader may read).
        # A lake without a catalogue index (families are read from it) leaves the check not
        # measurable, not the battery a 503 as /analytics/overfitting is.
        pbo, found = None, None
        if "pbo" in thresholds and only is None:
            if catalogue.index is not None:
                found = self.overfitting(view, OverfittingQuery())
            asked = any(getattr(q, side) is not None for side in BY_ID["pbo"].parameters.values())
            bounded = asked or "pbo" in self.policy.bounded
            answer = None if found is None else found.data
            pbo = checks.pbo_figure(view.alpha_id, answer, bounded, access, warnings)
        matrix = self.snapshot.matrix("returns") if refused is None or residual_why is None else None
        production = checks.Production(
            None if refused else matrix, reference.alphas, refused, reference.origin
        )
        basis = residual.Basis(matrix, residual.as_reference(reference), market, residual_why)
        data = checks.checks_payload(
            view,
            book,
            (q.start, q.end),
            thresholds,
            self.policy,
            seen,
            family,
            production,
            access,
            positions,
            warnings,
            held,
            basis,
            pbo,
            only,
        )
        # The build, the policy, the trials, the builds of the production alphas the reader may
        # read, the approval, the market's build and what the reader may read; nothing else.
        version = "+".join(
            (
                view.build_id,
                self.policy.tag(),
                seen.tag(),
                "family-none" if family is None else family.tag(),
                catalogue_tag(catalogue, reference.mask, "checks.production", reference.origin, "returns"),
                "tenure-none" if held is None else held.tag(),
                "market-none" if market is None else f"market-{market.build_id}",
                f"{int(access.ledger)}{int(access.cross_sections)}{int(refused is None)}"
                f"{int(positions is None)}{int(residual_why is None)}",
            )
        )
        if found is not None:  # the family's members the reader may read (while the check is on)
            version += f"+pbo-{found.version}"
        if only is not None:
            version += "+only-" + ",".join(sorted(only))
        return Answer(data, warnings.entries, version)

    @served(
        "The IC's half-life by forecast horizon and the book's backtest information ratio after the live haircut",
        "The IC's decay with the forecast horizon: the marginal IC of the k-th week's return fitted as "
        "ic_1 * exp(-decay_rate * (k - 1)) to the IC term structure (1, 2, 4, 8 weeks, /metrics "
        "panel.ic_term_structure, whole history), its half-life ln(2) / decay_rate; and the book's backtest "
        "information ratio after the haircut (haircut_information_ratio, not shrunk: not the expected live "
        "information ratio, which is /analytics/expectation's), its backtest information ratio (/analytics/live in_sample at the same split) times the "
        "retention the approved alphas the key may read show live (this one excepted: the least-squares slope "
        f"of their live on their backtest information ratios, each with {CALIBRATION_MIN_SESSIONS} sessions "
        f"first published after its approval was recorded), with its standard error and leave-one-out RMSE; below {CALIBRATION_MIN_ALPHAS} "
        f"such alphas, the literature's haircut ({LITERATURE_HAIRCUT:.0%}, McLean and Pontiff 2016). IC figures "
        "need signals.rebalances.get or signals.scores, ledger figures portfolio.ledger",
        kinds=("portfolio", "decisions"),
        meta=book_meta,
    )
    def decay(self, view: BuildView, q: LiveQuery) -> Answer[Decay]:
        """`/analytics/decay` of `q.book` (its backtest ends at `q.split`, else the alpha's own split:
        its tenure's), the haircut calibrated on the live tracks of the approved alphas the reader
        may read (first published after their approvals), this one excepted."""
        book = self._book(view, q.book)
        held = self.tenure(view.alpha_id)
        split = live.split_of(view, held, q.split)
        records = None
        catalogue_part = "ledger-withheld"
        if self.scope.access.ledger:
            self.whole_catalogue()  # an approved alpha it may read could be missing
            catalogue = self.snapshot.catalogue
            mask = self.readable()
            # Only the approved rows are read one by one: a reader of every alpha needs no id set.
            readable = None if self.scope.every_alpha else set(sets.readable_ids(catalogue, mask).to_pylist())
            records = decay.calibration_records(catalogue.index, readable, view.alpha_id)
            # Any readable alpha's index row may become a calibration record (approved, or live long
            # enough): the version is of every readable alpha's row.
            catalogue_part = catalogue_tag(catalogue, mask, "decay")
        warnings = Warnings()
        data = decay.decay_payload(view, book, split, records, self.scope.access, warnings)
        version = "+".join((view.build_id, "tenure-none" if held is None else held.tag(), catalogue_part))
        return Answer(data, warnings.entries, version)

    def promotion_preview(
        self,
        view: BuildView,
        q: PromotionPreviewQuery,
        action: DecisionAction,
        last_decided: dt.date | None = None,
        today: dt.date | None = None,
    ) -> Answer[PromotionPreview]:
        """What `action` about the alpha would record and change (`analytics.promotion`), dated
        `q.effective` (an import's earlier day), else today by our clock: its checks of the
        long_short book up to that day, and every other alpha the reader may read whose
        reference-set checks move: those of the live book (the approved alphas, before or after)
        with every value that moves, and any other whose verdict flips (`promotion.consequences`).
        `last_decided`: the as_of of its latest decision, which the decision may not precede. The
        standings are the reader's before the decision."""
        require_built(view)
        alpha = view.alpha_id
        today = today or clock.now().date()
        as_of = q.effective or today
        if as_of > today:
            raise BadParameters(
                {
                    "effective": f"is after today ({today}): a decision takes effect when it is recorded, never later"
                }
            )
        if last_decided is not None and as_of < last_decided:
            raise BadParameters({"effective": f"is before the last decision about {alpha} ({last_decided})"})
        try:
            own = self.checks(view, ChecksQuery(book=promotion.DECISION_BOOK, end=as_of))
        except BadParameters as exc:  # the checks' window ends at as_of: its rule is as_of's
            rules = "; ".join(f"{name} {rule}" for name, rule in exc.problems.items())
            raise BadParameters({"effective": f"leaves the checks unmeasurable: {rules}"}) from None
        before = self.standings
        after = promotion.standings_after(before, alpha, action, as_of, clock.now())
        then = Reading(self.reader, self.scope, lambda: after, self.policy)
        then.snapshot = self.snapshot  # one generation for both sides
        others, unchecked, versions = self._consequences(then, alpha, before, after)
        verdict = own.data.summary.verdict
        failed = [c for c in own.data.checks if c.verdict == "fail"]
        readable = self.scope.may_read
        held = before.tenure(alpha)
        refused = promotion.refusal(alpha, action, verdict, failed, as_of)
        data = PromotionPreview(
            alpha=alpha,
            action=action,
            as_of=as_of,
            imported=as_of < today,
            approval_before=None if held is None else held.as_of,
            approval_recorded_at=None if held is None else _wire_time(held.approved_at),
            build_id=view.build_id,
            verdict=verdict,
            refused=refused,
            policy=own.data.policy,
            checks=own.data.checks,
            approved_before=sorted(a for a in before.approved if readable(a)),
            approved_after=sorted(a for a in after.approved if readable(a)),
            others=others,
            others_unchecked=unchecked,
            command=promotion.command(alpha, action, as_of, verdict, imported=as_of < today),
        )
        digest = hashlib.sha256(
            "\x00".join((action, str(as_of), str(today), own.version, *versions)).encode()
        )
        return Answer(data, own.warnings, digest.hexdigest()[:24])

    def _consequences(
        self, then: Reading, alpha: str, before: Standings, after: Standings
    ) -> tuple[list[OtherAlpha], int, list[str]]:
        """Every other alpha the reader may read whose reference-set checks the decision moves: the
        live book's (every value that moves), then the rest's whose verdict flips, in id order; how
        many readable alphas beyond `promotion.OTHERS_CHECKED` were not checked; the answers'
        versions. Only when the approved set changes (it always does, but for an alpha not
        published)."""
        if dict(before.approved).keys() == dict(after.approved).keys():
            return [], 0, []
        book = set(promotion.live_book(before, after)) - {alpha}
        catalogue = self.snapshot.catalogue
        readable_ids = sets.readable_ids(catalogue, self.readable()).to_pylist()
        rest = [a for a in readable_ids if a != alpha and a not in book]
        checked = rest[: promotion.OTHERS_CHECKED]
        others: list[OtherAlpha] = []
        versions: list[str] = []
        for other in sorted(a for a in book if self.scope.may_read(a)):
            moved, version = self._moved(then, other)
            others.append(OtherAlpha(alpha_id=other, live_book=True, changes=moved))
            versions.append(version)
        for other in sorted(checked):
            moved, version = self._moved(then, other)
            flips = [change for change in moved if change.flips]
            versions.append(version)
            if flips:
                others.append(OtherAlpha(alpha_id=other, live_book=False, changes=flips))
        return others, len(rest) - len(checked), versions

    def _moved(self, then: Reading, alpha: str) -> tuple[list[CheckChange], str]:
        """The reference-set checks of `alpha` that move between this reading's standings and
        `then`'s, and the version of both answers; none for an alpha without checks."""
        found = self.reader.alpha(alpha)
        if found is None:
            return [], f"{alpha}-none"
        try:
            view = self.reader.view(found)
            now = self.checks(view, ChecksQuery(), promotion.REFERENCE_SET)
            later = then.checks(view, ChecksQuery(), promotion.REFERENCE_SET)
        except (LookupError, BadParameters, AnalyticsNotBuilt):
            return [], f"{alpha}-none"  # an alpha without checks: nothing of it moves
        return promotion.changes(now.data, later.data), f"{now.version}/{later.version}"

    def review(self) -> Answer[ReviewQueue]:
        """The review queue: the nominated alphas the reader may read, oldest nomination first,
        each with the verdict of its long_short checks now (`checks`, the route's computation)."""
        standings = self.standings
        entries: list[ReviewEntry] = []
        versions: list[str] = [self.policy.tag(), self.policy.approve]
        nominated = sorted(standings.nominated.items(), key=lambda item: (item[1].recorded_at, item[0]))
        for alpha, nomination in nominated:
            if not self.scope.may_read(alpha):
                continue
            found = self.reader.alpha(alpha)
            if found is None:
                continue  # nominated, then its pointer removed: not in the catalogue
            verdict, failed, reason = None, [], None
            if not self.scope.may_call(checks.CHECKS_ENDPOINT):
                reason = (
                    f"access_limited: the verdict is /analytics/checks', which needs {checks.CHECKS_ENDPOINT}"
                )
            else:
                try:
                    answer = self.checks(self.reader.view(found), ChecksQuery())
                except (BadParameters, AnalyticsNotBuilt) as exc:
                    reason = f"not measurable: {exc}"
                else:
                    verdict = answer.data.summary.verdict
                    failed = [c.id for c in answer.data.checks if c.verdict == "fail"]
                    versions.append(answer.version)
            entries.append(
                ReviewEntry(
                    alpha=alpha,
                    nominated_at=_wire_time(nomination.recorded_at),
                    nominated_by=nomination.nominated_by,
                    note=nomination.note,
                    nominated_build_id=nomination.build_id,
                    build_id=found.build_id,
                    verdict=verdict,
                    failed=failed,
                    reason=reason,
                )
            )
            versions.append(f"{alpha}@{found.build_id}:{nomination.recorded_at.isoformat()}")
        data = ReviewQueue(approval_policy=self.policy.approve, entries=entries)
        return Answer(data, [], hashlib.sha256("\x00".join(versions).encode()).hexdigest()[:24])

    def expected_levels(
        self, view: BuildView, book: str, split: dt.date | None
    ) -> tuple[shrinkage.Levels, str]:
        """The one expected live information ratio and mean weekly IC of `view`'s alpha at `split`
        (`analytics.expectation.expected_levels` of `/analytics/expectation` in this reader's scope) and
        the version of the answer they come from; a book other than long_short has none."""
        if book != shrinkage.BOOK:
            return shrinkage.not_of_book(book), f"levels-none-{book}"
        catalogue = self.snapshot.catalogue
        if catalogue.index is None or catalogue.listing is None:
            # A lake not indexed yet (a deferred backfill): no group to shrink toward, said why,
            # where /analytics/expectation itself is a 503.
            why = "the lake has no catalogue index, which the expectation's groups are read from (alpha-results lake index)"
            return shrinkage.Levels(None, why, None, why), "levels-no-index"
        answer = self.expectation(view, ExpectationQuery(split=split))
        return shrinkage.expected_levels(answer.data), answer.version

    @served(
        "Is it still working? A CUSUM on each live week of the book's return and IC against the expected level",
        "A one-sided lower CUSUM (Page 1954; Philips, Yashchin and Stein 2003) on each week after the split (as "
        "/analytics/live: the approval's, when the alpha has one) of the book's compounded weekly return and of "
        "the signal's weekly IC, each standardised by its backtest's weekly standard deviation against the level "
        "the alpha is expected to show live (the expected live information ratio and mean weekly IC, "
        "/analytics/expectation's expected_live of each series at the same split; the long_short book alone); an alarm when the statistic crosses the threshold set for one false alarm "
        "per arl0_weeks of an unchanged series, with the chart's detection delay for its designed fall "
        '(docs/analytics.md, "Monitoring: CUSUM and false discoveries"). Whole history: from/to do not apply. '
        "The return chart needs portfolio.ledger, the IC chart signals.rebalances.get or signals.scores",
        kinds=("portfolio", "decisions"),
        meta=book_meta,
    )
    def monitoring(self, view: BuildView, q: LiveQuery) -> Answer[Monitoring]:
        """`/analytics/monitoring`: the one expected live level (`expected_levels`) at the same split
        sets each chart's in-control level."""
        book = self.book(view, q.book)
        levels, levels_version = self.expected_levels(view, book, q.split)
        held = self.tenure(view.alpha_id)
        split = live.split_of(view, held, q.split)
        warnings = Warnings()
        data = monitoring.monitoring_payload(
            view, book, split, levels, self.scope.access, warnings, self.policy.chart()
        )
        version = "+".join(
            (view.build_id, "tenure-none" if held is None else held.tag(), self.policy.tag(), levels_version)
        )
        return Answer(data, warnings.entries, f"monitoring+{version}")

    @served(
        "Is it still working? The odds of a drawdown deeper than x within h weeks at the expected level, and the "
        "live path's place in the forward cone",
        "The book's backtest weeks (up to the split, as /analytics/live; calendar weeks as /analytics/monitoring) "
        "re-centred on the weekly return the expected live information ratio (/analytics/expectation's, the "
        "long_short book alone) implies, resampled by "
        "the stationary block bootstrap (10,000 seeded paths of horizon_weeks, compounded from 1.0 at the split): "
        "the probability that the maximum drawdown within h weeks is deeper than each depth with its Monte Carlo "
        "standard error, the expected maximum drawdown and its quantiles, the cone's quantiles of the cumulative "
        "return each week, and each live week's percentile among the paths, with the live maximum drawdown's "
        '(docs/analytics.md, "Drawdown odds and the forward cone"). Whole history: from/to do not apply. Needs '
        "portfolio.ledger",
        kinds=("portfolio", "decisions"),
        meta=book_meta,
    )
    def drawdown_odds(self, view: BuildView, q: DrawdownOddsQuery) -> Answer[DrawdownOdds]:
        """`/analytics/drawdown_odds`: the one expected live level (`expected_levels`) at the same
        split sets the level simulated."""
        book = self.book(view, q.book)
        levels, levels_version = self.expected_levels(view, book, q.split)
        held = self.tenure(view.alpha_id)
        split = live.split_of(view, held, q.split)
        warnings = Warnings()
        data = drawdown_odds.drawdown_odds_payload(
            view,
            book,
            split,
            levels,
            q.horizon_weeks,
            q.depths,
            self.scope.access,
            warnings,
        )
        version = "+".join((view.build_id, "tenure-none" if held is None else held.tag(), levels_version))
        return Answer(data, warnings.entries, f"drawdown_odds+{version}")

    @served(
        "Is it still working? The expected live information ratio and IC, shrunk toward the alpha's family, with intervals",
        "The long_short book's backtest information ratio and mean weekly IC (up to the split, as /analytics/live) "
        "shrunk toward the mean of its trial family (else of every alpha the key may read) by their own standard "
        "errors: empirical Bayes, the group's mean and spread by DerSimonian and Laird's moments over the members "
        "the key may read (each up to its own split, from the catalogue's matrices), the posterior with a 90% "
        "credible interval; times /analytics/decay's retention, the expected live figure; and each live week after "
        "the split, the live figure to date and its percentile in the predictive distribution over that many "
        'observations (docs/analytics.md, "Expectation: empirical Bayes shrinkage"). A family the key reads fewer '
        f"than {MIN_GROUP_MEMBERS} members of gives way to the catalogue; a group with fewer measured is no shrinkage. "
        "Whole history: from/to do not apply. The information ratio needs portfolio.ledger, the IC "
        "signals.rebalances.get or signals.scores",
        kinds=("portfolio", "decisions"),
        over_catalogue=True,
    )
    def expectation(self, view: BuildView, q: ExpectationQuery) -> Answer[Expectation]:
        """`/analytics/expectation`: the group and its members are the reader's (never an alpha it may
        not read, nor their count); the members' figures are kept per catalogue generation."""
        require_built(view)
        self.whole_catalogue()
        alpha = view.alpha_id
        held = self.tenure(alpha)
        split = live.split_of(view, held, q.split)
        snapshot = self.snapshot
        catalogue = snapshot.catalogue
        index, listing = catalogue.index, catalogue.listing
        if index is None or listing is None:
            raise CatalogueIncomplete(
                "The lake has no catalogue index, which the groups are read from; an operator writes it with "
                "`alpha-results lake index`."
            )
        mask = self.readable()
        readable = sets.readable_ids(catalogue, mask).to_pylist()
        family = overfitting.family_of(index, alpha)
        family_ids = (
            []
            if family is None
            else [a for a, _ in overfitting.family_members(index, listing.ids, mask, family)]
        )
        warnings = Warnings()
        group = shrinkage.group_of(family, family_ids, readable, warnings)
        access = self.scope.access
        # /analytics/decay's haircut, calibrated as decay calibrates it (never fitted a second way).
        records = None
        if access.ledger:
            records = decay.calibration_records(
                index, None if self.scope.every_alpha else set(readable), alpha
            )
        cut, _, _ = decay.haircut(
            records, None if access.ledger else "the retention is measured from the ledgers"
        )
        bases = {
            "information_ratio": ("returns", shrinkage.member_ir, False),
            "rebuilt_mean_ic": ("ic", shrinkage.ic_rows, True),
        }

        def members(series: str) -> list[shrinkage.Measured | None]:
            basis, measure, ic = bases[series]
            return shrinkage.member_figures(snapshot.matrix(basis), index, group.ids, measure, ic)

        data = shrinkage.expectation_payload(view, split, group, members, cut, access, warnings)
        # The build, its tenure and every readable alpha's row (the group's members and decay's
        # calibration records both come from them), the matrices they are read from, the access.
        tag = catalogue_tag(
            catalogue,
            mask,
            "expectation",
            repr(split),
            f"{int(access.ledger)}{int(access.cross_sections)}",
            matrices_tag(catalogue),
        )
        version = "+".join((view.build_id, "tenure-none" if held is None else held.tag(), tag))
        return Answer(data, warnings.entries, version)

    @served(
        "What is new in a book against the catalogue: its daily returns regressed on a reference set's and SPY's",
        "The book's daily returns over "
        + WINDOW
        + " regressed by OLS, with an intercept, on the same sessions' daily long_short returns of a reference "
        "set (`reference`, else the default set: the approved alphas the key may read, "
        "the alpha excepted, SPY alone when none is) and SPY's: the information ratio of the intercept plus the residual, the intercept "
        "annualised and its Newey-West t-statistic, R^2, the betas, and the reference alphas dropped. Needs "
        "portfolio.ledger and benchmarks.daily",
        over_catalogue=True,
        meta=book_meta,
    )
    def residual(self, view: BuildView, q: ResidualQuery) -> Answer[Residual]:
        require_built(view)
        residual.residual_parameters(q.reference)
        book = self.book(view, q.book)
        # Every figure is a regression of ledger returns on SPY's: without either, none is the reader's.
        require_readable(self.scope.access, "ledger")
        if not self.scope.may_call(BENCHMARK_ENDPOINT):
            raise DataNotReadable(
                f"These figures are a regression on SPY's daily returns; they need {BENCHMARK_ENDPOINT}.",
                BENCHMARK_ENDPOINT,
            )
        catalogue = self.snapshot.catalogue
        alpha = view.alpha_id
        if q.reference is not None:
            sets.admitted(self.scope.may_read, catalogue, q.reference, "reference")
            reference = given_reference(alpha, q.reference, None)
        else:
            self.whole_catalogue()  # an alpha of the default set it may read could be missing
            reference = residual.default_set(catalogue, self.readable(), alpha, self.standings.approved)
        market = self.market()
        window: Window = (q.start, q.end)
        # The alpha's build, the set's matrix rows, SPY's build and the parameters.
        version = catalogue_tag(
            catalogue,
            sets.set_mask(catalogue, (alpha, *reference.alphas)),
            "residual",
            alpha,
            book,
            reference.origin,
            ",".join(reference.alphas),
            repr(window),
            market.build_id,
            matrices_tag(catalogue),
        )
        data = residual.residual_payload(
            view, book, window, self.snapshot.matrix("returns"), reference, market
        )
        return Answer(data, [], version)

    def contribution(self, view: BuildView, q: ContributionQuery) -> Answer[Contribution]:
        window: Window = (q.start, q.end)
        given = q.reference
        weighting = contribution_parameters(given, q.weighting, q.weights, q.shrinkage, q.fit_to, window)
        require_readable(self.scope.access, "ledger")
        catalogue = self.snapshot.catalogue
        alpha = view.alpha_id
        if given is not None:
            sets.admitted(self.scope.may_read, catalogue, given, "reference")
            reference = given_reference(alpha, given, weighting)
        else:
            self.whole_catalogue()  # an alpha of the default set it may read could be missing
            reference = default_reference(catalogue, self.readable(), alpha, self.standings.approved)
        version = catalogue_tag(
            catalogue,
            sets.set_mask(catalogue, (alpha, *reference.alphas)),
            "contribution",
            alpha,
            reference.origin,
            ",".join(reference.alphas),
            repr(q.weight),
            repr(window),
            matrices_tag(catalogue),
            *(
                ()
                if weighting is None
                else (
                    weighting.method,
                    repr(weighting.given),
                    repr(weighting.shrinkage),
                    repr(weighting.fit_to),
                )
            ),
        )
        warnings = Warnings()
        data = contribution_of(self.snapshot, alpha, reference, window, weighting, q.weight, warnings)
        return Answer(data, warnings.entries, version)

    def approved_views(self, alpha: str | None = None) -> list[BuildView]:
        """The builds of the approved alphas the reader may read, by id, `alpha` excepted (an approved
        alpha the lake does not publish has no build to read: it is not among them)."""
        self.whole_catalogue()
        catalogue = self.snapshot.catalogue
        views = []
        for other in sorted(self.standings.approved):
            if other == alpha or not self.scope.may_read(other) or other not in catalogue.alphas:
                continue
            found = self.reader.alpha(other)
            if found is not None:
                views.append(self.reader.view(found))
        return views

    def _approved_tag(self, ids: tuple[str, ...], *parts: str) -> str:
        catalogue = self.snapshot.catalogue
        return catalogue_tag(catalogue, sets.set_mask(catalogue, ids), *parts, ",".join(ids))

    @served(
        "What the alpha's scores add to the approved alphas' combined scores (meta-model contribution)",
        MMC_METHOD,
        kinds=(),
        over_catalogue=True,
    )
    def mmc(self, view: BuildView, q: WindowQuery) -> Answer[Mmc]:
        """The alpha's meta-model contribution against the approved alphas the reader may read
        (`analytics.mmc`), the alpha itself excluded from them."""
        require_readable(self.scope.access, "cross_sections")
        alpha = view.alpha_id
        members = self.approved_views(alpha)
        window: Window = (q.start, q.end)
        data = mmc.mmc_payload(view, members, alpha in self.standings.approved, window)
        ids = tuple(m.alpha_id for m in members)
        # The alpha's build and the builds of the approved alphas the reader may read, nothing else.
        version = self._approved_tag(
            (alpha, *ids), "mmc", alpha, repr(window), repr(alpha in self.standings.approved)
        )
        return Answer(data, [], version)

    def crowding(self, q: WindowQuery) -> Answer[Crowding]:
        """Overlap and shared factor loadings of the approved books the reader may read."""
        require_readable(self.scope.access, "cross_sections")
        members = self.approved_views()
        window: Window = (q.start, q.end)
        data = mmc.crowding_payload(members, window)
        return Answer(
            data, [], self._approved_tag(tuple(m.alpha_id for m in members), "crowding", repr(window))
        )

    def approved_health(self, q: ApprovedHealthQuery) -> Answer[ApprovedHealth]:
        """`/v1/analytics/approved_health`: every approved alpha in force the reader may read, each
        figure its own route's answer in this reader's scope (`analytics.approved_health`), made
        once per generation, scope, standings and policy (`CatalogueCache.answer`)."""
        require_readable(self.scope.access, "ledger")
        self.whole_catalogue()
        catalogue = self.snapshot.catalogue
        mask = self.readable()
        version = catalogue_tag(
            catalogue,
            mask,
            "approved_health",
            q.book,
            self.standings.tag(catalogue, mask),
            self.policy.tag(),
            repr(self.scope.access),
            "".join("c" if self.scope.may_call(e) else "-" for e in FROM_ROUTES),
            # when each readable alpha's decisions were recorded (the standings' tag holds dates only)
            *(
                f"{alpha}:{held.tag()}"
                for alpha, held in sorted(self.standings.tenures.items())
                if self.scope.may_read(alpha)
            ),
        )
        data = self.snapshot.cache.answer(
            "approved_health:" + version, lambda: self._approved_health(q, int(mask.sum()))
        )
        return Answer(data, [], version)

    def _approved_health(self, q: ApprovedHealthQuery, candidates: int) -> ApprovedHealth:
        chart = self.policy.chart()
        live_q = LiveQuery(book=q.book)
        outcomes: list[approved_health.Outcome] = []
        for alpha in sorted(self.standings.tenures) if self.scope.may_call(LIVE_ROUTE) else ():
            found = self.reader.alpha(alpha) if self.scope.may_read(alpha) else None
            if found is None:
                continue
            view = self.reader.view(found)
            seen = self.live(view, live_q).data
            if seen.split_origin == "approval" and (seen.out_of_sample.sessions or 0) >= LIVE_MIN_SESSIONS:
                value = seen.out_of_sample.information_ratio.value
                if value is not None and math.isfinite(value):
                    per_year = conventions(view).sessions_per_year
                    outcomes.append(approved_health.Outcome(value, seen.in_sample.sessions or 0, per_year))
        prior = approved_health.prior_of(outcomes, candidates)
        rows = [
            self._health_row(view, held, live_q, prior)
            for view in self.approved_views()
            if (held := self.tenure(view.alpha_id)) is not None  # a notebook's standings may hold none
        ]
        rows.sort(
            key=lambda row: (
                row.verdict != "failing",
                "alarm" not in (row.cusum_state, row.ic_cusum_state),
                row.alpha,
            )
        )
        alarms = sum(1 for row in rows if "alarm" in (row.cusum_state, row.ic_cusum_state))
        return ApprovedHealth(
            book=q.book,
            approved_count=len(rows),
            alarm_count=alarms,
            failing_count=sum(1 for row in rows if row.verdict == "failing"),
            ir_fall_detected=chart.ir_fall,
            arl0_weeks=chart.arl0,
            arl1_weeks=chart.arl1,
            false_alarm_probability_per_year=chart.false_alarm_probability_per_year,
            expected_false_alarms_per_year=len(rows) * WEEKS_PER_YEAR / chart.arl0,
            false_discovery=prior,
            alphas=rows,
        )

    def _health_row(
        self, view: BuildView, held: Tenure, q: LiveQuery, prior: FalseDiscoveryPrior
    ) -> approved_health_body.AlphaHealth:
        """One approved alpha's row: each figure its route's answer, or null with the reason when the
        key may not call that route (a row shows nothing its routes would not)."""
        reasons: list[str] = []

        def allowed(route: str, what: str) -> bool:
            if self.scope.may_call(route):
                return True
            reasons.append(f"{what}: access_limited: served by {route}, which this key may not call")
            return False

        per_year = conventions(view).sessions_per_year
        seen = self.live(view, q).data if allowed(LIVE_ROUTE, "live figures") else None
        expected = last = None
        if q.book != choices.DEFAULT_BOOK:
            reasons.append(f"expectation: /analytics/expectation is of the {choices.DEFAULT_BOOK} book")
        elif allowed(EXPECTATION_ROUTE, "expectation"):
            answer = self.expectation(view, ExpectationQuery()).data
            ratio = next(s for s in answer.series if s.series == "information_ratio")
            expected, last = (
                shrinkage.expected_levels(answer).information_ratio,
                ratio.weeks[-1] if ratio.weeks else None,
            )
            if ratio.withheld_reason:
                reasons.append(f"expectation: {ratio.withheld_reason}")
        watched = self.monitoring(view, q).data if allowed(MONITORING_ROUTE, "CUSUM") else None
        sessions = None if seen is None else seen.out_of_sample.sessions or 0
        live_ir = None
        if seen is not None and (sessions or 0) >= LIVE_MIN_SESSIONS:
            live_ir = seen.out_of_sample.information_ratio.value
        returns = ic = None
        if watched is not None:
            returns, ic = watched.charts
            for chart in watched.charts:
                if chart.withheld_reason:
                    reasons.append(f"{chart.series}: {chart.withheld_reason}")
        alarms = [] if watched is None else [day for chart in watched.charts for day in chart.alarms]
        signals = self._health_signals(view, q, seen, watched, allowed)
        design = self.policy.chart()
        said = approved_health.verdict(signals, design.arl1, design.ir_fall)
        mmc_mean = crowded = None
        if allowed(MMC_ROUTE, "mmc"):
            try:
                contributed = self.mmc(view, WindowQuery()).data
                mmc_mean, crowded = contributed.mmc_mean.value, contributed.correlation_to_combined_mean.value
            except DataNotReadable as refused:
                reasons.append(f"mmc: {refused}")
        return approved_health_body.AlphaHealth(
            alpha=view.alpha_id,
            approved_at=held.approved_at,
            split_date=live.split_of(view, held).date,
            sessions_since_approval=sessions,
            live_weeks=None if returns is None else returns.live_weeks,
            live_information_ratio=live_ir,
            expected_live_information_ratio=expected,
            live_to_date=None if last is None else last.live_to_date,
            predictive_lower=None if last is None else last.predictive_lower,
            predictive_upper=None if last is None else last.predictive_upper,
            percentile=None if last is None else last.percentile,
            cusum_state="not_measurable" if returns is None else returns.state,
            ic_cusum_state="not_measurable" if ic is None else ic.state,
            cusum_statistic=None if returns is None else returns.cusum_statistic,
            last_alarm=max(alarms) if alarms else None,
            false_discovery_probability=None
            if seen is None
            else approved_health.false_discovery_probability(
                self._backtest_moments(view, q.book, held), per_year, prior
            ),
            mmc_mean=mmc_mean,
            correlation_to_combined_mean=crowded,
            signals=signals,
            verdict=said[0],
            verdict_reason=said[1],
            withheld_reason="; ".join(reasons) or None,
        )

    def _health_signals(
        self,
        view: BuildView,
        q: LiveQuery,
        seen: Live | None,
        watched: Monitoring | None,
        allowed: Callable[[str, str], bool],
    ) -> list[approved_health_body.HealthSignal]:
        """Every signal "is it still working?" is answered from, each its route's answer in this
        reader's scope (`analytics.approved_health`): the live checks, the consistency test, the
        CUSUM charts."""
        signals = []
        if allowed(CHECKS_ROUTE, "live checks"):
            found = self.checks(view, ChecksQuery(book=q.book), only=frozenset(LIVE_CHECKS)).data
            signals += [approved_health.check_signal(c) for c in found.checks if c.id in LIVE_CHECKS]
        else:
            why = f"access_limited: served by {CHECKS_ROUTE}, which this key may not call"
            signals += [approved_health.unmeasured_signal(name, why) for name in LIVE_CHECKS]  # type: ignore[arg-type]
        if seen is None:
            why = f"access_limited: served by {LIVE_ROUTE}, which this key may not call"
            signals.append(approved_health.unmeasured_signal("consistency", why))
        else:
            signals.append(approved_health.consistency_signal(seen.consistency))
        if watched is None:
            why = f"access_limited: served by {MONITORING_ROUTE}, which this key may not call"
            signals += [
                approved_health.unmeasured_signal("book_return_cusum", why),
                approved_health.unmeasured_signal("ic_cusum", why),
            ]
        else:
            signals += [approved_health.chart_signal(c) for c in watched.charts]
        return signals

    def _backtest_moments(self, view: BuildView, book: str, held: Tenure) -> Moments | None:
        """The moments of `book`'s in-sample daily returns at the alpha's split (live's in-sample
        part), as the significance route measures them; None when the key may not read ledgers."""
        ledger = inputs.ledger(view, book) if self.scope.access.ledger else None
        if ledger is None:
            return None
        return significance.moments(ledger.split(live.split_of(view, held).date)[0].returns)

    def combine(self, q: CombineQuery) -> Answer[Combined]:
        window: Window = (q.start, q.end)
        ids = q.alphas
        weighting = combine_weighting(ids, q.weighting, q.weights, q.shrinkage, q.fit_to, window)
        require_readable(self.scope.access, "ledger")
        catalogue = self.snapshot.catalogue
        sets.admitted(self.scope.may_read, catalogue, ids, "alphas")
        market = self.market() if self.scope.may_call(BENCHMARK_ENDPOINT) else None
        # The set's builds (their index rows and matrix rows), the benchmark's build and the
        # parameters: never another alpha.
        version = catalogue_tag(
            catalogue,
            sets.set_mask(catalogue, ids),
            "combine",
            ",".join(ids),
            weighting.method,
            repr(weighting.given),
            repr(weighting.shrinkage),
            repr(weighting.fit_to),
            repr(window),
            "benchmark:" + ("withheld" if market is None else market.build_id),
            matrices_tag(catalogue),
        )
        warnings = Warnings()
        data = combination(self.snapshot, ids, window, weighting, market, warnings)
        return Answer(data, warnings.entries, version)

    def screen(self, q: ScreenQuery, resolve: Callable[[str], str]) -> Answer[ScreenPage]:
        """The screener's page; `resolve`: the caller's authorisation and lookup of the alpha
        `q.correlated_to` names (its id, or the caller's 403 or 404), asked only with
        `max_correlation`."""
        if not self.scope.may_call(screen.FIGURES_ENDPOINT):
            raise DataNotReadable(
                f"These rows are the alphas' headline figures; they need {screen.FIGURES_ENDPOINT}.",
                screen.FIGURES_ENDPOINT,
            )
        snapshot = self.snapshot
        catalogue = snapshot.catalogue
        index = screen.require_index(catalogue)
        warnings = Warnings()
        # Fields built from data the reader may not read: null, with a warning, and no filter or sort on them.
        hidden = screen.withheld_fields(q, self.scope.access, warnings)
        readable = self.readable()
        screen.standings_wanted(q)  # a bad `standing` is a 400 before the records are read
        standings = self.standings
        if not set(screen.RESIDUAL_FIELDS) <= hidden.keys():  # not already withheld with the ledger's
            hidden |= screen.residual_withheld(
                q, catalogue, readable, standings.approved, self.scope.may_call(BENCHMARK_ENDPOINT), warnings
            )
        if q.max_correlation is not None:
            if not self.scope.may_call(screen.CORRELATION_ENDPOINT):
                raise DataNotReadable(
                    f"max_correlation is a correlation figure; it needs {screen.CORRELATION_ENDPOINT}.",
                    screen.CORRELATION_ENDPOINT,
                )
            require_readable(self.scope.access, BASES[q.correlation_basis].data)
        named = q.correlated_to if q.max_correlation is not None else None
        correlated = None if named is None else resolve(named)
        compared = screen.compared_set(snapshot, q, correlated, readable, standings.approved)
        filters = screen.candidate_filters(snapshot, q, correlated, compared)
        page = screen.screen_page(snapshot, index, q, readable, filters, hidden, standings)
        # Every figure, matrix row and position an answer holds is of a build of an alpha the
        # reader reads: the version names those builds alone, and the standings they have.
        builds = catalogue_tag(catalogue, readable)
        version = f"{builds}:{standings.tag(catalogue, readable)}"
        return Answer(ScreenPage(page, compared, builds), warnings.entries, version)


@dataclass(frozen=True)
class ScreenPage:
    """The screener's page and the set `max_correlation` compared with (None: no such filter)."""

    page: screener.Page
    compared: sets.DefaultReference | None
    builds: str
    """The version of the builds the rows are of (`meta.source`), the standings aside."""


def _wire_time(moment: dt.datetime) -> str:
    """A time as the API writes it (UTC, microseconds, `Z`)."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
