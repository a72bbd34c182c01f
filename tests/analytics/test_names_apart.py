"""Near names that are different figures, renamed apart (issue 65, items 3 and 7).

A head of research read, on one tear sheet and its API, two numbers under one name. Each pair is
recomputed here from the demo lake's files with pandas (never the service's code), the two figures
are shown to differ, and the answers and the vocabulary are asserted to name them apart: a served
name, and the label a person reads (`schemas/vocabulary.py`, which the dashboard's labels are made
from), differ whenever the figures do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from schemas import terms
from schemas.bodies.figures import field_facts
from schemas.bodies.rows import EquityRow, LedgerRow, ScreenRow
from schemas.lake import ANALYTICS_ROLLING, FIGURE_TERMS
from schemas.terms import Term
from schemas.vocabulary import GENERIC_KEYS, STILL_TWO_MEANINGS, VOCABULARY, term_named
from tests.analytics import reference as ref
from tests.analytics.conftest import Api
from tests.analytics.helpers import close
from tests.support.build_tables import build_pandas

ALPHA = "momentum_12_1"
SOURCE_ALPHA_ID = "mom-12-1-r7"  # the id momentum_12_1's seal gives itself (its alpha.json)
SESSIONS_PER_YEAR, WEEKS_PER_YEAR = 252, 52


def screen_row(api: Api, alpha: str) -> dict[str, Any]:
    rows = api.ok("/v1/analytics/screen", "plain", limit=100)["data"]
    found: dict[str, Any] = next(r for r in rows if r["alpha_id"] == alpha)
    return found


def ledger_turnover_per_year(lake: ref.Lake, alpha: str) -> float:
    """What the long_short ledger traded: its sessions' one-way turnover, mean x 252."""
    ledger = lake.ledger(alpha, "long_short")
    assert ledger is not None
    return float(ledger["turnover"].mean() * SESSIONS_PER_YEAR)


def target_turnover_per_year(lake: ref.Lake, alpha: str) -> float:
    """What the decisions asked for: half the sum of |w_t - w_t-1| of the long_short target weights
    a week (a missing weight is 0), from the second week, mean x 52."""
    decisions = lake.decisions(alpha)
    assert decisions is not None
    weights = decisions.pivot_table(
        index="date", columns="symbol", values="long_short_target_weight", aggfunc="first"
    )
    weekly = 0.5 * weights.sort_index().fillna(0.0).diff().abs().sum(axis=1).iloc[1:]
    return float(weekly.mean() * WEEKS_PER_YEAR)


def paths(node: Any, at: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key path of a JSON answer (a list's entries under the list's key)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*at, key)
            yield from paths(value, (*at, key))
    elif isinstance(node, list):
        for value in node:
            yield from paths(value, at)


# -- item 1: turnover ---------------------------------------------------------------------------------


