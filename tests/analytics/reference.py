"""Independent recomputation of the analytics figures from the lake's Parquet files.

Written from the definitions of the analytics routes (the PSR, MinTRL, DSR, critical Sharpe ratio
and power by the reference code of López de Prado, Lipton and Zoonekynd 2025, copied in
tests/analytics/sharpe_reference.py; Bailey and López de Prado 2014's expected maximum; the cost, rolling and turnover rules as stated in the functions below), with
numpy, scipy, pandas and statsmodels only: nothing here imports `analytics/` or `serve/`, and
`pipeline/` only to read a build's raw rows from the lake's open tables
(`tests.support.build_tables`, where its own Parquet was read before pipeline 2.12.0). A figure
that is not measurable is None.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests

from tests.analytics import sharpe_reference
from tests.support.build_tables import build_pandas, has_table

SESSIONS_PER_YEAR = 252
WEEKS_PER_YEAR = 52
MIN_TRL_CONFIDENCE = 0.95

Window = tuple[str | None, str | None]


def finite(value: float) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def in_window(dates: pd.Series, window: Window) -> pd.Series:
    """Rows whose ISO date lies in the inclusive window."""
    start, end = window
    keep = pd.Series(True, index=dates.index)
    if start is not None:
        keep &= dates >= start
    if end is not None:
        keep &= dates <= end
    return keep


def iso(column: pd.Series) -> pd.Series:
    return column.map(lambda d: d.isoformat() if hasattr(d, "isoformat") else str(d)[:10])


class Lake:
    """The demo lake's files, read with pandas: current build of each alpha via `_current.json`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @cache  # noqa: B019 - one Lake per session
    def alphas(self) -> tuple[str, ...]:
        return tuple(
            sorted(p.name for p in (self.root / "alphas").iterdir() if (p / "_current.json").exists())
        )

    @cache  # noqa: B019
    def build(self, alpha: str) -> Path:
        current = json.loads((self.root / "alphas" / alpha / "_current.json").read_text())
        return self.root / "alphas" / alpha / "builds" / current["build_id"]

    def _table(self, alpha: str, name: str, book: str | None = None) -> pd.DataFrame | None:
        """The current build's rows of one table (of `book`) as pandas read its Parquet file, None
        when the build has none (pipeline 2.12.0 keeps them in the lake's open tables only)."""
        build = self.build(alpha)
        return build_pandas(build, name, book) if has_table(build, name, book) else None

    @cache  # noqa: B019
    def ledger(self, alpha: str, book: str) -> pd.DataFrame | None:
        frame = self._table(alpha, "portfolio", book)
        if frame is None:
            return None
        frame["date"] = iso(frame["date"])
        return frame.sort_values("date", kind="stable").reset_index(drop=True)

    @cache  # noqa: B019
    def positions(self, alpha: str, book: str) -> pd.DataFrame | None:
        """The book's positions, each with `held`: its weight recomputed from the raw columns,
        quantity x mark_price / the ledger's ending_equity of the day (never the lake's derived
        `weight`)."""
        frame = self._table(alpha, "positions", book)
        ledger = self.ledger(alpha, book)
        if frame is None or ledger is None:
            return None
        frame["date"] = iso(frame["date"])
        frame = frame.merge(ledger[["date", "ending_equity"]], on="date", how="left", validate="many_to_one")
        frame["held"] = frame["quantity"] * frame["mark_price"] / frame["ending_equity"]
        return frame.sort_values(["date", "symbol"], kind="stable").reset_index(drop=True)

    @cache  # noqa: B019
    def weekly_signal(self, alpha: str) -> pd.DataFrame | None:
        frame = self._table(alpha, "weekly_signal")
        if frame is None:
            return None
        frame["date"] = iso(frame["date"])
        for column in ("ic", "raw_ic"):
            frame[column] = frame[column].astype(float)
        return frame.sort_values("date", kind="stable").reset_index(drop=True)

    @cache  # noqa: B019
    def decisions(self, alpha: str) -> pd.DataFrame | None:
        frame = self._table(alpha, "decisions")
        if frame is None:
            return None
        frame["date"] = iso(frame["date"])
        return frame.sort_values(["date", "symbol"], kind="stable").reset_index(drop=True)

    def ledger_in(self, alpha: str, book: str, window: Window) -> pd.DataFrame | None:
        ledger = self.ledger(alpha, book)
        return None if ledger is None else ledger[in_window(ledger["date"], window)].reset_index(drop=True)

    def returns(self, alpha: str, book: str, window: Window) -> pd.Series:
        """Daily returns ending / starting - 1 indexed by ISO date (empty without a ledger)."""
        ledger = self.ledger_in(alpha, book, window)
        if ledger is None:
            return pd.Series(dtype=float)
        r = ledger["ending_equity"].to_numpy(float) / ledger["starting_equity"].to_numpy(float) - 1.0
        return pd.Series(r, index=ledger["date"].to_numpy())

    def ic(self, alpha: str, window: Window, column: str = "ic") -> pd.Series:
        """The weekly IC (`ic` conditioned, `raw_ic` raw) indexed by ISO date, NaN kept."""
        weeks = self.weekly_signal(alpha)
        if weeks is None:
            return pd.Series(dtype=float)
        part = weeks[in_window(weeks["date"], window)]
        return pd.Series(part[column].to_numpy(float), index=part["date"].to_numpy())

    @cache  # noqa: B019
    def spy(self) -> tuple[str, pd.Series]:
        """SPY's return basis and daily returns by ISO date, from its published daily closes:
        adjusted_close when every row of the whole series has one, else close (the /v1/benchmarks
        rule), NaN on its first session."""
        current = json.loads((self.root / "benchmarks" / "SPY" / "_current.json").read_text())
        daily = pd.read_parquet(
            self.root / "benchmarks" / "SPY" / "builds" / current["build_id"] / "daily.parquet"
        )
        daily["date"] = iso(daily["date"])
        daily = daily.sort_values("date").reset_index(drop=True)
        basis = "adjusted_close" if daily["adjusted_close"].notna().all() else "close"
        price = daily[basis].astype(float)
        return basis, pd.Series((price / price.shift(1) - 1.0).to_numpy(), index=daily["date"].to_numpy())


