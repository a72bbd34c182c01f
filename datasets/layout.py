"""The lake layout: the one module that knows where every published file lives.

Both the pipeline's writer and the server's reader build paths here; docs/lake.md describes the
same layout for analysts who open the files without the project installed.

    {root}/alphas/{alpha_id}/_current.json                 pointer to the served build
    {root}/alphas/{alpha_id}/builds/{build_id}/...         one immutable build (tables below)
    {root}/benchmarks/{symbol}/_current.json
    {root}/benchmarks/{symbol}/builds/{build_id}/daily.parquet, benchmark.json
    {root}/archives/{alpha_id}/{sha256}.zip                source archives (content-addressed)
    {build}/serving/...                                    the server's files (internal, below)
    {build}/exports/index.json                             the Parquet exports, as the API serves them:
                                                           made by the server on first ask (2.13.0)

A build is written completely before its pointer is replaced, and the pointer is replaced in one
atomic step (rename on a local folder, a single PUT on S3), so a reader sees the old build or the
new one, never a mix.
"""

from __future__ import annotations

import os
import re

# The identifiers are the seal kit's (a seal is checked against them without the server).
from alpha_results_seal.identifiers import ALPHA_ID_PATTERN as ALPHA_ID_PATTERN
from alpha_results_seal.identifiers import BENCHMARK_SYMBOL_PATTERN as BENCHMARK_SYMBOL_PATTERN
from alpha_results_seal.identifiers import check_alpha_id as check_alpha_id
from alpha_results_seal.identifiers import join as join
from schemas.lake import tables_laid

POINTER_FILE = "_current.json"

# Files of one alpha build. Book-scoped tables are hive-partitioned by book.
ALPHA_JSON = "alpha.json"  # catalogue entry: identity, completeness, kinds, books, build facts
DESCRIPTION_JSON = "description.json"  # normalised written description (absent when none sealed)
SOURCE_JSON = "source.json"  # source archive record (absent when none recorded)
# The tables are declared once, with their schema and serving file, in `schemas.lake.TABLES`.
SINGLE_FILE_TABLES = tables_laid("single")  # {table}.parquet
YEAR_PARTITIONED_TABLES = tables_laid("year")  # decisions/year=YYYY/part-0.parquet
BOOK_PARTITIONED_TABLES = tables_laid("book")  # <t>/book=<b>/part-0.parquet
PART_FILE = "part-0.parquet"

# The serving layout (internal): what the server maps, in each build folder.
# Arrow IPC files, uncompressed and one record batch each, so a worker memory-maps them and its
# pages are shared with every other worker through the OS page cache. Rows are sorted by the keys
# requests select on; `index.json` carries the row range of each book.
SERVING_FORMAT = 1  # index.json `format`; a server reads only the format it knows
SERVING_DIR = "serving"
SERVING_INDEX = "index.json"
SERVING_SUFFIX = ".arrow"

# Parquet exports (pipeline 2.1): every dataset of the build as one file, as the API serves it
# (schemas.exports), in `exports/`, with `exports/index.json` naming each file's dataset, book,
# audience, rows and columns. Listed in the build's manifest like every other file.
EXPORTS_DIR = "exports"
EXPORTS_INDEX = "index.json"
EXPORT_SUFFIX = ".parquet"

# Retention of superseded builds. A worker re-reads pointers at least every
# `MAX_REFRESH_SECONDS` and maps a build's files when it opens it, so a build superseded
# `BUILD_RETENTION_SECONDS` ago is served by no worker: it may be deleted.
MAX_REFRESH_SECONDS = 60.0
BUILD_RETENTION_SECONDS = 600.0
HISTORY_ENV = "ALPHA_RESULTS_BUILD_HISTORY_DAYS"
DEFAULT_HISTORY_DAYS = 7.0
"""How long a superseded build stays named by its alpha's pointer (so kept), in days, as the
operator sets it (issue 64: a notebook holding a build, two runs compared, a read `as_of`). Each
rule adds its own floor: a superseded build stays at least `BUILD_RETENTION_SECONDS` (what a
worker may still serve), a catalogue generation its `RETENTION_SECONDS`."""


def history_seconds() -> float:
    """The operator's history retention in seconds; ValueError naming the setting when it is not a
    number of days from 0 to 36,500."""
    text = os.environ.get(HISTORY_ENV, "").strip()
    if not text:
        return DEFAULT_HISTORY_DAYS * 86_400.0
    try:
        days = float(text)
    except ValueError:
        days = float("nan")
    if not 0.0 <= days <= 36_500.0:  # NaN fails too
        raise ValueError(f"{HISTORY_ENV} must be a number of days from 0 to 36500, not {text!r}")
    return days * 86_400.0


