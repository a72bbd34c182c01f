"""Egress budgets (issue 60, item 6; OWASP API4:2023 "Unrestricted Resource Consumption" and API6
"Unrestricted Access to Sensitive Business Flows"): how many rows and bytes one key may take in a
UTC day, across every surface, so a key capped at 5,000 requests a day cannot take a whole alpha's
history through exports and pages.

- **What counts.** Bytes: every answer body of a keyed request, as sent (pages in any
  representation, exports' listings, Delta Sharing's protocol answers, the route answers an MCP
  tool call makes), and every signed download's bytes (an export file, a source archive: the key
  it was signed for). Rows: the rows of every collection page (`returned`), through MCP too. The
  `/mcp` answer itself is not counted again: its tool results are the route answers, counted as
  those requests.
- **When.** Each keyed request is checked after the limiter counted it: a key whose day's rows or
  bytes have reached the budget is 429 `egress_budget_exceeded` (`Retry-After`: seconds to 00:00
  UTC; `details`: `budget` (`rows` or `bytes`), `limit`, `spent`). An answer's rows and bytes are
  added once it is sent, so one answer may pass the budget (at most a page, `limit` x a row); a
  download is refused before a byte is sent when its bytes would pass it.
- **Where it is kept.** In the limiter's store: Redis (shared by every worker; a hash per key and
  day, expiring after it) or the in-process limiter. A worker checks against the totals Redis
  answered to its last addition for the key, so other workers' answers since then may pass the
  budget by what they sent meanwhile (one answer each, in practice). While Redis is down each worker
  counts its own answers. A Redis restart forgets the day's egress (the request counts are rebuilt
  from the key store's ledger; these are not recorded there).
- **Whom.** Every key but an administrator's. The budgets are the deployment's settings
  (`ALPHA_RESULTS_EGRESS_ROWS_PER_DAY`, `ALPHA_RESULTS_EGRESS_BYTES_PER_DAY`), the same for
  every key; 0 turns one off.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core import errors
from core.context import Caller
from core.settings import Settings
from serve.limits.model import Limiter


@dataclass(frozen=True)
class Budget:
    rows: int  # 0: none
    bytes: int  # 0: none

    @classmethod
    def of(cls, settings: Settings) -> Budget | None:
        budget = cls(settings.egress_rows_per_day, settings.egress_bytes_per_day)
        return budget if budget.rows or budget.bytes else None


def day_start(now: datetime) -> int:
    return int(datetime(now.year, now.month, now.day, tzinfo=UTC).timestamp())


def seconds_to_midnight(now: datetime) -> int:
    tomorrow = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
    return max(1, int((tomorrow - now).total_seconds() + 0.999))


def applies(budget: Budget | None, caller: Caller | None) -> bool:
    return budget is not None and caller is not None and not caller.is_admin


def check(limiter: Limiter, budget: Budget, key_id: str, now: datetime, adding_bytes: int = 0) -> None:
    """429 `egress_budget_exceeded` when the key's day has reached a budget (or, for a download of
    `adding_bytes`, would pass the bytes budget)."""
    rows, size = limiter.egress_spent(key_id, day_start(now))
    for name, spent, limit, more in (
        ("rows", rows, budget.rows, 0),
        ("bytes", size, budget.bytes, adding_bytes),
    ):
        over = spent + more > limit if more else spent >= limit
        if limit and over:
            wait = seconds_to_midnight(now)
            what = f"{limit:,} {name}"
            raise errors.EgressBudgetExceeded(
                f"This key has taken {spent:,} {name} today, and may take {what} a UTC day"
                + (f"; this download is {more:,} bytes more" if more else "")
                + f". Retry after 00:00 UTC (in {wait:,} s).",
                details={"budget": name, "limit": limit, "spent": spent, "retry_after": wait},
                headers={"Retry-After": str(wait)},
            )
