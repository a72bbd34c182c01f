"""Every identifier pattern matches a value whole (issue 22, item 5).

`re.match` with `^...$` let a trailing newline through: `"Test_nl\\n"` was published to
`alphas/Test_nl\\n/`, listed and served, its signed export URLs answering 404. Each pattern is
checked on its own (a newline before, after or inside a valid value never matches, nor trailing
junk), and through what uses it: a seal naming such an alpha, book, week status or benchmark symbol
is refused with a report and publishes nothing; a token with a trailing newline is malformed.

`PATTERNS` must hold every pattern the project declares: a discovery test scans the project's
modules (not the tests) for `re.compile(...)` and `*_PATTERN` declarations and fails on one that
is neither in the table nor declared a search pattern (`SEARCHING`: found inside a text, never
matched against a whole value).
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from access import tokens
from access.tokens import generate_token, parse_token
from alpha_results_seal import arrow_schemas as seal
from alpha_results_seal import families
from alpha_results_seal.manifest import BOOK_NAME, PARAMETER_TEXT, SHA256_HEX
from alpha_results_seal.rules import SealRejected
from alpha_results_seal.validate import SNAKE_CASE
from cli import webhooks as cli_webhooks
from core import errors
from datasets import layout
from pipeline.publish import publish_seal
from records import cursors
from schemas import query
from serve import front, params, scrape_token, weights
from serve.oauth.builtin import CSP_SOURCE
from serve.sharing import protocol as sharing_protocol
from serve.signing import archives, byte_ranges
from serve.signing.archives import ARCHIVE_OBJECT_PATH
from serve.signing.export_urls import EXPORT_OBJECT_PATH
from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

REPO = Path(__file__).resolve().parents[2]
SHA = "ab" * 32
PATTERNS: dict[str, tuple[re.Pattern[str], str, str]] = {
    # name: (pattern, a value it matches whole, trailing junk it must refuse)
    "alpha id": (layout.ALPHA_ID_PATTERN, "Test_nl", " "),
    "benchmark symbol": (layout.BENCHMARK_SYMBOL_PATTERN, "SPY", " "),
    "book name": (BOOK_NAME, "long_short", " "),
    "snake case": (SNAKE_CASE, "not_traded", " "),
    "sha256": (SHA256_HEX, SHA, " "),
    "archive path": (ARCHIVE_OBJECT_PATH, f"archives/Test_nl/{SHA}.zip", " "),
    "export path": (
        EXPORT_OBJECT_PATH,
        "alphas/Test_nl/builds/0123456789abcdef0123-89abcdef/exports/decisions.parquet",
        " ",
    ),
    # The download URL's query (SIGNATURE_PATTERN is SHA256_HEX_PATTERN).
    "download sha256 and signature": (archives.SHA256_HEX_PATTERN, SHA, "0"),
    "download expires": (archives.EXPIRES_PATTERN, "1767225600", "x"),
    "download holder": (archives.HOLDER_PATTERN, "k3Y9idAbCdEf0123", "x"),
    "token": (tokens._TOKEN_SHAPE, generate_token().token, "x"),
    "download byte range": (byte_ranges.BYTE_RANGE, "bytes=0-99", ","),
    "delta sharing page offset": (sharing_protocol._DIGITS, "1000", " "),
    # A Delta Sharing table version asked for in `metadata`'s query (a build's time in seconds).
    "delta sharing version": (sharing_protocol._VERSION, "1647064801", " "),
    # Query parameters: spaces or tabs around a number or ticker are tolerated by design.
    "date": (params.DATE_PATTERN, "2024-02-29", " "),
    "integer": (params.INTEGER_PATTERN, "+12", "x"),
    "number": (params.NUMBER_PATTERN, "-1.5e3", "x"),
    "symbol list": (params.SYMBOL_LIST_PATTERN, "spy, QQQ", ","),
    "qvalue": (weights.QVALUE, "0.5", "x"),
    "tag list": (params.ITEM_LIST_PATTERN, "trend, value", ","),
    # A text value of a seal's trial parameters (manifest `parameters`, issue 50): no space.
    "seal parameter text": (PARAMETER_TEXT, "ridge:0.5e-3", " "),
    # A build run's team (`build --team`) and a family register's version file (issue 60).
    "team": (families.TEAM, "research_a", " "),
    "family register version": (families.VERSION, "00000001.json", "x"),
    # A seal's sector (exposures.sector_text): plain text, spaces inside allowed.
    "sector": (seal.SECTOR_PATTERN, "Health Care", "!"),
    # The /metrics bearer token an operator writes in its token file: printable ASCII, no space.
    "scrape token": (scrape_token.TOKEN_SHAPE, "s3cr3t-TOKEN_0~", " "),
    # An event cursor (/v1/events?after=): 16 hex of the id, 16 of its tag.
    "event cursor": (cursors.CURSOR, "0123456789abcdef" * 2, "0"),
    # An operator's duration on the command line (webhooks replay --since 90m).
    "cli duration": (cli_webhooks._DURATION, "1.5h", "x"),
    # A read route's `as_of` (issue 81, item 3; `schemas.query.AS_OF_FORM` is its anchored text
    # for the OpenAPI document, whose regex dialect has no named groups).
    "as_of": (query._AS_OF, "2021-11-30T15:00:00.5+01:00", "x"),
    # The origin of a client's registered redirect, allowed as the consent page's form-action
    # (issue 80): a scheme and a host, nothing a CSP source list could be widened by.
    "consent redirect origin": (CSP_SOURCE, "https://agent.example:8443", " "),
    # A request's Host header, checked by the one-pass layer before routing (as Litestar's router).
    "host header": (front._HOST, "[::1]:8443", " "),
}
SEARCHING = {
    "delivery.deliveries._PRINTABLE": "finds unprintable runs in a webhook receiver's answer, to quote it in an attempt",
    "access.tokens.TOKEN_LIKE": "finds token-shaped text inside request input, to redact it",
    "serve.front.NONCANONICAL_ESCAPE": "finds needless percent-escapes inside a raw path",
    "alpha_results_client.ratelimit._RATELIMIT_FIELD": "reads the fields of a RateLimit header",
    "alpha_results_client.log_redaction.SIGNATURE": "finds signed-URL secrets inside log text",
    "alpha_results_seal.validate.BIDI_CONTROL": "finds a bidirectional control character inside seal text, to refuse it",
    "serve.representation._LINE_SEPARATORS": "finds U+2028 and U+2029 inside an NDJSON body, to escape them",
    "serve.prometheus._LIVE_GAUGE_FILE": "finds the worker pid in the name of a metrics file the server wrote",
    "serve.declaration.PATH_PARAMETER": "finds the `{name:type}` parameters inside a route's declared path template",
    "alpha_results_seal.printable.CONTROLS": "finds control characters inside a seal's text, to escape them in a report",
    "pipeline.lake_tables.YEAR_IN_PATH": "finds the year partition inside a table file's path, to count an alpha's files",
}
"""Declared patterns that search inside a text rather than match a whole value, and why."""
MODULE_ROOTS = {
    **{
        package.removesuffix("*"): REPO
        for package in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"][
            "find"
        ]["include"]
    },
    "alpha_results_client": REPO / "client" / "src",
    "alpha_results_seal": REPO / "sealkit" / "src",
}
"""The project's packages (pyproject.toml's own list, so a moved or new package is read too) and
the folder each is imported from."""


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_a_pattern_matches_a_value_whole(name: str) -> None:
    pattern, good, junk = PATTERNS[name]
    assert pattern.fullmatch(good), name
    for bad in (good + "\n", "\n" + good, good + "\r\n", good[:2] + "\n" + good[2:], good + junk):
        assert not pattern.fullmatch(bad), (name, bad)
    unanchored = pattern.pattern.replace("[^", "[")  # a negated class is not an anchor
    assert "^" not in unanchored and "$" not in unanchored  # anchors are fullmatch's job


def is_re_compile(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compile"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
    )


def declared_patterns() -> dict[str, Any]:
    """`module.NAME` -> the object, of every `re.compile(...)` and every `*_PATTERN` name the
    project's modules assign; a `re.compile` anywhere but a module-level assignment fails."""
    found: dict[str, Any] = {}
    for package, root in MODULE_ROOTS.items():
        for path in sorted((root / package).rglob("*.py")):
            module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
            tree = ast.parse(path.read_text(), str(path))
            declared: dict[str, ast.AST] = {}
            for statement in tree.body:
                if isinstance(statement, ast.Assign):
                    declared.update(
                        (t.id, statement.value) for t in statement.targets if isinstance(t, ast.Name)
                    )
                elif (
                    isinstance(statement, ast.AnnAssign)
                    and statement.value
                    and isinstance(statement.target, ast.Name)
                ):
                    declared[statement.target.id] = statement.value
            module_level = [value for value in declared.values() if is_re_compile(value)]
            for node in ast.walk(tree):
                assert not is_re_compile(node) or any(node is value for value in module_level), (
                    f"{path}:{getattr(node, 'lineno', '?')}: declare the pattern as a module-level name"
                )
            for name, value in declared.items():
                if name.endswith("_PATTERN") or is_re_compile(value):
                    found[f"{module}.{name}"] = getattr(importlib.import_module(module), name)
    return found


