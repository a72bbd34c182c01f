"""A notebook gets the API's numbers in-process (`analytics.figures.Figures`, docs/analytics.md "In a
notebook"): every analytics route and `/metrics`, on random windows (and random sets of 2 to 4
alphas, every weighting of combine and contribution, checks against the built-in policy and an
operator's policy file, screens with filters and sorts), answers a `data` whose bytes are exactly
msgspec's encoding of the Struct (or the page's rows) the in-process call returns over the same
lake, for a key that may read everything; a 400 is the `BadParameters` the in-process call raises,
naming the same parameters with the same rules. The documented examples run, and the figures they
compute from a plain returns frame equal the lake-backed ones."""

from __future__ import annotations

import datetime as dt
import inspect
import random
import re
from collections.abc import Callable, Iterator
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import Any

import msgspec
import pytest

from analytics.entries import Warnings
from analytics.errors import BadParameters
from analytics.figures import ASKED, Figures
from analytics.policy import default_policy, load_policy
from pipeline.operator_decisions import standings_of
from records.store import open_records
from schemas import choices
from schemas.bodies.envelope import EnvelopeMeta
from schemas.registry import BY_ID
from tests.analytics.conftest import (
    ALPHAS,
    BOOKS,
    CALLERS,
    Api,
    Window,
    random_windows,
    serving,
    window_params,
)
from tests.conftest import records_of

RawData = dict[str, msgspec.Raw]


@pytest.fixture(scope="module")
def figures(demo_lake: Path, demo_records: Path) -> Iterator[Figures]:
    """A notebook's `Figures` with the standings the server reads (the seal's approvals)."""
    records = open_records(f"sqlite:///{demo_records}", create=False)
    try:
        standings = standings_of(records)
    finally:
        records.close()
    found = Figures.open(str(demo_lake), standings)
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
    ("analytics/returns", lambda f: f.returns, {"book": "long_only"}),
    *(
        ("analytics/correlation", (lambda f: f.correlation), {"basis": b})
        for b in ("returns", "ic", "scores")
    ),
    ("analytics/drawdowns", lambda f: f.drawdowns, {"book": "long_only"}),
    ("analytics/rolling", lambda f: f.rolling, {"window": "13"}),
    *(
        ("analytics/attribution", (lambda f: f.attribution), {"book": book, "top": 3, "drop": 2})
        for book in ("long_short", "raw_long_only")
    ),
    *(("analytics/capacity", (lambda f: f.capacity), {"book": book}) for book in BOOKS[:2]),
    ("analytics/capacity", lambda f: f.capacity, {"book": "raw_long_short", "capital": 5e7}),
    *(
        ("analytics/factors", (lambda f: f.factors), {"book": book})
        for book in ("long_short", "raw_long_only")
    ),
    ("analytics/quantiles", lambda f: f.quantiles, {}),
    ("analytics/quantiles", lambda f: f.quantiles, {"score": "raw_score", "quantiles": 10}),
    ("analytics/residual", lambda f: f.residual, {"book": "long_only"}),
    ("analytics/residual", lambda f: f.residual, {}),
    ("analytics/regimes", lambda f: f.regimes, {}),
    ("analytics/regimes", lambda f: f.regimes, {"book": "long_only", "regime": "volatility:high"}),
    ("analytics/costs", lambda f: f.costs, {"book": "long_short", "regime": "trend:up"}),
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


# -- the routes over a set, the catalogue or the policy ---------------------------------------------


class Answer(msgspec.Struct):
    data: msgspec.Raw
    meta: dict[str, msgspec.Raw]


def problems(response: Any) -> dict[str, str]:
    return {p["name"]: p["rule"] for p in response.json()["error"]["details"]["parameters"]}


def same_answer(
    response: Any, call: Callable[[], Any], warnings: Warnings, data: Callable[[Any], Any] = lambda f: f
) -> tuple[Any, dict[str, msgspec.Raw] | None]:
    """A 200's `data` is the in-process answer (`data` of it) encoded, byte for byte, and the
    `warnings` the computation raised are the first of `meta.warnings`; a 400 is the
    `BadParameters` the in-process call raises, with the same parameters and rules. Returns the
    in-process answer and the served meta (None, None for a 400)."""
    if response.status_code != 200:
        assert response.status_code == 400, response.text
        with pytest.raises(BadParameters) as raised:
            call()
        assert raised.value.problems == problems(response)
        return None, None
    served = msgspec.json.decode(response.content, type=Answer)
    found = call()
    assert msgspec.json.encode(data(found)) == bytes(served.data)
    said = msgspec.json.decode(served.meta.get("warnings", b"[]"))
    assert said[: len(warnings.entries)] == msgspec.to_builtins(warnings.entries)
    return found, served.meta


