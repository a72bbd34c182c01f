"""Parquet exports (issue 11, item 5) on a local lake: every export equals the JSON pages of the
same build row for row under both field policies, the allow-lists refuse exports like every alpha
route, and a signed URL is refused once tampered with or expired."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from litestar.testing import TestClient

from core.settings import Settings
from datasets import layout
from pipeline import PIPELINE_VERSION
from schemas import exports
from schemas.query import LIMIT_MAX
from serve.app import create_app
from serve.signing.archives import HmacSigner
from tests.callers import authenticator_for
from tests.conftest import linked_copy
from tests.support.exports import (
    ALPHA,
    JSON_ROUTES,
    TEST_CALLERS,
    _client,
    _served_build,
    _signed,
    assert_export_equals_json,
    error,
    get,
    lake_before_exports,
    local,
    made_exports,
    ok,
)

TOKENS = ("raw", "plain")  # the two field policies


@pytest.fixture(scope="module")
def client(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    with _client(demo_lake, tmp_path_factory.mktemp("exports_key")) as test_client:
        yield test_client


def expected_exports(client: TestClient[Any], token: str, alpha: str) -> list[tuple[str, str | None]]:
    """(dataset, book) pairs a key should find: every kind the run wrote and every book /books
    shows it (equity curves per ledger book), and the benchmark."""
    books = ok(client, f"/v1/alphas/{alpha}/books", token, limit=LIMIT_MAX)["data"]
    pairs: set[tuple[str, str | None]] = {(row["kind"], row["book"]) for row in books}
    pairs |= {("equity-curve", book) for kind, book in list(pairs) if kind == "portfolio"}
    for dataset in ("decisions", "rebalances"):
        warnings = ok(client, JSON_ROUTES[dataset][0].format(alpha=alpha), token, limit=1)["meta"]
        if not any(w["code"] == "kind_missing" for w in warnings.get("warnings", [])):
            pairs.add((dataset, None))
    pairs.add(("benchmark", None))
    return sorted(pairs, key=lambda p: (exports.DATASET_NAMES.index(p[0]), p[1] or ""))


# -- equality ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("token", TOKENS)
def test_every_export_equals_the_json_pages(client: TestClient[Any], demo_lake: Path, token: str) -> None:
    alphas = [a["alpha_id"] for a in ok(client, "/v1/alphas", token, limit=LIMIT_MAX)["data"]]
    assert len(alphas) == 7
    checked = 0
    for alpha in alphas:
        listing = ok(client, f"/v1/alphas/{alpha}/exports", token, limit=LIMIT_MAX)
        rows = listing["data"]
        assert listing["meta"]["run"] == alpha and listing["meta"]["source"].startswith("lake:exports@")
        pairs = [(row["dataset"], row["book"]) for row in rows]
        assert sorted(
            pairs, key=lambda p: (exports.DATASET_NAMES.index(p[0]), p[1] or "")
        ) == expected_exports(client, token, alpha)
        for row in rows:
            data = assert_export_equals_json(client, token, alpha, row["dataset"], row["book"])
            assert {k: data[k] for k in ("filename", "rows", "size_bytes", "sha256", "columns", "build")} == {
                k: row[k] for k in ("filename", "rows", "size_bytes", "sha256", "columns", "build")
            }
            checked += 1
    assert checked > 100


def test_raw_columns_and_books_only_with_raw_access(client: TestClient[Any]) -> None:
    raw = ok(client, f"/v1/alphas/{ALPHA}/exports", "raw")["data"]
    plain = ok(client, f"/v1/alphas/{ALPHA}/exports", "plain")["data"]
    assert any(r["book"] and r["book"].startswith("raw_") for r in raw)
    assert not any(r["book"] and r["book"].startswith("raw_") for r in plain)
    assert not any(c.startswith("raw_") for r in plain for c in r["columns"])
    decisions = {r["dataset"]: r for r in raw}["decisions"]
    assert "raw_score" in decisions["columns"] and decisions["filename"] == f"{ALPHA}.decisions.raw.parquet"
    plain_decisions = {r["dataset"]: r for r in plain}["decisions"]
    assert plain_decisions["filename"] == f"{ALPHA}.decisions.parquet"
    # A raw_ book is refused to a plain key exactly as a book that does not exist.
    invisible = error(
        client, f"/v1/alphas/{ALPHA}/exports/positions", 400, "unknown_book", "plain", book="raw_long_short"
    )
    missing = error(
        client, f"/v1/alphas/{ALPHA}/exports/positions", 400, "unknown_book", "plain", book="no_such_book"
    )
    assert invisible["details"]["available"] == missing["details"]["available"]
    assert all(r["build"] == decisions["build"] for r in raw if r["dataset"] != "benchmark")


# -- parameters and missing data ------------------------------------------------------------------


def test_book_rules_follow_the_json_routes(client: TestClient[Any]) -> None:
    base = f"/v1/alphas/{ALPHA}/exports"
    default = ok(client, f"{base}/portfolio")["data"]
    assert default["filename"] == f"{ALPHA}.portfolio.long_short.parquet"
    trades = error(client, f"{base}/trades", 400, "bad_request")
    assert trades["details"]["parameters"][0]["name"] == "book" and "available" in trades["details"]
    assert (
        error(client, f"{base}/decisions", 400, "bad_request", book="long_short")["details"]["parameters"][0][
            "name"
        ]
        == "book"
    )
    assert error(client, f"{base}/decisions", 400, "bad_request", limit=5)["details"]["parameters"][0][
        "name"
    ] == ("limit")
    unknown = error(client, f"{base}/nothing", 404, "export_not_found")
    assert unknown["details"]["available"] == list(exports.DATASET_NAMES)


def test_a_dataset_the_run_never_wrote_has_no_export(client: TestClient[Any]) -> None:
    alpha = "Test_ledger_only"
    listing = {r["dataset"] for r in ok(client, f"/v1/alphas/{alpha}/exports")["data"]}
    scores = ok(client, f"/v1/alphas/{alpha}/scores")
    assert scores["meta"]["warnings"][0]["code"] == "kind_missing" and "decisions" not in listing
    details = error(client, f"/v1/alphas/{alpha}/exports/decisions", 404, "export_not_found")["details"]
    assert details["dataset"] == "decisions" and sorted(details["available"]) == sorted(
        listing - {"benchmark"}
    )


# -- allow-lists ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/alphas/{alpha}/exports", "/v1/alphas/{alpha}/exports/decisions"])
def test_exports_are_refused_like_every_alpha_route(client: TestClient[Any], path: str) -> None:
    for alpha in (ALPHA, "never_published"):
        # The alpha (a prefix the key does not hold) or the run not granted: 403 whether or not it exists.
        for token in ("testonly", "alphaonly"):
            refused = error(client, path.format(alpha=alpha), 403, "run_not_allowed", token)
            assert refused["details"] == {"alpha": alpha}
            scores = error(client, f"/v1/alphas/{alpha}/scores", 403, "run_not_allowed", token)
            assert scores["details"] == refused["details"]
    # The group not granted: the endpoint allow-list, before anything else.
    for token in ("metaonly", "no_exports"):
        refused = error(client, path.format(alpha=ALPHA), 403, "endpoint_not_allowed", token)
        assert refused["details"]["endpoint"].startswith("exports.")
    assert error(client, path.format(alpha="never_published"), 404, "run_not_found")["details"] == {
        "alpha": "never_published"
    }
    assert get(client, path.format(alpha="Test_planted_factor"), "testonly").status_code == 200


def test_an_export_needs_the_route_that_serves_its_rows(client: TestClient[Any]) -> None:
    listed = {r["dataset"] for r in ok(client, f"/v1/alphas/{ALPHA}/exports", "no_scores")["data"]}
    assert "decisions" not in listed and "rebalances" in listed
    refused = error(client, f"/v1/alphas/{ALPHA}/exports/decisions", 403, "endpoint_not_allowed", "no_scores")
    assert refused["details"] == {"endpoint": "signals.scores"}


# -- signed URLs ----------------------------------------------------------------------------------


def _with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()} | changes
    return f"{parts.path}?{urlencode(query)}"


def test_tampered_export_urls_are_refused(client: TestClient[Any]) -> None:
    url = _signed(client)
    parts = urlsplit(url)
    signature = parse_qs(parts.query)["signature"][0]
    flipped = "0" if signature[-1] != "0" else "1"
    tampered = [
        _with_query(url, signature=signature[:-1] + flipped),  # another signature
        _with_query(url, expires=str(int(parse_qs(parts.query)["expires"][0]) + 3600)),  # a later expiry
        # The plain variant's signature on the raw variant's path: no upgrade to raw columns.
        local(url).replace("/decisions.parquet?", "/decisions.raw.parquet?"),
        local(url).replace("/exports/decisions.parquet", "/exports/../alpha.json"),
        f"{parts.path}?expires={parse_qs(parts.query)['expires'][0]}",  # no signature
    ]
    for path in tampered:
        response = client.get(path)
        assert response.status_code in (403, 404), (path, response.text)
        code = response.json()["error"]["code"]
        assert code in ("download_url_invalid", "not_found"), (path, code)
        assert signature not in response.text
    assert client.get(local(url)).status_code == 200  # the URL as signed still works


def test_expired_export_urls_are_refused(client: TestClient[Any]) -> None:
    _signed(client)  # builds the app's signer
    signer = client.app.state["archive_signer"]
    assert isinstance(signer, HmacSigner)
    data = ok(client, f"/v1/alphas/{ALPHA}/exports/rebalances", "plain")["data"]
    object_path = urlsplit(data["url"]).path.removeprefix("/downloads/")
    expired = signer.sign(object_path, data["filename"], time.time() - 2 * 3600, "k" * 16)
    response = client.get(local(expired))
    assert response.status_code == 403 and response.json()["error"]["code"] == "download_url_expired"


def test_an_export_url_answers_at_most_the_fetch_limit(demo_lake: Path, tmp_path: Path) -> None:
    with _client(demo_lake, tmp_path, download_fetch_limit=2) as capped:
        url = local(_signed(capped, "rebalances"))
        assert [capped.get(url).status_code for _ in range(2)] == [200, 200]
        refused = capped.get(url)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "download_url_expired"
        assert refused.json()["error"]["details"] == {"fetch_limit": 2}


def test_exports_without_a_signing_key_are_not_configured(demo_lake: Path, tmp_path: Path) -> None:
    config = Settings(lake=str(demo_lake), environment="test", signing_key_file=str(tmp_path / "absent.key"))
    app = create_app(config, authenticate=authenticator_for(TEST_CALLERS), limiter=None)
    with TestClient(app=app) as bare:
        assert len(ok(bare, f"/v1/alphas/{ALPHA}/exports")["data"]) > 10  # listing needs no signer
        error(bare, f"/v1/alphas/{ALPHA}/exports/decisions", 503, "export_download_not_configured")


# -- the lake -------------------------------------------------------------------------------------


def test_a_folder_lake_records_its_exports_and_stores_none(demo_lake: Path) -> None:
    """Pipeline 2.13.0: an alpha build on a folder lake stores no export Parquet; its index records
    each export's size and SHA-256, and the bytes made from the build's serving tables are those."""
    build = _served_build(demo_lake, ALPHA)
    entry = json.loads((build / layout.ALPHA_JSON).read_text())
    assert entry["pipeline_version"] == PIPELINE_VERSION
    on_disk = {p.relative_to(build).as_posix() for p in (build / layout.EXPORTS_DIR).iterdir()}
    listed = {p for p in entry["files"] if p.startswith(layout.EXPORTS_DIR + "/")}
    assert on_disk == listed == {f"{layout.EXPORTS_DIR}/{layout.EXPORTS_INDEX}"}
    document = json.loads((build / layout.EXPORTS_DIR / layout.EXPORTS_INDEX).read_text())
    assert document["format"] == 2 and document["writer"].startswith("parquet-cpp-arrow version ")
    index = document["files"]
    assert len(index) > 10 and not any(f["stored"] for f in index)
    made = made_exports(build)  # each checked against its record there
    assert sorted(made) == sorted(f["path"] for f in index)


def test_an_export_is_made_once_per_machine_and_kept_by_its_hash(
    demo_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datasets import export_files

    made, calls = export_files.made_export, []

    def counted(*args: Any) -> bytes:
        calls.append(args[1])
        return made(*args)

    monkeypatch.setattr(export_files, "made_export", counted)
    with _client(demo_lake, tmp_path, serving_cache_dir=str(tmp_path / "cache")) as test_client:
        first = test_client.get(local(_signed(test_client, "decisions", token="raw")))
        again = test_client.get(local(_signed(test_client, "decisions", token="raw")))
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert calls == [f"{layout.EXPORTS_DIR}/decisions.raw.parquet"]  # the second was sent as kept
    (kept,) = (tmp_path / "cache" / ".derived" / ALPHA).glob("export-*/decisions.raw.parquet")
    assert kept.parent.name == f"export-{hashlib.sha256(first.content).hexdigest()[:32]}"


@pytest.mark.parametrize("broken", ["other bytes", "cannot make"])
def test_a_made_export_that_does_not_reproduce_is_503_and_the_build_stays_whole(
    demo_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    """Bytes this server makes otherwise than the publish did (its code or Parquet writer changed
    since), or an export it cannot make from the build, are never sent or kept: the download is 503
    `export_download_unavailable` naming the reason, not made again for a while, and every other
    route of the build still answers."""
    from datasets import export_files

    lake = tmp_path / "lake"
    linked_copy(demo_lake, lake)
    made, calls = export_files.made_export, []

    def other(*args: Any) -> bytes:
        calls.append(args[1])
        if broken == "cannot make":
            raise KeyError("a column this code does not know")
        return made(*args) + b"!"

    monkeypatch.setattr(export_files, "made_export", other)
    with _client(lake, tmp_path, serving_cache_dir=str(tmp_path / "cache")) as test_client:
        for _ in range(2):  # the second is refused without making it again
            refused = test_client.get(local(_signed(test_client, "rebalances")))
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "export_download_unavailable"
            assert refused.json()["error"]["details"] == {"reason": "export_not_reproduced"}
        assert calls == [f"{layout.EXPORTS_DIR}/rebalances.parquet"]
        assert not list((tmp_path / "cache").rglob("*.parquet"))  # nothing kept
        assert len(ok(test_client, f"/v1/alphas/{ALPHA}/scores")["data"]) == 100
        monkeypatch.setattr(export_files, "made_export", made)
        test_client.app.state["services"].reader.derived._failed.clear()  # as the minute passing does
        fetched = test_client.get(local(_signed(test_client, "rebalances")))
        assert (
            fetched.status_code == 200
            and fetched.content
            == made_exports(_served_build(lake, ALPHA))[f"{layout.EXPORTS_DIR}/rebalances.parquet"]
        )


def test_a_build_published_before_exports_answers_503_naming_the_rebuild(
    demo_lake: Path, tmp_path: Path
) -> None:
    lake = lake_before_exports(demo_lake, tmp_path, ALPHA)
    build = _served_build(lake, ALPHA)
    with _client(lake, tmp_path) as old:
        for path in (f"/v1/alphas/{ALPHA}/exports", f"/v1/alphas/{ALPHA}/exports/decisions"):
            refused = error(old, path, 503, "exports_not_built")
            assert refused["details"] == {"build": build.name, "pipeline_version": "2.0.0"}
            assert "alpha-results build" in refused["message"]
        assert len(ok(old, f"/v1/alphas/{ALPHA}/scores")["data"]) == 100  # the JSON routes still answer


def test_an_export_of_a_superseded_build_is_made_until_the_build_is_retired(
    demo_lake: Path, tmp_path: Path
) -> None:
    """A URL naming a build the alpha no longer serves (signed before a republish) downloads that
    build's export, made from its own serving tables, until retention deletes its folder: then 404."""
    lake = tmp_path / "lake"
    linked_copy(demo_lake, lake)
    pointer = json.loads((lake / "alphas" / ALPHA / "_current.json").read_text())
    older = lake / "alphas" / ALPHA / "builds" / pointer["previous_builds"][0]
    shutil.rmtree(older)
    shutil.copytree(demo_lake / older.relative_to(lake), older)  # a copy of its own: deleted below
    with _client(lake, tmp_path, serving_cache_dir=str(tmp_path / "cache")) as test_client:
        served_url = _signed(test_client, "rebalances")
        signer = test_client.app.state["archive_signer"]
        holder = parse_qs(urlsplit(served_url).query)["holder"][0]
        object_path = (
            urlsplit(served_url)
            .path.removeprefix("/downloads/")
            .replace(_served_build(lake, ALPHA).name, older.name)
        )
        url = local(signer.sign(object_path, f"{ALPHA}.rebalances.parquet", time.time(), holder))
        fetched = test_client.get(url)
        assert fetched.status_code == 200, fetched.text
        assert fetched.content == made_exports(older)[f"{layout.EXPORTS_DIR}/rebalances.parquet"]
        shutil.rmtree(older)  # as retention retires it
        gone = test_client.get(url)
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "export_not_found"
        assert gone.json()["error"]["details"] == {"filename": f"{ALPHA}.rebalances.parquet"}


# -- caching --------------------------------------------------------------------------------------


def test_the_listing_is_a_data_route_and_the_signed_url_is_never_a_304(client: TestClient[Any]) -> None:
    path = f"/v1/alphas/{ALPHA}/exports"
    first = get(client, path, "plain")
    tag = first.headers["etag"]
    again = client.get(path, headers={"Authorization": "Bearer plain", "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    # Keys that see other files never share a tag.
    for token in ("raw", "no_scores"):
        assert get(client, path, token).headers["etag"] != tag
    paged = get(client, path, "plain", limit=2)
    assert 'rel="next"' in paged.headers["link"]
    download = get(client, f"{path}/decisions", "plain")
    assert download.status_code == 200 and "etag" not in download.headers
