"""`alpha-results build SEAL... [--from PREFIX] [--lake ROOT] [--executor local|dask://HOST:PORT]
[--jobs N]`, `alpha-results lake show` and `lake gc`.

The executor runs the per-seal builds: `local` (default) a process pool on this machine,
`dask://HOST:PORT` one task per seal on a Dask cluster (`pipeline.dask_build`, imported only
then). Both print the same report on stdout, then run the catalogue-wide steps once
(`pipeline.catalogue_steps`); the Dask executor also prints its progress on stderr. Every line is
printed through `print_lines`, which escapes the control characters a seal's text may hold
(`alpha_results_seal.printable`): a seal cannot rewrite or add a line of the report.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from alpha_results_seal.printable import print_lines

if TYPE_CHECKING:
    from pipeline.build import SealResult
    from pipeline.catalogue_steps import StepReport

DEFAULT_LAKE = "var/lake"
DASK_SCHEDULER_ENV = "ALPHA_RESULTS_DASK_SCHEDULER"
TEAM_ENV = "ALPHA_RESULTS_TEAM"


LOST_RACE = 3
"""`alpha-results build`'s exit code when a seal's publish lost its race to another publish of the
same alpha (nothing written; run it again) and nothing else failed."""


def default_lake() -> str:
    return os.environ.get("ALPHA_RESULTS_LAKE") or DEFAULT_LAKE


def register(subparsers: Any) -> None:
    build = subparsers.add_parser("build")
    build.add_argument("seals", nargs="*", metavar="SEAL", help="seal folders (or s3:// prefixes)")
    build.add_argument(
        "--from",
        dest="from_prefixes",
        action="append",
        default=[],
        metavar="PREFIX",
        help="also build every seal directly under PREFIX (a folder or s3://bucket/seals/); repeatable",
    )
    build.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    build.add_argument(
        "--executor",
        default=None,
        metavar="local|dask://HOST:PORT",
        help=f"where the seals are built: `local` (a process pool, the default) or a Dask scheduler "
        f"(default: ${DASK_SCHEDULER_ENV} when set, else local)",
    )
    build.add_argument(
        "--jobs", type=int, default=None, help="parallel processes of the local executor (default: CPU count)"
    )
    build.add_argument(
        "--defer-index",
        action="store_true",
        help="publish without committing the catalogue index after each seal (a backfill of many "
        "seals); readers see the new builds once `alpha-results lake index` has run",
    )
    build.add_argument(
        "--team",
        default=None,
        metavar="TEAM",
        help="the team this run publishes for (default: $ALPHA_RESULTS_TEAM, else none: a seal naming a "
        "family is then refused): the first "
        "team to publish into a trial family owns it, and a seal naming another team's family is refused "
        '(docs/seal.md "Trial families")',
    )
    build.add_argument(
        "--allow-rollback",
        action="store_true",
        help="publish a run older than the one published (sealed before it, or ending before its last "
        "session); refused without it, since it takes published sessions back (each recorded as a restatement)",
    )
    build.add_argument(
        "--keystore",
        default=None,
        metavar="URL",
        help="the database the run's events are written to (default: the server's key store, "
        "$ALPHA_RESULTS_KEYSTORE_URL or sqlite:///var/keys.sqlite3, when it exists)",
    )
    build.add_argument(
        "--metrics-file",
        default=None,
        metavar="PATH",
        help="add the run's seals by outcome to the counters in PATH, a node-exporter textfile "
        "(e.g. /var/lib/node_exporter/textfile/alpha_results_build.prom; docs/operations.md 'Monitoring')",
    )
    build.set_defaults(handler=run_build)

    lake = subparsers.add_parser("lake")
    lake_sub = lake.add_subparsers(dest="lake_command", required=True, metavar="ACTION")
    show = lake_sub.add_parser("show", help="print the published alphas and benchmarks")
    show.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    show.add_argument(
        "--keystore",
        default=None,
        metavar="URL",
        help="the records whose pending catalogue follow-ups are listed (default: the server's key store, "
        "when it exists)",
    )
    show.set_defaults(handler=run_show)
    follow = lake_sub.add_parser(
        "follow-ups",
        help="retry the catalogue follow-ups a decision left pending (the index rows, residual sets, "
        "score neighbours and trial links it moves); exits 1 while any stays pending",
    )
    follow.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    follow.add_argument("--keystore", default=None, metavar="URL", help="the records (default: the server's)")
    follow.set_defaults(handler=run_follow_ups)
    gc = lake_sub.add_parser(
        "gc",
        help="list the build folders no pointer names and no publish lease covers (--apply deletes them)",
    )
    gc.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    gc.add_argument("--apply", action="store_true", help="delete them (default: a dry run that only lists)")
    gc.set_defaults(handler=run_gc)
    convert = lake_sub.add_parser(
        "convert",
        help="write the open tables of a lake published before them: every alpha's and benchmark's "
        "retained builds replayed into them, oldest first, each dated when the lake served it "
        "(targets the tables know already are left as they are)",
    )
    convert.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    convert.set_defaults(handler=run_convert)
    index = lake_sub.add_parser(
        "index",
        help="rebuild the catalogue index from every published build (a lake published before it, "
        "or a new figure); each publish keeps it current otherwise",
    )
    index.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    index.add_argument(
        "--executor",
        default=None,
        help="local (default) or dask://HOST:PORT: one Dask task per alpha computes its row",
    )
    index.add_argument(
        "--events",
        action="store_true",
        help="also record the events of every alpha whose served build the event log has not "
        "recorded yet (after a --defer-index backfill): one checks battery per such alpha",
    )
    index.add_argument("--keystore", default=None, metavar="URL", help="as for build")
    index.set_defaults(handler=run_index)
    family = lake_sub.add_parser(
        "family",
        help="show a trial family's owner and members, or hand it over to another team (--hand-over-to)",
    )
    family.add_argument(
        "family", nargs="?", default=None, help="the family's slug (default: list every family)"
    )
    family.add_argument("--lake", default=None, help="lake root (default: $ALPHA_RESULTS_LAKE or var/lake)")
    family.add_argument(
        "--hand-over-to",
        default=None,
        metavar="TEAM",
        help="make TEAM the family's owner (recorded with --by)",
    )
    family.add_argument("--by", default=None, help="who hands it over (required with --hand-over-to)")
    family.set_defaults(handler=run_family)


def executor_of(flag: str | None) -> str | None:
    """None for the local executor, else the Dask scheduler's address (`--executor`, then
    $ALPHA_RESULTS_DASK_SCHEDULER). Raises ValueError for an address it cannot read."""
    value = flag or os.environ.get(DASK_SCHEDULER_ENV) or "local"
    if value == "local":
        return None
    if importlib.util.find_spec("distributed") is None:
        raise ValueError(
            "the Dask executor needs Dask's distributed scheduler, an extra of this package: "
            "pip install 'alpha-results[dask]' (./dev test installs it)"
        )
    from pipeline.dask_build import scheduler_address

    return scheduler_address(value)


def run_build(args: argparse.Namespace) -> int:
    started = time.time()
    from alpha_results_seal.seal_limits import SealLimits
    from pipeline.build import build_many, expand_seal_prefix
    from pipeline.catalogue_steps import run_catalogue_steps
    from pipeline.publish import history_seconds

    lake_root = args.lake or default_lake()
    try:
        scheduler = executor_of(args.executor)
    except ValueError as exc:
        print_lines([f"alpha-results build: {exc}"], sys.stderr)
        return 2
    try:
        limits = SealLimits.from_env()
        history_seconds()  # the operator's history retention, checked before anything is written
    except ValueError as exc:
        print_lines([f"alpha-results build: {exc}"], sys.stderr)
        return 2
    from alpha_results_seal.families import team_checked

    try:
        # Neither given: no team, whose family seals are refused (docs/seal.md "Trial families").
        declared = args.team or os.environ.get(TEAM_ENV)
        team = None if declared is None else team_checked(declared)
    except ValueError as exc:
        print_lines([f"alpha-results build: --team: {exc}"], sys.stderr)
        return 2
    seals = list(args.seals)
    for prefix in args.from_prefixes:
        found = expand_seal_prefix(prefix)
        if not found:
            print_lines(
                [f"alpha-results build: no seal (a folder with manifest.json) under {prefix}"], sys.stderr
            )
            return 2
        seals += found
    if not seals:
        print_lines(["alpha-results build: name at least one SEAL or --from PREFIX"], sys.stderr)
        return 2
    if scheduler is None:
        results: list[SealResult] = list(
            build_many(
                seals,
                lake_root,
                args.jobs,
                indexed=not args.defer_index,
                limits=limits,
                team=team,
                allow_rollback=args.allow_rollback,
            )
        )
        failed = print_results(results, lake_root)
        reports = run_catalogue_steps(lake_root, results)
    else:
        from pipeline.dask_build import PrintedProgress, build_on_dask

        if args.jobs is not None:
            print_lines(
                ["alpha-results build: --jobs is ignored on Dask (the workers' threads decide)"], sys.stderr
            )
        try:
            run = build_on_dask(
                seals,
                lake_root,
                scheduler,
                progress=PrintedProgress(),
                indexed=not args.defer_index,
                limits=limits,
                team=team,
                allow_rollback=args.allow_rollback,
            )
        except OSError as exc:  # the scheduler cannot be reached (refused, timed out)
            print_lines([f"alpha-results build: Dask scheduler {scheduler}: {exc}"], sys.stderr)
            return 2
        results = list(run.results)
        failed = print_results(results, lake_root)
        reports = run.catalogue
    if args.defer_index:
        print_lines(
            [
                "catalogue index not updated (--defer-index): readers see these builds, and their events "
                f"are recorded, after `alpha-results lake index --events --lake {lake_root}`"
            ]
        )
    else:
        alphas = list(dict.fromkeys(r.target for r in results if not r.target.startswith("benchmark:")))
        reports = [*reports, record_events(args, lake_root, alphas, results)]
    failed_steps = print_steps(reports)
    if args.metrics_file:
        from pipeline.build_metrics import record_run

        record_run(args.metrics_file, [result.status for result in results], failed_steps, started)
    if failed_steps or failed:
        return 1
    # A publish that lost its race to another publish of the same alpha wrote nothing: its own code,
    # so a scheduler retries it rather than taking it for a refused seal.
    return LOST_RACE if any(result.status == "lost_race" for result in results) else 0


def record_events(
    args: argparse.Namespace, lake_root: str, alphas: Sequence[str], results: Sequence[SealResult]
) -> StepReport:
    """The run's events (`pipeline.build_events`), into the deployment's records (docs/events.md)."""
    from core.settings import ENV_PREFIX, Settings
    from pipeline.build_events import events_step

    settings = Settings.from_env()
    named = args.keystore is not None or f"{ENV_PREFIX}KEYSTORE_URL" in os.environ
    return events_step(
        args.keystore or settings.keystore_url,
        named,
        lake_root,
        alphas,
        results,
        settings.checks_policy_file,
        settings.events_retention_days,
    )


def print_results(results: Sequence[SealResult], lake_root: str) -> int:
    """Each seal's line (and a refusal's report), then the counts; returns how many did not build."""
    from alpha_results_seal.rules import SealRejected
    from pipeline.build import Failure

    refused = failed = 0
    for result in results:
        print_lines([result.line()])
        if isinstance(result, Failure):
            failed += 1
        elif result.rejection is not None:
            refused += 1
            print_lines("  " + line for line in SealRejected(**result.rejection).lines())
    raced = sum(1 for result in results if result.status == "lost_race")
    built = len(results) - refused - failed - raced
    failures = f", {failed} failed" if failed else ""
    races = f", {raced} lost their race (run again)" if raced else ""
    print_lines(
        [f"{len(results)} seals: {built} built, {refused} refused{failures}{races}  (lake {lake_root})"]
    )
    return refused + failed


def print_steps(reports: Sequence[StepReport]) -> int:
    """The catalogue-wide steps' lines; a failed step on stderr. Returns how many failed."""
    failed = 0
    for report in reports:
        print_lines(report.lines)
        if report.error is not None:
            failed += 1
            print_lines([f"catalogue step {report.name} failed: {report.error}"], sys.stderr)
    return failed


