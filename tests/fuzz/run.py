"""The long fuzz profile (`just fuzz`): schemathesis, every check, against the real server until a
number of cases ran, with an administrator's key and a self-service key in turn.

    python -m tests.fuzz.run [--cases 100000] [--max-minutes 0] [--examples 200] [--seed 1]
                             [--lake PATH] [--workdir DIR]

Without `--lake` the small demo corpus is generated and built into a fresh lake in the work folder
(as the test suite does). The first round of each key runs every phase (examples, coverage,
fuzzing, stateful); later rounds, with the next seeds, run fuzzing and stateful only (the coverage
phase is deterministic). Prints the cases run and the failures by check, per key and in total, and
the server's 5xx answers; exits 1 when a failure counts (tests.fuzz.harness.CONTRACT_DIVERGENCES
are reported, not counted) or the server answered a 5xx.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.fuzz.harness import (
    CONTRACT_DIVERGENCES,
    KEY_LABELS,
    Report,
    create_keys,
    prepare,
    run_schemathesis,
    server_errors,
    serving,
)

ALL_PHASES = "examples,coverage,fuzzing,stateful"
REPEAT_PHASES = "fuzzing,stateful"


def build_demo_lake(workdir: Path) -> Path:
    from alpha_results_seal.demo.corpus import write_corpus
    from pipeline.build import build_many

    seals, lake = workdir / "seals", workdir / "lake"
    seals.mkdir(parents=True, exist_ok=True)
    write_corpus(seals, size="small", seed=7)
    paths = sorted(str(p) for p in seals.iterdir() if (p / "manifest.json").exists())
    refused = [o for o in build_many(paths, str(lake), jobs=2) if o.status == "refused"]
    if refused:
        raise SystemExit(f"the demo corpus did not build: {refused}")
    return lake


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fuzz.run", description="Schemathesis against the real server until N cases ran."
    )
    parser.add_argument("--cases", type=int, default=100_000, help="cases to run in total (both keys)")
    parser.add_argument("--max-minutes", type=float, default=0, help="stop after this long (0: no limit)")
    parser.add_argument(
        "--slice-minutes", type=float, default=5, help="longest single run of one key before the other's turn"
    )
    parser.add_argument("--examples", type=int, default=200, help="schemathesis --max-examples per round")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first round (then +1 each round)")
    parser.add_argument("--lake", type=Path, help="serve this lake (default: build the small demo corpus)")
    parser.add_argument("--workdir", type=Path, help="keys, logs and reports (default: a temporary folder)")
    args = parser.parse_args(argv)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="alpha-results-fuzz-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    deadline = started + args.max_minutes * 60 if args.max_minutes > 0 else None
    print(f"fuzz: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, target {args.cases} cases, work folder {workdir}")
    lake = args.lake or build_demo_lake(workdir)
    keystore = f"sqlite:///{workdir}/keys.sqlite3"
    tokens = create_keys(keystore)
    totals = {label: Report(label) for label in KEY_LABELS}

    def total_cases() -> int:
        return sum(r.cases for r in totals.values())

    def time_left() -> float:
        return float("inf") if deadline is None else deadline - time.monotonic()

    served_errors: list[str] = []
    with serving(lake, keystore, workdir) as server:
        prepared = prepare(server.base, tokens, workdir)
        round_ = 0
        try:
            while total_cases() < args.cases and time_left() >= 1:
                for label in KEY_LABELS:
                    if total_cases() >= args.cases or time_left() < 1:
                        break
                    report = run_schemathesis(
                        prepared,
                        server.base,
                        tokens[label],
                        label,
                        workdir,
                        max_examples=args.examples,
                        max_time=min(time_left(), args.slice_minutes * 60),
                        seed=args.seed + round_,
                        phases=ALL_PHASES if round_ == 0 else REPEAT_PHASES,
                        name=f"{label}-round{round_}",
                    )
                    totals[label].add(report)
                    print(
                        f"  round {round_} {label}: {report.cases} cases in {report.seconds:.0f} s, "
                        f"{sum(report.failures.values())} failures; total {total_cases()} cases, "
                        f"{time.monotonic() - started:.0f} s",
                        flush=True,
                    )
                round_ += 1
            if total_cases() < args.cases:
                print(f"  stopped by --max-minutes {args.max_minutes:g} before {args.cases} cases")
        except KeyboardInterrupt:
            print("  interrupted")
        served_errors = server_errors(server.output())

    overall = Report("total")
    for report in totals.values():
        overall.add(report)
    print()
    for report in [*totals.values(), overall]:
        print("\n".join(report.lines()))
    print(f"server 5xx answers and tracebacks: {len(served_errors)}")
    for line in served_errors[:20]:
        print(f"  {line[:300]}")
    for code, why in CONTRACT_DIVERGENCES.items():
        if code in overall.failures:
            print(f"note: {code} is not counted: {why}")
    print(f"logs and reports: {workdir}")
    counted = sum(overall.counting().values())
    print(f"fuzz: {overall.cases} cases, {counted} counted failures, {len(served_errors)} server errors")
    return 1 if counted or served_errors or overall.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
