"""/analytics/risk against an independent recomputation (pandas, numpy, statsmodels) from the
ledger's Parquet files and SPY's sealed closes, for every ledger book of every alpha over random
windows; the access rules (the ledger, SPY's series, the alpha allow-list), bad parameters, too
short windows, the ETag over both builds, the documentation of every served path; and
`analytics.risk` itself on synthetic series."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from tests.analytics import reference as ref
from tests.analytics.conftest import (
    ALPHAS,
    BOOKS,
    CALLERS,
    EDGE_WINDOWS,
    Api,
    Window,
    endpoints_only,
    random_windows,
    serving,
)
from tests.analytics.helpers import check_stat, check_too_short, check_withheld, close
from tests.callers import DATA_IDS
from tests.support.risk_figures import (
    MIN_SESSIONS,
    MIN_TAIL,
    NO_BENCHMARK,
    PATH,
    P,
    restated_in,
    risk,
    without_restated,
)
from tests.support.risk_figures import (
    spy as spy,  # a fixture
)

OWN = ("sortino", "cagr", "max_drawdown_pct", "calmar", "tail_ratio", "var_95", "cvar_95")
PERIODS = tuple(f"{side}_{name}" for name in ("day", "week", "month") for side in ("best", "worst"))
RELATIVE = ("beta", "alpha", "tracking_error")
UNITS = {
    "sortino": "ratio",
    "cagr": "fraction",
    "max_drawdown_pct": "percentage_points",
    "calmar": "ratio",
    "tail_ratio": "ratio",
    "var_95": "fraction",
    "cvar_95": "fraction",
    "beta": "ratio",
    "alpha": "fraction",
    "tracking_error": "fraction",
} | dict.fromkeys(PERIODS, "fraction")
ANNUALISED = {"sortino", "cagr", "calmar", "alpha", "tracking_error"}
NEITHER = endpoints_only(frozenset(DATA_IDS - {"benchmarks.daily", "portfolio.ledger"}))


# -- the independent reference ------------------------------------------------------------------------


def period_extremes(r: pd.Series, freq: str | None) -> dict[str, dict[str, Any] | None]:
    """Best and worst compounded return of each pandas period (None: each session), dated by the
    period's last session; the earliest on a tie (idxmax / idxmin keep the first)."""
    if r.empty:
        return {"best": None, "worst": None}
    index = pd.DatetimeIndex(pd.to_datetime(r.index))
    s = pd.Series(r.to_numpy(), index=index)
    groups = s.groupby(np.arange(s.size) if freq is None else index.to_period(freq))
    frame = pd.DataFrame(
        {
            "value": groups.apply(lambda x: float(np.prod(1.0 + x.to_numpy()) - 1.0)),
            "date": groups.apply(lambda x: x.index[-1].date().isoformat()),
            "sessions": groups.size(),
        }
    ).reset_index(drop=True)
    best, worst = frame.loc[frame["value"].idxmax()], frame.loc[frame["value"].idxmin()]
    return {
        side: {"value": float(row["value"]), "date": row["date"], "sessions": int(row["sessions"])}
        for side, row in (("best", best), ("worst", worst))
    }


