"""The DSR's trials disclose no hidden alpha's Sharpe ratio (issue 22, item 2).

The attack: a key that may read every alpha but one knows the trial count N, the variance V of the
trials' Sharpe ratios, and the Sharpe ratio of every other trial (significance serves each alpha's
own). Were V the whole catalogue's, V = var(S_1, ..., S_{N-1}, x) is one quadratic in the hidden x,
and its roots held the hidden alpha's Sharpe ratio to 1e-15. V is over the alphas the key may read,
so the same arithmetic lands nowhere near it, and every figure of the answer is a function of the
readable alphas (and of the count N).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from litestar.testing import TestClient

from core.context import AllowList, Caller
from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, PRODUCTION, Api
from tests.callers import authenticator_for, make_caller

PATH = "/v1/alphas/{alpha}/analytics/significance"
PER_YEAR = ref.SESSIONS_PER_YEAR


def all_but(*hidden: str) -> Caller:
    readable = tuple(a for a in ALPHAS if a not in hidden)
    return make_caller(alphas=AllowList.of_ids(readable), runs=AllowList.of_ids(readable))


CALLERS: dict[str, Caller] = {
    "full": make_caller(),
    "all_but_momentum": all_but("momentum_12_1"),
    "all_but_value": all_but("value_composite_legacy"),
    "all_but_production": all_but(*PRODUCTION),
}
HIDDEN = {
    "all_but_momentum": ("momentum_12_1",),
    "all_but_value": ("value_composite_legacy",),
    "all_but_production": PRODUCTION,
}


@pytest.fixture(scope="module")
def api(demo_lake: Path) -> Iterator[Api]:
    from core.settings import Settings
    from serve.app import create_app

    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
    )
    with TestClient(app=app) as client:
        yield Api(client)


def significance(api: Api, alpha: str, token: str) -> dict[str, Any]:
    data: dict[str, Any] = api.ok(PATH.format(alpha=alpha), token)["data"]
    return data


def readable_sharpes(api: Api, token: str) -> dict[str, float]:
    """Per-session Sharpe ratio of every alpha the key may read, as significance serves it."""
    out = {}
    for alpha in ALPHAS:
        if alpha in HIDDEN.get(token, ()):
            continue
        value = significance(api, alpha, token)["sharpe"]["value"]
        if value is not None:
            out[alpha] = value / math.sqrt(PER_YEAR)
    return out


def recovered(api: Api, token: str) -> list[float]:
    """The attack: the annualised Sharpe ratios x that make the served V the sample variance of the
    readable Sharpe ratios and x, given the served N (the hidden alpha the one trial unaccounted for)."""
    others = np.array(list(readable_sharpes(api, token).values()))
    trials = significance(api, "Test_planted_factor", token)["dsr"]["trials"]
    n, variance = trials["count"], trials["sharpe_variance"]
    assert others.size == n - 1  # one unknown trial: a quadratic in it
    spread = float(np.sum((others - others.mean()) ** 2))
    # (n - 1) V = spread + (n - 1) / n (x - mean)^2
    square = n / (n - 1) * ((n - 1) * variance - spread)
    if square < 0:
        return []
    return [(others.mean() + sign * math.sqrt(square)) * math.sqrt(PER_YEAR) for sign in (1.0, -1.0)]


@pytest.mark.parametrize(
    ("token", "hidden"), [("all_but_momentum", "momentum_12_1"), ("all_but_value", "value_composite_legacy")]
)
def test_the_quadratic_does_not_recover_a_hidden_sharpe(api: Api, token: str, hidden: str) -> None:
    truth = significance(api, hidden, "full")["sharpe"]["value"]
    assert truth is not None
    roots = recovered(api, token)
    # Annualised Sharpe ratios: 0.1 is about the precision a year of daily returns gives one.
    assert all(abs(root - truth) > 0.1 for root in roots), (truth, roots)
    # The same arithmetic over the full key's answers (a key that reads them all) finds it.
    everyone = np.array(list(readable_sharpes(api, "full").values()))
    trials = significance(api, "Test_planted_factor", "full")["dsr"]["trials"]
    assert math.isclose(trials["sharpe_variance"], float(np.var(everyone, ddof=1)), rel_tol=1e-12)


@pytest.mark.parametrize("token", list(HIDDEN))
def test_every_catalogue_figure_is_a_function_of_the_readable_alphas(
    api: Api, lake: ref.Lake, token: str
) -> None:
    """N is the catalogue's count; V is the sample variance of exactly the Sharpe ratios the key
    reads; the DSR follows from them and the alpha's own returns. Nothing else enters, so no
    combination of keys' answers holds a value of an alpha none of them may read."""
    hidden = HIDDEN[token]
    sharpes = readable_sharpes(api, token)
    full_count = significance(api, "Test_planted_factor", "full")["dsr"]["trials"]["count"]
    for alpha in ("Test_planted_factor", "Test_small_universe"):
        data = significance(api, alpha, token)
        trials = data["dsr"]["trials"]
        assert trials["count"] == full_count == 7
        assert trials["sharpe_variance_alphas"] == len(sharpes) == 7 - len(hidden)
        assert math.isclose(
            trials["sharpe_variance"], float(np.var(list(sharpes.values()), ddof=1)), rel_tol=1e-12
        )
        expected = ref.significance(lake, alpha, (None, None), readable=lambda a: a not in hidden)
        assert math.isclose(data["dsr"]["value"], expected["dsr"], rel_tol=1e-9)
