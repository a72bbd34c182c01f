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
- **The account's pool.** Every answer is also added to its account's pooled day (the id
  `access.oauth.account_pool_id`, shared by the account's keys, access tokens and sessions), in the
  same Redis transaction as the key's. A pooled budget (`ALPHA_RESULTS_EGRESS_ACCOUNT_ROWS_PER_DAY`,
  `ALPHA_RESULTS_EGRESS_ACCOUNT_BYTES_PER_DAY`; 0, the default: none) refuses as the key's does,
  with `details.envelope` `account`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from access.oauth import account_pool_id
from core import errors
from core.context import Caller
from core.settings import Settings
from serve.limits.model import Limiter


@dataclass(frozen=True)
class Budget:
    rows: int  # 0: none
    bytes: int  # 0: none
    account_rows: int = 0  # the account's pooled budget; 0: none
    account_bytes: int = 0

    @classmethod
    def of(cls, settings: Settings) -> Budget | None:
        budget = cls(
            settings.egress_rows_per_day,
            settings.egress_bytes_per_day,
            settings.egress_account_rows_per_day,
            settings.egress_account_bytes_per_day,
        )
        return budget if budget.rows or budget.bytes or budget.account_rows or budget.account_bytes else None


def spenders(caller: Caller) -> tuple[str, str]:
    """The ids an answer's rows and bytes are counted under: the credential's, and its account's
    pooled id (`access.oauth.account_pool_id`), which every credential of the account shares."""
    return caller.key_id, account_pool_id(caller.user_id)


def day_start(now: datetime) -> int:
    return int(datetime(now.year, now.month, now.day, tzinfo=UTC).timestamp())


def seconds_to_midnight(now: datetime) -> int:
    tomorrow = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
    return max(1, int((tomorrow - now).total_seconds() + 0.999))


def applies(budget: Budget | None, caller: Caller | None) -> bool:
    return budget is not None and caller is not None and not caller.is_admin


def check(limiter: Limiter, budget: Budget, caller: Caller, now: datetime, adding_bytes: int = 0) -> None:
    """429 `egress_budget_exceeded` when the credential's day, or its account's pooled day, has
    reached a budget (or, for a download of `adding_bytes`, would pass the bytes budget)."""
    key_id, pool_id = spenders(caller)
    _check(limiter, key_id, budget.rows, budget.bytes, now, adding_bytes, "This key")
    _check(limiter, pool_id, budget.account_rows, budget.account_bytes, now, adding_bytes, "This account")


def _check(
    limiter: Limiter,
    spender: str,
    rows_limit: int,
    bytes_limit: int,
    now: datetime,
    more_bytes: int,
    who: str,
) -> None:
    if not (rows_limit or bytes_limit):
        return
    rows, size = limiter.egress_spent(spender, day_start(now))
    for name, spent, limit, more in (
        ("rows", rows, rows_limit, 0),
        ("bytes", size, bytes_limit, more_bytes),
    ):
        over = spent + more > limit if more else spent >= limit
        if limit and over:
            wait = seconds_to_midnight(now)
            what = f"{limit:,} {name}"
            details: dict[str, Any] = {"budget": name, "limit": limit, "spent": spent, "retry_after": wait}
            if who == "This account":
                details["envelope"] = "account"
            raise errors.EgressBudgetExceeded(
                f"{who} has taken {spent:,} {name} today, and may take {what} a UTC day"
                + (
                    " (every key, access token and dashboard session of the account together)"
                    if details.get("envelope")
                    else ""
                )
                + (f"; this download is {more:,} bytes more" if more else "")
                + f". Retry after 00:00 UTC (in {wait:,} s).",
                details=details,
                headers={"Retry-After": str(wait)},
            )
