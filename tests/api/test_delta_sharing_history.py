"""Delta Sharing's time travel (issue 78, item 6): a table read at a `version` or a `timestamp` is
the build the lake served then, as a read route's `as_of` reads it, from the builds the lake keeps:
its files are that build's exports (made from its own serving files), its version header that
build's; what the lake no longer keeps, or a moment before the table existed, or in the future, is a
400 naming the parameter. Over a lake of two builds of one alpha published a day apart."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from datasets import clock
from pipeline.publish import publish_seal
from serve.routes.sharing import PREFIX
from tests.pipeline.factory import write_factory_seal
from tests.support.exports import _client, local, made_exports

ALPHA = "Test_shared_history"
TABLE = f"{PREFIX}/shares/alpha_results/schemas/{ALPHA}/tables/positions_long_short"
HEADERS = {"Authorization": "Bearer plain"}
NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
FIRST, SECOND = NOW - dt.timedelta(days=2), NOW - dt.timedelta(days=1)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("shared_history")
    for n, (seed, at) in enumerate(((3, FIRST), (4, SECOND))):
        with clock.simulated(at):
            publish_seal(
                str(write_factory_seal(folder / f"v{n}", alpha_id=ALPHA, seed=seed)), str(folder / "lake")
            )
    return folder / "lake"


@pytest.fixture(scope="module")
def client(lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    folder = tmp_path_factory.mktemp("shared_history_server")
    # No `as_of` budget here (each test asks several moments at once); the budget's own test below.
    with _client(
        lake, folder, serving_cache_dir=str(folder / "cache"), as_of_per_second=0, as_of_per_minute=0
    ) as test_client:
        yield test_client


def builds(lake: Path) -> tuple[Path, Path]:
    """(the superseded build, the served one)."""
    pointer = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())
    folder = lake / "alphas" / ALPHA / "builds"
    return folder / pointer["previous_builds"][0], folder / pointer["build_id"]


def version_of(build: Path) -> int:
    built_at = json.loads((build / "alpha.json").read_text())["built_at"]
    return int(dt.datetime.fromisoformat(built_at).timestamp())


def query(client: TestClient[Any], body: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    response = client.post(f"{TABLE}/query", json=body, headers=HEADERS)
    assert response.status_code == 200, response.text
    return int(response.headers["delta-table-version"]), [
        json.loads(line) for line in response.text.splitlines()
    ]


def file_bytes(client: TestClient[Any], lines: list[dict[str, Any]]) -> bytes:
    fetched = client.get(local(lines[-1]["file"]["url"]))
    assert fetched.status_code == 200, fetched.text
    return fetched.content


def test_a_version_or_a_moment_reads_the_build_served_then(client: TestClient[Any], lake: Path) -> None:
    older, newer = builds(lake)
    old_bytes = made_exports(older)["exports/positions.long_short.parquet"]
    new_bytes = made_exports(newer)["exports/positions.long_short.parquet"]
    assert old_bytes != new_bytes and version_of(older) < version_of(newer)
    cases = [
        ({}, newer),
        ({"version": version_of(newer)}, newer),
        ({"version": version_of(older)}, older),
        ({"timestamp": (SECOND - dt.timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ")}, older),
        ({"timestamp": (SECOND + dt.timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ")}, newer),
    ]
    for body, build in cases:
        version, lines = query(client, body)
        assert version == version_of(build), body
        assert [next(iter(line)) for line in lines] == ["protocol", "metaData", "file"]
        assert f"/builds/{build.name}/exports/positions.long_short.parquet" in lines[-1]["file"]["url"], body
        assert file_bytes(client, lines) == (old_bytes if build == older else new_bytes), body
    metadata = client.get(f"{TABLE}/metadata", params={"version": str(version_of(older))}, headers=HEADERS)
    assert metadata.status_code == 200 and int(metadata.headers["delta-table-version"]) == version_of(older)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"version": 12345}, ("version", "version 12345 is not kept")),
        ({"timestamp": "2001-01-01T00:00:00Z"}, ("timestamp", "not kept")),
        ({"timestamp": "2999-01-01T00:00:00Z"}, ("timestamp", "in the future")),
        ({"version": -1}, ("version", "non-negative integer")),
        ({"timestamp": "0001-01-01T00:00:00+01:00"}, ("timestamp", "years 1 to 9999")),
        ({"timestamp": "9999-12-31T23:59:59-18:00"}, ("timestamp", "years 1 to 9999")),
    ],
)
def test_what_the_lake_does_not_keep_is_400_naming_the_parameter(
    client: TestClient[Any], body: dict[str, Any], words: tuple[str, ...]
) -> None:
    response = client.post(f"{TABLE}/query", json=body, headers=HEADERS)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["errorCode"] == "INVALID_PARAMETER_VALUE" and all(w in error["message"] for w in words), (
        error
    )
    params = {name: str(value) for name, value in body.items()}
    metadata = client.get(f"{TABLE}/metadata", params=params, headers=HEADERS)
    assert metadata.status_code == 400 and metadata.json()["errorCode"] == "INVALID_PARAMETER_VALUE"


def test_a_timestamp_before_the_table_existed_is_400(client: TestClient[Any]) -> None:
    before = (FIRST - dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    response = client.post(f"{TABLE}/query", json={"timestamp": before}, headers=HEADERS)
    assert response.status_code == 400 and "timestamp" in response.json()["message"], response.text


def test_each_distinct_moment_counts_against_the_keys_as_of_budget(lake: Path, tmp_path: Path) -> None:
    """A timestamp or an older version is resolved as a read route's `as_of` is, so it is counted
    the same way: past the key's budget, 429 in the protocol's shape with Retry-After."""
    # A budget of 2 a minute: 5 distinct moments cannot all pass, even across a minute's boundary.
    settings = {"as_of_per_second": 0, "as_of_per_minute": 2}
    with _client(lake, tmp_path, serving_cache_dir=str(tmp_path / "cache"), **settings) as budgeted:
        answers = [
            budgeted.post(
                f"{TABLE}/query",
                json={"timestamp": (FIRST + dt.timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:%SZ")},
                headers=HEADERS,
            )
            for n in range(1, 6)
        ]
    assert answers[0].status_code == 200 and {a.status_code for a in answers} == {200, 429}
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.json()["errorCode"] == "AS_OF_BUDGET_EXCEEDED" and "retry-after" in refused.headers


def test_a_build_collected_since_is_400_not_a_failure(lake: Path, tmp_path: Path) -> None:
    """The lake kept the generation of a moment but no longer the build it served (a decision's pin
    keeps a generation, not every build of it): the moment, and the build's version, are refused."""
    import shutil

    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    older, _ = builds(copy)
    version = version_of(older)
    shutil.rmtree(older)
    settings = {"as_of_per_second": 0, "as_of_per_minute": 0}
    with _client(copy, tmp_path, serving_cache_dir=str(tmp_path / "cache"), **settings) as collected:
        between = (SECOND - dt.timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ")
        for body in ({"timestamp": between}, {"version": version}):
            response = collected.post(f"{TABLE}/query", json=body, headers=HEADERS)
            assert response.status_code == 400, (body, response.text)
            assert response.json()["errorCode"] == "INVALID_PARAMETER_VALUE"
