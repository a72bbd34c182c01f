"""The parameters of an operation: each query parameter a route's `schemas.query` Struct
declares (`query_parameters`, with its Python name and column sets where it has them), and the
path parameters the server checks more narrowly than a string (`PATH_PARAMS`)."""

from __future__ import annotations

from typing import Any

from schemas import wire
from schemas.query import Param
from serve.endpoints import endpoint


def _param_schema(param: Param) -> dict[str, Any]:
    schema: dict[str, Any] = (
        {"type": "string", "format": "date"} if param.type == "date" else {"type": param.type}
    )
    if param.default is not None:
        schema["default"] = param.default
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    if param.enum is not None:
        schema["enum"] = list(param.enum)
    if param.pattern is not None:
        schema["pattern"] = param.pattern
    if param.max_length is not None:
        schema["maxLength"] = param.max_length
    return schema


PATH_PARAMS: dict[str, dict[str, Any]] = {
    "date": {"type": "string", "format": "date"},
    "symbol": {"type": "string", "enum": list(wire.BENCHMARK_SYMBOLS)},
}
"""Path parameters narrower than a string: a rebalance `{date}` is YYYY-MM-DD (else 400) and a
benchmark `{symbol}` one of the served symbols (else 400 with the list); others are any string."""


X_PYTHON_NAME = "x-python-name"
"""On a query parameter whose name is no Python identifier (`from`, `to`, `with`): the name the
declaration (and a generated client) uses for it."""
X_COLUMNS = "x-columns"
"""On a column-set parameter: the columns each of its values serves."""
COLUMN_SETS: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {
    ("signals.scores", "fields"): wire.SCORE_FIELD_SETS,
}


def query_parameters(endpoint_id: str) -> list[dict[str, Any]]:
    out = []
    for param in endpoint(endpoint_id).params:
        declared: dict[str, Any] = {
            "name": param.name,
            "in": "query",
            "required": param.required,
            "description": param.description,
            "schema": _param_schema(param),
        }
        if param.attr != param.name:
            declared[X_PYTHON_NAME] = param.attr
        columns = COLUMN_SETS.get((endpoint_id, param.name))
        if columns is not None:
            declared[X_COLUMNS] = {value: list(names) for value, names in columns.items()}
        out.append(declared)
    return out
