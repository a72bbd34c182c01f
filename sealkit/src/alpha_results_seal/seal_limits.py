"""How much of a seal a build may read and decode: rows and decoded bytes per kind, bytes per JSON
file, bytes per file of any kind.

Seals are untrusted. Parquet compresses repeated values almost to nothing: a 1.7 MB
`decisions.parquet` of 20 million identical rows once took a build to 8.5 GB of memory before
any rule could refuse it. Every figure here is checked from what a file declares (its size, a
Parquet footer) before the file is decoded (`alpha_results_seal.bounded_read`), and a seal over a limit is
refused by rule `seal.size_limits`, the report naming the kind, the figure and the limit.

The defaults are at least ten times the full-size demo alpha `momentum_12_1` (500 names, 293
weekly rebalances, 4 books), rounded up, and admit an alpha of 3,000 names x 20 years with room
(issue 78); docs/settings.md "Seal size limits" gives the measured figures. Every file of a seal is also measured before a byte of it is read, `source.zip` and
files the build would refuse included (`alpha_results_seal.seal_files`): a multi-gigabyte file otherwise
filled the host's memory while the seal was hashed. Kinds that are small in any seal (rebalances, metrics, ledgers, benchmarks) get a floor
that costs little memory instead. `alpha-results build` reads the settings once
(`SealLimits.from_env`) and passes them to every build, on Dask too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

MIB = 1 << 20
ENV_PREFIX = "ALPHA_RESULTS_SEAL_"
# A seal's JSON holds objects a few levels deep (the description's groups); anything far deeper
# is hostile, and would reach Python's recursion limit in the parser or in the server's encoder.
MAX_JSON_DEPTH = 64


@dataclass(frozen=True)
class KindLimit:
    rows: int  # summed over the kind's files (every book of a book kind)
    bytes: int  # decoded: the larger of the footers' uncompressed size and the tables in memory


# Kind `benchmark` is a benchmark seal's `daily.parquet`.
# The large kinds admit an alpha of 3,000 names x 20 years of weeks (issue 78, item 5: 3.1 million
# decisions, 12.5 million positions, 13.1 million P&L rows, 2.7 million trades, 0.3-0.5 GiB decoded
# each) with about twice that to spare; a seal at every limit decodes to at most 5.1 GiB.
DEFAULT_KIND_LIMITS: dict[str, KindLimit] = {
    "rebalances": KindLimit(100_000, 16 * MIB),
    "decisions": KindLimit(6_000_000, 1024 * MIB),
    "metrics": KindLimit(100_000, 16 * MIB),
    "exposures": KindLimit(6_000_000, 1024 * MIB),  # one row per name per week, as decisions
    "portfolio": KindLimit(100_000, 32 * MIB),
    "positions": KindLimit(25_000_000, 1024 * MIB),
    "pnl": KindLimit(25_000_000, 1024 * MIB),
    "trades": KindLimit(8_000_000, 1024 * MIB),
    "benchmark": KindLimit(100_000, 16 * MIB),
}
DEFAULT_JSON_BYTES = 1 * MIB
# The largest Parquet file of a seal at every limit decodes to 256 MiB and is smaller on disk; the
# full-size demo's largest file (decisions.parquet) is 7.3 MB, its source.zip 897 bytes.
DEFAULT_FILE_BYTES = 256 * MIB


def rows_variable(kind: str) -> str:
    return f"{ENV_PREFIX}MAX_ROWS_{kind.upper()}"


def bytes_variable(kind: str) -> str:
    return f"{ENV_PREFIX}MAX_BYTES_{kind.upper()}"


JSON_BYTES_VARIABLE = f"{ENV_PREFIX}MAX_JSON_BYTES"
FILE_BYTES_VARIABLE = f"{ENV_PREFIX}MAX_FILE_BYTES"
FAMILY_MEMBERS_VARIABLE = f"{ENV_PREFIX}FAMILY_MEMBERS"
DEFAULT_FAMILY_MEMBERS = 1_000
"""Members a trial family may hold (`family.members`, alpha_results_seal.families): the probability
of backtest overfitting computes over every member, 1,000 in about 2 s and a bounded memory
(docs/benchmarks.md, issue 60); a team exploring more variants starts another family."""


def declared_settings() -> list[tuple[str, int]]:
    """Every limit's environment variable and default (docs/settings.md lists each one)."""
    settings = [
        (JSON_BYTES_VARIABLE, DEFAULT_JSON_BYTES),
        (FILE_BYTES_VARIABLE, DEFAULT_FILE_BYTES),
        (FAMILY_MEMBERS_VARIABLE, DEFAULT_FAMILY_MEMBERS),
    ]
    for kind, limit in DEFAULT_KIND_LIMITS.items():
        settings += [(rows_variable(kind), limit.rows), (bytes_variable(kind), limit.bytes)]
    return settings


@dataclass(frozen=True)
class SealLimits:
    kinds: Mapping[str, KindLimit] = field(default_factory=lambda: dict(DEFAULT_KIND_LIMITS))
    json_bytes: int = DEFAULT_JSON_BYTES
    file_bytes: int = DEFAULT_FILE_BYTES  # any file of the seal, on disk
    family_members: int = DEFAULT_FAMILY_MEMBERS  # the members of a trial family

    def of(self, kind: str) -> KindLimit:
        return self.kinds[kind]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SealLimits:
        """The limits from `ALPHA_RESULTS_SEAL_*`, defaults where unset. Raises ValueError naming
        the variable whose value is not a positive integer."""
        environ = os.environ if environ is None else environ

        def read(variable: str, default: int) -> int:
            raw = environ.get(variable)
            if raw is None:
                return default
            try:
                value = int(raw)
            except ValueError:
                value = 0
            if value < 1:
                raise ValueError(f"{variable} must be a positive integer, got {raw!r}")
            return value

        kinds = {
            kind: KindLimit(read(rows_variable(kind), limit.rows), read(bytes_variable(kind), limit.bytes))
            for kind, limit in DEFAULT_KIND_LIMITS.items()
        }
        return cls(
            kinds,
            read(JSON_BYTES_VARIABLE, DEFAULT_JSON_BYTES),
            read(FILE_BYTES_VARIABLE, DEFAULT_FILE_BYTES),
            read(FAMILY_MEMBERS_VARIABLE, DEFAULT_FAMILY_MEMBERS),
        )
