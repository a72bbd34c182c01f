"""The dashboard's decision analytics against the API's answers: the entries a table shows, the
cost curves, the regimes, the decay and the meta-model contribution as served."""

from __future__ import annotations

import json
import math
import re
from typing import Any


def close(shown: float, served: float, rel: float = 1e-12) -> bool:
    return math.isclose(shown, served, rel_tol=rel, abs_tol=1e-15)


def shown_number(text: str) -> float:
    """The number a cell shows, its unit after it ("%", "bps", "per year") and thousands commas stripped."""
    matched = re.match(r"-?[\d,]*\.?\d+(?:e[-+]?\d+)?", text.strip())
    assert matched, text
    return float(matched[0].replace(",", ""))


def four_digits(text: str, served: float) -> None:
    """A number shown to four significant digits (a unit after it stripped) is `served`."""
    assert math.isclose(shown_number(text), served, rel_tol=6e-4, abs_tol=1e-12), (text, served)


def entry_values(page: Any, table: str) -> dict[str, tuple[str, str]]:
    """Figure name -> (shown text, exact value the cell carries) of an entries table."""
    rows: list[list[str]] = page.eval_on_selector_all(
        f"{table} tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.figure, tr.children[1].innerText.trim(),"
        " tr.children[1].dataset.value])",
    )
    return {name: (text, value) for name, text, value in rows}


def assert_entries(shown: dict[str, tuple[str, str]], served: dict[str, Any]) -> None:
    """Every served entry is on screen: its value exactly (the cell's data), a dash when withheld."""
    for name, entry in served.items():
        text, value = shown[name]
        if entry["value"] is None:
            assert text == "—" and value == "", (name, text)
        else:
            assert close(float(value), entry["value"]), (name, value, entry)
            if entry["unit"] == "fraction":
                assert text == f"{entry['value'] * 100:.2f}%".replace("-0.00%", "0.00%"), (name, text, entry)
            elif entry["unit"] == "percentage_points":
                assert text == f"{entry['value']:.2f}%".replace("-0.00%", "0.00%"), (name, text, entry)
            elif entry["unit"] == "per_year":
                assert text.endswith(" per year"), (name, text, entry)  # one turnover basis, per year
                four_digits(text, entry["value"])
            elif entry["unit"] == "t_statistic":
                assert text == f"{entry['value']:.2f}", (name, text, entry)  # two decimals, as labels.js
            else:
                four_digits(text, entry["value"])


