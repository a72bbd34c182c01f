"""The declared bodies (`schemas.bodies`) are exactly what the server serves, key order included.

Every 200 answer of the ten endpoints in the equality recording (tests/equality/recorded.jsonl.gz,
a few thousand requests over the small demo lake, compared with today's server by
tests/equality/test_equality.py) is decoded with its Struct and encoded again. Decoding fails on a
served key the declaration lacks (`forbid_unknown_fields`) and on a value of another type; the
encoding must give back the same JSON, with the keys in the same order at every depth (encoding
follows the declaration, so a field declared out of place shows here) and the same JSON types
(an integer that came back as `3.0` would be a difference for tests/equality too).

No server runs for those: the recording is the server's answers, and the equality suite keeps it
so. The bodies serve/openapi/bodies.py declares (identity, errors, health, administration,
downloads), which the recording does not hold, are checked the same way on live answers of an app
over the demo lake with a real key store.
"""

from __future__ import annotations

import gzip
import json
import typing
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

from schemas import wire
from schemas.bodies.base import Body
from schemas.bodies.envelope import SHARED, EnvelopeMeta
from schemas.bodies.service import Error, Health, Pagination, Warning
from serve.endpoints import endpoints
from serve.openapi.bodies import SHARED_BODIES
from tests.declared import BODIES, ROW_BODIES, ROWS, SINGLE_BODIES, SUMMARIES
from tests.equality.record import TODAY_MASK
from tests.equality.requests import endpoint_of
from tests.support.round_trips import differences, round_trip

RECORDED = Path(__file__).parents[1] / "equality" / "recorded.jsonl.gz"
SHOWN = 10  # differences listed per endpoint when the round trip fails
# The recording masks today's date (a day-old recording would differ otherwise); a value that was
# today's date whole gets a date back, so a field declared `date` decodes as it did when served.
SOME_DAY = json.dumps("2001-02-03")


def recorded_lines() -> Iterator[dict[str, Any]]:
    with gzip.open(RECORDED, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line.replace(json.dumps(TODAY_MASK), SOME_DAY))


@pytest.fixture(scope="module")
def answers() -> dict[str, list[tuple[str, Any]]]:
    """Registry id -> (request path, `data`) of every recorded 200 answer of the ten endpoints."""
    found: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for record in recorded_lines():
        if int(record["status"]) != 200:
            continue
        endpoint = endpoint_of(record["path"])
        if endpoint in BODIES:
            found[endpoint].append((record["path"], record["body"]["data"]))
    return dict(found)


@pytest.mark.parametrize("endpoint", list(BODIES))
def test_recorded_answers_round_trip(endpoint: str, answers: dict[str, list[tuple[str, Any]]]) -> None:
    body = BODIES[endpoint]
    seen = answers.get(endpoint, [])
    assert seen, f"the recording holds no 200 answer of {endpoint}"
    problems: list[str] = []
    for path, data in seen:
        try:
            decoded = msgspec.json.decode(msgspec.json.encode(data), type=body)
        except msgspec.ValidationError as exc:
            problems.append(f"{path}: {exc}")
            continue
        again = json.loads(msgspec.json.encode(decoded))
        found = list(differences(data, again))
        problems.extend(f"{path}: {problem}" for problem in found[:SHOWN])
        if not found:
            assert again == data
    assert not problems, f"{len(problems)} differences, the first:\n" + "\n".join(problems[:SHOWN])


def test_every_body_is_in_the_recording(answers: dict[str, list[tuple[str, Any]]]) -> None:
    assert sorted(set(BODIES) - set(answers)) == []


