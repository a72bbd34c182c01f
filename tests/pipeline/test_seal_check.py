"""`alpha-results seal check` reports every broken rule of a seal in one run (issue 37).

Before it, `alpha-results build` stopped at the first broken rule: a team with three mistakes was
refused three times, and a sample row showed every column of its table. The checker and the
publish path run the same code (`alpha_results_seal.check`): both name the same rules. The JSON
Schemas of manifest.json and description.json are generated from their declarations and the
manifest's is what `manifest.fields` checks.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from jsonschema import Draft202012Validator

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.check import check_seal
from alpha_results_seal.manifest import manifest_problems, manifest_schema
from alpha_results_seal.rules import RULES, SealRejected
from pipeline import seal_schemas
from pipeline.publish import publish_seal
from tests.pipeline.conftest import CLI, copy_seal
from tests.support.seal_edits import add_to, edit_manifest, on, set_cell, snapshot

ROOT = Path(__file__).resolve().parents[2]
THREE_MISTAKES = ["manifest.fields", "exposures.sector_text", "ledger.cash_plus_positions_is_equity"]


def seal_check(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "seal", "check", *map(str, args)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def broken(factory_seal: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The factory seal with three mistakes of three kinds: a manifest field, a sector, a ledger
    identity."""
    seal = copy_seal(factory_seal, tmp_path_factory.mktemp("three") / "Test_factory")
    edit_manifest(lambda m: m.update(universe_size="many"))(seal)
    on("exposures.parquet", set_cell("sector", 2, "=HYPERLINK(1)"))(seal)
    on("portfolio/long_short.parquet", add_to({"cash_end": 1e-3}, pl.int_range(pl.len()) == 3))(seal)
    return seal


def test_a_good_seal_is_ok(factory_seal: Path) -> None:
    done = seal_check(factory_seal)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.splitlines() == [
        f"OK         Test_factory  ({factory_seal})",
        "1 seal: 1 OK, 0 refused",
    ]


def test_every_mistake_is_reported_in_one_run(factory_seal: Path, broken: Path) -> None:
    done = seal_check(factory_seal, broken)
    assert done.returncode == 1, (done.stdout, done.stderr)
    refusals = re.findall(r"^  refused by rule (\S+) \(kind \w+\): ", done.stdout, flags=re.M)
    assert refusals == THREE_MISTAKES, done.stdout
    assert "universe_size must be of type integer, got 'many'" in done.stdout
    assert f"refused    Test_factory  ({broken})" in done.stdout
    assert done.stdout.splitlines()[-1] == "2 seals: 1 OK, 1 refused"
    assert not (broken / "lake").exists() and "Traceback" not in done.stderr


def test_the_json_report_holds_each_rule_with_only_its_columns(broken: Path) -> None:
    done = seal_check("--json", broken)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False
    [seal] = report["seals"]
    assert (seal["seal"], seal["target"], seal["ok"], seal["not_checked"]) == (
        str(broken),
        "Test_factory",
        False,
        [],
    )
    by_rule = {b["rule"]: b for b in seal["broken"]}
    assert [b["rule"] for b in seal["broken"]] == THREE_MISTAKES
    [sector] = by_rule["exposures.sector_text"]["sample_rows"]
    assert sector == {"date": "2023-01-06", "symbol": "S002", "sector": "=HYPERLINK(1)"}
    [ledger] = by_rule["ledger.cash_plus_positions_is_equity"]["sample_rows"]
    assert set(ledger) == {"book", "date", "cash_end", "position_value_end", "ending_equity"}
    assert ledger["book"] == "long_short"


def test_a_path_that_is_not_a_folder_is_a_usage_error(factory_seal: Path, tmp_path: Path) -> None:
    done = seal_check(factory_seal, tmp_path / "absent", factory_seal / "manifest.json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"alpha-results seal check: {path} is not a folder (a seal is a folder)"
        for path in (tmp_path / "absent", factory_seal / "manifest.json")
    ]


def test_the_publish_path_refuses_with_the_same_rules(
    broken: Path, tmp_path: Path, factory_seal: Path
) -> None:
    lake = tmp_path / "lake"
    assert publish_seal(str(factory_seal), str(lake)).status == "published"
    before = snapshot(lake)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(broken), str(lake))
    refused = [caught.value.rule, *(other["rule"] for other in caught.value.more)]
    assert refused == [b.rule for b in check_seal(str(broken)).broken] == THREE_MISTAKES
    assert snapshot(lake) == before


