"""`/analytics/factors`: factor attribution and the feature-neutral IC, recomputed from the lake's
Parquet files by independent code: the weekly factor returns by statsmodels OLS per week and by
linearmodels' Fama-MacBeth (its per-period cross-sectional estimates), the book's exposures and its
common and specific returns by pyfolio-reloaded's `perf_attrib` on the same weekly returns,
positions, factor returns and loadings, the neutral IC from statsmodels residuals and
scipy.stats.spearmanr, all within 1e-9; window sums, a window too short, what a key may read, and
an alpha without exposures (every figure not measurable with missing_kind, never zero).
"""

from __future__ import annotations

import datetime as dt
import math
import warnings
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
import statsmodels.api as sm
from scipy import stats

from pipeline.factor_tables import factor_tables
from tests.analytics.conftest import Api, Window, random_windows
from tests.analytics.helpers import check_too_short, close
from tests.analytics.reference import Lake, iso
from tests.support.build_tables import build_pandas

PATH = "/v1/alphas/{}/analytics/factors"
EXPOSED = ("momentum_12_1", "Test_planted_factor", "Test_short_term_reversal", "Test_small_universe")
WITHOUT = ("value_composite_legacy", "Test_low_vol_incomplete", "Test_ledger_only")
STYLES = ("size", "value", "momentum", "beta", "volatility")
MARGIN = 10  # names a week's regression needs beyond its regressors (docs/analytics.md)
EXPLAINED = 1e-9  # a score the loadings explain but this share of: no neutral IC (docs/analytics.md)
WEEKS_PER_YEAR = 52


def label(kind: str, name: str) -> str:
    return f"{kind}:{name}"


# -- the reference model, from the lake's files -------------------------------------------------------


@dataclass
class Model:
    """The weekly regressions and neutral ICs, computed with statsmodels and scipy."""

    styles: list[str]
    rebalances: list[str]  # every rebalance date, ascending
    frame: pd.DataFrame  # exposures joined with the decisions' forward_return, score, raw_score
    params: dict[str, pd.Series] = field(default_factory=dict)  # date -> "sector:X" / "style:s" -> f
    rsquared: dict[str, float] = field(default_factory=dict)
    nobs: dict[str, int] = field(default_factory=dict)
    neutral: dict[tuple[str, str], float | None] = field(default_factory=dict)  # (date, score column)

    def next_date(self, day: str) -> str | None:
        at = self.rebalances.index(day)
        return self.rebalances[at + 1] if at + 1 < len(self.rebalances) else None


def design(week: pd.DataFrame, styles: list[str]) -> pd.DataFrame:
    dummies = pd.get_dummies(week["sector"], dtype=float)
    dummies.columns = [label("sector", c) for c in dummies.columns]
    return pd.concat([dummies, week[styles].rename(columns=lambda s: label("style", s))], axis=1)


@cache
def model(lake: Lake, alpha: str) -> Model:
    build = lake.build(alpha)
    # The lake stores each style column as its loading (`volatility_loading`); named here as the factor.
    exposures = build_pandas(build, "exposures").rename(columns={f"{s}_loading": s for s in STYLES})
    exposures["date"] = iso(exposures["date"])
    decisions = lake.decisions(alpha)
    assert decisions is not None
    frame = exposures.merge(
        decisions[["date", "symbol", "forward_return", "score", "raw_score"]],
        on=["date", "symbol"],
        how="left",
    )
    rebalances = sorted(iso(build_pandas(build, "rebalances")["date"]))
    styles = [s for s in STYLES if exposures[s].notna().any()]
    found = Model(styles, rebalances, frame)
    for day, week in frame.groupby("date", sort=True):
        sample = week.dropna(subset=["sector", *styles, "forward_return"])
        x = design(sample, styles)
        if len(sample) >= x.shape[1] + MARGIN and np.linalg.matrix_rank(x.to_numpy()) == x.shape[1]:
            fit = sm.OLS(sample["forward_return"].to_numpy(float), x).fit()
            found.params[day] = fit.params
            found.rsquared[day] = float(fit.rsquared)
        found.nobs[day] = len(sample)
        for column in ("score", "raw_score"):
            found.neutral[(day, column)] = neutral_ic(week, column, styles)
    return found


