"""What a book's fills are, by rule: the trade variant each belongs to, and the session it falls in.

Both are read by the builders (the seal a team writes), the demo engine (the seal it writes), the
seal's rules and the pipeline (which publishes a fill's `date`): one home each, declared in
`arrow_schemas` (`TRADE_VARIANT_PHASES`, `SESSION_TIME_ZONE`).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from alpha_results_seal import arrow_schemas as S


def trade_variants(trades: pa.Table) -> dict[str, pa.Table]:
    """Each variant's suffix and its rows of a book's `trades`, in their order (docs/seal.md
    "Trade variants")."""
    phase = trades.column("phase")
    return {
        suffix: trades.filter(pc.is_in(phase, value_set=pa.array(phases, pa.string())))
        for suffix, phases in S.TRADE_VARIANT_PHASES.items()
    }


def fill_session_dates(timestamps: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A fill's session: its instant's calendar date in New York (a null instant has none)."""
    utc = pc.cast(timestamps, pa.timestamp("us", tz="UTC"))
    local = pc.local_timestamp(pc.cast(utc, pa.timestamp("us", tz=S.SESSION_TIME_ZONE)))
    return pc.cast(local, pa.date32(), safe=False)