# -- the residual against the catalogue --------------------------------------------------------------

RESIDUAL_MIN_SESSIONS = 63
RESIDUAL_PER_COEFFICIENT = 10
RESIDUAL_MIN_COVERAGE = 0.9


@dataclass(frozen=True)
class ResidualFit:
    """statsmodels' OLS of the alpha's daily returns on SPY's and the reference alphas' kept."""

    base_sessions: int
    sessions: int
    kept: list[str]
    dropped: dict[str, int]  # reference alpha -> its base sessions with a return
    fit: Any  # statsmodels' results, None when not measurable
    lag: int | None
    information_ratio: float | None
    why: str


def residual(lake: Lake, alpha: str, book: str, window: Window, reference: list[str]) -> ResidualFit:
    """The residual of `alpha`'s `book` over `window` against `reference` (docs/analytics.md,
    "Residual against the catalogue"), with pandas and statsmodels: the sessions on which the
    alpha and SPY have a return, each reference alpha kept when it has a return on 90% of them,
    then statsmodels OLS with a constant on SPY and the kept alphas over the sessions all have,
    with cov_type="HAC", cov_kwds={"maxlags": floor(4 (n/100)^(2/9)), "kernel": "bartlett",
    "use_correction": False}."""
    import statsmodels.api as sm

    r = lake.returns(alpha, book, window)
    r = r[np.isfinite(r.to_numpy(float))]
    m = lake.spy()[1].reindex(r.index)
    base = m.notna()
    r, m = r[base], m[base]
    n_base = len(r)
    members = {
        a: lake.returns(a, "long_short", (None, None)).replace([np.inf, -np.inf], np.nan).reindex(r.index)
        for a in reference
    }
    have = {a: int(np.isfinite(s.to_numpy(float)).sum()) for a, s in members.items()}
    kept = [
        a for a in reference if have[a] >= math.ceil(RESIDUAL_MIN_COVERAGE * n_base - 1e-9) and have[a] > 0
    ]
    dropped = {a: have[a] for a in reference if a not in kept}

    def none(n: int, why: str) -> ResidualFit:
        return ResidualFit(n_base, n, kept, dropped, None, None, None, why)

    if n_base < RESIDUAL_MIN_SESSIONS:
        return none(0, "too few base sessions")
    if n_base < RESIDUAL_PER_COEFFICIENT * (len(kept) + 2):
        return none(0, "the set is larger than the sessions allow")
    frame = pd.concat({"r": r, "spy": m, **{a: members[a] for a in kept}}, axis=1).dropna()
    n = len(frame)
    if n < RESIDUAL_MIN_SESSIONS:
        return none(n, "too few common sessions")
    if n < RESIDUAL_PER_COEFFICIENT * (len(kept) + 2):
        return none(n, "the set is larger than the sessions allow")
    lag = math.floor(4 * (n / 100) ** (2 / 9))
    x = sm.add_constant(frame[["spy", *kept]].to_numpy(float), has_constant="add")
    fit = sm.OLS(frame["r"].to_numpy(float), x).fit(
        cov_type="HAC", cov_kwds={"maxlags": lag, "kernel": "bartlett", "use_correction": False}
    )
    left = fit.params[0] + fit.resid
    return ResidualFit(n_base, n, kept, dropped, fit, lag, information_ratio(left), "")


