"""The decision analytics in the dashboard (docs/dashboard.md "Decisions"), in Chromium against the
real server, with the fixtures of tests/e2e/test_dashboard.py (the demo lake, keys made by the
operator CLI, a fresh browser context per test).

What a user sees is compared with the API's answer to the same request, fetched by the test over
HTTP: significance (PSR, MinTRL, DSR, the bootstrap's intervals), drawdown episodes, rolling charts,
costs, risk, checks with their verdict badges, the comparison of two alphas (reached from the
catalogue's screener), the combination and a contribution, and the tear sheet, whose downloaded
HTML must name no other file or address. A key without the analytics routes sees, in each panel,
the refusal naming the route it needs. Screenshots go to the test's tmp folder, and to
`$ALPHA_RESULTS_ARTEFACTS/dashboard/` when that is set.
"""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest
from scipy.stats import t as student_t

from tests.e2e.dashboard_site import (
    ALPHA,
    SCREEN,
    Site,
    assert_drawn,
    cell_texts,
    check_clean,
    error_box,
    keep_artefact,
    keep_screenshot,
    open_dashboard,
)
from tests.health_wait import wait_until
from tests.support.dashboard_decisions import (
    assert_cost_curves,
    assert_decay,
    assert_entries,
    assert_mmc,
    assert_regimes,
    close,
    entry_values,
    flat_entries,
    four_digits,
    shown_number,
)

# The real server over the demo lake with the CLI's keys, and a fresh browser context per test.

OTHER = "Test_planted_factor"
# Listed in the catalogue's order (the page sends the ticked alphas in it). Adding OTHER to them at the
# weights below has an optimal weight inside (0, 1), so before and after differ.
COMBINED = (ALPHA, "Test_small_universe", "value_composite_legacy")
SHORT = "Test_short_term_reversal"  # trades on 151 of the combination's 296 sessions
ANALYTICS_PANELS = {
    "significance": "analytics.significance",
    "catalogue-bound": "analytics.catalogue_bound",
    "uncertainty": "analytics.uncertainty",
    "overfitting": "analytics.overfitting",
    "family-tests": "analytics.family_tests",
    "checks": "analytics.checks",
    "risk": "analytics.risk",
    "drawdown-episodes": "analytics.drawdowns",
    "rolling": "analytics.rolling",
    "costs": "analytics.costs",
    "attribution": "analytics.attribution",
    "quantiles": "analytics.quantiles",
    "sub-universe": "analytics.sub_universe",
    "capacity": "analytics.capacity",
    "factors": "analytics.factors",
}


UNCERTAINTY = (
    "information_ratio",
    "excess_sharpe",
    "max_drawdown_pct",
    "turnover",
    "rebuilt_mean_ic",
    "rebuilt_icir",
    "rebuilt_hit_rate",
)


def in_unit(text: str, value: float, unit: str) -> None:
    """A bound shown in its figure's unit: percentage points as a % with 2 decimals, a turnover per
    year, a ratio to four significant digits."""
    if unit == "percentage_points":
        assert text == f"{value:.2f}%", (text, value)
    elif unit == "per_year":
        assert text.endswith(" per year") and math.isclose(shown_number(text), value, rel_tol=5e-3), (
            text,
            value,
        )
    else:
        four_digits(text, value)


def assert_uncertainty(page: Any, scope: str, served: dict[str, Any]) -> None:
    """The uncertainty panel (issue 50, item 4): every figure's estimate (the cell's exact value),
    its bounds in its unit, its interval drawn, its observations and block length as served."""
    page.wait_for_selector(f"{scope} table.uncertainty")
    rows = page.eval_on_selector_all(
        f"{scope} table.uncertainty tbody tr:has(th[data-figure])",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value,"
        " ...[...tr.children].slice(2).map(c => c.innerText.trim()), tr.querySelectorAll('svg').length])",
    )
    # The route's order, grouped by the scale the whiskers share (one per unit and basis, in the
    # order of each scale's first figure; tests/e2e/test_dashboard_frictions.py checks the scales).
    scales: dict[str, list[str]] = {}
    for name in UNCERTAINTY:
        scales.setdefault(f"{served[name]['unit']} {served[name]['annualisation']}", []).append(name)
    assert [row[0] for row in rows] == [name for names in scales.values() for name in names]
    for name, value, lower, upper, _, observations, block, drawn in rows:
        entry = served[name]
        assert close(float(value), entry["value"]), (name, value, entry)
        in_unit(lower, entry["lower"], entry["unit"])
        in_unit(upper, entry["upper"], entry["unit"])
        assert drawn == 1 and observations == f"{entry['observations']:,}", (name, observations)
        four_digits(block, entry["block_length"])


