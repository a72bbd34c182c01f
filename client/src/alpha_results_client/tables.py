"""Tables of the single-object answers whose contents are tables: methods a generated class
gains by naming one of these mixins as a base (client/scripts/generate.py, `MIXINS`).

The generated classes are written from the server's OpenAPI document alone, so what the client
adds to an answer (a frame of its checks, of its curves) lives here, beside them, not in them.
Each mixin declares no slots of its own, as a msgspec Struct's bases must.

Two shapes, one way to build each (frames.py, as a collection's frames):

- an answer that is one table (`Checks`, `Risk`, `Contribution`) has `to_polars()`, `to_pandas()`
  and `to_arrow()`, as a collection has;
- an answer that holds several (`Comparison`, combine's `meta`) has `<field>_frame()` per table,
  named after the field it reads: a polars DataFrame, or with `library="pandas"` a pandas
  DataFrame, with `library="arrow"` a `pyarrow.Table`.

Columns are typed as the generated row types declare them (frames.py), so an empty or all-null
table keeps its columns and their types.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from alpha_results_client import frames
from alpha_results_client.frames import Column


class OneTable:
    """An answer that is one table: `to_polars()`, `to_pandas()`, `to_arrow()` of `_table()`."""

    __slots__ = ()

    def _table(self) -> tuple[Sequence[Any], Sequence[Column]]:
        raise NotImplementedError

    def to_polars(self) -> Any:
        """The table as a polars DataFrame (needs the `polars` extra)."""
        return frames.rows_to("polars", *self._table())

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame (needs the `pandas` extra)."""
        return frames.rows_to("pandas", *self._table())

    def to_arrow(self) -> Any:
        """The table as a `pyarrow.Table` (needs the `parquet` extra)."""
        return frames.rows_to("arrow", *self._table())


STAT_KEYS = frozenset({"value", "unit", "status", "withheld_reason"})
"""The stat-entry keys a table of stat entries always has (`withheld_reason` null while every figure
is available); any other key is a column when some entry carries it."""


def stat_rows(owner: Any, names: Sequence[str]) -> tuple[list[dict[str, Any]], list[Column]]:
    """One row per stat entry of `owner` (`names`: attributes, `benchmark.beta` one level down):
    `figure` (the name), then the stat-entry keys (`STAT_KEYS`, and the others some entry carries),
    in their declared order."""
    entries = {name: _attribute(owner, name) for name in names}
    stat_type: type[msgspec.Struct] = type(next(iter(entries.values())))
    rows = [{"figure": name, **msgspec.structs.asdict(entry)} for name, entry in entries.items()]
    kept = [
        c
        for c in frames.columns_of(stat_type)
        if c.name in STAT_KEYS or any(row[c.attr] is not UNSET for row in rows)
    ]
    return rows, [Column("figure", "figure", "str"), *kept]


def _attribute(owner: Any, path: str) -> Any:
    for part in path.split("."):
        owner = getattr(owner, part)
    return owner


CHECK_COLUMNS = (
    Column("id", "id", "str"),
    Column("value", "value", "float"),
    Column("unit", "unit", "str"),
    Column("min", "min", "float"),
    Column("max", "max", "float"),
    Column("verdict", "verdict", "str"),
    Column("reason", "reason", "str"),
    Column("source", "source", "str"),
)


class ChecksTables(OneTable):
    """`/analytics/checks`: one row per check (`id`, `value`, `unit`, the `min` and `max` applied,
    `verdict`, `reason`, `source`)."""

    __slots__ = ()
    checks: Any

    def _table(self) -> tuple[Sequence[Any], Sequence[Column]]:
        rows = [
            {
                "id": c.id,
                "value": c.value,
                "unit": c.unit,
                "min": c.threshold.min,
                "max": c.threshold.max,
                "verdict": c.verdict,
                "reason": c.reason,
                "source": c.source,
            }
            for c in self.checks
        ]
        return rows, CHECK_COLUMNS


