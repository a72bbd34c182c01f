"""The vocabulary registry (schemas/vocabulary.py) is the only place a figure's unit and
annualisation are written (issue 46, item 3): every figure field of every served Struct finds a
term, every term is used, and no `figure(...)` writes a unit or an annualisation itself."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec

from schemas.bodies.envelope import EnvelopeMeta
from schemas.bodies.figures import BY_FIGURE, _facts, _holds_figure
from schemas.bodies.formats import DOC
from schemas.vocabulary import (
    COLUMNS_UNDER_A_TERMS_NAME,
    GENERIC_KEYS,
    STILL_TWO_MEANINGS,
    VOCABULARY,
    term_for,
)
from serve.endpoints import endpoints
from serve.openapi.declared import held_structs

ROOT = Path(__file__).resolve().parents[2]


def _served_structs() -> list[type[msgspec.Struct]]:
    """Every Struct a route serves, and what they hold (the OpenAPI document's own walk)."""
    roots = [s for e in endpoints().values() for s in (e.body, e.rows) if s is not None] + [EnvelopeMeta]
    return held_structs(roots)


def _figure_fields() -> list[tuple[str, str, dict, bool]]:
    """(where, served name, facts, holds a figure) of every `figure(...)` of the served Structs,
    the children its `keys` documents included."""
    out = []

    def keyed(where: str, facts: dict) -> None:
        for key, meta in facts.get("keys", {}).items():
            child = meta.extra[DOC]
            out.append((f"{where}{{{key}}}", key, child, True))
            keyed(f"{where}{{{key}}}", child)

    for cls in _served_structs():
        for field in msgspec.structs.fields(cls):
            facts, held = _facts(_inspect(cls, field.name))
            if facts.get(BY_FIGURE):
                where = f"{cls.__module__}.{cls.__name__}.{field.encode_name}"
                out.append((where, field.encode_name, facts, _holds_figure(held)))
                keyed(where, facts)
    return out


def _inspect(cls: type[msgspec.Struct], name: str) -> msgspec.inspect.Type:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return next(f.type for f in info.fields if f.name == name)


def test_every_figure_that_states_a_unit_has_a_term() -> None:
    """A number or a stat entry declared with `figure` takes its unit from a term (a figure stating
    a unit of its own, still allowed while it is moved, is listed as well)."""
    missing = sorted(
        where
        for where, name, facts, holds in _figure_fields()
        if term_for(name, facts.get("term"), holds) is None
        and (holds and ("unit" in facts or "annualisation" in facts))
    )
    assert not missing, f"figure fields without a term in schemas/vocabulary.py: {missing}"


def test_a_named_term_is_for_a_generic_key_or_a_name_with_two_meanings() -> None:
    odd = sorted(
        f"{where} -> {facts['term']}"
        for where, name, facts, _ in _figure_fields()
        if facts.get("term") not in (None, name) and name not in GENERIC_KEYS | set(STILL_TWO_MEANINGS)
    )
    assert not odd, f"a field names another term than its served name without a reason: {odd}"


def test_every_term_is_used() -> None:
    used = {
        term.name
        for _, name, facts, holds in _figure_fields()
        if (term := term_for(name, facts.get("term"), holds)) is not None
    } | {  # and the row columns that take a term (`doc(term=...)`)
        facts["term"]
        for cls in _served_structs()
        for field in msgspec.structs.fields(cls)
        for facts, _ in [_facts(_inspect(cls, field.name))]
        if not facts.get(BY_FIGURE) and facts.get("term")
    }
    assert not sorted(set(VOCABULARY) - used), f"terms no served field uses: {sorted(set(VOCABULARY) - used)}"


def test_no_figure_writes_a_unit() -> None:
    """The registry is the only place: `figure(...)` in the contract never passes `unit=` or
    `annualisation=` (a row column named as a term names it: `doc(term=...)`)."""
    written = []
    for path in sorted((ROOT / "schemas").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "figure":
                written += [
                    f"{path.relative_to(ROOT)}:{node.lineno} {k.arg}="
                    for k in node.keywords
                    if k.arg in ("unit", "annualisation")
                ]
    assert not written, f"figure(...) writing a unit or annualisation (the vocabulary's): {written}"


def test_the_dashboard_labels_are_made_from_the_registry() -> None:
    """labels.js imports `./vocabulary.js`, which re-exports `terms.js`, made by the server from the
    registry when it starts (never a file kept beside it, so no copy can go stale): every term with
    its label, unit and basis."""
    import json
    import re

    from schemas.vocabulary import TERMS, as_javascript
    from serve.routes import dashboard

    ui = ROOT / "serve" / "static" / "ui"
    assert not (ui / "terms.js").exists()
    assert 'from "./terms.js"' in (ui / "vocabulary.js").read_text()
    text = dashboard.ASSETS["terms.js"].body.decode()
    assert text.startswith(as_javascript())
    body = re.search(r"export const TERMS = Object.freeze\((\{.*?\n\})\);", text, re.S)
    assert body is not None
    served = json.loads(body.group(1).replace(",\n}", "\n}"))
    assert served == {t.name: {"label": t.label, "unit": t.unit, "basis": t.basis} for t in TERMS}
    assert 'from "./vocabulary.js"' in (ROOT / "serve" / "static" / "ui" / "labels.js").read_text()


def test_the_catalogue_names_its_columns_by_the_terms_the_screener_row_declares() -> None:
    """The catalogue's column labels come from the screener row's declarations (issue 65, item 3):
    terms.js serves each ScreenRow field's declared term (`SCREEN_TERMS`), and catalogue.js names a
    figure column only through it, never by a term it picks itself (it had `figureName("ic")` over
    the field `mean_ic`, `figureName("sealed_turnover")` over `turnover`)."""
    import json
    import re

    from schemas.bodies.figures import field_facts
    from schemas.bodies.rows import ScreenRow
    from serve.routes import dashboard

    text = dashboard.ASSETS["terms.js"].body.decode()
    body = re.search(r"export const SCREEN_TERMS = Object.freeze\((\{.*?\n\})\);", text, re.S)
    assert body is not None
    served = json.loads(body.group(1))
    fields = msgspec.structs.fields(ScreenRow)
    declared = {f.encode_name: t for f in fields if (t := field_facts(ScreenRow, f.name).get("term"))}
    assert served == declared and served["ic"] == "ic" and served["turnover"] == "sealed_turnover"
    assert all(term in VOCABULARY for term in served.values())
    source = (ROOT / "serve" / "static" / "ui" / "catalogue.js").read_text(encoding="utf-8")
    assert "SCREEN_TERMS" in source
    picked = re.findall(r"figureName\w*\(\s*[\"'`]", source)
    assert not picked, f"catalogue.js names a column by a term it picks itself: {picked}"


def test_the_dashboard_names_figures_from_the_registry() -> None:
    """labels.js's FIGURES holds presentation: a name only for a key the registry has no term for,
    and every term it names exists."""
    import re

    source = (ROOT / "serve" / "static" / "ui" / "labels.js").read_text(encoding="utf-8")
    table = source[source.index("export const FIGURES = {") :]
    table = table[: table.index("\n};")]
    entries = re.findall(r'^\s+"?([\w.]+)"?: \{(.*)\},$', table, re.M)
    named = [key for key, body in entries if "name:" in body and key.split(".")[-1] in VOCABULARY]
    assert not named, f"labels.js names figures the registry labels (give the term's label instead): {named}"
    unknown = [t for _, body in entries for t in re.findall(r'term: "([\w.]+)"', body) if t not in VOCABULARY]
    assert not unknown, f"labels.js names terms schemas/vocabulary.py lacks: {unknown}"


def test_a_row_column_named_as_a_term_takes_it() -> None:
    """A row column (`doc(...)`) whose served name is a term's states the term (its unit and
    annualisation then come from the registry), or is declared a column that is not that figure."""
    written = sorted(
        where
        for cls in _served_structs()
        for field in msgspec.structs.fields(cls)
        for facts, held in [_facts(_inspect(cls, field.name))]
        if not facts.get(BY_FIGURE)
        and facts.get("unit")
        and field.encode_name in VOCABULARY
        and _holds_figure(held)
        and "term" not in facts
        and (where := f"{cls.__name__}.{field.encode_name}") not in COLUMNS_UNDER_A_TERMS_NAME
    )
    assert not written, f"row columns writing a unit of their own under a term's name: {written}"
    stale = sorted(
        where
        for where in COLUMNS_UNDER_A_TERMS_NAME
        if not any(
            f"{cls.__name__}.{field.encode_name}" == where
            and "term" not in _facts(_inspect(cls, field.name))[0]
            for cls in _served_structs()
            for field in msgspec.structs.fields(cls)
        )
    )
    assert not stale, (
        f"COLUMNS_UNDER_A_TERMS_NAME names what no row column is (or one that takes its term): {stale}"
    )
