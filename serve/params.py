"""Query parameter parsing: every problem is collected, then one 400 names them all.

An endpoint's parameters are its `schemas.query` Struct; `QueryParams.parse` reads each field by
its declaration and returns the Struct. Anything else in the query string (including a key sent
there by mistake) is an unknown parameter and part of the same 400.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from core import errors
from schemas import query as declared
from schemas.query import ITEM_LIST, MAX_SYMBOLS, SYMBOL_LIST, Param, Query, params_of, path_params_of

SYMBOL_LIST_PATTERN = re.compile(SYMBOL_LIST)
ITEM_LIST_PATTERN = re.compile(ITEM_LIST)
# `[0-9]`, never `\d`: `\d` matches every Unicode digit ("١" is taken as 1 by int()). Whitespace
# around a number is tolerated (a `+` in a query string decodes to a space), nothing else.
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
INTEGER_PATTERN = re.compile(r"[ \t]*(?P<number>[+-]?[0-9]+)[ \t]*")
NUMBER_PATTERN = re.compile(
    r"[ \t]*(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[ \t]*"
)
# More digits than any bound of any parameter; refused before int() is asked to convert them.
INTEGER_MAX_DIGITS = 18

Q = TypeVar("Q", bound=Query)

_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


def parse_date(text: str) -> dt.date | None:
    """A YYYY-MM-DD calendar date, or None when the text is not one."""
    if not DATE_PATTERN.fullmatch(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


class QueryParams:
    """The query of one request (its parsed (name, value) pairs, `serve.exchange.Exchange.query`),
    checked against the parameters its endpoint accepts."""

    def __init__(
        self,
        query: Iterable[tuple[str, str]],
        accepted: Iterable[str],
        refused: Mapping[str, str] | None = None,
        repeatable: Iterable[str] = (),
    ) -> None:
        """`repeatable`: accepted names that may be given more than once (their values are
        joined by commas, as one comma-separated list)."""
        self.accepted = tuple(accepted)
        repeats = frozenset(repeatable)
        self.values: dict[str, str] = {}
        self.problems: dict[str, str] = {}
        self.available: list[str] | None = None  # the values a bad path parameter may take
        self._moments: dict[str, dt.datetime | str] = {}  # `moment_of`: each moment's, or its broken rule
        for name, value in query:
            if name not in self.accepted:
                listed = ", ".join(self.accepted) if self.accepted else "none"
                rule = (refused or {}).get(name, f"unknown parameter; this endpoint accepts: {listed}")
                self.problems[name] = rule
            elif name in self.values and name in repeats:
                self.values[name] = f"{self.values[name]},{value}"
            elif name in self.values:
                self.problems[name] = "given more than once; send it once"
            else:
                self.values[name] = value

    def fail(self, name: str, rule: str) -> None:
        self.problems.setdefault(name, rule)

    def parse(
        self,
        query: type[Q],
        problems: Mapping[str, str] | None = None,
        details: Mapping[str, Any] | None = None,
        path: Mapping[str, Any] | None = None,
    ) -> Q:
        """The endpoint's parameters as its `query` Struct, or one 400 naming every problem.

        `path` holds the route's path parameters, which the Struct may type (`path_params_of`;
        their problems come first); `problems` are those found outside the query string that no
        declaration states (an export's `{dataset}`); `details` are entries the 400 adds to
        `error.details` (the books a missing `book` may name)."""
        found = {
            param.attr: self.path_value(param, str((path or {})[param.name]))
            for param in path_params_of(query)
        }
        for name, rule in (problems or {}).items():
            self.fail(name, rule)
        params = params_of(query)
        values = found | {param.attr: self.read(param) for param in params}
        start, end = values.get("start"), values.get("end")
        if isinstance(start, dt.date) and isinstance(end, dt.date) and start > end:
            self.fail("from", f"must not be after to ({start.isoformat()} > {end.isoformat()})")
            self.fail("to", f"must not be before from ({end.isoformat()} < {start.isoformat()})")
        self.check_ranges({param.name: values[param.attr] for param in params})
        if self.problems:
            error = errors.bad_parameters(self.problems)
            if self.available is not None:
                error.details["available"] = self.available
            error.details.update(details or {})
            raise error
        return query(**values)

    def check_ranges(self, values: Mapping[str, Any]) -> None:
        """`min_X` above `max_X` (both given and valid) names both, as `from` after `to` does."""
        for low_name, low in values.items():
            if not low_name.startswith("min_") or low is None:
                continue
            high_name = "max_" + low_name.removeprefix("min_")
            high = values.get(high_name)
            if high is not None and low > high:
                sent_low = self.values.get(low_name, str(low)).strip()
                sent_high = self.values.get(high_name, str(high)).strip()
                self.fail(low_name, f"must not be above {high_name} ({sent_low} > {sent_high})")
                self.fail(high_name, f"must not be below {low_name} ({sent_high} < {sent_low})")

    def read(self, param: Param) -> Any:
        """One parameter's value by its declaration: the default when absent; on a problem, it is
        recorded and the default returned (the 400 follows once every parameter is read)."""
        if param.name not in self.values:
            if param.required:
                self.fail(param.name, param.missing or "is required on this endpoint")
            return param.default
        if param.type == "integer":
            return self.integer(param.name, param.default, param.minimum, param.maximum)
        if param.type == "number":
            return self.number(param.name, param.minimum, param.maximum)
        if param.type == "boolean":
            return self.boolean(param.name, param.default)
        if param.type == "date":
            return self.date(param.name)
        if param.enum is not None:
            return self.choice(param)
        if param.read == "tickers":
            return self.tickers(param.name)
        if param.read == "list":
            return self.items(param.name, param.max_length)
        if param.read == "numbers":
            return self.numbers(param.name, param.max_length)
        if param.read == "moment":
            return self.moment(param.name, param.max_length)
        if param.max_length is not None and self.text(param.name, param.max_length) is None:
            return param.default
        value = self.values[param.name]
        if param.pattern is not None and re.search(param.pattern, value) is None:
            self.fail(param.name, f"must match {param.pattern}")
            return param.default
        return value

    def path_value(self, param: Param, text: str) -> Any:
        """A path parameter by its declaration: a date, or one of its values exactly (the 400
        lists them in `error.details.available`)."""
        if param.type == "date":
            value = parse_date(text)
            if value is None:
                self.fail(param.name, f"path {param.name} must be a calendar date YYYY-MM-DD; got {text!r}")
            return value
        if param.enum is not None and text not in param.enum:
            self.fail(param.name, f"must be one of {', '.join(param.enum)}; got {text!r}")
            self.available = list(param.enum)
        return text

    # -- typed readers (each records its own problem and returns a usable fallback) ----------------

    def integer(self, name: str, default: int, minimum: float | None, maximum: float | None) -> int:
        text = self.values[name]
        match = INTEGER_PATTERN.fullmatch(text)
        if match is None:
            self.fail(name, "must be an integer (ASCII digits)")
            return default
        digits = match["number"].lstrip("+-").lstrip("0")
        if len(digits) > INTEGER_MAX_DIGITS:
            self.fail(name, f"must be {_bounds(minimum, maximum)}")
            return default
        value = int(match["number"])
        if minimum is not None and value < minimum or maximum is not None and value > maximum:
            self.fail(name, f"must be {_bounds(minimum, maximum)}; got {value}")
            return default
        return value

    def date(self, name: str) -> dt.date | None:
        text = self.values[name]
        value = parse_date(text)
        if value is None:
            self.fail(name, f"must be a calendar date YYYY-MM-DD; got {text!r}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        text = self.values[name]
        value = text.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        self.fail(name, f"must be a boolean: true, false, 1 or 0; got {text!r}")
        return default

    def choice(self, param: Param) -> str | None:
        text = self.values[param.name]
        options = param.enum or ()
        value = chosen_value(text, options)
        if value is None:
            note = f" ({param.note})" if param.note else ""
            self.fail(param.name, f"must be one of {', '.join(options)}{note}; got {text!r}")
            return param.default
        return value

    def number(self, name: str, minimum: float | None, maximum: float | None = None) -> float | None:
        text = self.values[name]
        # float() alone would also take Unicode digits, `1_0`, `nan` and `infinity`.
        match = NUMBER_PATTERN.fullmatch(text)
        if match is None:
            self.fail(name, f"must be a decimal number; got {text!r}")
            return None
        value = float(match["number"])
        if value != value or value in (float("inf"), float("-inf")):
            self.fail(name, f"must be a finite number; got {text!r}")
            return None
        if minimum is not None and maximum is not None and not minimum <= value <= maximum:
            self.fail(name, f"must be between {minimum:g} and {maximum:g}; got {text!r}")
            return None
        if minimum is not None and value < minimum:
            self.fail(name, f"must be >= {minimum:g}; got {text!r}")
            return None
        if maximum is not None and value > maximum:
            self.fail(name, f"must be <= {maximum:g}; got {text!r}")
            return None
        return value

    def tickers(self, name: str) -> tuple[str, ...] | None:
        """One ticker or a comma-separated list, as its tickers (`schemas.query.tickers`)."""
        text = self.values[name]
        count = text.count(",") + 1
        if count > MAX_SYMBOLS:
            self.fail(name, f"lists at most {MAX_SYMBOLS} tickers; got {count}")
            return None
        # ASCII only (`.upper()` maps some other letters onto ASCII ones: "ß" -> "SS").
        if not SYMBOL_LIST_PATTERN.fullmatch(text):
            self.fail(
                name, "must be one ticker or a comma-separated list of tickers (letters, digits, . _ -)"
            )
            return None
        return declared.tickers(text)

    def items(self, name: str, max_length: int | None) -> tuple[str, ...] | None:
        """A comma-separated list of free-text items, as its items (`schemas.query.items`)."""
        text = self.values[name]
        if max_length is not None and len(text) > max_length:
            self.fail(name, f"must be at most {max_length} characters")
            return None
        if not ITEM_LIST_PATTERN.fullmatch(text):
            self.fail(name, "must list non-empty values separated by commas (or the parameter repeated)")
            return None
        return declared.items(text)

    def numbers(self, name: str, max_length: int | None) -> tuple[float, ...] | None:
        """A comma-separated list of plain decimals (`schemas.query.numbers`): each item as the
        number rule of every numeric parameter reads one (ASCII digits, no nan or inf)."""
        text = self.values[name]
        if max_length is not None and len(text) > max_length:
            self.fail(name, f"must be at most {max_length} characters")
            return None
        if any(not NUMBER_PATTERN.fullmatch(item) for item in text.split(",")):
            self.fail(name, "comma-separated plain decimals (no nan, inf or empty item)")
            return None
        return declared.numbers(text)

    def moment(self, name: str, max_length: int | None) -> str | None:
        """A moment (`as_of`), checked by its one rule (`moment_of`): a real moment, not only its
        form. Kept as its text in the Struct; `context_of` takes the moment itself."""
        text = self.values[name]
        if max_length is not None and len(text) > max_length:
            self.fail(name, f"must be at most {max_length} characters")
            return None
        try:
            self.moment_of(name)
        except ValueError as exc:
            self.fail(name, str(exc))
            return None
        return text

    def moment_of(self, name: str) -> dt.datetime:
        """The moment the value of `name` names, in UTC, by the parameter's one rule
        (`schemas.query.as_of_moment`), read once per request: `context_of` asks it before the
        route's parse (`moment`) does. ValueError naming the broken rule."""
        if name not in self._moments:
            try:
                self._moments[name] = declared.as_of_moment(self.values[name])
            except ValueError as exc:
                self._moments[name] = str(exc)
        found = self._moments[name]
        if isinstance(found, str):
            raise ValueError(found)
        return found

    def text(self, name: str, max_length: int) -> str | None:
        value = self.values[name]
        if len(value) > max_length:
            self.fail(name, f"must be at most {max_length} characters")
            return None
        return value


def chosen_value(text: str, options: Iterable[str]) -> str | None:
    """The option a choice parameter's value names (whitespace around it dropped, any case),
    or None: the one rule of every `enum` parameter, `format=` read before the others included."""
    value = text.strip().lower()
    return value if value in options else None


def _bounds(minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f"between {minimum} and {maximum}"
    if maximum is not None:
        return f"<= {maximum}"
    if minimum is not None:
        return f">= {minimum}"
    return f"at most {INTEGER_MAX_DIGITS} digits long"
