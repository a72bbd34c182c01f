"""The open tables written from a lake published before them (issue 78, item 7): `alpha-results lake
convert`.

A lake published before the open tables holds each alpha's builds as folders and what the API
served when in its catalogue generations (`datasets.catalogue_index`): each names every alpha's
build and every benchmark's, from its `known_at` (our clock) on. The conversion replays that history
into the tables, oldest build first, as the publishes would have written it: each build's Parquet
matched against the tables' rows (one commit per table that changed, with the change data feed's
before and after values), then its generation, dated by the first catalogue generation that served
the build, so `datasets.tables.versions(as_of)` names the builds the API's `as_of` serves.

- **History as far as the lake keeps it**: the oldest catalogue generation retained is where the
  tables' history of the lake starts (a moment before it is no more answerable over HTTP). A build
  whose folder retention removed cannot be replayed; the target's history then starts at the first
  build after it, so no moment reads another build's rows than the API served.
- **Only builds no generation names are replayed**: a build the tables know (published since the
  open tables, or replayed before) is left as it is, so the command can be run again (it then
  changes nothing), a conversion killed halfway finishes by running it again (rows written without
  a generation are never read; the replay writes over them), and a lake whose alphas were published
  again since the open tables came gets the history before (replayed rows land in later versions
  than the publishes', but each generation names the version holding its own build's rows, and
  the publishes' generations, dated later, stay what is served now).
- **A build whose rows are in the tables only is refused** (pipeline 2.12.0 on writes no Parquet
  of its rows into its folder): a target with such a build to replay (its tables lost) is not
  converted, and the command says so and fails, rather than replay it empty.
- **A publish running meanwhile is safe** for the same reason: its generation is dated after every
  replayed one and names the versions holding its own rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from alpha_results_seal.storage import Storage
from datasets import catalog, catalogue_index, layout, tables
from pipeline import lake_tables
from pipeline.build_files import frame_of, read_build, read_parquet, rows_in_folder
from pipeline.lake_tables import Written
from schemas import lake


@dataclass
class Converted:
    """What the conversion did to one target (an alpha id, or `benchmark:<symbol>`)."""

    target: str
    builds: list[tuple[str, dt.datetime]] = field(default_factory=list)
    """Each build replayed, oldest first, with the moment its generation is dated."""
    skipped: str | None = None
    """Why nothing was replayed (the tables know every build of it, or none of them is kept)."""
    refused: str | None = None
    """Why it cannot be converted: a build to replay holds no rows of its own (pipeline 2.12.0 on
    writes them into the open tables only), so replaying it would publish it empty."""


Served = list[tuple[str, dt.datetime]]
"""A target's builds, oldest first, each with the moment the API began serving it."""


def served_history(root: str) -> dict[str, Served]:
    """Every target's builds as the catalogue generations the lake keeps served them, oldest first,
    each with the moment the first generation naming it was committed (`known_at`). A target a
    generation stops naming is not recorded as gone: a publish does not record it either."""
    storage = Storage(root)
    served: dict[str, Served] = {}
    current: dict[str, str] = {}
    for number, _ in catalogue_index.listed_generations(storage, root):
        generation = catalogue_index.read_generation(storage, root, number)
        moment = None if generation is None else generation.known
        if generation is None or moment is None:
            continue
        index = catalogue_index.read_index(storage, root, generation, ["alpha_id", "build_id"])
        named = dict(zip(index["alpha_id"].to_pylist(), index["build_id"].to_pylist(), strict=True))
        named |= {f"benchmark:{symbol}": build for symbol, build in generation.benchmarks.items()}
        named = {t: b for t, b in named.items() if isinstance(b, str)}
        for target, build_id in named.items():
            if current.get(target) != build_id:
                served.setdefault(target, []).append((build_id, moment))
        current = named
    return served


