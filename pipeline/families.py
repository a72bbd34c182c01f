"""The trial families' registers in the lake: who owns each family and which alphas joined it
(the rules and the format: alpha_results_seal.families; docs/seal.md "Trial families").

Every change is a new version of the family's register, created only if no other writer created
that version first (`Storage.create_exclusive`: a hard link locally, `If-None-Match: *` on S3): two
publishes of one family at once, on two build processes or Dask workers, each re-read the register
and try again, so the first publish into a family claims it for its team exactly once and the
member cap is never passed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from alpha_results_seal.families import FAMILIES_DIR, FamilyRecord, family_refusal, read_family, version_path
from alpha_results_seal.storage import Storage
from datasets.writer import dumps

ATTEMPTS = 1_000
"""Writers a change may lose to before giving up: far more than a lake's concurrent publishes."""


def join_family(
    lake_root: str, family: str, alpha_id: str, team: str | None, max_members: int
) -> FamilyRecord:
    """`alpha_id` a member of `family`, published by `team`: the family claimed for the team when no
    seal named it yet. Raises the seal's refusal (`family.owner`, `family.members`)."""
    storage = Storage(lake_root)
    for _ in range(ATTEMPTS):
        record = read_family(storage, lake_root, family)
        refused = family_refusal(record, family, alpha_id, team, max_members)
        if refused is not None:
            raise refused
        if record is not None and alpha_id in record.members:
            return record
        if record is None:
            assert team is not None  # a build without a team was refused (`family_refusal`)
            now = datetime.now(UTC).isoformat(timespec="seconds")
            changed = FamilyRecord(family, team, (alpha_id,), 1, now)
        else:
            changed = replace(record, members=(*record.members, alpha_id), version=record.version + 1)
        if _written(storage, lake_root, changed):
            return changed
    raise RuntimeError(f"family {family}'s register kept changing: {ATTEMPTS} writes lost")


def hand_over(lake_root: str, family: str, team: str, by: str) -> tuple[FamilyRecord, FamilyRecord]:
    """`family` handed to `team` by the operator `by`; the register before and after. KeyError when
    no seal named the family."""
    storage = Storage(lake_root)
    for _ in range(ATTEMPTS):
        record = read_family(storage, lake_root, family)
        if record is None:
            raise KeyError(family)
        change = {
            "from": record.owner,
            "to": team,
            "by": by,
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        changed = replace(record, owner=team, version=record.version + 1, history=(*record.history, change))
        if _written(storage, lake_root, changed):
            return record, changed
    raise RuntimeError(f"family {family}'s register kept changing: {ATTEMPTS} writes lost")


def families(lake_root: str) -> list[FamilyRecord]:
    """Every family's register, by slug."""
    storage = Storage(lake_root)
    folder = f"{lake_root.rstrip('/')}/{FAMILIES_DIR}"
    found = (read_family(storage, lake_root, name) for name in sorted(storage.list_names(folder)))
    return [record for record in found if record is not None]


def _written(storage: Storage, lake_root: str, record: FamilyRecord) -> bool:
    try:
        storage.create_exclusive(
            version_path(lake_root, record.family, record.version), dumps(record.document())
        )
    except FileExistsError:
        return False  # another writer changed the register first: read it again
    return True
