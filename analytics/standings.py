"""Where each alpha stands after the operator's decisions (`alpha-results promote`, `retire`;
docs/events.md "Promotions"), as data: figures know no records.

The server reads the latest decision about every alpha from its records
(`records.promotions.Promotions.standing`) and hands it here (`Standings.of`); a notebook does
the same with the records it opens, or names the approved alphas itself (`Standings.approving`).
What it feeds: the catalogue's and the screener's `standing` and `approved_since` columns, the
screener's `standing` filter, and the decision routes' default reference set (the approved alphas
a caller may read: `analytics.sets.default_reference`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from analytics.tenure import Tenure
from datasets.served import Catalogue, Listing
from schemas.bodies.promotions import Standing


class Decided(Protocol):
    """A decision about an alpha, as the records keep it (`records.promotions.Promotion`)."""

    @property
    def action(self) -> str: ...

    @property
    def as_of(self) -> dt.date: ...

    @property
    def recorded_at(self) -> dt.datetime: ...

    @property
    def decided_by(self) -> str: ...

    @property
    def imported_from(self) -> str | None: ...


class Nominated(Protocol):
    """A nomination, as the records keep it (`records.nominations.Nomination`)."""

    @property
    def recorded_at(self) -> dt.datetime: ...

    @property
    def nominated_by(self) -> str: ...

    @property
    def note(self) -> str: ...

    @property
    def build_id(self) -> str: ...


@dataclass(frozen=True)
class Standings:
    """The alphas in force in the live book (`approved`: alpha -> the as_of of the approval in
    force), those retired from it, those waiting in the review queue (`nominated`: alpha -> its
    nomination),
    and every alpha's tenure (`tenures`: its latest approval and the retirement that ended it, the
    one rule of its live part: `analytics.tenure`); every other alpha was never decided on."""

    approved: Mapping[str, dt.date | None] = field(default_factory=dict)
    retired: frozenset[str] = frozenset()
    nominated: Mapping[str, Nominated] = field(default_factory=dict)
    tenures: Mapping[str, Tenure] = field(default_factory=dict)
    # Which listed alphas are approved, retired or either, for the listing last asked about (its
    # catalogue version): a request reads them without a pass over every alpha id (issue 51).
    _members: dict[str, tuple[Listing, np.ndarray]] = field(
        default_factory=dict, init=False, compare=False, hash=False, repr=False
    )

    @classmethod
    def of(
        cls,
        latest: Mapping[str, Decided],
        approvals: Mapping[str, Decided] | None = None,
        nominations: Mapping[str, Nominated] | None = None,
    ) -> Standings:
        """From the latest decision about each alpha (`Promotions.standing()`), the latest approval
        of each (`Promotions.approvals()`: the tenures; without it, the approvals in force) and the
        latest nomination of each (`Nominations.latest()`: nominated while no decision followed)."""
        approved = {alpha: d.as_of for alpha, d in latest.items() if d.action == "approved"}
        retired = frozenset(alpha for alpha, d in latest.items() if d.action == "retired")
        found = (
            approvals
            if approvals is not None
            else {a: d for a, d in latest.items() if d.action == "approved"}
        )
        tenures = {}
        for alpha, approval in found.items():
            last = latest.get(alpha)
            ended = last is not None and last.action == "retired" and last.recorded_at >= approval.recorded_at
            tenures[alpha] = Tenure(
                approved_at=approval.recorded_at,
                as_of=approval.as_of,
                retired_at=last.recorded_at if ended and last is not None else None,
                decided_by=approval.decided_by,
                imported=approval.imported_from is not None,
            )
        nominated = {
            alpha: n
            for alpha, n in (nominations or {}).items()
            if alpha not in approved and (alpha not in latest or latest[alpha].recorded_at < n.recorded_at)
        }
        return cls(approved, retired, nominated, tenures)

    @classmethod
    def approving(cls, alphas: Iterable[str] | Mapping[str, dt.date | None]) -> Standings:
        """A notebook's own: `alphas` approved (as of the dates given; with ids alone, as of no
        date it knows: `approved_since` is null)."""
        if isinstance(alphas, Mapping):
            return cls(dict(alphas))
        return cls(dict.fromkeys(alphas))

    def standing(self, alpha: str) -> Standing:
        if alpha in self.approved:
            return "approved"
        if alpha in self.nominated:
            return "nominated"
        return "retired" if alpha in self.retired else "never"

    def tenure(self, alpha: str) -> Tenure | None:
        """The alpha's tenure (in force, or ended by a retirement); None when never approved: the
        one answer to "which approval, which split" (`analytics.live.split_of`)."""
        return self.tenures.get(alpha)

    def approved_since(self, alpha: str) -> dt.date | None:
        """The as_of of the approval in force; None when the alpha is not approved (or a notebook
        named it without a date)."""
        return self.approved.get(alpha)

    def columns(self, alpha: str) -> dict[str, object]:
        """The `standing` and `approved_since` of a catalogue or screener row."""
        return {"standing": self.standing(alpha), "approved_since": self.approved_since(alpha)}

    def mask(self, catalogue: Catalogue, wanted: Iterable[str]) -> np.ndarray:
        """Which of the catalogue's alphas (catalogue order) stand as one of `wanted`
        (`STANDINGS`)."""
        listing = catalogue.listing
        assert listing is not None
        chosen = set(wanted)
        keep = np.zeros(len(listing.ids), dtype=bool)
        approved = self._member(catalogue, "approved")
        nominated = self._member(catalogue, "nominated") & ~approved
        retired = self._member(catalogue, "retired") & ~nominated
        if "approved" in chosen:
            keep |= approved
        if "nominated" in chosen:
            keep |= nominated
        if "retired" in chosen:
            keep |= retired
        if "never" in chosen:
            keep |= ~(approved | retired | nominated)
        return keep

    def tag(self, catalogue: Catalogue, readable: np.ndarray) -> str:
        """A version of the standings of the alphas `readable` admits (catalogue order): it changes
        with a decision about one of them, never with one about an alpha the caller may not read."""
        listing = catalogue.listing
        assert listing is not None
        decided = self._member(catalogue, "decided") & readable
        digest = hashlib.sha256()
        for alpha in listing.ids.filter(pa.array(decided)).to_pylist():
            digest.update(f"{alpha}\x00{self.standing(alpha)}\x00{self.approved_since(alpha)}\x00".encode())
        return digest.hexdigest()[:16]

    def _member(self, catalogue: Catalogue, which: str) -> np.ndarray:
        """Which listed alphas of `catalogue` are `which` (approved, retired, nominated, decided: any),
        computed once per listing (read only, shared by requests)."""
        listing = catalogue.listing
        assert listing is not None
        known = self._members.get(which)
        if known is not None and known[0] is listing:
            return known[1]
        alphas = {
            "approved": self.approved.keys(),
            "retired": self.retired,
            "nominated": self.nominated.keys(),
            "decided": {*self.approved, *self.retired, *self.nominated},
        }[which]
        found = _member(listing.ids, alphas)
        found.setflags(write=False)
        self._members[which] = (listing, found)  # the listing of one catalogue version at a time
        return found


NO_DECISIONS = Standings()
"""An app or a notebook without records: every alpha `never`, nothing approved."""


def _member(ids: pa.Array, alphas: Iterable[str]) -> np.ndarray:
    found = pc.is_in(ids, value_set=pa.array(list(alphas), pa.string()))
    return np.asarray(pc.fill_null(found, False).to_numpy(zero_copy_only=False), dtype=bool)
