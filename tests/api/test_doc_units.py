"""One unit per field: where `/analytics/_doc` describes a collection's row field that the row
Structs (`schemas.bodies.rows`, which the reference and the OpenAPI document read) declare too,
both give the same unit. They disagreed (issue 23): `annualised_return`, `volatility` and
`hit_rate` were "ratio" in one and "fraction (0.01 = 1%)" in the other, drawdown equities
"ratio" against "normalised equity", and dates had no unit."""

from __future__ import annotations

from schemas.bodies.base import field_schemas
from schemas.bodies.formats import X_UNIT
from schemas.vocabulary import VOCABULARY
from tests.api.conftest import Api
from tests.declared import ROWS

ROW_STRUCTS = {
    f"{route}[]": ROWS[f"analytics.{route}"] for route in ("correlation", "drawdowns", "rolling", "combine")
}


def test_analytics_doc_units_are_the_declared_units(api: Api) -> None:
    fields = api.ok("/v1/alphas/Test_planted_factor/analytics/_doc")["data"]["fields"]
    compared = 0
    for path, entry in fields.items():
        rows, _, name = path.partition(".")
        declared = field_schemas(ROW_STRUCTS[rows]).get(name) if rows in ROW_STRUCTS else None
        if declared is None:
            continue
        assert entry["unit"] == declared.get(X_UNIT), path
        compared += 1
    assert compared >= 20
    # A row column named as a term states the term's unit (schemas/vocabulary.py), as a stat entry does.
    assert fields["rolling[].annualised_return"]["unit"] == VOCABULARY["annualised_return"].unit == "fraction"
