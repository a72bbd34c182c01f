"""The soak's traffic: planned requests, their recorded expectations, and the client threads.

Requests come from `tests.equality.requests.generate` (every data endpoint and parameter family
of every alpha, valid and invalid, random parameters drawn from the lake) plus what that list
leaves out on purpose (health, `/v1/me`, `/v1/me/keys`, the admin routes, successful source
downloads) and hostile requests (refused keys, keys in the query, two `Authorization` headers,
unknown paths and methods, forged `X-Forwarded-For` / `X-Real-IP` / `Forwarded` / `X-Request-ID`).
Each equality caller maps to a real key of the soak's key store.

Before the load starts, every planned request is answered once per version of the republished
alpha and its normalised answer (status and a digest of the body without per-request ids, build
ids reduced to their content ids) is recorded. Every answer during the soak must equal the one
recorded for the version it names (or, when it names none, one of them). Answers that cannot be
recorded (health, usage, the build catalogue) get a check of their own.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec

from tests.equality.requests import endpoint_of, generate
from tests.soak.deployment import REPUBLISHED, SELF_SERVICE, TIGHT, Keys

# -- normalising answers -------------------------------------------------------------------------

BUILD_ID = re.compile(r"\b([0-9a-f]{20})-[0-9a-f]{8}\b")
VOLATILE_KEYS = frozenset({"request_id", "generated_at", "usage", "account_usage", "built_at"})
"""Removed at any depth before an answer is compared: per-request ids and times, live usage, and
the publish time of a build (two publishes of one seal hold the same content)."""
DOCUMENTED_503 = frozenset(
    {
        "upstream_unavailable",
        "benchmark_unavailable",
        "benchmark_not_configured",
        "source_download_unavailable",
        "source_download_not_configured",
    }
)
"""The 503 codes of docs/operations.md "Failure behaviour" and docs/api.md."""
RATE_CODES = frozenset({"rate_limit_second", "rate_limit_minute", "rate_limit_day", "quota_exceeded"})


def _normalise(value: Any, contents: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: _normalise(v, contents) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_normalise(v, contents) for v in value]
    if isinstance(value, str) and "-" in value:

        def content(match: re.Match[str]) -> str:
            contents.add(match.group(1))
            return match.group(1)

        return BUILD_ID.sub(content, value)
    return value


def normalise(body: Any) -> tuple[Any, set[str]]:
    """The body without volatile fields, build ids reduced to content ids; the content ids seen."""
    contents: set[str] = set()
    return _normalise(body, contents), contents


def digest(value: Any) -> str:
    return hashlib.sha256(msgspec.json.encode(value, order="sorted")).hexdigest()[:32]


def error_code(body: Any) -> str | None:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        code = body["error"].get("code")
        return code if isinstance(code, str) else None
    return None


# -- planned requests ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    index: int
    group: str  # the client group that sends it
    key: str | None  # label of the key in the Authorization header (None: no header)
    path: str
    family: str  # registry id, or `router` / `auth` for what is refused before a route
    record_as: str | None = None  # the key that records the expectation (default: `key`)
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    authorization: tuple[str, ...] | None = None  # explicit Authorization values (replace `key`)
    expect: tuple[int, str | None] | None = None  # designed answer (status, code), checked when recorded
    check: str = "recorded"  # recorded | health | builds | usage | source

    @property
    def recorder(self) -> str | None:
        return self.record_as if self.record_as is not None else self.key


# The equality callers, as keys of the soak and the client group sending them.
CALLER_KEYS = {
    "raw": ("admin", "admin"),
    "plain": ("plain", "member"),
    "testonly": ("testonly", "member"),
    "alphaonly": ("alphaonly", "member"),
    "metaonly": (SELF_SERVICE, SELF_SERVICE),
    None: (None, "hostile"),
    "bogus": ("bogus", "hostile"),
}
ADMIN_ROUTES = {
    "/v1/health": "meta.health",
    "/v1/me": "meta.me",
    "/v1/me/keys": "meta.keys",
    "/v1/admin/builds": "admin.builds.list",
}


QUERY_KEY = re.compile(r"[?&](api[-_]?key|apikey|key|token|access_token)=", re.IGNORECASE)
"""A key in the query string is refused before the Authorization header is read (docs/access.md)."""


def family_of(path: str) -> str:
    bare = path.split("?", 1)[0]
    if bare in ADMIN_ROUTES:
        return ADMIN_ROUTES[bare]
    if bare.startswith("/v1/admin/alphas/"):
        return "admin.alphas.readiness"
    if bare.startswith("/v1/admin/keys/"):
        return "admin.keys.usage"
    return endpoint_of(path) or "router"


class Plan:
    """Every request of the soak, by client group."""

    def __init__(self) -> None:
        self.requests: list[Planned] = []

    def add(self, group: str, key: str | None, path: str, **options: Any) -> None:
        family = options.pop("family", None) or family_of(path)
        self.requests.append(Planned(len(self.requests), group, key, path, family, **options))

    def of(self, group: str) -> list[Planned]:
        return [r for r in self.requests if r.group == group]


def make_plan(facts_lake: Path, seed: int, keys: Keys, alphas: Sequence[str]) -> Plan:
    plan = Plan()
    rng = random.Random(seed)
    generated = generate(facts_lake, seed)
    plain_paths = []
    for request in generated:
        key, group = CALLER_KEYS[request.token]
        plan.add(group, key, request.path)
        if request.token == "plain":
            if endpoint_of(request.path) and not QUERY_KEY.search(request.path):
                plain_paths.append(request.path)  # refused keys are tried on these
            # The tight key sends what `plain` sends; `plain`'s recorded answers are its expectations.
            plan.add(TIGHT, TIGHT, request.path, record_as="plain")

    # What the equality list leaves out: identity, admin routes, health, signed downloads.
    for _ in range(6):
        plan.add("admin", "admin", "/v1/health", check="health")
        plan.add("admin", "admin", "/v1/me")
        plan.add("admin", "admin", f"/v1/me/keys?limit={rng.randint(1, 5)}")
        plan.add("admin", "admin", f"/v1/admin/builds?limit={rng.randint(1, 30)}", check="builds")
    plan.add("admin", "admin", "/v1/admin/builds", check="builds")
    for alpha in alphas:
        plan.add("admin", "admin", f"/v1/admin/alphas/{alpha}/readiness")
        plan.add("admin", "admin", f"/v1/alphas/{alpha}/source/download", check="source")
        plan.add("member", "plain", f"/v1/alphas/{alpha}/source/download", check="source")
    plan.add("admin", "admin", "/v1/admin/alphas/no_such_alpha/readiness", expect=(404, "alpha_not_found"))
    for label in ("plain", TIGHT, SELF_SERVICE, "admin", "revoked"):
        plan.add("admin", "admin", f"/v1/admin/keys/{keys[label].key_id}/usage", check="usage")
    plan.add("admin", "admin", "/v1/admin/keys/0000000000000000/usage", expect=(404, "key_not_found"))
    plan.add("member", "plain", "/v1/me")
    plan.add("member", "plain", "/v1/me/keys")
    plan.add("member", "plain", "/v1/admin/builds", expect=(403, "endpoint_not_allowed"))
    for _ in range(20):  # as many as the refusals the equality list gives it
        plan.add(SELF_SERVICE, SELF_SERVICE, "/v1/me")
        plan.add(SELF_SERVICE, SELF_SERVICE, "/v1/me/keys")
    plan.add(SELF_SERVICE, SELF_SERVICE, "/v1/admin/builds", expect=(403, "endpoint_not_allowed"))

    # Forged headers: the trusted hop count is 0, so the caller is the socket peer whatever they say.
    forged = (
        ("X-Forwarded-For", "10.1.2.3"),
        ("X-Forwarded-For", "10.1.2.3, 192.0.2.7"),
        ("X-Real-IP", "10.1.2.3"),
        ("Forwarded", "for=10.1.2.3;proto=https"),
        ("X-Request-ID", "req_forged0000000000000000000000"),
        ("Host", "api.example.com"),
    )
    for header in forged:
        plan.add("admin", "admin", "/v1/me", headers=(header,))
        plan.add("hostile", "iponly", "/v1/alphas", headers=(header,), expect=(403, "ip_not_allowed"))
    plan.add("member", "plain", f"/v1/alphas/{REPUBLISHED}/books", headers=(("X-Forwarded-For", "10.9.9.9"),))

    # Refused keys and malformed authentication, on random paths of `plain`.
    refusals = {
        "revoked": (401, "key_revoked"),
        "suspended": (401, "key_suspended"),
        "expired": (401, "key_expired"),
        "iponly": (403, "ip_not_allowed"),
        "forged": (401, "invalid_api_key"),
    }
    for label, expected in refusals.items():
        for path in rng.sample(plain_paths, 12):
            plan.add("hostile", label, path, expect=expected)
    token = keys["plain"].token
    for path in rng.sample(plain_paths, 6):
        plan.add("hostile", None, path, authorization=(f"Basic {token}",), expect=(401, "missing_api_key"))
        plan.add("hostile", None, path, authorization=("Bearer",), expect=(401, "missing_api_key"))
        plan.add(
            "hostile", None, path, authorization=(f"Bearer {token[:-1]}",), expect=(401, "malformed_api_key")
        )
        plan.add(
            "hostile",
            None,
            path,
            authorization=(f"Bearer {token}", f"Bearer {keys['admin'].token}"),
            expect=(401, "malformed_api_key"),
        )
        sep = "&" if "?" in path else "?"
        plan.add("hostile", "plain", f"{path}{sep}api_key=x", expect=(401, "missing_api_key"), family="auth")
        plan.add(
            "hostile",
            "plain",
            f"{path}{sep}note={quote(token, safe='')}",
            expect=(401, "missing_api_key"),
            family="auth",
        )
    # The router: unknown paths, non-canonical spellings, other methods (before any key is read).
    for path in (
        "/v1/nope",
        "/v2/alphas",
        f"/v1/alphas/{REPUBLISHED}/nope",
        "/v1/me/",
        "/v1//me",
        "/v1/alphas/%54est_planted_factor/books",
        f"/v1/alphas/{REPUBLISHED}%2Fbooks",
        "/v1/alphas/../me",
        "/.env",
        "/v1/admin",
    ):
        plan.add("hostile", "plain", path, expect=(404, "not_found"))
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        for path in ("/v1/alphas", "/v1/me", f"/v1/alphas/{REPUBLISHED}/scores"):
            plan.add("hostile", "plain", path, method=method, expect=(404, "method_not_allowed"))
    return plan


# -- one client connection ---------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    t0: float
    t1: float


class Connection:
    """One keep-alive HTTP/1.1 connection to the server (either worker, as the kernel hands it)."""

    IDLE_SECONDS = 3.0
    """A connection idle this long is not reused: uvicorn closes idle keep-alive connections after
    5 s, and a request sent as it does so is lost ("Remote end closed connection"), which clients
    meet as a retry; the soak counts every lost request as a failure instead."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port = port
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.used = 0.0

    def send(self, method: str, path: str, headers: Iterable[tuple[str, str]]) -> Answer:
        if self.conn is not None and time.monotonic() - self.used > self.IDLE_SECONDS:
            self.close()
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        t0 = time.time()
        try:
            self.conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            names = set()
            for name, value in headers:
                self.conn.putheader(name, value)
                names.add(name.lower())
            if "host" not in names:
                self.conn.putheader("Host", f"127.0.0.1:{self.port}")
            self.conn.endheaders()
            response = self.conn.getresponse()
            body = response.read()
        except BaseException:
            self.close()
            raise
        t1 = time.time()
        self.used = time.monotonic()
        answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body, t0, t1)
        if answer.headers.get("connection", "").lower() == "close":
            self.close()
        return answer

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def request_headers(request: Planned, keys: Keys, as_key: str | None) -> list[tuple[str, str]]:
    headers: list[tuple[str, str]] = []
    if request.authorization is not None:
        headers += [("Authorization", value) for value in request.authorization]
    elif as_key == "bogus":
        headers.append(("Authorization", "Bearer bogus"))
    elif as_key is not None:
        headers.append(("Authorization", keys[as_key].authorization))
    headers += list(request.headers)
    return headers


