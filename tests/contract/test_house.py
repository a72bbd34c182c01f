"""Where a figure's parts go (docs/development.md, "Adding a figure"), held where a test can see it:
every served answer of one alpha has its body in `schemas/bodies/<name>.py` (a collection's rows
in `schemas/bodies/rows.py`) and its computation's module in `analytics/`, and the enumerations the
tests and the server make are the declarations' own."""

from __future__ import annotations

import importlib
import typing

from analytics.reading import SERVED, Reading
from serve.endpoints import endpoints

BODY_MODULES = {"returns": "schemas.bodies.returns"}
"""Served names whose body module is named otherwise: none but these (the answer `returns` is a
book's calendar returns; its computation is `analytics/book_returns.py`, since `analytics/returns.py`
holds the return formulas every figure shares)."""
COMPUTATIONS = {"returns": "analytics.book_returns", "catalogue_bound": "analytics.rademacher"}


def test_each_served_answer_lives_where_the_rule_says() -> None:
    misplaced = []
    for name, served in SERVED.items():
        answered = typing.get_args(typing.get_type_hints(getattr(Reading, name))["return"])[0]
        declared = served.rows if served.rows is not None else answered
        expected = (
            "schemas.bodies.rows"
            if served.rows is not None
            else BODY_MODULES.get(name, f"schemas.bodies.{name}")
        )
        if declared.__module__ != expected:
            misplaced.append(
                f"{name}: body {declared.__module__}.{declared.__name__}, expected in {expected}"
            )
        computation = COMPUTATIONS.get(name, f"analytics.{name}")
        try:
            importlib.import_module(computation)
        except ModuleNotFoundError:
            misplaced.append(f"{name}: no computation module {computation}")
    assert not misplaced, misplaced


def test_every_served_answer_is_a_route_of_its_name() -> None:
    declared = endpoints()
    for name, served in SERVED.items():
        endpoint = declared[served.endpoint]
        assert endpoint.path == f"/v1/alphas/{{alpha:str}}/analytics/{name}"
        assert endpoint.summary == served.summary and endpoint.documented == served.documented
