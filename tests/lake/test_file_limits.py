"""A worker under an open-files limit of 1,024 serves a catalogue of 150 alphas, 300 under `just
soak-lake` (issue 21).

The landed reader kept every build it touched open (16 descriptors, 8 maps each): under a soft
limit of 1,024 the 72nd alpha answered 503, healthy builds were reported `missing_file` (a folder
walk skips what it cannot open), the lake `down`, and new connections were dropped. Here the real
`alpha-results serve` runs with 1,024 as both its soft and hard limit (so raising the soft limit
cannot help) over 150 published alphas, twice the alphas that broke it and more than twice the
builds a worker keeps open (64): week pages, metrics, catalogue analytics (correlation and
significance count every alpha) answer 200, health stays `ok`, and the worker's descriptors and maps
stay bounded by its settings, not by the catalogue. (300 alphas cost the suite ~15 s more, most of
it the catalogue index's score neighbours: docs/history.md, "Suite time under the CI limit".)
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from access import ADMIN_CEILING
from datasets.integrity import sha256_of
from pipeline import index_rows
from pipeline.catalogue_neighbours import NEIGHBOURS
from pipeline.publish import publish_seal
from tests.lake.conftest import serving, soak_rounds
from tests.ops.keys import issue_key
from tests.pipeline.factory import write_factory_seal

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ALPHAS = soak_rounds(suite=150, soak=300)
SOURCES = 4  # distinct builds published through the pipeline; the rest are their clones
NOFILE = 1024
MAX_OPEN_BUILDS = 64
SERVING_FILES_PER_BUILD = 32  # the most serving files one build has (pipeline 2.10; docs/operations.md)
WEEK = "2023-01-13"


def clone_alpha(lake: Path, source: str, target: str) -> None:
    """Publishes `source`'s build again as `target`: data files hard-linked, the three JSON
    documents naming the alpha rewritten (and their sizes and SHA-256 in the manifest)."""
    build_id = json.loads((lake / "alphas" / source / "_current.json").read_text())["build_id"]
    origin = lake / "alphas" / source / "builds" / build_id
    folder = lake / "alphas" / target / "builds" / build_id
    shutil.copytree(origin, folder, copy_function=os.link)
    entry = json.loads((origin / "alpha.json").read_text())
    for name in ("description.json", "source.json"):
        path = folder / name
        if path.exists():
            path.unlink()  # a hard link to the source's file: write a file of its own
            path.write_text((origin / name).read_text().replace(source, target))
            entry["files"][name] = {"bytes": path.stat().st_size, "sha256": sha256_of(str(path))}
    files = entry.pop("files")
    entry = json.loads(json.dumps(entry).replace(source, target))
    (folder / "alpha.json").unlink()
    (folder / "alpha.json").write_text(json.dumps({**entry, "files": files}))
    (lake / "alphas" / target / "_current.json").write_text(json.dumps({"build_id": build_id}))


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("file_limits")
    lake = root / "lake"
    sources = []
    for n in range(SOURCES):
        alpha = f"Test_limit_src{n}"
        publish_seal(str(write_factory_seal(root / "seals" / alpha, alpha_id=alpha, seed=20 + n)), str(lake))
        sources.append(alpha)
    alphas = list(sources)
    for n in range(ALPHAS - SOURCES):
        alpha = f"Test_limit_{n:03d}"
        clone_alpha(lake, sources[n % SOURCES], alpha)
        alphas.append(alpha)
    index_rows.rebuild(str(lake))  # the clones were published by hand: index them
    return lake, alphas


def worker_resources(pid: int, lake: Path) -> tuple[int, int, int]:
    """(open descriptors, memory maps, maps of lake files) of a process."""
    descriptors = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/maps") as maps:
        lines = maps.read().splitlines()
    return descriptors, len(lines), sum(1 for line in lines if str(lake) in line)


def test_a_worker_under_1024_open_files_serves_a_catalogue_of_alphas(
    catalogue: tuple[Path, list[str]], tmp_path: Path
) -> None:
    from access import open_store

    lake, alphas = catalogue
    url = f"sqlite:///{tmp_path}/keys.sqlite3"
    key = issue_key(open_store(url), role="admin", grants=ADMIN_CEILING)
    with serving(str(lake), (url, key.headers), tmp_path, refresh_seconds=0.5, nofile=NOFILE) as served:
        client = served.client()
        failures: list[str] = []

        def ok(path: str) -> dict[str, object]:
            status, body = client.json(path)
            if status != 200:
                failures.append(f"{path}: {status} {json.dumps(body)[:200]}")
            return body

        listed = ok("/v1/alphas?limit=1000")
        assert listed["pagination"]["total"] == ALPHAS  # type: ignore[index]
        for alpha in alphas:
            ok(f"/v1/alphas/{alpha}/rebalances/{WEEK}?limit=10")
            ok(f"/v1/alphas/{alpha}/metrics")
        # Catalogue-wide figures count every alpha (the landed code opened every build for them);
        # the scores basis lists an alpha's nearest score neighbours.
        for alpha in alphas[:: ALPHAS // 6]:
            for basis, total in (("returns", ALPHAS - 1), ("ic", ALPHAS - 1), ("scores", NEIGHBOURS)):
                rows = ok(f"/v1/alphas/{alpha}/analytics/correlation?basis={basis}&limit=5")
                assert rows["pagination"]["total"] == total, basis  # type: ignore[index]
            ok(f"/v1/alphas/{alpha}/analytics/significance")
        assert not failures, f"{len(failures)} failed requests, first ones:\n" + "\n".join(failures[:10])

        status, health = served.get("/v1/health")
        assert (status, health["status"]) == (200, "ok"), health  # no build reported damaged
        descriptors, maps, lake_maps = worker_resources(served.process.pid, lake)
        client.close()
    print(
        f"\nworker after {ALPHAS} alphas: {descriptors} descriptors, {maps} maps ({lake_maps} of lake files)"
    )
    # Bounded by the settings (64 open builds of at most SERVING_FILES_PER_BUILD maps), not by the
    # 300 alphas; the bound is the lake's own (a build holding more would make it stale).
    most = max(len(list(folder.glob("*.arrow"))) for folder in lake.glob("alphas/*/builds/*/serving"))
    assert most <= SERVING_FILES_PER_BUILD, most
    assert descriptors < 100, descriptors
    assert lake_maps <= MAX_OPEN_BUILDS * SERVING_FILES_PER_BUILD, (lake_maps, maps)
    assert "worker out of" not in served.output()
