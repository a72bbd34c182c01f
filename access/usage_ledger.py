"""The usage ledger in the key store's database: each key's (and each account's pooled id's) request
counts per UTC day and month.

It is what makes quotas survive Redis (see serve.limits.ledger): the limiter raises these rows to
the counts it enforced about once a second, starts its counters from them, and counts in them
directly while Redis is unreachable. Each operation is one atomic statement on SQLite and
PostgreSQL alike. Rows are kept, as each key's usage history (one row per key per day and month
in use: a thousand daily keys make about 400,000 small rows a year).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from access.store import SqlKeyStore

ROWS_PER_STATEMENT = 200

_RAISE = """
INSERT INTO key_usage (key_id, period, period_start, requests) VALUES {values}
ON CONFLICT (key_id, period, period_start) DO UPDATE SET requests =
    CASE WHEN excluded.requests > key_usage.requests THEN excluded.requests ELSE key_usage.requests END
RETURNING key_id, period, requests
"""

# Counts one request in the day and the month rows of every id given (a key's, and its account's
# pooled id), or in none when any of them is full (`{values}`: `(?, 'day', ?), (?, 'month', ?)`
# per id; `{full}`: `_FULL` per id, joined by OR). On PostgreSQL two statements running at the same
# instant may both see room: a quota can then be passed by at most the number of concurrent
# statements (one per worker process).
_ADMIT = """
INSERT INTO key_usage (key_id, period, period_start, requests)
SELECT v.column1, v.column2, v.column3, 1 FROM (VALUES {values}) AS v
WHERE NOT EXISTS (SELECT 1 FROM key_usage AS u WHERE {full})
ON CONFLICT (key_id, period, period_start) DO UPDATE SET requests = key_usage.requests + 1
RETURNING key_id, period, requests
"""
_ADMIT_VALUES = "(?, 'day', ?), (?, 'month', ?)"
_FULL = """(u.key_id = ? AND (
        (u.period = 'day' AND u.period_start = ? AND u.requests >= ?)
        OR (u.period = 'month' AND u.period_start = ? AND u.requests >= ?)))"""

_READ = """
SELECT period, requests FROM key_usage
WHERE key_id = ? AND ((period = 'day' AND period_start = ?) OR (period = 'month' AND period_start = ?))
"""

UNLIMITED = 2**62


class SqlUsageLedger:
    """`serve.limits.UsageLedger` over a key store (SQLite or PostgreSQL)."""

    def __init__(self, store: SqlKeyStore) -> None:
        self._store = store

    @property
    def in_process(self) -> bool:
        return bool(self._store.in_process)

    def read(self, key_id: str, day_start: int, month_start: int) -> tuple[int, int]:
        rows, _ = self._store._execute(_READ, (key_id, day_start, month_start))
        return _day_month(rows)

    def raise_to(self, rows: Iterable[tuple[str, int, int, int, int]]) -> dict[str, tuple[int, int]]:
        values: list[tuple[str, str, int, int]] = []
        for key_id, day_start, day, month_start, month in rows:
            values += [(key_id, "day", day_start, day), (key_id, "month", month_start, month)]
        recorded: dict[str, dict[str, int]] = {}
        for first in range(0, len(values), ROWS_PER_STATEMENT):
            chunk = values[first : first + ROWS_PER_STATEMENT]
            sql = _RAISE.format(values=", ".join(["(?, ?, ?, ?)"] * len(chunk)))
            answered, _ = self._store._execute(sql, [field for row in chunk for field in row])
            for key_id, period, requests in answered:
                recorded.setdefault(key_id, {})[period] = int(requests)
        return {key_id: (counts.get("day", 0), counts.get("month", 0)) for key_id, counts in recorded.items()}

    def admit(
        self, envelopes: Sequence[tuple[str, int | None, int | None]], day_start: int, month_start: int
    ) -> tuple[bool, list[tuple[int, int]]]:
        values: list[Any] = []
        full: list[Any] = []
        for key_id, per_day, per_month in envelopes:
            values += [key_id, day_start, key_id, month_start]
            full += [
                key_id,
                day_start,
                UNLIMITED if per_day is None else per_day,
                month_start,
                UNLIMITED if per_month is None else per_month,
            ]
        sql = _ADMIT.format(
            values=", ".join([_ADMIT_VALUES] * len(envelopes)), full=" OR ".join([_FULL] * len(envelopes))
        )
        rows, _ = self._store._execute(sql, [*values, *full])
        if not rows:
            return False, [self.read(key_id, day_start, month_start) for key_id, _, _ in envelopes]
        counted: dict[str, dict[str, int]] = {}
        for key_id, period, requests in rows:
            counted.setdefault(str(key_id), {})[str(period)] = int(requests)
        return True, [
            (counted[key_id].get("day", 0), counted[key_id].get("month", 0)) for key_id, _, _ in envelopes
        ]


def _day_month(rows: list[tuple[Any, ...]]) -> tuple[int, int]:
    counts = {str(period): int(requests) for period, requests in rows}
    return counts.get("day", 0), counts.get("month", 0)