def test_the_costs_turnover_is_the_target_weights_not_the_ledgers(api: Api, lake: ref.Lake) -> None:
    """The catalogue's turnover (the run's sealed `annualised_turnover`: the ledger's mean session
    turnover x 252) and the costs route's (the target weights' weekly turnover x 52) are two
    figures: 6.51 against 8.48 per year for momentum_12_1 in the small demo (4.48 against 4.742 in
    the issue's full demo). They are served under two names, with two labels."""
    traded, target = ledger_turnover_per_year(lake, ALPHA), target_turnover_per_year(lake, ALPHA)
    assert abs(target - traded) > 0.5  # two figures, not one figure rounded two ways

    row = screen_row(api, ALPHA)
    assert row["turnover_unit"] == "per_year" and close(row["turnover"], traded)
    core = api.ok(f"/v1/alphas/{ALPHA}/metrics", "plain")["data"]["core"]
    assert close(core["turnover"]["value"], traded) and close(core["annual_turnover"]["value"], traded)

    costs = api.ok(f"/v1/alphas/{ALPHA}/analytics/costs", "plain", book="long_short")["data"]
    deciles = costs["turnover_by_decile"]
    assert close(deciles["annual_target_turnover"], target)
    assert close(deciles["weekly_target_turnover"], target / WEEKS_PER_YEAR)
    # The old names, which read as the ledger's turnover, are gone (no alias).
    for old in ("mean_annual_turnover", "mean_weekly_turnover", "unbucketed_mean_turnover"):
        assert old not in deciles, old
    for bucket in deciles["buckets"]:
        assert "annual_turnover" not in bucket and "mean_turnover" not in bucket
        assert set(bucket) >= {"decile_weekly_target_turnover", "decile_annual_target_turnover"}

    labels = {name: VOCABULARY[name].label for name in ("sealed_turnover", "annual_turnover", "turnover")}
    target_labels = {
        name: VOCABULARY[name].label
        for name in (
            "annual_target_turnover",
            "weekly_target_turnover",
            "decile_annual_target_turnover",
            "decile_weekly_target_turnover",
            "unbucketed_weekly_target_turnover",
        )
    }
    assert not set(labels.values()) & set(target_labels.values())
    assert all("Target-weight" in label for label in target_labels.values()), target_labels
    assert all("Target" not in label for label in labels.values()), labels
    assert "Traded" in labels["annual_turnover"] and "as sealed" in labels["sealed_turnover"]


# -- item 2: the backtest information ratio ----------------------------------------------------------


def test_the_backtest_information_ratio_says_its_window(api: Api, lake: ref.Lake) -> None:
    """/analytics/decay's `backtest_information_ratio` is over the sessions on or before the split
    (momentum_12_1's approval, which the demo's records hold), the catalogue's `information_ratio`
    over the whole history: two windows, two values (0.3585 against 1.29 in the issue's full demo),
    and the backtest's label says which window it is."""
    decay = api.ok(f"/v1/alphas/{ALPHA}/analytics/decay", "plain")["data"]
    returns = lake.returns(ALPHA, "long_short", (None, None))
    backtest = ref.information_ratio(returns[returns.index <= decay["split_date"]].to_numpy())
    whole = ref.information_ratio(returns.to_numpy())
    assert backtest is not None and whole is not None and abs(backtest - whole) > 0.1
    assert decay["split_date"] is not None  # a split inside the history: the two windows differ
    assert close(decay["backtest_information_ratio"]["value"], backtest)
    assert close(screen_row(api, ALPHA)["information_ratio"], whole)

    expectation = api.ok(f"/v1/alphas/{ALPHA}/analytics/expectation", "plain")["data"]
    ir = next(s for s in expectation["series"] if s["series"] == "information_ratio")
    assert close(ir["backtest_value"], backtest)

    headline = VOCABULARY["information_ratio"].label
    in_sample = VOCABULARY["backtest_information_ratio"].label
    assert headline != in_sample and headline not in (in_sample, in_sample.split(" (")[0])
    assert "in sample" in in_sample and "split" in in_sample, in_sample
    assert "split" in VOCABULARY["backtest_value"].label


# -- item 3: the live haircut ------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["decay", "expectation"])
def test_no_path_repeats_a_name(api: Api, route: str) -> None:
    """The haircut block was `haircut` with a `haircut` figure inside it (`haircut.haircut`): the
    block is `live_haircut` (the class `LiveHaircut`), the share lost live its `haircut`."""
    data = api.ok(f"/v1/alphas/{ALPHA}/analytics/{route}", "plain")["data"]
    assert "haircut" not in data and "live_haircut" in data
    assert close(data["live_haircut"]["haircut"]["value"], 1 - data["live_haircut"]["retention"]["value"])
    # expectation's `series[].series` names which series an entry is: one meaning, kept.
    repeated = {p for p in paths(data) if len(set(p)) < len(p) and p != ("series", "series")}
    assert not repeated, repeated