def run_gc(args: argparse.Namespace) -> int:
    from pipeline import lake_tables
    from pipeline.lake_upkeep import garbage
    from pipeline.publish import finish_interrupted_publishes, interrupted_publishes

    lake_root = args.lake or default_lake()
    if args.apply:
        for alpha in finish_interrupted_publishes(lake_root):
            print(f"finished  the interrupted publish of {alpha}: the catalogue serves its pointer's build")
    else:  # the dry run says what --apply would finish (issue 81, item 9)
        for intent, switched in interrupted_publishes(lake_root):
            what = (
                "--apply finishes it: the catalogue then serves its pointer's build"
                if switched
                else "its pointer was never switched: --apply drops it (its build folder is garbage)"
            )
            print(
                f"interrupted  the publish of {intent.alpha_id} (build {intent.build_id}, started "
                f"{intent.started_at}): {what}"
            )
    found = garbage(lake_root, delete=args.apply)
    verb = "deleted" if args.apply else "garbage"
    for path in found:
        print(f"{verb}  {path}")
    # The open tables: Delta's own vacuum with the operator's history, pins kept (docs/lake.md).
    files = lake_tables.vacuum_lake(lake_root, delete=args.apply)
    if files:
        print(f"{len(files)} open-table files {verb}  (the tables' vacuum, the history retention's)")
    if args.apply:
        print(f"{len(found)} build folders deleted  (lake {lake_root})")
    else:
        print(f"{len(found)} build folders to delete  (dry run; pass --apply to delete them)")
    return 0