def test_every_declared_pattern_is_checked_here() -> None:
    declared = declared_patterns()
    assert (
        "alpha_results_seal.identifiers.ALPHA_ID_PATTERN" in declared
        and "serve.signing.archives.HOLDER_PATTERN" in declared
    )
    tabled = [pattern for pattern, _, _ in PATTERNS.values()]
    missing = sorted(
        name
        for name, pattern in declared.items()
        if name not in SEARCHING and not any(pattern is known for known in tabled)
    )
    assert missing == [], f"add these to PATTERNS (or to SEARCHING, with why): {missing}"
    assert set(SEARCHING) <= set(declared), "SEARCHING names a pattern no module declares"


def test_openapi_download_patterns_are_the_declared_ones() -> None:
    """The download routes' documented patterns are derived from the patterns the route checks,
    anchored (a JSON Schema `pattern` searches), never spelt out again."""
    from serve.openapi.downloads import anchored, download_operation, export_download_operation

    expected = {
        "expires": archives.EXPIRES_PATTERN,
        "holder": archives.HOLDER_PATTERN,
        "signature": archives.SIGNATURE_PATTERN,
    }
    archive = {p["name"]: p["schema"] for p in download_operation()["parameters"]}
    export = {p["name"]: p["schema"] for p in export_download_operation()["parameters"]}
    for schemas in (archive, export):
        for name, pattern in expected.items():
            assert schemas[name]["pattern"] == anchored(pattern), name
    assert archive["sha256"]["pattern"] == anchored(archives.SHA256_HEX_PATTERN)
    assert archive["alpha_id"]["pattern"] == anchored(layout.ALPHA_ID_PATTERN)