# -- item 4: the source id ---------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["metrics", "analytics/significance"])
def test_the_seals_own_id_is_named_source_alpha_id(api: Api, lake: ref.Lake, route: str) -> None:
    """/metrics and /analytics/significance served the seal's own id for the alpha as `alpha_id`,
    which everywhere else is the path's id: it is `source_alpha_id`, as `meta` and the lake name it."""
    body = api.ok(f"/v1/alphas/{ALPHA}/{route}", "plain")
    data = body["data"]
    entry = json.loads((lake.build(ALPHA) / "alpha.json").read_text())
    assert (entry["alpha_id"], entry["source_alpha_id"]) == (ALPHA, SOURCE_ALPHA_ID)  # the lake's two ids
    assert "alpha_id" not in data
    assert data["source_alpha_id"] == body["meta"]["source_alpha_id"] == SOURCE_ALPHA_ID
    assert data["alpha"] == body["meta"]["run"] == ALPHA != data["source_alpha_id"]


# -- item 5: the panel's signal ----------------------------------------------------------------------


def test_the_panel_says_each_series_signal(api: Api, lake: ref.Lake) -> None:
    """`panel.signal` said `raw` over `ic_weekly`, the conditioned weekly IC: each series' score is
    now named (`panel.signals`), and `ic_weekly` is shown to be the conditioned IC, not the raw one."""
    panel = api.ok(f"/v1/alphas/{ALPHA}/metrics", "raw", panel=1)["data"]["panel"]
    assert "signal" not in panel
    assert panel["signals"] == {
        "ic_weekly": "conditioned",
        "rebuilt_mean_ic": "conditioned",
        "decile_spread_weekly": "raw",
        "ic_term_structure": "raw",
        "rank_autocorrelation": "raw",
    }
    weeks = lake.weekly_signal(ALPHA)
    assert weeks is not None
    served = pd.Series({w["date"]: w["ic"] for w in panel["ic_weekly"]}, dtype=float)
    conditioned = weeks.set_index("date")["ic"].reindex(served.index)
    raw = weeks.set_index("date")["raw_ic"].reindex(served.index)
    assert np.allclose(served.to_numpy(), conditioned.to_numpy(), rtol=0, atol=1e-12)
    assert not np.allclose(served.to_numpy(), raw.to_numpy(), rtol=0, atol=1e-6)

    fields = api.ok(f"/v1/alphas/{ALPHA}/metrics/_doc", "plain")["data"]["fields"]
    assert "signal" not in fields["panel"]
    assert fields["panel.ic_weekly[].ic"]["signal"] == "conditioned"
    assert fields["panel.rebuilt_mean_ic"]["signal"] == "conditioned"
    for raw_series in ("panel.decile_spread_weekly", "panel.ic_term_structure", "panel.rank_autocorrelation"):
        assert fields[raw_series]["signal"] == "raw", raw_series


# -- issue 65, item 3: the sealed mean IC on the screener --------------------------------------------


def test_the_screener_serves_the_sealed_mean_ic_as_ic(api: Api) -> None:
    """The screener served /metrics `core.ic` (the vocabulary's `ic`, the catalogue index's column
    `ic`) as `mean_ic`, the name of the IC term structure's horizon figure: it is `ic` now, filtered
    and sorted as `ic`; the old name is refused (no alias). The two figures differ: the sealed mean
    IC of the conditioned score against the raw score's at a horizon of one week."""
    row = screen_row(api, ALPHA)
    assert "mean_ic" not in row
    metrics = api.ok(f"/v1/alphas/{ALPHA}/metrics", "plain", panel=1)["data"]
    assert close(row["ic"], metrics["core"]["ic"]["value"])
    one_week = next(p for p in metrics["panel"]["ic_term_structure"] if p["horizon_weeks"] == 1)
    assert abs(one_week["mean_ic"] - row["ic"]) > 1e-4  # two figures under two names
    assert terms.IC in FIGURE_TERMS["CATALOGUE_INDEX"] and "mean_ic" not in {
        t.name for t in FIGURE_TERMS["CATALOGUE_INDEX"]
    }
    assert field_facts(ScreenRow, "ic")["term"] == "ic"
    kept = api.ok("/v1/analytics/screen", "plain", limit=100, min_ic=str(row["ic"]), sort="-ic")["data"]
    assert ALPHA in {r["alpha_id"] for r in kept} and all(r["ic"] >= row["ic"] for r in kept)
    for old in ({"sort": "-mean_ic"}, {"min_mean_ic": "0"}):
        assert api.get("/v1/analytics/screen", "plain", **old).status_code == 400, old


