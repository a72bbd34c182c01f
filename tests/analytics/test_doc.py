"""/analytics/_doc: the shape of /metrics/_doc (schema_version, endpoint, fields, warnings), the
same bytes for every alpha and call, and an entry for every dotted path of every served analytics
payload (walked over every alpha, book and a spread of parameters)."""

from __future__ import annotations

import pytest

from tests.analytics.conftest import ALPHAS, BOOKS, Api
from tests.support.doc_paths import doc_path, paths

TOP_LEVEL = {"schema_version", "endpoint", "fields", "warnings"}
FIELD_KEYS = {"meaning", "formula", "horizon", "granularity", "source", "unit", "annualisation"}
WARNINGS = {"kind_missing", "access_limited", "in_sample_weights", "negative_weights"}
WINDOWS = [{}, {"from": "2021-05-01", "to": "2021-09-30"}, {"from": "2021-01-08", "to": "2021-01-11"}]


def served_paths(api: Api, alpha: str) -> set[str]:
    base = f"/v1/alphas/{alpha}/analytics"
    found = {"significance", "correlation", "drawdowns", "rolling", "costs"}
    for window in WINDOWS:
        for params in ({}, {"sr_benchmark": 5.0, "trials": 3}):
            found |= paths(api.ok(f"{base}/significance", **window, **params)["data"], "significance")
        for basis in ("returns", "ic", "scores"):
            for row in api.ok(f"{base}/correlation", basis=basis, limit=100, **window)["data"]:
                found |= paths(row, "correlation[]")
        for book in BOOKS:
            for row in api.ok(f"{base}/drawdowns", book=book, limit=1000, **window)["data"]:
                found |= paths(row, "drawdowns[]")
            for weeks in (13, 52):
                for row in api.ok(f"{base}/rolling", book=book, window=weeks, limit=1000, **window)["data"]:
                    found |= paths(row, "rolling[]")
            found |= paths(api.ok(f"{base}/costs", book=book, **window)["data"], "costs")
    return found


def test_doc_is_identical_for_every_alpha_and_cacheable(api: Api) -> None:
    contents = set()
    for alpha in [*ALPHAS, ALPHAS[0]]:
        response = api.get(doc_path(alpha))
        assert response.status_code == 200, response.text
        assert "immutable" in response.headers["cache-control"]
        contents.add(response.content)
    assert len(contents) == 1
    # Another key allowed the alpha gets the same bytes too.
    assert api.get(doc_path("Test_planted_factor"), "testonly").content in contents


def test_live_states_its_own_horizon(api: Api) -> None:
    """/analytics/live takes no from/to: none of its entries says it is over the requested window; the
    in-sample part is the sessions up to the split, the out-of-sample part those after it."""
    fields = api.ok(doc_path("momentum_12_1"))["data"]["fields"]
    live = {path: entry for path, entry in fields.items() if path.startswith("live.")}
    assert live
    for path, entry in live.items():
        assert "requested window" not in entry["horizon"], (path, entry["horizon"])
        assert "live takes no from/to" in entry["horizon"], (path, entry["horizon"])
    assert "on or before split_date" in fields["live.in_sample.information_ratio"]["horizon"]
    assert "after split_date" in fields["live.out_of_sample.information_ratio"]["horizon"]


def test_doc_has_the_shape_of_the_metrics_doc(api: Api) -> None:
    doc = api.ok(doc_path("momentum_12_1"))["data"]
    assert set(doc) == TOP_LEVEL
    assert set(api.ok("/v1/alphas/momentum_12_1/metrics/_doc")["data"]) == TOP_LEVEL
    assert isinstance(doc["schema_version"], str) and doc["schema_version"]
    endpoint = doc["endpoint"]
    assert isinstance(endpoint, dict) and endpoint
    assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in endpoint.items()), endpoint
    assert set(doc["warnings"]) == WARNINGS
    assert all(isinstance(v, str) and v for v in doc["warnings"].values())
    fields = doc["fields"]
    assert fields
    for path, entry in fields.items():
        assert set(entry) == FIELD_KEYS, (path, sorted(entry))
        assert isinstance(entry["meaning"], str) and entry["meaning"], path
        assert isinstance(entry["horizon"], str) and entry["horizon"], path
        assert isinstance(entry["granularity"], str) and entry["granularity"], path
        assert entry["annualisation"] in ("annualised", "per_period", "not_annualisable"), path
        for key in ("formula", "source", "unit"):
            assert entry[key] is None or isinstance(entry[key], str), (path, key)


def test_doc_still_authorises_the_alpha(api: Api) -> None:
    forbidden = api.get(doc_path("momentum_12_1"), "testonly")
    assert forbidden.status_code == 403 and forbidden.json()["error"]["code"] == "run_not_allowed"
    assert api.get(doc_path("Test_no_such_alpha")).status_code == 404


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_served_path_is_documented(api: Api, alpha: str) -> None:
    fields = api.ok(doc_path(alpha))["data"]["fields"]
    served = served_paths(api, alpha)
    undocumented = sorted(served - set(fields))
    assert not undocumented, undocumented


