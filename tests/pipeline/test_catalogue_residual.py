"""Which rows a commit of the catalogue index computes the residual columns of
(`pipeline.catalogue_residual.with_residuals`): every row when the default reference set's inputs
moved (the approved alphas a decision hands in, the production alphas, a build of an alpha of the
set, SPY's build, an index written before the columns), only the published rows otherwise, the
other rows' figures kept; and the `approved` column kept from the index it follows."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from analytics.series import BenchmarkSeries
from datasets.catalogue_index import conformed
from pipeline import catalogue_residual

IDS = ["prod_a", "prod_b", "Test_c", "Test_d", "Test_e"]


def index(approved: list[str] | None, figures: float | None = None) -> pa.Table:
    """An index of IDS (production: no Test_ prefix) whose `approved` column names `approved`
    (None: a column of nulls, as an index written before it), each row's residual figures
    `figures`."""
    n = len(IDS)
    return conformed(
        pa.table(
            {
                "alpha_id": IDS,
                "production": [not a.startswith("Test_") for a in IDS],
                "entry": ['{"metric_conventions": {"sessions_per_year": 252}}'] * n,
                "approved": pa.array(
                    [None] * n if approved is None else [a in approved for a in IDS], pa.bool_()
                ),
                "residual_information_ratio": pa.array([figures] * n, pa.float64()),
                "residual_t_statistic": pa.array([figures] * n, pa.float64()),
            }
        )
    )


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The rows each call of `index_figures` was asked for (each answered (1.0, 2.0)), with SPY's
    series a synthetic one."""
    calls: list[list[int]] = []

    def figures(
        matrix: Any, approved: np.ndarray, production: np.ndarray, per_year: Any, market: Any, rows: Any
    ) -> Any:
        wanted = list(rows)
        calls.append(wanted)
        return dict.fromkeys(wanted, (1.0, 2.0))

    market = BenchmarkSeries("SPY", "spy1", "close", np.arange(10), np.zeros(10))
    monkeypatch.setattr(catalogue_residual, "index_figures", figures)
    monkeypatch.setattr(catalogue_residual, "market_series", lambda storage, root, build: market)
    return calls


MATRICES: dict[str, np.ndarray] = {
    "returns_days": np.arange(10, dtype=np.int32),
    "returns": np.zeros((len(IDS), 10)),
}


def commit(
    table: pa.Table,
    previous: pa.Table | None,
    fresh: list[str],
    approved: list[str] | None = None,
    spy: str = "spy1",
) -> pa.Table:
    return catalogue_residual.with_residuals(
        None,  # type: ignore[arg-type]  # market_series is replaced
        "",
        table,
        MATRICES,
        spy,
        previous,
        "spy1",
        fresh,
        approved,
    )


def test_a_publish_outside_the_set_computes_its_own_row(asked: list[list[int]]) -> None:
    before = index([], figures=0.5)
    table = commit(before, before, ["Test_d"])
    assert asked == [[3]]
    assert table.column("residual_information_ratio").to_pylist() == [0.5, 0.5, 0.5, 1.0, 0.5]
    assert table.column("residual_t_statistic").to_pylist() == [0.5, 0.5, 0.5, 2.0, 0.5]
    assert table.column("approved").to_pylist() == [False] * 5


@pytest.mark.parametrize(
    ("case", "fresh", "approved", "spy", "previous"),
    [
        ("a production alpha republished (the set while nothing is approved)", ["prod_a"], None, "spy1", []),
        ("an approved alpha republished", ["Test_c"], None, "spy1", ["Test_c", "Test_d"]),
        ("a decision approves an alpha", [], ["Test_c"], "spy1", []),
        ("a decision retires the last approved alpha", [], [], "spy1", ["Test_c"]),
        ("SPY republished", [], None, "spy2", []),
        ("an index written before the columns", ["Test_e"], None, "spy1", None),
    ],
)
def test_when_the_set_moves_every_row_is_computed(
    asked: list[list[int]],
    case: str,
    fresh: list[str],
    approved: list[str] | None,
    spy: str,
    previous: list[str] | None,
) -> None:
    before = index(previous, figures=0.5)
    table = commit(before, before, fresh, approved, spy)
    assert asked == [list(range(len(IDS)))], case
    assert table.column("residual_information_ratio").to_pylist() == [1.0] * len(IDS), case
    kept = approved if approved is not None else (previous or [])
    assert table.column("approved").to_pylist() == [a in kept for a in IDS], case


def test_a_new_production_alpha_moves_the_set(asked: list[list[int]]) -> None:
    """While nothing is approved the set is the production alphas: a first publish of one is a new
    set for every row; of a Test_ alpha, its own row alone."""
    now = index([], figures=0.5)
    without = now.filter(pa.array([a != "prod_b" for a in IDS]))
    commit(now, without, ["prod_b"])
    assert asked == [list(range(len(IDS)))]
    asked.clear()
    without = now.filter(pa.array([a != "Test_e" for a in IDS]))
    commit(now, without, ["Test_e"])
    assert asked == [[4]]


def test_the_approved_set_is_kept_from_the_index_it_follows(asked: list[list[int]]) -> None:
    before = index(["prod_b", "Test_d"], figures=0.5)
    table = commit(before, before, ["Test_e"])
    assert asked == [[4]]
    assert table.column("approved").to_pylist() == [False, True, False, True, False]


def test_a_new_production_alpha_without_decisions_leaves_rows_without_a_figure(
    asked: list[list[int]],
) -> None:
    """Nothing approved: a first publish of a production alpha grows every row's set; a row that
    had no figure keeps none (more reference alphas only make a regression less measurable)."""
    now = index([], figures=None)
    previous = now.filter(pa.array([a != "prod_b" for a in IDS]))
    values = [0.5, 0.25, None, None]  # prod_a and Test_c had figures, Test_d and Test_e none
    previous = previous.set_column(
        previous.schema.get_field_index("residual_information_ratio"),
        "residual_information_ratio",
        pa.array(values, pa.float64()),
    )
    commit(now, previous, ["prod_b"])
    assert asked == [[0, 1, 2]]  # prod_a, prod_b (fresh), Test_c


def test_the_lone_approved_alphas_set_is_the_production_one(asked: list[list[int]]) -> None:
    """With one alpha approved, the others' set is that alpha, and its own set the production
    alphas: a new production alpha moves its row alone (and the fresh one)."""
    now = index(["Test_c"], figures=0.5)
    previous = now.filter(pa.array([a != "prod_b" for a in IDS]))
    commit(now, previous, ["prod_b"])
    assert asked == [[1, 2]]  # prod_b (fresh), Test_c (its set gained prod_b)