@pytest.fixture(scope="module")
def pages() -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Registry id -> (request path, body) of every recorded 200 page of the collections whose rows
    `schemas.bodies.rows` declares."""
    found: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for record in recorded_lines():
        endpoint = endpoint_of(record["path"])
        if int(record["status"]) == 200 and endpoint in ROWS:
            found[endpoint].append((record["path"], record["body"]))
    return dict(found)


VOLATILE_META = {"request_id": "0" * 32, "generated_at": "2026-01-01T00:00:00Z"}


def test_recorded_meta_is_what_the_route_declares() -> None:
    """Every recorded 200 answer's `meta` decodes strictly with `EnvelopeMeta` (key order aside:
    `meta` is built in several places) and holds only the keys its route's schema lists."""
    problems: list[str] = []
    seen = 0
    for record in recorded_lines():
        endpoint = endpoint_of(record["path"])
        meta = record["body"].get("meta") if int(record["status"]) == 200 else None
        if meta is None or endpoint is None:
            continue
        seen += 1
        meta = VOLATILE_META | meta  # the recording leaves out what differs on every answer
        declared = {*SHARED, *endpoints()[endpoint].meta, *(["summary"] if endpoint in SUMMARIES else [])}
        undeclared = sorted(set(meta) - declared)
        if undeclared:
            problems.append(f"{record['path']}: meta keys {undeclared} not in the route's schema")
        summary = SUMMARIES.get(endpoint, Any)  # typed by the route (`Series[Row, Summary]`)
        problems += round_trip(EnvelopeMeta[summary], meta, record["path"], ordered=False)
    assert seen > 1000
    assert not problems, f"{len(problems)} differences, the first:\n" + "\n".join(problems[:SHOWN])


def test_recorded_answers_are_their_handlers_return_types() -> None:
    """Every recorded 200 answer decodes strictly as the type its handler returns (the envelope,
    its rows or object, `meta` and a series' summary at once): `Response[Collection[DecisionRow]]`
    declares exactly the body a client reads."""
    problems: list[str] = []
    seen: Counter[str] = Counter()
    for record in recorded_lines():
        endpoint = endpoint_of(record["path"])
        if endpoint is None or int(record["status"]) != 200:
            continue
        seen[endpoint] += 1
        try:
            body = record["body"] | {
                "meta": VOLATILE_META | record["body"]["meta"]
            }  # left out of the recording
            msgspec.json.decode(msgspec.json.encode(body), type=endpoints()[endpoint].answer)
        except msgspec.ValidationError as exc:
            problems.append(f"{record['path']}: {exc}")
    assert len(seen) >= 20 and sum(seen.values()) > 1000, seen
    assert not problems, f"{len(problems)} answers are not their declared type, the first:\n" + "\n".join(
        problems[:SHOWN]
    )


def in_order(keys: list[str], order: tuple[str, ...]) -> bool:
    """Whether `keys` are some of `order`, in its order."""
    rest = iter(order)
    return all(key in rest for key in keys)


RECORDED_ROWS = [endpoint for endpoint in ROWS if endpoint != "analytics.screen"]
"""The screener came after the recording: its rows are checked on live answers below."""


@pytest.mark.parametrize("endpoint", RECORDED_ROWS)
def test_recorded_rows_round_trip(endpoint: str, pages: dict[str, list[tuple[str, dict[str, Any]]]]) -> None:
    """Every recorded row of the collection, and its `meta.summary`, decoded strictly with its
    Struct and encoded again, key order included; but a `/scores` row of the core set (the default
    `fields=core`) lists its keys in the core order, one Struct holding the `fields=all` order."""
    seen = pages.get(endpoint, [])
    rows = [(path, row) for path, body in seen for row in body["data"]]
    assert rows, f"the recording holds no row of {endpoint}"
    ordered = endpoint != "signals.scores"
    problems = [p for path, row in rows for p in round_trip(ROWS[endpoint], row, path, ordered=ordered)]
    if not ordered:  # each row's keys in one of the route's two orders, less the keys left out
        orders = (wire.SCORE_CORE_FIELDS, wire.SCORE_ALL_FIELDS)
        wrong = {tuple(row) for _, row in rows if not any(in_order(list(row), order) for order in orders)}
        assert not wrong, wrong
    if endpoint in SUMMARIES:
        summaries = [(path, body["meta"]["summary"]) for path, body in seen]
        problems += [p for path, summary in summaries for p in round_trip(SUMMARIES[endpoint], summary, path)]
    assert not problems, f"{len(problems)} differences, the first:\n" + "\n".join(problems[:SHOWN])


def structs_of(annotation: Any, found: dict[type[msgspec.Struct], None]) -> None:
    """Every Struct class reachable from `annotation` (fields, list items, dict values, unions)."""
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        if annotation in found:
            return
        found[annotation] = None
        for field in msgspec.structs.fields(annotation):
            structs_of(field.type, found)
    for argument in typing.get_args(annotation):
        structs_of(argument, found)


