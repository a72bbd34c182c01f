"""The operator's policy of `/analytics/checks`: which checks exist, on which side each is bounded,
and the thresholds (docs/analytics.md "Checks").

The thresholds are the documented defaults, or those of a TOML file named by the setting
`checks_policy_file`, read once when the app is created: a file that cannot be read or breaks a
rule (an unknown check or side, a value that is not a finite number, a band whose min is above its
max) stops the server from starting, never a request. A request may only tighten the policy
(`Policy.tightened`): a loosened bound is a 400 naming the parameter.
"""

from __future__ import annotations

import hashlib
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from analytics import correlation
from analytics.errors import BadParameters
from analytics.monitoring import DEFAULT_ARL0, DEFAULT_IR_FALL, Design, design
from schemas.bodies.decisions import Bound, PolicyThresholds
from schemas.bodies.decisions import Policy as PolicyEcho
from schemas.checks import BY_ID, CHECKS, MAX, MIN, MIN_OVERLAP, RENAMED
from schemas.query import ChecksQuery

SETTING = "ALPHA_RESULTS_CHECKS_POLICY_FILE"

Thresholds = Mapping[str, Mapping[str, float]]
"""check id -> {"min": x} or {"max": x} or both (the turnover band)."""
assert MIN_OVERLAP == correlation.MIN_OVERLAP, "the checks' documentation states the correlation's rule"
assert {p for c in CHECKS for p in c.parameters.values()} == {
    name for name in ChecksQuery.__struct_fields__ if name.startswith(("min_", "max_"))
}, "every bound of ChecksQuery tightens one check"


class PolicyError(ValueError):
    """A policy file the server refuses to start with; the message names the setting and the rule."""


APPROVALS = ("never", "every_check_passes")
"""What the written approval policy may say (`[approval] approve = ...` in the policy file):
`never` (the default: only an operator's `alpha-results promote` approves) or `every_check_passes`
(a nominated alpha whose checks' verdict is pass is approved by the policy, `decided_by` policy)."""


@dataclass(frozen=True)
class Policy:
    thresholds: Thresholds
    origin: str  # "defaults" or "operator" (a file was read)
    approve: str = "never"
    """The written approval policy (`APPROVALS`)."""
    ir_fall: float = DEFAULT_IR_FALL
    """`[monitoring] ir_fall`: the fall of the annualised information ratio the CUSUM of
    `/analytics/monitoring` is designed to detect."""
    arl0_weeks: float = DEFAULT_ARL0
    """`[monitoring] arl0_weeks`: its in-control average run length, the mean weeks between false
    alarms of an alpha that still works as expected (the committee's false-alarm rate)."""
    bounded: frozenset[str] = frozenset()
    """The checks the operator's file bounds ([checks.<id>] with a side): a check of the trial
    family (`Check.family_min`) it bounds is measured whenever its route measures it, not only from
    the default's family size."""

    def chart(self) -> Design:
        """The CUSUM every approved alpha is watched with (`analytics.monitoring.design`)."""
        return design(self.ir_fall, self.arl0_weeks)

    def echo(self) -> PolicyEcho:
        """The policy as answers echo it (never the file's path: it is the operator's)."""
        thresholds = {k: Bound(**v) for k, v in self.thresholds.items()}
        return PolicyEcho(origin=self.origin, thresholds=PolicyThresholds(**thresholds))

    def tag(self) -> str:
        """A version of the thresholds: an answer's ETag changes when the operator's policy does."""
        text = ";".join(
            f"{check}:{side}={value!r}"
            for check, sides in self.thresholds.items()
            for side, value in sides.items()
        )
        text += f";monitoring:{self.ir_fall!r},{self.arl0_weeks!r}"
        if self.bounded:  # a family check bounded by the operator is measured from fewer trials
            text += ";bounded:" + ",".join(sorted(self.bounded))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def tightened(self, args: ChecksQuery) -> dict[str, dict[str, float]]:
        """The thresholds of one request: the policy with the request's bounds, each at least as
        strict as the policy's (else 400 naming the parameter and the policy's bound)."""
        problems: dict[str, str] = {}
        out: dict[str, dict[str, float]] = {}
        for check in CHECKS:
            if check.id not in self.thresholds and not any(
                getattr(args, parameter) is not None for parameter in check.parameters.values()
            ):
                continue  # an optional check the policy leaves (or turns) off, and the request too
            sides = dict(self.thresholds.get(check.id, {}))
            loosened = False
            for side, parameter in check.parameters.items():
                asked = getattr(args, parameter)
                if asked is None:
                    continue
                policy = sides.get(side)  # None: off in the policy, any bound tightens it
                if policy is not None and (asked < policy if side == MIN else asked > policy):
                    word = "at least" if side == MIN else "at most"
                    problems[parameter] = f"may only tighten the operator's policy: {word} {policy!r}"
                    loosened = True
                    continue
                sides[side] = float(asked)
            if MIN in sides and MAX in sides and sides[MIN] > sides[MAX] and not loosened:
                # One side tightened past the other's policy bound (both given is the parser's 400)
                low, high = check.parameters[MIN], check.parameters[MAX]
                named = low if getattr(args, low) is not None else high
                problems[named] = (
                    f"leaves no value that passes: {check.id} would need at least {sides[MIN]!r} "
                    f"and at most {sides[MAX]!r}"
                )
            out[check.id] = sides
        if problems:
            raise BadParameters(problems)
        return out


