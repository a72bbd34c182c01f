"""A request path of every data endpoint, by registry id."""

from __future__ import annotations

DATA_PATHS = {
    "catalog.alphas.list": "/v1/alphas",
    "catalog.alphas.get": "/v1/alphas/Test_planted_factor",
    "signals.rebalances.list": "/v1/alphas/Test_planted_factor/rebalances",
    "signals.rebalances.get": "/v1/alphas/Test_planted_factor/rebalances/2021-01-15",
    "signals.scores": "/v1/alphas/Test_planted_factor/scores",
    "portfolio.books": "/v1/alphas/Test_planted_factor/books",
    "portfolio.ledger": "/v1/alphas/Test_planted_factor/portfolio",
    "portfolio.positions": "/v1/alphas/Test_planted_factor/positions",
    "portfolio.pnl": "/v1/alphas/Test_planted_factor/pnl",
    "portfolio.trades": "/v1/alphas/Test_planted_factor/trades?book=long_short",
    "portfolio.equity_curve": "/v1/alphas/Test_planted_factor/equity-curve",
    "benchmarks.daily": "/v1/benchmarks/SPY/daily",
}