def in_window(rng: random.Random, seed: str) -> tuple[Window, dict[str, dt.date | None]]:
    window = rng.choice(random_windows(seed, count=3))
    return window, dates(window)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_compare_in_process(api: Api, figures: Figures, alpha: str) -> None:
    rng = random.Random(f"compare-{alpha}")
    for window in random_windows(f"compare-{alpha}", count=2):
        other = rng.choice([a for a in ALPHAS if a != alpha])
        params = {"book": rng.choice(BOOKS), "window": rng.choice(choices.COMPARE_WINDOWS)}
        query = {"with": other, **params, **window_params(window)}
        response = api.get(f"/v1/alphas/{alpha}/analytics/compare", "raw", **query)
        w = Warnings()
        same_answer(response, partial(figures.compare, alpha, other, w, **dates(window), **params), w)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_checks_in_process(api: Api, figures: Figures, alpha: str) -> None:
    rng = random.Random(f"checks-{alpha}")
    policy = default_policy().thresholds
    for window in random_windows(f"checks-{alpha}", count=2):
        params: dict[str, Any] = {"book": rng.choice(BOOKS)}
        if rng.random() < 0.5:  # tightened, or (a third of the time) loosened: a 400 both ways
            params["min_information_ratio"] = policy["information_ratio"]["min"] + rng.choice(
                (0.25, 1.0, -0.5)
            )
            params["max_weight"] = policy["max_weight"]["max"] * rng.choice((0.5, 0.9))
        response = api.get(f"/v1/alphas/{alpha}/analytics/checks", "raw", **window_params(window), **params)
        w = Warnings()
        same_answer(response, partial(figures.checks, alpha, None, w, **dates(window), **params), w)


POLICY = """
[checks.information_ratio]
min = 0.25

[checks.turnover]
min = 1.0
max = 300.0

[checks.production_correlation]
max = 0.4
"""


def test_checks_against_the_operators_policy_file(demo_lake: Path, figures: Figures, tmp_path: Path) -> None:
    """The policy the server reads from `checks_policy_file` is the one `checks` reads from the same
    file: the answers are the same bytes (and differ from the defaults' answers)."""
    path = tmp_path / "checks.toml"
    path.write_text(POLICY)
    with serving(demo_lake, CALLERS, checks_policy_file=str(path)) as api:
        for alpha in ("momentum_12_1", "Test_planted_factor"):
            response = api.get(f"/v1/alphas/{alpha}/analytics/checks", "raw")
            w = Warnings()
            found, _ = same_answer(response, partial(figures.checks, alpha, path, w), w)
            assert found.policy.origin == "operator"
            assert found != figures.checks(alpha)
            assert found == figures.checks(alpha, load_policy(str(path)))


def test_combine_in_process(api: Api, figures: Figures) -> None:
    """Every weighting on random sets of 2 to 4 alphas and random windows; given weights as a
    sequence and as a mapping, max_ir with and without a shrinkage, the fitted weightings with and
    without fit_to; a random page of the rows, and every `meta` key of the combination."""
    rng = random.Random("combine-in-process")
    for weighting in choices.WEIGHTINGS:
        for round_ in range(4):
            ids = rng.sample(ALPHAS, rng.randint(2, 4))
            window, local = in_window(rng, f"combine-{weighting}-{round_}")
            served: dict[str, Any] = {
                "alphas": ",".join(ids),
                "weighting": weighting,
                **window_params(window),
            }
            options: dict[str, Any] = {"weighting": weighting, **local}
            weights: Any = None
            if weighting == "given":
                texts = [f"{rng.uniform(-0.5, 1.0):.6f}" for _ in ids]
                served["weights"] = ",".join(texts)
                values = [float(t) for t in texts]
                weights = dict(zip(ids, values, strict=True)) if round_ % 2 else tuple(values)
            if weighting == "max_ir" and round_ % 2:
                served["shrinkage"] = options["shrinkage"] = rng.choice((0.0, 0.3, 1.0))
            if weighting in choices.FITTED_WEIGHTINGS and round_ >= 2:
                fit_to = dt.date(2021, rng.randint(4, 12), rng.randint(1, 28))
                served["fit_to"], options["fit_to"] = fit_to.isoformat(), fit_to
            page: dict[str, Any] = {"limit": rng.choice((5, 50, 500)), "offset": rng.choice((0, 7))}
            response = api.get("/v1/analytics/combine", "raw", **served, **page)
            w = Warnings()
            rows = methodcaller("rows", page["limit"], page["offset"])
            found, meta = same_answer(response, partial(figures.combine, ids, weights, w, **options), w, rows)
            if found is not None:  # the combination's own `meta` keys, each as served
                own = msgspec.to_builtins(found.meta(EnvelopeMeta(request_id="", generated_at="")))
                assert own.keys() - {"request_id", "generated_at"} >= {"alphas", "weights", "figures"}
                for key, value in own.items():
                    if key not in ("request_id", "generated_at"):
                        assert msgspec.json.encode(value) == bytes(meta[key]), key


