"""The terms of the served figures, one constant each: what a name means wherever it is served
(issue 46, item 3: one name, one meaning; issue 79, item 1: meaning on the field).

A field names its term by this object, on its declaration: `figure(..., term=terms.SHARPE)` on a
body's field, `doc(..., term=terms.WEEKLY_IC)` on a row's column. Nothing finds a term by a field's
served name: a field that holds a figure and names no term has none, and tests/contract/
test_vocabulary.py fails when a figure field served under a term's name names no term, or when one
served name is given two terms (schemas.vocabulary.two_meanings) outside the spec's own list
(`schemas.vocabulary.STILL_TWO_MEANINGS`).

A term states what a reader needs to read a value of the name anywhere: a label for people, a
definition, its unit (`schemas.units`, or the unit code a stat entry serves), its basis (per session,
per week, per year, or none), its annualisation as a stat entry states it, the window it covers
when that is not the request's window, and when it is null. This is the only place a figure's unit
and annualisation are written. A constant is its term's name in capitals (a dot written `_`):
`TRIALS_COUNT` is `trials.count`.

Pure declarations: no import of datasets/, analytics/ or serve/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schemas import units

Basis = Literal["per session", "per week", "per month", "per year"]
Annualisation = Literal["annualised", "per_period", "not_annualisable"]

WHEN_NOT_MEASURABLE = "when it cannot be measured: a stat entry with value null, status not_measurable and its withheld_reason (never zero)"


@dataclass(frozen=True)
class Term:
    """What one served figure name means, wherever it is served."""

    name: str
    label: str
    """What a person reads (the dashboard's and the tear sheet's label)."""
    definition: str
    unit: str
    basis: Basis | None = None
    """The period one value describes or is expressed per: per session (a statistic of daily returns, a
    session's value), per week (of the weekly IC or weekly returns, a week's value), per month, per year
    (annualised); None for a figure with no period (a count, a share, a probability, a level, a total
    over the window)."""
    annualisation: Annualisation | None = None
    """As a stat entry states it (None: the entry states none, and `/analytics/_doc` writes its default)."""
    window: str | None = None
    """What the value covers when it is not the request's window (from/to)."""
    null: str | None = None
    """When the value is null (None: as its field states)."""

    def facts(self) -> dict[str, str]:
        """The facts a field's documentation takes from its term (its unit, its annualisation when
        stated)."""
        out = {"unit": self.unit, "term": self.name}
        if self.annualisation is not None:
            out["annualisation"] = self.annualisation
        return out


FAMILY_COMMON = "the members' common sessions"
"""What the family tests' figures cover (/analytics/family_tests)."""
MONITORED = "the live weeks after the split (from/to do not apply)"
APPROVED_LIVE = "the sessions after the alpha's approval was recorded (whole history: no from/to)"
"""What the figures of /analytics/monitoring cover."""
ODDS = "the horizon_weeks after the split simulated, and the live weeks (from/to do not apply)"
"""What the figures of /analytics/drawdown_odds cover."""
EXPECTED_WHOLE = "the backtests up to each alpha's split (from/to do not apply)"
"""What the backtest and expected figures of /analytics/expectation cover."""
EXPECTED_LIVE_WINDOW = "the live observations after the split up to the week (from/to do not apply)"
"""What the live weeks of /analytics/expectation cover."""

RAS_WINDOW = "the dates of the catalogue's matrix on which an alpha the key may read has a value (from/to do not narrow them)"
"""What the figures of /analytics/catalogue_bound cover."""