@pytest.mark.e2e
def test_an_alpha_page_shows_significance_drawdowns_rolling_costs_risk_and_checks(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    token = site.keys.full
    base = f"/v1/alphas/{ALPHA}/analytics"

    assert page.get_attribute("#open-tearsheet", "href") == f"#/alphas/{ALPHA}/tearsheet"
    page.wait_for_selector("#significance table.bootstrap")
    significance = site.api(f"{base}/significance", token).json()["data"]
    shown = entry_values(page, "#significance table.significance-headline")
    assert_entries(
        shown,
        {
            k: significance[k]
            for k in (
                "sharpe",
                "sharpe_standard_error",
                "serial_correlation",
                "psr",
                "min_track_record",
                "min_backtest_length",
                "critical_sharpe",
                "power",
                "dsr",
                "dsr_family",
                "effective_dsr",
                "clustered_dsr",
            )
        },
    )
    trial_count = significance["min_backtest_length"]["trial_count"]
    assert trial_count == significance["dsr"]["trials"]["count"]
    assert f"Minimum backtest length for {trial_count:,} trials." in page.inner_text("#significance-notes")
    years = significance["min_track_record"]["years"]
    assert f"{years:.4g} years" in page.inner_text("#significance-notes")
    assert f"{significance['dsr']['trials']['count']} trials" in page.inner_text("#significance-notes")
    alternative = significance["power"]["sr_alternative"]
    assert f"Power at a true Sharpe ratio of {alternative:.4g} (sr_benchmark + 1)" in page.inner_text(
        "#significance-notes"
    )
    effective = significance["dsr"]["trials"]["effective_count"]
    assert effective is not None  # the demo lake's catalogue records its links
    assert f"the {effective:,} effective trials" in page.inner_text("#significance-notes")
    assert "The clustered DSR deflates by those" in page.inner_text("#significance-notes")
    bootstrap = page.eval_on_selector_all(
        "#significance table.bootstrap tbody tr",
        "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))",
    )
    for row, key in zip(bootstrap, ("rebuilt_mean_ic", "rebuilt_icir", "information_ratio"), strict=True):
        served = significance["bootstrap"][key]
        four_digits(row[1], served["value"])
        four_digits(row[2], served["lower"])
        four_digits(row[3], served["upper"])
        assert row[5] == str(served["observations"])
        four_digits(row[6], served["block_length"])
    holm = entry_values(page, "#significance table.multiple-testing")["holm"]
    assert close(float(holm[1]), significance["multiple_testing"]["holm"]["value"])
    # The haircut Sharpe ratios (Harvey and Liu 2015): every entry exactly as served, and the served
    # figures against their definitions (scipy's Student t; Bonferroni's min(M p, 1)).
    haircut = significance["sharpe_haircut"]
    tested = entry_values(page, "#significance table.significance-haircut-tested")
    assert_entries(
        tested,
        {f"sharpe_haircut.{k}": haircut[k] for k in ("tested_sharpe", "sharpe_t_ratio", "sharpe_p_value")},
    )
    methods = page.eval_on_selector_all(
        "#significance table.significance-haircut tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.method, [...tr.children].slice(1).map(c => c.dataset.value)])",
    )
    assert [m for m, _ in methods] == ["bonferroni_haircut", "holm_haircut", "bhy_haircut", "average_haircut"]
    for method, values in methods:
        figures = (
            "adjusted_p_value",
            "adjusted_p_value_monte_carlo_error",
            "haircut_sharpe",
            "haircut_share",
        )
        for key, value in zip(figures, values, strict=True):
            assert (float(value) if value else None) == haircut[method][key]["value"], (method, key)
    months, tests = haircut["observed_months"], haircut["tests"]
    for name in ("sharpe_haircut.observed_months", "sharpe_haircut.tests", "sharpe_haircut.simulations"):
        assert page.get_attribute(f"#significance-haircut [data-key='{name}']", "data-value") == str(
            haircut[name.split(".")[1]]
        )
    p = haircut["sharpe_p_value"]["value"]
    bonferroni = haircut["bonferroni_haircut"]
    assert math.isclose(bonferroni["adjusted_p_value"]["value"], min(tests * p, 1.0), rel_tol=1e-12)
    for method in ("bonferroni_haircut", "holm_haircut", "bhy_haircut", "average_haircut"):
        adjusted = haircut[method]["adjusted_p_value"]["value"]
        implied = student_t.ppf(1 - adjusted / 2, months - 1) / math.sqrt(months) * math.sqrt(12)
        assert math.isclose(haircut[method]["haircut_sharpe"]["value"], implied, rel_tol=1e-9, abs_tol=1e-12)
        share = (haircut["tested_sharpe"]["value"] - implied) / haircut["tested_sharpe"]["value"]
        assert math.isclose(haircut[method]["haircut_share"]["value"], share, rel_tol=1e-9, abs_tol=1e-12)
    assert_uncertainty(
        page, "#uncertainty", site.api(f"{base}/uncertainty", token, book="long_short").json()["data"]
    )

    # The overfitting panel: the demo's alphas name no trial family, so each figure shows its reason.
    page.wait_for_selector("#overfitting table.overfitting")
    overfitting = site.api(f"{base}/overfitting", token).json()["data"]
    assert "names no trial family" in page.inner_text("#overfitting-summary")
    assert overfitting["pbo"]["withheld_reason"] in page.inner_text("#overfitting table.overfitting")
    # The family tests likewise: no family, each p-value's reason as served (a family's figures:
    # tests/e2e/test_dashboard_family_tests.py).
    page.wait_for_selector("#family-tests table.family-tests-spa")
    family = site.api(f"{base}/family_tests", token).json()["data"]
    assert family["family"] is None and family["members"] == []
    assert "names no trial family" in page.inner_text("#family-tests-summary")
    spa = page.inner_text("#family-tests table.family-tests-spa")
    for key in ("spa_p_value", "spa_p_value_lower", "spa_p_value_upper"):
        assert family[key]["value"] is None and family[key]["withheld_reason"] in spa, key
    # The catalogue-wide Rademacher bound: every figure of both sides exactly as served (the cell's
    # data-value), and the served bound is Paleologo's sub-Gaussian and bounded forms of its parts.
    page.wait_for_selector("#catalogue-bound table.catalogue-bound-ic")
    bound = site.api(f"{base}/catalogue_bound", token).json()["data"]
    shown_bound = dict(
        page.eval_on_selector_all(
            "#catalogue-bound table.catalogue-bound-sharpe tbody tr, #catalogue-bound table.catalogue-bound-ic tbody tr",
            "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].dataset.value])",
        )
    )
    assert len(shown_bound) == 12
    for key, value in shown_bound.items():
        served_value = bound[key]["value"] if isinstance(bound[key], dict) else bound[key]
        assert (float(value) if value else None) == served_value, key
    delta = 1 - bound["ras_confidence"]
    sessions, weeks = bound["ras_sessions"], bound["ras_weeks"]
    sharpe_bound = (
        bound["ras_sharpe_observed"]["value"]
        - 2 * bound["ras_sharpe_complexity"]
        - 3 * math.sqrt(2 * math.log(2 / delta) / sessions)
        - math.sqrt(2 * math.log(2 * bound["ras_sharpe_alphas"] / delta) / sessions)
    )
    assert math.isclose(bound["ras_sharpe_lower_bound"]["value"], sharpe_bound, rel_tol=1e-9, abs_tol=1e-12)
    ic_bound = (
        bound["ras_ic_observed"]["value"]
        - 2 * bound["ras_ic_complexity"]
        - 3 * math.sqrt(2 * math.log(2 / delta) / weeks)
    )
    assert math.isclose(bound["ras_ic_lower_bound"]["value"], ic_bound, rel_tol=1e-9, abs_tol=1e-12)

    page.wait_for_selector("#drawdown-episodes table.drawdowns")
    episodes = site.api(f"{base}/drawdowns", token, limit=1000).json()["data"]
    page.click("#drawdowns-show-all")  # the ten deepest first (test_figures_... counts them)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#drawdown-episodes tbody tr').length === n", arg=len(episodes)
    )
    rows = page.eval_on_selector_all(
        "#drawdown-episodes tbody tr", "trs => trs.map(tr => [...tr.children].map(c => c.innerText.trim()))"
    )
    assert len(rows) == len(episodes) > 1
    for row, episode in zip(rows, episodes, strict=True):
        assert row[:2] == [episode["peak_date"], episode["trough_date"]]
        assert row[2] == (episode["recovery_date"] or "not recovered")
        assert row[3] == f"{episode['depth_pct']:.2f}%"

    assert_drawn(page, "rolling-ic")
    assert_drawn(page, "rolling-ir")
    rolling = site.api(f"{base}/rolling", token, window=26, limit=1000).json()["data"]
    assert page.inner_text("#rolling .caption").startswith(f"{len(rolling)} weeks;")

    page.wait_for_selector("#costs table.costs")
    costs = site.api(f"{base}/costs", token).json()["data"]
    assert_entries(entry_values(page, "#costs table.costs"), flat_entries(costs))
    assert entry_values(page, "#costs table.costs")["break_even_bps"][0].endswith(" bps")
    assert_drawn(page, "turnover-deciles")
    assert_cost_curves(page, "#costs", costs)
    assert_regimes(page, "#regimes", site.api(f"{base}/regimes", token).json()["data"])

    page.wait_for_selector("#decay table.decay-haircut")
    assert_decay(page, "#decay", site.api(f"{base}/decay", token).json()["data"])
    # What the alpha adds to the approved book, and the approved books' crowding (issue 50, item 8).
    page.wait_for_selector("#mmc table.crowding")
    assert_mmc(
        page,
        "#mmc",
        site.api(f"{base}/mmc", token).json()["data"],
        site.api("/v1/analytics/crowding", token).json()["data"],
    )

    page.wait_for_selector("#risk table.risk")
    risk = site.api(f"{base}/risk", token).json()["data"]
    served_risk = flat_entries(risk)
    assert {"benchmark.beta", "sortino", "calmar", "var_95", "cvar_95", "worst_month"} <= set(served_risk)
    assert_entries(entry_values(page, "#risk table.risk"), served_risk)
    worst = risk["worst_day"]
    assert f"{worst['value'] * 100:.2f}%" in page.inner_text("#risk [data-figure='worst_day'] + td")
    # The drawdown is served in percentage points of the peak, as /metrics' max_drawdown_pct: shown
    # as is with a % sign, never multiplied by 100 again.
    drawdown = risk["max_drawdown_pct"]
    assert drawdown["unit"] == "percentage_points" and "max_drawdown" not in risk
    assert page.inner_text("#risk [data-figure='max_drawdown_pct']").startswith("Max drawdown")
    assert f"{drawdown['value']:.2f}%" in page.inner_text("#risk [data-figure='max_drawdown_pct'] + td")

    page.wait_for_selector("#checks table.checks")
    checks = site.api(f"{base}/checks", token).json()["data"]
    shown_checks = page.eval_on_selector_all(
        "#checks table.checks tbody tr",
        "trs => trs.map(tr => [tr.dataset.check, tr.querySelector('.badge').dataset.verdict,"
        " tr.querySelector('.badge').innerText, tr.children[1].dataset.value,"
        " tr.querySelector('td.reason .why').innerText])",
    )
    assert [c[0] for c in shown_checks] == [c["id"] for c in checks["checks"]]
    words = {"pass": "PASS", "fail": "FAIL", "not_measurable": "NOT MEASURABLE"}
    for (_, verdict, text, value, why), check in zip(shown_checks, checks["checks"], strict=True):
        assert verdict == check["verdict"] and text == words[check["verdict"]]
        assert (value == "") if check["value"] is None else close(float(value), check["value"])
        # Every row says why, a pass as a fail: the comparison and what the value means (issue 33, item 4)
        assert why == check["reason"] and why, (why, check)
    assert {c["verdict"] for c in checks["checks"]} >= {"pass", "fail"}
    summary = checks["summary"]
    shown_summary = page.inner_text("#checks-summary")
    assert f"{summary['passed']} passed, {summary['failed']} failed" in shown_summary
    assert page.get_attribute("#checks-summary .badge", "data-verdict") == summary["verdict"]
    page.locator("#significance").scroll_into_view_if_needed()
    keep_screenshot(page, tmp_path, f"decisions-{ALPHA}.png")
    check_clean(site, visit)