def test_bodies_make_schema_components() -> None:
    bodies = list(BODIES.values())
    _, components = msgspec.json.schema_components(bodies, ref_template="#/components/schemas/{name}")
    found: dict[type[msgspec.Struct], None] = {}
    for body in bodies:
        structs_of(body, found)
    names: dict[str, list[str]] = defaultdict(list)
    for cls in found:
        names[cls.__name__].append(f"{cls.__module__}.{cls.__qualname__}")
    assert {name: where for name, where in names.items() if len(where) > 1} == {}
    assert set(components) == set(names)
    # An unknown key must fail at every depth, not only at the top: every Struct is a Body.
    assert [cls.__name__ for cls in found if not issubclass(cls, Body)] == []
    assert all(components[name].get("additionalProperties") is False for name in names)


def test_every_body_property_is_described() -> None:
    """Every property of every body component has a description in the served document: its
    `Meta(description=...)`, or the meaning a documentation block attaches on the serve side."""
    from serve.app import openapi_document

    _, components = msgspec.json.schema_components(
        list(BODIES.values()), ref_template="#/components/schemas/{name}"
    )
    served = openapi_document()["components"]["schemas"]
    missing = {
        name: [
            key
            for key, prop in served.get(name, {}).get("properties", {}).items()
            if not str(prop.get("description") or "").strip()
        ]
        for name in components
    }
    assert sorted(set(components) - set(served)) == []
    assert {name: keys for name, keys in missing.items() if keys} == {}
    # the served components declare at least the properties msgspec generates
    assert {
        name: sorted(set(schema.get("properties", {})) - set(served[name].get("properties", {})))
        for name, schema in components.items()
        if set(schema.get("properties", {})) - set(served[name].get("properties", {}))
    } == {}


# -- the bodies outside the recording: identity, errors, health, administration, downloads ---------

EMPTY_IN_THE_DEMO = frozenset({"catalog.families.list"})
"""Routes whose rows the small demo has none of: it names no trial family, so /v1/families' rows
are round-tripped over a lake of families (tests/analytics/test_overfitting.py)."""
LIVE_BODIES: dict[str, type[Body]] = {
    endpoint: body
    for endpoint, body in {
        **SINGLE_BODIES,
        **ROW_BODIES,
        "analytics.screen": ROWS["analytics.screen"],
    }.items()
    if endpoint not in EMPTY_IN_THE_DEMO
}
"""serve/openapi/bodies.py's Struct of each route's `data` object, or of each of its rows, and the
screener's rows, which the recording does not hold."""