def run_convert(args: argparse.Namespace) -> int:
    from pipeline.lake_convert import convert

    lake_root = args.lake or default_lake()
    replayed = refused = 0
    for done in convert(lake_root):
        if done.refused:
            print(f"refused    {done.target}: {done.refused}", file=sys.stderr)
            refused += 1
            continue
        if done.skipped:
            print(f"skipped    {done.target}: {done.skipped}")
            continue
        replayed += len(done.builds)
        dated = ", ".join(
            f"{build_id} (served from {moment.isoformat()})" for build_id, moment in done.builds
        )
        print(f"converted  {done.target}: {dated}")
    print(f"{replayed} build{'' if replayed == 1 else 's'} replayed into the open tables  (lake {lake_root})")
    return 1 if refused else 0


def run_index(args: argparse.Namespace) -> int:
    from pipeline import index_rows
    from pipeline.publish import finish_interrupted

    lake_root = args.lake or default_lake()
    try:
        scheduler = executor_of(args.executor)
    except ValueError as exc:
        print(f"alpha-results lake index: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    phases: dict[str, float] = {}
    if scheduler is None:
        number = index_rows.rebuild(lake_root, timings=phases)
    else:
        from pipeline.dask_build import rebuild_index_on_dask

        try:
            number = rebuild_index_on_dask(lake_root, scheduler, phases)
        except OSError as exc:
            print(f"alpha-results lake index: Dask scheduler {scheduler}: {exc}", file=sys.stderr)
            return 2
    # The rebuild indexed every pointer's build, an interrupted publish's switched one with them:
    # its intent is done.
    finish_interrupted(lake_root)
    rows = index_rows.current_rows(lake_root)
    count = 0 if rows is None else rows.num_rows
    print(
        f"catalogue index generation {number}: {count} alphas in {time.monotonic() - started:.1f} s"
        f"  (lake {lake_root})"
    )
    print("phases  " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in phases.items()))
    if args.events:
        alphas = [] if rows is None else [str(a) for a in rows.column("alpha_id").to_pylist()]
        return 1 if print_steps([record_events(args, lake_root, alphas, [])]) else 0
    return 0


