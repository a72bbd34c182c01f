"""One standing per alpha (issue 47, item 1): a sealed production alpha (an id without `Test_`)
is approved by its seal at its first publish, as of its research cutoff, once; the demo's
momentum_12_1 and value_composite_legacy stand approved with a history, and momentum's live
checks measure the part after its cutoff."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from analytics.figures import Figures
from analytics.policy import load_policy
from analytics.standings import Standings
from pipeline.events import record_run_events
from pipeline.seal_approvals import SEAL_DECIDER, SEAL_NOTE, seed_approvals
from records.store import Records, open_records
from schemas.checks import LIVE_CHECKS

PRODUCTION = ("momentum_12_1", "value_composite_legacy")


def demo_alphas(lake: Path) -> list[str]:
    return Figures.open(str(lake)).reader.snapshot().catalogue.index.column("alpha_id").to_pylist()


@pytest.fixture
def seeded(demo_lake: Path, tmp_path: Path) -> tuple[Path, Records]:
    lake = Path(shutil.copytree(demo_lake, tmp_path / "lake"))
    records = open_records(f"sqlite:///{tmp_path / 'records.sqlite3'}")
    record_run_events(records, str(lake), demo_alphas(lake), [], "", 30)
    yield lake, records
    records.close()


def test_a_fresh_demo_build_has_its_production_alphas_approved_by_the_seal_at_their_cutoff(
    seeded: tuple[Path, Records],
) -> None:
    lake, records = seeded
    standing = records.promotions.standing()
    assert sorted(standing) == sorted(PRODUCTION)  # no Test_ alpha is approved by its seal
    figures = Figures.open(str(lake))
    for alpha in PRODUCTION:
        [decision] = records.promotions.history(alpha)
        entry = figures.build(alpha).entry  # the sealed cutoff, else the first publish (the split's rule)
        cutoff = dt.date.fromisoformat(entry.get("research_cutoff") or entry["first_published_at"][:10])
        assert (decision.action, decision.decided_by, decision.note) == ("approved", SEAL_DECIDER, SEAL_NOTE)
        assert decision.as_of == cutoff
        assert decision.build_id == figures.build(alpha).build_id
        assert decision.snapshot["as_of"] == cutoff.isoformat()
        assert records.events.latest(alpha, ("alpha.approved",)) is not None
    # The index follows: the screener's rows split at the approval, and know the approved set.
    index = figures.reader.snapshot().catalogue.index
    rows = {r["alpha_id"]: r for r in index.to_pylist()}
    for alpha in PRODUCTION:
        assert rows[alpha]["live_split_origin"] == "approval"
        assert rows[alpha]["approved"] is True


def test_momentums_live_checks_are_measurable(seeded: tuple[Path, Records]) -> None:
    lake, records = seeded
    standings = Standings.of(records.promotions.standing())
    approved = standings.approved_since("momentum_12_1")
    checks = Figures.open(str(lake), standings).checks("momentum_12_1", approved=approved, book="long_short")
    live = [c for c in checks.checks if c.id in LIVE_CHECKS]
    # Measured over the live part after the seal's cutoff (the small corpus holds 60 of the 63
    # sessions a value needs, the full one more), no longer not_applicable: "never approved".
    assert live and all(c.split_date == approved for c in live)
    assert not any("never approved" in c.reason or c.reason.startswith("not_applicable") for c in live)


def test_a_rebuild_adds_no_second_approval_and_an_operators_retirement_stands(
    seeded: tuple[Path, Records],
) -> None:
    lake, records = seeded
    alphas = demo_alphas(lake)
    assert seed_approvals(records, str(lake), alphas, load_policy("")) == []
    records.decide("momentum_12_1", "retired", dt.date(2022, 3, 1), "operator", "decayed", "b", {})
    record_run_events(records, str(lake), alphas, [], "", 30)
    assert [p.action for p in records.promotions.history("momentum_12_1")] == ["approved", "retired"]
    assert len(records.promotions.history("value_composite_legacy")) == 1