@pytest.fixture(scope="module")
def live(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    """An app over the demo lake with a real key store, limiter and signing key, and its callers'
    headers: an administrator, a member (unlimited month), and a member's second key with listed
    and prefixed allow-lists, a monthly quota and an expiry."""
    from litestar.testing import TestClient

    from access import Grants, RateLimit, open_store
    from core.context import AllowList
    from core.settings import Settings
    from records.store import open_records
    from serve.app import create_app
    from serve.limits import MemoryLimiter
    from serve.records import RecordsSource
    from tests.ops.keys import issue_key

    folder = tmp_path_factory.mktemp("live_bodies")
    (folder / "signing.key").write_bytes(b"k" * 32)
    store = open_store(f"sqlite:///{folder}/keys.sqlite3")
    settings = Settings(
        lake=str(demo_lake),
        environment="test",
        signing_key_file=str(folder / "signing.key"),
        public_base_url="https://api.example.test",
    )
    admin = issue_key(store, role="admin")
    member = issue_key(store)
    narrow = Grants(
        AllowList.of_ids(["meta.health", "meta.keys", "meta.me"]),
        AllowList.of_prefixes(["Test_"]),
        AllowList.of_ids(["Test_planted_factor"]),
        expose_raw_book=False,
    )
    store.create_key(
        member.user_id,
        "narrow",
        grants=narrow,
        rate_limit=RateLimit(per_second=5, per_minute=60, per_day=500, monthly_requests=900),
        expires_at=datetime.now(UTC) + timedelta(days=30),
    )
    # The records beside the keys, with an event of each audience (as the pipeline and the
    # delivery worker write them).
    url = f"sqlite:///{folder}/keys.sqlite3"
    records = open_records(url)
    records.events.append("alpha.published", {"build_id": "b1"}, alpha_id="Test_planted_factor")
    records.events.append("build.refused", {"rule": "seal.sha256"}, audience="admin")
    records.events.append("webhook.disabled", {"url": "https://x"}, audience="key", key_id=member.key_id)
    records.close()
    app = create_app(settings, store=store, limiter=MemoryLimiter(), records=RecordsSource(url))
    with TestClient(app=app) as client:
        headers = {"admin": admin.headers, "member": member.headers, "member_id": member.key_id}
        yield client, headers
    store.close()


def _data_answers(client: Any, headers: dict[str, Any]) -> dict[str, list[tuple[str, Any]]]:
    """Registry id -> (path, body) of live 200 answers of every route of `LIVE_BODIES`."""
    admin, member = headers["admin"], headers["member"]
    requests: list[tuple[str, str, dict[str, str]]] = [
        ("meta.me", "/v1/me", member),
        ("meta.me", "/v1/me", admin),
        ("meta.keys", "/v1/me/keys", member),
        ("meta.keys", "/v1/me/keys", admin),
        ("admin.keys.usage", f"/v1/admin/keys/{headers['member_id']}/usage", admin),
        ("admin.builds.list", "/v1/admin/builds?limit=1000", admin),
        ("catalog.alphas.source.download", "/v1/alphas/Test_planted_factor/source/download", member),
        ("catalog.alphas.promotions", "/v1/alphas/Test_planted_factor/promotions", member),
        ("catalog.alphas.restatements", "/v1/alphas/momentum_12_1/restatements", admin),
        ("catalog.review", "/v1/review", member),
        ("analytics.screen", "/v1/analytics/screen?limit=1000", member),
        ("analytics.screen", "/v1/analytics/screen?limit=1000&sort=-information_ratio", admin),
        ("events.list", "/v1/events?limit=1000", member),
        ("events.list", "/v1/events?limit=1000", admin),
    ]
    alphas = [row["alpha_id"] for row in client.get("/v1/alphas?limit=1000", headers=member).json()["data"]]
    for alpha in alphas:
        requests.append(("admin.alphas.readiness", f"/v1/admin/alphas/{alpha}/readiness", admin))
        requests.append(("exports.list", f"/v1/alphas/{alpha}/exports?limit=1000", member))
        requests.append(("catalog.alphas.get", f"/v1/alphas/{alpha}", member))
    found: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for endpoint, path, caller in requests:
        response = client.get(path, headers=caller)
        if endpoint == "exports.list" and response.status_code == 503:
            continue  # a build published before exports (`exports_not_built`)
        if endpoint == "catalog.alphas.get" and response.status_code == 404:
            continue  # a run that sealed no description (`alpha_description_not_found`)
        assert response.status_code == 200, (path, response.text)
        found[endpoint].append((path, response.json()))
    for path, page in list(found["exports.list"])[:3]:
        for row in page["data"]:
            query = f"?book={row['book']}" if row["book"] is not None else ""
            download = path.replace("?limit=1000", f"/{row['dataset']}{query}")
            response = client.get(download, headers=member)
            assert response.status_code == 200, (download, response.text)
            found["exports.download"].append((download, response.json()))
    return dict(found)


def test_live_answers_round_trip(live: tuple[Any, dict[str, Any]]) -> None:
    """Real answers of the routes whose bodies serve/openapi/bodies.py declares with a Struct decode
    strictly and encode back equal, key order included; each whole answer decodes as the type its
    handler returns."""
    client, headers = live
    answers = _data_answers(client, headers)
    assert sorted(set(LIVE_BODIES) - set(answers)) == []
    problems: list[str] = []
    for endpoint, seen in answers.items():
        body = LIVE_BODIES[endpoint]
        for path, answer in seen:
            try:
                msgspec.json.decode(msgspec.json.encode(answer), type=endpoints()[endpoint].answer)
            except msgspec.ValidationError as exc:
                problems.append(f"{path}: not its handler's return type: {exc}")
            data = answer["data"]
            rows = data if isinstance(data, list) else [data]
            assert rows, path
            for i, row in enumerate(rows):
                problems += round_trip(body, row, f"{path} data[{i}]" if data is rows else f"{path} data")
    # Both kinds of allow-list a key may hold, a null and a set monthly quota, both key statuses.
    keys = [row for _, page in answers["meta.keys"] for row in page["data"]]
    assert {row["allow"]["alphas"]["mode"] for row in keys} >= {"all", "prefix"}
    assert {row["rate_limit"]["monthly_requests"] is None for row in keys} == {True, False}
    builds = [row for _, page in answers["admin.builds.list"] for row in page["data"]]
    assert {row["kind"] for row in builds} == {"alpha", "benchmark"}
    assert not problems, f"{len(problems)} differences, the first:\n" + "\n".join(problems[:SHOWN])


def test_live_envelopes_round_trip(live: tuple[Any, dict[str, Any]]) -> None:
    """`pagination`, `meta.warnings` entries, errors of several statuses and the health body."""
    client, headers = live
    member = headers["member"]
    problems: list[str] = []
    page = client.get("/v1/alphas?limit=2", headers=member).json()["pagination"]
    problems += round_trip(Pagination, page, "pagination")
    warned = 0
    for alpha in ("Test_low_vol_incomplete", "Test_ledger_only", "momentum_12_1"):
        for route in ("metrics", "rebalances", "portfolio/books"):
            meta = client.get(f"/v1/alphas/{alpha}/{route}", headers=member).json().get("meta", {})
            for i, warning in enumerate(meta.get("warnings", [])):
                warned += 1
                # built in several places, not always in one key order (schemas/bodies/service.py)
                problems += round_trip(Warning, warning, f"{alpha}/{route} warnings[{i}]", ordered=False)
    assert warned, "no answer carried a warning"
    errors = [
        ("/v1/alphas/no_such_alpha/metrics", member, 404),
        ("/v1/alphas?limit=0", member, 400),
        ("/v1/me", {}, 401),
        ("/v1/admin/builds", member, 403),
        (f"/v1/admin/keys/{'0' * 16}/usage", headers["admin"], 404),
    ]
    for path, caller, status in errors:
        response = client.get(path, headers=caller)
        assert response.status_code == status, (path, response.text)
        problems += round_trip(Error, response.json(), path)
    problems += round_trip(Health, client.get("/v1/health").json(), "/v1/health")
    assert not problems, f"{len(problems)} differences, the first:\n" + "\n".join(problems[:SHOWN])


def test_a_degraded_health_body_round_trips() -> None:
    """Every optional key of `/v1/health`, as `health_body` writes a degraded state."""
    from core.settings import Settings
    from serve.health import HealthState
    from serve.routes.meta import health_body

    state = HealthState(
        down=("lake",), degraded_alphas={"momentum_12_1": "missing_file"}, worker="out of maps"
    )
    body = msgspec.to_builtins(health_body(Settings(environment="test"), "r-test", state))
    assert {"down", "lake", "worker"} <= set(body)
    assert round_trip(Health, body, "health") == []


def test_the_declared_schema_is_the_served_component() -> None:
    """Each route of `LIVE_BODIES` answers a `$ref` to its Struct's component, and the component
    is msgspec's schema of the Struct (each description composed with its unit, null, ... rules, and
    `x-codes`)."""
    from serve.app import openapi_document

    document = openapi_document()
    served = document["components"]["schemas"]
    _, generated = msgspec.json.schema_components(
        [*SHARED_BODIES, *LIVE_BODIES.values()], ref_template="#/components/schemas/{name}"
    )
    for name, schema in generated.items():
        properties = served[name]["properties"]
        assert list(properties) == list(schema["properties"]), name
        assert served[name].get("required") == schema.get("required"), name
        for key, prop in schema["properties"].items():
            # the document composes the field's meaning with its unit, null, ... rules
            assert properties[key]["description"].startswith(prop.pop("description")), (name, key)
            assert {k: properties[key][k] for k in prop} == prop, (name, key)
    assert "x-codes" in served["ErrorBody"]["properties"]["code"]
    by_id = {
        op["x-registry-id"]: op
        for item in document["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "x-registry-id" in op
    }
    for endpoint, body in LIVE_BODIES.items():
        data = by_id[endpoint]["responses"]["200"]["content"]["application/json"]["schema"]["properties"][
            "data"
        ]
        ref = data["items"]["$ref"] if "items" in data else data["$ref"]
        assert ref == f"#/components/schemas/{body.__name__}", endpoint