def test_a_manifest_against_its_schema(factory_seal: Path, tmp_path: Path) -> None:
    """The committed schema refuses what `manifest.fields` refuses, each problem named; a text
    over its bound is `manifest.text_bounds`'s, once; a manifest whose books are unknown leaves
    the tables' rules not checked, never run."""
    seal = copy_seal(factory_seal, tmp_path / "seal")
    changes: dict[str, Any] = {
        "research_cutoff": "soon",
        "source_archive": {"status": "lost", "filename": "x.zip"},
        "books": "long_short",
        "name": "n" * 201,
    }
    committed = json.loads((ROOT / "docs" / "schemas" / "manifest.schema.json").read_text())
    schema = Draft202012Validator(committed, format_checker=Draft202012Validator.FORMAT_CHECKER)
    manifest = json.loads((seal / "manifest.json").read_text())
    assert schema.is_valid(manifest)
    assert not any(schema.is_valid(manifest | {key: value}) for key, value in changes.items())
    edit_manifest(lambda m: m.update(changes))(seal)
    report = check_seal(str(seal))
    assert [(b.rule, b.message) for b in report.broken] == [
        (
            "manifest.fields",
            "books must be of type array, got 'long_short'; "
            "source_archive.status must be one of ['ready', 'packaging', 'failed'], got 'lost'; "
            "research_cutoff must be a date YYYY-MM-DD, got 'soon'",
        ),
        (
            "manifest.text_bounds",
            '1 value(s) over their bound; name has 201 characters, at most 200 (docs/seal.md "Text")',
        ),
    ]
    skipped = {n.rule: n.reason for n in report.not_checked}
    assert skipped["ledger.ending_equity_identity"] == skipped["manifest.kinds_present"]
    assert "books break manifest.fields" in skipped["manifest.kinds_present"]
    assert "source.sha256_matches" in skipped


def test_the_schema_files_are_current() -> None:
    assert seal_schemas.stale() == [], "docs/schemas/ is stale: run `just reference` and commit it"
    archive = manifest_schema()["$defs"]["AlphaManifest"]["properties"]["source_archive"]["anyOf"][0]
    assert list(archive["discriminator"]["mapping"]) == list(S.SOURCE_ARCHIVE_STATUSES)


def test_docs_list_every_rule_in_order() -> None:
    text = (ROOT / "docs" / "seal.md").read_text()
    table = text[text.index("| rule | checks |") : text.index("**Reading of the session P&L identity.**")]
    assert re.findall(r"^\| `([a-z_]+\.[a-z_0-9]+)` \|", table, flags=re.M) == list(RULES)


HOSTILE_VALUES: tuple[Any, ...] = (None, 1, -1.5, True, "x", "", [], [1], [None], [[]], {}, {"a": 1})


def test_a_manifest_field_of_any_type_or_missing_is_a_problem_never_a_crash(
    factory_seal: Path, benchmark_seal: Path
) -> None:
    """Seals are untrusted: every top-level field of a good manifest (an alpha's and a
    benchmark's), removed or replaced by a value of another JSON type, is reported as a problem
    of the manifest; none raises (an empty manifest once did, on `books`)."""

    assert manifest_problems({})  # every required field named
    definitions = manifest_schema()["$defs"]
    for seal, struct in ((factory_seal, "AlphaManifest"), (benchmark_seal, "BenchmarkManifest")):
        good = json.loads((seal / "manifest.json").read_text())
        assert manifest_problems(good) == []
        for key in good:
            missing = {k: v for k, v in good.items() if k != key}
            assert bool(manifest_problems(missing)) == (key in definitions[struct]["required"]), key
            for value in HOSTILE_VALUES:
                if value == good[key] or key == "type":
                    continue
                manifest_problems({**good, key: value})  # a problem or, where the type fits, none


def test_a_seal_whose_manifest_misdescribes_its_files_is_refused_never_a_crash(
    factory_seal: Path, tmp_path: Path
) -> None:
    """The fields that say which files a seal holds, of any JSON type: the check refuses the seal
    with `manifest.fields` and lists what it could not check, whatever the value."""

    seal = copy_seal(factory_seal, tmp_path / "Test_factory")
    good = json.loads((seal / "manifest.json").read_text())
    for key in ("type", "kinds_sealed", "required_kinds", "books", "trade_books", "universe_size"):
        for value in HOSTILE_VALUES:
            manifest = {**good, key: value}
            (seal / "manifest.json").write_text(json.dumps(manifest))
            report = check_seal(str(seal))  # never raises
            if manifest_problems(manifest):  # else the value fits (no required kind, say)
                assert not report.ok and "manifest.fields" in {f.rule for f in report.broken}, (key, value)
