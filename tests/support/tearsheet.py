"""The printed tear sheet: a PDF's text by page, the pages cut off when printed, the width a printed
page shares on A4 and Letter, and the answers the decision summary is drawn from."""

from __future__ import annotations

import io
import unicodedata
from typing import Any

import pypdf

from tests.e2e.dashboard_site import Site

PRINTABLE_WIDTH_PX = 703  # 186 mm at 96 px an inch: the width A4 and Letter share inside 12 mm margins


def pdf_pages(pdf: bytes) -> list[str]:
    """Each page's text, its ligatures ("ﬁ") spelled out and its white space one space."""
    pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
    return [" ".join(unicodedata.normalize("NFKC", page.extract_text()).split()) for page in pages]


def nothing_cut_off(page: Any, scope: str) -> list[list[Any]]:
    """Pages whose content is taller or wider than the printed page, laid out as printed."""
    page.set_viewport_size({"width": PRINTABLE_WIDTH_PX, "height": 1000})
    page.emulate_media(media="print")
    over: list[list[Any]] = page.eval_on_selector_all(
        f"{scope} > .sheet-page",
        "ps => ps.filter(p => p.scrollHeight > p.clientHeight + 1 || p.scrollWidth > p.clientWidth + 1)"
        ".map(p => [p.dataset.topic, p.scrollHeight, p.clientHeight, p.scrollWidth, p.clientWidth])",
    )
    return over


def summary_of(site: Site, alpha: str, token: str) -> dict[str, Any]:
    """The answers the decision summary is drawn from, as the routes serve them."""

    def data(suffix: str, **params: Any) -> Any:
        response = site.api(f"/v1/alphas/{alpha}{suffix}", token, **params)
        assert response.status_code == 200, (suffix, response.text)
        return response.json()["data"]

    return {
        "promotions": data("/promotions"),
        "checks": data("/analytics/checks"),
        "live": data("/analytics/live"),
        "monitoring": data("/analytics/monitoring"),
        "capacity": data("/analytics/capacity"),
        "attribution": data("/analytics/attribution", top=10, drop=5),
        "costs": data("/analytics/costs"),
        "uncertainty": data("/analytics/uncertainty"),
        "overfitting": data("/analytics/overfitting"),
        "expectation": data("/analytics/expectation"),
        "regimes": data("/analytics/regimes"),
        "factors": data("/analytics/factors"),
        "residual": data("/analytics/residual"),
        "mmc": data("/analytics/mmc"),
    }
