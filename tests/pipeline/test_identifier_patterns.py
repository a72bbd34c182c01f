"""Every identifier pattern matches a value whole (issue 22, item 5).

`re.match` with `^...$` let a trailing newline through: `"Test_nl\\n"` was published to
`alphas/Test_nl\\n/`, listed and served, its signed export URLs answering 404. Each pattern is
checked on its own (a newline before, after or inside a valid value never matches), and through
what uses it: a seal naming such an alpha, book or benchmark symbol is refused with a report and
publishes nothing; a token with a trailing newline is malformed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from datasets import layout
from pipeline.publish import publish_seal
from pipeline.rules import SealRejected
from pipeline.validate import BOOK_NAME, SHA256_HEX, SNAKE_CASE
from serve import errors
from serve.archives import ARCHIVE_OBJECT_PATH
from serve.exports import EXPORT_OBJECT_PATH
from serve.identity.tokens import generate_token, parse_token
from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

SHA = "ab" * 32
PATTERNS: dict[str, tuple[re.Pattern[str], str]] = {
    "alpha id": (layout.ALPHA_ID_PATTERN, "Test_nl"),
    "benchmark symbol": (layout.BENCHMARK_SYMBOL_PATTERN, "SPY"),
    "book name": (BOOK_NAME, "long_short"),
    "snake case": (SNAKE_CASE, "not_traded"),
    "sha256": (SHA256_HEX, SHA),
    "archive path": (ARCHIVE_OBJECT_PATH, f"archives/Test_nl/{SHA}.zip"),
    "export path": (
        EXPORT_OBJECT_PATH,
        "alphas/Test_nl/builds/0123456789abcdef0123-89abcdef/exports/decisions.parquet",
    ),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_a_pattern_matches_a_value_whole(name: str) -> None:
    pattern, good = PATTERNS[name]
    assert pattern.fullmatch(good), name
    for bad in (good + "\n", "\n" + good, good + "\r\n", good[:2] + "\n" + good[2:], good + " "):
        assert not pattern.fullmatch(bad), (name, bad)
    assert "^" not in pattern.pattern and "$" not in pattern.pattern  # anchors are fullmatch's job


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