def expected_risk(r: pd.Series, b: pd.Series) -> dict[str, Any]:
    """Every figure of the answer from the window's daily returns r and SPY's b on r's dates."""
    n = r.size
    out: dict[str, Any] = {"sessions": n}
    both = r.notna() & b.notna()
    y, x = r[both].to_numpy(float), b[both].to_numpy(float)
    out["observations"] = int(y.size)
    if y.size >= MIN_SESSIONS:
        fit = sm.OLS(y, sm.add_constant(x, has_constant="add")).fit()
        intercept, slope = (float(v) for v in fit.params)
        out |= {"beta": slope, "alpha": intercept * P}
        out["tracking_error"] = float(pd.Series(y - x).std(ddof=1)) * math.sqrt(P)
    else:
        out |= dict.fromkeys(RELATIVE)
    v = r.to_numpy(float)
    if n >= MIN_SESSIONS:
        downside = math.sqrt(float(np.mean(np.clip(v, None, 0.0) ** 2)))
        out["sortino"] = v.mean() * P / (downside * math.sqrt(P)) if downside > 0 else None
        out["cagr"] = float(np.prod(1.0 + v)) ** (P / n) - 1.0
    else:
        out |= {"sortino": None, "cagr": None}
    if n:
        equity = pd.Series(np.concatenate([[1.0], np.cumprod(1.0 + v)]))
        # Percentage points of the peak, as /metrics core.max_drawdown_pct.
        out["max_drawdown_pct"] = float((1.0 - equity / equity.cummax()).max()) * 100
    else:
        out["max_drawdown_pct"] = None
    mdd = out["max_drawdown_pct"]
    # Calmar divides by the drawdown as a fraction of the peak.
    out["calmar"] = (
        out["cagr"] / (mdd / 100) if out["cagr"] is not None and mdd is not None and mdd > 0 else None
    )
    if n >= MIN_TAIL:
        low, high = float(r.quantile(0.05)), float(r.quantile(0.95))  # pandas' default is linear
        out["tail_ratio"] = abs(high) / abs(low) if low != 0 else None
        out["var_95"] = low
        out["cvar_95"] = float(r[r <= low].mean())
    else:
        out |= {"tail_ratio": None, "var_95": None, "cvar_95": None}
    for name, freq in (("day", None), ("week", "W-FRI"), ("month", "M")):
        found = period_extremes(r, freq)
        out[f"best_{name}"], out[f"worst_{name}"] = found["best"], found["worst"]
    return out


# -- the API ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def risk_api(demo_lake: Path) -> Iterator[Api]:
    """The analytics callers, plus `no_benchmark` (every data endpoint but benchmarks.daily) and
    `neither` (nor portfolio.ledger)."""
    with serving(demo_lake, {**CALLERS, "no_benchmark": NO_BENCHMARK, "neither": NEITHER}) as found:
        yield found


def check_figures(data: dict[str, Any], expected: dict[str, Any], basis: str, where: Any) -> None:
    assert data["sessions"] == expected["sessions"], where
    relative = data["benchmark"]
    assert relative["symbol"] == "SPY" and relative["return_basis"] == basis, where
    assert relative["observations"] == expected["observations"], where
    for name in RELATIVE:
        check_stat(relative[name], expected[name], (*where, name))
    for name in OWN:
        check_stat(data[name], expected[name], (*where, name))
    for name in PERIODS:
        entry, want = data[name], expected[name]
        check_stat(entry, None if want is None else want["value"], (*where, name))
        if want is not None:
            assert (entry["date"], entry["sessions"]) == (want["date"], want["sessions"]), (
                where,
                name,
                entry,
            )
    for name, unit in UNITS.items():
        entry = relative[name] if name in RELATIVE else data[name]
        assert entry["unit"] == unit, (where, name, entry)
        assert entry["annualisation"] == ("annualised" if name in ANNUALISED else "not_annualisable")
        if name in ANNUALISED:
            assert entry["periods_per_year"] == P, (where, name)
    for name in ("var_95", "cvar_95"):
        assert (data[name]["confidence"], data[name]["horizon_sessions"]) == (0.95, 1), where


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", BOOKS)
def test_risk_reproduces_over_random_windows(
    risk_api: Api, lake: ref.Lake, spy: tuple[str, pd.Series], alpha: str, book: str
) -> None:
    basis, spy_returns = spy
    whole = len(lake.returns(alpha, book, (None, None)))
    for window in random_windows(f"risk:{alpha}:{book}") + EDGE_WINDOWS:
        r = lake.returns(alpha, book, window)
        b = spy_returns.reindex(r.index)
        if len(r) < MIN_SESSIONS <= whole:
            # A window too short for any figure, in a history long enough: the caller's to fix.
            check_too_short(risk_api, PATH.format(alpha=alpha), window, len(r), book=book)
            continue
        body = risk(risk_api, alpha, book, window)
        check_figures(body["data"], expected_risk(r, b), basis, (alpha, book, window))
        # Nothing degraded; a window holding a session a later run restated says so (issue 64).
        assert [w["code"] for w in body["meta"].get("warnings", [])] in ([], ["restated"]), body["meta"]


