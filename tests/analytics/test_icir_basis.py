"""The ICIR is annualised wherever it is served (issue 46, item 3: one name, one meaning).

Checked independently of analytics/: the sealed ICIR is read from each build's
`metrics_stored` rows (the open table's, `tests.support.build_tables`) and its basis from `alpha.json`'s `metric_conventions` with pyarrow and
json, and annualised here (times sqrt(weeks_per_year) where the run sealed it per week). `/metrics`
`core.icir` (overall and each period), `rank_ic.raw.icir` and the screener's `icir` must equal
it, and `core.icir_per_week` the per-week value; none annualised twice.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tests.analytics.conftest import ALPHAS, Api
from tests.analytics.reference import Lake
from tests.support.build_tables import build_table, has_table


def sealed(lake: Lake, alpha: str) -> tuple[dict[tuple[str, str, str], float], bool, int]:
    """(scope, period, metric) -> the sealed value; whether the run sealed its ICIR annualised; its
    weeks per year."""
    build = lake.build(alpha)
    conventions = json.loads((build / "alpha.json").read_text()).get("metric_conventions") or {}
    values: dict[tuple[str, str, str], float] = {}
    if has_table(build, "metrics_stored"):
        for row in build_table(build, "metrics_stored").to_dicts():
            if row["value"] is not None and math.isfinite(row["value"]):
                values[(row["scope"], row["period"], row["metric"])] = row["value"]
    return (
        values,
        bool(conventions.get("icir_annualised", False)),
        int(conventions.get("weeks_per_year") or 52),
    )


def expect(value: dict[str, Any], wanted: float | None) -> None:
    if wanted is None:
        assert value["value"] is None, value
    else:
        assert value["value"] == pytest.approx(wanted, rel=1e-12), value


@pytest.mark.parametrize("alpha", ALPHAS)
def test_icir_annualised_everywhere(api: Api, lake: Lake, alpha: str) -> None:
    values, annualised, weeks = sealed(lake, alpha)
    scale = 1.0 if annualised else math.sqrt(weeks)

    def yearly(scope: str, period: str, metric: str) -> float | None:
        found = values.get((scope, period, metric))
        return None if found is None else found * scale

    data = api.ok(f"/v1/alphas/{alpha}/metrics", granularity="yearly")["data"]
    core = data["core"]
    assert core["icir"]["annualisation"] == "annualised"
    assert core["icir_per_week"]["annualisation"] == "per_period"
    expect(core["icir"], yearly("overall", "", "icir"))
    per_week = values.get(("overall", "", "icir"))
    expect(core["icir_per_week"], None if per_week is None else per_week * scale / math.sqrt(weeks))
    if data.get("rank_ic"):
        raw = data["rank_ic"]["raw"]["icir"]
        assert raw["annualisation"] == "annualised"
        expect(raw, yearly("overall", "", "raw_icir"))
    for period in data.get("periods") or []:
        expect(period["core"]["icir"], yearly("yearly", period["period"], "icir"))

    rows = [r for r in api.all_rows("/v1/analytics/screen") if r["alpha_id"] == alpha]
    assert len(rows) == 1
    wanted = yearly("overall", "", "icir")
    assert rows[0]["icir"] == (None if wanted is None else pytest.approx(wanted, rel=1e-12))


def test_a_per_week_run_is_in_the_corpus(lake: Lake) -> None:
    """The check above means something only if some run sealed its ICIR per week (value_composite_legacy)."""
    assert not sealed(lake, "value_composite_legacy")[1]
