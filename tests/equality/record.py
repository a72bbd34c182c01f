"""Record the answers of today's read path over the small demo lake, for the equality check.

    python -m tests.equality.record OUT_FILE      # e.g. tests/equality/recorded.jsonl.gz

Builds the small demo lake in a temporary folder (as the `demo_lake` fixture does), creates the
app as tests/api/conftest.py does, sends every request of `tests.equality.requests.generate` and
writes one JSON line per request: `{token, path, status, body}`, gzip-compressed, with the body
normalised by `normalise` (ids and timestamps that differ on every run removed or masked).

To record a baseline checkout, run it from that checkout with it first on the path, e.g.
`cd /work/baseline && PYTHONPATH=/work/baseline python -m tests.equality.record out.jsonl.gz`;
the modules' files are printed so the checkout that answered is visible.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from core.context import AllowList, Caller
from core.settings import Settings
from datasets import clock
from schemas.registry import META_IDS
from serve.app import create_app
from tests.callers import authenticator_for, make_caller
from tests.equality.requests import Request, generate

RECORDED = Path(__file__).with_name("recorded.jsonl.gz")

# The callers of tests/api/conftest.py, copied so the recording does not move when that file does.
CALLERS: dict[str, Caller] = {
    "raw": make_caller(expose_raw_book=True),
    "plain": make_caller(),
    "testonly": make_caller(alphas=AllowList.of_prefixes(["Test_"]), runs=AllowList.of_prefixes(["Test_"])),
    "alphaonly": make_caller(runs=AllowList.of_ids(["nothing"])),
    "metaonly": make_caller(endpoints=frozenset(META_IDS), endpoint_allow=AllowList.of_ids(META_IDS)),
}

# Keys whose values differ on every request or run; removed at any depth.
VOLATILE_KEYS = frozenset({"request_id", "generated_at"})
# A build id is `<20 hex content id>-<8 hex random suffix>` (pipeline.publish.new_build_id); the
# suffix is random per build, so every build id in a string (e.g. `meta.source`) is masked.
BUILD_ID = re.compile(r"\b[0-9a-f]{20}-[0-9a-f]{8}\b")
BUILD_MASK = "BUILD"
# A catalogue-wide answer's `meta.source` names the version of the builds it is over, a digest of
# their random build ids: masked as they are.
CATALOGUE_TAG = re.compile(r"catalogue_index@[0-9a-f]{24}\b")
CATALOGUE_MASK = "catalogue_index@TAG"
# An answer of one build over the catalogue (`/analytics/expectation`) names its build, its tenure
# and that digest, joined by `+`: the digest after a `+` is masked the same way.
JOINED_TAG = re.compile(r"(?<=\+)[0-9a-f]{24}\b")
JOINED_MASK = "TAG"


# Today by our clock, which an answer may name (`/analytics/promotion_preview`'s `as_of` and its
# refusal, a decision taking effect today): masked, or a recording made one day fails the next.
TODAY_MASK = "TODAY"


def normalise(value: Any, today: str | None = None) -> Any:
    """The body without per-request ids and timestamps, build ids and today's date masked."""
    today = today or clock.now().date().isoformat()
    if isinstance(value, dict):
        return {k: normalise(v, today) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalise(v, today) for v in value]
    if isinstance(value, str):
        masked = JOINED_TAG.sub(
            JOINED_MASK, CATALOGUE_TAG.sub(CATALOGUE_MASK, BUILD_ID.sub(BUILD_MASK, value))
        )
        return masked.replace(today, TODAY_MASK)
    return value


def build_demo_lake(root: Path) -> Path:
    """The small demo's history played into `root/demo_lake`, as tests/conftest.py plays it."""
    from pipeline.demo_history import play

    lake = root / "demo_lake"
    play(str(lake), f"sqlite:///{root / 'records.sqlite3'}", "small")
    return lake


@contextmanager
def client_for(lake: Path) -> Iterator[TestClient[Any]]:
    settings = Settings(lake=str(lake), environment="test")
    app = create_app(settings, authenticate=authenticator_for(CALLERS), limiter=None)
    with TestClient(app=app) as client:
        yield client


def answer(client: TestClient[Any], request: Request) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {request.token}"} if request.token is not None else {}
    response = client.get(request.path, headers=headers)
    return {
        "token": request.token,
        "path": request.path,
        "status": response.status_code,
        "body": normalise(response.json()),
    }


def answers(client: TestClient[Any], requests: Iterable[Request]) -> Iterator[dict[str, Any]]:
    for request in requests:
        yield answer(client, request)


def write_records(path: Path, records: Iterable[dict[str, Any]]) -> int:
    count = 0
    # No file name and mtime 0 in the gzip header: the same records give the same bytes.
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=9, mtime=0) as out,
    ):
        for record in records:
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            out.write(line.encode("utf-8") + b"\n")
            count += 1
    return count


def read_records(path: Path = RECORDED) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.equality.record OUT_FILE", file=sys.stderr)
        return 2
    import datasets
    import pipeline
    import schemas
    import serve
    import tests.equality.requests

    for module in (serve, datasets, schemas, pipeline, tests.equality.requests):
        print(f"{module.__name__}: {module.__file__}")
    out = Path(argv[0])
    with tempfile.TemporaryDirectory(prefix="equality-") as tmp:
        lake = build_demo_lake(Path(tmp))
        requests = generate(lake)
        with client_for(lake) as client:
            count = write_records(out, answers(client, requests))
    print(f"{count} requests recorded to {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
