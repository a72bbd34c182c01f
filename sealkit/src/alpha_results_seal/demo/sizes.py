"""The demo market's sizes, by name (`alpha-results demo --size`).

Apart from the market's simulation (sealkit/src/alpha_results_seal/demo/market.py) so that the command's arguments
are read without importing numpy.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MarketSize:
    n_names: int
    n_sessions: int


SIZES = {"full": MarketSize(n_names=500, n_sessions=1410), "small": MarketSize(n_names=60, n_sessions=300)}
