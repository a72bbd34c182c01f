"""Query parameter parsing: every problem is collected, then one 400 names them all.

A handler declares the parameters its endpoint accepts; anything else in the query string
(including a key sent there by mistake) is an unknown parameter and part of the same 400.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl

from schemas import wire
from schemas.query import (
    DEFAULT_LIMIT,
    LIMIT_MAX,
    LIMIT_MIN,
    MAX_SYMBOLS,
    OFFSET_MAX,
    SYMBOL_LIST,
    TEXT_MAX_LENGTH,
)
from serve import errors

SYMBOL_LIST_PATTERN = re.compile(SYMBOL_LIST)
# `[0-9]`, never `\d`: `\d` matches every Unicode digit ("١" is taken as 1 by int()). Whitespace
# around a number is tolerated (a `+` in a query string decodes to a space), nothing else.
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
INTEGER_PATTERN = re.compile(r"[ \t]*(?P<number>[+-]?[0-9]+)[ \t]*")
NUMBER_PATTERN = re.compile(
    r"[ \t]*(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[ \t]*"
)
# More digits than any bound of any parameter; refused before int() is asked to convert them.
INTEGER_MAX_DIGITS = 18

WINDOW = ("from", "to")

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
    """The query string of one request, checked against the parameters its endpoint accepts."""

    def __init__(self, query_string: bytes | str, accepted: Iterable[str]) -> None:
        text = query_string.decode("latin-1") if isinstance(query_string, bytes) else query_string
        self.accepted = tuple(accepted)
        self.values: dict[str, str] = {}
        self.problems: dict[str, str] = {}
        self.details: dict[str, Any] = {}  # extra `error.details` entries of the 400 (e.g. `available`)
        for name, value in parse_qsl(text, keep_blank_values=True):
            if name not in self.accepted:
                listed = ", ".join(self.accepted) if self.accepted else "none"
                self.problems[name] = f"unknown parameter; this endpoint accepts: {listed}"
            elif name in self.values:
                self.problems[name] = "given more than once; send it once"
            else:
                self.values[name] = value

    def fail(self, name: str, rule: str) -> None:
        self.problems.setdefault(name, rule)

    def finish(self) -> None:
        """Raise one 400 naming every offending parameter, if any."""
        if self.problems:
            error = errors.bad_parameters(self.problems)
            error.details.update(self.details)
            raise error

    # -- typed readers (each records its own problem and returns a usable fallback) ----------------

    def integer(self, name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
        text = self.values.get(name)
        if text is None:
            return default
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

    def limit(self, default: int = DEFAULT_LIMIT) -> int:
        return self.integer("limit", default, LIMIT_MIN, LIMIT_MAX)

    def offset(self) -> int:
        return self.integer("offset", 0, 0, OFFSET_MAX)

    def date(self, name: str) -> dt.date | None:
        text = self.values.get(name)
        if text is None:
            return None
        value = parse_date(text)
        if value is None:
            self.fail(name, f"must be a calendar date YYYY-MM-DD; got {text!r}")
        return value

    def window(self) -> tuple[dt.date | None, dt.date | None]:
        start, end = self.date("from"), self.date("to")
        if start is not None and end is not None and start > end:
            self.fail("from", f"must not be after to ({start.isoformat()} > {end.isoformat()})")
            self.fail("to", f"must not be before from ({end.isoformat()} < {start.isoformat()})")
        return start, end

    def boolean(self, name: str, default: bool) -> bool:
        text = self.values.get(name)
        if text is None:
            return default
        value = text.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        self.fail(name, f"must be a boolean: true, false, 1 or 0; got {text!r}")
        return default

    def choice(self, name: str, choices: Iterable[str], default: str | None) -> str | None:
        text = self.values.get(name)
        if text is None:
            return default
        options = tuple(choices)
        value = text.strip().lower()
        if value not in options:
            self.fail(name, f"must be one of {', '.join(options)}; got {text!r}")
            return default
        return value

    def number(self, name: str, minimum: float | None = None) -> float | None:
        text = self.values.get(name)
        if text is None:
            return None
        # float() alone would also take Unicode digits, `1_0`, `nan` and `infinity`.
        match = NUMBER_PATTERN.fullmatch(text)
        if match is None:
            self.fail(name, f"must be a decimal number; got {text!r}")
            return None
        value = float(match["number"])
        if value != value or value in (float("inf"), float("-inf")):
            self.fail(name, f"must be a finite number; got {text!r}")
            return None
        if minimum is not None and value < minimum:
            self.fail(name, f"must be >= {minimum:g}; got {text!r}")
            return None
        return value

    def symbols(self, name: str = "symbol") -> tuple[str, ...] | None:
        """One ticker or a comma-separated list, matched upper-cased."""
        text = self.values.get(name)
        if text is None:
            return None
        tokens = text.split(",")
        if len(tokens) > MAX_SYMBOLS:
            self.fail(name, f"lists at most {MAX_SYMBOLS} tickers; got {len(tokens)}")
            return None
        # ASCII only (`.upper()` maps some other letters onto ASCII ones: "ß" -> "SS").
        if not SYMBOL_LIST_PATTERN.fullmatch(text):
            self.fail(
                name, "must be one ticker or a comma-separated list of tickers (letters, digits, . _ -)"
            )
            return None
        return tuple(dict.fromkeys(t.strip(" \t").upper() for t in tokens))

    def text(self, name: str, max_length: int = TEXT_MAX_LENGTH) -> str | None:
        value = self.values.get(name)
        if value is not None and len(value) > max_length:
            self.fail(name, f"must be at most {max_length} characters")
            return None
        return value

    def direction(self) -> int | None:
        text = self.values.get("direction")
        if text is None:
            return None
        value = wire.DIRECTIONS.get(text.strip().lower())
        if value is None:
            accepted = ", ".join(wire.DIRECTIONS)
            self.fail("direction", f"must be one of {accepted} (case-insensitive); got {text!r}")
        return value


def _bounds(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"between {minimum} and {maximum}"
    if maximum is not None:
        return f"<= {maximum}"
    if minimum is not None:
        return f">= {minimum}"
    return f"at most {INTEGER_MAX_DIGITS} digits long"
