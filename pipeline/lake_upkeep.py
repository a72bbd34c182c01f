"""What a lake holds and its garbage, for the lake commands other than `build` and `lake index`:
`alpha-results lake show` (every published alpha and benchmark), `lake gc` (the build folders no
pointer names and no publish lease covers) and `serve --init-demo` (whether the lake holds an alpha
or a catalogue index yet). The command line parses the arguments, calls these and prints.

Reads go through the pointers (`datasets.catalog`), not through a `LakeReader`: these commands
report what is published, whatever a server reads from it, and start without the server's reader.
"""

from __future__ import annotations

from typing import Any

from alpha_results_seal.storage import Storage
from datasets import catalog, catalogue_index, retention


def holds_alphas(root: str) -> bool:
    """Whether a pointer under `root` names a published build of any alpha."""
    return bool(catalog.published_alpha_ids(root))


def has_catalogue_index(root: str) -> bool:
    """Whether the lake has a catalogue index (a lake published before it has none: `lake index`
    writes it)."""
    return catalogue_index.newest(Storage(root), root) is not None


def listing(root: str) -> list[str]:
    """`lake show`: each published alpha's current build (complete, or which kinds it misses; its
    kinds, rows and bytes), then each published benchmark (its sessions and dates)."""
    alphas = catalog.list_alphas(root)
    lines = [f"lake {root}: {len(alphas)} alphas"]
    for entry in alphas:
        lines += _alpha_lines(entry)
    benchmarks = catalog.list_benchmarks(root)
    lines.append(f"{len(benchmarks)} benchmarks")
    lines += [
        f"  {info.get('symbol')}  {info.get('name')}  {info.get('rows', '?')} sessions  "
        f"{info.get('first_date')} .. {info.get('last_date')}"
        for info in benchmarks
    ]
    return lines


def _alpha_lines(entry: dict[str, Any]) -> list[str]:
    rows = sum(t["rows"] for t in entry["tables"].values())
    state = (
        "complete" if entry["complete"] else "incomplete (missing " + ", ".join(entry["missing_kinds"]) + ")"
    )
    kinds = ", ".join(entry["kinds_present"]) or "-"
    return [
        f"  {entry['alpha_id']:<28} build {entry['build_id']}  {state}",
        f"  {'':<28} kinds {kinds}  {rows:,} rows  {entry['build_bytes']:,} bytes",
    ]


def garbage(root: str, delete: bool = False) -> list[str]:
    """`lake gc`: the paths of the build folders of every alpha and benchmark that no pointer names
    and no publish lease covers; deleted first when `delete`."""
    found = retention.collect_lake(root) if delete else retention.lake_garbage(root)
    return [folder.path for folder in found]
