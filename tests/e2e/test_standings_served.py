"""Where each alpha stands, served by the real `alpha-results serve` as `alpha-results promote` and
`retire` record it (issue 35, item 1): the catalogue's and the screener's `standing` and
`approved_since`, the screener's `standing` and `production` filters, the answers' ETags, and the
decision routes' default reference set: the approved alphas the key may read (`origin` approved),
empty with its reason while there is none. Here the records start empty, so nothing is approved
until the operator decides (a seal never approves itself). A key that may not read an approved alpha gets the approved alphas it may read,
else an empty set, and nothing in any answer names or counts the other.

The figures over the new reference set are recomputed from the lake's files (pandas, numpy), as
tests/analytics does, within 1e-9."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from access import ADMIN_CEILING, Grants, open_store
from analytics.sets import NO_APPROVED
from cli.main import main as cli
from core.context import AllowList
from datasets import clock
from tests.analytics.conftest import ALPHAS, Api
from tests.analytics.helpers import close
from tests.analytics.reference import Lake, series_corr
from tests.conftest import linked_copy
from tests.decided import noon
from tests.health_wait import wait_until
from tests.lake.conftest import Served, serving
from tests.ops.keys import issue_key
from tests.support.contribution_check import check_contribution

pytestmark = pytest.mark.e2e

PLANTED = "Test_planted_factor"
REVERSAL = "Test_short_term_reversal"
APPROVED = {PLANTED: "2021-09-30", REVERSAL: "2021-12-31"}
"""Approved in this order, as of these dates; listed in catalogue order (the lake's)."""
ORDER = [a for a in ALPHAS if a in APPROVED]


class Answer:
    """One answer of the real server, as the analytics tests read a TestClient's."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status_code, self.headers, self.content = status, headers, body

    @property
    def text(self) -> str:
        return self.content.decode()

    def json(self) -> Any:
        return json.loads(self.content)


class ServedApi(Api):
    """The analytics tests' `Api` over the real server: `token` names one of the module's keys."""

    def __init__(self, served: Served, keys: dict[str, dict[str, str]]) -> None:
        self.port, self.keys = served.port, keys  # no TestClient: the real server

    def get(
        self, path: str, token: str = "raw", headers: dict[str, str] | None = None, **params: Any
    ) -> Answer:
        query = urlencode([(k, v) for k, v in params.items() if v is not None])
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(
                "GET", f"{path}?{query}" if query else path, headers={**self.keys[token], **(headers or {})}
            )
            response = connection.getresponse()
            return Answer(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def ok(self, path: str, token: str = "raw", **params: Any) -> dict[str, Any]:
        answer = self.get(path, token, **params)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body


@pytest.fixture(scope="module")
def demo_lake(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shared demo lake: a decision records its alpha's catalogue index row again."""
    return linked_copy(demo_lake, tmp_path_factory.mktemp("lake") / "lake")


@pytest.fixture(scope="module")
def world(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServedApi, str]]:
    """The real server over the demo lake, its key store (and records) in a SQLite file: `raw`
    reads everything; `no_planted` every alpha but Test_planted_factor; `no_approved` neither
    approved alpha."""
    folder = tmp_path_factory.mktemp("standings_served")
    url = f"sqlite:///{folder}/keys.sqlite3"
    store = open_store(url)
    admin = issue_key(store, role="admin")

    def without(*hidden: str) -> dict[str, str]:
        allowed = AllowList.of_ids([a for a in ALPHAS if a not in hidden])
        grants = Grants(ADMIN_CEILING.endpoints, allowed, allowed, expose_raw_book=True)
        return issue_key(store, role="admin", grants=grants).headers

    keys = {"raw": admin.headers, "no_planted": without(PLANTED), "no_approved": without(*APPROVED)}
    store.close()
    with serving(str(demo_lake), (url, admin.headers), folder) as server:
        yield ServedApi(server, keys), url


@pytest.fixture(scope="module")
def lake(demo_lake: Path) -> Lake:
    return Lake(demo_lake)


