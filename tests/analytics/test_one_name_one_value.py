"""One name, one meaning, across every answer (issue 46, item 3).

For each demo alpha and a few windows, every analytics answer, /metrics and the other answers the
tear sheet and the comparison report are drawn from (the JSON they request, serve/static/ui/
tearsheet.js and report_page.js) are asked through the app, each flattened to (name -> value),
and each name must carry one value across them all: a figure with another definition, another
window, another sample or another source (sealed against rebuilt) has another name.

How an answer is flattened (`leaves`):
- a stat entry (`value` beside `status`) is its field's name with its value; the keys it adds
  (a bootstrap's `lower`, a check's `threshold`) are flattened under it;
- rows of a list (a series, a table) are scoped by their row and are not compared, except the
  checks (`id` names the figure each check judges: checks[id].value is that figure). A row's name
  is one row's value over the row's own span (`/analytics/rolling`'s `rebuilt_mean_ic` and `icir` over the
  trailing window ending at its `date`, `factors`' `weekly[].book_return` one week's): a series
  carries one value per row by nature, so its rows are left out on purpose (docs/analytics.md,
  "Renamed", says which row names were kept and why);
- a name in `QUALIFIED` means nothing without its parent (the `alpha` side of a comparison, a
  bootstrap's `lower`, a test's `p_value`): it is compared as `parent.name`, the parent itself
  qualified the same way (`mean_ic.test.p_value`);
- a container in `SCOPES` holds figures over another window than the request's: its name is
  kept as a prefix (`in_sample.information_ratio`);
- a name in `PER_ANSWER` is left out: its meaning is per answer by nature (counts, dates, a
  policy's threshold bounds).
"""

from __future__ import annotations

import math
import typing
from collections import defaultdict
from typing import Any

import msgspec
import pytest

from analytics.reading import SERVED, Reading
from schemas.query import ChecksQuery, CompareQuery
from tests.analytics.conftest import ALPHAS, Api, Window

QUALIFIED = {
    "alpha": "compare: this alpha's side of a figure; risk.benchmark: Jensen's alpha to the market",
    "with": "compare: the other alpha's side",
    "difference": "compare: alpha - with of its figure",
    "lower": "a bootstrap interval's bound of its statistic",
    "upper": "a bootstrap interval's bound of its statistic",
    "mean": "nwt: the mean of the series the block tests",
    "standard_error": "nwt and spreads: the standard error of its mean",
    "t_statistic": "the t-statistic of the test it sits in",
    "statistic": "compare's test: the statistic of the test named beside it (statistic_kind: t or z)",
    "p_value": "the p-value of the test it sits in",
    "adjusted_p_value": "significance.sharpe_haircut: the p-value adjusted by the method it sits in (bonferroni_haircut ...)",
    "adjusted_p_value_monte_carlo_error": "significance.sharpe_haircut: the Monte Carlo standard error of the adjusted p-value beside it",
    "haircut_sharpe": "significance.sharpe_haircut: the Sharpe ratio the method it sits in implies",
    "haircut_share": "significance.sharpe_haircut: the share of the Sharpe ratio the method it sits in takes off",
    "observations": "the observations of the figure it sits in",
    "block_length": "a bootstrap's block length",
    "lag": "a Newey-West lag of the block it sits in",
    "n": "nwt: observations of the block",
    "min": "a threshold's lower bound",
    "max": "a threshold's upper bound",
    "test": "compare: the test of a figure's difference",
    "threshold": "a check's bound, as the request applies it",
    "policy_threshold": "a check's bound, as the policy states it",
    "value": "a check's value: qualified by the check's id",
    "pnl": "attribution: the P&L of a leg or a total (base currency over equity), /metrics core: the compounded return",
    "return_contribution": "attribution: a leg's summed return contribution",
    "share": "attribution: a leg's share of the window's P&L",
    "weight": "attribution.concentration: the largest weight",
    "probability": "live.consistency: its test's probability",
}
"""Names whose meaning is their parent's: compared as `parent.name`."""

SCOPES = {
    "in_sample": "live: the part up to the split, not the request's window (live takes none)",
    "out_of_sample": "live: the part after the split",
    "long": "attribution.by_leg: the long leg",
    "short": "attribution.by_leg: the short leg",
    "neither": "attribution.by_leg: names in neither leg",
    "raw": "/metrics rank_ic.raw: the raw (unconditioned) score's IC figures, which the spec names ic and icir",
    "dsr_family": "significance: the DSR over the alpha's own trial family, its trials the family's, not the catalogue's",
    "clustered_dsr": "significance: the DSR over the clusters of the trials, V over the clusters' Sharpe ratios, not the trials'",
}
"""Containers whose figures are over another sample or score than the answer's: kept as a prefix."""

PER_ANSWER = {
    "sessions": "each answer's sessions: its book's, its window's, its part's",
    "weeks": "each answer's weeks (rebalance, traded or IC weeks)",
    "names": "a count of names in its answer",
    "bucketed_weeks": "costs: weeks with a turnover by decile; quantiles: weeks with forward returns bucketed",
    "count": "a count of what its container lists (trials, reference alphas, dropped ones)",
    "top": "a request parameter echoed",
    "drop": "a request parameter echoed",
    "level": "a test's significance level, echoed",
    "periods_per_year": "the annualisation factor of the figure it sits in",
    "years": "tenure in years / the minimum track record in years",
}
"""Names left out: their meaning is per answer by nature."""


