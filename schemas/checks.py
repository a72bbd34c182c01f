"""The battery of `/analytics/checks`: each check's id (its unit and annualisation are its term's in
schemas/terms.py), the route its figure comes from, the
sides it is bounded on with their documented defaults and the request parameter that tightens
each, what its figure is, and what it means in words. Declared once: the operator's policy
(analytics/policy.py), the checks object's documentation (`schemas.bodies.decisions`),
`ChecksQuery`'s bounds (a test holds them equal) and each check's `reason`
(`analytics.checks.verdict`: the comparison, then the `meaning`) read it.

Plain constants (no numpy), so the contract loads without the computation: the numbers a
definition names are the ones analytics/checks.py computes with (it reads them here).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from schemas import terms
from schemas.terms import Term

MIN, MAX = "min", "max"

RECENT_SESSIONS = 504
"""recent_information_ratio: the window's last sessions it is over (two years of sessions)."""
MIN_YEAR_SESSIONS = 20
"""yearly_consistency: sessions of the book a calendar year needs to count."""
STRESS_MULTIPLE = 2.0
"""stressed_net_information_ratio: the multiple of the modelled execution cost paid."""
MIN_OVERLAP = 3
"""production_correlation: common sessions a correlation needs (as /analytics/correlation)."""
LIVE_MIN_SESSIONS = 63
"""Out-of-sample sessions (a quarter) the live checks, and `/analytics/live`'s decay ratio and
consistency test, need."""
LIVE_CHECKS = ("live_information_ratio", "decay_ratio")
"""The checks of an approved alpha's live part (`/analytics/live` at its approval): measured once
the alpha has an approval and LIVE_MIN_SESSIONS sessions after it; until then `not_measurable`, and
left out of the summary's verdict (docs/analytics.md "Checks", "Summary")."""
NOT_APPROVED = (
    "not_applicable: the alpha was never approved (alpha-results promote); the live checks measure the "
    "sessions first published after an approval was recorded"
)
"""The reason of a live check of an alpha never approved."""
FRAGILITY_DAYS = 5
"""fragility: the best sessions the information ratio is measured without (`/analytics/attribution`
fragility.best_days_kept at drop = 5)."""
RESIDUAL_MIN_SESSIONS = 63
"""Sessions (a quarter) `/analytics/residual`'s regression needs, whatever the set's size."""
RESIDUAL_PER_COEFFICIENT = 10
"""Sessions `/analytics/residual`'s regression needs per coefficient it fits (the intercept, SPY's
beta, one beta per reference alpha): fitting p coefficients shrinks the residual's std(ddof=1) by
sqrt((n - p) / (n - 1)), at most about 5% at 10 sessions per coefficient."""
PBO_DEFAULT_MIN_TRIALS = 10
"""pbo: the members of its trial family the key may read from which the check is on by default
(issue 65, item 2). CSCV ranks the in-sample best of N trials among N out of sample: with fewer,
the relative rank w = rank / (N + 1) takes so few values that the logit's sign, hence the PBO, moves
in coarse steps (at N = 6 the median leaves 3 places either side); Bailey, Borwein, López de Prado
and Zhu (2017) use N >= 10 trials in their examples. /analytics/overfitting serves a PBO from 6
(its MIN_TRIALS); a bound the operator's policy or the request sets measures the check from there."""
PBO_BELOW_DEFAULT = (
    "not_applicable: the trial family {family} has {trials} member(s) this key may read; the pbo check is on by "
    f"default from {PBO_DEFAULT_MIN_TRIALS} (fewer trials leave CSCV's rank logit too coarse), or when the "
    "operator's policy or the request bounds it"
)
"""The reason of the default pbo check of a family below PBO_DEFAULT_MIN_TRIALS readable members."""
SHARPE_T_HURDLE = 3.0
"""sharpe_t_statistic: the hurdle Harvey, Liu and Zhu (2016) propose for a t-statistic after multiple
testing (and Harvey and Liu 2015's "t >= 3"): the bound a policy or a request sets to turn the
optional check on (`min_sharpe_t_statistic=3`); off by default, as the battery's other optional
check."""
PERCENT_UNITS = ("fraction",)
"""Units whose values a check's `reason` writes in percent (13.9%), as the dashboard shows them;
any other unit is written as a plain number."""


