"""compute_metrics on hand-built inputs: aggregation, windows, access, degradation, warnings."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.stats import spearmanr

from analytics.access import Access
from analytics.metrics import MetricsInputs
from tests.metrics.factory import ALL_ACCESS, make_inputs, metrics_json

REL = 1e-9


def codes(warnings: list[dict[str, str]]) -> list[tuple[str, str | None]]:
    return [(w["code"], w.get("block")) for w in warnings]


def hac(values: np.ndarray, lag: int) -> tuple[float, float]:
    fit = sm.OLS(values, np.ones_like(values)).fit(cov_type="HAC", cov_kwds={"maxlags": lag})
    return float(fit.bse[0]), float(fit.pvalues[0])


def in_window(dates: np.ndarray, start: dt.date | None, end: dt.date | None) -> np.ndarray:
    keep = np.ones(dates.size, dtype=bool)
    if start is not None:
        keep &= dates >= np.datetime64(start)
    if end is not None:
        keep &= dates <= np.datetime64(end)
    return keep


WINDOWS = [
    (None, None),
    (dt.date(2021, 3, 1), dt.date(2021, 9, 30)),
    (dt.date(2021, 5, 14), None),
    (None, dt.date(2022, 1, 7)),
]


@pytest.mark.parametrize(("start", "end"), WINDOWS)
def test_ic_deciles_are_means_of_weekly_means(start: dt.date | None, end: dt.date | None) -> None:
    inputs = make_inputs()
    data, _ = metrics_json(inputs, "overall", start, end, False, ALL_ACCESS)
    deciles = data["ic_deciles"]
    weekly, rows = inputs.weekly_signal, inputs.weekly_deciles
    assert weekly is not None and rows is not None
    inside = in_window(weekly["date"], start, end)
    used = set(
        weekly["date"][inside & weekly["decile_eligible"] & (weekly["n_forward_returns"] > 0)].tolist()
    )
    assert deciles["weeks"] == len(used)
    assert deciles["weeks_skipped"] == int((inside & ~weekly["decile_eligible"]).sum())
    forward_means = []
    for b in range(1, 11):
        values = [
            rows["mean_forward_return"][i]
            for i in range(rows["date"].size)
            if rows["date"][i].item() in used and rows["bucket"][i] == b
        ]
        finite = [v for v in values if np.isfinite(v)]
        served = deciles["buckets"][b - 1]
        assert served["bucket"] == f"Q{b}" and served["rank"] == b
        assert served["weeks"] == len(values)
        assert served["mean_forward_return"] == pytest.approx(sum(finite) / len(finite), rel=REL)
        forward_means.append(sum(finite) / len(finite))
    expected_rho = spearmanr(np.arange(1, 11), forward_means).statistic
    monotonicity = deciles["monotonicity"]
    assert monotonicity["spearman_bucket_vs_mean_forward_return"] == pytest.approx(expected_rho, rel=REL)
    assert monotonicity["top_minus_bottom"] == pytest.approx(forward_means[9] - forward_means[0], rel=REL)


@pytest.mark.parametrize(("start", "end"), WINDOWS)
def test_window_narrowed_newey_west_blocks_match_statsmodels(
    start: dt.date | None, end: dt.date | None
) -> None:
    inputs = make_inputs()
    data, _ = metrics_json(inputs, "overall", start, end, False, ALL_ACCESS)
    weekly, ledger = inputs.weekly_signal, inputs.ledger
    assert weekly is not None and ledger is not None
    raw_ic = weekly["raw_ic"][in_window(weekly["date"], start, end)]
    raw_ic = raw_ic[np.isfinite(raw_ic)]
    block = data["nwt"]["ic_score_panel"]
    assert block["n"] == raw_ic.size and block["signal"] == "raw"
    assert block["mean"] == pytest.approx(raw_ic.mean(), rel=REL)
    se, p = hac(raw_ic, block["lag"])
    assert block["standard_error"] == pytest.approx(se, rel=REL)
    assert block["p_value"] == pytest.approx(p, rel=REL)

    keep = in_window(ledger["date"], start, end)
    returns = ledger["ending_equity"][keep] / ledger["starting_equity"][keep] - 1
    ir = data["nwt"]["ir"]
    assert ir["frequency"] == "daily" and ir["n"] == returns.size
    assert ir["mean"] == pytest.approx(returns.mean(), rel=REL)
    assert ir["standard_error"] == pytest.approx(hac(returns, ir["lag"])[0], rel=REL)


def test_nwt_ic_covers_the_whole_window_and_is_published_when_it_reproduces() -> None:
    inputs = make_inputs()
    full, _ = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    narrowed, warnings = metrics_json(
        inputs, "overall", dt.date(2021, 6, 1), dt.date(2021, 7, 1), False, ALL_ACCESS
    )
    assert full["nwt"]["ic"] == narrowed["nwt"]["ic"]
    assert ("window_lifetime_only", "nwt.ic") in codes(warnings)
    ic = inputs.weekly_signal["ic"]  # type: ignore[index]
    ic = ic[np.isfinite(ic)]
    block = full["nwt"]["ic"]
    assert (block["source"], block["source_kind"], block["signal"]) == ("computed", "derived", "conditioned")
    assert block["n"] == ic.size
    assert block["mean"] == pytest.approx(full["core"]["ic"]["value"], abs=1e-12)
    assert block["standard_error"] == pytest.approx(hac(ic, block["lag"])[0], rel=REL)


def test_nwt_ic_is_withheld_when_the_sealed_mean_does_not_reproduce() -> None:
    inputs = make_inputs()
    inputs.stored["overall"][""]["mean_ic"] += 0.005  # type: ignore[index,operator]
    data, warnings = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    assert data["nwt"]["ic"] is None
    assert ("ic_reproduction_mismatch", "nwt.ic") in codes(warnings)
    assert data["core"]["ic"]["status"] == "available"  # the stored figure is still served


def test_without_cross_sections_ic_family_is_mismatched_and_signal_blocks_are_null() -> None:
    inputs = make_inputs(weekly_signal=None, weekly_deciles=None, weekly_term=None, weekly_autocorr=None)
    data, warnings = metrics_json(inputs, "overall", None, None, True, ALL_ACCESS)
    assert data["nwt"]["ic"] is None and data["ic_deciles"] is None and data["panel"] is None
    assert data["nwt"]["ir"] is not None
    assert ("ic_family_mismatch", "nwt.ic") in codes(warnings)
    assert any(w["code"] == "missing_kind" and w.get("kind") == "decisions" for w in warnings)


def test_access_limited_blocks_are_null_and_say_why() -> None:
    inputs = make_inputs(rebalances=None)  # tenure must fall back to the ledger
    data, warnings = metrics_json(
        inputs, "overall", None, None, True, Access(cross_sections=False, ledger=False, trades=False)
    )
    for value in (
        data["ic_deciles"],
        data["panel"],
        data["nwt"]["ic"],
        data["nwt"]["ic_score_panel"],
        data["nwt"]["ir"],
        data["core"]["tenure"],
    ):
        assert value is None
    limited = {w["block"] for w in warnings if w["code"] == "access_limited"}
    assert {"ic_deciles", "nwt.ic", "nwt.ic_score_panel", "nwt.ir", "core.tenure"} <= limited
    assert data["core"]["ic"]["status"] == "available"


def test_absent_stored_metrics_are_not_measurable_never_zero() -> None:
    data, warnings = metrics_json(make_inputs(stored=None), "monthly", None, None, False, ALL_ACCESS)
    for name in (
        "ic",
        "icir",
        "information_ratio",
        "excess_sharpe",
        "sharpe",
        "pnl",
        "max_drawdown",
        "max_drawdown_pct",
        "turnover",
    ):
        stat = data["core"][name]
        assert stat["status"] == "not_measurable" and stat["value"] is None and stat["withheld_reason"]
    assert data["rank_ic"] is None and data["periods"] == []
    assert ("missing_core_metrics", "core") in codes(warnings)
    assert any(w["code"] == "missing_kind" and w.get("kind") == "metrics" for w in warnings)


def test_partly_absent_stored_metrics_name_what_is_missing() -> None:
    inputs = make_inputs()
    overall = inputs.stored["overall"][""]  # type: ignore[index]
    del overall["mean_ic"], overall["icir"]
    overall["pnl"] = None
    data, warnings = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    message = next(w["message"] for w in warnings if w["code"] == "missing_core_metrics")
    assert "ic, icir" in message and "pnl" in message
    assert data["core"]["information_ratio"]["value"] == 0.9


def rebuilt_headline(inputs: MetricsInputs) -> tuple[float, float]:
    """The information ratio and max drawdown (percentage points) of the inputs' ledger, recomputed
    with numpy: daily r = ending / starting - 1; mean / std (ddof 1) x sqrt(sessions a year); the
    deepest fall of (1 + r).cumprod() from its running peak, the start at 1.0 included."""
    assert inputs.ledger is not None
    r = inputs.ledger["ending_equity"] / inputs.ledger["starting_equity"] - 1.0
    ir = r.mean() / r.std(ddof=1) * np.sqrt(inputs.conventions.sessions_per_year)
    equity = np.r_[1.0, np.cumprod(1.0 + r)]
    return float(ir), float(np.max(1.0 - equity / np.maximum.accumulate(equity)) * 100.0)


def test_core_stat_entries_follow_the_rules() -> None:
    # Sealed headline figures its own ledger rebuilds: nothing to say (issue 64's rule below).
    inputs = make_inputs()
    overall = inputs.stored["overall"][""]  # type: ignore[index]
    overall["information_ratio"], overall["max_drawdown_pct"] = rebuilt_headline(inputs)
    data, warnings = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    core = data["core"]
    assert warnings == []
    assert core["ic"]["annualisation"] == "per_period" and core["ic"]["signal"] == "conditioned"
    assert core["icir"]["annualisation"] == "annualised" and core["icir"]["periods_per_year"] == 52
    assert core["information_ratio"]["annualisation"] == "annualised"
    assert core["excess_sharpe"]["risk_free_rate"] == 0.02
    assert core["excess_sharpe"]["risk_free_rate_source"] == "synthetic 2% flat"
    assert core["sharpe"]["value"] == core["information_ratio"]["value"]
    assert (
        core["sharpe"]["deprecated"] is True and core["sharpe"]["superseded_by"] == "core.information_ratio"
    )
    for name in ("pnl", "max_drawdown", "max_drawdown_pct"):
        assert core[name]["annualisation"] == "not_annualisable"
    assert "signal" not in core["pnl"]
    assert core["turnover"]["value"] == 12.0 and core["turnover"]["unit"] == "per_year"
    assert list(core["ic"])[:5] == ["value", "unit", "status", "source", "source_kind"]
    assert data["doc_url"] == "/v1/alphas/Test_synthetic/metrics/_doc"
    assert (data["alpha"], data["source_alpha_id"]) == ("Test_synthetic", "src-synthetic-1")
    assert "panel" not in data and "doc" not in data


def test_sealed_headline_figures_the_ledger_does_not_rebuild_are_flagged() -> None:
    """Issue 64: a stored headline figure its own ledger does not rebuild (a run that changed its
    sessions and not its stored metrics) is flagged on core, naming each figure sealed and rebuilt;
    core serves the sealed values. Only a key that may read the ledger is told."""
    inputs = make_inputs()  # sealed information_ratio 0.9, max_drawdown_pct 9.5: not the ledger's
    ir, drawdown = rebuilt_headline(inputs)
    assert abs(ir - 0.9) > 1e-3 and abs(drawdown - 9.5) > 1e-3
    data, warnings = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    assert codes(warnings) == [("headline_reproduction_mismatch", "core")]
    (message,) = [w["message"] for w in warnings]
    sessions = inputs.ledger["date"].size  # type: ignore[index]
    assert f"information_ratio sealed 0.9, rebuilt from the ledger's {sessions} sessions {ir:.6g}" in message
    assert (
        f"max_drawdown_pct sealed 9.5, rebuilt from the ledger's {sessions} sessions {drawdown:.6g}"
        in message
    )
    assert (
        data["core"]["information_ratio"]["value"] == 0.9 and data["core"]["max_drawdown_pct"]["value"] == 9.5
    )
    # One figure off: that one alone is named.
    overall = inputs.stored["overall"][""]  # type: ignore[index]
    overall["information_ratio"] = ir
    inputs = dataclasses.replace(inputs, derived={})  # another build: what the last one kept is not its own
    _, warnings = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    (message,) = [w["message"] for w in warnings if w["code"] == "headline_reproduction_mismatch"]
    assert "max_drawdown_pct sealed 9.5" in message and "information_ratio" not in message
    without_ledger = dataclasses.replace(ALL_ACCESS, ledger=False)
    _, warnings = metrics_json(inputs, "overall", None, None, False, without_ledger)
    assert "headline_reproduction_mismatch" not in [w["code"] for w in warnings]


@pytest.mark.parametrize(
    ("present", "unit"),
    [(("mean_turnover", "total_turnover"), "per_session"), (("total_turnover",), "period_sum")],
)
def test_turnover_preference_order(present: tuple[str, ...], unit: str) -> None:
    inputs = make_inputs()
    overall = inputs.stored["overall"][""]  # type: ignore[index]
    for name in ("annualised_turnover", "mean_turnover", "total_turnover"):
        if name not in present:
            del overall[name]
    data, _ = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    assert data["core"]["turnover"]["unit"] == unit
    assert data["core"]["turnover"]["value"] == overall[present[0]]
    # Per year whatever the run sealed: the mean session turnover x 252 (a sum over the ledger's sessions).
    sessions = inputs.ledger["date"].size  # type: ignore[index]
    expected = overall[present[0]] * (252 if unit == "per_session" else 252 / sessions)
    served = data["core"]["annual_turnover"]
    assert served["unit"] == "per_year" and served["value"] == pytest.approx(expected, rel=1e-12)
    without_ledger = dataclasses.replace(ALL_ACCESS, ledger=False)
    limited, _ = metrics_json(inputs, "overall", None, None, False, without_ledger)
    annual = limited["core"]["annual_turnover"]
    if unit == "period_sum":  # its sessions are counted on the ledger
        assert annual["value"] is None and annual["withheld_reason"].startswith("access_limited")
    else:
        assert annual["value"] == served["value"]


def test_a_turnover_ratio_has_no_basis_per_year() -> None:
    inputs = make_inputs()
    overall = inputs.stored["overall"][""]  # type: ignore[index]
    for name in ("annualised_turnover", "mean_turnover", "total_turnover"):
        overall.pop(name, None)
    overall["turnover"] = 0.4
    data, _ = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    assert data["core"]["turnover"]["unit"] == "ratio"
    annual = data["core"]["annual_turnover"]
    assert annual["status"] == "not_measurable" and annual["value"] is None
    assert "no period to annualise" in annual["withheld_reason"]


def test_periods_overlap_the_window_and_tenure_is_narrowed() -> None:
    inputs = make_inputs()
    start, end = dt.date(2021, 3, 10), dt.date(2021, 6, 2)
    data, _ = metrics_json(inputs, "monthly", start, end, False, ALL_ACCESS)
    assert [p["period"] for p in data["periods"]] == ["2021-03", "2021-04", "2021-05", "2021-06"]
    march = data["periods"][0]["core"]
    assert march["ic"]["value"] == 0.01 and march["turnover"]["unit"] == "period_sum"
    assert march["tenure"]["first_rebalance"] == "2021-03-12"  # inside both the month and the window
    tenure = data["core"]["tenure"]
    dates = inputs.rebalances["date"]  # type: ignore[index]
    assert tenure["weeks"] == int(in_window(dates, start, end).sum())
    yearly, _ = metrics_json(inputs, "yearly", None, None, False, ALL_ACCESS)
    assert [p["period"] for p in yearly["periods"]] == ["2021", "2022"]
    overall, _ = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    assert overall["periods"] is None


def test_tenure_counts_pending_and_skipped_weeks_but_traded_only_once_traded() -> None:
    inputs = make_inputs(weeks=30)
    data, _ = metrics_json(inputs, "overall", None, None, False, ALL_ACCESS)
    tenure = data["core"]["tenure"]
    assert (tenure["weeks"], tenure["traded_weeks"], tenure["source"]) == (30, 28, "rebalances")
    assert tenure["calendar_days"] == 29 * 7


def test_tenure_falls_back_to_the_ledger_span() -> None:
    data, _ = metrics_json(make_inputs(rebalances=None), "overall", None, None, False, ALL_ACCESS)
    tenure = data["core"]["tenure"]
    assert tenure["source"] == "portfolio" and tenure["weeks"] is None and tenure["traded_weeks"] is None
    assert tenure["calendar_days"] > 0


def test_a_failing_block_is_null_with_block_error_and_the_rest_is_served() -> None:
    inputs = make_inputs()
    broken = dict(inputs.weekly_deciles)  # type: ignore[arg-type]
    del broken["mean_score"]
    data, warnings = metrics_json(
        dataclasses.replace(inputs, weekly_deciles=broken), "overall", None, None, True, ALL_ACCESS
    )
    assert data["ic_deciles"] is None and data["panel"] is None
    assert ("block_error", "ic_deciles") in codes(warnings)
    assert data["nwt"]["ir"] is not None and data["core"]["ic"]["value"] is not None


def test_forward_returns_absent() -> None:
    inputs = make_inputs()
    weekly = dict(inputs.weekly_signal)  # type: ignore[arg-type]
    weekly["n_forward_returns"] = np.zeros_like(weekly["n_forward_returns"])
    data, warnings = metrics_json(
        dataclasses.replace(inputs, weekly_signal=weekly), "overall", None, None, True, ALL_ACCESS
    )
    assert data["ic_deciles"] is None and data["panel"] is None
    assert ("forward_returns_absent", "ic_deciles") in codes(warnings)


def test_short_window_is_insufficient_data_not_an_error() -> None:
    data, warnings = metrics_json(
        make_inputs(), "overall", dt.date(2021, 2, 1), dt.date(2021, 2, 20), False, ALL_ACCESS
    )
    assert data["nwt"]["ic_score_panel"] is None
    assert ("insufficient_data", "nwt.ic_score_panel") in codes(warnings)


@pytest.mark.parametrize(("start", "end"), WINDOWS)
def test_panel_series(start: dt.date | None, end: dt.date | None) -> None:
    inputs = make_inputs()
    data, _ = metrics_json(inputs, "overall", start, end, True, ALL_ACCESS)
    panel = data["panel"]
    weekly = inputs.weekly_signal
    assert weekly is not None
    inside = in_window(weekly["date"], start, end)
    ic = weekly["ic"][inside]
    assert [p["ic"] for p in panel["ic_weekly"]] == ic[np.isfinite(ic)].tolist()
    if start is None and end is None:
        assert np.mean([p["ic"] for p in panel["ic_weekly"]]) == pytest.approx(
            data["core"]["ic"]["value"], rel=REL
        )
    term = inputs.weekly_term
    assert term is not None
    keep = in_window(term["date"], start, end)
    for entry in panel["ic_term_structure"]:
        h = entry["horizon_weeks"]
        values = term["ic"][keep & (term["horizon_weeks"] == h)]
        values = values[np.isfinite(values)]
        assert entry["weeks"] == values.size
        assert entry["mean_ic"] == pytest.approx(values.mean(), rel=REL)
        hac_block = entry["newey_west"]
        assert hac_block["lag"] >= h - 1
        assert hac_block["standard_error"] == pytest.approx(hac(values, hac_block["lag"])[0], rel=REL)
    autocorr = inputs.weekly_autocorr
    assert autocorr is not None
    keep = in_window(autocorr["date"], start, end)
    assert [e["lag_weeks"] for e in panel["rank_autocorrelation"]] == list(range(1, 9))
    for entry in panel["rank_autocorrelation"]:
        values = autocorr["rho"][keep & (autocorr["lag_weeks"] == entry["lag_weeks"])]
        values = values[np.isfinite(values)]
        assert entry["rho"] == pytest.approx(values.mean(), rel=REL) and entry["weeks"] == values.size
    spreads = weekly["decile_spread"][inside]
    assert [s["spread"] for s in panel["decile_spread_weekly"]] == spreads[np.isfinite(spreads)].tolist()
