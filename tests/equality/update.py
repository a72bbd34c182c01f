"""Replace, on purpose, only the recorded answers a change altered, and say which and where.

    python -m tests.equality.update            # report only: what differs beyond the tolerance
    python -m tests.equality.update --write    # then write recorded.jsonl.gz with those replaced

Builds the small demo lake (as the `demo_lake` fixture does), answers every request of
`tests.equality.requests.generate` and compares each with its record exactly as
tests/equality/test_equality.py does (floats within its tolerance, keys in order). It prints the
differing answers counted by endpoint and the JSON paths that differ (list indices folded to
`[]`), so a change's author can check that only what was meant to change did. With `--write`,
a differing record is replaced by today's answer, every other record is kept byte for byte (an
answer equal within the tolerance keeps its recorded floats), and requests the generator makes
beyond the recording are appended: the generator only ever appends (every earlier request keeps
its draw), and a recording whose requests are not a prefix of today's is refused.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.equality.record import RECORDED, answer, build_demo_lake, client_for, read_records, write_records
from tests.equality.requests import Request, endpoint_of, generate
from tests.support.equality import MAX_DIFFS, differences

INDEX = re.compile(r"\[\d+\]")
KIND = re.compile(r"[a-z ]*")
"""`key order`, `keys missing now`, `recorded` (a value), `status`: the start of a difference."""


def main(argv: list[str]) -> int:
    write = argv == ["--write"]
    if argv and not write:
        print(__doc__, file=sys.stderr)
        return 2
    recorded = read_records(RECORDED)
    with tempfile.TemporaryDirectory(prefix="equality-") as tmp:
        lake = build_demo_lake(Path(tmp))
        requests = generate(lake)
        # A request is matched with its recording by itself (token and path), not by its place: the
        # requests derived from the declarations (`Generator.served_answers`) come in declaration order.
        by_request = {Request(r["token"], r["path"]): r for r in recorded}
        gone = set(by_request) - set(requests)
        if gone:
            print(f"{len(gone)} recorded requests are no longer generated, e.g. {min(gone)}", file=sys.stderr)
            return 1
        by_endpoint: Counter[str] = Counter()
        by_path: Counter[tuple[str, str, str]] = Counter()
        out = []
        with client_for(lake) as client:
            for request in requests:
                now = answer(client, request)
                record = by_request.get(request)
                if record is None:
                    by_endpoint[f"{endpoint_of(request.path)} (new request)"] += 1
                    out.append(now)
                    continue
                found: list[str] = []
                if now["status"] != record["status"]:
                    found.append(f"status: {record['status']} -> {now['status']}")
                differences(record["body"], now["body"], "$", found, limit=MAX_DIFFS * 50)
                if not found:
                    out.append(record)
                    continue
                endpoint = str(endpoint_of(request.path))
                by_endpoint[endpoint] += 1
                for line in found:
                    where, what = line.split(": ", 1)
                    # What kind of difference: the words before the recorded value.
                    by_path[(endpoint, INDEX.sub("[]", where), KIND.match(what).group(0))] += 1
                out.append(now)
    print(f"{sum(by_endpoint.values())} of {len(requests)} answers differ or are new")
    for endpoint, count in sorted(by_endpoint.items()):
        print(f"  {count:5d}  {endpoint}")
    print("differing paths (endpoint, path, kind of difference: count)")
    for (endpoint, path, kind), count in sorted(by_path.items()):
        print(f"  {endpoint} {path} [{kind.strip()}]: {count}")
    if write:
        count = write_records(RECORDED, out)
        print(f"{count} records written to {RECORDED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
