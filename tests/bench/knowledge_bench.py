"""What knowing when each session was first published costs (issue 64): `just bench-knowledge`.

`python -m tests.bench.knowledge_bench [--weeks 52 260 520] [--names 30]` writes, for each history
length, a factory seal of W weeks and one of W + 1 (the same seed: the same first weeks), publishes
the first into a fresh lake, then the second (a weekly run appending one week) through the real
pipeline (`pipeline.publish.publish_seal`), and reports for that second publish:

- the knowledge step's wall seconds (`pipeline.knowledge`: reading the predecessor, the restatement
  diff, the known_sessions rows) and the whole publish's, so the step's share as history grows;
- the `known_sessions` rows and bytes the build carries;
- a read: the live split of an approved alpha (`analytics.live.split_of`, the column lookup every
  surface asks), timed over 200 calls on the opened build, against `view.entry` (a dict lookup) as
  the constant.

Prints one JSON document. Timings are of one run on a shared machine: compare ratios within it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline import knowledge, publish

STEPS = ("read_predecessor", "restated", "known_sessions", "restatements")


def timed_steps() -> dict[str, float]:
    """Wraps the knowledge steps the publish calls, adding each call's wall seconds."""
    spent = dict.fromkeys(STEPS, 0.0)
    for name in STEPS:
        original: Callable[..., Any] = getattr(knowledge, name)

        def wrapper(
            *args: Any, _original: Callable[..., Any] = original, _name: str = name, **kw: Any
        ) -> Any:
            started = time.perf_counter()
            try:
                return _original(*args, **kw)
            finally:
                spent[_name] += time.perf_counter() - started

        setattr(knowledge, name, wrapper)
    return spent


def one(weeks: int, names: int, root: Path) -> dict[str, Any]:
    from analytics.live import split_of
    from analytics.tenure import Tenure
    from datasets.reader import LakeReader
    from tests.pipeline.factory import write_benchmark_seal, write_factory_seal

    alpha = f"Test_knowledge_{weeks}"
    lake = root / f"lake{weeks}"
    spy = write_benchmark_seal(root / f"spy{weeks}", sessions=weeks * 5 + 10)
    first = write_factory_seal(root / f"a{weeks}", alpha_id=alpha, weeks=weeks, names=names)
    second = write_factory_seal(root / f"b{weeks}", alpha_id=alpha, weeks=weeks + 1, names=names)
    publish.publish_seal(str(spy), str(lake))
    publish.publish_seal(str(first), str(lake))
    spent = timed_steps()
    started = time.perf_counter()
    outcome = publish.publish_seal(str(second), str(lake))
    whole = time.perf_counter() - started
    reader = LakeReader(str(lake))
    try:
        reader.refresh()
        build = reader.alpha(alpha)
        assert build is not None, outcome
        view = reader.view(build)
        known = view.table("known_sessions")
        rows = None if known is None else known.num_rows
        held = Tenure(approved_at=dt.datetime.now(dt.UTC), as_of=dt.date.today())
        calls = 200
        t0 = time.perf_counter()
        for _ in range(calls):
            split_of(view, held)
        split_seconds = (time.perf_counter() - t0) / calls
        t0 = time.perf_counter()
        for _ in range(calls):
            view.entry.get("research_cutoff")
        constant = (time.perf_counter() - t0) / calls
    finally:
        reader.close()
    files = list((lake / "alphas" / alpha / "builds").glob(f"{outcome.build_id}/**/known_sessions*"))
    return {
        "weeks": weeks,
        "sessions": (weeks) * 5,
        "publish_seconds": round(whole, 3),
        "knowledge_seconds": {k: round(v, 4) for k, v in spent.items()},
        "knowledge_share": round(sum(spent.values()) / whole, 3),
        "known_sessions_rows": rows,
        "known_sessions_bytes": sum(f.stat().st_size for f in files if f.is_file()),
        "split_of_us": round(split_seconds * 1e6, 1),
        "dict_lookup_us": round(constant * 1e6, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, nargs="+", default=[52, 260, 520])
    parser.add_argument("--names", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = [one(w, args.names, Path(folder)) for w in args.weeks]
    print(json.dumps({"knowledge": rows}, indent=2))


if __name__ == "__main__":
    main()