def _replayable(history: Served, kept: Callable[[str], bool]) -> Served:
    """The part of a target's history that can be replayed: after the last build retention removed
    (before it, the tables do not know the target, as the API no longer answers for it)."""
    gone = [i for i, (build_id, _) in enumerate(history) if not kept(build_id)]
    return history[gone[-1] + 1 :] if gone else history


def _replay(
    root: str,
    target: str,
    history: Served,
    named: set[str],
    kept: Callable[[str], bool],
    publish: Callable[[str], Written],
    holds_no_rows: Callable[[str], bool],
) -> Converted:
    """Each kept build of `history` no generation names (`named`) written into the tables
    (`publish`), then its generation; none when one of them holds no rows of its own
    (`holds_no_rows`: it would be replayed empty)."""
    done = Converted(target)
    replayable = _replayable(history, kept)
    empty = [b for b, _ in replayable if b not in named and holds_no_rows(b)]
    if empty:
        done.refused = (
            f"build {empty[0]} was published by pipeline 2.12.0 or later, whose rows are in the open "
            "tables only, and no generation of the tables names it: it cannot be replayed from its "
            "folder. Restore the lake's tables/ folder, or publish the alpha's seals again"
        )
        return done
    for build_id, moment in replayable:
        if build_id not in named:
            lake_tables.commit_generation(root, target, build_id, publish(build_id), moment)
            done.builds.append((build_id, moment))
    if not done.builds:
        done.skipped = (
            "the open tables know every build of it"
            if replayable
            else "none of its builds the catalogue served is kept"
        )
    return done


@dataclass(frozen=True)
class _Builds:
    """Where a target's builds are, and how one is written into the tables."""

    root: str
    target: str

    @property
    def symbol(self) -> str | None:
        return self.target.removeprefix("benchmark:") if self.target.startswith("benchmark:") else None

    def marker(self, build_id: str) -> str:
        """The file a kept build of the target holds (its daily series; an alpha's entry)."""
        if self.symbol is not None:
            return layout.join(
                layout.benchmark_build_dir(self.root, self.symbol, build_id), layout.BENCHMARK_DAILY
            )
        return layout.join(layout.alpha_build_dir(self.root, self.target, build_id), layout.ALPHA_JSON)

    def kept(self, build_id: str) -> bool:
        return Storage(self.root).exists(self.marker(build_id))

    def holds_no_rows(self, build_id: str) -> bool:
        """An alpha's build whose rows are not in its folder (`pipeline.build_files.rows_in_folder`)."""
        if self.symbol is not None:
            return False
        entry = catalog.read_json(Storage(self.root), self.marker(build_id))
        return entry is not None and not rows_in_folder(entry)

    def publish(self, build_id: str) -> Written:
        storage = Storage(self.root)
        if self.symbol is not None:
            daily = read_parquet(storage, self.marker(build_id))
            assert daily is not None  # kept: `_replayable`
            return lake_tables.publish_benchmark(self.root, self.symbol, build_id, frame_of(daily))
        build_dir = layout.alpha_build_dir(self.root, self.target, build_id)
        written = Written()
        for spec in lake.TABLES:  # a table at a time: a conversion holds one table of one build
            frames = dict(lake_tables.alpha_frames(read_build(storage, build_dir, (spec,))))
            lake_tables.publish_target(
                self.root, spec.name, self.target, build_id, frames[spec.name], written
            )
        return written


def convert(root: str) -> Iterator[Converted]:
    """Every alpha and benchmark of the lake at `root` that the open tables do not know, its served
    history replayed into them (the module's docstring); one `Converted` each, as it is done."""
    generations = tables.generations(root)
    named: dict[str, set[str]] = {}
    for target, build_id in generations.select("target", "build_id").unique().iter_rows():
        named.setdefault(target, set()).add(build_id)
    for target, history in sorted(served_history(root).items()):
        builds = _Builds(root, target)
        yield _replay(
            root, target, history, named.get(target, set()), builds.kept, builds.publish, builds.holds_no_rows
        )
