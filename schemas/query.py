"""Query parameters as the contract declares them: their type, default and bounds.

Each endpoint of `schemas.registry` lists its parameters from these; the server's parsing
(`serve.params`), the OpenAPI document and docs/reference.md read them from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LIMIT_MIN = 1
LIMIT_MAX = 5000
# Far beyond any collection the lake holds, and inside DuckDB's BIGINT, so an absurd offset is a
# 400 naming the parameter instead of a conversion failure in the query.
OFFSET_MAX = 1_000_000_000
DEFAULT_LIMIT = 100
SERIES_DEFAULT_LIMIT = 500  # equity curve and benchmark series
MAX_SYMBOLS = 1000
TICKER = r"[A-Za-z0-9][A-Za-z0-9._-]{0,23}"
SYMBOL_LIST = rf"[ \t]*{TICKER}[ \t]*(?:,[ \t]*{TICKER}[ \t]*){{0,{MAX_SYMBOLS - 1}}}"
"""A `symbol` value: one ticker or a comma-separated list of at most MAX_SYMBOLS (ASCII letters of
either case, matched upper-cased), spaces or tabs around each. The same text is the OpenAPI
`pattern` of the parameter (serve/openapi.py), so what the document admits is what is served."""
TEXT_MAX_LENGTH = 200
"""Longest free-text value (`search`), in characters; declared as the parameter's `maxLength`."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # integer, number, string, boolean, date
    description: str
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[str, ...] | None = None
    required: bool = False
    pattern: str | None = None  # the whole value matches it (the OpenAPI `pattern`, anchored)
    max_length: int | None = None


def _limit(default: int) -> Param:
    return Param("limit", "integer", "Page size.", default, LIMIT_MIN, LIMIT_MAX)


OFFSET = Param("offset", "integer", "Rows to skip.", 0, 0, OFFSET_MAX)
FROM = Param("from", "date", "First trading day, inclusive (YYYY-MM-DD); default: the window start.")
TO = Param("to", "date", "Last trading day, inclusive (YYYY-MM-DD); default: the window end.")
SYMBOL = Param(
    "symbol",
    "string",
    "One ticker or a comma-separated list (matched upper-cased).",
    pattern=SYMBOL_LIST,
)
BOOK = Param(
    "book",
    "string",
    "Book to serve (see /books); unknown or invisible books are 400 unknown_book.",
    "long_short",
)
PAGE = (_limit(DEFAULT_LIMIT), OFFSET)
SERIES_PAGE = (_limit(SERIES_DEFAULT_LIMIT), OFFSET)
