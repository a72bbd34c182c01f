"""/analytics/checks through the API: every value recomputed independently from the lake's Parquet
files (pandas, numpy, statsmodels; tests/analytics/reference.py) over random windows and books,
verdicts against the thresholds, the operator's policy file (read at start, refused when bad),
tightening and loosening, and the access rules (403 before lookup, withheld figures, the
production set of a restricted key)."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from litestar.testing import TestClient

from analytics.sets import NO_APPROVED
from core.context import AllowList
from schemas.query import ChecksQuery, params_of
from tests.analytics import reference as ref
from tests.analytics.conftest import (
    ALPHAS,
    BOOKS,
    CALLERS,
    EDGE_WINDOWS,
    PRODUCTION,
    Api,
    Window,
    endpoints_only,
    random_windows,
    serving,
    window_params,
)
from tests.analytics.helpers import check_too_short, close
from tests.callers import DATA_IDS, authenticator_for, make_caller
from tests.support.build_tables import build_pandas

PATH = "/v1/alphas/{alpha}/analytics/checks"
MIN_WINDOW_SESSIONS = 2
"""Sessions of the book a window must hold (docs/analytics.md, "Windows, units and entries")."""
ORDER = [
    "information_ratio",
    "deflated_sharpe",
    "turnover",
    "max_weight",
    "recent_information_ratio",
    "yearly_consistency",
    "stressed_net_information_ratio",
    "production_correlation",
    "residual_information_ratio",
    "ic_t_statistic",
    "fragility",
    "live_information_ratio",
    "decay_ratio",
    "pbo",
]
LIVE = {"live_information_ratio", "decay_ratio"}
"""Measured for an approved alpha only (tests/analytics/test_live_checks.py): not_measurable here,
where no alpha was approved, and left out of the summary's verdict."""
FAMILY = {"pbo"}
"""Measured for an alpha of a trial family only (tests/analytics/test_overfitting.py): not applicable
here, where no seal names a family, and left out of the summary's verdict."""
DEFAULTS = {
    "information_ratio": {"min": 1.0},
    "deflated_sharpe": {"min": 0.95},
    "turnover": {"min": 2.5, "max": 175.0},
    "max_weight": {"max": 0.10},
    "recent_information_ratio": {"min": 0.5},
    "yearly_consistency": {"min": 0.6},
    "stressed_net_information_ratio": {"min": 0.5},
    "production_correlation": {"max": 0.7},
    "ic_t_statistic": {"min": 2.0},
    "live_information_ratio": {"min": 0.0},
    "decay_ratio": {"min": 0.25},
    "fragility": {"min": 0.5},
    "residual_information_ratio": {"min": 0.3},
    "pbo": {"max": 0.5},
}
PARAMETERS = {
    ("information_ratio", "min"): "min_information_ratio",
    ("deflated_sharpe", "min"): "min_deflated_sharpe",
    ("turnover", "min"): "min_turnover",
    ("turnover", "max"): "max_turnover",
    ("max_weight", "max"): "max_weight",
    ("recent_information_ratio", "min"): "min_recent_information_ratio",
    ("yearly_consistency", "min"): "min_yearly_consistency",
    ("stressed_net_information_ratio", "min"): "min_stressed_net_information_ratio",
    ("production_correlation", "max"): "max_production_correlation",
    ("ic_t_statistic", "min"): "min_ic_t_statistic",
    ("live_information_ratio", "min"): "min_live_information_ratio",
    ("decay_ratio", "min"): "min_decay_ratio",
    ("fragility", "min"): "min_fragility",
    ("residual_information_ratio", "min"): "min_residual_information_ratio",
    ("pbo", "max"): "max_pbo",
}
SOURCES = {
    "information_ratio": "portfolio.ledger",
    "deflated_sharpe": "analytics.significance",
    "turnover": "portfolio.ledger",
    "max_weight": "portfolio.positions",
    "recent_information_ratio": "portfolio.ledger",
    "yearly_consistency": "portfolio.ledger",
    "stressed_net_information_ratio": "analytics.costs",
    "production_correlation": "analytics.correlation",
    "ic_t_statistic": "performance.metrics",
    "live_information_ratio": "analytics.live",
    "decay_ratio": "analytics.live",
    "fragility": "analytics.attribution",
    "residual_information_ratio": "analytics.residual",
    "pbo": "analytics.overfitting",
}
ANNUALISED = {
    "information_ratio",
    "turnover",
    "recent_information_ratio",
    "stressed_net_information_ratio",
    "residual_information_ratio",
    "live_information_ratio",
}
"""The six checks whose value is annualised (each check's `annualisation`); the others are not
annualisable (a probability, a weight, a share, a correlation, a t-statistic, a ratio of two
annualised figures)."""
PORTFOLIO_CHECKS = {
    "information_ratio",
    "deflated_sharpe",
    "turnover",
    "max_weight",
    "recent_information_ratio",
    "yearly_consistency",
    "stressed_net_information_ratio",
    "production_correlation",
    "fragility",
    "residual_information_ratio",
}
"""Built from the ledger, and max_weight from the positions: withheld from a key without portfolio.*."""
CROSS_SECTION_CHECKS = {"ic_t_statistic"}
# A loose operator policy: every measurable value of the demo passes it, so each check can be
# tightened from pass to fail.
LOOSE = {
    "information_ratio": {"min": -50.0},
    "deflated_sharpe": {"min": 0.0},
    "turnover": {"min": 0.0, "max": 1260.0},
    "max_weight": {"max": 5.0},
    "recent_information_ratio": {"min": -50.0},
    "yearly_consistency": {"min": 0.0},
    "stressed_net_information_ratio": {"min": -50.0},
    "production_correlation": {"max": 1.0},
    "ic_t_statistic": {"min": -50.0},
    "live_information_ratio": {"min": -50.0},
    "decay_ratio": {"min": -50.0},
    "fragility": {"min": -50.0},
    "residual_information_ratio": {"min": -50.0},
    "pbo": {"max": 1.0},
}
RECENT_SESSIONS = 504
MIN_YEAR_SESSIONS = 20
SESSIONS_A_YEAR = 252


