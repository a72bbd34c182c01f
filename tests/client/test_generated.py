"""The client's types stay what the server declares, and the client stays independent of it.

- `_generated.py` and `_envelope.py` equal what client/scripts/generate.py writes from the
  OpenAPI document a running server serves (`/openapi.json`, regenerated in memory), and the
  generator reads nothing of the server but that document; a route added changes
  `_generated.py` alone;
- every endpoint of the registry has a client method, every error code a class;
- the generated metrics, analytics and description types cover every path the server's metrics
  and analytics documentation blocks list, and every demo payload decodes and encodes back
  unchanged;
- the client imports none of the server's packages.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

import alpha_results_client
from alpha_results_client import _generated
from alpha_results_client.client import Client
from tests.client.conftest import CLIENT_SRC, Api, Key

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "client" / "scripts" / "generate.py"
PACKAGE = Path(alpha_results_client.__file__).parent
SERVER_PACKAGES = ("serve", "schemas", "datasets", "pipeline")


def load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("client_generate", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


GENERATED = ("_envelope.py", "_generated.py")


def committed(name: str) -> str:
    return (CLIENT_SRC / "alpha_results_client" / name).read_text()


@pytest.mark.e2e
def test_the_generated_modules_are_not_stale(api: Api) -> None:
    served = httpx.get(f"{api.base_url}/openapi.json", timeout=30).json()
    rendered = load_generator().render(served)
    assert sorted(rendered) == sorted(GENERATED)
    for name in GENERATED:
        assert rendered[name] == committed(name), (
            f"{name} is stale; run: .venv/bin/python client/scripts/generate.py --openapi <a server's /openapi.json>"
        )


def test_the_generators_check_names_each_stale_module(tmp_path: Path) -> None:
    """`generate.py --check` fails on either module when it differs from what the generator writes."""
    from serve.app import openapi_document

    generator = load_generator()
    rendered = generator.render(openapi_document())
    for name in GENERATED:
        (tmp_path / name).write_text(committed(name))
    assert generator.stale(rendered, tmp_path) == []
    (tmp_path / "_envelope.py").write_text(committed("_envelope.py") + "# edited by hand\n")
    assert generator.stale(rendered, tmp_path) == [tmp_path / "_envelope.py"]


def test_the_generator_reads_nothing_of_the_server_but_its_document() -> None:
    tree = ast.parse(GENERATOR.read_text())
    imported = [
        name
        for node in ast.walk(tree)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    ]
    assert [n for n in imported if n.split(".")[0] in SERVER_PACKAGES] == []


def test_every_endpoint_is_declared_to_the_client_and_every_error_code_a_class() -> None:
    """Every endpoint is in the generated declarations, which `Client.call` reaches
    (tests/client/test_call.py); a named method in client.py is optional sugar."""
    from core import errors
    from serve.endpoints import endpoints, registry_version

    assert _generated.REGISTRY_VERSION == registry_version()
    assert sorted(_generated.ENDPOINTS) == sorted(e.id for e in endpoints().values())
    declared = {
        v.code: v.status
        for v in vars(errors).values()
        if isinstance(v, type) and issubclass(v, errors.ApiError)
    }
    assert {code: cls.status for code, cls in _generated.ERROR_CLASSES.items()} == declared
    for code, cls in _generated.ERROR_CLASSES.items():
        assert getattr(alpha_results_client, cls.__name__) is cls and cls.code == code
    retryable = {code for code, cls in _generated.ERROR_CLASSES.items() if cls.retryable}
    assert retryable == {
        "upstream_unavailable",
        "benchmark_unavailable",
        "source_download_unavailable",
        "export_download_unavailable",
    }


def test_a_route_added_to_the_document_gets_its_typed_method() -> None:
    """Issue 47, item 6: the methods are generated from the document alone, so a route added to it
    (here a copy of the risk operation at a new path and id) has its method, named after the id's
    last segment, with its parameters, defaults, summary and answer, and nothing else is edited."""
    import copy
    import inspect

    from serve.app import openapi_document

    document = copy.deepcopy(openapi_document())
    operation = copy.deepcopy(document["paths"]["/v1/alphas/{alpha}/analytics/risk"]["get"])
    operation.update({"x-registry-id": "analytics.skew", "operationId": "analytics.skew"})
    operation["summary"] = "Skew of one book"
    operation["parameters"].append(
        {
            "name": "tail",
            "in": "query",
            "required": False,
            "description": "The tail to measure.",
            "schema": {"type": "string", "default": "left", "enum": ["left", "right"]},
        }
    )
    document["paths"]["/v1/alphas/{alpha}/analytics/skew"] = {"get": operation}
    rendered = load_generator().render(document)
    # Issue 58 counts the files a new route touches: of the client, `_generated.py` alone.
    assert rendered["_envelope.py"] == load_generator().render(openapi_document())["_envelope.py"]
    namespace: dict[str, Any] = {}
    exec(compile(rendered["_generated.py"], "<generated>", "exec"), namespace)
    assert namespace["METHODS"]["analytics.skew"] == "skew"
    assert list(namespace["METHODS"]) == list(namespace["ENDPOINTS"])
    skew = namespace["GeneratedMethods"].skew
    assert str(inspect.signature(skew)) == (
        "(self, alpha: 'str', book: 'str' = 'long_short', start: 'dt.date | str | None' = None, "
        "end: 'dt.date | str | None' = None, *, as_of: 'str | None' = None, "
        "tail: \"Literal['left', 'right']\" = 'left') -> 'RiskResponse'"
    )
    assert skew.__doc__.startswith("Skew of one book.")
    assert "`GET /v1/alphas/{alpha}/analytics/skew` (`analytics.skew`)" in skew.__doc__

    asked: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

    class Probe(namespace["GeneratedMethods"]):  # type: ignore[misc]
        def _answer(self, endpoint_id: str, path_values: dict[str, Any], values: dict[str, Any]) -> Any:
            asked.append((endpoint_id, path_values, values))

    Probe().skew("momentum_12_1", "long_only", tail="right")
    assert asked == [
        (
            "analytics.skew",
            {"alpha": "momentum_12_1"},
            {"book": "long_only", "start": None, "end": None, "as_of": None, "tail": "right"},
        )
    ]
    with pytest.raises(ValueError, match="'risk' is taken by analytics.risk"):
        clash = copy.deepcopy(document)
        clash["paths"]["/v1/alphas/{alpha}/analytics/skew"]["get"]["x-registry-id"] = "other.risk"
        load_generator().render(clash)


LEGACY_CALLS = {
    "alphas": (("momentum", True), {}),
    "rebalances": (("a", "2021-01-01", "2021-12-31"), {}),
    "cross_section": (
        ("a", "2021-01-08"),
        dict(symbol=["X"], direction=1, min_abs_weight=0.1, book="long_only", sort="rank", order="asc"),
    ),
    "scores": (("a", "2021-01-01", "2021-12-31"), dict(symbol="X", fields="all")),
    "portfolio": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "positions": (("a", "long_only", "2021-01-01", "2021-12-31"), dict(symbol="X")),
    "pnl": (("a", "long_only", "2021-01-01", "2021-12-31"), dict(symbol="X")),
    "trades": (("a", "long_short", "2021-01-01", "2021-12-31"), dict(symbol="X")),
    "equity_curve": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "metrics": (("a", "2021-01-01", "2021-12-31"), dict(granularity="yearly", doc=True, panel=True)),
    "significance": (("a", "2021-01-01", "2021-12-31"), dict(sr_benchmark=0.5, trials=3)),
    "correlation": (("a", "ic", "2021-01-01", "2021-12-31"), {}),
    "drawdowns": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "rolling": (("a", "long_only", "2021-01-01", "2021-12-31"), dict(window=13)),
    "costs": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "risk": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "returns": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "factors": (("a", "long_only", "2021-01-01", "2021-12-31"), {}),
    "screen": (
        ("momentum",),
        dict(tag=["momentum"], structure="s", method="m", complete_only=True, production=True)
        | dict(ic_reproduces=True, min_information_ratio=0.5, max_sessions=9, sort="-icir"),
    ),
    "checks": (
        ("a", "long_only", "2021-01-01", "2021-12-31"),
        dict(min_information_ratio=1.0, min_deflated_sharpe=0.5, max_turnover=2.0, min_ic_t_statistic=2.0),
    ),
    "compare": (("a", "b", "long_short", "2021-01-01", "2021-12-31"), dict(window=63)),
    "combine": (
        (["a", "b"], "long_short"),
        dict(weighting="given", weights=[0.5, 0.5], shrinkage=0.1, fit_to="2021-06-30", start="2021-01-01"),
    ),
    "contribution": (
        ("a", ["b"], "2021-01-01", "2021-12-31"),
        dict(weight=0.1, weighting="max_ir", weights=[1.0], shrinkage=0.1, fit_to="2021-06-30"),
    ),
    "live": (("a", "long_short"), dict(split="2021-06-30")),
    "promotion_preview": (("a", "2021-06-30"), {}),
    "attribution": (("a", "long_short", "2021-01-01", "2021-12-31"), dict(top=3, drop=2)),
    "capacity": (("a", "long_short", "2021-01-01", "2021-12-31"), dict(capital=1e7, grid=[1e6, 1e7])),
    "quantiles": (("a", "2021-01-01", "2021-12-31"), dict(score="raw_score", quantiles=4)),
    "residual": (("a", ["b"], "long_short", "2021-01-01", "2021-12-31"), {}),
    "export": (("a", "trades", "long_short"), {}),
    "benchmark": (("SPY", "2021-01-01", "2021-12-31"), {}),
    "events": (("cursor",), dict(type=["alpha.decay"], alpha="a", page_size=10)),
    "stream_events": (("cursor",), dict(type="alpha.decay", alpha=["a"], read_timeout=5.0)),
    **{name: (("a",), {}) for name in ("alpha", "source_download", "books", "promotions", "exports")},
    **{name: (("a",), {}) for name in ("metrics_doc", "analytics_doc", "admin_readiness", "download_source")},
    **{name: ((), {}) for name in ("health", "me", "keys", "admin_builds")},
    "admin_key_usage": (("key",), {}),
    "download_export": (("a", "trades", "long_short"), {}),
}
"""The calls the methods written by hand before generation took (docs/client.md "Methods"): each
must still bind, positional parameters and names alike."""


def test_the_calls_of_the_methods_written_before_generation_still_bind() -> None:
    import inspect

    for name, (args, kwargs) in LEGACY_CALLS.items():
        inspect.signature(getattr(Client, name)).bind(object(), *args, **kwargs)


def test_the_client_imports_no_server_package() -> None:
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            assert not [n for n in names if n.split(".")[0] in SERVER_PACKAGES], (path, names)
    # And at run time: with the server's packages unimportable, every module still imports.
    probe = f"""