def decide(action: str, alpha: str, as_of: str, demo_lake: Path, url: str) -> None:
    """`alpha-results promote` or `retire`, recorded on `as_of`'s clock (a decision is dated when it
    is recorded)."""
    where = ["--lake", str(demo_lake), "--keystore", url, "--by", "head of research", "--note", "e2e"]
    if action == "promote":
        where += ["--override", "approved in a test whatever its checks"]
    with clock.simulated(noon(as_of)):
        assert cli([action, alpha, *where]) == 0


def catalogue(api: ServedApi, token: str = "raw") -> dict[str, dict[str, Any]]:
    return {row["alpha_id"]: row for row in api.ok("/v1/alphas", token)["data"]}


def screened(api: ServedApi, token: str = "raw", **params: Any) -> dict[str, Any]:
    return api.ok("/v1/analytics/screen", token, **params)


def contribution(api: ServedApi, alpha: str, token: str = "raw") -> dict[str, Any]:
    data: dict[str, Any] = api.ok(f"/v1/alphas/{alpha}/analytics/contribution", token)["data"]
    return data


def correlation_check(api: ServedApi, alpha: str, token: str = "raw") -> dict[str, Any]:
    data = api.ok(f"/v1/alphas/{alpha}/analytics/checks", token)["data"]
    (entry,) = [c for c in data["checks"] if c["id"] == "production_correlation"]
    return dict(entry)


def largest_correlations(lake: Lake, alpha: str, references: list[str]) -> dict[str, float]:
    """|Pearson| of the whole long_short histories with each reference alpha (itself excluded), where
    one is defined."""
    mine = lake.returns(alpha, "long_short", (None, None))
    out = {}
    for other in references:
        if other != alpha:
            found = series_corr(mine, lake.returns(other, "long_short", (None, None))).pearson
            if found is not None:
                out[other] = abs(found)
    return out


def check_correlation(
    entry: dict[str, Any], lake: Lake, alpha: str, references: list[str], origin: str
) -> None:
    """The check's value, nearest and counts against the set recomputed from the ledgers."""
    each = largest_correlations(lake, alpha, references)
    assert entry["reference"] == origin, entry
    assert (entry["compared"], entry["of"]) == (len(each), len([r for r in references if r != alpha])), entry
    assert entry["nearest"] == max(each, key=lambda a: each[a]), (entry, each)
    assert close(entry["value"], each[entry["nearest"]]), (entry, each)


def empty_default(api: ServedApi, alpha: str, token: str = "raw") -> None:
    """No approved alpha the key may read but `alpha`: the default reference set is empty, and each
    answer says why (never a set made of the ids' prefix)."""
    answer = api.get(f"/v1/alphas/{alpha}/analytics/contribution", token)
    assert answer.status_code == 400, answer.text
    (problem,) = answer.json()["error"]["details"]["parameters"]
    assert problem["name"] == "reference" and NO_APPROVED in problem["rule"], problem
    entry = correlation_check(api, alpha, token)
    assert (entry["verdict"], entry["reason"], entry["reference"]) == (
        "not_measurable",
        NO_APPROVED,
        "approved",
    )
    assert (entry["compared"], entry["of"], entry["nearest"]) == (0, 0, None), entry
    reference = api.ok(f"/v1/alphas/{alpha}/analytics/residual", token)["data"]["reference"]
    assert (reference["origin"], reference["alphas"], reference["empty_reason"]) == (
        "approved",
        [],
        NO_APPROVED,
    )


def test_1_before_any_decision_every_alpha_stands_never_and_the_default_is_empty(
    world: tuple[ServedApi, str], lake: Lake
) -> None:
    api, _ = world
    rows = catalogue(api)
    assert [(r["standing"], r["approved_since"]) for r in rows.values()] == [("never", None)] * len(ALPHAS)
    page = screened(api, standing="approved")
    assert (page["data"], page["pagination"]["total"]) == ([], 0)
    assert screened(api, standing="never")["pagination"]["total"] == len(ALPHAS)
    # production=true is the approved set: none yet, whatever the ids' prefix.
    assert screened(api, production="true")["pagination"]["total"] == 0
    assert screened(api, production="false")["pagination"]["total"] == len(ALPHAS)
    for alpha in ("Test_small_universe", "momentum_12_1"):
        empty_default(api, alpha)


