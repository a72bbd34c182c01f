"""The research dashboard at `/ui`: one HTML page and its scripts, styles and vendored chart library.

The page is static: plain ES modules (serve/static/ui/, no build step) that ask the `/v1` API for
everything they show, with the API key the user pasted (kept in the tab's `sessionStorage`, sent as
`Authorization: Bearer`), so every allow-list, limit and field policy of that key applies unchanged.
What each panel shows and where its numbers come from: docs/dashboard.md.

Like `/docs` (serve/routes/developer.py) the page and its assets are public (no key is read),
unmetered and outside the endpoint registry and the OpenAPI document (no registry id,
`include_in_schema=False`); they follow the app's path rules (`/ui/` is 404 `not_found`, HEAD or
POST 404 `method_not_allowed`) and ignore a query string.

- `/ui`: the page, `Cache-Control: no-cache`, with a `Content-Security-Policy` that lets it load
  scripts, styles and data from this origin only (no inline script or style, `connect-src 'self'`).
- `/ui/assets/<version>/<file>`: the `.js` and `.css` files under serve/static/ui/, read once at
  start-up. `<version>` is a digest of their names and bytes, so any change to any file is a new
  URL and the assets carry a year-long `immutable` cache; any other version or file is 404
  `not_found`.
"""

from __future__ import annotations

import hashlib
import html
import json
from dataclasses import dataclass
from pathlib import Path

from litestar import Response, get
from litestar.enums import MediaType
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.types import ControllerRouterHandler

from schemas import wire
from schemas.bodies.figures import field_facts
from schemas.bodies.rows import ScreenRow
from schemas.vocabulary import as_javascript
from schemas.wire import MARKET_BENCHMARK
from serve.pages import ASSET_CACHE, DASHBOARD_PATH, PAGE_HEADERS, STATIC_DIR

UI_DIR = STATIC_DIR / "ui"
ASSET_PREFIX = f"{DASHBOARD_PATH}/assets"
PATHS: tuple[str, ...] = (DASHBOARD_PATH, f"{ASSET_PREFIX}/{{version:str}}/{{file_path:path}}")
"""The route paths this module mounts (none of them is in the OpenAPI document)."""

MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
"""The files served as assets, by suffix; anything else under serve/static/ui/ (the page template,
READMEs, licences) is not."""

PAGE_TEMPLATE = UI_DIR / "dashboard.html"
"""The page, with `{{assets}}` where the versioned asset URL goes and `{{benchmark}}` the market
benchmark's symbol."""

DASHBOARD_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""Scripts and styles from this origin only (the page has no inline script or style), data from
this origin only. The signed download URLs are followed by navigation, which this does not govern,
so an S3 lake's URLs still download."""

SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str


def load_assets(folder: Path) -> dict[str, Asset]:
    """Every `.js` and `.css` file under `folder`, by its `/`-separated path relative to it."""
    return {
        path.relative_to(folder).as_posix(): Asset(path.read_bytes(), MEDIA_TYPES[path.suffix])
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.suffix in MEDIA_TYPES
    }


def version_of(assets: dict[str, Asset]) -> str:
    """A digest of the assets' names and bytes: the path segment that makes their URLs immutable."""
    digest = hashlib.sha256()
    for name, asset in sorted(assets.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(asset.body).digest())
    return digest.hexdigest()[:16]


def screen_terms() -> dict[str, str]:
    """Each screener row field that holds a figure, with the term its declaration names
    (`ScreenRow`'s `doc(term=...)`): what the catalogue's columns are named by, so the page never
    chooses a field's term itself (`ic` is /metrics `core.ic`, `turnover` the sealed turnover)."""
    declared = {name: field_facts(ScreenRow, name).get("term") for name in wire.SCREEN_FIELDS}
    return {name: term for name, term in declared.items() if term is not None}


GENERATED = {
    "terms.js": as_javascript()
    + "\n// The screener row's fields and the term each declares (serve.routes.dashboard.screen_terms).\n"
    + f"export const SCREEN_TERMS = Object.freeze({json.dumps(screen_terms(), indent=2)});\n"
}
"""The assets made when the server starts, not read from a file: the vocabulary registry's terms,
which `vocabulary.js` re-exports to labels.js, and the terms the screener's row fields declare."""
ASSETS = load_assets(UI_DIR) | {
    name: Asset(text.encode(), MEDIA_TYPES[Path(name).suffix]) for name, text in GENERATED.items()
}
ASSET_VERSION = version_of(ASSETS)
ASSET_URL = f"{ASSET_PREFIX}/{ASSET_VERSION}"


def page(template: str = "", asset_url: str = ASSET_URL) -> bytes:
    """The HTML page with its asset URLs and the market benchmark (`market.js` reads it) filled in."""
    text = template or PAGE_TEMPLATE.read_text(encoding="utf-8")
    filled = text.replace("{{assets}}", html.escape(asset_url))
    return filled.replace("{{benchmark}}", html.escape(MARKET_BENCHMARK)).encode()


def routes() -> list[ControllerRouterHandler]:
    """`/ui` and its assets."""
    body = page()
    asset_headers = {"Cache-Control": ASSET_CACHE.to_header(), **SECURITY_HEADERS}

    @get(DASHBOARD_PATH, sync_to_thread=False, include_in_schema=False, name="dashboard_html")
    def dashboard_html() -> Response[bytes]:
        return Response(
            body,
            media_type=MediaType.HTML,
            headers={**PAGE_HEADERS, "Content-Security-Policy": DASHBOARD_CSP, **SECURITY_HEADERS},
        )

    @get(PATHS[1], sync_to_thread=False, include_in_schema=False, name="dashboard_asset")
    def dashboard_asset(version: FromPath[str], file_path: FromPath[str]) -> Response[bytes]:
        asset = ASSETS.get(file_path.lstrip("/")) if version == ASSET_VERSION else None
        if asset is None:
            raise NotFoundException()  # the app's 404 `not_found`, as for any unknown path
        return Response(asset.body, media_type=asset.media_type, headers=asset_headers)

    return [dashboard_html, dashboard_asset]
