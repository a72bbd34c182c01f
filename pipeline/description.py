"""The written description as the API serves it: every key present, unsealed values null."""

from __future__ import annotations

from typing import Any

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