@pytest.mark.e2e
def test_two_alphas_ticked_in_the_screener_are_compared(site: Site, tab: Any, tmp_path: Path) -> None:
    visit = open_dashboard(site, tab, site.keys.full)
    page = visit.page
    page.wait_for_selector("#catalogue table.screen")
    assert page.is_disabled("#compare-picked")
    page.check(f"input.pick[value='{ALPHA}']")
    page.check(f"input.pick[value='{OTHER}']")
    page.click("#compare-picked")
    page.wait_for_selector("#compare-results table.compare-figures")
    assert page.input_value("#compare-a") == ALPHA and page.input_value("#compare-b") == OTHER
    answer = site.api(f"/v1/alphas/{ALPHA}/analytics/compare", site.keys.full, **{"with": OTHER}).json()[
        "data"
    ]
    rows = page.eval_on_selector_all(
        "#compare-results table.compare-figures tbody tr",
        "trs => trs.map(tr => ({figure: tr.dataset.figure, a: tr.children[1].dataset.value,"
        " b: tr.children[2].dataset.value, diff: tr.children[3].dataset.value, over: tr.children[4].innerText,"
        " test: tr.children[5].innerText, statistic: tr.children[6].innerText, p: tr.children[7].innerText,"
        " significant: tr.children[8].innerText}))",
    )
    assert [r["figure"] for r in rows] == list(answer["figures"])
    for row in rows:
        figure = answer["figures"][row["figure"]]
        for side, key in (("a", "alpha"), ("b", "with")):
            served = figure[key]["value"]
            assert (row[side] == "") if served is None else close(float(row[side]), served)
        assert (
            (row["diff"] == "")
            if figure["difference"] is None
            else close(float(row["diff"]), figure["difference"])
        )
        # each figure says what it is over: the common sessions, or the common weeks of the rebuilt IC
        if "common_weeks" in figure:
            assert row["over"] == f"{figure['common_weeks']} common weeks (rebuilt IC)", row
        else:
            assert row["over"] == f"{figure['common_sessions']} common sessions", row
        test = figure["test"]
        if test is None:
            assert row["test"] == "no test stated" and row["significant"] == "—"
        else:
            assert row["test"] == test["name"]
            if test["statistic"] is not None:
                assert row["statistic"].startswith(f"{test['statistic_kind']} = "), row
            if test["p_value"] is not None:
                four_digits(row["p"], test["p_value"])
                assert row["significant"].startswith("yes" if test["significant"] else "no")
    # The ICIR says its basis: annualised, as the catalogue's (not "Icir" without a unit).
    assert answer["figures"]["icir"]["alpha"]["annualisation"] == "annualised"
    assert page.inner_text("#compare-results tr[data-figure='icir'] th").startswith("ICIR (annualised)")
    summary = page.inner_text("#compare-summary")
    assert f"{answer['sessions']} common sessions" in summary
    assert f"rebuilt from the cross-sections over the {answer['weeks']} common weeks only" in summary
    assert_named_as_shown(page, "#compare-results")
    for chart in ("compare-curves", "compare-difference", "compare-rolling-returns", "compare-rolling-ic"):
        assert_drawn(page, chart)
    # The picker asks again for another pair and window.
    page.select_option("#compare-b", "value_composite_legacy")
    page.select_option("#compare-window", "21")
    page.click("#compare-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#compare-summary')?.innerText.includes('against value_composite_legacy')"
    )
    keep_screenshot(page, tmp_path, "compare.png")
    check_clean(site, visit)