def test_the_walk_reaches_the_nested_entries(api: Api) -> None:
    """Guards the walk: the deepest documented paths are served somewhere in the demo."""
    served = served_paths(api, "momentum_12_1")
    for path in (
        "significance.psr.value",
        "significance.dsr.trials.expected_max_sharpe",
        "significance.bootstrap.information_ratio.block_length",
        "significance.multiple_testing.holm.family_size",
        "significance.min_track_record.withheld_reason",
        "correlation[].alpha",
        "drawdowns[].recovery_date",
        "rolling[].return_hit_rate",
        "costs.turnover_by_decile.buckets[].decile_weekly_target_turnover",
        "costs.information_ratio.gross.periods_per_year",
    ):
        assert path in served, path


# Same names, different conventions (docs/analytics.md): each such field says its own.
CONVENTIONS = {
    "significance.sharpe": ("sqrt(252)", "not in excess of the risk-free rate"),
    "significance.bootstrap.information_ratio": ("sqrt(252)", "rolling's is weekly times sqrt(52)"),
    "significance.bootstrap.rebuilt_icir": ("annualised with the run's weeks_per_year", "/metrics core.icir"),
    "rolling[].information_ratio": ("sqrt(52)", "daily times sqrt(252)"),
    "rolling[].icir": ("annualised with the run's weeks_per_year", "`/metrics` `core.icir`"),
    "compare.figures.icir": ("annualised with the path alpha's weeks_per_year", "/metrics core.icir"),
    "costs.information_ratio": ("before", "not the /metrics sense"),
    "costs.information_ratio.gross": ("before execution costs", "sqrt(252)"),
    "costs.information_ratio.net": ("after execution costs", "sqrt(252)", "/metrics never narrows core"),
    # Not a name, a rule the docs once stated wrongly: an empty window is a 400, not a page of nulls.
    "risk": ("fewer than 2 sessions of the book (none included) is a 400 naming from and/or to",),
}
METRICS_CONVENTIONS = {
    "core.information_ratio": ("gross of the risk-free rate", "weekly times sqrt(52)", "before costs"),
    "core.icir": (
        "annualised for every run",
        "per-week ratio times sqrt(52)",
        "icir_per_week is the per-week ratio",
    ),
}


# Names other libraries use differently (docs/analytics.md): each such field names the library's convention.
LIBRARIES = {
    "significance.bootstrap.information_ratio": (
        "quantstats' sharpe(r)",
        "not quantstats' information_ratio",
    ),
    "significance.sharpe": ("quantstats' sharpe(r)", "empyrical's sharpe_ratio"),
    "costs.information_ratio.net": ("quantstats' sharpe(r)", "not quantstats' information_ratio"),
    "compare.figures.information_ratio": ("quantstats' sharpe(r)", "not quantstats' information_ratio"),
    "compare.figures.annualised_return": (
        "arithmetic",
        "empyrical's annual_return and quantstats' cagr compound",
    ),
    "rolling[].information_ratio": ("quantstats' sharpe(r, periods=52)",),
    "rolling[].annualised_return": ("empyrical's annual_return",),
    "risk.var_95": ("historical", "quantstats' value_at_risk (var) is parametric"),
    "risk.cvar_95": ("empyrical's conditional_value_at_risk", "quantstats' cvar"),
    "risk.benchmark.alpha": ("arithmetic", "empyrical's alpha(r, b) compounds"),
    "risk.max_drawdown_pct": ("negative fraction of the peak",),
    "risk.best_week": ("quantstats' best/worst by week", "ISO week number"),
    "risk.worst_week": ("quantstats' best/worst by week", "ISO week number"),
    "risk.best_month": ("aggregate='ME'", "pools each calendar month across years"),
    "risk.worst_month": ("aggregate='ME'", "pools each calendar month across years"),
    "combine.meta.figures.information_ratio": ("quantstats' sharpe(r)",),
}
METRICS_LIBRARIES = {
    "core.information_ratio": ("quantstats' sharpe(r)", "not quantstats' information_ratio"),
    "core.excess_sharpe": ("quantstats' sharpe(r, rf)", "not empyrical's excess_sharpe"),
    "core.max_drawdown": ("equity units", "negative fraction of the peak"),
    "core.max_drawdown_pct": ("negative fraction of the peak",),
}


def test_fields_named_as_in_other_libraries_state_how_they_differ(api: Api) -> None:
    fields = api.ok(doc_path("momentum_12_1"))["data"]["fields"]
    metrics = api.ok("/v1/alphas/momentum_12_1/metrics/_doc")["data"]["fields"]
    for documented, conventions in ((fields, LIBRARIES), (metrics, METRICS_LIBRARIES)):
        for path, phrases in conventions.items():
            meaning = documented[path]["meaning"]
            for phrase in phrases:
                assert phrase in meaning, (path, phrase, meaning)


def test_fields_sharing_a_name_state_their_own_convention(api: Api) -> None:
    fields = api.ok(doc_path("momentum_12_1"))["data"]["fields"]
    metrics = api.ok("/v1/alphas/momentum_12_1/metrics/_doc")["data"]["fields"]
    for documented, conventions in ((fields, CONVENTIONS), (metrics, METRICS_CONVENTIONS)):
        for path, phrases in conventions.items():
            meaning = documented[path]["meaning"]
            for phrase in phrases:
                assert phrase in meaning, (path, phrase, meaning)