# -- issue 65, item 3: the mean IC of a window against the term structure's --------------------------


def test_a_windows_rebuilt_mean_ic_is_not_the_term_structures_mean_ic(api: Api, lake: ref.Lake) -> None:
    """`mean_ic` named three figures: the IC term structure's (the raw score against the h-week
    compounded forward return, /metrics `panel.ic_term_structure[]` and /analytics/decay, one figure
    kept under the spec's name), /analytics/rolling's (the mean of the weekly conditioned IC over a
    trailing window) and /analytics/expectation's series (the same mean over the backtest). The last
    two are the vocabulary's `rebuilt_mean_ic`, as /metrics `panel`, /analytics/live and
    significance serve it: recomputed here from the lake's weekly IC."""
    weekly = lake.weekly_signal(ALPHA)
    assert weekly is not None
    ic = weekly.set_index("date")["ic"].astype(float)

    rows = api.ok(
        f"/v1/alphas/{ALPHA}/analytics/rolling", "plain", book="long_short", window="13", limit=1000
    )
    assert rows["data"] and all("mean_ic" not in r for r in rows["data"])
    last = rows["data"][-1]
    trailing = ic[ic.index.astype(str) <= last["date"]].tail(13)  # ISO dates sort as text
    assert close(last["rebuilt_mean_ic"], float(trailing.mean()))

    decay = api.ok(f"/v1/alphas/{ALPHA}/analytics/decay", "plain")["data"]
    panel = api.ok(f"/v1/alphas/{ALPHA}/metrics", "plain", panel=1)["data"]["panel"]
    structure = {p["horizon_weeks"]: p["mean_ic"] for p in panel["ic_term_structure"]}
    points = {p["horizon_weeks"]: p["mean_ic"] for p in decay["ic_decay"]["term_structure"]}
    for h, value in structure.items():  # one figure, one name: the decay fit's points are the panel's
        assert value is None or close(points[h], value), h
    assert abs(structure[1] - float(ic.mean())) > 1e-4  # the raw score's, not the conditioned mean

    expectation = api.ok(f"/v1/alphas/{ALPHA}/analytics/expectation", "plain")["data"]
    assert {s["series"] for s in expectation["series"]} == {"information_ratio", "rebuilt_mean_ic"}
    series = next(s for s in expectation["series"] if s["series"] == "rebuilt_mean_ic")
    live = api.ok(f"/v1/alphas/{ALPHA}/analytics/live", "plain")["data"]
    assert close(series["backtest_value"], live["in_sample"]["rebuilt_mean_ic"]["value"])

    assert VOCABULARY["rebuilt_mean_ic"].label != VOCABULARY["mean_ic"].label
    assert (
        terms.REBUILT_MEAN_IC in FIGURE_TERMS["analytics_rolling"]
        and "mean_ic" not in ANALYTICS_ROLLING.names
    )


# -- issue 65, item 3: one session's turnover against the window's per year ---------------------------


def served_fields() -> Iterator[tuple[str, str, Term | None]]:
    """(where, served name, term) of every figure field and row column of the served Structs."""
    from tests.support.served_fields import _served

    for field in _served():
        yield field.where, field.name, term_named(field.term)