# -- expectations ----------------------------------------------------------------------------------


class SetupError(RuntimeError):
    """The planned requests could not be recorded as designed."""


@dataclass
class Expectations:
    """index -> content id of the republished alpha's version -> (status, digest)."""

    by_index: dict[int, dict[str, tuple[int, str]]] = field(default_factory=dict)
    versions: list[str] = field(default_factory=list)

    def record(
        self,
        port: int,
        plan: Plan,
        keys: Keys,
        version: str,
        out: Path,
        threads: int = 3,
    ) -> float:
        """Answer every recordable request once (several connections), with the version served."""
        same: dict[tuple[Any, ...], list[Planned]] = {}
        for r in plan.requests:  # a request planned several times is recorded once
            if r.check in ("recorded", "source"):
                same.setdefault(
                    (r.method, r.path, r.headers, r.authorization, r.recorder, r.check), []
                ).append(r)
        todo = [copies[0] for copies in same.values()]
        problems: list[str] = []
        lock = threading.Lock()
        lines: list[str] = []
        started = time.monotonic()

        def work(part: list[Planned]) -> None:
            conn = Connection(port)
            for request in part:
                try:
                    answer = conn.send(
                        request.method, request.path, request_headers(request, keys, request.recorder)
                    )
                    body = json.loads(answer.body)
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    with lock:
                        problems.append(f"#{request.index} {request.path}: {exc!r}")
                    continue
                normal, contents = normalise(strip_url(body) if request.check == "source" else body)
                problem = None
                if answer.status >= 500 or answer.status == 429:
                    problem = f"answered {answer.status} {error_code(body)} while recording"
                elif request.expect is not None and (answer.status, error_code(body)) != request.expect:
                    problem = f"answered {answer.status} {error_code(body)}, designed {request.expect}"
                elif contents & set(self.versions) - {version}:
                    problem = f"named another version of {REPUBLISHED} while recording {version}"
                elif request.headers and request.path == "/v1/me" and body["data"]["ip"] != "127.0.0.1":
                    problem = f"a forged header moved the caller's address: {body['data']['ip']}"
                signature = (request.method, request.path, request.headers, request.authorization)
                with lock:
                    if problem is not None:
                        problems.append(f"#{request.index} {request.method} {request.path}: {problem}")
                    for copy in same[(*signature, request.recorder, request.check)]:
                        self.by_index.setdefault(copy.index, {})[version] = (answer.status, digest(normal))
                    lines.append(
                        json.dumps({"index": request.index, "status": answer.status, "body": normal})
                    )
            conn.close()

        parts = [todo[i::threads] for i in range(threads)]
        workers = [threading.Thread(target=work, args=(part,)) for part in parts]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        out.write_text("\n".join(sorted(lines, key=lambda s: int(s.split(",", 1)[0].split(":")[1]))) + "\n")
        if problems:
            raise SetupError(
                f"{len(problems)} planned requests misbehaved when recorded:\n" + "\n".join(problems[:30])
            )
        return time.monotonic() - started