import importlib, importlib.abc, pkgutil, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {SERVER_PACKAGES!r}:
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
import alpha_results_client
for info in pkgutil.walk_packages(alpha_results_client.__path__, "alpha_results_client."):
    importlib.import_module(info.name)
client = alpha_results_client.Client("http://127.0.0.1:9")
client.close()
print("ok", sorted(m for m in sys.modules if m.split(".")[0] in {SERVER_PACKAGES!r}))
"""
    environment = {**os.environ, "PYTHONPATH": str(CLIENT_SRC)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=environment, cwd="/", timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok []"


# -- the bodies declared as Structs ----------------------------------------------------------------------


def struct_at(root: type[Any], path: str) -> msgspec.inspect.Type:
    """The msgspec type at a dotted path (`periods[].core.ic.value`) under the Struct `root`."""
    current: msgspec.inspect.Type = msgspec.inspect.type_info(root)
    for part in path.split("."):
        name = part.removesuffix("[]")
        current = _unwrap(current)
        assert isinstance(current, msgspec.inspect.StructType), f"{path}: {name} is under a non-object"
        fields = {f.encode_name: f.type for f in current.fields}
        assert name in fields, f"{path}: {current.cls.__name__} has no field {name!r}"
        current = fields[name]
        if part.endswith("[]"):
            current = _unwrap(current)
            assert isinstance(current, msgspec.inspect.ListType), f"{path}: {name} is not a list"
            current = current.item_type
    return current


def _unwrap(info: msgspec.inspect.Type) -> msgspec.inspect.Type:
    if isinstance(info, msgspec.inspect.UnionType):
        arms = [a for a in info.types if not isinstance(a, msgspec.inspect.NoneType)]
        return arms[0] if len(arms) == 1 else info
    return info


def test_the_metrics_model_has_every_path_the_server_documents() -> None:
    from serve.doc_blocks.metrics_doc import metrics_doc

    paths = list(metrics_doc()["fields"])
    assert len(paths) > 100
    for path in paths:
        struct_at(_generated.Metrics, path)


def test_the_analytics_models_have_every_path_the_server_documents() -> None:
    from serve.doc_blocks.analytics_doc import shared_analytics_doc
    from serve.endpoints import endpoints

    # Each documented analytics route's answer, by the name the server's block files it under, as
    # the generated model of the same name (derived from the declarations: a new route is covered).
    roots: dict[str, type[Any]] = {}
    for e in endpoints().values():
        if e.group == "analytics" and e.documented is not None:
            struct = e.body or e.rows
            assert struct is not None
            route = e.id.removeprefix("analytics.")
            roots[route + ("[]" if e.body is None else "")] = getattr(_generated, struct.__name__)
    roots["combine"] = _generated.CombinedRowPage  # combine.meta.*: the page's meta
    assert len(roots) > 20
    paths = list(shared_analytics_doc()["fields"])
    assert len(paths) > 100
    tops = set()
    for path in paths:
        root, _, rest = path.partition(".")
        if not rest:
            tops.add(root)
            continue
        assert root in roots, path
        struct_at(roots[root], rest)
    assert tops == {name.removesuffix("[]") for name in roots}


def test_the_description_model_has_every_key_the_server_fills() -> None:
    from alpha_results_seal.description import TEMPLATE

    def walk(template: dict[str, Any], prefix: str) -> None:
        for key, shape in template.items():
            struct_at(_generated.AlphaDescription, prefix + key)
            if isinstance(shape, dict):
                walk(shape, f"{prefix}{key}.")

    walk(TEMPLATE, "")


def assert_round_trip(body: dict[str, Any], response_type: type[Any]) -> None:
    """Decoded into the client's type and encoded back, the body is unchanged: no key dropped,
    no null turned into an absent key or the reverse, no number changed."""
    decoded = msgspec.json.decode(json.dumps(body).encode(), type=response_type)
    again = json.loads(msgspec.json.encode(decoded))
    assert again == body


@pytest.fixture(scope="module")
def analytics_only_key(api: Api) -> Key:
    """The analytics group and nothing it is built from (no ledger, no cross-sections)."""
    return api.key("analytics-only", endpoints="analytics.significance,analytics.costs")


@pytest.mark.e2e
def test_every_demo_payload_round_trips_through_the_types(
    api: Api, raw_key: Key, analytics_only_key: Key
) -> None:
    headers = {"Authorization": f"Bearer {raw_key.token}"}

    def body(path: str, **params: Any) -> dict[str, Any]:
        response = httpx.get(f"{api.base_url}{path}", params=params or None, headers=headers)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return answer

    with Client(api.base_url, token=raw_key.token) as client:
        alphas = [row.alpha_id for row in client.alphas()]
    endpoints = _generated.ENDPOINTS
    for alpha in alphas:
        for granularity in ("overall", "yearly", "monthly"):
            payload = body(f"/v1/alphas/{alpha}/metrics", granularity=granularity, panel="true", doc="true")
            assert_round_trip(payload, endpoints["performance.metrics"].response)
        if alpha != "Test_small_universe":  # sealed no description
            assert_round_trip(body(f"/v1/alphas/{alpha}"), endpoints["catalog.alphas.get"].response)
    alpha = "momentum_12_1"
    pages = {
        "signals.rebalances.list": f"/v1/alphas/{alpha}/rebalances",
        "signals.rebalances.get": f"/v1/alphas/{alpha}/rebalances/2021-01-08",
        "signals.scores": f"/v1/alphas/{alpha}/scores?fields=all",
        "portfolio.books": f"/v1/alphas/{alpha}/books",
        "portfolio.ledger": f"/v1/alphas/{alpha}/portfolio",
        "portfolio.positions": f"/v1/alphas/{alpha}/positions",
        "portfolio.pnl": f"/v1/alphas/{alpha}/pnl",
        "portfolio.trades": f"/v1/alphas/{alpha}/trades?book=long_short",
        "portfolio.equity_curve": f"/v1/alphas/{alpha}/equity-curve",
        "benchmarks.daily": "/v1/benchmarks/SPY/daily",
        "exports.list": f"/v1/alphas/{alpha}/exports",
        "exports.download": f"/v1/alphas/{alpha}/exports/decisions",
        "catalog.alphas.source.download": f"/v1/alphas/{alpha}/source/download",
        "catalog.alphas.list": "/v1/alphas",
        "performance.metrics.doc": f"/v1/alphas/{alpha}/metrics/_doc",
        "meta.me": "/v1/me",
        "meta.keys": "/v1/me/keys",
        "meta.health": "/v1/health",
    }
    for endpoint_id, path in pages.items():
        assert_round_trip(body(path), endpoints[endpoint_id].response)

    def other(alpha: str) -> str:
        return "Test_planted_factor" if alpha == "momentum_12_1" else "momentum_12_1"

    for each in alphas:  # the analytics of every alpha, its not_measurable figures included
        base = f"/v1/alphas/{each}/analytics"
        analytics: list[tuple[str, dict[str, Any]]] = [
            ("analytics.significance", body(f"{base}/significance")),
            ("analytics.significance", body(f"{base}/significance", **{"from": "2021-06-01"}, trials=3)),
            ("analytics.costs", body(f"{base}/costs")),
            ("analytics.drawdowns", body(f"{base}/drawdowns")),
            *(
                ("analytics.correlation", body(f"{base}/correlation", basis=b))
                for b in ("returns", "ic", "scores")
            ),
            *(("analytics.rolling", body(f"{base}/rolling", window=w)) for w in (13, 26, 52)),
            ("analytics.risk", body(f"{base}/risk")),
            ("analytics.risk", body(f"{base}/risk", book="long_only", **{"from": "2021-06-01"})),
            ("analytics.checks", body(f"{base}/checks")),
            ("analytics.compare", body(f"{base}/compare", **{"with": other(each)})),
            ("analytics.contribution", body(f"{base}/contribution", reference=other(each))),
            (
                "analytics.combine",
                body("/v1/analytics/combine", alphas=f"{each},{other(each)}", weighting="max_ir"),
            ),
        ]
        for endpoint_id, payload in analytics:
            assert_round_trip(payload, endpoints[endpoint_id].response)
    books = body(f"/v1/alphas/{alpha}/books")["data"]
    for book in {row["book"] for row in books if row["kind"] == "portfolio"}:
        assert_round_trip(
            body(f"/v1/alphas/{alpha}/analytics/costs", book=book), endpoints["analytics.costs"].response
        )
    for book in ("long_only", "raw_long_short"):  # meta.signal: conditioned, then raw
        rolling = body(f"/v1/alphas/{alpha}/analytics/rolling", book=book)
        assert rolling["meta"]["signal"] == ("raw" if book.startswith("raw_") else "conditioned")
        assert_round_trip(rolling, endpoints["analytics.rolling"].response)
    # A window without a session: every costs figure not_measurable.
    idle = body(f"/v1/alphas/{alpha}/analytics/costs", **{"from": "2021-01-02", "to": "2021-01-03"})
    assert idle["data"]["sessions"] == 0 and idle["data"]["net_pnl"]["status"] == "not_measurable"
    assert_round_trip(idle, endpoints["analytics.costs"].response)
    assert_round_trip(body(f"/v1/alphas/{alpha}/analytics/_doc"), endpoints["analytics.doc"].response)
    # A key that may read neither the ledger nor the cross-sections: access_limited figures, a null
    # family_size, and meta.warnings naming the block.
    limited = {"Authorization": f"Bearer {analytics_only_key.token}"}
    answers = {}
    for route in ("significance", "costs"):
        response = httpx.get(f"{api.base_url}/v1/alphas/{alpha}/analytics/{route}", headers=limited)
        assert response.status_code == 200, response.text
        answers[route] = response.json()
        assert {w["code"] for w in answers[route]["meta"]["warnings"]} == {"access_limited"}
        assert all(w.get("block") for w in answers[route]["meta"]["warnings"])
        assert_round_trip(answers[route], endpoints[f"analytics.{route}"].response)
    assert answers["significance"]["data"]["multiple_testing"]["holm"]["family_size"] is None
    assert answers["costs"]["data"]["net_pnl"]["withheld_reason"].startswith("access_limited: ")
    empty = body("/v1/alphas/Test_ledger_only/scores")  # a dataset the run never wrote
    assert empty["meta"]["warnings"][0]["code"] == "kind_missing"
    assert_round_trip(empty, endpoints["signals.scores"].response)
