"""What the operator CLI tells an operator about a key's access.

- `keys create` (and the demo keys `serve --init-demo` prints): what the new key reads, and when
  its account's ceiling allows more than its grants (a new key reads only `Test_` alphas and runs
  even on an account whose ceiling is `all`), the commands that give it the rest.
- `keys grant`, when the account's ceiling clamps the grant: a key never gets more than its
  account's ceiling; a grant beyond it is stored as given (it takes effect if the ceiling is
  widened later) but is not what the key can use today. Saying so, with the effective lists and
  the command that would widen the ceiling, saves a round of "why 403?".
"""

from __future__ import annotations

from dataclasses import dataclass

from access.access import callable_endpoints, clamp
from access.records import ADMIN_CEILING, AccountRecord, Grants, KeyRecord
from core.context import AllowList


def allow_argument(allow: AllowList, endpoints: bool = False) -> str:
    """The command-line spelling of an allow-list (what `--endpoints`, `--alphas`, `--runs` take)."""
    if allow.mode == "all":
        return "all"
    if allow.mode == "list":
        return ",".join(allow.ids) if endpoints else "list:" + ",".join(allow.ids)
    return "prefix:" + ",".join(allow.prefixes)


def allow_text(allow: AllowList, endpoints: bool = False) -> str:
    """An allow-list as the operator reads it: its command-line spelling, or `nothing`."""
    return "nothing" if allow == AllowList.of_ids([]) else allow_argument(allow, endpoints)


@dataclass(frozen=True)
class KeyAccess:
    """What a key reads today (its grants clamped to its account's ceiling) and, when the ceiling
    lets it read more than its grants, what and the commands that give it that."""

    reads: tuple[str, ...]  # `endpoints: all (43 callable)`, `alphas: prefix:Test_`, ...
    note: str | None  # what the ceiling allows beyond the grants, or that the key is at its ceiling
    widen: tuple[str, ...]  # `alpha-results keys grant KEY --alphas all --runs all`, ...

    @classmethod
    def of(cls, key: KeyRecord, account: AccountRecord, script: str = "alpha-results") -> KeyAccess:
        effective = clamp(key.grants, account)
        ceiling = account.effective_ceiling
        endpoints = callable_endpoints(effective.endpoints, account.is_admin)
        reads = (
            f"endpoints: {allow_text(effective.endpoints, True)} ({len(endpoints)} callable)",
            f"alphas: {allow_text(effective.alphas)}",
            f"runs: {allow_text(effective.runs)}",
            f"raw books and raw fields: {'on' if effective.expose_raw_book else 'off'}",
        )
        withheld, grant = [], []
        if callable_endpoints(ceiling.endpoints, account.is_admin) != endpoints:
            withheld.append(f"endpoints {allow_argument(ceiling.endpoints, True)}")
            grant.append(f"--endpoints {allow_argument(ceiling.endpoints, True)}")
        for name in ("alphas", "runs"):
            if getattr(effective, name) != getattr(ceiling, name):  # the grant is narrower
                withheld.append(f"{name} {allow_argument(getattr(ceiling, name))}")
                grant.append(f"--{name} {allow_argument(getattr(ceiling, name))}")
        widen = [f"{script} keys grant {key.key_id} {' '.join(grant)}"] if grant else []
        if ceiling.expose_raw_book and not effective.expose_raw_book:
            withheld.append("raw books and raw fields")
            widen.append(f"{script} keys set-raw-book {key.key_id} on")
        if widen:
            note: str | None = (
                f"The ceiling of account {account.email} allows more than this key's grants "
                f"({', '.join(withheld)}); to give it to this key:"
            )
        elif ceiling != ADMIN_CEILING:
            note = (
                f"That is all the ceiling of account {account.email} allows; to widen the ceiling (here "
                f"to everything): {script} accounts set-ceiling {account.email} --endpoints all --alphas all "
                "--runs all --raw-book on"
            )
        else:
            note = None
        return cls(reads, note, tuple(widen))

    def lines(self) -> list[str]:
        """What `keys create` prints on stderr about the new key."""
        return [
            "It reads:",
            *(f"  {line}" for line in self.reads),
            *([] if self.note is None else [self.note]),
            *(f"  {command}" for command in self.widen),
        ]


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
            lines.append(
                f"  {name}: {allow_text(usable, is_endpoints)} (granted {allow_argument(given, is_endpoints)})"
            )
            wider = widened(getattr(ceiling, name), given)
            widen.append(f"--{name} {allow_argument(wider, is_endpoints)}")
    if granted.expose_raw_book and not effective.expose_raw_book:
        lines.append("  raw books: off (granted on)")
        widen.append("--raw-book on")
    lines.append("to widen the ceiling: " + " ".join(widen))
    return "\n".join(lines)