# -- significance -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Moments:
    n: int
    sr: float  # per session
    skew: float
    kurt: float  # Pearson
    rho: float  # lag-1 autocorrelation (the paper's AR(1) coefficient)

    @property
    def moments(self) -> dict[str, float]:
        """The keywords of the paper's reference functions (tests/analytics/sharpe_reference.py)."""
        return {"gamma3": self.skew, "gamma4": self.kurt, "rho": self.rho}

    def variance_factor(self, sr: float) -> float:
        """T sigma^2(sr): the paper's sharpe_ratio_variance over one observation."""
        return float(sharpe_reference.sharpe_ratio_variance(sr, 1, **self.moments))


def moments(returns: np.ndarray) -> Moments | None:
    x = np.asarray(returns, float)
    x = x[np.isfinite(x)]
    if x.size < 3:
        return None
    sd = x.std(ddof=1)
    if not sd > 0:
        return None
    return Moments(
        int(x.size),
        float(x.mean() / sd),
        float(stats.skew(x, bias=True)),
        float(stats.kurtosis(x, fisher=False, bias=True)),
        float(sharpe_reference.autocorrelation(x)),
    )


def psr(m: Moments, sr_star: float, trials: int = 1) -> float | None:
    """López de Prado, Lipton and Zoonekynd (2025): the paper's probabilistic_sharpe_ratio (the
    variance under H0, of the maximum of `trials` Sharpe ratios for the DSR)."""
    if not math.isfinite(sr_star) or not m.variance_factor(sr_star) > 0:
        return None
    return float(sharpe_reference.probabilistic_sharpe_ratio(m.sr, sr_star, T=m.n, K=trials, **m.moments))


def min_trl(m: Moments, sr_star: float) -> float | None:
    if not m.sr > sr_star or not m.variance_factor(sr_star) > 0:
        return None
    return float(
        sharpe_reference.minimum_track_record_length(
            m.sr, sr_star, alpha=1.0 - MIN_TRL_CONFIDENCE, **m.moments
        )
    )


def dsr(m: Moments, trials: int, variance: float | None) -> float | None:
    """The paper's DSR: the PSR against E[max SR] of `trials`, its variance that of their maximum."""
    sr0 = expected_max_sharpe(trials, variance)
    return None if sr0 is None else psr(m, sr0, trials)


