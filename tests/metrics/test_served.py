"""The served /metrics against independent recomputation from the served /scores, /rebalances,
/portfolio and /equity-curve of the small demo lake, for the full window and random sub-windows."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analytics.newey_west import lag_rule
from tests.metrics import reference as ref
from tests.metrics.conftest import Api

REL = 1e-9
ALPHAS = ["momentum_12_1", "Test_planted_factor"]


def close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and a == pytest.approx(b, rel=REL, abs=1e-15)


class Served:
    """One alpha's served data, fetched once per test module."""

    def __init__(self, api: Api, alpha: str) -> None:
        base = f"/v1/alphas/{alpha}"
        self.alpha = alpha
        self.weeks = ref.by_week(api.all_rows(f"{base}/scores"))
        self.index = [r["date"] for r in api.all_rows(f"{base}/rebalances")]
        self.ledger = api.all_rows(f"{base}/portfolio", book="long_short")
        self.api = api
        self.base = base

    def metrics(self, **params: Any) -> dict[str, Any]:
        return self.api.ok(f"{self.base}/metrics", panel=1, **params)

    def weeks_in(self, start: str | None, end: str | None) -> dict[str, ref.Rows]:
        return {
            d: rows
            for d, rows in self.weeks.items()
            if (start is None or d >= start) and (end is None or d <= end)
        }


@pytest.fixture(scope="module", params=ALPHAS)
def served(request: pytest.FixtureRequest, api: Api) -> Served:
    return Served(api, request.param)


def ledger_in(ledger: ref.Rows, start: str | None, end: str | None) -> ref.Rows:
    return [r for r in ledger if (start is None or r["date"] >= start) and (end is None or r["date"] <= end)]


def drawdowns(ledger: ref.Rows) -> tuple[float, float]:
    """(max drawdown in equity units, max drawdown in percent) of a ledger slice, from its own rows:
    the running peak starts at the slice's opening equity (docs/seal.md), not at its first close."""
    opening = ledger[0]["starting_equity"]
    ending = np.array([r["ending_equity"] for r in ledger], dtype=float)
    peak = np.maximum.accumulate(np.concatenate([[opening], ending]))[1:]
    return float((peak - ending).max()), float(((peak - ending) / peak * 100).max())


def daily_returns(ledger: ref.Rows) -> tuple[np.ndarray, np.ndarray]:
    returns = np.array([r["ending_equity"] / r["starting_equity"] - 1 for r in ledger])
    return returns, np.array([r["risk_free_return"] for r in ledger])


def windows(served: Served) -> list[tuple[str | None, str | None]]:
    rng = random.Random(served.alpha)
    out: list[tuple[str | None, str | None]] = [(None, None)]
    for _ in range(3):
        a, b = sorted(rng.sample(range(len(served.index)), 2))
        if b - a < 20:
            b = min(len(served.index) - 1, a + 25)
        out.append((served.index[a], served.index[b]))
    return out


