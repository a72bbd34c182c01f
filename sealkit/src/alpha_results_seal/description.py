"""The written description as the API serves it: every key present, unsealed values null."""

from __future__ import annotations

from typing import Any

from alpha_results_seal import arrow_schemas as S

# Nested objects list their keys; None marks a leaf. Lists are taken as sealed.
TEMPLATE: dict[str, Any] = {
    "algo_id": None,
    "alpha_id": None,
    "name": None,
    "tldr": None,
    "copyright": None,
    "classification": {"structure": None, "method": None, "frequency": None, "tags": None},
    "thesis": {
        "hypothesis": None,
        "mechanism": None,
        "who_loses": None,
        "economic_rationale": None,
        "falsification_criteria": None,
    },
    "signal": {
        "score_direction": None,
        "decision_timing": None,
        "core_math_framework": None,
        "signal_logic": None,
        "pseudocode": None,
        "validity_rules": None,
        "output_contract": None,
    },
    "parameters": None,
    "data_requirements": {
        "universe": None,
        "granularity": None,
        "lookback_bars": None,
        "warmup_bars": None,
        "adjustment": None,
        "fields": None,
        "history_requirement": None,
    },
    "source_papers": None,
}

# The spec gives these lists a defined empty value rather than null.
EMPTY_LISTS: dict[tuple[str, ...], list[Any]] = {
    ("source_papers",): [],
    ("thesis", "falsification_criteria"): [],
}


def _fill(template: dict[str, Any], sealed: Any, path: tuple[str, ...]) -> dict[str, Any]:
    sealed = sealed if isinstance(sealed, dict) else {}
    out: dict[str, Any] = {}
    for key, shape in template.items():
        value = sealed.get(key)
        if isinstance(shape, dict):
            out[key] = _fill(shape, value, (*path, key))
        else:
            out[key] = value
        if out[key] is None and (*path, key) in EMPTY_LISTS:
            out[key] = list(EMPTY_LISTS[(*path, key)])
    return out


def normalise_description(
    sealed: dict[str, Any], alpha_id: str, name: str | None, tldr: str | None
) -> dict[str, Any]:
    """`algo_id` and `alpha_id` are the collection name; name and tldr fall back to the manifest's.
    Nested objects always carry every key, null where unsealed, so clients never probe for keys."""
    document = _fill(TEMPLATE, sealed, ())
    document["algo_id"] = alpha_id
    document["alpha_id"] = alpha_id
    document["name"] = document["name"] or name or alpha_id
    document["tldr"] = document["tldr"] if document["tldr"] is not None else tldr
    return document


def description_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of description.json, from `TEMPLATE` and the bounds of
    sealkit/src/alpha_results_seal/arrow_schemas.py: the keys the API serves, the texts and lists with a bound of their own, and
    the citations' roles (`description.exactly_one_seed`). A key holds any value, served as sealed;
    a nested key's value that is not an object is served as an object of nulls, so the schema
    types none of them. (`source_papers` is typed: an array, or null; the check also takes any
    other value JSON calls false, such as `{}`, for none.)"""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://alpha-results.invalid/schemas/description.schema.json",
        "title": "description.json of an alpha seal",
        "description": "Generated from sealkit/src/alpha_results_seal/description.py by `alpha-results reference`. Every "
        "other text, key and list is bounded too, and no text or key may hold a bidirectional control "
        'character (docs/seal.md "Text"); a non-null tldr equals the manifest\'s.',
        "type": "object",
        **_properties(TEMPLATE, ""),
    }


def _properties(template: dict[str, Any], path: str) -> dict[str, Any]:
    properties = {}
    for key, shape in template.items():
        inner = f"{path}.{key}" if path else key
        properties[key] = _properties(shape, inner) if isinstance(shape, dict) else _leaf(inner)
    return {"properties": properties}


def _leaf(path: str) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    if path in S.TEXT_MAX_CHARS:
        schema["maxLength"] = S.TEXT_MAX_CHARS[path]
    if f"{path}[]" in S.TEXT_MAX_CHARS:
        schema["items"] = {"maxLength": S.TEXT_MAX_CHARS[f"{path}[]"]}
    if path in S.LIST_MAX_ITEMS:
        schema["maxItems"] = S.LIST_MAX_ITEMS[path]
    if path == "source_papers":
        seed = {"properties": {"role": {"const": "seed"}}, "required": ["role"]}
        schema |= {
            "type": ["array", "null"],
            "items": {
                "type": "object",
                "properties": {"role": {"enum": list(S.CITATION_ROLES)}},
                "required": ["role"],
            },
            "anyOf": [{"maxItems": 0}, {"contains": seed, "maxContains": 1}],
        }
    return schema