RISK_FIGURES = (
    "benchmark.beta",
    "benchmark.alpha",
    "benchmark.tracking_error",
    "sortino",
    "cagr",
    "max_drawdown_pct",
    "calmar",
    "tail_ratio",
    "var_95",
    "cvar_95",
    "best_day",
    "worst_day",
    "best_week",
    "worst_week",
    "best_month",
    "worst_month",
)
"""The figures of `/analytics/risk`, as the answer orders them (the benchmark block first)."""


class RiskTables(OneTable):
    """`/analytics/risk`: one row per figure (`figure`: `sortino`, ..., `benchmark.beta`), with its
    stat entry's `value`, `unit`, `status` and the other keys some figure carries (`date` and
    `sessions` of the best and worst periods, `confidence` of VaR and CVaR, ...)."""

    __slots__ = ()

    def _table(self) -> tuple[Sequence[Any], Sequence[Column]]:
        return stat_rows(self, RISK_FIGURES)


SIDES = ("before", "after", "change")
CONTRIBUTION_COLUMNS = (Column("figure", "figure", "str"), *(Column(side, side, "float") for side in SIDES))


class ContributionTables(OneTable):
    """`/analytics/contribution`: one row per book figure (`figure`, `before`, `after`, `change`:
    the values of the three stat entries; null where not measurable)."""

    __slots__ = ()
    before: Any
    after: Any
    change: Any

    def _table(self) -> tuple[Sequence[Any], Sequence[Column]]:
        rows = [
            {"figure": f.encode_name, **{side: getattr(getattr(self, side), f.name).value for side in SIDES}}
            for f in msgspec.structs.fields(self.before)
            if getattr(self.before, f.name) is not UNSET  # combine's figures, without a weighting
        ]
        return rows, CONTRIBUTION_COLUMNS


class ComparisonTables:
    """`/analytics/compare`: the two equity curves and their difference, and the rolling
    correlations of their returns (per session) and of their weekly IC (per week)."""

    __slots__ = ()
    equity: Any
    rolling_return_correlation: Any
    rolling_ic_correlation: Any

    def equity_frame(self, *, library: str = "polars") -> Any:
        """The two cumulative returns and their difference (`date`, `cumulative_return_alpha`,
        `cumulative_return_with`, `difference`), one row per common session."""
        return _field_frame(self, "equity", library)

    def rolling_return_correlation_frame(self, *, library: str = "polars") -> Any:
        """The rolling correlation of the two books' daily returns (`date`, `correlation`), one row
        per common session."""
        return _field_frame(self, "rolling_return_correlation", library)

    def rolling_ic_correlation_frame(self, *, library: str = "polars") -> Any:
        """The rolling correlation of the two weekly IC series (`date`, `correlation`), one row per
        common week."""
        return _field_frame(self, "rolling_ic_correlation", library)


class CombinationTables:
    """`/analytics/combine`'s `meta`: the weights and the correlation matrix of the alphas."""

    __slots__ = ()
    correlation: Any

    def weights_frame(self, *, library: str = "polars") -> Any:
        """The weights applied (`alpha`, `weight`), one row per alpha in the order of `alphas`."""
        return _field_frame(self, "weights", library)

    def correlation_frame(self, *, library: str = "polars") -> Any:
        """The correlation matrix as a square table: `alpha`, then one column per alpha (in the
        order of `correlation.alphas`), one row per alpha."""
        alphas, matrix = (
            ([], []) if self.correlation is UNSET else (self.correlation.alphas, self.correlation.matrix)
        )
        rows = [
            {"alpha": a, **dict(zip(alphas, row, strict=True))} for a, row in zip(alphas, matrix, strict=True)
        ]
        columns = [Column("alpha", "alpha", "str"), *(Column(a, a, "float") for a in alphas)]
        return frames.rows_to(library, rows, columns)


def _field_frame(owner: Any, name: str, library: str) -> Any:
    """The rows of `owner`'s list field `name` (none when null or unset) as a frame."""
    rows = getattr(owner, name)
    owner_type: type[msgspec.Struct] = type(owner)
    columns = frames.field_columns(owner_type, name)
    return frames.rows_to(library, [] if rows is None or rows is UNSET else rows, columns)
