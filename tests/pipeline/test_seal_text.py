"""The text of manifest.json and description.json is bounded and free of bidirectional controls
(issue 33, audit items 20 and 21): a seal over any bound, or holding a control that reverses the
text beside it, is refused by a named rule whose report names the path, its length and its bound;
the alpha's published build stays as it was. Text at each bound is published.

Before these rules a seal with a 50 KB name, a 200 KB tldr and 50 tags of 5,000 characters was
published and made every catalogue page heavy, and a 600 KB `source_alpha_id` went into X-Meta.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from alpha_results_seal import arrow_schemas as S
from alpha_results_seal.rules import SealRejected
from pipeline.publish import publish_seal
from tests.pipeline.conftest import copy_seal
from tests.support.seal_edits import snapshot

Change = Callable[[dict[str, Any]], None]


def _edit(seal: Path, file: str, change: Change) -> None:
    document = json.loads((seal / file).read_text())
    change(document)
    (seal / file).write_text(json.dumps(document))


def both_tldrs(text: str) -> Callable[[Path], None]:
    """The same tldr in both files (description.tldr_matches_manifest holds)."""

    def mutate(seal: Path) -> None:
        _edit(seal, "manifest.json", lambda m: m.update(tldr=text))
        _edit(seal, "description.json", lambda d: d.update(tldr=text))

    return mutate


def manifest(change: Change) -> Callable[[Path], None]:
    return lambda seal: _edit(seal, "manifest.json", change)


def description(change: Change) -> Callable[[Path], None]:
    return lambda seal: _edit(seal, "description.json", change)


def classification(**values: Any) -> Callable[[Path], None]:
    return description(lambda d: d.update(classification=values))


# (rule, path named in the report, limit, mutation)
OVER: list[tuple[str, str, int, Callable[[Path], None]]] = [
    ("manifest.text_bounds", "name", 200, manifest(lambda m: m.update(name="n" * 50_000))),
    ("manifest.text_bounds", "tldr", 2_000, both_tldrs("t" * 200_000)),
    (
        "manifest.text_bounds",
        "source_alpha_id",
        128,
        manifest(lambda m: m.update(source_alpha_id="r" * 600_000)),
    ),
    ("manifest.text_bounds", "engine_version", 200, manifest(lambda m: m.update(engine_version="e" * 201))),
    (
        "manifest.text_bounds",
        "signal_processing.detail",
        S.MANIFEST_TEXT_MAX_CHARS,
        manifest(lambda m: m["signal_processing"].update(detail="d" * 2_001)),
    ),
    (
        "manifest.text_bounds",
        "signal_processing." + "k" * 129,
        S.KEY_MAX_CHARS,
        manifest(lambda m: m["signal_processing"].update({"k" * 129: 1})),
    ),
    ("description.text_bounds", "name", 200, description(lambda d: d.update(name="n" * 201))),
    ("description.text_bounds", "classification.tags[]", 64, classification(tags=["x" * 5_000] * 50)),
    (
        "description.text_bounds",
        "classification.tags",
        32,
        classification(tags=[f"tag{i}" for i in range(33)]),
    ),
    ("description.text_bounds", "classification.structure", 128, classification(structure="s" * 129)),
    ("description.text_bounds", "classification.method", 128, classification(method="m" * 129)),
    (
        "description.text_bounds",
        "thesis.hypothesis",
        S.DESCRIPTION_TEXT_MAX_CHARS,
        description(lambda d: d["thesis"].update(hypothesis="h" * 20_001)),
    ),
    (
        "description.text_bounds",
        "signal.pseudocode",
        S.DEFAULT_LIST_MAX_ITEMS,
        description(lambda d: d.update(signal={"pseudocode": ["step"] * 501})),
    ),
]


@pytest.fixture()
def published(tmp_path: Path, factory_seal: Path) -> tuple[Path, dict[str, bytes]]:
    lake = tmp_path / "lake"
    assert publish_seal(str(factory_seal), str(lake)).status == "published"
    return lake, snapshot(lake)


def refusal(tmp_path: Path, factory_seal: Path, lake: Path, mutate: Callable[[Path], None]) -> SealRejected:
    broken = copy_seal(factory_seal, tmp_path / "broken")
    mutate(broken)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(broken), str(lake))
    return caught.value


@pytest.mark.parametrize(("rule", "path", "limit", "mutate"), OVER, ids=[f"{c[0]}:{c[1][:40]}" for c in OVER])
def test_a_text_over_its_bound_is_refused_naming_the_rule_path_and_bound(
    rule: str,
    path: str,
    limit: int,
    mutate: Callable[[Path], None],
    tmp_path: Path,
    factory_seal: Path,
    published: tuple[Path, dict[str, bytes]],
) -> None:
    lake, before = published
    rejected = refusal(tmp_path, factory_seal, lake, mutate)
    assert (rejected.rule, rejected.kind) == (rule, rule.split(".")[0]), rejected.report()
    assert rejected.samples[0]["path"] == path and rejected.samples[0]["limit"] == limit
    assert f"at most {limit:,}" in rejected.message
    # The report quotes the start of a long value, never all of it.
    assert len(rejected.report()) < 2_000
    assert snapshot(lake) == before


def huge_parameter(seal: Path) -> None:
    """A 4,000-digit integer parameter (issue 60, finding 6), written as JSON text: Python's own
    encoder refuses to write an integer of that many digits only above 4,300."""
    text = (seal / "manifest.json").read_text()
    document = json.loads(text)
    document.update(family="huge_numbers", parameters={"lookback": 0})
    (seal / "manifest.json").write_text(
        json.dumps(document).replace('"lookback": 0', '"lookback": 9' + "9" * 3_999)
    )


@pytest.mark.parametrize("value", [2**53, -(2**53), "huge"], ids=["just_over", "just_under", "4000_digits"])
def test_a_number_over_its_bound_is_refused_like_a_text(
    value: Any, tmp_path: Path, factory_seal: Path, published: tuple[Path, dict[str, bytes]]
) -> None:
    """Issue 60, finding 6: a 4,000-digit integer parameter passed `seal check`, published and was
    served verbatim while texts were capped. Every integer of either file is bounded now, by the
    same rule, the report giving its length in digits and never the value; at the bound it passes."""
    lake, before = published
    if value == "huge":
        mutate = huge_parameter
    else:
        mutate = manifest(lambda m: m.update(family="big_numbers", parameters={"lookback": value}))
    rejected = refusal(tmp_path, factory_seal, lake, mutate)
    assert rejected.rule == "manifest.text_bounds", rejected.report()
    assert rejected.samples[0]["path"] == "parameters.lookback"
    assert rejected.samples[0]["digits"] == (4_000 if value == "huge" else 16)
    assert "at most ±9,007,199,254,740,991" in rejected.message
    assert "9" * 30 not in rejected.report()
    assert snapshot(lake) == before
    at_bound = copy_seal(factory_seal, tmp_path / "at_bound")
    manifest(
        lambda m: m.update(family="big_numbers", parameters={"lookback": 2**53 - 1, "skip": -(2**53 - 1)})
    )(at_bound)
    assert publish_seal(str(at_bound), str(tmp_path / "lake_at_bound")).status == "published"


BIDI: list[tuple[str, str, Callable[[Path], None]]] = [
    (
        "manifest.no_bidi_controls",
        "name",
        manifest(lambda m: m.update(name="Momentum \u202egnol\u202c 12-1")),
    ),
    (
        "manifest.no_bidi_controls",
        "source_alpha_id",
        manifest(lambda m: m.update(source_alpha_id="run\u2066-7")),
    ),
    ("description.no_bidi_controls", "classification.tags[]", classification(tags=["value", "\u200fx"])),
    (
        "description.no_bidi_controls",
        "thesis.who_loses",
        description(lambda d: d["thesis"].update(who_loses="\u061c")),
    ),
]


@pytest.mark.parametrize(("rule", "path", "mutate"), BIDI, ids=[c[0] + ":" + c[1] for c in BIDI])
def test_a_bidirectional_control_in_seal_text_is_refused(
    rule: str, path: str, mutate: Callable[[Path], None], tmp_path: Path, factory_seal: Path, published
) -> None:
    lake, before = published
    rejected = refusal(tmp_path, factory_seal, lake, mutate)
    assert (rejected.rule, rejected.samples[0]["path"]) == (rule, path), rejected.report()
    assert snapshot(lake) == before


def test_every_declared_control_is_refused() -> None:
    from alpha_results_seal.rules import Findings
    from alpha_results_seal.validate import check_text

    for control in S.BIDI_CONTROLS:
        found = Findings()
        check_text({"tldr": f"a{control}b"}, "description", found)
        [refused] = found.broken
        assert refused.samples == [{"path": "tldr", "character": f"U+{ord(control):04X}", "at": 1}]


def test_text_at_every_bound_is_published(tmp_path: Path, factory_seal: Path) -> None:
    """The bounds refuse nothing a real seal writes: each text at its limit, right-to-left script
    without controls, and formula-like text (neutralised where it is served as CSV) are published."""
    seal = copy_seal(factory_seal, tmp_path / "roomy")
    both_tldrs("t" * 2_000)(seal)
    manifest(lambda m: m.update(name="n" * 200, source_alpha_id="r" * 128))(seal)
    classification(
        structure="s" * 128,
        method="=1+1",
        tags=["x" * 64] * 32,
        frequency=["weekly"],
    )(seal)
    description(lambda d: d["thesis"].update(hypothesis="h" * 20_000, who_loses="מוכרים בלחץ"))(seal)
    assert publish_seal(str(seal), str(tmp_path / "lake")).status == "published"


def test_a_benchmark_seal_name_is_bounded_too(tmp_path: Path, benchmark_seal: Path) -> None:
    """A benchmark's name is served in meta (X-Meta) of its daily series."""
    broken = copy_seal(benchmark_seal, tmp_path / "broken")
    manifest(lambda m: m.update(name="S&P" * 1_000))(broken)
    with pytest.raises(SealRejected) as caught:
        publish_seal(str(broken), str(tmp_path / "lake"))
    assert (caught.value.rule, caught.value.samples[0]["path"]) == ("manifest.text_bounds", "name")


def test_the_cli_report_names_the_rule(
    tmp_path: Path, factory_seal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    broken = copy_seal(factory_seal, tmp_path / "broken")
    manifest(lambda m: m.update(name="n" * 50_000))(broken)
    assert main(["build", str(broken), "--lake", str(tmp_path / "lake"), "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "manifest.text_bounds" in out and "name has 50,000 characters, at most 200" in out
    assert "n" * 100 not in out