def expected_max_sharpe(n: int, variance: float | None) -> float | None:
    """Bailey and López de Prado (2014): SR0 = sqrt(V) ((1 - g) Z^-1(1 - 1/N) + g Z^-1(1 - 1/(N e)))."""
    if n < 2 or variance is None or not variance >= 0:
        return None
    g = np.euler_gamma
    return math.sqrt(variance) * (
        (1.0 - g) * stats.norm.ppf(1.0 - 1.0 / n) + g * stats.norm.ppf(1.0 - 1.0 / (n * math.e))
    )


def min_backtest_length(n: int, sharpe: float) -> float | None:
    """Bailey, Borwein, López de Prado and Zhu (2014), MinBTL: the years below which the best of N
    skill-less configurations is expected to show an annualised Sharpe ratio `sharpe`,
    (E[max of N standard normals] / SR)^2; None when SR <= 0 or N < 2."""
    expected = expected_max_sharpe(n, 1.0)
    if expected is None or not sharpe > 0:
        return None
    return float((expected / sharpe) ** 2)


def catalogue_sharpes(lake: Lake) -> dict[str, float]:
    """Per-session Sharpe ratio of every catalogue alpha's whole long_short history, where measurable."""
    out = {}
    for alpha in lake.alphas():
        m = moments(lake.returns(alpha, "long_short", (None, None)).to_numpy())
        if m is not None:
            out[alpha] = m.sr
    return out


def significance(
    lake: Lake,
    alpha: str,
    window: Window,
    sr_benchmark: float = 0.0,
    trials: int | None = None,
    readable: Callable[[str], bool] = lambda alpha: True,
) -> dict[str, Any]:
    """`readable`: the alphas the key may read, whose Sharpe ratios the trials' variance is over
    (the trial count is the whole catalogue's)."""
    r = lake.returns(alpha, "long_short", window).to_numpy()
    m = moments(r)
    sr_star = sr_benchmark / math.sqrt(SESSIONS_PER_YEAR)
    every = catalogue_sharpes(lake)
    sharpes = [sharpe for other, sharpe in every.items() if readable(other)]
    n_trials = len(every) if trials is None else trials
    variance = float(np.var(sharpes, ddof=1)) if len(sharpes) >= 2 else None
    sr0 = expected_max_sharpe(n_trials, variance)
    trl = None if m is None else min_trl(m, sr_star)
    sr1 = (sr_benchmark + 1.0) / math.sqrt(SESSIONS_PER_YEAR)  # the power's alternative: SR* + 1 a year
    per_year = math.sqrt(SESSIONS_PER_YEAR)
    level = 1.0 - MIN_TRL_CONFIDENCE
    se = critical = power = None
    if m is not None and m.variance_factor(m.sr) > 0:
        se = math.sqrt(sharpe_reference.sharpe_ratio_variance(m.sr, m.n, **m.moments)) * per_year
    if m is not None and m.variance_factor(sr_star) > 0:
        critical = sharpe_reference.critical_sharpe_ratio(sr_star, m.n, alpha=level, **m.moments) * per_year
        if m.variance_factor(sr1) > 0:
            power = sharpe_reference.sharpe_ratio_power(sr_star, sr1, m.n, alpha=level, **m.moments)
    return {
        "serial_correlation": None if m is None else m.rho,
        "sharpe_standard_error": se,
        "critical_sharpe": critical,
        "power": power,
        "sr_alternative": sr_benchmark + 1.0,
        "sessions": int(r.size),  # every session of the window, as /portfolio counts them
        "sharpe": None if m is None else m.sr * math.sqrt(SESSIONS_PER_YEAR),
        "skewness": None if m is None else m.skew,
        "kurtosis": None if m is None else m.kurt,
        "psr": None if m is None else psr(m, sr_star),
        "min_track_record": trl,
        "years": None if trl is None else trl / SESSIONS_PER_YEAR,
        "dsr": None if m is None else dsr(m, n_trials, variance),
        "min_backtest_length": None if m is None else min_backtest_length(n_trials, m.sr * per_year),
        "trials.count": n_trials,
        "trials.sharpe_variance": variance,
        "trials.sharpe_variance_alphas": len(sharpes),
        "trials.expected_max_sharpe": None if sr0 is None else sr0 * math.sqrt(SESSIONS_PER_YEAR),
    }