def manifest_edited(seal: Path, **values: object) -> Path:
    manifest = json.loads((seal / "manifest.json").read_text())
    manifest.update(values)
    (seal / "manifest.json").write_text(json.dumps(manifest))
    return seal


def test_an_alpha_id_with_a_trailing_newline_is_refused_and_nothing_published(tmp_path: Path) -> None:
    seal = manifest_edited(write_factory_seal(tmp_path / "seal", alpha_id="Test_nl"), alpha_id="Test_nl\n")
    lake = tmp_path / "lake"
    with pytest.raises(SealRejected) as refused:
        publish_seal(str(seal), str(lake))
    assert refused.value.rule == "manifest.fields"
    assert not (lake / "alphas").exists() or not any((lake / "alphas").iterdir())
    with pytest.raises(ValueError):
        layout.alpha_builds_dir(str(lake), "Test_nl\n")


def test_a_book_name_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    seal = write_factory_seal(tmp_path / "seal")
    manifest = json.loads((seal / "manifest.json").read_text())
    books = [*manifest["books"][:-1], manifest["books"][-1] + "\n"]
    manifest_edited(seal, books=books)
    with pytest.raises(SealRejected) as refused:
        publish_seal(str(seal), str(tmp_path / "lake"))
    assert refused.value.rule == "manifest.fields"


def test_a_week_status_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    """The rebalances rule checks `week_status` in polars, anchored by hand (Rust's `$` is the end
    of the text, never before a final newline)."""
    seal = write_factory_seal(tmp_path / "seal")
    table = pq.read_table(seal / "rebalances.parquet")
    statuses = table.column("week_status").to_pylist()
    statuses[0] = "halted_market\n"
    index = table.schema.get_field_index("week_status")
    table = table.set_column(index, table.schema.field(index), [statuses])
    pq.write_table(table, seal / "rebalances.parquet")
    with pytest.raises(SealRejected) as refused:
        publish_seal(str(seal), str(tmp_path / "lake"))
    assert refused.value.rule == "rebalances.week_status_values"


def test_a_benchmark_symbol_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    seal = manifest_edited(write_benchmark_seal(tmp_path / "spy"), symbol="SPY\n")
    with pytest.raises(SealRejected):
        publish_seal(str(seal), str(tmp_path / "lake"))
    assert not (tmp_path / "lake" / "benchmarks").exists()


def test_a_token_with_a_trailing_newline_is_malformed() -> None:
    token = generate_token().token
    assert parse_token(token).key_id
    with pytest.raises(errors.MalformedApiKey):
        parse_token(token + "\n")


def test_a_symbol_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    """Symbols are checked in polars against the API's ticker pattern, anchored by hand."""
    seal = write_factory_seal(tmp_path / "seal")
    table = pq.read_table(seal / "positions" / "long_short.parquet")
    symbols = table.column("symbol").to_pylist()
    symbols[0] += "\n"
    index = table.schema.get_field_index("symbol")
    table = table.set_column(index, table.schema.field(index), [symbols])
    pq.write_table(table, seal / "positions" / "long_short.parquet")
    with pytest.raises(SealRejected) as refused:
        publish_seal(str(seal), str(tmp_path / "lake"))
    assert (refused.value.rule, refused.value.kind) == ("symbols.ticker_pattern", "positions")
