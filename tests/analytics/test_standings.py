"""Where each alpha stands (`analytics.standings`) and the one rule of the default reference set
(`analytics.sets.default_reference`) on hand-built catalogues; a notebook's `Figures` given the
standings answers exactly what a server keeping those records serves; and a server whose records
cannot be read answers 503 on every route that needs them, never a column or a reference set as if
nothing had been decided. (Through the real `alpha-results serve`: tests/e2e/test_standings_served.py.)"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pytest
from litestar.testing import TestClient

from analytics.errors import BadParameters
from analytics.figures import Figures
from analytics.sets import NO_APPROVED, default_reference
from analytics.standings import NO_DECISIONS, Standings
from datasets.served import Catalogue, Listing
from pipeline.operator_decisions import standings_of
from records.store import open_records
from tests.analytics.conftest import ALPHAS, CALLERS, Api
from tests.decided import decide_on, noon

IDS = ["p1", "t1", "t2", "p2", "t3"]
PRODUCTION_IDS = {"p1", "p2"}


def catalogue(ids: list[str] = IDS) -> Catalogue:
    """A catalogue of `ids` in this order (its index stored in another order, as an index may be;
    PRODUCTION_IDS sealed as production, which sets no default: only a standing does)."""
    index_order = sorted(ids)
    index = pa.table(
        {"alpha_id": index_order, "sealed_production": [a in PRODUCTION_IDS for a in index_order]}
    )
    listing = Listing.of(ids, ["b1"] * len(ids), [None] * len(ids), [None] * len(ids), [True] * len(ids))
    return Catalogue({}, {}, {}, index=index, order=tuple(ids), listing=listing)


def mask(*admitted: str) -> np.ndarray:
    return np.array([a in admitted for a in IDS])


EVERY = mask(*IDS)


# -- the rule ---------------------------------------------------------------------------------------


def test_the_approved_alphas_the_caller_reads_in_catalogue_order() -> None:
    found = default_reference(catalogue(), EVERY, {"p2", "t2"})
    assert (found.alphas, found.origin, found.excluded) == (["t2", "p2"], "approved", False)
    assert found.mask.tolist() == mask("t2", "p2").tolist()


def test_the_alpha_asked_about_is_left_out_and_said_so() -> None:
    found = default_reference(catalogue(), EVERY, ["p2", "t2"], "t2")
    assert (found.alphas, found.origin, found.excluded) == (["p2"], "approved", True)
    assert found.mask.tolist() == mask("p2").tolist()


def test_without_an_approved_alpha_the_set_is_empty_and_says_why() -> None:
    """No fallback on the ids: an id without the Test_ prefix is not in the live book unless it
    stands approved (only a decision approves: issue 64)."""
    for approved in ((), ["gone"], ["t1"]):  # none; one the catalogue no longer holds; only the alpha
        found = default_reference(catalogue(), EVERY, approved, "t1")
        assert (found.alphas, found.origin, found.mask.any()) == ([], "approved", False), approved
        assert found.empty_reason == NO_APPROVED, approved
    assert default_reference(catalogue(), EVERY, ["t1"], "t1").excluded is True
    # No alpha asked about (the screener's max_correlation): the whole approved set, or none.
    assert default_reference(catalogue(), EVERY, ()).alphas == []
    found = default_reference(catalogue(), EVERY, ["p2", "t1"])
    assert (found.alphas, found.empty_reason) == (["t1", "p2"], None)


def test_an_approved_alpha_the_caller_may_not_read_is_not_approved_for_it() -> None:
    found = default_reference(catalogue(), mask("p1", "t1", "t2", "t3"), {"p2", "t2"})
    assert (found.alphas, found.origin) == (["t2"], "approved")
    # Reads none of them: an empty set, exactly as if nothing were approved (the routes' own 400
    # or not_measurable, with the reason).
    hidden = mask("p1", "t1", "t3")
    found, unapproved = (
        default_reference(catalogue(), hidden, {"p2", "t2"}),
        default_reference(catalogue(), hidden, ()),
    )
    assert (found.alphas, found.origin, found.excluded, found.empty_reason) == (
        [],
        "approved",
        False,
        NO_APPROVED,
    )
    assert (found.alphas, found.origin, found.mask.tolist(), found.empty_reason) == (
        unapproved.alphas,
        unapproved.origin,
        unapproved.mask.tolist(),
        unapproved.empty_reason,
    )


# -- standings --------------------------------------------------------------------------------------


def decision(action: str, as_of: str) -> Any:
    """A decision as the records keep it, recorded at noon of its day."""
    return SimpleNamespace(
        action=action,
        as_of=dt.date.fromisoformat(as_of),
        recorded_at=noon(as_of),
        decided_by="tests",
        imported_from=None,
    )


def test_standings_of_the_latest_decisions() -> None:
    standings = Standings.of(
        {"t1": decision("approved", "2021-09-30"), "p2": decision("retired", "2022-01-03")}
    )
    assert [standings.columns(a) for a in ("t1", "p2", "t3")] == [
        {"standing": "approved", "approved_since": dt.date(2021, 9, 30)},
        {"standing": "retired", "approved_since": None},
        {"standing": "never", "approved_since": None},
    ]
    assert standings.mask(catalogue(), ["approved"]).tolist() == mask("t1").tolist()
    assert standings.mask(catalogue(), ["retired", "never"]).tolist() == (~mask("t1")).tolist()
    assert standings.mask(catalogue(), ["approved", "retired", "never"]).all()
    assert NO_DECISIONS.mask(catalogue(), ["never"]).all() and not NO_DECISIONS.approved
    # A notebook's own: ids alone (no date known), or ids and dates.
    assert Standings.approving(["t1"]).columns("t1") == {"standing": "approved", "approved_since": None}
    assert Standings.approving({"t1": dt.date(2021, 1, 4)}).approved_since("t1") == dt.date(2021, 1, 4)


def test_the_standings_tag_moves_with_what_the_caller_reads_alone() -> None:
    seen = mask("p1", "t1")
    before = Standings.of({"t2": decision("approved", "2021-09-30")})
    after = Standings.of({"t2": decision("retired", "2021-12-31"), "t1": decision("approved", "2021-10-01")})
    assert before.tag(catalogue(), seen) == NO_DECISIONS.tag(catalogue(), seen)  # t2 is not the caller's
    assert after.tag(catalogue(), seen) != before.tag(catalogue(), seen)  # t1 is
    moved = Standings.of({"t1": decision("approved", "2021-10-04")})
    assert moved.tag(catalogue(), seen) != Standings.of({"t1": decision("approved", "2021-10-01")}).tag(
        catalogue(), seen
    )


# -- a notebook and a server with records ------------------------------------------------------------

APPROVED = {"Test_planted_factor": dt.date(2021, 9, 30), "value_composite_legacy": dt.date(2021, 11, 30)}


@pytest.fixture(scope="module")
def decided(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Api, Figures]]:
    """An app keeping records in which APPROVED are approved (and Test_small_universe approved,
    then retired), and a notebook's `Figures` given the same standings."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource
    from tests.callers import authenticator_for

    url = f"sqlite:///{tmp_path_factory.mktemp('standings') / 'records.sqlite3'}"
    records = open_records(url)
    for alpha, as_of in APPROVED.items():
        decide_on(records, alpha, "approved", as_of)
    decide_on(records, "Test_small_universe", "approved", dt.date(2021, 3, 1))
    decide_on(records, "Test_small_universe", "retired", dt.date(2021, 6, 1))
    standings = standings_of(records)
    records.close()
    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(url),
    )
    figures = Figures.open(str(demo_lake), standings)
    with TestClient(app=app) as client:
        yield Api(client), figures
    figures.reader.close()