def bootstrap_points(lake: Lake, alpha: str, window: Window) -> dict[str, tuple[float | None, int]]:
    """(plain statistic, observations) of each bootstrapped figure."""
    ic = lake.ic(alpha, window).to_numpy()
    ic = ic[np.isfinite(ic)]
    r = lake.returns(alpha, "long_short", window).to_numpy()
    r = r[np.isfinite(r)]

    def ratio(x: np.ndarray, scale: float) -> float | None:
        if x.size < 3:
            return None
        sd = x.std(ddof=1)
        return float(x.mean() / sd * scale) if sd > 0 else None

    return {
        "rebuilt_mean_ic": (float(ic.mean()) if ic.size >= 3 else None, int(ic.size)),
        "rebuilt_icir": (ratio(ic, math.sqrt(WEEKS_PER_YEAR)), int(ic.size)),
        "information_ratio": (ratio(r, math.sqrt(SESSIONS_PER_YEAR)), int(r.size)),
    }


def adjusted(p_values: dict[str, float], alpha: str) -> tuple[float | None, float | None]:
    """(Holm, Benjamini-Hochberg) adjusted p-value of `alpha` within the family."""
    if alpha not in p_values:
        return None, None
    names = sorted(p_values)
    values = np.array([p_values[n] for n in names])
    holm = multipletests(values, method="holm")[1]
    bh = multipletests(values, method="fdr_bh")[1]
    at = names.index(alpha)
    return float(holm[at]), float(bh[at])


# -- correlation ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corr:
    correlation: float | None
    pearson: float | None
    spearman: float | None
    overlap: int
    common_names: float | None


def constant(x: np.ndarray) -> bool:
    return bool(np.all(x == x[0]))


def series_corr(a: pd.Series, b: pd.Series) -> Corr:
    joined = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner")
    joined = joined[np.isfinite(joined["a"]) & np.isfinite(joined["b"])]
    x, y = joined["a"].to_numpy(float), joined["b"].to_numpy(float)
    n = int(x.size)
    if n < 3 or constant(x) or constant(y):
        return Corr(None, None, None, n, None)
    pearson = float(np.corrcoef(x, y)[0, 1])
    spearman = float(stats.spearmanr(x, y).statistic)
    return Corr(pearson, pearson, spearman, n, None)


def scores_corr(lake: Lake, a: str, b: str, window: Window) -> Corr:
    da, db = lake.decisions(a), lake.decisions(b)
    if da is None or db is None:
        return Corr(None, None, None, 0, None)
    da = da[in_window(da["date"], window)]
    db = db[in_window(db["date"], window)]
    rhos, names = [], []
    by_date_b = {d: g for d, g in db.groupby("date")}
    for d, ga in da.groupby("date"):
        gb = by_date_b.get(d)
        if gb is None:
            continue
        x = ga.set_index("symbol")["score"].astype(float)
        y = gb.set_index("symbol")["score"].astype(float)
        both = pd.concat([x.rename("x"), y.rename("y")], axis=1, join="inner")
        both = both[np.isfinite(both["x"]) & np.isfinite(both["y"])]
        if len(both) < 3 or constant(both["x"].to_numpy()) or constant(both["y"].to_numpy()):
            continue
        rhos.append(float(stats.spearmanr(both["x"], both["y"]).statistic))
        names.append(len(both))
    if not rhos:
        return Corr(None, None, None, 0, None)
    mean = float(np.mean(rhos))
    return Corr(mean, None, mean, len(rhos), float(np.mean(names)))


def correlation(lake: Lake, a: str, b: str, basis: str, window: Window) -> Corr:
    if basis == "returns":
        return series_corr(lake.returns(a, "long_short", window), lake.returns(b, "long_short", window))
    if basis == "ic":
        return series_corr(lake.ic(a, window), lake.ic(b, window))
    return scores_corr(lake, a, b, window)


# -- drawdowns --------------------------------------------------------------------------------------


