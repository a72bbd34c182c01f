"""A notebook gets the API's numbers in-process (`analytics.figures.Figures`, docs/analytics.md "In a
notebook"): every analytics route and `/metrics`, on random windows, answers a `data` whose bytes
are exactly msgspec's encoding of the Struct (or the page's rows) the in-process call returns over
the same lake, for a key that may read everything."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from analytics.figures import Figures
from tests.analytics.conftest import ALPHAS, BOOKS, Api, Window, random_windows

RawData = dict[str, msgspec.Raw]


@pytest.fixture(scope="module")
def figures(demo_lake: Path) -> Iterator[Figures]:
    found = Figures.open(str(demo_lake))
    yield found
    found.reader.close()


def dates(window: Window) -> dict[str, dt.date | None]:
    return {"start": _date(window[0]), "end": _date(window[1])}


def _date(text: str | None) -> dt.date | None:
    return None if text is None else dt.date.fromisoformat(text)


def encoded(found: Any) -> bytes:
    rows = getattr(found, "rows", None)
    return msgspec.json.encode(found if rows is None else rows)


# route -> (in-process method, extra query parameters (served name, in-process name, values))
Case = tuple[str, Callable[[Figures], Callable[..., Any]], dict[str, Any]]
CASES: list[Case] = [
    ("metrics", lambda f: f.metrics, {"granularity": "yearly", "panel": True}),
    ("metrics", lambda f: f.metrics, {}),
    ("analytics/significance", lambda f: f.significance, {"sr_benchmark": 0.5}),
    ("analytics/significance", lambda f: f.significance, {"trials": 12}),
    *(("analytics/costs", (lambda f: f.costs), {"book": book}) for book in BOOKS),
    *(("analytics/risk", (lambda f: f.risk), {"book": book}) for book in BOOKS[:2]),
    *(
        ("analytics/correlation", (lambda f: f.correlation), {"basis": b})
        for b in ("returns", "ic", "scores")
    ),
    ("analytics/drawdowns", lambda f: f.drawdowns, {"book": "long_only"}),
    ("analytics/rolling", lambda f: f.rolling, {"window": "13"}),
]


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize(
    ("route", "method", "params"), CASES, ids=lambda c: c if isinstance(c, str) else None
)
def test_the_served_data_is_the_in_process_struct_byte_for_byte(
    api: Api,
    figures: Figures,
    alpha: str,
    route: str,
    method: Callable[[Figures], Any],
    params: dict[str, Any],
) -> None:
    for window in random_windows(f"{alpha}/{route}/{sorted(params.items())}", count=2):
        response = api.get(
            f"/v1/alphas/{alpha}/{route}", "raw", **{"from": window[0], "to": window[1]}, **params
        )
        if response.status_code != 200:
            # A window the route refuses (too few sessions) is refused in-process too, for the
            # same parameter.
            assert response.status_code == 400, response.text
            with pytest.raises(Exception, match="from|to"):
                method(figures)(alpha, **dates(window), **params)
            continue
        served = bytes(msgspec.json.decode(response.content, type=RawData)["data"])
        local = method(figures)(alpha, **dates(window), **params)
        assert encoded(local) == served, (alpha, route, window, params)
