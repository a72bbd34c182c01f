"""One unit per field: where `/analytics/_doc` describes a collection's row field that the field
declarations (`schemas.field_docs`, which the reference and the OpenAPI document read) describe
too, both give the same unit. They disagreed (issue 23): `annualised_return`, `volatility` and
`hit_rate` were "ratio" in one and "fraction (0.01 = 1%)" in the other, drawdown equities
"ratio" against "normalised equity", and dates had no unit."""

from __future__ import annotations

from schemas import field_docs
from serve.analytics.doc import ROW_CONTEXTS
from tests.api.conftest import Api


def test_analytics_doc_units_are_the_declared_units(api: Api) -> None:
    fields = api.ok("/v1/alphas/Test_planted_factor/analytics/_doc")["data"]["fields"]
    compared = 0
    for path, entry in fields.items():
        rows, _, name = path.partition(".")
        declared = field_docs.FIELD_DOCS.get((ROW_CONTEXTS.get(rows, ""), name))
        if declared is None:
            continue
        assert entry["unit"] == declared.unit, path
        compared += 1
    assert compared >= 20
    assert fields["rolling[].annualised_return"]["unit"] == field_docs.FRACTION