def test_the_demo_exercises_the_figures(lake: ref.Lake, spy: tuple[str, pd.Series]) -> None:
    """Guards the test above: SPY has a return on every session of the books (the demo's SPY starts
    first; the unit tests plant sessions without one), months of many sessions, measured and
    unmeasured tail figures; alpha and beta far from 0."""
    _, spy_returns = spy
    r = lake.returns("momentum_12_1", "long_short", (None, None))
    whole = expected_risk(r, spy_returns.reindex(r.index))
    assert whole["observations"] == r.size and r.size > 250
    assert abs(whole["beta"]) > 0.01 and abs(whole["alpha"]) > 0.01
    assert whole["max_drawdown_pct"] > 0 and whole["calmar"] is not None and whole["tail_ratio"] is not None
    assert whole["best_month"]["sessions"] > 15
    assert spy_returns.index[0] < r.index[0]
    short = expected_risk(*(s.iloc[:2] for s in (r, spy_returns.reindex(r.index))))
    assert short["var_95"] is None and short["cagr"] is not None


@pytest.mark.parametrize(
    ("window", "measured", "unmeasured"),
    [
        (("2021-01-08", "2021-01-11"), {"sortino", "cagr", "beta"}, {"tail_ratio", "var_95", "cvar_95"}),
    ],
)
def test_too_few_sessions_say_so(
    risk_api: Api, window: Window, measured: set[str], unmeasured: set[str]
) -> None:
    """Below each figure's minimum: null, not_measurable, a reason naming the count; never 0."""
    data = risk(risk_api, "momentum_12_1", "long_short", window)["data"]
    entries = {**data, **data["benchmark"]}
    for name in measured:
        assert entries[name]["status"] == "available", (name, entries[name])
    for name in unmeasured:
        entry = entries[name]
        assert entry["value"] is None and entry["status"] == "not_measurable", (name, entry)
        assert "fewer than" in entry["withheld_reason"] or "no session" in entry["withheld_reason"], entry


@pytest.mark.parametrize(
    ("window", "sessions"), [(("2022-03-11", None), 1), (("2019-01-01", "2019-12-31"), 0)]
)
def test_a_window_too_short_for_any_figure_is_a_400(risk_api: Api, window: Window, sessions: int) -> None:
    """Fewer sessions than any figure needs, in a history that holds enough: bad input, named."""
    check_too_short(risk_api, PATH.format(alpha="momentum_12_1"), window, sessions, book="long_short")


# -- access -------------------------------------------------------------------------------------------


def test_a_key_without_the_ledger_gets_every_figure_withheld(risk_api: Api) -> None:
    body = risk(risk_api, "momentum_12_1", "long_short", (None, None), "no_portfolio")
    data = body["data"]
    assert data["sessions"] is None and data["benchmark"]["observations"] is None
    for name in (*OWN, *PERIODS):
        check_withheld(data[name], name)
        assert "portfolio.ledger" in data[name]["withheld_reason"]
    for name in RELATIVE:
        check_withheld(data["benchmark"][name], name)
    warnings = body["meta"]["warnings"]
    assert [(w["code"], w["block"]) for w in warnings] == [("access_limited", "risk")], warnings


def test_a_key_without_spy_gets_the_benchmark_figures_withheld(
    risk_api: Api, lake: ref.Lake, spy: tuple[str, pd.Series]
) -> None:
    basis, spy_returns = spy
    window = ("2021-03-01", "2021-12-31")
    body = risk(risk_api, "momentum_12_1", "long_short", window, "no_benchmark")
    data = body["data"]
    relative = data["benchmark"]
    assert relative["symbol"] == "SPY" and relative["return_basis"] is None
    assert relative["observations"] is None
    for name in RELATIVE:
        check_withheld(relative[name], name)
        assert "benchmarks.daily" in relative[name]["withheld_reason"], relative[name]
    # The window holds sessions the demo's vendor correction restated: said apart (issue 64).
    warnings = without_restated(
        body["meta"]["warnings"], "momentum_12_1", restated_in(lake.root, "momentum_12_1", window)
    )
    assert [(w["code"], w["block"]) for w in warnings] == [("access_limited", "risk.benchmark")], warnings
    # The book's own figures are served as to any key.
    r = lake.returns("momentum_12_1", "long_short", window)
    expected = expected_risk(r, spy_returns.reindex(r.index))
    assert data["sessions"] == expected["sessions"]
    for name in OWN:
        check_stat(data[name], expected[name], name)


