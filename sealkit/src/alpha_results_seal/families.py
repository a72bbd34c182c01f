"""Who may publish into a trial family, and how many members it may hold (issue 60; docs/seal.md
"Trial families").

A family belongs to the team whose build first published a seal naming it: the lake records the
owner then, with the members, in the family's register (`_families/<family>/<version>.json`, one
document per change, each written once: the newest is the register). A seal naming a family is
refused by `family.owner` when the build publishes for another team, and by `family.members`
when the family holds `SealLimits.family_members` members already and the seal's alpha is not one
of them: a family's size bounds what every figure over it costs (the probability of backtest
overfitting computes over every member). Both rules are checked at every publish, against the
register as it is then (`pipeline.families.join_family` writes the change it allows), and by
`seal check` when it is given the lake and the team (`--lake`, `--team`); without them they are
not checked there, and the report says so. An operator hands a family to another team
(`alpha-results lake family FAMILY --hand-over-to TEAM`): a new version of the register.

Teams are names declared by the build run (`alpha-results build --team`), not accounts of the key
store: the pipeline knows no keys. A build run that declares none (`alpha-results build` without
`--team` or `ALPHA_RESULTS_TEAM`) publishes for no team (`team=None`): its seals that name a family
are refused by `family.owner`, whether the family is new or not. Two runs that both left the team
out are not taken for one team (issue 81, item 8: a seal built without `--team` joined any family
the team `default` owned, every other team that forgot `--team` included). A programmatic caller
(`pipeline.publish.publish_seal`: the demo, the tests) publishes for `DEFAULT_TEAM` unless told.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alpha_results_seal.rules import SealRejected
from alpha_results_seal.storage import Storage

FAMILIES_DIR = "_families"
"""The folder, under the lake's root, of every family's register."""
DEFAULT_TEAM = "default"
"""The team of a programmatic publish that names none (the demo's, a notebook's: a single-team
lake). A build run on the command line declares its team or has none."""
TEAM = re.compile(r"[a-z][a-z0-9_-]{0,63}")
"""A team's name: a slug, as a family's."""
VERSION = re.compile(r"[0-9]{8}\.json")


@dataclass(frozen=True)
class FamilyRecord:
    """A family's register: its owner, its members (every alpha that published into it, in order)
    and the version of the document it was read from."""

    family: str
    owner: str
    members: tuple[str, ...]
    version: int
    claimed_at: str
    history: tuple[dict[str, Any], ...] = ()

    def document(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "owner": self.owner,
            "claimed_at": self.claimed_at,
            "members": list(self.members),
            "history": list(self.history),
        }


FamilyLookup = Callable[[str], "FamilyRecord | None"]
"""A family's register by its slug (None: no seal named it yet)."""


def team_checked(team: str) -> str:
    """`team`, when it is a team's name; ValueError otherwise."""
    if not TEAM.fullmatch(team):
        raise ValueError(f"a team is a slug matching {TEAM.pattern}, got {team!r}")
    return team


def family_folder(lake_root: str, family: str) -> str:
    return f"{lake_root.rstrip('/')}/{FAMILIES_DIR}/{family}"


def version_path(lake_root: str, family: str, version: int) -> str:
    return f"{family_folder(lake_root, family)}/{version:08d}.json"


def read_family(storage: Storage, lake_root: str, family: str) -> FamilyRecord | None:
    """The newest version of `family`'s register, None when no seal named it yet."""
    folder = family_folder(lake_root, family)
    if not storage.exists(folder):
        return None
    versions = sorted(name for name in storage.list_names(folder) if VERSION.fullmatch(name))
    if not versions:
        return None
    newest = versions[-1]
    document = json.loads(storage.read_bytes(f"{folder}/{newest}"))
    return FamilyRecord(
        family=family,
        owner=str(document["owner"]),
        members=tuple(document["members"]),
        version=int(newest.removesuffix(".json")),
        claimed_at=str(document["claimed_at"]),
        history=tuple(document.get("history", ())),
    )


def lake_families(lake_root: str) -> FamilyLookup:
    """The registers of the lake at `lake_root`, read as they are asked for."""
    storage = Storage(lake_root)
    return lambda family: read_family(storage, lake_root, family)


def family_refusal(
    record: FamilyRecord | None, family: str, alpha_id: str, team: str | None, max_members: int
) -> SealRejected | None:
    """Why a seal of `alpha_id` naming `family`, published by `team` (None: a build that declared
    none), may not join it; None when it may (a family no seal named yet is the team's to claim)."""
    if team is None:
        return SealRejected(
            "family.owner",
            "manifest",
            f"this seal names family {family}, and this build declares no team (alpha-results build --team "
            "TEAM, or ALPHA_RESULTS_TEAM): a trial family belongs to the team that publishes into it, and "
            "builds that declare none are not taken for one team, so they claim no family and join none. "
            + (
                f"Family {family} belongs to team {record.owner}"
                if record is not None
                else f"Family {family} is new"
            )
            + ": publish with your team's name",
            samples=[{"family": family, "owner": None if record is None else record.owner, "team": None}],
        )
    if record is None:
        return None
    if record.owner != team:
        return SealRejected(
            "family.owner",
            "manifest",
            f"family {family} belongs to team {record.owner} (first published into on "
            f"{record.claimed_at[:10]}); this build publishes for team {team}, and a seal may join only "
            f"its own team's families. Name a family of your own, or ask an operator to hand this one "
            f"over (alpha-results lake family {family} --hand-over-to {team})",
            samples=[{"family": family, "owner": record.owner, "team": team}],
        )
    if alpha_id not in record.members and len(record.members) >= max_members:
        return SealRejected(
            "family.members",
            "manifest",
            f"family {family} holds {len(record.members):,} members, the most a family may "
            f"(ALPHA_RESULTS_SEAL_FAMILY_MEMBERS, {max_members:,}): every figure over a family computes "
            "over each member. Start another family for further variants",
            samples=[{"family": family, "members": len(record.members), "limit": max_members}],
        )
    return None