def test_2_a_promotion_is_a_column_a_filter_and_a_new_etag(
    world: tuple[ServedApi, str], demo_lake: Path
) -> None:
    api, url = world
    before = {token: api.get("/v1/alphas", token).headers["etag"] for token in ("raw", "no_approved")}
    screen_before = api.get("/v1/analytics/screen", "raw").headers["etag"]
    for alpha, as_of in APPROVED.items():
        decide("promote", alpha, as_of, demo_lake, url)

    rows = catalogue(api)
    for alpha, row in rows.items():
        expected = ("approved", APPROVED[alpha]) if alpha in APPROVED else ("never", None)
        assert (row["standing"], row["approved_since"]) == expected, row
    # The next request shows the decision: the old ETag no longer matches, the new one does.
    changed = api.get("/v1/alphas", "raw", headers={"If-None-Match": before["raw"]})
    assert changed.status_code == 200 and changed.headers["etag"] != before["raw"]

    def holds() -> bool:
        # What a decision sets off (the checks it flips, recorded just after it) may move the ETag once
        # more on a busy machine; once that is recorded, the ETag a client was given matches.
        etag = api.get("/v1/alphas", "raw").headers["etag"]
        return api.get("/v1/alphas", "raw", headers={"If-None-Match": etag}).status_code == 304

    wait_until(holds, "the catalogue's new ETag to match once the decision is recorded")
    moved = api.get("/v1/analytics/screen", "raw", headers={"If-None-Match": screen_before})
    assert moved.status_code == 200 and moved.headers["etag"] != screen_before
    # A key that may read neither approved alpha: nothing it may read changed, so neither did its answer.
    assert (
        api.get("/v1/alphas", "no_approved", headers={"If-None-Match": before["no_approved"]}).status_code
        == 304
    )
    assert {r["standing"] for r in catalogue(api, "no_approved").values()} == {"never"}

    # The screener: the columns on every row, and the filter.
    everyone = screened(api)["data"]
    assert [
        (r["alpha_id"], r["standing"], r["approved_since"]) for r in everyone if r["standing"] != "never"
    ] == [(a, "approved", APPROVED[a]) for a in ORDER]
    approved = screened(api, standing="approved")
    assert [r["alpha_id"] for r in approved["data"]] == ORDER and approved["pagination"]["total"] == 2
    others = screened(api, standing="never,retired")
    assert {r["alpha_id"] for r in others["data"]} == set(ALPHAS) - set(APPROVED)
    both = api.ok("/v1/analytics/screen?standing=APPROVED&standing=never")
    assert both["pagination"]["total"] == len(ALPHAS)
    assert [r["alpha_id"] for r in screened(api, standing="approved", sort="-sessions")["data"]] == sorted(
        ORDER, key=lambda a: -next(r["sessions"] for r in everyone if r["alpha_id"] == a)
    )
    # A key that may not read one approved alpha: the other alone, counted alone.
    narrow = screened(api, "no_planted", standing="approved")
    assert [r["alpha_id"] for r in narrow["data"]] == [REVERSAL] and narrow["pagination"]["total"] == 1
    assert PLANTED not in json.dumps(narrow)