def strip_url(body: Any) -> Any:
    """A source-download answer without its signed URL (checked apart)."""
    if isinstance(body, dict) and isinstance(body.get("data"), dict) and "url" in body["data"]:
        return {**body, "data": {k: v for k, v in body["data"].items() if k != "url"}}
    return body


# -- the tally of one client thread ------------------------------------------------------------------


@dataclass
class Tally:
    requests: Counter[tuple[str, int]] = field(default_factory=Counter)  # (group, status)
    compared_valid: int = 0
    compared_invalid: int = 0
    wrong: list[str] = field(default_factory=list)
    bad_5xx: list[tuple[float, int, str | None, str, str]] = field(default_factory=list)
    s503: list[tuple[float, str, str, str]] = field(default_factory=list)  # t, code, family, group
    r429: Counter[tuple[str, str | None]] = field(default_factory=Counter)
    transport: list[str] = field(default_factory=list)
    tight: list[tuple[float, float, int, str | None]] = field(default_factory=list)
    health: list[tuple[float, str, tuple[str, ...], str]] = field(default_factory=list)
    families: Counter[str] = field(default_factory=Counter)  # valid answers compared, by family
    latency: dict[str, list[float]] = field(default_factory=dict)
    versions: Counter[str] = field(default_factory=Counter)
    downloads: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Tally) -> None:
        self.requests.update(other.requests)
        self.compared_valid += other.compared_valid
        self.compared_invalid += other.compared_invalid
        self.wrong += other.wrong
        self.bad_5xx += other.bad_5xx
        self.s503 += other.s503
        self.r429.update(other.r429)
        self.transport += other.transport
        self.tight += other.tight
        self.health += other.health
        self.families.update(other.families)
        for group, values in other.latency.items():
            self.latency.setdefault(group, []).extend(values)
        self.versions.update(other.versions)
        self.downloads.update(other.downloads)


