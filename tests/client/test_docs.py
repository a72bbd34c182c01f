"""The client's documentation calls the client as it is.

Every Python example of docs/client.md and client/README.md (fenced blocks and inline code), and
the examples in the client's docstrings, are parsed, and each call whose receiver is known (a
`Client`, a collection a method returned, an imported class) must bind to the signature of what
it calls: a documented `client.scores(..., use_exports=False)` is a `TypeError` in the user's
hands, so it fails here. Imported names, the method table's methods and the error classes the
guide names must exist. One documented call is also run against the server.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import alpha_results_client
from alpha_results_client import BenchmarkSeries, Client, Collection, Series
from tests.client.conftest import Api, Key, Recorder

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "client.md"
README = ROOT / "client" / "README.md"
PACKAGE = Path(alpha_results_client.__file__).parent

KNOWN_NAMES: dict[str, type[Any]] = {
    **{
        name: value
        for name in alpha_results_client.__all__
        if isinstance(value := getattr(alpha_results_client, name), type)
    },
    "client": Client,
    "collection": Collection,
    "curve": Series,
    "spy": BenchmarkSeries,
}
"""The package's classes, and what the prose's inline examples call their receivers."""


# -- finding the examples --------------------------------------------------------------------------


def fenced_python(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def inline_code(text: str) -> list[str]:
    prose = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    return re.findall(r"`([^`\n]+)`", prose)


def docstring_examples(doc: str) -> list[str]:
    """`>>>` lines, indented blocks (the examples of a docstring) and inline code."""
    examples = [line.strip()[4:] for line in doc.splitlines() if line.strip().startswith(">>> ")]
    block: list[str] = []
    for line in [*doc.splitlines(), ""]:
        if line.startswith("    ") and not line.strip().startswith(">>>"):
            block.append(line)
            continue
        if block:
            examples.append(textwrap.dedent("\n".join(block)))
            block = []
    return examples + inline_code(doc)


def package_docstrings() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name in ("_generated.py", "_envelope.py"):  # the server's field descriptions, not examples
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    yield f"{path.name}:{getattr(node, 'name', '')}", doc


def parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


# -- checking the calls ----------------------------------------------------------------------------


def returned_class(owner: type[Any], name: str) -> type[Any] | None:
    """The class of this client a method of `owner` returns (its annotation's origin), if any."""
    try:
        hint = typing.get_type_hints(getattr(owner, name)).get("return")
    except Exception:  # a property, or an annotation this check cannot evaluate
        return None
    hint = typing.get_origin(hint) or hint
    ours = isinstance(hint, type) and hint.__module__.startswith("alpha_results_client")
    return hint if ours else None  # a frame (`Any`), bytes, ...: not this client's to check


class CallChecker(ast.NodeVisitor):
    """Binds each call whose callee it can resolve; collects what does not bind."""

    def __init__(self, where: str, names: dict[str, type[Any]]) -> None:
        self.where = where
        self.names = dict(names)
        self.problems: list[str] = []
        self.checked = 0

    def type_of(self, node: ast.expr) -> type[Any] | None:
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and isinstance(self.names.get(func.id), type):
                return self.names[func.id]  # a class called: an instance of it
            if isinstance(func, ast.Attribute):
                owner = self.type_of(func.value)
                if owner is not None and hasattr(owner, func.attr):
                    return returned_class(owner, func.attr)
        return None

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "alpha_results_client":
            for alias in node.names:
                if not hasattr(alpha_results_client, alias.name):
                    self.problems.append(f"{self.where}: alpha_results_client has no {alias.name}")
                    continue
                value = getattr(alpha_results_client, alias.name)
                if isinstance(value, type):
                    self.names[alias.asname or alias.name] = value

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        kind = self.type_of(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and kind is not None:
                self.names[target.id] = kind

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            kind = self.type_of(item.context_expr)
            if isinstance(item.optional_vars, ast.Name) and kind is not None:
                self.names[item.optional_vars.id] = kind
        for statement in node.body:
            self.visit(statement)

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return
        func = node.func
        if isinstance(func, ast.Name):
            target = self.names.get(func.id)
            if not isinstance(target, type):
                return
            callee: Any = target
            label = func.id
            positional: list[Any] = []
        elif isinstance(func, ast.Attribute):
            owner = self.type_of(func.value)
            if owner is None:
                return
            label = f"{owner.__name__}.{func.attr}"
            if not hasattr(owner, func.attr):
                self.problems.append(
                    f"{self.where}: {ast.unparse(node)}: {owner.__name__} has no {func.attr}"
                )
                return
            callee = getattr(owner, func.attr)
            if not callable(callee):
                return
            positional = [object()]  # self
        else:
            return
        arguments = [object() for _ in node.args]
        keywords = {k.arg: object() for k in node.keywords if k.arg is not None}
        self.checked += 1
        try:
            inspect.signature(callee).bind(*positional, *arguments, **keywords)
        except TypeError as exc:
            self.problems.append(f"{self.where}: {ast.unparse(node)}: {label}: {exc}")


def check(examples: list[tuple[str, str]]) -> tuple[list[str], int]:
    problems: list[str] = []
    checked = 0
    for where, source in examples:
        tree = parsed(source)
        if tree is None:
            continue
        checker = CallChecker(where, KNOWN_NAMES)
        checker.visit(tree)
        problems += checker.problems
        checked += checker.checked
    return problems, checked


def test_the_checker_catches_a_call_that_does_not_bind() -> None:
    problems, _ = check([("here", 'client.scores("momentum_12_1", use_exports=False)')])
    assert len(problems) == 1 and "use_exports" in problems[0]
    problems, _ = check([("here", 'spy = client.benchmark("SPY")\nspy.to_polars(usexports=False)')])
    assert len(problems) == 1 and "usexports" in problems[0]
    problems, _ = check([("here", "from alpha_results_client import Clients")])
    assert problems == ["here: alpha_results_client has no Clients"]
    problems, _ = check([("here", 'client.scores("a").to_polars(use_exports=False, progress=True)')])
    assert problems == []


def test_every_documented_call_binds_to_the_client() -> None:
    examples: list[tuple[str, str]] = []
    for path in (GUIDE, README):
        text = path.read_text()
        name = path.relative_to(ROOT)
        examples += [(f"{name} block {i}", block) for i, block in enumerate(fenced_python(text))]
        examples += [(f"{name} `{code}`", code) for code in inline_code(text)]
    for where, doc in package_docstrings():
        examples += [(where, example) for example in docstring_examples(doc)]
    problems, checked = check(examples)
    assert problems == []
    assert checked > 60  # the examples were found and their calls resolved


def test_the_guide_names_only_methods_and_errors_that_exist() -> None:
    text = GUIDE.read_text()
    table = text.split("### Methods", 1)[1].split("\n\n", 2)[1]
    methods = [m for row in table.splitlines()[2:] for m in re.findall(r"`(\w+)\(", row.split("|")[1])]
    assert len(methods) > 30
    assert [m for m in methods if not callable(getattr(Client, m, None))] == []
    errors = set(re.findall(r"\b([A-Z]\w*Error)\b", text))
    assert len(errors) > 10
    assert (
        sorted(e for e in errors if not hasattr(alpha_results_client, e) and not hasattr(builtins, e)) == []
    )


def public_methods() -> dict[type[Any], list[str]]:
    """Every public method of the client by the class holding it: `Client`'s (generated, written
    in client.py, properties and static methods alike) and those of the package's own classes
    its methods return (the lazy collections and series, the event feeds, a page), found through
    the return annotations; the generated bodies aside (their fields are the reference's)."""
    found: dict[type[Any], list[str]] = {}
    owners: list[type[Any]] = [Client]
    while owners:
        owner = owners.pop()
        if owner in found:
            continue
        found[owner] = [name for name in dir(owner) if not name.startswith("_")]
        for name in found[owner]:
            returned = returned_class(owner, name)
            generated = ("alpha_results_client._generated", "alpha_results_client._envelope")
            if returned is not None and returned.__module__ not in generated:
                owners.append(returned)
    return found


def mentioned(name: str, owner: type[Any], code: str) -> bool:
    """Whether the guide's code (`code`: its inline code and fenced blocks) names `owner.name`: a
    method as a call (`mmc(`, not the word, which a field may be), a property by its name."""
    called = callable(inspect.getattr_static(owner, name)) or isinstance(
        inspect.getattr_static(owner, name), staticmethod | classmethod
    )
    return re.search(rf"\b{name}\(" if called else rf"\b{name}\b", code) is not None


def test_the_guide_names_every_public_method_of_the_client() -> None:
    text = GUIDE.read_text()
    code = "\n".join(
        [*inline_code(text), *re.findall(r"^```\w*\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)]
    )
    found = public_methods()
    assert {Client, Collection, Series, BenchmarkSeries} <= set(found)  # the walk reached them
    assert sum(map(len, found.values())) > 80
    missing = [
        f"{owner.__name__}.{name}"
        for owner, names in found.items()
        for name in names
        if not mentioned(name, owner, code)
    ]
    assert missing == [], f"docs/client.md does not name {', '.join(missing)}"


def test_the_method_check_catches_an_unnamed_method() -> None:
    assert not mentioned("crowding", Client, "`client.crowding` returns ... `crowding_score`")
    assert mentioned("crowding", Client, "`crowding(start, end)`")
    assert mentioned("rate_limit", Client, "`client.rate_limit`")


@pytest.mark.e2e
def test_the_documented_json_only_reads_page_json(api: Api, plain_key: Key) -> None:
    """docs/client.md "Bulk reads": `to_polars(use_exports=False)` for one read,
    `Client(..., use_exports=False)` for every read; by default the export is used."""
    recorder = Recorder()
    with api.client(plain_key, http_transport=recorder.transport()) as client:
        paged = client.scores("momentum_12_1", fields="all").to_polars(use_exports=False)
        assert not [path for path, _ in recorder.exchanges if "/exports" in path]
        exported = client.scores("momentum_12_1", fields="all").to_polars()
        assert [path for path, _ in recorder.exchanges if "/exports" in path]
    assert paged.equals(exported) and paged.height == 3720
    recorder = Recorder()
    with api.client(plain_key, use_exports=False, http_transport=recorder.transport()) as client:
        assert client.scores("momentum_12_1", fields="all").to_polars().equals(paged)
    assert not [path for path, _ in recorder.exchanges if "/exports" in path]
