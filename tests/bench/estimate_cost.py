"""Issue 63 item 2, the correlation index's per-row arithmetic: the estimate before and after
(`python -m tests.bench.estimate_cost --lake L [--before REV]`).

"Before" is `analytics/nearest.py` as committed at REV (default main), loaded from git beside the
working tree's; the answers' other steps are the working tree's. Per basis (returns, ic), for targets
drawn from the catalogue's rows (those whose dates their z tells), alternating before and after
target by target, in this thread's CPU time (`time.thread_time`):

- the pass alone (`estimate` over every row), whole history and a random window, and whether every
  row's value and error equal before's (as floats: NaN where NaN);
- the correlation page, top 50 (`correlation._indexed_page`: the pass, `Estimate.top`, the exact
  pass of the candidates), whole history and the window: CPU p50 / p95, and pages equal;
- the screener's `max_correlation` (`correlation._within_indexed`, one reference, candidates a
  random 30, 60 or 100 % of the rows, bound 0.2, 0.3 or 0.5): CPU p50 / p95, verdicts equal;
- `--check N`: for N targets, whole history and the window, every row's (or `--check-rows` rows
  drawn at random) |estimate - pearson_between| against its error.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

from analytics import correlation, nearest
from analytics.correlation import pearson_between
from tests.bench.sketch_bound import finished, opened

REPO = Path(__file__).resolve().parents[2]
NAMES = ("before", "after")
SPANS = ("whole history", "window")


def before_module(rev: str) -> types.ModuleType:
    """`analytics/nearest.py` at `rev`, as a module of its own."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:analytics/nearest.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    spec = importlib.util.spec_from_loader("nearest_before", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["nearest_before"] = module  # dataclasses look their module up
    exec(compile(source, "nearest_before.py", "exec"), module.__dict__)
    return module


class _Shim(types.ModuleType):
    """`analytics.nearest` with `estimate` the one before (its other names the working tree's)."""

    def __init__(self, old: types.ModuleType) -> None:
        super().__init__("nearest_shim")
        self.old = old
        self.memo: dict[tuple[int, int], object] = {}

    def __getattr__(self, name: str) -> object:
        return getattr(nearest, name)

    def estimate(self, *args: Any, grouped: object = None) -> Any:
        args = args[:7]
        if not hasattr(self.old, "patterns"):  # before the patterns of dates
            return self.old.estimate(*args)
        spans, gaps = args[1], args[6] if len(args) > 6 else None
        key = (id(spans), id(gaps))
        if key not in self.memo:  # the old module's own, once per generation as the route makes it
            self.memo[key] = self.old.patterns(spans, gaps)
        return self.old.estimate(*args, self.memo[key])