# -- checking one answer ---------------------------------------------------------------------------


@dataclass
class Checker:
    expectations: Expectations
    keys: Keys
    s3_endpoint: str
    initial_builds: dict[str, str]  # alpha -> content id of its build (every alpha but REPUBLISHED)
    work: Path
    download: Callable[[str], tuple[int, bytes]] | None = None
    _saved: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wrong(self, tally: Tally, request: Planned, answer: Answer, why: str) -> None:
        tally.wrong.append(
            f"#{request.index} {request.key} {request.method} {request.path}: {answer.status}: {why}"
        )
        with self._lock:
            self._saved += 1
            if self._saved <= 50:
                (self.work / "wrong").mkdir(exist_ok=True)
                (self.work / "wrong" / f"{self._saved:02d}-{request.index}.json").write_bytes(answer.body)

    def check(self, tally: Tally, request: Planned, answer: Answer) -> None:
        tally.requests[(request.group, answer.status)] += 1
        try:
            body = json.loads(answer.body)
        except ValueError:
            self.wrong(tally, request, answer, "body is not JSON")
            return
        code = error_code(body)
        request_id = answer.headers.get("x-request-id", "")
        if not request_id.startswith("req_") or (
            code is not None and body["error"].get("request_id") != request_id
        ):
            self.wrong(tally, request, answer, f"request id {request_id!r} missing or not the body's")
            return
        if any(name == "X-Request-ID" and value == request_id for name, value in request.headers):
            self.wrong(tally, request, answer, "the server took the client's X-Request-ID")
            return
        if request.key == TIGHT:
            tally.tight.append((answer.t0, answer.t1, answer.status, code))
        if answer.status >= 500:
            if answer.status == 503 and code in DOCUMENTED_503:
                tally.s503.append((answer.t0, str(code), request.family, request.group))
            else:
                tally.bad_5xx.append((answer.t0, answer.status, code, request.path, request.group))
            return
        if answer.status == 429:
            tally.r429[(request.group, code)] += 1
            if request.key not in (TIGHT, SELF_SERVICE) or code not in RATE_CODES:
                self.wrong(tally, request, answer, f"429 {code} for a key that should not be throttled")
            return
        if request.check == "health":
            self.check_health(tally, request, answer, body)
        elif request.check == "builds":
            self.check_builds(tally, request, answer, body)
        elif request.check == "usage":
            self.check_usage(tally, request, answer, body)
        else:
            self.check_recorded(tally, request, answer, body)

    def check_recorded(self, tally: Tally, request: Planned, answer: Answer, body: Any) -> None:
        if request.check == "source" and answer.status == 200:
            url = body["data"]["url"]
            if not url.startswith(self.s3_endpoint + "/"):
                self.wrong(tally, request, answer, f"source URL {url[:80]} is not the lake's store")
                return
            if self.download is not None and random.random() < 0.05:
                status, content = self.download(url)
                ok = status == 200 and hashlib.sha256(content).hexdigest() == body["data"]["sha256"]
                tally.downloads["ok" if ok else "failed"] += 1
                if not ok:
                    self.wrong(tally, request, answer, f"the signed URL answered {status} or other bytes")
                    return
            body = strip_url(body)
        normal, contents = normalise(body)
        expected = self.expectations.by_index[request.index]
        named = contents & set(self.expectations.versions)
        candidates = named if len(named) == 1 else set(expected)
        got = (answer.status, digest(normal))
        if not any(expected.get(version) == got for version in candidates):
            seen = [v for v, e in expected.items() if e == got]
            why = f"differs from the recorded answer of {sorted(candidates)}"
            self.wrong(tally, request, answer, why + (f" (equals that of {seen})" if seen else ""))
            return
        for version in named:
            tally.versions[version] += 1
        if answer.status == 200:
            tally.compared_valid += 1
            tally.families[request.family] += 1
        else:
            tally.compared_invalid += 1

    def check_health(self, tally: Tally, request: Planned, answer: Answer, body: Any) -> None:
        ok = answer.status == 200 and body.get("status") in ("ok", "degraded")
        if not ok:
            self.wrong(tally, request, answer, f"health answered {body}")
            return
        degraded = json.dumps(body.get("lake", {}).get("degraded_alphas", {}), sort_keys=True)
        tally.health.append((answer.t0, body["status"], tuple(body.get("down", ())), degraded))
        tally.compared_valid += 1
        tally.families[request.family] += 1

    def check_builds(self, tally: Tally, request: Planned, answer: Answer, body: Any) -> None:
        if answer.status != 200:
            self.wrong(tally, request, answer, "the build catalogue was refused")
            return
        for row in body["data"]:
            if not row["current"]:
                continue
            content = BUILD_ID.sub(r"\1", row["build_id"])
            if row["kind"] == "alpha" and row["name"] == REPUBLISHED:
                allowed = set(self.expectations.versions)
            else:
                allowed = {self.initial_builds.get(f"{row['kind']}:{row['name']}", "?")}
            if content not in allowed:
                self.wrong(tally, request, answer, f"current build of {row['name']} is {row['build_id']}")
                return
        tally.compared_valid += 1
        tally.families[request.family] += 1

    def check_usage(self, tally: Tally, request: Planned, answer: Answer, body: Any) -> None:
        key_id = request.path.rsplit("/", 2)[1]
        data = body.get("data") if answer.status == 200 else None
        if (
            not isinstance(data, dict)
            or data.get("key_id") != key_id
            or "day" not in (data.get("usage") or {})
        ):
            self.wrong(tally, request, answer, f"usage answer {str(body)[:200]}")
            return
        tally.compared_valid += 1
        tally.families[request.family] += 1


