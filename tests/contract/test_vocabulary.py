"""The vocabulary (schemas/terms.py, schemas/vocabulary.py) is the only place a figure's unit and
annualisation are written (issue 46, item 3), and a field names its term on its declaration, never by
its served name (issue 79, item 1): every figure field served under a term's name names a term, one
served name is given one term (outside the spec's list of names with two meanings), every term is
used, and no `figure(...)` writes a unit or an annualisation itself."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from schemas import terms
from schemas.bodies.figures import (
    BY_FIGURE,
    DeclaredField,
    _facts,
    _holds_figure,
    declared_fields,
    field_facts,
    figure,
)
from schemas.bodies.formats import doc
from schemas.terms import Term
from schemas.vocabulary import (
    COLUMNS_UNDER_A_TERMS_NAME,
    GENERIC_KEYS,
    NO_TERM,
    STILL_TWO_MEANINGS,
    VOCABULARY,
    two_meanings,
)
from tests.support.served_fields import _served, _served_structs

ROOT = Path(__file__).resolve().parents[2]


def _inspect(cls: type[msgspec.Struct], name: str) -> msgspec.inspect.Type:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return next(f.type for f in info.fields if f.name == name)


def _unnamed(fields: list[DeclaredField]) -> list[str]:
    """Figure fields served under a term's name that name no term."""
    return sorted(
        f.where for f in fields if f.by_figure and f.holds_figure and f.term is None and f.name in VOCABULARY
    )


def test_a_figure_served_under_a_terms_name_names_its_term() -> None:
    """Nothing finds a term by a served name: a number or a stat entry served under a term's name
    names its term (`figure(..., term=terms.X)`), or it would be served without the unit, basis and
    definition a reader takes that name to have."""
    missing = _unnamed(_served())
    assert not missing, (
        f"figure fields under a term's name naming no term (name it, or take another name): {missing}"
    )


def test_one_served_name_one_term() -> None:
    """A served name is given one term wherever it is served: the same name with two meanings fails
    here, at the declarations, unless the spec names it so (`STILL_TWO_MEANINGS`, each with its
    reason) or it is a position (`GENERIC_KEYS`: a stat's value, the sides of a comparison)."""
    twice = two_meanings((f.where, f.name, f.term) for f in _served() if f.term is not None or f.holds_figure)
    assert not twice, f"served names given two terms (take another name for the second): {twice}"


class _Sessions(msgspec.Struct, kw_only=True, frozen=True):
    sessions: Annotated[int, figure("Sessions of the window", term=terms.SESSIONS)]


class _WeeksAsSessions(msgspec.Struct, kw_only=True, frozen=True):
    """A newcomer's field under a served name that means another figure."""

    sessions: Annotated[int, figure("Weeks with an IC", term=terms.WEEKS)]


class _Unnamed(msgspec.Struct, kw_only=True, frozen=True):
    """A newcomer's field under a term's name naming none."""

    sessions: Annotated[int, figure("Sessions of something")]


def test_a_second_meaning_of_a_served_name_is_refused_at_its_declaration() -> None:
    """The checks above fail on a newcomer's declarations: `sessions` given the term `weeks` beside
    the served `sessions`, and `sessions` naming no term. Neither field is ever served."""
    twice = two_meanings(
        (f.where, f.name, f.term) for f in declared_fields([_Sessions, _WeeksAsSessions]) if f.term
    )
    assert set(twice) == {"sessions"} and set(twice["sessions"]) == {"sessions", "weeks"}
    assert not two_meanings((f.where, f.name, f.term) for f in declared_fields([_Sessions]) if f.term)
    assert _unnamed(declared_fields([_Unnamed])) == [f"{__name__}._Unnamed.sessions"]
    # served with its term in one place and none in another: two meanings too
    unnamed = two_meanings((f.where, f.name, f.term) for f in declared_fields([_Sessions, _Unnamed]))
    assert set(unnamed["sessions"]) == {"sessions", NO_TERM}
    # the term it names gives the field its unit, not its served name
    assert field_facts(_WeeksAsSessions, "sessions")["unit"] == VOCABULARY["weeks"].unit
    assert "unit" not in field_facts(_Unnamed, "sessions")


def test_a_term_is_named_by_its_object() -> None:
    """A term is named by the object of schemas/terms.py (a typo is an AttributeError where it is
    written), never by a string that would be looked up."""
    with pytest.raises(TypeError, match="schemas.terms"):
        figure("Sessions", term="sessions")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="schemas.terms"):
        doc("Sessions", term="sessions")  # type: ignore[arg-type]
    assert terms.TRIALS_COUNT.name == "trials.count" and terms.SESSIONS is VOCABULARY["sessions"]
    # a term of the same name made elsewhere is not the vocabulary's
    with pytest.raises(TypeError, match="schemas.terms"):
        figure("Sessions", term=Term("sessions", "Sessions", "a second definition", "sessions"))


def test_a_named_term_is_for_a_generic_key_or_a_name_with_two_meanings() -> None:
    """A field served under a term's name names that term, unless the name is a position or one the
    spec gives two meanings."""
    odd = sorted(
        f"{f.where} -> {f.term}"
        for f in _served()
        if f.by_figure
        and f.term not in (None, f.name)
        and f.name in VOCABULARY
        and f.name not in GENERIC_KEYS | set(STILL_TWO_MEANINGS)
    )
    assert not odd, f"a field names another term than its served name without a reason: {odd}"


def test_every_term_is_used() -> None:
    used = {f.term for f in _served() if f.term is not None}
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

    from schemas.terms import TERMS
    from schemas.vocabulary import as_javascript
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