def toml_of(policy: dict[str, dict[str, float]]) -> str:
    return "".join(
        f"[checks.{check}]\n" + "".join(f"{side} = {value!r}\n" for side, value in sides.items()) + "\n"
        for check, sides in policy.items()
    )


# -- apps with their own settings and callers -----------------------------------------------------


def two_alpha_key(alpha: str, production: str) -> Any:
    ids = AllowList.of_ids([alpha, production])
    return make_caller(alphas=ids, runs=ids)


@pytest.fixture(scope="module")
def loose_api(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """An app whose operator policy is LOOSE, read from a file through the setting."""
    policy = tmp_path_factory.mktemp("policy") / "checks.toml"
    policy.write_text(toml_of(LOOSE))
    callers = CALLERS | {
        "no_correlation": endpoints_only(DATA_IDS - {"analytics.correlation"}),
        "no_positions": endpoints_only(DATA_IDS - {"portfolio.positions"}),
    }
    callers |= {f"two:{a}:{p}": two_alpha_key(a, p) for a in ALPHAS for p in PRODUCTION if a != p}
    with serving(demo_lake, callers, checks_policy_file=str(policy)) as found:
        yield found


def app_with_policy(demo_lake: Path, path: Path) -> Any:
    from core.settings import Settings
    from serve.app import create_app

    return create_app(
        Settings(lake=str(demo_lake), environment="test", checks_policy_file=str(path)),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
    )


# -- the independent figures ----------------------------------------------------------------------


def ratio(x: np.ndarray) -> float | None:
    return ref.information_ratio(np.asarray(x, float))


def yearly(ledger: pd.DataFrame) -> float | None:
    r = (ledger["ending_equity"] / ledger["starting_equity"] - 1.0).astype(float)
    frame = pd.DataFrame({"year": ledger["date"].str[:4], "r": r})
    frame = frame[np.isfinite(frame["r"])]
    counted = [g for _, g in frame.groupby("year") if len(g) >= MIN_YEAR_SESSIONS]
    if not counted:
        return None
    # Issue 81, item 9: a partial year weighs its share of a year (its sessions over 252), never a whole one.
    weights = [min(1.0, len(g) / SESSIONS_A_YEAR) for g in counted]
    made = sum(
        w for w, g in zip(weights, counted, strict=True) if float(np.prod(1.0 + g["r"].to_numpy())) > 1.0
    )
    return made / sum(weights)


def largest_held(lake: ref.Lake, alpha: str, book: str, window: Window) -> tuple[float, str, str] | None:
    """(|weight|, symbol, date) of the largest weight the book held in the window, the first by
    date then symbol on a tie: weights recomputed from the positions' quantity and mark price
    over the ledger's ending equity; checked against the ledger's own largest_abs_weight."""
    positions = lake.positions(alpha, book)
    if positions is None:
        return None
    held = positions[ref.in_window(positions["date"], window)]
    held = held[np.isfinite(held["held"])]
    if held.empty:
        return None
    best = held.assign(size=held["held"].abs()).sort_values(
        ["size", "date", "symbol"], ascending=[False, True, True], kind="stable"
    )
    top = best.iloc[0]
    ledger = lake.ledger_in(alpha, book, window)
    assert ledger is not None
    assert close(float(ledger["largest_abs_weight"].max()), float(top["size"]), 1e-9), (alpha, book, window)
    return float(top["size"]), str(top["symbol"]), str(top["date"])


def max_weight(lake: ref.Lake, alpha: str, book: str, window: Window) -> float | None:
    found = largest_held(lake, alpha, book, window)
    return None if found is None else found[0]


def production_correlations(lake: ref.Lake, alpha: str, readable: Any = lambda a: True) -> dict[str, float]:
    """|Pearson| of the whole long_short histories with each production alpha readable (the demo's
    two, approved by their seal), itself excluded."""
    mine = lake.returns(alpha, "long_short", (None, None))
    out = {}
    for other in PRODUCTION:
        if other == alpha or not readable(other):
            continue
        found = ref.series_corr(mine, lake.returns(other, "long_short", (None, None))).pearson
        if found is not None:
            out[other] = abs(found)
    return out


def ic_t_statistic(lake: ref.Lake, alpha: str) -> float | None:
    """Newey-West t of the mean weekly IC (statsmodels, Bartlett lag floor(4 (n/100)^(2/9))); None
    without cross-sections, when the rebuilt mean misses the sealed mean IC by over 1e-6, or below
    10 weeks."""
    weeks = lake.weekly_signal(alpha)
    if weeks is None:
        return None
    ic = weeks["ic"].to_numpy(float)
    ic = ic[np.isfinite(ic)]
    stored = build_pandas(lake.build(alpha), "metrics_stored")
    sealed = stored[(stored["scope"] == "overall") & (stored["metric"] == "mean_ic")]["value"]
    if sealed.empty or not abs(float(ic.mean()) - float(sealed.iloc[0])) <= 1e-6 or ic.size < 10:
        return None
    lag = math.floor(4 * (ic.size / 100) ** (2 / 9))
    fit = sm.OLS(ic, np.ones_like(ic)).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
    return float(fit.tvalues[0])


def expected_values(
    lake: ref.Lake, alpha: str, book: str, window: Window, readable: Any = lambda a: True
) -> dict[str, float | None]:
    ledger = lake.ledger_in(alpha, book, window)
    assert ledger is not None
    r = (ledger["ending_equity"] / ledger["starting_equity"] - 1.0).to_numpy(float)
    k = -ledger["execution_cost"].to_numpy(float) / ledger["starting_equity"].to_numpy(float)
    turnover = ledger["turnover"].to_numpy(float)
    turnover = turnover[np.isfinite(turnover)]
    correlations = production_correlations(lake, alpha, readable)
    return {
        "information_ratio": ratio(r),
        "deflated_sharpe": ref.significance(lake, alpha, window, readable=readable)["dsr"],
        "turnover": float(turnover.mean()) * 252 if turnover.size else None,  # per year
        "max_weight": max_weight(lake, alpha, book, window),
        "recent_information_ratio": ratio(r[-RECENT_SESSIONS:]),
        "yearly_consistency": yearly(ledger),
        "stressed_net_information_ratio": ratio(r - k),
        "production_correlation": max(correlations.values()) if correlations else None,
        "ic_t_statistic": ic_t_statistic(lake, alpha),
        # The live checks of the demo's approved alphas: tests/analytics/test_live_checks.py (their
        # split is the lake's knowledge time), not compared here.
        "live_information_ratio": None,
        "decay_ratio": None,
        "fragility": fragility(ledger),
        "residual_information_ratio": ref.residual(
            lake, alpha, book, window, [p for p in PRODUCTION if p != alpha and readable(p)]
        ).information_ratio,
    }


FRAGILITY_DAYS = 5


def fragility(ledger: pd.DataFrame) -> float | None:
    """The information ratio without the 5 sessions of largest return (the earliest first on a
    tie) over the information ratio; None while that is not positive."""
    r = (ledger["ending_equity"] / ledger["starting_equity"] - 1.0).to_numpy(float)
    return ref.best_days_kept(ledger, r, FRAGILITY_DAYS)[1]


def span(window: Window) -> dict[str, Any]:
    return dict(window_params(window))


def verdict_of(value: float | None, bound: dict[str, float]) -> str:
    if value is None:
        return "not_measurable"
    ok = value >= bound.get("min", -math.inf) and value <= bound.get("max", math.inf)
    return "pass" if ok else "fail"


def checks(api: Api, alpha: str, token: str = "raw", **params: Any) -> dict[str, Any]:
    data: dict[str, Any] = api.ok(PATH.format(alpha=alpha), token, **params)["data"]
    return data


def by_id(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in data["checks"]}


def assert_consistent(data: dict[str, Any], policy: dict[str, dict[str, float]], where: Any) -> None:
    """Order, shape, verdicts against the thresholds served, and the summary."""
    assert [e["id"] for e in data["checks"]] == ORDER, where
    for entry in data["checks"]:
        assert entry["policy_threshold"] == policy[entry["id"]], (where, entry)
        assert entry["source"] == SOURCES[entry["id"]], (where, entry)
        wanted = "annualised" if entry["id"] in ANNUALISED else "not_annualisable"
        assert entry["annualisation"] == wanted, (where, entry)
        assert entry["verdict"] == verdict_of(entry["value"], entry["threshold"]), (where, entry)
        assert isinstance(entry["reason"], str) and entry["reason"], (where, entry)
        if entry["verdict"] != "not_measurable":
            assert_reason_states_the_comparison(entry, where)
    verdicts = [e["verdict"] for e in data["checks"]]
    summary = data["summary"]
    assert summary["passed"] == verdicts.count("pass"), where
    assert summary["failed"] == verdicts.count("fail"), where
    assert summary["not_measurable"] == verdicts.count("not_measurable"), where
    # A live or family check without a value leaves the verdict to the rest of the battery.
    unmeasured = any(
        e["verdict"] == "not_measurable" and e["id"] not in LIVE | FAMILY for e in data["checks"]
    )
    expected = "fail" if "fail" in verdicts else ("incomplete" if unmeasured else "pass")
    assert summary["verdict"] == expected, where


PERCENT_UNITS = {"fraction"}
"""The units a reason writes in percent, as the dashboard shows them."""
COMPARISON = re.compile(
    r"^(?:(?P<low>\S+) <= )?(?P<value>\S+) (?P<op><|>|<=|>=) (?P<bound>\S+): (?P<meaning>.+)$"
)


def number_in_reason(text: str, unit: str) -> float:
    if unit in PERCENT_UNITS:
        assert text.endswith("%"), text
        return float(text[:-1]) / 100.0
    assert not text.endswith("%"), text
    return float(text)


def assert_reason_states_the_comparison(entry: dict[str, Any], where: Any) -> None:
    """A pass or a fail says which comparison decided it, with the value and the threshold it was
    held to (each shown to at least 3 significant digits), then what the value means."""
    found = COMPARISON.match(entry["reason"])
    assert found is not None, (where, entry)
    unit, value, threshold = entry["unit"], entry["value"], entry["threshold"]
    op = found["op"]
    shown = number_in_reason(found["value"], unit)
    bound = number_in_reason(found["bound"], unit)
    assert math.isclose(shown, value, rel_tol=5e-3, abs_tol=1e-12), (where, entry)
    # Shown to the digits that tell them apart: never "0.95 < 0.95"
    assert (found["value"] == found["bound"]) == (shown == bound == value), (where, entry)
    if entry["verdict"] == "fail":
        side = "min" if op == "<" else "max"
        assert op in ("<", ">") and found["low"] is None, (where, entry)
        assert bound == pytest.approx(threshold[side], rel=1e-12), (where, entry)
        assert (value < threshold[side]) if side == "min" else (value > threshold[side]), (where, entry)
    elif found["low"] is not None:  # a band passed: min <= value <= max
        assert op == "<=" and set(threshold) == {"min", "max"}, (where, entry)
        assert number_in_reason(found["low"], unit) == pytest.approx(threshold["min"], rel=1e-12)
        assert bound == pytest.approx(threshold["max"], rel=1e-12), (where, entry)
    else:
        side = "min" if op == ">=" else "max"
        assert op in (">=", "<=") and set(threshold) == {side}, (where, entry)
        assert bound == pytest.approx(threshold[side], rel=1e-12), (where, entry)
    assert found["meaning"], (where, entry)


# -- values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_value_reproduces_over_random_windows_and_books(api: Api, lake: ref.Lake, alpha: str) -> None:
    rng = random.Random(f"checks:{alpha}")
    for window in random_windows(f"checks:{alpha}") + EDGE_WINDOWS:
        book = rng.choice(BOOKS)
        where = (alpha, book, window)
        window_ledger, whole = lake.ledger_in(alpha, book, window), lake.ledger_in(alpha, book, (None, None))
        sessions = 0 if window_ledger is None else len(window_ledger)
        if whole is not None and sessions < MIN_WINDOW_SESSIONS <= len(whole):
            check_too_short(api, PATH.format(alpha=alpha), window, sessions, book=book)
            continue
        data = checks(api, alpha, book=book, **span(window))
        assert data["alpha"] == alpha and data["book"] == book, where
        assert data["window"] == {"from": window[0], "to": window[1]}, where
        ledger = lake.ledger_in(alpha, book, window)
        assert ledger is not None
        assert data["sessions"] == len(ledger), where
        assert data["policy"] == {"origin": "defaults", "thresholds": DEFAULTS}, where
        assert_consistent(data, DEFAULTS, where)
        served = by_id(data)
        for check, value in expected_values(lake, alpha, book, window).items():
            entry = served[check]
            if check not in LIVE:
                assert close(entry["value"], value), (where, check, entry, value)
            assert entry["threshold"] == DEFAULTS[check], (where, entry)
        held = largest_held(lake, alpha, book, window)
        weight = served["max_weight"]
        assert [weight["symbol"], weight["date"]] == ([None, None] if held is None else list(held[1:])), where
        if held is not None:
            assert f"{held[1]} at the close of {held[2]}" in weight["reason"], (where, weight)
        assert served["deflated_sharpe"]["book"] == "long_short"
        assert served["information_ratio"]["book"] == book
        assert served["ic_t_statistic"]["book"] is None
        assert served["production_correlation"]["horizon"] == "whole_history"


def test_max_weight_reads_the_weight_held_not_the_target(loose_api: Api, lake: ref.Lake) -> None:
    """Issue 33, item 5: between rebalances the book drifts from its targets. With a bound between
    the largest target weight and the largest weight held, the check fails, naming the position,
    where a check of the targets would pass; its value is the served positions' and the ledger's
    largest_abs_weight, recomputed here from quantity x mark_price / ending_equity."""
    alpha = "Test_planted_factor"
    for book in ("long_short", "long_only"):
        decisions = lake.decisions(alpha)
        assert decisions is not None
        target = float(decisions[f"{book}_target_weight"].astype(float).abs().max())
        held = largest_held(lake, alpha, book, (None, None))
        assert held is not None and held[0] > target * 1.01, (book, held, target)
        bound = (target + held[0]) / 2
        entry = by_id(checks(loose_api, alpha, book=book, max_weight=repr(bound)))["max_weight"]
        assert entry["verdict"] == "fail", entry
        assert close(entry["value"], held[0]) and [entry["symbol"], entry["date"]] == list(held[1:]), entry
        assert entry["source"] == "portfolio.positions"
        assert entry["reason"].startswith(f"{held[0] * 100:.3g}% > {bound * 100:.3g}%: "), entry
        assert f"{held[1]} at the close of {held[2]}" in entry["reason"], entry
        # The served rows say the same: the position at that date, and the ledger's figure that day.
        day_of = {"book": book, "from": held[2], "to": held[2]}
        rows = loose_api.all_rows(f"/v1/alphas/{alpha}/positions", "raw", **day_of)
        row = max(rows, key=lambda r: abs(r["weight"]))
        assert row["symbol"] == held[1] and close(abs(row["weight"]), entry["value"]), row
        (day,) = loose_api.all_rows(f"/v1/alphas/{alpha}/portfolio", "raw", **day_of)
        assert close(day["largest_abs_weight"], entry["value"]), day


def test_every_reason_says_what_the_value_means(api: Api, lake: ref.Lake) -> None:
    """The meaning after the comparison names the figure's own context: the trials of the DSR (as
    /analytics/significance counts them), the sessions counted, the years, the nearest production
    alpha; a not_measurable check says why there is no value."""
    alpha = "Test_planted_factor"
    data = checks(api, alpha)
    served = by_id(data)
    trials = api.ok(f"/v1/alphas/{alpha}/analytics/significance")["data"]["dsr"]["trials"]["count"]
    assert (
        f"the best of {trials} trials of the catalogue without skill would reach by chance"  # no family here
        in served["deflated_sharpe"]["reason"]
    )
    ledger = lake.ledger_in(alpha, "long_short", (None, None))
    assert ledger is not None
    assert served["information_ratio"]["reason"].endswith(f"over the window's {len(ledger):,} sessions")
    recent = min(len(ledger), RECENT_SESSIONS)
    assert served["recent_information_ratio"]["reason"].endswith(
        f"over the window's last {recent:,} sessions"
    )
    production = served["production_correlation"]
    assert f"{production['nearest']}'s (of {production['compared']} compared)" in production["reason"]
    years = served["yearly_consistency"]
    assert years["reason"].startswith(f"{years['value'] * 100:.3g}% ")
    ledgerless = by_id(checks(api, "Test_ledger_only"))
    for entry in [*ledgerless.values(), *served.values()]:
        if entry["verdict"] == "not_measurable":
            assert not COMPARISON.match(entry["reason"]), entry


def test_values_are_measured_somewhere_and_verdicts_vary(api: Api) -> None:
    """Guards the comparison above: every check has a value somewhere in the demo, and the default
    policy both passes and fails checks."""
    measured: set[str] = set()
    verdicts: set[str] = set()
    for alpha in ALPHAS:
        for book in BOOKS:
            for entry in checks(api, alpha, book=book)["checks"]:
                if entry["value"] is not None:
                    measured.add(entry["id"])
                verdicts.add(entry["verdict"])
    # the live ones of the demo's approved alpha: tests/analytics/test_live_checks.py; pbo's of a
    # family (the small demo has none): tests/analytics/test_overfitting.py
    assert measured == set(ORDER) - FAMILY
    assert verdicts == {"pass", "fail", "not_measurable"}


def test_a_window_without_sessions_is_a_400_naming_its_bounds(api: Api) -> None:
    """A window before the history holds no session of a book whose history holds many: bad
    input, as on every decision route (docs/analytics.md), not a battery of not_measurable."""
    window = ("2019-01-01", "2019-12-31")
    check_too_short(api, PATH.format(alpha="momentum_12_1"), window, 0, book="long_short")


# -- policy ---------------------------------------------------------------------------------------


def test_the_policy_file_is_read_and_echoed(loose_api: Api, lake: ref.Lake) -> None:
    for alpha in ("momentum_12_1", "Test_planted_factor"):
        data = checks(loose_api, alpha)
        assert data["policy"] == {"origin": "operator", "thresholds": LOOSE}
        assert_consistent(data, LOOSE, alpha)
        for entry in data["checks"]:
            assert entry["threshold"] == LOOSE[entry["id"]]
            assert entry["verdict"] in ("pass", "not_measurable"), entry


def test_a_partial_policy_file_keeps_the_other_defaults(demo_lake: Path, tmp_path: Path) -> None:
    path = tmp_path / "partial.toml"
    path.write_text("[checks.turnover]\nmax = 126\n\n[checks.ic_t_statistic]\nmin = 3\n")
    with TestClient(app=app_with_policy(demo_lake, path)) as client:
        body = Api(client).ok(PATH.format(alpha="momentum_12_1"))
    thresholds = body["data"]["policy"]["thresholds"]
    assert thresholds == DEFAULTS | {"turnover": {"min": 2.5, "max": 126.0}, "ic_t_statistic": {"min": 3.0}}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[checks.sharpe]\nmin = 1.0\n", "checks.sharpe"),
        ("[checks.information_ratio]\nmax = 3.0\n", "checks.information_ratio.max"),
        ('[checks.max_weight]\nmax = "0.1"\n', "checks.max_weight.max"),
        ("[checks.max_weight]\nmax = true\n", "checks.max_weight.max"),
        ("[checks.ic_t_statistic]\nmin = nan\n", "checks.ic_t_statistic.min"),
        ("[checks.ic_t_stat]\nmin = 2\n", "checks.ic_t_stat: the check is now named ic_t_statistic"),
        ("[checks.turnover]\nmin = 200\n", "checks.turnover"),
        ("[checks.turnover]\nmin = 126\nmax = 50\n", "checks.turnover"),
        ("[limits]\nx = 1\n", "limits"),
        ("[checks\nmin = 1\n", "not valid TOML"),
        ("checks = 3\n", "checks"),
        ("[checks]\ninformation_ratio = 1.0\n", "checks.information_ratio"),
        ("[monitoring]\narl0_weeks = 2\n", "monitoring.arl0_weeks"),
        ("[monitoring]\nir_fall = true\n", "monitoring.ir_fall"),
        ("[monitoring]\nh = 5\n", "monitoring must be a table holding ir_fall and arl0_weeks only"),
    ],
)
def test_a_bad_policy_file_stops_the_start(demo_lake: Path, tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as refused:
        app_with_policy(demo_lake, path)
    message = str(refused.value)
    assert message.startswith(f"ALPHA_RESULTS_CHECKS_POLICY_FILE={path}: "), message
    assert named in message, message


def test_a_missing_policy_file_stops_the_serve_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    missing = tmp_path / "nowhere.toml"
    monkeypatch.setenv("ALPHA_RESULTS_CHECKS_POLICY_FILE", str(missing))
    assert main(["serve", "--lake", str(tmp_path / "lake")]) == 2
    error = capsys.readouterr().err
    assert f"ALPHA_RESULTS_CHECKS_POLICY_FILE={missing}: cannot be read" in error, error


# -- tightening -----------------------------------------------------------------------------------


def test_tightening_turns_a_pass_into_a_fail(loose_api: Api) -> None:
    """Under the loose policy each measured check passes; a bound just past its value fails it, a
    bound at its value passes (bounds are inclusive); the policy's own bound is echoed unchanged."""
    tightened: set[tuple[str, str]] = set()
    for alpha in ("momentum_12_1", "Test_planted_factor", "Test_small_universe"):
        base = by_id(checks(loose_api, alpha, book="long_short"))
        for (check, side), parameter in PARAMETERS.items():
            value = base[check]["value"]
            if value is None:
                continue
            assert base[check]["verdict"] == "pass"
            step = max(abs(value) * 1e-6, 1e-9)
            beyond = value + step if side == "min" else value - step
            after = by_id(checks(loose_api, alpha, book="long_short", **{parameter: repr(beyond)}))[check]
            assert after["verdict"] == "fail", (alpha, check, after)
            assert after["threshold"][side] == beyond and after["policy_threshold"] == LOOSE[check]
            assert close(after["value"], value)
            at = by_id(checks(loose_api, alpha, book="long_short", **{parameter: repr(value)}))[check]
            assert at["verdict"] == "pass", (alpha, check, at)
            tightened.add((check, side))
    # live: test_live_checks.py; pbo: test_overfitting.py
    assert tightened == {key for key in PARAMETERS if key[0] not in LIVE | FAMILY}


def test_the_summary_fails_once_one_check_fails(loose_api: Api) -> None:
    before = checks(loose_api, "momentum_12_1")
    assert before["summary"]["failed"] == 0
    value = by_id(before)["information_ratio"]["value"]
    after = checks(loose_api, "momentum_12_1", min_information_ratio=repr(value + 1.0))
    assert after["summary"]["failed"] == 1 and after["summary"]["verdict"] == "fail"
    assert after["summary"]["passed"] == before["summary"]["passed"] - 1


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


@pytest.mark.parametrize(("check", "side"), list(PARAMETERS))
def test_loosening_is_a_400_naming_the_parameter(api: Api, loose_api: Api, check: str, side: str) -> None:
    parameter = PARAMETERS[(check, side)]
    declared = {param.name: param for param in params_of(ChecksQuery)}[parameter]
    low = -math.inf if declared.minimum is None else declared.minimum
    high = math.inf if declared.maximum is None else declared.maximum
    for client, policy in ((api, DEFAULTS), (loose_api, LOOSE)):
        bound = policy[check][side]
        # Looser, within the values the figure can take (beyond them the declared range refuses).
        looser = max(bound - 0.25, low) if side == "min" else min(bound + 0.25, high)
        if not (looser < bound if side == "min" else looser > bound):
            continue  # a policy at or beyond the edge of the range: nothing looser can be asked
        loosened: dict[str, Any] = {parameter: repr(looser)}
        same: dict[str, Any] = {parameter: repr(bound)}
        error = error_of(client.get(PATH.format(alpha="momentum_12_1"), **loosened), 400, "bad_request")
        word = "at least" if side == "min" else "at most"
        assert error["details"]["parameters"] == [
            {"name": parameter, "rule": f"may only tighten the operator's policy: {word} {bound!r}"}
        ]
        # The policy's own bound is a tightening of nothing: accepted.
        assert client.get(PATH.format(alpha="momentum_12_1"), **same).status_code == 200


def test_a_band_left_empty_is_a_400(api: Api) -> None:
    error = error_of(api.get(PATH.format(alpha="momentum_12_1"), min_turnover="200"), 400, "bad_request")
    assert [p["name"] for p in error["details"]["parameters"]] == ["min_turnover"]
    error = error_of(
        api.get(PATH.format(alpha="momentum_12_1"), min_turnover="126", max_turnover="50"),
        400,
        "bad_request",
    )
    assert {p["name"] for p in error["details"]["parameters"]} == {"min_turnover", "max_turnover"}


# -- access ---------------------------------------------------------------------------------------


def test_authorisation_runs_before_lookup(api: Api) -> None:
    error_of(api.get(PATH.format(alpha="momentum_12_1"), "testonly"), 403, "run_not_allowed")
    error_of(api.get(PATH.format(alpha="no_such_alpha"), "testonly"), 403, "run_not_allowed")
    error_of(api.get(PATH.format(alpha="Test_no_such_alpha"), "testonly"), 404, "run_not_found")
    # Before the parameters too: a loosened bound on an alpha the key may not read is a 403.
    error_of(
        api.get(PATH.format(alpha="momentum_12_1"), "testonly", min_ic_t_statistic="0"),
        403,
        "run_not_allowed",
    )
    error_of(api.get(PATH.format(alpha="momentum_12_1"), "no_analytics"), 403, "endpoint_not_allowed")
    error_of(api.get(PATH.format(alpha="momentum_12_1"), "plain", book="raw_long_short"), 400, "unknown_book")


def warned_blocks(body: dict[str, Any]) -> set[str]:
    return {w["block"] for w in body["meta"].get("warnings", []) if w["code"] == "access_limited"}


@pytest.mark.parametrize(
    ("token", "withheld"), [("no_portfolio", PORTFOLIO_CHECKS), ("no_signals", CROSS_SECTION_CHECKS)]
)
def test_data_the_key_may_not_read_is_withheld(
    api: Api, lake: ref.Lake, token: str, withheld: set[str]
) -> None:
    window: Window = ("2021-03-01", "2021-12-31")
    body = api.ok(PATH.format(alpha="Test_planted_factor"), token, **span(window))
    data = body["data"]
    assert_consistent(data, DEFAULTS, token)
    expected = expected_values(lake, "Test_planted_factor", "long_short", window)
    # Test_planted_factor was approved, then retired (the demo's history): its live checks read the
    # ledger, withheld too from a key that may not read it.
    withheld = withheld | (LIVE if token == "no_portfolio" else set())
    for check, entry in by_id(data).items():
        if check in withheld:
            assert entry["value"] is None and entry["verdict"] == "not_measurable", entry
            assert entry["reason"].startswith("access_limited"), entry
        elif check not in LIVE | FAMILY:
            assert close(entry["value"], expected[check]), (check, entry)
    assert warned_blocks(body) == {f"checks.{check}" for check in withheld}
    assert (data["sessions"] is None) == (token == "no_portfolio")
    assert data["summary"]["verdict"] in ("fail", "incomplete")


def test_the_weight_held_needs_the_positions_route(loose_api: Api, lake: ref.Lake) -> None:
    body = loose_api.ok(PATH.format(alpha="Test_planted_factor"), "no_positions")
    entry = by_id(body["data"])["max_weight"]
    assert entry["verdict"] == "not_measurable" and entry["reason"].startswith("access_limited"), entry
    assert "portfolio.positions" in entry["reason"] and [entry["symbol"], entry["date"]] == [None, None]
    assert warned_blocks(body) == {"checks.max_weight"}
    assert by_id(body["data"])["information_ratio"]["value"] is not None


def test_the_production_correlation_needs_the_correlation_route(loose_api: Api) -> None:
    body = loose_api.ok(PATH.format(alpha="Test_planted_factor"), "no_correlation")
    entry = by_id(body["data"])["production_correlation"]
    assert entry["verdict"] == "not_measurable" and entry["reason"].startswith("access_limited"), entry
    assert "analytics.correlation" in entry["reason"]
    assert warned_blocks(body) == {"checks.production_correlation"}
    assert by_id(body["data"])["information_ratio"]["value"] is not None


def test_a_restricted_key_correlates_only_with_production_alphas_it_may_read(
    api: Api, loose_api: Api, lake: ref.Lake
) -> None:
    alpha = "Test_planted_factor"
    each = production_correlations(lake, alpha)
    assert len(each) == 2 and len(set(each.values())) == 2
    everyone = by_id(checks(api, alpha))["production_correlation"]["value"]
    assert close(everyone, max(each.values()))
    for production, value in each.items():
        served = by_id(checks(loose_api, alpha, f"two:{alpha}:{production}"))["production_correlation"]
        assert close(served["value"], value), (production, served, value)
    # A production alpha is never compared with itself; the other is its only reference.
    own = by_id(checks(loose_api, "momentum_12_1", "two:momentum_12_1:value_composite_legacy"))
    assert close(
        own["production_correlation"]["value"],
        production_correlations(lake, "momentum_12_1")["value_composite_legacy"],
    )
    # A key that may read no production (approved) alpha has nothing to compare with, and says so.
    none = by_id(checks(api, alpha, "testonly"))["production_correlation"]
    assert none["verdict"] == "not_measurable" and none["reason"] == NO_APPROVED, none


PRODUCTION_KEYS = ["compared", "of", "nearest", "reference"]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_the_production_correlation_says_how_many_it_compared_and_which_is_nearest(
    api: Api, loose_api: Api, lake: ref.Lake, alpha: str
) -> None:
    """`compared` of `of` production alphas, `nearest` the one giving the maximum: appended after the
    entry's keys, on this check alone."""
    data = checks(api, alpha)
    for entry in data["checks"]:
        tail = [key for key in entry if key in PRODUCTION_KEYS]
        expected = {"production_correlation": PRODUCTION_KEYS, "residual_information_ratio": ["reference"]}
        assert tail == expected.get(entry["id"], []), entry
    entry = by_id(data)["production_correlation"]
    assert list(entry)[-4:] == PRODUCTION_KEYS, entry
    assert entry["reference"] == "approved", entry  # the demo's production alphas, approved by their seal
    each = production_correlations(lake, alpha)
    readable = [p for p in PRODUCTION if p != alpha]
    assert (entry["compared"], entry["of"]) == (len(each), len(readable)), entry
    assert entry["nearest"] == max(each, key=lambda a: each[a]), (entry, each)
    assert close(entry["value"], each[entry["nearest"]])
    # A key reading one production alpha compares with it alone; one reading none, with none.
    for production in readable:
        one = by_id(checks(loose_api, alpha, f"two:{alpha}:{production}"))["production_correlation"]
        assert (one["compared"], one["of"], one["nearest"]) == (1, 1, production), one
    if alpha.startswith("Test_"):
        none = by_id(checks(api, alpha, "testonly"))["production_correlation"]
        assert (none["compared"], none["of"], none["nearest"]) == (0, 0, None), none


def test_the_production_correlation_withheld_counts_nothing(loose_api: Api) -> None:
    for token in ("no_correlation", "no_portfolio"):
        entry = by_id(checks(loose_api, "Test_planted_factor", token))["production_correlation"]
        assert entry["reason"].startswith("access_limited"), entry
        assert [entry[key] for key in PRODUCTION_KEYS] == [None, None, None, "approved"], entry


def test_a_production_alpha_with_too_little_overlap_is_not_compared_and_said_so() -> None:
    """The demo's production alphas share the whole history; here one shares 2 sessions with the
    alpha (below the correlation's 3) and one has no variance: the value is the third's, over 1 of 3."""
    from types import SimpleNamespace

    import pyarrow as pa

    from analytics.checks import Production, _production_correlation
    from analytics.entries import Warnings
    from datasets.catalogue_snapshot import Matrix

    rng = np.random.default_rng(5)
    days = np.arange(19_000, 19_060)
    mine = rng.normal(0.0, 0.01, days.size)
    brief = np.full(days.size, np.nan)
    brief[-2:] = rng.normal(0.0, 0.01, 2)
    flat = np.full(days.size, 0.001)
    near = 0.6 * mine + rng.normal(0.0, 0.01, days.size)
    ids = ["alpha", "brief", "flat", "near"]
    matrix = Matrix(
        "v", {a: i for i, a in enumerate(ids)}, pa.array(ids), days, np.vstack([mine, brief, flat, near])
    )
    view: Any = SimpleNamespace(alpha_id="alpha")
    found = _production_correlation(view, Production(matrix, ["brief", "flat", "near"], None), Warnings())
    assert found.extra == {"compared": 1, "of": 3, "nearest": "near", "reference": "approved"}
    assert found.value is not None and close(found.value, abs(float(np.corrcoef(mine, near)[0, 1])))
    none = _production_correlation(view, Production(matrix, ["brief", "flat"], None, "approved"), Warnings())
    assert none.value is None and none.extra == {
        "compared": 0,
        "of": 2,
        "nearest": None,
        "reference": "approved",
    }
    assert none.reason.startswith("no approved alpha has a correlation with it"), none.reason


def test_a_restricted_keys_dsr_uses_the_variance_of_what_it_may_read(api: Api, lake: ref.Lake) -> None:
    window: Window = ("2021-02-01", "2022-01-31")
    served = by_id(checks(api, "Test_planted_factor", "testonly", **span(window)))["deflated_sharpe"]
    expected = ref.significance(lake, "Test_planted_factor", window, readable=lambda a: a.startswith("Test_"))
    assert close(served["value"], expected["dsr"]), (served, expected["dsr"])
    everyone = ref.significance(lake, "Test_planted_factor", window)["dsr"]
    assert not close(served["value"], everyone)


# -- caching and documentation --------------------------------------------------------------------


def test_the_etag_follows_the_policy(api: Api, loose_api: Api) -> None:
    path = PATH.format(alpha="momentum_12_1")
    first = api.get(path)
    tag = first.headers["etag"]
    assert api.get(path).headers["etag"] == tag
    assert api.get(path, headers={"If-None-Match": tag}).status_code == 304
    assert loose_api.get(path).headers["etag"] != tag


def walk(value: Any, prefix: str) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        for key, child in value.items():
            found |= {f"{prefix}.{key}"} | walk(child, f"{prefix}.{key}")
    elif isinstance(value, list):
        for child in value:
            found |= walk(child, f"{prefix}[]")
    return found


def test_every_served_path_is_documented(api: Api, loose_api: Api) -> None:
    fields = api.ok("/v1/alphas/momentum_12_1/analytics/_doc")["data"]["fields"]
    served = {"checks"}
    for alpha in ALPHAS:
        for book in BOOKS:
            served |= walk(checks(api, alpha, book=book), "checks")
    served |= walk(checks(loose_api, "momentum_12_1", "no_portfolio"), "checks")
    assert "checks.checks[].reason" in served and "checks.checks[].threshold.max" in served
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented
    assert fields["checks.checks[].id"]["horizon"]


def test_the_documented_table_is_the_battery_in_order() -> None:
    """docs/analytics.md's "Checks" table numbers the checks the prose and other sections cite
    ("check 12", "Checks", 17): one row per check, in the battery's order (schemas/checks.py). Two
    merges had left it with a check twice and the numbers of the later rows shifted."""
    from schemas.checks import CHECKS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "analytics.md").read_text()
    section = doc.split("\n## Checks\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| `([a-z_]+)` \|", section, flags=re.MULTILINE)
    assert rows == [(str(i), check.id) for i, check in enumerate(CHECKS, 1)]