def test_contribution_in_process(api: Api, figures: Figures) -> None:
    """Each alpha against the production set and against random reference sets (the alpha itself
    sometimes among them), as it grew and combined by each weighting, at a random or the optimal
    weight."""
    rng = random.Random("contribution-in-process")
    for alpha in ALPHAS:
        for weighting in (None, *choices.WEIGHTINGS):
            window, local = in_window(rng, f"contribution-{alpha}-{weighting}")
            reference = None
            if weighting is not None or rng.random() < 0.7:
                reference = rng.sample(ALPHAS, rng.randint(2, 4))
            served: dict[str, Any] = {**window_params(window)}
            options: dict[str, Any] = {**local}
            if reference is not None:
                served["reference"] = ",".join(reference)
            if weighting is not None:
                served["weighting"] = options["weighting"] = weighting
            weights = None
            if weighting == "given":
                assert reference is not None
                texts = [f"{rng.uniform(0.1, 1.0):.4f}" for _ in reference]
                served["weights"] = ",".join(texts)
                weights = tuple(float(t) for t in texts)
            if rng.random() < 0.5:
                served["weight"] = options["weight"] = round(rng.uniform(0, 1), 3)
            response = api.get(f"/v1/alphas/{alpha}/analytics/contribution", "raw", **served)
            w = Warnings()
            call = partial(figures.contribution, alpha, reference, weights, w, **options)
            same_answer(response, call, w)


PAIR = ("momentum_12_1", "value_composite_legacy")
BAD_SETS: list[tuple[tuple[str, ...], dict[str, Any], dict[str, Any]]] = [
    # (the set, the query served, the in-process arguments): the same parameters broken alike
    (PAIR[:1], {}, {}),
    (PAIR[:1] * 2, {}, {}),
    (PAIR, {"weighting": "given", "weights": "1"}, {"weighting": "given", "weights": (1.0,)}),
    (PAIR, {"weighting": "given", "weights": "0,-0"}, {"weighting": "given", "weights": (0.0, -0.0)}),
    (
        PAIR,
        {"weighting": "given", "weights": "0.5,-12"},
        {"weighting": "given", "weights": {PAIR[0]: 0.5, PAIR[1]: -12.0}},
    ),
    (PAIR, {"weighting": "given"}, {"weighting": "given"}),
    (PAIR, {"weights": "1,1", "shrinkage": 0.5}, {"weights": (1.0, 1.0), "shrinkage": 0.5}),
    (PAIR, {"fit_to": "2021-06-30"}, {"fit_to": dt.date(2021, 6, 30)}),
    (
        PAIR,
        {"weighting": "max_ir", "fit_to": "2021-01-20"},
        {"weighting": "max_ir", "fit_to": dt.date(2021, 1, 20)},
    ),
    (PAIR, {"from": "2022-02-20"}, {"start": dt.date(2022, 2, 20)}),
]


@pytest.mark.parametrize(("alphas", "served", "local"), BAD_SETS)
def test_a_broken_set_is_refused_alike(
    api: Api, figures: Figures, alphas: tuple[str, ...], served: dict[str, Any], local: dict[str, Any]
) -> None:
    """Combine's and contribution's rules of the set and its weighting are one (`analytics.combined
    .weighting_of`): the BadParameters of an in-process call name what the route's 400 names (a
    contribution may take a reference of one alpha: that one is answered alike)."""
    combine = api.get("/v1/analytics/combine", "raw", alphas=",".join(alphas), **served)
    assert combine.status_code == 400, combine.text
    same_answer(combine, partial(figures.combine, alphas, **local), Warnings())
    path = "/v1/alphas/Test_planted_factor/analytics/contribution"
    contribution = api.get(path, "raw", reference=",".join(alphas), **served)
    same_answer(
        contribution, partial(figures.contribution, "Test_planted_factor", alphas, **local), Warnings()
    )


SCREENS: list[dict[str, Any]] = [
    {},
    {"sort": "-information_ratio", "limit": 3},
    {"production": True, "sort": "alpha_id"},
    {"production": False, "min_sessions": 100, "sort": "-icir", "offset": 1},
    {"tag": ("momentum", "price")},
    {"search": "test", "complete_only": True, "sort": "-max_drawdown_pct"},
    {"ic_reproduces": True, "min_information_ratio": -1.0, "max_turnover": 1000.0, "sort": "turnover"},
    {"max_correlation": 0.5, "sort": "alpha_id"},
    {"max_correlation": 0.9, "correlated_to": "momentum_12_1", "correlation_basis": "ic", "limit": 2},
    {"max_correlation": 0.3, "correlated_to": "Test_planted_factor", "offset": 1},
]