def default_policy() -> Policy:
    """The documented thresholds; the optional checks off (the family's on by default)."""
    return Policy(
        MappingProxyType({c.id: MappingProxyType(dict(c.defaults)) for c in CHECKS if not c.optional}),
        "defaults",
    )


def load_policy(path: str) -> Policy:
    """The policy of the file at `path` ("" or absent setting: the defaults). Raises PolicyError."""
    if not path:
        return default_policy()
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise PolicyError(f"{SETTING}={path}: cannot be read ({exc.strerror or exc})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{SETTING}={path}: not valid TOML ({exc})") from exc
    try:
        thresholds, bounded = _thresholds(document)
        return Policy(thresholds, "operator", _approve(document), *_monitoring(document), bounded)
    except PolicyError as exc:
        raise PolicyError(f"{SETTING}={path}: {exc}") from None


MONITORING_BOUNDS = {"ir_fall": (0.05, 10.0), "arl0_weeks": (4.0, 100_000.0)}
"""What `[monitoring]` may say: a fall too small or a run length too long has no threshold a
year of weeks can reach; one too short alarms every month."""


def _monitoring(document: dict[str, Any]) -> tuple[float, float]:
    table = document.get("monitoring", {})
    if not isinstance(table, dict) or set(table) - set(MONITORING_BOUNDS):
        raise PolicyError(f"monitoring must be a table holding {' and '.join(MONITORING_BOUNDS)} only")
    found = {"ir_fall": DEFAULT_IR_FALL, "arl0_weeks": DEFAULT_ARL0}
    for key, (low, high) in MONITORING_BOUNDS.items():
        if key not in table:
            continue
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise PolicyError(f"monitoring.{key}: must be a number from {low:g} to {high:g}, got {value!r}")
        found[key] = float(value)
    return found["ir_fall"], found["arl0_weeks"]


def _approve(document: dict[str, Any]) -> str:
    table = document.get("approval", {})
    if not isinstance(table, dict) or set(table) - {"approve"}:
        raise PolicyError(
            'approval must be a table holding one key, approve = "never" or "every_check_passes"'
        )
    found = table.get("approve", "never")
    if found not in APPROVALS:
        raise PolicyError(f"approval.approve: must be one of {', '.join(APPROVALS)}, got {found!r}")
    return str(found)


def _thresholds(document: dict[str, Any]) -> tuple[Thresholds, frozenset[str]]:
    """The thresholds of the file, and the checks it bounds (`Policy.bounded`)."""
    extra = sorted(set(document) - {"checks", "approval", "monitoring"})
    if extra:
        raise PolicyError(
            f"unknown top-level key {extra[0]!r} (the file holds [checks.<id>] tables, an [approval] and a "
            "[monitoring] table)"
        )
    given = document.get("checks", {})
    if not isinstance(given, dict):
        raise PolicyError("checks must be a table of [checks.<id>] tables")
    merged: dict[str, dict[str, float]] = {c.id: dict(c.defaults) for c in CHECKS if not c.optional}
    bounded: set[str] = set()
    for check_id, sides in given.items():
        check = BY_ID.get(check_id)
        if check_id in RENAMED:
            raise PolicyError(
                f'checks.{check_id}: the check is now named {RENAMED[check_id]} (docs/analytics.md, "Renamed"): '
                f"write [checks.{RENAMED[check_id]}]"
            )
        if check is None:
            raise PolicyError(f"checks.{check_id}: unknown check (known: {', '.join(BY_ID)})")
        if not isinstance(sides, dict):
            raise PolicyError(f"checks.{check_id}: must be a table with {' and '.join(check.parameters)}")
        if check.family_min is not None and "off" in sides:
            # On by default for a large enough family: the operator may still turn it off
            if len(sides) != 1 or sides["off"] is not True:
                raise PolicyError(f"checks.{check_id}: off = true turns it off, alone in its table")
            del merged[check_id]
            continue
        if check.family_min is not None and sides:
            bounded.add(check_id)
        if check.optional:
            if not sides:
                raise PolicyError(
                    f"checks.{check_id}: bound it with {' and '.join(check.parameters)} to turn it on"
                )
            merged[check_id] = {}
        for side, value in sides.items():
            if side not in check.parameters:
                raise PolicyError(
                    f"checks.{check_id}.{side}: {check_id} is bounded by {' and '.join(check.parameters)} only"
                )
            # bool is an int in Python; a threshold of `true` is a mistake, not 1
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise PolicyError(f"checks.{check_id}.{side}: must be a finite number, got {value!r}")
            merged[check_id][side] = float(value)
        band = merged[check_id]
        if MIN in band and MAX in band and band[MIN] > band[MAX]:
            raise PolicyError(f"checks.{check_id}: min {band[MIN]:g} is above max {band[MAX]:g}")
    return MappingProxyType({k: MappingProxyType(v) for k, v in merged.items()}), frozenset(bounded)