@pytest.mark.e2e
def test_a_combination_shows_its_curve_weights_figures_and_correlations(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, "#/combine")
    page = visit.page
    page.wait_for_selector("#combine-form input.combine-alpha")
    for alpha in COMBINED:
        page.check(f"#combine-{alpha}")
    page.select_option("#combine-weighting", "given")
    weights = ("0.5", "0.3", "0.2")
    for alpha, weight in zip(COMBINED, weights, strict=True):
        page.fill(f"#weight-{alpha}", weight)
    page.click("#combine-form button[type=submit]")
    page.wait_for_selector("#combine-results table.combine-weights")
    query = {"alphas": ",".join(COMBINED), "weighting": "given", "weights": ",".join(weights)}
    answer = site.api("/v1/analytics/combine", site.keys.full, limit=5000, **query).json()
    meta = answer["meta"]
    shown_weights = page.eval_on_selector_all(
        "table.combine-weights tbody tr",
        "trs => trs.map(tr => [tr.children[0].innerText, tr.children[1].dataset.value])",
    )
    assert [(a, float(w)) for a, w in shown_weights] == [(w["alpha"], w["weight"]) for w in meta["weights"]]
    assert [w["weight"] for w in meta["weights"]] == [float(w) for w in weights]  # used as given
    assert_entries(entry_values(page, "table.combine-figures"), meta["figures"])
    drawdown = meta["figures"]["max_drawdown_pct"]
    assert drawdown["unit"] == "percentage_points"
    shown_drawdown = page.inner_text("table.combine-figures [data-figure='max_drawdown_pct'] + td")
    assert f"{drawdown['value']:.2f}%" in shown_drawdown, (shown_drawdown, drawdown)
    assert_named_as_shown(page, "#combine-results")
    last = answer["data"][-1]
    assert f"{last['cumulative_return'] * 100:.2f}% combined" in page.inner_text("#combine-summary")
    matrix = page.eval_on_selector_all(
        "table.correlation-matrix tbody tr",
        "trs => trs.map(tr => [...tr.querySelectorAll('td')].map(td => td.dataset.value))",
    )
    for shown_row, served_row in zip(matrix, meta["correlation"]["matrix"], strict=True):
        for text, value in zip(shown_row, served_row, strict=True):
            assert (text == "") if value is None else close(float(text), value)
    assert_drawn(page, "combine-curve")
    assert_drawn(page, "combine-drawdown")
    keep_screenshot(page, tmp_path, "combine.png")

    # What adding one more alpha does to the combination built above: "Before" is that combination
    # (the same set, weighting, weights and window), so its figures are the ones shown above it.
    assert not page.query_selector(f"#contribution-alpha option[value='{ALPHA}']")  # already in it
    query.pop("alphas")
    asked = {"reference": ",".join(COMBINED), **query}
    optimal = site.api(f"/v1/alphas/{OTHER}/analytics/contribution", site.keys.full, **asked).json()["data"]
    best = optimal["weight"]["value"]
    assert 0 < best < 1 and optimal["weight"]["chosen"] == "optimal", optimal["weight"]
    # No weight on screen yet (issue 47, item 4): Before alone, and the optimal weight only as a
    # suggestion, named and apart; no book after is drawn at a weight the page chose.
    before_only = contribution_shown(page, OTHER)
    assert page.get_attribute("#contribution-summary", "data-weight") == ""
    assert all(len(cells) == 1 for cells in before_only.values()), before_only
    assert_contribution_shown(page, before_only, optimal, before_only=True)
    assert close(float(page.get_attribute("#contribution-suggestion", "data-weight")), best)
    suggestion = page.inner_text("#contribution-suggestion")
    assert (
        suggestion.startswith("Suggestion: ")
        and "maximises the information ratio after (optimal)" in suggestion
    )
    keep_screenshot(page, tmp_path, "combine-contribution-suggestion.png")
    # A weight typed beside the alpha: the book after at exactly that weight.
    contribution = contribution_shown(page, OTHER, "0.2")
    response = site.api(f"/v1/alphas/{OTHER}/analytics/contribution", site.keys.full, weight=0.2, **asked)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["weight"] == {"value": 0.2, "chosen": "given"}
    assert data["reference"]["combination"]["weights"] == meta["weights"]
    assert data["sessions"] == data["reference"]["combination"]["sessions"] == meta["sessions"]
    assert_contribution_shown(page, contribution, data)
    assert list(data["before"]) == list(meta["figures"])
    for name, entry in meta["figures"].items():
        shown_before = contribution[name][0]
        assert (shown_before == "") if entry["value"] is None else close(float(shown_before), entry["value"])
        after = data["after"][name]["value"]
        if name in ("information_ratio", "volatility"):
            assert not close(after, entry["value"], 1e-6), (name, after, entry)
    assert "over its 296 sessions" in page.inner_text("#contribution-sessions")
    summary = page.inner_text("#contribution-summary")
    assert summary.startswith(f"Weight of {OTHER} after: 20.00% (the weight on screen)"), summary
    # The suggestion beside it names the information ratio at each weight, both as served.
    suggested = float(page.get_attribute("#contribution-suggestion", "data-information-ratio"))
    assert close(suggested, optimal["after"]["information_ratio"]["value"])
    assert "at the weight on screen" in page.inner_text("#contribution-suggestion")
    reference = page.inner_text("#contribution-reference")
    assert reference.startswith(f"{data['reference']['members_in_window']} of {data['reference']['count']}")
    page.locator("#contribution").scroll_into_view_if_needed()
    keep_screenshot(page, tmp_path, "combine-contribution.png")
    # The suggestion used only when asked: the book after at the optimal weight, as the route serves it.
    page.click("#contribution-use-suggestion")
    page.wait_for_function(
        "w => { const s = document.querySelector('#contribution-summary');"
        " return s && s.dataset.chosen === 'given' && Number(s.dataset.weight) === w; }",
        arg=best,
    )
    assert close(float(page.input_value("#contribution-weight")), best)
    used = contribution_rows(page)
    assert_contribution_shown(page, used, optimal)

    # An alpha trading on fewer of the combination's sessions: Before is the combination over those
    # sessions, and the page says so.
    shorter = contribution_shown(page, SHORT, "0.25")
    response = site.api(
        f"/v1/alphas/{SHORT}/analytics/contribution",
        site.keys.full,
        reference=",".join(COMBINED),
        weight=0.25,
        **query,
    )
    data = response.json()["data"]
    assert data["sessions"] < data["reference"]["combination"]["sessions"] == meta["sessions"]
    assert_contribution_shown(page, shorter, data)
    said = page.inner_text("#contribution-sessions")
    assert f"over the {data['sessions']} of its {meta['sessions']} sessions on which {SHORT}" in said, said
    keep_screenshot(page, tmp_path, "combine-contribution-shorter.png")
    check_clean(site, visit, allowed_statuses=())