def test_a_name_served_as_another_terms_figure_is_declared_two_meanings() -> None:
    """A served name that is a term's, on a field whose term is another of another unit or basis (the
    spec's /portfolio `turnover`, one session's, against the term `turnover`, the window's per year),
    is one of the spec's names with two meanings (`STILL_TWO_MEANINGS`, with its reason): never a
    term shared by figures of two units or bases, and never an undeclared second meaning."""
    odd = sorted(
        f"{where}: {term.name} ({term.unit}, {term.basis}) under {name} "
        f"({VOCABULARY[name].unit}, {VOCABULARY[name].basis})"
        for where, name, term in served_fields()
        if term is not None
        and name in VOCABULARY
        and name not in GENERIC_KEYS  # a position (`alpha`, `difference`), not a figure
        and term.name != name
        and (term.unit, term.basis) != (VOCABULARY[name].unit, VOCABULARY[name].basis)
        and name not in STILL_TWO_MEANINGS
    )
    assert not odd, odd
    for row in (LedgerRow, EquityRow):
        assert field_facts(row, "turnover")["term"] == "session_turnover", row
    assert (
        VOCABULARY["session_turnover"].basis == "per session" and VOCABULARY["turnover"].basis == "per year"
    )


def test_the_ledgers_turnover_is_one_sessions_and_the_checks_its_mean_per_year(
    api: Api, lake: ref.Lake
) -> None:
    """/portfolio's `turnover` (the spec's name) is one session's, in the term `session_turnover`;
    /analytics/checks' `turnover` is the window's mean of them times 252, in the term `turnover`
    (per year): one name the spec fixes, two terms, each of its own basis."""
    rows = api.ok(f"/v1/alphas/{ALPHA}/portfolio", "plain", book="long_short", limit=5000)["data"]
    ledger = lake.ledger(ALPHA, "long_short")
    assert ledger is not None and len(rows) == len(ledger)
    sessions = np.array([r["turnover"] for r in rows], dtype=float)
    assert np.allclose(sessions, ledger["turnover"].to_numpy(float), rtol=0, atol=1e-12, equal_nan=True)
    checks = api.ok(f"/v1/alphas/{ALPHA}/analytics/checks", "plain")["data"]["checks"]
    check = next(c for c in checks if c["id"] == "turnover")
    assert close(check["value"], float(np.nanmean(sessions)) * SESSIONS_PER_YEAR)
    assert check["unit"] == VOCABULARY["turnover"].unit != VOCABULARY["session_turnover"].unit


# -- issue 65, item 3: the style loadings in the lake --------------------------------------------------


def test_the_lakes_style_columns_are_loadings(lake: ref.Lake) -> None:
    """The lake's `exposures` stored the seal's style loadings under the seal's names: `volatility`
    (a name's z-scored loading on the volatility factor) beside the vocabulary's `volatility` (a book's
    annualised volatility of returns), `beta` beside its `beta` (a slope on the benchmark). Each is
    `<style>_loading` in the lake (the seal keeps its names; tests/analytics/test_factors.py rebuilds
    the factor model from these columns): standardised within each week, a loading, not a volatility."""
    stored = build_pandas(lake.build(ALPHA), "exposures")
    styles = ("size", "value", "momentum", "beta", "volatility")
    assert not set(styles) & set(stored.columns)
    assert {f"{s}_loading" for s in styles} <= set(stored.columns)
    weeks = stored.groupby("date")["volatility_loading"]
    assert np.allclose(weeks.mean(), 0.0, atol=1e-9) and np.allclose(weeks.std(ddof=0), 1.0, rtol=1e-9)
    assert (stored["volatility_loading"] < 0).any()  # a z-score: no volatility of returns is negative
    assert VOCABULARY["volatility"].basis == "per year" and VOCABULARY["volatility"].unit == "fraction"