def neutral_ic(week: pd.DataFrame, column: str, styles: list[str]) -> float | None:
    """Spearman of the score residualised (statsmodels OLS on sector dummies and styles) with the
    forward return; None where the service's rules make it not measurable."""
    sample = week.dropna(subset=["sector", *styles, column])
    x = design(sample, styles)
    if len(sample) < x.shape[1] + MARGIN or np.linalg.matrix_rank(x.to_numpy()) < x.shape[1]:
        return None
    fitted = sm.OLS(sample[column].to_numpy(float), x).fit()
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant score (a skipped week) has no R^2: NaN
        explained = fitted.rsquared
    if not explained < 1 - EXPLAINED:
        return None  # the score is a combination of the loadings: its residual is rounding noise
    residual = np.asarray(fitted.resid)
    # A name alone in its sector has leverage 1: its residual is 0 (statsmodels leaves rounding noise).
    alone = sample.groupby("sector")["sector"].transform("size").to_numpy() == 1
    residual = np.where(alone, 0.0, residual)
    pairs = pd.DataFrame({"e": residual, "r": sample["forward_return"].to_numpy(float)}).dropna()
    if len(pairs) < 3 or pairs["e"].nunique() < 2 or pairs["r"].nunique() < 2:
        return None
    return float(stats.spearmanr(pairs["e"], pairs["r"]).statistic)


def weekly_returns(lake: Lake, alpha: str, book: str, found: Model) -> pd.DataFrame:
    """Per week with a next decision: the first session after it and the book's return compounded
    over the sessions after it up to and including the next decision date."""
    ledger = lake.ledger(alpha, book)
    assert ledger is not None
    r = ledger["ending_equity"].to_numpy(float) / ledger["starting_equity"].to_numpy(float)
    dates = ledger["date"].to_numpy()
    rows = []
    for day in found.rebalances:
        following = found.next_date(day)
        if following is None:
            continue
        inside = (dates > day) & (dates <= following)
        if inside.any():
            rows.append(
                {
                    "date": day,
                    "next_date": following,
                    "first_session": dates[inside][0],
                    "sessions": int(inside.sum()),
                    "book_return": float(np.prod(r[inside]) - 1.0),
                }
            )
    return pd.DataFrame(rows)


def factors(
    api: Api, alpha: str, book: str = "long_short", window: Window = (None, None), token: str = "raw"
) -> Any:
    return api.ok(PATH.format(alpha), token, book=book, **{"from": window[0], "to": window[1]})


# -- the factor returns --------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", EXPOSED)
def test_factor_returns_are_each_weeks_ols_as_statsmodels_fits_it(api: Api, lake: Lake, alpha: str) -> None:
    found = model(lake, alpha)
    data = factors(api, alpha)["data"]
    assert data["weekly"], alpha
    for week in data["weekly"]:
        day = week["date"]
        assert week["names"] == found.nobs[day]
        assert close(week["r_squared"], found.rsquared[day]), (alpha, day)
    served_weeks = set()
    for row in data["exposures"]:
        served_weeks.add(row["date"])
        expected = found.params[row["date"]][label(row["type"], row["factor"])]
        assert close(row["factor_return"], float(expected)), (alpha, row)
    # Every factor a week estimates is in the answer, and nothing else.
    for day in served_weeks:
        served = {label(r["type"], r["factor"]) for r in data["exposures"] if r["date"] == day}
        assert served == set(found.params[day].index), day
    # Over the window (the whole history: every estimated week with a next decision), each factor's
    # return is the sum of its weekly estimates.
    estimated = [d for d in found.params if found.next_date(d) is not None]
    sums = pd.concat([found.params[d] for d in estimated], axis=1).sum(axis=1)
    assert {label(f["type"], f["factor"]) for f in data["factors"]} == set(sums.index)
    for entry in data["factors"]:
        assert close(entry["factor_return"]["value"], float(sums[label(entry["type"], entry["factor"])]))
        assert entry["factor_return"]["unit"] == "fraction"


