"""The served /metrics against independent recomputation from the served /scores, /rebalances,
/portfolio and /equity-curve of the small demo lake, for the full window and random sub-windows."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from serve.metrics.newey_west import lag_rule
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
        self.summary = api.ok(f"{base}/equity-curve", limit=1)["meta"]["summary"]
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
    returns = np.array([r["ending_equity"] / r["starting_equity"] - 1 for r in served.ledger])
    risk_free = np.array([r["risk_free_return"] for r in served.ledger])
    assert close(core["information_ratio"]["value"], ref.annualised_ratio(returns, 252))
    assert close(core["sharpe"]["value"], core["information_ratio"]["value"])
    assert close(core["excess_sharpe"]["value"], ref.annualised_ratio(returns - risk_free, 252))
    assert close(core["excess_sharpe"]["risk_free_rate"], risk_free.mean() * 252)
    assert close(core["max_drawdown"]["value"], served.summary["max_drawdown"])
    assert close(core["max_drawdown_pct"]["value"], served.summary["max_drawdown_pct"])
    assert close(core["pnl"]["value"], served.ledger[-1]["ending_equity"] - 1.0)
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

        ledger = [
            r
            for r in served.ledger
            if (start is None or r["date"] >= start) and (end is None or r["date"] <= end)
        ]
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
