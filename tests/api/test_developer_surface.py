"""`/` (landing page), `/docs` (Swagger UI over the served OpenAPI document) and their assets:
public, unmetered, outside the registry and the document, served from the app itself, and under
the same path rules as every other route. The browser rendering is tests/e2e/test_docs_ui.py."""

from __future__ import annotations

import json
import logging
import mimetypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from core.settings import Settings
from serve import pages
from serve.app import create_app, openapi_document
from serve.auth import is_public
from serve.endpoints import endpoints
from serve.envelope import json_bytes
from serve.routes import developer
from tests.support.pages import NeverCalled, parsed

ASSETS = pages.STATIC_DIR / "swagger-ui" / pages.SWAGGER_UI_VERSION


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    lake = tmp_path_factory.mktemp("empty_lake")  # the pages read no lake
    never = NeverCalled()
    app = create_app(Settings(lake=str(lake), environment="test"), authenticate=never, limiter=never)
    with TestClient(app=app) as test_client:
        yield test_client


DOCUMENT_BLOCK = '<script id="openapi-document" type="application/json">'


def embedded_spec(page: str) -> Any:
    """The document the Swagger UI page embeds as a JSON data block."""
    start = page.index(DOCUMENT_BLOCK) + len(DOCUMENT_BLOCK)
    return json.JSONDecoder().raw_decode(page, start)[0]


def scripts(page: str) -> list[str]:
    """Each `<script ...>` start tag of the page."""
    return [page[at : page.index(">", at) + 1] for at in range(len(page)) if page.startswith("<script", at)]


def test_landing_page_links_the_docs_the_document_and_health(client: TestClient[Any]) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    assert "default-src 'none'" in response.headers["content-security-policy"]
    page = parsed(response.text)
    anchors = [url for tag, url in page.urls if tag == "a"]
    assert anchors == ["/docs", "/openapi.json", "/v1/health", "/ui"]
    for url in anchors:
        assert client.get(url).status_code == 200, url
    text = " ".join("".join(page.text).split())
    assert "Alpha Research Results API" in text
    # The research dashboard (serve/routes/dashboard.py; tests/e2e/test_dashboard.py).
    assert pages.DASHBOARD_PATH == "/ui" and "not served yet" not in text


def test_docs_is_swagger_ui_over_the_served_document(client: TestClient[Any]) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    csp = response.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == directives["style-src"] == "'self'"  # nothing inline
    assert "<style" not in response.text and " style=" not in response.text.split(DOCUMENT_BLOCK)[0]
    # No inline script: each is a file of this origin, or the document as a JSON data block.
    assert scripts(response.text) == [
        f'<script src="{pages.SWAGGER_UI_URL}/swagger-ui-bundle.js">',
        f'<script src="{pages.SWAGGER_UI_URL}/swagger-ui-standalone-preset.js">',
        DOCUMENT_BLOCK,
        f'<script src="{pages.DOCS_INIT_PATH}">',
    ]
    assert embedded_spec(response.text) == client.get("/openapi.json").json()
    urls = [url for _, url in parsed(response.text).urls]
    assert sorted(urls) == sorted(
        [
            pages.DOCS_INIT_PATH,
            *(
                f"{pages.SWAGGER_UI_URL}/{name}"
                for name in (
                    "swagger-ui.css",
                    "swagger-ui-bundle.js",
                    "swagger-ui-standalone-preset.js",
                    "favicon-32x32.png",
                )
            ),
        ]
    )
    assert "://" not in response.text.split("<body>")[0]  # nothing in the head from another origin


def test_the_start_up_script_is_served_from_this_origin(client: TestClient[Any]) -> None:
    response = client.get(pages.DOCS_INIT_PATH)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"  # not versioned: revalidated
    assert response.content == (pages.STATIC_DIR / "docs" / "swagger-init.js").read_bytes()
    assert b"SwaggerUIBundle(" in response.content and b"openapi-document" in response.content


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        (pages.LANDING_PATH, "text/html; charset=utf-8"),
        (pages.DOCS_PATH, "text/html; charset=utf-8"),
        (pages.DOCS_INIT_PATH, "text/javascript; charset=utf-8"),
        (pages.LLMS_PATH, "text/markdown; charset=utf-8"),
        (pages.OPENAPI_PATH, "application/json"),
    ],
)
def test_each_page_names_its_type_and_charset_once(
    client: TestClient[Any], path: str, content_type: str
) -> None:
    """One Content-Type, its charset once (`/llms.txt` sent `charset=utf-8` twice: issue 48)."""
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers.get_list("content-type") == [content_type]


def test_docs_assets_are_the_vendored_files_with_a_year_long_immutable_cache(client: TestClient[Any]) -> None:
    for _, url in parsed(client.get("/docs").text).urls:
        if url == pages.DOCS_INIT_PATH:
            continue  # the project's own script (above), not a vendored file
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.headers["cache-control"] == "max-age=31536000, public, immutable"
        path = ASSETS / url.rsplit("/", 1)[1]
        assert response.content == path.read_bytes(), url
        expected_type = mimetypes.guess_type(path.name)[0]
        assert expected_type and response.headers["content-type"].startswith(expected_type), url


