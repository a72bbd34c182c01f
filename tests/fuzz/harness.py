"""Schemathesis against the real server: keys, the served process, the document, one run.

Both profiles use this: the fast one in the test suite (tests/fuzz/test_schemathesis.py) and the
long one (`just fuzz`, `python -m tests.fuzz.run`). Each run is the schemathesis CLI (`st run`)
with every check, against the OpenAPI document the server serves at `/openapi.json`, with one
bearer key; its JSON report gives the cases run and the failures by check.

The document is the served one with only test data added: the path parameters naming stored
things (`{alpha}`, `{alpha_id}`, `{key_id}`, `{date}`) get an `enum` of values that exist here,
plus a few that do not, so generated requests reach the handlers instead of stopping at a 404.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from access import open_store
from access.records import ADMIN_CEILING, SELF_SERVICE_GRANTS, RateLimit
from core.context import AllowList
from tests.fuzz import hooks
from tests.support.ports import free_port

KEY_LABELS = ("admin", "self_service")
ROOMY = RateLimit(per_second=1_000_000, per_minute=1_000_000, per_day=100_000_000, monthly_requests=None)
"""Limits no fuzz run reaches, so the cases exercise the routes rather than the 429 path."""

SERVER_ERROR = "ST101"
SCHEMA_VIOLATION = "ST108"
CONTRACT_DIVERGENCES = {
    "ST204": "api.md (general rule 1) answers an undeclared method with 404 `method_not_allowed` "
    "from the router, before any key is read; schemathesis expects 405.",
}
"""Failures whose expectation the contract overrides, by schemathesis code; every other failure
counts. The router's 404 for such methods is checked for each one a run meets (test_schemathesis.py;
the coverage phase of `just fuzz` meets them, the suite's count-bounded phases seldom do) and by
tests/e2e/test_server.py."""

ABSENT_ALPHAS = ("Test_absent", "absent_alpha")
ABSENT_DATES = ("2000-01-07", "2099-12-31")


def create_keys(keystore_url: str) -> dict[str, str]:
    """Two keys in a fresh key store, by label: `admin` (a platform administrator's key with the
    admin ceiling, raw-book access included) and `self_service` (a member's self-created key with
    the default grants: `Test_` alphas and runs, no raw books, on an account whose ceiling an
    administrator opened to the data routes, as the spec describes). Both with roomy limits."""
    store = open_store(keystore_url)
    try:
        admin = store.create_account("fuzz-admin@example.com", role="admin")
        _, admin_token = store.create_key(admin.user_id, "fuzz admin", grants=ADMIN_CEILING, rate_limit=ROOMY)
        member = store.create_account("fuzz-member@example.com")
        store.set_account_ceiling(member.user_id, replace(SELF_SERVICE_GRANTS, endpoints=AllowList.all()))
        _, member_token = store.create_key(member.user_id, "fuzz self-service", rate_limit=ROOMY)
    finally:
        store.close()
    return {"admin": admin_token, "self_service": member_token}


@dataclass
class Server:
    base: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def serving(lake: Path, keystore_url: str, workdir: Path) -> Iterator[Server]:
    """`alpha-results serve` on a free port, with signed source downloads configured; its output
    goes to `workdir/server.log` (a pipe nobody reads would stall a long run)."""
    from serve.signing.archives import ensure_signing_key

    signing_key = workdir / "signing.key"
    ensure_signing_key(str(signing_key))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "ALPHA_RESULTS_KEYSTORE_URL": keystore_url,
        "ALPHA_RESULTS_ENVIRONMENT": "fuzz",
        "ALPHA_RESULTS_SIGNING_KEY_FILE": str(signing_key),
        "ALPHA_RESULTS_PUBLIC_BASE_URL": base,
        "ALPHA_RESULTS_LOG_LEVEL": "warning",
    }
    command = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--lake", str(lake)]
    log = workdir / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, cwd=workdir)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        yield Server(base, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _enum(schema: dict[str, Any], values: list[str]) -> dict[str, Any]:
    return {**schema, "enum": sorted(set(values))}


def key_id_of(token: str) -> str:
    """`<prefix>_<env>_<key_id>.<secret>` -> key_id."""
    return token.split(".", 1)[0].rsplit("_", 1)[1]


PLACEHOLDER = "no-such-value"


def _alphas(client: httpx.Client) -> list[str]:
    response = client.get("/v1/alphas", params={"limit": 5000})
    return [row["alpha_id"] for row in response.raise_for_status().json()["data"]]


def _path_parameters(operation: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in operation.get("parameters", []) if p["in"] == "path"]


def _listed_values(client: httpx.Client, template: str, name: str, known: dict[str, list[str]]) -> list[str]:
    """The values the server lists for a path parameter when given one that does not exist (its
    `error.details.available`, as the benchmark symbol and an export's dataset answer); [] if none."""
    path = template
    for parameter in re.findall(r"\{(\w+)\}", template):
        value = PLACEHOLDER if parameter == name else next(iter(known.get(parameter, [])), None)
        if value is None:
            return []
        path = path.replace(f"{{{parameter}}}", value)
    response = client.get(path)
    if response.status_code < 400 or "application/json" not in response.headers.get("content-type", ""):
        return []
    available = response.json().get("error", {}).get("details", {}).get("available")
    return [v for v in available if isinstance(v, str)] if isinstance(available, list) else []


def fuzz_document(base: str, tokens: dict[str, str]) -> dict[str, Any]:
    """The served document, its path parameters naming stored things given values that exist (and
    some that do not): alphas, rebalance dates, key ids, and whatever a route lists as available
    when asked for a value that does not exist. Nothing else changes."""
    with httpx.Client(
        base_url=base, headers={"Authorization": f"Bearer {tokens['admin']}"}, timeout=30
    ) as client:
        document: dict[str, Any] = client.get("/openapi.json").raise_for_status().json()
        alphas = _alphas(client)
        dates: set[str] = set()
        for alpha in alphas:
            response = client.get(f"/v1/alphas/{alpha}/rebalances", params={"limit": 5000})
            if response.status_code == 200:
                dates |= {row["date"] for row in response.json()["data"]}
        values = {
            "alpha": [*alphas, *ABSENT_ALPHAS],
            "alpha_id": [*alphas, *ABSENT_ALPHAS],
            "date": [*sorted(dates)[:: max(1, len(dates) // 40)], *ABSENT_DATES],
            "key_id": [*(key_id_of(token) for token in tokens.values()), "k" * 16],
        }
        listed: dict[tuple[str, str], list[str]] = {}
        for template, item in document["paths"].items():
            for parameter in _path_parameters(item["get"]):
                name = parameter["name"]
                if name not in values and "enum" not in parameter["schema"]:
                    found = _listed_values(client, template, name, {"alpha": alphas, **values})
                    if found:
                        listed[(template, name)] = [*found, PLACEHOLDER]
    patched = copy.deepcopy(document)
    for template, item in patched["paths"].items():
        for operation in item.values():
            for parameter in _path_parameters(operation):
                name = parameter["name"]
                chosen = values.get(name) or listed.get((template, name))
                if chosen:
                    parameter["schema"] = _enum(parameter["schema"], chosen)
    return patched


def book_rules(base: str, document: dict[str, Any], token: str) -> dict[str, dict[str, Any]]:
    """How each route with a free-text `book` treats it, for this key, per set of path values that
    exist (tests.fuzz.hooks): `{"available": [...], "required": bool}` from the server's
    `unknown_book` answer to a book that exists nowhere (and its answer without a book), or
    `{"accepted": False}` where the route refuses any book (a dataset without books)."""
    rules: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        for template, item in document["paths"].items():
            operation = item["get"]
            book = [p for p in operation.get("parameters", []) if p["in"] == "query" and p["name"] == "book"]
            if not book or "enum" in book[0]["schema"]:
                continue
            parameters = _path_parameters(operation)
            choices = [
                [v for v in p["schema"].get("enum", []) if v != PLACEHOLDER and v not in ABSENT_ALPHAS]
                for p in parameters
            ]
            for combination in itertools.product(*choices):
                path_values = dict(zip((p["name"] for p in parameters), combination, strict=True))
                path = template
                for name, value in path_values.items():
                    path = path.replace(f"{{{name}}}", value)
                response = client.get(path, params={"book": PLACEHOLDER})
                if response.status_code != 400:
                    continue
                error = response.json()["error"]
                key = hooks.rule_key(template, path_values)
                if error["code"] == "unknown_book":
                    without = client.get(path)
                    named = (
                        [
                            p.get("name")
                            for p in without.json().get("error", {}).get("details", {}).get("parameters", [])
                        ]
                        if without.status_code == 400
                        else []
                    )
                    rules[key] = {"available": error["details"]["available"], "required": "book" in named}
                elif "book" in [p.get("name") for p in error["details"].get("parameters", [])]:
                    rules[key] = {"accepted": False}
    return rules


@dataclass
class Prepared:
    """What the runs of one server share: the fuzz document, and per key its book rules and the
    alphas it may read."""

    document: Path
    books: dict[str, Path]
    alphas: dict[str, Path]


def prepare(base: str, tokens: dict[str, str], workdir: Path) -> Prepared:
    document = fuzz_document(base, tokens)
    path = workdir / "openapi.fuzz.json"
    path.write_text(json.dumps(document, indent=1))
    books, alphas = {}, {}
    for label, token in tokens.items():
        books[label] = workdir / f"books-{label}.json"
        books[label].write_text(json.dumps(book_rules(base, document, token), indent=1))
        alphas[label] = workdir / f"alphas-{label}.json"
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
            alphas[label].write_text(json.dumps(_alphas(client)))
    return Prepared(path, books, alphas)


@dataclass
class Report:
    """One schemathesis run: cases generated and unique failures by check code."""

    label: str
    cases: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    titles: dict[str, str] = field(default_factory=dict)
    operations: dict[str, set[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    exit_code: int = 0
    operations_selected: int = 0
    operations_tested: int = 0

    def add(self, other: Report) -> None:
        self.cases += other.cases
        self.failures.update(other.failures)
        self.titles.update(other.titles)
        for code, ops in other.operations.items():
            self.operations.setdefault(code, set()).update(ops)
        self.errors += other.errors
        self.seconds += other.seconds
        self.exit_code = self.exit_code or other.exit_code
        self.operations_selected = max(self.operations_selected, other.operations_selected)
        self.operations_tested = max(self.operations_tested, other.operations_tested)

    def counting(self) -> Counter[str]:
        """The failures that count: all but the contract's known divergences."""
        return Counter({c: n for c, n in self.failures.items() if c not in CONTRACT_DIVERGENCES})

    def lines(self) -> list[str]:
        out = [
            f"{self.label}: {self.cases} cases in {self.seconds:.0f} s, {sum(self.failures.values())} failures"
        ]
        for code, count in sorted(self.failures.items()):
            note = " (contract divergence, not counted)" if code in CONTRACT_DIVERGENCES else ""
            ops = ", ".join(sorted(self.operations.get(code, ())))
            out.append(f"  {code} {self.titles.get(code, '')}: {count}{note} [{ops}]")
        out += [f"  error: {e}" for e in self.errors]
        return out


def server_errors(log: str) -> list[str]:
    """Access-log lines of 5xx answers and tracebacks in the server's output."""
    return [line for line in log.splitlines() if '"status":5' in line or line.startswith("Traceback")]


REJECTION_STATUSES = (
    *("400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429"),
    "414",
    "431",
    "5xx",
)
"""Statuses that reject a schema-violating request: schemathesis's own list plus 414 and 431, the
server's refusals of a request line or head over its limits (docs/api.md "Requests refused before
the app"). An overlong invalid value can be refused there before any parameter is read: a
rejection, not the acceptance ST201 reports."""

CONFIG = "[checks.negative_data_rejection]\nexpected-statuses = [{}]\n".format(
    ", ".join(f'"{status}"' for status in REJECTION_STATUSES)
) + (
    # The screener refuses a schema-valid residual filter or sort with a 400 naming it when the
    # key's default reference set is not the one the index measured them against (docs/analytics.md,
    # "Screener"): a refusal that depends on the key's grants and the standings, which no schema
    # can express. Accepted as a documented answer on that operation alone; every other operation
    # must accept every schema-valid request.
    '\n[[operations]]\ninclude-path = "/v1/analytics/screen"\n'
    'checks.positive_data_acceptance.expected-statuses = ["2xx", "400"]\n'
)


def schemathesis_command(workdir: Path | None = None) -> list[str]:
    """`schemathesis` with this harness's configuration (written into `workdir`)."""
    command = [sys.executable, "-m", "schemathesis.cli"]
    if workdir is not None:
        config = workdir / "schemathesis.toml"
        config.write_text(CONFIG)
        command += ["--config-file", str(config)]
    return command


ROOT = Path(__file__).resolve().parents[2]


def run_schemathesis(
    prepared: Prepared,
    base: str,
    token: str,
    label: str,
    workdir: Path,
    max_examples: int,
    max_time: float | None = None,
    seed: int | None = None,
    workers: int = 1,
    phases: str = "examples,coverage,fuzzing,stateful",
    name: str | None = None,
) -> Report:
    """`st run` with every check over the whole document, as one key; the JSON report read back.
    Its log and report are `schemathesis-<name>.log` and `report-<name>.json` (name: the label)."""
    name = name or label
    report_path = workdir / f"report-{name}.json"
    report_path.unlink(missing_ok=True)
    command = [
        *schemathesis_command(workdir),
        "run",
        str(prepared.document),
        "--url",
        base,
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {token}",
        "--phases",
        phases,
        "--max-examples",
        str(max_examples),
        "--workers",
        str(workers),
        "--request-timeout",
        "30",
        # A stream never ends: its answer would hold a worker of schemathesis for ever
        # (tests/e2e/test_events_served.py tests it).
        "--exclude-operation-id",
        "events.stream",
        "--generation-database",
        "none",
        "--report",
        "json",
        "--report-json-path",
        str(report_path),
        "--no-color",
    ]
    if max_time is not None:
        command += ["--max-time", str(max(1, int(max_time)))]
    if seed is not None:
        command += ["--seed", str(seed)]
    log = workdir / f"schemathesis-{name}.log"
    started = time.monotonic()
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks",
        hooks.BOOKS_FILE: str(prepared.books[label]),
        hooks.ALPHAS_FILE: str(prepared.alphas[label]),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    with log.open("wb") as sink:
        exit_code = subprocess.run(
            command, stdout=sink, stderr=subprocess.STDOUT, cwd=workdir, env=env
        ).returncode
    report = Report(label, seconds=time.monotonic() - started, exit_code=exit_code)
    if not report_path.exists():
        report.errors.append(f"no report (exit {exit_code}); see {log}")
        return report
    try:
        data = json.loads(report_path.read_text())
    except ValueError:
        report.errors.append(f"unreadable report (exit {exit_code}); see {log}")
        return report
    report.cases = int(data["test_cases"]["generated"])
    report.operations_selected = int(data["operations"]["selected"])
    report.operations_tested = int(data["operations"]["tested"])
    for failure in data["failures"]:
        report.failures[failure["code"]] += int(failure["count"])
        report.titles[failure["code"]] = failure["title"]
        report.operations.setdefault(failure["code"], set()).update(failure["operations"])
    report.errors += [json.dumps(error)[:500] for error in data.get("errors", [])]
    return report