# -- client threads ----------------------------------------------------------------------------------


@dataclass
class ClientSpec:
    group: str
    requests: list[Planned]
    rate: float | None  # requests per second of this thread (None: as fast as `pause` allows)
    pause: float = 0.0
    reconnect_every: int = 40


class Client(threading.Thread):
    """Sends its group's requests in random order, on a keep-alive connection renewed now and then."""

    def __init__(
        self, spec: ClientSpec, port: int, keys: Keys, checker: Checker, stop: threading.Event, seed: int
    ) -> None:
        super().__init__(name=f"client-{spec.group}-{seed}", daemon=True)
        self.spec = spec
        self.port = port
        self.keys = keys
        self.checker = checker
        self.stop_event = stop
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.crashed: BaseException | None = None

    def run(self) -> None:
        try:
            self.loop()
        except BaseException as exc:  # reported by the soak: a crashed client is a failed run
            self.crashed = exc

    def loop(self) -> None:
        spec, rng = self.spec, self.rng
        conn = Connection(self.port)
        since_renewal = 0
        renew = rng.randint(1, spec.reconnect_every)
        next_at = time.monotonic()
        latencies = self.tally.latency.setdefault(spec.group, [])
        while not self.stop_event.is_set():
            if spec.rate is not None:
                next_at += rng.expovariate(spec.rate)
                delay = next_at - time.monotonic()
                if delay > 0 and self.stop_event.wait(delay):
                    break
            request = rng.choice(spec.requests)
            try:
                answer = conn.send(
                    request.method, request.path, request_headers(request, self.keys, request.key)
                )
            except (OSError, http.client.HTTPException) as exc:
                self.tally.transport.append(f"{time.time():.3f} {request.method} {request.path}: {exc!r}")
                conn.close()
                continue
            latencies.append(answer.t1 - answer.t0)
            self.checker.check(self.tally, request, answer)
            since_renewal += 1
            if since_renewal >= renew:  # a new connection: the kernel may hand it to the other worker
                conn.close()
                since_renewal, renew = 0, rng.randint(1, spec.reconnect_every)
            if spec.pause:
                time.sleep(spec.pause)
        conn.close()
