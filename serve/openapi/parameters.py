"""The parameters of an operation: each query parameter a route's `schemas.query` Struct
declares (`query_parameters`, with its Python name and column sets where it has them), and its
path parameters, typed by the same Struct where it types them (`path_parameter`)."""

from __future__ import annotations

from typing import Any

from schemas import wire
from schemas.query import Param, path_params_of
from serve.endpoints import endpoint


def param_schema(param: Param) -> dict[str, Any]:
    """The JSON Schema of one declared parameter (the OpenAPI document's and the MCP tools' input schemas)."""
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


def path_parameter(endpoint_id: str, declared: dict[str, Any]) -> dict[str, Any]:
    """A path parameter Litestar declared from the route's template, typed and described by the
    route's query Struct where it types it (a rebalance `{date}`, a benchmark `{symbol}`), else
    any string."""
    typed = {param.name: param for param in path_params_of(endpoint(endpoint_id).query)}
    param = typed.get(declared["name"])
    if param is None:
        return {**declared, "schema": {"type": "string"}}
    return {**declared, "description": param.description, "schema": param_schema(param)}


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
            "schema": param_schema(param),
        }
        if param.attr != param.name:
            declared[X_PYTHON_NAME] = param.attr
        columns = COLUMN_SETS.get((endpoint_id, param.name))
        if columns is not None:
            declared[X_COLUMNS] = {value: list(names) for value, names in columns.items()}
        out.append(declared)
    return out