def test_a_key_without_either_gets_both_warnings(risk_api: Api) -> None:
    """The ledger's reason comes first in the benchmark figures: either one withholds them."""
    body = risk(risk_api, "momentum_12_1", "long_short", (None, None), "neither")
    for name in RELATIVE:
        entry = body["data"]["benchmark"][name]
        check_withheld(entry, name)
        assert "portfolio.ledger" in entry["withheld_reason"], entry
    blocks = [(w["code"], w["block"]) for w in body["meta"]["warnings"]]
    assert blocks == [("access_limited", "risk"), ("access_limited", "risk.benchmark")], blocks


def test_the_etag_depends_on_spy_and_answers_304(risk_api: Api) -> None:
    path = PATH.format(alpha="momentum_12_1")
    full = risk_api.get(path, "plain")
    tag = full.headers["etag"]
    again = risk_api.get(path, "plain", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    # The same path and query over the run's build alone (SPY not read) is another tag.
    without = risk_api.get(path, "no_benchmark")
    assert without.status_code == 200 and without.headers["etag"] != tag
    other = risk_api.get(path, "plain", headers={"If-None-Match": tag}, to="2021-10-31")
    assert other.status_code == 200 and other.headers["etag"] != tag


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


def test_authorisation_before_lookup(risk_api: Api) -> None:
    for alpha in ("momentum_12_1", "nope_alpha"):
        error_of(risk_api.get(PATH.format(alpha=alpha), "testonly"), 403, "run_not_allowed")
    error_of(risk_api.get(PATH.format(alpha="Test_no_such_alpha"), "testonly"), 404, "run_not_found")
    error_of(risk_api.get(PATH.format(alpha="no_such_alpha")), 404, "run_not_found")
    error = error_of(
        risk_api.get(PATH.format(alpha="momentum_12_1"), "no_analytics"), 403, "endpoint_not_allowed"
    )
    assert "analytics.risk" in error["message"] or "analytics.risk" in str(error.get("details"))
    assert risk_api.get(PATH.format(alpha="Test_planted_factor"), "testonly").status_code == 200


def test_bad_parameters(risk_api: Api) -> None:
    path = PATH.format(alpha="momentum_12_1")
    error = error_of(risk_api.get(path, book="nope"), 400, "unknown_book")
    assert error["details"]["book"] == "nope"
    plain = error_of(risk_api.get(path, "plain", book="raw_long_short"), 400, "unknown_book")
    assert not any(b.startswith("raw_") for b in plain["details"]["available"])
    for params, names in (
        ({"from": "2022-01-01", "to": "2021-01-01"}, {"from", "to"}),
        ({"from": "2021-02-30"}, {"from"}),
        ({"window": 13}, {"window"}),
    ):
        error = error_of(risk_api.get(path, **params), 400, "bad_request")
        assert {p["name"] for p in error["details"]["parameters"]} == names, error


def test_every_served_path_is_documented(risk_api: Api) -> None:
    from tests.support.doc_paths import paths

    fields = risk_api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]
    served: set[str] = {"risk"}
    for alpha in ("momentum_12_1", "Test_ledger_only"):
        for window in [(None, None), EDGE_WINDOWS[0]]:  # the other edges are 400s (too short)
            for token in ("raw", "no_portfolio", "no_benchmark"):
                for book in ("long_short", "raw_long_only"):
                    if token != "raw" and book.startswith("raw_"):
                        continue
                    body = risk(risk_api, alpha, book, window, token)
                    served |= paths(body["data"], "risk")
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented
    assert "risk.benchmark.alpha.periods_per_year" in served and "risk.best_week.date" in served
    assert "risk.cvar_95.withheld_reason" in served


# -- analytics.risk itself on synthetic series ----------------------------------------------------------


def unit() -> Any:
    from analytics import risk as module  # the module under test, for these unit tests only

    return module