def correlation_entry(checks: dict[str, Any]) -> dict[str, Any]:
    (entry,) = [c for c in checks["checks"] if c["id"] == "production_correlation"]
    return dict(entry)


def served_data(api: Api, path: str, **params: Any) -> bytes:
    response = api.get(path, "raw", **params)
    assert response.status_code == 200, response.text
    return bytes(msgspec.json.decode(response.content, type=dict[str, msgspec.Raw])["data"])


def test_a_notebook_given_the_standings_answers_as_the_server(decided: tuple[Api, Figures]) -> None:
    api, figures = decided
    for alpha in ALPHAS:
        path = f"/v1/alphas/{alpha}/analytics"
        contribution = figures.contribution(alpha)
        assert contribution.reference.origin == "approved"
        assert served_data(api, f"{path}/contribution") == msgspec.json.encode(contribution), alpha
        # The production correlation (the checks of the live part read the alpha's approval as the
        # route does, which `Figures.checks` is given on its own: tests/analytics/test_live_checks.py).
        served = msgspec.json.decode(served_data(api, f"{path}/checks"))
        found = msgspec.to_builtins(figures.checks(alpha))
        assert correlation_entry(served) == correlation_entry(found), alpha
        assert correlation_entry(found)["reference"] == "approved"
    for params in (
        {},
        {"standing": ("approved",)},
        {"standing": ("retired", "never")},
        {"max_correlation": 0.6},
    ):
        served = {k: ",".join(v) if isinstance(v, tuple) else v for k, v in params.items()}
        page = figures.screen(**params)
        assert served_data(api, "/v1/analytics/screen", **served) == msgspec.json.encode(page.rows), params
    assert [row.alpha_id for row in figures.screen(standing="approved").rows] == [
        "Test_planted_factor",
        "value_composite_legacy",
    ]
    # production=true is the approved set, whatever the ids' prefix (momentum_12_1 is not approved
    # in these records; Test_planted_factor is), on the server and in a notebook alike.
    served = api.ok("/v1/analytics/screen", production="true", limit=100)["data"]
    assert [r["alpha_id"] for r in served] == [r.alpha_id for r in figures.screen(production=True).rows]
    assert sorted(r["alpha_id"] for r in served) == sorted(APPROVED)
    unapproved = api.ok("/v1/analytics/screen", production="false", limit=100)["data"]
    assert "momentum_12_1" in {r["alpha_id"] for r in unapproved}
    assert "Test_small_universe" in {r["alpha_id"] for r in unapproved}  # retired: not approved
    rows = {row.alpha_id: row for row in figures.screen().rows}
    assert {a: (r.standing, r.approved_since) for a, r in rows.items() if r.standing != "never"} == {
        "Test_planted_factor": ("approved", APPROVED["Test_planted_factor"]),
        "value_composite_legacy": ("approved", APPROVED["value_composite_legacy"]),
        "Test_small_universe": ("retired", None),
    }
    # Without standings a notebook's default set is empty, as a server's without records: a
    # contribution then asks for a reference set, saying why there is none.
    plain = Figures(figures.reader)
    with pytest.raises(BadParameters) as refused:
        plain.contribution("Test_ledger_only")
    assert NO_APPROVED in refused.value.problems["reference"]
    assert plain.residual("Test_ledger_only").reference.empty_reason == NO_APPROVED