def drawdown_episodes(ledger: pd.DataFrame) -> list[dict[str, Any]]:
    """Brute force over the level series: opening equity of the first session (dated with it), then
    every session's ending equity. Sorted deepest first, then by peak date."""
    if ledger.empty:
        return []
    levels = [float(ledger["starting_equity"].iloc[0])] + [float(v) for v in ledger["ending_equity"]]
    dates = [ledger["date"].iloc[0]] + list(ledger["date"])
    assert all(math.isfinite(v) and v > 0 for v in levels)
    found = []
    i = 0
    while i < len(levels):
        # i: a candidate peak; it is one if the next level falls below it and it is a running max.
        if i + 1 < len(levels) and levels[i + 1] < levels[i] and levels[i] >= max(levels[: i + 1]):
            peak = i
            j = i + 1
            while j < len(levels) and levels[j] < levels[peak]:
                j += 1
            under = levels[peak + 1 : j]
            trough = peak + 1 + under.index(min(under))
            recovery = j if j < len(levels) else None
            found.append(
                {
                    "peak_date": dates[peak],
                    "trough_date": dates[trough],
                    "recovery_date": None if recovery is None else dates[recovery],
                    "depth_pct": (levels[peak] - levels[trough]) / levels[peak] * 100.0,
                    "sessions_to_trough": trough - peak,
                    "sessions_to_recovery": None if recovery is None else recovery - peak,
                    "peak_equity": levels[peak],
                    "trough_equity": levels[trough],
                }
            )
            i = j
        else:
            i += 1
    return sorted(found, key=lambda e: (-e["depth_pct"], e["peak_date"]))


# -- rolling ----------------------------------------------------------------------------------------


def weekly_book_returns(week_dates: list[str], ledger: pd.DataFrame | None) -> np.ndarray:
    out = np.full(len(week_dates), np.nan)
    if ledger is None or ledger.empty:
        return out
    dates = ledger["date"].tolist()
    ending = ledger["ending_equity"].to_numpy(float)

    def equity(d: str) -> float:
        before = [k for k, x in enumerate(dates) if x <= d]
        return ending[before[-1]] if before else math.nan

    levels = [equity(d) for d in week_dates]
    for k in range(1, len(week_dates)):
        out[k] = levels[k] / levels[k - 1] - 1.0 if levels[k - 1] != 0 else math.nan
    return out


def rolling_ic_column(book: str) -> str:
    """The IC a book's rolling figures use: the raw signal's for raw_ books, else the conditioned."""
    return "raw_ic" if book.startswith("raw_") else "ic"