@pytest.mark.e2e
def test_a_max_ir_combination_warns_it_is_in_sample_and_fits_out_of_sample(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """Issue 33, item 6: max_ir weights fitted on the sessions they are judged on are said to be
    in-sample (the warning and the fit note); a fit_to date fits them on the sessions up to it, and
    the page shows the weights, figures and warnings the API serves for it (a short is warned of)."""
    visit = open_dashboard(site, tab, site.keys.full, "#/combine")
    page = visit.page
    page.wait_for_selector("#combine-form input.combine-alpha")
    assert page.is_hidden("#combine-fit-to")  # equal weights are not fitted
    for alpha in COMBINED:
        page.check(f"#combine-{alpha}")
    page.select_option("#combine-weighting", "max_ir")
    assert page.is_visible("#combine-fit-to")
    page.click("#combine-form button[type=submit]")
    page.wait_for_selector("#combine-fit[data-sample='in_sample']")
    query = {"alphas": ",".join(COMBINED), "weighting": "max_ir"}
    meta = site.api("/v1/analytics/combine", site.keys.full, limit=1, **query).json()["meta"]
    # In-sample, and a short warned of when the fit shorts an alpha of the set (the demo's value
    # sleeve decays: its factor reverses).
    shorts = any(w["weight"] < 0 for w in meta["weights"])
    assert [w["code"] for w in meta["warnings"]] == ["in_sample_weights"] + ["negative_weights"] * shorts
    warned = page.inner_text("#combine-results ul.warnings")
    assert "in_sample_weights" in warned, warned
    for warning in meta["warnings"]:
        assert warning["message"] in warned, (warning, warned)
    assert meta["fit"]["rule"] in page.inner_text("#combine-fit")

    fit_to = "2021-06-30"
    page.fill("#combine-fit-to", fit_to)
    page.click("#combine-form button[type=submit]")
    page.wait_for_selector("#combine-fit[data-sample='out_of_sample']")
    assert f"fit_to={fit_to}" in page.evaluate("location.hash")
    answer = site.api("/v1/analytics/combine", site.keys.full, limit=5000, fit_to=fit_to, **query).json()
    meta = answer["meta"]
    assert meta["fit"]["fit_to"] == fit_to and meta["sessions"] == len(answer["data"])
    assert answer["data"][0]["date"] > fit_to
    shown_weights = page.eval_on_selector_all(
        "table.combine-weights tbody tr",
        "trs => trs.map(tr => [tr.children[0].innerText, tr.children[1].dataset.value])",
    )
    assert [(a, float(w)) for a, w in shown_weights] == [(w["alpha"], w["weight"]) for w in meta["weights"]]
    assert_entries(entry_values(page, "table.combine-figures"), meta["figures"])
    codes = [w["code"] for w in meta.get("warnings", [])]
    assert "in_sample_weights" not in codes
    warned = page.inner_text("#combine-results ul.warnings") if meta.get("warnings") else ""
    for warning in meta.get("warnings", []):
        assert warning["message"] in warned, (warning, warned)
    if any(w["weight"] < 0 for w in meta["weights"]):
        assert "negative_weights" in codes
    assert meta["fit"]["rule"] in page.inner_text("#combine-fit")
    # The contribution beneath combines the same set the same way: fitted up to fit_to too.
    contribution_shown(page, OTHER)
    response = site.api(
        f"/v1/alphas/{OTHER}/analytics/contribution",
        site.keys.full,
        reference=",".join(COMBINED),
        weighting="max_ir",
        fit_to=fit_to,
    )
    assert response.status_code == 200, response.text
    combination = response.json()["data"]["reference"]["combination"]
    assert combination["weights"] == meta["weights"] and combination["fit"] == meta["fit"]
    keep_screenshot(page, tmp_path, "combine-fit-to.png")
    check_clean(site, visit, allowed_statuses=())


def contribution_rows(page: Any) -> dict[str, list[str]]:
    """The before/after table: figure -> [before, after] as the cells carry them ([before] alone
    while no weight is on screen)."""
    rows: list[list[str]] = page.eval_on_selector_all(
        "#contribution-results table.contribution tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.figure,"
        " ...[...tr.querySelectorAll('td')].slice(0, 2).map(td => td.dataset.value)])",
    )
    return {name: cells for name, *cells in rows}


def contribution_shown(page: Any, alpha: str, weight: str = "") -> dict[str, list[str]]:
    """Adds `alpha` in the contribution panel at `weight` (none: the route's suggestion alone):
    figure -> [before, after] as the cells carry them."""
    page.select_option("#contribution-alpha", alpha)
    page.fill("#contribution-weight", weight)
    page.click("#contribution-form button[type=submit]")
    page.wait_for_function(
        "([alpha, weight]) => { const s = document.querySelector('#contribution-summary');"
        " return s && s.innerText.includes(`Weight of ${alpha} `) && s.dataset.weight === weight"
        " && document.querySelector('#contribution-suggestion'); }",
        arg=[alpha, str(float(weight)) if weight else ""],
    )
    return contribution_rows(page)


def assert_contribution_shown(
    page: Any, shown: dict[str, list[str]], data: dict[str, Any], before_only: bool = False
) -> None:
    assert list(shown) == list(data["before"])
    for name, texts in shown.items():
        served = (data["before"][name],) if before_only else (data["before"][name], data["after"][name])
        for text, entry in zip(texts, served, strict=True):
            assert (text == "") if entry["value"] is None else close(float(text), entry["value"]), (
                name,
                entry,
            )


class Tags(HTMLParser):
    """Every tag with its attributes, and the JSON of the embedded data."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.in_data = False
        self.data = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.in_data = tag == "script" and dict(attrs).get("id") == "tearsheet-data"

    def handle_endtag(self, tag: str) -> None:
        self.in_data = False

    def handle_data(self, data: str) -> None:
        if self.in_data:
            self.data += data


@pytest.mark.e2e
def test_the_tear_sheet_prints_and_downloads_as_one_self_contained_file(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    # Opened at its address (the alpha page's "Tear sheet" link, checked in the first test).
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}/tearsheet")
    page = visit.page
    page.wait_for_selector("#download-tearsheet:not([disabled])")
    token = site.keys.full
    significance = site.api(f"/v1/alphas/{ALPHA}/analytics/significance", token).json()["data"]
    checks = site.api(f"/v1/alphas/{ALPHA}/analytics/checks", token).json()["data"]
    metrics = site.api(f"/v1/alphas/{ALPHA}/metrics", token, granularity="overall").json()["data"]
    for block in ("headline", "equity", "drawdowns", "risk", "checks", "significance", "costs"):
        assert page.is_visible(f"#sheet-{block}") and not page.query_selector(f"#sheet-{block} .error"), block
    assert_entries(
        entry_values(page, "#sheet-headline table.headline"),
        {
            k: metrics["core"][k]
            for k in ("information_ratio", "excess_sharpe", "ic", "icir", "max_drawdown_pct")
        },
    )
    assert page.locator("#sheet-equity svg[data-chart='sheet-equity'] path[data-series]").count() == 2
    assert cell_texts(page, "#sheet-checks tbody .badge") == [
        {"pass": "PASS", "fail": "FAIL"}.get(c["verdict"], "NOT MEASURABLE") for c in checks["checks"]
    ]
    keep_screenshot(page, tmp_path, "tearsheet.png")
    page.emulate_media(media="print")
    assert not page.is_visible(".topbar") and not page.is_visible("#download-tearsheet")
    keep_screenshot(page, tmp_path, "tearsheet-print.png")
    # Printed to PDF as Chromium prints it: the chart's legend names both series, in print too.
    legend = page.eval_on_selector_all(
        "#sheet-equity svg.svg-legend text", "ts => ts.map(t => t.textContent)"
    )
    assert legend[0] == f"{ALPHA} (long_short)" and legend[1].startswith("SPY ("), legend
    assert page.is_visible("#sheet-equity svg.svg-legend")
    assert ": —" not in page.inner_text("#tearsheet")
    assert_named_as_shown(page, "#tearsheet")
    assert cell_texts(page, "#tearsheet table.entries tbody td:nth-child(3)")  # units are shown
    printed = tmp_path / "tearsheet.pdf"
    page.pdf(path=str(printed), format="A4")
    assert printed.read_bytes().startswith(b"%PDF-")
    keep_artefact(printed)
    page.emulate_media(media="screen")

    with page.expect_download() as download:
        page.click("#download-tearsheet")
    assert download.value.suggested_filename == f"tearsheet-{ALPHA}.html"
    html = Path(download.value.path()).read_text()
    parsed = Tags()
    parsed.feed(html)
    names = {tag for tag, _ in parsed.tags}
    assert "link" not in names and "img" not in names and "iframe" not in names
    for tag, attrs in parsed.tags:
        assert "src" not in attrs and "href" not in attrs, (tag, attrs)  # nothing to fetch or follow
        if tag == "script":
            assert attrs.get("type") == "application/json", attrs  # data, never code
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    assert "url(" not in html and "@import" not in html  # the inlined CSS loads nothing either
    assert "<style>" in html and "<svg" in html and ALPHA in html
    assert f"{significance['psr']['value']:.4g}" in html  # the figures are in the file as shown
    embedded = json.loads(parsed.data)
    assert embedded["alpha"] == ALPHA
    assert embedded["answers"]["significance"]["data"]["psr"] == significance["psr"]
    assert embedded["answers"]["checks"]["data"]["summary"] == checks["summary"]
    # Opened on its own with every request refused, it shows the sheet and asks for nothing.
    offline = tab.new_page()
    asked: list[str] = []

    def refuse(route: Any) -> None:
        asked.append(route.request.url)
        route.abort()

    offline.route("**/*", refuse)
    offline.set_content(html)
    assert ALPHA in offline.inner_text("#tearsheet")
    assert offline.locator("svg[data-chart='sheet-equity'] path[data-series]").count() == 2
    assert asked == []
    offline.close()
    check_clean(site, visit)


@pytest.mark.e2e
def test_a_key_without_the_analytics_routes_sees_which_route_each_panel_needs(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    """A self-service key may call the meta endpoints only: every analytics panel shows its 403 with
    the registry id of the route it needs, and the page does not break."""
    alpha = OTHER
    visit = open_dashboard(site, tab, site.keys.self_service, f"#/alphas/{alpha}")
    page = visit.page
    for panel, endpoint in ANALYTICS_PANELS.items():
        shown = error_box(page, f"#{panel} .error")
        assert shown["code"] == "endpoint_not_allowed", (panel, shown)
        assert endpoint in shown["text"], (panel, shown["text"])
    # The comparison and the combination list the alphas first: that refusal, in place of the pickers.
    # The key's per-second window is shared with the page's own requests: a 429 here is the limit
    # doing its job, not the answer asked about, so the refusal is read once the window reopens.
    listing = wait_until(
        lambda: (
            error
            if not (error := site.api("/v1/alphas", site.keys.self_service).json()["error"])[
                "code"
            ].startswith("rate_limit")
            else None
        ),
        "the listing's refusal, outside a rate-limit window",
    )
    for view in (
        "#/compare?a=momentum_12_1&b=Test_planted_factor",
        "#/combine?alphas=momentum_12_1,Test_planted_factor",
    ):
        page.evaluate("(hash) => { location.hash = hash; }", view)
        shown = error_box(page, "main form .error")
        assert shown["code"] == listing["code"] == "endpoint_not_allowed"
        assert listing["message"] in shown["text"]
    keep_screenshot(page, tmp_path, "decisions-refused.png")
    check_clean(site, visit, allowed_statuses=(403,))


# ---------------------------------------------------------------------------------------------
# Issue 33: names, units and colours a reader understands; the Combine link; the catalogue at
# 1,440 px; the alpha page's section links and drawdown episodes (docs/dashboard.md).
# ---------------------------------------------------------------------------------------------

NEGATIVE_ZERO = re.compile(r"(?<![\d.])-0(?:\.0+)?(?![\d.])")  # "-0", "-0.0", "-0.00" (not "-0.02")
BUILD_ID = re.compile(r"\b[0-9a-f]{20}-[0-9a-f]{8}\b")
RAW_NAMES = ("Mean ic", "Icir", "Ic t stat", "Cagr", "Var 95", "Cvar 95", "Deflated sharpe", "Info. ratio")
"""Field names prettified by capitalising them, which the pages once showed for the figures'
proper names (issue 33, item 3)."""
UNIT_CELLS = "table.entries tbody td:nth-child(3), table.metrics-core tbody td:nth-child(3)"
"""The unit column of every table of stat entries."""


def assert_named_as_shown(page: Any, scope: str) -> None:
    """What every page showing figures holds to (issue 33, item 3): each figure under its proper
    name, never a field name prettified; a unit beside a value is the one it is shown in, never the
    API's code ("fraction" beside 11.36 %); no negative zero; one turnover basis (per year)."""
    # Build ids (`<20 hex>-<8 hex>`, the tear sheet's provenance) are names, not numbers: "-0a1b..." is no zero.
    text = BUILD_ID.sub("", page.inner_text(scope))
    assert not [wrong for wrong in RAW_NAMES if wrong in text], text
    units = cell_texts(page, ", ".join(f"{scope} {cells}" for cells in UNIT_CELLS.split(", ")))
    assert not [u for u in units if "_" in u or u in ("fraction", "equity", "multiple")], units
    assert not NEGATIVE_ZERO.search(text), NEGATIVE_ZERO.search(text)
    # One turnover basis: no figure per session (the attribution's count of names held at a close,
    # `mean_names_per_session`, is a count of names, not a turnover).
    text = text.replace("mean_names_per_session", "")
    assert "per session" not in text and "per_session" not in text


IDLE_COLON = """(chart) => [...document.querySelectorAll(`[data-chart="${chart}"] .u-legend th`)]
  .map((th) => getComputedStyle(th, "::after").content)"""


def tone(page: Any, selector: str) -> set[str]:
    """The colour classes of a cell: better, worse, or none."""
    classes = (page.get_attribute(selector, "class") or "").split()
    return set(classes) & {"better", "worse", "positive", "negative"}


@pytest.mark.e2e
def test_figures_carry_their_names_units_and_colours_and_the_page_its_sections(
    site: Site, tab: Any, tmp_path: Path
) -> None:
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{ALPHA}")
    page = visit.page
    token = site.keys.full
    for table in ("risk table.risk", "checks table.checks", "significance table.significance-headline"):
        page.wait_for_selector(f"#{table}")
    for table in ("metrics table.metrics-core", "costs table.costs", "drawdown-episodes table.drawdowns"):
        page.wait_for_selector(f"#{table}")
    text = page.inner_text("main")
    assert_named_as_shown(page, "main")
    for right in ("Mean IC", "ICIR", "IC t-statistic", "CAGR", "VaR 95 %", "CVaR 95 %"):
        assert right in text, right
    assert page.inner_text("#checks tr[data-check='deflated_sharpe'] th").startswith("Deflated Sharpe ratio")
    assert page.inner_text("#significance [data-figure='dsr']").startswith("Deflated Sharpe ratio")
    # The unit beside a value is the one it is shown in: never the API's code ("fraction" beside 9.41%).
    assert cell_texts(page, UNIT_CELLS)
    risk = site.api(f"/v1/alphas/{ALPHA}/analytics/risk", token).json()["data"]
    assert risk["cagr"]["unit"] == "fraction"
    assert page.inner_text("#risk [data-figure='cagr'] + td + td") == "%"
    # No negative zero: not on this page (above), nor from the formatter for a value that rounds to zero.
    formatted = page.evaluate(
        """async () => {
          const url = document.querySelector("script[src$='/app.js']").src.replace(/app\\.js$/, "format.js");
          const f = await import(url);
          return [f.pct(-0.00001, 1), f.pp(-0.001), f.fixed(-0.00001, 2), f.int(-0.3), f.pct(-0.0002)];
        }"""
    )
    assert formatted == ["0.0%", "0.00%", "0.00", "0", "-0.02%"]

    # Colour only where better and worse are declared: a ratio above zero is better; kurtosis,
    # volatility, costs and a drawdown's size are not coloured.
    significance = site.api(f"/v1/alphas/{ALPHA}/analytics/significance", token).json()["data"]
    assert significance["sharpe"]["value"] > 0
    assert tone(page, "#significance [data-figure='sharpe'] + td") == {"better"}
    for cell in (
        "#significance [data-figure='kurtosis'] + td",
        "#significance [data-figure='skewness'] + td",
        "#risk [data-figure='benchmark.tracking_error'] + td",
        "#risk [data-figure='max_drawdown_pct'] + td",
        "#costs [data-figure='execution_cost'] + td",
        "#costs [data-figure='traded_notional'] + td",
        "#metrics table.metrics-core tr:has([data-figure='core.annual_turnover']) td:nth-child(2)",
    ):
        assert tone(page, cell) == set(), cell

    # One turnover basis on the page, per year: the checks serve their turnover annualised, as
    # /metrics serves core.annual_turnover (x 252 sessions), and the page shows both as served.
    metrics = site.api(f"/v1/alphas/{ALPHA}/metrics", token).json()["data"]
    assert metrics["annualisation_factors"]["daily"] == 252
    core = metrics["core"]["annual_turnover"]
    assert core["unit"] == "per_year" and core["periods_per_year"] == 252
    checks = site.api(f"/v1/alphas/{ALPHA}/analytics/checks", token).json()["data"]["checks"]
    turnover = next(c for c in checks if c["id"] == "turnover")
    assert turnover["unit"] == "per_year"
    shown = page.inner_text("#checks tr[data-check='turnover'] td.number")
    assert shown.endswith(" per year")
    four_digits(shown, turnover["value"])
    four_digits(
        page.inner_text(
            "#metrics table.metrics-core tr:has([data-figure='core.annual_turnover']) td:nth-child(2)"
        ),
        core["value"],
    )
    bounds = page.inner_text("#checks tr[data-check='turnover'] td.threshold")
    low, high = (shown_number(part.lstrip("≥≤ ")) for part in bounds.split(", "))
    assert math.isclose(low, turnover["threshold"]["min"], rel_tol=6e-4), bounds
    assert math.isclose(high, turnover["threshold"]["max"], rel_tol=6e-4), bounds

    # Legends read without a pointer (and so in print): a time chart's latest values, a category
    # chart's series name alone; never "name: —".
    equity = site.api(f"/v1/alphas/{ALPHA}/equity-curve", token, limit=5000).json()["data"]
    for chart in ("cumulative-return", "drawdown", "ic-weekly", "rolling-ic", "rolling-ir"):
        assert_drawn(page, chart)
        legend = page.inner_text(f"[data-chart='{chart}'] .u-legend")
        assert "—" not in legend and "(latest)" in legend, (chart, legend)
    latest = page.inner_text("[data-chart='cumulative-return'] .u-legend .u-series:nth-child(2) .u-value")
    assert latest == f"{equity[-1]['cumulative_return'] * 100:.1f}%", latest
    for chart in ("ic-deciles", "ic-term-structure", "rank-autocorrelation", "turnover-deciles"):
        assert_drawn(page, chart)
        legend = page.inner_text(f"[data-chart='{chart}'] .u-legend")
        assert "—" not in legend and legend.strip() == page.inner_text(f"[data-chart='{chart}'] figcaption")
        assert set(page.evaluate(IDLE_COLON, chart)) <= {"none"}, chart  # no "name:" either

    # Section links: one per panel, in order, in a bar that stays at the top while scrolling.
    panels = page.eval_on_selector_all("main section.panel[id]", "ss => ss.map(s => s.id)")
    linked = page.eval_on_selector_all("#section-nav a", "as => as.map(a => a.dataset.section)")
    assert linked == panels and "drawdown-episodes" in panels and len(panels) >= 12
    route = page.evaluate("location.hash")
    page.click("#section-nav a[data-section='drawdown-episodes']")
    page.wait_for_function(
        "() => { const top = document.querySelector('#drawdown-episodes').getBoundingClientRect().top;"
        " return top > 0 && top < 150; }"
    )
    # The heading jumped to is below the bar, not under it (issue 65, item 5).
    heading_top = page.evaluate(
        "document.querySelector('#drawdown-episodes > h2').getBoundingClientRect().top"
    )
    bar_bottom = page.evaluate("document.querySelector('#section-nav').getBoundingClientRect().bottom")
    assert heading_top >= bar_bottom, (heading_top, bar_bottom)
    assert page.evaluate("location.hash") == route  # still this alpha's page
    assert page.evaluate("document.querySelector('#section-nav').getBoundingClientRect().top") == 0
    # The ten deepest drawdown episodes, and a button for all of them.
    episodes = site.api(f"/v1/alphas/{ALPHA}/analytics/drawdowns", token, limit=1000).json()["data"]
    assert len(episodes) > 10
    peaks = cell_texts(page, "#drawdown-episodes tbody th")
    assert peaks == [e["peak_date"] for e in episodes[:10]]
    assert page.inner_text("#drawdowns-show-all") == f"Show all {len(episodes)} episodes"
    keep_screenshot(page, tmp_path, f"alpha-{ALPHA}.png")
    check_clean(site, visit)


def assert_after_is_the_combination(shown: dict[str, list[str]], figures: dict[str, Any]) -> None:
    """The before/after's After column is the combination's figures (/analytics/combine meta.figures)."""
    assert list(shown) == list(figures)
    for name, entry in figures.items():
        after = shown[name][1]
        assert (after == "") if entry["value"] is None else close(float(after), entry["value"], 1e-9), (
            name,
            after,
            entry,
        )


@pytest.mark.e2e
def test_the_combine_link_adds_the_alpha_to_a_production_alpha(site: Site, tab: Any, tmp_path: Path) -> None:
    """`Combine…` on an alpha's page opens the combination of that alpha with the first production
    alpha of the catalogue, and the before/after with the alpha as the one added. One combination is
    shown (issue 47, item 4): After is the combination on screen, the alpha at its weight there (50%),
    Before it without the alpha; the weight that maximises the information ratio is a suggestion apart."""
    visit = open_dashboard(site, tab, site.keys.full, f"#/alphas/{OTHER}")
    page = visit.page
    assert page.get_attribute("#open-combine", "href") == f"#/combine?add={OTHER}"
    production = site.api(SCREEN, site.keys.full, production="true").json()["data"]
    partner = next(r["alpha_id"] for r in production if r["alpha_id"] != OTHER)
    page.click("#open-combine")
    page.wait_for_function(
        "(alpha) => document.querySelector('#contribution-summary')?.innerText.includes(`Weight of ${alpha} `)"
        " && document.querySelector('#contribution-suggestion')",
        arg=OTHER,
    )
    fragment = page.evaluate("location.hash")
    query = dict(httpx.QueryParams(fragment.split("?", 1)[1]))
    assert query["alphas"] == f"{partner},{OTHER}" and query["add"] == OTHER, fragment
    # The weights come with the combination's own answer.
    page.wait_for_function("() => document.querySelectorAll('table.combine-weights tbody th').length > 0")
    assert cell_texts(page, "table.combine-weights tbody th") == [partner, OTHER]
    assert page.input_value("#contribution-alpha") == OTHER
    combined = site.api(
        "/v1/analytics/combine", site.keys.full, alphas=f"{partner},{OTHER}", weighting="equal", limit=5000
    ).json()
    meta = combined["meta"]
    assert [w["weight"] for w in meta["weights"]] == [0.5, 0.5]
    # The before/after asked at the weights on screen, over the combination's sessions.
    data = site.api(
        f"/v1/alphas/{OTHER}/analytics/contribution",
        site.keys.full,
        reference=f"{partner},{OTHER}",
        weighting="given",
        weights="0.5,0.5",
        **{"from": combined["data"][0]["date"], "to": combined["data"][-1]["date"]},
    ).json()["data"]
    assert data["reference"]["alphas"] == [partner] and data["reference"]["alpha_excluded"]
    assert data["weight"] == {"value": 0.5, "chosen": "given"}
    shown = contribution_rows(page)
    assert_contribution_shown(page, shown, data)
    assert_after_is_the_combination(shown, meta["figures"])
    assert page.get_attribute("#contribution-summary", "data-weight") == "0.5"
    summary = page.inner_text("#contribution-summary")
    assert summary.startswith(f"Weight of {OTHER} after: 50.00% (its weight in the combination above)"), (
        summary
    )
    assert (
        f"After is the combination above, at its weights, over its {meta['sessions']} sessions"
        in page.inner_text("#contribution-sessions")
    )
    # The optimal weight: the route's answer for the rest with the alpha, named, apart, not drawn.
    optimal = site.api(
        f"/v1/alphas/{OTHER}/analytics/contribution", site.keys.full, reference=partner, weighting="equal"
    ).json()["data"]
    assert optimal["weight"]["chosen"] == "optimal" and not close(optimal["weight"]["value"], 0.5, 1e-3)
    assert close(
        float(page.get_attribute("#contribution-suggestion", "data-weight")), optimal["weight"]["value"]
    )
    assert close(
        float(page.get_attribute("#contribution-suggestion", "data-information-ratio")),
        optimal["after"]["information_ratio"]["value"],
    )
    assert not close(
        float(shown["information_ratio"][1]), optimal["after"]["information_ratio"]["value"], 1e-9
    )
    assert not page.query_selector("#contribution-use-suggestion")  # the combination's weights are above
    # A smaller drawdown is the better change (green), a larger one the worse.
    change = data["change"]["max_drawdown_pct"]["value"]
    assert tone(page, "#contribution-results [data-figure='max_drawdown_pct'] ~ td:nth-child(4)") == {
        "better" if change < 0 else "worse"
    }
    assert tone(page, "#contribution-results [data-figure='volatility'] ~ td:nth-child(4)") == set()
    assert not [r.url for r in visit.responses if r.status >= 400]
    page.locator("#contribution").scroll_into_view_if_needed()
    keep_screenshot(page, tmp_path, "combine-from-alpha.png")
    check_clean(site, visit)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "weighting",
    [{"weighting": "given", "weights": "0.5,0.3,0.2"}, {"weighting": "max_ir", "fit_to": "2021-06-30"}],
    ids=["given", "max_ir-fit_to"],
)
def test_the_alpha_added_is_shown_at_its_weight_in_the_combination_on_screen(
    site: Site, tab: Any, tmp_path: Path, weighting: dict[str, str]
) -> None:
    """Whatever the weighting, After is the combination drawn above (its figures to 1e-9, over its
    sessions, after fit_to when its weights were fitted up to a date): the alpha at the weight the
    combination route served for it."""
    members = [ALPHA, "Test_small_universe", OTHER]
    query = {"alphas": ",".join(members), "add": OTHER, **weighting}
    visit = open_dashboard(site, tab, site.keys.full, f"#/combine?{httpx.QueryParams(query)}")
    page = visit.page
    page.wait_for_selector("#combine-results table.combine-weights")
    page.wait_for_function(
        "() => document.querySelector('#contribution-summary')?.dataset.chosen === 'given'"
        " && document.querySelector('#contribution-suggestion')"
    )
    combined = site.api(
        "/v1/analytics/combine", site.keys.full, alphas=",".join(members), limit=5000, **weighting
    ).json()
    meta = combined["meta"]
    served = {w["alpha"]: w["weight"] for w in meta["weights"]}
    shown = contribution_rows(page)
    assert_after_is_the_combination(shown, meta["figures"])
    assert close(float(page.get_attribute("#contribution-summary", "data-weight")), served[OTHER])
    data = site.api(
        f"/v1/alphas/{OTHER}/analytics/contribution",
        site.keys.full,
        reference=",".join(w["alpha"] for w in meta["weights"]),
        weighting="given",
        weights=",".join(repr(w["weight"]) for w in meta["weights"]),
        **{"from": combined["data"][0]["date"], "to": combined["data"][-1]["date"]},
    ).json()["data"]
    assert data["sessions"] == meta["sessions"]
    assert_contribution_shown(page, shown, data)
    page.locator("#contribution").scroll_into_view_if_needed()
    keep_screenshot(page, tmp_path, f"combine-added-{weighting['weighting']}.png")
    check_clean(site, visit)