IC = Term(
    "ic",
    "Mean IC (as sealed)",
    "Mean weekly information coefficient of the conditioned score, as the run sealed it (an ic_reproduction_mismatch warning says when the weekly IC rebuilt from its cross-sections does not reproduce it; the screener's ic_reproduces is that flag)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


ICIR = Term(
    "icir",
    "ICIR",
    "Information ratio of the weekly IC, annualised (the per-week ratio times sqrt(weeks_per_year)) on every route",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


ICIR_PER_WEEK = Term(
    "icir_per_week",
    "ICIR per week (not annualised)",
    "Information ratio of the weekly IC per week (not annualised): icir divided by sqrt(weeks_per_year)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


INFORMATION_RATIO = Term(
    "information_ratio",
    "Information ratio",
    "Risk-adjusted return of the long_short book, after costs and gross of the risk-free rate (not in excess of it, unlike excess_sharpe): daily returns times sqrt(252), as /analytics significance; /analytics rolling's is weekly times sqrt(52), and /analytics costs' gross is before costs",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


EXCESS_SHARPE = Term(
    "excess_sharpe",
    "Excess Sharpe ratio",
    "Sharpe ratio of the long_short book net of the risk-free rate: quantstats' sharpe(r, rf) with the run's risk-free rate; not empyrical's excess_sharpe(r, benchmark), relative to a benchmark and not annualised",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


RISK_FREE_RATE = Term(
    "risk_free_rate",
    "Risk-free rate",
    "Annual risk-free rate the excess return is measured against (the run's, sealed overall)",
    "per_year",
    basis="per year",
    window="the run's, sealed (from/to do not narrow it)",
)


SHARPE = Term(
    "sharpe",
    "Sharpe ratio",
    "Deprecated alias of core.information_ratio (same value)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


SEALED_PNL = Term(
    "sealed_pnl",
    "Sealed P&L",
    "Profit and loss of the long_short book over the run, in units of its starting capital (the ledger is normalised to 1.0 at inception)",
    "ratio",
    annualisation="not_annualisable",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


MAX_DRAWDOWN = Term(
    "max_drawdown",
    "Max drawdown (equity units)",
    "Largest fall from a running equity peak (opening equity counts), in equity units (starting capital 1.0); quantstats' and empyrical's max_drawdown are the same fall as a negative fraction of the peak",
    "ratio",
    annualisation="not_annualisable",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


MAX_DRAWDOWN_PCT = Term(
    "max_drawdown_pct",
    "Max drawdown",
    "Largest drawdown as a percentage of its peak, positive; quantstats' and empyrical's max_drawdown are the same fall as a negative fraction of the peak",
    "percentage_points",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


SEALED_TURNOVER = Term(
    "sealed_turnover",
    "Turnover (as sealed)",
    "Turnover of the long_short book traded, as the run sealed it (the catalogue's turnover, in its turnover_unit); the first sealed of annualised_turnover (per_year), turnover (ratio), mean_turnover (per_session), total_turnover (period_sum)",
    "see unit on the entry",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


ANNUAL_TURNOVER = Term(
    "annual_turnover",
    "Traded turnover per year",
    "Turnover of the long_short book per year, of what the ledger traded (not /analytics/costs' target-weight turnover, annual_target_turnover): the mean session turnover times 252, whichever turnover the run sealed (turnover in its sealed unit); not measurable when the run sealed only a turnover ratio (no period to annualise it by) or none, and for a summed turnover when the key may not read the ledger (its sessions are counted there)",
    "per_year",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


COMMON_SESSIONS = Term(
    "common_sessions",
    "Common sessions",
    "/analytics/compare: the sessions both books hold in the window with a daily return on each side, the ones a return figure of both alphas is over",
    "sessions",
    basis="per session",
)


COMMON_WEEKS = Term(
    "common_weeks",
    "Common weeks",
    "/analytics/compare: the weeks both alphas have a weekly IC in the window, the ones their rebuilt mean IC and ICIR are over (not /metrics' sealed figures over all their weeks)",
    "weeks",
    basis="per week",
)


WEEKS = Term(
    "weeks",
    "Weeks",
    "Rebalance dates in the window, pending and skipped weeks included; null with source portfolio",
    "weeks",
)


TRADED_WEEKS = Term(
    "traded_weeks",
    "Traded weeks",
    "Rebalance dates with week_status traded; null with source portfolio",
    "weeks",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
)


CALENDAR_DAYS = Term(
    "calendar_days",
    "Calendar days",
    "Elapsed days between the first and last rebalance (or, with source portfolio, the first and last ledger session)",
    "days",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
)


YEARS = Term(
    "years",
    "Years",
    "calendar_days in years",
    "years",
)


HIT_RATE = Term(
    "hit_rate",
    "Hit rate (share of weeks with IC above 0)",
    "Share of weeks with IC > 0",
    "ratio",
    basis="per week",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


DISPERSION = Term(
    "dispersion",
    "IC dispersion",
    "Standard deviation of the weekly IC",
    "ratio",
    basis="per week",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


COVERAGE = Term(
    "coverage",
    "Coverage",
    "Mean over weeks of scored names / universe size",
    "ratio",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


RAW_MEAN_IC = Term(
    "raw_mean_ic",
    "Mean IC of the raw score",
    "Mean weekly Spearman(raw_score, forward_return)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    window="the run's whole history, as sealed (/metrics core: from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


RAW_ICIR = Term(
    "raw_icir",
    "Raw ICIR",
    "Mean / std(ddof=1) of the raw weekly IC, annualised as icir is (the per-week ratio times sqrt(weeks_per_year))",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


MEAN_N_SYMBOLS = Term(
    "mean_n_symbols",
    "Names in the decile, on average",
    "Mean names per week in the bucket",
    "names",
    basis="per week",
)


MEAN_SCORE = Term(
    "mean_score",
    "Mean raw score",
    "Mean of weekly mean raw_score",
    "score units",
    basis="per week",
)


MEAN_SCORE_Z = Term(
    "mean_score_z",
    "Mean z-scored raw score",
    "Mean of weekly mean raw_score_z",
    "ratio",
    basis="per week",
)


MEAN_LONG_SHORT_WEIGHT = Term(
    "mean_long_short_weight",
    "Mean long-short target weight",
    "Mean of weekly mean long_short target weight",
    "ratio",
    basis="per week",
)


MEAN_LONG_ONLY_WEIGHT = Term(
    "mean_long_only_weight",
    "Mean long-only target weight",
    "Mean of weekly mean long_only target weight",
    "ratio",
    basis="per week",
)


SCORE = Term(
    "score",
    "Score (conditioned)",
    "/rebalances/{date} and /scores: a name's conditioned (smoothed) signal that week, the one ranks and books use, in the alpha's own score units",
    units.SCORE_UNITS,
)


SCORE_Z = Term(
    "score_z",
    "Score z",
    "/rebalances/{date} and /scores: (score - the week's mean) / the week's standard deviation over the week's cohort",
    units.STANDARD_DEVIATIONS,
)


AVERAGE_RANK = Term(
    "average_rank",
    "Rank in the week",
    "/rebalances/{date} and /scores: a name's rank by score in the week's cohort (1 = strongest; ties share their average rank)",
    units.RANK,
)


LONG_SHORT_TARGET_WEIGHT = Term(
    "long_short_target_weight",
    "Long/short target weight",
    "/rebalances/{date} and /scores: a name's target weight in the dollar-neutral book, a fraction of its equity (positive long, negative short, 0 outside the selection tails or when untradeable)",
    "fraction",
)


LONG_ONLY_TARGET_WEIGHT = Term(
    "long_only_target_weight",
    "Long-only target weight",
    "/rebalances/{date} and /scores: a name's target weight in the long-only book, a fraction of its equity (>= 0; the held names sum to 1)",
    "fraction",
)


FORWARD_RETURN = Term(
    "forward_return",
    "Forward return",
    "/rebalances/{date} and /scores: a name's return from the open after this decision to the open after the next one (null on pending weeks and unsealed holding periods)",
    "fraction",
)


MEAN_FORWARD_RETURN = Term(
    "mean_forward_return",
    "Mean forward return",
    "Mean of weekly mean forward return (names with a forward return)",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


N_RETURN_OBS = Term(
    "n_return_obs",
    "Forward-return observations",
    "Forward-return observations summed over weeks (a name's forward return in a week is one)",
    "observations",
)


DECILE_IC = Term(
    "decile_ic",
    "IC inside the decile",
    "/metrics ic_deciles.buckets[].ic: the mean over weeks of Spearman(raw_score, forward_return) among the names of the decile that week (not the sealed mean IC, ic)",
    "ratio",
    basis="per week",
)


WEEKLY_IC = Term(
    "weekly_ic",
    "Weekly IC (conditioned score)",
    "/metrics panel.ic_weekly[].ic: Spearman(score, forward_return) over one rebalance week's names, rebuilt from the cross-section (rebuilt_mean_ic is their mean)",
    "ratio",
    basis="per week",
)


HORIZON_IC_WEEKS = Term(
    "horizon_ic_weeks",
    "Weeks with an h-week IC",
    "/metrics panel.ic_term_structure[].weeks: the weeks with a computable h-week IC (the raw score against the h weekly forward returns that follow, compounded)",
    "weeks",
)


SPEARMAN_BUCKET_VS_MEAN_FORWARD_RETURN = Term(
    "spearman_bucket_vs_mean_forward_return",
    "Monotonicity (Spearman of decile vs mean forward return)",
    "Spearman correlation of bucket index 1..10 with the bucket mean forward return",
    "ratio",
)


TOP_MINUS_BOTTOM = Term(
    "top_minus_bottom",
    "Top minus bottom decile forward return",
    "Mean forward return of Q10 minus that of Q1",
    "ratio",
    basis="per week",
)


WEEKS_SKIPPED = Term(
    "weeks_skipped",
    "Weeks skipped",
    "Weeks in the window not bucketed: fewer than 20 scored names, or fewer than 2 distinct raw_score values (every raw_score equal)",
    "weeks",
)


NEWEY_WEST_MEAN = Term(
    "newey_west_mean",
    "Mean of the tested series",
    "Mean of the book",
    "ratio",
)


NEWEY_WEST_STANDARD_ERROR = Term(
    "newey_west_standard_error",
    "Newey-West standard error of the mean",
    "HAC standard error of the mean, no small-sample correction (equals statsmodels OLS(y, ones).fit(cov_type='HAC', cov_kwds={'maxlags': lag}))",
    "ratio",
)


REBUILT_MEAN_IC = Term(
    "rebuilt_mean_ic",
    "Rebuilt mean IC",
    "Mean of the weekly conditioned IC rebuilt from the rebalance cross-sections (weekly_signal.ic, the ic_weekly values /metrics serves beside it), over the weeks with a computable IC that it covers: the request's window (/metrics panel, /analytics/significance's bootstrap), a part of /analytics/live, a row's trailing window (/analytics/rolling, whose raw_ books' rows are the raw score's, as meta.signal says), /analytics/expectation's backtest or live weeks; not the sealed core.ic, which it equals over the full window only when the run's IC reproduces, nor the IC term structure's mean_ic (the raw score at a horizon of h weeks); null when no week has one",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


SPREAD = Term(
    "spread",
    "Top minus bottom decile spread",
    "Q10 mean forward return - Q1 mean forward return",
    "ratio",
    basis="per week",
)


HORIZON_WEEKS = Term(
    "horizon_weeks",
    "Horizon (weeks)",
    "Horizon h in weeks",
    "weeks",
)


MEAN_IC = Term(
    "mean_ic",
    "Mean IC",
    "Mean over weeks of Spearman(raw_score, prod(1 + r) - 1 over the next h weekly forward returns): /metrics panel.ic_term_structure[].mean_ic, and /analytics/decay's term structure, the same figure over the whole history; not the sealed core.ic (the screener's ic), nor the mean of the weekly conditioned IC rebuilt from the cross-sections (rebuilt_mean_ic: /analytics/rolling's, /analytics/expectation's)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


LAG_WEEKS = Term(
    "lag_weeks",
    "Lag (weeks)",
    "Lag in weeks (1..8)",
    "weeks",
)


RHO = Term(
    "rho",
    "Score autocorrelation (Spearman)",
    "Mean over weeks of Spearman(raw_score at t, raw_score at t - lag) over names scored both weeks",
    "ratio",
    basis="per week",
)


SESSIONS = Term(
    "sessions",
    "Sessions",
    "Sessions of the long_short book in the window, as /portfolio and costs count them (the figures need 3 daily returns with variance); null for a key that may not read the ledger (a count of it, withheld as its figures are)",
    "sessions",
)


PERIODS_PER_YEAR = Term(
    "periods_per_year",
    "Periods per year",
    "Sessions per year used to annualise",
    "sessions",
)


SKEWNESS = Term(
    "skewness",
    "Skewness",
    "Sample skewness of the daily returns",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


KURTOSIS = Term(
    "kurtosis",
    "Kurtosis (not excess)",
    "Sample kurtosis of the daily returns, not in excess (3 for a normal)",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


SERIAL_CORRELATION = Term(
    "serial_correlation",
    "Serial correlation of the daily returns (rho)",
    "rho: the lag-1 Pearson correlation of the daily returns, the AR(1) coefficient the Sharpe ratio's variance assumes (López de Prado, Lipton and Zoonekynd 2025)",
    "ratio",
    basis="per session",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


SHARPE_STANDARD_ERROR = Term(
    "sharpe_standard_error",
    "Standard error of the Sharpe ratio",
    "The standard deviation of the Sharpe ratio's estimate over the window's sessions at the observed Sharpe ratio, for non-normal returns serially correlated as AR(1) (López de Prado, Lipton and Zoonekynd 2025), annualised as the Sharpe ratio (times sqrt(252))",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


PSR = Term(
    "psr",
    "Probabilistic Sharpe ratio",
    "Probabilistic Sharpe Ratio: the probability that the true Sharpe ratio exceeds sr_benchmark, the Sharpe ratio's variance under H0 for non-normal returns serially correlated as AR(1) (López de Prado, Lipton and Zoonekynd 2025)",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


CRITICAL_SHARPE = Term(
    "critical_sharpe",
    "Critical Sharpe ratio",
    "The Sharpe ratio the window's sessions must show for the test of a true Sharpe ratio of sr_benchmark to reject at level 1 - confidence (PSR(sr_benchmark) at the confidence), annualised",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


POWER = Term(
    "power",
    "Power of the Sharpe ratio test",
    "The probability that the test of a true Sharpe ratio of sr_benchmark at level 1 - confidence over the window's sessions rejects when the true Sharpe ratio is sr_alternative (sr_benchmark + 1)",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


SR_ALTERNATIVE = Term(
    "sr_alternative",
    "Alternative Sharpe ratio (SR1)",
    "The true annualised Sharpe ratio the power is at: sr_benchmark + 1, fixed before the data",
    "ratio",
    basis="per year",
    annualisation="annualised",
)


SR_BENCHMARK = Term(
    "sr_benchmark",
    "Benchmark Sharpe ratio (SR*)",
    "The request's sr_benchmark (annualised); per session it is sr_benchmark / sqrt(252)",
    "ratio",
    basis="per year",
    annualisation="annualised",
)


TRIAL_COUNT = Term(
    "trial_count",
    "Trials of the minimum backtest length (N)",
    "min_backtest_length: the trials it is computed for, N (dsr.trials.count: the catalogue's, or the request's trials)",
    "trials",
    window="whole history (from/to do not narrow it)",
)


MIN_BACKTEST_LENGTH = Term(
    "min_backtest_length",
    "Minimum backtest length",
    "The years of history below which the best of N skill-less configurations is expected to show at least the alpha's Sharpe ratio (Bailey, Borwein, López de Prado and Zhu 2014): a shorter backtest cannot tell it from the search's luck",
    "years",
    null=WHEN_NOT_MEASURABLE,
)


MIN_TRACK_RECORD = Term(
    "min_track_record",
    "Minimum track record length",
    "Minimum track record length for PSR(sr_benchmark) to reach the confidence: the sessions of these returns' moments and serial correlation it takes (López de Prado, Lipton and Zoonekynd 2025)",
    "sessions",
    null=WHEN_NOT_MEASURABLE,
)


CONFIDENCE = Term(
    "confidence",
    "Confidence level",
    "Confidence of the minimum track record (0.95); of the test of critical_sharpe and power, 1 - its level (0.95)",
    "probability",
)


DSR = Term(
    "dsr",
    "Deflated Sharpe ratio over the catalogue's trials",
    "Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the catalogue's trials, its variance that of the maximum of N Sharpe ratios (López de Prado, Lipton and Zoonekynd 2025)",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


DSR_FAMILY = Term(
    "dsr_family",
    "Deflated Sharpe ratio over the family's trials",
    "Deflated Sharpe Ratio: PSR against the expected maximum Sharpe ratio of the trials of the alpha's own trial family (N its members the key may read with a measurable Sharpe ratio, V the variance of their Sharpe ratios), its variance that of the maximum of N Sharpe ratios; not applicable without a family",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


TRIALS_COUNT = Term(
    "trials.count",
    "Trials (N)",
    "N: alphas of the published catalogue with a measurable long_short Sharpe ratio, or the request's trials (dsr); the members of the alpha's trial family the key may read with one (dsr_family); K, the effective number of trials (clustered_dsr)",
    "trials",
    window="whole history (from/to do not narrow it)",
)


TRIALS_SHARPE_VARIANCE = Term(
    "trials.sharpe_variance",
    "Variance of the trials' Sharpe ratios (V)",
    "V: sample variance (ddof=1) of the per-session Sharpe ratios of the alphas the key may read (the whole catalogue's for a key that reads it all), each over its whole history (dsr; dsr_family: the family's readable members'; clustered_dsr: the readable clusters', each cluster's the inverse-variance-weighted portfolio of its members); not measurable below 2 of them; null for a key that may not read the ledger",
    "per_session_squared",
    basis="per session",
    window="each alpha's whole history",
)


TRIALS_SHARPE_VARIANCE_ALPHAS = Term(
    "trials.sharpe_variance_alphas",
    "Alphas the Sharpe variance is over",
    "How many Sharpe ratios V is over: the alphas the key may read with a measurable Sharpe ratio (clustered_dsr: the clusters); null for a key that may not read the ledger",
    "alphas",
    window="whole history (from/to do not narrow it)",
)


TRIALS_EXPECTED_MAX_SHARPE = Term(
    "trials.expected_max_sharpe",
    "Expected maximum Sharpe ratio of the trials (SR0)",
    "SR0 annualised (times sqrt(252)); null for a key that may not read the ledger",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window="each alpha's whole history",
)


TRIALS_EFFECTIVE_COUNT = Term(
    "trials.effective_count",
    "Effective number of trials (K)",
    "The effective number of trials: the clusters of the trials linked when their whole-history daily long_short returns correlate at least 0.9 (single linkage: connected components), over the alphas the key may read, every other trial of N one cluster of its own; null for a key that may not read the ledger or when the catalogue generation records no links",
    "trials",
    window="each alpha's whole history",
)


TRIALS_EFFECTIVE_RANK = Term(
    "trials.effective_rank",
    "Effective rank of the trials' correlation matrix",
    "The effective rank of the correlation matrix of the trials' whole-history daily long_short returns (Roy and Vetterli 2007: exp of the Shannon entropy of its normalised singular values), a cross-check of the cluster count: over the trials the key may read, every other trial of N uncorrelated with every trial; null for a key that may not read the ledger, when the catalogue generation records no links, or above 500 readable trials",
    "trials",
    window="each alpha's whole history",
)


CLUSTERED_DSR = Term(
    "clustered_dsr",
    "Deflated Sharpe ratio over the clusters of the trials",
    "Deflated Sharpe Ratio as López de Prado and Lewis (2019) deflate: PSR against the expected maximum Sharpe ratio of K trials, K the clusters of the trials (dsr.trials.effective_count), V the variance of the clusters' Sharpe ratios (each cluster's returns the inverse-variance-weighted portfolio of its members), its variance that of the maximum of K Sharpe ratios",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


EFFECTIVE_DSR = Term(
    "effective_dsr",
    "Deflated Sharpe ratio over the effective trials",
    "Deflated Sharpe Ratio against the expected maximum Sharpe ratio of the effective number of trials (dsr.trials.effective_count in place of N; V as dsr's), its variance that of the maximum of K Sharpe ratios",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


FAMILY_TRIALS = Term(
    "family_trials",
    "Trials of the family (N)",
    "The alpha's trial family's members the key may read whose daily long_short returns are in the catalogue: the trials of the probability of backtest overfitting (6 needed)",
    "trials",
    window="the members' common sessions",
)


SPLITS = Term(
    "splits",
    "Splits (S)",
    "S: the blocks of equal length the family's common sessions are cut into by combinatorially symmetric cross-validation (even, 4 to 16)",
    "blocks",
)


COMBINATIONS = Term(
    "combinations",
    "Combinations C(S, S/2)",
    "The ways of taking half of the S blocks in sample (the rest out of sample): each one cross-validation",
    "combinations",
)


CSCV_SESSIONS = Term(
    "cscv_sessions",
    "Sessions cross-validated",
    "Sessions the cross-validation uses: the family members' common sessions with a return, the oldest T mod S left out so that every block holds T // S",
    "sessions",
)


PBO = Term(
    "pbo",
    "Probability of backtest overfitting",
    "PBO (Bailey, Borwein, López de Prado and Zhu 2015): the share of the combinations whose in-sample best trial of the family ranks at or below the median out of sample (its logit <= 0); by the Sharpe ratio of daily long_short returns; not measurable below 6 trials the key may read",
    "probability",
    annualisation="not_annualisable",
    window="the members' common sessions",
    null=WHEN_NOT_MEASURABLE,
)


DEGRADATION_SLOPE = Term(
    "degradation_slope",
    "Performance degradation (slope)",
    "The OLS slope of the in-sample best trial's out-of-sample Sharpe ratio on its in-sample Sharpe ratio over the combinations: below 0, the better a trial looked in sample the worse it did out of sample",
    "ratio",
    window="the members' common sessions",
    null=WHEN_NOT_MEASURABLE,
)


DEGRADATION_INTERCEPT = Term(
    "degradation_intercept",
    "Performance degradation (intercept)",
    "The intercept of that regression: the out-of-sample Sharpe ratio (per session, not annualised) the slope line gives an in-sample Sharpe ratio of 0",
    "ratio",
    basis="per session",
    annualisation="per_period",
    window="the members' common sessions",
    null=WHEN_NOT_MEASURABLE,
)


PROBABILITY_OF_LOSS = Term(
    "probability_of_loss",
    "Probability of loss out of sample",
    "The share of the combinations whose in-sample best trial of the family has an out-of-sample Sharpe ratio below 0",
    "probability",
    window="the members' common sessions",
    null=WHEN_NOT_MEASURABLE,
)


LOGIT_FROM = Term(
    "logit_from",
    "Logit bin from",
    "The lower edge of a bin of the logit distribution, logit = ln(w / (1 - w)), w the relative out-of-sample rank of the in-sample best trial (the first bin takes every logit below it)",
    "logit",
)


LOGIT_TO = Term(
    "logit_to",
    "Logit bin to",
    "The upper edge of a bin of the logit distribution (the last bin takes every logit above it)",
    "logit",
)


SPLITS_IN_BIN = Term(
    "splits_in_bin",
    "Combinations in the bin",
    "How many of the combinations' logits fall in the bin",
    "combinations",
)


PICK_SHARE = Term(
    "pick_share",
    "Picked in sample",
    "The share of the combinations whose in-sample best trial is this member of the family; null when the figures are not measurable",
    "fraction",
)


COMPARED_MEMBERS = Term(
    "compared_members",
    "Family members compared",
    "The alpha's trial family's members the key may read whose daily long_short returns are in the catalogue: the members SPA, StepM and the model confidence set compare (2 needed)",
    "members",
    window=FAMILY_COMMON,
)


COMPARED_SESSIONS = Term(
    "compared_sessions",
    "Sessions compared",
    "The sessions on which every compared member of the family has a daily long_short return (20 needed)",
    "sessions",
)


TEST_SIZE = Term(
    "test_size",
    "Test size",
    "The level of StepM (family-wise error rate) and of the model confidence set: 0.05",
    "probability",
)


COMPARISON_RESAMPLES = Term(
    "comparison_resamples",
    "Family resamples",
    "Stationary-bootstrap resamples of the family's common sessions, one draw shared by every member (1,000)",
    "resamples",
)


COMPARISON_BLOCK_LENGTH = Term(
    "comparison_block_length",
    "Family mean block length",
    "Mean block length of the family's resamples: the mean over the members of Politis and White's (2004) automatic choice with Patton, Politis and White's (2009) correction",
    "observations",
    null="when the tests are not measurable",
)


SPA_P_VALUE = Term(
    "spa_p_value",
    "SPA p-value (consistent)",
    "Hansen's (2005) studentized SPA consistent p-value of H0: no member of the family the key may read has a mean daily long_short return above the family's (each session's equal-weighted mean of those members)",
    "probability",
    annualisation="not_annualisable",
    window=FAMILY_COMMON,
    null=WHEN_NOT_MEASURABLE,
)


SPA_P_VALUE_LOWER = Term(
    "spa_p_value_lower",
    "SPA p-value (lower)",
    "Hansen's SPA lower p-value: every member re-centred at max(its mean, 0)",
    "probability",
    annualisation="not_annualisable",
    window=FAMILY_COMMON,
    null=WHEN_NOT_MEASURABLE,
)


SPA_P_VALUE_UPPER = Term(
    "spa_p_value_upper",
    "SPA p-value (upper, reality check)",
    "Hansen's SPA upper p-value, White's (2000) reality check: every member re-centred at its mean",
    "probability",
    annualisation="not_annualisable",
    window=FAMILY_COMMON,
    null=WHEN_NOT_MEASURABLE,
)


FAMILY_SHARPE = Term(
    "family_sharpe",
    "Sharpe ratio in the family",
    "A member's Sharpe ratio of daily long_short returns over the family's common sessions, mean / std (ddof 1) x sqrt(252), no risk-free rate",
    "ratio",
    basis="per year",
    window=FAMILY_COMMON,
    null="without variance, or when the figures are withheld",
)


MCS_P_VALUE = Term(
    "mcs_p_value",
    "Model confidence set p-value",
    "A member's model confidence set p-value (Hansen, Lunde and Nason 2011, T_R, loss = -daily return): the largest elimination p-value up to its own elimination, 1 for the last member",
    "probability",
    window=FAMILY_COMMON,
    null="when the tests are not measurable",
)


STEPM_P_VALUE = Term(
    "stepm_p_value",
    "StepM p-value",
    "A member's StepM p-value (Romano and Wolf 2005): the share of the resampled maxima of the step that decided it (found superior, else the last step) above its studentized statistic; below the test size as StepM finds it superior, up to the quantile's interpolation",
    "probability",
    window=FAMILY_COMMON,
    null="when the tests are not measurable",
)


STEPM_P_VALUE_MONTE_CARLO_ERROR = Term(
    "stepm_p_value_monte_carlo_error",
    "StepM p-value Monte Carlo error",
    "The Monte Carlo standard error of a member's StepM p-value: the binomial sqrt(p (1 - p) / B) over the B = 1,000 comparison_resamples (given the data): how far another draw of the resamples moves the p-value",
    "probability",
    window=FAMILY_COMMON,
    null="when the tests are not measurable",
)


MCS_P_VALUE_MONTE_CARLO_ERROR = Term(
    "mcs_p_value_monte_carlo_error",
    "Model confidence set p-value Monte Carlo error",
    "The Monte Carlo standard error of a member's model confidence set p-value, measured by batch means: the standard deviation of its p-value over 10 batches of 100 of the 1,000 comparison_resamples over sqrt(10) (the MCS standardises by variances of the same resamples, so its p-values vary between draws more than a binomial share)",
    "probability",
    window=FAMILY_COMMON,
    null="when the tests are not measurable",
)


SPA_P_VALUE_MONTE_CARLO_ERROR = Term(
    "spa_p_value_monte_carlo_error",
    "SPA p-value (consistent) Monte Carlo error",
    "The Monte Carlo standard error of the SPA consistent p-value: the binomial sqrt(p (1 - p) / B) over the B = 1,000 comparison_resamples (given the data): how far another draw of the resamples moves the p-value",
    "probability",
    window=FAMILY_COMMON,
    null="when the SPA p-value is not measurable",
)


SPA_P_VALUE_LOWER_MONTE_CARLO_ERROR = Term(
    "spa_p_value_lower_monte_carlo_error",
    "SPA p-value (lower) Monte Carlo error",
    "The Monte Carlo standard error of the SPA lower p-value: the binomial sqrt(p (1 - p) / B) over the B = 1,000 comparison_resamples (given the data): how far another draw of the resamples moves the p-value",
    "probability",
    window=FAMILY_COMMON,
    null="when the SPA p-value is not measurable",
)


SPA_P_VALUE_UPPER_MONTE_CARLO_ERROR = Term(
    "spa_p_value_upper_monte_carlo_error",
    "SPA p-value (upper) Monte Carlo error",
    "The Monte Carlo standard error of the SPA upper p-value (the reality check): the binomial sqrt(p (1 - p) / B) over the B = 1,000 comparison_resamples (given the data): how far another draw of the resamples moves the p-value",
    "probability",
    window=FAMILY_COMMON,
    null="when the SPA p-value is not measurable",
)


MEMBERS_WITH_PARAMETER = Term(
    "members_with_parameter",
    "Members with the parameter",
    "The family members with a numeric value of the parameter and a Sharpe ratio",
    "members",
)


DISTINCT_VALUES = Term(
    "distinct_values",
    "Distinct parameter values",
    "The parameter's distinct values among the family's members",
    "values",
)


SHARPE_SPEARMAN = Term(
    "sharpe_spearman",
    "Sharpe against parameter (Spearman)",
    "Spearman's rank correlation of the members' family_sharpe with the parameter's value (average ranks)",
    "correlation",
    window=FAMILY_COMMON,
    null="when the parameter takes one value, is not numeric or fewer than 3 members name it",
)


NEIGHBOUR_DEVIATION = Term(
    "neighbour_deviation",
    "Neighbour deviation (stability)",
    "The neighbour-stability score: mean over the members of |SR_i - mean SR of its neighbours at the next lower and next higher value of the parameter, other parameters equal| over the std (ddof 1) of the members' Sharpe ratios; 0 smooth, about 1 unrelated",
    "ratio",
    window=FAMILY_COMMON,
    null="when no member has a neighbour or the Sharpe ratios do not vary",
)


RESAMPLES = Term(
    "resamples",
    "Bootstrap resamples",
    "Number of resamples",
    "resamples",
)


LOWER = Term(
    "lower",
    "Lower bound (2.5%)",
    "Lower bound: the 2.5% quantile of the resampled statistic",
    "ratio",
)


UPPER = Term(
    "upper",
    "Upper bound (97.5%)",
    "Upper bound: the 97.5% quantile of the resampled statistic",
    "ratio",
)


OBSERVATIONS = Term(
    "observations", "Observations", "Observations of the series in the window", "observations"
)


BLOCK_LENGTH = Term(
    "block_length",
    "Mean block length",
    "Mean block length of the stationary bootstrap's resamples: Politis and White's (2004) automatic choice with Patton, Politis and White's (2009) correction, at least 1, the longest of the series resampled together",
    "observations",
)


REBUILT_ICIR = Term(
    "rebuilt_icir",
    "Rebuilt ICIR (annualised)",
    "Information ratio of the rebuilt weekly IC, annualised with the run's weeks_per_year (52), bounds included (not the run's sealed /metrics core.icir)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


P_VALUE = Term(
    "p_value",
    "p-value",
    "Two-sided p-value of the test it stands in: a Newey-West test's from the standard normal, erfc(|t| / sqrt(2)) (/metrics nwt and ic_term_structure, of the series each names; /analytics/significance's is nwt.ic's, of the mean weekly IC), a comparison's of its own test; no period of its own",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


HOLM = Term(
    "holm",
    "Holm-adjusted p-value",
    "Holm step-down adjusted p-value within the family",
    "probability",
    window="whole history (from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


FAMILY_SIZE = Term(
    "family_size",
    "Multiple-testing family (hypotheses)",
    "The family adjusted over: the published alphas the key may read whose nwt.ic is measurable (this one included)",
    "hypotheses",
    window="whole history (from/to do not narrow it)",
)


BENJAMINI_HOCHBERG = Term(
    "benjamini_hochberg",
    "Benjamini-Hochberg-adjusted p-value",
    "Benjamini-Hochberg adjusted p-value (false discovery rate) within the family",
    "probability",
    window="whole history (from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


TESTED_SHARPE = Term(
    "tested_sharpe",
    "Sharpe ratio tested for the haircut",
    "/analytics/significance sharpe_haircut: the window's daily long_short Sharpe ratio annualised with Lo's (2002) adjustment for the returns' lag-1 serial correlation, the Sharpe ratio Harvey and Liu's (2015) haircut starts from; not measurable unless above 0",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


SHARPE_T_RATIO = Term(
    "sharpe_t_ratio",
    "t-ratio of the Sharpe ratio (monthly)",
    "tested_sharpe / sqrt(12) times sqrt(observed_months): the t-ratio of Harvey and Liu's (2015) haircut",
    "t_statistic",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


SHARPE_P_VALUE = Term(
    "sharpe_p_value",
    "p-value of the Sharpe ratio (before adjustment)",
    "2 (1 - F(sharpe_t_ratio)), F Student's t with observed_months - 1 degrees of freedom: the p-value Harvey and Liu's (2015) haircut adjusts",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


ADJUSTED_P_VALUE = Term(
    "adjusted_p_value",
    "Adjusted p-value (haircut)",
    "sharpe_p_value adjusted for the tests by one method of Harvey and Liu's (2015) haircut: Bonferroni, Holm or BHY (simulated, the median over the simulations) or their average",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


ADJUSTED_P_VALUE_MONTE_CARLO_ERROR = Term(
    "adjusted_p_value_monte_carlo_error",
    "Adjusted p-value (haircut) Monte Carlo error",
    "The Monte Carlo standard error of an adjusted_p_value: for Holm and BHY Maritz and Jarrett's (1978) standard error of the median over the simulations (how far another seed moves it); 0 for Bonferroni (exact); (Holm's + BHY's) / 3 for the average, a bound",
    "probability",
    null=WHEN_NOT_MEASURABLE,
)


HAIRCUT_SHARPE = Term(
    "haircut_sharpe",
    "Haircut Sharpe ratio",
    "The annualised Sharpe ratio an adjusted_p_value implies over observed_months (Harvey and Liu 2015): F^-1(1 - p*/2) / sqrt(T) times sqrt(12)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


HAIRCUT_SHARE = Term(
    "haircut_share",
    "Haircut (share of the Sharpe ratio)",
    "The share of tested_sharpe that multiple testing takes off: (tested_sharpe - haircut_sharpe) / tested_sharpe (Harvey and Liu 2015)",
    "fraction",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


TESTS = Term(
    "tests",
    "Tests adjusted for (M)",
    "The tests a haircut adjusts for: the published alphas the key may read with a measurable long_short Sharpe ratio, this one included",
    "hypotheses",
    window="whole histories (from/to do not narrow it)",
)


TEST_CORRELATION = Term(
    "test_correlation",
    "Correlation between the tests (rho)",
    "The average correlation between the tests' returns Harvey and Liu's (2015) simulation of the other tests assumes (0.2, Harvey, Liu and Zhu's preferred level)",
    "ratio",
)


OBSERVED_MONTHS = Term(
    "observed_months",
    "Months observed",
    "The window's sessions in months, floor(sessions 12 / 252): the T of Harvey and Liu's (2015) monthly t-ratio",
    "months",
)


SIMULATIONS = Term(
    "simulations",
    "Simulations",
    "Simulations of the other tests' p-values (Harvey, Liu and Zhu's model)",
    "simulations",
)


SHARPE_T_STATISTIC = Term(
    "sharpe_t_statistic",
    "t-statistic of the Sharpe ratio",
    "The t-statistic of the book's daily Sharpe ratio over the window: SR sqrt(T), SR = mean / std(ddof=1) of the daily returns (per session, not annualised), T the window's sessions (i.i.d. returns; equal to sqrt(T / 252) times the annualised information ratio)",
    "t_statistic",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


RAS_CONFIDENCE = Term(
    "ras_confidence",
    "Bound's confidence",
    "1 - delta: the probability with which every alpha's Rademacher anti-serum bound holds at once",
    "probability",
)


RAS_DRAWS = Term(
    "ras_draws",
    "Rademacher draws",
    "Monte Carlo draws of the Rademacher signs behind a complexity",
    "draws",
)


RAS_SHARPE_OBSERVED = Term(
    "ras_sharpe_observed",
    "Sharpe ratio (bound's reading)",
    "The alpha's per-session Sharpe ratio over the dates on which an alpha the key may read has a return, a date without a value flat: (1/T) sum_t r_t / sd(r)",
    "ratio",
    basis="per session",
    annualisation="per_period",
    window=RAS_WINDOW,
    null=WHEN_NOT_MEASURABLE,
)


RAS_SHARPE_LOWER_BOUND = Term(
    "ras_sharpe_lower_bound",
    "Sharpe ratio lower bound (RAS)",
    "Rademacher anti-serum lower bound on the alpha's true per-session Sharpe ratio, holding for every alpha the key may read at once with probability ras_confidence (Paleologo 2024, sub-Gaussian form)",
    "ratio",
    basis="per session",
    annualisation="per_period",
    window=RAS_WINDOW,
    null=WHEN_NOT_MEASURABLE,
)


RAS_SHARPE_COMPLEXITY = Term(
    "ras_sharpe_complexity",
    "Rademacher complexity (returns)",
    "Empirical Rademacher complexity of the daily returns of the alphas the key may read, each at unit variance: exact (computed over their rows, not a generation's stored upper bound)",
    "ratio",
    basis="per session",
    window=RAS_WINDOW,
)


RAS_SHARPE_COMPLEXITY_ERROR = Term(
    "ras_sharpe_complexity_error",
    "Rademacher complexity standard error (returns)",
    "Monte Carlo standard error of ras_sharpe_complexity",
    "ratio",
    basis="per session",
    window=RAS_WINDOW,
)


RAS_SESSIONS = Term(
    "ras_sessions",
    "Bound's sessions (T)",
    "The dates of the catalogue's returns matrix on which an alpha the key may read has a return",
    units.SESSIONS,
    window=RAS_WINDOW,
)


RAS_SHARPE_ALPHAS = Term(
    "ras_sharpe_alphas",
    "Bound's alphas (N, returns)",
    "The alphas the key may read with a returns series (3 or more sessions with variance) the complexity is over",
    "alphas",
)


RAS_IC_OBSERVED = Term(
    "ras_ic_observed",
    "Mean IC (bound's reading)",
    "The alpha's mean weekly conditioned IC over the weeks on which an alpha the key may read has an IC, a week without a value 0: (1/T) sum_t ic_t",
    "ratio",
    basis="per week",
    annualisation="per_period",
    window=RAS_WINDOW,
    null=WHEN_NOT_MEASURABLE,
)


RAS_IC_LOWER_BOUND = Term(
    "ras_ic_lower_bound",
    "Mean IC lower bound (RAS)",
    "Rademacher anti-serum lower bound on the alpha's true mean weekly IC, holding for every alpha the key may read at once with probability ras_confidence (Paleologo 2024, bounded form, |IC| <= 1)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    window=RAS_WINDOW,
    null=WHEN_NOT_MEASURABLE,
)


RAS_IC_COMPLEXITY = Term(
    "ras_ic_complexity",
    "Rademacher complexity (IC)",
    "Empirical Rademacher complexity of the weekly IC of the alphas the key may read: exact (computed over their rows)",
    "ratio",
    basis="per week",
    window=RAS_WINDOW,
)


RAS_IC_COMPLEXITY_ERROR = Term(
    "ras_ic_complexity_error",
    "Rademacher complexity standard error (IC)",
    "Monte Carlo standard error of ras_ic_complexity",
    "ratio",
    basis="per week",
    window=RAS_WINDOW,
)


RAS_WEEKS = Term(
    "ras_weeks",
    "Bound's weeks (T)",
    "The weeks of the catalogue's IC matrix on which an alpha the key may read has an IC",
    units.WEEKS,
    window=RAS_WINDOW,
)


RAS_IC_ALPHAS = Term(
    "ras_ic_alphas",
    "Bound's alphas (N, IC)",
    "The alphas the key may read with a weekly IC the complexity is over",
    "alphas",
)


NET_PNL = Term("net_pnl", "Net P&L", "Net P&L, every flow included", "equity", null=WHEN_NOT_MEASURABLE)


EXECUTION_COST = Term(
    "execution_cost", "Execution cost", "Modelled execution cost paid", "equity", null=WHEN_NOT_MEASURABLE
)


GROSS_PNL = Term("gross_pnl", "Gross P&L", "P&L before execution costs", "equity", null=WHEN_NOT_MEASURABLE)


TRADED_NOTIONAL = Term(
    "traded_notional",
    "Traded notional",
    "Notional traded, in equity units",
    "equity",
    null=WHEN_NOT_MEASURABLE,
)


BREAK_EVEN_MULTIPLE = Term(
    "break_even_multiple",
    "Break-even cost over the modelled cost",
    "Multiple m of the modelled execution cost at which the window's compounded net return is zero; not measurable when the book loses before costs or paid none",
    "multiple",
    null=WHEN_NOT_MEASURABLE,
)


BREAK_EVEN_BPS = Term(
    "break_even_bps",
    "Break-even cost (compounded return 0)",
    "Cost per unit of traded notional at which the window's compounded net return is zero",
    "bps",
    null=WHEN_NOT_MEASURABLE,
)


MODELLED_COST_BPS = Term(
    "modelled_cost_bps",
    "Modelled cost",
    "The modelled cost per unit of traded notional (break_even_bps / break_even_multiple)",
    "bps",
    null=WHEN_NOT_MEASURABLE,
)


BREAK_EVEN_COST_BPS = Term(
    "break_even_cost_bps",
    "Arithmetic break-even cost (mean net return 0)",
    "Execution cost per unit of traded notional at which the book's net information ratio over the window is 0: every session's modelled cost scaled by the multiple at which the mean daily net return is 0 (mean(g) / mean(k), g the gross daily return, k the modelled cost rate), in bps as modelled_cost_bps; an arithmetic break-even, so above break_even_bps (the compounded one); not measurable when the mean daily return before costs is not positive, the book paid no cost or traded nothing",
    "bps",
    null=WHEN_NOT_MEASURABLE,
)


COST_BPS = Term(
    "cost_bps",
    "Cost (bps of traded notional)",
    "An execution cost per unit of traded notional, in basis points of the notional: a level of the costs route's curve (net_ir_by_cost), or the book's cost at a capital of its curve tied to capacity (net_ir_by_capital)",
    "bps",
    null=WHEN_NOT_MEASURABLE,
)


COST_MULTIPLE = Term(
    "cost_multiple",
    "Cost over the modelled cost",
    "The multiple of the book's modelled execution cost a cost level stands for (cost_bps / modelled_cost_bps); null when the modelled cost is not measurable",
    "multiple",
)


NET_INFORMATION_RATIO_AT_COST = Term(
    "net_information_ratio_at_cost",
    "Information ratio after costs at a cost level",
    "Information ratio of the book's daily returns with every session's modelled cost scaled to the cost level (r - (m - 1) k): information_ratio.gross at 0 bps, information_ratio.net at the modelled cost, 0 at the break-even; daily times sqrt(252), not in excess of the risk-free rate",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


GROSS = Term(
    "gross",
    "Information ratio before costs",
    "Information ratio of daily returns before execution costs, daily times sqrt(252): quantstats' sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r, benchmark), the mean over the standard deviation of r - benchmark, not annualised",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


NET = Term(
    "net",
    "Information ratio after costs",
    "Information ratio of daily returns after execution costs, with the convention of /metrics core.information_ratio but over the window (/metrics never narrows core: its figure is the whole history's, so the two agree only there), daily times sqrt(252): quantstats' sharpe(r) and empyrical's sharpe_ratio, risk-free rate 0; not quantstats' information_ratio(r, benchmark), the mean over the standard deviation of r - benchmark, not annualised",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


BUCKETED_WEEKS = Term(
    "bucketed_weeks",
    "Bucketed weeks",
    "Of them, weeks bucketed into deciles (at least 20 scored names, not all equal)",
    "weeks",
)


WEEKLY_TARGET_TURNOVER = Term(
    "weekly_target_turnover",
    "Target-weight turnover per week",
    "/analytics/costs: mean over the window's weeks of the whole book's one-way turnover of its target weights (the decisions' <book>_target_weight, half the sum of |w_t - w_t-1| a week); not the ledger's traded turnover (annual_turnover, the turnover check)",
    "ratio",
    basis="per week",
)


WEEKS_PER_YEAR = Term(
    "weeks_per_year",
    "Weeks per year",
    "Weeks per year the annual figures are annualised with (the run's, 52)",
    "weeks",
)


ANNUAL_TARGET_TURNOVER = Term(
    "annual_target_turnover",
    "Target-weight turnover per year",
    "/analytics/costs: the book's weekly one-way turnover of its target weights annualised, weekly_target_turnover x weeks_per_year (52); not the ledger's traded turnover per year (annual_turnover: the mean session turnover of what was traded x 252), which differs by what was not traded and by the sessions it is averaged over",
    "per_year",
    basis="per year",
)


UNBUCKETED_WEEKLY_TARGET_TURNOVER = Term(
    "unbucketed_weekly_target_turnover",
    "Target-weight turnover per week outside the deciles",
    "/analytics/costs: mean weekly target-weight turnover of names in no decile at t (unbucketed weeks, names that left the cross-section)",
    "ratio",
    basis="per week",
)


DECILE_WEEKLY_TARGET_TURNOVER = Term(
    "decile_weekly_target_turnover",
    "Target-weight turnover per week of the decile",
    "/analytics/costs turnover_by_decile.buckets[]: mean over bucketed weeks of the decile's one-way turnover of the book's target weights",
    "ratio",
    basis="per week",
)


DECILE_ANNUAL_TARGET_TURNOVER = Term(
    "decile_annual_target_turnover",
    "Target-weight turnover per year of the decile",
    "/analytics/costs turnover_by_decile.buckets[]: decile_weekly_target_turnover x weeks_per_year (52)",
    "per_year",
    basis="per year",
)


HOLDING_PERIOD = Term(
    "holding_period",
    "Holding period",
    "Average holding period of a position",
    "weeks",
    null=WHEN_NOT_MEASURABLE,
)


BOOK_RETURN = Term(
    "book_return",
    "Book's return that week",
    "/analytics/factors: the book's return over the week's holding period, compounded (/analytics/returns serves a month's and a year's under the same name: monthly_return, calendar_year_return)",
    "fraction",
)


MONTHLY_RETURN = Term(
    "monthly_return",
    "Monthly return (compounded)",
    "/analytics/returns months[].book_return: the book's return over a calendar month, its sessions' daily returns compounded, prod(1 + r) - 1 (a total over the month: a partial first or last month holds only its sessions)",
    "fraction",
)


CALENDAR_YEAR_RETURN = Term(
    "calendar_year_return",
    "Calendar-year return (compounded)",
    "/analytics/returns years[].book_return: the book's return over a calendar year, its sessions' daily returns compounded (its months compounded); a total over the year's sessions, not annualised",
    "fraction",
)


BENCHMARK_RETURN = Term(
    "benchmark_return",
    "SPY's return",
    "SPY's return over the book's sessions of the year, compounded (a session without a SPY return adds nothing); null without one, or for a key without benchmarks.daily",
    "fraction",
)


WINDOW_SESSIONS = Term(
    "window_sessions",
    "Trailing window (sessions)",
    "Sessions of the trailing window",
    "sessions",
)


MIN_OBSERVATIONS = Term(
    "min_observations",
    "Minimum sessions for a beta",
    "Sessions with both returns a beta needs",
    "sessions",
)


BETA = Term(
    "beta",
    "Beta to SPY",
    "OLS slope, with an intercept, of the book's daily returns on SPY's over the 126 sessions up to this one, as /analytics/risk's benchmark.beta over a window; null before the window is full, with fewer than 63 sessions with both returns, or when SPY's returns have no measurable variance",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


COUNT = Term(
    "count",
    "Reference alphas",
    "How many reference alphas were named or considered",
    "alphas",
)


MEMBERS_IN_WINDOW = Term(
    "members_in_window",
    "Reference alphas with a return in the window",
    "How many reference alphas have a return on at least one of the sessions counted: the figures are over these (below count when some have none)",
    "alphas",
)


SHRINKAGE_INTENSITY = Term(
    "shrinkage_intensity",
    "Shrinkage intensity",
    "The weight of the diagonal target in the shrunk covariance (0 to 1): d in Sigma_d = (1 - d) S + d diag(S)",
    "ratio",
)


WEIGHT = Term(
    "weight",
    "Largest realised weight",
    "Its weight: a fraction of the combined book's capital, negative for a short (a computed weighting's negative weight is warned as negative_weights), from the set's common sessions of the window (up to fit_to when it is given)",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


CONTRIBUTION_WEIGHT = Term(
    "contribution_weight",
    "Weight of the alpha added",
    "w: the request's weight, or the w in [0, 1] that maximises the information ratio after",
    "fraction",
)


ANNUALISED_RETURN = Term(
    "annualised_return",
    "Annualised return",
    "Mean daily return of the book, annualised: arithmetic; empyrical's annual_return and quantstats' cagr compound (the risk route's cagr)",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


VOLATILITY = Term(
    "volatility",
    "Volatility",
    "Volatility of the book's daily returns, annualised",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


APPROXIMATE_TURNOVER = Term(
    "approximate_turnover",
    "Approximate turnover",
    "Approximate turnover of the book, in the alphas' common turnover_unit; not_measurable when an alpha has none or their units differ",
    "turnover_unit",
    null=WHEN_NOT_MEASURABLE,
)


DIVERSIFICATION_RATIO = Term(
    "diversification_ratio",
    "Diversification ratio",
    "Weighted volatility of the alphas over the book's: 1 when they move together, above 1 the more their risks offset",
    "ratio",
    null=WHEN_NOT_MEASURABLE,
)


CORRELATION_TO_SET = Term(
    "correlation_to_set",
    "Correlation to the set",
    "Pearson correlation of the alpha's daily returns with the before book's",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


MAX_CORRELATION_TO_MEMBER = Term(
    "max_correlation_to_member",
    "Largest correlation to a reference alpha",
    "The Pearson correlation of the alpha with the reference alpha it correlates with most in absolute value (the signed value), each over the sessions both have a return",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


MEAN_CORRELATION_TO_MEMBER = Term(
    "mean_correlation_to_member",
    "Mean correlation to the reference alphas",
    "Mean Pearson correlation of the alpha with each reference alpha, each over the sessions both have a return",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


MEMBERS = Term(
    "members",
    "Reference alphas correlated",
    "Reference alphas with a correlation (none below 3 sessions in common with the alpha, or with a side without variance)",
    "alphas",
)


COMPARED = Term(
    "compared",
    "Production alphas compared",
    "production_correlation only: how many alphas of the reference set (see reference) value is the maximum over, those with a correlation with the alpha (at least 3 common sessions, variance on both sides); the others are not compared",
    "alphas",
    window="whole history (from/to do not narrow it)",
)


OF = Term(
    "of",
    "Production alphas in the reference set",
    "production_correlation only: how many alphas the reference set (see reference) holds, the alpha excluded (compared is below it when some have too little overlap with the alpha); null as compared",
    "alphas",
    window="whole history (from/to do not narrow it)",
)


PASSED = Term(
    "passed",
    "Checks passed",
    "Checks that pass",
    "checks",
)


FAILED = Term(
    "failed",
    "Checks failed",
    "Checks that fail",
    "checks",
)


NOT_MEASURABLE = Term(
    "not_measurable",
    "Checks not measurable",
    "Checks without a value (the live checks of an alpha not measured live included)",
    "checks",
)


CUMULATIVE_RETURN_ALPHA = Term(
    "cumulative_return_alpha",
    "Cumulative return of the alpha",
    "The path alpha's compounded return to this session",
    "ratio",
    basis="per session",
    window="from the window's first common session to this one",
)


CUMULATIVE_RETURN_WITH = Term(
    "cumulative_return_with",
    "Cumulative return of the compared alpha",
    "The compared alpha's compounded return to this session",
    "ratio",
    basis="per session",
    window="from the window's first common session to this one",
)


DIFFERENCE = Term(
    "difference",
    "Difference of the cumulative returns",
    "cumulative_return_alpha - cumulative_return_with",
    "ratio",
    basis="per session",
)


CORRELATION = Term(
    "correlation",
    "Rolling correlation",
    "Pearson correlation; null until the window is full (its first rolling_window.sessions - 1 entries) or when a side is constant over it",
    "ratio",
    basis="per session",
    window="trailing rolling_window.sessions sessions (or weeks) up to this one",
)


RETURN_CORRELATION = Term(
    "return_correlation",
    "Return correlation",
    "Pearson correlation of the two books' daily returns over the window's common sessions (at least 3, neither side constant)",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


IC_CORRELATION = Term(
    "ic_correlation",
    "IC correlation",
    "Pearson correlation of the two weekly conditioned IC series over the window's common weeks (at least 3, neither side constant)",
    "ratio",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


LEVEL = Term(
    "level",
    "Significance level",
    "The significance level the test is read at (0.05)",
    "probability",
)


OBSERVED_SESSIONS = Term(
    "observed_sessions",
    "Sessions with a book and a SPY return",
    "Sessions of the window with both a book and a SPY return, the sessions the figures are over; null when withheld",
    "sessions",
)


ALPHA = Term(
    "alpha",
    "Alpha against SPY",
    "The OLS intercept of the same regression, annualised arithmetically (times 252, not compounded): the return per year beyond beta times SPY's, not in excess of the risk-free rate; arithmetic, as quantstats' greeks(r, b) alpha; empyrical's alpha(r, b) compounds the daily intercept, (1 + a)^252 - 1",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


TRACKING_ERROR = Term(
    "tracking_error",
    "Tracking error",
    "Annualised standard deviation of the book's daily return in excess of SPY's; needs 2 common sessions",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


SORTINO = Term(
    "sortino",
    "Sortino ratio",
    "Sortino ratio with required return 0 (empyrical's convention); not measurable without a losing session",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


CAGR = Term(
    "cagr",
    "CAGR",
    "Compound annual growth rate of the book over the window's sessions",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


CALMAR = Term(
    "calmar",
    "Calmar ratio",
    "Calmar ratio over the window; not measurable without a drawdown",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


TAIL_RATIO = Term(
    "tail_ratio",
    "Tail ratio",
    "Right tail over left tail of daily returns (empyrical's convention); needs 20 sessions, not measurable when the 5th percentile is 0",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


VAR_95 = Term(
    "var_95",
    "VaR 95 %",
    "Historical value at risk at 95% over one session, as a return (negative = a loss); needs 20 sessions; historical, as empyrical's value_at_risk(r, 0.05); quantstats' value_at_risk (var) is parametric, the 5% quantile of a normal law of mean(r) and std(r)",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


HORIZON_SESSIONS = Term(
    "horizon_sessions",
    "Horizon (sessions)",
    "Horizon of the loss: one session",
    "sessions",
)


CVAR_95 = Term(
    "cvar_95",
    "CVaR 95 %",
    "Historical conditional value at risk (expected shortfall) at 95% over one session, as a return; needs 20 sessions; as empyrical's conditional_value_at_risk(r, 0.05), but for a return equal to the 5th percentile; quantstats' cvar averages the returns below its parametric value at risk",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


BEST_DAY = Term(
    "best_day",
    "Best day",
    "The highest compounded return of a session over the window's sessions (the first and last periods may be cut by the window); the earliest on a tie",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


WORST_DAY = Term(
    "worst_day",
    "Worst day",
    "The lowest compounded return of a session over the window's sessions (the first and last periods may be cut by the window); the earliest on a tie",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


BEST_WEEK = Term(
    "best_week",
    "Best week",
    "The highest compounded return of a week ending Friday (pandas W-FRI; a weekend session belongs to the next Friday) over the window's sessions (the first and last periods may be cut by the window); the earliest on a tie; not quantstats' best/worst by week: aggregate='W' groups by calendar year and ISO week number (Monday to Sunday, a week spanning New Year split between years), aggregate='week' pools each week number across years",
    "fraction",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


WORST_WEEK = Term(
    "worst_week",
    "Worst week",
    "The lowest compounded return of a week ending Friday (pandas W-FRI; a weekend session belongs to the next Friday) over the window's sessions (the first and last periods may be cut by the window); the earliest on a tie; not quantstats' best/worst by week: aggregate='W' groups by calendar year and ISO week number (Monday to Sunday, a week spanning New Year split between years), aggregate='week' pools each week number across years",
    "fraction",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


BEST_MONTH = Term(
    "best_month",
    "Best month",
    "The highest compounded return of a calendar month over the window's sessions (the first and last periods may be cut by the window); the earliest on a tie; as quantstats' best/worst(aggregate='ME') (its report's Best and Worst Month); its aggregate='month' pools each calendar month across years, and 'M' aggregates nothing (days)",
    "fraction",
    basis="per month",
    null=WHEN_NOT_MEASURABLE,
)


WORST_MONTH = Term(
    "worst_month",
    "Worst month",
    "The lowest compounded return of a calendar month over the window's sessions (the first and last periods may be cut by the window); the earliest on a tie; as quantstats' best/worst(aggregate='ME') (its report's Best and Worst Month); its aggregate='month' pools each calendar month across years, and 'M' aggregates nothing (days)",
    "fraction",
    basis="per month",
    null=WHEN_NOT_MEASURABLE,
)


REBUILT_HIT_RATE = Term(
    "rebuilt_hit_rate",
    "Rebuilt hit rate (share of weeks with IC above 0)",
    "Share of the book's weeks whose rebuilt IC is > 0 (not the run's sealed /metrics rank_ic.conditioned.hit_rate)",
    "ratio",
    basis="per week",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


REGIME_SESSIONS = Term(
    "regime_sessions",
    "Sessions in the regime",
    "/analytics/regimes: the book's sessions of the window whose date SPY labels with the regime (unlabelled: those it has not labelled in the dimension, or does not have); a dimension's rows add up to the window's sessions (row all); null when the ledger or SPY's series is withheld",
    "sessions",
    basis="per session",
)


REGIME_WEEKS = Term(
    "regime_weeks",
    "Weeks in the regime",
    "/analytics/regimes: the window's weeks with a measurable rebuilt IC whose rebalance date SPY labels with the regime; a dimension's rows add up to the window's (row all); null when the cross-sections or SPY's series are withheld",
    "weeks",
    basis="per week",
)


VOLATILITY_LOW_CUT = Term(
    "volatility_low_cut",
    "Volatility regime: low/mid cut",
    "The first tercile of SPY's 63-session realised volatility (std of daily returns, ddof=1, times sqrt(252)) over its build's whole stored history: a session at or below it is volatility:low; the cut looks ahead (a descriptive label, never a signal)",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


VOLATILITY_HIGH_CUT = Term(
    "volatility_high_cut",
    "Volatility regime: mid/high cut",
    "The second tercile of SPY's 63-session realised volatility over its build's whole stored history: a session above it is volatility:high; the cut looks ahead (a descriptive label, never a signal)",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


TURNOVER = Term(
    "turnover",
    "Traded turnover per year (the window's)",
    "Mean one-way turnover of the book's ledger sessions (what was traded) over the window, annualised (x 252), as /analytics/checks turnover; not /analytics/costs' target-weight turnover (annual_target_turnover), nor one session's (session_turnover, the spec's /portfolio and /equity-curve rows' turnover)",
    "per_year",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


SESSION_TURNOVER = Term(
    "session_turnover",
    "Traded turnover of the session",
    "One-way turnover the ledger traded in one session: half the sum of the absolute changes of the weights (the spec's /portfolio ledger row and /equity-curve row column turnover, which the spec names); the checks' and /analytics/live's turnover is its mean over the window's sessions times 252",
    "fraction",
    basis="per session",
)


INFORMATION_RATIO_LOWER_BOUND = Term(
    "information_ratio_lower_bound",
    "Information ratio, lower bound of its 95% bootstrap interval",
    "The lower bound of the 95% stationary block-bootstrap interval of the book's information ratio over the window (/analytics/uncertainty information_ratio.lower): daily times sqrt(252), not in excess of the risk-free rate",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


DECAY_RATIO = Term(
    "decay_ratio",
    "Decay ratio",
    "Out-of-sample information ratio over the in-sample one: 1 holds up, 0 nothing left, below 0 reversed; not measurable while the out-of-sample part holds fewer than 63 sessions or the in-sample information ratio is not positive",
    "ratio",
    annualisation="not_annualisable",
    window="the history split at the approval (from does not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


DECAY_RATE = Term(
    "decay_rate",
    "IC decay rate",
    "/analytics/decay: the fitted rate lambda at which the marginal IC (the IC of the k-th week's return alone) falls with the forecast horizon, ic_1 * exp(-lambda (k - 1)), fitted to sqrt(h) times the IC term structure's mean IC at 1, 2, 4 and 8 weeks; below 0 the marginal IC grows with the horizon",
    "per_week",
    basis="per week",
    annualisation="not_annualisable",
    window="the whole history's rebalance weeks (decay takes no from/to)",
    null=WHEN_NOT_MEASURABLE,
)


HALF_LIFE_WEEKS = Term(
    "half_life_weeks",
    "IC half-life",
    "/analytics/decay: the weeks of forecast horizon over which the fitted marginal IC halves, ln(2) / decay_rate; not measurable when the IC does not decay (decay_rate not positive)",
    "weeks",
    annualisation="not_annualisable",
    window="the whole history's rebalance weeks (decay takes no from/to)",
    null=WHEN_NOT_MEASURABLE,
)


IC_1 = Term(
    "ic_1",
    "Fitted first-week IC",
    "/analytics/decay: the fitted marginal IC of the first week's return (the decay fit's scale)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    window="the whole history's rebalance weeks (decay takes no from/to)",
    null=WHEN_NOT_MEASURABLE,
)


FITTED_IC = Term(
    "fitted_ic",
    "Fitted IC at the horizon",
    "/analytics/decay: the decay fit's h-week IC, the fitted marginal ICs of weeks 1..h summed over sqrt(h) (to set beside mean_ic); null when the fit is not measurable",
    "ratio",
    basis="per week",
)


MARGINAL_IC = Term(
    "marginal_ic",
    "Fitted IC of the h-th week",
    "/analytics/decay: the fitted IC of the h-th week's return alone, ic_1 * exp(-decay_rate (h - 1)); null when the fit is not measurable",
    "ratio",
    basis="per week",
)


BACKTEST_INFORMATION_RATIO = Term(
    "backtest_information_ratio",
    "Backtest information ratio (in sample: on or before the split)",
    "Information ratio of the book's daily returns on or before the alpha's split (in sample; not the headline information_ratio, which is over the whole history or the window) (its latest approval, else the seal's research_cutoff, else the first publish; /analytics/decay: or the request's split), as /analytics/live in_sample.information_ratio, daily times sqrt(252), not in excess of the risk-free rate; the screener's is the long_short book's",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window="the book's sessions on or before the split (from/to do not narrow it)",
    null=WHEN_NOT_MEASURABLE,
)


EXPECTED_LIVE_INFORMATION_RATIO = Term(
    "expected_live_information_ratio",
    "Expected live information ratio",
    "The one ex-ante expected information ratio of the alpha's long_short book live (issue 81, item 4; analytics.expectation.expected_levels): /analytics/expectation's information_ratio series expected_live, the backtest information ratio shrunk toward its trial family's (else the catalogue's) mean by empirical Bayes, times the retention /analytics/decay calibrates (a posterior not above 0 kept as it is); the level the CUSUM (/analytics/monitoring), the drawdown odds and the approved book's health expect",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window=EXPECTED_WHOLE,
    null=WHEN_NOT_MEASURABLE,
)


HAIRCUT_INFORMATION_RATIO = Term(
    "haircut_information_ratio",
    "Backtest information ratio after the haircut (not shrunk)",
    "/analytics/decay: backtest_information_ratio times the retention (1 - the haircut) calibrated on the catalogue's approved alphas the key may read, or the literature's (McLean and Pontiff 2016: 26% lower out of sample) below 5 of them, the backtest not shrunk toward its group: what the haircut alone leaves, not the expected live information ratio (/analytics/expectation's); not measurable when the backtest information ratio is not positive",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window="the backtest, then the calibration's retention (decay takes no from/to)",
    null=WHEN_NOT_MEASURABLE,
)


RETENTION = Term(
    "retention",
    "Share of the backtest information ratio kept live",
    "/analytics/decay: the least-squares slope through the origin of the calibration alphas' live information ratios (after their approval) on their backtest ones (before it), sum(b l) / sum(b^2); 0.74 under the literature prior",
    "ratio",
    annualisation="not_annualisable",
    window="the calibration alphas' whole histories, each split at its approval",
    null=WHEN_NOT_MEASURABLE,
)


HAIRCUT = Term(
    "haircut",
    "Live haircut",
    "/analytics/decay: the share of the backtest information ratio lost live, 1 - retention (0.26 under the literature prior, McLean and Pontiff 2016)",
    "ratio",
    annualisation="not_annualisable",
    window="the calibration alphas' whole histories, each split at its approval",
    null=WHEN_NOT_MEASURABLE,
)


HAIRCUT_STANDARD_ERROR = Term(
    "haircut_standard_error",
    "Standard error of the haircut",
    "/analytics/decay: the standard error of the least-squares slope (so of the haircut) across the calibration alphas, sqrt(sum((l - retention b)^2) / (n - 1) / sum(b^2)); not measurable under the literature prior",
    "ratio",
    annualisation="not_annualisable",
    window="the calibration alphas' whole histories, each split at its approval",
    null=WHEN_NOT_MEASURABLE,
)


CALIBRATION_RMSE = Term(
    "calibration_rmse",
    "Calibration error (RMSE of the expected live information ratio)",
    "/analytics/decay: root mean squared error of each calibration alpha's live information ratio against its prediction out of sample (the slope fitted without it, leave-one-out; the prior under literature); not measurable without a calibration alpha",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window="the calibration alphas' whole histories, each split at its approval",
    null=WHEN_NOT_MEASURABLE,
)


CALIBRATION_ALPHAS = Term(
    "calibration_alphas",
    "Alphas the haircut is calibrated on",
    "/analytics/decay: the approved alphas (in force or retired since) the key may read, the one asked about excepted, with 63 sessions after their approval and a positive backtest information ratio; counted, not used, under the literature prior",
    "alphas",
)


MIN_ALPHAS = Term(
    "min_alphas",
    "Alphas needed for the catalogue's calibration (K)",
    "/analytics/decay: the calibration alphas the catalogue needs before its own haircut replaces the literature's",
    "alphas",
)


MIN_LIVE_SESSIONS = Term(
    "min_live_sessions",
    "Sessions live needed to calibrate (M)",
    "/analytics/decay: the sessions first published after its approval an alpha needs to count in the calibration",
    "sessions",
)


PROBABILITY = Term(
    "probability",
    "Probability the live Sharpe ratio is as good as the backtest's",
    "PSR(SR* = the in-sample Sharpe ratio) of the out-of-sample daily returns; not measurable while the out-of-sample part holds fewer than 63 sessions",
    "probability",
    basis="per session",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


PNL = Term(
    "pnl",
    "P&L",
    "The book's P&L over the window, from the ledger: names_pnl + cash_carry + rounding_adjustment",
    "equity",
    null=WHEN_NOT_MEASURABLE,
)


NAMES_PNL = Term(
    "names_pnl",
    "P&L of the names",
    "The names' P&L over the window: the denominator of every share",
    "equity",
    null=WHEN_NOT_MEASURABLE,
)


CASH_CARRY = Term(
    "cash_carry",
    "Cash carry",
    "Interest the book's cash earned over the window: the ledger's, no name's",
    "equity",
    null=WHEN_NOT_MEASURABLE,
)


ROUNDING_ADJUSTMENT = Term(
    "rounding_adjustment",
    "Rounding adjustment",
    "The ledger's rounding adjustments over the window: no name's",
    "equity",
    null=WHEN_NOT_MEASURABLE,
)


SUM_OF_DAILY_RETURNS = Term(
    "sum_of_daily_returns",
    "Sum of daily returns",
    "Sum of the book's daily returns over the window (not compounded): what the return contributions add up to",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


NAMES_RETURN_CONTRIBUTION = Term(
    "names_return_contribution",
    "Return contribution of the names",
    "Return contribution of every name: its net P&L each session over the book's starting equity that session, summed over the window's sessions (additive: the contributions of every name, the cash carry and the rounding add up to the sum of the book's daily returns, not to the compounded return)",
    "fraction",
    basis="per session",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


CASH_CARRY_RETURN_CONTRIBUTION = Term(
    "cash_carry_return_contribution",
    "Return contribution of the cash carry",
    "Return contribution of the cash carry",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


ROUNDING_RETURN_CONTRIBUTION = Term(
    "rounding_return_contribution",
    "Return contribution of the rounding",
    "Return contribution of the rounding adjustments",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


NAMES = Term(
    "names",
    "Names",
    "Names with a P&L row in the window; null when not measurable",
    "names",
)


RETURN_CONTRIBUTION = Term(
    "return_contribution",
    "Return contribution",
    "Return contribution of the name: its net P&L each session over the book's starting equity that session, summed over the window's sessions (additive: the contributions of every name, the cash carry and the rounding add up to the sum of the book's daily returns, not to the compounded return)",
    "fraction",
    basis="per session",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


SHARE = Term(
    "share",
    "Share of the names' P&L",
    "Share of the names' window P&L made by the name: the name's window P&L over the names' window P&L (the sum of net_pnl over every name and session of the window: the ledger's cash carry and rounding adjustment belong to no name and are left out of it, see totals); the shares of all names add up to 1; not measurable when the names' P&L is not positive (a share of a loss or of nothing is no share: in a losing window a name that made money would have a negative 'share' and a losing name one above 1)",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


WITHOUT_BEST_DAYS = Term(
    "without_best_days",
    "Information ratio without the best days",
    "Information ratio of the window's daily returns without its N best sessions (largest r, ties by date, earliest first; best_days): those sessions dropped, as /analytics/checks information_ratio: mean / std(ddof=1) of the daily returns, times sqrt(252), not in excess of the risk-free rate",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


BEST_DAYS_KEPT = Term(
    "best_days_kept",
    "Share of the information ratio kept without the best days",
    "The share of the information ratio kept without the N best days (the fragility check's figure with N = 5): not measurable when the information ratio is not positive",
    "ratio",
    null=WHEN_NOT_MEASURABLE,
)


WITHOUT_BEST_NAMES = Term(
    "without_best_names",
    "Information ratio without the best names",
    "Information ratio of the window's daily returns without the N best names (best_names): each session's return less those names' return contributions that session, as /analytics/checks information_ratio: mean / std(ddof=1) of the daily returns, times sqrt(252), not in excess of the risk-free rate",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


DAY_RETURN = Term(
    "day_return",
    "Return that day",
    "The book's return that session",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


TOP_CONTRIBUTION = Term(
    "top_contribution",
    "Its top name's return contribution",
    "That name's return contribution that session: its net P&L over the session's starting equity (of day_return, the rest is the other names', the cash carry and the rounding)",
    "fraction",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


TOP_1PCT_DAYS = Term(
    "top_1pct_days",
    "Best 1% of days (sessions)",
    "k for the best 1% of days: ceil(sessions / 100), at least 1; null when not measurable",
    "sessions",
)


TOP_1PCT_DAYS_SHARE = Term(
    "top_1pct_days_share",
    "Share of the P&L made on the best 1% of days",
    "Share of the window's P&L made by its best 1% of days: the P&L of the k sessions of largest P&L over the window's P&L (totals.pnl), k = ceil(1 x sessions / 100), at least 1 (15 of 1,406 sessions for 1%); above 1 when the other days lost in sum; not measurable when the window's P&L is not positive (a share of a loss is no share)",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


TOP_5PCT_DAYS = Term(
    "top_5pct_days",
    "Best 5% of days (sessions)",
    "k for the best 5% of days: ceil(5 x sessions / 100), at least 1; null when not measurable",
    "sessions",
)


TOP_5PCT_DAYS_SHARE = Term(
    "top_5pct_days_share",
    "Share of the P&L made on the best 5% of days",
    "Share of the window's P&L made by its best 5% of days: the P&L of the k sessions of largest P&L over the window's P&L (totals.pnl), k = ceil(5 x sessions / 100), at least 1 (15 of 1,406 sessions for 1%); above 1 when the other days lost in sum; not measurable when the window's P&L is not positive (a share of a loss is no share)",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


NAMES_HELD = Term(
    "names_held",
    "Names held",
    "Distinct names the book held a position in at a session's close in the window",
    "names",
    null=WHEN_NOT_MEASURABLE,
)


SESSIONS_HELD = Term(
    "sessions_held",
    "Sessions with a position",
    "Sessions of the window with at least one position at the close: what the two means are over; null when not measurable",
    "sessions",
)


MEAN_NAMES_PER_SESSION = Term(
    "mean_names_per_session",
    "Names held at a close, on average",
    "Mean number of names held at the close, over the sessions with a position",
    "names",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


EFFECTIVE_NAMES = Term(
    "effective_names",
    "Effective number of names",
    "Effective number of names: per session, one over the sum of the squared gross-normalised weights (N for N equal positions, 1 for one), averaged over the sessions with a position",
    "names",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


CAPITAL = Term(
    "capital",
    "Capital",
    "The reference capital K0: the book's size in its currency at inception, which the seal does not state (its ledger is normalised to 1.0): the request's `capital`, default 1e8. The seal's modelled execution costs are taken as the costs at K0, so every capital figure of the answer scales with it",
    "base_currency",
)


FILLS = Term(
    "fills",
    "Fills",
    "Fills of the book in the window; null for a key that may not read the trades",
    "fills",
)


FILLS_WITH_ADV = Term(
    "fills_with_adv",
    "Fills with ADV",
    "Fills of the window whose name has an adv at its decision (an exposures row with adv): those the participation figures are over; null for a key that may not read the trades",
    "fills",
)


MEDIAN = Term(
    "median",
    "Participation of the median fill (of adv)",
    "Median participation of the window's fills at the reference capital (a fraction of adv: 0.01 is 1%)",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


P95 = Term(
    "p95",
    "Participation of the 95th-percentile fill at the reference capital (of adv)",
    "95th percentile of the window's fills' participation at the reference capital",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


MAX = Term(
    "max",
    "Largest participation of a fill (of adv)",
    "Largest participation of a fill of the window at the reference capital",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


ABOVE_1PCT = Term(
    "above_1pct",
    "Share of fills above 1% of adv",
    "Share of the window's fills with an adv whose participation at the reference capital is above 1% of adv",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


ABOVE_5PCT = Term(
    "above_5pct",
    "Share of fills above 5% of adv",
    "Share of the window's fills with an adv whose participation at the reference capital is above 5% of adv",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


ABOVE_10PCT = Term(
    "above_10pct",
    "Share of fills above 10% of adv",
    "Share of the window's fills with an adv whose participation at the reference capital is above 10% of adv",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


PARTICIPATION = Term(
    "participation",
    "Participation (of adv)",
    "Its participation at the reference capital: |quantity x fill_price| / equity_basis x K / adv, adv the exposures' average daily traded value of the fill's name at its decision (trades.decision_at)",
    "fraction",
    basis="per session",
)


NOTIONAL = Term(
    "notional",
    "Traded value at the reference capital",
    "Its traded value at the reference capital",
    "base_currency",
)


ADV = Term(
    "adv",
    "ADV",
    "The name's average daily traded value at the decision",
    "base_currency",
    basis="per session",
)


NET_INFORMATION_RATIO = Term(
    "net_information_ratio",
    "Information ratio after costs at the capital",
    "Net information ratio at the reference capital: the ledger's own, as /analytics/costs information_ratio.net over the same window",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


CAPACITY = Term(
    "capacity",
    "Capacity: capital at which costs halve the net information ratio",
    "The capital at which the modelled costs halve the net information ratio at the reference capital: the smallest K above K0 with net_information_ratio(K) = net_information_ratio(K0) / 2, solved in closed form (a quadratic in sqrt(K/K0) - 1); not measurable when the net information ratio at K0 is not positive, or when it never falls to half",
    "base_currency",
    null=WHEN_NOT_MEASURABLE,
)


PARTICIPATION_CAPACITY = Term(
    "participation_capacity",
    "Capital at which the 95th-percentile fill takes 10% of adv",
    "The capital at which the 95th-percentile fill of the window takes 10% of its name's adv (participation grows in proportion to capital); does not depend on K0",
    "base_currency",
    null=WHEN_NOT_MEASURABLE,
)


COST_DRAG = Term(
    "cost_drag",
    "Cost drag",
    "Modelled execution cost at capital K per year, as a fraction of the book's equity (0.01 = 1% a year), arithmetic",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


PARTICIPATION_P95 = Term(
    "participation_p95",
    "Participation of the 95th-percentile fill at the capital (of adv)",
    "95th percentile of the window's fills' participation at capital K (K / K0 times the reference's)",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


SUM_OF_WEEKLY_RETURNS = Term(
    "sum_of_weekly_returns",
    "Sum of the book's weekly returns (attributed weeks)",
    "The book's weekly returns over the window's attributed weeks, summed (arithmetic, as the parts are; not compounded, and not the daily returns summed, /analytics/attribution totals.sum_of_daily_returns): each week the book's return compounded over the ledger sessions after the decision up to and including the next decision session: it differs from the forward return's period (open after the decision to the open after the next decision) by the decision day's overnight move, which lands in the specific part",
    "fraction",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


SUM_OF_WEEKLY_COMMON_RETURNS = Term(
    "sum_of_weekly_common_returns",
    "Sum of the weekly common returns (the factors' parts)",
    "The factors' part of it (the sum of every factor's part)",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


SUM_OF_WEEKLY_SPECIFIC_RETURNS = Term(
    "sum_of_weekly_specific_returns",
    "Sum of the weekly specific returns",
    "What the factors leave of it: the return of what the loadings do not describe",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


SPECIFIC_INFORMATION_RATIO = Term(
    "specific_information_ratio",
    "Specific information ratio",
    "Information ratio of the weekly specific returns, annualised (pyfolio's perf_attrib summary shows empyrical's sharpe_ratio of them, which annualises with sqrt(252) whatever their frequency)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


VARIANCE_EXPLAINED = Term(
    "variance_explained",
    "Share of the variance the factors explain",
    "Share of the variance of the book's weekly returns the factors explain (below 0 when the specific returns vary more than the book's)",
    "fraction",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


MEAN_EXPOSURE = Term(
    "mean_exposure",
    "Mean exposure",
    "Mean of the book's weekly exposure to the factor over the window's attributed weeks that estimate it: for a sector the net weight of its names (a fraction of equity), for a style the weight-weighted loading",
    "ratio",
    basis="per week",
    null=WHEN_NOT_MEASURABLE,
)


FACTOR_RETURN = Term(
    "factor_return",
    "Factor return",
    "The factor's return over the window: the sum of its weekly estimates (arithmetic; pyfolio's perf_attrib summary compounds, cum_returns_final)",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


PART = Term(
    "part",
    "Part of the book's return",
    "The factor's part of the book's return over the window: the sum of its weekly parts",
    "fraction",
    null=WHEN_NOT_MEASURABLE,
)


R_SQUARED = Term(
    "r_squared",
    "R²",
    "Centred R^2 of the week's regression (the sector dummies span the constant)",
    "ratio",
    basis="per week",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


COMMON_RETURN = Term(
    "common_return",
    "Common return: the factors' part",
    "The factors' parts that week",
    "fraction",
    basis="per week",
)


SPECIFIC_RETURN = Term(
    "specific_return",
    "Specific return: what the factors leave",
    "What the factors leave of it",
    "fraction",
)


EXPOSURE = Term("exposure", "Exposure", "The book's exposure that week", "ratio", basis="per week")


SECTOR_MEAN_NAMES = Term(
    "sector_mean_names",
    "Names of the sector, on average",
    "Mean over the weeks of a sector's measurable IC of its names with a score and a forward return (/analytics/quantiles ic_by_sector); not mean_names, a quantile's names",
    "names",
    basis="per week",
)


ATTRIBUTED_MEAN_IC = Term(
    "attributed_mean_ic",
    "Mean IC (attributed weeks)",
    "Mean weekly rank IC (the conditioned score's; the raw score's for a raw_ book, as the answer's signal says) over the window's attributed weeks with a measurable IC: a rebalance week whose decision date is on or after from and whose holding period ends by to (/analytics/factors' week rule), the weeks beside which mean_neutral_ic is measured; not rebuilt_mean_ic, whose weeks are those dated in the window",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


SECTOR_MEAN_IC = Term(
    "sector_mean_ic",
    "Mean IC within the sector",
    "Mean over the window's weeks of the rank IC of the score within one sector (its names ranked among themselves: alphalens mean_information_coefficient by_group=True, group_adjust=False): /analytics/quantiles ic_by_sector; not rebuilt_mean_ic, ranked across the whole cross-section",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


UNIVERSE_MEAN_NAMES = Term(
    "universe_mean_names",
    "Names of the full cross-section, on average",
    "Mean over the window's weeks with a measurable IC of the names with a score and a forward return (weekly_signal n_ic_obs): the n of the sub-universe test (/analytics/sub_universe)",
    "names",
    basis="per week",
)


UNIVERSE_MEAN_IC = Term(
    "universe_mean_ic",
    "Mean IC (full cross-section)",
    "Mean weekly rank IC of the conditioned score over the window's weeks, on every name (/analytics/sub_universe): the weekly IC /metrics rebuilds (weekly_signal.ic), beside which the halves' are read",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


UNIVERSE_ICIR = Term(
    "universe_icir",
    "ICIR (full cross-section)",
    "ICIR of the full cross-section's weekly IC over the window: mean / std(ddof=1) times sqrt(weeks_per_year) (/analytics/sub_universe), the full Sharpe of the sub-universe test",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


WITHOUT_ADV_MEAN_NAMES = Term(
    "without_adv_mean_names",
    "Names without an adv, on average",
    "Mean per week of the names with a score and a forward return but no finite, positive sealed adv: in neither half by adv (/analytics/sub_universe)",
    "names",
    basis="per week",
)


HALF_MEAN_NAMES = Term(
    "half_mean_names",
    "Names of the half, on average",
    "Mean over the weeks of a half by adv with a measurable IC of its names (/analytics/sub_universe): the n_sub of the sub-universe test",
    "names",
    basis="per week",
)


HALF_MEAN_IC = Term(
    "half_mean_ic",
    "Mean IC of the half",
    "Mean weekly rank IC of the conditioned score among the names of one half by adv (liquid: adv at or above the week's median; illiquid: below), its names ranked among themselves (/analytics/sub_universe)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


HALF_ICIR = Term(
    "half_icir",
    "ICIR of the half",
    "ICIR of one half's weekly IC: mean / std(ddof=1) times sqrt(weeks_per_year) (/analytics/sub_universe)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


REQUIRED_ICIR = Term(
    "required_icir",
    "ICIR needed to pass",
    "0.75 x sqrt(half_mean_names / universe_mean_names) x universe_icir: the ICIR a half must reach to pass the sub-universe test (/analytics/sub_universe)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


SUB_UNIVERSE = Term(
    "sub_universe",
    "Sub-universe ratio",
    "A half's ICIR over the full ICIR scaled by sqrt(n_sub / n): half_icir / (sqrt(half_mean_names / universe_mean_names) x universe_icir); WorldQuant's sub-universe test passes at 0.75 or more (/analytics/sub_universe; the checks battery's sub_universe is the liquid half's)",
    "ratio",
    annualisation="not_annualisable",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_MEAN_IC = Term(
    "random_mean_ic",
    "Mean IC of random halves",
    "Mean over the random draws of each draw's mean weekly IC (each week a seeded random half of the names, /analytics/sub_universe): it centres on universe_mean_ic",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_MEAN_IC_P05 = Term(
    "random_mean_ic_p05",
    "Mean IC of random halves, 5th percentile",
    "5th percentile over the random draws of each draw's mean weekly IC (/analytics/sub_universe)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_MEAN_IC_P95 = Term(
    "random_mean_ic_p95",
    "Mean IC of random halves, 95th percentile",
    "95th percentile over the random draws of each draw's mean weekly IC (/analytics/sub_universe)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_ICIR = Term(
    "random_icir",
    "ICIR of random halves",
    "Mean over the random draws of each draw's ICIR (annualised as icir, /analytics/sub_universe)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_ICIR_P05 = Term(
    "random_icir_p05",
    "ICIR of random halves, 5th percentile",
    "5th percentile over the random draws of each draw's ICIR (/analytics/sub_universe)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_ICIR_P95 = Term(
    "random_icir_p95",
    "ICIR of random halves, 95th percentile",
    "95th percentile over the random draws of each draw's ICIR (/analytics/sub_universe)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null="null when it cannot be measured (too few weeks, no variance, a full ICIR not positive)",
)


RANDOM_PASS_SHARE = Term(
    "random_pass_share",
    "Random halves passing",
    "Share of the random draws whose ICIR passes the sub-universe test (/analytics/sub_universe)",
    "fraction",
)


DRAWS = Term(
    "draws",
    "Random draws",
    "Random halves drawn per week (/analytics/sub_universe)",
    "count",
)


PASS_RATIO = Term(
    "pass_ratio",
    "Sub-universe test ratio",
    "The ratio of WorldQuant's sub-universe test, 0.75 (/analytics/sub_universe)",
    "ratio",
)


MEAN_NEUTRAL_IC = Term(
    "mean_neutral_ic",
    "Mean feature-neutral IC",
    "Mean weekly feature-neutral IC over the window's weeks with a measurable one: what the score predicts beyond the sectors and styles (Numerai's feature-neutral correlation, but fully neutralised and ranked with Spearman)",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


NEUTRAL_IC = Term(
    "neutral_ic",
    "Feature-neutral IC",
    "The week's feature-neutral IC: Spearman of the score residualised on the week's loadings with the forward return",
    "ratio",
    basis="per week",
)


SKIPPED_WEEKS = Term(
    "skipped_weeks",
    "Skipped weeks",
    "Of them, the weeks not bucketed: fewer names than quantiles, or tied scores across an edge; null when withheld",
    "weeks",
)


MEAN_NAMES = Term(
    "mean_names",
    "Names in the quantile, on average",
    "Mean over those weeks of the names in the quantile; null when it held none or withheld",
    "names",
    basis="per week",
)


STANDARD_ERROR = Term(
    "standard_error",
    "Standard error of the mean forward return",
    "Standard error of mean_forward_return over the weeks (alphalens' std_error_ret); not measurable below 2 weeks",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


CUMULATIVE_RETURN = Term(
    "cumulative_return",
    "Cumulative return",
    "The quantile's weekly means compounded, one value per entry of dates: the value at a date includes that week's forward return (realised by the next rebalance); a week the quantile held no name adds nothing; null when withheld",
    "fraction",
    basis="per week",
    annualisation="not_annualisable",
    window="from the window's first rebalance to this date",
)


MEAN_SPREAD = Term(
    "mean_spread",
    "Mean spread",
    "Mean weekly top-minus-bottom spread of forward returns, per week: the plain difference of the two quantiles' weekly means, as /metrics' decile spread (alphalens compute_mean_returns_spread halves it: a book 50% long, 50% short)",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


T_STATISTIC = Term(
    "t_statistic",
    "t-statistic (Newey-West)",
    "Newey-West t-statistic of a series' mean, mean / standard_error: /analytics/quantiles' of the mean weekly spread (not measurable below 10 weeks or without variance), /metrics nwt's and ic_term_structure's of the series each test names (weekly, or nwt.ir's daily returns); no period of its own",
    "t_statistic",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


REGRESSED = Term(
    "regressed",
    "Reference alphas regressed",
    "How many reference alphas the regression holds (count - dropped.count)",
    "alphas",
)


PARTIAL_BETA = Term(
    "partial_beta",
    "Partial beta to SPY (the reference set held fixed)",
    "SPY's coefficient in the regression (its partial beta, holding the reference alphas' returns fixed: not /analytics/risk's benchmark.beta, the slope on SPY alone); not measurable below 63 sessions or below 10 sessions per coefficient (a set larger than the sessions allow)",
    "ratio",
    basis="per session",
    null=WHEN_NOT_MEASURABLE,
)


DEPTH_PCT = Term(
    "depth_pct",
    "Depth of the drawdown",
    "/analytics/drawdowns: how far an episode's trough stands below its peak, (peak_equity - trough_equity) / peak_equity x 100",
    "percentage_points",
)


SESSIONS_TO_TROUGH = Term(
    "sessions_to_trough",
    "Sessions from peak to trough",
    "/analytics/drawdowns: the sessions an episode took from its peak to its trough",
    "sessions",
)


SESSIONS_TO_RECOVERY = Term(
    "sessions_to_recovery",
    "Sessions from peak to recovery",
    "/analytics/drawdowns: the sessions an episode took from its peak to the first session at or above it; null while not recovered",
    "sessions",
)


IC_WEEKS = Term(
    "ic_weeks",
    "Weeks with a measurable IC",
    "/analytics/live: the weeks of a part (in sample, out of sample) with a measurable rebuilt weekly IC; null for a key that may not read the rebalance cross-sections",
    "weeks",
)


REFERENCE_PARTIAL_BETA = Term(
    "reference_partial_beta",
    "Partial beta to a reference alpha (SPY and the other reference alphas held fixed)",
    "A reference alpha's coefficient b_i in /analytics/residual's regression (betas[].partial_beta: the alpha's exposure to it, holding SPY's and the other reference alphas' returns fixed); served as a number, beside the alpha it is for",
    "ratio",
    basis="per session",
)


BASE_SESSIONS = Term(
    "base_sessions",
    "Sessions the reference alphas' overlap is counted against",
    "Sessions of the window on which the alpha's book and SPY both have a daily return: what each reference alpha's overlap is counted against",
    "sessions",
)


NEWEY_WEST_LAG = Term(
    "newey_west_lag",
    "Newey-West lag (sessions)",
    "Lag L, in sessions, of a Newey-West (Bartlett kernel) standard error over daily observations, from their count n: L = floor(4 * (n/100)^(2/9)) (Newey and West 1994), capped at n - 1. /analytics/residual's of the intercept (the regression's sessions); /metrics nwt.ir's lag of the daily returns' mean (at least its minimum lag); null when not measurable",
    "sessions",
)


NEWEY_WEST_SESSIONS = Term(
    "newey_west_sessions",
    "Sessions tested (Newey-West)",
    "/metrics nwt.ir.n: the daily returns of the long_short book a Newey-West test of their mean is over (finite values, date order)",
    "sessions",
)


NEWEY_WEST_LAG_WEEKS = Term(
    "newey_west_lag_weeks",
    "Newey-West lag (weeks)",
    "/metrics nwt.ic, nwt.ic_score_panel and ic_term_structure[].newey_west lag: the lag L, in weeks, of a Newey-West (Bartlett kernel) standard error of a weekly series' mean, max(floor(4 * (n/100)^(2/9)), minimum lag) capped at n - 1, n its weeks (a lag counts the observations of its series: weeks here, sessions for newey_west_lag)",
    "weeks",
)


NEWEY_WEST_WEEKS = Term(
    "newey_west_weeks",
    "Weeks tested (Newey-West)",
    "/metrics nwt.ic, nwt.ic_score_panel and ic_term_structure[].newey_west n: the weeks of the weekly series a Newey-West test of its mean is over (finite values, date order)",
    "weeks",
)


APPRAISAL_RATIO = Term(
    "appraisal_ratio",
    "Appraisal ratio (beyond SPY and the reference set)",
    "Annualised information ratio of what the reference set and SPY leave of the alpha's daily returns, the intercept plus the residual (the appraisal ratio of Treynor and Black): the return the alpha adds, per unit of the risk it adds, beyond any mix of the set and the market",
    "ratio",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


INTERCEPT = Term(
    "intercept",
    "Intercept (annualised)",
    "The OLS intercept, annualised arithmetically (times 252, not compounded): the return per year the alpha makes beyond its betas to the set and SPY, not in excess of the risk-free rate",
    "fraction",
    basis="per year",
    annualisation="annualised",
    null=WHEN_NOT_MEASURABLE,
)


INTERCEPT_T_STATISTIC = Term(
    "intercept_t_statistic",
    "t-statistic of the intercept (Newey-West)",
    "t-statistic of the intercept with Newey-West (HAC, Bartlett kernel, lag newey_west_lag, no small-sample correction) standard errors: is the return beyond the set and the market distinguishable from 0? As statsmodels OLS(...).fit(cov_type='HAC', cov_kwds={'maxlags': L, 'kernel': 'bartlett', 'use_correction': False}).tvalues[0]",
    "t_statistic",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


INTERCEPT_P_VALUE = Term(
    "intercept_p_value",
    "p-value of the intercept",
    "Two-sided p-value of intercept_t_statistic against the standard normal (statsmodels' default for a HAC covariance, use_t=False)",
    "probability",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


DEFLATED_SHARPE = Term(
    "deflated_sharpe",
    "Deflated Sharpe ratio",
    "The long_short book's Deflated Sharpe Ratio over the window, as /analytics/significance dsr serves it (the catalogue's trial count, the Sharpe variance of the alphas the key may read)",
    "probability",
    annualisation="not_annualisable",
)


MAX_WEIGHT = Term(
    "max_weight",
    "Largest weight",
    "Largest |weight| the book held in the window's sessions: its positions' weight = signed_notional / ending_equity at each session's close (the realised weight, as the ledger's largest_abs_weight; not the decisions' target weights, which the book drifts from between rebalances); symbol and date name the position",
    "fraction",
    annualisation="not_annualisable",
)


RECENT_INFORMATION_RATIO = Term(
    "recent_information_ratio",
    "Information ratio, last 504 sessions",
    "Information_ratio over the window's last 504 sessions (all of them when fewer)",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window="the window's last 504 sessions (all of them when fewer)",
)


YEARLY_CONSISTENCY = Term(
    "yearly_consistency",
    "Share of years with a gain",
    "Share of the window's calendar years whose compounded return prod(1 + r) - 1 is above 0, over the years with at least 20 sessions of the book",
    "fraction",
    annualisation="not_annualisable",
)


STRESSED_NET_INFORMATION_RATIO = Term(
    "stressed_net_information_ratio",
    "Information ratio at twice the modelled cost",
    "Information ratio of the daily returns paying 2 times the modelled execution cost: r - k, k = -execution_cost / starting_equity (r is already net of it once; /analytics/costs' cost rate)",
    "ratio",
    basis="per year",
    annualisation="annualised",
)


PRODUCTION_CORRELATION = Term(
    "production_correlation",
    "Largest correlation to a production alpha",
    "Largest |Pearson| of the alpha's daily long_short returns with each production alpha the key may read (itself excluded), each over their common sessions of the whole histories, as /analytics/correlation basis=returns; a production alpha without a correlation (too little overlap) is left out, and compared/of say how many were compared",
    "correlation",
    annualisation="not_annualisable",
    window="whole history (from/to do not narrow it)",
)


RESIDUAL_INFORMATION_RATIO = Term(
    "residual_information_ratio",
    "Residual information ratio",
    "/analytics/residual appraisal_ratio of the book over the window against the default reference set (the approved alphas the key may read, the alpha excepted; SPY alone when none is): the book's daily returns regressed by OLS on the set's daily long_short returns and SPY's, mean / std(ddof=1) of the intercept plus the residual, times sqrt(252) (the appraisal ratio); not measurable below 63 sessions or 10 sessions per coefficient",
    "ratio",
    basis="per year",
    annualisation="annualised",
)


IC_T_STATISTIC = Term(
    "ic_t_statistic",
    "IC t-statistic",
    "/metrics nwt.ic t_statistic: Newey-West t-statistic of the mean weekly IC (conditioned signal, whole history)",
    "t_statistic",
    annualisation="not_annualisable",
)


FRAGILITY = Term(
    "fragility",
    "Information ratio kept without the best 5 days",
    "The share of the book's information ratio over the window that its information ratio without the window's 5 best sessions keeps: /analytics/attribution fragility.best_days_kept with drop=5, without_best_days / information_ratio (both as information_ratio, the best sessions those of largest daily return, dropped); not measurable while the information ratio is not positive",
    "ratio",
    annualisation="not_annualisable",
)


LIVE_INFORMATION_RATIO = Term(
    "live_information_ratio",
    "Live information ratio",
    "Information ratio of the book's daily returns after the alpha's latest approval (in force or since retired): /analytics/live out_of_sample.information_ratio at the approval's as_of, annualised as information_ratio (x sqrt(252)), over the sessions after it up to the window's `to` (its `from` does not narrow it); measured once 63 sessions follow the approval",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window="the sessions after the latest approval up to `to` (from does not narrow it)",
)


RETURN_HIT_RATE = Term(
    "return_hit_rate",
    "Hit rate of weekly returns",
    "Share of weeks with a positive book return, R_k = E(date_k) / E(date_k-1) - 1 (not hit_rate, the share of weeks with a positive IC)",
    "fraction",
    basis="per week",
    annualisation="not_annualisable",
    window="the row's trailing window",
)


STATISTIC = Term(
    "statistic", "Test statistic", "The statistic of a paired test of a difference (t or z)", "statistic"
)


MMC = Term(
    "mmc",
    "Meta-model contribution (week)",
    "A week's meta-model contribution, Numerai's MMC (numerai-tools' correlation_contribution) with the service's meta-model and target: over the names the alpha scored that the combined score (the equally weighted mean of the rank-gaussianised scores of the approved alphas the key may read, the alpha excluded) holds with a finite forward return, both scores rank-gaussianised over those names, the alpha's orthogonalised to the combined one, and the covariance of that neutral score with the forward return (the mean of (r - mean r) times it); a unit-variance score's covariance with the return, so in the return's units and not bounded by 1",
    "fraction",
    basis="per week",
    annualisation="per_period",
)


MMC_MEAN = Term(
    "mmc_mean",
    "Meta-model contribution",
    "Mean of the weekly mmc (a covariance with the forward return) over the window's weeks with one",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


MMC_T_STAT = Term(
    "mmc_t_stat",
    "t-statistic of the meta-model contribution",
    "mean(mmc) / (std(mmc, ddof=1) / sqrt(n)) over the window's weeks with an mmc (no autocorrelation correction)",
    "t_statistic",
    basis="per week",
    annualisation="not_annualisable",
    null=WHEN_NOT_MEASURABLE,
)


MMC_WEEKS = Term(
    "mmc_weeks", "Weeks with a meta-model contribution", "Weeks of the window with an mmc", "weeks"
)


MMC_NAMES = Term(
    "mmc_names",
    "Names in the week's meta-model contribution",
    "Names scored by the alpha and at least one approved alpha, with a forward return, that week",
    "names",
    basis="per week",
)


APPROVED_SCORING = Term(
    "approved_scoring",
    "Approved alphas scoring",
    "Most approved alphas the key may read scoring one name of the week's meta-model contribution",
    "alphas",
    basis="per week",
)


APPROVED_COUNT = Term(
    "approved_count",
    "Approved alphas",
    "How many approved alphas the key may read a figure is over (the alpha itself excluded)",
    "alphas",
)


CORRELATION_TO_COMBINED = Term(
    "correlation_to_combined",
    "Correlation to the combined score (week)",
    "Pearson correlation of the alpha's rank-gaussianised score with the approved alphas' combined score over the names of the week's meta-model contribution",
    "ratio",
    basis="per week",
)


CORRELATION_TO_COMBINED_MEAN = Term(
    "correlation_to_combined_mean",
    "Correlation to the combined score",
    "Mean of correlation_to_combined over the window's weeks with an mmc",
    "ratio",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


WEIGHT_OVERLAP = Term(
    "weight_overlap",
    "Weight overlap (week)",
    "A week's mean over pairs of books of sum over names of min(|w_i|, |w_j|), each book's long_short target weights at unit gross: 0 no name in common, 1 the same weights up to sign",
    "fraction",
    basis="per week",
)


NAME_JACCARD = Term(
    "name_jaccard",
    "Name overlap (Jaccard, week)",
    "A week's mean over pairs of books of the Jaccard index of their held names (non-zero long_short target weight)",
    "fraction",
    basis="per week",
)


WEIGHT_OVERLAP_MEAN = Term(
    "weight_overlap_mean",
    "Weight overlap of the approved books",
    "Mean of the weekly weight_overlap of the approved books the key may read over the window's weeks with a pair",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


NAME_JACCARD_MEAN = Term(
    "name_jaccard_mean",
    "Name overlap of the approved books (Jaccard)",
    "Mean of the weekly name_jaccard of the approved books the key may read over the window's weeks with a pair",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


WEIGHT_OVERLAP_WITH_APPROVED = Term(
    "weight_overlap_with_approved",
    "Weight overlap with the approved books",
    "Mean over the window's weeks of the alpha's long_short book's mean weight overlap with each approved book the key may read (the alpha excluded)",
    "fraction",
    basis="per week",
    annualisation="per_period",
    null=WHEN_NOT_MEASURABLE,
)


BOOK_PAIRS = Term(
    "book_pairs", "Pairs of books", "Pairs of books holding names that week", "pairs", basis="per week"
)


APPROVED_BOOKS = Term(
    "approved_books",
    "Books compared",
    "Books in the week's pairs of books holding names (on an alpha's page the alpha is one of them)",
    "alphas",
    basis="per week",
)


OVERLAP_WEEKS = Term(
    "overlap_weeks",
    "Weeks with a pair of books",
    "Weeks of the window with at least one pair of books holding names",
    "weeks",
)


COMBINED_EXPOSURE = Term(
    "combined_exposure",
    "Combined exposure of the approved books",
    "Mean over weeks of the approved books' mean exposure to a factor (the equally weighted combination's exposure)",
    "ratio",
    basis="per week",
)


EXPOSURE_DISPERSION = Term(
    "exposure_dispersion",
    "Exposure dispersion across the approved books",
    "Mean over weeks of the cross-book standard deviation (ddof=0) of the approved books' exposures to a factor: low is a shared loading",
    "ratio",
    basis="per week",
)


FACTOR_WEEKS = Term(
    "factor_weeks",
    "Weeks with two books exposed",
    "Weeks with at least two approved books exposed to the factor",
    "weeks",
)


WEEKLY_VALUE = Term(
    "weekly_value",
    "Week's value",
    "/analytics/monitoring: one live week's value of the charted series (the book's compounded weekly return, a fraction, or the weekly IC, a ratio: the chart's `series` says which)",
    "see unit on the entry",
    basis="per week",
    window=MONITORED,
)


CUSUM_STATISTIC = Term(
    "cusum_statistic",
    "CUSUM statistic",
    "/analytics/monitoring: the one-sided lower CUSUM of the standardised weekly values, S_t = max(0, S_{t-1} - (x_t - mu0) / sigma - k), restarted at 0 after an alarm; an alarm when it exceeds the threshold h",
    "statistic",
    window=MONITORED,
)


EXPECTED_WEEKLY_MEAN = Term(
    "expected_weekly_mean",
    "Expected weekly mean",
    "/analytics/monitoring: mu0, the level the alpha's approval expects live per week (the book's return from the expected live information ratio, the IC from the backtest's mean IC times the same retention)",
    "see unit on the entry",
    basis="per week",
    window=MONITORED,
)


WEEKLY_SD = Term(
    "weekly_sd",
    "Weekly standard deviation",
    "/analytics/monitoring: sigma, the standard deviation (ddof=1) of the backtest's weekly values of the charted series",
    "see unit on the entry",
    basis="per week",
    window=MONITORED,
)


LIVE_WEEKS = Term(
    "live_weeks",
    "Live weeks",
    "/analytics/monitoring and /analytics/drawdown_odds: the weekly values of the series that are live, each by its series' own rule: a book's calendar week whose sessions all follow the split (monitoring.live_weeks); a weekly IC whose forward return is realised after the split (live.in_sample_weeks, the rule /analytics/live splits ICs by)",
    "weeks",
    window=MONITORED,
)


IR_FALL_DETECTED = Term(
    "ir_fall_detected",
    "Fall detected",
    "/analytics/monitoring: the fall of the series' annualised information ratio (weekly mean over weekly sd, times sqrt(52)) the chart is designed to detect",
    "ratio",
    basis="per year",
    annualisation="annualised",
    window=MONITORED,
)


CUSUM_REFERENCE_VALUE = Term(
    "cusum_reference_value",
    "Reference value k",
    "/analytics/monitoring: the CUSUM's reference value k, half the weekly fall to detect in weekly standard deviations",
    "ratio",
    basis="per week",
    window=MONITORED,
)


CUSUM_THRESHOLD = Term(
    "cusum_threshold",
    "Threshold h",
    "/analytics/monitoring: the CUSUM's alarm threshold h, chosen so that an unchanged series alarms once per arl0_weeks on average (Siegmund's approximation)",
    "statistic",
    window=MONITORED,
)


ARL0_WEEKS = Term(
    "arl0_weeks",
    "In-control run length",
    "/analytics/monitoring: the average weeks between false alarms of an unchanged series (ARL0; Siegmund's approximation, checked by simulation in the tests)",
    "weeks",
    window=MONITORED,
)


ARL1_WEEKS = Term(
    "arl1_weeks",
    "Detection delay",
    "/analytics/monitoring: the average weeks to an alarm once the series has fallen by ir_fall_detected, from a statistic at 0 (ARL1; Siegmund's approximation)",
    "weeks",
    window=MONITORED,
)


FALSE_ALARM_PROBABILITY_PER_YEAR = Term(
    "false_alarm_probability_per_year",
    "False alarms a year",
    "/analytics/monitoring: the probability that an unchanged series raises an alarm within a year, 1 - (1 - 1/ARL0)^52",
    "probability",
    window=MONITORED,
)


EXPECTED_WEEKLY_RETURN = Term(
    "expected_weekly_return",
    "Expected weekly return",
    "/analytics/drawdown_odds: mu0, the weekly mean the simulated paths are centred on, the expected live information ratio over sqrt(weeks a year) times backtest_weekly_sd",
    "fraction",
    basis="per week",
    window=ODDS,
)


BACKTEST_WEEKLY_SD = Term(
    "backtest_weekly_sd",
    "Backtest weekly standard deviation",
    "/analytics/drawdown_odds: the standard deviation (ddof=1) of the book's weekly compounded returns up to the split, the spread the paths keep",
    "fraction",
    basis="per week",
    window=ODDS,
)


BACKTEST_WEEKS = Term(
    "backtest_weeks",
    "Backtest weeks",
    "/analytics/drawdown_odds: the calendar weeks with a return up to the split, the series resampled",
    "weeks",
    window=ODDS,
)


PATHS = Term(
    "paths",
    "Simulated paths",
    "/analytics/drawdown_odds: the paths drawn by the stationary block bootstrap",
    "paths",
    window=ODDS,
)


EXPECTED_MAX_DRAWDOWN = Term(
    "expected_max_drawdown",
    "Expected max drawdown",
    "/analytics/drawdown_odds: the mean over the simulated paths of the maximum drawdown within horizon_weeks, as a fraction of the running peak (the split's 1.0 counting as a peak)",
    "fraction",
    window=ODDS,
)


EXPECTED_MAX_DRAWDOWN_ERROR = Term(
    "expected_max_drawdown_error",
    "Expected max drawdown's Monte Carlo error",
    "/analytics/drawdown_odds: the Monte Carlo standard error of expected_max_drawdown, std(ddof=1) / sqrt(paths)",
    "fraction",
    window=ODDS,
)


MAX_DRAWDOWN_P05 = Term(
    "max_drawdown_p05",
    "Simulated max drawdown, 5%",
    "/analytics/drawdown_odds: the 5% quantile over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of the running peak (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


MAX_DRAWDOWN_P25 = Term(
    "max_drawdown_p25",
    "Simulated max drawdown, 25%",
    "/analytics/drawdown_odds: the 25% quantile over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of the running peak (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


MAX_DRAWDOWN_P50 = Term(
    "max_drawdown_p50",
    "Simulated max drawdown, median (50%)",
    "/analytics/drawdown_odds: the median (50%) quantile over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of the running peak (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


MAX_DRAWDOWN_P75 = Term(
    "max_drawdown_p75",
    "Simulated max drawdown, 75%",
    "/analytics/drawdown_odds: the 75% quantile over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of the running peak (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


MAX_DRAWDOWN_P95 = Term(
    "max_drawdown_p95",
    "Simulated max drawdown, 95%",
    "/analytics/drawdown_odds: the 95% quantile over the simulated paths of the maximum drawdown within horizon_weeks, a fraction of the running peak (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


DEPTH = Term(
    "depth",
    "Drawdown depth",
    "/analytics/drawdown_odds: x, the depth of a drawdown asked about, a fraction of the running peak (0.1: a fall of 10%)",
    "fraction",
    window=ODDS,
)


EXCEEDANCE_PROBABILITY = Term(
    "exceedance_probability",
    "Probability of a deeper drawdown",
    "/analytics/drawdown_odds: the share of simulated paths whose maximum drawdown within horizon_weeks is deeper than the depth",
    "probability",
    window=ODDS,
)


EXCEEDANCE_ERROR = Term(
    "exceedance_error",
    "Probability's Monte Carlo error",
    "/analytics/drawdown_odds: the Monte Carlo standard error of exceedance_probability, sqrt(p (1 - p) / paths)",
    "probability",
    window=ODDS,
)


WEEK = Term(
    "week",
    "Weeks after the split",
    "/analytics/drawdown_odds: the week's place after the split, 1 the first live week",
    "weeks",
    window=ODDS,
)


CONE_P05 = Term(
    "cone_p05",
    "Cone, 5%",
    "/analytics/drawdown_odds: the 5% quantile over the simulated paths of the cumulative return from the split to the week (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


CONE_P25 = Term(
    "cone_p25",
    "Cone, 25%",
    "/analytics/drawdown_odds: the 25% quantile over the simulated paths of the cumulative return from the split to the week (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


CONE_P50 = Term(
    "cone_p50",
    "Cone, median (50%)",
    "/analytics/drawdown_odds: the median (50%) quantile over the simulated paths of the cumulative return from the split to the week (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


CONE_P75 = Term(
    "cone_p75",
    "Cone, 75%",
    "/analytics/drawdown_odds: the 75% quantile over the simulated paths of the cumulative return from the split to the week (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


CONE_P95 = Term(
    "cone_p95",
    "Cone, 95%",
    "/analytics/drawdown_odds: the 95% quantile over the simulated paths of the cumulative return from the split to the week (numpy's linear rule)",
    "fraction",
    window=ODDS,
)


LIVE_WEEKLY_RETURN = Term(
    "live_weekly_return",
    "Live weekly return",
    "/analytics/drawdown_odds: the book's compounded return over one live week",
    "fraction",
    basis="per week",
    window=ODDS,
)


LIVE_CUMULATIVE_RETURN = Term(
    "live_cumulative_return",
    "Live cumulative return",
    "/analytics/drawdown_odds: the book's compounded return from the split to the end of the live week",
    "fraction",
    window=ODDS,
)


CONE_PERCENTILE = Term(
    "cone_percentile",
    "Live percentile in the cone",
    "/analytics/drawdown_odds: the share of simulated paths whose cumulative return at the same week is below the live path's, ties counted half (0.5: the cone's median)",
    "fraction",
    window=ODDS,
)


LIVE_MAX_DRAWDOWN = Term(
    "live_max_drawdown",
    "Live max drawdown",
    "/analytics/drawdown_odds: the live path's maximum drawdown so far, a fraction of its running peak from 1.0 at the split",
    "fraction",
    window=ODDS,
)


LIVE_MAX_DRAWDOWN_PERCENTILE = Term(
    "live_max_drawdown_percentile",
    "Live max drawdown's percentile",
    "/analytics/drawdown_odds: the share of simulated paths whose maximum drawdown over as many weeks as the live path is below the live one, ties counted half",
    "fraction",
    window=ODDS,
)


GROUP_MEMBERS = Term(
    "group_members",
    "Group members",
    "/analytics/expectation: the alphas of the group (trial family, else catalogue) the key may read, the alpha included",
    "alphas",
    window=EXPECTED_WHOLE,
)


MIN_GROUP_MEMBERS = Term(
    "min_group_members",
    "Minimum group",
    "/analytics/expectation: the members with a measured figure a group needs for its mean and spread to be estimated",
    "alphas",
)


CREDIBLE_LEVEL = Term(
    "credible_level",
    "Credible level",
    "/analytics/expectation: the nominal probability mass of every interval served (normal, equal tails); measured by simulation under the model itself at the small demo's size (a group of 7), the posterior interval covers 84% (m and tau^2 are estimated, not known: docs/analytics.md, Measured coverage)",
    "probability",
)


MEASURED_MEMBERS = Term(
    "measured_members",
    "Members measured",
    "/analytics/expectation: the group's members the key may read with the series' figure measured over their backtests",
    "alphas",
    window=EXPECTED_WHOLE,
)


BACKTEST_VALUE = Term(
    "backtest_value",
    "Backtest figure (in sample: up to the split)",
    "/analytics/expectation: the alpha's figure over its backtest (up to the split) of the charted series: the annualised information ratio or the mean weekly IC, a ratio either way (the series' `series` says which)",
    "ratio",
    window=EXPECTED_WHOLE,
)


BACKTEST_OBSERVATIONS = Term(
    "backtest_observations",
    "Backtest observations",
    "/analytics/expectation: the backtest's sessions (information ratio) or weekly ICs (mean IC)",
    "observations",
    window=EXPECTED_WHOLE,
)


BACKTEST_STANDARD_ERROR = Term(
    "backtest_standard_error",
    "Standard error of the backtest figure",
    "/analytics/expectation: the iid standard error of the backtest figure (Lo 2002 / Mertens for the information ratio; sd / sqrt(weeks) for the mean IC)",
    "ratio",
    window=EXPECTED_WHOLE,
)


GROUP_MEAN = Term(
    "group_mean",
    "Group mean",
    "/analytics/expectation: the random-effects mean of the group's backtest figures (DerSimonian and Laird), of the charted series: the annualised information ratio or the mean weekly IC, a ratio either way (the series' `series` says which)",
    "ratio",
    window=EXPECTED_WHOLE,
)


GROUP_MEAN_STANDARD_ERROR = Term(
    "group_mean_standard_error",
    "Group mean's standard error",
    "/analytics/expectation: the standard error of the group mean",
    "ratio",
    window=EXPECTED_WHOLE,
)


BETWEEN_ALPHA_SD = Term(
    "between_alpha_sd",
    "Spread between alphas",
    "/analytics/expectation: tau, the standard deviation of the group members' true figures (moment estimate, 0 when the backtests spread no more than their noise)",
    "ratio",
    window=EXPECTED_WHOLE,
)


SHRINKAGE_WEIGHT = Term(
    "shrinkage_weight",
    "Weight kept",
    "/analytics/expectation: B = tau^2 / (tau^2 + se^2), the weight the alpha's own backtest figure keeps against the group mean",
    "fraction (0 to 1)",
    window=EXPECTED_WHOLE,
)


POSTERIOR_MEAN = Term(
    "posterior_mean",
    "Posterior mean",
    "/analytics/expectation: the backtest figure shrunk toward the group mean, of the charted series: the annualised information ratio or the mean weekly IC, a ratio either way (the series' `series` says which)",
    "ratio",
    window=EXPECTED_WHOLE,
)


POSTERIOR_SD = Term(
    "posterior_sd",
    "Posterior sd",
    "/analytics/expectation: the posterior standard deviation of the figure",
    "ratio",
    window=EXPECTED_WHOLE,
)


POSTERIOR_LOWER = Term(
    "posterior_lower",
    "Posterior lower bound",
    "/analytics/expectation: the lower bound of the posterior's credible interval",
    "ratio",
    window=EXPECTED_WHOLE,
)


POSTERIOR_UPPER = Term(
    "posterior_upper",
    "Posterior upper bound",
    "/analytics/expectation: the upper bound of the posterior's credible interval",
    "ratio",
    window=EXPECTED_WHOLE,
)


EXPECTED_LIVE = Term(
    "expected_live",
    "Expected live",
    "/analytics/expectation: the figure expected live, the posterior times /analytics/decay's retention, of the charted series: the annualised information ratio or the mean weekly IC, a ratio either way (the series' `series` says which)",
    "ratio",
    window=EXPECTED_WHOLE,
)


EXPECTED_LIVE_SD = Term(
    "expected_live_sd",
    "Expected live sd",
    "/analytics/expectation: the standard deviation of the expected live figure (the retention's standard error included)",
    "ratio",
    window=EXPECTED_WHOLE,
)


EXPECTED_LIVE_LOWER = Term(
    "expected_live_lower",
    "Expected live lower bound",
    "/analytics/expectation: the lower bound of the expected live figure's credible interval",
    "ratio",
    window=EXPECTED_WHOLE,
)


EXPECTED_LIVE_UPPER = Term(
    "expected_live_upper",
    "Expected live upper bound",
    "/analytics/expectation: the upper bound of the expected live figure's credible interval",
    "ratio",
    window=EXPECTED_WHOLE,
)


OBSERVATIONS_TO_DATE = Term(
    "observations_to_date",
    "Live observations",
    "/analytics/expectation: the live sessions (information ratio) or weekly ICs (mean IC) up to the week",
    "observations",
    window=EXPECTED_LIVE_WINDOW,
)


LIVE_TO_DATE = Term(
    "live_to_date",
    "Live to date",
    "/analytics/expectation: the live figure over the live observations up to the week, of the charted series: the annualised information ratio or the mean weekly IC, a ratio either way (the series' `series` says which)",
    "ratio",
    window=EXPECTED_LIVE_WINDOW,
)


PREDICTIVE_LOWER = Term(
    "predictive_lower",
    "Predictive lower bound",
    "/analytics/expectation: the lower bound of the credible interval of the live figure over that many observations",
    "ratio",
    window=EXPECTED_LIVE_WINDOW,
)


PREDICTIVE_UPPER = Term(
    "predictive_upper",
    "Predictive upper bound",
    "/analytics/expectation: the upper bound of the credible interval of the live figure over that many observations",
    "ratio",
    window=EXPECTED_LIVE_WINDOW,
)


PERCENTILE = Term(
    "percentile",
    "Percentile",
    "/analytics/expectation: where the live figure to date falls in its predictive distribution (50: as expected; below 5 or above 95: outside the 90% interval)",
    "percentile (0 to 100)",
    window=EXPECTED_LIVE_WINDOW,
)


SESSIONS_SINCE_APPROVAL = Term(
    "sessions_since_approval",
    "Sessions since approval",
    "/v1/analytics/approved_health: the sessions of the book first published after the alpha's approval was recorded (/analytics/live out_of_sample.sessions at the approval)",
    "sessions",
    window=APPROVED_LIVE,
)


FALSE_DISCOVERY_PROBABILITY = Term(
    "false_discovery_probability",
    "False discovery probability",
    "/v1/analytics/approved_health: the posterior probability that the approval was a false discovery, the oFDR of López de Prado, Lipton and Zoonekynd (2025) of its backtest information ratio over its backtest weeks, with the deployment's prior (false_discovery)",
    "probability",
    window="the backtest, before the approval's split",
)


PRIOR_TRUE_SHARE = Term(
    "prior_true_share",
    "Prior share of true alphas",
    "/v1/analytics/approved_health: p, the prior share of true strategies among the candidates the false-discovery probabilities are computed with",
    "share",
)


TRUE_INFORMATION_RATIO = Term(
    "true_information_ratio",
    "True information ratio",
    "/v1/analytics/approved_health: the annualised information ratio of a true strategy, the alternative the false-discovery probabilities are computed against",
    "ratio",
    basis="per year",
    annualisation="annualised",
)


EXPECTED_FALSE_ALARMS_PER_YEAR = Term(
    "expected_false_alarms_per_year",
    "Expected false alarms a year",
    "/v1/analytics/approved_health: the false alarms a year the book return charts raise on average if every approved alpha still works, approved_count x 52 / arl0_weeks",
    "alarms per year",
    basis="per year",
)


ALARM_COUNT = Term(
    "alarm_count",
    "Alphas in alarm",
    "/v1/analytics/approved_health: the approved alphas with a chart in alarm",
    "count",
)


CANDIDATES = Term(
    "candidates",
    "Candidates",
    "/v1/analytics/approved_health: the alphas of the catalogue the key may read, the candidates tried",
    "count",
)


DECIDED_ALPHAS = Term(
    "decided_alphas",
    "Decided alphas",
    "/v1/analytics/approved_health: the approved alphas (in force or retired since) the key may read with a live information ratio measured, what the deployment's prior is estimated from",
    "count",
)


TERMS: tuple[Term, ...] = tuple(value for value in dict(globals()).values() if isinstance(value, Term))
"""Every term, in the order declared here."""