def test_records_that_cannot_be_read_are_a_503_where_they_are_needed(demo_lake: Path, tmp_path: Path) -> None:
    """A records database the server cannot open: 503 upstream_unavailable on the catalogue, the
    screener and every default reference set, never a column or a set computed as if nothing had
    been decided; a contribution to a named set needs no records."""
    from core.settings import Settings
    from serve.app import create_app
    from serve.records import RecordsSource
    from tests.callers import authenticator_for

    app = create_app(
        Settings(lake=str(demo_lake), environment="test"),
        authenticate=authenticator_for(CALLERS),
        limiter=None,
        records=RecordsSource(f"sqlite:///{tmp_path / 'absent' / 'records.sqlite3'}"),
    )
    alpha = "Test_planted_factor"
    with TestClient(app=app) as client:
        api = Api(client)
        for path in (
            "/v1/alphas",
            "/v1/analytics/screen",
            f"/v1/alphas/{alpha}/analytics/contribution",
            f"/v1/alphas/{alpha}/analytics/checks",
        ):
            response = api.get(path)
            assert response.status_code == 503, (path, response.text)
            assert response.json()["error"]["code"] == "upstream_unavailable", path
        api.ok(f"/v1/alphas/{alpha}/analytics/contribution", reference="momentum_12_1")
        # A bad `standing` is the caller's own mistake, said before the records are read.
        response = api.get("/v1/analytics/screen", standing="live")
        assert response.status_code == 400, response.text