def test_the_vendored_release_carries_its_licence_and_version() -> None:
    package = json.loads((ASSETS / "package.json").read_text())
    assert (package["name"], package["version"]) == ("swagger-ui-dist", pages.SWAGGER_UI_VERSION)
    assert package["license"] == "Apache-2.0" and "Apache License" in (ASSETS / "LICENSE").read_text()
    for script in ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js"):
        assert (ASSETS / f"{script}.LICENSE.txt").exists()
    notes = (pages.STATIC_DIR / "swagger-ui" / "README.md").read_text()
    assert f"| Version | {pages.SWAGGER_UI_VERSION} " in notes
    assert [p.name for p in (pages.STATIC_DIR / "swagger-ui").iterdir() if p.is_dir()] == [
        pages.SWAGGER_UI_VERSION
    ]


def test_the_pages_read_no_key_and_are_not_metered(client: TestClient[Any]) -> None:
    # The app's authenticator and limiter fail the test if called (fixture).
    asset = f"{pages.SWAGGER_UI_URL}/swagger-ui.css"
    for path in ("/", "/docs", asset):
        for headers in ({}, {"Authorization": "Bearer not-a-key"}):
            response = client.get(path, headers=headers)
            assert response.status_code == 200, (path, headers)
            assert not any(name.lower().startswith("x-ratelimit") for name in response.headers)
    # Like /openapi.json, the pages ignore a query string (a key there is never read either).
    assert client.get("/docs", params={"api_key": "x"}).status_code == 200
    handlers = [h for r in client.app.routes if r.path in developer.PATHS for h in r.route_handlers]
    assert handlers and all(is_public(h) and "endpoint" not in h.opt for h in handlers)


@pytest.mark.parametrize(
    "path",
    [
        "/docs/",
        "/docs//",
        "/index.html",
        "/docs/index.html",
        "/%64ocs",  # an encoded unreserved character: a second spelling of /docs
        f"{pages.SWAGGER_UI_URL}/",
        f"{pages.SWAGGER_UI_URL}//swagger-ui.css",
        f"{pages.SWAGGER_UI_URL}/missing.js",
        f"{pages.STATIC_PREFIX}/../pyproject.toml",
        f"{pages.STATIC_PREFIX}/%2e%2e/serve/app.py",
        f"{pages.STATIC_PREFIX}",
    ],
)
def test_other_spellings_are_not_found(client: TestClient[Any], path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404, (path, response.text[:200])
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("path", ["/", "/docs", f"{pages.SWAGGER_UI_URL}/swagger-ui.css"])
@pytest.mark.parametrize("method", ["HEAD", "POST", "OPTIONS"])
def test_only_get_is_served(client: TestClient[Any], path: str, method: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 404
    if method != "HEAD":
        assert response.json()["error"]["code"] == "method_not_allowed"


def test_the_pages_are_outside_the_registry_and_the_document(client: TestClient[Any]) -> None:
    response = client.get("/openapi.json", headers={"Accept-Encoding": "identity"})
    # Byte for byte the document the app builds from the registry: the pages add nothing to it.
    assert response.content == json_bytes(openapi_document())
    served = {path for path in response.json()["paths"]}
    assert not served & {"/", "/docs"} and not any(p.startswith("/static") for p in served)
    assert not {e.path for e in endpoints().values()} & set(developer.PATHS)


def test_the_access_log_names_the_pages(client: TestClient[Any], caplog: pytest.LogCaptureFixture) -> None:
    paths = ["/", "/docs", f"{pages.SWAGGER_UI_URL}/swagger-ui.css"]
    with caplog.at_level(logging.INFO, logger="serve.access"):
        for path in paths:
            client.get(path)
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "serve.access"]
    assert [(line["path"], line["route"], line["status"], line["key_id"]) for line in lines] == [
        ("/", "landing_html", 200, None),
        ("/docs", "docs_html", 200, None),
        (paths[2], "static_asset", 200, None),
    ]


def test_the_assets_ship_with_the_package() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'serve = ["static/**/*"]' in pyproject


def test_a_document_text_cannot_break_out_of_the_page_script() -> None:
    from litestar import Litestar

    hostile = "ends </script><script>alert(1)</script> <!-- here"
    document = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1", "description": hostile},
        "paths": {},
    }
    app = Litestar(route_handlers=developer.routes())
    developer.publish(app, document, "")
    with TestClient(app=app) as client:
        page = client.get("/docs").text
    # The two asset scripts, the document's data block and the start-up script: none added.
    assert page.count("</script>") == 4
    assert embedded_spec(page) == document


def test_litestar_schema_router_serves_the_same_document_and_page(client: TestClient[Any]) -> None:
    document = client.get("/openapi.json").json()
    served = client.get("/schema/openapi.json")
    assert served.status_code == 200 and served.json() == document
    page = client.get("/schema")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == pages.DOCS_CSP
    assert page.headers["cache-control"] == "no-cache"
    assert embedded_spec(page.text) == document
    assert "cdn" not in page.text.lower() and pages.SWAGGER_UI_URL in page.text
    assert client.get("/schema/nothing.json").json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "path", ["/static/ui/app.js", "/static/ui/dashboard.html", "/static/swagger-ui/README.md"]
)
def test_only_the_vendored_release_folder_is_served_as_static(client: TestClient[Any], path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
