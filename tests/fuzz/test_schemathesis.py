"""Schemathesis, every check, against the OpenAPI document a real `alpha-results serve` serves, with
an administrator's key and a self-service key (the fast profile; `just fuzz` is the long one).

Each key gets a run bounded by a number of cases, not by time (issue 33, item 15: a run of 20 s
tested 14 of 37 operations on a busy machine and failed): the examples, fuzzing and stateful phases,
five examples per operation, every operation tested. The coverage phase (thousands of boundary
cases, a minute per key on a quiet machine) runs under `just fuzz`. No server error and no
response-schema violation may be found, nor any other check's failure except the contract's known
divergences (tests.fuzz.harness.CONTRACT_DIVERGENCES), which are checked here against the contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.fuzz.harness import (
    CONTRACT_DIVERGENCES,
    KEY_LABELS,
    SCHEMA_VIOLATION,
    SERVER_ERROR,
    Prepared,
    Server,
    create_keys,
    prepare,
    run_schemathesis,
    server_errors,
    serving,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

EXAMPLES = 5
PHASES = "examples,fuzzing,stateful"
"""About 270 cases per key, 20 s on a quiet machine: 40 s of schemathesis, plus the server's start."""
SEED = 20261122


@dataclass
class Fuzz:
    server: Server
    tokens: dict[str, str]
    prepared: Prepared
    workdir: Path


@pytest.fixture(scope="module")
def fuzz(demo_lake: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    workdir = tmp_path_factory.mktemp("fuzz")
    keystore = f"sqlite:///{workdir}/keys.sqlite3"
    tokens = create_keys(keystore)
    with serving(demo_lake, keystore, workdir) as server:
        yield Fuzz(server, tokens, prepare(server.base, tokens, workdir), workdir)


@pytest.mark.parametrize("label", KEY_LABELS)
def test_schemathesis_finds_no_server_error_and_no_schema_violation(fuzz: Fuzz, label: str) -> None:
    report = run_schemathesis(
        fuzz.prepared,
        fuzz.server.base,
        fuzz.tokens[label],
        label,
        fuzz.workdir,
        max_examples=EXAMPLES,
        phases=PHASES,
        seed=SEED,
    )
    summary = "\n".join([*report.lines(), f"log: {fuzz.workdir / f'schemathesis-{label}.log'}"])
    assert not report.errors, summary
    assert report.operations_selected > 0 and report.operations_tested == report.operations_selected, summary
    assert report.cases >= 100, summary
    assert report.failures[SERVER_ERROR] == 0, summary
    assert report.failures[SCHEMA_VIOLATION] == 0, summary
    assert not report.counting(), summary
    assert not server_errors(fuzz.server.output()), summary
    # The divergence: an undeclared method on a declared path is the router's 404 method_not_allowed.
    for operation in report.operations.get("ST204", ()):
        method, path = operation.split(" ", 1)
        if "{" in path:
            continue
        response = httpx.request(method, fuzz.server.base + path, timeout=10)
        assert response.status_code == 404, (operation, response.text)
        assert response.json()["error"]["code"] == "method_not_allowed", (operation, response.text)
    assert set(report.failures) <= {*CONTRACT_DIVERGENCES}, summary