def flat_entries(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in data.items():
        if isinstance(value, dict) and "value" in value and "status" in value:
            out[prefix + name] = value
        elif isinstance(value, dict) and not prefix:
            out.update(flat_entries(value, f"{name}."))
    return out


def assert_cost_curves(page: Any, scope: str, costs: dict[str, Any]) -> None:
    """The costs' curves as served (issue 50, item 6): a point per measured level of `net_ir_by_cost`,
    a bar per measured capital of `net_ir_by_capital`, each the served net information ratio, the
    levels in the served order, and the break-even stated with its served value."""

    def bars(chart: str) -> list[float]:
        found: list[float] = page.eval_on_selector_all(
            f"{scope} svg[data-chart='{chart}'] rect.bar", "rs => rs.map(r => Number(r.dataset.value))"
        )
        return found

    def measured(values: list[float | None]) -> list[float]:
        return [v for v in values if v is not None]

    levels = costs["net_ir_by_cost"]
    # The curve against the cost is points at their cost levels (tests/e2e/test_dashboard_frictions.py).
    drawn = page.eval_on_selector_all(
        f"{scope} svg[data-chart='cost-curve'] circle.point", "cs => cs.map(c => Number(c.dataset.value))"
    )
    served = measured([row["net_information_ratio_at_cost"]["value"] for row in levels])
    assert len(drawn) == len(served) and all(close(a, b) for a, b in zip(drawn, served, strict=True))
    shown = page.eval_on_selector_all(
        f"{scope} table.cost-curve tbody th",
        "ths => ths.map(th => [Number(th.dataset.cost), th.dataset.level])",
    )
    assert [level for _, level in shown] == [row["level"] for row in levels]
    assert all(close(a, row["cost_bps"]) for (a, _), row in zip(shown, levels, strict=True))
    found = costs["break_even_cost_bps"]["value"]
    text = page.inner_text(f"{scope} #cost-break-even")
    assert (f"{found:.1f} bps" in text) if found is not None else ("no break-even" in text), text
    capitals = costs["net_ir_by_capital"]
    served = measured([row["net_information_ratio"]["value"] for row in capitals])
    drawn = bars("cost-capital")
    assert len(drawn) == len(served) and all(close(a, b) for a, b in zip(drawn, served, strict=True))


def assert_regimes(page: Any, scope: str, regimes: dict[str, Any]) -> None:
    """The table by regime of SPY as served (issue 50, item 5): a row per served regime, in its
    order, each cell carrying the served count or value exactly, and the cut points."""
    page.wait_for_selector(f"{scope} table.regimes-table")
    shown = page.eval_on_selector_all(
        f"{scope} table.regimes-table tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.regime,"
        " ...[...tr.children].slice(1).map(c => c.dataset.value ?? '')])",
    )
    served = regimes["by_regime"]
    assert [row[0] for row in shown] == [row["regime"] for row in served]
    for row, want in zip(shown, served, strict=True):
        counts = [want["regime_sessions"], want["regime_weeks"]]
        assert [None if v in ("", "null") else int(float(v)) for v in row[1:3]] == counts, (row, want)
        for text, name in zip(
            row[3:], ("information_ratio", "rebuilt_mean_ic", "rebuilt_hit_rate"), strict=True
        ):
            value = want[name]["value"]
            assert (text == "") if value is None else close(float(text), value), (want["regime"], name, text)
    assert_entries(
        entry_values(page, f"{scope} table.regimes-cuts"),
        {k: regimes[k] for k in ("volatility_low_cut", "volatility_high_cut")},
    )


def assert_decay(page: Any, scope: str, decay: dict[str, Any]) -> None:
    """Decay as served (issue 50, item 7): the backtest information ratio after the haircut, the backtest's and
    the haircut's figures, the calibration named as served, the fit's figures, and a bar per
    horizon with a mean IC, each the served value."""
    served = flat_entries(decay)
    haircut = entry_values(page, f"{scope} table.decay-haircut")
    assert set(haircut) == {
        "haircut_information_ratio",
        "backtest_information_ratio",
        "live_haircut.retention",
        "live_haircut.haircut",
        "live_haircut.haircut_standard_error",
        "live_haircut.calibration_rmse",
    }
    assert_entries(haircut, {name: served[name] for name in haircut})
    fit = entry_values(page, f"{scope} table.decay-fit")
    assert set(fit) == {"ic_decay.half_life_weeks", "ic_decay.decay_rate", "ic_decay.ic_1"}
    assert_entries(fit, {name: served[name] for name in fit})
    assert (
        page.get_attribute(f"{scope} #decay-calibration", "data-calibration")
        == decay["live_haircut"]["calibration"]
    )
    assert f"{decay['live_haircut']['calibration_alphas']} approved alphas" in page.inner_text(
        f"{scope} #decay-calibration"
    )
    bars: list[float] = page.eval_on_selector_all(
        f"{scope} svg[data-chart='ic-decay'] rect.bar", "rs => rs.map(r => Number(r.dataset.value))"
    )
    means = [p["mean_ic"] for p in decay["ic_decay"]["term_structure"] if p["mean_ic"] is not None]
    assert len(bars) == len(means) > 0 and all(close(a, b) for a, b in zip(bars, means, strict=True))


def assert_mmc(page: Any, scope: str, mmc: dict[str, Any], crowding: dict[str, Any]) -> None:
    """The meta-model contribution and the crowding as served (issue 50, item 8): every stat entry
    exactly, the weekly mmc and overlap lines the served series, the factor rows the served ones,
    and the approved set named as served."""
    assert_entries(entry_values(page, f"{scope} table.mmc"), flat_entries(mmc))
    assert_entries(entry_values(page, f"{scope} table.crowding"), flat_entries(crowding))

    def line(chart: str, series: str) -> list[float | None] | None:
        found = page.eval_on_selector_all(
            f"{scope} svg[data-chart='{chart}'] [data-series='{series}']",
            "ps => ps.map(p => p.dataset.values)",
        )
        return json.loads(found[0]) if found else None

    weekly = [w["mmc"] for w in mmc["weekly"]]
    drawn = line("mmc-weekly", "mmc (covariance of the neutralised score with the forward return)")
    assert (
        (drawn is None)
        if not weekly
        else (drawn is not None and all(close(a, b) for a, b in zip(drawn, weekly, strict=True)))
    )
    overlap = [w["weight_overlap"] for w in crowding["weekly"]]
    drawn = line("crowding-weekly", "weight overlap")
    assert (
        (drawn is None)
        if not overlap
        else (drawn is not None and all(close(a, b) for a, b in zip(drawn, overlap, strict=True)))
    )
    factors = page.eval_on_selector_all(
        f"{scope} table.crowding-factors tbody tr",
        "trs => trs.map(tr => [tr.querySelector('th').dataset.factor, Number(tr.children[1].dataset.value)])",
    )
    assert [f for f, _ in factors] == [f["factor"] for f in crowding["factors"]]
    assert all(
        close(a, f["combined_exposure"]) for (_, a), f in zip(factors, crowding["factors"], strict=True)
    )
    summary = page.inner_text(f"{scope} #mmc-summary")
    assert all(a in summary for a in mmc["approved"]["alphas"]), summary
    assert f"{mmc['mmc_weeks']} weeks" in summary, summary
