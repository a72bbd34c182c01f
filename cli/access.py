"""What `keys grant` tells an operator when the account's ceiling clamps the grant.

A key never gets more than its account's ceiling; a grant beyond it is stored as given (it takes
effect if the ceiling is widened later) but is not what the key can use today. Saying so, with
the effective lists and the command that would widen the ceiling, saves a round of "why 403?".
"""

from __future__ import annotations

from serve.context import AllowList
from serve.identity.access import clamp
from serve.identity.records import AccountRecord, Grants


def allow_argument(allow: AllowList, endpoints: bool = False) -> str:
    """The command-line spelling of an allow-list (what `--endpoints`, `--alphas`, `--runs` take)."""
    if allow.mode == "all":
        return "all"
    if allow.mode == "list":
        return ",".join(allow.ids) if endpoints else "list:" + ",".join(allow.ids)
    return "prefix:" + ",".join(allow.prefixes)


def widened(ceiling: AllowList, granted: AllowList) -> AllowList:
    """The narrowest ceiling that keeps what `ceiling` opens and admits `granted`: the union when
    both are lists or both prefixes, else `all` (ids and prefixes cannot share one allow-list, and
    suggesting either alone would take access away from the account's other keys)."""
    if ceiling.mode == granted.mode == "list":
        return AllowList.of_ids([*ceiling.ids, *granted.ids])
    if ceiling.mode == granted.mode == "prefix":
        return AllowList.of_prefixes([*ceiling.prefixes, *granted.prefixes])
    return AllowList.all()


def clamp_warning(granted: Grants, account: AccountRecord) -> str | None:
    """A warning naming what the ceiling takes away from `granted`, or None when nothing."""
    effective = clamp(granted, account)
    if effective == granted:
        return None
    ceiling = account.effective_ceiling
    lines = [f"warning: the ceiling of account {account.email} clamps this grant; the key can use:"]
    widen = [f"alpha-results accounts set-ceiling {account.email}"]
    for name in ("endpoints", "alphas", "runs"):
        given, usable = getattr(granted, name), getattr(effective, name)
        if given != usable:
            is_endpoints = name == "endpoints"
            shown = allow_argument(usable, is_endpoints) if usable != AllowList.of_ids([]) else "nothing"
            lines.append(f"  {name}: {shown} (granted {allow_argument(given, is_endpoints)})")
            wider = widened(getattr(ceiling, name), given)
            widen.append(f"--{name} {allow_argument(wider, is_endpoints)}")
    if granted.expose_raw_book and not effective.expose_raw_book:
        lines.append("  raw books: off (granted on)")
        widen.append("--raw-book on")
    lines.append("to widen the ceiling: " + " ".join(widen))
    return "\n".join(lines)