def test_3_a_bad_standing_is_a_400_naming_it(world: tuple[ServedApi, str]) -> None:
    api, _ = world
    for value in ("live", "approved,", "approved,maybe"):
        answer = api.get("/v1/analytics/screen", "raw", standing=value)
        assert answer.status_code == 400, (value, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "bad_request"
        assert [p["name"] for p in error["details"]["parameters"]] == ["standing"], error


def test_4_the_default_reference_set_is_the_approved_alphas_the_key_may_read(
    world: tuple[ServedApi, str], lake: Lake
) -> None:
    api, _ = world
    for alpha in ALPHAS:
        references = [a for a in ORDER if a != alpha]
        data = check_contribution(
            api, lake, alpha, references, (None, None), None, given=False, origin="approved"
        )
        assert data["reference"]["alpha_excluded"] == (alpha in APPROVED)
        check_correlation(correlation_check(api, alpha), lake, alpha, references, "approved")
    # A window and a weight: the same rule.
    check_contribution(
        api,
        lake,
        "momentum_12_1",
        ORDER,
        ("2021-06-01", "2022-01-31"),
        0.3,
        given=False,
        origin="approved",
    )


def test_5_a_key_gets_the_approved_alphas_it_may_read_else_an_empty_set(
    world: tuple[ServedApi, str], lake: Lake
) -> None:
    api, _ = world
    alpha = "momentum_12_1"
    # Reads one of the two approved alphas: that one alone, and no word of the other.
    data = check_contribution(
        api,
        lake,
        alpha,
        [REVERSAL],
        (None, None),
        None,
        "no_planted",
        given=False,
        origin="approved",
    )
    assert data["reference"]["count"] == 1
    entry = correlation_check(api, alpha, "no_planted")
    check_correlation(entry, lake, alpha, [REVERSAL], "approved")
    for answer in (data, entry):
        assert PLANTED not in json.dumps(answer)
    # Reads neither: an empty set, as if nothing were approved, and why.
    empty_default(api, alpha, "no_approved")
    # The reversal alpha itself, for the key reading no other approved alpha: the same.
    empty_default(api, REVERSAL, "no_planted")
    # production=true is the approved set the key may read.
    assert [r["alpha_id"] for r in screened(api, production="true")["data"]] == ORDER
    assert [r["alpha_id"] for r in screened(api, "no_planted", production="true")["data"]] == [REVERSAL]
    assert screened(api, "no_approved", production="true")["pagination"]["total"] == 0


def test_6_the_screeners_max_correlation_compares_with_the_approved_set(
    world: tuple[ServedApi, str], lake: Lake
) -> None:
    api, _ = world
    bound = 0.5
    for token, references, origin in (
        ("raw", ORDER, "approved"),
        ("no_planted", [REVERSAL], "approved"),
        ("no_approved", [], "approved"),  # an empty set: nothing is within a bound of it
    ):
        page = screened(api, token, max_correlation=bound)
        assert page["meta"]["reference"] == origin, page["meta"]
        readable = [r["alpha_id"] for r in screened(api, token)["data"]]
        kept = [
            a
            for a in readable
            if (found := largest_correlations(lake, a, references)) and max(found.values()) <= bound
        ]
        assert [r["alpha_id"] for r in page["data"]] == kept, (token, page["data"])
    # Naming the alpha compared with: no default set, no `reference`.
    assert "reference" not in screened(api, max_correlation=bound, correlated_to=PLANTED)["meta"]
    assert "reference" not in screened(api)["meta"]


def test_7_a_retirement_leaves_the_live_book(
    world: tuple[ServedApi, str], demo_lake: Path, lake: Lake
) -> None:
    api, url = world
    decide("retire", REVERSAL, "2022-02-28", demo_lake, url)
    row = catalogue(api)[REVERSAL]
    assert (row["standing"], row["approved_since"]) == ("retired", None)
    retired = screened(api, standing="retired")
    assert [(r["alpha_id"], r["standing"], r["approved_since"]) for r in retired["data"]] == [
        (REVERSAL, "retired", None)
    ]
    data = check_contribution(
        api,
        lake,
        "momentum_12_1",
        [PLANTED],
        (None, None),
        None,
        given=False,
        origin="approved",
    )
    assert data["reference"]["alphas"] == [PLANTED]
    # The key that may not read the one alpha still approved: an empty set again.
    empty_default(api, "momentum_12_1", "no_planted")
