"""Every rule over one seal in one pass: what `alpha-results seal check` reports and what the
publish path refuses, by the same code.

`SealCheck` runs the rules over an opened seal in the two steps the publish path takes: the
manifest's, then (once the publish knows the content is not published already) every other one,
the contents loaded within their limits. Each rule records what it finds and the next one runs
(`alpha_results_seal.rules.Findings`); a rule that would read what another rule refused is recorded as not
checked, with the reason. `check_seal` opens a seal and runs both steps, writing nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from alpha_results_seal.families import DEFAULT_TEAM, FamilyLookup, family_refusal
from alpha_results_seal.rules import ALPHA_RULES, BENCHMARK_RULES, Findings, NotChecked, SealRejected
from alpha_results_seal.seal import Seal, load_contents, open_seal, seal_target, target_of
from alpha_results_seal.seal_limits import SealLimits
from alpha_results_seal.storage import Storage
from alpha_results_seal.validate import check_alpha, check_benchmark, check_manifest, readable_tables


@dataclass
class SealCheck:
    """The rules over one opened seal, recorded in `found`."""

    seal: Seal
    limits: SealLimits | None = None
    found: Findings = field(default_factory=Findings)
    broken_fields: set[str] = field(default_factory=set)
    """The manifest's fields that break `manifest.fields`: the rules reading them are not checked."""

    def manifest(self) -> bool:
        """The manifest's rules; True when they hold."""
        self.broken_fields = check_manifest(self.seal.manifest, self.found)
        return self.found.ok

    def contents(self) -> None:
        """Every other rule, the seal's contents loaded (`load_contents`) as far as its manifest
        says what they are."""
        load_contents(self.seal, self.limits, self.found, readable_tables(self.seal, self.broken_fields))
        if self.seal.is_benchmark:
            check_benchmark(self.seal, self.found)
        else:
            check_alpha(self.seal, self.found, self.broken_fields)

    def family(self, families: FamilyLookup | None, team: str | None) -> None:
        """`family.owner` and `family.members` against the lake's registers (`families`), as they
        are now; not checked without them (a publish checks them as it joins the family)."""
        family = self.seal.manifest.get("family")
        if self.seal.is_benchmark or not isinstance(family, str) or "family" in self.broken_fields:
            return
        if families is None:
            self.found.skip(
                FAMILY_RULES,
                f"no lake was given to read family {family}'s owner from (seal check --lake, --team)",
            )
            return
        limit = (self.limits or SealLimits()).family_members
        refused = family_refusal(families(family), family, self.seal.manifest["alpha_id"], team, limit)
        if refused is not None:
            self.found.add(refused)

    def refuse(self) -> None:
        """Raises the first broken rule, carrying every other one, when any rule is broken."""
        self.found.refuse()


FAMILY_RULES = ("family.owner", "family.members")


@dataclass(frozen=True)
class SealReport:
    """What `check_seal` found in one seal."""

    seal: str
    target: str  # the alpha id, `benchmark:<symbol>`, or the folder's name
    broken: list[SealRejected]
    not_checked: list[NotChecked]

    @property
    def ok(self) -> bool:
        return not self.broken

    def as_dict(self) -> dict[str, Any]:
        """The seal's part of `alpha-results seal check --json` (docs/seal.md "Checking a seal")."""
        return {
            "seal": self.seal,
            "target": self.target,
            "ok": self.ok,
            "broken": [
                {"rule": b.rule, "kind": b.kind, "message": b.message, "sample_rows": b.samples}
                for b in self.broken
            ],
            "not_checked": [{"rule": n.rule, "reason": n.reason} for n in self.not_checked],
        }

    def lines(self) -> list[str]:
        """The seal's part of the readable report: its line, each broken rule with its sample
        rows (as `alpha-results build` prints a refusal), and the rules not checked, by reason.
        Each line as made: the command escapes a seal's text in it (`printable`) as it prints."""
        status = "OK" if self.ok else "refused"
        lines = [f"{status:<10} {self.target}  ({self.seal})"]
        for broken in self.broken:
            lines += ["  " + line for line in broken.lines()]
        reasons: dict[str, list[str]] = {}
        for skipped in self.not_checked:
            reasons.setdefault(skipped.reason, []).append(skipped.rule)
        lines += [f"  not checked ({reason}): {', '.join(rules)}" for reason, rules in reasons.items()]
        return lines


def is_folder(path: str) -> bool:
    """Whether `path` names a folder (or an object-store prefix) a seal may be in."""
    return Storage(path).is_dir(path)


def check_seal(
    path: str,
    limits: SealLimits | None = None,
    families: FamilyLookup | None = None,
    team: str | None = DEFAULT_TEAM,
) -> SealReport:
    """Every rule over the seal at `path`, nothing written; the family rules against `families`
    (a lake's registers, for a build publishing as `team`), not checked without them."""
    found = Findings()
    try:
        seal = open_seal(path, Storage(path), limits)
    except SealRejected as refused:  # its files could not all be read: no other rule can run
        found.add(refused)
        target = seal_target(path, limits)
        rules = BENCHMARK_RULES if target.startswith("benchmark:") else ALPHA_RULES
        others = [r for r in rules if not r.startswith("seal.") and r != refused.rule]
        found.skip(others, f"the seal was refused by {refused.rule} before its files were read")
        return SealReport(path, target, *found.in_rule_order())
    check = SealCheck(seal, limits, found)
    check.manifest()
    check.contents()
    check.family(families, team)
    return SealReport(path, target_of(seal.manifest, path), *found.in_rule_order())