def test_stored_core_reproduces_from_served_data(served: Served) -> None:
    body = served.metrics()
    core = body["data"]["core"]
    ic = ref.weekly_ic(served.weeks, "score")
    values = np.array(list(ic.values()))
    assert close(core["ic"]["value"], values.mean())
    assert close(core["icir"]["value"], ref.annualised_ratio(values, 52))
    raw = np.array(list(ref.weekly_ic(served.weeks, "raw_score").values()))
    assert close(body["data"]["rank_ic"]["raw"]["ic"]["value"], raw.mean())
    assert close(body["data"]["rank_ic"]["raw"]["icir"]["value"], ref.annualised_ratio(raw, 52))
    conditioned = body["data"]["rank_ic"]["conditioned"]
    assert close(conditioned["hit_rate"]["value"], float((values > 0).mean()))
    assert close(conditioned["dispersion"]["value"], float(values.std(ddof=1)))
    # The demo ledger spans more than a year of sessions; a short one would make the checks weak.
    assert len(served.ledger) > 250 and len(ic) > 50
    returns, risk_free = daily_returns(served.ledger)
    assert close(core["information_ratio"]["value"], ref.annualised_ratio(returns, 252))
    assert close(core["sharpe"]["value"], ref.annualised_ratio(returns, 252))
    assert close(core["excess_sharpe"]["value"], ref.annualised_ratio(returns - risk_free, 252))
    assert close(core["excess_sharpe"]["risk_free_rate"], risk_free.mean() * 252)
    max_drawdown, max_drawdown_pct = drawdowns(served.ledger)
    assert max_drawdown > 0.01
    assert close(core["max_drawdown"]["value"], max_drawdown)
    assert close(core["max_drawdown_pct"]["value"], max_drawdown_pct)
    assert close(core["pnl"]["value"], served.ledger[-1]["ending_equity"] - 1.0)
    turnover = np.array([r["turnover"] for r in served.ledger])
    assert core["turnover"]["unit"] == "per_year"
    assert close(core["turnover"]["value"], float(turnover.mean() * 252))
    assert (
        core["annual_turnover"]["unit"] == "per_year" and core["annual_turnover"]["periods_per_year"] == 252
    )
    assert close(core["annual_turnover"]["value"], float(turnover.mean() * 252))
    assert close(body["data"]["panel"]["rebuilt_mean_ic"], float(np.mean(values)))
    assert body["data"]["panel"]["ic_weekly"] == [
        {"date": d, "ic": pytest.approx(v, rel=REL)} for d, v in ic.items()
    ]
    nwt = body["data"]["nwt"]["ic"]
    expected = ref.hac(list(ic.values()), lag_rule(len(ic)))
    assert nwt["n"] == len(ic) and nwt["lag"] == lag_rule(len(ic))
    for key, value in expected.items():
        assert close(nwt[key], value), key


def test_derived_blocks_reproduce_over_random_windows(served: Served) -> None:
    for start, end in windows(served):
        params = {k: v for k, v in (("from", start), ("to", end)) if v is not None}
        data = served.metrics(**params)["data"]
        weeks = served.weeks_in(start, end)

        raw_ic = ref.weekly_ic(weeks, "raw_score")
        block = data["nwt"]["ic_score_panel"]
        assert block["n"] == len(raw_ic) and block["lag"] == lag_rule(len(raw_ic))
        for key, value in ref.hac(list(raw_ic.values()), block["lag"]).items():
            assert close(block[key], value), (start, end, key)

        ic = ref.weekly_ic(weeks, "score")
        assert [p["date"] for p in data["panel"]["ic_weekly"]] == list(ic)
        # The mean of the bars the dashboard draws, served beside them (the window's weekly IC).
        assert close(data["panel"]["rebuilt_mean_ic"], float(np.mean(list(ic.values())))), (start, end)

        assert len(weeks) >= 20, (start, end)
        ledger = ledger_in(served.ledger, start, end)
        returns = [r["ending_equity"] / r["starting_equity"] - 1 for r in ledger]
        ir = data["nwt"]["ir"]
        assert ir["n"] == len(returns) and ir["frequency"] == "daily"
        for key, value in ref.hac(returns, ir["lag"]).items():
            assert close(ir[key], value), (start, end, key)

        expected = ref.deciles(weeks)
        deciles = data["ic_deciles"]
        assert (deciles["weeks"], deciles["weeks_skipped"]) == (expected["weeks"], expected["weeks_skipped"])
        for bucket, mean_return, weight in zip(
            deciles["buckets"],
            expected["mean_forward_return"],
            expected["mean_long_short_weight"],
            strict=True,
        ):
            assert close(bucket["mean_forward_return"], mean_return)
            assert (
                close(bucket["mean_long_short_weight"], weight)
                or abs(bucket["mean_long_short_weight"] - weight) < 1e-15
            )
        assert close(deciles["monotonicity"]["spearman_bucket_vs_mean_forward_return"], expected["spearman"])
        assert close(deciles["monotonicity"]["top_minus_bottom"], expected["top_minus_bottom"])

        index = served.index
        for entry in data["panel"]["ic_term_structure"]:
            term = ref.term_structure(served.weeks, index, entry["horizon_weeks"])
            term = {d: v for d, v in term.items() if d in weeks}
            assert entry["weeks"] == len(term), (entry["horizon_weeks"], start, end)
            assert close(entry["mean_ic"], float(np.mean(list(term.values()))))
            hac_block = entry["newey_west"]
            if hac_block is not None:
                assert hac_block["lag"] >= entry["horizon_weeks"] - 1
                for key, value in ref.hac(list(term.values()), hac_block["lag"]).items():
                    assert close(hac_block[key], value), key
        for entry in data["panel"]["rank_autocorrelation"]:
            rho = ref.rank_autocorrelation(served.weeks, index, entry["lag_weeks"])
            rho = {d: v for d, v in rho.items() if d in weeks}
            assert entry["weeks"] == len(rho)
            assert close(entry["rho"], float(np.mean(list(rho.values()))))
        tenure = data["core"]["tenure"]
        in_window = [d for d in index if (start is None or d >= start) and (end is None or d <= end)]
        assert tenure["weeks"] == len(in_window) and tenure["first_rebalance"] == in_window[0]