@pytest.mark.parametrize("params", SCREENS, ids=lambda p: ",".join(p) or "all")
def test_screen_in_process(api: Api, figures: Figures, params: dict[str, Any]) -> None:
    served: dict[str, Any] = {
        k: ",".join(v) if isinstance(v, tuple) else str(v).lower() if isinstance(v, bool) else v
        for k, v in params.items()
    }
    response = api.get("/v1/analytics/screen", "raw", **served)
    found, _ = same_answer(response, partial(figures.screen, **params), Warnings(), lambda page: page.rows)
    assert found is not None and found.rows, params  # each screen keeps some alpha


# -- the documented examples ----------------------------------------------------------------------

DOC = Path(__file__).parents[2] / "docs" / "analytics.md"
CLAIM = re.compile(r"^(?P<value>[^#\n]+?)\s+# == (?P<expected>\S+)", re.M)


def notebook_examples() -> list[str]:
    """The Python blocks of docs/analytics.md "In a notebook", over the demo lake's path."""
    section = DOC.read_text().split("\n## In a notebook\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def run_example(code: str, demo_lake: Path) -> dict[str, Any]:
    """The example over the demo lake and its records (`tests.conftest.records_of`)."""
    names: dict[str, Any] = {}
    code = code.replace('"var/lake"', repr(str(demo_lake)))
    code = code.replace('"sqlite:///var/keys.sqlite3"', repr(f"sqlite:///{records_of(demo_lake)}"))
    exec(compile(code, str(DOC), "exec"), names)
    return names


def test_the_documented_example_answers_as_the_routes(api: Api, demo_lake: Path) -> None:
    names = run_example(notebook_examples()[0], demo_lake)
    risk = api.get(
        "/v1/alphas/momentum_12_1/analytics/risk", "raw", book="long_only", **{"from": "2021-06-01"}
    )
    assert names["data"] == bytes(msgspec.json.decode(risk.content, type=Answer).data)
    ids = "momentum_12_1,value_composite_legacy,Test_planted_factor"
    combine = api.get("/v1/analytics/combine", "raw", alphas=ids, weighting="max_ir", fit_to="2021-09-30")
    served = msgspec.json.decode(combine.content, type=Answer)
    assert msgspec.json.encode(names["rows"]) == bytes(served.data)
    assert msgspec.json.encode(names["book"].weights) == bytes(served.meta["weights"])
    checks = api.get("/v1/alphas/Test_planted_factor/analytics/checks", "raw", min_information_ratio=1.0)
    assert msgspec.json.encode(names["checks"]) == bytes(
        msgspec.json.decode(checks.content, type=Answer).data
    )
    screen = api.get("/v1/analytics/screen", "raw", tag="momentum", sort="-information_ratio", limit=5)
    assert msgspec.json.encode(names["screen"].rows) == bytes(
        msgspec.json.decode(screen.content, type=Answer).data
    )


def test_the_figures_of_a_returns_frame_are_the_lake_backed_ones(demo_lake: Path) -> None:
    """The documented example computes figures from a plain returns frame; each value it says
    equals a lake-backed answer's (`# == ...`) does, exactly."""
    code = notebook_examples()[1]
    names = run_example(code, demo_lake)
    claims = CLAIM.findall(code)
    assert len(claims) >= 4
    for value, expected in claims:
        assert eval(value, names) == eval(expected, names), (value, expected)


def test_every_analytics_route_has_its_figures_method() -> None:
    """A notebook gets every route's figure: each analytics endpoint and `/metrics` (their `_doc`
    blocks aside) has the `Figures` method named after its id, which the tests above compare with
    the served answer; the answers of one alpha asked as (build, query) are derived from their
    declaration on `Reading` (`ASKED`), the others written by hand. A new analytics route without
    one fails here; the ids are enumerated from the registry, never counted by hand."""
    figure_ids = [
        endpoint_id
        for endpoint_id, entry in BY_ID.items()
        if (entry.group == "analytics" or endpoint_id == "performance.metrics")
        and not endpoint_id.endswith("doc")
    ]
    missing = [i for i in figure_ids if not callable(getattr(Figures, i.rsplit(".", 1)[-1], None))]
    assert figure_ids and not missing, (figure_ids, missing)
    assert {"metrics", "risk", "correlation", "returns"} <= set(ASKED)
    risk = inspect.signature(Figures.risk)
    assert list(risk.parameters)[:3] == ["self", "alpha", "warnings"] and "book" in risk.parameters
