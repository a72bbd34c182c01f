"""Issue 62: the "Family tests" panel and tear-sheet page (serve/static/ui/family_tests_panel.js) draw
exactly what `/v1/alphas/{alpha}/analytics/family_tests` answers for the same key, each figure marked
with its vocabulary term, in Chromium against the real `alpha-results serve`.

The small demo's alphas name no trial family (tests/e2e/test_dashboard_decisions.py checks the
panel's reason there), so this file serves the two demo families' lake of tests/analytics
(`families_lake`: 8 planted and 10 noise variants, SPY): the SPA p-values and their entries, every
member's Sharpe ratio, MCS p-value and StepM and MCS flags, the members of StepM's set and of the
model confidence set, each parameter's Spearman correlation (also against scipy's over the served
points) and neighbour deviation with its reason, and the chart of the members' Sharpe ratios against
each parameter of two values or more, point by point as served.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import spearmanr

from tests.e2e.dashboard_site import (
    Site,
    browsing,
    check_clean,
    keep_artefact,
    open_dashboard,
    serving_dashboard,
)
from tests.support.dashboard_decisions import assert_entries, entry_values
from tests.support.dashboard_vocabulary import COLLECT, Answers, problems_of, unmarked_problems
from tests.support.families import NOISE, PLANTED, families_lake  # noqa: F401
from tests.support.tearsheet import nothing_cut_off

pytestmark = pytest.mark.e2e

ALPHA = PLANTED[0]
# Refusals a lake without the demo's records and checks policy may answer on the other panels.
OTHER_PANELS = (404, 409, 422, 503)


@pytest.fixture(scope="module")
def site(
    families_lake: Path,  # noqa: F811 - the fixture imported above
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Site]:
    """The dashboard over the families' lake (read only), with no records: an empty database,
    which the key store fills."""
    folder = tmp_path_factory.mktemp("family_tests")
    records = folder / "records.sqlite3"
    records.touch()
    with serving_dashboard(families_lake, records, folder) as server, browsing(server) as site:
        yield site


def members_table(page: Any, scope: str) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(  # type: ignore[no-any-return]
        f"{scope} table.family-tests-members tbody tr",
        """trs => trs.map(tr => ({
          id: tr.querySelector('th').dataset.member,
          parameters: tr.children[1].innerText.trim(),
          sharpe: tr.children[2].dataset.value, sharpe_text: tr.children[2].innerText.trim(),
          mcs: tr.children[3].dataset.value,
          stepm: tr.children[4].dataset.flag, in_set: tr.children[5].dataset.flag,
        }))""",
    )


def check_block(page: Any, scope: str, served: dict[str, Any]) -> None:
    """The panel's (or the sheet page's) figures are `served`'s, exactly."""
    assert f"Family {served['family']}:" in page.inner_text(f"{scope} #family-tests-summary")
    spans = page.eval_on_selector_all(
        f"{scope} #family-tests-summary span.figure", "els => els.map(e => [e.dataset.key, e.dataset.value])"
    )
    for key, value in spans:
        assert float(value) == served[key], (key, value)
    assert {key for key, _ in spans} == {
        "compared_members",
        "compared_sessions",
        "comparison_resamples",
        "comparison_block_length",
        "test_size",
    }
    assert_entries(
        entry_values(page, f"{scope} table.family-tests-spa"),
        {k: served[k] for k in ("spa_p_value", "spa_p_value_lower", "spa_p_value_upper")},
    )
    rows = members_table(page, scope)
    assert [r["id"] for r in rows] == [m["alpha_id"] for m in served["members"]]
    flag = {True: "true", False: "false", None: ""}
    for row, member in zip(rows, served["members"], strict=True):
        assert float(row["sharpe"]) == member["family_sharpe"], row
        assert float(row["mcs"]) == member["mcs_p_value"], row
        assert (
            row["stepm"] == flag[member["stepm_superior"]]
            and row["in_set"] == flag[member["in_confidence_set"]]
        )
        assert row["parameters"] == ", ".join(f"{k}={_js(v)}" for k, v in member["parameters"].items())
    stepm = [m["alpha_id"] for m in served["members"] if m["stepm_superior"]]
    in_set = [m["alpha_id"] for m in served["members"] if m["in_confidence_set"]]
    assert page.inner_text(f"{scope} [data-set='stepm']") == (", ".join(stepm) or "none")
    assert page.inner_text(f"{scope} [data-set='mcs']") == (", ".join(in_set) or "none")
    parameters = page.eval_on_selector_all(
        f"{scope} table.family-tests-parameters tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.parameter,"
        " ...[1, 2, 3, 4].map(i => tr.children[i].dataset.value), tr.children[5].innerText.trim()])",
    )
    assert [p[0] for p in parameters] == [p["parameter"] for p in served["parameters"]]
    for (_, members, distinct, spearman, deviation, reason), p in zip(
        parameters, served["parameters"], strict=True
    ):
        assert int(members) == p["members_with_parameter"] and int(distinct) == p["distinct_values"]
        assert (float(spearman) if spearman else None) == p["sharpe_spearman"]
        assert (float(deviation) if deviation else None) == p["neighbour_deviation"]
        assert reason == (p["reason"] or "")
    # A chart a parameter of two values or more: each point the served member's value and Sharpe ratio.
    charted = [p for p in served["parameters"] if p["distinct_values"] >= 2]
    assert charted, "the planted family varies measurement_noise"
    for p in charted:
        name = p["parameter"]
        points = page.eval_on_selector_all(
            f"{scope} [data-chart='family-sharpe-{name}'] circle.point",
            "cs => cs.map(c => [c.dataset.label, Number(c.dataset.x), Number(c.dataset.y)])",
        )
        expected = [
            [m["alpha_id"], m["parameters"][name], m["family_sharpe"]]
            for m in served["members"]
            if isinstance(m["parameters"].get(name), int | float) and m["family_sharpe"] is not None
        ]
        assert points == expected
        # The served Spearman correlation is scipy's over the points drawn (average ranks).
        rho = spearmanr([x for _, x, _ in points], [y for _, _, y in points]).statistic
        assert abs(rho - p["sharpe_spearman"]) < 1e-12
        assert page.locator(f"{scope} [data-chart='family-sharpe-{name}'] .x-title").text_content() == name
    for p in served["parameters"]:
        if p["distinct_values"] < 2:
            assert page.locator(f"{scope} [data-chart='family-sharpe-{p['parameter']}']").count() == 0