# A publish holds a lease on the build folder it writes (`leases/{build_id}.json` beside
# `builds/`), renewed every third of this while it runs. A build folder that no pointer names and
# no live lease covers is garbage: a killed publish, a killed prune, or a lost race.
PUBLISH_LEASE_SECONDS = 30.0

# Files of one benchmark build.
BENCHMARK_DAILY = "daily.parquet"  # the daily series (schemas.lake.BENCHMARK_DAILY)
BENCHMARK_JSON = "benchmark.json"  # symbol, name, currency, rows, first/last date, bytes


def alphas_dir(root: str) -> str:
    return join(root, "alphas")


def alpha_dir(root: str, alpha_id: str) -> str:
    return join(root, "alphas", check_alpha_id(alpha_id))


def alpha_pointer(root: str, alpha_id: str) -> str:
    return join(alpha_dir(root, alpha_id), POINTER_FILE)


def alpha_builds_dir(root: str, alpha_id: str) -> str:
    return join(alpha_dir(root, alpha_id), "builds")


def alpha_build_dir(root: str, alpha_id: str, build_id: str) -> str:
    return join(alpha_builds_dir(root, alpha_id), build_id)


def leases_dir(builds_dir: str) -> str:
    """Publish leases of the builds under `builds_dir` (a sibling folder)."""
    return join(builds_dir.rstrip("/").removesuffix("/builds"), "leases")


def lease_path(builds_dir: str, build_id: str) -> str:
    return join(leases_dir(builds_dir), f"{build_id}.json")


def table_path(build_dir: str, table: str) -> str:
    """Path of a single-file table inside a build."""
    if table not in SINGLE_FILE_TABLES:
        raise ValueError(f"{table!r} is not a single-file table")
    return join(build_dir, f"{table}.parquet")


def serving_path(build_dir: str, name: str) -> str:
    """Path of a serving file (`name` without suffix, or `index.json`) inside a build."""
    if name != SERVING_INDEX:
        name += SERVING_SUFFIX
    return join(build_dir, SERVING_DIR, name)


def export_file_name(dataset: str, book: str | None = None, raw_variant: bool = False) -> str:
    """`{dataset}[.{book}][.raw].parquet`: `.raw` marks the variant with the raw-only columns."""
    return ".".join([dataset, *([book] if book else []), *(["raw"] if raw_variant else [])]) + EXPORT_SUFFIX


def export_file_parts(name: str) -> tuple[str, str | None, bool]:
    """`(dataset, book, raw_variant)` of an export file name, `export_file_name`'s inverse."""
    parts = name.removesuffix(EXPORT_SUFFIX).split(".")
    raw_variant = len(parts) > 1 and parts[-1] == "raw"
    book = ".".join(parts[1 : len(parts) - raw_variant]) or None
    return parts[0], book, raw_variant


def export_path(build_dir: str, name: str) -> str:
    """Path of an export file (or of `index.json`) inside a build."""
    return join(build_dir, EXPORTS_DIR, name)


def year_partition_path(build_dir: str, table: str, year: int) -> str:
    if table not in YEAR_PARTITIONED_TABLES:
        raise ValueError(f"{table!r} is not partitioned by year")
    return join(build_dir, table, f"year={year}", PART_FILE)


def book_partition_path(build_dir: str, table: str, book: str) -> str:
    if table not in BOOK_PARTITIONED_TABLES:
        raise ValueError(f"{table!r} is not partitioned by book")
    return join(build_dir, table, f"book={book}", PART_FILE)


def benchmarks_dir(root: str) -> str:
    return join(root, "benchmarks")


def benchmark_dir(root: str, symbol: str) -> str:
    if not BENCHMARK_SYMBOL_PATTERN.fullmatch(symbol):
        raise ValueError(f"benchmark symbol {symbol!r} does not match {BENCHMARK_SYMBOL_PATTERN.pattern}")
    return join(benchmarks_dir(root), symbol)


def benchmark_pointer(root: str, symbol: str) -> str:
    return join(benchmark_dir(root, symbol), POINTER_FILE)


def benchmark_builds_dir(root: str, symbol: str) -> str:
    return join(benchmark_dir(root, symbol), "builds")


def benchmark_build_dir(root: str, symbol: str, build_id: str) -> str:
    return join(benchmark_builds_dir(root, symbol), build_id)


def archive_path(root: str, alpha_id: str, sha256: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{64}", sha256):
        raise ValueError("sha256 must be 64 lowercase hex digits")
    return join(root, "archives", check_alpha_id(alpha_id), f"{sha256}.zip")