def rolling_rows(
    lake: Lake, alpha: str, book: str, window_weeks: int, window: Window
) -> list[dict[str, Any]]:
    weeks = lake.weekly_signal(alpha)
    if weeks is None:
        return []
    dates = weeks["date"].tolist()
    ic = pd.Series(weeks[rolling_ic_column(book)].to_numpy(float))
    r = pd.Series(weekly_book_returns(dates, lake.ledger(alpha, book)))
    need = max(2, window_weeks // 2)

    def roll(s: pd.Series) -> Any:
        return s.rolling(window_weeks, min_periods=need)

    mean_ic, std_ic = roll(ic).mean(), roll(ic).std(ddof=1)
    mean_r, std_r = roll(r).mean(), roll(r).std(ddof=1)
    hits = roll(r.where(r.isna(), (r > 0).astype(float))).mean()
    n_ic = ic.notna().astype(int).rolling(window_weeks).sum()
    n_r = r.notna().astype(int).rolling(window_weeks).sum()
    rows = []
    for k in range(window_weeks - 1, len(dates)):
        d = dates[k]
        if (window[0] is not None and d < window[0]) or (window[1] is not None and d > window[1]):
            continue
        rows.append(
            {
                "date": d,
                "n_ic_weeks": int(n_ic[k]),
                "rebuilt_mean_ic": finite(mean_ic[k]),
                # annualised, as the row's information ratio (the lake stores it per week)
                "icir": finite(mean_ic[k] / std_ic[k] * math.sqrt(WEEKS_PER_YEAR)) if std_ic[k] > 0 else None,
                "n_return_weeks": int(n_r[k]),
                "annualised_return": finite(mean_r[k] * WEEKS_PER_YEAR),
                "volatility": finite(std_r[k] * math.sqrt(WEEKS_PER_YEAR)),
                "information_ratio": finite(mean_r[k] / std_r[k] * math.sqrt(WEEKS_PER_YEAR))
                if std_r[k] > 0
                else None,
                "return_hit_rate": finite(hits[k]),
            }
        )
    return rows


# -- costs ------------------------------------------------------------------------------------------


def information_ratio(r: np.ndarray) -> float | None:
    x = r[np.isfinite(r)]
    if x.size < 2:
        return None
    sd = x.std(ddof=1)
    return float(x.mean() / sd * math.sqrt(SESSIONS_PER_YEAR)) if sd > 0 else None


def best_first(frame: pd.DataFrame, r: np.ndarray) -> pd.DataFrame:
    """The sessions of `frame` (with a `date` column) with their returns `r`, largest first, the
    earliest first on a tie: the order the fragility figures drop days in."""
    return frame.assign(r=r).sort_values(["r", "date"], ascending=[False, True], kind="stable")


def best_days_kept(frame: pd.DataFrame, r: np.ndarray, drop: int) -> tuple[float | None, float | None]:
    """(the information ratio without the `drop` best sessions, its share of the whole's: None while
    the whole's is not positive)."""
    whole = information_ratio(r)
    without = information_ratio(best_first(frame, r)["r"].to_numpy()[drop:])
    if whole is None or not whole > 0 or without is None:
        return without, None
    return without, without / whole


MAX_MULTIPLE = 1e6  # a root beyond this is not searched for (costs immaterial)


def log_growth(g: np.ndarray, k: np.ndarray, m: float) -> float:
    """log prod_t (1 + g_t - m k_t), summed with log1p; -inf once a factor is not positive."""
    x = g - m * k
    return float(np.sum(np.log1p(x))) if np.all(x > -1.0) else -math.inf


def break_even_multiple(g: np.ndarray, k: np.ndarray) -> float | None:
    """m* with prod_t (1 + g_t - m* k_t) = 1, by bisection on a doubling bracket; None when the
    costs are nil or the book does not grow before costs (prod (1 + g_t) <= 1)."""
    if not float(np.sum(k)) > 0 or not log_growth(g, k, 0.0) > 0:
        return None
    high = 1.0
    while log_growth(g, k, high) > 0:
        high *= 2.0
        if high > MAX_MULTIPLE:
            return None

    def f(m: float) -> float:
        value = log_growth(g, k, m)
        return value if math.isfinite(value) else -1.0

    return float(optimize.bisect(f, 0.0, high, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=2000))


def cost_figures(ledger: pd.DataFrame) -> dict[str, Any]:
    """Flows in normalised equity, notionals in base currency (divided by equity_basis): net =
    sum(ending - starting), cost = -sum(execution_cost), gross = net + cost, traded =
    sum(turnover_notional / equity_basis); r_t = ending/starting - 1, k_t = -execution_cost_t /
    starting_t, g_t = r_t + k_t. A window without a session has no figure at all."""
    names = (
        "net_pnl",
        "execution_cost",
        "gross_pnl",
        "traded_notional",
        "break_even_multiple",
        "break_even_bps",
        "modelled_cost_bps",
        "information_ratio.net",
        "information_ratio.gross",
    )
    if ledger.empty:
        return {"sessions": 0} | dict.fromkeys(names)
    start = ledger["starting_equity"].to_numpy(float)
    end = ledger["ending_equity"].to_numpy(float)
    basis = ledger["equity_basis"].to_numpy(float)
    cost_flow = ledger["execution_cost"].to_numpy(float)
    traded = float(np.sum(ledger["turnover_notional"].to_numpy(float) / basis))
    net = float(np.sum(end - start))
    cost = -float(np.sum(cost_flow))
    r = end / start - 1.0
    k = -cost_flow / start
    g = r + k
    multiple = break_even_multiple(g, k) if cost > 0 else None
    modelled = cost / traded * 1e4 if traded > 0 else None
    return {
        "sessions": len(ledger),
        "net_pnl": net,
        "execution_cost": cost,
        "gross_pnl": net + cost,
        "traded_notional": traded,
        "break_even_multiple": multiple,
        "break_even_bps": None if multiple is None or modelled is None else multiple * modelled,
        "modelled_cost_bps": modelled,
        "information_ratio.net": information_ratio(r),
        "information_ratio.gross": information_ratio(g),
    }


def traded_score(book: str) -> str:
    """The score a book trades, and so buckets its turnover by."""
    return "raw_score" if book.startswith("raw_") else "score"


def decile_buckets(week: pd.DataFrame, field: str) -> dict[str, int]:
    """symbol -> bucket 1..10 of one week's decisions by `field`, {} when the week is not bucketed
    (fewer than 20 non-null values or fewer than 2 distinct): ordinal rank r by (value, symbol)
    ascending, bucket floor(10 (r - 1) / n) + 1."""
    scored = week[week[field].notna()]
    n = len(scored)
    if n < 20 or scored[field].nunique() < 2:
        return {}
    ordered = sorted(zip(scored[field].astype(float), scored["symbol"], strict=True))
    return {symbol: (10 * (rank - 1)) // n + 1 for rank, (_, symbol) in enumerate(ordered, start=1)}


def turnover(lake: Lake, alpha: str, book: str, window: Window) -> dict[str, Any] | None:
    """One-way turnover of the book's target weights per week of the window (each against the
    previous week), split by decile of the score the book trades; None without target weights or
    without such a week."""
    decisions = lake.decisions(alpha)
    column = f"{book}_target_weight"
    if decisions is None or column not in decisions.columns:
        return None
    dates = sorted(decisions["date"].unique())
    weeks = {d: g for d, g in decisions.groupby("date")}
    weeks_in: list[str] = []
    per_bucket: dict[int, float] = {q: 0.0 for q in range(11)}
    bucket_weeks: dict[int, int] = {q: 0 for q in range(11)}
    bucketed = 0
    weekly_turnover, weekly_gross = [], []
    for k in range(1, len(dates)):
        d = dates[k]
        if (window[0] is not None and d < window[0]) or (window[1] is not None and d > window[1]):
            continue
        now = weeks[d].set_index("symbol")[column].astype(float).fillna(0.0).to_dict()
        before = weeks[dates[k - 1]].set_index("symbol")[column].astype(float).fillna(0.0).to_dict()
        buckets = decile_buckets(weeks[d], traded_score(book))
        bucketed += bool(buckets)
        weeks_in.append(d)
        moved: dict[int, float] = {}
        for symbol in set(now) | set(before):
            q = buckets.get(symbol, 0) if symbol in now else 0
            moved[q] = moved.get(q, 0.0) + abs(now.get(symbol, 0.0) - before.get(symbol, 0.0)) / 2.0
        for q, value in moved.items():
            per_bucket[q] += value
            bucket_weeks[q] += 1
        weekly_turnover.append(sum(moved.values()))
        weekly_gross.append(sum(abs(w) for w in now.values()))
    n = len(weeks_in)
    if n == 0:
        return None  # no week of the window has a previous week: nothing to measure
    mean_turnover = float(np.mean(weekly_turnover))
    return {
        "score_field": traded_score(book),
        "weeks": n,
        "bucketed_weeks": bucketed,
        "weekly_target_turnover": finite(mean_turnover),
        "unbucketed_weekly_target_turnover": per_bucket[0] / n,
        "buckets": [
            {
                "bucket": f"Q{q}",
                "rank": q,
                "weeks": bucket_weeks[q],
                "decile_weekly_target_turnover": per_bucket[q] / bucketed if bucketed else None,
            }
            for q in range(1, 11)
        ],
        "holding_period": float(np.mean(weekly_gross)) / mean_turnover if mean_turnover > 0 else None,
    }