def run_family(args: argparse.Namespace) -> int:
    from alpha_results_seal.families import team_checked
    from pipeline.families import families, hand_over

    lake_root = args.lake or default_lake()
    if args.hand_over_to is None:
        found = [f for f in families(lake_root) if args.family in (None, f.family)]
        if args.family is not None and not found:
            print_lines([f"alpha-results lake family: no seal named family {args.family}"], sys.stderr)
            return 1
        for record in found:
            print_lines(
                [
                    f"{record.family}  owner {record.owner}  {len(record.members)} member(s)  since {record.claimed_at}"
                ]
            )
        return 0
    if args.family is None or not args.by:
        print_lines(["alpha-results lake family: --hand-over-to needs FAMILY and --by"], sys.stderr)
        return 2
    try:
        team = team_checked(args.hand_over_to)
    except ValueError as exc:
        print_lines([f"alpha-results lake family: --hand-over-to: {exc}"], sys.stderr)
        return 2
    try:
        before, after = hand_over(lake_root, args.family, team, args.by)
    except KeyError:
        print_lines([f"alpha-results lake family: no seal named family {args.family}"], sys.stderr)
        return 1
    print_lines(
        [f"family {after.family}: handed over from team {before.owner} to team {after.owner} by {args.by}"]
    )
    return 0


def run_show(args: argparse.Namespace) -> int:
    from core.settings import Settings
    from pipeline.lake_upkeep import listing
    from pipeline.operator_decisions import pending_follow_ups

    for line in listing(args.lake or default_lake()):
        print(line)
    pending = pending_follow_ups(args.keystore or Settings.from_env().keystore_url)
    if pending is not None:
        print(
            f"{len(pending)} catalogue follow-ups pending"
            + (" (alpha-results lake follow-ups retries them)" if pending else "")
        )
        print_lines(f.line() for f in pending)
    return 0


def run_follow_ups(args: argparse.Namespace) -> int:
    from core.settings import Settings
    from pipeline.operator_decisions import DecisionRefused, follow_ups

    try:
        caught = follow_ups(args.lake or default_lake(), args.keystore or Settings.from_env().keystore_url)
    except DecisionRefused as exc:
        print_lines([f"alpha-results lake follow-ups: {exc}"], sys.stderr)
        return 2
    print_lines(caught.lines())
    return 0 if caught.error is None else 1
