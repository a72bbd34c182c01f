"""`/analytics/screen`: the catalogue index filtered, sorted and paged by DuckDB.

Each worker keeps one in-memory DuckDB database (`Screener`). The first screen of a catalogue
version copies the index's screened columns into a table of its own (`screen_<n>`, a name this
module makes, never a request), with what the filters compare precomputed once: the casefolded
search text (alpha_id, name and tldr, as `/v1/alphas` matches them), tags, structure and method,
and each row's position in catalogue order. A request then runs one parameterised statement on a
cursor of its own (`connection.cursor()`: a connection per request, so concurrent requests never
share one): values only ever travel as `?` parameters, or, for the candidate ids, as an Arrow
array registered on that cursor alone (`CANDIDATES`: no Python object per id, whatever the
catalogue's size), and every column name in the SQL comes from the whitelists below
(`schemas.choices`, `schemas.wire`), checked against the index's schema at import.

The statement only sees the `candidates` it is given: the alphas the key may read (the route
computes them from the allow-lists), narrowed by any `CandidateFilter` first. So its total and its
rows count and name nothing the key may not read, and no filter value can reach another alpha.

A version's table stays while it is among the last `KEEP_VERSIONS` installed, and while a request
reads it: a table evicted while requests hold it is dropped by the last of them (`_release`), so no
statement ever meets a table dropped under it, however many versions arrive meanwhile.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from datasets.queries import Page
from schemas import choices, lake, wire
from schemas.bodies.rows import ScreenRow

T = TypeVar("T")
CandidateFilter = Callable[[np.ndarray], np.ndarray]
"""A filter the index's columns cannot express (`max_correlation` reads the catalogue's
matrices): given candidates as rows of the catalogue index (int64, in the statement's order; the
rows of the catalogue's matrices too), it returns those it keeps, in the same order. Filters run in
turn on what the statement's own filters kept (`analytics/screen.py`, `screen_page`): rows travel
as one numpy array from DuckDB to the filter and back (no Python object per candidate)."""


KEEP_VERSIONS = 4
"""Catalogue versions whose tables a worker keeps (the newest and those requests may still hold)."""

RANGES = choices.SCREEN_RANGES
SORTS = choices.SCREEN_SORTS
FIELDS = wire.SCREEN_INDEX_FIELDS
FOLDED = ("search_text", "tag_keys", "structure_key", "method_key", "position")
"""The columns a version's table adds to FIELDS (filled by `_table`)."""
for _column in {*RANGES, *SORTS, *FIELDS}:
    assert _column in lake.CATALOGUE_INDEX.names, f"{_column} is not a column of the catalogue index"
assert not set(FOLDED) & set(lake.CATALOGUE_INDEX.names)
SEPARATOR = "\x00"  # between the search fields, as `datasets.reader.Listing` joins them
CANDIDATES = "screen_candidates"
"""The relation (one column, alpha_id) a request's cursor holds its candidates in."""


def quoted(column: str) -> str:
    """A whitelisted column as an SQL identifier (anything else is a bug, never a request's value)."""
    if column not in FIELDS and column not in FOLDED:
        raise ValueError(f"{column!r} is not a screened column")
    return f'"{column}"'


@dataclass(frozen=True)
class Screen:
    """One request's filters, order and page, as the statement reads them."""

    # The alpha ids the answer may hold (None: every alpha of the index); an Arrow array reaches
    # the statement as a registered relation, never a Python object per id.
    candidates: pa.Array | Sequence[str] | None
    search: str | None = None  # substring of alpha_id, name or tldr, matched casefolded ("": none)
    tags: tuple[str, ...] = ()  # every one of them, matched casefolded
    structure: str | None = None  # matched casefolded
    method: str | None = None  # matched casefolded
    family: str | None = None  # a trial family's slug, matched exactly (slugs are lower case)
    complete_only: bool = False
    ic_reproduces: bool | None = None  # the flag's value; a null flag matches neither
    ranges: tuple[tuple[str, float | None, float | None], ...] = ()  # (column of RANGES, min, max)
    sort: str | None = None  # a column of SORTS; None: catalogue order
    descending: bool = False
    limit: int = 100
    offset: int = 0


def statement(table: str, screen: Screen, rows_only: bool = False) -> tuple[str, list[Any], str, list[Any]]:
    """(the page's SQL, its parameters, the count's SQL, its parameters) of `screen` on `table`.
    The page selects the `position` (the row of the catalogue index) of the page's rows, in order:
    a top-N of one integer column, whose fields `Installed.at` then reads for those rows alone (issue
    51: sorting every matching row with all its fields, and counting them in a window, cost 26 ms
    at 100,000 alphas against 3 ms); with `rows_only`, the position of every row that matches, in
    order (no page)."""
    where = ["true"]
    values: list[Any] = []
    if screen.candidates is not None:
        # The relation `_on` registers on this request's cursor (this module's name, not a value).
        where.append(f"alpha_id IN (SELECT alpha_id FROM {CANDIDATES})")  # noqa: S608
    if screen.search:
        needle = screen.search.casefold()
        # No field holds the separator: a needle with one matches nothing (as on `/v1/alphas`).
        where.append("false" if SEPARATOR in needle else "contains(search_text, ?)")
        values += [] if SEPARATOR in needle else [needle]
    if screen.tags:
        where.append("list_has_all(tag_keys, ?::VARCHAR[])")
        values.append([tag.casefold() for tag in screen.tags])
    for column, value in (("structure_key", screen.structure), ("method_key", screen.method)):
        if value is not None:
            where.append(f"{quoted(column)} = ?")
            values.append(value.casefold())
    if screen.family is not None:
        where.append(f"{quoted('family')} = ?")
        values.append(screen.family)
    if screen.complete_only:
        where.append("complete")
    if screen.ic_reproduces is not None:
        where.append("ic_reproduces = ?")
        values.append(screen.ic_reproduces)
    for column, low, high in screen.ranges:
        if column not in RANGES:
            raise ValueError(f"{column!r} is not a screened figure")
        if low is not None:
            where.append(f"{quoted(column)} >= ?")
            values.append(low)
        if high is not None:
            where.append(f"{quoted(column)} <= ?")
            values.append(high)
    if screen.sort is None:
        order = "position"
    else:
        if screen.sort not in SORTS:
            raise ValueError(f"{screen.sort!r} is not a sort column")
        direction = "DESC" if screen.descending else "ASC"
        order = f"{quoted(screen.sort)} {direction} NULLS LAST, alpha_id ASC"
    condition = " AND ".join(where)
    # Identifiers from the whitelists and this module's table names only; every value is a `?`.
    count = f"SELECT count(*) FROM {table} WHERE {condition}"  # noqa: S608
    matching = f"SELECT position FROM {table} WHERE {condition} ORDER BY {order}"  # noqa: S608
    if rows_only:
        return matching, values, count, values
    return f"{matching} LIMIT ? OFFSET ?", [*values, screen.limit, screen.offset], count, values


def _folded(values: list[Any]) -> list[str | None]:
    return [None if v is None else str(v).casefold() for v in values]


def _table(index: pa.Table) -> pa.Table:
    """The screened columns of the index's readable rows (an unreadable alpha is served by no route,
    whatever the candidates), with the folded columns the filters compare."""
    positions = pa.array(range(index.num_rows), pa.int32())
    readable = pc.is_null(index.column("unreadable"))
    index = index.filter(readable)
    positions = positions.filter(readable)
    ids = index.column("alpha_id").to_pylist()
    names = index.column("name").to_pylist()
    tldrs = index.column("tldr").to_pylist()
    text = [
        SEPARATOR.join(str(v).casefold() for v in (alpha, name or alpha, tldr or ""))
        for alpha, name, tldr in zip(ids, names, tldrs, strict=True)
    ]
    tags = [None if t is None else _folded(t) for t in index.column("tags").to_pylist()]
    columns = {name: index.column(name) for name in FIELDS}
    folded = {
        "search_text": pa.array(text, pa.string()),
        "tag_keys": pa.array(tags, pa.list_(pa.string())),
        "structure_key": pa.array(_folded(index.column("structure").to_pylist()), pa.string()),
        "method_key": pa.array(_folded(index.column("method").to_pylist()), pa.string()),
        "position": positions,
    }
    assert tuple(folded) == FOLDED
    return pa.table({**columns, **folded})


@dataclass(frozen=True)
class Installed:
    """A catalogue version's table: its name in the database, and its rows as Arrow (the same
    columns, in the same order), whose `position` column is ascending."""

    name: str
    rows: pa.Table
    positions: np.ndarray  # the `position` column (int64, ascending)

    def at(self, positions: list[int] | np.ndarray) -> list[ScreenRow]:
        """The screener rows of the catalogue index's rows `positions` (rows of this table), in
        that order: taken from the Arrow rows the table was made from, not by a statement (a
        statement picking 100 rows by position scanned the table: 15 ms at 100,000 alphas)."""
        wanted = np.asarray(positions, dtype=np.int64)
        if not wanted.size:
            return []
        places = np.searchsorted(self.positions, wanted)
        if (places >= self.positions.size).any() or (self.positions[places] != wanted).any():
            raise KeyError("a position that is not a row of the screened table")
        columns = self.rows.select(list(FIELDS)).take(pa.array(places)).to_pydict()
        undecided = wire.SCREEN_RECORD_FIELDS  # the records' fields, set by the caller
        return [
            ScreenRow(**dict(zip(FIELDS, values, strict=True)), **undecided)  # type: ignore[arg-type]
            for values in zip(*(columns[name] for name in FIELDS), strict=True)
        ]


class Screener:
    """One per worker: the DuckDB database and the tables of the catalogue versions it screened."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connection: duckdb.DuckDBPyConnection | None = None
        self._tables: OrderedDict[str, str] = OrderedDict()  # catalogue version -> table name
        self._arrows: dict[str, Installed] = {}  # table name -> its rows as Arrow
        self._numbers = itertools.count(1)
        self._holders: Counter[str] = Counter()  # table name -> the requests reading it now
        self._evicted: set[str] = set()  # tables out of `_tables` that requests still read

    def page(self, version: str, index: pa.Table, screen: Screen) -> Page:
        """The page `screen` asks for over `index`, the catalogue index of `version`."""
        if screen.candidates is not None and not len(screen.candidates):
            return Page([], 0)  # nothing the key may read: no statement needed
        return self._on(version, index, screen, partial(self._run, screen=screen))

    def matching(self, version: str, index: pa.Table, screen: Screen) -> np.ndarray:
        """The row of the catalogue index (int64) of every row `screen` selects, in its order (no
        page): one numpy array out of DuckDB."""
        if screen.candidates is not None and not len(screen.candidates):
            return np.empty(0, np.int64)

        def rows(cursor: duckdb.DuckDBPyConnection, table: str) -> np.ndarray:
            sql, values, _, _ = statement(table, screen, rows_only=True)
            found = cursor.execute(sql, values).fetchnumpy()["position"]
            return np.asarray(found, dtype=np.int64)

        return self._on(version, index, screen, rows)

    def rows_at(self, version: str, index: pa.Table, positions: np.ndarray) -> list[ScreenRow]:
        """The screener rows of the catalogue index's rows `positions`, in that order."""
        if not len(positions):
            return []
        return self._on(
            version,
            index,
            Screen(candidates=None),
            lambda cursor, table: self._installed(table).at(positions),
        )

    def _installed(self, table: str) -> Installed:
        """The Arrow rows of `table`, which the asking request holds (so it is not dropped)."""
        with self._lock:
            return self._arrows[table]

    def _on(
        self,
        version: str,
        index: pa.Table,
        screen: Screen,
        run: Callable[[duckdb.DuckDBPyConnection, str], T],
    ) -> T:
        """`run(cursor, table)` on the table of `version`, with a cursor of this request's own
        (holding the screen's candidates as `CANDIDATES`, a relation only that cursor sees)."""
        candidates = None
        if screen.candidates is not None:
            ids = screen.candidates
            candidates = pa.table(
                {"alpha_id": ids if isinstance(ids, pa.Array) else pa.array(ids, pa.string())}
            )
        table, cursor = self._cursor(version, index, candidates)
        try:
            return run(cursor, table)
        finally:
            cursor.close()
            self._release(table)

    def _release(self, table: str) -> None:
        """A request done with `table`: dropped now when it was evicted and this was its last reader."""
        with self._lock:
            self._holders[table] -= 1
            if self._holders[table] > 0:
                return
            del self._holders[table]
            if table in self._evicted:
                self._evicted.discard(table)
                self._drop(table)

    def _drop(self, table: str) -> None:
        """Under the lock: `table` and its Arrow rows gone."""
        assert self._connection is not None
        self._connection.execute(f"DROP TABLE IF EXISTS {table}")
        self._arrows.pop(table, None)

    def _run(self, cursor: duckdb.DuckDBPyConnection, table: str, *, screen: Screen) -> Page:
        sql, values, count_sql, count_values = statement(table, screen)
        positions = [int(row[0]) for row in cursor.execute(sql, values).fetchall()]
        rows = self._installed(table).at(positions)
        if positions and len(positions) < screen.limit:
            total = screen.offset + len(positions)  # the last page: every match is before its end
        elif not positions and screen.offset == 0:
            total = 0
        else:  # a full page, or one past the end: the count
            counted = cursor.execute(count_sql, count_values).fetchone()
            total = 0 if counted is None else int(counted[0])
        return Page(rows, total)

    def _cursor(
        self, version: str, index: pa.Table, candidates: pa.Table | None
    ) -> tuple[str, duckdb.DuckDBPyConnection]:
        """The table of `version` (installed now when new) and a cursor of this request's own,
        with `candidates` registered on it."""
        with self._lock:
            if self._connection is None:
                # One thread per statement: a catalogue is thousands of rows at most, and a
                # worker's requests run side by side in their own threads.
                self._connection = duckdb.connect(":memory:", config={"threads": 1})
            connection = self._connection
            table = self._tables.get(version)
            if table is None:
                table = self._install(connection, index)
                self._tables[version] = table
                while len(self._tables) > KEEP_VERSIONS:
                    _, old = self._tables.popitem(last=False)
                    if self._holders[old]:
                        self._evicted.add(old)  # its last reader drops it
                    else:
                        self._drop(old)
            else:
                self._tables.move_to_end(version)
            self._holders[table] += 1
            cursor = connection.cursor()
        if candidates is not None:
            try:
                cursor.register(CANDIDATES, candidates)
            except BaseException:
                cursor.close()
                self._release(table)
                raise
        return table, cursor

    def _install(self, connection: duckdb.DuckDBPyConnection, index: pa.Table) -> str:
        """A new table holding `index`'s screened columns (a copy: cursors do not see a view
        registered on another connection)."""
        name = f"screen_{next(self._numbers)}"
        rows = _table(index)
        connection.register("screen_incoming", rows)
        try:
            connection.execute(f"CREATE TABLE {name} AS SELECT * FROM screen_incoming")  # noqa: S608 (our name)
        finally:
            connection.unregister("screen_incoming")
        positions = np.asarray(rows.column("position").to_numpy(), dtype=np.int64)
        self._arrows[name] = Installed(name, rows, positions)
        return name

    def tables(self) -> list[str]:
        """The catalogue versions whose tables are installed, oldest first (for tests)."""
        with self._lock:
            return list(self._tables)