@pytest.mark.e2e
def test_the_catalogue_fits_a_1440_px_window_with_its_compare_column(site: Site, tmp_path: Path) -> None:
    context = site.browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        visit = open_dashboard(site, context, site.keys.full)
        page = visit.page
        page.wait_for_selector("#catalogue table.screen input.pick")
        geometry = page.evaluate(
            """() => {
              const scroller = document.querySelector('#catalogue-results .table-scroll');
              const frame = scroller.getBoundingClientRect();
              const boxes = [...scroller.querySelectorAll('input.pick')].map((b) => b.getBoundingClientRect());
              return { scroll: scroller.scrollWidth, client: scroller.clientWidth, left: frame.left,
                       right: frame.right, boxes: boxes.map((b) => [b.left, b.right]), width: innerWidth };
            }"""
        )
        assert geometry["scroll"] <= geometry["client"], geometry  # nothing cut off
        assert geometry["boxes"]
        for left, right in geometry["boxes"]:
            assert geometry["left"] <= left and right <= min(geometry["right"], geometry["width"]), geometry
        assert cell_texts(page, "#catalogue table.screen thead th")[0] == "Compare"
        page.check(f"input.pick[value='{ALPHA}']")
        page.check(f"input.pick[value='{OTHER}']")
        assert page.is_enabled("#compare-picked")
        keep_screenshot(page, tmp_path, "catalogue-1440.png")
        check_clean(site, visit)
    finally:
        context.close()
