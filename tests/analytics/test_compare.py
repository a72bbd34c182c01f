"""/analytics/compare against an independent recomputation from the lake's Parquet files (pandas
for the common dates, the curves and the rolling correlations; scipy.stats.ttest_rel for the
paired t-tests; the Jobson-Korkie test with Memmel's correction written out from its formula), on
random pairs of alphas, every book, random windows and every rolling window; then the access rules
and the errors, as a user sees them through the API."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, BOOKS, EDGE_WINDOWS, Api, Window, random_windows, window_params
from tests.analytics.helpers import check_stat, check_too_short, check_withheld, close
from tests.support.doc_paths import doc_path, paths

PATH = "/v1/alphas/{alpha}/analytics/compare"
MIN_COMMON = 3
"""Common sessions the figures need (docs/analytics.md, "Comparison")."""
SHORT: Window = ("2021-01-08", "2021-01-13")
"""Four sessions: enough to answer, too few for the rolling correlations and the tests' bounds."""
WINDOWS = (21, 63, 126, 252)
WEEKS = {21: 4, 63: 13, 126: 26, 252: 52}
RETURN_FIGURES = ("information_ratio", "annualised_return", "volatility", "max_drawdown_pct")
IC_FIGURES = ("rebuilt_mean_ic", "icir")
TESTS = {
    "information_ratio": "Jobson-Korkie test with Memmel's correction",
    "annualised_return": "paired t-test",
    "rebuilt_mean_ic": "paired t-test",
}
LEVEL = 0.05
PER_YEAR = 252
WEEKS_PER_YEAR = 52
"""The demo runs' metric conventions: compare annualises the ICIR of either side with the path alpha's."""


def token_for(book: str) -> str:
    return "raw" if book.startswith("raw_") else "plain"


def compare(
    api: Api, alpha: str, other: str, book: str, window: Window, rolling: int, token: str | None = None
) -> dict[str, Any]:
    body = api.ok(
        PATH.format(alpha=alpha),
        token or token_for(book),
        book=book,
        window=rolling,
        **{"with": other},
        **window_params(window),
    )
    data: dict[str, Any] = body["data"]
    assert data["alpha"] == alpha and data["with"] == other and data["book"] == book
    assert data["window"] == {"from": window[0], "to": window[1]}
    assert data["rolling_window"] == {"sessions": rolling, "weeks": WEEKS[rolling]}
    return body


# -- the independent reference ------------------------------------------------------------------------


def common(a: pd.Series, b: pd.Series) -> pd.DataFrame:
    """The dates both series hold with a finite value on each side, ascending."""
    joined = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner").sort_index()
    return joined[np.isfinite(joined["a"]) & np.isfinite(joined["b"])]


def ratio(x: np.ndarray) -> float | None:
    sd = x.std(ddof=1)
    return float(x.mean() / sd) if sd > 0 else None


def drawdown_pct(r: np.ndarray) -> float:
    """Percentage points of the peak, as /metrics core.max_drawdown_pct."""
    equity = pd.Series(np.concatenate([[1.0], np.cumprod(1.0 + r)]))
    return float((1.0 - equity / equity.cummax()).max()) * 100


def return_figures(r: np.ndarray) -> dict[str, float | None]:
    if r.size < 3:
        return dict.fromkeys(RETURN_FIGURES)
    ir = ratio(r)
    return {
        "information_ratio": None if ir is None else ir * math.sqrt(PER_YEAR),
        "annualised_return": float(r.mean()) * PER_YEAR,
        "volatility": float(r.std(ddof=1)) * math.sqrt(PER_YEAR),
        "max_drawdown_pct": drawdown_pct(r),
    }