@dataclass(frozen=True)
class Check:
    """One check of the battery: its bounded sides with their defaults and request parameters."""

    term: Term
    """The checked figure's term (`schemas.terms`): the check's id is its name, its unit and
    annualisation are the term's."""
    defaults: Mapping[str, float]  # side -> the documented default threshold
    parameters: Mapping[str, str]  # side -> the request parameter that tightens it
    source: str  # the route the value comes from
    definition: str  # what the checked figure is, with its formula
    meaning: str  # what the value says, in words: the `reason` after the comparison ({names}: the figure's)
    over_catalogue: bool = False
    """Computed over the other alphas the reader may read (the trials, the approved set): a value
    recorded with the pipeline's full view (a promotion snapshot, an event) is the reader's own only
    when the reader reads every alpha (`serve.stored_answers`)."""
    optional: bool = False
    """Off by default (`defaults` empty): in the battery only when the operator's policy bounds it,
    or a request does (its parameter then sets the bound; OPTIONAL_CHECKS)."""
    values: tuple[float | None, float | None] = (None, None)
    """The values the checked figure can take (lowest, highest; None: unbounded): the range a
    request's bound must lie in (`schemas.query.ChecksQuery`, derived from this battery)."""
    family_min: int | None = None
    """On by default only for an alpha whose trial family has at least this many members the key
    may read (the pbo check, PBO_DEFAULT_MIN_TRIALS); below, or without a family, its entry is
    not measurable with the reason and leaves the verdict as the rest makes it (FAMILY_CHECKS).
    The operator's policy may turn it off (`off = true`); a bound the policy or the request sets
    measures it whenever its route does."""

    @property
    def id(self) -> str:
        """The id the battery serves the check under: its term's name."""
        return self.term.name

    @property
    def unit(self) -> str:
        return self.term.unit

    @property
    def annualisation(self) -> str:
        """annualised (times the periods per year of its basis) or not_annualisable."""
        assert self.term.annualisation is not None  # _check refuses a term without one
        return self.term.annualisation


def _check(
    term: Term,
    source: str,
    definition: str,
    meaning: str,
    over_catalogue: bool = False,
    optional: bool = False,
    values: tuple[float | None, float | None] = (None, None),
    family_min: int | None = None,
    **sides: tuple[float | None, str],
) -> Check:
    """A check whose value is served under its id: its unit and annualisation are its term's
    (schemas/terms.py, the only place they are written). A side whose default is None has
    none; an `optional` check has none at all (off until a policy or a request bounds it)."""
    if term.annualisation is None:
        raise ValueError(f"the term {term.name!r} of a check must state its annualisation")
    return Check(
        term,
        MappingProxyType({side: value for side, (value, _) in sides.items() if value is not None}),
        MappingProxyType({side: parameter for side, (_, parameter) in sides.items()}),
        source,
        definition,
        meaning,
        over_catalogue,
        optional,
        values,
        family_min,
    )