def _answers() -> tuple[dict[str, tuple[str, dict[str, Any]]], set[str]]:
    """Every single-object answer of one alpha (derived from the declarations, so a new figure is
    compared with the rest from its first day): each served answer (`analytics.answer.SERVED`) but
    the collections, the checks and the comparison (the tear sheet's and the comparison report's),
    /metrics; and those asked over each window: the ones whose query takes from/to."""
    queries = {
        name: typing.get_type_hints(getattr(Reading, name))["q"]
        for name, s in SERVED.items()
        if s.rows is None
    }
    queries |= {"checks": ChecksQuery, "compare": CompareQuery}
    answers = {"metrics": ("/metrics", {"granularity": "overall"})}
    for name, query in queries.items():
        fields = {f.name for f in msgspec.structs.fields(query)}
        answers[name] = (f"/analytics/{name}", {"book": "long_short"} if "book" in fields else {})
    windowed = {
        name for name, query in queries.items() if "start" in {f.name for f in msgspec.structs.fields(query)}
    }
    return answers, windowed


ANSWERS, WINDOWED = _answers()
"""The answers compared, and those asked over each window too. /metrics (its core is never
narrowed) and those without from/to (live, decay) are asked over the whole history only."""

WINDOWS: list[Window] = [(None, None), ("2021-03-01", "2022-01-31")]


def is_stat(node: Any) -> bool:
    return isinstance(node, dict) and "value" in node and "status" in node


STAT_KEYS = {
    "value",
    "status",
    "unit",
    "source",
    "source_kind",
    "annualisation",
    "withheld_reason",
    "signal",
    "deprecated",
    "superseded_by",
}


def leaves(
    node: Any,
    parent: str = "",
    prefix: str = "",
    out: list[tuple[str, Any, str]] | None = None,
    path: str = "",
) -> list[tuple[str, Any, str]]:
    """(name, value, path) of every numeric leaf of `node`, named as the module's docstring says."""
    out = [] if out is None else out
    if isinstance(node, dict):
        items = list(node.items())
        if is_stat(node):
            value = node["value"]
            if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
                out.append((prefix + parent, value, path))
            items = [(k, v) for k, v in items if k not in STAT_KEYS]
        for key, child in items:
            if key in PER_ANSWER:
                continue
            if key in SCOPES:
                leaves(child, key, f"{prefix}{key}.", out, f"{path}.{key}")
                continue
            name = f"{parent}.{key}" if key in QUALIFIED and parent else key
            leaves(child, name, prefix, out, f"{path}.{key}")
    elif isinstance(node, list):
        for row in node:
            if isinstance(row, dict) and "id" in row and "verdict" in row:  # a check: value of its figure
                leaves(row, row["id"], prefix, out, f"{path}[{row['id']}]")
    elif isinstance(node, (int, float)) and not isinstance(node, bool):  # a null block is no figure
        out.append((prefix + parent, node, path))
    return out


def same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def answers_of(api: Api, alpha: str, window: Window) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for answer, (path, params) in ANSWERS.items():
        if window != (None, None) and answer not in WINDOWED:
            continue
        extra = {"from": window[0], "to": window[1]} if answer in WINDOWED else {}
        if answer == "compare":
            extra["with"] = "momentum_12_1" if alpha != "momentum_12_1" else "value_composite_legacy"
        response = api.get(f"/v1/alphas/{alpha}{path}", "raw", **params, **extra)
        if response.status_code == 200:
            found[answer] = response.json()["data"]
        else:  # a refusal (too short a window, no ledger) has no figure to compare
            assert response.status_code in (400, 404, 409, 422), (alpha, answer, response.text)
    return found


def collisions(answers: dict[str, Any]) -> tuple[dict[str, list[tuple[str, Any]]], int]:
    """The names carrying more than one value across `answers`, with where each was served."""
    served: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for answer, data in answers.items():
        for name, value, path in leaves(data):
            served[name].append((answer + path, value))
    bad = {}
    for name, where in served.items():
        first = where[0][1]
        if any(not same(first, value) for _, value in where[1:]):
            bad[name] = where
    return bad, len(served)


@pytest.mark.parametrize("window", WINDOWS, ids=lambda w: f"{w[0]}..{w[1]}")
def test_one_name_one_value(api: Api, window: Window) -> None:
    failures: list[str] = []
    compared: list[str] = []
    for alpha in ALPHAS:
        answers = answers_of(api, alpha, window)
        bad, names = collisions(answers)
        compared.append(f"{alpha}: {names} names over {len(answers)} answers ({', '.join(answers)})")
        for name, where in sorted(bad.items()):
            shown = "; ".join(f"{path}={value}" for path, value in where)
            failures.append(
                f"{alpha} {window}: {name!r} carries {len({repr(v) for _, v in where})} values: {shown}"
            )
    print("\n".join(["compared, per alpha:", *compared]))
    assert not failures, "\n".join(failures)