def _js(value: Any) -> str:
    """A parameter's value as the page writes it (JavaScript's String of a number)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@pytest.mark.parametrize("alpha", [PLANTED[0], NOISE[0]], ids=["planted", "noise"])
def test_the_family_tests_panel_and_sheet_page_draw_the_served_figures(
    site: Site, tab: Any, tmp_path: Path, alpha: str
) -> None:
    token = site.keys.full
    served = site.api(f"/v1/alphas/{alpha}/analytics/family_tests", token).json()["data"]
    assert served["compared_members"] == len(PLANTED if alpha in PLANTED else NOISE)
    answers = Answers(site, token)
    # The alpha page's panel; the tear sheet's two pages (the members, then the parameters).
    for fragment, scope, topics in (
        (f"#/alphas/{alpha}", "#family-tests", ("family-tests",)),
        (f"#/alphas/{alpha}/tearsheet", "#tearsheet", ("family-tests", "family-parameters")),
    ):
        visit = open_dashboard(site, tab, token, fragment)
        page = visit.page
        page.wait_for_selector(f"{scope} table.family-tests-members")
        for topic in topics:  # the panel or each page alone
            where = f"#{topic}" if scope == "#family-tests" else f"#page-{topic}"
            page.locator(where).scroll_into_view_if_needed()
            shot = tmp_path / f"family-tests-{alpha}-{where[1:]}.png"
            page.locator(where).screenshot(path=str(shot))
            keep_artefact(shot)
        check_block(page, scope, served)
        got = page.evaluate(COLLECT)
        marks = [m for m in got["marks"] if m["where"] in topics]
        assert {m["term"] for m in marks} >= {
            "spa_p_value",
            "family_sharpe",
            "mcs_p_value",
            "sharpe_spearman",
            "neighbour_deviation",
            "compared_members",
        }
        assert problems_of(marks, answers.of(visit.requests)) == []
        assert unmarked_problems([c for c in got["unmarked"] if c["where"] in topics]) == []
        if scope == "#tearsheet":  # laid out as printed, each page holds its content
            assert [p for p in nothing_cut_off(page, "#tearsheet") if p[0] in topics] == []
        check_clean(site, visit, allowed_statuses=OTHER_PANELS)
        page.close()
