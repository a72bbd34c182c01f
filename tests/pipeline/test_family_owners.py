"""A trial family belongs to the team that first published into it, and holds a bounded number of
members (issue 60, finding 7 and item 2; alpha_results_seal.families, pipeline/families.py; docs/seal.md
"Trial families"): another team's seal naming it is refused at publish and by `seal check --lake`,
an operator hands a family over, the cap refuses a new member beyond it, and publishes racing on
one family claim it once and never pass its cap."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from alpha_results_seal.check import check_seal
from alpha_results_seal.families import lake_families, read_family
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.seal_limits import SealLimits
from alpha_results_seal.storage import Storage
from cli.main import main
from pipeline.families import join_family
from pipeline.publish import publish_seal
from tests.pipeline.conftest import copy_seal
from tests.support.seal_edits import snapshot

FAMILY = "lookback_search"


def variant(factory_seal: Path, folder: Path, alpha: str, family: str = FAMILY, lookback: int = 1) -> Path:
    seal = copy_seal(factory_seal, folder / alpha)
    manifest = json.loads((seal / "manifest.json").read_text())
    manifest.update(alpha_id=alpha, family=family, parameters={"lookback": lookback})
    (seal / "manifest.json").write_text(json.dumps(manifest))
    return seal


def test_a_seal_naming_another_teams_family_is_refused_until_it_is_handed_over(
    tmp_path: Path, factory_seal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, any seal joined any family (`family_trials` 16 -> 17, the intruder a member)."""
    lake = tmp_path / "lake"
    first = variant(factory_seal, tmp_path, "Test_search_a", lookback=1)
    assert publish_seal(str(first), str(lake), team="research_a").status == "published"
    record = read_family(Storage(str(lake)), str(lake), FAMILY)
    assert record is not None and (record.owner, record.members) == ("research_a", ("Test_search_a",))
    # The owner's next variant joins.
    second = variant(factory_seal, tmp_path, "Test_search_b", lookback=2)
    assert publish_seal(str(second), str(lake), team="research_a").status == "published"
    before = snapshot(lake)
    # Another team's seal naming the family is refused, and nothing of it is written.
    intruder = variant(factory_seal, tmp_path, "Test_intruder", lookback=3)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(intruder), str(lake), team="research_b")
    assert caught.value.rule == "family.owner"
    assert "belongs to team research_a" in caught.value.message
    assert "--hand-over-to research_b" in caught.value.message
    assert snapshot(lake) == before
    # The default team is a team like any other.
    with pytest.raises(SealRejected):
        publish_seal(str(intruder), str(lake))
    # `seal check` says the same when it is given the lake and the team, and leaves it unchecked without.
    report = check_seal(str(intruder), families=lake_families(str(lake)), team="research_b")
    assert [broken.rule for broken in report.broken] == ["family.owner"]
    unchecked = check_seal(str(intruder))
    assert unchecked.ok and [n.rule for n in unchecked.not_checked] == ["family.owner", "family.members"]
    assert all("no lake was given" in n.reason for n in unchecked.not_checked)
    code = main(["seal", "check", str(intruder), "--lake", str(lake), "--team", "research_b"])
    out = capsys.readouterr().out
    assert code == 1 and "refused by rule family.owner" in out
    # The build command publishes for the team it is told, and refuses the intruder the same way.
    assert main(["build", str(intruder), "--lake", str(lake), "--team", "research_b", "--jobs", "1"]) == 1
    assert "family.owner" in capsys.readouterr().out
    # An operator hands the family over; the register keeps who did it, and the new owner's seal joins.
    assert main(["lake", "family", FAMILY, "--lake", str(lake), "--hand-over-to", "research_b"]) == 2
    assert (
        main(["lake", "family", FAMILY, "--lake", str(lake), "--hand-over-to", "research_b", "--by", "ops"])
        == 0
    )
    assert "handed over from team research_a to team research_b by ops" in capsys.readouterr().out
    assert publish_seal(str(intruder), str(lake), team="research_b").status == "published"
    record = read_family(Storage(str(lake)), str(lake), FAMILY)
    assert record is not None and record.owner == "research_b"
    assert record.members == ("Test_search_a", "Test_search_b", "Test_intruder")
    assert [(h["from"], h["to"], h["by"]) for h in record.history] == [("research_a", "research_b", "ops")]
    assert main(["lake", "family", "--lake", str(lake)]) == 0
    assert f"{FAMILY}  owner research_b  3 member(s)" in capsys.readouterr().out