def ic_figures(ic: np.ndarray) -> dict[str, float | None]:
    """Mean weekly IC, and the ICIR annualised (the screener's basis): mean / std x sqrt(52)."""
    if ic.size < 3:
        return dict.fromkeys(IC_FIGURES)
    icir = ratio(ic)
    return {
        "rebuilt_mean_ic": float(ic.mean()),
        "icir": None if icir is None else icir * math.sqrt(WEEKS_PER_YEAR),
    }


def t_test(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    if a.size < 3 or not np.std(a - b) > 0:
        return None
    found = stats.ttest_rel(a, b)
    return float(found.statistic), float(found.pvalue)


def jobson_korkie_memmel(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """Memmel (2003): z = (SR_a - SR_b) / sqrt(V), V = (2 - 2 rho + (SR_a^2 + SR_b^2)/2 - SR_a SR_b rho^2) / T,
    Sharpe ratios per observation (sample std, ddof 1), rho the sample correlation."""
    if a.size < 3:
        return None
    sa, sb = a.std(ddof=1), b.std(ddof=1)
    if not (sa > 0 and sb > 0):
        return None
    t = a.size
    sr_a, sr_b = a.mean() / sa, b.mean() / sb
    rho = np.cov(a, b, ddof=1)[0, 1] / (sa * sb)
    theta = (2.0 - 2.0 * rho + 0.5 * (sr_a**2 + sr_b**2) - sr_a * sr_b * rho**2) / t
    z = (sr_a - sr_b) / math.sqrt(theta)
    return float(z), float(2.0 * stats.norm.sf(abs(z)))


def pearson(frame: pd.DataFrame) -> float | None:
    if len(frame) < 3 or frame["a"].nunique() < 2 or frame["b"].nunique() < 2:
        return None
    return float(frame["a"].corr(frame["b"]))


def rolling_corr(frame: pd.DataFrame, window: int) -> list[float | None]:
    """pandas rolling Pearson over the trailing `window` rows; None until full or with a constant side."""
    a, b = frame["a"].reset_index(drop=True), frame["b"].reset_index(drop=True)
    found = a.rolling(window).corr(b)
    flat = (a.rolling(window).max() == a.rolling(window).min()) | (
        b.rolling(window).max() == b.rolling(window).min()
    )
    return [None if pd.isna(v) else float(v) for v in found.where(~flat)]


def check_test(
    served: dict[str, Any] | None, expected: tuple[float, float] | None, name: str, where: Any
) -> None:
    assert served is not None, where
    assert served["name"] == name and served["level"] == LEVEL, (where, served)
    if expected is None:
        assert served["statistic"] is None and served["p_value"] is None, (where, served)
        assert served["significant"] is None and served["withheld_reason"], (where, served)
        return
    statistic, p_value = expected
    assert close(served["statistic"], statistic), (where, served, expected)
    assert close(served["p_value"], p_value), (where, served, expected)
    assert served["significant"] is (p_value < LEVEL), (where, served)
    assert "withheld_reason" not in served, (where, served)


def check_figure(entry: dict[str, Any], a: float | None, b: float | None, where: Any) -> None:
    check_stat(entry["alpha"], a, (*where, "alpha"))
    check_stat(entry["with"], b, (*where, "with"))
    expected = None if a is None or b is None else a - b
    assert close(entry["difference"], expected), (where, entry["difference"], expected)


Seen = dict[str, int]


def check_compare(
    api: Api, lake: ref.Lake, alpha: str, other: str, book: str, window: Window, rolling: int, seen: Seen
) -> None:
    where = (alpha, other, book, window, rolling)
    sessions = common(lake.returns(alpha, book, window), lake.returns(other, book, window))
    whole = common(lake.returns(alpha, book, (None, None)), lake.returns(other, book, (None, None)))
    if len(sessions) < MIN_COMMON <= len(whole):
        # Too few common sessions for any figure, in histories that share enough: a 400.
        params = {"book": book, "window": rolling, "with": other}
        check_too_short(api, PATH.format(alpha=alpha), window, len(sessions), **params)
        return
    data = compare(api, alpha, other, book, window, rolling)["data"]
    weeks = common(lake.ic(alpha, window), lake.ic(other, window))
    assert data["sessions"] == len(sessions) and data["weeks"] == len(weeks), where

    ra, rb = sessions["a"].to_numpy(float), sessions["b"].to_numpy(float)
    ca, cb = (1.0 + sessions["a"]).cumprod() - 1.0, (1.0 + sessions["b"]).cumprod() - 1.0
    assert [e["date"] for e in data["equity"]] == list(sessions.index), where
    for entry, x, y in zip(data["equity"], ca, cb, strict=True):
        assert close(entry["cumulative_return_alpha"], x) and close(entry["cumulative_return_with"], y), where
        assert close(entry["difference"], x - y), (where, entry)

    for key, frame, span in (
        ("rolling_return_correlation", sessions, rolling),
        ("rolling_ic_correlation", weeks, WEEKS[rolling]),
    ):
        served = data[key]
        assert [e["date"] for e in served] == list(frame.index), (where, key)
        for entry, expected in zip(served, rolling_corr(frame, span), strict=True):
            assert close(entry["correlation"], expected), (where, key, entry, expected)
            seen[key] += entry["correlation"] is not None

    check_stat(data["return_correlation"], pearson(sessions), (*where, "return_correlation"))
    check_stat(data["ic_correlation"], pearson(weeks), (*where, "ic_correlation"))

    figures = data["figures"]
    assert set(figures) == {*RETURN_FIGURES, *IC_FIGURES}, where
    fa, fb = return_figures(ra), return_figures(rb)
    ia, ib = ic_figures(weeks["a"].to_numpy(float)), ic_figures(weeks["b"].to_numpy(float))
    for name in RETURN_FIGURES:
        check_figure(figures[name], fa[name], fb[name], (*where, name))
    for name in IC_FIGURES:
        check_figure(figures[name], ia[name], ib[name], (*where, name))
    for name in ("volatility", "max_drawdown_pct", "icir"):
        assert figures[name]["test"] is None, (where, name)
    for name in ("information_ratio", "annualised_return", "volatility"):
        assert figures[name]["alpha"]["periods_per_year"] == PER_YEAR, (where, name)
    for side in ("alpha", "with"):
        assert figures["icir"][side]["annualisation"] == "annualised", where
        assert figures["icir"][side]["periods_per_year"] == WEEKS_PER_YEAR, where
        assert figures["rebuilt_mean_ic"][side]["annualisation"] == "per_period", where
    assert figures["max_drawdown_pct"]["alpha"]["unit"] == "percentage_points"

    tests = {
        "information_ratio": jobson_korkie_memmel(ra, rb),
        "annualised_return": t_test(ra, rb),
        "rebuilt_mean_ic": t_test(weeks["a"].to_numpy(float), weeks["b"].to_numpy(float)),
    }
    for name, outcome in tests.items():
        check_test(figures[name]["test"], outcome, TESTS[name], (*where, name))
        if outcome is not None:
            seen["significant" if outcome[1] < LEVEL else "not_significant"] += 1


def pairs(seed: str, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(ALPHAS, 2)) for _ in range(count)]  # type: ignore[misc]


@pytest.mark.parametrize("book", BOOKS)
def test_compare_reproduces_on_random_pairs_and_windows(api: Api, lake: ref.Lake, book: str) -> None:
    rng = random.Random(f"compare:{book}")
    seen: Seen = dict.fromkeys(
        ("rolling_return_correlation", "rolling_ic_correlation", "significant", "not_significant"), 0
    )
    for alpha, other in pairs(f"compare:{book}", 5):
        for window in random_windows(f"compare:{alpha}:{other}:{book}", 2) + [rng.choice(EDGE_WINDOWS)]:
            check_compare(api, lake, alpha, other, book, window, rng.choice(WINDOWS), seen)
    # Guards: the comparisons above did measure rolling correlations and tests both ways.
    assert seen["rolling_return_correlation"] > 0 and seen["rolling_ic_correlation"] > 0, seen


def test_every_rolling_window_and_both_test_outcomes(api: Api, lake: ref.Lake) -> None:
    """Whole histories of a few pairs on every rolling window (the longest fill only late in the
    demo's 14 months); the tests come out both ways (one pair differs significantly)."""
    seen: Seen = dict.fromkeys(
        ("rolling_return_correlation", "rolling_ic_correlation", "significant", "not_significant"), 0
    )
    for rolling in WINDOWS:
        for alpha, other in (
            ("momentum_12_1", "Test_planted_factor"),
            ("Test_short_term_reversal", "momentum_12_1"),
            ("value_composite_legacy", "Test_small_universe"),
            ("Test_planted_factor", "Test_short_term_reversal"),  # significant at 0.05 in the demo
        ):
            check_compare(api, lake, alpha, other, "long_short", (None, None), rolling, seen)
    assert all(seen.values()), seen


def test_the_icir_is_on_the_screeners_basis(api: Api, lake: ref.Lake) -> None:
    """The ICIR of an alpha is annualised on the compare page as in the catalogue: over two whole
    histories whose common weeks are all of the alpha's weekly IC, compare's figure is the screener's.
    value_composite_legacy's sealed IC does not reproduce (the screener flags it), so there compare's
    ICIR, rebuilt from the weekly IC, is the per-week ratio of that IC times sqrt(52), not the seal's."""
    screened = {r["alpha_id"]: r for r in api.ok("/v1/analytics/screen", "plain", limit=100)["data"]}
    for alpha in ("momentum_12_1", "Test_small_universe"):  # every week of theirs is common with the other
        data = compare(api, alpha, "Test_planted_factor", "long_short", (None, None), 63)["data"]
        assert np.isfinite(lake.ic(alpha, (None, None)).to_numpy(float)).sum() == data["weeks"], alpha
        assert close(data["figures"]["icir"]["alpha"]["value"], screened[alpha]["icir"]), (
            alpha,
            data["figures"],
        )
    legacy = compare(api, "value_composite_legacy", "momentum_12_1", "long_short", (None, None), 63)["data"]
    weeks = common(lake.ic("value_composite_legacy", (None, None)), lake.ic("momentum_12_1", (None, None)))
    per_week = ratio(weeks["a"].to_numpy(float))
    assert per_week is not None
    assert close(legacy["figures"]["icir"]["alpha"]["value"], per_week * math.sqrt(52))
    assert screened["value_composite_legacy"]["ic_reproduces"] is False


def test_too_few_common_sessions(api: Api) -> None:
    """Two common sessions, or none before the history, of two alphas whose histories share many:
    a 400 naming the window's bounds with the count (docs/analytics.md)."""
    for window, book, sessions in ((EDGE_WINDOWS[0], "long_short", 2), (EDGE_WINDOWS[1], "long_only", 0)):
        params = {"book": book, "window": 21, "with": "Test_planted_factor"}
        check_too_short(api, PATH.format(alpha="momentum_12_1"), window, sessions, **params)


def test_an_alpha_without_cross_sections(api: Api) -> None:
    """Test_ledger_only sealed no decisions: its IC figures are not measurable (naming it), the IC
    series are empty (not null: nothing is withheld), and meta warns of the other's missing kind."""
    body = compare(api, "momentum_12_1", "Test_ledger_only", "long_short", (None, None), 63)
    data = body["data"]
    assert data["weeks"] == 0 and data["rolling_ic_correlation"] == []
    assert data["sessions"] > 63 and data["figures"]["information_ratio"]["alpha"]["status"] == "available"
    for name in IC_FIGURES:
        entry = data["figures"][name]["with"]
        check_stat(entry, None, name)
        assert (
            "Test_ledger_only" in entry["withheld_reason"]
            and "access_limited" not in entry["withheld_reason"]
        )
    missing = [w for w in body["meta"]["warnings"] if w["code"] == "kind_missing"]
    assert [w["kind"] for w in missing] == ["decisions"] and "Test_ledger_only" in missing[0]["message"]


# -- access ---------------------------------------------------------------------------------------------


def warned_blocks(body: dict[str, Any]) -> set[str]:
    return {w["block"] for w in body["meta"].get("warnings", []) if w["code"] == "access_limited"}


def test_a_key_without_the_ledger(api: Api, lake: ref.Lake) -> None:
    """No portfolio.ledger: the return figures, their tests and correlation withheld, the series
    built from returns null (not empty), sessions null; the IC side served and exact."""
    window: Window = ("2021-03-01", "2021-12-31")
    body = compare(api, "momentum_12_1", "value_composite_legacy", "long_short", window, 21, "no_portfolio")
    data = body["data"]
    assert data["sessions"] is None and data["equity"] is None and data["rolling_return_correlation"] is None
    check_withheld(data["return_correlation"], "return_correlation")
    for name in RETURN_FIGURES:
        figure = data["figures"][name]
        check_withheld(figure["alpha"], name)
        check_withheld(figure["with"], name)
        assert figure["difference"] is None
        if name in TESTS:
            assert figure["test"]["p_value"] is None
            assert figure["test"]["withheld_reason"].startswith("access_limited")
    assert {
        "compare.equity",
        "compare.rolling_return_correlation",
        "compare.return_correlation",
    } <= warned_blocks(body)
    weeks = common(lake.ic("momentum_12_1", window), lake.ic("value_composite_legacy", window))
    assert data["weeks"] == len(weeks) > 4
    assert [e["date"] for e in data["rolling_ic_correlation"]] == list(weeks.index)
    check_figure(
        data["figures"]["rebuilt_mean_ic"],
        float(weeks["a"].mean()),
        float(weeks["b"].mean()),
        "rebuilt_mean_ic",
    )
    check_stat(data["ic_correlation"], pearson(weeks), "ic_correlation")


def test_a_key_without_the_cross_sections(api: Api, lake: ref.Lake) -> None:
    """No signals.*: the IC figures, their test and correlation withheld, the IC series null and
    weeks null; the return side served and exact."""
    window: Window = (None, "2021-09-30")
    body = compare(api, "Test_planted_factor", "momentum_12_1", "long_only", window, 126, "no_signals")
    data = body["data"]
    assert data["weeks"] is None and data["rolling_ic_correlation"] is None
    check_withheld(data["ic_correlation"], "ic_correlation")
    for name in IC_FIGURES:
        check_withheld(data["figures"][name]["alpha"], name)
        check_withheld(data["figures"][name]["with"], name)
        assert data["figures"][name]["difference"] is None
    assert data["figures"]["rebuilt_mean_ic"]["test"]["withheld_reason"].startswith("access_limited")
    assert {"compare.rolling_ic_correlation", "compare.ic_correlation", "compare.figures"} <= warned_blocks(
        body
    )
    sessions = common(
        lake.returns("Test_planted_factor", "long_only", window),
        lake.returns("momentum_12_1", "long_only", window),
    )
    assert data["sessions"] == len(sessions) and len(data["equity"]) == len(sessions)
    expected = return_figures(sessions["a"].to_numpy(float))
    check_stat(data["figures"]["volatility"]["alpha"], expected["volatility"], "volatility")


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    return error


def bad_parameter(response: Any, name: str) -> str:
    error = error_of(response, 400)
    assert error["code"] == "bad_request", error
    names = [p["name"] for p in error["details"]["parameters"]]
    assert names == [name], error
    rule: str = error["details"]["parameters"][0]["rule"]
    return rule


def get(api: Api, alpha: str, token: str = "plain", **params: Any) -> Any:
    return api.get(PATH.format(alpha=alpha), token, **params)


def test_with_the_key_may_not_read_is_403_whether_it_exists_or_not(api: Api) -> None:
    found = error_of(get(api, "Test_planted_factor", "testonly", **{"with": "momentum_12_1"}), 403)
    unknown = error_of(get(api, "Test_planted_factor", "testonly", **{"with": "no_such_alpha"}), 403)
    for error in (found, unknown):
        assert error["code"] == "run_not_allowed", error
    assert found["message"] == unknown["message"]
    assert found["details"] == {"alpha": "momentum_12_1", "parameter": "with"}
    assert unknown["details"] == {"alpha": "no_such_alpha", "parameter": "with"}
    # The path alpha is authorised first: a forbidden one is 403 whatever `with` says.
    forbidden = error_of(get(api, "momentum_12_1", "testonly", **{"with": "Test_no_such_alpha"}), 403)
    assert forbidden["code"] == "run_not_allowed" and forbidden["details"] == {"alpha": "momentum_12_1"}
    assert (
        error_of(get(api, "Test_no_such_alpha", **{"with": "momentum_12_1"}), 404)["code"] == "run_not_found"
    )


def test_bad_parameters_are_400_naming_them(api: Api) -> None:
    for token in ("plain", "testonly"):
        rule = bad_parameter(get(api, "Test_planted_factor", token, **{"with": "Test_no_such_alpha"}), "with")
        assert "Test_no_such_alpha" in rule
    assert "another" in bad_parameter(get(api, "momentum_12_1", **{"with": "momentum_12_1"}), "with")
    assert "required" in bad_parameter(get(api, "momentum_12_1"), "with")
    for window in ("30", "13", "abc"):
        rule = bad_parameter(
            get(api, "momentum_12_1", window=window, **{"with": "Test_planted_factor"}), "window"
        )
        assert "21, 63, 126, 252" in rule, rule
    # A raw book for a key without raw access: the path alpha's book check, as on /books.
    response = get(api, "momentum_12_1", book="raw_long_short", **{"with": "Test_planted_factor"})
    assert error_of(response, 400)["code"] == "unknown_book"


def test_etag_depends_on_both_builds_and_the_query(api: Api) -> None:
    params: dict[str, Any] = {"with": "Test_planted_factor", "window": 21}
    first = get(api, "momentum_12_1", **params)
    tag = first.headers["etag"]
    again = api.get(PATH.format(alpha="momentum_12_1"), "plain", headers={"If-None-Match": tag}, **params)
    assert again.status_code == 304
    other = get(api, "momentum_12_1", **(params | {"with": "Test_small_universe"}))
    assert other.status_code == 200 and other.headers["etag"] != tag


def test_every_served_path_is_documented(api: Api) -> None:
    fields = api.ok(doc_path("momentum_12_1"))["data"]["fields"]
    served: set[str] = {"compare"}
    for token in ("raw", "no_portfolio", "no_signals"):
        for other in ("Test_planted_factor", "Test_ledger_only"):
            for window in [(None, None), SHORT]:
                for book in ("long_short", "raw_long_only") if token == "raw" else ("long_only",):
                    body = compare(api, "momentum_12_1", other, book, window, 21, token)
                    served |= paths(body["data"], "compare")
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented
    for path in (
        "compare.equity[].difference",
        "compare.rolling_ic_correlation[].correlation",
        "compare.figures.information_ratio.test.p_value",
        "compare.figures.rebuilt_mean_ic.test.withheld_reason",
        "compare.figures.max_drawdown_pct.with.withheld_reason",
        "compare.figures.volatility.alpha.periods_per_year",
    ):
        assert path in served, path
    # The documented series have their own horizon and granularity.
    assert fields["compare.equity[].date"]["granularity"] == "one entry per common session"
    assert (
        fields["compare.rolling_ic_correlation[].correlation"]["granularity"] == "one entry per common week"
    )