@pytest.mark.parametrize("granularity", ["monthly", "yearly"])
def test_every_period_reproduces_from_its_ledger_slice(served: Served, granularity: str) -> None:
    """Periods are the stored sub-windows: each one's drawdown peak starts at its own opening equity."""
    periods = served.metrics(granularity=granularity)["data"]["periods"]
    width = 7 if granularity == "monthly" else 4
    assert [p["period"] for p in periods] == sorted({r["date"][:width] for r in served.ledger})
    ic = ref.weekly_ic(served.weeks, "score")
    for period in periods:
        name, core = period["period"], period["core"]
        ledger = [r for r in served.ledger if r["date"].startswith(name)]
        assert len(ledger) >= 5, name
        max_drawdown, max_drawdown_pct = drawdowns(ledger)
        assert close(core["max_drawdown"]["value"], max_drawdown), name
        assert close(core["max_drawdown_pct"]["value"], max_drawdown_pct), name
        assert close(core["pnl"]["value"], ledger[-1]["ending_equity"] - ledger[0]["starting_equity"]), name
        returns, risk_free = daily_returns(ledger)
        assert close(core["information_ratio"]["value"], ref.annualised_ratio(returns, 252)), name
        assert close(core["excess_sharpe"]["value"], ref.annualised_ratio(returns - risk_free, 252)), name
        assert core["turnover"]["unit"] == "period_sum"
        assert close(core["turnover"]["value"], sum(r["turnover"] for r in ledger)), name
        # Per year: the period's mean session turnover x 252, as the overall annualised_turnover.
        sessions = pd.Series([r["turnover"] for r in ledger], dtype=float)
        assert core["annual_turnover"]["unit"] == "per_year", name
        assert close(core["annual_turnover"]["value"], float(sessions.mean() * 252)), name
        weekly = np.array([v for d, v in ic.items() if d.startswith(name)])
        if len(weekly) >= 2:
            assert close(core["ic"]["value"], float(weekly.mean())), name
            assert close(core["icir"]["value"], ref.annualised_ratio(weekly, 52)), name


def test_drawdowns_over_random_windows(served: Served) -> None:
    """core keeps the lifetime drawdown whatever the window; /equity-curve serves the window's own."""
    lifetime = drawdowns(served.ledger)
    for start, end in windows(served)[1:]:
        params: dict[str, Any] = {"from": start, "to": end}
        ledger = ledger_in(served.ledger, start, end)
        assert len(ledger) > 50, (start, end)
        body = served.metrics(**params)
        core = body["data"]["core"]
        assert close(core["max_drawdown"]["value"], lifetime[0])
        assert close(core["max_drawdown_pct"]["value"], lifetime[1])
        assert {"code": "window_lifetime_only", "block": "core"} in [
            {k: w.get(k) for k in ("code", "block")} for w in body["meta"]["warnings"]
        ]
        summary = served.api.ok(f"{served.base}/equity-curve", limit=1, **params)["meta"]["summary"]
        max_drawdown, max_drawdown_pct = drawdowns(ledger)
        assert summary["sessions"] == len(ledger)
        assert close(summary["max_drawdown"], max_drawdown), (start, end)
        assert close(summary["max_drawdown_pct"], max_drawdown_pct), (start, end)