def test_a_build_that_declares_no_team_claims_no_family_and_joins_none(
    tmp_path: Path, factory_seal: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 81, item 8 (e): a seal built without `--team` joined any family the team `default`
    owned, so every team that forgot `--team` shared one. A build run declaring no team (neither
    `--team` nor ALPHA_RESULTS_TEAM) is no team now: its family seals are refused by `family.owner`,
    a new family's as another's, and `seal check` without `--team` says the same."""
    monkeypatch.delenv("ALPHA_RESULTS_TEAM", raising=False)
    lake = tmp_path / "lake"
    # A family the team `default` owns (a programmatic publish, as the demo's).
    owner = variant(factory_seal, tmp_path, "Test_default_a", lookback=1)
    assert publish_seal(str(owner), str(lake)).status == "published"
    before = snapshot(lake)
    stranger = variant(factory_seal, tmp_path, "Test_teamless", lookback=2)
    assert main(["build", str(stranger), "--lake", str(lake), "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "family.owner" in out and "declares no team" in out, out
    assert snapshot(lake) == before
    record = read_family(Storage(str(lake)), str(lake), FAMILY)
    assert record is not None and record.members == ("Test_default_a",)
    # Nor does it claim a new family.
    fresh = variant(factory_seal, tmp_path, "Test_teamless_new", family="fresh_search")
    assert main(["build", str(fresh), "--lake", str(lake), "--jobs", "1"]) == 1
    assert read_family(Storage(str(lake)), str(lake), "fresh_search") is None
    capsys.readouterr()
    # `seal check --lake` without --team checks it as such a build.
    assert main(["seal", "check", str(stranger), "--lake", str(lake)]) == 1
    assert "refused by rule family.owner" in capsys.readouterr().out
    # A team named, `default` included, is a team: the owner's name joins its family.
    assert main(["build", str(stranger), "--lake", str(lake), "--team", "default", "--jobs", "1"]) == 0
    record = read_family(Storage(str(lake)), str(lake), FAMILY)
    assert record is not None and record.members == ("Test_default_a", "Test_teamless")


def test_a_family_holds_at_most_its_cap_of_members(tmp_path: Path, factory_seal: Path) -> None:
    lake = tmp_path / "lake"
    limits = SealLimits(family_members=2)
    for n in range(2):
        seal = variant(factory_seal, tmp_path, f"Test_member_{n}", lookback=n)
        assert publish_seal(str(seal), str(lake), limits=limits).status == "published"
    third = variant(factory_seal, tmp_path, "Test_member_2", lookback=2)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(third), str(lake), limits=limits)
    assert caught.value.rule == "family.members"
    assert "holds 2 members, the most a family may" in caught.value.message
    assert check_seal(str(third), limits, lake_families(str(lake))).broken[0].rule == "family.members"
    # A member's new build is not a new member.
    again = variant(factory_seal, tmp_path / "again", "Test_member_0", lookback=7)
    assert publish_seal(str(again), str(lake), limits=limits).status == "published"


def test_publishes_racing_on_one_family_claim_it_once_and_keep_its_cap(tmp_path: Path) -> None:
    """Twelve writers of two teams join one family at once with a cap of 5: one team owns it, and
    exactly five of its alphas are members (the others refused by the rule that applies)."""
    lake = str(tmp_path / "lake")
    outcomes: dict[str, str] = {}
    start = threading.Barrier(12)

    def join(n: int) -> None:
        team = "team_a" if n % 2 else "team_b"
        start.wait()
        try:
            join_family(lake, FAMILY, f"Test_racer_{n}", team, 5)
            outcomes[f"Test_racer_{n}"] = "joined"
        except SealRejected as refused:
            outcomes[f"Test_racer_{n}"] = refused.rule

    threads = [threading.Thread(target=join, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    record = read_family(Storage(lake), lake, FAMILY)
    assert record is not None
    joined = sorted(alpha for alpha, outcome in outcomes.items() if outcome == "joined")
    assert sorted(record.members) == joined and len(joined) == 5
    owners_alphas = {f"Test_racer_{n}" for n in range(12) if (n % 2 == 1) == (record.owner == "team_a")}
    assert set(joined) <= owners_alphas
    refused_by = {outcome for alpha, outcome in outcomes.items() if outcome != "joined"}
    assert refused_by == {"family.owner", "family.members"}
