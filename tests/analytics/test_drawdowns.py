"""/analytics/drawdowns against a brute-force scan of the level series, for every ledger book of
every alpha over the whole history and random windows; the deepest episode is the equity curve's
max drawdown."""

from __future__ import annotations

import pytest

from tests.analytics import reference as ref
from tests.analytics.conftest import ALPHAS, BOOKS, EDGE_WINDOWS, Api, random_windows, window_params
from tests.analytics.helpers import check_row, close

PATH = "/v1/alphas/{alpha}/analytics/drawdowns"


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("book", BOOKS)
def test_episodes_reproduce_over_random_windows(api: Api, lake: ref.Lake, alpha: str, book: str) -> None:
    token = "raw" if book.startswith("raw_") else "plain"
    for window in random_windows(f"drawdowns:{alpha}:{book}") + EDGE_WINDOWS:
        where = (alpha, book, window)
        rows = api.all_rows(PATH.format(alpha=alpha), token, book=book, **window_params(window))
        ledger = lake.ledger_in(alpha, book, window)
        assert ledger is not None
        expected = ref.drawdown_episodes(ledger)
        assert len(rows) == len(expected), (where, len(rows), len(expected))
        for i, (row, episode) in enumerate(zip(rows, expected, strict=True)):
            assert set(row) == set(episode), (where, sorted(row))
            check_row(row, episode, (*where, i))
        # The deepest episode is the equity curve's max drawdown over the same window.
        summary = api.ok(
            f"/v1/alphas/{alpha}/equity-curve", token, book=book, limit=1, **window_params(window)
        )["meta"].get("summary")
        if ledger.empty:
            continue
        deepest = expected[0]["depth_pct"] if expected else 0.0
        assert close(summary["max_drawdown_pct"], deepest), (where, summary, deepest)


def test_the_demo_has_unrecovered_and_recovered_episodes(lake: ref.Lake) -> None:
    episodes = ref.drawdown_episodes(lake.ledger_in("momentum_12_1", "long_short", (None, None)))
    assert any(e["recovery_date"] is None for e in episodes)
    assert sum(e["recovery_date"] is not None for e in episodes) >= 3


def test_a_window_restarts_the_peak(api: Api, lake: ref.Lake) -> None:
    """A window starting inside an episode measures from the window's own opening equity."""
    whole = api.all_rows(PATH.format(alpha="momentum_12_1"))
    deepest = whole[0]
    window = (deepest["trough_date"], None)
    part = api.all_rows(PATH.format(alpha="momentum_12_1"), **window_params(window))
    assert all(r["peak_date"] >= deepest["trough_date"] for r in part)
    assert part != whole[: len(part)]