CHECKS: tuple[Check, ...] = (
    _check(
        terms.INFORMATION_RATIO,
        "portfolio.ledger",
        "information ratio of the book's daily returns r = ending/starting - 1 over the window: mean / "
        "std(ddof=1) times sqrt(252), as /metrics core.information_ratio",
        "the book's annualised information ratio over the window's {sessions} sessions",
        min=(1.0, "min_information_ratio"),
    ),
    _check(
        terms.DEFLATED_SHARPE,
        "analytics.significance",
        "the long_short book's Deflated Sharpe Ratio over the window: /analytics/significance dsr_family (the "
        "trials of the alpha's own trial family: its members the key may read with a measurable Sharpe ratio, and "
        "their Sharpe variance) when that family has at least 2 of them, else dsr (the catalogue's trial count, "
        "the Sharpe variance of the alphas the key may read); the reason names the basis",
        "the probability that the long_short book's Sharpe ratio is above what the best of {trials} trials "
        "{basis} without skill would reach by chance (the Deflated Sharpe Ratio)",
        min=(0.95, "min_deflated_sharpe"),
        over_catalogue=True,
        values=(0, 1),
    ),
    _check(
        terms.TURNOVER,
        "portfolio.ledger",
        "the book's one-way ledger turnover over the window, annualised: the mean over the window's sessions of "
        "1/2 sum |quantity x mid| / starting_equity (the column whose mean the run seals as mean_turnover), times "
        "the run's sessions per year (252), the basis of /metrics core.turnover",
        "the fraction of the book's equity it trades in a year (one way), from its {sessions} sessions",
        min=(2.5, "min_turnover"),
        max=(175.0, "max_turnover"),
        values=(0, None),
    ),
    _check(
        terms.MAX_WEIGHT,
        "portfolio.positions",
        "largest |weight| the book held in the window's sessions: its positions' weight = signed_notional / "
        "ending_equity at each session's close (the realised weight, as the ledger's largest_abs_weight; not "
        "the decisions' target weights, which the book drifts from between rebalances); symbol and date name "
        "the position",
        "the largest absolute weight the book held, {symbol} at the close of {date} (its realised weight, not "
        "a target)",
        max=(0.10, "max_weight"),
        values=(0, None),
    ),
    _check(
        terms.RECENT_INFORMATION_RATIO,
        "portfolio.ledger",
        f"information_ratio over the window's last {RECENT_SESSIONS} sessions (all of them when fewer)",
        "the book's annualised information ratio over the window's last {sessions} sessions",
        min=(0.5, "min_recent_information_ratio"),
    ),
    _check(
        terms.YEARLY_CONSISTENCY,
        "portfolio.ledger",
        "share of the window's calendar years whose compounded return prod(1 + r) - 1 is above 0, each year "
        "weighed by how much of a year it holds (its sessions over the sessions a year of the run's calendar, at "
        f"most 1: a partial year never counts as a full one), over the years with at least {MIN_YEAR_SESSIONS} "
        "sessions of the book",
        "the share of the window's calendar years in which the book made money ({positive} of {years})",
        min=(0.6, "min_yearly_consistency"),
        values=(0, 1),
    ),
    _check(
        terms.STRESSED_NET_INFORMATION_RATIO,
        "analytics.costs",
        f"information ratio of the daily returns paying {STRESS_MULTIPLE:g} times the modelled execution cost: "
        "r - k, k = -execution_cost / starting_equity (r is already net of it once; /analytics/costs' cost rate)",
        f"the book's annualised information ratio paying {STRESS_MULTIPLE:g} times its modelled execution cost",
        min=(0.5, "min_stressed_net_information_ratio"),
    ),
    _check(
        terms.PRODUCTION_CORRELATION,
        "analytics.correlation",
        "largest |Pearson| of the alpha's daily long_short returns with each production alpha the key may read "
        "(itself excluded), each over their common sessions of the whole histories, as /analytics/correlation "
        "basis=returns; a production alpha without a correlation (too little overlap) is left out, and "
        "compared/of say how many were compared",
        "the largest |correlation| of the alpha's daily returns with a production alpha's, {nearest}'s (of "
        "{compared} compared)",
        max=(0.7, "max_production_correlation"),
        over_catalogue=True,
        values=(0, 1),
    ),
    _check(
        terms.RESIDUAL_INFORMATION_RATIO,
        "analytics.residual",
        "/analytics/residual appraisal_ratio of the book over the window against the default reference set "
        "(the approved alphas the key may read, the alpha excepted; SPY alone when none is): the book's daily "
        "returns regressed by OLS on the set's daily long_short returns and SPY's, mean / std(ddof=1) of the "
        "intercept plus the residual, times sqrt(252) (the appraisal ratio); not measurable below "
        f"{RESIDUAL_MIN_SESSIONS} sessions or {RESIDUAL_PER_COEFFICIENT} sessions per coefficient",
        "the book's annualised information ratio beyond what SPY and {regressed} ({reference}) explain over "
        "{sessions} sessions: its intercept {intercept} a year, t-statistic {t_statistic} (Newey-West, lag {lag})",
        min=(0.3, "min_residual_information_ratio"),
        over_catalogue=True,
    ),
    _check(
        terms.IC_T_STATISTIC,
        "performance.metrics",
        "/metrics nwt.ic t_statistic: Newey-West t-statistic of the mean weekly IC (conditioned signal, whole history)",
        "the Newey-West t-statistic of the signal's mean weekly IC over the whole history (is the IC "
        "distinguishable from 0?)",
        min=(2.0, "min_ic_t_statistic"),
    ),
    _check(
        terms.FRAGILITY,
        "analytics.attribution",
        f"the share of the book's information ratio over the window that its information ratio without the "
        f"window's {FRAGILITY_DAYS} best sessions keeps: /analytics/attribution fragility.best_days_kept with "
        f"drop={FRAGILITY_DAYS}, without_best_days / information_ratio (both as information_ratio, the best "
        "sessions those of largest daily return, dropped); not measurable while the information ratio is not "
        "positive",
        "the share of its information ratio ({information_ratio}) the book keeps without its best {days} days "
        "({without})",
        min=(0.5, "min_fragility"),
    ),
    _check(
        terms.LIVE_INFORMATION_RATIO,
        "analytics.live",
        "information ratio of the book's daily returns over its live part (the sessions first published after "
        "its latest approval was recorded, up to its retirement's if retired since): /analytics/live "
        "out_of_sample.information_ratio at the tenure's split, annualised as information_ratio (x sqrt(252)), up "
        f"to the window's `to` (its `from` does not narrow it); measured once {LIVE_MIN_SESSIONS} sessions are live",
        "the book's annualised information ratio over the {sessions} sessions first published after its approval "
        "(its backtest ends {split_date})",
        min=(0.0, "min_live_information_ratio"),
    ),
    _check(
        terms.DECAY_RATIO,
        "analytics.live",
        "/analytics/live decay_ratio at the tenure's split: the information ratio of the live part (up to the "
        "window's `to`) over the information ratio up to the split (1 held up, 0 nothing left, below 0 reversed); "
        "measured once "
        f"{LIVE_MIN_SESSIONS} sessions are live and while the in-sample information ratio is "
        "positive",
        "the share of its in-sample information ratio ({backtest}) the book kept over the {sessions} sessions "
        "first published after its approval ({live} live)",
        min=(0.25, "min_decay_ratio"),
    ),
    _check(
        terms.INFORMATION_RATIO_LOWER_BOUND,
        "analytics.uncertainty",
        "the lower bound of the 95% stationary block-bootstrap interval of the book's information ratio over "
        "the window: /analytics/uncertainty information_ratio.lower (the information ratio as information_ratio; "
        "Politis-White block length, 2,000 resamples, seeded); optional, off by default",
        "the lower bound of the 95% bootstrap interval of the book's annualised information ratio ({point}) over "
        "{sessions} sessions",
        min=(None, "min_information_ratio_lower_bound"),
        optional=True,
    ),
    _check(
        terms.SHARPE_T_STATISTIC,
        "analytics.significance",
        "the t-statistic of the book's daily Sharpe ratio over the window: SR sqrt(T), SR = mean / std(ddof=1) of the "
        "daily returns r = ending/starting - 1 (per session, not annualised), T the window's sessions (i.i.d. "
        "returns: information_ratio sqrt(T / 252)); optional, off by default: Harvey, Liu and Zhu (2016) propose "
        f"a hurdle of t >= {SHARPE_T_HURDLE:g} for a factor found after many tried (min_sharpe_t_statistic="
        f"{SHARPE_T_HURDLE:g})",
        "the t-statistic of the book's daily Sharpe ratio over the window's {sessions} sessions (is its mean return "
        "distinguishable from 0 after many trials?)",
        min=(None, "min_sharpe_t_statistic"),
        optional=True,
    ),
    _check(
        terms.PBO,
        "analytics.overfitting",
        "/analytics/overfitting pbo at splits=16: the probability of backtest overfitting of the trial family the "
        "alpha's seal names, over the members the key may read (combinatorially symmetric cross-validation of their "
        f"daily long_short returns, whole history); on by default for a family of at least {PBO_DEFAULT_MIN_TRIALS} "
        "members the key may read, from 6 when the operator's policy or the request bounds it; without a family or "
        "below those counts not measurable, which leaves the summary's verdict as the rest makes it",
        "the probability that the best of its family's {trials} trials in sample ranks at or below the median out "
        "of sample (family {family})",
        over_catalogue=True,
        max=(0.5, "max_pbo"),
        values=(0, 1),
        family_min=PBO_DEFAULT_MIN_TRIALS,
    ),
    _check(
        terms.SUB_UNIVERSE,
        "analytics.sub_universe",
        "/analytics/sub_universe halves[liquid].sub_universe: the ICIR of the conditioned score's weekly rank IC "
        "on the liquid half of each week's names by the sealed adv (adv at or above the week's median) over the "
        "full cross-section's ICIR scaled by sqrt(n_liquid / n), over the window's weeks (WorldQuant's "
        "sub-universe test passes at 0.75: bound it with min_sub_universe=0.75); not measurable without "
        "exposures or while the full ICIR is not positive; optional, off by default",
        "the liquid half's ICIR ({liquid}) over the full ICIR ({full}) scaled by sqrt({n_sub} / {n} names): is the "
        "signal there where it can be traded?",
        min=(None, "min_sub_universe"),
        optional=True,
    ),
)
"""The battery, in the order every answer lists it."""
OPTIONAL_CHECKS = tuple(check.id for check in CHECKS if check.optional)
"""Checks off by default (`Check.optional`): a not-measurable one leaves the verdict as the rest
makes it."""
FAMILY_CHECKS = tuple(check.id for check in CHECKS if check.family_min is not None)
"""Checks of the alpha's trial family (`Check.family_min`): a not-measurable one leaves the verdict as
the rest makes it (an alpha outside any trial family is not incomplete for it)."""
BY_ID = {check.id: check for check in CHECKS}
RENAMED = MappingProxyType({"ic_t_stat": "ic_t_statistic"})
"""Check ids renamed (issue 46, item 3: one name, one meaning), old -> new: a policy file naming the old
id stops the server with an error naming the new one (no alias: a file is fixed once); a decision
recorded before the rename keeps the old id, and is withheld from a key as the new id's check is."""