def _percentiles(values: list[float], scale: float = 1000.0) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {}
    return {
        "p50": round(scale * ordered[len(ordered) // 2], 2),
        "p95": round(scale * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }


def _same(x: np.ndarray, y: np.ndarray) -> bool:
    return bool(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lake", required=True)
    parser.add_argument("--before", default="main")
    parser.add_argument("--targets", type=int, default=50)
    parser.add_argument("--screens", type=int, default=30)
    parser.add_argument("--bases", nargs="+", default=["returns", "ic"])
    parser.add_argument("--seed", type=int, default=63)
    parser.add_argument("--check", type=int, default=0)
    parser.add_argument("--check-rows", type=int, default=0, help="rows drawn per check (0: every row)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    old = before_module(args.before)
    shim = _Shim(old)
    after_module = correlation.nearest
    reader, snapshot, readable = opened(args.lake)
    rng = random.Random(args.seed)
    result: dict[str, object] = {
        "lake": args.lake,
        "alphas": readable.size,
        "before": subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", args.before], capture_output=True, text=True
        ).stdout.strip(),
        "load_average_at_start": Path("/proc/loadavg").read_text().split()[:3],
    }
    for basis in args.bases:
        matrix = snapshot.matrix(basis)
        assert matrix.z is not None
        spans = correlation._spans(matrix)
        gaps = correlation._gaps(matrix)
        assert spans is not None
        clock = time.thread_time()
        grouped = correlation._patterns(matrix)
        made = time.thread_time() - clock
        assert grouped is not None
        count, dates = matrix.z.shape
        targets: list[tuple[int, tuple[int, int]]] = []
        while len(targets) < args.targets:
            row = rng.randrange(count)
            if nearest.dates_held(matrix.z, spans, row) is not None:
                first = rng.randrange(0, dates // 2)
                targets.append((row, (first, rng.randrange(first + 20, dates + 1))))
        figures: dict[str, object] = {
            "patterns": int(grouped.low.size),
            "direct_rows": int(grouped.direct.size),
            "patterns_cpu_s": round(made, 3),
        }
        # Warm both.
        for module in (shim, after_module):
            correlation.nearest = module
            correlation._indexed_page(matrix, targets[0][0], readable, 0, dates, 50, 0)
        correlation.nearest = after_module
        passes: dict[str, list[float]] = {f"{name} {span}": [] for name in NAMES for span in SPANS}
        pages: dict[str, list[float]] = {f"{name} {span}": [] for name in NAMES for span in SPANS}
        estimates_equal, pages_equal, answers = 0, 0, 0
        for row, window in targets:
            held = nearest.dates_held(matrix.z, spans, row)
            for span, (first, last) in zip(SPANS, ((0, dates), window), strict=True):
                assert held is not None
                found: dict[str, nearest.Estimate] = {}
                for name in ("before", "after"):
                    clock = time.thread_time()
                    if name == "before":
                        found[name] = shim.estimate(
                            matrix.z, spans, matrix.z[row], held, (first, last), None, gaps
                        )
                    else:
                        found[name] = nearest.estimate(
                            matrix.z, spans, matrix.z[row], held, (first, last), None, gaps, grouped
                        )
                    passes[f"{name} {span}"].append(time.thread_time() - clock)
                estimates_equal += _same(found["before"].value, found["after"].value) and _same(
                    found["before"].error, found["after"].error
                )
                answer = {}
                for name, module in (("before", shim), ("after", after_module)):
                    correlation.nearest = module
                    clock = time.thread_time()
                    answer[name] = correlation._indexed_page(matrix, row, readable, first, last, 50, 0)
                    pages[f"{name} {span}"].append(time.thread_time() - clock)
                correlation.nearest = after_module
                one, two = answer["before"], answer["after"]
                answers += 1
                pages_equal += (one is None and two is None) or (
                    one is not None
                    and two is not None
                    and one[0] == two[0]
                    and np.array_equal(one[1], two[1])
                    and one[2] == two[2]
                )
        figures["pass_cpu_ms"] = {name: _percentiles(values) for name, values in passes.items()}
        figures["estimates_equal"] = f"{estimates_equal} of {answers} (every row's value and error)"
        figures["top50_cpu_ms"] = {name: _percentiles(values) for name, values in pages.items()}
        figures["pages_equal"] = f"{pages_equal} of {answers}"
        if args.screens:
            screens: dict[str, list[float]] = {"before": [], "after": []}
            same, verdicts = 0, 0
            for call in range(args.screens):
                reference = targets[call % len(targets)][0]
                bound = rng.choice([0.2, 0.3, 0.5])
                share = rng.choice([0.3, 0.6, 1.0])
                rows = np.flatnonzero(np.random.default_rng(call).random(count) < share)
                kept = {}
                for name, module in (("before", shim), ("after", after_module)):
                    correlation.nearest = module
                    clock = time.thread_time()
                    kept[name] = correlation._within_indexed(matrix, rows, [reference], bound)
                    screens[name].append(time.thread_time() - clock)
                correlation.nearest = after_module
                same += int(np.count_nonzero(kept["before"] == kept["after"]))
                verdicts += rows.size
            figures["max_correlation_cpu_ms"] = {name: _percentiles(v) for name, v in screens.items()}
            figures["verdicts_equal"] = f"{same} of {verdicts}"
        if args.check:
            outside, checked, nan_differs, largest = 0, 0, 0, 0.0
            check_rng = np.random.default_rng(args.seed)
            for row, window in targets[: args.check]:
                held = nearest.dates_held(matrix.z, spans, row)
                some = (
                    np.sort(check_rng.choice(count, args.check_rows, replace=False))
                    if args.check_rows
                    else None
                )
                assert held is not None
                for first, last in ((0, dates), window):
                    checked_estimate = nearest.estimate(
                        matrix.z, spans, matrix.z[row], held, (first, last), some, gaps, grouped
                    )
                    values = matrix.values[:, first:last]
                    picked = values if some is None else values[some]
                    exact, _ = pearson_between(np.asarray(picked), np.asarray(values[[row]]))
                    truth = exact[:, 0]
                    none, exactly_none = np.isnan(checked_estimate.value), np.isnan(truth)
                    nan_differs += int(np.count_nonzero(none & ~exactly_none))
                    nan_differs += int(
                        np.count_nonzero(~none & exactly_none & np.isfinite(checked_estimate.error))
                    )
                    known = (
                        np.isfinite(checked_estimate.value)
                        & np.isfinite(checked_estimate.error)
                        & np.isfinite(truth)
                    )
                    gap = np.abs(truth[known] - checked_estimate.value[known])
                    outside += int(np.count_nonzero(gap > checked_estimate.error[known]))
                    checked += int(np.count_nonzero(known))
                    if gap.size:
                        largest = max(largest, float(np.max(gap / checked_estimate.error[known])))
            figures["bound_against_pearson_between"] = {
                "targets": args.check,
                "rows_checked": checked,
                "outside_their_bound": outside,
                "largest_error_share_of_its_bound": round(largest, 4),
                "nan_where_the_exact_pass_has_none_or_not": nan_differs,
            }
        result[basis] = figures
        print(json.dumps({basis: figures}), flush=True)
    finished(result, args.out, reader)
    return 0


if __name__ == "__main__":
    sys.exit(main())
