"""The fetch cap of a signed download URL on the `/downloads/...` route: `download_fetch_limit`
answers with the file, the next is 403 `download_url_expired`; refused or failing fetches consume
nothing; a count that cannot be reached is a 503, never an uncounted file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from access import KeyStoreUnavailable
from core.settings import Settings
from tests.ops.conftest import AppFactory, assert_error, bearer
from tests.support.source_downloads import BASE, SOURCE, local_path, source_record


@pytest.fixture
def make_capped(make_client: AppFactory, lake_copy: Path, signing_key: Path) -> Any:
    def factory(limit: int) -> Any:
        return make_client(
            lake=str(lake_copy),
            signing_key_file=str(signing_key),
            public_base_url=BASE,
            download_fetch_limit=limit,
        )

    return factory


def signed_path(client: Any) -> str:
    response = client.get(SOURCE.format("Test_planted_factor"), headers=bearer("member"))
    return local_path(response.json()["data"]["url"])


def test_a_url_answers_its_limit_then_is_refused_without_echoing_the_signature(make_capped: Any) -> None:
    client = make_capped(3)
    path = signed_path(client)
    for _ in range(3):
        assert client.get(path).status_code == 200
    response = client.get(path)
    error = assert_error(response, 403, "download_url_expired")
    assert error["details"] == {"fetch_limit": 3}
    signature = path.rpartition("signature=")[2]
    assert signature not in response.text and path not in response.text


def test_refused_and_failing_fetches_consume_nothing(make_capped: Any, lake_copy: Path) -> None:
    client = make_capped(1)
    path = signed_path(client)
    tampered = path[:-1] + ("0" if path[-1] != "0" else "1")
    for _ in range(3):
        assert_error(client.get(tampered), 403, "download_url_invalid")
    record = source_record(lake_copy, "Test_planted_factor")
    assert record is not None
    archive = lake_copy / record["object_path"]
    aside = archive.with_suffix(".aside")
    archive.rename(aside)
    assert_error(client.get(path), 404, "source_object_missing")
    aside.rename(archive)
    assert client.get(path).status_code == 200  # the one fetch the limit allows
    assert_error(client.get(path), 403, "download_url_expired")


def test_an_unreachable_count_is_503_never_an_uncounted_file(
    make_capped: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_capped(5)
    path = signed_path(client)
    assert client.get(path).status_code == 200  # builds the app's counter
    store = client.app.state["download_fetches"].store

    def unreachable(sql: str, params: Any = ()) -> Any:
        raise KeyStoreUnavailable()

    monkeypatch.setattr(store, "_execute", unreachable)
    assert_error(client.get(path), 503, "source_download_unavailable")


def test_the_limit_setting_defaults_to_10_and_refuses_values_outside_1_to_100() -> None:
    assert Settings.from_env({}).download_fetch_limit == 10
    assert Settings.from_env({"ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT": "1"}).download_fetch_limit == 1
    assert Settings.from_env({"ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT": "100"}).download_fetch_limit == 100
    for bad in ("0", "-1", "101", "five", ""):
        with pytest.raises(ValueError, match="ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT"):
            Settings.from_env({"ALPHA_RESULTS_DOWNLOAD_FETCH_LIMIT": bad})