# -- the battery's own figures on a history longer than the demo's --------------------------------


def test_recent_and_yearly_figures_on_a_long_synthetic_history() -> None:
    """The small demo holds 296 sessions, fewer than the recent window's 504: the recent information
    ratio and the yearly consistency of `analytics.checks` over a 4-year synthetic ledger, against
    pandas."""
    from analytics.checks import positive_years, recent, stressed_returns

    rng = np.random.default_rng(11)
    days = pd.bdate_range("2019-03-01", "2023-02-10")
    r = rng.normal(0.0003, 0.01, days.size)
    starting = np.cumprod(np.r_[1.0, 1.0 + r[:-1]])
    ending = starting * (1.0 + r)
    cost = -np.abs(rng.normal(0.0, 2e-4, days.size)) * starting
    tail = recent(r)
    assert tail.size == RECENT_SESSIONS and np.array_equal(tail, r[-RECENT_SESSIONS:])
    frame = pd.DataFrame({"r": r}, index=days)
    years = [g["r"] for _, g in frame.groupby(frame.index.year) if len(g) >= MIN_YEAR_SESSIONS]
    weights = [min(1.0, len(y) / SESSIONS_A_YEAR) for y in years]
    expected = (
        sum(w for w, y in zip(weights, years, strict=True) if float(np.prod(1.0 + y)) > 1.0),
        sum(weights),
    )
    day_numbers = ((days - pd.Timestamp("1970-01-01")).days).to_numpy(np.int32)
    assert positive_years(day_numbers, r) == pytest.approx(expected, rel=1e-12)
    # 2019 .. 2023: 2019 from March (218 sessions) and 2023's 30 sessions weigh their share of a
    # year, never a whole one (issue 81, item 9): 3 whole years and two partial ones.
    assert len(years) == 5 and expected[1] == pytest.approx(3 + 218 / 252 + 30 / 252)
    stressed = stressed_returns(starting, ending, cost)
    assert np.allclose(stressed, ending / starting - 1.0 + cost / starting, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("max_weight", "-1"),
        ("max_production_correlation", "-0.5"),
        ("min_deflated_sharpe", "2"),
        ("min_yearly_consistency", "3"),
        ("min_turnover", "-0.1"),
    ],
)
def test_a_bound_no_figure_can_reach_is_a_400(api: Api, parameter: str, value: str) -> None:
    """A probability, a fraction or a correlation bound outside its range would make a check no
    alpha passes: refused by the declared range, naming the parameter."""
    error = error_of(api.get(PATH.format(alpha="momentum_12_1"), **{parameter: value}), 400, "bad_request")
    (problem,) = error["details"]["parameters"]
    assert problem["name"] == parameter and problem["rule"].startswith("must be"), problem
