"""`alpha-results reference`: write docs/reference.md, docs/llms.txt and the endpoint tables of
docs/access.md and docs/api.md from the declarations (`serve.docgen.reference` generates them), and the JSON Schemas of a
seal's manifest.json and description.json in docs/schemas/ (`pipeline.seal_schemas`), and what the vocabulary
registry makes (`serve.docgen.vocabulary_docs`: docs/reference.md's Vocabulary)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    parser = sub.add_parser("reference")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="file to write (docs/reference.md; the endpoint tables of docs/access.md and docs/api.md, "
        "docs/schemas/ and docs/reference.md's Vocabulary are written with it)",
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pipeline import seal_schemas
    from serve.docgen import reference

    status = reference.run(args.out or reference.REFERENCE_PATH, args.check)
    if args.out is not None:  # that file alone
        return status
    if args.check:
        stale = seal_schemas.stale()
        for path in stale:
            print(f"{path} is stale: run `just reference` (alpha-results reference)", file=sys.stderr)
        return 1 if stale else status
    for path in seal_schemas.write():
        print(f"wrote {path}")
    return status