def test_a_week_with_too_few_names_has_no_estimate(api: Api, lake: Lake) -> None:
    """The rule, on the smallest universe: regressors + MARGIN names or no estimate (and so no
    attributed week)."""
    for alpha in EXPOSED:
        found = model(lake, alpha)
        served = {w["date"] for w in factors(api, alpha)["data"]["weekly"]}
        assert served <= set(found.params), alpha
        for day, week in found.frame.groupby("date"):
            n = found.nobs[day]
            regressors = week.dropna(subset=["sector", *found.styles, "forward_return"])["sector"].nunique()
            regressors += len(found.styles)
            assert (day in found.params) == (n >= regressors + MARGIN and n > 0), (alpha, day)


def test_factor_returns_are_linearmodels_fama_macbeth_per_period_estimates(api: Api, lake: Lake) -> None:
    """linearmodels' FamaMacBeth runs the same cross-sectional OLS each period (`all_params`); in
    the weeks where every sector has names, its estimates are ours."""
    from linearmodels import FamaMacBeth

    alpha = "momentum_12_1"
    found = model(lake, alpha)
    sample = found.frame.dropna(subset=["sector", *found.styles, "forward_return"]).copy()
    sample["time"] = pd.to_datetime(sample["date"])
    x = design(sample, found.styles)
    panel = pd.concat([sample[["symbol", "time", "forward_return"]], x], axis=1).set_index(["symbol", "time"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = FamaMacBeth(panel["forward_return"], panel[list(x.columns)]).fit()
    per_period = fitted.all_params
    data = factors(api, alpha)["data"]
    checked = 0
    for row in data["exposures"]:
        stamp = pd.Timestamp(row["date"])
        if per_period.loc[stamp].isna().any():
            continue  # a sector without names that week: FamaMacBeth's design is rank deficient
        expected = per_period.loc[stamp, label(row["type"], row["factor"])]
        assert close(row["factor_return"], float(expected)), row
        checked += 1
    assert checked > 100


# -- perf_attrib ---------------------------------------------------------------------------------------


def perf_attrib_inputs(
    lake: Lake, alpha: str, book: str, weeks: list[str]
) -> tuple[pd.Series, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """pyfolio's four inputs over `weeks`, indexed by the week's decision date: the weekly returns;
    the positions as values of a book of equity 1 (the realised weights on the first session after
    the decision, recomputed from quantity x mark / ending equity) with a cash column so pyfolio's
    weights are ours; the factor returns; the loadings (a dummy per sector, the styles)."""
    found = model(lake, alpha)
    periods = weekly_returns(lake, alpha, book, found).set_index("date").loc[weeks]
    stamps = pd.to_datetime(pd.Index(weeks))
    returns = pd.Series(periods["book_return"].to_numpy(float), index=stamps)
    held = lake.positions(alpha, book)
    assert held is not None
    first = dict(zip(periods["first_session"], stamps, strict=True))
    held = held[held["date"].isin(first)]
    positions = (
        held.assign(dt=held["date"].map(first))
        .pivot_table(index="dt", columns="symbol", values="held", aggfunc="sum")
        .reindex(stamps)
        .fillna(0.0)
    )
    positions["cash"] = 1.0 - positions.sum(axis=1)
    factor_returns = pd.DataFrame([found.params[d] for d in weeks], index=stamps)
    frame = found.frame[found.frame["date"].isin(weeks)]
    loadings = design(frame, found.styles).reindex(columns=factor_returns.columns, fill_value=0.0)
    loadings.index = pd.MultiIndex.from_arrays(
        [pd.to_datetime(frame["date"]), frame["symbol"]], names=["dt", "ticker"]
    )
    return returns, positions, factor_returns, loadings


@pytest.mark.parametrize("alpha", EXPOSED)
@pytest.mark.parametrize("book", ["long_short", "long_only", "raw_long_short"])
def test_perf_attrib_reproduces_the_exposures_and_the_common_and_specific_returns(
    api: Api, lake: Lake, alpha: str, book: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyfolio warns of zipline's absence and of names without loadings
        from pyfolio.perf_attrib import perf_attrib

        data = factors(api, alpha, book)["data"]
        weeks = [w["date"] for w in data["weekly"]]
        # The weekly returns are the ledger's, compounded over each holding period.
        expected = weekly_returns(lake, alpha, book, model(lake, alpha)).set_index("date")
        for week in data["weekly"]:
            assert week["next_date"] == expected.loc[week["date"], "next_date"]
            assert week["sessions"] == expected.loc[week["date"], "sessions"]
            assert close(week["book_return"], float(expected.loc[week["date"], "book_return"])), week
        exposures, attribution = perf_attrib(*perf_attrib_inputs(lake, alpha, book, weeks))
    for row in data["exposures"]:
        stamp, column = pd.Timestamp(row["date"]), label(row["type"], row["factor"])
        assert close(row["exposure"], float(exposures.loc[stamp, column])), row
        assert close(row["part"], float(attribution.loc[stamp, column])), row
    for week in data["weekly"]:
        stamp = pd.Timestamp(week["date"])
        assert close(week["common_return"], float(attribution.loc[stamp, "common_returns"])), week
        assert close(week["specific_return"], float(attribution.loc[stamp, "specific_returns"])), week


# -- the feature-neutral IC ----------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", EXPOSED)
@pytest.mark.parametrize("book", ["long_short", "raw_long_only"])
def test_the_neutral_ic_ranks_statsmodels_residuals_with_scipy(
    api: Api, lake: Lake, alpha: str, book: str
) -> None:
    found = model(lake, alpha)
    raw = book.startswith("raw_")
    column = "raw_score" if raw else "score"
    ic = factors(api, alpha, book)["data"]["ic"]
    assert ic["signal"] == column
    signal = lake.weekly_signal(alpha)
    assert signal is not None
    plain = dict(zip(signal["date"], signal["raw_ic" if raw else "ic"], strict=True))
    measured = []
    for week in ic["weeks"]:
        expected = found.neutral.get((week["date"], column))
        assert close(week["neutral_ic"], expected), (alpha, week)
        assert close(week["ic"], None if math.isnan(plain[week["date"]]) else float(plain[week["date"]]))
        if expected is not None:
            measured.append(expected)
    assert close(ic["mean_neutral_ic"]["value"], float(np.mean(measured)) if measured else None)
    if not measured:  # momentum_12_1's raw score is its momentum loading, week after week
        assert "explain entirely" in ic["mean_neutral_ic"]["withheld_reason"]


def test_the_planted_factor_is_specific_and_momentum_is_common(api: Api) -> None:
    """Test_planted_factor trades a latent characteristic that is no loading: most of its book's
    weekly variance is specific, and its neutral IC keeps most of its IC; momentum_12_1 trades a
    loading (momentum): its variance is mostly the factors', and neutralising takes its IC away."""
    planted = factors(api, "Test_planted_factor")["data"]
    momentum = factors(api, "momentum_12_1")["data"]
    assert planted["variance_explained"]["value"] < 0.5 < momentum["variance_explained"]["value"]
    p, m = planted["ic"], momentum["ic"]
    assert p["mean_neutral_ic"]["value"] > 0.5 * p["attributed_mean_ic"]["value"] > 0
    assert m["mean_neutral_ic"]["value"] < 0.5 * m["attributed_mean_ic"]["value"]


# -- windows -------------------------------------------------------------------------------------------


def in_window(day: str, following: str | None, window: Window) -> bool:
    start, end = window
    return (start is None or day >= start) and (end is None or (following is not None and following <= end))


@pytest.mark.parametrize("alpha", EXPOSED)
def test_a_window_sums_its_weeks(api: Api, lake: Lake, alpha: str) -> None:
    whole = factors(api, alpha, "long_only")["data"]
    found = model(lake, alpha)
    for window in random_windows(f"factors/{alpha}", count=4)[1:]:
        response = api.get(
            PATH.format(alpha), "raw", book="long_only", **{"from": window[0], "to": window[1]}
        )
        if response.status_code == 400:
            complete = [
                d for d in found.rebalances if found.next_date(d) and in_window(d, found.next_date(d), window)
            ]
            assert len(complete) < 2, window
            continue
        data = response.json()["data"]
        weekly = [w for w in whole["weekly"] if in_window(w["date"], w["next_date"], window)]
        assert data["weekly"] == weekly
        assert data["weeks"] == len(weekly)
        assert data["exposures"] == [
            e for e in whole["exposures"] if e["date"] in {w["date"] for w in weekly}
        ]
        frame = pd.DataFrame(weekly)
        for name, total in (
            ("book_return", "sum_of_weekly_returns"),
            ("common_return", "sum_of_weekly_common_returns"),
            ("specific_return", "sum_of_weekly_specific_returns"),
        ):
            expected = float(frame[name].sum()) if weekly else None
            assert close(data[total]["value"], expected), (window, total)
        if len(weekly) >= 2:
            s, r = frame["specific_return"].to_numpy(), frame["book_return"].to_numpy()
            ir = s.mean() / s.std(ddof=1) * math.sqrt(WEEKS_PER_YEAR)
            assert close(data["specific_information_ratio"]["value"], ir)
            assert data["specific_information_ratio"]["periods_per_year"] == WEEKS_PER_YEAR
            assert close(data["variance_explained"]["value"], 1 - s.var(ddof=1) / r.var(ddof=1))
        exposures = pd.DataFrame(data["exposures"])
        for entry in data["factors"]:
            mine = exposures[(exposures["factor"] == entry["factor"]) & (exposures["type"] == entry["type"])]
            assert close(entry["mean_exposure"]["value"], float(mine["exposure"].mean()))
            assert close(entry["part"]["value"], float(mine["part"].sum()))
        ic_weeks = [
            w for w in whole["ic"]["weeks"] if in_window(w["date"], found.next_date(w["date"]), window)
        ]
        assert data["ic"]["weeks"] == ic_weeks
        ics = [w["ic"] for w in ic_weeks if w["ic"] is not None]
        assert close(data["ic"]["attributed_mean_ic"]["value"], float(np.mean(ics)) if ics else None)


@pytest.mark.parametrize(
    ("window", "weeks"), [(("2021-06-30", "2021-07-02"), 0), (("2021-06-04", "2021-06-16"), 1)]
)
def test_a_window_too_short_is_a_400(api: Api, window: Window, weeks: int) -> None:
    check_too_short(api, PATH.format("momentum_12_1"), window, weeks, book="long_short")


# -- without exposures, access, bad input --------------------------------------------------------------


def stats_of(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every stat entry of the answer, by path."""
    out = {
        name: data[name]
        for name in (
            "sum_of_weekly_returns",
            "sum_of_weekly_common_returns",
            "sum_of_weekly_specific_returns",
            "specific_information_ratio",
            "variance_explained",
        )
    }
    out |= {f"ic.{name}": data["ic"][name] for name in ("attributed_mean_ic", "mean_neutral_ic")}
    for entry in data["factors"]:
        for name in ("mean_exposure", "factor_return", "part"):
            out[f"factors.{entry['factor']}.{name}"] = entry[name]
    return out


@pytest.mark.parametrize("alpha", WITHOUT)
def test_without_exposures_every_factor_figure_is_not_measurable(api: Api, alpha: str) -> None:
    body = factors(api, alpha)
    data = body["data"]
    assert (
        data["weeks"] is None and data["factors"] == [] and data["weekly"] == [] and data["exposures"] == []
    )
    for path, entry in stats_of(data).items():
        if path == "ic.attributed_mean_ic" and alpha != "Test_ledger_only":
            assert entry["status"] == "available"  # the plain IC needs no exposures
            continue
        assert entry["value"] is None and entry["status"] == "not_measurable", (alpha, path)
        assert entry["withheld_reason"].startswith("missing_kind: "), (alpha, path, entry)
    warned = {w.get("kind") for w in body["meta"]["warnings"] if w["code"] == "kind_missing"}
    assert "exposures" in warned


@pytest.mark.parametrize(
    ("token", "needed"),
    [
        ("no_portfolio", "portfolio.ledger"),
        # The book's exposures are its realised weights times the loadings: they tell about its
        # positions, so the ledger alone does not open them.
        ("no_positions", "portfolio.positions"),
    ],
)
def test_a_key_without_the_ledger_or_the_positions_sees_the_factors_but_not_the_book(
    api: Api, token: str, needed: str
) -> None:
    body = factors(api, "momentum_12_1", token=token)
    data = body["data"]
    assert data["weeks"] is None and data["weekly"] == [] and data["exposures"] == []
    for path, entry in stats_of(data).items():
        if path.endswith(("factor_return", "attributed_mean_ic", "mean_neutral_ic")):
            assert entry["status"] == "available", path
        else:
            assert entry["withheld_reason"].startswith("access_limited: "), path
            assert needed in entry["withheld_reason"], path
    assert any(w["code"] == "access_limited" for w in body["meta"]["warnings"])


def test_a_key_without_the_cross_sections_sees_no_factor_figure(api: Api) -> None:
    data = factors(api, "momentum_12_1", token="no_signals")["data"]
    assert data["factors"] == [] and data["ic"]["weeks"] == []
    for path, entry in stats_of(data).items():
        assert entry["withheld_reason"].startswith("access_limited: "), path


def test_bad_parameters_are_400s_naming_them(api: Api) -> None:
    path = PATH.format("momentum_12_1")
    response = api.get(path, "raw", book="nope")
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_book"
    response = api.get(path, "plain", book="raw_long_short")
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_book"
    for params, names in (
        ({"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ({"from": "2021-02-30"}, {"from"}),
    ):
        response = api.get(path, "raw", **params)
        assert response.status_code == 400, response.text
        assert {p["name"] for p in response.json()["error"]["details"]["parameters"]} == names


def test_every_served_path_is_documented(api: Api) -> None:
    from tests.support.doc_paths import paths

    fields = api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]
    served: set[str] = {"factors"}
    for alpha in ("momentum_12_1", "value_composite_legacy"):
        for token in ("raw", "no_portfolio"):
            served |= paths(factors(api, alpha, token=token)["data"], "factors")
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented
    assert "factors.exposures[].exposure" in served and "factors.ic.weeks[].neutral_ic" in served


# -- the pipeline's tables on a made-up week ---------------------------------------------------------


def random_decisions(exposures: pl.DataFrame, rng: np.random.Generator) -> pl.DataFrame:
    """A decisions table over the rows of `exposures`: random forward returns and scores."""
    n = exposures.height
    return exposures.select(
        "date",
        "symbol",
        forward_return=pl.Series(rng.normal(0, 0.02, n)),
        score=pl.Series(rng.standard_normal(n)),
        raw_score=pl.Series(rng.standard_normal(n)),
    )


def test_a_style_null_throughout_is_left_out_and_a_thin_week_has_no_estimate() -> None:
    """A seal whose engine models two styles: the other three are no regressors; a week with fewer
    names than regressors + 10 has no estimate; an empty exposures table writes empty tables."""
    rng = np.random.default_rng(36)
    days = [dt.date(2024, 1, 5), dt.date(2024, 1, 12), dt.date(2024, 1, 19)]
    sizes = {days[0]: 40, days[1]: 14, days[2]: 40}  # 3 sectors + 2 styles + 10 = 15 > 14
    rows = [
        {"date": d, "symbol": f"N{i:02d}", "sector": ("Energy", "Utilities", "Financials")[i % 3]}
        for d in days
        for i in range(sizes[d])
    ]
    exposures = pl.DataFrame(rows).with_columns(
        size=pl.Series(rng.standard_normal(len(rows))),
        value=pl.Series(rng.standard_normal(len(rows))),
        momentum=pl.lit(None, pl.Float64),
        beta=pl.lit(None, pl.Float64),
        volatility=pl.lit(None, pl.Float64),
        adv=pl.lit(1e7),
    )
    decisions = random_decisions(exposures, rng)
    tables = factor_tables(exposures, decisions, pl.Series("date", days), {}, {})
    weeks, returns = tables["analytics_factor_weeks"], tables["analytics_factor_returns"]
    assert weeks["regressors"].to_list() == [5, 5, 5]
    assert weeks["r_squared"].is_null().to_list() == [False, True, False]
    assert set(returns["date"].to_list()) == {days[0], days[2]}
    week = exposures.join(decisions, on=["date", "symbol"]).filter(pl.col("date") == days[0]).to_pandas()
    fit = sm.OLS(week["forward_return"], design(week, ["size", "value"])).fit()
    mine = returns.filter(pl.col("date") == days[0])
    for kind, factor, value in mine.select("factor_type", "factor", "factor_return").iter_rows():
        assert close(value, float(fit.params[label(kind, factor)]))
    assert close(weeks["r_squared"][0], float(fit.rsquared))
    empty = factor_tables(exposures.clear(), decisions, pl.Series("date", days), {}, {})
    assert {name: frame.height for name, frame in empty.items()} == {
        "analytics_factor_weeks": 0,
        "analytics_factor_returns": 0,
    }


def test_a_book_without_positions_has_no_attribution_rows() -> None:
    """Its exposures are its realised weights: without positions nothing is measured (never a book
    whose exposures are 0 and whose return is all specific)."""
    rng = np.random.default_rng(7)
    days = [dt.date(2024, 1, 5), dt.date(2024, 1, 12), dt.date(2024, 1, 19)]
    rows = [
        {"date": d, "symbol": f"N{i:02d}", "sector": ("Energy", "Utilities")[i % 2]}
        for d in days
        for i in range(30)
    ]
    exposures = pl.DataFrame(rows).with_columns(
        **{
            s: pl.Series(rng.standard_normal(len(rows)))
            for s in ("size", "value", "momentum", "beta", "volatility")
        },
        adv=pl.lit(1e7),
    )
    decisions = random_decisions(exposures, rng)
    sessions = pl.date_range(days[0], days[-1], eager=True)
    equity = 1.0 + np.cumsum(rng.normal(0, 0.01, sessions.len()))
    ledger = pl.DataFrame(
        {"date": sessions, "starting_equity": np.r_[1.0, equity[:-1]], "ending_equity": equity}
    )
    tables = factor_tables(exposures, decisions, pl.Series("date", days), {"long_short": ledger}, {})
    assert "analytics_factor_returns" in tables
    assert "analytics_factor_attribution" not in tables and "analytics_factor_exposures" not in tables


def test_forward_returns_equal_up_to_rounding_have_no_r_squared() -> None:
    """A week whose forward returns differ only in their last bits has no measurable variance
    (analytics.variance's rule): no R², never a ratio of two rounding errors."""
    from analytics import factor_model

    rng = np.random.default_rng(5)
    sectors = np.array(["Energy", "Utilities"] * 20, dtype=object)
    styles = rng.standard_normal((40, 2))
    found = factor_model.design(sectors, styles, ("size", "value"))
    flat = 0.01 + (np.arange(40) % 3) * 2e-17  # a few ulps apart: a positive sum of squares of rounding size
    fitted = factor_model.fit(flat, found)
    assert fitted is not None and math.isnan(fitted.r_squared)
    moving = factor_model.fit(rng.normal(0, 0.02, 40), found)
    assert moving is not None and 0.0 <= moving.r_squared <= 1.0


@pytest.mark.parametrize("alpha", EXPOSED)
def test_the_running_sums_are_the_windows_weekly_returns_summed_to_date(api: Api, alpha: str) -> None:
    """running_sums[]: the book's, common and specific weekly returns of the window summed up to each
    attributed week (pandas' cumsum over the served weekly rows; a null week adds nothing and is null),
    the last row the window's sums."""
    for window in random_windows(f"factors/running/{alpha}", count=3):
        response = api.get(
            PATH.format(alpha), "raw", book="long_short", **{"from": window[0], "to": window[1]}
        )
        if response.status_code == 400:  # too few weeks in the window
            continue
        data = response.json()["data"]
        weekly = pd.DataFrame(data["weekly"])
        sums = pd.DataFrame(data["running_sums"])
        assert list(sums["date"]) == list(weekly["date"]), window
        for part, total in (
            ("book_return", "sum_of_weekly_returns"),
            ("common_return", "sum_of_weekly_common_returns"),
            ("specific_return", "sum_of_weekly_specific_returns"),
        ):
            values = weekly[part].astype(float)
            expected = values.cumsum().where(values.notna())  # pandas skips NaN in cumsum
            served = sums[total].astype(float)
            assert np.allclose(served, expected, rtol=1e-12, atol=1e-15, equal_nan=True), (window, total)
            if data[total]["value"] is not None:
                assert math.isclose(served.iloc[-1], data[total]["value"], rel_tol=1e-12, abs_tol=1e-15)
