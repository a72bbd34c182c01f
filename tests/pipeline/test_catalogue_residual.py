"""Which rows a commit of the catalogue index computes the residual columns of
(`pipeline.catalogue_residual.with_residuals`): every row when the default reference set's inputs
moved (the approved alphas a decision hands in, a build of an alpha of the set, SPY's build, an
index written before the columns), only the published rows otherwise, the other rows' figures
kept; and the `approved` column kept from the index it follows. The set is the approved alphas
alone (issue 47): no prefix rule stands in when none is."""

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
    """An index of IDS whose `approved` column names `approved`
    (None: a column of nulls, as an index written before it), each row's residual figures
    `figures`."""
    n = len(IDS)
    return conformed(
        pa.table(
            {
                "alpha_id": IDS,
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

    def figures(matrix: Any, approved: np.ndarray, per_year: Any, market: Any, rows: Any) -> Any:
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


def test_while_nothing_is_approved_a_publish_computes_its_own_row_alone(asked: list[list[int]]) -> None:
    """Nothing approved: every row's set is empty (SPY alone), whatever an alpha's prefix, so a first
    publish of any alpha, restricted or Test_, moves no other row's set."""
    now = index([], figures=0.5)
    for fresh, row in (("prod_b", 1), ("Test_e", 4)):
        asked.clear()
        commit(now, now.filter(pa.array([a != fresh for a in IDS])), [fresh])
        assert asked == [[row]], fresh


def test_the_approved_set_is_kept_from_the_index_it_follows(asked: list[list[int]]) -> None:
    before = index(["prod_b", "Test_d"], figures=0.5)
    table = commit(before, before, ["Test_e"])
    assert asked == [[4]]
    assert table.column("approved").to_pylist() == [False, True, False, True, False]


def test_a_lone_approved_alphas_own_set_is_empty(asked: list[list[int]]) -> None:
    """With one alpha approved, the others' set is that alpha and its own set is empty: a new
    restricted alpha, not approved, moves no set but its own row."""
    now = index(["Test_c"], figures=0.5)
    previous = now.filter(pa.array([a != "prod_b" for a in IDS]))
    commit(now, previous, ["prod_b"])
    assert asked == [[1]]  # prod_b (fresh) alone
