"""`alpha-results reference`: write docs/reference.md and the endpoint tables of docs/access.md and
docs/api.md from the declarations (`serve.reference` generates them)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    parser = sub.add_parser("reference")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="file to write (docs/reference.md; the endpoint tables of docs/access.md and docs/api.md are written with it)",
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from serve import reference

    return reference.run(args.out or reference.REFERENCE_PATH, args.check)