def test_regression_recovers_a_planted_beta_and_alpha() -> None:
    rng = np.random.default_rng(5)
    b = 0.01 * rng.standard_normal(300)
    noise = 0.002 * rng.standard_normal(300)
    r = 0.0004 + 1.5 * b + noise
    b[[0, 7]] = np.nan  # sessions without a benchmark return are left out
    found = unit().relative(r, b, P)
    keep = np.isfinite(b)
    fit = sm.OLS(r[keep], sm.add_constant(b[keep])).fit()
    assert found.observations == 298
    assert close(found.beta.value, float(fit.params[1])) and close(
        found.alpha.value, float(fit.params[0]) * P
    )
    assert abs(found.beta.value - 1.5) < 0.05
    assert close(found.tracking_error.value, float(np.std(r[keep] - b[keep], ddof=1)) * math.sqrt(P))


def test_a_constant_benchmark_has_no_beta_but_a_tracking_error() -> None:
    found = unit().relative(np.array([0.01, -0.02, 0.005]), np.full(3, 0.001), P)
    assert math.isnan(found.beta.value) and "variance" in found.beta.why_not
    assert math.isnan(found.alpha.value)
    assert close(found.tracking_error.value, float(np.std([0.009, -0.021, 0.004], ddof=1)) * math.sqrt(P))


def test_drawdown_counts_the_start_and_calmar_needs_a_fall() -> None:
    module = unit()
    falls = module.risk_figures(np.array([-0.1, 0.05, 0.02]), np.array([18000, 18001, 18002]), P)
    assert close(falls.max_drawdown_pct.value, 10.0)  # from the start at 1.0, before any gain
    rises = module.risk_figures(np.array([0.01, 0.02, 0.0]), np.array([18000, 18001, 18002]), P)
    assert rises.max_drawdown_pct.value == 0.0
    assert math.isnan(rises.calmar.value) and rises.calmar.why_not == "no drawdown in the window"
    assert math.isnan(rises.sortino.value) and "no session lost" in rises.sortino.why_not


def test_weeks_end_on_friday_as_pandas_w_fri() -> None:
    days = np.arange(18000, 18400, dtype=np.int32)  # weekends included
    dates = pd.to_datetime(days, unit="D")
    expected = dates.to_period("W-FRI").end_time.normalize()
    got = pd.to_datetime(unit().week_ends(days), unit="D")
    assert (got == expected).all()


def test_period_extremes_compound_and_keep_the_earliest_tie() -> None:
    rng = np.random.default_rng(9)
    days = np.sort(rng.choice(np.arange(18000, 18200), size=120, replace=False)).astype(np.int32)
    r = 0.01 * rng.standard_normal(days.size)
    r[[3, 40]] = 0.2  # a tie for the best session: the first one wins
    found = unit().risk_figures(r, days, P)
    series = pd.Series(r, index=pd.to_datetime(days, unit="D").strftime("%Y-%m-%d"))
    for name, freq in (("day", None), ("week", "W-FRI"), ("month", "M")):
        want = period_extremes(series, freq)
        for side in ("best", "worst"):
            got = getattr(getattr(found, name), side)
            assert close(got.value, want[side]["value"]), (name, side)  # type: ignore[index]
            day = (pd.Timestamp("1970-01-01") + pd.Timedelta(days=got.day)).date().isoformat()
            assert (day, got.sessions) == (want[side]["date"], want[side]["sessions"])  # type: ignore[index]
    assert found.day.best.day == days[3]


def test_tail_figures_need_twenty_sessions_and_a_nonzero_lower_tail() -> None:
    module = unit()
    days = np.arange(18000, 18019, dtype=np.int32)
    short = module.risk_figures(np.linspace(-0.01, 0.01, 19), days, P)
    assert math.isnan(short.var_95.value) and short.var_95.why_not == "fewer than 20 sessions in the window"
    r = np.concatenate([np.zeros(18), [0.01, 0.02]])
    flat = module.risk_figures(r, np.arange(18000, 18020, dtype=np.int32), P)
    assert flat.var_95.value == 0.0 and math.isnan(flat.tail_ratio.value)
    assert flat.cvar_95.value == 0.0
